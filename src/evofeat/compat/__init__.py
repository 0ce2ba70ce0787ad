"""Adapters that make evofeat's online learners usable from River and scikit-learn."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner

__all__ = ["DEFAULTS", "build_learner", "learner_defaults", "score_rows"]


#: The learner of each task when none is named: (registry name, parameters).
DEFAULTS: dict[str, tuple[str, dict[str, Any]]] = {
    "binary": ("pa-i", {}),
    # lr=0.05: the square loss's gradient step stays stable on standardised features
    "regression": ("ogd", {"loss": "square", "lr": 0.05}),
}


def learner_defaults(learner: str | OnlineLearner | None, tasks: Sequence[str]) -> dict[str, Any]:
    """The parameters ``learner`` would be built with, by name (empty for an unknown name).

    For a registry name, its class's constructor defaults without the ones
    the name fixes (``"stsd-i"`` fixes ``mode``); for a learner, its
    ``get_params()``; for ``None``, the default learner of ``tasks[0]``.

    >>> learner_defaults("pa-i", ["binary"])
    {'C': 1.0, 'fit_intercept': False}
    >>> learner_defaults(None, ["regression"])
    {'lr': 0.05, 'loss': 'square', 'fit_intercept': False, 'intercept_lr': None}
    """
    import importlib
    import inspect

    from evofeat.registry import ONLINE

    if isinstance(learner, OnlineLearner):
        return learner.get_params()
    fixed: dict[str, Any] = {}
    if learner is None:
        learner, fixed = DEFAULTS[tasks[0]]
    if not isinstance(learner, str) or learner not in ONLINE:
        return {}
    try:
        factory = importlib.import_module(ONLINE[learner]).LEARNERS[learner]
    except (ImportError, AttributeError, KeyError):
        return {}
    keywords = dict(getattr(factory, "keywords", {}) or {})
    target = getattr(factory, "func", factory)
    out = {
        name: p.default
        for name, p in inspect.signature(target).parameters.items()
        if name != "self" and p.default is not p.empty and name not in keywords
    }
    out.update(fixed)
    return out


def build_learner(
    learner: str | OnlineLearner | None, params: Mapping[str, Any] | None, tasks: Sequence[str]
) -> OnlineLearner:
    """A fresh learner from a registry name or a template learner, with ``params`` applied.

    A name is built with :func:`evofeat.registry.make`; a learner instance is
    only a template: its :meth:`~evofeat.base.OnlineLearner.clone` (with
    ``params`` as overrides) is returned, so the template never learns.
    ``None`` takes the default learner of the first of ``tasks`` (see
    :data:`DEFAULTS`; ``params`` override its parameters).

    Parameters
    ----------
    learner
        A name in :data:`evofeat.registry.ONLINE`, an
        :class:`~evofeat.base.OnlineLearner`, or ``None`` (the default of
        the task).
    params
        Constructor parameters (for a name) or overrides (for an instance).
    tasks
        The tasks the caller accepts (``"binary"``, ``"regression"``, ...),
        the first one's default used when ``learner`` is ``None``.

    Examples
    --------
    >>> from evofeat.linear.pa import PA
    >>> build_learner("pa-ii", {"C": 0.5}, ["binary"])
    PA(mode='pa-ii', C=0.5)
    >>> build_learner(PA(), {"C": 2.0}, ["binary"])
    PA(mode='pa-i', C=2.0)
    >>> build_learner(None, None, ["regression"])
    OGD(lr=0.05, loss='square')
    >>> build_learner("pa-i", None, ["regression"])
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: pa-i is a binary learner: expected a regression learner, received PA(mode='pa-i', C=1.0); fix: pick a learner for this task
    """
    if params is not None and not isinstance(params, Mapping):
        raise InputError(
            "params must be a dict of parameters",
            expected="a dict such as {'C': 0.5} or None",
            received=repr(params),
            fix="pass params={'C': 0.5}",
        )
    extra = dict(params or {})
    if learner is None:
        learner, fixed = DEFAULTS[tasks[0]]
        extra = {**fixed, **extra}
    if isinstance(learner, str):
        from evofeat.registry import make

        model = make(learner, **extra)
        label = learner
    elif isinstance(learner, OnlineLearner):
        model = learner.clone(**extra)
        label = type(learner).__name__
    else:
        raise InputError(
            "learner must be a registry name or an evofeat online learner",
            expected="a name such as 'pa-i' or an OnlineLearner",
            received=repr(learner),
            fix="pass learner='pa-i'",
        )
    if not isinstance(model, OnlineLearner):
        raise InputError(
            f"{label} is not an online learner",
            expected="a name in evofeat.registry.ONLINE",
            received=repr(model),
            fix="pick an online learner",
        )
    if model.task not in tasks:
        raise InputError(
            f"{label} is a {model.task} learner",
            expected=f"a {' or '.join(tasks)} learner",
            received=repr(model),
            fix="pick a learner for this task",
        )
    model._reset()
    return model


def score_rows(
    model: OnlineLearner, X: np.ndarray | sp.csr_matrix, names: Iterable[Hashable]
) -> tuple[np.ndarray, np.ndarray]:
    """``(score, label)`` of each row of ``X`` from the learner's compiled predict; nothing is learned.

    The columns of ``X`` are the features ``names``; in a dense ``X`` NaN is
    an absent feature; a feature the learner has not seen is skipped (its
    weight is 0). Before any learning every score and label is 0.

    >>> from evofeat.linear.pa import PA
    >>> model = PA().learn_one({"a": 1.0}, 1)
    >>> score_rows(model, np.array([[2.0, 5.0], [np.nan, 1.0]]), ["a", "new"])
    (array([2., 0.]), array([ 1., -1.]))
    """
    return model._score_rows(X, names)
