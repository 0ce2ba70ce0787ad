"""Online gradient descent with step ``lr / sqrt(t)``: FESL's base learner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.errors import check_choice
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._ogd import OGDCore, loss_slope, loss_value

__all__ = ["LOSSES", "OGD", "LossTask", "check_common", "loss_slope", "loss_value"]

#: loss name -> code used inside the compiled core.
LOSSES = {"logistic": 0, "square": 1}


def check_common(learner: Any) -> None:
    """Validate the parameters every OGD-based learner shares (``loss``, ``lr``)."""
    check_choice(
        learner.loss,
        LOSSES,
        "loss",
        "pass loss='logistic' (classification) or 'square' (regression)",
    )
    lr = learner.lr
    if isinstance(lr, bool) or not isinstance(lr, int | float) or not (lr > 0 and np.isfinite(lr)):
        raise InputError(
            "lr must be positive",
            expected="a finite number > 0 (the paper's 1/c)",
            received=repr(lr),
            fix="pass lr=1.0, or lr=1/c for the paper's c",
        )


class LossTask:
    """The task of a learner with a ``loss`` parameter: regression for the square loss, else binary.

    >>> class L(LossTask):
    ...     loss = "square"
    >>> L().task
    'regression'
    """

    loss: str

    @property
    def task(self) -> str:  # type: ignore[override]
        """``"regression"`` for the square loss, else ``"binary"``."""
        return "regression" if self.loss == "square" else "binary"


@dataclass(eq=False, repr=False)
class OGD(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """Online gradient descent (Zinkevich, 2003) on all visible features.

    Predict ``f = w . x``; then ``w <- w - tau_t dl(f, y)/df x`` with
    ``tau_t = lr / sqrt(t)``, ``t`` the number of rows learned (the paper's
    ``1 / (c sqrt(t))`` with ``lr = 1/c``). The loss is logistic
    ``ln(1 + exp(-y f))`` (binary labels -1/+1, prediction ``sign(f)``, a
    score of 0 predicting -1) or square ``(y - f)^2`` (regression). Only
    visible features take part: an unseen feature has weight 0, a vanished
    one keeps its weight and is used again if it comes back. This is the
    base learner of :class:`~evofeat.ensemble.fesl.FESL`; on its own it
    ignores that the feature space changes.

    Extreme values: the logistic loss and its slope are computed stably
    (``ln(1 + exp(-m))`` as ``m + log1p(exp(-m))`` for ``m > 0``, the sigmoid
    from ``exp`` of a non-positive number), so neither overflows. A score
    that overflows (rows of norm 1e300 against large weights) is recomputed
    on rescaled operands and saturated at +-1.8e308, never NaN; each weight
    saturates at +-1.8e308 instead of becoming infinite, and a step that is
    not finite (the square loss of a saturated score) is skipped. A zero row
    leaves the weights unchanged (it still counts in ``t``); rows of norm
    1e-300 give steps of that size, their scores underflow to about 0.

    Parameters
    ----------
    lr
        Step-size scale (``1/c`` of the paper, which searched ``c`` in
        ``{1, 10, 50, 100, 150}``).
    loss
        ``"logistic"`` (binary classification) or ``"square"`` (regression);
        :attr:`task` follows from it.
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has, so the score is ``w . x + b`` and ``b -= intercept_lr / sqrt(t)
        dl(f, y)/df``. The bias is not a feature (always visible, not in
        ``coef_`` nor in the feature index). Off by default: the paper's
        model (FESL's base learner) has none.
    intercept_lr
        The bias's step scale (``None``: ``lr``).

    Attributes
    ----------
    coef_
        The weight of each feature seen so far, by name.
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> result = prequential(OGD(lr=0.1), full(ds.X, ds.y, ds.feature_names))
    >>> round(result.accuracy, 3)
    0.684
    >>> biased = OGD(lr=0.1, fit_intercept=True)
    >>> round(prequential(biased, full(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.756

    References
    ----------
    Zinkevich. Online convex programming and generalized infinitesimal
    gradient ascent. ICML 2003. Hou, Zhang, Zhou. Learning with feature
    evolvable streams. NIPS 2017, Eq. (1).
    """

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(fixed=("loss_kind", "lr", "fit_intercept", "intercept_lr"))

    lr: float = 1.0
    loss: str = "logistic"
    fit_intercept: bool = False
    intercept_lr: float | None = None

    def _check_params(self) -> None:
        check_common(self)
        check_intercept(self, "lr")

    def _make_state(self, capacity: int) -> OGDCore:
        return OGDCore(
            w=np.zeros(capacity),
            loss_kind=LOSSES[self.loss],
            lr=float(self.lr),
            t=0,
            **self._intercept_fields(self.lr),
        )


LEARNERS = {"ogd": OGD}
