"""Normalised adaptive gradient descent (NAG) on evolving features."""

from __future__ import annotations

import numpy as np

from evofeat.base import OnlineLearner
from evofeat.ensemble.ogd import LOSSES, LossTask, check_common
from evofeat.linear._adaptive import NAGCore
from evofeat.linear._intercept import InterceptMixin, check_intercept
from evofeat.linear._safe import MAX
from evofeat.linear.ftrl import run_reference

__all__ = ["NAG", "nag_reference"]


class NAG(LossTask, InterceptMixin, OnlineLearner):  # type: ignore[override]
    """Normalised adaptive gradient descent (Ross, Mineiro, Langford, 2013) on evolving features.

    Scale-free per-coordinate steps: each feature ``i`` keeps ``s_i``, the
    largest ``|x_i|`` seen so far, and ``G_i``, the sum of its squared
    gradients; the learner keeps ``t``, the rows learned, and ``N``, the sum
    over them of ``x_i^2 / s_i^2``. On a row (Algorithm 2, "NAG"): for each
    feature with ``|x_i| > s_i``, ``w_i <- w_i s_i / |x_i|`` and ``s_i <-
    |x_i|``; predict ``f = w . x`` (label ``sign(f)``, a score of 0
    predicting -1); ``t += 1``, ``N += sum_i x_i^2 / s_i^2``; then for each
    feature, with ``g_i = dl(f, y)/df x_i``: ``G_i += g_i^2`` and ``w_i -=
    lr sqrt(t / N) g_i / (s_i sqrt(G_i))``. Multiplying a feature by a
    constant changes nothing but its weight (the "normalised" part), and
    ``sqrt(t / N)`` makes the step independent of how many features a row
    has. The loss is logistic ``ln(1 + exp(-y f))`` (labels -1/+1) or square
    ``(y - f)^2`` (regression), as in :class:`~evofeat.ensemble.ogd.OGD`. A
    row costs O(its number of features).

    Evolving features: absent is not zero. A feature missing from the row
    takes no part in the score, its ``s_i`` and ``G_i`` stay as they were,
    its weight gets no update, and it adds nothing to ``N``; a vanished
    feature that comes back is used with the state it left with; a feature
    never seen starts at ``w_i = s_i = G_i = 0``, so its first step has the
    full size ``lr sqrt(t / N) / |x_i|`` whatever the age of the others. A
    present ``0.0`` is a value: it is scored (contributing 0) and, its
    gradient being 0, changes no state.

    Extreme values: the loss and its slope are computed stably (see
    :class:`~evofeat.ensemble.ogd.OGD`); each gradient, ``G_i``, ``N``, step
    and weight saturates at +-1.8e308 rather than becoming infinite; the
    ratio ``g_i / sqrt(G_i)``, at most 1 in magnitude since ``G_i`` holds
    ``g_i^2``, is kept in ``[-1, 1]`` when ``G_i`` saturates (rows of norm
    1e300) and is ``sign(g_i)`` when ``g_i^2`` underflows to 0 (rows of
    norm 1e-300); a score that overflows is recomputed on rescaled operands
    and saturated, one that underflows keeps its sign, never NaN; a step
    that is not finite (the square loss of a saturated score) is skipped.
    The weights are those of a scale-free learner, so on features of
    magnitude 1e-300 they are legitimately near 1e300: the divergence
    warning bounds ``|w_i| s_i`` instead.

    Parameters
    ----------
    lr
        The step scale (the paper's eta).
    loss
        ``"logistic"`` (binary classification) or ``"square"``
        (regression); :attr:`task` follows from it.
    fit_intercept
        Learn a bias ``b``: the weight of a constant input 1 that every row
        has (the score is ``w . x + b``), stepped as a feature of scale 1:
        ``G_b += g^2``, ``b -= intercept_lr sqrt(t / N) g / sqrt(G_b)`` with
        ``g = dl/df``, and its ``1^2 / 1^2`` counted in ``N`` on every row,
        as Vowpal Wabbit treats its constant feature. The bias is not a
        feature (always visible, not in ``coef_`` nor in the feature
        index). On by default, as in River and VW; ``fit_intercept=False``
        is Algorithm 2 on the features alone.
    intercept_lr
        The bias's step scale (``None``: ``lr``).

    The paper fixes no eta; the default ``lr=0.5`` is Vowpal Wabbit's
    default learning rate (``-l 0.5``), whose ``--normalized --adaptive``
    update (on by default) is this rule, not tuned on evofeat's data sets.
    VW differs in three details, none a parameter here: it rescales a
    weight after predicting (the paper, and this learner, before), it
    counts in ``t`` and ``N`` only rows with a non-zero gradient, and by
    default it replaces the gradient step with its importance-invariant
    version (``--invariant``, Karampatziakis and Langford 2011).

    Attributes
    ----------
    coef_
        The weight of each feature seen so far, by name (at the scales seen
        so far).
    intercept_
        The bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german")  # not standardised: NAG needs no feature scaling
    >>> result = prequential(NAG(), trapezoidal(ds.X, ds.y, ds.feature_names))
    >>> round(result.accuracy, 3)
    0.733
    >>> plain = NAG(fit_intercept=False)
    >>> round(prequential(plain, trapezoidal(ds.X, ds.y, ds.feature_names)).accuracy, 3)
    0.734

    References
    ----------
    Ross, Mineiro, Langford. Normalized online learning. UAI 2013
    (Algorithm 2, NAG: the scales ``s_i``, the rescaling of line 7, the
    normaliser ``N`` of line 11 and the step ``eta sqrt(t/N) / (s_i
    sqrt(G_i))`` of line 15).
    """

    per_feature = ("w", "s", "G")

    def __init__(
        self,
        lr: float = 0.5,
        loss: str = "logistic",
        fit_intercept: bool = True,
        intercept_lr: float | None = None,
    ) -> None:
        self.lr = lr
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_lr = intercept_lr

    def _check_params(self) -> None:
        check_common(self)
        check_intercept(self, "lr")

    def reference_predictions(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        rate = self._intercept_rate(self.lr) if self.fit_intercept else None
        return nag_reference(X, y, self.lr, self.loss, rate)

    def _divergence_weights(self) -> np.ndarray:
        """``|w_i| s_i``, the largest part feature ``i`` has had in a score: scale-free, as the weights are not."""
        with np.errstate(over="ignore"):
            return np.abs(self._weights("w")) * self._weights("s")

    _compiled_core = True

    def _make_state(self, capacity: int) -> NAGCore:
        return NAGCore(
            w=np.zeros(capacity),
            s=np.zeros(capacity),
            G=np.zeros(capacity),
            lr=float(self.lr),
            t=0.0,
            N=0.0,
            loss_kind=LOSSES[self.loss],
            **self._intercept_fields(self.lr, ("intercept", "intercept_G")),
        )


def nag_reference(
    X: np.ndarray,
    y: np.ndarray,
    lr: float = 0.5,
    loss: str = "logistic",
    intercept_lr: float | None = None,
) -> np.ndarray:
    """Plain-NumPy NAG over a dense stream (NaN = absent); returns the predictions.

    ``intercept_lr``: learn a bias with this step scale, its own accumulator
    and scale 1 (``None``: no bias).

    >>> nag_reference(np.array([[2.0, np.nan], [1.0, 4.0], [4.0, 1.0]]), np.array([1, -1, 1]))
    array([-1.,  1.,  1.])
    """
    d = X.shape[1]
    w, s, G = np.zeros(d), np.zeros(d), np.zeros(d)
    b, Gb, tN = np.zeros(1), np.zeros(1), np.zeros(2)  # tN: t and N
    row = iter(X)  # weights() is called once per row, in order
    a = np.zeros(d)

    def rescaled(vis: np.ndarray) -> np.ndarray:
        grow = (a[vis] > s[vis]) & (s[vis] > 0.0)
        return np.where(grow, w[vis] * (s[vis] / np.where(grow, a[vis], 1.0)), w[vis])

    def weights(vis: np.ndarray) -> np.ndarray:
        a[:] = np.abs(np.nan_to_num(next(row)))
        return rescaled(vis)

    def ratio(g: np.ndarray, acc: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            r = np.where(acc > 0.0, g / np.sqrt(acc), np.sign(g))
        return np.clip(np.where(g == 0.0, 0.0, r), -1.0, 1.0)

    def update(vis: np.ndarray, _: np.ndarray, g: np.ndarray) -> None:
        w[vis] = rescaled(vis)
        s[vis] = np.maximum(s[vis], a[vis])
        sv, av = s[vis], a[vis]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(sv > 0.0, (av / np.where(sv > 0.0, sv, 1.0)) ** 2, 0.0)
        nx = float(sum(terms.tolist())) + (intercept_lr is not None)  # left to right
        tN[0] += 1.0
        tN[1] = min(tN[1] + nx, MAX)
        if not tN[1] > 0.0:
            tN[1] = 0.0
            return
        q = np.sqrt(tN[0] / tN[1])
        on = g != 0.0
        cols = np.flatnonzero(vis)[on]
        G[cols] = np.clip(G[cols] + g[on] * g[on], -MAX, MAX)
        step = np.clip(lr * q * ratio(g[on], G[cols]) / s[cols], -MAX, MAX)
        w[cols] = np.clip(w[cols] - step, -MAX, MAX)

    def bias_update(g: float) -> None:
        if g == 0.0 or not tN[1] > 0.0:
            return
        Gb[:] = np.clip(Gb + g * g, -MAX, MAX)
        rate = lr if intercept_lr is None else intercept_lr
        q = np.sqrt(tN[0] / tN[1])
        b[:] = np.clip(b - rate * q * ratio(np.array([g]), Gb), -MAX, MAX)

    intercept = None if intercept_lr is None else (lambda: float(b[0]), bias_update)
    return run_reference(X, y, loss, weights, update, intercept)


LEARNERS = {"nag": NAG}
