"""Online feature selection with a budget: OFS, its baselines PE_trun and RAND, and OFS_P."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evofeat.base.errors import check_choice
from evofeat.linear._ofs import PETrunCore, RANDCore
from evofeat.linear._ofs_base import _COMMON_DOC, _STEP_DOC, TRUNCATE_BY, _Budgeted, _Step
from evofeat.linear.ofs_partial import OFSP

__all__ = ["OFS", "TRUNCATE_BY", "PETrun", "RAND"]


_DRAWS = ("once", "per-mistake")


@dataclass(eq=False, repr=False)
class OFS(_Step):
    __doc__ = f"""Online feature selection by sparse projection (OFS), on evolving features.

    Predict ``sign(w . x)``. When ``y w . x <= 1``: ``w~ = (1 - l2 lr) w + lr y x``,
    project onto the L2 ball, ``w^ = min(1, radius / ||w~||) w~``, and keep the B
    largest ``|w^|`` (Algorithm 2: truncation); otherwise ``w = (1 - l2 lr) w``. At most
    B weights are non-zero at any time. A feature not seen yet has weight 0; one that
    vanished keeps its weight. Truncation ties: among equal ``|w|`` the feature seen
    first (the lower column) is kept. The reported loss is the hinge loss.

    A row costs O(nnz log B), not O(d): ``w`` is kept as ``scale * v`` with ``||v||^2``
    up to date (the decay and the projection are O(1)), and the support is an indexed
    min-heap: the one weight vector of the truncating learners
    (``evofeat/_core/weight_vector.pxd``; the tie rule of ``evofeat/_core/topk.pxd``).

    Parameters
    ----------
    lr
        eta, the step size (paper: 0.2).
    l2
        lambda, the regularisation (paper: 0.01).{_COMMON_DOC}
    radius
        Radius of the L2 ball. ``None``: ``1 / sqrt(l2)`` (10 by default), the radius of
        the paper's mistake bound; ``radius=1.0`` is Algorithm 3 as printed
        (``min(1, 1 / ||w~||)``).{_STEP_DOC}

    Attributes
    ----------
    coef_ : dict
        The weight of each feature seen so far.
    selected_features_ : list
        The features with a non-zero weight (at most B), by decreasing ``|w|``.
    budget_limit_ : int
        The current B.
    intercept_ : float
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> model = OFS()
    >>> prequential(model, full(ds.X, ds.y, ds.feature_names)).mistakes
    301
    >>> model.budget_limit_, model.selected_features_
    (2, ['f10', 'f4'])
    >>> adaptive = OFS(step="adagrad")  # AdaGrad's per-coordinate steps, not the paper's
    >>> prequential(adaptive, full(ds.X, ds.y, ds.feature_names)).mistakes
    310
    >>> adaptive.selected_features_
    ['f12', 'f23']
    >>> ranked = OFS(step="adagrad", truncate_by="sum")  # AdaGrad's steps, ranked as the paper's
    >>> prequential(ranked, full(ds.X, ds.y, ds.feature_names)).mistakes
    301
    >>> ranked.selected_features_
    ['f10', 'f4']

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (Algorithm 3 with Algorithm 2; radius 1/sqrt(lambda) from the proof of Theorem 1).
    """

    lr: float = 0.2
    l2: float = 0.01
    budget: float = 0.1
    budget_count: int | None = None
    radius: float | None = None
    zero_score: str = "mistake"
    step: str = "paper"
    eps: float = 1e-8
    truncate_by: str = "weight"
    fit_intercept: bool = False


@dataclass(eq=False, repr=False)
class PETrun(_Budgeted):
    __doc__ = f"""The perceptron with truncation (PE_trun), on evolving features.

    Predict ``sign(w . x)``; on a mistake (``y w . x <= 0``) update ``w += y x`` and keep
    the B largest ``|w|`` (ties: the feature seen first is kept). The baseline that the
    paper shows can err forever (section 3.2.1). The reported loss is the 0-1 mistake
    indicator; a row costs O(nnz log B).

    Parameters
    ----------{_COMMON_DOC}

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(PETrun(), full(ds.X, ds.y, ds.feature_names)).mistakes
    390

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (Algorithm 1 with Algorithm 2).
    """

    _core = PETrunCore
    _algorithm = "pe-trun"
    #: What a model file must satisfy (evofeat.io): _Budgeted's, and the heap holds every non-zero
    #: weight (at most B of them).
    _state_spec = _Budgeted._state_spec.extend(support=(("v", "heap", "hsize"),))

    budget: float = 0.1
    budget_count: int | None = None
    zero_score: str = "mistake"
    fit_intercept: bool = False


@dataclass(eq=False, repr=False)
class RAND(_Budgeted):
    __doc__ = f"""A perceptron on a fixed random set of B features (RAND), on evolving features.

    The set is drawn (seeded) the first time the learner is told the visible features:
    B features uniformly among them. The paper does not say how; when B grows later (a
    fraction budget on a growing feature space) the open slots are filled by uniform
    draws among the visible features not in the set yet; a feature once drawn stays.
    A perceptron (``w += y x`` on ``y w . x <= 0``) learns on those features only.

    ``draw="per-mistake"`` follows the OFS authors' code instead (``RND.m`` of
    their toolbox): after every mistake ``w += y x`` on every feature of the
    row, a new set of B features is drawn uniformly among the visible ones and
    every weight outside it is set to 0. O(visible features) per mistake.
    ``docs/reports/investigations/ofs_table8.md`` shows that this rule gives
    spreads of the size the paper reports, where one draw per run gives 5-40x
    larger ones.

    Parameters
    ----------{_COMMON_DOC}
    seed
        Seed of the draws.
    draw
        ``"once"`` (default: the paper's "randomly selects B features") or
        ``"per-mistake"`` (the authors' code: a new set after each mistake).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(RAND(seed=1), full(ds.X, ds.y, ds.feature_names)).mistakes
    373

    References
    ----------
    Hoi, Wang, Zhao, Jin. Online Feature Selection for Mining Big Data. BigMine 2012
    (section 4.1.2, the RAND baseline).
    """

    _core = RANDCore
    _algorithm = "rand"
    per_feature = (*_Budgeted.per_feature, "flag", "vis", "sel", "shown")
    #: What a model file must satisfy (evofeat.io): _Budgeted's, and the random set's columns.
    _state_spec = _Budgeted._state_spec.extend(
        fixed=("seed", "redraw"),
        indices=("vis", "sel", "shown"),
        counts=("n_selected", "n_shown"),
        at_most=(("n_selected", "B"),),
        nonnegative=("n_draws",),
    )

    budget: float = 0.1
    budget_count: int | None = None
    seed: int = 0
    zero_score: str = "mistake"
    draw: str = "once"
    fit_intercept: bool = False

    def _check_params(self) -> None:
        super()._check_params()
        fix = "pass draw='once' (the paper) or draw='per-mistake' (the authors' RND.m)"
        check_choice(self.draw, _DRAWS, "RAND draw rule", fix)

    def _extra_fields(self, capacity: int) -> dict[str, Any]:
        return {
            "flag": np.zeros(capacity, np.int8),
            "vis": np.zeros(capacity, np.int64),
            "sel": np.zeros(capacity, np.int64),
            "shown": np.zeros(capacity, np.int64),
            "seed": int(self.seed),
            "n_selected": 0,
            "n_draws": 0,
            "n_shown": 0,
            "redraw": self.draw == "per-mistake",
        }


LEARNERS = {"ofs": OFS, "pe-trun": PETrun, "rand": RAND, "ofs-p": OFSP}
