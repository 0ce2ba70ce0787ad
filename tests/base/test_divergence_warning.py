"""A warning, once, when a learner's weights diverge (issue 16), on the dict path and the array path.

The check reads the weights as the model uses them (``_effective_weights``)
at rows 1, 2, 4, ... and then every ``max(1024, capacity)`` rows on the dict
path, and once a block in the compiled loop (with the block's loss): never
per row.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evofeat.base import OnlineLearner
from evofeat.evaluate import prequential
from evofeat.registry import ONLINE, make
from evofeat.streams import full
from evofeat.testing import synthetic_rows as _rows  # rows of a task
from tests.base.test_generic_checks import _learner  # a registered learner (multiclass: 3 classes)

NAMES = list(ONLINE)


def _caught(fn) -> list[warnings.WarningMessage]:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if "diverged" in str(w.message)]


def _poison(model: OnlineLearner) -> None:
    """Make every per-feature float field of the learned state NaN (as an overflow would)."""
    for name in model.per_feature:
        arr = np.asarray(getattr(model._state, name))
        if arr.dtype.kind == "f":
            arr[...] = np.nan


@pytest.mark.parametrize("name", NAMES)
def test_every_learner_warns_once_on_the_dict_path(name: str) -> None:
    model = _learner(name)
    rows = _rows(model.task, n=80)
    assert not _caught(lambda: [model.learn_one(x, y) for x, y in rows[:16]]), "healthy: silent"
    _poison(model)
    found = _caught(lambda: [model.learn_one(x, y) for x, y in rows[16:]])
    assert len(found) == 1, "once"
    text = str(found[0].message)
    assert text.startswith(repr(model)) and "diverged by row 32" in text  # checked at 16, 32
    assert "lower its step size" in text and "scale the features" in text
    assert found[0].category is RuntimeWarning


@pytest.mark.parametrize("name", NAMES)
def test_every_learner_warns_once_on_the_array_path(name: str) -> None:
    model = _learner(name)
    rows = _rows(model.task, n=120)
    X = pd.DataFrame([x for x, _ in rows])
    y = pd.Series([t for _, t in rows])
    model.learn_many(X.iloc[:40], y.iloc[:40])
    _poison(model)
    found = _caught(lambda: model.learn_many(X.iloc[40:], y.iloc[40:]))
    assert len(found) == 1 and "diverged by row 120" in str(found[0].message)  # one block
    assert not _caught(lambda: model.learn_many(X, y)), "once per learner"


def test_square_loss_ogd_with_a_large_step_diverges_and_says_so() -> None:
    """The real thing: OGD on the square loss, lr 1, features of scale 10 (weights reach 1e308)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 5)) * 10
    y = X[:, 0] * 3 + 10
    stream = full(X, y, task="regression")
    found = _caught(lambda: prequential(make("ogd", loss="square", lr=1.0), stream, chunk_rows=500))
    assert len(found) == 1 and "diverged by row 500" in str(found[0].message)
    model = make("ogd", loss="square", lr=1.0)
    found = _caught(lambda: [model.learn_one(x, t) for x, t in stream.to_dicts()])
    assert len(found) == 1 and "diverged by row 64" in str(found[0].message)  # checks: 32, 64
    # the same learner with a small step on standardised features stays silent
    calm = make("ogd", loss="square", lr=0.01)
    assert not _caught(lambda: prequential(calm, full(X / 10, y / 10, task="regression")))


def test_a_clean_run_of_every_learner_is_silent() -> None:
    for name in NAMES:
        model = _learner(name)
        rows = _rows(model.task, n=200)
        assert not _caught(lambda m=model, r=rows: [m.learn_one(x, t) for x, t in r]), name
