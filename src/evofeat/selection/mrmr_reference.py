"""mRMR as Peng's reference program computes it (the C++ ``mrmr`` that ``pymrmr`` wraps).

Peng, Long and Ding's program (2005) selects features from *discrete* data.
Its conventions, which a textbook restatement of mRMR leaves open, are:

- each variable is rounded to integers and shifted so that its minimum is 0;
  mutual information is in bits, from joint frequencies;
- the relevance ``I(f; c)`` of every feature is kept in single precision and
  the features are sorted by it, decreasing, with Numerical Recipes'
  ``sort2`` (a quicksort: median of three, insertion sort below 7 elements),
  which is not stable: equal relevances come out in the order that sort
  leaves them;
- the candidate pool is the first ``min(5000, d)`` features of that order; the
  first pick is the pool's first, and each later pick is the pool's first
  feature (in pool order) with the strictly largest score, ``I(f; c) - mean_s
  I(f; s)`` (MID) or ``I(f; c) / (mean_s I(f; s) + 1e-4)`` (MIQ).

:func:`peng_mrmr` follows those rules in NumPy (and is checked against
``pymrmr`` in ``tests/selection/test_mrmr_reference.py`` where ``pymrmr`` is installed).
"""

from __future__ import annotations

import math

import numpy as np

from evofeat.base.errors import InputError

__all__ = ["peng_mrmr", "nr_sort2_order"]

_POOL = 5000


def nr_sort2_order(keys: np.ndarray) -> np.ndarray:
    """The permutation Numerical Recipes' ``sort2`` applies when it sorts ``keys`` increasing.

    The quicksort of *Numerical Recipes in C* (2nd ed., section 8.2):
    partitions around the median of the first, middle and last elements,
    insertion sort on pieces of fewer than 7, the larger piece pushed on a
    stack. Equal keys end in an order that depends on the whole array.

    >>> nr_sort2_order(np.array([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    arr = [0.0, *np.asarray(keys, dtype=np.float32).tolist()]  # 1-based, as the original
    idx = [0, *range(len(keys))]
    n = len(keys)
    ir, lo = n, 1
    stack: list[tuple[int, int]] = []

    def swap(a: int, b: int) -> None:
        arr[a], arr[b] = arr[b], arr[a]
        idx[a], idx[b] = idx[b], idx[a]

    while True:
        if ir - lo < 7:  # straight insertion on arr[lo..ir]
            for j in range(lo + 1, ir + 1):
                a, b = arr[j], idx[j]
                i = j - 1
                while i >= 1 and arr[i] > a:
                    arr[i + 1], idx[i + 1] = arr[i], idx[i]
                    i -= 1
                arr[i + 1], idx[i + 1] = a, b
            if not stack:
                return np.asarray(idx[1:], dtype=np.int64)
            lo, ir = stack.pop()
            continue
        k = (lo + ir) >> 1
        swap(k, lo + 1)
        if arr[lo + 1] > arr[ir]:
            swap(lo + 1, ir)
        if arr[lo] > arr[ir]:
            swap(lo, ir)
        if arr[lo + 1] > arr[lo]:
            swap(lo + 1, lo)
        i, j = lo + 1, ir
        a, b = arr[lo], idx[lo]
        while True:
            i += 1
            while arr[i] < a:
                i += 1
            j -= 1
            while arr[j] > a:
                j -= 1
            if j < i:
                break
            swap(i, j)
        arr[lo], idx[lo] = arr[j], idx[j]
        arr[j], idx[j] = a, b
        if ir - i + 1 >= j - lo:
            stack.append((i, ir))
            ir = j - 1
        else:
            stack.append((lo, j - 1))
            lo = i


def _states(v: np.ndarray) -> np.ndarray:
    """Round half away from zero to integers, then shift so that the minimum is 0."""
    r = np.where(v > 0, np.floor(v + 0.5), np.ceil(v - 0.5)).astype(np.int64)
    return r - r.min(axis=0)


def _mi_bits(a: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Mutual information in bits between the state vector ``a`` and every column of ``B``.

    With the program's operation order (so that equal scores tie as they do
    there): ``P[b, a] = count / n``; marginals summed state by state;
    ``sum_b sum_a P ln(P / p(a) / p(b))``, then divided by ``ln 2``.
    """
    n = a.size
    la, lb = int(a.max()) + 1, int(B.max()) + 1
    p = B.shape[1]
    flat = (np.arange(p) * lb * la)[None, :] + B * la + a[:, None]
    P = np.bincount(flat.ravel(), minlength=p * lb * la).reshape(p, lb, la) / n
    pa = np.zeros((p, la))
    pb = np.zeros((p, lb))
    for i in range(la):
        for j in range(lb):
            pa[:, i] += P[:, j, i]
            pb[:, j] += P[:, j, i]
    cells = [(j, i) for j in range(lb) for i in range(la)]  # the program's summation order
    q = np.stack([P[:, j, i] for j, i in cells])
    ok = (q != 0) & np.stack([(pa[:, i] != 0) & (pb[:, j] != 0) for j, i in cells])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.stack([P[:, j, i] / pa[:, i] / pb[:, j] for j, i in cells])
    terms = np.where(ok, q * _log(np.where(ok, ratio, 1.0)), 0.0)
    mi = np.zeros(p)
    for t in terms:
        mi += t
    return mi / math.log(2.0)


