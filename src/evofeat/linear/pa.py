"""Passive-Aggressive classifiers PA, PA-I and PA-II on evolving features."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.linear._pa import PACore
from evofeat.linear._shared import check_option

__all__ = ["PA"]

_MODES = {"pa": 0, "pa-i": 1, "pa-ii": 2}


@dataclass(eq=False, repr=False)
class PA(InterceptMixin, OnlineLearner):
    """Passive-Aggressive binary classifier (Crammer et al., 2006) on evolving features.

    Predict ``sign(w . x)`` (a score of exactly 0 predicts -1); on a hinge
    loss ``l = max(0, 1 - y w . x) > 0`` update ``w += tau y x`` with
    ``tau = l / ||x||^2`` (PA), ``min(C, l / ||x||^2)`` (PA-I) or
    ``l / (||x||^2 + 1 / (2C))`` (PA-II). Only visible features take part:
    an unseen feature has weight 0, a vanished feature keeps its weight and
    is used again if it comes back. A row with ``||x|| = 0`` is skipped.

    Extreme values: when ``||x||^2`` over- or underflows (rows of norm above
    about 1e154 or below 1e-154) the step is computed on the row rescaled by
    a power of two, so ``tau x`` is the exact step and PA stays
    scale-invariant (rows of norm 1e300 or 1e-300 are learned like rows of
    norm 1); a score that overflows is recomputed rescaled and saturated at
    +-1.8e308, one that underflows keeps its sign (+-5e-324), never NaN;
    each weight saturates at +-1.8e308.

    Parameters
    ----------
    mode
        ``"pa"``, ``"pa-i"`` or ``"pa-ii"``.
    C
        Aggressiveness of PA-I and PA-II (ignored by PA).
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has, so the score is ``w . x + b``, ``||x||^2`` counts the 1 (``tau``
        uses ``||x||^2 + 1``; a zero row is then learned) and ``b += tau y``.
        The bias is not a feature (always visible, not in ``coef_`` nor in
        the feature index). Turn it on for raw features with an offset or
        imbalanced classes. Off by default: Crammer et al.'s rule, as the
        papers' baselines run it.

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
    >>> result = prequential(PA(mode="pa-i", C=0.1), full(ds.X, ds.y, ds.feature_names))
    >>> result.mistakes
    380

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer. Online Passive-Aggressive
    Algorithms. JMLR 7, 2006 (Fig. 1 and Eq. 6-8).
    """

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(fixed=("mode", "C", "fit_intercept"))

    mode: str = "pa-i"
    C: float = 1.0
    fit_intercept: bool = False

    def _check_params(self) -> None:
        check_option(self.mode, _MODES, "PA mode", "pass mode='pa-i'")
        check_number(self.C, "C", positive=True, fix="pass C=1.0")
        check_intercept(self, None)

    def _make_state(self, capacity: int) -> PACore:
        return PACore(
            w=np.zeros(capacity),
            mode=_MODES[self.mode],
            C=float(self.C),
            **self._intercept_fields(None),
        )


LEARNERS = {name: partial(PA, mode=name) for name in _MODES}
