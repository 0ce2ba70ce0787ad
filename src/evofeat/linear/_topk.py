"""The support of a weight vector as an indexed min-heap: keep the k largest |w| in O(log k).

The learners ``cimport`` the inline heap of ``evofeat/_core/topk.pxd``; the
functions here call that same code on NumPy arrays (for tests and docs).

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

from evofeat._core.helpers import (
    topk_build,
    topk_min,
    topk_pop,
    topk_remove,
    topk_reset,
    topk_touch,
    topk_truncate,
)

__all__ = [
    "topk_build",
    "topk_min",
    "topk_pop",
    "topk_remove",
    "topk_reset",
    "topk_touch",
    "topk_truncate",
]
