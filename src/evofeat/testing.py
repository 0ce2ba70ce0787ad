"""``check_learner``: the generic suite every online learner must pass, as River's ``check_estimator``.

A new learner is two files in the package: its compiled core (``_name.pyx``)
and its Python class with its registry entry (``name.py`` and its
``LEARNERS = {"name": Class}``, found by :mod:`evofeat.registry`);
:func:`check_learner` then tells its author
whether it behaves as every evofeat learner must, and what is still needed.
Each check is a plain function of a fresh, unfitted learner (see
:data:`CHECKS`), so a test suite can run them one by one (evofeat's own
``tests/base/test_generic_checks.py`` crosses every registered learner with every check).

What the suite cannot check, because it needs a second, independent
implementation, is the math itself: each learner also needs a case in
``tests/oracle/`` (plain NumPy written from the paper, importing nothing
from evofeat) and a line in ``tests/_core/test_oracle_parity.py``;
:func:`check_learner` says so in its result.

Examples
--------
>>> from evofeat.linear.pa import PA
>>> report = check_learner(PA(mode="pa-i"))
>>> report.passed[:3]
['contract', 'set_params', 'emerging_and_vanishing_features']
>>> report.failed
{}
"""

from __future__ import annotations

import pickle
import random
import tempfile
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.base import InputError, OnlineLearner

__all__ = ["CHECKS", "CheckReport", "check_learner", "synthetic_rows", "synthetic_stream_data"]

Rows = list[tuple[dict[Hashable, float], Any]]

#: What ``check_learner`` cannot check and the author must add (see the module docstring).
STILL_NEEDED = (
    "an independent oracle: a plain-NumPy case in tests/oracle/ written from the paper "
    "(importing nothing from evofeat) and a line in tests/_core/test_oracle_parity.py; "
    "and its name in README.md's list of learners (tests/project/test_readme_learners.py)"
)


def synthetic_stream_data(
    task: str, n: int = 240, d: int = 8, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A small linear problem for the checks: ``(X, y)`` with ``n`` rows of ``d`` features.

    The last feature is always 0.0 (a value, not an absence); labels are
    -1/+1 (binary), 0/1/2 (multiclass) or real (regression).

    >>> X, y = synthetic_stream_data("binary", n=4)
    >>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
    ((4, 8), True)
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, -1] = 0.0
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    if task == "regression":
        return X, f
    if task == "multiclass":
        return X, np.digitize(f, [-0.5, 0.5]).astype(np.int64)
    return X, np.where(f > 0, 1, -1)


def synthetic_rows(task: str, n: int = 120) -> Rows:
    """:func:`synthetic_stream_data` as dict rows ``({"f0": ..., ...}, y)``.

    >>> synthetic_rows("binary", n=1)[0][0]["f7"]
    0.0
    """
    X, y = synthetic_stream_data(task, n=n)
    rows: Rows = [
        ({f"f{j}": float(v) for j, v in enumerate(row)}, yy.item())
        for row, yy in zip(X, y, strict=True)
    ]
    return rows


def _learn(model: OnlineLearner, rows: Rows) -> list[Any]:
    """Test-then-train on the dict path; the predictions made before each row is learned."""
    preds = []
    for x, y in rows:
        preds.append(model.predict_one(x))
        model.learn_one(x, y)
    return preds


def _fail(message: str) -> None:
    raise AssertionError(message)


# ---------------------------------------------------------------------------- the checks
def check_contract(model: OnlineLearner) -> None:
    """repr names the class; clone keeps the parameters and drops the state; None before
    learning; a pickled copy predicts and continues exactly as the original."""
    if type(model).__name__ not in repr(model):
        _fail(f"repr {model!r} does not name the class {type(model).__name__}")
    params = model.get_params()
    if model.clone().get_params() != params:
        _fail("clone() must keep every parameter (get_params of the clone differs)")
    if model.predict_one({"f0": 1.0}) is not None:
        _fail("predict_one must return None before the learner has learned anything")
    rows = synthetic_rows(model.task)
    _learn(model, rows[:60])
    if model.clone().predict_one(rows[0][0]) is not None:
        _fail("clone() must not copy the learned state")
    copy = pickle.loads(pickle.dumps(model))
    if [copy.predict_one(x) for x, _ in rows[60:]] != [model.predict_one(x) for x, _ in rows[60:]]:
        _fail("a pickled copy must predict as the original")
    if _learn(copy, rows[60:]) != _learn(model, rows[60:]):
        _fail("a pickled copy must continue learning exactly as the original")


def check_set_params(model: OnlineLearner) -> None:
    """``set_params`` refuses an unknown parameter with an InputError."""
    _learn(model, synthetic_rows(model.task)[:20])
    try:
        model.set_params(not_a_parameter=1)
    except InputError as exc:
        if "unknown parameter" not in str(exc):
            _fail(f"set_params(not_a_parameter=1) must say 'unknown parameter', said: {exc}")
    else:
        _fail("set_params(not_a_parameter=1) must raise InputError")


