"""Online learners in a model file: feature names, the compiled state's fields, the visible set.

The fields, their dtypes and shapes are those of a fresh compiled state of
the saved capacity (the ``Core``'s ``_fields``), never a list kept here; a
scalar field that the file lacks (added to the core after the file was
written) takes a fresh state's value, which is what the parameters set.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.io._format import bad, decode_name, encode_name
from evofeat.io._validate import check_online

STATE = "state."
VISIBLE = "visible"
KEYS = frozenset({"state_fields", "capacity", "features", "n_learned"})

Schema = dict[str, tuple[np.dtype, tuple[int, ...]]]


def body(learner: OnlineLearner) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata entries of an online learner."""
    arrays: dict[str, np.ndarray] = {}
    state = getattr(learner, "_state", None)
    fields: list[str] = []
    if state is not None:
        fields = list(state._fields)
        for name in fields:
            arrays[STATE + name] = np.asarray(getattr(state, name))
    visible = getattr(learner, "_visible", None)
    if visible is not None:
        arrays[VISIBLE] = np.asarray(visible, dtype=np.int64)
    fi = getattr(learner, "feature_index_", None)
    return arrays, {
        "state_fields": fields,
        "capacity": int(getattr(learner, "_capacity", 0) or 0) if state is not None else 0,
        "features": [] if fi is None else [encode_name(n) for n in fi.names],
        "n_learned": int(getattr(learner, "n_learned_", 0)),
    }


def _malformed(path: Path, expected: str, received: str) -> InputError:
    return bad(path, "the learner's metadata is malformed", expected, received, "save it again")


def schema(
    path: Path, meta: Mapping[str, Any], cls: type, params: dict[str, Any]
) -> tuple[OnlineLearner, Schema]:
    """A fresh learner of the saved size and the arrays the file must hold (name -> dtype, shape)."""
    try:
        learner = cls(**params)
        learner._reset()
    except InputError as err:
        raise bad(
            path,
            f"the parameters are not valid for {cls.__name__}",
            "valid parameters",
            str(err),
            "save the learner again",
        ) from None
    try:
        names = [decode_name(item) for item in meta["features"]]
        capacity, n_learned, fields = meta["capacity"], meta["n_learned"], meta["state_fields"]
        ok = type(capacity) is int and type(n_learned) is int and n_learned >= 0
        ok = ok and isinstance(fields, list) and all(isinstance(f, str) for f in fields)
    except (KeyError, TypeError, ValueError) as err:
        raise _malformed(path, "features, capacity, n_learned, state_fields", repr(err)) from None
    if not ok or len({(type(n), n) for n in names}) != len(names):
        raise _malformed(path, "distinct feature names, integer counts", f"{len(names)} names")
    n = len(names)
    out: Schema = {}
    if not fields:
        if capacity != 0 or n:
            raise bad(
                path,
                "the capacity does not fit the features",
                "capacity 0 and no features before any learning",
                f"capacity {capacity}, {n} features",
                "save the learner again",
            )
        return learner, out
    if not n <= capacity <= max(8, 2 * n):
        raise bad(
            path,
            "the capacity does not fit the features",
            f"a capacity between the {n} features and {max(8, 2 * n)}",
            f"capacity {capacity}",
            "the file was modified: save the learner again",
        )
    learner._ensure_capacity(capacity)
    template = learner._state
    missing = [f for f in template._fields if f not in fields]
    if (
        set(fields) - set(template._fields)
        or len(set(fields)) != len(fields)
        or any(np.ndim(getattr(template, f)) for f in missing)
    ):
        raise bad(
            path,
            f"the state does not fit {cls.__name__} in this evofeat",
            f"fields {list(template._fields)}",
            f"fields {fields}",
            f"load it with the evofeat version that wrote it ({meta.get('evofeat_version', '?')})",
        )
    declared = meta["arrays"] if isinstance(meta.get("arrays"), dict) else {}
    for name in fields:
        arr = np.asarray(getattr(template, name))
        wide = _scalar_int(declared.get(STATE + name)) if arr.ndim == 0 else None
        out[STATE + name] = (arr.dtype if wide is None else wide, arr.shape)
    vis = declared.get(VISIBLE)
    if vis is not None:
        try:
            size = int(vis[1][0])
        except (TypeError, ValueError, IndexError):
            size = -1
        if not 0 <= size <= n:
            raise bad(
                path,
                "the visible feature set does not fit",
                f"at most {n} columns",
                repr(vis)[:80],
                "save the learner again",
            )
        out[VISIBLE] = (np.dtype(np.int64), (size,))
    return learner, out


def _scalar_int(spec: Any) -> np.dtype | None:
    """The dtype a file declares for an integer scalar field, if it is int64 or uint64.

    A compiled ``uint64_t`` field reads back as a Python int, which NumPy
    stores as int64 below 2^63 and as uint64 above: either holds the value.
    """
    if isinstance(spec, list) and spec[1:] == [[]] and spec[0] in ("<i8", "<u8"):
        return np.dtype(spec[0])
    return None


def restore(
    path: Path, learner: OnlineLearner, meta: Mapping[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    """Set the feature index, the state (checked against the class's declaration) and the visible set."""
    for name in meta["features"]:
        learner.feature_index_.add([decode_name(name)])
    learner.n_learned_ = int(meta["n_learned"])
    if meta["state_fields"]:
        template = learner._state
        fresh = {name: np.asarray(getattr(template, name)) for name in template._fields}
        fields = {
            name: arrays[STATE + name] if STATE + name in arrays else fresh[name]
            for name in template._fields
        }
        check_online(path, learner, fields, fresh, int(meta["capacity"]))
        try:
            learner._state = type(template)(**fields)
        except (OverflowError, TypeError, ValueError) as err:  # e.g. a uint64 in an int64 field
            raise bad(
                path,
                f"the state does not fit {type(learner).__name__}'s fields",
                "values within each field's type",
                f"{type(err).__name__}: {str(err)[:200]}",
                "the file was modified: save the learner again",
            ) from None
    if VISIBLE in arrays:
        vis = arrays[VISIBLE]
        n = len(learner.feature_index_)
        if vis.size and (vis.min() < 0 or vis.max() >= n or np.any(np.diff(vis) <= 0)):
            raise bad(
                path,
                "the visible feature set does not fit",
                f"increasing columns below {n}",
                repr(vis[:5].tolist()),
                "the file was modified: save the learner again",
            )
        learner._visible = vis
