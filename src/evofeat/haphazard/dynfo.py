"""DynFo: a dynamic forest of decision stumps for streams with varying feature spaces."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.errors import check_bool
from evofeat.base.intercept import InterceptMixin
from evofeat.base.state import StateSpec
from evofeat.haphazard._dynfo import DynFoCore

__all__ = ["DynFo"]

#: How a stump chosen for relearning is refitted (see ``relearn`` in :class:`DynFo`).
_RELEARN = ("improve", "refit")
_UNIT = ("beta", "delta", "theta2")  # shares in [0, 1]
_POSITIVE = ("alpha",)
_NONNEGATIVE = ("epsilon", "gamma", "theta1")


class DynFo(OnlineLearner):
    """DynFo (Schreckenberger et al. 2022): a weighted forest of decision stumps, each fitted on
    the window of the last ``N`` rows over a random subset of the features seen so far.

    Every row enters the window (a feature absent from a row is absent there too). The forest
    predicts by a weighted vote: each stump whose split feature is present in the row adds its
    weight times the class shares of its side (``x <= threshold`` or not) in the window it was
    fitted on; the larger sum wins (a tie, or no vote: -1). The score is the log ratio of the
    two sums (each floored at the smallest normal double), so ``predict_proba_one`` gives the
    forest's vote share for +1. Then, on the true label:

    1. if the forest's error rate over its last ``N`` predictions exceeds ``gamma``, a new stump
       is grown (weight 1);
    2. each stump's weight becomes ``w - epsilon`` when its split feature is absent, else
       ``(w + 2 alpha [the stump is right]) / (1 + alpha)``;
    3. of the stumps with ``theta1 <= w < q``, ``q`` the ``theta2``-quantile of the weights
       (linear interpolation, as ``numpy.quantile``), a random ``int((1 - beta) k)`` of the ``k``
       are relearned on the current window (weight back to 1);
    4. the stumps with ``w < theta1`` are dropped (the last one stays).

    Growing or relearning a stump draws ``max(int(delta n), 1)`` accepted features at random
    among the ``n`` seen so far; the stump takes, among them, the split of least Gini impurity
    over the window rows where that feature is present (thresholds at the values seen there; a
    tie goes to the value that entered the window first). The first row with a feature grows
    the first ``M`` stumps and is learned only that way. Scale-free: a monotone change of a
    feature changes nothing. Binary (labels -1/+1).

    Cost per row: the vote and the weights O(stumps); each feature's best split is computed at
    most once per row, O(N log N), whatever the number of stumps drawing it. Memory: the window
    holds ``N`` values per feature seen, O(N d).

    Parameters
    ----------
    alpha
        The weights' step (the paper's alpha).
    beta
        The share of the relearning candidates kept as they are (beta; ``1 - beta`` relearn).
    delta
        The share of the features seen that a stump accepts (delta; at least one feature).
    epsilon
        The penalty of a stump whose split feature is absent from the row (epsilon).
    gamma
        The forest's error rate over its last ``N`` predictions above which a stump is grown.
    M
        The number of stumps grown from the first row.
    N
        The window: the rows the stumps are fitted on and the error rate is measured over.
    theta1
        Stumps below this weight are dropped; relearning candidates are at least this.
    theta2
        Relearning candidates are below the ``theta2``-quantile of the weights.
    max_learners
        The most stumps kept (``None``: ``10 M``). The paper sets no bound: a stump that would
        exceed it is not grown.
    relearn
        ``"refit"`` (default): a relearned stump takes the best split among its new draw of
        features on the current window, whatever it had. ``"improve"``: the ``haphazard``
        package's rule (1.2.8): it keeps its split unless a newly drawn feature splits the
        current window with a lower Gini impurity than its own split had on its window. The
        first ``M`` stumps, fitted on one row, have impurity 0, so under ``"improve"`` they never
        change: on identical streams the package and ``"improve"`` reach about 50 % balanced
        accuracy on wdbc where ``"refit"`` reaches the review's published 83-91 %
        (``benchmarks/results/dynfo_parity.md``).
    seed
        Seed of the draws (accepted features, relearning).
    fit_intercept
        Always ``False``: DynFo has no bias to learn. Its score is the log
        ratio of the stumps' weighted votes, not a linear function of the
        row, so there is no constant input whose weight would shift it; the
        class prior is already in each stump's class shares. ``True`` is
        refused with :class:`~evofeat.base.InputError`. (The parameter
        exists so that every online learner takes ``fit_intercept``.)

    Notes
    -----
    The defaults are the review's most common setting over its 13 data sets (Agarwal et al.
    2024, ``benchmarks/haphazard_review_params.json``; ``N`` its cap of 20 rows).

    Attributes
    ----------
    coef_
        Per feature, the total weight of the stumps that split on it.
    n_learners_
        The number of stumps.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("kr-vs-kp")  # 3196 rows, 52 % of them in the larger class
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=1)
    >>> model = DynFo(seed=0)
    >>> prequential(model, stream).mistakes, model.n_learners_
    (39, 535)

    References
    ----------
    Schreckenberger, C., Bartelt, C., Stuckenschmidt, H., et al. Dynamic forest for learning
    from data streams with varying feature spaces. CoopIS 2022. As implemented for Agarwal et
    al., Online learning under haphazard input conditions: a comprehensive review and
    analysis, 2024 (the ``haphazard`` package 1.2.8, ``models/model_zoo/dynfo``).
    """

    #: A zero is a value the stumps split on: a sparse batch reaches the forest densified.
    _zeros_matter = True
    per_feature = (
        "win_x",
        "win_t",
        "perm",
        "best_t",
        "best_n",
        "x_t",
        "best_gini",
        "best_threshold",
        "best_left_neg",
        "best_left_pos",
        "best_right_neg",
        "best_right_pos",
        "x_val",
    )
    #: What a model file must satisfy (evofeat.io).
    _state_spec = StateSpec(
        fixed=(
            "alpha",
            "beta",
            "delta",
            "epsilon",
            "gamma",
            "theta1",
            "theta2",
            "M",
            "N",
            "max_learners",
            "improve",
        ),
        indices=("feature", "perm"),
        counts=("n_seen",),
        at_most=(("n_learners", "max_learners"), ("win_len", "N"), ("ok_len", "N"), ("corrupt", 1)),
        nonnegative=("n_learners", "win_len", "ok_len", "win_next", "ok_next", "t"),
    )

    def __init__(
        self,
        alpha: float = 0.1,
        beta: float = 0.8,
        delta: float = 0.001,
        epsilon: float = 0.001,
        gamma: float = 0.5,
        M: int = 500,
        N: int = 20,
        theta1: float = 0.05,
        theta2: float = 0.75,
        max_learners: int | None = None,
        relearn: str = "refit",
        seed: int = 0,
        fit_intercept: bool = False,
    ) -> None:
        self.alpha = alpha
        self.beta = beta
        self.delta = delta
        self.epsilon = epsilon
        self.gamma = gamma
        self.M = M
        self.N = N
        self.theta1 = theta1
        self.theta2 = theta2
        self.max_learners = max_learners
        self.relearn = relearn
        self.seed = seed
        self.fit_intercept = fit_intercept

    #: The repr leaves ``fit_intercept`` out at its default, as the linear learners' do.
    __repr__ = InterceptMixin.__repr__

    def _check_params(self) -> None:
        check_bool(self.fit_intercept, "fit_intercept", "False", "pass fit_intercept=False")
        if self.fit_intercept:
            raise InputError(
                "DynFo learns no bias: its score is a vote of decision stumps, not linear",
                expected="fit_intercept=False (the class prior is in the stumps' class shares)",
                received="fit_intercept=True",
                fix="pass fit_intercept=False, or use a linear learner (e.g. olvf) for a bias",
            )

        def real(name: str) -> float:
            v = getattr(self, name)
            if not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v):
                raise InputError(
                    f"{name} must be a finite number", received=repr(v), fix=f"pass {name}=0.5"
                )
            return float(v)

        for name in _UNIT:
            if not 0.0 <= real(name) <= 1.0:
                raise InputError(
                    f"{name} must be a share",
                    expected="a number in [0, 1]",
                    received=repr(getattr(self, name)),
                )
        for name in _POSITIVE:
            if not real(name) > 0.0:
                raise InputError(f"{name} must be > 0", received=repr(getattr(self, name)))
        for name in _NONNEGATIVE:
            if not real(name) >= 0.0:
                raise InputError(f"{name} must be >= 0", received=repr(getattr(self, name)))
        for name in ("M", "N", "max_learners", "seed"):
            v = getattr(self, name)
            if name == "max_learners" and v is None:
                continue
            low = 0 if name == "seed" else 1
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < low:
                raise InputError(
                    f"{name} must be an integer >= {low}",
                    received=repr(v),
                    fix=f"pass {name}={20 if name == 'N' else 500 if name == 'M' else low}"
                    if name != "max_learners"
                    else "pass max_learners=None (10 M)",
                )
        if self.max_learners is not None and self.max_learners < self.M:
            raise InputError(
                "max_learners is below M",
                expected=f"at least M = {self.M} (the stumps grown from the first row)",
                received=repr(self.max_learners),
                fix="pass max_learners=None (10 M)",
            )
        if self.relearn not in _RELEARN:
            raise InputError(
                "unknown relearn rule",
                expected=" or ".join(repr(r) for r in _RELEARN),
                received=repr(self.relearn),
                fix="pass relearn='refit' (the paper's, the review's numbers) or 'improve' (the package's)",
            )

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name == "perm":
            grown[start:] = np.arange(start, grown.shape[0])

    def _make_state(self, capacity: int) -> DynFoCore:
        N = int(self.N)
        L = int(self.max_learners if self.max_learners is not None else 10 * self.M)
        f64, i64 = np.float64, np.int64
        per_feature: dict[str, Any] = {
            name: np.zeros(capacity, i64 if name in ("perm", "best_t", "best_n", "x_t") else f64)
            for name in self.per_feature
            if name not in ("win_x", "win_t")
        }
        per_feature["perm"] = np.arange(capacity, dtype=i64)
        stumps: dict[str, Any] = {
            name: np.zeros(L)
            for name in (
                "threshold",
                "left_neg",
                "left_pos",
                "right_neg",
                "right_pos",
                "gini",
                "weight",
            )
        }
        return DynFoCore(
            alpha=float(self.alpha),
            beta=float(self.beta),
            delta=float(self.delta),
            epsilon=float(self.epsilon),
            gamma=float(self.gamma),
            theta1=float(self.theta1),
            theta2=float(self.theta2),
            M=int(self.M),
            N=N,
            max_learners=L,
            improve=int(self.relearn == "improve"),
            win_x=np.zeros((capacity, N)),
            win_t=np.zeros((capacity, N), i64),
            slot_t=np.zeros(N, i64),
            win_y=np.zeros(N),
            ok=np.zeros(N),
            win_next=0,
            win_len=0,
            ok_next=0,
            ok_len=0,
            t=0,
            n_seen=0,
            n_learners=0,
            rng=int(np.int64(np.uint64(int(self.seed) % 2**64).view(np.int64))),
            corrupt=0,
            feature=np.full(L, -1, i64),
            **stumps,
            **per_feature,
        )

    @property
    def n_learners_(self) -> int:
        """The number of stumps."""
        return 0 if self._state is None else int(self._state.n_learners)

    def _divergence_top(self) -> float:
        """The largest stump weight (NaN once a NaN was found in the window: a broken state)."""
        if self._state is None or self._state.corrupt:
            return math.nan if self._state is not None else 0.0
        m = int(self._state.n_learners)
        return float(np.abs(np.asarray(self._state.weight)[:m]).max(initial=0.0))

    def _effective_weights(self) -> np.ndarray:
        """Per feature, the total weight of the stumps splitting on it."""
        n = len(self.feature_index_)
        if self._state is None or n == 0:
            return np.zeros(n)
        m = int(self._state.n_learners)
        feature = np.asarray(self._state.feature)[:m]
        weight = np.asarray(self._state.weight)[:m]
        used = feature >= 0
        return np.bincount(feature[used], weights=weight[used], minlength=n)[:n]


LEARNERS = {"dynfo": DynFo}
