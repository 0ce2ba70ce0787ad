"""What OFS, PE_trun, RAND and OFS_P share: the budget, the state, the checks."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.base.errors import check_choice, check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.linear._ofs import OFSCore, RANDCore
from evofeat.linear._shared import Truncated, check_fraction, check_seed, real, require

__all__ = ["STEPS", "TRUNCATE_BY"]

_ZERO_SCORE = ("mistake", "negative")

#: The step rules of OFS and OFS_P: the paper's, or AdaGrad's per coordinate (Duchi et al. 2011).
STEPS = ("paper", "adagrad")

#: truncate_by -> p of the truncation score ``|w_i| (eps + G_i)^p`` (0: the paper's ``|w_i|``)
TRUNCATE_BY = {"weight": 0.0, "sum": 0.5, "metric": 0.25}


class _Budgeted(Truncated, InterceptMixin, OnlineLearner):
    """What the four learners share: a budget of B active features, the state, the checks."""

    _core: ClassVar[type[OFSCore]] = OFSCore
    _algorithm: ClassVar[str] = "ofs"
    #: What a model file must satisfy (evofeat.io): the fields the parameters set, the heap of the
    #: B largest weights within the budget (the learners that truncate add that it holds every
    #: non-zero weight) and the columns.
    _state_spec = Truncated._heap_spec.extend(
        fixed=(
            "lr",
            "l2",
            "radius",
            "budget",
            "budget_count",
            "zero_is_mistake",
            "adagrad",
            "eps",
            "rank_power",
        ),
        indices=("cand",),
        counts=("B",),
        at_most=(("hsize", "B"),),
        nonnegative=("sq_norm", "G", "rank"),
    )
    per_feature: ClassVar[tuple[str, ...]] = ("v", "heap", "pos", "dw", "cand", "G", "rank")
    budget: float
    budget_count: int | None
    zero_score: str

    def _check_params(self) -> None:
        fix = "pass budget=0.1, or budget_count=B for a count"
        check_fraction(self.budget, "budget must be a fraction of the features", fix)
        B = self.budget_count
        ok = B is None or (isinstance(B, int | np.integer) and not isinstance(B, bool) and B >= 1)
        fix = "pass budget_count=None to use the fraction budget"
        require(ok, "budget_count must be a number of features", "None or an integer >= 1", B, fix)
        check_choice(self.zero_score, _ZERO_SCORE, "zero_score", "pass zero_score='mistake'")
        check_seed(getattr(self, "seed", 0), below=2**63)
        check_intercept(self, None)

    def _params(self) -> tuple[float, float, float]:
        """``(lr, l2, radius)`` of the step (the perceptron baselines: 1, no decay, no ball)."""
        return 1.0, 0.0, math.inf

    def _extra_fields(self, capacity: int) -> dict[str, Any]:
        """The core's fields beyond OFS's (RAND's random set, OFS_P's draws)."""
        return {}

    def _make_state(self, capacity: int) -> OFSCore:
        lr, l2, radius = self._params()
        return self._core(
            v=np.zeros(capacity),
            **self._support_fields(capacity),
            dw=np.zeros(capacity),
            cand=np.zeros(capacity, np.int64),
            sq_norm=0.0,
            B=0,
            dim=0,
            lr=lr,
            l2=l2,
            radius=radius,
            budget=float(self.budget),
            budget_count=-1 if self.budget_count is None else int(self.budget_count),
            zero_is_mistake=self.zero_score == "mistake",
            G=np.zeros(capacity),
            adagrad=getattr(self, "step", "paper") == "adagrad",
            eps=float(getattr(self, "eps", 1e-8)),
            rank=np.zeros(capacity),
            rank_power=TRUNCATE_BY[getattr(self, "truncate_by", "weight")],
            **self._intercept_fields(None, ("intercept", "intercept_G")),
            **self._extra_fields(capacity),
        )

    @property
    def budget_limit_(self) -> int:
        """B, the number of features the model may use now (0 before any learning)."""
        return 0 if getattr(self, "_state", None) is None else int(self._state.B)

    @property
    def selected_features_(self) -> list[Hashable]:
        """The features the model uses, by decreasing ``|w|`` (ties: first seen first).

        The support of ``w`` (at most B features); for RAND its random set.
        """
        w = np.abs(self._effective_weights())
        chosen = np.flatnonzero(self._weights("flag") if self._core is RANDCore else w)
        order = chosen[np.lexsort((chosen, -w[chosen]))]
        return [self.feature_index_.names[c] for c in order]


class _Step(_Budgeted):
    #: What a model file must satisfy (evofeat.io): _Budgeted's, and the heap holds every non-zero
    #: weight (at most B of them).
    _state_spec = _Budgeted._state_spec.extend(support=(("v", "heap", "hsize"),))

    lr: float
    l2: float
    radius: float | None
    step: str
    eps: float
    truncate_by: str

    def _check_params(self) -> None:
        super()._check_params()
        lr, l2, radius, step, by = self.lr, self.l2, self.radius, self.step, self.truncate_by
        check_number(lr, "lr", positive=True, fix="pass lr=0.2")
        ok = real(l2) and l2 >= 0 and lr * l2 < 1
        require(ok, "l2 must be in [0, 1/lr)", "a number with 0 <= l2 * lr < 1", l2, "pass l2=0.01")
        ok = radius is None or (real(radius) and radius > 0)
        expected = "None (1 / sqrt(l2)) or a number > 0"
        require(ok, "radius must be positive", expected, radius, "pass radius=None")
        fix = "pass step='paper' (the paper's lr y x) or step='adagrad'"
        check_choice(step, STEPS, "OFS step", fix)
        check_number(self.eps, "eps", positive=True, fix="pass eps=1e-8")
        fix = "pass truncate_by='weight' (the paper's: keep the B largest |w|)"
        check_choice(by, TRUNCATE_BY, "truncate_by", fix)
        require(
            by == "weight" or step == "adagrad",
            f"truncate_by={by!r} ranks by AdaGrad's accumulators",
            "step='adagrad' with truncate_by other than 'weight'",
            step,
            "pass step='adagrad', or truncate_by='weight' with the paper's step",
        )

    def _params(self) -> tuple[float, float, float]:
        default = 1.0 / math.sqrt(self.l2) if self.l2 > 0 else math.inf
        return (
            float(self.lr),
            float(self.l2),
            default if self.radius is None else float(self.radius),
        )


_STEP_DOC = """
    step
        ``"paper"`` (the step ``lr y x``) or ``"adagrad"``, not the paper's: AdaGrad's
        per-coordinate step (Duchi, Hazan & Singer, JMLR 2011, diagonal form) on the
        same rows, each feature ``i`` of the row taking ``G_i += g_i^2`` and
        ``w~_i += -lr g_i / sqrt(eps + G_i)`` with ``g = -y x`` the hinge's subgradient
        (``G_i`` starts at 0 for a new feature; an absent or truncated one keeps it). The decay
        ``1 - lr l2``, the projection onto the L2 ball and the truncation are the
        paper's. Exact: the steps are added to ``v`` divided by the scale, O(nnz) as
        before, and the decay and projection stay one factor each, O(1). The ball is
        the Euclidean one of the paper, not AdaGrad's projection in the metric
        ``diag(sqrt(G))`` (which would shrink each coordinate differently).
    eps
        Added to ``G_i`` under the square root by ``step="adagrad"``.
    truncate_by
        What the truncation ranks the features by (not the paper's unless ``"weight"``):
        ``"weight"``, the paper's ``|w_i|``; with ``step="adagrad"`` only, ``"sum"``:
        ``|w_i| sqrt(eps + G_i)``, which undoes AdaGrad's per-coordinate division, so a
        feature ranks by the (decayed) sum of its steps' gradients, as the paper's
        ``|w_i| = lr |sum_t y_t x_ti|`` does under the paper's step; or ``"metric"``:
        ``|w_i| (eps + G_i)^(1/4)``, which keeps the B-sparse vector nearest to ``w`` in
        AdaGrad's metric ``sum_i sqrt(G_i) (w_i - w'_i)^2``. Only the choice of the kept
        features changes: the kept weights are AdaGrad's. O(nnz log B) as before."""

