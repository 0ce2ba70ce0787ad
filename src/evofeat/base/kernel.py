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
written once and compiled (and cached on disk) per learner. The registered
function's body is inlined into the caller (numba IR inlining, the same
compiled math): a call to a separately compiled function costs more than a
small row's arithmetic, its many array arguments each reference-counted.

:func:`borrow` hands a compiled loop views of its argument arrays without
reference counting, for the duration of one call (see its docstring).

A learner's helpers that allocate nothing and return no array (and call
only such functions) are compiled with :data:`leaf_jit` (numba's
``njit(cache=True, _nrt=False)``):
numba then emits no ``NRT_incref`` / ``NRT_decref`` call for each array
argument on entry and exit, which it otherwise does even for the borrowed
arrays (a call each); for OFS on the dense stream those calls were a
quarter of the compiled time (``benchmarks/profile_kernels.py``). A helper
that allocates (``np.zeros``, NumPy's sort, ``np.linalg``) keeps the
runtime, and so must every function that calls it: numba compiles the
callee without the runtime too and fails to type it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numba as nb
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = [
    "borrow",
    "kernel_learn",
    "kernel_predict",
    "kernel_visible",
    "leaf_jit",
    "register_kernel",
]

_KERNELS: dict[type, tuple[Any, Any, Any]] = {}

#: ``@leaf_jit``: ``numba.njit(cache=True)`` without numba's runtime, for helpers that allocate
#: nothing, return no array and call only such helpers (no reference-count calls; see above).
leaf_jit = nb.njit(cache=True, _nrt=False)  # type: ignore[call-overload]


def register_kernel(
    state_class: type,
    predict: Callable[..., Any],
    learn: Callable[..., Any],
    visible: Callable[..., Any],
) -> None:
    """Register the compiled functions of the learners whose state is ``state_class``."""
    _KERNELS[state_class] = (predict, learn, visible)


_ARGS = (("state", "idx", "val"), ("state", "idx", "val", "y", "score"), ("state", "cols", "dim"))


def _lookup(state: Any, which: int) -> Any:
    """The implementation of kernel ``which`` for ``state``: its Python body when it can be inlined."""
    if not isinstance(state, types.BaseNamedTuple):
        return None
    funcs = _KERNELS.get(state.instance_class)  # type: ignore[attr-defined]
    if funcs is None:
        return None
    f = funcs[which]
    py = getattr(f, "py_func", None)
    options = {
        k: v
        for k, v in getattr(f, "targetoptions", {}).items()
        if k != "nopython" and v is not None
    }
    if py is not None and not options and tuple(inspect.signature(py).parameters) == _ARGS[which]:
        return py  # plain njit with the protocol's argument names: inline its body
    if which == 0:
        return lambda state, idx, val: f(state, idx, val)
    if which == 1:
        return lambda state, idx, val, y, score: f(state, idx, val, y, score)
    return lambda state, cols, dim: f(state, cols, dim)


def kernel_predict(state: Any, idx: Any, val: Any) -> tuple[float, float]:
    """Compiled dispatch to the learner's ``predict`` (callable from numba only)."""
    raise NotImplementedError("kernel_predict is only callable from compiled code")


def kernel_learn(state: Any, idx: Any, val: Any, y: float, score: float) -> float:
    """Compiled dispatch to the learner's ``learn`` (callable from numba only)."""
    raise NotImplementedError("kernel_learn is only callable from compiled code")


def kernel_visible(state: Any, cols: Any, dim: int) -> None:
    """Compiled dispatch to the learner's ``visible`` (callable from numba only)."""
    raise NotImplementedError("kernel_visible is only callable from compiled code")


@overload(kernel_predict, inline="always")
def _ov_predict(state, idx, val):  # type: ignore[no-untyped-def]
    return _lookup(state, 0)


@overload(kernel_learn, inline="always")
def _ov_learn(state, idx, val, y, score):  # type: ignore[no-untyped-def]
    return _lookup(state, 1)


@overload(kernel_visible, inline="always")
def _ov_visible(state, cols, dim):  # type: ignore[no-untyped-def]
    return _lookup(state, 2)


def borrow(x: Any) -> Any:
    """``x`` (an array, or a tuple of arrays and scalars) as views that are not reference counted.

    Callable from numba only. Every slice of an array or read of a state
    field in a compiled loop otherwise takes and drops a reference with an
    atomic instruction, which costs more than a short row's arithmetic. The
    views must not outlive the call that borrowed them (the caller's
    arguments keep the memory alive): pass them straight to another compiled
    function, as its arguments, and never return or store them. (numba's
    dead-code elimination does not know that the views alias ``x``: a write
    through a view in the function that borrowed it may be dropped; in the
    callee they are arguments, and every write is kept.)
    """
    raise NotImplementedError("borrow is only callable from compiled code")


def _unowned(context: Any, builder: Any, ty: Any, value: Any) -> Any:
    if not isinstance(ty, types.Array):
        context.nrt.incref(builder, ty, value)  # the result is a new reference: keep it counted
        return value
    ary = context.make_array(ty)(context, builder, value=value)
    ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
    ary.parent = cgutils.get_null_value(ary.parent.type)
    return ary._getvalue()


@intrinsic
def _borrow(typingctx, x):  # type: ignore[no-untyped-def]
    if not isinstance(x, types.Array | types.BaseTuple):
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        ty = sig.args[0]
        if isinstance(ty, types.Array):
            return _unowned(context, builder, ty, args[0])
        out = args[0]
        for i, t in enumerate(ty):
            out = builder.insert_value(
                out, _unowned(context, builder, t, builder.extract_value(args[0], i)), i
            )
        return out

    return x(x), codegen


@overload(borrow, inline="always")
def _ov_borrow(x):  # type: ignore[no-untyped-def]
    return lambda x: _borrow(x)
