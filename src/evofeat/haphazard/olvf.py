"""OLVF: online learning from data streams with varying feature spaces (Beyazit et al., 2019)."""

from __future__ import annotations

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_choice, check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.haphazard._olvf import OLVFCore

__all__ = ["OLVF"]

#: ``rule`` codes of the compiled core.
RULES = {"paper": 0, "package": 1}


class OLVF(InterceptMixin, OnlineLearner):
    """OLVF (Beyazit, Alagurajah, Wu, 2019): two classifiers over the features seen so far.

    The *instance classifier* ``w`` predicts ``sign(w . x)`` on the row's
    features that it has seen (its projection on the row's feature space).
    The *feature-space classifier* ``wbar`` learns, from the row's feature
    indicator ``r_x``, whether the instance classifier is right on that
    space: its label is ``I = 1`` when the prediction was right, else 0. Per
    row, after the prediction:

    1. ``wbar`` takes a PA-I step on the logistic loss
       ``l = log(1 + exp(-I wbar . r_x))``: ``wbar -= min(C_bar, l / ||g||^2) g``
       with ``g = -I sigma(-I wbar . r_x) r_x``.
    2. The projection confidences ``p_w = sigma(wbar . r_w)`` (``r_w``: every
       feature seen, this row's included) and ``p_x = sigma(wbar . r_x)``.
    3. ``w`` takes a PA-I step on the hinge loss ``l = max(0, 1 - y w . x)``,
       ``tau = min(C, l / ||x||^2)``: ``w_s += p_w tau y x_s`` on the shared
       features, ``w_n = p_x tau y x_n`` on the new ones.
    4. The projection ``w *= min(1, reg / (wbar . w))`` (applied when
       ``wbar . w > reg``: the paper leaves the sign case open; a negative
       factor would flip the classifier).
    5. The sparsity step keeps, of each classifier, the entries of the
       ``max(1, floor(B m))`` largest magnitudes among the ``m`` seen
       features (ties: the lower column first) and zeroes the others.

    A row costs O(number of features seen) (steps 2 and 4), plus a sort of
    the seen features when ``B < 1``. A row with no feature is not learned.

    ``rule="package"`` computes what the ``haphazard`` package (1.2.8) and the
    review's code compute, to match their predictions: its sigmoid is
    ``1 / (1 + exp(z))``; the gradient of step 1 is
    ``-(log e / log(1 + e)) I r_x`` (``e = exp(-I wbar . r_x)``: zero at
    ``wbar = 0``, so ``wbar`` never moves and both confidences stay 1/2, a
    PA-I step at half size), with ``tau = min(C_bar, -l / ||g||^2)``, added on
    shared features and replacing new ones; ``tau = min(C, l / (||x||^2 +
    eps))``; step 4 is ``w *= min(1, reg / (wbar . w + eps))`` always; step 5
    zeroes the ``max(1, floor(B m))`` *largest values* (signed) and keeps the
    others. A row without any seen feature is predicted at random by the
    package and ``-1`` here.

    Parameters
    ----------
    C
        Aggressiveness bound of the instance classifier (``C``).
    C_bar
        Aggressiveness bound of the feature-space classifier (``C-bar``).
    B
        Fraction of the seen features that the sparsity step keeps, in (0, 1]
        (1: no truncation).
    reg
        Lambda of the projection step (``reg`` in the review's code).
    rule
        ``"paper"`` (default) or ``"package"`` (above).
    fit_intercept
        Learn a bias ``b`` (evofeat's option, not the paper's nor the
        package's): the weight of a constant input 1 that every row has, a
        feature of every space and so always shared. The score is ``w . x +
        b``; step 3 counts the 1 in ``||x||^2`` (``tau = min(C, l / (||x||^2
        + 1))``) and moves ``b += p_w tau y`` as a shared feature. It is not
        a feature: not in ``r_x``, ``wbar``, ``coef_`` nor the feature
        index, and the projection (step 4) and the sparsity step (step 5)
        leave it alone. A row with no feature is still not learned. Turn it
        on for raw features with an offset or imbalanced classes. Off by
        default: Beyazit et al.'s rule.

    Notes
    -----
    The defaults are, for each parameter, the value the review (Agarwal et
    al., 2024) tuned most often over its 13 data sets
    (``benchmarks/haphazard_review_params.json``).

    Attributes
    ----------
    coef_
        The instance classifier's weight of each feature seen, by name.
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=0)
    >>> round(prequential(OLVF(), stream).accuracy, 3)
    0.629
    >>> round(prequential(OLVF(rule="package"), stream).accuracy, 3)
    0.644

    References
    ----------
    Beyazit, Alagurajah, Wu. Online Learning from Data Streams with Varying
    Feature Spaces. AAAI 2019 (Algorithm 1: the feature-space classifier's
    logistic loss, the projection confidences, the confidence-weighted PA-I
    update, the projection and the sparsity step). Agarwal, Gupta, Mittal,
    Dasgupta, Gupta. Online learning under haphazard input conditions: a
    comprehensive review and analysis, 2024 (the ``haphazard`` package).
    """

    per_feature = ("w", "wbar", "seen")
    #: A present zero is a value: it is part of the row's feature space (a sparse batch's
    #: unstored entries reach the learner as zeros).
    _zeros_matter = True

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(
        fixed=("C", "C_bar", "B", "reg", "rule", "fit_intercept"),
        counts=("n_seen",),
        nonnegative=("seen",),
    )

    def __init__(
        self,
        C: float = 0.01,
        C_bar: float = 0.0001,
        B: float = 1.0,
        reg: float = 0.0001,
        rule: str = "paper",
        fit_intercept: bool = False,
    ) -> None:
        self.C = C
        self.C_bar = C_bar
        self.B = B
        self.reg = reg
        self.rule = rule
        self.fit_intercept = fit_intercept

    def _check_params(self) -> None:
        check_number(self.C, "C", positive=True, fix="pass C=0.01")
        check_number(self.C_bar, "C_bar", positive=True, fix="pass C_bar=0.0001")
        check_number(self.reg, "reg", positive=True, fix="pass reg=0.0001")
        check_number(self.B, "B", positive=True, fix="pass B=1.0 (keep every feature)")
        if self.B > 1:
            check_number(1 - self.B, "1 - B", positive=False, fix="pass B in (0, 1], e.g. B=1.0")
        check_choice(self.rule, RULES, "rule", "pass rule='paper' (or 'package')")
        check_intercept(self, None)

    def _make_state(self, capacity: int) -> OLVFCore:
        return OLVFCore(
            w=np.zeros(capacity),
            wbar=np.zeros(capacity),
            seen=np.zeros(capacity),
            n_seen=0,
            C=float(self.C),
            C_bar=float(self.C_bar),
            B=float(self.B),
            reg=float(self.reg),
            rule=RULES[self.rule],
            **self._intercept_fields(None),
        )


LEARNERS = {"olvf": OLVF}
