"""The indexed top-k heap against a sort-based reference, ties included."""

from __future__ import annotations

import numpy as np
from evofeat._core.helpers import (
    topk_build,
    topk_min,
    topk_pop,
    topk_remove,
    topk_reset,
    topk_touch,
    topk_truncate,
)
from hypothesis import given, settings
from hypothesis import strategies as st

D = 12
# few distinct magnitudes, both signs and zero: ties are common
VALUES = st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, 1e-300])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.integers(0, D - 1), VALUES),
        st.tuples(st.just("truncate"), st.integers(0, D), st.just(0.0)),
        st.tuples(st.just("remove"), st.integers(0, D - 1), st.just(0.0)),
        st.tuples(st.just("pop"), st.just(0), st.just(0.0)),
    ),
    max_size=60,
)


def _key(w: np.ndarray, c: int) -> tuple[float, int]:
    return (abs(float(w[c])), -c)  # eviction order: smaller |w| first, then the higher column


def _check_invariants(
    heap: np.ndarray, pos: np.ndarray, n: int, w: np.ndarray, members: set[int]
) -> None:
    assert set(heap[:n].tolist()) == members
    for i in range(n):
        assert pos[heap[i]] == i
        if i > 0:
            assert _key(w, int(heap[(i - 1) // 2])) <= _key(w, int(heap[i]))
    assert all(pos[c] == -1 for c in range(D) if c not in members)


def _empty() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(D, np.int64), np.full(D, -1, np.int64), np.zeros(1, np.int64)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_heap_matches_sort_reference(ops: list[tuple[str, int, float]]) -> None:
    heap, pos, hsize = _empty()
    w = np.zeros(D)
    members: set[int] = set()  # columns tracked by the heap (non-zero, not removed)
    for op, a, value in ops:
        if op == "set":
            w[a] = value
            topk_touch(heap, pos, hsize, w, a)
            if value != 0.0:
                members.add(a)
            else:
                members.discard(a)
        elif op == "truncate":
            order = sorted(
                members, key=lambda c: (-abs(float(w[c])), c)
            )  # keep largest, lower column first
            expect_w = w.copy()
            for c in order[a:]:
                expect_w[c] = 0.0
            removed = topk_truncate(heap, pos, hsize, w, a)
            assert removed == max(0, len(order) - a)
            np.testing.assert_array_equal(w, expect_w)
            members = set(order[:a])
        elif op == "remove":
            topk_remove(heap, pos, hsize, w, a)
            members.discard(a)
        else:
            expect = min(members, key=lambda c: _key(w, c)) if members else -1
            assert topk_min(heap, hsize) == expect
            assert topk_pop(heap, pos, hsize, w) == expect
            members.discard(expect)
        _check_invariants(heap, pos, int(hsize[0]), w, members)


@settings(max_examples=100, deadline=None)
@given(st.lists(VALUES, min_size=D, max_size=D), st.integers(0, D))
def test_build_then_truncate_keeps_largest_lower_index_first(values: list[float], k: int) -> None:
    w = np.array(values)
    heap, pos, hsize = _empty()
    topk_build(heap, pos, hsize, w, D)
    nz = [c for c in range(D) if w[c] != 0.0]
    _check_invariants(heap, pos, int(hsize[0]), w, set(nz))
    keep = sorted(nz, key=lambda c: (-abs(float(w[c])), c))[:k]
    topk_truncate(heap, pos, hsize, w, k)
    assert sorted(np.flatnonzero(w).tolist()) == sorted(keep)
    topk_reset(heap, pos, hsize)
    assert hsize[0] == 0 and np.all(pos == -1)


def test_ties_evict_the_higher_column_first() -> None:
    w = np.ones(6)
    heap, pos, hsize = _empty()
    for c in (3, 0, 5, 1, 4, 2):
        topk_touch(heap, pos, hsize, w, c)
    assert topk_truncate(heap, pos, hsize, w, 2) == 4
    assert np.flatnonzero(w).tolist() == [0, 1]


def test_touch_after_a_weight_shrinks_or_grows() -> None:
    w = np.array([3.0, 2.0, 1.0])
    heap, pos, hsize = _empty()
    for c in range(3):
        topk_touch(heap, pos, hsize, w, c)
    w[0] = 0.5  # the largest becomes the smallest
    topk_touch(heap, pos, hsize, w, 0)
    assert topk_min(heap, hsize) == 0
    w[2] = -5.0
    topk_touch(heap, pos, hsize, w, 2)
    topk_truncate(heap, pos, hsize, w, 1)
    assert w.tolist() == [0.0, 0.0, -5.0]
    w[2] = 0.0  # a weight that becomes zero leaves the heap
    topk_touch(heap, pos, hsize, w, 2)
    assert hsize[0] == 0 and topk_pop(heap, pos, hsize, w) == -1


def test_truncation_keeps_the_largest_and_the_lower_column_among_ties() -> None:
    """The tie rule of ``_core/topk.pxd``: evict the smallest ``|w|``, the higher column first."""
    w = np.array([0.5, -2.0, 0.5, 1.0, 0.0])
    heap, pos, hsize = np.zeros(5, np.int64), np.full(5, -1, np.int64), np.zeros(1, np.int64)
    for c in range(5):
        topk_touch(heap, pos, hsize, w, c)
    assert (int(hsize[0]), int(topk_min(heap, hsize))) == (4, 2)  # 0.5 twice: column 2 goes first
    assert topk_truncate(heap, pos, hsize, w, 2) == 2
    assert w.tolist() == [0.0, -2.0, 0.0, 1.0, 0.0]
