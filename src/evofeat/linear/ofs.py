"""Online feature selection with a budget: OFS, its baselines PE_trun and RAND, and OFS_P."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, ClassVar, NamedTuple

import numba as nb
import numpy as np

from evofeat.base import InputError, OnlineLearner, register_kernel
from evofeat.base.kernel import leaf_jit
from evofeat.linear._ops import dot
from evofeat.linear._topk import topk_pop, topk_touch

__all__ = ["OFS", "OFSState", "PETrun", "RAND", "draw_uniform", "ofs_reference"]

_OFS, _PE, _RAND, _OFSP = 0, 1, 2, 3  # modes (OFS_P: evofeat.linear.ofs_partial)
# p: parameters; n: integer state (see OFSState)
_P_MODE, _P_LR, _P_L2, _P_RADIUS, _P_BUDGET, _P_COUNT, _P_EPS, _P_ZERO = range(8)
_N_B, _N_DIM, _N_VIS, _N_T, _N_SEED, _N_SEL, _N_DRAWS = range(7)
_ZERO_SCORE = {"mistake": 1.0, "negative": 0.0}
_HUGE = (
    1e150  # a step larger than this in units of v is renormalised first (its square stays finite)
)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@leaf_jit
def _mix(z):  # type: ignore[no-untyped-def]
    """SplitMix64's finaliser."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@leaf_jit
def draw_uniform(seed, stream, k):  # type: ignore[no-untyped-def]
    """The ``k``-th uniform number in [0, 1) of ``stream`` under ``seed``.

    A counter-based generator (SplitMix64 of ``(seed, stream, k)``): no state
    to advance, so a draw can be repeated (a prediction and its update) and a
    clone replays identically.
    """
    z = _mix(np.uint64(seed) + _GOLDEN)
    z = _mix(z ^ (np.uint64(stream) * _GOLDEN))
    z = _mix(z + np.uint64(k) * _GOLDEN)
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


class OFSState(NamedTuple):
    v: np.ndarray  # w / scale, one per feature
    heap: np.ndarray  # the support as a _topk min-heap (OFS, PE_trun, OFS_P)
    pos: np.ndarray  # position of each column in heap, -1 if absent
    flag: np.ndarray  # RAND: 1 = in the random set; OFS_P: scratch mark of the observed attributes
    vis: np.ndarray  # OFS_P: the visible columns (first n[_N_VIS]); RAND: scratch
    pick: np.ndarray  # OFS_P: the attributes drawn for this row (scratch)
    dw: np.ndarray  # the step on each entry of the row (scratch)
    cand: np.ndarray  # the entries of the row outside the support (scratch)
    hsize: np.ndarray  # [support size]
    s: np.ndarray  # [scale, ||v||^2]: w = scale * v
    n: (
        np.ndarray
    )  # [B, features seen, visible count, rows learned, seed, RAND set size, RAND draws]
    p: (
        np.ndarray
    )  # [mode, lr, l2, radius, budget, budget_count (-1: none), epsilon, zero score is a mistake]


@leaf_jit
def _budget_of(p, dim):  # type: ignore[no-untyped-def]
    """B: ``budget_count``, else ``max(1, round(budget * dim))`` (halves round up, as MATLAB)."""
    if p[_P_COUNT] >= 1.0:
        return int(p[_P_COUNT])
    return max(1, int(np.floor(p[_P_BUDGET] * dim + 0.5)))


@leaf_jit
def _label(p, s):  # type: ignore[no-untyped-def]
    if s > 0.0:
        return 1.0
    return 0.0 if (s == 0.0 and p[_P_ZERO] == 1.0) else -1.0


@leaf_jit
def _fold_to(state, new_scale):  # type: ignore[no-untyped-def]
    """Re-express ``w = scale * v`` with ``scale = new_scale``; recompute ||v||^2 (O(support))."""
    factor = state.s[0] if new_scale == 1.0 else state.s[0] / new_scale
    sq = 0.0
    for i in range(state.hsize[0]):
        c = state.heap[i]
        state.v[c] *= factor
        sq += state.v[c] * state.v[c]
    state.s[0] = new_scale
    state.s[1] = sq


@leaf_jit
def _shrink(state, factor):  # type: ignore[no-untyped-def]
    """``w *= factor`` in O(1); the scale is folded back into ``v`` before it underflows."""
    state.s[0] *= factor
    if state.s[0] < 1e-100:
        _fold_to(state, 1.0)


