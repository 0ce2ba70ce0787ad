"""``auto``: the learner to start with, a fixed set of members mixed online with a bound against the best."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.errors import check_bool
from evofeat.base.intercept import InterceptMixin
from evofeat.base.state import StateSpec, spec_of
from evofeat.ensemble._auto import MEMBER_CORES, AutoCore, member_code
from evofeat.preprocessing import METHODS, OnlineScaled, learner_from_spec

__all__ = ["DEFAULT_MEMBERS", "Auto", "parse_member"]

#: The members of ``auto`` (binary classification), fixed before either benchmark ran: the winner
#: of benchmarks/investigations/auto_selection.py (12 candidates on hill-valley, madelon, ijcnn1,
#: covtype and arcene, none in the haphazard review or the leaderboard; its report:
#: docs/reports/investigations/auto_selection.md, which spells them nag, zscore:ftrl, zscore:nag,
#: quantile:ftrl, quantile:nag: the same learners). Not to be changed per data set.
DEFAULT_MEMBERS: tuple[str, ...] = (
    "nag",
    "online-zscore+ftrl",
    "online-zscore+nag",
    "online-quantile+ftrl",
    "online-quantile+nag",
)
#: The rule's share (see :class:`Auto`), fixed by the same selection (the winner has none).
DEFAULT_SHARE = False


#: a member of each spec seen, cloned on every call (parsed and checked once per spec)
_PARSED: dict[str, OnlineLearner] = {}


def parse_member(spec: str) -> OnlineLearner:
    """The learner a member spec names: a learner spec (a registry name, optionally with keyword
    parameters, see :func:`~evofeat.preprocessing.learner_from_spec`), optionally behind an
    online scaling (``"zscore:ftrl"``, ``"quantile:adagrad(lr=0.1)"``; the registry's own
    names ``"online-zscore+ftrl"`` are the same learners).

    >>> parse_member("quantile:ftrl(alpha=0.3)")
    OnlineScaled(learner='ftrl(alpha=0.3)', method='quantile', window=100)
    >>> parse_member("ofs")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: member 'ofs' cannot be a member of auto: expected an online learner for labels -1/+1 whose compiled core is one of FTRLCore, AdaGradCore, NAGCore, PACore, PerceptronCore, OGDCore, STSDCore (e.g. ftrl, adagrad, nag, pa-i), received OFS (binary); fix: pick binary online learners as members
    """
    made = _PARSED.get(spec) if isinstance(spec, str) else None
    if made is not None:
        made = made.clone()
        made._reset()
        return made
    if not isinstance(spec, str):
        raise InputError(
            "a member of auto is a learner spec",
            expected="a string such as 'zscore:ftrl' or 'adagrad(lr=0.1)'",
            received=repr(spec),
            fix="pass members as a tuple of strings",
        )
    method, colon, rest = spec.partition(":") if ":" in spec.partition("(")[0] else ("", "", spec)
    learner = learner_from_spec(rest)
    if colon:
        if method.strip() not in METHODS:
            raise InputError(
                f"member {spec!r} names an unknown online scaling",
                expected="<scaling>:<learner> with <scaling> one of " + ", ".join(METHODS),
                received=repr(method),
                fix="write the member as 'ftrl' or 'zscore:ftrl'",
            )
        learner = OnlineScaled(learner, method=method.strip())
    compiled = member_code(type(learner._make_state(8))) != (-1, -1)
    if not compiled or learner.task != "binary":
        raise InputError(
            f"member {spec!r} cannot be a member of auto",
            expected="an online learner for labels -1/+1 whose compiled core is one of "
            + ", ".join(c.partition(":")[2] for c in MEMBER_CORES)
            + " (e.g. ftrl, adagrad, nag, pa-i)",
            received=f"{type(learner).__name__} ({learner.task})",
            fix="pick binary online learners as members",
        )
    _PARSED[spec] = learner.clone()
    learner._reset()
    return learner


class Auto(OnlineLearner):
    """The learner to start with: a fixed set of members, run in one compiled pass and mixed online.

    Every member predicts and learns on every row (each as it would alone);
    the prediction is the **Bayesian mixture** of the members' class
    probabilities ``p_i = sigmoid(s_i)`` (``s_i`` member ``i``'s score),
    weighted by exponential weights on each member's cumulative log loss
    ``L_i = sum_t ln(1 + exp(-y_t s_{t,i}))``: the aggregating algorithm for
    the log loss with learning rate 1 (Vovk 1990; Cesa-Bianchi and Lugosi
    2006, Section 3.6 and 9.2), which needs no learning rate to tune:

        P(+1) = sum_i w_i sigmoid(s_i),    w_i proportional to exp(-L_i).

    The score is ``ln P(+1) - ln P(-1)`` (so ``predict_proba_one`` is
    ``P``), the label its sign. **Guarantee**: the log loss is exp-concave
    with rate 1, so on any stream, whatever the members do, the mixture's
    cumulative log loss is at most ``min_i L_i + ln K`` (``K`` members;
    with the posterior written as above the two sides differ by
    ``-ln sum_i exp(L* - L_i) / K >= 0``). With ``share=True`` a decreasing
    share ``alpha_t = 1 / (t + 1)`` of the uniform weight is mixed in after
    row ``t`` (fixed share, Herbster and Warmuth 1998, with a decreasing
    rate), which lets the weight move when the best member changes (a new
    stage of features) at a cost of ``ln(T + 1)`` more in the bound:
    ``min_i L_i + ln K + ln(T + 1)`` after ``T`` rows.

    The bound is on the log loss, not on the mistakes; it is what a member
    that is always wrong cannot escape (its weight falls as
    ``exp(-L_i)``). Accuracy follows in practice: see the selection
    report below.

    Members are chosen once for every stream (see ``DEFAULT_MEMBERS`` and
    ``docs/reports/investigations/auto_selection.md``), never per data set:
    linear learners with a bias and adaptive or normalised steps: NAG on the
    raw values (scale-invariant by design), and FTRL and NAG behind online
    z-scores (``online-zscore+``) and behind running normal scores
    (``online-quantile+``, the copula's marginal step), each learned from the rows seen so far
    (:class:`~evofeat.preprocessing.OnlineScaled`). Absent features are
    absent for every member (none is imputed).

    Binary classification only (labels -1/+1): a regression or multiclass
    label is refused with :class:`~evofeat.base.InputError`.

    Parameters
    ----------
    members
        The member learners as registry specs (``"ftrl"``,
        ``"adagrad(lr=0.1)"``), each a binary online learner; ``None``: the
        fixed default set.
    share
        Mix the decreasing share of the uniform weight in after each row
        (see above).
    fit_intercept
        ``None`` (default): each member keeps its own bias setting (the
        default members, FTRL and NAG, learn one); ``True`` or ``False``:
        set for every member (overriding a member spec's own), each member
        stepping its bias by its own rule. The mixture itself adds no bias.

    Attributes
    ----------
    weights_
        Each member's weight, by spec.
    members_
        The members, as learners sharing the mixture's state (read only).
    coef_
        The members' weights averaged with their mixture weights (a
        summary: the mixture's score is not linear in ``x``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="zscore")
    >>> model = Auto()
    >>> round(prequential(model, trapezoidal(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.741
    >>> round(sum(model.weights_.values()), 9)  # each member's weight, by spec
    1.0
    >>> model.predict_proba_one({"f0": 1.0})[1] > 0.0
    True

    References
    ----------
    Vovk. Aggregating strategies. COLT 1990. Cesa-Bianchi, Lugosi.
    Prediction, Learning, and Games, Cambridge 2006 (Section 3.6: exp-concave
    losses, the mixture's loss at most ``min_i L_i + ln(K) / eta`` with
    ``eta = 1`` for the log loss; Section 5.2: fixed share). Herbster,
    Warmuth. Tracking the best expert. Machine Learning 32, 1998.
    """

    per_feature: tuple[str, ...] = ()  # type: ignore[misc]  # set per instance from the members

    #: Sparse batches: an unstored entry is a present 0.0 (the scaled members count it).
    _zeros_matter = True

    #: The repr leaves ``fit_intercept`` out at its default, as the linear learners' do.
    __repr__ = InterceptMixin.__repr__

    def __init__(
        self,
        members: tuple[str, ...] | None = None,
        share: bool = DEFAULT_SHARE,
        fit_intercept: bool | None = None,
    ) -> None:
        self.members = members
        self.share = share
        self.fit_intercept = fit_intercept

    def _check_params(self) -> None:
        check_bool(self.share, "share", "True or False", "pass share=False")
        specs = self._specs()
        if not isinstance(specs, tuple | list) or not specs:
            raise InputError(
                "auto needs at least one member",
                expected="a non-empty tuple of learner specs, or None (the default set)",
                received=repr(self.members),
                fix="pass members=None",
            )
        if self.fit_intercept is not None:
            check_bool(
                self.fit_intercept,
                "fit_intercept",
                "True, False or None (each member's own)",
                "pass fit_intercept=None",
            )
        self._members = [self._with_bias(parse_member(s)) for s in specs]  # each fresh (reset)
        self.per_feature = tuple(  # type: ignore[misc]
            f"m{i}_{f}" for i, m in enumerate(self._members) for f in m.per_feature
        )

    def _with_bias(self, member: OnlineLearner) -> OnlineLearner:
        """``member`` (fresh) with ``fit_intercept`` set as the mixture's says (``None``: as it is)."""
        if self.fit_intercept is None:
            return member
        if isinstance(member, OnlineScaled):  # the bias is the scaled learner's
            member.learner = member._inner().clone(fit_intercept=self.fit_intercept)
        else:
            member = member.clone(fit_intercept=self.fit_intercept)
        member._reset()
        return member

    def _specs(self) -> tuple[str, ...]:
        return DEFAULT_MEMBERS if self.members is None else tuple(self.members)

    def _make_state(self, capacity: int) -> AutoCore:
        fields: dict[str, Any] = {}
        kinds = []
        for i, m in enumerate(self._members):
            core = m._make_state(capacity)
            kinds.append(member_code(type(core)))
            fields.update({f"m{i}_{f}": v for f, v in core._asdict().items()})
        K = len(kinds)
        return AutoCore(
            kinds=np.array(kinds, dtype=np.int64).reshape(K, 2),
            log_weight=np.full(K, -math.log(K)),
            member_loss=np.zeros(K),
            loss=0.0,
            t=0,
            share=int(self.share),
            **fields,
        )

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        head, _, field = name.partition("_")
        self._members[int(head[1:])]._init_grown(field, grown, start)

    def _members_consistent(self) -> str:
        """What is inconsistent in a loaded state ("" if nothing): the weights must sum to 1, and
        each member's fixed fields (its class's ``_state_spec``) equal a fresh member's."""
        state = self._state
        w = np.exp(np.asarray(state.log_weight))
        if not (np.all(np.asarray(state.log_weight) <= 0.0) and abs(w.sum() - 1.0) < 1e-9):
            return f"the members' weights {w.tolist()} do not sum to 1"
        fresh = self._make_state(self._capacity)
        for i, (m, core) in enumerate(zip(self._members, state.members, strict=True)):
            spec = spec_of(type(m))
            for f in spec.fixed if spec is not None else ():
                got, want = np.asarray(getattr(core, f)), np.asarray(getattr(fresh.members[i], f))
                if not np.array_equal(got, want):
                    return f"member {i}'s {f} is {got!r}, its parameters set {want!r}"
        return ""

    # ------------------------------------------------------------------ learned state
    @property
    def _state_spec(self) -> StateSpec:
        """What a model file must satisfy (evofeat.io): each member's declaration on its
        ``m{i}_`` fields, the mixture's own fields, losses and count, and (``_members_consistent``)
        weights that sum to 1 and members whose fixed fields match their parameters."""
        own = StateSpec(
            fixed=("kinds", "share"),
            nonnegative=("member_loss", "loss", "t"),
            consistent=lambda learner: learner._members_consistent(),
        )
        specs = [getattr(m, "_state_spec", None) for m in self._members]
        return own.merged(
            *(s.prefixed(f"m{i}_") for i, s in enumerate(specs) if isinstance(s, StateSpec))
        )

    @property
    def members_(self) -> list[OnlineLearner]:
        """The members, each a learner over its part of the state (empty before any learning)."""
        state = getattr(self, "_state", None)
        if state is None:
            return []
        made = self.__dict__.get("_views")
        if made is None or made[0] is not state:  # built once per state (a new one on growth)
            made = (state, [m.clone() for m in self._members])
            self._views = made
        views: list[OnlineLearner] = made[1]
        for view, core in zip(views, state.members, strict=True):
            view.feature_index_ = self.feature_index_
            view._state = core
            view._capacity = self._capacity
            view.n_learned_ = self.n_learned_
        return list(views)

    @property
    def weights_(self) -> dict[str, float]:
        """Each member's mixture weight, by spec (uniform before any learning)."""
        specs = self._specs()
        state = getattr(self, "_state", None)
        if state is None:
            return dict.fromkeys(specs, 1.0 / len(specs))
        w = np.exp(np.asarray(state.log_weight))
        return dict(zip(specs, (w / w.sum()).tolist(), strict=True))

    def _effective_weights(self) -> np.ndarray:
        views = self.members_
        if not views:
            return np.zeros(0)
        w = np.exp(np.asarray(self._state.log_weight))
        w = w / w.sum()
        return np.asarray(sum(wi * v._effective_weights() for wi, v in zip(w, views, strict=True)))

    def _divergence_top(self) -> float:
        """The members' largest, each member's parameters pointed at its part of the state for the
        call (no views built: the check runs after every ``prequential``)."""
        state = getattr(self, "_state", None)
        if state is None:
            return 0.0
        tops = []
        for m, core in zip(self._members, state.members, strict=True):
            kept = (m.feature_index_, m._state, m._capacity)
            m.feature_index_, m._state, m._capacity = self.feature_index_, core, self._capacity
            try:
                tops.append(m._divergence_top())
            finally:
                m.feature_index_, m._state, m._capacity = kept
        return max(tops, default=0.0)

    @property
    def coef_(self) -> dict[Hashable, float]:
        """The members' weights averaged with their mixture weights, by feature name."""
        return super().coef_


LEARNERS = {"auto": Auto}
