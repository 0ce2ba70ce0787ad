"""OFS_P: online feature selection when the learner may look at only B attributes of a row.

OFS_P (Wang et al., TKDE 2014, Algorithm 3, "learning with partial inputs")
may request only B attributes of each row: with probability ``epsilon`` B
attributes drawn uniformly from the visible ones (exploration), otherwise
the attributes of its current support (exploitation). Its prediction and
its update use only the observed attributes; the update divides each
observed value by the probability that it was observed,
``epsilon * min(1, B / d) + (1 - epsilon) * [w_i != 0]`` (``d`` the number
of visible features), which makes the observed row an unbiased estimate of
the full row. The draw of row ``t`` (:func:`evofeat.linear.ofs.draw_uniform`)
depends on the seed and ``t`` only, so predicting a row advances no state.

>>> sorted(observed_reference(np.zeros(6), np.arange(6), 2, 1.0, seed=0, t=0))
[1, 5]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from evofeat.base import register_kernel
from evofeat.base.kernel import leaf_jit
from evofeat.linear._ops import dot
from evofeat.linear.ofs import (
    _COMMON_DOC,
    _N_B,
    _N_SEED,
    _N_T,
    _N_VIS,
    _OFSP,
    _P_EPS,
    _P_L2,
    _P_LR,
    OFSState,
    _label,
    _real,
    _require,
    _shrink,
    _Step,
    _step,
    _visible,
    draw_uniform,
)

__all__ = ["OFSP", "OFSPState", "observed_reference"]


class OFSPState(OFSState):
    """OFS's state; ``flag`` marks the attributes drawn for a row, ``vis`` lists the visible ones."""

    __slots__ = ()


@leaf_jit
def explores(seed, t, epsilon):  # type: ignore[no-untyped-def]
    """Whether row ``t`` is an exploration row (drawn with probability ``epsilon``)."""
    return draw_uniform(seed, t, 0) < epsilon


@leaf_jit
def mark_random(flag, pick, vis, m, B, seed, t):  # type: ignore[no-untyped-def]
    """Mark ``min(B, m)`` of the visible columns ``vis[:m]`` drawn uniformly (Floyd's algorithm).

    Sets ``flag[c] = 1`` for each drawn column ``c``, lists them in
    ``pick`` and returns how many there are (O(B), nothing allocated).
    """
    k = min(B, m)
    for j in range(m - k, m):
        i = j - (m - k)
        r = int(draw_uniform(seed, t, 1 + i) * (j + 1))
        c = vis[r]
        if flag[c] != 0:
            c = vis[j]
        flag[c] = 1
        pick[i] = c
    return k


@leaf_jit
def clear_marks(flag, pick, k):  # type: ignore[no-untyped-def]
    """Undo :func:`mark_random`."""
    for i in range(k):
        flag[pick[i]] = 0


@leaf_jit
def masked_dot(w, flag, idx, val):  # type: ignore[no-untyped-def]
    """``w . x`` over the marked columns of the row, summed left to right."""
    s = 0.0
    for k in range(idx.shape[0]):
        if flag[idx[k]] != 0:
            s += w[idx[k]] * val[k]
    return s


@leaf_jit
def _observe(state, idx, val):  # type: ignore[no-untyped-def]
    """Draw row t's attributes (marked in ``flag``); return (exploring, how many drawn, score)."""
    t, seed = state.n[_N_T], state.n[_N_SEED]
    if not explores(seed, t, state.p[_P_EPS]):
        return False, 0, state.s[0] * dot(state.v, idx, val)
    k = mark_random(state.flag, state.pick, state.vis, state.n[_N_VIS], state.n[_N_B], seed, t)
    return True, k, state.s[0] * masked_dot(state.v, state.flag, idx, val)


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    _, k, s = _observe(state, idx, val)
    clear_marks(state.flag, state.pick, k)
    return s, _label(state.p, s)


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    """OFS's step on the importance-weighted observed row (the same draw as the prediction)."""
    explore, k, s = _observe(state, idx, val)
    margin = y * s
    _shrink(state, 1.0 - state.p[_P_LR] * state.p[_P_L2])
    if margin <= 1.0:
        m, eps = state.n[_N_VIS], state.p[_P_EPS]
        q_explore = eps * min(1.0, state.n[_N_B] / m) if m > 0 else 0.0
        for j in range(idx.shape[0]):
            held = state.v[idx[j]] != 0.0  # in w_t's support
            seen = (state.flag[idx[j]] != 0) if explore else held
            q = q_explore + (1.0 - eps) * held
            state.dw[j] = state.p[_P_LR] * y * val[j] / q if seen else 0.0
        _step(state, idx)
    clear_marks(state.flag, state.pick, k)
    state.n[_N_T] += 1
    return max(0.0, 1.0 - margin)


