"""Online scaling in front of any online learner: running z-scores or running normal scores."""

from __future__ import annotations

import ast
import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from evofeat._core.scaling import (
    PREFIX,
    QuantileCore,
    QuantileSketchCore,
    ZScoreCore,
    scaled_core,
)
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.base.state import StateSpec

__all__ = ["METHODS", "OnlineScaled", "learner_from_spec", "learner_spec"]

#: the transforms by name: their compiled cores
METHODS: dict[str, Any] = {
    "zscore": ZScoreCore,
    "quantile": QuantileCore,
    "quantile-sketch": QuantileSketchCore,
}
#: each transform's own per-feature state fields (grown with the features)
_OWN_PER_FEATURE = {
    "zscore": ("count", "mean", "m2"),
    "quantile": ("seen", "recent"),
    "quantile-sketch": ("seen", "sample"),
}


#: a learner of each spec seen, cloned on every call (the registry's checks run once per spec)
_FROM_SPEC: dict[str, OnlineLearner] = {}


def learner_from_spec(spec: str) -> OnlineLearner:
    """The online learner a spec names: a registry name, optionally with keyword parameters.

    >>> learner_from_spec("ftrl(alpha=0.3, l1=0.0)")
    FTRL(alpha=0.3, beta=1.0, l1=0.0, l2=1.0, loss='logistic')
    >>> learner_from_spec("ftrl(0.3)")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: 'ftrl(0.3)' is not a learner spec: expected an online learner's registry name, optionally with keyword parameters, e.g. 'ftrl' or 'adagrad(lr=0.1)', received ftrl(0.3); fix: name each parameter (alpha=0.3)
    """
    made = _FROM_SPEC.get(spec) if isinstance(spec, str) else None
    if made is not None:
        made = made.clone()
        made._reset()
        return made
    from evofeat.registry import make

    bad = InputError(
        f"{spec!r} is not a learner spec",
        expected="an online learner's registry name, optionally with keyword parameters, "
        "e.g. 'ftrl' or 'adagrad(lr=0.1)'",
        received=str(spec),
        fix="name each parameter (alpha=0.3)",
    )
    if not isinstance(spec, str):
        raise bad
    name, paren, rest = spec.strip().partition("(")
    params: dict[str, Any] = {}
    if paren:
        try:
            call = ast.parse(f"f({rest}", mode="eval").body
        except SyntaxError:
            raise bad from None
        if not isinstance(call, ast.Call) or call.args:
            raise bad
        try:
            params = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        except ValueError:
            raise bad from None
        if len(params) != len(call.keywords):
            raise bad
    learner = make(name.strip(), **params)
    if not isinstance(learner, OnlineLearner):
        raise InputError(
            f"{name.strip()} is not an online learner",
            expected="an online learner (the prequential loop's), e.g. ftrl, adagrad, pa-i",
            received=type(learner).__name__,
            fix="scale in front of an online learner",
        )
    _FROM_SPEC[spec] = learner.clone()
    return learner


def learner_spec(learner: OnlineLearner) -> str:
    """The spec of ``learner``: its registry name and the parameters that differ from that name's.

    >>> from evofeat.linear.pa import PA
    >>> learner_spec(PA(mode="pa-ii", C=0.5))
    'pa-ii(C=0.5)'
    >>> learner_spec(OnlineScaled(PA(), method="quantile"))
    'online-quantile+pa-i'
    """
    from evofeat.registry import SCALED, all_names, make, parameters

    prefix = next((k for k, v in SCALED.items() if v == getattr(learner, "method", None)), None)
    if isinstance(learner, OnlineScaled) and learner.window == 100 and prefix is not None:
        return f"{prefix}+{learner.get_params()['learner']}"  # a name's default window
    mine = learner.get_params()
    for name in all_names("online"):
        made = make(name)
        if type(made) is not type(learner):
            continue
        settable = parameters(name)
        theirs = made.get_params()
        if any(mine[k] != theirs[k] for k in mine if k not in settable):
            continue
        changed = [f"{k}={mine[k]!r}" for k in settable if mine[k] != theirs[k]]
        return f"{name}({', '.join(changed)})" if changed else name
    raise InputError(
        f"{type(learner).__name__} is not a registered online learner",
        expected="a learner that evofeat.registry.make builds (see `evofeat learners`)",
        received=repr(learner),
        fix="pass the learner's registry name, e.g. 'ftrl'",
    )


