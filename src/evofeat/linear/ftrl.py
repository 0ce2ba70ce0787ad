"""FTRL-Proximal with per-coordinate learning rates on evolving features."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_choice, check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._adaptive import FTRLCore
from evofeat.linear.ogd import LOSSES, LossTask

__all__ = ["FTRL", "check_regularization"]


def check_regularization(learner: Any) -> None:
    """Validate FTRL-Proximal's ``beta``, ``l1`` and ``l2`` (each a finite number ``>= 0``)."""
    for name in ("beta", "l1", "l2"):
        check_number(getattr(learner, name), name, positive=False, fix=f"pass {name}=1.0")


@dataclass(eq=False, repr=False)
class FTRL(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """FTRL-Proximal (McMahan et al., 2013) on evolving features.

    Each feature ``i`` keeps ``z_i`` and ``n_i`` (the sum of its squared
    gradients); its weight is computed lazily, only when it is in the row:
    ``w_i = 0`` if ``|z_i| <= l1``, else
    ``w_i = -(z_i - sgn(z_i) l1) / ((beta + sqrt(n_i)) / alpha + l2)``.
    Predict ``p = sigmoid(w . x)`` (label ``sign(w . x)``, a score of 0
    predicting -1), then for each feature of the row, with
    ``g_i = (p - y01) x_i``: ``sigma_i = (sqrt(n_i + g_i^2) - sqrt(n_i)) /
    alpha``, ``z_i += g_i - sigma_i w_i``, ``n_i += g_i^2`` (Algorithm 1).
    A row costs O(its number of features).

    Evolving features: absent is not zero. A feature missing from the row
    takes no part in the score and gets no update, so its ``z_i`` and
    ``n_i`` stay as they were while it is absent; a vanished feature that
    comes back is used with the state it left with; a feature never seen
    starts at ``z_i = n_i = 0`` (weight 0, the full step ``alpha``).

    Extreme values: the logistic loss and its slope are computed stably (see
    :class:`~evofeat.linear.ogd.OGD`); each gradient, ``n_i``,
    ``sigma_i``, ``sigma_i w_i``, ``z_i`` and ``w_i`` saturates at
    +-1.8e308 rather than becoming infinite (so ``n_i`` saturates on rows
    of norm 1e300, and the weights stay finite); a score that overflows is
    recomputed on rescaled operands and saturated, one that underflows keeps
    its sign, never NaN; a step that is not finite (the square loss of a
    saturated score) is skipped. With ``beta = l2 = 0`` a feature whose
    squared gradient underflowed (``n_i = 0``) has weight 0.

    The paper fixes none of the four numbers; the defaults ``alpha=0.1``,
    ``beta=1.0``, ``l1=1.0``, ``l2=1.0`` are those of OpenMOA's FTRL, the
    peer of the comparison in evofeat's issue 15 (l1 = l2 = 1).

    Parameters
    ----------
    alpha
        The per-coordinate learning-rate scale (the paper's alpha).
    beta
        The learning-rate offset (the paper's beta; "beta = 1 is usually good
        enough").
    l1
        L1 regularization strength (the paper's lambda_1): features with
        ``|z_i| <= l1`` have weight exactly 0.
    l2
        L2 regularization strength (the paper's lambda_2).
    loss
        ``"logistic"`` (binary labels -1/+1, the paper's loss, ``y01 =
        (y + 1) / 2``) or ``"square"`` (regression, ``(y - f)^2`` with
        gradient ``-2 (y - f) x`` as :class:`~evofeat.linear.ogd.OGD`;
        the prediction is the score); :attr:`task` follows from it.
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has (the score is ``w . x + b``), with its own ``z_b`` and ``n_b``
        and the same update (gradient ``dl/df``), its rate scale
        ``intercept_lr`` and ``beta``, and **no L1 or L2** (River's
        logistic regression applies its ``l2`` to the weights only, and
        Vowpal Wabbit's defaults regularise nothing): ``b = -z_b / ((beta +
        sqrt(n_b)) / intercept_lr)``. The bias is not a feature (always visible, not in
        ``coef_`` nor in the feature index). On by default, as in River and
        VW; ``fit_intercept=False`` is Algorithm 1 as written (and
        OpenMOA's FTRL).
    intercept_lr
        The bias's alpha (``None``: ``alpha``).

    Attributes
    ----------
    coef_
        The weight ``w_i`` of each feature seen so far, by name (computed
        from ``z`` and ``n``).
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> result = prequential(FTRL(), trapezoidal(ds.X, ds.y, ds.feature_names))
    >>> round(result.accuracy, 3)
    0.747
    >>> plain = FTRL(fit_intercept=False)  # Algorithm 1 without a bias, as OpenMOA's FTRL
    >>> round(prequential(plain, trapezoidal(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.678

    References
    ----------
    McMahan, Holt, Sculley, Young, Ebner, Grady, Nie, Phillips, Davydov,
    Golovin, Chikkerur, Liu, Wattenberg, Hrafnkelsson, Boulos, Kubica. Ad
    click prediction: a view from the trenches. KDD 2013 (Algorithm 1:
    per-coordinate FTRL-Proximal with L1 and L2 regularization for logistic
    regression; Section 3.1, the per-coordinate rates
    ``eta_{t,i} = alpha / (beta + sqrt(sum_s g_{s,i}^2))``).
    """

    per_feature = ("z", "n")

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(
        fixed=("alpha", "beta", "l1", "l2", "loss_kind", "fit_intercept", "intercept_lr")
    )

    alpha: float = 0.1
    beta: float = 1.0
    l1: float = 1.0
    l2: float = 1.0
    loss: str = "logistic"
    fit_intercept: bool = True
    intercept_lr: float | None = None

    def _check_params(self) -> None:
        check_choice(self.loss, LOSSES, "loss", "pass loss='logistic' (classification) or 'square'")
        check_number(self.alpha, "alpha", positive=True, fix="pass alpha=0.1")
        check_regularization(self)
        check_intercept(self, "alpha")

    def _effective_weights(self) -> np.ndarray:
        if getattr(self, "_state", None) is None:
            return np.zeros(0)
        return np.asarray(self._state.coef(len(self.feature_index_)))

    def _intercept_weight(self) -> float:
        return float(self._state.intercept_weight())

    def _make_state(self, capacity: int) -> FTRLCore:
        return FTRLCore(
            z=np.zeros(capacity),
            n=np.zeros(capacity),
            alpha=float(self.alpha),
            beta=float(self.beta),
            l1=float(self.l1),
            l2=float(self.l2),
            loss_kind=LOSSES[self.loss],
            **self._intercept_fields(self.alpha, ("intercept_z", "intercept_n")),
        )


LEARNERS = {"ftrl": FTRL}
