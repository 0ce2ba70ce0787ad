"""Bad input everywhere: the dict path of every learner, the loaders, and numerical extremes.

Rules checked (the protocol of :class:`evofeat.base.OnlineLearner` and
:func:`evofeat.datasets.load`):

- A feature value is accepted exactly when ``float(value)`` succeeds and is
  finite (so ``True`` is 1.0 and the string ``"2.5"`` is 2.5); otherwise
  ``learn_one`` raises :class:`InputError` and the learner is unchanged.
- A binary label is a bool or a number equal to -1 or +1; anything else
  raises :class:`InputError` and changes nothing.
- Keys are feature names compared as Python dict keys: ``1`` and ``"1"`` are
  two features, ``1`` and ``1.0`` (and ``True``) one.
- An empty row is learned without error.
- Loaders raise :class:`DataFormatError` naming the file, the line and the
  problem.

Numerical safety: rows of norm 1e-300 and 1e300, and one value of 1e300
after ordinary rows, must give scores that are not NaN (infinite scores are
allowed) and leave the state finite, without an exception. Learners that fail are marked
``xfail(strict=True)`` in :data:`UNSAFE` with the failing input, so a fix
shows up as an unexpected pass.
"""

from __future__ import annotations

import gzip
import math
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evofeat.base import InputError, OnlineLearner
from evofeat.datasets import DataFormatError, load
from evofeat.registry import ONLINE, make

NAMES = list(ONLINE)  # every registered online learner

#: (learner, scenario) -> how it fails; scenarios are defined in _extreme_rows.
_NORM = "60 rows of 5 features with norm 1e300: "
_ONE = "after 4 ordinary rows, the row {'': 1e300, 3: 0.0}: "
UNSAFE: dict[tuple[str, str], str] = {}
#: learners that break on some row with a value of 1e300 (the property test keeps to |value| <= 1e150 for them).
HUGE_UNSAFE = {name for name, scenario in UNSAFE if "1e300" in scenario}


def _learner(name: str) -> OnlineLearner:
    model = make(name)
    if model.task == "multiclass" and getattr(model, "n_classes", 0) is None:
        model.set_params(n_classes=3)
    return model


def _label(task: str, i: int) -> Any:
    if task == "binary":
        return 1 if i % 2 else -1
    return i % 3 if task == "multiclass" else float(i)


def _warm(name: str) -> OnlineLearner:
    model = _learner(name)
    for i in range(4):
        model.learn_one({"a": 0.5 * i - 1.0, "b": 1.0, 3: float(i % 2)}, _label(model.task, i))
    return model


def _nonfinite_at_start(model: OnlineLearner) -> dict[str, np.ndarray]:
    """Entries that are not finite in a fresh state (parameters such as radius=inf)."""
    fresh = model.clone()
    fresh._reset()
    fresh._ensure_capacity(model._capacity)
    return {
        f: ~np.isfinite(np.atleast_1d(np.asarray(a, dtype=float)))  # scalar fields are 0-d
        for f, a in zip(fresh._state._fields, fresh._state, strict=True)
    }


def _assert_state_finite(model: OnlineLearner, what: str) -> None:
    allowed = _nonfinite_at_start(model)
    for field, arr in zip(model._state._fields, model._state, strict=True):
        values = np.atleast_1d(np.asarray(arr, dtype=float))
        bad = ~np.isfinite(values) & ~allowed[field][: values.shape[0]]
        assert not bad.any(), (
            f"{type(model).__name__}: state field {field!r} is not finite after {what}"
        )


def _snapshot(model: OnlineLearner) -> tuple[Any, ...]:
    return (
        model.n_learned_,
        list(model.feature_index_.names),
        [np.array(a, copy=True) for a in model._state],
    )


def _is_value(v: Any) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _is_label(task: str, y: Any) -> bool | None:
    if task == "binary":
        return isinstance(y, bool | np.bool_) or (not isinstance(y, str) and y in (-1, 1))
    if task == "regression":
        return _is_value(y)
    return None  # multiclass: not specified here


# ---------------------------------------------------------------------------- dict path, property-based
_keys = st.one_of(
    st.text(max_size=3), st.integers(-3, 3), st.sampled_from(["1", "1.0", " 1", "a", "A"])
)
_labels = st.one_of(
    st.sampled_from([-1, 1, True, False, -1.0, 1.0, np.int64(1), np.bool_(False)]),
    st.integers(-3, 3),
    st.floats(),
    st.text(max_size=2),
    st.none(),
)