class OnlineScaled(OnlineLearner):
    """Online per-feature scaling in front of an online learner, learned from the rows seen so far.

    Each feature is scaled with statistics of its own values in the rows
    before the current one, and nothing else: no look-ahead, so it can run
    on a stream (unlike whole-file z-scoring, ``preprocess="zscore"``, which
    uses every row's values). An absent feature (a missing key; NaN in an
    array) is not in the row: it is neither scaled nor counted, and stays
    absent for the learner. A present ``0.0`` is a value. A feature seen for
    the first time mid-stream starts with empty statistics.

    Sparse input: a SciPy sparse batch (``learn_many``, ``predict_many``)
    holds every column, an unstored entry being the value 0, so it is
    densified (in blocks of rows) and its zeros are scaled and counted as
    values. A sparse :class:`~evofeat.streams.Stream` given to
    :func:`~evofeat.evaluate.prequential` reaches the scaler as its stored
    entries only (the rows stay sparse; an unstored entry is then neither
    scaled nor counted, as a missing key): store the zeros, or pass a dense
    stream, to have them scaled.

    Prequential order, on both paths (the compiled loop and
    ``learn_one`` / ``predict_one``): the row is scaled with the statistics
    of the rows before it and predicted; the learner learns on that same
    scaled row (its gradient is the one of the prediction it made); then the
    statistics take the row's raw values. ``predict_one(x)`` scales with the
    statistics as they are, so it gives what ``learn_one(x, y)`` predicts.

    Transforms (``method``):

    ``"zscore"``
        ``(x - mean) / sd`` with the running mean and population standard
        deviation (``ddof=0``, as River's and scikit-learn's
        ``StandardScaler``), by Welford's update; 0 while the feature's
        ``sd`` is 0 (no value, or one distinct value, seen yet). O(1) time
        and three floats of memory per present feature.
    ``"quantile"``
        The normal score of the value's rank among the feature's last
        ``window`` values, the marginal step of OVFM's Gaussian copula (He
        et al. 2021, whose ``window_size`` is 100): ``Phi^-1(q)`` with the
        mid-rank ``q = (b + e / 2 + 1 / 2) / (n + 1)``, where ``b`` and ``e``
        count the kept values below and equal to ``x`` and ``n = min(seen,
        window)``. Ties share their mid-rank; the first value scores 0;
        ``q`` stays in ``[1 / (2n + 2), 1 - 1 / (2n + 2)]``, so the scores are
        finite (at most about 2.6 in size for ``window=100``). OVFM uses ``q = n
        / (n + 1) F_n(x)``, which is 0 (a score of minus infinity) below the
        window; the mid-rank is the symmetric version. ``window`` floats of
        memory per feature (bounded: not every value is kept), and as much
        again of scratch (the window kept sorted beside it); O(log
        ``window``) time per score and at most a ``memmove`` of ``window``
        values per update.
    ``"quantile-sketch"``
        The same mid-rank's normal score, against a **uniform sample of all
        the values seen so far** instead of the last ones: a quantile sketch
        of the feature's whole history in bounded memory. The sample, of at
        most ``k = window`` values kept in increasing order, is a reservoir
        (Vitter's algorithm R): the ``n``-th value (counting from 0) is kept
        when a draw ``j`` uniform on ``0..n`` is below ``k`` (always while
        fewer than ``k`` are kept), in place of the ``j``-th smallest kept
        value. The draw is a hash (SplitMix64) of ``n`` alone, not of the
        values nor of the feature's name or number, so a run repeats exactly
        on both paths and, for a stream not chosen after the draws, each
        feature's sample is a uniform sample without replacement of its
        ``n`` values seen (the features' samples are not independent of each
        other: they keep the same positions of their own streams). ``k`` floats and a count of
        memory per feature; O(log ``k``) time per score (two binary
        searches), O(1) amortised per update (a replacement, a ``memmove`` of
        at most ``k`` values, happens at the ``n``-th value with probability
        ``k / (n + 1)``: O(``k^2 ln(n / k)``) in all over ``n`` values).

        **Rank error** (stated, and tested on known distributions): with ``m
        = min(n, k)`` values kept, the share ``b / m`` of them below a value
        ``x`` is hypergeometric around the share ``B / n`` of all ``n`` values
        seen below ``x``; by Hoeffding's inequality (which holds for sampling
        without replacement, Hoeffding 1963, Section 6), for each ``x``,
        ``|b / m - B / n| <= eps = sqrt(ln(2 / delta) / (2 m))`` with
        probability at least ``1 - delta``; and the mid-rank ``q`` is then
        within ``eps + 1 / (m + 1)`` of ``x``'s mid-rank among all the values
        seen (no ties). For ``k = 100``: ``eps = 0.136`` at ``delta = 0.05``
        (``0.163`` at ``0.01``); ``k = 1000``: ``0.043`` (``0.051``). Exact
        (``eps = 0``) while ``n <= k``, where it equals ``"quantile"``. Unlike
        the window, it summarises the whole history: on a drifting stream it
        follows the drift only as the sample renews (slower and slower).

    The quantile transform's error: its scores are exact ranks within the
    window, so against the ranks in the whole history seen so far its error
    is that of a sample of ``window`` values. On a stationary stream the
    window is an i.i.d. sample of the feature's distribution ``F``; by the
    Dvoretzky-Kiefer-Wolfowitz inequality its empirical CDF is within
    ``eps = sqrt(ln(2 / delta) / (2 window))`` of ``F`` everywhere with
    probability ``1 - delta`` (``eps = 0.136`` for ``window=100``, 0.043
    for 1000, at ``delta = 0.05``), and ``q`` is within ``eps + 1 / (n +
    1)`` of ``F(x)``. On a drifting stream the window follows the drift
    (OVFM's reason for it) and is not a summary of the older values. Either
    way, for continuous i.i.d. values the rank of each new value among the
    ``n`` before it is uniform on ``0..n``, so the scores are normal up to the
    discreteness of ``q`` (a Kolmogorov-Smirnov distance to N(0, 1) of at
    most ``1 / (2n + 2)``) whatever ``window`` is.

    Parameters
    ----------
    learner
        The online learner fed the scaled rows: a registry spec
        (``"ftrl"``, ``"adagrad(lr=0.1)"``) or a learner, given as its spec
        by :meth:`get_params` when it is registered (:func:`learner_spec`);
        its learned state, if any, is not used: this wrapper starts a clone
        afresh.
    method
        ``"zscore"``, ``"quantile"`` or ``"quantile-sketch"``.
    window
        The values kept per feature by ``"quantile"`` (the last ones) and by
        ``"quantile-sketch"`` (its sample size ``k``); unused by ``"zscore"``.

    Attributes
    ----------
    coef_
        The learner's weights, by feature name: weights of the scaled values.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german")  # raw values, no whole-file scaling
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=1)
    >>> raw = prequential(learner_from_spec("ftrl"), stream).accuracy
    >>> scaled = prequential(OnlineScaled("ftrl", method="zscore"), stream).accuracy
    >>> quantile = prequential(OnlineScaled("ftrl", method="quantile"), stream).accuracy
    >>> print(f"{raw:.3f} {scaled:.3f} {quantile:.3f}")
    0.678 0.707 0.712
    >>> model = OnlineScaled("ftrl").learn_one({"a": 1.0, "b": 10.0}, 1)
    >>> model = model.learn_one({"a": 3.0}, -1)  # b absent: its statistics stay
    >>> model.statistics()
    {'a': {'count': 2.0, 'mean': 2.0, 'sd': 1.0}, 'b': {'count': 1.0, 'mean': 10.0, 'sd': 0.0}}
    """

    _zeros_matter = True  # a sparse batch's unstored zeros are values: scaled and counted

    def __init__(
        self, learner: str | OnlineLearner = "ftrl", method: str = "zscore", window: int = 100
    ) -> None:
        self.learner = learner
        self.method = method
        self.window = window

    # ------------------------------------------------------------------ parameters
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters, the learner as its spec (so model files can hold it; a
        learner that is not registered stays an object: it is copied, but not saved)."""
        spec = self.learner
        if not isinstance(spec, str):
            try:
                spec = learner_spec(spec)
            except InputError:
                pass
        return {"learner": spec, "method": self.method, "window": self.window}

    def _check_params(self) -> None:
        if self.method not in METHODS:
            raise InputError(
                "unknown scaling method",
                expected=" or ".join(repr(k) for k in METHODS),
                received=repr(self.method),
                fix="pass method='zscore' (running mean and sd), 'quantile' (normal scores in a "
                "window) or 'quantile-sketch' (normal scores against a sample of all values)",
            )
        w = self.window
        if not (isinstance(w, int | np.integer) and not isinstance(w, bool) and 1 <= w <= 1 << 20):
            raise InputError(
                "window must be a count of values",
                expected="an int between 1 and 2^20",
                received=repr(w),
                fix="pass window=100 (OVFM's window_size)",
            )
        self._inner()._check_params()

    def _inner(self) -> OnlineLearner:
        """The wrapped learner (a fresh one, built once per reset), pointed at the current state."""
        inner: OnlineLearner | None = self.__dict__.get("_inner_learner")
        if inner is None:
            if isinstance(self.learner, OnlineLearner):
                inner = self.learner.clone()
            else:
                inner = learner_from_spec(self.learner)
            inner._reset()
            self._inner_learner = inner
        state = self.__dict__.get("_state")
        inner._state = None if state is None else state.inner
        if "feature_index_" in self.__dict__:
            inner.feature_index_ = self.feature_index_
            inner._capacity = self._capacity
            inner.n_learned_ = self.n_learned_
        return inner

    def _reset(self) -> None:
        self.__dict__.pop("_inner_learner", None)
        super()._reset()

    @property
    def task(self) -> str:  # type: ignore[override]
        """The wrapped learner's task."""
        inner = self.__dict__.get("_inner_learner")  # read on every row by the dict path
        return (inner if inner is not None else self._inner()).task

    @property
    def n_classes(self) -> int | None:
        """The learner's number of classes (a multiclass learner's; 0 for the others)."""
        return getattr(self._inner(), "n_classes", 0)  # type: ignore[no-any-return]

    @n_classes.setter
    def n_classes(self, value: int | None) -> None:
        """Set the learner's ``n_classes`` (in its spec, so copies and model files keep it)."""
        inner = self._inner().clone(n_classes=value)
        self.learner = learner_spec(inner)
        self.__dict__.pop("_inner_learner", None)

    @property
    def per_feature(self) -> tuple[str, ...]:  # type: ignore[override]
        """The scaler's per-feature fields and the learner's, prefixed ``learner__``."""
        own = _OWN_PER_FEATURE.get(self.method, ())
        return own + tuple(PREFIX + f for f in self._inner().per_feature)

    @property
    def _state_spec(self) -> StateSpec:
        """What a model file must satisfy (evofeat.io): the learner's declaration on its
        ``learner__`` fields, the scaler's counts and window."""
        inner = getattr(self._inner(), "_state_spec", None)
        own = StateSpec(fixed=("window",), nonnegative=("count", "m2", "seen"))
        return own.merged(inner.prefixed(PREFIX)) if isinstance(inner, StateSpec) else own

    def _make_state(self, capacity: int) -> Any:
        inner = self._inner()._make_state(capacity)
        own: dict[str, Any]
        if self.method == "zscore":
            own = {
                "count": np.zeros(capacity),
                "mean": np.zeros(capacity),
                "m2": np.zeros(capacity),
            }
        else:
            kept = "recent" if self.method == "quantile" else "sample"
            own = {
                "window": int(self.window),
                "seen": np.zeros(capacity, dtype=np.int64),
                kept: np.zeros((capacity, int(self.window))),
            }
        return scaled_core(METHODS[self.method], inner, **own)

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name.startswith(PREFIX):
            self._inner()._init_grown(name[len(PREFIX) :], grown, start)

    # ------------------------------------------------------------------ labels and weights: the learner's
    def _encode_label(self, y: Any) -> float:
        return self._inner()._encode_label(y)

    def _decode_labels(self, labels: np.ndarray) -> np.ndarray:
        return self._inner()._decode_labels(labels)

    def _effective_weights(self) -> np.ndarray:
        return self._inner()._effective_weights()

    def _divergence_scale(self) -> str | None:
        scale = self._inner()._divergence_scale()
        return None if scale is None else PREFIX + scale

    def _divergence_top(self) -> float:
        return self._inner()._divergence_top()

    @property
    def intercept_(self) -> float:
        """The learner's bias (on the scaled values)."""
        return float(getattr(self._inner(), "intercept_", 0.0))

    def statistics(self) -> dict[Hashable, dict[str, float]]:
        """The scaler's statistics of each feature seen so far, by name.

        ``"zscore"``: ``count``, ``mean``, ``sd`` (population). ``"quantile"``
        and ``"quantile-sketch"``: ``seen`` and the kept values' ``median``.

        >>> m = OnlineScaled("ftrl").learn_one({"a": 1.0}, 1).learn_one({"a": 3.0}, -1)
        >>> m.statistics()
        {'a': {'count': 2.0, 'mean': 2.0, 'sd': 1.0}}
        """
        state: Any = getattr(self, "_state", None)
        names = self.feature_index_.names if state is not None else []
        out: dict[Hashable, dict[str, float]] = {}
        for j, name in enumerate(names):
            if self.method == "zscore":
                c = float(state.count[j])
                sd = math.sqrt(state.m2[j] / c) if c > 0 else 0.0
                out[name] = {"count": c, "mean": float(state.mean[j]), "sd": sd}
            else:
                seen = int(state.seen[j])
                values = state.recent if self.method == "quantile" else state.sample
                kept = np.asarray(values[j])[: min(seen, int(state.window))]
                out[name] = {
                    "seen": float(seen),
                    "median": float(np.median(kept)) if kept.size else math.nan,
                }
        return out
