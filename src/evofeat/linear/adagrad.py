"""Online gradient descent with diagonal AdaGrad steps on evolving features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._adaptive import AdaGradCore
from evofeat.linear.ogd import LOSSES, LossTask, check_common

__all__ = ["AdaGrad"]


@dataclass(eq=False, repr=False)
class AdaGrad(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """Online gradient descent with per-coordinate AdaGrad steps (Duchi et al., 2011) on evolving features.

    Predict ``f = w . x`` (label ``sign(f)``, a score of 0 predicting -1);
    then for each feature of the row, with ``g_i = dl(f, y)/df x_i``:
    ``G_i += g_i^2`` and ``w_i -= lr g_i / sqrt(eps + G_i)``. The loss is
    logistic ``ln(1 + exp(-y f))`` (labels -1/+1; ``g_i = (p - y01) x_i``
    with ``p = sigmoid(f)``) or square ``(y - f)^2`` (regression), as in
    :class:`~evofeat.linear.ogd.OGD`. A row costs O(its number of
    features).

    Evolving features: absent is not zero. A feature missing from the row
    takes no part in the score and gets no update, so its ``w_i`` and its
    accumulator ``G_i`` stay as they were while it is absent; a vanished
    feature that comes back is used with the state it left with; a feature
    never seen starts at ``w_i = G_i = 0``, so its first step has the full
    size ``lr |g_i| / sqrt(eps + g_i^2)`` (about ``lr``) whatever the age of
    the others.

    Extreme values: the loss and its slope are computed stably (see
    :class:`~evofeat.linear.ogd.OGD`); each gradient, ``G_i``, step and
    weight saturates at +-1.8e308 rather than becoming infinite (so ``G_i``
    saturates on rows of norm 1e300); a score that overflows is recomputed
    on rescaled operands and saturated, one that underflows keeps its sign,
    never NaN; a step that is not finite (the square loss of a saturated
    score) is skipped. ``eps > 0`` keeps the divisor positive when
    ``g_i^2`` underflows (rows of norm 1e-300).

    Duchi et al. fix neither number; the defaults ``lr=0.1`` and
    ``eps=1e-8`` are a common choice for logistic regression on
    standardized features, not tuned on evofeat's data sets.

    Parameters
    ----------
    lr
        The step scale (Duchi et al.'s eta).
    eps
        The initial value of each accumulator, added inside the square root
        (Duchi et al. add ``delta`` outside it, ``delta + sqrt(G_i)``; the
        accumulator start is the common implementation's choice, e.g.
        TensorFlow's ``initial_accumulator_value``). Only its order of
        magnitude matters: it bounds the first step of a tiny gradient.
    loss
        ``"logistic"`` (binary classification) or ``"square"``
        (regression); :attr:`task` follows from it.
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has (the score is ``w . x + b``), with its own accumulator ``G_b``
        and the same step, ``G_b += g^2``, ``b -= intercept_lr g / sqrt(eps
        + G_b)`` with ``g = dl/df``. The bias is not a feature (always
        visible, not in ``coef_`` nor in the feature index). On by default,
        as in River and Vowpal Wabbit (whose learners learn a bias unless
        told not to); ``fit_intercept=False`` is Duchi et al.'s update on the
        features alone.
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
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> result = prequential(AdaGrad(), trapezoidal(ds.X, ds.y, ds.feature_names))
    >>> round(result.accuracy, 3)
    0.746
    >>> plain = AdaGrad(fit_intercept=False)
    >>> round(prequential(plain, trapezoidal(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.671

    References
    ----------
    Duchi, Hazan, Singer. Adaptive subgradient methods for online learning
    and stochastic optimization. JMLR 12, 2011 (Section 1.1 and Figure 1:
    the diagonal update ``x_{t+1} = x_t - eta diag(G_t)^{-1/2} g_t`` with
    ``G_t = sum_{s<=t} g_s g_s^T``).
    """

    per_feature = ("w", "G")

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(fixed=("lr", "eps", "loss_kind", "fit_intercept", "intercept_lr"))

    lr: float = 0.1
    eps: float = 1e-8
    loss: str = "logistic"
    fit_intercept: bool = True
    intercept_lr: float | None = None

    def _check_params(self) -> None:
        check_common(self)
        check_number(self.eps, "eps", positive=True, fix="pass eps=1e-8")
        check_intercept(self, "lr")

    def _make_state(self, capacity: int) -> AdaGradCore:
        return AdaGradCore(
            w=np.zeros(capacity),
            G=np.zeros(capacity),
            lr=float(self.lr),
            eps=float(self.eps),
            loss_kind=LOSSES[self.loss],
            **self._intercept_fields(self.lr, ("intercept", "intercept_G")),
        )


LEARNERS = {"adagrad": AdaGrad}
