"""A loaded state checked against its class's declaration (:class:`evofeat.base.state.StateSpec`).

Whatever the checksum says (it is not keyed: anyone can recompute it), every
float must be finite unless declared otherwise, the fields the parameters set
must equal a fresh state's, every column index must fall inside the state,
and the declared relations (an indexed heap, a truncated support, ``a <= b``,
``>= 0``, the class's own consistency check) must hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.base.state import StateSpec
from evofeat.io._format import bad

_SHAPE = re.compile(r"(\w+)\.shape\[(\d)\]")
_MODIFIED = "the file was modified or damaged: save it again"


def _refuse(path: Path, cls: type, what: str, expected: str, received: str) -> None:
    raise bad(
        path, f"the state of {cls.__name__} is not valid: {what}", expected, received, _MODIFIED
    )


def _value(env: Mapping[str, np.ndarray], ref: str | float) -> float:
    if not isinstance(ref, str):
        return float(ref)
    m = _SHAPE.fullmatch(ref)
    if m:
        return float(np.shape(env[m.group(1)])[int(m.group(2))])
    return float(np.asarray(env[ref]).reshape(-1)[0])


def _first_bad(arr: np.ndarray, ok: np.ndarray) -> str:
    where = np.flatnonzero(~ok.reshape(-1))
    return f"{arr.reshape(-1)[where[0]]!r} at position {int(where[0])} ({where.size} such entries)"


def check_online(
    path: Path,
    learner: Any,
    fields: Mapping[str, np.ndarray],
    template: Mapping[str, np.ndarray],
    capacity: int,
) -> None:
    """The fields of an online learner's compiled state against its class's declaration."""
    cls = type(learner)
    spec = getattr(cls, "_state_spec", None) or StateSpec()
    fixed = [name for name in spec.fixed if name in fields]
    for name in fixed:
        got, want = np.asarray(fields[name]), np.asarray(template[name])
        if not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
            _refuse(
                path, cls, f"{name!r} differs from what the parameters set", repr(want), repr(got)
            )
    for name, arr in fields.items():
        if arr.dtype.kind == "f" and name not in spec.nonfinite and name not in fixed:
            ok = np.isfinite(arr)
            if not ok.all():
                _refuse(
                    path, cls, f"{name!r} holds NaN or inf", "finite values", _first_bad(arr, ok)
                )
    for name in spec.indices:
        if name in fields:
            arr = fields[name]
            ok = (arr >= -1) & (arr < capacity)
            if not ok.all():
                _refuse(
                    path,
                    cls,
                    f"{name!r} points outside the state",
                    f"columns in [-1, {capacity})",
                    _first_bad(arr, ok),
                )
    for name in spec.counts:
        if name in fields and not 0 <= int(fields[name]) <= capacity:
            _refuse(path, cls, f"{name!r} is out of range", f"0..{capacity}", str(fields[name]))
    for name in spec.nonnegative:
        if name in fields:
            ok = np.asarray(fields[name] >= 0)
            if not ok.all():
                _refuse(
                    path, cls, f"{name!r} is negative", "values >= 0", _first_bad(fields[name], ok)
                )
    for a, b in spec.at_most:
        if a in fields and _value(fields, a) > _value(fields, b):
            _refuse(
                path, cls, f"{a!r} exceeds {b!r}", f"{a} <= {_value(fields, b):g}", str(fields[a])
            )
    for heap, pos, size in spec.heaps:
        _check_heap(path, cls, fields[heap], fields[pos], int(fields[size]), capacity)
    for weights, heap, size in spec.support:
        w = fields[weights].reshape(fields[weights].shape[0], -1)
        outside = np.ones(w.shape[0], dtype=bool)
        outside[fields[heap][: int(fields[size])]] = False
        stray = np.flatnonzero(outside & (w != 0).any(axis=1))
        if stray.size:
            _refuse(
                path,
                cls,
                f"{weights!r} has non-zero weights outside its support {heap!r}",
                f"at most {int(fields[size])} non-zero features (the {heap!r} entries)",
                f"{stray.size} more, at columns {stray[:5].tolist()}",
            )
    problem = spec.consistent(learner) if spec.consistent is not None else ""
    if problem:
        _refuse(path, cls, "its fields disagree", "consistent fields", problem)


def _check_heap(
    path: Path, cls: type, heap: np.ndarray, pos: np.ndarray, size: int, capacity: int
) -> None:
    """An indexed heap: ``heap[:size]`` distinct columns, ``pos[heap[i]] == i``, other ``pos`` -1."""
    ok = 0 <= size <= heap.size
    if ok:
        members = heap[:size]
        ok = bool(np.all((members >= 0) & (members < capacity)))
        ok = ok and bool(np.array_equal(pos[members], np.arange(size)))
        ok = ok and int(np.count_nonzero(pos >= 0)) == size
    if not ok:
        _refuse(
            path,
            cls,
            "the heap's index arrays point outside the state or disagree",
            f"{size} distinct columns below {capacity}, each at its own position",
            f"heap {heap[:5].tolist()}..., positions {pos[:5].tolist()}...",
        )


# ---------------------------------------------------------------------------- estimators
def _references(value: Any) -> Iterator[tuple[str, Any]]:
    """The ``("array", key)`` and ``("float", text)`` tags inside an encoded attribute."""
    if isinstance(value, dict):
        if set(value) == {"__array__"}:
            yield "array", value["__array__"]
            return
        if set(value) == {"__float__"}:
            yield "float", value["__float__"]
            return
        for v in value.values():
            yield from _references(v)
    elif isinstance(value, list):
        for v in value:
            yield from _references(v)


def check_estimator(
    path: Path,
    estimator: Any,
    attrs: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
) -> None:
    """An estimator's or selector's fitted attributes: finite (unless declared), ``>= 0`` where declared.

    ``attrs`` are the encoded attributes (as in the file), ``arrays`` the
    file's arrays; the estimator holds the decoded values.
    """
    cls = type(estimator)
    spec = getattr(cls, "_state_spec", None) or StateSpec()
    for name, encoded in attrs.items():
        if name in spec.nonfinite:
            continue
        for tag, ref in _references(encoded):
            if tag == "float":
                _refuse(path, cls, f"{name!r} holds {ref}", "finite numbers", ref)
            arr = arrays[ref]
            if arr.dtype.kind == "f":
                ok = np.isfinite(arr)
                if not ok.all():
                    _refuse(
                        path,
                        cls,
                        f"{name!r} holds NaN or inf",
                        "finite values",
                        _first_bad(arr, ok),
                    )
    for name in spec.nonnegative:
        value = np.asarray(getattr(estimator, name), dtype=np.float64)
        ok = value >= 0
        if not ok.all():
            _refuse(path, cls, f"{name!r} is negative", "values >= 0", _first_bad(value, ok))
