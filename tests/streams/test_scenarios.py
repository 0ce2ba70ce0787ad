"""Scenario schedules, the array form, dict conversion and permutations."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from evofeat.base import FeatureIndex, InputError
from evofeat.streams import (
    Stream,
    evolvable,
    full,
    haphazard,
    load_permutations,
    permutation,
    trapezoidal,
    trapezoidal_schedule,
)


def test_trapezoidal_paper_schedule_is_ten_equal_parts() -> None:
    X = np.arange(1000 * 24, dtype=float).reshape(1000, 24)
    s = trapezoidal(X, np.ones(1000))
    assert s.seg_rows.tolist() == list(range(0, 1000, 100))
    assert s.seg_masks.sum(axis=1).tolist() == [2, 4, 7, 9, 12, 14, 16, 19, 21, 24]
    # stage i sees the *first* features
    assert np.array_equal(s.seg_masks[0], np.arange(24) < 2)


def test_trapezoidal_original_code_schedule() -> None:
    starts, dims = trapezoidal_schedule(1000, 24, 10, layout="original-code")
    assert starts.tolist() == [0] + list(range(200, 1000, 100))  # the first stage lasts two blocks
    assert dims.tolist() == [2, 4, 7, 9, 12, 14, 16, 19, 21]  # the last fraction is never reached
    starts, dims = trapezoidal_schedule(1234, 21, 10, layout="original-code")
    assert starts[-1] == 1230 and dims[-1] == 21  # leftover rows n mod K reach the last stage


def test_random_feature_order_is_seeded() -> None:
    X = np.ones((100, 10))
    a = trapezoidal(X, np.ones(100), feature_order="random", seed=3)
    b = trapezoidal(X, np.ones(100), feature_order="random", seed=3)
    c = trapezoidal(X, np.ones(100), feature_order="random", seed=4)
    assert np.array_equal(a.seg_masks, b.seg_masks)
    assert not np.array_equal(a.seg_masks, c.seg_masks)


def test_evolvable_paper_protocol_and_cycles() -> None:
    X = np.random.default_rng(0).standard_normal((200, 10))
    s = evolvable(X, np.ones(200), overlap=10)
    assert s.info["space_dims"] == [10, 7]  # d2 = 0.7 d1 by default
    assert s.seg_rows.tolist() == [0, 90, 100]
    assert s.info["eval_from"] == 100
    # S2 = S1 G: the new space is a linear image of the old one
    G = np.linalg.lstsq(s.X[:, :10], s.X[:, 10:], rcond=None)[0]
    assert np.allclose(s.X[:, :10] @ G, s.X[:, 10:])
    three = evolvable(X, np.ones(200), cycles=2, overlap=5)
    assert three.info["switch_rows"] == [66, 133]
    assert three.seg_masks.sum(axis=1).tolist() == [10, 17, 7, 14, 7]


def test_evolvable_with_views_keeps_sparse() -> None:
    X = sp.random(50, 30, density=0.1, format="csr", random_state=0)
    V = sp.random(50, 20, density=0.1, format="csr", random_state=1)
    s = evolvable(X, np.ones(50), views=[V], overlap=4)
    assert sp.issparse(s.X) and s.n_features == 50


def test_haphazard_never_empty_and_seeded() -> None:
    X = np.ones((300, 5))
    a = haphazard(X, np.ones(300), p=0.1, seed=0)
    assert a.visible_mask().any(axis=1).all()
    expected = 0.1 + 0.9**5 / 5  # p, plus one forced feature in each row that drew none
    assert abs(a.visible_mask().mean() - expected) < 0.03
    assert np.array_equal(
        a.visible_mask(), haphazard(X, np.ones(300), p=0.1, seed=0).visible_mask()
    )


def test_zero_is_a_value_and_nan_is_absent() -> None:
    s = Stream.from_dense(np.array([[0.0, np.nan], [np.nan, 0.0]]), np.array([1, -1]))
    rows = [x for x, _ in s.to_dicts()]
    assert rows == [{"x0": 0.0}, {"x1": 0.0}]


def test_dicts_roundtrip() -> None:
    rows = [({"a": 1.0}, 1), ({"a": 0.0, "b": 2.0}, -1), ({"b": 3.0}, 1)]
    s = Stream.from_dicts(rows)
    assert [(x, y) for x, y in s.to_dicts()] == rows


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.floats(0.2, 1.0), st.integers(0, 10))
def test_chunks_hold_exactly_the_visible_values(n: int, d: int, p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(float)  # many zeros
    s = haphazard(X, np.ones(n), p=p, seed=seed)
    fi = FeatureIndex()
    col_map, seg_dim = s.internal_columns(fi)
    dense = s.to_dense()
    for ch in s.chunks(col_map, seg_dim, size=7):
        for i in range(ch.y.size):
            r = ch.start + i
            idx = ch.indices[ch.indptr[i] : ch.indptr[i + 1]]
            val = ch.data[ch.indptr[i] : ch.indptr[i + 1]]
            assert np.all(np.diff(idx) > 0)
            expect = {int(col_map[j]): dense[r, j] for j in range(d) if not np.isnan(dense[r, j])}
            assert dict(zip(idx.tolist(), val.tolist(), strict=True)) == expect


def test_sparse_chunks_skip_invisible_entries() -> None:
    X = sp.csr_matrix(np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]]))
    s = Stream(
        X,
        np.array([1, -1]),
        ["a", "b", "c"],
        np.array([0, 1]),
        np.array([[True, False, True], [True, True, True]]),
    )
    col_map, seg_dim = s.internal_columns(FeatureIndex())
    (ch,) = list(s.chunks(col_map, seg_dim))
    assert ch.indptr.tolist() == [0, 2, 4]
    assert seg_dim.tolist() == [2, 3]
    assert ch.seg_cols.tolist() == [0, 1, 0, 1, 2]


def test_bad_streams_are_rejected() -> None:
    with pytest.raises(InputError, match="empty"):
        full(np.zeros((0, 3)), np.zeros(0))
    with pytest.raises(InputError, match="NaN"):
        full(np.array([[np.nan]]), np.array([1]))
    with pytest.raises(InputError, match="labels"):
        full(np.zeros((3, 2)), np.zeros(2))
    with pytest.raises(InputError, match="duplicate"):
        full(np.zeros((2, 2)), np.ones(2), ["a", "a"])
    with pytest.raises(InputError, match="overlap"):
        evolvable(np.zeros((20, 3)), np.ones(20), overlap=15)


def test_permutations(tmp_path: Path) -> None:
    assert sorted(permutation(10, 1)) == list(range(10))
    assert not np.array_equal(permutation(10, 1), permutation(10, 2))
    f = tmp_path / "p.csv.gz"
    with gzip.open(f, "wt") as fh:
        fh.write("3,1,2\n1,2,3\n")
    perms = load_permutations(f, 3)
    assert perms.tolist() == [[2, 0, 1], [0, 1, 2]]  # 1-based detected
    with pytest.raises(InputError, match="wrong length"):
        load_permutations(f, 4)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,1,2\n")
    with pytest.raises(InputError, match="not a permutation"):
        load_permutations(bad, 3)
