# The one weight vector of the truncating learners (OFS family, STSD family), in the spirit of
# scikit-learn's WeightVector: w = scale * v, so a global shrink (decay, projection onto a ball) is
# O(1) and a sparse update O(nnz). ||v||^2 is tracked incrementally, and the support (the columns
# with v != 0) is the indexed top-k min-heap of topk.pxd (same tie rule: among equal |v| the higher
# column is evicted first), touched only when an entry changes or crosses the k-th magnitude.
#
# The state stays the learner's own named fields (v, heap, pos: one entry per feature, pos = -1
# where absent; hsize, scale, sq_norm: scalars), so it is grown, copied and pickled by name. For the
# length of a call the learner points a WeightVector at them:
#
#     cdef WeightVector wv = weight_vector(&self.v[0], &self.heap[0], &self.pos[0], &self.hsize,
#                                          &self.scale, &self.sq_norm)
#     wv_shrink(&wv, 1.0 - self.lr * self.l2)
#
# API (all inline, nothing allocates):
#   weight_vector(...)       the view on a learner's fields
#   wv_fold_to(wv, s)        re-express w with scale = s, recompute ||v||^2       O(support)
#   wv_shrink(wv, f)         w *= f (f > 0); folds the scale into v before it underflows   O(1)
#   wv_set(wv, c, x)         v[c] = x, keeping ||v||^2 and the heap               O(log support)
#   wv_evict_min(wv)         v[c] = 0 for the column evicted next; returns it (-1: empty)
#   wv_set_by, wv_evict_min_by: the same with the heap keyed on another array (OFS's ranks)
#   wv_offer(wv, c, x, k)    a column outside the support asks for v[c] = x: it enters if the
#                            support has fewer than k columns or |x| beats the heap's minimum
#                            (which then leaves); returns whether it entered    O(log support)
# A learner that tracks another norm (STSD's sum |v|) adds its own small functions beside these
# (e.g. wv_set_l1 with an ``l1`` pointer), never a flag on these hot paths.
from libc.math cimport fabs
from libc.stdint cimport int64_t

from evofeat._core.topk cimport key_before, topk_pop, topk_rebuild, topk_remove, topk_touch

cdef extern from *:
    """
    static const double EVO_WV_TINY_SCALE = 1e-100;  /* below this the scale is folded into v */
    """
    const double WV_TINY_SCALE "EVO_WV_TINY_SCALE"


cdef struct WeightVector:
    double* v          # w = scale[0] * v, one entry per feature
    int64_t* heap      # the support in heap order (topk.pxd)
    int64_t* pos       # each column's position in heap, -1 if absent
    int64_t* hsize     # the support size
    double* scale
    double* sq_norm    # ||v||^2, up to date


cdef inline WeightVector weight_vector(double* v, int64_t* heap, int64_t* pos, int64_t* hsize,
                                       double* scale, double* sq_norm) noexcept nogil:
    cdef WeightVector wv
    wv.v = v
    wv.heap = heap
    wv.pos = pos
    wv.hsize = hsize
    wv.scale = scale
    wv.sq_norm = sq_norm
    return wv


cdef inline void wv_fold_to(WeightVector* wv, double new_scale) noexcept nogil:
    """Re-express ``w = scale * v`` with ``scale = new_scale``; recompute ``||v||^2`` (O(support))."""
    cdef double factor = wv.scale[0] if new_scale == 1.0 else wv.scale[0] / new_scale
    cdef double sq = 0.0
    cdef int64_t i, c
    for i in range(wv.hsize[0]):
        c = wv.heap[i]
        wv.v[c] *= factor
        sq += wv.v[c] * wv.v[c]
    wv.scale[0] = new_scale
    wv.sq_norm[0] = sq


cdef inline void wv_shrink(WeightVector* wv, double factor) noexcept nogil:
    """``w *= factor`` in O(1); the scale is folded back into ``v`` before it underflows."""
    wv.scale[0] *= factor
    if wv.scale[0] < WV_TINY_SCALE:
        wv_fold_to(wv, 1.0)


cdef inline void wv_set_by(WeightVector* wv, int64_t c, double new, const double* key) noexcept nogil:
    """``v[c] = new``, keeping ``||v||^2`` and the heap keyed on ``|key|`` (``key[c]`` already
    set) up to date (O(log support))."""
    cdef double old = wv.v[c]
    wv.v[c] = new
    wv.sq_norm[0] += new * new - old * old
    topk_touch(wv.heap, wv.pos, wv.hsize, key, c)


