"""Normalised adaptive gradient descent (NAG) on evolving features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_bool
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._adaptive import NAGCore
from evofeat.linear.ogd import LOSSES, LossTask, check_common

__all__ = ["NAG"]


@dataclass(eq=False, repr=False)
class NAG(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """Normalised adaptive gradient descent (Ross, Mineiro, Langford, 2013) on evolving features.

    Scale-free per-coordinate steps: each feature ``i`` keeps ``s_i``, the
    largest ``|x_i|`` seen so far, and ``G_i``, the sum of its squared
    gradients; the learner keeps ``t``, the rows learned, and ``N``, the sum
    over them of ``x_i^2 / s_i^2``. On a row (Algorithm 2, "NAG"): for each
    feature with ``|x_i| > s_i``, ``w_i <- w_i s_i / |x_i|`` and ``s_i <-
    |x_i|``; predict ``f = w . x`` (label ``sign(f)``, a score of 0
    predicting -1); ``t += 1``, ``N += sum_i x_i^2 / s_i^2``; then for each
    feature, with ``g_i = dl(f, y)/df x_i``: ``G_i += g_i^2`` and ``w_i -=
    lr sqrt(t / N) g_i / (s_i sqrt(G_i))``. Multiplying a feature by a
    constant changes nothing but its weight (the "normalised" part), and
    ``sqrt(t / N)`` makes the step independent of how many features a row
    has. The loss is logistic ``ln(1 + exp(-y f))`` (labels -1/+1) or square
    ``(y - f)^2`` (regression), as in :class:`~evofeat.linear.ogd.OGD`. A
    row costs O(its number of features).

    Evolving features: absent is not zero. A feature missing from the row
    takes no part in the score, its ``s_i`` and ``G_i`` stay as they were,
    its weight gets no update, and it adds nothing to ``N``; a vanished
    feature that comes back is used with the state it left with; a feature
    never seen starts at ``w_i = s_i = G_i = 0``, so its first step has the
    full size ``lr sqrt(t / N) / |x_i|`` whatever the age of the others. A
    present ``0.0`` is a value: it is scored (contributing 0) and, its
    gradient being 0, changes no state.

    Extreme values: the loss and its slope are computed stably (see
    :class:`~evofeat.linear.ogd.OGD`); each gradient, ``G_i``, ``N``, step
    and weight saturates at +-1.8e308 rather than becoming infinite; the
    ratio ``g_i / sqrt(G_i)``, at most 1 in magnitude since ``G_i`` holds
    ``g_i^2``, is kept in ``[-1, 1]`` when ``G_i`` saturates (rows of norm
    1e300) and is ``sign(g_i)`` when ``g_i^2`` underflows to 0 (rows of
    norm 1e-300); a score that overflows is recomputed on rescaled operands
    and saturated, one that underflows keeps its sign, never NaN; a step
    that is not finite (the square loss of a saturated score) is skipped.
    The weights are those of a scale-free learner, so on features of
    magnitude 1e-300 they are legitimately near 1e300: the divergence
    warning bounds ``|w_i| s_i`` instead.

    Parameters
    ----------
    lr
        The step scale (the paper's eta).
    loss
        ``"logistic"`` (binary classification) or ``"square"``
        (regression); :attr:`task` follows from it.
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has (the score is ``w . x + b``), stepped as a feature of scale 1:
        ``G_b += g^2``, ``b -= intercept_lr sqrt(t / N) g / sqrt(G_b)`` with
        ``g = dl/df``, and its ``1^2 / 1^2`` counted in ``N`` on every row,
        as Vowpal Wabbit treats its constant feature. The bias is not a
        feature (always visible, not in ``coef_`` nor in the feature
        index). On by default, as in River and VW; ``fit_intercept=False``
        is Algorithm 2 on the features alone.
    intercept_lr
        The bias's step scale (``None``: ``lr``).
    invariant
        Replace the row's gradient step by its importance-invariant version
        (Karampatziakis and Langford 2011; Vowpal Wabbit's ``--invariant``,
        on by default there): every coordinate's step is shrunk by one
        factor in ``(0, 1]``, so that the score moves as far as the
        gradient flow of the loss along the step's direction would move it
        in the same "time", never past the label. With ``f`` the score,
        ``D`` the gradient step's move of the score and ``a = D / (dl/df)``:
        square loss ``(1 - exp(-2a)) / (2a)``; logistic ``delta / delta_1``
        where ``delta`` solves ``delta + e^(y f) (e^delta - 1) = a`` (by
        Newton's method; VW uses an approximation of the Lambert W function
        to 9e-5) and ``delta_1 = a / (1 + e^(y f))``. Off by default: the
        paper's Algorithm 2 takes the gradient step.

    Attributes
    ----------
    coef_
        The weight of each feature seen so far, by name (at the scales seen
        so far).
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Notes
    -----
    The paper fixes no eta; the default ``lr=0.5`` is Vowpal Wabbit's
    default learning rate (``-l 0.5``), whose ``--normalized --adaptive``
    update (on by default) is this rule, not tuned on evofeat's data sets.
    ``NAG(invariant=True)`` is VW's ``--normalized --adaptive --invariant``
    up to two details that are not parameters here: VW rescales a weight
    after predicting (the paper, and this learner, before), and counts in
    ``t`` and ``N`` only the rows with a non-zero gradient.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german")  # not standardised: NAG needs no feature scaling
    >>> result = prequential(NAG(), trapezoidal(ds.X, ds.y, ds.feature_names))
    >>> round(result.accuracy, 3)
    0.733
    >>> plain = NAG(fit_intercept=False)
    >>> round(prequential(plain, trapezoidal(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.734

    References
    ----------
    Ross, Mineiro, Langford. Normalized online learning. UAI 2013
    (Algorithm 2, NAG: the scales ``s_i``, the rescaling of line 7, the
    normaliser ``N`` of line 11 and the step ``eta sqrt(t/N) / (s_i
    sqrt(G_i))`` of line 15).
    """

    per_feature = ("w", "s", "G")

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(
        fixed=("lr", "loss_kind", "invariant", "fit_intercept", "intercept_lr"),
        nonnegative=("s", "G", "t", "N", "intercept_G"),
    )

    lr: float = 0.5
    loss: str = "logistic"
    fit_intercept: bool = True
    intercept_lr: float | None = None
    invariant: bool = False

    def _check_params(self) -> None:
        check_common(self)
        check_intercept(self, "lr")
        check_bool(
            self.invariant,
            "invariant",
            "True (importance-invariant steps, as VW) or False (the paper's step)",
            "pass invariant=False",
        )

    def _divergence_scale(self) -> str | None:
        """``s``: the check bounds ``|w_i| s_i``, scale-free as the weights are not."""
        return "s"

    def _make_state(self, capacity: int) -> NAGCore:
        return NAGCore(
            w=np.zeros(capacity),
            s=np.zeros(capacity),
            G=np.zeros(capacity),
            lr=float(self.lr),
            t=0.0,
            N=0.0,
            loss_kind=LOSSES[self.loss],
            invariant=int(self.invariant),
            **self._intercept_fields(self.lr, ("intercept", "intercept_G")),
        )


LEARNERS = {"nag": NAG}
