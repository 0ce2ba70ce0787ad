"""FESL-c and FESL-s (Hou, Zhang, Zhou, 2017) and their baselines NOGD, ROGD-u, ROGD-f."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from evofeat.base import InputError, OnlineLearner
from evofeat.base.errors import check_choice, check_number
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.state import StateSpec
from evofeat.ensemble._fesl import FESLCore
from evofeat.linear.ftrl import check_regularization
from evofeat.linear.ogd import LOSSES, LossTask, check_common

__all__ = ["BASES", "FESL", "LEARNERS", "METHODS"]

#: method name -> code inside the compiled core.
METHODS = {"nogd": 0, "rogd-u": 1, "rogd-f": 2, "fesl-c": 3, "fesl-s": 4}
_CLOCKS = {"global": 0, "switch": 1}
#: base -> code inside the compiled core: the step of the model learned on the current space.
BASES = {"ogd": 0, "adagrad": 1, "ftrl": 2, "nag": 3}


@dataclass(eq=False, repr=False)
class FESL(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """Feature Evolvable Streaming Learning: FESL-c, FESL-s and the baselines NOGD, ROGD-u, ROGD-f.

    Old features vanish and new ones appear, with a short overlap in which a
    row shows both. Until the old space vanishes, a model ``w1`` is learned
    by online gradient descent (OGD, step ``lr / sqrt(t)``) on it, and the
    first ``overlap`` overlap rows are kept. When it vanishes (the *switch*),
    the least-squares map ``psi`` from the new space to the old one is fitted
    on those rows (:mod:`evofeat.ensemble.mapping`, Algorithm 1) and two
    models predict each later row: ``f1 = w1 . psi(x2)`` (``w1`` still
    updated by OGD on the recovered row, Eq. 4) and ``f2 = w2 . x2`` (OGD
    from zero, Eq. 1). The methods differ in what they predict:

    - ``"fesl-c"``: ``a1 f1 + a2 f2`` with ``a_i ~ exp(-eta L_i)``, ``L_i``
      the cumulative loss of model i since the switch and
      ``eta = sqrt(8 ln 2 / T2)`` (Eq. 2-3, Algorithm 2);
    - ``"fesl-s"``: the prediction of one model drawn with probability
      ``a_i`` (Eq. 7), the weights tracked by fixed share (Eq. 8):
      ``v_i = a_i exp(-eta l_i)``, ``a_i <- delta (v_1 + v_2) / (n - 1) +
      (1 - delta) v_i`` with ``n = 2`` models, ``delta = 1 / (T2 - 1)``,
      ``eta = sqrt(8/T2 (2 ln 2 + (T2 - 1) H(1/(T2 - 1))))``, ``H`` the
      binary entropy (Algorithm 3). Draws use a SplitMix64 generator seeded
      by ``seed`` and kept in the state, so clones replay the same draws;
    - ``"nogd"``: ``f2`` only (OGD restarted on the new space);
    - ``"rogd-u"``: ``f1`` only, ``w1`` updated on recovered rows;
    - ``"rogd-f"``: ``f1`` only, ``w1`` frozen at the switch.

    The losses are logistic (classification, labels -1/+1, prediction the
    sign of the score, 0 predicting -1) or square (regression); ``learn``
    returns the loss of the prediction made, the quantity of the paper's
    Figure 3. Nothing of size ``d2 x d1`` is ever formed: the old model
    enters only through ``(X2 X2^T)^+ X1 w1`` (``B`` numbers), so predicting
    a row costs ``O(B nnz)`` and learning from it ``O(B nnz + B^2)``.

    **How the stream drives it.** Features are assigned to spaces when first
    visible: those of the first row to S1, later new ones to the next space.
    A row whose visible features include both the current and the next space
    is an overlap row. The switch happens when a row shows features of the
    next space and none of the current one; the next space becomes current,
    the old one is retired (its features are ignored if they return) and
    features that appear later form the space after it. Each switch fits a
    new map from its own overlap rows (several cycles S1 -> S2 -> S3 ...);
    the old model of the new cycle is the learner's predictor on the space
    that vanishes (``a1 psi^T w1 + a2 w2``, with the weights of the moment).
    A row whose current-space values are all zero but which has values in
    the next space is predicted as after the switch (so the first row after
    a switch is predicted by the new ensemble, its weights at 1/2). On
    streams the paper does not consider: on a trapezoidal stream (features
    only added) the first space never vanishes and the learner stays OGD on
    it; on a haphazard stream (features visible at random) the first row
    fixes S1, the features first seen later form S2, and the switch comes
    with the first row that shows no S1 feature. Without overlap rows the map is
    zero and the recovered model predicts 0. On the dict path a missing key
    is an absent feature: feed sparse spaces with their zeros (as
    :meth:`Stream.to_dicts` does) or use the array path, or a row's unseen
    words would look like the start of a new space.

    **Extreme values** (rows of norm 1e300 or 1e-300; rules shared with
    :class:`~evofeat.linear.ogd.OGD`): the logistic loss and its slope are
    computed stably; a score or product that overflows is recomputed on
    operands rescaled by powers of two and saturated at +-1.8e308, never NaN
    (one that underflows keeps its sign); weights, the old model ``r`` and
    ``X_p w`` saturate at +-1.8e308, and a step that is not finite (the
    square loss of a saturated score) is skipped. An overlap row whose
    largest value lies outside ``[2^-100, 2^100]`` is stored rescaled by a
    power of two (both spaces together), which leaves the map unchanged when
    the overlap rows are linearly independent; if the Gram matrix, its
    pseudo-inverse or the map ``Kp X_old X_old^T Kp`` is still not finite,
    the map is dropped at the switch (the recovered model predicts 0, as
    without overlap rows) instead of raising ``LinAlgError``. The ensemble
    weights cannot underflow: FESL-c keeps cumulative losses (log-weights),
    shifted by their minimum when they pass 2^1000, and each loss entering
    them is capped at 2^1000; FESL-s's fixed share keeps each normalised
    weight at least ``delta / (1 + delta)``. Zero rows change nothing but the
    step counter ``t`` (and, with ``fit_intercept``, the biases).

    **The bias** (``fit_intercept=True``; not the paper's, whose models have
    none). Each of the two linear models gets its own bias, the weight of a
    constant input 1 that every row has; it is not a feature and not part of
    the map. The model learned on the current space (``w1`` before the first
    switch, ``w2`` after each) scores ``w . x + b`` and steps ``b`` by its
    base's rule with the bias's own state: OGD ``b -= tau slope`` (the same
    ``tau``, ``clock`` included), AdaGrad its own accumulator (``lr``,
    ``eps``), FTRL its own ``z`` and ``n`` (``alpha = lr``, ``beta``, no L1
    or L2, as :class:`~evofeat.linear.ftrl.FTRL`'s bias), NAG an input of
    scale 1 (it adds 1 to ``N`` on every row; its own ``G``). The recovered
    model scores ``f1 = w1 . psi(x2) + b1`` and, as ``w1`` on the recovered
    rows (Eq. 4), steps ``b1 -= tau slope(f1)`` whatever the base (ROGD-f
    freezes it). At a switch the old model of the new cycle takes the bias of
    the learner's predictor on the vanishing space, ``a1 b1 + a2 b2`` (with
    ``a1 psi^T w1 + a2 w2``), and the new model's bias and its state restart
    at 0. With ``fit_intercept=False`` (the default) nothing of this runs and
    the results are the paper's rule, unchanged.

    Parameters
    ----------
    method
        ``"fesl-c"``, ``"fesl-s"``, ``"nogd"``, ``"rogd-u"`` or ``"rogd-f"``.
    lr
        Step-size scale: ``tau_t = lr / sqrt(t)``, the paper's ``1 / (c sqrt(t))``
        with ``lr = 1/c`` (the paper searched ``c`` in {1, 10, 50, 100, 150}).
    loss
        ``"logistic"`` (binary classification) or ``"square"`` (regression);
        :attr:`task` follows from it.
    overlap
        ``B``, a count: the overlap rows kept to fit each map (the first
        ``overlap`` rows of each overlap; later overlap rows still train
        ``w1``). Memory is ``2 overlap + 2`` numbers per feature.
    horizon
        ``T2``, the number of rows after each switch, which sets ``eta`` (and
        ``delta``). ``None`` (T2 unknown) uses a running count: at the t-th
        row after the switch ``T2`` is replaced by ``t`` in FESL-c's ``eta``
        (computed from the cumulative losses, so the weights stay the
        exponential weights of the losses so far) and by ``t + 1`` in
        FESL-s's ``eta`` and ``delta = 1/t``.
    ridge
        ``0``: the map uses the pseudo-inverse of ``X2 X2^T`` (minimum-norm
        least squares, eigenvalues below ``B eps`` of the largest dropped);
        ``> 0``: ``(X2 X2^T + ridge I)^{-1}``.
    clock
        ``t`` of the step size: ``"global"`` (rows since the start, as the
        paper's Algorithms 2-3 write it) or ``"switch"`` (the new model's
        ``t`` restarts at each switch; the old model keeps the global count).
    seed
        Seed of FESL-s's draws (ignored by the other methods).
    base
        The step of the models learned on observed features (``w1`` before
        the first switch, ``w2`` after each): ``"ogd"`` (the paper's
        ``tau_t = lr / sqrt(t)``, the default); not in the paper, with
        per-feature state restarting from zero with the new model and
        ``clock`` not applying: ``"adagrad"`` (diagonal AdaGrad steps
        ``w_i -= lr g_i / sqrt(eps + G_i)``, ``G_i`` the feature's sum of
        squared gradients, as :class:`~evofeat.linear.adagrad.AdaGrad`) or
        ``"ftrl"`` (FTRL-Proximal with ``alpha = lr`` and ``beta``, ``l1``,
        ``l2``, as :class:`~evofeat.linear.ftrl.FTRL`; pass ``lr=0.1`` for
        FTRL's usual alpha) or ``"nag"`` (normalised adaptive gradient, as
        :class:`~evofeat.linear.nag.NAG` without its bias: per-feature scales
        ``s_i``, a weight rescaled when ``|x_i|`` exceeds ``s_i``, the step
        ``lr sqrt(t / N) g_i / (s_i sqrt(G_i))`` with ``t`` and ``N`` counted from
        the switch; pass ``lr=0.5`` for VW's rate). The old model's updates on recovered rows
        (Eq. 4) keep OGD's step whatever the base: the map stores that model
        as ``B`` numbers, and per-feature steps in the old space would take
        it out of their span.
    eps
        AdaGrad's initial accumulator (``base="adagrad"`` only).
    beta, l1, l2
        FTRL-Proximal's learning-rate offset and regularization
        (``base="ftrl"`` only; the defaults of :class:`~evofeat.linear.ftrl.FTRL`).
    fit_intercept
        ``False`` (the paper): no bias; ``True``: a bias for each of the two
        models (see *The bias* above; not the paper's).

    Attributes
    ----------
    coef_
        The weights of the model learned on the current space (``w2``;
        ``w1`` before the first switch), by feature name.
    n_switches_
        Switches so far.
    weights_
        ``(a1, a2)``: the weights of the old and the new model for the next row.
    intercept_
        The bias of the model learned on the current space (0.0 without
        ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.evaluate import run_once
    >>> r = run_once("fesl-c", "australian", "evolvable", params={"lr": 0.1},
    ...              preprocess="minmax", repeat=0)
    >>> r.n_scored, round(r.accuracy, 3)  # the rows after the switch
    (345, 0.725)
    >>> biased = FESL(base="adagrad", lr=0.1, fit_intercept=True)  # not the paper's: biases
    >>> r = run_once(biased, "australian", "evolvable", preprocess="minmax", repeat=0)
    >>> r.n_scored, round(r.accuracy, 3)
    (345, 0.8)

    References
    ----------
    Hou, Zhang, Zhou. Learning with Feature Evolvable Streams. NIPS 2017:
    Algorithm 1 (map), Eq. (1) and (4) (OGD on new and recovered rows),
    Eq. (2)-(3) and Algorithm 2 (FESL-c), Eq. (7)-(8) and Algorithm 3
    (FESL-s), Theorems 1-2 (``eta``, ``delta``). Cesa-Bianchi, Lugosi.
    Prediction, Learning, and Games, 2006 (Sec. 2.8 anytime weights, 5.2
    fixed share).
    """

    #: parameters that only some bases read: name -> (the parameter that decides, its values).
    #: ``evofeat learners`` lists such a parameter only where the defaults use it.
    param_applies = {
        "eps": ("base", ("adagrad",)),
        "beta": ("base", ("ftrl",)),
        "l1": ("base", ("ftrl",)),
        "l2": ("base", ("ftrl",)),
    }

    #: What a model file must satisfy (evofeat.io): the fields the parameters set, and the overlap
    #: rows within the buffers.
    _state_spec = StateSpec(
        fixed=(
            "method",
            "loss_kind",
            "lr",
            "horizon",
            "ridge",
            "clock",
            "base",
            "eps",
            "beta",
            "l1",
            "l2",
            "fit_intercept",
        ),
        counts=("dim",),
        at_most=(("n_a", "buf_a.shape[1]"), ("n_p", "buf_p.shape[1]")),
        nonnegative=("n_a", "n_p", "t", "t_p", "switches", "cur", "space"),
    )

    method: str = "fesl-c"
    lr: float = 1.0
    loss: str = "logistic"
    overlap: int = 10
    horizon: int | None = None
    ridge: float = 0.0
    clock: str = "global"
    seed: int = 0
    base: str = "ogd"
    eps: float = 1e-8
    beta: float = 1.0
    l1: float = 1.0
    l2: float = 1.0
    fit_intercept: bool = False

    per_feature = ("w", "space", "buf_a", "buf_p", "G", "z", "s")

    def _check_params(self) -> None:
        check_common(self)
        check_choice(self.method, METHODS, "FESL method", "pass method='fesl-c'")
        _check_int(self.overlap, 1, "overlap", "the overlap rows kept (B)", "pass overlap=10")
        if self.horizon is not None:
            _check_int(
                self.horizon, 2, "horizon", "T2, the rows after each switch", "pass horizon=None"
            )
        r = self.ridge
        if isinstance(r, bool) or not isinstance(r, int | float) or not (r >= 0 and np.isfinite(r)):
            raise InputError(
                "ridge must be >= 0",
                expected="a finite number >= 0",
                received=repr(r),
                fix="pass ridge=0.0 (pseudo-inverse)",
            )
        check_choice(self.clock, _CLOCKS, "clock", "pass clock='global'")
        _check_int(self.seed, 0, "seed", "a seed", "pass seed=0")
        check_choice(self.base, BASES, "FESL base step", "pass base='ogd' (the paper's)")
        check_intercept(self, None)
        check_number(self.eps, "eps", positive=True, fix="pass eps=1e-8")
        check_regularization(self)

    def _divergence_scale(self) -> str | None:
        """Over NAG the scales ``s`` (scale-free, as :class:`~evofeat.linear.nag.NAG`)."""
        return "s" if self.base == "nag" else None

    def _make_state(self, capacity: int) -> FESLCore:
        return FESLCore.empty(
            capacity,
            int(self.overlap),
            METHODS[self.method],
            LOSSES[self.loss],
            float(self.lr),
            float(self.horizon or 0),
            float(self.ridge),
            _CLOCKS[self.clock],
            int(self.seed) & 0xFFFFFFFFFFFFFFFF,
            BASES[self.base],
            float(self.eps),
            float(self.beta),
            float(self.l1),
            float(self.l2),
            int(self.fit_intercept),
        )

    @property
    def n_switches_(self) -> int:
        """Switches so far."""
        return 0 if getattr(self, "_state", None) is None else int(self._state.switches)

    @property
    def weights_(self) -> tuple[float, float]:
        """``(a1, a2)``: the weights of the old and the new model for the next row."""
        if getattr(self, "_state", None) is None:
            return (0.0, 1.0)
        a1, a2 = self._state.weights()
        return float(a1), float(a2)


def _check_int(value: Any, low: int, name: str, what: str, fix: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise InputError(
            f"{name} must be an integer >= {low}", expected=what, received=repr(value), fix=fix
        )


LEARNERS: dict[str, Any] = {name: partial(FESL, method=name) for name in METHODS}
