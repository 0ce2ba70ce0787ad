"""Multiclass STSD: the multiclass PA step on a growing feature space, kept sparse by feature."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar, NamedTuple

import numba as nb
import numpy as np

from evofeat.base import InputError, OnlineLearner, register_kernel
from evofeat.linear._ops import sq_norm
from evofeat.linear._stsd_kernel import _MODES, _TINY_SCALE, _tau, budget_limit, running_sum
from evofeat.linear._topk import topk_pop, topk_rebuild, topk_touch
from evofeat.linear.stsd import _check, _check_common

__all__ = ["STSDMulticlass", "stsd_multiclass_reference"]

_RULE, _C, _RADIUS, _BUDGET, _K = range(5)
_SCALE, _L1, _DIM = range(3)


class STSDMulticlassState(NamedTuple):
    V: np.ndarray  # (features, classes) weights up to the scale: W = s[_SCALE] * V
    g: np.ndarray  # sum_c |V[j, c]|: the L1 norm of feature j's weights (the heap key)
    heap: np.ndarray  # features with a non-zero row, as a _topk min-heap over g
    pos: np.ndarray
    hsize: np.ndarray
    s: np.ndarray  # [scale, sum of g (running), dim]
    p: np.ndarray  # [rule, C, radius, budget, n_classes]
    f: np.ndarray  # scratch: the class scores of the current row


@nb.njit(cache=True)
def _scores(state, idx, val):  # type: ignore[no-untyped-def]
    f, V = state.f, state.V
    f[:] = 0.0
    for k in range(idx.shape[0]):
        for c in range(f.shape[0]):
            f[c] += V[idx[k], c] * val[k]
    f *= state.s[_SCALE]
    return f


@nb.njit(cache=True)
def _argmax(f, skip):  # type: ignore[no-untyped-def]
    """The highest score (the lowest class among ties), ``skip`` excluded."""
    best = -1
    for c in range(f.shape[0]):
        if c != skip and (best < 0 or f[c] > f[best]):
            best = c
    return best


@nb.njit(cache=True)
def _row_norm(V, g, j):  # type: ignore[no-untyped-def]
    """``g[j] = sum_c |V[j, c]|``, left to right."""
    g[j] = 0.0
    for c in range(V.shape[1]):
        g[j] += abs(V[j, c])


@nb.njit(cache=True)
def _fold_scale(state):  # type: ignore[no-untyped-def]
    """Multiply the scale into V (when it gets tiny), dropping rows that underflow to 0."""
    V, g, heap, s = state.V, state.g, state.heap, state.s
    V *= s[_SCALE]
    s[_L1] *= s[_SCALE]
    s[_SCALE] = 1.0
    for i in range(state.hsize[0]):
        _row_norm(V, g, heap[i])
    topk_rebuild(heap, state.pos, state.hsize, g, heap[:0])


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    f = _scores(state, idx, val)
    best = _argmax(f, -1)
    return f[best], float(best)


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    p, s, V, g = state.p, state.s, state.V, state.g
    yc = int(y)
    if yc < 0 or yc >= V.shape[1]:
        return 0.0
    f = _scores(state, idx, val)
    r = _argmax(f, yc)
    loss = max(0.0, 1.0 - (f[yc] - f[r]))
    sq = sq_norm(val)
    if loss > 0.0 and 0.0 < sq < np.inf:
        a = _tau(int(p[_RULE]), p[_C], loss, 2.0 * sq, 0.0, False) / s[_SCALE]
        for k in range(idx.shape[0]):
            j = idx[k]
            if val[k] == 0.0:
                continue
            V[j, yc] += a * val[k]
            V[j, r] -= a * val[k]
            old = g[j]
            _row_norm(V, g, j)
            s[_L1] += g[j] - old
            topk_touch(state.heap, state.pos, state.hsize, g, j)
    if s[_SCALE] * s[_L1] > p[_RADIUS]:  # L1 ball over all the weights
        s[_SCALE] *= p[_RADIUS] / (s[_SCALE] * s[_L1])
        if s[_SCALE] < _TINY_SCALE:
            _fold_scale(state)
    k = budget_limit(0, p[_BUDGET], int(s[_DIM]), False)
    while state.hsize[0] > k:  # drop the features with the smallest weight rows
        j = topk_pop(state.heap, state.pos, state.hsize, g)
        s[_L1] -= g[j]
        g[j] = 0.0
        V[j, :] = 0.0
    if state.hsize[0] == 0:
        s[_L1] = 0.0
    return loss


@nb.njit(cache=True)
def _visible(state, cols, dim):  # type: ignore[no-untyped-def]
    state.s[_DIM] = max(state.s[_DIM], dim)


register_kernel(STSDMulticlassState, _predict, _learn, _visible)


class STSDMulticlass(OnlineLearner):
    """The multiclass STSD that the paper leaves to future work (its Section VI).

    One weight vector per class, ``W`` (features x classes), learnt by the
    multiclass PA step (Crammer et al., 2006, Sec. 7, max-loss form) on the
    STSD round: predict the class with the highest score ``W_c . x~`` (the
    lowest class among ties); with ``r`` the best-scoring wrong class, suffer
    ``l = max(0, 1 - (W_y . x - W_r . x))``; step ``W_y += tau x``,
    ``W_r -= tau x`` over all the row's features (new ones start at 0, so they
    are set by the same step, as STSD's Eq. 4) with ``tau = l / (2||x||^2)``,
    ``min(C, .)`` or ``l / (2||x||^2 + 1/(2C))``; scale ``W`` onto the L1 ball
    ``sum |W| <= radius``; truncate by feature: keep the ``max(1, floor(B d))``
    features whose weight row has the largest L1 norm (ties keep the feature
    seen first), so the model uses at most a fraction B of the features for
    all classes together. ``budget=1.0, radius=inf`` is the plain multiclass
    PA on the growing feature space, the natural baseline. Vanished features
    keep their weights.

    Parameters
    ----------
    mode
        ``"stsd"``, ``"stsd-i"`` or ``"stsd-ii"`` (the step rule).
    C
        Aggressiveness of the -I / -II steps.
    radius
        Radius of the L1 ball on all the weights (``inf`` for none).
    budget
        B, the fraction of the features seen so far that may keep weights.
    n_classes
        Number of classes (labels are codes ``0 .. n_classes - 1``); ``None``:
        taken from the stream by :func:`evofeat.evaluate.prequential`.
    seed
        Unused (kept so that every STSD learner takes a seed).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("dna")
    >>> model = STSDMulticlass(C=0.1, budget=0.5)
    >>> prequential(model, trapezoidal(ds.X, ds.y, ds.feature_names)).mistakes
    1082
    >>> len(model.selected_features_), model.budget_limit_
    (90, 90)

    References
    ----------
    Zhang et al. Towards Mining Trapezoidal Data Streams. ICDM 2015 (Alg. 1-3,
    Sec. VI). Crammer, Dekel, Keshet, Shalev-Shwartz, Singer. Online
    Passive-Aggressive Algorithms. JMLR 7, 2006 (Sec. 7).
    """

    task: ClassVar[str] = "multiclass"
    _modes: ClassVar[tuple[str, ...]] = ("stsd", "stsd-i", "stsd-ii")
    per_feature: ClassVar[tuple[str, ...]] = ("V", "g", "heap", "pos")

    def __init__(
        self,
        mode: str = "stsd-i",
        C: float = 0.1,
        radius: float = 30.0,
        budget: float = 0.5,
        n_classes: int | None = None,
        seed: int = 0,
    ) -> None:
        self.mode = mode
        self.C = C
        self.radius = radius
        self.budget = budget
        self.n_classes = n_classes
        self.seed = seed

    def _check_params(self) -> None:
        _check_common(self)
        ok = self.n_classes is None or (
            isinstance(self.n_classes, int | np.integer) and self.n_classes >= 2
        )
        _check(
            ok,
            "n_classes must be at least 2",
            "an int >= 2 or None",
            self.n_classes,
            "pass n_classes=3",
        )

    def _make_state(self, capacity: int) -> STSDMulticlassState:
        if self.n_classes is None:
            raise InputError(
                "the number of classes is not known",
                expected="n_classes=<int>",
                received="n_classes=None",
                fix="pass n_classes (prequential infers it)",
            )
        K = int(self.n_classes)
        return STSDMulticlassState(
            V=np.zeros((capacity, K)),
            g=np.zeros(capacity),
            heap=np.zeros(capacity, np.int64),
            pos=np.full(capacity, -1, np.int64),
            hsize=np.zeros(1, np.int64),
            s=np.array([1.0, 0.0, 0.0]),
            p=np.array([_MODES[self.mode][0], self.C, self.radius, self.budget, K]),
            f=np.zeros(K),
        )

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name == "pos":
            grown[start:] = -1

    def _encode_label(self, y: Any) -> float:
        v = super()._encode_label(y)
        K = self.n_classes
        if K is not None and not (v == int(v) and 0 <= v < K):
            raise InputError(
                "a class label is out of range",
                expected=f"an int code in 0..{K - 1}",
                received=repr(y),
                fix="encode the classes as 0..n_classes-1",
            )
        return v

    def _effective_weights(self) -> np.ndarray:
        """The weights as a (features, classes) array."""
        if getattr(self, "_state", None) is None:
            return np.zeros((0, self.n_classes or 0))
        return float(self._state.s[_SCALE]) * self._weights("V")

    @property
    def coef_(self) -> dict[Any, list[float]]:  # type: ignore[override]
        """The weights of each feature seen so far (one per class), by name."""
        W = self._effective_weights()
        return dict(zip(self.feature_index_.names, W.tolist(), strict=True)) if W.size else {}

    @property
    def selected_features_(self) -> list[Any]:
        """The features with a non-zero weight for some class, in order of first appearance."""
        W = self._effective_weights()
        return [self.feature_index_.names[j] for j in np.flatnonzero(np.any(W != 0, axis=1))]

    @property
    def budget_limit_(self) -> int:
        """The number of features the truncation allows at the current dimension."""
        d = 0 if getattr(self, "_state", None) is None else int(self._state.s[_DIM])
        return int(budget_limit(0, self.budget, d, False))

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The predictions of :func:`stsd_multiclass_reference` with these parameters."""
        K = self.n_classes if self.n_classes is not None else int(np.max(y)) + 1
        return stsd_multiclass_reference(X, y, self.mode, self.C, self.radius, self.budget, K)