@nb.njit(cache=True)
def _visible_partial(state, cols, dim):  # type: ignore[no-untyped-def]
    _visible(state, cols, dim)
    state.vis[: cols.shape[0]] = cols
    state.n[_N_VIS] = cols.shape[0]


register_kernel(OFSPState, _predict, _learn, _visible_partial)


class OFSP(_Step):
    __doc__ = f"""OFS with partial inputs (OFS_P): the learner looks at only B attributes of a row.

    With probability ``epsilon`` it requests B attributes drawn uniformly from the
    visible features (exploration), otherwise the attributes of its support
    (exploitation); (the module docstring states the draw). It predicts
    with ``w`` on the observed attributes, and when the margin is ``<= 1`` takes OFS's
    step on the importance-weighted row, each observed value divided by the
    probability it had to be observed, ``epsilon min(1, B/d) + (1 - epsilon) [w_i != 0]``
    (``d``: the number of visible features). The rest is as :class:`OFS`: the decay
    ``1 - l2 lr`` (also on rows with margin > 1), the L2 ball, truncation to B.

    The journal writes OFS_P with a ball of radius R and no decay; ``l2=0,
    radius=R`` gives that form. The draws of row t depend only on ``seed`` and t, so
    a prediction, the update that follows it and a clone all see the same attributes.
    On the first row of a new visible set the prediction drew from the previous set;
    the update draws from the new one.

    Parameters
    ----------
    lr
        eta, the step size (0.2).
    l2
        lambda, the regularisation (0.01).{_COMMON_DOC}
    radius
        Radius of the L2 ball (``None``: ``1 / sqrt(l2)``).
    epsilon
        Probability of an exploration row (0.2).
    seed
        Seed of the draws.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(OFSP(seed=1), full(ds.X, ds.y, ds.feature_names)).mistakes
    495

    References
    ----------
    Wang, Zhao, Hoi, Jin. Online Feature Selection and Its Applications. IEEE TKDE 26(3),
    2014 (Algorithm 3, learning with partial inputs).
    """

    _mode = _OFSP
    _algorithm = "ofs-p"
    _state_type = OFSPState

    def __init__(
        self,
        lr: float = 0.2,
        l2: float = 0.01,
        budget: float = 0.1,
        budget_count: int | None = None,
        radius: float | None = None,
        epsilon: float = 0.2,
        seed: int = 0,
        zero_score: str = "mistake",
    ) -> None:
        self.lr = lr
        self.l2 = l2
        self.budget = budget
        self.budget_count = budget_count
        self.radius = radius
        self.epsilon = epsilon
        self.seed = seed
        self.zero_score = zero_score

    def _check_params(self) -> None:
        super()._check_params()
        _require(
            _real(self.epsilon) and 0 < self.epsilon <= 1,
            "epsilon must be a probability",
            "a number in (0, 1]",
            self.epsilon,
            "pass epsilon=0.2",
        )


def observed_reference(
    w: np.ndarray, visible: np.ndarray, B: int, epsilon: float, *, seed: int, t: int
) -> set[int]:
    """The attributes OFS_P requests in row ``t`` (plain Python; ``visible`` sorted).

    Exploration (probability ``epsilon``): a uniform ``min(B, d)``-subset of
    the visible columns, drawn by Floyd's algorithm on the same numbers as
    the compiled path; otherwise the support of ``w``.
    """
    if not draw_uniform(seed, t, 0) < epsilon:
        return {int(c) for c in np.flatnonzero(w)}
    m = len(visible)
    k = min(B, m)
    chosen: set[int] = set()
    for i, j in enumerate(range(m - k, m)):
        c = int(visible[int(draw_uniform(seed, t, 1 + i) * (j + 1))])
        chosen.add(int(visible[j]) if c in chosen else c)
    return chosen