cdef inline void wv_set(WeightVector* wv, int64_t c, double new) noexcept nogil:
    """``v[c] = new``, keeping ``||v||^2`` and the heap (keyed on ``|v|``) up to date."""
    wv_set_by(wv, c, new, wv.v)


cdef inline int64_t wv_evict_min_by(WeightVector* wv, const double* key) noexcept nogil:
    """Zero the entry evicted next from the heap keyed on ``|key|`` (among equals the higher
    column); return it (``key`` itself is left as it is)."""
    cdef int64_t low = topk_pop(wv.heap, wv.pos, wv.hsize, key)
    if low >= 0:
        wv.sq_norm[0] -= wv.v[low] * wv.v[low]
        wv.v[low] = 0.0
    return low


cdef inline int64_t wv_evict_min(WeightVector* wv) noexcept nogil:
    """Zero the entry evicted next (smallest ``|v|``, among equals the higher column); return it."""
    return wv_evict_min_by(wv, wv.v)


cdef inline bint wv_offer(WeightVector* wv, int64_t c, double new, int64_t k) noexcept nogil:
    """Column ``c`` (outside the support) asks for ``v[c] = new`` under a support of at most ``k``.

    It enters if the support has room, or if it beats the heap's minimum (larger ``|v|``, or
    equal and a lower column), which is evicted; so the support stays the ``k`` largest.
    (Evicting then inserting, not replacing the minimum in place: the heap's layout is the
    order in which :func:`wv_fold_to` sums ``||v||^2``, so it must stay the one the learners
    have always had. For the same reason STSD's truncation, which adds a whole row and then
    evicts the smallest until ``k`` remain, is not this: both keep the ``k`` largest under
    the same tie rule, but the heaps end in other layouts and ``||v||^2`` (here) or ``l1``
    (STSD) is summed in another order.)
    """
    cdef int64_t low
    if k <= 0:
        return False
    if wv.hsize[0] >= k:
        low = wv.heap[0]
        if key_before(fabs(new), c, fabs(wv.v[low]), low):
            return False
        wv_evict_min(wv)
    wv_set(wv, c, new)
    return True


# STSD's variant: the same view with ``l1 = sum |v|`` (the learner's own field) tracked instead of
# ||v||^2; these never read or write ``sq_norm``, so a learner that uses only them passes NULL.
cdef inline void wv_add_l1(WeightVector* wv, double* l1, int64_t c, double delta,
                           bint touch) noexcept nogil:
    """``v[c] += delta``, keeping ``l1``; the heap too if ``touch`` (else rebuild it after)."""
    cdef double old = wv.v[c]
    wv.v[c] = old + delta
    l1[0] += fabs(wv.v[c]) - fabs(old)
    if touch:
        topk_touch(wv.heap, wv.pos, wv.hsize, wv.v, c)


cdef inline int64_t wv_evict_min_l1(WeightVector* wv, double* l1) noexcept nogil:
    """:func:`wv_evict_min` keeping ``l1``."""
    cdef int64_t low = topk_pop(wv.heap, wv.pos, wv.hsize, wv.v)
    if low >= 0:
        l1[0] -= fabs(wv.v[low])
        wv.v[low] = 0.0
    return low


cdef inline void wv_zero_l1(WeightVector* wv, double* l1, int64_t c) noexcept nogil:
    """``v[c] = 0`` for a column of the support, keeping ``l1`` and the heap."""
    l1[0] -= fabs(wv.v[c])
    wv.v[c] = 0.0
    topk_remove(wv.heap, wv.pos, wv.hsize, wv.v, c)


cdef inline void wv_fold_l1(WeightVector* wv, double* l1) noexcept nogil:
    """Fold the scale into ``v`` (and ``l1``); entries that underflow to 0 leave the support."""
    cdef int64_t i
    for i in range(wv.hsize[0]):
        wv.v[wv.heap[i]] *= wv.scale[0]
    l1[0] *= wv.scale[0]
    wv.scale[0] = 1.0
    topk_rebuild(wv.heap, wv.pos, wv.hsize, wv.v, NULL, 0)
