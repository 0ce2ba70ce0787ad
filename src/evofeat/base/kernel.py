"""The compiled interface between the one prequential loop and each learner's math.

A learner's state is a ``typing.NamedTuple`` of NumPy arrays (scalars live in
small arrays, so the state can change in place). Its math is three numba
functions, registered once per state class with :func:`register_kernel`:

``predict(state, idx, val) -> (score, label)``
    The score of the row and the predicted label (binary: -1.0 or +1.0, or
    0.0 for "no decision", which counts as a mistake; regression: the
    prediction; multiclass: the class code). ``idx`` are the row's internal
    columns in increasing order, ``val`` their values. Columns the learner
    has not been told about yet may appear, with zero state; the result must
    be the same as without them.
``learn(state, idx, val, y, score) -> loss``
    Update on the row (``score`` is the value ``predict`` returned for it)
    and return the learner's loss on it.
``visible(state, cols, dim) -> None``
    Called before ``learn`` whenever the set of visible features changes:
    ``cols`` are all visible columns (sorted), ``dim`` the number of
    features seen so far. Columns ``>= `` the previous ``dim`` are new.

:func:`kernel_predict`, :func:`kernel_learn` and :func:`kernel_visible`
dispatch on the state's class at compile time, so the prequential loop is
written once and compiled (and cached on disk) per learner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import types
from numba.extending import overload

__all__ = ["kernel_learn", "kernel_predict", "kernel_visible", "register_kernel"]

_KERNELS: dict[type, tuple[Any, Any, Any]] = {}


def register_kernel(state_class: type, predict: Callable[..., Any], learn: Callable[..., Any],
                    visible: Callable[..., Any]) -> None:
    """Register the compiled functions of the learners whose state is ``state_class``."""
    _KERNELS[state_class] = (predict, learn, visible)


def _lookup(state: Any, which: int) -> Any:
    if isinstance(state, types.BaseNamedTuple):
        funcs = _KERNELS.get(state.instance_class)
        if funcs is not None:
            return funcs[which]
    return None


def kernel_predict(state: Any, idx: Any, val: Any) -> tuple[float, float]:
    """Compiled dispatch to the learner's ``predict`` (callable from numba only)."""
    raise NotImplementedError("kernel_predict is only callable from compiled code")


def kernel_learn(state: Any, idx: Any, val: Any, y: float, score: float) -> float:
    """Compiled dispatch to the learner's ``learn`` (callable from numba only)."""
    raise NotImplementedError("kernel_learn is only callable from compiled code")


def kernel_visible(state: Any, cols: Any, dim: int) -> None:
    """Compiled dispatch to the learner's ``visible`` (callable from numba only)."""
    raise NotImplementedError("kernel_visible is only callable from compiled code")


@overload(kernel_predict)
def _ov_predict(state, idx, val):  # type: ignore[no-untyped-def]
    f = _lookup(state, 0)
    if f is not None:
        return lambda state, idx, val: f(state, idx, val)
    return None


@overload(kernel_learn)
def _ov_learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    f = _lookup(state, 1)
    if f is not None:
        return lambda state, idx, val, y, score: f(state, idx, val, y, score)
    return None


@overload(kernel_visible)
def _ov_visible(state, cols, dim):  # type: ignore[no-untyped-def]
    f = _lookup(state, 2)
    if f is not None:
        return lambda state, cols, dim: f(state, cols, dim)
    return None
