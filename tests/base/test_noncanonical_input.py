"""Legal but non-canonical input reaches the compiled core only canonicalised (or is refused).

SciPy's CSR format allows a column stored twice in a row (arithmetic sums
the two), unsorted columns, int32 or int64 indices, stored zeros and empty
rows. The compiled loop reads a row as increasing, distinct columns, so
every boundary (:func:`evofeat.base.canonical.canonical_csr`) sums, sorts and
checks first: every registered online learner must learn from such a
matrix exactly (bit for bit) what it learns from SciPy's canonical form of
it (``sum_duplicates``), on the array path (``learn_many``, a
:class:`~evofeat.streams.Stream`) and on the dict path (``learn_one``), and
must refuse an index out of range with an :class:`InputError`, not crash.
Inputs that once crashed the process run in a subprocess, so a crash fails
a test instead of ending the run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evofeat.base import InputError, OnlineLearner
from evofeat.base.canonical import canonical_csr
from evofeat.evaluate import prequential
from evofeat.registry import all_names
from evofeat.streams import Stream
from tests.base.test_generic_checks import _learner  # a registered learner (multiclass: 3 classes)

NAMES = all_names("online")

#: values a feature takes: ordinary, zero (stored: a value), huge, tiny and subnormal
VALUES = st.one_of(
    st.floats(-3.0, 3.0, allow_nan=False),
    st.sampled_from([0.0, -0.0, 1e300, -1e300, 1e-300, 5e-324, -2.5e-310, 1.0]),
)


def _labels(task: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if task == "regression":
        return rng.standard_normal(n)
    if task == "multiclass":
        return rng.integers(0, 3, n)
    return np.where(rng.random(n) < 0.5, -1, 1)


@st.composite
def noncanonical_csr(draw: Any, max_rows: int = 10, max_cols: int = 7) -> sp.csr_matrix:
    """A CSR matrix as a user may build it: repeated and unsorted columns, stored zeros,
    empty rows, int32 or int64 indices."""
    n = draw(st.integers(1, max_rows))
    d = draw(st.integers(1, max_cols))
    rows = [
        draw(st.lists(st.tuples(st.integers(0, d - 1), VALUES), max_size=2 * d)) for _ in range(n)
    ]
    dtype = draw(st.sampled_from([np.int32, np.int64]))
    indptr = np.cumsum([0] + [len(r) for r in rows]).astype(dtype)
    indices = np.array([c for r in rows for c, _ in r], dtype=dtype)
    data = np.array([v for r in rows for _, v in r], dtype=np.float64)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    X.indices, X.indptr = indices, indptr  # keep the drawn dtype (SciPy may narrow it)
    return X


def _summed(X: sp.csr_matrix) -> sp.csr_matrix:
    """SciPy's canonical form of ``X``: duplicates summed (``sum_duplicates``), rows sorted."""
    C = X.copy()
    C.sum_duplicates()
    return C


@settings(max_examples=60, deadline=None)
@given(X=noncanonical_csr(max_rows=20, max_cols=12))
def test_canonical_csr_is_scipys_sum_duplicates(X: sp.csr_matrix) -> None:
    before = [a.copy() for a in (X.indptr, X.indices, X.data)]
    C = canonical_csr(X)
    want = _summed(X)
    assert type(C) is sp.csr_matrix and C.dtype == np.float64 and C.has_canonical_format
    np.testing.assert_array_equal(C.indptr, want.indptr)
    np.testing.assert_array_equal(C.indices, want.indices)
    assert C.data.tobytes() == want.data.tobytes()  # bit for bit, as SciPy sums
    for a, b in zip(before, (X.indptr, X.indices, X.data), strict=True):
        assert a.tobytes() == b.tobytes()  # the caller's arrays are as they were
    assert canonical_csr(C) is C  # canonical already: returned as it is


def _state_bytes(model: OnlineLearner) -> dict[str, bytes]:
    """The learned state, bit for bit: each field over the features seen so far."""
    if model._state is None:
        return {}
    d = len(model.feature_index_)
    out = {}
    for name in model._state._fields:
        arr = np.asarray(getattr(model._state, name))
        if arr.ndim and arr.shape[0] == model._capacity:
            arr = arr[:d]  # room for features not seen yet depends on the capacity
        out[name] = np.ascontiguousarray(arr).tobytes()
    return out


def _same_model(a: OnlineLearner, b: OnlineLearner) -> None:
    assert a.feature_index_.names == b.feature_index_.names
    assert a.n_learned_ == b.n_learned_
    assert _state_bytes(a) == _state_bytes(b)


