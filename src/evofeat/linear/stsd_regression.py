"""STSD for regression on trapezoidal streams: epsilon-insensitive PA steps, kept sparse."""

from __future__ import annotations

from typing import ClassVar

from evofeat.linear._shared import real, require
from evofeat.linear.stsd import STSD

__all__ = ["STSDRegressor"]


class STSDRegressor(STSD):
    """The regression STSD that the paper leaves to future work (its Section VI).

    The STSD round with the epsilon-insensitive loss of PA regression
    (Crammer et al., 2006, Sec. 6) in place of the hinge loss: predict
    ``f = w . x~``; suffer ``l = max(0, |y - f| - epsilon)``; step
    ``w <- [w + tau s x~, tau s x^]`` with ``s = sign(y - f)`` and ``tau`` as in
    STSD / STSD-I / STSD-II (``l / ||x||^2``, ``min(C, l / ||x||^2)``,
    ``l / (||x||^2 + 1/(2C))``); then the same L1-ball scaling and truncation
    to the ``max(1, floor(B d))`` largest ``|w|`` (ties keep the feature seen
    first). ``budget=1.0, radius=inf`` is the plain PA regressor on the
    growing feature space, the natural baseline. Vanished features keep their
    weight, as in :class:`~evofeat.linear.stsd.STSD`. Only the paper's
    semantics exist here (the authors released no regression code).

    Parameters
    ----------
    mode
        ``"stsd"``, ``"stsd-i"`` or ``"stsd-ii"`` (the step rule).
    C
        Aggressiveness of the -I / -II steps.
    epsilon
        Width of the insensitive zone, in the units of ``y``.
    radius
        Radius of the L1 ball (``inf`` for none).
    budget
        B, the fraction of the features seen so far that may keep a weight.
    seed
        Unused (kept so that every STSD learner takes a seed).
    fit_intercept
        Learn a bias ``b`` (not in the paper): the weight of a constant
        input 1, so ``f = w . x + b``, ``tau`` uses ``||x||^2 + 1`` and
        ``b += tau s``; outside the L1 ball, the budget and ``coef_``. Turn it
        on when ``y`` is not centred; off by default.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from evofeat.streams import trapezoidal
    >>> from evofeat.evaluate import prequential
    >>> X, y = load_diabetes(return_X_y=True)
    >>> X = (X - X.mean(0)) / X.std(0)
    >>> y = (y - y.mean()) / y.std()
    >>> model = STSDRegressor(C=0.1, epsilon=0.1, budget=0.5)
    >>> result = prequential(model, trapezoidal(X, y, task="regression"))
    >>> round(result.cumulative_loss / result.n_rows, 3)  # mean epsilon-insensitive loss
    0.627

    References
    ----------
    Zhang et al. Towards Mining Trapezoidal Data Streams. ICDM 2015 (Alg. 1-3,
    Sec. VI). Crammer, Dekel, Keshet, Shalev-Shwartz, Singer. Online
    Passive-Aggressive Algorithms. JMLR 7, 2006 (Sec. 6, Eq. 35).
    """

    task: ClassVar[str] = "regression"
    _modes: ClassVar[tuple[str, ...]] = ("stsd", "stsd-i", "stsd-ii")

    def __init__(
        self,
        mode: str = "stsd-i",
        C: float = 0.1,
        epsilon: float = 0.1,
        radius: float = 30.0,
        budget: float = 0.5,
        seed: int = 0,
        fit_intercept: bool = False,
    ) -> None:
        super().__init__(
            mode=mode, C=C, radius=radius, budget=budget, seed=seed, fit_intercept=fit_intercept
        )
        self.epsilon = epsilon

    def _check_params(self) -> None:
        super()._check_params()
        e, what = self.epsilon, "epsilon must be a finite number >= 0"
        require(real(e) and e >= 0, what, "a number >= 0", e, "pass epsilon=0.1")


LEARNERS = {"stsd-regressor": STSDRegressor}
