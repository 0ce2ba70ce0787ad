# The protocol between the one prequential loop (and the dict path) and a learner's math.
from libc.stdint cimport int64_t


cdef class Core:
    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept
    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept
    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1
