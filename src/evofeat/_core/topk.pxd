# The support of a weight vector as an indexed min-heap: keep the k largest |w| in O(log k).
# Truncation to the B largest weights (STSD, OFS, PE_trun) on a sparse stream must not cost O(d) per row: the learner
# keeps the columns with a non-zero weight in a binary min-heap ordered by |w[col]|, tells the heap about every weight
# it changes (topk_touch, O(log size)) and truncates by popping the smallest (topk_truncate, O(log size) per weight).
# Tie rule: columns are ordered by (|w[col]|, -col), so truncation keeps the largest |w| and, among equals, the lower
# column; every path of every truncating learner (dict, array, the tests' NumPy references) uses it. The order is
# invariant to a global positive scale of w (a learner storing w = scale * v keeps the heap over v).
# evofeat._core.helpers wraps these functions for Python (the tests use them).
# ``heap``: the columns of the support in heap order; ``pos``: each column's position in ``heap``
# (-1 if absent, one entry per feature); ``hsize``: the support size. Nothing here allocates.
from libc.math cimport fabs, floor
from libc.stdint cimport int64_t


cdef inline int64_t budget_round(double budget, int64_t d) noexcept nogil:
    """How many of ``d`` weights a fractional budget keeps, as the papers' MATLAB code counts it:
    ``round(budget d)``, halves up (OFS clamps it to at least 1, STSD's original code does not)."""
    return <int64_t> floor(budget * <double> d + 0.5)


cdef inline bint key_before(double ka, int64_t a, double kb, int64_t b) noexcept nogil:
    """The tie rule, written once: True if column ``a`` of key ``ka`` is evicted before column
    ``b`` of key ``kb``: a smaller key, then the higher column (False if either key is NaN)."""
    if ka != kb:
        return ka < kb
    return a > b


cdef inline bint before(const double* w, int64_t a, int64_t b) noexcept nogil:
    """True if column ``a`` is evicted before column ``b``: smaller |w|, then higher column."""
    return key_before(fabs(w[a]), a, fabs(w[b]), b)


cdef inline void sift_up(int64_t* heap, int64_t* pos, const double* w, int64_t i) noexcept nogil:
    cdef int64_t col = heap[i], parent, pc
    while i > 0:
        parent = (i - 1) >> 1
        pc = heap[parent]
        if not before(w, col, pc):
            break
        heap[i] = pc
        pos[pc] = i
        i = parent
    heap[i] = col
    pos[col] = i


cdef inline void sift_down(int64_t* heap, int64_t* pos, int64_t n, const double* w,
                           int64_t i) noexcept nogil:
    cdef int64_t col = heap[i], child, right, cc
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        right = child + 1
        if right < n and before(w, heap[right], heap[child]):
            child = right
        cc = heap[child]
        if not before(w, cc, col):
            break
        heap[i] = cc
        pos[cc] = i
        i = child
    heap[i] = col
    pos[col] = i


cdef inline void delete_at(int64_t* heap, int64_t* pos, int64_t* hsize, const double* w,
                           int64_t i) noexcept nogil:
    cdef int64_t n = hsize[0] - 1
    pos[heap[i]] = -1
    hsize[0] = n
    if i == n:
        return
    heap[i] = heap[n]
    pos[heap[i]] = i
    if i > 0 and before(w, heap[i], heap[(i - 1) >> 1]):
        sift_up(heap, pos, w, i)
    else:
        sift_down(heap, pos, n, w, i)


cdef inline void topk_touch(int64_t* heap, int64_t* pos, int64_t* hsize, const double* w,
                            int64_t col) noexcept nogil:
    """Restore the heap after ``w[col]`` changed (insert if new and non-zero, remove if now 0)."""
    cdef int64_t i = pos[col]
    if w[col] == 0.0:
        if i >= 0:
            delete_at(heap, pos, hsize, w, i)
        return
    if i < 0:
        i = hsize[0]
        heap[i] = col
        pos[col] = i
        hsize[0] = i + 1
        sift_up(heap, pos, w, i)
        return
    if i > 0 and before(w, col, heap[(i - 1) >> 1]):
        sift_up(heap, pos, w, i)
    else:
        sift_down(heap, pos, hsize[0], w, i)


cdef inline void topk_remove(int64_t* heap, int64_t* pos, int64_t* hsize, const double* w,
                             int64_t col) noexcept nogil:
    """Take ``col`` out of the heap if it is there (``w[col]`` is left as it is)."""
    cdef int64_t i = pos[col]
    if i >= 0:
        delete_at(heap, pos, hsize, w, i)


cdef inline int64_t topk_min(const int64_t* heap, const int64_t* hsize) noexcept nogil:
    """The column that would be evicted next (-1 if the heap is empty)."""
    return heap[0] if hsize[0] > 0 else -1


cdef inline int64_t topk_pop(int64_t* heap, int64_t* pos, int64_t* hsize,
                             const double* w) noexcept nogil:
    """Remove and return the column that is evicted next (-1 if empty); ``w`` is left as it is."""
    if hsize[0] == 0:
        return -1
    cdef int64_t col = heap[0]
    delete_at(heap, pos, hsize, w, 0)
    return col


cdef inline int64_t topk_truncate(int64_t* heap, int64_t* pos, int64_t* hsize, double* w,
                                  int64_t k) noexcept nogil:
    """Pop the smallest until at most ``k`` remain, zeroing their weights; return how many went."""
    cdef int64_t removed = 0, col
    if k < 0:
        k = 0
    while hsize[0] > k:
        col = topk_pop(heap, pos, hsize, w)
        w[col] = 0.0
        removed += 1
    return removed


cdef inline void topk_reset(int64_t* heap, int64_t* pos, int64_t* hsize) noexcept nogil:
    """Empty the heap (O(size): only the entries in use are cleared)."""
    cdef int64_t i
    for i in range(hsize[0]):
        pos[heap[i]] = -1
    hsize[0] = 0


cdef inline void topk_heapify(int64_t* heap, int64_t* pos, int64_t* hsize,
                              const double* w) noexcept nogil:
    """Restore the heap order of ``heap[:hsize]`` (columns in any order) and their ``pos``."""
    cdef int64_t m = hsize[0], i
    for i in range(m):
        pos[heap[i]] = i
    for i in range(m // 2 - 1, -1, -1):
        sift_down(heap, pos, m, w, i)


cdef inline void topk_rebuild(int64_t* heap, int64_t* pos, int64_t* hsize, const double* w,
                              const int64_t* cols, Py_ssize_t ncols) noexcept nogil:
    """After changing many weights at once: drop members whose ``w`` is now 0, add the columns of
    ``cols`` that are not members and have ``w != 0``, restore the heap order."""
    cdef int64_t m = 0, i, c
    cdef Py_ssize_t j
    for i in range(hsize[0]):
        c = heap[i]
        if w[c] != 0.0:
            heap[m] = c
            m += 1
        else:
            pos[c] = -1
    for j in range(ncols):
        c = cols[j]
        if pos[c] < 0 and w[c] != 0.0:
            heap[m] = c
            pos[c] = m
            m += 1
    hsize[0] = m
    topk_heapify(heap, pos, hsize, w)


cdef inline void topk_build(int64_t* heap, int64_t* pos, int64_t* hsize, const double* w,
                            int64_t n) noexcept nogil:
    """Rebuild the heap from the non-zero entries of ``w[:n]`` (O(n))."""
    topk_reset(heap, pos, hsize)
    cdef int64_t m = 0, col
    for col in range(n):
        if w[col] != 0.0:
            heap[m] = col
            m += 1
    hsize[0] = m
    topk_heapify(heap, pos, hsize, w)