def _learn_or_refuse(name: str, X: Any, y: np.ndarray) -> OnlineLearner | None:
    """``learn_many`` of a fresh learner; None when it refuses the batch with an InputError."""
    try:
        return _learner(name).learn_many(X, y)
    except InputError:
        return None


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=noncanonical_csr(), seed=st.integers(0, 3))
def test_noncanonical_csr_learns_what_its_canonical_form_learns(
    name: str, X: sp.csr_matrix, seed: int
) -> None:
    indices = X.indices.copy()
    y = _labels(_learner(name).task, X.shape[0], seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # huge values diverge: a warning
        got = _learn_or_refuse(name, X, y)
        want = _learn_or_refuse(name, _summed(X), y)
        np.testing.assert_array_equal(X.indices, indices)  # the caller's matrix is not changed
        assert (got is None) == (want is None)  # a sum that overflows is refused by both
        if got is None or want is None:
            return
        _same_model(got, want)
        # the array path in a Stream
        names = [f"f{j}" for j in range(X.shape[1])]
        stream = Stream.full(X, y, names, task=got.task)
        prequential(arr := _learner(name), stream, continues=True)
        if getattr(arr, "_zeros_matter", False):
            # learn_many gives such a learner (online scaling) a sparse batch's unstored zeros
            # as values, a Stream only its stored entries (OnlineScaled's documented limit):
            # here the non-canonical Stream must learn what the canonical Stream learns
            prequential(
                ref := _learner(name),
                Stream.full(_summed(X), y, names, task=got.task),
                continues=True,
            )
            _same_model(arr, ref)
        else:
            _same_model(arr, want)
        assert got.predict_many(X).tolist() == want.predict_many(_summed(X)).tolist()
        # the dict path: every column a key (as learn_many reads a sparse row), bit for bit what
        # the dense array of the same rows learns and predicts
        dense = _summed(X).toarray()
        one = _learner(name)
        for x, label in zip(_dicts(dense), y.tolist(), strict=True):
            one.learn_one(x, label)
        _same_model(one, _learner(name).learn_many(dense, y))
        assert one.predict_many(dense).tolist() == [one.predict_one(x) for x in _dicts(dense)]
        if np.all((dense == 0) | ((np.abs(dense) > 1e-150) & (np.abs(dense) < 1e150))):
            # a sparse row gives the learner its stored entries only, a dense row its zeros too;
            # the same unless the overflow-safe dot product (_core/safe.pxd) rescales by the
            # weights of zero entries, which changes its rounding at extreme magnitudes
            assert one._effective_weights().tobytes() == want._effective_weights().tobytes()
            assert got.predict_many(X).tolist() == [one.predict_one(x) for x in _dicts(dense)]


def _dicts(dense: np.ndarray) -> list[dict[str, float]]:
    return [{f"f{j}": v for j, v in enumerate(row)} for row in dense.tolist()]


def _duplicated(n: int, d: int, per_row: int, seed: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """``per_row`` entries a row at random columns (so most rows store a column twice)."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, d, size=n * per_row)
    X = sp.csr_matrix(
        (rng.standard_normal(n * per_row), cols, np.arange(0, n * per_row + 1, per_row)),
        shape=(n, d),
    )
    return X, np.where(rng.random(n) < 0.5, -1, 1)


def _isolated(body: str) -> str:
    """Run ``body`` (with this module's helpers) in a fresh interpreter; its stdout. A native crash
    there (exit 134, 139) fails the calling test instead of ending the test run."""
    tests = __import__("pathlib").Path(__file__).parents[1]  # the helpers; its parent for tests.*
    path = [str(tests), str(tests.parent)]
    script = f"import sys\nsys.path[:0] = {path!r}\n" + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.parametrize(
    ("name", "shape"),
    [("ofs", (500, 20, 30, 1)), ("ofs", (100, 3, 10, 2)), ("ofs-p", (300, 10, 25, 3))],
)
def test_duplicate_entries_no_longer_corrupt_the_heap(name: str, shape: tuple[int, ...]) -> None:
    """These matrices aborted the process in OFS's and OFS_P's top-B heap ("free(): invalid next
    size", exit 134)."""
    out = _isolated(
        f"""
        from tests.base.test_noncanonical_input import _duplicated, _learner, _same_model, _summed
        X, y = _duplicated(*{shape!r})
        got = _learner({name!r}).learn_many(X, y)
        _same_model(got, _learner({name!r}).learn_many(_summed(X), y))
        print("learned the summed model")
        """
    )
    assert "learned the summed model" in out


def test_the_compiled_loop_refuses_rows_that_bypassed_the_gate() -> None:
    """Arrays changed in place after the gate checked them, or chunks built by hand: the loop
    raises ValueError at the first bad row instead of reading past a learner's arrays."""
    out = _isolated(
        """
        import numpy as np, scipy.sparse as sp
        from evofeat._core import loop
        from evofeat.evaluate import prequential
        from evofeat.streams import Stream
        from tests.base.test_noncanonical_input import _duplicated, _learner

        stream = Stream.full(*_duplicated(50, 6, 3, 0))
        X = stream.X  # the stream's canonical copy, with int64 arrays the loop reads in place
        X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
        prequential(_learner("ofs"), stream)
        for bad in (6, 2**40, -1):  # out of range, then in range but stored twice
            X.indices[4] = bad
            try:
                prequential(_learner("ofs"), stream)
            except ValueError as err:
                print("refused:", err)
        X.indices[4] = X.indices[5]
        try:
            prequential(_learner("ofs"), stream)
        except ValueError as err:
            print("refused:", err)
        model = _learner("ofs").learn_many(sp.csr_matrix(np.eye(3)), [1, -1, 1])
        i64 = lambda *v: np.array(v, dtype=np.int64)
        for indptr, indices in ((i64(0, 2), i64(1, 1)), (i64(0, 1), i64(10**6)), (i64(0, 5), i64(0))):
            try:
                loop.predict_rows(model._state, indptr, indices, np.ones(indices.size),
                                  np.zeros(1), np.zeros(1), model._capacity)
            except ValueError as err:
                print("refused:", err)
        """
    )
    assert out.count("refused:") == 7, out


@pytest.mark.parametrize("name", ["pa", "stsd-i", "ftrl"])
def test_duplicate_entries_learn_the_summed_model(name: str) -> None:
    """These learners once learned silently another model from duplicates than from their sum."""
    X, y = _duplicated(200, 6, 4, 0)
    assert not X.has_canonical_format
    _same_model(_learner(name).learn_many(X, y), _learner(name).learn_many(_summed(X), y))


@pytest.mark.parametrize("name", NAMES)
def test_wide_matrix_with_int64_indices_learns_its_last_column(name: str) -> None:
    """A wide matrix (every column a feature) whose last column is stored twice, int64 indices."""
    d = 4096
    indices = np.array([d - 1, 3, d - 1, 0, 5, 5], dtype=np.int64)
    X = sp.csr_matrix(
        (np.array([0.5, 1.0, 0.25, -1.0, 2.0, 0.0]), indices, np.array([0, 3, 3, 6])),
        shape=(3, d),
    )
    X.indices, X.indptr = indices, np.array([0, 3, 3, 6], dtype=np.int64)  # as given
    y = _labels(_learner(name).task, 3, 0)
    got = _learner(name).learn_many(X, y)
    _same_model(got, _learner(name).learn_many(_summed(X), y))
    assert len(got.feature_index_) == d and f"f{d - 1}" in got.feature_index_


def _with(X: sp.csr_matrix, **arrays: np.ndarray) -> sp.csr_matrix:
    """``X`` with some of its arrays replaced by hand (SciPy checks none of them then)."""
    Y = X.copy()
    for key, value in arrays.items():
        setattr(Y, key, value)
    return Y


_GOOD = sp.csr_matrix(
    (np.array([1.0, 2.0, 3.0]), np.array([0, 2, 1]), np.array([0, 2, 3])), shape=(2, 3)
)
BROKEN = {
    "column past the shape": (_with(_GOOD, indices=np.array([0, 3, 1])), "out of range"),
    "negative column": (_with(_GOOD, indices=np.array([0, -1, 1])), "out of range"),
    "column beyond int32": (
        _with(_GOOD, indices=np.array([0, 2**40, 1]), indptr=np.array([0, 2, 3])),
        "out of range",
    ),
    "decreasing offsets": (_with(_GOOD, indptr=np.array([0, 3, 2])), "non-decreasing"),
    "offsets past the entries": (_with(_GOOD, indptr=np.array([0, 2, 7])), "indptr"),
    "float indices": (_with(_GOOD, indices=np.array([0.0, 2.0, 1.0])), "integer"),
}


@pytest.mark.parametrize("case", list(BROKEN), ids=list(BROKEN))
@pytest.mark.parametrize("name", ["ofs", "pa-i", "fesl-c", "stsd-multiclass"])
def test_broken_index_arrays_are_refused_before_anything_is_learned(name: str, case: str) -> None:
    X, match = BROKEN[case]
    model = _learner(name)
    y = _labels(model.task, 2, 0)
    with pytest.raises(InputError, match=match):
        model.learn_many(X, y)
    assert model.n_learned_ == 0 and len(model.feature_index_) == 0
    with pytest.raises(InputError, match=match):
        Stream.full(X, y)
    model.learn_many(_GOOD, y)
    with pytest.raises(InputError, match=match):
        model.predict_many(X)


@pytest.mark.parametrize("name", NAMES)
def test_other_sparse_formats_learn_their_canonical_csr(name: str) -> None:
    """COO with repeated coordinates, CSC, and the ``*_array`` classes: the CSR SciPy makes of them."""
    rows, cols = np.array([0, 0, 1, 2, 2, 0]), np.array([2, 2, 0, 1, 1, 1])
    data = np.array([1.0, -3.0, 0.5, 2.0, 2.0, 0.0])
    coo = sp.coo_matrix((data, (rows, cols)), shape=(3, 3))
    y = _labels(_learner(name).task, 3, 1)
    want = _learner(name).learn_many(coo.tocsr(), y)
    for X in (coo, coo.tocsc(), sp.coo_array(coo), sp.csr_array(coo.tocsr())):
        _same_model(_learner(name).learn_many(X, y), want)


@pytest.mark.parametrize("name", NAMES)
def test_dense_layouts_learn_what_a_c_ordered_float_array_learns(name: str) -> None:
    """Fortran order, a strided view, a read-only array and integer values: the same model."""
    rng = np.random.default_rng(2)
    X = np.round(rng.standard_normal((12, 6)) * 3)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = _labels(_learner(name).task, 12, 2)
    want = _learner(name).learn_many(X[:, ::2].copy(), y)
    frozen = X[:, ::2].copy()
    frozen.flags.writeable = False
    for layout in (np.asfortranarray(X[:, ::2]), X[:, ::2], frozen):
        _same_model(_learner(name).learn_many(layout, y), want)
        assert want.predict_many(layout).tolist() == want.predict_many(X[:, ::2].copy()).tolist()
    ints = np.nan_to_num(X[:, ::2]).astype(np.int32)
    _same_model(_learner(name).learn_many(ints, y), _learner(name).learn_many(ints * 1.0, y))


def _split_and_shuffled(values: np.ndarray) -> sp.csr_matrix:
    """``values`` (dense, finite) as a non-canonical CSR of the same sums: each nonzero stored as
    two halves (exact: halving a normal float is), each zero stored explicitly, the columns of
    every row in decreasing order, int64 indices."""
    n, d = values.shape
    order = np.arange(d)[::-1]
    indptr, indices, data = [0], [], []
    for row in values:
        for j in order:
            if row[j] != 0.0:
                indices += [j, j]
                data += [row[j] / 2, row[j] / 2]
            else:
                indices.append(j)
                data.append(0.0)
        indptr.append(len(indices))
    X = sp.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=(n, d))
    X.indices, X.indptr = np.array(indices, dtype=np.int64), np.array(indptr, dtype=np.int64)
    return X


def _oracle_cases() -> list[Any]:
    from tests._core.test_oracle_parity import CASES

    return CASES


@pytest.mark.parametrize("case", _oracle_cases(), ids=lambda c: c[0] + str(sorted(c[1].items())))
def test_oracle_parity_on_a_noncanonical_copy_of_the_stream(case: Any) -> None:
    """The independent oracle (tests/oracle) on the dense stream, the compiled loop on the same
    rows and visibility held as a non-canonical CSR: the same predictions."""
    from oracle import fesl as ofesl
    from tests._core.test_oracle_parity import TASKS, dense

    name, params, oracle = case
    model = _learner_with(name, params)
    stream = TASKS[model.task]["evolvable" if name in ofesl.METHODS else "trapezoidal"]
    values = np.asarray(stream.X, dtype=np.float64)
    assert not stream._nan_absent and np.isfinite(values).all()
    X = _split_and_shuffled(values)
    assert not X.has_canonical_format and np.array_equal(_summed(X).toarray(), values)
    twin = Stream(
        X, stream.y, list(stream.feature_names), stream.seg_rows, stream.seg_masks,
        task=stream.task, info=dict(stream.info),
    )  # fmt: skip
    got = prequential(model, twin, keep_predictions=True)
    labels, scores = oracle(dense(stream), stream.y.astype(float))[:2]
    assert got.labels is not None and got.scores is not None
    if model.task == "regression":
        err = np.abs(got.labels - labels) / np.maximum(1.0, np.abs(labels))
        assert err.max() <= 1e-12
        return
    np.testing.assert_array_equal(got.labels, labels)
    rtol = 1e-9 if name in ofesl.METHODS else 1e-12
    assert (np.abs(got.scores - scores) / np.maximum(1.0, np.abs(scores))).max() <= rtol


def _learner_with(name: str, params: dict[str, Any]) -> OnlineLearner:
    from evofeat.registry import make

    model = make(name, **params)
    assert isinstance(model, OnlineLearner)
    return model