@leaf_jit
def _set(state, c, new):  # type: ignore[no-untyped-def]
    """``v[c] = new``, keeping ||v||^2 and the heap up to date (O(log B))."""
    old = state.v[c]
    state.v[c] = new
    state.s[1] += new * new - old * old
    topk_touch(state.heap, state.pos, state.hsize, state.v, c)


@leaf_jit
def _step(state, idx):  # type: ignore[no-untyped-def]
    """``w += dw`` (``dw[k]`` on column ``idx[k]``), project onto the L2 ball, keep the B largest |w|.

    The support is updated in place; the new columns are then offered to the
    full heap one by one (a new column enters only if it beats the heap's
    minimum, which then leaves), which keeps exactly the B largest of the
    union: O(nnz + k log B) for k changes of the support.
    """
    v, s, pos, heap, hsize = state.v, state.s, state.pos, state.heap, state.hsize
    big = 0.0
    for k in range(idx.shape[0]):
        big = max(big, abs(state.dw[k]))
    if not big < np.inf:
        return  # a step that overflowed (or NaN): skip it, the state stays finite
    if big > _HUGE * s[0]:
        _fold_to(
            state, big
        )  # a huge row: the scale carries its magnitude, v and ||v||^2 stay finite
    m = 0
    extra = 0.0
    for k in range(idx.shape[0]):
        if state.dw[k] == 0.0:
            continue
        c = idx[k]
        if pos[c] >= 0:
            _set(state, c, v[c] + state.dw[k] / s[0])
        else:
            state.cand[m] = k
            m += 1
            extra += (state.dw[k] / s[0]) ** 2
    scale = s[0]
    norm = scale * math.sqrt(max(s[1] + extra, 0.0))  # ||w~||, the new columns included
    if norm > state.p[_P_RADIUS]:
        s[0] = scale * (state.p[_P_RADIUS] / norm)
    B = state.n[_N_B]
    for j in range(m):
        k = state.cand[j]
        c, z = idx[k], state.dw[k] / scale
        if hsize[0] >= B:
            low = heap[0]  # evicted first: the smallest |v|, among equals the higher column
            if abs(z) < abs(v[low]) or (abs(z) == abs(v[low]) and c > low):
                continue
            topk_pop(heap, pos, hsize, v)
            s[1] -= v[low] * v[low]
            v[low] = 0.0
        _set(state, c, z)


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    s = state.s[0] * dot(state.v, idx, val)
    return s, _label(state.p, s)


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    mode = int(state.p[_P_MODE])
    if mode == _OFS:
        margin = y * score
        _shrink(state, 1.0 - state.p[_P_LR] * state.p[_P_L2])
        if margin <= 1.0:
            for k in range(idx.shape[0]):
                state.dw[k] = state.p[_P_LR] * y * val[k]
            _step(state, idx)
        return max(0.0, 1.0 - margin)
    if y * score > 0.0:  # PE_trun and RAND: a perceptron step on a mistake (y w.x <= 0)
        return 0.0
    for k in range(idx.shape[0]):
        if mode == _PE:
            state.dw[k] = y * val[k]
        elif state.flag[idx[k]] != 0:
            state.v[idx[k]] += y * val[k]
    if mode == _PE:
        _step(state, idx)
    return 1.0


@nb.njit(cache=True)
def _visible(state, cols, dim):  # type: ignore[no-untyped-def]
    """Update B; RAND fills its open slots from the visible features not in its set yet."""
    n = state.n
    n[_N_DIM] = dim
    n[_N_B] = _budget_of(state.p, dim)
    if int(state.p[_P_MODE]) != _RAND or n[_N_B] <= n[_N_SEL]:
        return
    m = 0
    for c in cols:
        if state.flag[c] == 0:
            state.vis[m] = c
            m += 1
    for i in range(min(n[_N_B] - n[_N_SEL], m)):  # partial Fisher-Yates
        r = i + int(draw_uniform(n[_N_SEED], 0, n[_N_DRAWS]) * (m - i))
        n[_N_DRAWS] += 1
        state.vis[i], state.vis[r] = state.vis[r], state.vis[i]
        state.flag[state.vis[i]] = 1
        n[_N_SEL] += 1


register_kernel(OFSState, _predict, _learn, _visible)


def _require(ok: object, message: str, expected: str, received: Any, fix: str) -> None:
    if not ok:
        raise InputError(message, expected=expected, received=repr(received), fix=fix)


def _real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


