"""Seeded simulators of evolving feature spaces over a data set's rows.

Each function takes the rows in arrival order (permute them first with
:func:`evofeat.streams.permutation`) and returns a :class:`Stream` whose
segments say which features each row sees. The docstrings state the exact
schedule.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError
from evofeat.base.stream import Stream

__all__ = ["evolvable", "full", "haphazard", "trapezoidal", "trapezoidal_schedule"]


def _names(X: Any, feature_names: Sequence[Hashable] | None) -> list[Hashable]:
    return (
        list(feature_names) if feature_names is not None else [f"x{j}" for j in range(X.shape[1])]
    )


def _task(y: np.ndarray) -> str:
    vals = np.unique(y)
    if np.issubdtype(y.dtype, np.floating) and not np.all(vals == np.round(vals)):
        return "regression"
    return "binary" if set(vals.tolist()) <= {-1, 1} else "multiclass"


def full(
    X: Any, y: Any, feature_names: Sequence[Hashable] | None = None, *, task: str | None = None
) -> Stream:
    """Every feature visible in every row (the classical stream).

    >>> full(np.eye(3), np.array([1, -1, 1])).seg_rows.tolist()
    [0]
    """
    y = np.asarray(y)
    return Stream.full(
        X, y, _names(X, feature_names), task=task or _task(y), info={"scenario": "full"}
    )


def trapezoidal_schedule(
    n: int,
    d: int,
    n_stages: int = 10,
    *,
    layout: str = "paper",
    fractions: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """First row and number of visible (leading) features of each stage.

    ``layout="paper"``: the rows are cut into ``n_stages`` equal parts
    (part i covers rows ``floor((i-1) n / K)`` to ``floor(i n / K) - 1``) and
    part i sees the first ``max(1, floor(f_i d))`` features, ``f_i = i / K``
    unless ``fractions`` are given.

    ``layout="original-code"`` (the STSD authors' MATLAB drivers): with
    ``step = floor(n / K)``, row t (1-based) is in stage
    ``j = min(K, max(floor((t - 1) / step), 1))`` and sees the first
    ``max(1, floor(f_j d))`` features: the first stage lasts two blocks and
    the last fraction is reached only by the ``n mod K`` leftover rows.

    >>> trapezoidal_schedule(100, 24, 4)
    (array([ 0, 25, 50, 75]), array([ 6, 12, 18, 24]))
    >>> trapezoidal_schedule(1000, 24, 4, layout="original-code", fractions=[0.1, 0.4, 0.7, 1.0])
    (array([  0, 500, 750]), array([ 2,  9, 16]))
    """
    if isinstance(n_stages, bool) or not isinstance(n_stages, int | np.integer) or n_stages < 1:
        raise InputError(
            "n_stages is the number of stages",
            expected="a whole number >= 1",
            received=repr(n_stages),
            fix="pass n_stages=10 (or fractions=... for stages of unequal length)",
        )
    K = n_stages if fractions is None else len(fractions)
    fr = np.arange(1, K + 1) / K if fractions is None else np.asarray(fractions, dtype=float)
    if np.any(fr <= 0) or np.any(fr > 1) or np.any(np.diff(fr) < 0):
        raise InputError(
            "bad stage fractions",
            expected="increasing fractions in (0, 1]",
            received=str(fr.tolist()),
            fix="pass fractions like 0.1,0.2,...,1.0",
        )
    dims = np.maximum(1, np.floor(fr * d + 1e-9).astype(np.int64))
    if layout == "paper":
        starts = np.floor(np.arange(K) * n / K).astype(np.int64)
    elif layout == "original-code":
        step = max(1, n // K)
        t = np.arange(1, n + 1)
        stage = np.minimum(K, np.maximum((t - 1) // step, 1))  # 1-based stage of each row
        first = np.flatnonzero(np.concatenate([[True], stage[1:] != stage[:-1]]))
        return first.astype(np.int64), dims[stage[first] - 1]
    else:
        raise InputError(
            "unknown trapezoidal layout",
            expected="'paper' or 'original-code'",
            received=repr(layout),
            fix="pass layout='paper'",
        )
    keep = np.concatenate([[True], np.diff(starts) > 0])  # fewer rows than stages
    return starts[keep], dims[keep]


def trapezoidal(
    X: Any,
    y: Any,
    feature_names: Sequence[Hashable] | None = None,
    *,
    n_stages: int = 10,
    feature_order: str = "original",
    layout: str = "paper",
    fractions: Sequence[float] | None = None,
    seed: int = 0,
    task: str | None = None,
) -> Stream:
    """A trapezoidal stream (STSD): rows and features both grow.

    The schedule is :func:`trapezoidal_schedule`; stage i sees the leading
    features of the feature order: the data set's column order
    (``feature_order="original"``, as the STSD paper) or a seeded random
    order (``"random"``).

    >>> s = trapezoidal(np.ones((10, 4)), np.ones(10), n_stages=2)
    >>> s.seg_rows.tolist(), s.seg_masks.sum(axis=1).tolist()
    ([0, 5], [2, 4])
    """
    y = np.asarray(y)
    n, d = X.shape
    starts, dims = trapezoidal_schedule(n, d, n_stages, layout=layout, fractions=fractions)
    if feature_order == "original":
        order = np.arange(d)
    elif feature_order == "random":
        order = np.random.default_rng(seed).permutation(d)
    else:
        raise InputError(
            "unknown feature order",
            expected="'original' or 'random'",
            received=repr(feature_order),
            fix="pass feature_order='original'",
        )
    masks = np.zeros((starts.size, d), dtype=bool)
    for k, m in enumerate(dims):
        masks[k, order[:m]] = True
    info = {
        "scenario": "trapezoidal",
        "n_stages": int(n_stages),
        "layout": layout,
        "stage_rows": starts.tolist(),
        "stage_dims": dims.tolist(),
    }
    return Stream(X, y, _names(X, feature_names), starts, masks, task=task or _task(y), info=info)


def evolvable(
    X: Any,
    y: Any,
    feature_names: Sequence[Hashable] | None = None,
    *,
    views: Sequence[Any] | None = None,
    d2: int | float = 0.7,
    overlap: int = 10,
    cycles: int = 1,
    seed: int = 0,
    task: str | None = None,
) -> Stream:
    """A feature-evolvable stream (FESL): old features vanish, new ones appear.

    The rows are cut into ``cycles + 1`` near-equal periods (``T1 ~ T2 ~ ...``).
    Period k sees the space S_k only, except that its last ``overlap`` rows
    also see S_{k+1} (the B overlap rounds of the paper). S1 is the data
    set's features. The next spaces are either the given ``views`` (other
    feature sets of the same rows, e.g. another language of a document) or,
    by default, ``S_{k+1} = S1 G_k`` with ``G_k`` a seeded standard Gaussian
    ``d1 x d2`` matrix (``d2`` a count, or a fraction of ``d1``, default 0.7).
    The stream's columns are S1, S2, ... side by side; ``info["eval_from"]``
    is the first row after the first switch (the rows FESL scores) and
    ``info["switch_rows"]`` the first row of each period.

    >>> s = evolvable(np.ones((20, 10)), np.ones(20), d2=5, overlap=3)
    >>> s.n_features, s.seg_rows.tolist(), s.seg_masks.sum(axis=1).tolist(), s.info["eval_from"]
    (15, [0, 7, 10], [10, 15, 5], 10)
    """
    y = np.asarray(y)
    n, d1 = X.shape
    names1 = [f"s1:{n_}" for n_ in _names(X, feature_names)]
    if cycles < 1:
        raise InputError(
            "cycles must be at least 1",
            expected="an integer >= 1",
            received=str(cycles),
            fix="pass cycles=1",
        )
    rng = np.random.default_rng(seed)
    blocks: list[Any] = [X]
    names: list[Hashable] = list(names1)
    for k in range(cycles):
        if views is not None:
            if len(views) < cycles:
                raise InputError(
                    "not enough views",
                    expected=f"{cycles} views for {cycles} cycles",
                    received=f"{len(views)}",
                    fix="pass more views or fewer cycles",
                )
            V = views[k]
            if V.shape[0] != n:
                raise InputError(
                    "a view has another number of rows",
                    expected=f"{n} rows",
                    received=f"{V.shape[0]}",
                    fix="pass views of the same rows, in the same order",
                )
        else:
            width = int(round(d2 * d1)) if isinstance(d2, float) and d2 <= 1 else int(d2)
            G = rng.standard_normal((d1, max(1, width)))
            V = X @ G
            if sp.issparse(V):
                V = V.toarray()
        blocks.append(V)
        names += [f"s{k + 2}:{j}" for j in range(V.shape[1])]
    if any(sp.issparse(b) for b in blocks):
        Xall: Any = sp.hstack([sp.csr_matrix(b) for b in blocks], format="csr")
    else:
        Xall = np.hstack([np.asarray(b, dtype=np.float64) for b in blocks])
    bounds = np.floor(np.arange(cycles + 2) * n / (cycles + 1)).astype(np.int64)
    widths = [b.shape[1] for b in blocks]
    offs = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    if overlap < 0 or overlap >= int(np.min(np.diff(bounds))):
        raise InputError(
            "overlap does not fit the periods",
            expected=f"0 <= overlap < {int(np.min(np.diff(bounds)))}",
            received=str(overlap),
            fix="use a smaller overlap or more rows",
        )
    rows, masks = [], []
    for k in range(cycles + 1):
        m = np.zeros(int(offs[-1]), dtype=bool)
        m[offs[k] : offs[k + 1]] = True
        rows.append(bounds[k])
        masks.append(m)
        if k < cycles and overlap > 0:
            m2 = m.copy()
            m2[offs[k + 1] : offs[k + 2]] = True
            rows.append(bounds[k + 1] - overlap)
            masks.append(m2)
    info = {
        "scenario": "evolvable",
        "eval_from": int(bounds[1]),
        "switch_rows": bounds[1:-1].tolist(),
        "overlap": int(overlap),
        "space_dims": widths,
    }
    return Stream(Xall, y, names, np.array(rows), np.array(masks), task=task or _task(y), info=info)


def haphazard(
    X: Any,
    y: Any,
    feature_names: Sequence[Hashable] | None = None,
    *,
    p: float = 0.5,
    seed: int = 0,
    task: str | None = None,
) -> Stream:
    """Each feature visible with probability ``p`` in each row, independently (seeded).

    A row that draws no feature gets one, chosen uniformly, so no row is empty.

    >>> s = haphazard(np.ones((50, 4)), np.ones(50), p=0.5, seed=1)
    >>> bool(s.visible_mask().any(axis=1).all())
    True
    """
    if not 0 < p <= 1:
        raise InputError(
            "p must be a probability", expected="0 < p <= 1", received=str(p), fix="pass p=0.5"
        )
    y = np.asarray(y)
    n, d = X.shape
    rng = np.random.default_rng(seed)
    masks = rng.random((n, d)) < p
    empty = np.flatnonzero(~masks.any(axis=1))
    masks[empty, rng.integers(0, d, size=empty.size)] = True
    return Stream(
        X,
        y,
        _names(X, feature_names),
        np.arange(n),
        masks,
        task=task or _task(y),
        info={"scenario": "haphazard", "p": p},
    )
