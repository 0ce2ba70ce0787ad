"""The fixed cost of a prequential call (issue 15): what a stream keeps between runs is never stale.

A :class:`~evofeat.streams.Stream` keeps what the compiled loop derives from
it (its segments' masks, the order of first visibility, CSR arrays in int64)
so that every learner run on it after the first starts at once. These tests
change a stream in place between runs and check that the next run equals a
run on a stream built afresh from the changed arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from evofeat.base.errors import InputError
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream

LEARNERS = ["ftrl", "adagrad", "pa", "stsd-i", "fesl-c"]


def _stream(seed: int = 0, n: int = 240, d: int = 9) -> Stream:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    starts = np.arange(0, n, 20)
    masks = rng.random((starts.size, d)) < 0.6
    masks[0, 0] = True
    return Stream(X, y, [f"f{j}" for j in (3, 10, 0, 7, 1, 8, 2, 5, 4)][:d], starts, masks)


def _same(a, b) -> None:
    assert a.mistakes == b.mistakes
    assert a.cumulative_loss == b.cumulative_loss
    np.testing.assert_array_equal(a.scores, b.scores)


def _run(name: str, s: Stream, **kw):
    return prequential(make(name), s, keep_predictions=True, **kw)


def _fresh(s: Stream) -> Stream:
    return Stream(
        s.X.copy(), s.y.copy(), list(s.feature_names), s.seg_rows.copy(), s.seg_masks.copy()
    )


@pytest.mark.parametrize("name", LEARNERS)
def test_labels_changed_in_place_are_read(name: str) -> None:
    s = _stream()
    before = _run(name, s)
    s.y[::3] = -s.y[::3]
    after = _run(name, s)
    _same(after, _run(name, _fresh(s)))
    assert after.mistakes != before.mistakes or not np.array_equal(after.scores, before.scores)


@pytest.mark.parametrize("name", LEARNERS)
def test_values_changed_in_place_are_read(name: str) -> None:
    s = _stream()
    s.X = s.X.astype(np.float32)  # not float64: the loop reads a converted copy
    _run(name, s)
    s.X[:, 1] *= -3.0
    _same(_run(name, s), _run(name, _fresh(s)))


@pytest.mark.parametrize("name", LEARNERS)
def test_segments_changed_in_place_are_read(name: str) -> None:
    s = _stream()
    _run(name, s)
    s.seg_masks[2:5, 1] = ~s.seg_masks[2:5, 1]
    s.seg_masks[-1, :] = True
    _same(_run(name, s), _run(name, _fresh(s)))


def test_names_and_reassigned_arrays_are_read() -> None:
    s = _stream()
    _run("ftrl", s)
    s.feature_names = list(reversed(s.feature_names))  # another first-visibility order
    _same(_run("ftrl", s), _run("ftrl", _fresh(s)))
    s.seg_masks = np.ones_like(s.seg_masks)
    _same(_run("ftrl", s), _run("ftrl", _fresh(s)))


def test_a_replaced_sparse_matrix_is_read() -> None:
    rng = np.random.default_rng(3)
    A = sp.random(300, 14, density=0.3, format="csr", random_state=4)
    y = np.where(rng.random(300) < 0.5, 1, -1)
    names = [f"x{j}" for j in range(14)]  # x10 sorts before x2: rows are remapped and sorted
    s = Stream.full(A, y, names)
    first = _run("adagrad", s)
    _same(_run("adagrad", s), first)  # the kept arrays give the same run
    s.X = sp.random(300, 14, density=0.3, format="csr", random_state=5)
    _same(_run("adagrad", s), _run("adagrad", Stream.full(s.X.copy(), y, names)))


def test_labels_made_invalid_in_place_are_refused() -> None:
    s = _stream()
    _run("pa", s)
    s.y[7] = 0
    with pytest.raises(InputError, match=r"labels in \{-1, \+1\}"):
        _run("pa", s)


@pytest.mark.parametrize("chunk", [1, 7, 20, 21, 1000])
def test_blocks_of_any_size_give_the_one_run(chunk: int) -> None:
    s = _stream(seed=1)
    a, b = _run("ftrl", s, chunk_rows=chunk), _run("ftrl", s)
    assert a.mistakes == b.mistakes
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.cumulative_loss == pytest.approx(b.cumulative_loss, rel=1e-12)  # summed per block
