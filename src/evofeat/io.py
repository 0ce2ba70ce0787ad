"""Model files: save an online learner mid-stream and load it to continue.

One ``.npz`` file holds the learner's state arrays (the fields of its
``NamedTuple`` state) and one JSON metadata entry: the format version, the
evofeat version that wrote it, the learner's class (``module:Class``, only
evofeat's own modules are ever imported on load) and registry name, its
parameters, its feature names with their types, ``n_learned_``, the visible
feature set and a sha256 over the arrays and the metadata. Nothing is pickled:
files are read with ``allow_pickle=False``, so loading a file cannot run code.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import evofeat
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner

__all__ = ["FORMAT_VERSION", "load", "save"]

#: Version of the file layout; files of another version are refused with a clear message.
FORMAT_VERSION = 1
_KIND = "evofeat-model"
_META = "__meta__"
_STATE = "state."
_EXTRA = "extra."
_VISIBLE = "visible"
#: attributes every OnlineLearner has besides its parameters (saved explicitly).
_PROTOCOL = frozenset({"feature_index_", "_state", "_capacity", "_visible", "n_learned_"})
_NAME_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}


# ---------------------------------------------------------------------------- encoding helpers
def _json_value(value: Any, what: str) -> Any:
    """``value`` as JSON (tuples tagged so they come back as tuples)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return {"__tuple__": [_json_value(v, what) for v in value]}
    if isinstance(value, list):
        return [_json_value(v, what) for v in value]
    raise InputError(
        f"cannot save {what}",
        expected="None, a bool, a number, a string, or a list/tuple of them",
        received=f"a {type(value).__name__}",
        fix="pass plain values as parameters",
    )


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"__tuple__"}:
        return tuple(_from_json(v) for v in value["__tuple__"])
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _encode_name(name: Hashable) -> list[Any]:
    if isinstance(name, np.generic):
        name = name.item()
    for tag, kind in _NAME_TYPES.items():
        if type(name) is kind:
            return [tag, name]
    raise InputError(
        f"cannot save the feature name {name!r}",
        expected="feature names of type str, int, float or bool",
        received=f"a {type(name).__name__}",
        fix="use str or int feature names",
    )


def _decode_name(item: Any) -> Hashable:
    tag, value = item
    kind = _NAME_TYPES[tag]
    return kind(value)  # type: ignore[no-any-return]


def _digest(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> str:
    """sha256 over every array (name, dtype, shape, bytes) and the metadata without its digest."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode())
        h.update(arr.tobytes())
    body = {k: v for k, v in meta.items() if k != "sha256"}
    h.update(json.dumps(body, sort_keys=True).encode())
    return h.hexdigest()


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _registry_name(learner: OnlineLearner) -> str | None:
    """The first registry name whose factory builds this class with these fixed parameters."""
    from evofeat.registry import ONLINE

    params = learner.get_params()
    for name, module_name in ONLINE.items():
        try:
            factory = importlib.import_module(module_name).LEARNERS[name]
        except (ImportError, AttributeError, KeyError):
            continue
        fixed = getattr(factory, "keywords", {}) or {}
        if getattr(factory, "func", factory) is type(learner) and all(
            params.get(k) == v for k, v in fixed.items()
        ):
            return name
    return None


def _extras(learner: OnlineLearner) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Attributes beyond the parameters and the protocol: arrays and plain values."""
    params = set(learner.get_params())
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, Any] = {}
    for key, value in vars(learner).items():
        if key in params or key in _PROTOCOL:
            continue
        if isinstance(value, np.ndarray):
            arrays[_EXTRA + key] = value
        else:
            values[key] = _json_value(value, f"the attribute {key!r} of {type(learner).__name__}")
    return arrays, values