def _rows(huge: bool) -> st.SearchStrategy[dict[Any, Any]]:
    bound = 1e300 if huge else 1e150
    values = st.one_of(
        st.floats(min_value=-bound, max_value=bound),
        st.sampled_from(
            [float("nan"), float("inf"), -float("inf"), bound, -bound, 1e-300, 0.0, -0.0]
        ),
        st.integers(-(10**6), 10**6),
        st.booleans(),
        st.none(),
        st.text(max_size=5),
        st.sampled_from(["2.5", "nan", "inf", "1e400", "x", [1.0], {"v": 1.0}]),
    )
    return st.dictionaries(_keys, values, max_size=6)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), y=_labels)
def test_learn_one_rejects_bad_rows_and_labels_and_changes_nothing(
    name: str, data: st.DataObject, y: Any
) -> None:
    x = data.draw(_rows(huge=name not in HUGE_UNSAFE), label="x")
    model = _warm(name)
    before = _snapshot(model)
    valid_row = all(_is_value(v) for v in x.values())
    valid_label = _is_label(model.task, y)
    if not valid_row or valid_label is False:
        with pytest.raises(InputError) as err:
            model.learn_one(x, y)
        assert "expected" in str(err.value) and "fix:" in str(err.value), (
            "the message must say what and how"
        )
        after = _snapshot(model)
        assert after[:2] == before[:2], "a rejected row must not add features or count as learned"
        for a, b in zip(after[2], before[2], strict=True):
            np.testing.assert_array_equal(a, b)
        return
    try:
        model.learn_one(x, y)
    except InputError:
        assert valid_label is None, "a valid row and label must be learned"
        return
    assert model.n_learned_ == before[0] + 1
    assert {k for k in x} <= set(model.feature_index_.names)
    if name not in HUGE_UNSAFE:
        _assert_state_finite(model, f"learning {x!r}")
        score = model.decision_one(x)
        assert score is not None and not math.isnan(score)
    if model.task == "binary":
        assert model.predict_one(x) in (-1, 1)


@pytest.mark.parametrize("name", NAMES)
def test_duplicate_looking_keys_are_distinct_features(name: str) -> None:
    model = _warm(name)
    model.learn_one({1: 1.0, "1": 2.0, " 1": 3.0, "1.0": 4.0}, _label(model.task, 1))
    names = model.feature_index_.names
    assert {1, "1", " 1", "1.0"} <= set(names) and len(names) == len(set(names))
    model.learn_one(dict([(1.0, 5.0), (True, 6.0)]), _label(model.task, 0))  # one key in Python: 1
    assert len(model.feature_index_) == len(names), "1, 1.0 and True are the same dict key"


@pytest.mark.parametrize("name", NAMES)
def test_empty_rows_are_learned_without_error(name: str) -> None:
    model = _learner(name)
    model.learn_one({}, _label(model.task, 1))
    assert model.n_learned_ == 1 and model.predict_one({}) is not None
    model = _warm(name)
    for i in range(3):
        model.learn_one({}, _label(model.task, i))
    _assert_state_finite(model, "empty rows")
    assert model.predict_one({"a": 1.0}) is not None


# ---------------------------------------------------------------------------- numerical safety
def _extreme_rows(scenario: str, task: str) -> list[tuple[dict[Any, float], Any]]:
    rng = np.random.default_rng(0)
    if scenario == "one-1e300":
        rows = [
            ({"a": 0.5 * i - 1.0, "b": 1.0, 3: float(i % 2)}, _label(task, i)) for i in range(4)
        ]
        return rows + [
            ({"": 1e300, 3: 0.0}, _label(task, 0)),
            ({"": 1e300, 3: 0.0}, _label(task, 1)),
        ]
    scale = 1e-300 if scenario == "norm-1e-300" else 1e300
    rows = []
    for _ in range(60):
        v = rng.standard_normal(5)
        v *= scale / np.linalg.norm(v)
        rows.append(
            ({f"f{j}": float(v[j]) for j in range(5)}, _label(task, int(rng.integers(0, 2))))
        )
    return rows


def _numerical_cases() -> list[Any]:
    cases = []
    for name in NAMES:
        for scenario in ("norm-1e-300", "norm-1e300", "one-1e300"):
            reason = UNSAFE.get((name, scenario))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(name, scenario, marks=marks, id=f"{name}-{scenario}"))
    return cases