def _log(x: np.ndarray) -> np.ndarray:
    """The C library's ``log`` (``math.log``), element by element.

    NumPy's vectorised ``log`` may differ from it in the last bit, which is
    enough to turn an exact tie of two scores the other way. The ratios are
    few distinct values (counts over n), so each is taken once.
    """
    uniq, inv = np.unique(x, return_inverse=True)
    return np.array([math.log(v) for v in uniq.tolist()])[inv.ravel()].reshape(x.shape)


def peng_mrmr(D: np.ndarray, y: np.ndarray, k: int, method: str = "MID") -> list[int]:
    """The first ``k`` features (column indices) that Peng's mRMR program selects from discrete ``D``.

    Parameters
    ----------
    D
        ``(n, d)`` discrete data (values are rounded to integers).
    y
        ``(n,)`` class labels (numbers; rounded to integers as the program does).
    k
        How many features to select (at most ``min(5000, d)``).
    method
        ``"MID"`` (difference) or ``"MIQ"`` (quotient).

    Examples
    --------
    >>> D = np.array([[0, 1, 2], [0, 0, 2], [1, 1, 2], [1, 0, 0], [2, 1, 0], [2, 0, 1]])
    >>> peng_mrmr(D, np.array([0, 0, 0, 1, 1, 1]), 2)  # column 2 alone determines the class
    [2, 0]
    """
    if method not in ("MID", "MIQ"):
        raise InputError(
            "unknown mRMR criterion",
            expected="'MID' or 'MIQ'",
            received=repr(method),
            fix="pass method='MID'",
        )
    D = _states(np.asarray(D, dtype=np.float64))
    c = _states(np.asarray(y, dtype=np.float64).reshape(-1, 1))[:, 0]
    d = D.shape[1]
    relevance = _mi_bits(c, D)
    pool = nr_sort2_order(-relevance.astype(np.float32))[: min(_POOL, d)]
    k = min(k, pool.size)
    chosen = [int(pool[0])]
    taken = np.zeros(d, dtype=bool)
    taken[chosen[0]] = True
    redundancy = np.zeros(d)
    for _ in range(1, k):
        redundancy[pool] += _mi_bits(D[:, chosen[-1]], D[:, pool])
        red = redundancy[pool] / len(chosen)
        rel = relevance[pool]
        score = rel - red if method == "MID" else rel / (red + 1e-4)
        score = np.where(taken[pool], -np.inf, score)
        best = int(pool[int(np.argmax(score))])  # argmax: the first maximum, in pool order
        chosen.append(best)
        taken[best] = True
    return chosen
