"""STSD, STSD-I, STSD-II and the baselines STSD-I-all, -rand, -per on trapezoidal streams."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.linear._shared import (
    Truncated,
    check_fraction,
    check_option,
    check_seed,
    real,
    require,
)
from evofeat.linear._stsd import SELECTIONS, STEP_RULES, STSDCore, keep_count

__all__ = ["STSD", "budget_limit"]

#: mode -> (step rule, which weights truncation keeps)
_MODES = {
    "stsd": ("pa", "largest"),
    "stsd-i": ("pa-i", "largest"),
    "stsd-ii": ("pa-ii", "largest"),
    "stsd-i-all": ("pa-i", "all"),
    "stsd-i-rand": ("pa-i", "random"),
    "stsd-i-per": ("perceptron", "largest"),
}
_VARIANTS = ("paper", "original-code")
#: rand_mask -> the truncation of ``stsd-i-rand`` under ``variant="original-code"``
_RAND_MASKS = {"over-budget": "random", "always": "random-always"}
#: STSD's steps: the paper's tau; AdaGrad's per coordinate (lr); the paper's tau in AdaGrad's metric
STSD_STEPS = ("paper", "adagrad", "adagrad-tau")


def budget_limit(select: str, budget: float, d: int, original: bool) -> int:
    """How many weights truncation keeps at dimension ``d`` (Alg. 3; the original code rounds).

    >>> budget_limit("largest", 0.29, 100, False), budget_limit("largest", 0.5, 5, True)
    (29, 3)
    """
    return int(keep_count(select, budget, d, original))


def _check_common(model: Any) -> None:
    """The parameters every STSD learner shares: ``mode``, ``C``, ``radius``, ``budget``."""
    radius = model.radius
    check_option(model.mode, model._modes, "STSD mode", "pass mode='stsd-i'")
    check_number(model.C, "C", positive=True, fix="pass C=0.1")
    ok = (real(radius) or radius == math.inf) and radius > 0
    require(
        ok, "radius must be positive", "a number > 0 (inf: no ball)", radius, "pass radius=30.0"
    )
    check_fraction(model.budget, "budget is a fraction of the features", "pass budget=0.5")


def _check_step(model: Any) -> None:
    """``step``, ``lr`` and ``eps`` (AdaGrad's per-coordinate step, on the paper's rules only)."""
    step = model.step
    fix = "pass step='paper' (the paper's tau), step='adagrad' or step='adagrad-tau'"
    check_option(step, STSD_STEPS, "STSD step", fix)
    require(
        step == "paper" or model.variant == "paper",
        f"step={step!r} follows the paper's rules, not the original code's",
        f"variant='paper' with step={step!r}",
        model.variant,
        "pass variant='paper', or step='paper'",
    )
    check_number(model.lr, "lr", positive=True, fix="pass lr=1.0")
    check_number(model.eps, "eps", positive=True, fix="pass eps=1e-8")


def _projects(project: bool | None, variant: str, select: str) -> bool:
    """Whether to scale onto the L1 ball: always in the paper, not for -all / -rand in the code."""
    if project is None:
        return variant == "paper" or select == "largest"
    return project


def _select(mode: str, rand_mask: str) -> tuple[str, str]:
    """(step rule, truncation) of ``mode``; ``stsd-i-rand``'s truncation follows ``rand_mask``."""
    rule, select = _MODES[mode]
    return rule, (_RAND_MASKS[rand_mask] if select == "random" else select)


