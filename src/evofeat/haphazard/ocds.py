"""OCDS: online learning from capricious data streams, a generative approach (He et al., 2019)."""

from __future__ import annotations

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.errors import check_choice, check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.haphazard._ocds import OCDSCore

__all__ = ["OCDS"]

#: ``rule`` codes of the compiled core.
RULES = {"paper": 0, "package": 1}


class OCDS(InterceptMixin, OnlineLearner):
    """OCDS (He, Wu, Wu, Beyazit, Chen, Wu, 2019): learn on the universal feature space,
    reconstructing the absent features from the present ones through a learned graph.

    The universal feature space ``U`` is every feature seen so far. A
    non-negative graph ``G`` (``|U| x |U|``, a new feature's edges drawn
    uniformly in [0, 1) from ``seed``) reconstructs the whole space from the
    row's ``d_t`` present features: ``psi = (1/d_t) G_obs^T x`` (when
    predicting, a feature never seen before has no edges yet and is not
    counted in ``d_t``, so that both paths agree). The
    prediction mixes the observed part and the reconstructed part,
    ``p w_obs . x + (1 - p) w_rec . psi_rec``, with ``p`` the exponential
    weights of the two parts' cumulative logistic losses (base 2),
    ``eta = 8 sqrt(1 / ln t)``. Then, with step ``tau_t = 1 / sqrt(t)`` (or
    ``tau``) and ``r = y - w . psi``:

    - ``w -= tau_t (-2 r psi + beta1 sign(w) + beta2 (L + L^T) w)``: the squared
      loss on the reconstructed row, an L1 term and the graph regulariser
      (``L`` the Laplacian of ``(G + G^T) / 2``);
    - ``G``'s rows of the present features take a projected gradient step
      (kept >= 0) on the squared loss through ``psi`` and the reconstruction
      error ``alpha ||x - psi_obs||^2``, with the ``w`` before its step;
    - when ``gamma < 1``, ``w`` keeps its ``max(1, ceil(gamma |U|))``
      largest magnitudes (ties: the lower column).

    A row costs O(d_t |U| + |U|^2) time and the graph O(|U|^2) memory: for
    streams of at most a few thousand features. A row with no feature is not
    learned (its score is 0).

    ``rule="package"`` computes what the ``haphazard`` package (1.2.8) does:
    the gradient of the squared loss in ``w`` divided by ``d_t``; its L1
    weight ``beta1 + beta2 / 2`` (its ``lamda``, given the review's ``beta1``
    and ``beta2``); gradients clipped to +-1e3; ``p`` from exp-clipped
    weights; ``G`` multiplied entrywise by ``(g- + eps) / (g+ + eps)``
    (clipped to [1e-3, 1e3]; then ``G`` to [0, 1e6]) with the ``w`` after its
    step; ``w`` zeroed below the kept magnitude (ties kept). Unlike the
    package, which knows the number of features in advance, ``U`` holds only
    the features seen so far, and the graph's draws are evofeat's, so the
    two agree in distribution, not row by row.

    Parameters
    ----------
    alpha
        Weight of the reconstruction error (``alpha``).
    beta1
        Weight of the L1 term (``beta_1``).
    beta2
        Weight of the graph regulariser (``beta_2``).
    gamma
        Fraction of the weights kept by the truncation, in (0, 1] (1: none).
    tau
        Constant step; ``None`` (default): ``1 / sqrt(t)``.
    seed
        Seed of the graph's initial edges.
    rule
        ``"paper"`` (default) or ``"package"`` (above).
    fit_intercept
        Learn a bias ``b`` (evofeat's option, not the paper's nor the
        package's): the weight of a constant input 1 that every row has. It
        adds to both parts' scores, so the prediction is ``p w_obs . x + (1 -
        p) w_rec . psi_rec + b`` and each part's loss counts it; the
        residual is ``r = y - w . psi - b`` and ``b -= tau_b g_b`` with
        ``g_b = -2 r`` (``rule="package"``: ``-2 r / d_t``, clipped as
        ``w``'s gradient). No L1, graph term or truncation acts on it, and it
        is not in ``coef_``, the graph nor the feature index. A row with no
        feature is still not learned. Turn it on for raw features with an
        offset or imbalanced classes. Off by default: He et al.'s objective.
        Refused with ``rule="package"``, which reproduces a package without
        one: its ``w`` swings by up to ``1e3`` a step (clipped gradients at
        ``1 / sqrt(t)``), and a bias stepped by that rule chases the swings
        (measured: 0.30 accuracy on labels 80 % positive).
    intercept_lr
        The bias's step ``tau_b``; ``None`` (default): the classifier's
        (``tau_t``).

    Notes
    -----
    The defaults of ``alpha``, ``beta1`` and ``beta2`` are the values the
    review (Agarwal et al., 2024) tuned most often over its 13 data sets
    (``benchmarks/haphazard_review_params.json``); ``gamma = 1`` is what its
    rule ``min(1, 150 / d)`` gives on all of them.

    Attributes
    ----------
    coef_
        The classifier's weight of each feature seen, by name.
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=0)
    >>> round(prequential(OCDS(), stream).accuracy, 3)
    0.558
    >>> round(prequential(OCDS(rule="package"), stream).accuracy, 3)
    0.498

    References
    ----------
    He, Wu, Wu, Beyazit, Chen, Wu. Online Learning from Capricious Data
    Streams: A Generative Approach. IJCAI 2019 (the universal feature space,
    the reconstruction through the graph, the ensemble of the observed and
    reconstructed parts, the objective's gradient steps). Agarwal et al.,
    2024 (the ``haphazard`` package).
    """

    per_feature = ("w", "seen")
    #: A present zero is a value: it is part of the row's feature space (a sparse batch's
    #: unstored entries reach the learner as zeros).
    _zeros_matter = True

    #: What a model file must satisfy (evofeat.io): the fields the parameters set.
    _state_spec = StateSpec(
        fixed=(
            "alpha",
            "beta1",
            "beta2",
            "gamma",
            "tau",
            "seed",
            "rule",
            "fit_intercept",
            "intercept_lr",
        ),
        nonnegative=("seen", "G", "p", "L_obs", "L_rec", "T"),
        at_most=(("p", 1.0),),
    )

    def __init__(
        self,
        alpha: float = 0.01,
        beta1: float = 0.0001,
        beta2: float = 0.01,
        gamma: float = 1.0,
        tau: float | None = None,
        seed: int = 0,
        rule: str = "paper",
        fit_intercept: bool = False,
        intercept_lr: float | None = None,
    ) -> None:
        self.alpha = alpha
        self.beta1 = beta1
        self.beta2 = beta2
        self.gamma = gamma
        self.tau = tau
        self.seed = seed
        self.rule = rule
        self.fit_intercept = fit_intercept
        self.intercept_lr = intercept_lr

    def _check_params(self) -> None:
        for name in ("alpha", "beta1", "beta2"):
            check_number(getattr(self, name), name, positive=False, fix=f"pass {name}=0.01")
        check_number(self.gamma, "gamma", positive=True, fix="pass gamma=1.0 (no truncation)")
        if self.gamma > 1:
            check_number(1 - self.gamma, "1 - gamma", positive=False, fix="pass gamma in (0, 1]")
        if self.tau is not None:
            check_number(self.tau, "tau", positive=True, fix="pass tau=None (1 / sqrt(t))")
        if not (isinstance(self.seed, int | np.integer) and 0 <= self.seed < 2**64):
            check_number(-1, "seed", positive=False, fix="pass an integer seed >= 0, e.g. seed=0")
        check_choice(self.rule, RULES, "rule", "pass rule='paper' (or 'package')")
        check_intercept(self, "step tau_t")
        if self.fit_intercept and self.rule == "package":
            raise InputError(
                "OCDS's rule='package' takes no bias",
                expected="fit_intercept=False with rule='package' (the package has no bias)",
                received="fit_intercept=True",
                fix="pass rule='paper' to learn a bias",
            )

    def _make_state(self, capacity: int) -> OCDSCore:
        return OCDSCore(
            w=np.zeros(capacity),
            seen=np.zeros(capacity),
            G=np.zeros((capacity, capacity)),
            p=0.5,
            L_obs=0.0,
            L_rec=0.0,
            T=0,
            alpha=float(self.alpha),
            beta1=float(self.beta1),
            beta2=float(self.beta2),
            gamma=float(self.gamma),
            tau=0.0 if self.tau is None else float(self.tau),
            seed=int(self.seed),
            rule=RULES[self.rule],
            **self._intercept_fields(0.0),  # intercept_lr 0: the classifier's step
        )

    def _ensure_capacity(self, n_features: int) -> None:
        super()._ensure_capacity(n_features)
        st = self._state
        cap = self._capacity
        if st.G.shape[0] < cap:  # the graph grows on both axes
            fields = st._asdict()
            G = np.zeros((cap, cap))
            old = fields["G"]
            G[: old.shape[0], : old.shape[1]] = old
            fields["G"] = G
            self._state = type(st)(**fields)


LEARNERS = {"ocds": OCDS}
