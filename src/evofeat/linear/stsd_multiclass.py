"""Multiclass STSD: the multiclass PA step on a growing feature space, kept sparse by feature."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.linear._shared import Truncated, require
from evofeat.linear._stsd import STEP_RULES, STSDMulticlassCore
from evofeat.linear.stsd import _MODES, _check_common, budget_limit

__all__ = ["STSDMulticlass"]


@dataclass(eq=False, repr=False)
class STSDMulticlass(Truncated, InterceptMixin, OnlineLearner):
    """The multiclass STSD that the paper leaves to future work (its Section VI).

    One weight vector per class, ``W`` (features x classes), learnt by the
    multiclass PA step (Crammer et al., 2006, Sec. 7, max-loss form) on the
    STSD round: predict the class with the highest score ``W_c . x~`` (the
    lowest class among ties); with ``r`` the best-scoring wrong class, suffer
    ``l = max(0, 1 - (W_y . x - W_r . x))``; step ``W_y += tau x``,
    ``W_r -= tau x`` over all the row's features (new ones start at 0, so they
    are set by the same step, as STSD's Eq. 4) with ``tau = l / (2||x||^2)``,
    ``min(C, .)`` or ``l / (2||x||^2 + 1/(2C))``; scale ``W`` onto the L1 ball
    ``sum |W| <= radius``; truncate by feature: keep the ``max(1, floor(B d))``
    features whose weight row has the largest L1 norm (ties keep the feature
    seen first), so the model uses at most a fraction B of the features for
    all classes together. ``budget=1.0, radius=inf`` is the plain multiclass
    PA on the growing feature space, the natural baseline. Vanished features
    keep their weights.

    Parameters
    ----------
    mode
        ``"stsd"``, ``"stsd-i"`` or ``"stsd-ii"`` (the step rule: with
        ``budget=1.0, radius=inf``, as ``pa-multiclass`` fixes them, the
        multiclass PA, PA-I and PA-II steps).
    C
        Aggressiveness of the -I / -II steps.
    radius
        Radius of the L1 ball on all the weights (``inf`` for none).
    budget
        B, the fraction of the features seen so far that may keep weights.
    n_classes
        Number of classes (labels are codes ``0 .. n_classes - 1``); ``None``:
        taken from the stream by :func:`evofeat.evaluate.prequential`, and
        grown as new codes arrive on ``learn_one`` / ``learn_many`` (as in
        River; a new class starts from zero weights; ``learn_many`` grows to
        its batch's largest code first).
    seed
        Unused (kept so that every STSD learner takes a seed).
    fit_intercept
        Learn one bias per class (not in the paper): ``b_c`` is the weight
        of class ``c`` on a constant input 1, so the scores are ``W_c . x +
        b_c``, ``tau`` uses ``2 (||x||^2 + 1)`` and the step moves ``b_y +=
        tau``, ``b_r -= tau``. The biases are not features: outside the L1
        ball, the budget and ``coef_``. Turn it on for imbalanced classes or
        raw features with an offset; off by default (the paper's rule).

    Attributes
    ----------
    coef_ : dict
        The weights of each feature seen so far (one per class), by name.
    intercept_ : numpy.ndarray
        The bias of each class (zeros without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("dna")
    >>> model = STSDMulticlass(C=0.1, budget=0.5)
    >>> prequential(model, trapezoidal(ds.X, ds.y, ds.feature_names)).mistakes
    1082
    >>> len(model.selected_features_), model.budget_limit_
    (90, 90)

    References
    ----------
    Zhang et al. Towards Mining Trapezoidal Data Streams. ICDM 2015 (Alg. 1-3,
    Sec. VI). Crammer, Dekel, Keshet, Shalev-Shwartz, Singer. Online
    Passive-Aggressive Algorithms. JMLR 7, 2006 (Sec. 7).
    """

    task: ClassVar[str] = "multiclass"
    _support_of: ClassVar[str] = "V"
    _modes: ClassVar[tuple[str, ...]] = ("stsd", "stsd-i", "stsd-ii")
    per_feature: ClassVar[tuple[str, ...]] = ("V", "g", "heap", "pos")

    #: What a model file must satisfy (evofeat.io): the fields the parameters set, the support heap
    #: of features (the only non-zero rows of V) and its columns.
    _state_spec = Truncated._heap_spec.extend(
        fixed=("rule", "C", "radius", "budget"),
        support=(("V", "heap", "hsize"), ("g", "heap", "hsize")),
        nonnegative=("l1", "g"),
    )

    mode: str = "stsd-i"
    C: float = 0.1
    radius: float = 30.0
    budget: float = 0.5
    n_classes: int | None = None
    seed: int = 0
    fit_intercept: bool = False

    def _check_params(self) -> None:
        _check_common(self)
        K = self.n_classes
        ok = K is None or (isinstance(K, int | np.integer) and K >= 2)
        require(ok, "n_classes must be at least 2", "an int >= 2 or None", K, "pass n_classes=3")
        check_intercept(self, None)

    def _make_state(self, capacity: int) -> STSDMulticlassCore:
        if self.n_classes is None:
            raise InputError(
                "the number of classes is not known",
                expected="n_classes=<int>",
                received="n_classes=None",
                fix="pass n_classes (prequential infers it)",
            )
        K = int(self.n_classes)
        return STSDMulticlassCore(
            V=np.zeros((capacity, K)),
            g=np.zeros(capacity),
            **self._support_fields(capacity),
            l1=0.0,
            dim=0,
            rule=STEP_RULES[_MODES[self.mode][0]],
            C=float(self.C),
            radius=float(self.radius),
            budget=float(self.budget),
            fit_intercept=int(self.fit_intercept),
            intercept=np.zeros(K),
        )

    def _reset(self) -> None:
        super()._reset()
        self._grows = self.n_classes is None  # classes discovered from the labels (as in River)

    def learn_one(self, x: Any, y: Any) -> STSDMulticlass:
        self._discover([y])
        return super().learn_one(x, y)  # type: ignore[return-value]

    def learn_many(self, X: Any, y: Any) -> STSDMulticlass:
        self._discover(np.unique(np.asarray(y)).tolist())
        return super().learn_many(X, y)  # type: ignore[return-value]

    def _discover(self, labels: list[Any]) -> None:
        """Grow the classes to the largest new code in ``labels`` (``n_classes=None`` only)."""
        if not hasattr(self, "feature_index_"):
            self._reset()
        if not self._grows:
            return
        codes = [OnlineLearner._encode_label(self, y) for y in labels]  # numbers, finite
        top = max((int(v) for v in codes if v == int(v) and v >= 0), default=-1)
        if top >= (self.n_classes or 0):
            self._grow_classes(max(2, top + 1))

    def _encode_label(self, y: Any) -> float:
        v = super()._encode_label(y)
        K = self.n_classes
        if K is not None and not (v == int(v) and 0 <= v < K):
            raise InputError(
                "a class label is out of range",
                expected=f"an int code in 0..{K - 1}",
                received=repr(y),
                fix="encode the classes as 0..n_classes-1",
            )
        return v

    def _grow_classes(self, n_classes: int) -> None:
        """Give the learner ``n_classes`` classes, keeping what it learned.

        Works on the state protocol only: a fresh state of the old and of the
        new number of classes (same capacity) shows which fields have a class
        axis (their shape differs: the old values go in the leading block, the
        new class starts from the fresh values, zero weights) and which
        entries hold the number of classes (they differ between the two fresh
        states: the new value is taken); every other entry keeps what was
        learned.
        """
        state = getattr(self, "_state", None)
        if state is None:
            self.n_classes = n_classes
            return
        fresh = []
        for k in (self.n_classes, n_classes):
            model = self.clone(n_classes=k)
            model._reset()
            model._ensure_capacity(self._capacity)
            fresh.append(model._state)
        fields = {}
        for name in state._fields:
            value = getattr(state, name)
            old, a, b = (
                np.asarray(v) for v in (value, getattr(fresh[0], name), getattr(fresh[1], name))
            )
            if b.shape == old.shape:
                new = np.where(a != b, b, old).astype(old.dtype)
            else:
                new = b.copy()
                new[tuple(slice(0, n) for n in old.shape)] = old
            fields[name] = new if isinstance(value, np.ndarray) or new.ndim else new.item()
        self.n_classes = n_classes
        self._state = type(state)(**fields)

    def _effective_weights(self) -> np.ndarray:
        """The weights as a (features, classes) array."""
        if getattr(self, "_state", None) is None:
            return np.zeros((0, self.n_classes or 0))
        return super()._effective_weights()

    @property
    def intercept_(self) -> np.ndarray:  # type: ignore[override]
        """The bias of each class (zeros without ``fit_intercept`` or before any learning)."""
        if not self.fit_intercept or getattr(self, "_state", None) is None:
            return np.zeros(self.n_classes or 0)
        return np.array(self._state.intercept)

    @property
    def budget_limit_(self) -> int:
        """The number of features the truncation allows at the current dimension."""
        d = 0 if getattr(self, "_state", None) is None else int(self._state.dim)
        return budget_limit("largest", self.budget, d, False)


LEARNERS = {
    "stsd-multiclass": STSDMulticlass,
    "pa-multiclass": partial(STSDMulticlass, budget=1.0, radius=float("inf")),
}