@pytest.mark.parametrize(("name", "scenario"), _numerical_cases())
def test_extreme_values_keep_predictions_and_state_finite(name: str, scenario: str) -> None:
    model = _learner(name)
    with warnings.catch_warnings(record=True) as caught:  # extreme rows: a divergence is said
        warnings.simplefilter("always")
        for t, (x, y) in enumerate(_extreme_rows(scenario, model.task)):
            model.learn_one(x, y)
            score = model.decision_one(x)
            assert score is not None and not math.isnan(score), f"row {t}: the score is NaN"
            _assert_state_finite(model, f"row {t} of {scenario}")
    for w in caught:  # the only warning these rows may give: the learner diverged, and why
        assert issubclass(w.category, RuntimeWarning) and "diverged" in str(w.message), w


# ---------------------------------------------------------------------------- loaders
def _corrupt(kind: str, line: str) -> str:
    label, *tokens = line.split()
    if kind == "value":
        return f"{label} {tokens[0].split(':')[0]}:x"
    if kind == "order":
        return f"{label} 9:1 2:1"
    if kind == "colon":
        return f"{label} 3"
    if kind == "label":
        return "yes " + " ".join(tokens)
    return f"{label} 1:nan"


_EXPECTED = {
    "value": "is not a number",
    "order": "indices must increase",
    "colon": "is not of the form index:value",
    "label": "the label 'yes' is not a number",
    "nan": "holds a NaN or infinite value",
}


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 40),
    where=st.integers(0, 10**6),
    kind=st.sampled_from(sorted(_EXPECTED)),
    gz=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_libsvm_file_with_a_bad_line_names_it(
    n: int, where: int, kind: str, gz: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        cols = np.sort(rng.choice(np.arange(1, 9), size=3, replace=False))
        lines.append(f"{1 if i % 2 else -1} " + " ".join(f"{c}:{rng.random():.3f}" for c in cols))
    bad = where % n
    lines[bad] = _corrupt(kind, lines[bad])
    text = ("\n".join(lines) + "\n").encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("f.libsvm.gz" if gz else "f.libsvm")
        path.write_bytes(gzip.compress(text) if gz else text)
        with pytest.raises(DataFormatError) as err:
            load(path)
    message = str(err.value)
    assert (
        f"f.libsvm{'.gz' if gz else ''}, line {bad + 1}: " in message and _EXPECTED[kind] in message
    )


def test_zero_length_cut_gzip_and_false_gzip(tmp_path: Path) -> None:
    empty = tmp_path / "empty.libsvm"
    empty.write_bytes(b"")
    with pytest.raises(DataFormatError, match="is empty .*fetch it again"):
        load(empty)
    rng = np.random.default_rng(0)
    text = "".join(
        f"{rng.choice([-1, 1])} 1:{rng.random():.6f} 2:{rng.random():.6f}\n" for _ in range(3000)
    )
    blob = gzip.compress(text.encode())
    cut = tmp_path / "cut.libsvm.gz"
    cut.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(DataFormatError, match="cut short"):
        load(cut)
    fake = tmp_path / "fake.libsvm.gz"  # plain text named .gz: read by content, as when streamed
    fake.write_text("1 1:1\n-1 2:1\n")
    assert load(fake).X.shape == (2, 2)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("abc", r"line 3: column 'b' holds 'abc', not a number"),
        ("nan", r"line 3: column 'b' holds 'nan', a NaN or infinite value"),
        ("inf", r"line 3: column 'b' holds inf, a NaN or infinite value"),
        ("1e999", r"line 3: column 'b' holds inf"),
    ],
)
def test_csv_with_a_non_numeric_value_names_line_and_column(
    tmp_path: Path, cell: str, message: str
) -> None:
    path = tmp_path / "t.csv"
    path.write_text(f"a,b,y\n1,2,0\n3,{cell},1\n5,6,0\n7,8,1\n")
    with pytest.raises(DataFormatError, match=message):
        load(path)


def test_csv_short_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    path.write_text("a,b,y\n1,2,0\n3,4\n5,6,1\n7,8,0\n")
    with pytest.raises(DataFormatError, match="line 3"):
        load(path)


def test_libsvm_negative_index_is_named(tmp_path: Path) -> None:
    path = tmp_path / "neg.libsvm"
    path.write_text("1 -1:1\n-1 2:1\n")
    with pytest.raises(DataFormatError, match="index -1"):
        load(path)


def test_csv_header_without_rows_is_named(tmp_path: Path) -> None:
    path = tmp_path / "header.csv"
    path.write_text("a,b,y\n")
    with pytest.raises(DataFormatError, match="no rows"):
        load(path)
