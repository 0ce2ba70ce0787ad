# OVFM's state and math (see _ovfm.pyx).
from libc.stdint cimport int64_t

from evofeat._core.copula cimport CopulaCore


cdef class OVFMCore(CopulaCore):
    cdef public double[:, ::1] wx
    cdef public double[:, ::1] wz
    cdef public double[::1] bx
    cdef public double[::1] bz
    cdef public double[::1] ax
    cdef public double[::1] az
    cdef public double[::1] mix
    cdef public int64_t decay_choice
    cdef public double rate
    cdef public double eta
    cdef public int64_t learn_sigma
    cdef public int fit_intercept
