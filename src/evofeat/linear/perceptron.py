"""The perceptron on evolving features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._perceptron import PerceptronCore

__all__ = ["Perceptron"]


@dataclass(eq=False, repr=False)
class Perceptron(InterceptMixin, OnlineLearner):
    """Rosenblatt's perceptron on evolving features.

    Predict ``sign(w . x)`` (0 predicts -1); on a mistake (``y w . x <= 0``)
    update ``w += lr y x`` over the visible features. Unseen features have
    weight 0; vanished ones keep their weight. The loss it reports is the
    0-1 mistake indicator.

    Extreme values: the score is summed as usual and, only if that overflows,
    recomputed on rescaled operands and saturated at the largest double, so
    it is never NaN (rows of norm 1e300 score about +-1.8e308); each weight
    saturates at +-1.8e308 instead of becoming infinite. A row of norm
    1e-300 learns weights of that size, and the score of such a row
    underflows to 0 (predicting -1). A zero row changes nothing.

    Parameters
    ----------
    lr
        Step size (the perceptron's mistakes do not depend on it when the
        weights start at 0; it scales the weights).
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has, so the score is ``w . x + b`` and a mistake also steps ``b +=
        intercept_lr y``. The bias is not a feature (always visible, not in
        ``coef_`` nor in the feature index). Turn it on for raw features
        with an offset or imbalanced classes. Off by default: Rosenblatt's
        rule, as the papers' baselines run it.
    intercept_lr
        The bias's step (``None``: ``lr``, which keeps the mistakes
        independent of ``lr``).

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
    >>> prequential(Perceptron(), full(ds.X, ds.y, ds.feature_names)).mistakes
    393

    References
    ----------
    Rosenblatt, F. The perceptron. Psychological Review 65(6), 1958.
    """

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(fixed=("lr", "fit_intercept", "intercept_lr"))

    lr: float = 1.0
    fit_intercept: bool = False
    intercept_lr: float | None = None

    def _check_params(self) -> None:
        check_number(self.lr, "lr", positive=True, fix="pass lr=1.0")
        check_intercept(self, "lr")

    def _make_state(self, capacity: int) -> PerceptronCore:
        return PerceptronCore(
            w=np.zeros(capacity),
            lr=float(self.lr),
            **self._intercept_fields(self.lr),
        )


LEARNERS = {"perceptron": Perceptron}
