"""Absent features recovered online in front of any online learner: OVFM's Gaussian-copula step."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from evofeat._core.copula import PATIENCE, CopulaCore, NeighbourCopulaCore
from evofeat._core.scaling import scaled_core
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.base.state import StateSpec
from evofeat.preprocessing.scaled import OnlineScaled

__all__ = ["IMPUTATIONS", "PATIENCE", "Imputed"]

#: the imputations by name: their compiled cores
IMPUTATIONS: dict[str, Any] = {"copula": CopulaCore}


class Imputed(OnlineScaled):
    """Absent features imputed by their conditional mean in an online Gaussian copula, in front of
    an online learner (the step OVFM puts before its latent classifier).

    Each feature is mapped to normal scores by its running marginal (the
    ``"quantile"`` transform of :class:`OnlineScaled`, the copula's marginal
    step, with the same ``window``), the correlation ``sigma`` of the scores
    is learned online, and each feature seen before but absent from the row
    is handed to the learner as its conditional mean given the present
    scores, ``E[z_M | z_O] = sigma_MO sigma_OO^-1 z_O`` (He, Yuan and Wu,
    "Online learning in variable feature spaces with mixed data", ICDM 2021;
    its online EM is Zhao et al.'s for the Gaussian copula). The learner thus
    sees every feature seen so far on every row: the present ones as their
    normal scores, the absent ones imputed. A feature never seen is not
    imputed.

    Prequential order, on both paths: the row is scored and completed with
    the statistics of the rows before it and predicted; the learner learns on
    that same completed row; then one EM step moves ``sigma`` towards the
    row's ``zh zh^T + C`` (``zh`` the completed row, ``C`` the conditional
    covariance of the imputed block) with the step ``g = max(1 / (t + 2),
    forget)`` after ``t`` rows (a running mean with the identity as one prior
    row, then exponential forgetting, so ``sigma`` follows a drifting
    stream), ``sigma`` is projected back to a correlation matrix, and the
    marginals take the raw values. OVFM's released code updates with a fixed
    ``decay_coef = 0.5`` per batch; with one row per batch that step would
    make ``sigma`` the last row's outer product, hence the running mean.

    Cost per row, with ``o`` present and ``m`` imputed features (``u = o +
    m`` seen so far), on top of the quantile transform's O(``window``) per
    present feature: O(o^3 / 3 + o m) to predict (a Cholesky factor of
    ``sigma_OO + ridge I`` and one solve) and O(o^3 / 3 + o^2 m + o m^2 +
    u^2) to learn; memory ``d^2`` floats for ``sigma``. It is meant for
    ``d`` up to a few hundred features.

    Parameters
    ----------
    learner
        The online learner fed the completed rows: a registry spec or a
        learner (as :class:`OnlineScaled`'s).
    method
        ``"copula"`` (the only one).
    window
        The values kept per feature for its marginal (OVFM's ``window_size``).
    forget
        The smallest EM step (``1 / forget`` rows is the memory of ``sigma``
        once the running mean reaches it).
    ridge
        Added to the diagonal of ``sigma_OO`` before it is factored (keeps
        the solve stable when present features are collinear).
    neighbours
        ``None``: the full correlation ``sigma``; an int ``k >= 1``: ``k``
        neighbours per feature (bounded memory).
    seed
        The neighbour candidates' draws (with ``neighbours`` only).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german")
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=1)
    >>> imputed = prequential(Imputed("ftrl"), stream).accuracy
    >>> bounded = prequential(Imputed("ftrl", neighbours=5), stream).accuracy
    >>> print(f"{imputed:.3f} {bounded:.3f}")
    0.712 0.694
    >>> model = Imputed("ftrl")
    >>> for t in range(20):  # b rises with a
    ...     model = model.learn_one({"a": float(t), "b": 10.0 * t + t % 3}, 1 if t % 2 else -1)
    >>> round(model.correlation()["a"]["b"], 3)
    0.987
    >>> model.predict_one({"a": 25.0}) in (-1, 1)  # b absent: imputed from a
    True
    """

    def __init__(
        self,
        learner: str | OnlineLearner = "ftrl",
        method: str = "copula",
        window: int = 100,
        forget: float = 0.01,
        ridge: float = 1e-6,
        neighbours: int | None = None,
        seed: int = 0,
    ) -> None:
        super().__init__(learner, method=method, window=window)
        self.forget = forget
        self.ridge = ridge
        self.neighbours = neighbours
        self.seed = seed

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, the learner as its spec (as :class:`OnlineScaled`'s)."""
        return {
            **super().get_params(deep),
            "forget": self.forget,
            "ridge": self.ridge,
            "neighbours": self.neighbours,
            "seed": self.seed,
        }

    def _check_params(self) -> None:
        if self.method not in IMPUTATIONS:
            raise InputError(
                "unknown imputation method",
                expected=" or ".join(repr(k) for k in IMPUTATIONS),
                received=repr(self.method),
                fix="pass method='copula' (conditional mean in a Gaussian copula)",
            )
        for name, low, high in (("forget", 0.0, 1.0), ("ridge", 0.0, 1.0)):
            v = getattr(self, name)
            ok = isinstance(v, int | float | np.floating) and not isinstance(v, bool)
            if not ok or not low <= float(v) <= high:
                raise InputError(
                    f"{name} must be a number in [{low:g}, {high:g}]",
                    expected=f"a float between {low:g} and {high:g}",
                    received=repr(v),
                    fix="pass forget=0.01, ridge=1e-6 (the defaults)",
                )
        k, seed = self.neighbours, self.seed
        if k is not None and not (_is_int(k) and 1 <= k <= 1 << 16):
            raise InputError(
                "neighbours must be None or a count of neighbours",
                expected="None (the full correlation) or an int between 1 and 65536",
                received=repr(k),
                fix="pass neighbours=10 for bounded memory, or leave it None",
            )
        if not (_is_int(seed) and 0 <= seed < 1 << 63):
            raise InputError(
                "seed must be a non-negative int",
                expected="an int in [0, 2^63)",
                received=repr(seed),
                fix="pass seed=0",
            )
        saved, self.method = self.method, "quantile"  # the window and the learner: OnlineScaled's
        try:
            super()._check_params()
        finally:
            self.method = saved

    @property
    def per_feature(self) -> tuple[str, ...]:  # type: ignore[override]
        """The marginals' and ``sigma``'s per-feature fields and the learner's."""
        saved, self.method = self.method, "quantile"
        try:
            own = ("sigma",) if self.neighbours is None else ("nbr", "cross", "vj", "vi", "cnt")
            return (*own, *super().per_feature)
        finally:
            self.method = saved

    @property
    def _state_spec(self) -> StateSpec:
        """The scaler's declaration, with the copula's parameters fixed and its row count."""
        if self.neighbours is not None:
            own = StateSpec(
                fixed=("forget", "seed"), indices=("nbr",), nonnegative=("rows", "cnt", "vj", "vi")
            )
            return own.merged(super()._state_spec)
        own = StateSpec(fixed=("forget", "ridge"), nonnegative=("rows",))
        return own.merged(super()._state_spec)

    def _make_state(self, capacity: int) -> Any:
        inner = self._inner()._make_state(capacity)
        marginals = {
            "window": int(self.window),
            "seen": np.zeros(capacity, dtype=np.int64),
            "recent": np.zeros((capacity, int(self.window))),
        }
        if self.neighbours is not None:
            k = int(self.neighbours)
            return scaled_core(
                NeighbourCopulaCore,
                inner,
                **marginals,
                nbr=np.full((capacity, k), -1, dtype=np.int64),
                cross=np.zeros((capacity, k)),
                vj=np.ones((capacity, k)),
                vi=np.ones((capacity, k)),
                cnt=np.zeros((capacity, k)),
                forget=float(self.forget),
                seed=int(self.seed),
                rows=0,
            )
        return scaled_core(
            IMPUTATIONS[self.method],
            inner,
            **marginals,
            sigma=np.eye(capacity),
            forget=float(self.forget),
            ridge=float(self.ridge),
            rows=0,
        )

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name == "sigma":
            return  # widened to a square by _ensure_capacity
        if name == "nbr":
            grown[start:] = -1  # no neighbour yet
            return
        if name in ("vj", "vi"):
            grown[start:] = 1.0  # the identity's moments
            return
        super()._init_grown(name, grown, start)

    def _ensure_capacity(self, n_features: int) -> None:
        """Grow as every learner, then widen ``sigma`` to a square (the identity on new features)."""
        super()._ensure_capacity(n_features)
        state = self._state
        if self.neighbours is not None:
            return
        sigma = np.asarray(state.sigma)
        if sigma.shape[0] != sigma.shape[1]:
            old = sigma.shape[1]
            square = np.eye(sigma.shape[0])
            square[:old, :old] = sigma[:old, :old]
            fields = {name: getattr(state, name) for name in state._fields}
            fields["sigma"] = square
            self._state = type(state)(**fields)

    def statistics(self) -> dict[Hashable, dict[str, float]]:
        """The marginals of each feature seen so far (``seen`` and the kept values' ``median``).

        >>> Imputed("ftrl").learn_one({"a": 1.0}, 1).statistics()
        {'a': {'seen': 1.0, 'median': 1.0}}
        """
        saved, self.method = self.method, "quantile"
        try:
            return super().statistics()
        finally:
            self.method = saved

    def correlation(self) -> dict[Hashable, dict[Hashable, float]]:
        """The copula correlation learned so far, by feature name: ``sigma``'s entries, or with
        ``neighbours`` each feature's neighbours'."""
        state: Any = getattr(self, "_state", None)
        if state is None:
            return {}
        names = list(self.feature_index_.names)
        if self.neighbours is not None:
            nbr = np.asarray(state.nbr)
            rho = np.asarray(state.cross) / np.sqrt(np.asarray(state.vj) * np.asarray(state.vi))
            return {
                a: {names[int(i)]: float(r) for i, r in zip(nbr[j], rho[j], strict=True) if i >= 0}
                for j, a in enumerate(names)
            }
        sigma = np.asarray(state.sigma)
        return {
            a: {b: float(sigma[i, j]) for j, b in enumerate(names)} for i, a in enumerate(names)
        }


def _is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)