class _Budgeted(OnlineLearner):
    """What the four learners share: a budget of B active features, the state, the checks."""

    _mode: ClassVar[int] = _OFS
    _algorithm: ClassVar[str] = "ofs"
    _state_type: ClassVar[type] = OFSState
    per_feature = ("v", "heap", "pos", "flag", "vis", "pick", "dw", "cand")
    budget: float
    budget_count: int | None
    zero_score: str

    def _check_params(self) -> None:
        _require(
            _real(self.budget) and 0 < self.budget <= 1,
            "budget must be a fraction of the features",
            "a number in (0, 1]",
            self.budget,
            "pass budget=0.1, or budget_count=B for a count",
        )
        _require(
            self.budget_count is None
            or (
                isinstance(self.budget_count, int | np.integer)
                and not isinstance(self.budget_count, bool)
                and self.budget_count >= 1
            ),
            "budget_count must be a number of features",
            "None or an integer >= 1",
            self.budget_count,
            "pass budget_count=None to use the fraction budget",
        )
        _require(
            self.zero_score in _ZERO_SCORE,
            "unknown zero_score",
            "'mistake' or 'negative'",
            self.zero_score,
            "pass zero_score='mistake'",
        )
        seed = getattr(self, "seed", 0)
        _require(
            isinstance(seed, int | np.integer) and not isinstance(seed, bool) and 0 <= seed < 2**63,
            "seed must be a non-negative integer",
            "an int >= 0",
            seed,
            "pass seed=0",
        )

    def _params(self) -> list[float]:
        """``[lr, l2, radius, epsilon]`` of the kernel (the perceptron baselines use none)."""
        return [1.0, 0.0, math.inf, 0.0]

    def _make_state(self, capacity: int) -> OFSState:
        lr, l2, radius, eps = self._params()
        count = -1.0 if self.budget_count is None else float(self.budget_count)
        p = [
            self._mode,
            lr,
            l2,
            radius,
            float(self.budget),
            count,
            eps,
            _ZERO_SCORE[self.zero_score],
        ]
        return self._state_type(  # type: ignore[no-any-return]
            v=np.zeros(capacity),
            heap=np.zeros(capacity, np.int64),
            pos=np.full(capacity, -1, np.int64),
            flag=np.zeros(capacity, np.int8),
            vis=np.zeros(capacity, np.int64),
            pick=np.zeros(capacity, np.int64),
            dw=np.zeros(capacity),
            cand=np.zeros(capacity, np.int64),
            hsize=np.zeros(1, np.int64),
            s=np.array([1.0, 0.0]),
            n=np.array([0, 0, 0, 0, int(getattr(self, "seed", 0)), 0, 0], np.int64),
            p=np.array(p),
        )

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name == "pos":
            grown[start:] = -1

    def _effective_weights(self) -> np.ndarray:
        w: np.ndarray = self._weights("v")
        return w * self._state.s[0] if w.size else w

    @property
    def budget_limit_(self) -> int:
        """B, the number of features the model may use now (0 before any learning)."""
        return 0 if getattr(self, "_state", None) is None else int(self._state.n[_N_B])

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The labels of :func:`ofs_reference` with these parameters (X dense, NaN = absent)."""
        return ofs_reference(X, y, self._algorithm, **self.get_params())

    @property
    def selected_features_(self) -> list[Hashable]:
        """The features the model uses, by decreasing ``|w|`` (ties: first seen first).

        The support of ``w`` (at most B features); for RAND its random set.
        """
        w = np.abs(self._effective_weights())
        chosen = np.flatnonzero(self._weights("flag") if self._mode == _RAND else w)
        order = chosen[np.lexsort((chosen, -w[chosen]))]
        return [self.feature_index_.names[c] for c in order]


class _Step(_Budgeted):
    lr: float
    l2: float
    radius: float | None

    def _check_params(self) -> None:
        super()._check_params()
        _require(
            _real(self.lr) and self.lr > 0,
            "lr must be positive",
            "a finite number > 0",
            self.lr,
            "pass lr=0.2",
        )
        _require(
            _real(self.l2) and self.l2 >= 0 and self.lr * self.l2 < 1,
            "l2 must be in [0, 1/lr)",
            "a number with 0 <= l2 * lr < 1",
            self.l2,
            "pass l2=0.01",
        )
        _require(
            self.radius is None or (_real(self.radius) and self.radius > 0),
            "radius must be positive",
            "None (1 / sqrt(l2)) or a number > 0",
            self.radius,
            "pass radius=None",
        )

    def _params(self) -> list[float]:
        default = 1.0 / math.sqrt(self.l2) if self.l2 > 0 else math.inf
        return [
            float(self.lr),
            float(self.l2),
            default if self.radius is None else float(self.radius),
            float(getattr(self, "epsilon", 0.0)),
        ]


_COMMON_DOC = """
    budget
        B as a fraction of the features seen so far: ``B = max(1, round(budget * d))``
        (halves round up, as MATLAB's ``round``). The default 0.1 is the paper's
        ``round(0.1 * dimensionality)``; on a stream whose feature space grows, B grows.
    budget_count
        B as a count of features instead (``None``: use ``budget``).
    zero_score
        A score of exactly 0: ``"mistake"`` (label 0, no decision, counted as an error, as
        the papers count ``y w.x <= 0`` as a mistake and MATLAB's ``sign(0) = 0``) or
        ``"negative"`` (predict -1, the convention of evofeat's other linear learners)."""


class OFS(_Step):
    __doc__ = f"""Online feature selection by sparse projection (OFS), on evolving features.

    Predict ``sign(w . x)``. When ``y w . x <= 1``: ``w~ = (1 - l2 lr) w + lr y x``,
    project onto the L2 ball, ``w^ = min(1, radius / ||w~||) w~``, and keep the B
    largest ``|w^|`` (Algorithm 2: truncation); otherwise ``w = (1 - l2 lr) w``. At most
    B weights are non-zero at any time. A feature not seen yet has weight 0; one that
    vanished keeps its weight. Truncation ties: among equal ``|w|`` the feature seen
    first (the lower column) is kept. The reported loss is the hinge loss.

    A row costs O(nnz log B), not O(d): ``w`` is kept as ``scale * v`` with ``||v||^2``
    up to date (the decay and the projection are O(1)), and the support is an indexed
    min-heap (:mod:`evofeat.linear._topk`).

    Parameters
    ----------
    lr
        eta, the step size (paper: 0.2).
    l2
        lambda, the regularisation (paper: 0.01).{_COMMON_DOC}
    radius
        Radius of the L2 ball. ``None``: ``1 / sqrt(l2)`` (10 by default), the radius of
        the paper's mistake bound; ``radius=1.0`` is Algorithm 3 as printed
        (``min(1, 1 / ||w~||)``).

    Attributes
    ----------
    coef_ : dict
        The weight of each feature seen so far.
    selected_features_ : list
        The features with a non-zero weight (at most B), by decreasing ``|w|``.
    budget_limit_ : int
        The current B.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> model = OFS()
    >>> prequential(model, full(ds.X, ds.y, ds.feature_names)).mistakes
    301
    >>> model.budget_limit_, model.selected_features_
    (2, ['f10', 'f4'])

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (Algorithm 3 with Algorithm 2; radius 1/sqrt(lambda) from the proof of Theorem 1).
    """

    _mode = _OFS

    def __init__(
        self,
        lr: float = 0.2,
        l2: float = 0.01,
        budget: float = 0.1,
        budget_count: int | None = None,
        radius: float | None = None,
        zero_score: str = "mistake",
    ) -> None:
        self.lr = lr
        self.l2 = l2
        self.budget = budget
        self.budget_count = budget_count
        self.radius = radius
        self.zero_score = zero_score


class PETrun(_Budgeted):
    __doc__ = f"""The perceptron with truncation (PE_trun), on evolving features.

    Predict ``sign(w . x)``; on a mistake (``y w . x <= 0``) update ``w += y x`` and keep
    the B largest ``|w|`` (ties: the feature seen first is kept). The baseline that the
    paper shows can err forever (section 3.2.1). The reported loss is the 0-1 mistake
    indicator; a row costs O(nnz log B).

    Parameters
    ----------{_COMMON_DOC}

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(PETrun(), full(ds.X, ds.y, ds.feature_names)).mistakes
    390

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (Algorithm 1 with Algorithm 2).
    """

    _mode = _PE
    _algorithm = "pe-trun"

    def __init__(
        self, budget: float = 0.1, budget_count: int | None = None, zero_score: str = "mistake"
    ) -> None:
        self.budget = budget
        self.budget_count = budget_count
        self.zero_score = zero_score


class RAND(_Budgeted):
    __doc__ = f"""A perceptron on a fixed random set of B features (RAND), on evolving features.

    The set is drawn (seeded) the first time the learner is told the visible features:
    B features uniformly among them. The paper does not say how; when B grows later (a
    fraction budget on a growing feature space) the open slots are filled by uniform
    draws among the visible features not in the set yet; a feature once drawn stays.
    A perceptron (``w += y x`` on ``y w . x <= 0``) learns on those features only.

    Parameters
    ----------{_COMMON_DOC}
    seed
        Seed of the draws.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(RAND(seed=1), full(ds.X, ds.y, ds.feature_names)).mistakes
    373

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (section 4.1.2, the RAND baseline).
    """

    _mode = _RAND
    _algorithm = "rand"

    def __init__(
        self,
        budget: float = 0.1,
        budget_count: int | None = None,
        seed: int = 0,
        zero_score: str = "mistake",
    ) -> None:
        self.budget = budget
        self.budget_count = budget_count
        self.seed = seed
        self.zero_score = zero_score


def _truncate_reference(w: np.ndarray, B: int) -> None:
    """Algorithm 2: keep the B largest ``|w|`` (ties: the lower column), in place."""
    nz = np.flatnonzero(w)
    if nz.size > B:
        drop = nz[np.lexsort((nz, -np.abs(w[nz])))[B:]]
        w[drop] = 0.0


def ofs_reference(
    X: np.ndarray,
    y: np.ndarray,
    algorithm: str = "ofs",
    *,
    lr: float = 0.2,
    l2: float = 0.01,
    budget: float = 0.1,
    budget_count: int | None = None,
    radius: float | None = None,
    epsilon: float = 0.2,
    seed: int = 0,
    zero_score: str = "mistake",
) -> np.ndarray:
    """Plain-NumPy OFS, PE_trun, RAND or OFS_P over a dense stream (NaN = absent).

    Straight from the pseudo-code with ``w`` a plain vector (O(d) per row); the
    learner is told the visible set after predicting and before learning, as
    the prequential loop does. Returns the predicted labels (0: no decision).

    >>> ofs_reference(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([1, 1, -1]), budget_count=1)
    array([0., 1., 0.])
    """
    n, d = X.shape
    w, seen, in_set = np.zeros(d), np.zeros(d, bool), np.zeros(d, bool)
    R = radius if radius is not None else (1.0 / math.sqrt(l2) if l2 > 0 else math.inf)
    prev: np.ndarray | None = None
    cols = np.zeros(0, np.int64)
    B, draws, out = 0, 0, np.empty(n)

    def observed(t: int) -> np.ndarray:
        mask = np.ones(d, bool)
        if algorithm == "ofs-p":
            from evofeat.linear.ofs_partial import observed_reference

            mask[:] = False
            mask[list(observed_reference(w, cols, B, epsilon, seed=seed, t=t))] = True
        return mask

    for t in range(n):
        vis = ~np.isnan(X[t])
        x = np.where(vis, X[t], 0.0)
        f = sum(w[c] * x[c] for c in np.flatnonzero(vis & observed(t)))
        out[t] = 1.0 if f > 0 else (0.0 if f == 0 and zero_score == "mistake" else -1.0)
        if prev is None or np.any(vis != prev):  # the learner is told the visible set
            prev, cols = vis, np.flatnonzero(vis)
            seen |= vis
            B = budget_count or max(1, int(np.floor(budget * seen.sum() + 0.5)))
            free = [int(c) for c in cols if not in_set[c]]
            for i in range(min(B - int(in_set.sum()), len(free)) if algorithm == "rand" else 0):
                r = i + int(draw_uniform(seed, 0, draws) * (len(free) - i))
                draws += 1
                free[i], free[r] = free[r], free[i]
                in_set[free[i]] = True
        if algorithm in ("pe-trun", "rand"):
            if y[t] * f <= 0:
                w += y[t] * np.where(in_set, x, 0.0) if algorithm == "rand" else y[t] * x
                _truncate_reference(w, B)
            continue
        obs = observed(t)
        f = sum(w[c] * x[c] for c in np.flatnonzero(vis & obs))
        if y[t] * f <= 1:
            if algorithm == "ofs-p":
                q = epsilon * min(1.0, B / max(len(cols), 1)) + (1 - epsilon) * (w != 0)
                x = np.where(obs, x / q, 0.0)
            w = (1 - lr * l2) * w + lr * y[t] * x
            w *= min(1.0, R / max(float(np.linalg.norm(w)), 1e-300))
            _truncate_reference(w, B)
        else:
            w *= 1 - lr * l2
    return out


def __getattr__(name: str) -> Any:
    """``LEARNERS``, built on first use: OFS_P (``ofs_partial``) builds on this module."""
    if name == "LEARNERS":
        from evofeat.linear.ofs_partial import OFSP

        return {"ofs": OFS, "pe-trun": PETrun, "rand": RAND, "ofs-p": OFSP}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
