"""OVFM (He, Yuan and Wu, ICDM 2021): online learning in variable feature spaces with mixed data."""

from __future__ import annotations

from typing import Any

import numpy as np

from evofeat._core.core import Core
from evofeat._core.scaling import scaled_core
from evofeat.base.errors import InputError
from evofeat.base.intercept import InterceptMixin, check_intercept
from evofeat.base.learner import OnlineLearner
from evofeat.base.state import StateSpec
from evofeat.haphazard._ovfm import OVFMCore
from evofeat.preprocessing.imputed import Imputed

__all__ = ["COPULAS", "OVFM"]

#: how the copula's correlation is learned: ``"online-em"`` (the paper) or ``"identity"``
COPULAS = ("online-em", "identity")
#: the classifiers' scalars at the start: r, decay, times, fails, times_warn, fails_warn, p_min, s_min
_START = (1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 10.0)


class OVFM(InterceptMixin, Imputed):
    """OVFM: an observed-space and a latent-space classifier, mixed by exponential weights.

    Each row is scored twice (He, Yuan and Wu, "Online learning in variable
    feature spaces with mixed data", ICDM 2021, and the authors' code as the
    ``haphazard`` package ships it): by a classifier on the **observed** space
    (the raw values, an absent feature as 0, and a bias) and by one on the
    **latent** space (the row in a Gaussian copula: present values as their
    running normal scores, absent features seen before as their conditional
    means, see :class:`~evofeat.preprocessing.Imputed`, and a bias). The
    prediction is the sign of ``lam f_x + (1 - lam) f_z``, with ``lam =
    exp(-eta L_x) / (exp(-eta L_x) + exp(-eta L_z))``, ``L`` each classifier's
    cumulative logistic loss, ``eta = 0.001``, ``lam`` starting at 1/2. Both
    classifiers are the authors' ``FTRL_ADP`` (FTRL-proximal with an adaptive
    decay and a drift detector; ``L1 = L2 = 0``, ``LP = 1``): see
    :mod:`evofeat.haphazard._ovfm`.

    Differences from the ``haphazard`` package's code, each named:

    - ``copula="online-em"`` (the default, the paper) learns the copula's
      correlation online (:class:`~evofeat.preprocessing.Imputed`'s EM step).
      The package, run one row at a time as the review runs it, never moves it
      from the identity, so its latent classifier sees every absent feature as
      0; ``copula="identity"`` does that.
    - The marginals: the mid-rank normal score among the feature's last
      ``window`` values *before* the row (no look-ahead); the package puts the
      row's own value in the window first, scores ``n / (n + 1) F_n(x)``, fills
      the window at the start with random normal draws, and treats a feature
      with at most 14 distinct values *in the whole file* (a look-ahead) as
      ordinal (a truncated-normal latent).

    Cost per row: the copula's (see :class:`~evofeat.preprocessing.Imputed`)
    plus O(d) for the classifiers (their ``h`` decays on every feature seen).

    Parameters
    ----------
    decay_choice
        The decay rule of ``FTRL_ADP`` (0: ``1 - t^(-1/3)``, 1: ``1 -
        t^(-1/2)``, 2: ``(t - 1) / t``, 3: ``t / (t + 1)``, 4: ``1 - ln t /
        (2 t)``).
    contribute_error_rate
        The weight of the running error rate in the decay.
    window
        The values kept per feature for its marginal (the review runs the
        package with ``min(20, n / 10)``).
    copula
        ``"online-em"`` or ``"identity"`` (above).
    forget, ridge
        The copula's EM step floor and ridge (:class:`~evofeat.preprocessing.Imputed`).
    fit_intercept
        Each classifier's bias (the weight of a constant input 1, stepped by
        ``FTRL_ADP``'s own rule as a feature always present). **On** by
        default: the authors' classifiers have one. ``False`` (evofeat's
        option, not the paper's) keeps both biases at 0. There is no
        ``intercept_lr``: ``FTRL_ADP`` has no learning rate.

    Notes
    -----
    The defaults are the review's most common setting (``decay_choice=4``,
    ``contribute_error_rate=0.001``: ipd, spambase, a8a);
    ``benchmarks/haphazard_review_params.json`` holds them per data set.

    Attributes
    ----------
    intercept_
        The observed-space classifier's bias (0.0 without ``fit_intercept``).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import haphazard
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german")
    >>> stream = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=1)
    >>> print(f"{prequential(OVFM(), stream).accuracy:.3f}")
    0.699
    """

    def __init__(
        self,
        decay_choice: int = 4,
        contribute_error_rate: float = 0.001,
        window: int = 100,
        copula: str = "online-em",
        forget: float = 0.01,
        ridge: float = 1e-6,
        fit_intercept: bool = True,
    ) -> None:
        super().__init__(Core(), method="copula", window=window, forget=forget, ridge=ridge)
        self.decay_choice = decay_choice
        self.contribute_error_rate = contribute_error_rate
        self.copula = copula
        self.fit_intercept = fit_intercept

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters (OVFM's own: no wrapped learner)."""
        return OnlineLearner.get_params(self, deep)

    def _inner(self) -> OnlineLearner:
        inner: OnlineLearner | None = self.__dict__.get("_inner_learner")
        if inner is None:
            inner = _Nothing()
            inner._reset()
            self._inner_learner = inner
        return inner

    def _check_params(self) -> None:
        c = self.decay_choice
        if not (isinstance(c, int | np.integer) and not isinstance(c, bool) and 0 <= c <= 4):
            raise InputError(
                "decay_choice must be one of OVFM's decay rules",
                expected="an int 0, 1, 2, 3 or 4",
                received=repr(c),
                fix="pass decay_choice=4",
            )
        r = self.contribute_error_rate
        if not (isinstance(r, int | float) and not isinstance(r, bool) and 0 <= r <= 1):
            raise InputError(
                "contribute_error_rate must be a rate",
                expected="a number in [0, 1]",
                received=repr(r),
                fix="pass contribute_error_rate=0.001",
            )
        if self.copula not in COPULAS:
            raise InputError(
                "unknown copula",
                expected=" or ".join(repr(k) for k in COPULAS),
                received=repr(self.copula),
                fix="pass copula='online-em' (the paper) or 'identity' (the package's code)",
            )
        check_intercept(self, None)
        super()._check_params()

    @property
    def per_feature(self) -> tuple[str, ...]:  # type: ignore[override]
        """The copula's per-feature fields and both classifiers'."""
        return ("sigma", "seen", "recent", "wx", "wz")

    @property
    def _state_spec(self) -> StateSpec:
        """The copula's parameters and the classifiers' settings are fixed; counts nonnegative."""
        return StateSpec(
            fixed=(
                "window",
                "forget",
                "ridge",
                "decay_choice",
                "rate",
                "eta",
                "learn_sigma",
                "fit_intercept",
            ),
            nonnegative=("seen", "rows"),
        )

    def _make_state(self, capacity: int) -> Any:
        return scaled_core(
            OVFMCore,
            Core(),
            window=int(self.window),
            seen=np.zeros(capacity, dtype=np.int64),
            recent=np.zeros((capacity, int(self.window))),
            sigma=np.eye(capacity),
            forget=float(self.forget),
            ridge=float(self.ridge),
            rows=0,
            wx=np.zeros((capacity, 3)),
            wz=np.zeros((capacity, 3)),
            bx=np.zeros(3),
            bz=np.zeros(3),
            ax=np.array(_START),
            az=np.array(_START),
            mix=np.array([0.5, 0.0, 0.0]),
            decay_choice=int(self.decay_choice),
            rate=float(self.contribute_error_rate),
            eta=0.001,
            learn_sigma=int(self.copula == "online-em"),
            fit_intercept=int(self.fit_intercept),
        )

    def _encode_label(self, y: Any) -> float:
        return OnlineLearner._encode_label(self, y)

    def _decode_labels(self, labels: np.ndarray) -> np.ndarray:
        return OnlineLearner._decode_labels(self, labels)

    def _effective_weights(self) -> np.ndarray:
        """The observed classifier's weights ``-z / r`` (what the divergence watch reads)."""
        if getattr(self, "_state", None) is None:
            return np.zeros(0)
        return -self._weights("wx")[:, 2] / float(self._state.ax[0])

    def _divergence_scale(self) -> str | None:
        return None

    def _divergence_top(self) -> float:
        state = self._state
        top = [np.abs(np.asarray(state.wx)[:, 2]).max(initial=0.0) / float(state.ax[0])]
        top.append(np.abs(np.asarray(state.wz)[:, 2]).max(initial=0.0) / float(state.az[0]))
        return float(max(top))

    @property
    def task(self) -> str:  # type: ignore[override]
        """Binary classification."""
        return "binary"

    @property
    def n_classes(self) -> int | None:
        """0: binary."""
        return 0

    @n_classes.setter
    def n_classes(self, value: int | None) -> None:
        raise InputError("OVFM is binary", expected="labels -1/+1", received=repr(value))

    def _intercept_weight(self) -> float:
        """The observed classifier's bias ``-z_b / r``."""
        return float(-self._state.bx[2] / self._state.ax[0])


class _Nothing(OnlineLearner):
    """No learner: OVFM's classifiers live in its own core."""

    per_feature = ()

    def _make_state(self, capacity: int) -> Core:
        return Core()


LEARNERS = {"ovfm": OVFM}
