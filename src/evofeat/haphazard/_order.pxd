# Sorting columns by a key, for the truncation steps of OLVF and OCDS (libc's qsort).

cdef struct Entry:
    double key
    Py_ssize_t col


cdef inline int by_key_desc(const void* a, const void* b) noexcept nogil:
    """Larger key first; equal keys by increasing column (a deterministic order)."""
    cdef const Entry* x = <const Entry*>a
    cdef const Entry* y = <const Entry*>b
    if x.key > y.key:
        return -1
    if x.key < y.key:
        return 1
    return -1 if x.col < y.col else (1 if x.col > y.col else 0)