# ---------------------------------------------------------------------------- save
def save(learner: OnlineLearner, path: str | os.PathLike[str]) -> Path:
    """Write ``learner`` (parameters and learned state) to the model file ``path``.

    The file is written to a temporary file beside ``path`` and moved into
    place, so ``path`` always holds either the old or the new complete file.

    Parameters
    ----------
    learner
        Any :class:`~evofeat.base.OnlineLearner`, fitted or not.
    path
        The file to write (conventionally ``*.npz``; the name is used as given).

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.linear.pa import PA
    >>> model = PA(C=0.5)
    >>> for x, y in [({"a": 1.0, 7: 2.0}, 1), ({"a": -1.0}, -1)]:
    ...     model = model.learn_one(x, y)
    >>> path = save(model, pathlib.Path(tempfile.mkdtemp()) / "pa.npz")
    >>> again = load(path, expected="pa-i")
    >>> again, again.feature_index_.names, again.n_learned_
    (PA(mode='pa-i', C=0.5), [7, 'a'], 2)
    >>> again.predict_one({"a": 1.0}) == model.predict_one({"a": 1.0})
    True
    """
    if not isinstance(learner, OnlineLearner):
        raise InputError(
            "only online learners can be saved",
            expected="an evofeat OnlineLearner",
            received=f"a {type(learner).__name__}",
            fix="pass a learner built with evofeat.registry.make",
        )
    path = Path(path)
    cls = type(learner)
    params = {k: _json_value(v, f"the parameter {k!r}") for k, v in learner.get_params().items()}
    arrays: dict[str, np.ndarray] = {}
    state = getattr(learner, "_state", None)
    fields: list[str] = []
    if state is not None:
        fields = list(state._fields)
        for name in fields:
            arrays[_STATE + name] = np.asarray(getattr(state, name))
    visible = getattr(learner, "_visible", None)
    if visible is not None:
        arrays[_VISIBLE] = np.asarray(visible, dtype=np.int64)
    extra_arrays, extra_values = _extras(learner)
    arrays.update(extra_arrays)
    fi = getattr(learner, "feature_index_", None)
    meta: dict[str, Any] = {
        "kind": _KIND,
        "format_version": FORMAT_VERSION,
        "evofeat_version": evofeat.__version__,
        "class": _class_path(cls),
        "name": _registry_name(learner),
        "params": params,
        "state_class": None if state is None else type(state).__name__,
        "state_fields": fields,
        "capacity": int(getattr(learner, "_capacity", 0) or 0),
        "features": [] if fi is None else [_encode_name(n) for n in fi.names],
        "n_learned": int(getattr(learner, "n_learned_", 0)),
        "extra": extra_values,
    }
    meta["sha256"] = _digest(arrays, meta)
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            payload: dict[str, Any] = {_META: blob, **arrays}
            np.savez_compressed(fh, **payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# ---------------------------------------------------------------------------- load
def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    damaged = (
        "the file is not a complete evofeat model file",
        "a file written by evofeat.io.save",
    )
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        raise InputError(
            f"{path}: {damaged[0]}",
            expected=damaged[1],
            received=f"{type(err).__name__}: {err}",
            fix="the file is truncated or corrupt: save the learner again",
        ) from None
    if any(not isinstance(a, np.ndarray) for a in arrays.values()):
        raise InputError(
            f"{path}: {damaged[0]}",
            expected=damaged[1],
            received="entries that are not arrays",
            fix="load files written by evofeat.io.save only",
        )
    if _META not in arrays:
        raise InputError(
            f"{path}: {damaged[0]}",
            expected=damaged[1],
            received="an .npz without metadata",
            fix="load files written by evofeat.io.save only",
        )
    try:
        meta = json.loads(arrays.pop(_META).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(
            f"{path}: unreadable metadata",
            expected=damaged[1],
            received=str(err),
            fix="the file is corrupt: save the learner again",
        ) from None
    if not isinstance(meta, dict) or meta.get("kind") != _KIND:
        raise InputError(
            f"{path}: {damaged[0]}",
            expected=damaged[1],
            received="another kind of .npz",
            fix="load files written by evofeat.io.save only",
        )
    return meta, arrays


def _resolve_class(path_text: str) -> type[OnlineLearner]:
    module_name, _, qualname = path_text.partition(":")
    if not (module_name == "evofeat" or module_name.startswith("evofeat.")) or not qualname:
        raise InputError(
            "the model file names a learner class outside evofeat",
            expected="a class in an evofeat module ('evofeat.xxx:Class')",
            received=repr(path_text),
            fix="load only model files written by evofeat.io.save",
        )
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise InputError(
            "the model file's learner class does not exist in this evofeat",
            expected="an importable evofeat learner",
            received=repr(path_text),
            fix="install the evofeat version that wrote the file",
        ) from None
    if not (isinstance(obj, type) and issubclass(obj, OnlineLearner)):
        raise InputError(
            "the model file names something that is not an online learner",
            expected="an OnlineLearner subclass",
            received=repr(path_text),
            fix="load only model files written by evofeat.io.save",
        )
    return obj


def _check_expected(
    expected: str | type, meta: dict[str, Any], cls: type, params: dict[str, Any]
) -> None:
    saved = f"{meta['class']}" + (f" ({meta['name']})" if meta.get("name") else "")
    fixed: dict[str, Any] = {}
    if isinstance(expected, type):
        want: type = expected
        label = _class_path(expected)
    elif ":" in expected:
        want, label = _resolve_class(expected), expected
    else:
        from evofeat.registry import ONLINE

        if expected not in ONLINE:
            raise InputError(
                f"unknown learner {expected!r} for expected=",
                expected="a name in evofeat.registry.ONLINE, 'module:Class' or a class",
                received=repr(expected),
                fix="check the spelling",
            )
        factory = importlib.import_module(ONLINE[expected]).LEARNERS[expected]
        want = getattr(factory, "func", factory)
        fixed = dict(getattr(factory, "keywords", {}) or {})
        label = expected
    if not issubclass(cls, want) or any(params.get(k) != v for k, v in fixed.items()):
        raise InputError(
            "the model file holds another learner",
            expected=label,
            received=saved,
            fix="load the right file, or call load() without expected=",
        )


def load(path: str | os.PathLike[str], expected: str | type | None = None) -> OnlineLearner:
    """Read a learner written by :func:`save`; it continues exactly where it was saved.

    Parameters
    ----------
    path
        The model file.
    expected
        If given, the learner the file must hold: a registry name (``"pa-i"``:
        class and the parameters the name fixes), ``"module:Class"``, or a
        class (subclasses accepted).

    Returns
    -------
    OnlineLearner
        The learner, with its parameters, features, visible set and state.

    Raises
    ------
    InputError
        For a file of another format version, a truncated, corrupt or tampered
        file (the sha256 does not match), a class outside evofeat, or a learner
        other than ``expected``. The message says what was expected, what was
        found and how to fix it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.linear.pa import PA
    >>> path = save(PA().learn_one({"x": 1.0}, 1), pathlib.Path(tempfile.mkdtemp()) / "m.npz")
    >>> load(path).coef_
    {'x': 1.0}
    >>> load(path, expected="perceptron")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: the model file holds another learner: expected perceptron, received evofeat.linear.pa:PA (pa-i); fix: ...
    """
    path = Path(path)
    meta, arrays = _read(path)
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise InputError(
            f"{path}: unsupported model file format version",
            expected=f"format version {FORMAT_VERSION} (evofeat {evofeat.__version__})",
            received=f"version {version!r} (written by evofeat {meta.get('evofeat_version', '?')})",
            fix="load it with the evofeat version that wrote it, and save it again from there",
        )
    if meta.get("sha256") != _digest(arrays, meta):
        raise InputError(
            f"{path}: the checksum does not match the content",
            expected=f"sha256 {meta.get('sha256')}",
            received="different arrays or metadata",
            fix="the file was modified or damaged: save the learner again",
        )
    cls = _resolve_class(str(meta["class"]))
    params = {k: _from_json(v) for k, v in meta["params"].items()}
    if expected is not None:
        _check_expected(expected, meta, cls, params)
    learner = cls(**params)
    learner._reset()
    for name in meta["features"]:
        learner.feature_index_.add([_decode_name(name)])
    learner.n_learned_ = int(meta["n_learned"])
    if meta["state_fields"]:
        _restore_state(learner, meta, arrays, path)
    if _VISIBLE in arrays:
        learner._visible = arrays[_VISIBLE]
    for key, value in meta["extra"].items():
        setattr(learner, key, _from_json(value))
    for key, arr in arrays.items():
        if key.startswith(_EXTRA):
            setattr(learner, key[len(_EXTRA) :], arr)
    return learner


def _restore_state(
    learner: OnlineLearner, meta: dict[str, Any], arrays: dict[str, np.ndarray], path: Path
) -> None:
    learner._ensure_capacity(int(meta["capacity"]))
    template = learner._state
    fields = {}
    for name in template._fields:
        want = np.asarray(getattr(template, name))
        got = arrays.get(_STATE + name)
        if got is None or got.dtype != want.dtype or got.shape != want.shape:
            received = "no such field" if got is None else f"{got.dtype} {got.shape}"
            raise InputError(
                f"{path}: the state does not fit {type(learner).__name__} in this evofeat",
                expected=f"state field {name!r} as {want.dtype} {want.shape}",
                received=received,
                fix="load it with the evofeat version that wrote it "
                f"({meta.get('evofeat_version', '?')})",
            )
        fields[name] = np.ascontiguousarray(got)
    if set(meta["state_fields"]) != set(template._fields):
        raise InputError(
            f"{path}: the state does not fit {type(learner).__name__} in this evofeat",
            expected=f"fields {list(template._fields)}",
            received=f"fields {meta['state_fields']}",
            fix="load it with the evofeat version that wrote it",
        )
    learner._state = type(template)(**fields)
    learner._capacity = int(meta["capacity"])