def stsd_multiclass_reference(
    X: np.ndarray,
    y: np.ndarray,
    mode: str = "stsd-i",
    C: float = 0.1,
    radius: float = 30.0,
    budget: float = 0.5,
    n_classes: int = 2,
) -> np.ndarray:
    """Plain-NumPy multiclass STSD over a dense stream (NaN = absent); returns the predicted classes.

    One row at a time, columns in order of first appearance, ``W = scale * V``
    and sums left to right in column order, as on the compiled path.

    >>> X = np.array([[1.0, np.nan], [1.0, 1.0], [np.nan, 1.0]])
    >>> stsd_multiclass_reference(X, np.array([2, 1, 1]), n_classes=3)
    array([0., 2., 1.])
    """
    n, d = X.shape
    V, g = np.zeros((d, n_classes)), np.zeros(d)
    scale, l1, dim = 1.0, 0.0, 0
    out = np.empty(n)
    for t in range(n):
        cols = np.flatnonzero(~np.isnan(X[t]))
        x = X[t, cols]
        dim = max(dim, int(cols.max()) + 1 if cols.size else 0)
        f = np.array([running_sum(0.0, V[cols, c] * x) for c in range(n_classes)]) * scale
        out[t] = float(np.argmax(f))  # the first maximum: the lowest class among ties
        yc = int(y[t])
        rest = f.copy()
        rest[yc] = -np.inf
        r = int(np.argmax(rest))
        loss = max(0.0, 1.0 - (f[yc] - f[r]))
        sq = running_sum(0.0, x * x)
        if loss > 0 and 0 < sq < np.inf:
            a = float(_tau(_MODES[mode][0], C, loss, 2.0 * sq, 0.0, False)) / scale
            for j, xj in zip(cols.tolist(), x.tolist(), strict=True):
                if xj != 0.0:
                    V[j, yc] += a * xj
                    V[j, r] -= a * xj
                    old, g[j] = g[j], running_sum(0.0, np.abs(V[j]))
                    l1 += g[j] - old
        if scale * l1 > radius:
            scale *= radius / (scale * l1)
            if scale < _TINY_SCALE:
                V *= scale
                l1 *= scale
                scale = 1.0
                g = np.array([running_sum(0.0, np.abs(row)) for row in V])
        support = np.flatnonzero(g)
        k = int(budget_limit(0, budget, dim, False))
        # evict the smallest row norms first, the higher column first among ties
        if support.size > k:
            drop = support[np.lexsort((-support, g[support]))[: support.size - k]]
            l1 = running_sum(l1, -g[drop])
            g[drop] = 0.0
            V[drop] = 0.0
        if not g.any():
            l1 = 0.0
    return out


LEARNERS = {
    "stsd-multiclass": STSDMulticlass,
    "pa-multiclass": partial(STSDMulticlass, budget=1.0, radius=float("inf")),
}
