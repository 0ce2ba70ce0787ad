"""Statistical comparisons between learners."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["paired_outcome", "paired_tests"]


def paired_tests(
    a: ArrayLike, b: ArrayLike, *, alpha: float = 0.05, higher_is_better: bool = True
) -> dict[str, Any]:
    """Paired t-test and Wilcoxon signed-rank test of ``a`` against ``b`` (same runs, in order).

    Returns the mean difference ``a - b``, both two-sided p-values and each
    test's outcome for ``a``: ``"win"`` when its mean is better and the test
    rejects equality at level ``alpha``, ``"loss"`` when worse, else
    ``"tie"``. Identical samples tie with p = 1; a constant non-zero
    difference has no variance to test and counts as p = 0 for the t-test.
    Wilcoxon splits zero differences between the signs (``zero_method="zsplit"``).

    >>> out = paired_tests([10, 12, 11, 13, 12, 14], [14, 15, 15, 17, 15, 18], higher_is_better=False)
    >>> out["t_outcome"], out["wilcoxon_outcome"], round(out["t_pvalue"], 5)
    ('win', 'win', 1e-05)
    >>> paired_tests([1, 2, 3], [1, 2, 3])["t_outcome"]
    'tie'
    """
    from scipy.stats import ttest_rel, wilcoxon

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    diff = x - y
    if x.size < 2 or not np.any(diff):
        pt = pw = 1.0
    else:
        pt = 0.0 if np.allclose(diff, diff[0]) else float(ttest_rel(x, y).pvalue)
        pw = float(wilcoxon(x, y, zero_method="zsplit").pvalue)
    mean = float(diff.mean()) if diff.size else 0.0
    better = mean > 0 if higher_is_better else mean < 0

    def outcome(p: float) -> str:
        return ("win" if better else "loss") if p < alpha and mean != 0 else "tie"

    return {
        "mean_diff": mean,
        "t_pvalue": pt,
        "wilcoxon_pvalue": pw,
        "t_outcome": outcome(pt),
        "wilcoxon_outcome": outcome(pw),
    }


def paired_outcome(
    a: ArrayLike, b: ArrayLike, *, alpha: float = 0.05, higher_is_better: bool = True
) -> str:
    """``"win"``, ``"tie"`` or ``"loss"`` of ``a`` against ``b`` by a paired t-test (:func:`paired_tests`).

    >>> paired_outcome([0.9, 0.91, 0.92, 0.93], [0.8, 0.8, 0.81, 0.82])
    'win'
    >>> paired_outcome([1, 2, 3], [1, 2, 3])
    'tie'
    """
    if np.size(a) < 2:  # one run: no test, no verdict
        return "tie"
    return str(paired_tests(a, b, alpha=alpha, higher_is_better=higher_is_better)["t_outcome"])