_COMMON_DOC = """
    budget
        B as a fraction of the features seen so far: ``B = max(1, round(budget * d))``
        (halves round up, as MATLAB's ``round``). The default 0.1 is the paper's
        ``round(0.1 * dimensionality)``; on a stream whose feature space grows, B grows.
    budget_count
        B as a count of features instead (``None``: use ``budget``).
    zero_score
        A score of exactly 0: ``"mistake"`` (label 0, no decision, counted as an error, as
        the papers count ``y w.x <= 0`` as a mistake and MATLAB's ``sign(0) = 0``) or
        ``"negative"`` (predict -1, the convention of evofeat's other linear learners).
    fit_intercept
        Learn a bias ``b`` (not the paper's: the OFS family has none): the weight of a
        constant input 1 that every row has (always observed), so the score is ``w . x + b``
        and ``b`` takes the learner's own step on the input 1 (OFS, OFS_P: ``lr y`` when
        ``y f <= 1``, or AdaGrad's with its own ``G_b``; PE_trun, RAND: ``y`` on a mistake).
        The bias is not a feature: not in ``coef_``, B, the selected features or the
        truncation, and the decay and the L2 ball act on the feature weights only (the ball
        bounds the weights whose support is selected; leaving the bias out of it, as a
        penalty leaves out an intercept, keeps the selection the paper's). Turn it on for
        raw features with an offset or imbalanced classes; off by default (bit-identical)."""
