"""Adapters that make evofeat's online learners usable from River and scikit-learn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner

__all__ = ["DEFAULTS", "build_learner"]


#: The learner of each task when none is named: (registry name, parameters).
DEFAULTS: dict[str, tuple[str, dict[str, Any]]] = {
    "binary": ("pa-i", {}),
    # lr=0.05: the square loss's gradient step stays stable on standardised features
    "regression": ("ogd", {"loss": "square", "lr": 0.05}),
}


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
