"""Statistical comparisons between learners."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["paired_outcome"]


def paired_outcome(
    a: Sequence[float], b: Sequence[float], *, alpha: float = 0.05, higher_is_better: bool = True
) -> str:
    """``"win"``, ``"tie"`` or ``"loss"`` of ``a`` against ``b`` by a paired t-test.

    ``a`` wins when its mean is better and the two-sided paired t-test
    rejects equal means at level ``alpha``; identical samples tie.

    >>> paired_outcome([0.9, 0.91, 0.92, 0.93], [0.8, 0.8, 0.81, 0.82])
    'win'
    >>> paired_outcome([1, 2, 3], [1, 2, 3])
    'tie'
    """
    from scipy.stats import ttest_rel

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    diff = x - y
    if x.size < 2 or np.allclose(diff, diff[0]):
        if np.all(diff == 0) or x.size < 2:
            return "tie"
        better = diff[0] > 0 if higher_is_better else diff[0] < 0
        return "win" if better else "loss"
    p = float(ttest_rel(x, y).pvalue)
    if not p < alpha:
        return "tie"
    better = diff.mean() > 0 if higher_is_better else diff.mean() < 0
    return "win" if better else "loss"
