"""The compiled STSD kernel: PA-style steps, L1-ball scaling and top-B truncation in O(nnz log k).

The weights are kept as ``w = scale * v`` with ``sum |v|`` up to date, so
the L1-ball scaling is O(1); the support (non-zero ``v``) is an indexed
min-heap (:mod:`evofeat.linear._topk`), so truncation costs O(log k) per
removed weight. Used by :class:`evofeat.linear.stsd.STSD` and
:class:`evofeat.linear.stsd_regression.STSDRegressor`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from evofeat.base import register_kernel
from evofeat.base.kernel import leaf_jit
from evofeat.linear._ops import dot, sort_prefix, sq_norm
from evofeat.linear._topk import topk_heapify, topk_pop, topk_rebuild, topk_touch

__all__ = ["STSDState", "budget_limit", "running_sum"]

# step rules, selections and variants (codes stored in the parameter array)
_PA, _PA1, _PA2, _PERCEPTRON = 0, 1, 2, 3
_LARGEST, _NONE, _RANDOM = 0, 1, 2
#: mode -> (step rule, selection)
_MODES = {
    "stsd": (_PA, _LARGEST),
    "stsd-i": (_PA1, _LARGEST),
    "stsd-ii": (_PA2, _LARGEST),
    "stsd-i-all": (_PA1, _NONE),
    "stsd-i-rand": (_PA1, _RANDOM),
    "stsd-i-per": (_PERCEPTRON, _LARGEST),
}
_VARIANTS = ("paper", "original-code")
# parameter array p and scalar array s
_RULE, _C, _RADIUS, _BUDGET, _VARIANT, _PROJECT, _SELECT, _TASK, _EPS = range(9)
_SCALE, _L1, _LAST_TAU, _DIM, _NEW_FROM = range(5)
_TINY_SCALE = 1e-120  # below this, the scale is folded into v
_ALL_COLS = 1 << 62


class STSDState(NamedTuple):
    v: np.ndarray  # weights up to the scale: w = s[_SCALE] * v
    heap: np.ndarray  # the support (non-zero v) as a _topk min-heap
    pos: np.ndarray  # position of each column in heap, -1 if absent
    hsize: np.ndarray  # [support size]
    s: np.ndarray  # [scale, sum |v| (running), last tau, dim, first new column or -1]
    p: np.ndarray  # [rule, C, radius, budget, variant, project, selection, task, epsilon]
    rng: np.ndarray  # uint64[1], splitmix64 state (STSD-I-rand)


@leaf_jit
def _uniform(rng):  # type: ignore[no-untyped-def]
    """A uniform draw in [0, 1) from a splitmix64 stream (the same in every path)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@leaf_jit
def budget_limit(select, budget, d, original):  # type: ignore[no-untyped-def]
    """How many weights truncation keeps at dimension ``d`` (Alg. 3; the original code rounds)."""
    if select == _NONE:
        return d
    if original:
        return int(math.floor(budget * d + 0.5))  # MATLAB round (halves up), no minimum
    return max(1, int(math.floor(budget * d + 1e-9)))  # floor(B d), tolerant of 0.29 * 100


def running_sum(total: float, terms: np.ndarray) -> float:
    """``total + terms[0] + terms[1] + ...``, left to right (the order of the compiled loops)."""
    for term in terms.tolist():
        total += term
    return total


@leaf_jit
def _tau(rule, C, loss, sq, margin, original):  # type: ignore[no-untyped-def]
    """The step (Alg. 2); the original code divides by ||x||, not ||x||^2."""
    if rule == _PERCEPTRON:
        return 1.0
    nrm = math.sqrt(sq) if original else sq
    if rule == _PA:
        return loss / nrm
    if rule == _PA1:
        return min(C, loss / nrm)
    if original:
        return 1.0 - margin / (nrm + 1.0 / (2.0 * C))  # the bracket as the authors coded it
    return loss / (nrm + 1.0 / (2.0 * C))


@nb.njit(cache=True)
def _predict(state, idx, val):  # type: ignore[no-untyped-def]
    f = state.s[_SCALE] * dot(state.v, idx, val)
    if state.p[_TASK] == 1.0:
        return f, f
    return f, 1.0 if f > 0.0 else (-1.0 if f < 0.0 else 0.0)