def check_emerging_and_vanishing_features(model: OnlineLearner) -> None:
    """Features that appear, then vanish, mid-stream: every prediction after the first is made."""
    rows = synthetic_rows(model.task, n=150)
    emerging = [
        ({k: v for k, v in x.items() if int(str(k)[1:]) < 2 + i // 20}, y)
        for i, (x, y) in enumerate(rows)
    ]
    preds = _learn(model, emerging)
    if len(model.feature_index_) != len(rows[0][0]):
        _fail("every feature that appeared must be in feature_index_")
    vanishing = [
        ({k: v for k, v in x.items() if int(str(k)[1:]) >= i // 20}, y)
        for i, (x, y) in enumerate(rows)
    ]
    preds += _learn(model, vanishing)
    if any(p is None for p in preds[1:]):
        _fail("predict_one returned None after learning (features emerging or vanishing)")


def check_key_order(model: OnlineLearner) -> None:
    """The order of a row's keys does not change what is learned."""
    rows = synthetic_rows(model.task)
    rng = random.Random(0)
    shuffled = []
    for x, y in rows:
        items = list(x.items())
        rng.shuffle(items)
        shuffled.append((dict(items), y))
    if _learn(model.clone(), rows) != _learn(model.clone(), shuffled):
        _fail("shuffling a row's keys changed the predictions")


def check_empty_row_zero_value_and_unseen_feature(model: OnlineLearner) -> None:
    """An empty row is learned without error; 0.0 is a value (the feature is seen); a feature
    never learned changes no prediction and is not added by ``predict_one``."""
    rows = synthetic_rows(model.task, n=40)
    _learn(model, rows)
    model.learn_one({}, rows[0][1])
    model.learn_one({"zero": 0.0, **rows[1][0]}, rows[1][1])
    if "zero" not in model.feature_index_:
        _fail("a feature whose value is 0.0 is present: it must enter feature_index_")
    n_before = len(model.feature_index_)
    before = model.predict_one(rows[2][0])
    if model.predict_one({**rows[2][0], "never_seen": 5.0}) != before:
        _fail("a feature never learned must not change a prediction")
    if len(model.feature_index_) != n_before:
        _fail("predict_one must not add features to feature_index_")
    if model.predict_one({}) is None:
        _fail("predict_one({}) must predict once the learner has learned")


def _streams(task: str) -> dict[str, Any]:
    from evofeat.streams import evolvable, haphazard, trapezoidal

    X, y = synthetic_stream_data(task, n=200)
    return {
        "trapezoidal": trapezoidal(X, y, task=task),
        "evolvable": evolvable(X, y, d2=5, overlap=10, seed=1, task=task),
        "haphazard": haphazard(X, y, p=0.6, seed=2, task=task),
    }


def check_paths_agree(model: OnlineLearner) -> None:
    """The compiled loop (array path) and ``learn_one`` (dict path) predict the same on
    trapezoidal, feature-evolvable and haphazard streams."""
    from evofeat.evaluate import prequential

    for scenario, stream in _streams(model.task).items():
        arr = prequential(model.clone(), stream, keep_predictions=True)
        labels = np.asarray(arr.labels, dtype=float).copy()
        twin = model.clone()
        preds = []
        for x, y in stream.to_dicts():
            p = twin.predict_one(x)
            preds.append(np.nan if p is None else float(p))
            twin.learn_one(x, y)
        got = np.asarray(preds)
        if model.task == "binary":
            labels[labels == 0] = -1  # "no decision" is -1 on the dict path
            same = np.array_equal(got[1:], labels[1:])
        else:
            same = np.allclose(got[1:], labels[1:], rtol=1e-9, atol=1e-12)
        if not same:
            _fail(f"dict path and array path disagree on the {scenario} stream")


def check_learn_many(model: OnlineLearner) -> None:
    """``learn_many`` on a batch (NaN: absent) learns exactly as ``learn_one`` row by row."""
    X, y = synthetic_stream_data(model.task, n=80)
    X = X.copy()
    X[::3, 1] = np.nan
    batch = model.clone().learn_many(X, y)
    rows: Rows = [
        ({f"f{j}": float(v) for j, v in enumerate(row) if not np.isnan(v)}, yy.item())
        for row, yy in zip(X, y, strict=True)
    ]
    single = model.clone()
    _learn(single, rows)
    probe = [x for x, _ in rows[:20]]
    if [batch.predict_one(x) for x in probe] != [single.predict_one(x) for x in probe]:
        _fail("learn_many must learn exactly as learn_one on each row in order")


def check_seed(model: OnlineLearner) -> None:
    """Two learners with the same ``seed`` make the same predictions (skipped without ``seed``)."""
    if "seed" not in model.get_params():
        return
    rows = synthetic_rows(model.task)
    if _learn(model.clone(seed=7), rows) != _learn(model.clone(seed=7), rows):
        _fail("the same seed must give the same predictions")


def check_bad_input(model: OnlineLearner) -> None:
    """NaN, inf, text, a non-dict row and (binary) a label outside -1/+1 are refused with an
    InputError, and a refused row leaves the learner unchanged."""
    y_ok = synthetic_rows(model.task, n=1)[0][1]
    bad: list[tuple[Any, Any, str]] = [
        ({"a": float("nan")}, y_ok, "finite"),
        ({"a": float("inf")}, y_ok, "finite"),
        ({"a": "red"}, y_ok, "non-numeric"),
        ([1.0, 2.0], y_ok, "dict"),
    ]
    if model.task == "binary":
        bad.append(({"a": 1.0}, 2, "-1, +1"))
    for x, y, word in bad:
        try:
            model.learn_one(x, y)
        except InputError as exc:
            if word not in str(exc):
                _fail(f"learn_one({x!r}, {y!r}) must say {word!r}; said: {exc}")
        else:
            _fail(f"learn_one({x!r}, {y!r}) must raise InputError")
    if model.predict_one({"a": 1.0}) is not None:
        _fail("a refused row must not change the learner")


def check_other_task_rejected(model: OnlineLearner) -> None:
    """A binary learner refuses a multiclass stream (skipped for other tasks)."""
    if model.task != "binary":
        return
    from evofeat.evaluate import prequential
    from evofeat.streams import full

    X, y = synthetic_stream_data("multiclass")
    try:
        prequential(model, full(X, y))
    except InputError:
        return
    _fail("a binary learner must refuse a multiclass stream with an InputError")


def check_budget(model: OnlineLearner) -> None:
    """A learner with a ``budget`` keeps at most ``budget_limit_`` weights (skipped without)."""
    if not hasattr(model, "budget"):
        return
    from evofeat.evaluate import prequential
    from evofeat.streams import trapezoidal

    X, y = synthetic_stream_data(model.task, n=300, d=20)
    prequential(model, trapezoidal(X, y, task=model.task))
    sel = model.selected_features_  # type: ignore[attr-defined]
    if not set(sel) <= set(model.feature_index_.names):
        _fail("selected_features_ names a feature the learner never saw")
    if len(sel) > model.budget_limit_:  # type: ignore[attr-defined]
        _fail(f"{len(sel)} weights kept, budget {model.budget_limit_}")  # type: ignore[attr-defined]


def check_model_file(model: OnlineLearner) -> None:
    """``evofeat.io.save`` then ``load`` gives a learner that predicts and continues exactly as
    the original."""
    from evofeat import io

    rows = synthetic_rows(model.task)
    _learn(model, rows[:60])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.evofeat"
        io.save(model, path)
        loaded = io.load(path)
    if _learn(loaded, rows[60:]) != _learn(model, rows[60:]):
        _fail("a learner saved and loaded must predict and continue exactly as the original")


#: Every check, by name, in the order :func:`check_learner` runs them.
CHECKS: dict[str, Callable[[OnlineLearner], None]] = {
    "contract": check_contract,
    "set_params": check_set_params,
    "emerging_and_vanishing_features": check_emerging_and_vanishing_features,
    "key_order": check_key_order,
    "empty_row_zero_value_and_unseen_feature": check_empty_row_zero_value_and_unseen_feature,
    "paths_agree": check_paths_agree,
    "learn_many": check_learn_many,
    "seed": check_seed,
    "bad_input": check_bad_input,
    "other_task_rejected": check_other_task_rejected,
    "budget": check_budget,
    "model_file": check_model_file,
}


@dataclass
class CheckReport:
    """What :func:`check_learner` found: the checks passed, the failed ones with their
    message, and what the suite cannot check (:data:`STILL_NEEDED`).

    >>> CheckReport(passed=["contract"]).ok
    True
    """

    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    still_needed: str = STILL_NEEDED

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.failed

    def __str__(self) -> str:
        lines = [f"passed: {', '.join(self.passed) or 'none'}"]
        lines += [f"FAILED {name}: {msg}" for name, msg in self.failed.items()]
        lines.append(f"still needed (not checkable here): {self.still_needed}")
        return "\n".join(lines)


def check_learner(
    learner: OnlineLearner, checks: list[str] | None = None, raise_on_failure: bool = False
) -> CheckReport:
    """Run the generic suite (:data:`CHECKS`, or the named ``checks``) on fresh clones of ``learner``.

    Each check gets its own ``learner.clone()``; a multiclass learner needs
    its ``n_classes`` set. With ``raise_on_failure``, a failed check raises
    :class:`AssertionError` with the report.
    """
    if not isinstance(learner, OnlineLearner):
        raise InputError(
            "check_learner checks online learners",
            expected="an instance of evofeat.base.OnlineLearner",
            received=type(learner).__name__,
            fix="derive the learner from evofeat.base.OnlineLearner",
        )
    unknown = sorted(set(checks or ()) - set(CHECKS))
    if unknown:
        raise InputError(
            f"unknown check(s) {unknown}", expected="names from evofeat.testing.CHECKS"
        )
    report = CheckReport()
    for name in checks or list(CHECKS):
        try:
            CHECKS[name](learner.clone())
        except AssertionError as exc:
            report.failed[name] = str(exc)
        except Exception as exc:  # a crash in a check is a failure of the learner
            report.failed[name] = f"{type(exc).__name__}: {exc}"
        else:
            report.passed.append(name)
    if raise_on_failure and report.failed:
        raise AssertionError(str(report))
    return report
