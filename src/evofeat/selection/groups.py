"""Feature groups from historical data: k-means over features and a clustering ensemble.

CEOFS section 2.2 (Du and Li 2017, following Huang 2014):

1. ``n_runs`` bootstrap samples of the rows (drawn with replacement);
2. on each, k-means over *features* with the correlation coefficient as
   similarity (:func:`feature_kmeans`);
3. the co-association matrix ``W(q, r)`` = fraction of the runs that put
   features q and r in one cluster (:func:`coassociation_distance` builds
   ``1 - W`` directly in scipy's condensed form, float32, row block by row
   block, never as a d x d matrix);
4. average-linkage agglomerative clustering, merging while the similarity of
   two groups exceeds ``theta`` (scipy's :func:`~scipy.cluster.hierarchy.linkage`
   with ``method="average"``, cut at distance ``1 - theta``).

For 10,000 features the condensed distance has 5 * 10^7 entries: 191 MB in
float32 while it is built; scipy's linkage needs it in float64 (381 MB) and
works on a copy of its own, so the peak is about 2 x 381 MB.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage

from evofeat.selection.citests import standardize

__all__ = [
    "coassociation_distance",
    "consensus_groups",
    "default_n_clusters",
    "ensemble_groups",
    "feature_kmeans",
]

#: Tolerance of the cut: a group similarity within this of ``theta`` does not merge.
_CUT_TOL = 1e-9


def default_n_clusters(n_features: int) -> int:
    """The default k of the feature k-means: ``ceil(sqrt(d))``, at most d.

    >>> default_n_clusters(100), default_n_clusters(10000), default_n_clusters(1)
    (10, 100, 1)
    """
    return int(min(n_features, max(1, np.ceil(np.sqrt(n_features)))))


def feature_kmeans(
    X: np.ndarray,
    n_clusters: int,
    rng: np.random.Generator,
    *,
    max_iter: int = 20,
    absolute: bool = False,
    n_iter: list[int] | None = None,
) -> np.ndarray:
    """k-means over the columns of ``X`` with correlation as similarity; the cluster of each column.

    Steps (CEOFS section 2.2): k distinct columns drawn at random are the
    centres; every column joins the centre it is most correlated with (a
    centre always keeps itself; ties go to the first centre); each centre
    then moves to the member of its cluster whose correlation with the
    centre is closest to the cluster's mean correlation with the centre (ties:
    the lowest column index); repeat until the centres stop moving or
    ``max_iter`` rounds. ``absolute=True`` uses ``|r|`` (a strongly negative
    correlation also counts as similar); the paper uses ``r``. A constant
    column has correlation 0 with every column. ``n_iter``, when given,
    receives the number of rounds run.

    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(100, 2))
    >>> X = np.repeat(base, 3, axis=1) + 0.1 * rng.normal(size=(100, 6))
    >>> feature_kmeans(X, 2, np.random.default_rng(1)).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    n, d = X.shape
    k = int(min(n_clusters, d))
    Z = np.nan_to_num(standardize(X))
    centres = np.sort(rng.choice(d, size=k, replace=False))
    ar = np.arange(d)
    labels = np.zeros(d, dtype=np.int64)
    rounds = 0
    for _ in range(max_iter):
        rounds += 1
        S = (Z.T @ Z[:, centres]) / n
        if absolute:
            S = np.abs(S)
        S[centres, np.arange(k)] = np.inf
        labels = np.argmax(S, axis=1)
        S[centres, np.arange(k)] = 1.0
        own = S[ar, labels]
        counts = np.bincount(labels, minlength=k)
        mean = np.bincount(labels, weights=own, minlength=k) / counts
        dev = np.abs(own - mean[labels])
        order = np.lexsort((ar, dev, labels))  # by cluster, then deviation, then index
        first = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
        new = order[first]  # one per cluster, clusters in order 0..k-1
        if np.array_equal(new, centres):
            break
        centres = new
    if n_iter is not None:
        n_iter.append(rounds)
    return labels


