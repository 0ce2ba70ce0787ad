"""FESL-c and FESL-s (Hou, Zhang, Zhou, 2017) and their baselines NOGD, ROGD-u, ROGD-f."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
from scipy.special import expit

from evofeat.base import InputError, OnlineLearner
from evofeat.base.state import StateSpec
from evofeat.ensemble._fesl import FESLCore
from evofeat.ensemble.mapping import gram_pinv, recover
from evofeat.linear._intercept import InterceptMixin, check_intercept
from evofeat.linear._safe import (
    MAX,
    dot_reference,
    saturate_reference,
    unscale_reference,
)
from evofeat.linear.ogd import (
    LOSSES,
    check_choice,
    check_common,
    loss_reference,
    step_reference,
)

__all__ = ["FESL", "LEARNERS", "METHODS", "fesl_reference"]

#: method name -> code inside the compiled core.
METHODS = {"nogd": 0, "rogd-u": 1, "rogd-f": 2, "fesl-c": 3, "fesl-s": 4}
_CLOCKS = {"global": 0, "switch": 1}
#: base -> code inside the compiled core: the step of the model learned on the current space.
BASES = {"ogd": 0, "adagrad": 1, "ftrl": 2, "nag": 3}
_LN2 = math.log(2.0)
#: an overlap row whose largest value lies outside [_SMALL, _BIG] is stored rescaled.
_BIG, _SMALL = 2.0**100, 2.0**-100
#: a loss entering the ensemble weights is capped here; cumulative losses are kept below 2 _LCAP.
_LCAP = 2.0**1000


class FESL(InterceptMixin, OnlineLearner):
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

    def __init__(
        self,
        method: str = "fesl-c",
        lr: float = 1.0,
        loss: str = "logistic",
        overlap: int = 10,
        horizon: int | None = None,
        ridge: float = 0.0,
        clock: str = "global",
        seed: int = 0,
        base: str = "ogd",
        eps: float = 1e-8,
        beta: float = 1.0,
        l1: float = 1.0,
        l2: float = 1.0,
        fit_intercept: bool = False,
    ) -> None:
        self.method = method
        self.lr = lr
        self.loss = loss
        self.overlap = overlap
        self.horizon = horizon
        self.ridge = ridge
        self.clock = clock
        self.seed = seed
        self.base = base
        self.eps = eps
        self.beta = beta
        self.l1 = l1
        self.l2 = l2
        self.fit_intercept = fit_intercept

    per_feature = ("w", "space", "buf_a", "buf_p", "G", "z", "s")

    @property
    def task(self) -> str:  # type: ignore[override]
        """``"regression"`` for the square loss, else ``"binary"``."""
        return "regression" if self.loss == "square" else "binary"

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
        for name, low, default in (
            ("eps", 0.0, "1e-8"),
            ("beta", None, "1.0"),
            ("l1", None, "1.0"),
            ("l2", None, "1.0"),
        ):
            e = getattr(self, name)
            ok = not isinstance(e, bool) and isinstance(e, int | float) and np.isfinite(e)
            if not (ok and (e > low if low is not None else e >= 0)):
                raise InputError(
                    f"{name} must be {'positive' if low is not None else 'non-negative'}",
                    expected=f"a finite number {'>' if low is not None else '>='} 0",
                    received=repr(e),
                    fix=f"pass {name}={default}",
                )

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        out: np.ndarray = fesl_reference(X, y, **self.get_params())
        return out

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


def _splitmix_uniform(s: int) -> tuple[int, float]:
    """Plain-Python SplitMix64: the next state and its uniform in [0, 1)."""
    mask = (1 << 64) - 1
    s = (s + 0x9E3779B97F4A7C15) & mask
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return s, (z >> 11) / 2.0**53


def fesl_reference(X: np.ndarray, y: np.ndarray, return_scores: bool = False, **params: Any) -> Any:
    """Plain-NumPy FESL over a dense stream (NaN = absent); returns the predictions.

    Written from the paper with explicit vectors: ``w1`` of the old space,
    the overlap rows ``X1``, ``X2`` as matrices, ``psi`` by
    :func:`~evofeat.ensemble.mapping.recover`. It follows the same rules as
    :class:`FESL` for assigning features to spaces and detecting switches.
    ``params`` are :class:`FESL`'s; ``return_scores=True`` also returns the
    scores and the losses.

    >>> X = np.array([[1.0, np.nan], [1.0, 2.0], [np.nan, 2.0], [np.nan, -2.0]])
    >>> fesl_reference(X, np.array([1, 1, 1, -1]), overlap=1)
    array([-1.,  1.,  1., -1.])
    """
    p = FESL(**params).get_params()
    fit = p["fit_intercept"]
    # the biases (fit_intercept): the current model's b, its state bG (AdaGrad's / NAG's G, FTRL's
    # n) and bz (FTRL's z), and the old model's b_old
    bias = {"b": 0.0, "bG": 0.0, "bz": 0.0, "b_old": 0.0}

    def plus(f: float, b: float) -> float:
        """A score plus a bias (saturated), or the score without ``fit_intercept``."""
        return float(saturate_reference(f + b)) if fit else f

    def step_bias(slope: float) -> None:
        """The current model's bias: its base's step on the input 1 (gradient ``slope``)."""
        g = float(saturate_reference(slope))
        if p["base"] == "adagrad":
            bias["bG"] = float(saturate_reference(bias["bG"] + g * g))
            step = saturate_reference(-p["lr"] * (g / math.sqrt(p["eps"] + bias["bG"])))
            bias["b"] = float(saturate_reference(bias["b"] + step))
        else:  # FTRL, no L1 or L2
            from evofeat.linear import ftrl

            zb, nb = ftrl.ftrl_step_reference(
                np.array([bias["bz"]]), np.array([bias["bG"]]), np.array([bias["b"]]),
                np.array([g]), lr,
            )  # fmt: skip
            bias["bz"], bias["bG"] = float(zb[0]), float(nb[0])
            bias["b"] = float(ftrl.ftrl_weights_reference(zb, nb, lr, p["beta"], 0.0, 0.0)[0])

    def step_model(
        w: np.ndarray, G: np.ndarray, z: np.ndarray, tau: float, slope: float, x: np.ndarray
    ) -> Any:
        """The new model's step: OGD ``w - tau slope x``, AdaGrad or FTRL (``G``, ``z`` in place)."""
        if p["base"] == "ogd":
            if fit and abs(-tau * slope) <= MAX:
                bias["b"] = float(saturate_reference(bias["b"] + -tau * slope))
            return step_reference(w, -tau * slope, x)
        if not abs(slope) <= MAX:
            return w
        if p["base"] == "nag":
            return nag_step(w, G, slope, x)
        if fit:
            step_bias(slope)
        with np.errstate(over="ignore"):
            g = saturate_reference(slope * x)
            if p["base"] == "ftrl":
                from evofeat.linear import ftrl  # here: evofeat.linear.ftrl imports this package

                z[:], G[:] = ftrl.ftrl_step_reference(z, G, w, g, lr)
                return ftrl.ftrl_weights_reference(z, G, lr, p["beta"], p["l1"], p["l2"])
            G[:] = saturate_reference(G + g * g)
            return saturate_reference(
                w + saturate_reference(-p["lr"] * (g / np.sqrt(p["eps"] + G)))
            )

    def scored(w: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The current model's weights for the row ``x``: NAG's rescaled to the new scales."""
        if p["base"] != "nag":
            return w
        a = np.abs(x)
        grow = (a > S) & (S > 0.0)
        return np.where(grow, w * (S / np.where(grow, a, 1.0)), w)

    def nag_step(w: np.ndarray, G: np.ndarray, slope: float, x: np.ndarray) -> np.ndarray:
        """NAG's row: rescale, ``t += 1``, ``N += sum (x_i / s_i)^2``, the normalised steps."""
        w = scored(w, x)
        S[:] = np.maximum(S, np.abs(x))
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(S > 0.0, (np.abs(x) / np.where(S > 0.0, S, 1.0)) ** 2, 0.0)
        tN[0] += 1.0
        tN[1] = min(tN[1] + (float(sum(terms.tolist())) + (1.0 if fit else 0.0)), MAX)
        if not tN[1] > 0.0:
            return w
        q = math.sqrt(tN[0] / tN[1])
        with np.errstate(over="ignore"):
            g = saturate_reference(slope * x)
        on = np.flatnonzero(g != 0.0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            G[on] = saturate_reference(G[on] + g[on] * g[on])
            r = np.where(G[on] > 0.0, g[on] / np.sqrt(G[on]), np.sign(g[on]))
        step = saturate_reference(p["lr"] * q * np.clip(r, -1.0, 1.0) / S[on])
        w[on] = saturate_reference(w[on] - step)
        if fit and slope != 0.0:  # the input 1, of scale 1
            bias["bG"] = float(saturate_reference(bias["bG"] + slope * slope))
            rb = slope / math.sqrt(bias["bG"]) if bias["bG"] > 0.0 else math.copysign(1.0, slope)
            db = float(saturate_reference(p["lr"] * q * min(max(rb, -1.0), 1.0)))
            bias["b"] = float(saturate_reference(bias["b"] - db))
        return w

    loss, lr, overlap, horizon, ridge, clock = (
        p[k] for k in ("loss", "lr", "overlap", "horizon", "ridge", "clock")
    )
    kind, m = LOSSES[loss], METHODS[p["method"]]
    n, d = X.shape
    space = np.zeros(d, dtype=np.int64)
    cur = switches = t = tp = 0
    rng = p["seed"] & 0xFFFFFFFFFFFFFFFF
    w = np.zeros(d)  # the new model (the only one before the first switch)
    G = np.zeros(d)  # its AdaGrad accumulators / FTRL's n (base="adagrad" / "ftrl")
    z = np.zeros(d)  # FTRL's z (base="ftrl")
    S, tN = np.zeros(d), np.zeros(2)  # NAG's scales, and its t and N since the switch (base="nag")
    w_old = np.zeros(d)  # the old model, explicit
    X1 = X2 = np.zeros((0, d))  # overlap rows of the map in use (old part, new part)
    P: list[np.ndarray] = []  # collected overlap rows (NaN -> 0)
    alpha = np.array([0.5, 0.5])
    L = np.zeros(2)
    prev: np.ndarray | None = None
    out = np.empty((3, n))

    def weights() -> tuple[float, float]:
        if switches == 0 or m == 0:
            return 0.0, 1.0
        if m <= 2:
            return 1.0, 0.0
        if m == 3:
            eta = math.sqrt(8 * _LN2 / (horizon or tp + 1))
            a1 = float(expit(eta * (L[1] - L[0])))
            return a1, 1 - a1
        return alpha[0] / alpha.sum(), alpha[1] / alpha.sum()

    def combine(f1: float, f2: float, a1: float) -> float:
        if m == 3:
            return float(saturate_reference(a1 * f1 + (1 - a1) * f2))
        if m == 4:
            return f1 if _splitmix_uniform(rng)[1] < a1 else f2
        return f1 if a1 > 0 else f2

    def pending() -> tuple[np.ndarray, np.ndarray, float]:
        """The collected rows and the next cycle's old model (its bias): the predictor on the current space."""
        a1, a2 = weights()
        b_next = float(saturate_reference(a1 * bias["b_old"] + a2 * bias["b"]))
        v = a2 * w
        if a1 and len(X2):  # a1 psi^T w_old = a1 X2^T (X2 X2^T)^+ X1 w_old
            with np.errstate(over="ignore", invalid="ignore"):
                v = saturate_reference(v + a1 * X2.T @ (gram_pinv(X2, ridge) @ (X1 @ w_old)))
        return np.array(P).reshape(-1, d), np.where(space == cur, v, 0.0), b_next

    def recovered(X1_: np.ndarray, X2_: np.ndarray, x2: np.ndarray) -> tuple[np.ndarray, int]:
        """``psi(x2)`` as ``(xr, e)``, ``xr 2^e`` the recovered row: ``x2`` rescaled if ``X2 x2`` overflows."""
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(X2_ @ x2).all():
                return recover(X1_, X2_, x2, ridge), 0
            e = int(np.frexp(np.max(np.abs(x2)))[1])
            return recover(X1_, X2_, np.ldexp(x2, -e), ridge), e

    for i in range(n):
        vis = ~np.isnan(X[i])
        x = np.where(vis, X[i], 0.0)
        xc = np.where(space == cur, x, 0.0) if cur else np.zeros(d)
        xn = np.where(space == cur + 1, x, 0.0)
        if cur == 0:
            s = 0.0
        elif P and not xc.any() and xn.any():  # predicted as after the coming switch
            R, w_next, b_next = pending()
            xr, e = recovered(R * (space == cur), R * (space == cur + 1), xn)
            f1 = plus(float(unscale_reference(dot_reference(w_next, xr), e)), b_next)
            s = 0.0 if m == 0 else combine(f1, 0.0, 0.5 if m >= 3 else 1.0)
        else:
            a1, _ = weights()
            f1 = 0.0
            if len(X2):
                xr, e = recovered(X1, X2, xc)
                f1 = float(unscale_reference(dot_reference(w_old, xr), e))
            f1 = plus(f1, bias["b_old"])
            s = combine(f1, plus(dot_reference(scored(w, xc), xc), bias["b"]), a1)
        out[0, i] = s if kind == 1 else (1.0 if s > 0 else -1.0)
        out[1, i] = s
        out[2, i] = loss_reference(loss, s, y[i])[0]
        if prev is None or not np.array_equal(vis, prev):  # the visible features changed
            new = vis & (space == 0)
            space[new] = cur + 1 if (space > 0).any() else 1
            cur = max(cur, 1)
            if (space[vis] == cur + 1).any() and not (space[vis] == cur).any():
                R, w_next, b_next = pending()
                X1, X2, w_old = R * (space == cur), R * (space == cur + 1), w_next
                bias.update(b=0.0, bG=0.0, bz=0.0, b_old=b_next if fit else 0.0)
                Kp = gram_pinv(X2, ridge)
                with np.errstate(over="ignore", invalid="ignore"):
                    h_finite = np.isfinite(Kp @ (X1 @ X1.T) @ Kp).all()
                if not h_finite:  # the map overflows: dropped, as if there were no overlap rows
                    X1 = X2 = np.zeros((0, d))
                P, w, G, z = [], np.zeros(d), np.zeros(d), np.zeros(d)
                S[:], tN[:] = 0.0, 0.0
                cur, switches, tp = cur + 1, switches + 1, 0
                alpha, L = np.array([0.5, 0.5]), np.zeros(2)
            prev = vis
        t += 1
        xc = np.where(space == cur, x, 0.0)
        both = (space[vis] == cur).any() and (space[vis] == cur + 1).any()
        if both and len(P) < overlap:
            row = np.where(vis & (space >= cur), x, 0.0)
            top = float(np.max(np.abs(row)))
            if top > _BIG or 0.0 < top < _SMALL:  # kept rescaled, as the kernel does
                row = np.ldexp(row, -int(np.frexp(top)[1]))
            P.append(row)
        tau = lr / math.sqrt(t)
        yi = float(y[i])
        if switches == 0:
            f = plus(dot_reference(scored(w, xc), xc), bias["b"])
            w = step_model(w, G, z, tau, loss_reference(loss, f, yi)[1], xc)
            continue
        tp += 1
        xr, e = (
            recovered(X1, X2, xc) if len(X2) else (np.zeros(d), 0)
        )  # the recovered old-space row
        f1 = plus(float(unscale_reference(dot_reference(w_old, xr), e)), bias["b_old"])
        f2 = plus(dot_reference(scored(w, xc), xc), bias["b"])
        (l1, g1), (l2, g2) = loss_reference(loss, f1, yi), loss_reference(loss, f2, yi)
        losses = np.minimum(np.array([l1, l2]), _LCAP)
        if m == 3:
            L += losses
            if L.max() > _LCAP:  # the weights depend on L2 - L1 only
                L = np.minimum(L - L.min(), _LCAP)
        if m == 4:
            T = horizon or tp + 1
            delta = 1 / (T - 1)
            H = 0.0 if delta >= 1 else -delta * math.log(delta) - (1 - delta) * math.log(1 - delta)
            eta = math.sqrt(8 / T * (2 * _LN2 + (T - 1) * H))
            v = alpha * np.exp(-eta * (losses - losses.min()))
            alpha = delta * v.sum() + (1 - delta) * v
            alpha /= alpha.sum()
            rng = _splitmix_uniform(rng)[0]
        if m in (1, 3, 4) and abs(tau * g1) <= MAX:
            w_old = saturate_reference(w_old - unscale_reference(tau * g1 * xr, e))
            if fit:  # its input 1
                bias["b_old"] = float(saturate_reference(bias["b_old"] - tau * g1))
        if m in (0, 3, 4):
            w = step_model(w, G, z, tau if clock == "global" else lr / math.sqrt(tp), g2, xc)
    return (out[0], out[1], out[2]) if return_scores else out[0]


LEARNERS: dict[str, Any] = {name: partial(FESL, method=name) for name in METHODS}
