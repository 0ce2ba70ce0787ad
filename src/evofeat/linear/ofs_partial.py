"""OFS_P's partial inputs: which attributes of a row the learner may look at.

OFS_P (Wang et al., TKDE 2014, Algorithm 3, "learning with partial inputs")
may request only B attributes of each row: with probability ``epsilon`` B
attributes drawn uniformly from the visible ones (exploration), otherwise
the attributes of its current support (exploitation). Its prediction and
its update use only the observed attributes; the update divides each
observed value by the probability that it was observed,
``epsilon * min(1, B / d) + (1 - epsilon) * [w_i != 0]`` (``d`` the number
of visible features), which makes the observed row an unbiased estimate of
the full row.

The randomness is a counter-based generator (SplitMix64 of ``(seed, row,
k)``): the draw of row ``t`` is a function of the seed and ``t`` only, so
predicting a row does not advance any state, a prediction and the update
that follows it see the same attributes, and a clone replays identically.
The helpers here are compiled (called by :mod:`evofeat.linear.ofs`);
:func:`observed_reference` states the same rule in plain Python for the
reference implementation.

>>> float(draw_uniform(0, 0, 0)) == float(draw_uniform(0, 0, 0)), 0.0 <= draw_uniform(1, 2, 3) < 1.0
(True, True)
>>> sorted(observed_reference(np.zeros(6), np.arange(6), 2, 1.0, seed=0, t=0))
[1, 5]
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = [
    "clear_marks",
    "draw_uniform",
    "explores",
    "mark_random",
    "masked_dot",
    "observed_reference",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@nb.njit(cache=True)
def _mix(z):  # type: ignore[no-untyped-def]
    """SplitMix64's finaliser."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def draw_uniform(seed, stream, k):  # type: ignore[no-untyped-def]
    """The ``k``-th uniform number in [0, 1) of ``stream`` under ``seed`` (no state is advanced)."""
    z = _mix(np.uint64(seed) + _GOLDEN)
    z = _mix(z ^ (np.uint64(stream) * _GOLDEN))
    z = _mix(z + np.uint64(k) * _GOLDEN)
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True)
def explores(seed, t, epsilon):  # type: ignore[no-untyped-def]
    """Whether row ``t`` is an exploration row (drawn with probability ``epsilon``)."""
    return draw_uniform(seed, t, 0) < epsilon


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def clear_marks(flag, pick, k):  # type: ignore[no-untyped-def]
    """Undo :func:`mark_random`."""
    for i in range(k):
        flag[pick[i]] = 0


@nb.njit(cache=True)
def masked_dot(w, flag, idx, val):  # type: ignore[no-untyped-def]
    """``w . x`` over the marked columns of the row, summed left to right."""
    s = 0.0
    for k in range(idx.shape[0]):
        if flag[idx[k]] != 0:
            s += w[idx[k]] * val[k]
    return s


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