def coassociation_distance(labels: np.ndarray, block: int = 256) -> np.ndarray:
    """``1 - W`` in scipy's condensed order (float32), from the clusters of ``m`` runs.

    ``labels`` is ``(m, d)``: the cluster of each feature in each run.
    Built by blocks of ``block`` rows, so the extra memory beyond the result
    is ``O(block * d * m)``.

    >>> coassociation_distance(np.array([[0, 0, 1], [0, 1, 1]])).tolist()
    [0.5, 1.0, 0.5]
    """
    labels = np.asarray(labels)
    m, d = labels.shape
    out = np.empty(d * (d - 1) // 2, dtype=np.float32)
    L = np.ascontiguousarray(labels.T)  # (d, m)
    pos = 0
    for i0 in range(0, d - 1, block):
        i1 = min(d - 1, i0 + block)
        # disagreements of rows i0..i1-1 with every later column
        dis = (L[i0:i1, None, :] != L[None, i0 + 1 :, :]).sum(axis=2, dtype=np.int32)
        for i in range(i0, i1):
            row = dis[i - i0, i - i0 :]
            out[pos : pos + row.size] = row
            pos += row.size
    out /= np.float32(m)
    return out


def ensemble_groups(
    X: np.ndarray,
    *,
    n_runs: int = 10,
    n_clusters: int | None = None,
    theta: float = 0.5,
    bootstrap: bool = True,
    max_iter: int = 20,
    absolute: bool = False,
    rng: np.random.Generator | None = None,
    timings: dict[str, float] | None = None,
    n_iter: list[int] | None = None,
) -> np.ndarray:
    """Feature groups of the clustering ensemble: the group (``0..G-1``) of each column.

    Groups are numbered in order of their lowest column. With ``n_runs=1``
    the co-association is 0 or 1, so the groups are the clusters of the one
    k-means run (COFS). ``timings``, when given, receives the seconds spent
    in ``"kmeans"``, ``"coassociation"`` and ``"linkage"``; ``n_iter``, the
    number of k-means rounds of each run.

    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(60, 3))
    >>> X = np.repeat(base, 4, axis=1) + 0.3 * rng.normal(size=(60, 12))
    >>> ensemble_groups(X, n_clusters=3, rng=np.random.default_rng(0)).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    """
    rng = np.random.default_rng(0) if rng is None else rng
    clock = {} if timings is None else timings
    tic = time.perf_counter()
    n, d = X.shape
    if d == 0:
        return np.zeros(0, dtype=np.int64)
    k = default_n_clusters(d) if n_clusters is None else int(min(n_clusters, d))
    runs = np.empty((n_runs, d), dtype=np.int64)
    for t in range(n_runs):
        rows = rng.integers(0, n, size=n) if bootstrap else np.arange(n)
        runs[t] = feature_kmeans(
            X[rows], k, rng, max_iter=max_iter, absolute=absolute, n_iter=n_iter
        )
    clock["kmeans"] = time.perf_counter() - tic
    return consensus_groups(runs, theta, timings=clock)


def consensus_groups(
    runs: np.ndarray, theta: float = 0.5, *, timings: dict[str, float] | None = None
) -> np.ndarray:
    """Average-linkage consensus of ``m`` partitions (rows of ``runs``), cut where similarity <= ``theta``.

    Merging while the average co-association of two groups exceeds
    ``theta`` is the flat cut of the average-linkage dendrogram at distance
    ``1 - theta`` (average linkage has no inversions); a similarity within
    1e-9 of ``theta`` does not merge. Groups are numbered by their lowest
    column.

    >>> consensus_groups(np.array([[0, 0, 1, 1], [0, 0, 0, 1], [0, 1, 1, 1]]), 0.5).tolist()
    [0, 0, 1, 1]
    """
    runs = np.atleast_2d(np.asarray(runs))
    clock = {} if timings is None else timings
    m, d = runs.shape
    if d <= 1:
        return np.zeros(d, dtype=np.int64)
    tic = time.perf_counter()
    if m == 1:  # co-association 0/1: the groups are the partition itself
        flat = runs[0]
    else:
        dist32 = coassociation_distance(runs)
        clock["coassociation"], tic = time.perf_counter() - tic, time.perf_counter()
        # scipy's linkage works in float64: convert here and drop the float32 copy first,
        # so the float32 and float64 forms never sit beside scipy's own working copy
        dist = dist32.astype(np.float64)
        del dist32
        Z = linkage(dist, method="average")
        del dist
        flat = fcluster(Z, t=(1.0 - theta) - _CUT_TOL, criterion="distance")
        clock["linkage"] = time.perf_counter() - tic
    _, first, inv = np.unique(flat, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inv.ravel()]