@dataclass(eq=False, repr=False)
class STSD(Truncated, InterceptMixin, OnlineLearner):
    """STSD and its variants: PA steps on a feature space that grows, kept sparse.

    Each round (Alg. 1): predict ``sign(w . x~)`` over the features ``w``
    already has (a score of exactly 0 is "no decision", a mistake); suffer
    the hinge loss ``l = max(0, 1 - y w . x~)``; step
    ``w <- [w + tau y x~, tau y x^]`` (Eq. 4: the new features ``x^`` are set
    by the same step) with ``tau = l / ||x||^2`` (STSD), ``min(C, l / ||x||^2)``
    (STSD-I, Eq. 7) or ``l / (||x||^2 + 1/(2C))`` (STSD-II, Eq. 8), ``||x||``
    over the whole row; scale onto the L1 ball, ``w <- min(1, radius / ||w||_1) w``;
    truncate: keep the ``max(1, floor(B d))`` largest ``|w|`` (Alg. 3, ``d`` the
    features seen so far). Baselines: ``stsd-i-all`` (no truncation),
    ``stsd-i-rand`` (a uniform random ``floor(B d)``-subset of the non-zero
    weights is kept instead of the largest), ``stsd-i-per`` (the perceptron
    step ``[w + y x~, y x^]`` on mistakes).

    ``variant="original-code"`` follows the authors' MATLAB release instead
    (see the package's reproduction report): an update whenever ``y f <= 1``;
    ``tau = l / ||x||``, ``min(C, l / ||x||)`` or ``1 - y f / (||x|| + 1/(2C))``;
    on the first round of a new stage the old coordinates step without
    scaling, the new ones are set to ``tau y x^`` with the tau of the last
    update (``y x^`` for ``stsd-i-per``, which steps whenever ``y f <= 1``),
    then scaling and truncation; on other rounds scaling and truncation follow
    an update only; truncation keeps ``round(B d)`` weights (no minimum of 1);
    ``stsd-i-all`` and ``stsd-i-rand`` skip the scaling, and ``stsd-i-rand``
    keeps a uniform random ``round(B d)``-subset of all ``d`` coordinates
    when the support is larger than that (``rand_mask="over-budget"``), or,
    as ``STSD_rand.m`` does, whenever it truncates (``rand_mask="always"``:
    a support that fits the budget still loses each coordinate outside the
    draw; the same on rows with no zero, as after the authors' preprocessing).
    The drivers' ``lambda = 0.001`` is ``radius = 1 / sqrt(lambda)``.

    ``step="adagrad"`` is not the paper's: it replaces the global step
    ``tau y x`` by AdaGrad's per-coordinate one (Duchi, Hazan & Singer, JMLR
    2011, diagonal form): on the same rows (``l > 0``; a mistake for
    ``stsd-i-per``) each feature ``i`` of the row, old or new, takes
    ``G_i += x_i^2`` and ``w_i += lr y x_i / sqrt(eps + G_i)`` (the hinge's
    subgradient is ``-y x``; ``G_i`` starts at 0 for a new feature, and an
    absent or truncated one keeps it), then the same scaling onto the L1 ball and the same
    truncation. The PA step rule (and so C) no longer enters: ``stsd``,
    ``stsd-i`` and ``stsd-ii`` become one learner; ``stsd-i-per`` keeps its
    mistake-driven rule, ``-all`` and ``-rand`` their truncation. What is
    exact: the step is added to ``v`` divided by the scale, so ``w = scale *
    v`` is exactly the per-coordinate update and costs O(nnz) as before; the
    scaling stays the paper's one factor, O(1). It is not AdaGrad's own
    projection, which is in the metric ``diag(sqrt(G))`` and would shrink
    each coordinate differently (O(d) a row). Only with ``variant="paper"``.

    ``step="adagrad-tau"`` (not the paper's either) keeps the paper's step
    rule and C and moves it into AdaGrad's metric ``D = diag(1 / sqrt(eps +
    G))``: on the same rows ``G_i += x_i^2``, then ``tau`` of Eq. 5, 7 or 8
    with ``x' D x`` in place of ``||x||^2``, and ``w += tau y D x`` (the PA
    step that reaches the margin in that metric; PA-I caps it at C, PA-II
    softens it). It has no parameter of its own (``lr`` is unused). Tried as
    a second adaptive STSD variant in
    ``docs/reports/investigations/adaptive_variants.md``: it helps less
    than ``step="adagrad"``.

    Choices the paper leaves open: ties between equal ``|w|`` keep the lower
    column (the feature seen first; ``evofeat/_core/topk.pxd``);
    ``floor(B d)`` is taken with a 1e-9 tolerance (0.29 of 100 keeps 29);
    a row with ``||x|| = 0`` makes no step (and leaves the last tau). A
    feature that vanishes keeps its weight: it still counts in ``||w||_1``,
    in ``d`` and in the truncation (so it can be truncated while absent, and
    the scaling shrinks it); when it comes back it is an old feature and
    gets the PA step. Runs in O(nnz log k) per row: ``w = scale * v`` with
    ``sum |v|`` kept up to date, and the support in an indexed heap
    (``evofeat/linear/_stsd.pyx``); ``stsd-i-rand`` adds, on a row that
    truncates, one draw per support coordinate up to the last one it drops
    (the random subset is drawn coordinate by coordinate).

    Parameters
    ----------
    mode
        ``"stsd"``, ``"stsd-i"``, ``"stsd-ii"``, ``"stsd-i-all"``,
        ``"stsd-i-rand"`` or ``"stsd-i-per"``.
    C
        Aggressiveness of STSD-I / STSD-II (paper: 0.1).
    radius
        Radius of the L1 ball (the paper's lambda = 30; ``inf`` for none).
    budget
        B, the fraction of the features seen so far that may keep a weight.
    variant
        ``"paper"`` (the text) or ``"original-code"`` (the authors' MATLAB).
    project
        Whether to scale onto the L1 ball; ``None``: the variant's rule
        (always in the paper; not for -all and -rand in the original code).
    seed
        Seed of STSD-I-rand's choices (splitmix64; deterministic).
    step
        ``"paper"`` (tau of Eq. 5, 7, 8), ``"adagrad"`` (per-coordinate
        steps, not the paper's; see above) or ``"adagrad-tau"`` (the
        paper's tau in AdaGrad's metric; see above).
    lr
        eta of ``step="adagrad"`` (unused by the paper's step). The default
        1.0 was chosen once from {0.01, 0.03, 0.1, 0.3, 1, 3, 10}, on data sets
        outside the paper's tables (australian, credit-a, diabetes, kr-vs-kp;
        ``docs/reports/investigations/adaptive_variants.md``).
    eps
        Added to ``G_i`` under the square root by ``step="adagrad"`` and
        ``"adagrad-tau"``.
    rand_mask
        When ``stsd-i-rand`` draws its random subset under
        ``variant="original-code"``: ``"over-budget"`` (only when the support
        exceeds ``round(B d)``) or ``"always"`` (after every update and on the
        first row of a stage, whatever the support: ``STSD_rand.m``'s
        ``w_t = w_t .* v_idx``).
    fit_intercept
        Learn a bias ``b`` (not the paper's: STSD has none): the weight of a
        constant input 1 that every row has, so the score is ``w . x + b``,
        ``||x||^2`` counts the 1 (``tau`` uses ``||x||^2 + 1``) and ``b``
        takes the row's step ``tau y`` (``step="adagrad"``: AdaGrad's step
        on the input 1 with its own ``G_b``; ``"adagrad-tau"``: ``tau y /
        sqrt(eps + G_b)``). The bias is not a feature: always visible, not
        in ``coef_``, the budget, the stages nor the truncation, and the
        L1 ball does not scale it (the ball bounds the feature weights, as a
        penalty leaves an intercept out). Turn it on for raw features with an
        offset or imbalanced classes; off by default (the paper's rule,
        bit-identical).

    Attributes
    ----------
    coef_ : dict
        The weight of each feature seen so far.
    selected_features_ : list
        The features with a non-zero weight, in order of first appearance.
    budget_limit_ : int
        How many weights the truncation allows at the current dimension.
    intercept_ : float
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    The authors' german data and their first stream order, on the paper's
    schedule, then as the authors' code ran it (the paper reports 366.9 mean
    mistakes over their 20 orders; this order alone gives 367):

    >>> from evofeat.datasets import load, stsd_german_permutations
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german-stsd", preprocess="stsd-original")
    >>> order = stsd_german_permutations()[0]
    >>> X, y = ds.X[order], ds.y[order]
    >>> model = STSD(mode="stsd-i", C=0.1, budget=0.5)
    >>> prequential(model, trapezoidal(X, y, ds.feature_names)).mistakes
    358
    >>> len(model.selected_features_), model.budget_limit_
    (12, 12)

    The same order with AdaGrad's per-coordinate steps instead of tau (not the
    paper's rule; same ball and budget):

    >>> prequential(STSD(mode="stsd-i", step="adagrad"), trapezoidal(X, y, ds.feature_names)).mistakes
    371
    >>> code = STSD(mode="stsd-i", C=0.01, radius=1 / 0.001**0.5, variant="original-code")
    >>> stream = trapezoidal(X, y, ds.feature_names, layout="original-code", fractions=[0.1, 0.4, 0.7, 1.0])
    >>> prequential(code, stream).mistakes
    367

    References
    ----------
    Zhang, Zhang, Long, Ding, Zhang, Wu. Towards Mining Trapezoidal Data
    Streams. ICDM 2015 (Alg. 1-3, Eq. 2-8). Crammer et al. Online
    Passive-Aggressive Algorithms. JMLR 7, 2006.
    """

    per_feature: ClassVar[tuple[str, ...]] = ("v", "heap", "pos", "G")
    _modes: ClassVar[tuple[str, ...]] = tuple(_MODES)

    #: What a model file must satisfy (evofeat.io): the fields the parameters set, the support heap
    #: (the only non-zero weights) and its columns.
    _state_spec = Truncated._heap_spec.extend(
        fixed=(
            "rule",
            "C",
            "radius",
            "budget",
            "original",
            "project",
            "select",
            "regression",
            "epsilon",
            "adagrad",
            "metric_tau",
            "lr",
            "eps",
        ),
        support=(("v", "heap", "hsize"),),
        at_most=(("new_from", "dim"),),
        nonnegative=("l1",),
    )

    mode: str = "stsd-i"
    C: float = 0.1
    radius: float = 30.0
    budget: float = 0.5
    variant: str = "paper"
    project: bool | None = None
    seed: int = 0
    step: str = "paper"
    lr: float = 1.0
    eps: float = 1e-8
    rand_mask: str = "over-budget"
    fit_intercept: bool = False

    def _check_params(self) -> None:
        _check_common(self)
        variant, project, mask = self.variant, self.project, self.rand_mask
        check_option(variant, _VARIANTS, "variant", "pass variant='paper'")
        rule = "True, False or None (the variant's rule)"
        ok = project is None or isinstance(project, bool)
        require(ok, "project is a switch", rule, project, "pass project=None")
        check_seed(self.seed)
        _check_step(self)
        fix = "pass rand_mask='over-budget' (or 'always', STSD_rand.m's rule)"
        check_option(mask, _RAND_MASKS, "rand_mask", fix)
        require(
            mask == "over-budget" or variant == "original-code",
            "rand_mask='always' is a rule of the authors' code (STSD_rand.m)",
            "variant='original-code' with rand_mask='always'",
            variant,
            "pass variant='original-code', or rand_mask='over-budget'",
        )
        check_intercept(self, None)

    def _make_state(self, capacity: int) -> STSDCore:
        rule, select = _select(self.mode, self.rand_mask)
        return STSDCore(
            v=np.zeros(capacity),
            **self._support_fields(capacity),
            l1=0.0,
            last_tau=0.0,
            dim=0,
            new_from=-1,
            rule=STEP_RULES[rule],
            C=float(self.C),
            radius=float(self.radius),
            budget=float(self.budget),
            original=self.variant == "original-code",
            project=_projects(self.project, self.variant, select),
            select=SELECTIONS[select],
            regression=self.task == "regression",
            epsilon=float(getattr(self, "epsilon", 0.0)),
            rng=int(np.array(self.seed, dtype=np.uint64).view(np.int64)),
            G=np.zeros(capacity),
            adagrad=self.step in ("adagrad", "adagrad-tau"),
            metric_tau=self.step == "adagrad-tau",
            lr=float(self.lr),
            eps=float(self.eps),
            **self._intercept_fields(None, ("intercept", "intercept_G")),
        )

    @property
    def budget_limit_(self) -> int:
        """The number of weights the truncation allows at the current dimension."""
        d = 0 if getattr(self, "_state", None) is None else int(self._state.dim)
        return budget_limit(_MODES[self.mode][1], self.budget, d, self.variant == "original-code")


LEARNERS = {name: partial(STSD, mode=name) for name in _MODES}
