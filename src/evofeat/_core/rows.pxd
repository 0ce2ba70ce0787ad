"""A sparse row's entries sorted by column (for the compiled loop and the LIBSVM reader)."""

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, qsort


cdef struct Entry:
    int64_t col
    double val


cdef inline int _by_col(const void* a, const void* b) noexcept nogil:
    cdef int64_t ca = (<const Entry*> a).col, cb = (<const Entry*> b).col
    return (ca > cb) - (ca < cb)


cdef inline void sort_entries(Entry* e, Py_ssize_t m) noexcept nogil:
    """Sort ``e[:m]`` by column (distinct): insertion sort for short rows, else qsort."""
    cdef Py_ssize_t a, b
    cdef Entry cur
    if m > 32:
        qsort(e, m, sizeof(Entry), _by_col)
        return
    for a in range(1, m):
        cur = e[a]
        b = a - 1
        while b >= 0 and e[b].col > cur.col:
            e[b + 1] = e[b]
            b -= 1
        e[b + 1] = cur


cdef inline void sort_pairs(int64_t* idx, double* val, Py_ssize_t m) noexcept nogil:
    """Sort the entries ``(idx[k], val[k])`` by ``idx`` (distinct): insertion sort, qsort when long
    (insertion sort too when there is no memory for qsort's copy: sorted in any case)."""
    cdef Py_ssize_t a, b
    cdef int64_t ci
    cdef double cv
    cdef Entry* ent = <Entry*> malloc(m * sizeof(Entry)) if m > 32 else NULL
    if ent is NULL:
        for a in range(1, m):
            ci = idx[a]
            cv = val[a]
            b = a - 1
            while b >= 0 and idx[b] > ci:
                idx[b + 1] = idx[b]
                val[b + 1] = val[b]
                b -= 1
            idx[b + 1] = ci
            val[b + 1] = cv
        return
    for a in range(m):
        ent[a].col = idx[a]
        ent[a].val = val[a]
    qsort(ent, m, sizeof(Entry), _by_col)
    for a in range(m):
        idx[a] = ent[a].col
        val[a] = ent[a].val
    free(ent)
