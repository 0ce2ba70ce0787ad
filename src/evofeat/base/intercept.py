"""The intercept (bias) option of the online learners (every family): its parameters, checks and reported weight.

The bias is the weight of a constant input 1 that every row has. It is not a
feature: it is always visible, has no entry in the feature index, never
counts in a budget or a stage, and is not in ``coef_``; it is reported as
``intercept_``. Each learner steps it with its own rule on the input 1 (see
its docstring); the state lives in the learner's compiled core under named
fields (``fit_intercept``, ``intercept``, ...), so model files and copies
carry it like the weights. The compiled part that scores and steps it is
``evofeat/_core/bias.pxd``.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, cast

from evofeat.base.errors import InputError, check_bool

__all__ = ["InterceptMixin", "check_intercept"]

#: The parameters of the option, left out of ``repr`` at their defaults.
PARAMS = ("fit_intercept", "intercept_lr")


def check_intercept(learner: Any, lr_name: str | None) -> None:
    """Raise :class:`InputError` unless ``fit_intercept`` is a bool and ``intercept_lr`` is ``None`` or ``> 0``.

    ``lr_name`` names the learner's own rate (the default of
    ``intercept_lr``), or is ``None`` for a learner without a rate (PA),
    which has no ``intercept_lr``.

    >>> class L:
    ...     fit_intercept, intercept_lr = True, 0.0
    >>> check_intercept(L(), "lr")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: intercept_lr must be positive or None: expected a finite number > 0, or None (the learner's lr), received 0.0; fix: pass intercept_lr=None
    """
    check_bool(
        learner.fit_intercept,
        "fit_intercept",
        "True or False",
        "pass fit_intercept=True to learn a bias, False for none",
    )
    if lr_name is None:
        return
    rate = learner.intercept_lr
    ok = rate is None or (
        isinstance(rate, int | float)
        and not isinstance(rate, bool)
        and math.isfinite(rate)
        and rate > 0
    )
    if not ok:
        raise InputError(
            "intercept_lr must be positive or None",
            expected=f"a finite number > 0, or None (the learner's {lr_name})",
            received=repr(rate),
            fix="pass intercept_lr=None",
        )


class InterceptMixin:
    """``intercept_`` and the bias's rate for a learner with ``fit_intercept`` (and ``intercept_lr``)."""

    fit_intercept: bool
    _state: Any

    def _intercept_rate(self, own: float) -> float:
        """``intercept_lr``, or the learner's own rate ``own`` when it is ``None``."""
        rate = getattr(self, "intercept_lr", None)
        return float(own if rate is None else rate)

    def _intercept_fields(
        self, own: float | None, state: tuple[str, ...] = ("intercept",)
    ) -> dict[str, Any]:
        """The option's fields of an empty compiled state: the flag, ``state`` at 0, the bias's rate.

        ``own`` is the learner's rate (``None``: a learner without one, no
        ``intercept_lr`` field).
        """
        out: dict[str, Any] = {"fit_intercept": int(self.fit_intercept)}
        out.update(dict.fromkeys(state, 0.0))
        if own is not None:
            out["intercept_lr"] = self._intercept_rate(own)
        return out

    def _intercept_weight(self) -> float:
        """The bias as the model uses it (a learner whose bias is computed overrides this)."""
        return float(self._state.intercept)

    def __repr__(self) -> str:
        """The constructor call, without ``fit_intercept`` / ``intercept_lr`` where they are the defaults.

        Only these two are left out (as scikit-learn leaves out every default),
        so the reprs that logs, reports and examples print stay as they were
        before the option existed.
        """
        signature = inspect.signature(type(self).__init__).parameters
        shown = {
            k: v
            for k, v in cast(Any, self).get_params().items()
            if k not in PARAMS or v != signature[k].default
        }
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    @property
    def intercept_(self) -> float:
        """The bias added to every score (0.0 without ``fit_intercept`` or before any learning)."""
        if not self.fit_intercept or getattr(self, "_state", None) is None:
            return 0.0
        return self._intercept_weight()