@leaf_jit
def _add(state, idx, val, a, lo, hi):  # type: ignore[no-untyped-def]
    """``w[c] += a * x[c]`` for the row's columns ``lo <= c < hi`` with ``x[c] != 0``.

    A row that touches fewer coordinates than half the support sifts each in
    the heap (O(nnz log k)); a denser one rebuilds the heap (O(nnz + k)).
    The heap's layout never changes a result: it pops in the total order.
    """
    v, s, heap, pos, hsize = state.v, state.s, state.heap, state.pos, state.hsize
    inv = a / s[_SCALE]
    bulk = 2 * idx.shape[0] > hsize[0] + 16
    for k in range(idx.shape[0]):
        c = idx[k]
        if c < lo or c >= hi or val[k] == 0.0:
            continue
        old = v[c]
        v[c] = old + inv * val[k]
        s[_L1] += abs(v[c]) - abs(old)
        if not bulk:
            topk_touch(heap, pos, hsize, v, c)
    if bulk:
        topk_rebuild(heap, pos, hsize, v, idx)


@leaf_jit
def _fold_scale(state):  # type: ignore[no-untyped-def]
    """Multiply the scale into v (when it gets tiny), dropping weights that underflow."""
    v, heap, s = state.v, state.heap, state.s
    for i in range(state.hsize[0]):
        v[heap[i]] *= s[_SCALE]
    s[_L1] *= s[_SCALE]
    s[_SCALE] = 1.0
    topk_rebuild(heap, state.pos, state.hsize, v, heap[:0])


@leaf_jit
def _random_keep(state, k, n):  # type: ignore[no-untyped-def]
    """Keep a uniform k-subset of n coordinates (the support first, by column); zero the rest."""
    v, heap, pos, s = state.v, state.heap, state.pos, state.s
    m = state.hsize[0]
    sort_prefix(heap, m)
    kept = 0
    for j in range(m):
        c = heap[j]
        if kept < k and _uniform(state.rng) * (n - j) < k - kept:
            heap[kept] = c
            kept += 1
        else:
            s[_L1] -= abs(v[c])
            v[c] = 0.0
            pos[c] = -1
    state.hsize[0] = kept
    topk_heapify(heap, pos, state.hsize, v)


@leaf_jit
def _sparsify(state):  # type: ignore[no-untyped-def]
    """Project onto the L1 ball (a scale factor) and truncate to the budget (Alg. 1, 3)."""
    p, s = state.p, state.s
    original = p[_VARIANT] == 1.0
    if p[_PROJECT] == 1.0:
        l1 = s[_SCALE] * s[_L1]
        if l1 > p[_RADIUS]:
            s[_SCALE] *= p[_RADIUS] / l1
            if s[_SCALE] < _TINY_SCALE:
                _fold_scale(state)
    select = int(p[_SELECT])
    if select != _NONE:
        k = budget_limit(select, p[_BUDGET], int(s[_DIM]), original)
        if state.hsize[0] > k:
            if select == _LARGEST:
                while state.hsize[0] > k:
                    c = topk_pop(state.heap, state.pos, state.hsize, state.v)
                    s[_L1] -= abs(state.v[c])
                    state.v[c] = 0.0
            else:
                _random_keep(state, k, s[_DIM] if original else state.hsize[0])
    if state.hsize[0] == 0:
        s[_L1] = 0.0


@nb.njit(cache=True)
def _learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    p, s = state.p, state.s
    rule = int(p[_RULE])
    original = p[_VARIANT] == 1.0
    new_from = int(s[_NEW_FROM])
    s[_NEW_FROM] = -1.0
    margin = y * score
    if p[_TASK] == 1.0:  # epsilon-insensitive regression
        loss = max(0.0, abs(y - score) - p[_EPS])
        direction = 1.0 if y > score else -1.0
        update = loss > 0.0
    else:
        loss = max(0.0, 1.0 - margin)
        direction = y
        if original:
            update = margin <= 1.0
        else:
            update = margin <= 0.0 if rule == _PERCEPTRON else loss > 0.0
    sq = sq_norm(val)
    stepped = update and sq > 0.0 and np.isfinite(sq)
    tau = 0.0
    if stepped:
        tau = _tau(rule, p[_C], loss, sq, margin, original)
        s[_LAST_TAU] = tau
    if original and new_from >= 0:
        # first round of a new stage: old coordinates step, new ones get the last tau, then sparsify
        if stepped:
            _add(state, idx, val, tau * direction, 0, new_from)
        _add(
            state,
            idx,
            val,
            (1.0 if rule == _PERCEPTRON else s[_LAST_TAU]) * direction,
            new_from,
            _ALL_COLS,
        )
        _sparsify(state)
    elif stepped:
        _add(state, idx, val, tau * direction, 0, _ALL_COLS)
        _sparsify(state)
    elif not original:
        _sparsify(state)  # the paper's sparsity step runs every round
    return loss


@nb.njit(cache=True)
def _visible(state, cols, dim):  # type: ignore[no-untyped-def]
    s = state.s
    if dim > s[_DIM]:
        if s[_DIM] > 0:
            s[_NEW_FROM] = s[_DIM]  # columns >= the previous dimension are new
        s[_DIM] = dim


register_kernel(STSDState, _predict, _learn, _visible)
