"""The support of a weight vector as an indexed min-heap: keep the k largest |w| in O(log k).

Truncation to the B largest weights (STSD, OFS, PE_trun) on a sparse stream
must not cost O(d) per row. The learner keeps the columns with a non-zero
weight in a binary min-heap ordered by ``|w[col]|``, tells the heap about
every weight it changes (:func:`topk_touch`, O(log size)), and truncates by
popping the smallest (:func:`topk_truncate`, O(log size) per removed weight).

The arrays live in the learner's state (so they are grown, copied and
pickled with it): ``heap`` (int64, the columns of the support in heap order),
``pos`` (int64, the position of each column in ``heap``, -1 if absent; one
entry per feature, initialised to -1) and ``hsize`` (int64[1], the support
size). Nothing here allocates.

**Tie rule.** Columns are ordered by ``(|w[col]|, -col)``: the heap's top is
the smallest ``|w|`` and, among equal ``|w|``, the *higher* column. So
truncation keeps the largest weights and, among equal ``|w|``, the lower
column index. Every path of every learner that truncates uses this rule, so
binary-feature data (where many weights are exactly equal) give the same
predictions on the dict path, the array path and the NumPy references.

The order is invariant to a global positive scale of ``w``: a learner that
stores ``w = scale * v`` keeps the heap over ``v``.

Examples
--------
>>> import numpy as np
>>> w = np.array([0.5, -2.0, 0.5, 1.0, 0.0])
>>> heap, pos, hsize = np.zeros(5, np.int64), np.full(5, -1, np.int64), np.zeros(1, np.int64)
>>> for c in range(5):
...     topk_touch(heap, pos, hsize, w, c)
>>> int(hsize[0]), int(topk_min(heap, hsize))
(4, 2)
>>> topk_truncate(heap, pos, hsize, w, 2), w.tolist()
(2, [0.0, -2.0, 0.0, 1.0, 0.0])
"""

from __future__ import annotations

import numba as nb

from evofeat.base.kernel import leaf_jit

__all__ = [
    "topk_build",
    "topk_heapify",
    "topk_min",
    "topk_pop",
    "topk_rebuild",
    "topk_remove",
    "topk_reset",
    "topk_touch",
    "topk_truncate",
]


@nb.njit(cache=True, inline="always")
def _before(w, a, b):  # type: ignore[no-untyped-def]
    """True if column ``a`` is evicted before column ``b``: smaller |w|, then higher column."""
    wa = abs(w[a])
    wb = abs(w[b])
    if wa != wb:
        return wa < wb
    return a > b


@leaf_jit
def _sift_up(heap, pos, w, i):  # type: ignore[no-untyped-def]
    col = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        pc = heap[parent]
        if not _before(w, col, pc):
            break
        heap[i] = pc
        pos[pc] = i
        i = parent
    heap[i] = col
    pos[col] = i


@leaf_jit
def _sift_down(heap, pos, n, w, i):  # type: ignore[no-untyped-def]
    col = heap[i]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        right = child + 1
        if right < n and _before(w, heap[right], heap[child]):
            child = right
        cc = heap[child]
        if not _before(w, cc, col):
            break
        heap[i] = cc
        pos[cc] = i
        i = child
    heap[i] = col
    pos[col] = i


@leaf_jit
def _delete_at(heap, pos, hsize, w, i):  # type: ignore[no-untyped-def]
    n = hsize[0] - 1
    col = heap[i]
    pos[col] = -1
    hsize[0] = n
    if i == n:
        return
    heap[i] = heap[n]
    pos[heap[i]] = i
    if i > 0 and _before(w, heap[i], heap[(i - 1) >> 1]):
        _sift_up(heap, pos, w, i)
    else:
        _sift_down(heap, pos, n, w, i)


@leaf_jit
def topk_touch(heap, pos, hsize, w, col):  # type: ignore[no-untyped-def]
    """Restore the heap after ``w[col]`` changed (insert if new and non-zero, remove if now 0)."""
    i = pos[col]
    if w[col] == 0.0:
        if i >= 0:
            _delete_at(heap, pos, hsize, w, i)
        return
    if i < 0:
        i = hsize[0]
        heap[i] = col
        pos[col] = i
        hsize[0] = i + 1
        _sift_up(heap, pos, w, i)
        return
    if i > 0 and _before(w, col, heap[(i - 1) >> 1]):
        _sift_up(heap, pos, w, i)
    else:
        _sift_down(heap, pos, hsize[0], w, i)


@leaf_jit
def topk_remove(heap, pos, hsize, w, col):  # type: ignore[no-untyped-def]
    """Take ``col`` out of the heap if it is there (``w[col]`` is left as it is)."""
    i = pos[col]
    if i >= 0:
        _delete_at(heap, pos, hsize, w, i)


@leaf_jit
def topk_min(heap, hsize):  # type: ignore[no-untyped-def]
    """The column that would be evicted next (-1 if the heap is empty)."""
    return heap[0] if hsize[0] > 0 else -1


@leaf_jit
def topk_pop(heap, pos, hsize, w):  # type: ignore[no-untyped-def]
    """Remove and return the column that is evicted next (-1 if empty); ``w`` is left as it is."""
    if hsize[0] == 0:
        return -1
    col = heap[0]
    _delete_at(heap, pos, hsize, w, 0)
    return col


@leaf_jit
def topk_truncate(heap, pos, hsize, w, k):  # type: ignore[no-untyped-def]
    """Pop the smallest until at most ``k`` remain, zeroing their weights; return how many went."""
    removed = 0
    k = max(k, 0)
    while hsize[0] > k:
        col = topk_pop(heap, pos, hsize, w)
        w[col] = 0.0
        removed += 1
    return removed


@leaf_jit
def topk_reset(heap, pos, hsize):  # type: ignore[no-untyped-def]
    """Empty the heap (O(size): only the entries in use are cleared)."""
    for i in range(hsize[0]):
        pos[heap[i]] = -1
    hsize[0] = 0


@leaf_jit
def topk_heapify(heap, pos, hsize, w):  # type: ignore[no-untyped-def]
    """Restore the heap order of ``heap[:hsize]`` (columns in any order) and their ``pos`` (O(size))."""
    m = hsize[0]
    for i in range(m):
        pos[heap[i]] = i
    for i in range(m // 2 - 1, -1, -1):
        _sift_down(heap, pos, m, w, i)


@leaf_jit
def topk_rebuild(heap, pos, hsize, w, cols):  # type: ignore[no-untyped-def]
    """After changing many weights at once: drop members whose ``w`` is now 0, add the columns of
    ``cols`` that are not members and have ``w != 0``, restore the heap order (O(size + len(cols)))."""
    m = 0
    for i in range(hsize[0]):
        c = heap[i]
        if w[c] != 0.0:
            heap[m] = c
            m += 1
        else:
            pos[c] = -1
    for c in cols:
        if pos[c] < 0 and w[c] != 0.0:
            heap[m] = c
            pos[c] = m
            m += 1
    hsize[0] = m
    topk_heapify(heap, pos, hsize, w)


@leaf_jit
def topk_build(heap, pos, hsize, w, n):  # type: ignore[no-untyped-def]
    """Rebuild the heap from the non-zero entries of ``w[:n]`` (O(n))."""
    topk_reset(heap, pos, hsize)
    m = 0
    for col in range(n):
        if w[col] != 0.0:
            heap[m] = col
            m += 1
    hsize[0] = m
    topk_heapify(heap, pos, hsize, w)
