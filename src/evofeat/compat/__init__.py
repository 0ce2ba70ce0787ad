"""Adapters that make evofeat's online learners usable from River and scikit-learn."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner

__all__ = [
    "DEFAULTS",
    "DEFAULT_LEARNER",
    "build_learner",
    "class_scores",
    "learner_defaults",
    "score_rows",
]


#: The adapters' learner when none is named (``learner=None``, the default of
#: :class:`~evofeat.compat.sklearn.OnlineClassifier`, ``EvofeatClassifier`` and
#: ``to_river``'s binary task): read when a learner is built, so changing this one
#: constant changes every adapter's default.
DEFAULT_LEARNER = "auto"

#: The learner of each other task when none is named: (registry name, parameters).
DEFAULTS: dict[str, tuple[str, dict[str, Any]]] = {
    # lr=0.05: the square loss's gradient step stays stable on standardised features
    "regression": ("ogd", {"loss": "square", "lr": 0.05}),
    "multiclass": ("stsd-multiclass", {}),
}


def _default(task: str) -> tuple[str, dict[str, Any]]:
    """The learner (name, parameters) of ``task`` when none is named.

    >>> _default("binary")
    ('auto', {})
    """
    return (DEFAULT_LEARNER, {}) if task == "binary" else DEFAULTS[task]


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
    import inspect

    from evofeat.registry import ONLINE, resolve

    if isinstance(learner, OnlineLearner):
        return learner.get_params()
    fixed: dict[str, Any] = {}
    if learner is None:
        learner, fixed = _default(tasks[0])
    if not isinstance(learner, str) or learner not in ONLINE:
        return {}
    try:
        found = resolve(learner, "online")
    except InputError:  # registered but not importable here
        return {}
    out = {
        name: p.default
        for name, p in inspect.signature(found.cls).parameters.items()
        if name != "self" and p.default is not p.empty and name not in found.fixed
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
    ``None`` takes the default learner of the first of ``tasks``
    (:data:`DEFAULT_LEARNER` for a binary task, else :data:`DEFAULTS`;
    ``params`` override its parameters).

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
        learner, fixed = _default(tasks[0])
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


def class_scores(
    model: OnlineLearner, values: np.ndarray, names: Iterable[Hashable], n_classes: int
) -> np.ndarray:
    """Each row's score for each of the first ``n_classes`` classes of a multiclass learner.

    ``x . W_c`` over the row's features the learner has seen (NaN: absent;
    an unseen feature has weight 0).

    >>> from evofeat.registry import make
    >>> model = make("stsd-multiclass", n_classes=3).learn_one({"a": 1.0}, 2)
    >>> class_scores(model, np.array([[1.0, 5.0]]), ["a", "new"], 3).round(3).tolist()
    [[-0.1, 0.0, 0.1]]
    """
    coef = model.coef_
    names = list(names)
    k = model.n_classes  # type: ignore[attr-defined]
    W = np.array([coef.get(name, [0.0] * k) for name in names], dtype=np.float64)
    W = W.reshape(len(names), -1)[:, :n_classes]
    if sp.issparse(values):  # every stored value present (NaN is refused in sparse input)
        return np.asarray(values @ W)
    return np.asarray(np.nan_to_num(values) @ W)
