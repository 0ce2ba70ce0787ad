"""Model files: save a learner, estimator or selector and load it to continue or predict.

One ``.npz`` file (a zip of ``.npy`` members) holds the arrays and one JSON
metadata member: the format version, the evofeat version that wrote it, the
class (``module:Class``, only evofeat's own modules are ever imported on
load), its parameters, the dtype and shape of every array member, what the
class needs beyond its parameters (an online learner's feature names, state
fields and capacity; an estimator's or a selector's fitted attributes) and a
sha256 over the arrays and the metadata.

Nothing is pickled and nothing in the file is trusted:

- before anything is decompressed, the zip's central directory is read: only
  stored or deflated ``.npy`` members, the metadata at most
  :data:`MAX_META_BYTES`, no member inflating more than
  :data:`MAX_RATIO` times its compressed size, and every array member's
  declared size equal to what its declared dtype and shape take, their total
  at most ``max_bytes``;
- every field is checked against the class's own schema, whatever the
  checksum says: the parameter names are those of ``get_params``, an online
  learner's state fields, dtypes and shapes are those of a fresh state of its
  capacity (the per-feature fields' first axis is the capacity, and the
  capacity fits the number of feature names), an estimator's fitted
  attributes are exactly those its class keeps, with their kinds; then a
  loaded estimator or selector is asked to predict (select) one row of zeros,
  so inconsistent shapes are refused at load rather than at first use;
- an array member is decompressed only up to its declared size, and a header
  declaring another shape than the metadata (such as 10^11 values) is refused
  before any memory is allocated;
- no attribute is set that the schema does not name.

A loaded selector selects exactly as the saved one (``get_support``,
``transform``) and reads further columns (``partial_fit`` / ``add_feature``)
exactly as the saved one would: its column state (the buffers of selected or
representative columns, a conditional-independence tester's columns, a
running residual) is saved with it, and on load it must give the saved
selection.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import evofeat
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner

__all__ = ["FORMAT_VERSION", "MAX_META_BYTES", "MAX_RATIO", "load", "save"]

#: Version of the file layout; files of another version are refused with a clear message.
FORMAT_VERSION = 2
#: Largest metadata member (bytes, uncompressed).
MAX_META_BYTES = 1 << 28
#: Largest ratio of a member's size to its compressed size (deflate cannot exceed about 1032).
MAX_RATIO = 1100
#: Default cap on the total size of the arrays of a file (``load(max_bytes=...)``).
MAX_BYTES = 1 << 34
_KIND = "evofeat-model"
_META = "__meta__"
_STATE = "state."
_VISIBLE = "visible"
_ATTR = "attr."
_NAME_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
_DTYPE_KINDS = "biufU"  # numbers, bools and fixed-width strings; never objects
_DAMAGED = "the file is not a complete evofeat model file"
_WRITTEN_BY = "a file written by evofeat.io.save"


def _bad(path: Path, what: str, expected: str, received: str, fix: str) -> InputError:
    return InputError(f"{path}: {what}", expected=expected, received=received, fix=fix)


def _corrupt(path: Path, err: Exception) -> InputError:
    return _bad(
        path,
        _DAMAGED,
        _WRITTEN_BY,
        f"{type(err).__name__}: {err}",
        "the file is truncated or corrupt: save the learner again",
    )


# ---------------------------------------------------------------------------- encoding helpers
def _json_value(value: Any, what: str) -> Any:
    """``value`` as JSON (tuples tagged so they come back as tuples)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
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
    if isinstance(value, dict) and set(value) == {"__float__"}:
        text = value["__float__"]
        if text not in ("inf", "-inf", "nan"):
            raise ValueError(f"not a float: {text!r}")
        return float(text)
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        raise ValueError("a JSON object where a plain value belongs")
    return value


def _encode_name(name: Hashable) -> list[Any]:
    if isinstance(name, np.generic):
        name = name.item()
    for tag, kind in _NAME_TYPES.items():
        if type(name) is kind:
            return [tag, _json_value(name, "a feature name")]
    raise InputError(
        f"cannot save the feature name {name!r}",
        expected="feature names of type str, int, float or bool",
        received=f"a {type(name).__name__}",
        fix="use str or int feature names",
    )


def _decode_name(item: Any) -> Hashable:
    tag, value = item
    kind = _NAME_TYPES[tag]
    value = _from_json(value)
    if type(value) is not kind and not (kind is float and type(value) is int):
        raise ValueError(f"{value!r} is not a {tag}")
    return kind(value)  # type: ignore[no-any-return,call-arg,arg-type]


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


def _registry_name(obj: Any) -> str | None:
    """The first registry name whose factory builds this class with these fixed parameters."""
    from evofeat import registry

    params = obj.get_params()
    for table, attr in (
        (registry.ONLINE, "LEARNERS"),
        (registry.ONEPASS, "LEARNERS"),
        (registry.SELECTORS, "SELECTORS"),
    ):
        for name, module_name in table.items():
            try:
                factory = getattr(importlib.import_module(module_name), attr)[name]
            except (ImportError, AttributeError, KeyError):
                continue
            fixed = getattr(factory, "keywords", {}) or {}
            if getattr(factory, "func", factory) is type(obj) and all(
                params.get(k) == v for k, v in fixed.items()
            ):
                return name
    return None


# ---------------------------------------------------------------------------- estimators' parts
class _Parts:
    """Encodes the fitted attributes of estimators and selectors as JSON plus arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, value: Any) -> dict[str, str]:
        arr = np.asarray(value)
        if arr.dtype.kind not in _DTYPE_KINDS:
            raise InputError(
                "cannot save an array of objects",
                expected="numbers, bools or strings",
                received=f"dtype {arr.dtype}",
                fix="use numeric or string labels",
            )
        key = f"{_ATTR}{len(self.arrays)}"
        self.arrays[key] = arr
        return {"__array__": key}

    def encode(self, value: Any) -> Any:
        from sklearn.linear_model import LogisticRegression
        from sklearn.multiclass import OneVsRestClassifier

        from evofeat.onepass.opid import _Joint
        from evofeat.selection._base import ColumnBuffer
        from evofeat.selection.citests import _ConditionalTester

        if isinstance(value, np.ndarray):
            return self.array(value)
        if isinstance(value, ColumnBuffer):  # one row per column, as it holds them
            return {"__columns__": self.array(value.view.T)}
        if isinstance(value, _ConditionalTester):  # the columns it tests, by feature
            keys = list(value.columns)
            cols = [value.columns[k] for k in keys]
            data = np.array(cols) if cols else np.zeros((0, value.n), dtype=np.float64)
            return {"__tester__": {"keys": [int(k) for k in keys], "columns": self.array(data)}}
        if isinstance(value, LogisticRegression):
            return {
                "__logistic__": {
                    "params": {
                        k: _json_value(v, "a parameter") for k, v in value.get_params().items()
                    },
                    "coef": self.array(value.coef_),
                    "intercept": self.array(value.intercept_),
                    "classes": self.array(value.classes_),
                    "n_iter": self.array(value.n_iter_),
                }
            }
        if isinstance(value, OneVsRestClassifier):
            return {
                "__ovr__": {
                    "estimators": [self.encode(e) for e in value.estimators_],
                    "classes": self.array(value.classes_),
                }
            }
        if isinstance(value, _Joint):
            fit = value.fit
            return {
                "__joint__": {
                    "coef": self.array(fit.coef),
                    "w": _json_value(tuple(fit.w), "w"),
                    "scale": _json_value(tuple(fit.scale), "scale"),
                    "objective": _json_value(list(fit.objective), "objective"),
                    "Z": None if value.Z is None else self.array(value.Z),
                    "Zbar": None if value.Zbar is None else self.array(value.Zbar),
                    "widths": _json_value(tuple(value.widths), "widths"),
                }
            }
        return _json_value(value, "a fitted attribute")


def _decode_part(value: Any, arrays: Mapping[str, np.ndarray], kind: str) -> Any:
    """Rebuild one fitted attribute of ``kind`` from its JSON (``ValueError`` if it does not fit)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import LabelBinarizer

    from evofeat.onepass.estage import JointFit
    from evofeat.onepass.opid import _Joint

    def arr(item: Any, dtype_kinds: str, ndim: int) -> np.ndarray:
        if not (isinstance(item, dict) and set(item) == {"__array__"}):
            raise ValueError("expected an array")
        a = arrays[item["__array__"]]
        if a.dtype.kind not in dtype_kinds or a.ndim != ndim:
            raise ValueError(
                f"expected a {ndim}-D array of kind {dtype_kinds!r}, got {a.dtype} {a.shape}"
            )
        return a

    def floats(item: Any, n: int | None = None) -> tuple[float, ...]:
        out = _from_json(item)
        if not isinstance(out, tuple | list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in out
        ):
            raise ValueError("expected numbers")
        if n is not None and len(out) != n:
            raise ValueError(f"expected {n} numbers")
        return tuple(float(v) for v in out)

    def logistic(item: Any) -> LogisticRegression:
        if not (isinstance(item, dict) and set(item) == {"__logistic__"}):
            raise ValueError("expected a logistic regression")
        body = item["__logistic__"]
        params = {k: _from_json(v) for k, v in body["params"].items()}
        if set(params) != set(LogisticRegression().get_params()):
            raise ValueError("the logistic regression's parameters differ from scikit-learn's")
        model = LogisticRegression(**params)
        coef, intercept = arr(body["coef"], "f", 2), arr(body["intercept"], "f", 1)
        classes = arr(body["classes"], _DTYPE_KINDS, 1)
        if coef.shape[0] != 1 or intercept.shape != (1,) or classes.shape != (2,):
            raise ValueError("a binary logistic regression has one row of coefficients")
        model.coef_, model.intercept_, model.classes_ = coef, intercept, classes
        model.n_iter_ = arr(body["n_iter"], "iu", 1)
        model.n_features_in_ = coef.shape[1]
        return model

    if kind == "int":
        if type(value) is not int or value < 0:
            raise ValueError("expected an int >= 0")
        return value
    if kind == "float":
        out = _from_json(value)
        if not isinstance(out, int | float) or isinstance(out, bool):
            raise ValueError("expected a number")
        return float(out)
    if kind == "ints":
        if not isinstance(value, list) or not all(type(v) is int and v >= 0 for v in value):
            raise ValueError("expected a list of ints >= 0")
        return list(value)
    if kind == "floats2":
        return floats(value, 2)
    if kind == "floats":
        return list(floats(value))
    if kind == "bool":
        if type(value) is not bool:
            raise ValueError("expected a bool")
        return value
    if kind.startswith("array:"):
        _, kinds, ndim = kind.split(":")
        return arr(value, kinds, int(ndim))
    if kind == "names":
        if not isinstance(value, list) or not all(type(v) is str for v in value):
            raise ValueError("expected a list of strings")
        return np.asarray(value, dtype=object)
    if kind == "logistic":
        if isinstance(value, dict) and set(value) == {"__ovr__"}:
            body = value["__ovr__"]
            estimators = [logistic(e) for e in body["estimators"]]
            classes = arr(body["classes"], _DTYPE_KINDS, 1)
            if len(estimators) != classes.size or classes.size < 3:
                raise ValueError("one-vs-rest needs one logistic regression per class (3 or more)")
            ovr = OneVsRestClassifier(LogisticRegression(**estimators[0].get_params()))
            ovr.estimators_ = estimators
            ovr.label_binarizer_ = LabelBinarizer(sparse_output=True).fit(classes)
            if not isinstance(getattr(OneVsRestClassifier, "classes_", None), property):
                ovr.classes_ = ovr.label_binarizer_.classes_
            ovr.n_features_in_ = estimators[0].n_features_in_
            if any(e.n_features_in_ != ovr.n_features_in_ for e in estimators):
                raise ValueError("the one-vs-rest models see different numbers of columns")
            return ovr
        return logistic(value)
    if kind == "columns":
        if not (isinstance(value, dict) and set(value) == {"__columns__"}):
            raise ValueError("expected the columns of a buffer")
        from evofeat.selection._base import ColumnBuffer

        data = arr(value["__columns__"], "if", 2)
        buf = ColumnBuffer(data.shape[1], data.dtype)
        for column in data:
            buf.append(column)
        return buf
    if kind == "tester":
        if not (isinstance(value, dict) and set(value) == {"__tester__"}):
            raise ValueError("expected the columns of a conditional-independence tester")
        body = value["__tester__"]
        keys = _decode_part(body["keys"], arrays, "ints")
        data = arr(body["columns"], "if", 2)
        if len(keys) != data.shape[0] or len(set(keys)) != len(keys):
            raise ValueError("expected one column per distinct feature")
        return dict(zip(keys, data, strict=True))
    if kind == "joint":
        if not (isinstance(value, dict) and set(value) == {"__joint__"}):
            raise ValueError("expected the E-stage solution")
        body = value["__joint__"]
        fit = JointFit(
            arr(body["coef"], "f", 2),
            floats(body["w"], 2),  # type: ignore[arg-type]
            floats(body["scale"], 2),  # type: ignore[arg-type]
            list(floats(body["objective"])),
        )
        Z = None if body["Z"] is None else arr(body["Z"], "f", 2)
        Zbar = None if body["Zbar"] is None else arr(body["Zbar"], "f", 2)
        if (Z is None) != (Zbar is None):
            raise ValueError("the kernel solution needs both Z and Zbar")
        return _Joint(fit, Z, Zbar, floats(body["widths"]))
    raise ValueError(f"unknown kind {kind!r}")


_SELECTOR_ATTRS = {
    "n_features_in_": "int",
    "y_": "array:f:1",
    "n_rows_": "int",
    "relevance_": "array:f:1",
}
_ONEPASS_ATTRS = {
    "n_features_in_": "int",
    "n_survived_": "int",
    "classes_": f"array:{_DTYPE_KINDS}:1",
    "cstage_classes_": f"array:{_DTYPE_KINDS}:1",
    "cstage_rows_": "int",
    "coef_cstage_": "array:f:2",
}


def _schemas() -> dict[type, dict[str, str]]:
    """Fitted attributes (name -> kind) of every estimator and selector that can be saved."""
    from evofeat.onepass.baselines import SVMa, SVMs, _LogisticBaseline
    from evofeat.onepass.opid import OPID, OPIDe
    from evofeat.selection import CEOFS, COFS, OSFS, SAOLA, AlphaInvesting, FastOSFS

    baseline = {
        "n_features_in_": "int",
        "classes_": f"array:{_DTYPE_KINDS}:1",
        "model_": "logistic",
    }
    groups = {"n_iter_": "int", "group_of_": "array:i:1", "representatives_": "array:i:1"}
    # a selector's private state (names starting with _): what it needs to read further columns
    ceofs = {
        "n_groups_historical_": "int",
        "_dependent": "array:b:1",
        "_reps": "columns",
        "_rep_levels": "ints",
        "_started": "bool",
    }
    return {
        OPID: {
            **_ONEPASS_ATTRS,
            "estage_l2_": "float",
            "estage_": "joint",
            "coef_": "array:f:2",
            "weights_": "floats2",
            "objective_": "floats",
            "n_iter_": "int",
        },
        OPIDe: {
            **_ONEPASS_ATTRS,
            "model_s_": "logistic",
            "model_bar_": "logistic",
            "weights_": "floats2",
        },
        _LogisticBaseline: baseline,
        SVMs: {**baseline, "n_survived_": "int"},
        SVMa: {**baseline, "n_survived_": "int"},
        CEOFS: {**_SELECTOR_ATTRS, **groups, **ceofs},
        COFS: {**_SELECTOR_ATTRS, **groups, **ceofs},
        AlphaInvesting: {
            **_SELECTOR_ATTRS,
            "selected_": "ints",
            "wealth_": "float",
            "_Q": "columns",
            "_resid": "array:f:1",
            "_rss": "float",
            "_position": "int",
        },
        OSFS: {**_SELECTOR_ATTRS, "selected_": "ints", "_tester": "tester"},
        FastOSFS: {**_SELECTOR_ATTRS, "selected_": "ints", "_tester": "tester"},
        SAOLA: {**_SELECTOR_ATTRS, "selected_": "ints", "_cols": "columns"},
    }


def _schema_of(cls: type) -> dict[str, str] | None:
    for base in cls.__mro__:
        schema = _schemas().get(base)
        if schema is not None:
            return schema
    return None


def _is_selector(cls: type) -> bool:
    from evofeat.selection import StreamingSelector

    return issubclass(cls, StreamingSelector)


# ---------------------------------------------------------------------------- save
def save(learner: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``learner`` (parameters and learned state) to the model file ``path``.

    The file is written to a temporary file beside ``path`` and moved into
    place, so ``path`` always holds either the old or the new complete file.

    Parameters
    ----------
    learner
        An :class:`~evofeat.base.OnlineLearner` (fitted or not), a fitted
        one-pass estimator (:class:`~evofeat.onepass.OPID`, ``OPIDe``,
        ``SVM``, ``SVMs``, ``SVMa``) or a fitted streaming selector
        (``CEOFS``, ``COFS``, ``AlphaInvesting``, ``OSFS``, ``FastOSFS``,
        ``SAOLA``).
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
    cls = type(learner)
    if isinstance(learner, OnlineLearner):
        arrays, body = _online_body(learner)
    elif _schema_of(cls) is not None:
        arrays, body = _estimator_body(learner)
    else:
        raise InputError(
            "only evofeat's learners, one-pass estimators and selectors can be saved",
            expected="an OnlineLearner, OPID, OPIDe, SVM, SVMs, SVMa or a streaming selector",
            received=f"a {cls.__name__}",
            fix="pass a learner built with evofeat.registry.make",
        )
    path = Path(path)
    params = {k: _json_value(v, f"the parameter {k!r}") for k, v in learner.get_params().items()}
    meta: dict[str, Any] = {
        "kind": _KIND,
        "format_version": FORMAT_VERSION,
        "evofeat_version": evofeat.__version__,
        "class": _class_path(cls),
        "name": _registry_name(learner),
        "params": params,
        "arrays": {k: [a.dtype.str, list(a.shape)] for k, a in sorted(arrays.items())},
        **body,
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


def _online_body(learner: OnlineLearner) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
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
    fi = getattr(learner, "feature_index_", None)
    return arrays, {
        "state_fields": fields,
        "capacity": int(getattr(learner, "_capacity", 0) or 0) if state is not None else 0,
        "features": [] if fi is None else [_encode_name(n) for n in fi.names],
        "n_learned": int(getattr(learner, "n_learned_", 0)),
    }


def _estimator_body(estimator: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    schema = _schema_of(type(estimator))
    assert schema is not None
    missing = [name for name in schema if not hasattr(estimator, name)]
    if missing:
        raise InputError(
            f"{type(estimator).__name__} is not fitted",
            expected="a fitted estimator or selector",
            received=f"no {', '.join(missing)}",
            fix="call fit first",
        )
    parts = _Parts()
    attrs = {name: parts.encode(getattr(estimator, name)) for name in schema}
    names = getattr(estimator, "feature_names_in_", None)
    body: dict[str, Any] = {
        "attrs": attrs,
        "feature_names_in": None if names is None else [str(n) for n in names],
    }
    if _is_selector(type(estimator)):
        body["support"] = [int(j) for j in np.flatnonzero(estimator.get_support())]
    return parts.arrays, body


# ---------------------------------------------------------------------------- reading the zip
def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise _corrupt(path, err) from None


def _check_directory(path: Path, zf: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The members by name, after the central directory's checks (nothing decompressed)."""
    members: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        name = info.filename
        if not name.endswith(".npy") or name[:-4] in members:
            raise _bad(
                path,
                _DAMAGED,
                _WRITTEN_BY,
                f"the member {name!r}",
                "load files written by evofeat.io.save only",
            )
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _bad(
                path,
                _DAMAGED,
                "stored or deflated members",
                f"compression method {info.compress_type} in {name!r}",
                "load files written by evofeat.io.save only",
            )
        if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > 1 << 20:
            raise _bad(
                path,
                "a member inflates too much (a zip bomb?)",
                f"at most {MAX_RATIO} times its compressed size",
                f"{name!r}: {info.file_size} bytes from {info.compress_size}",
                "load files written by evofeat.io.save only",
            )
        members[name[:-4]] = info
    if _META not in members:
        raise _bad(
            path,
            _DAMAGED,
            _WRITTEN_BY,
            "an .npz without metadata",
            "load files written by evofeat.io.save only",
        )
    if members[_META].file_size > MAX_META_BYTES:
        raise _bad(
            path,
            "the metadata is too large",
            f"at most {MAX_META_BYTES} bytes",
            f"{members[_META].file_size} bytes declared",
            "load files written by evofeat.io.save only",
        )
    return members


def _read_member(
    path: Path,
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    dtype: np.dtype,
    shape: tuple[int, ...] | None,
) -> np.ndarray:
    """One ``.npy`` member, decompressed only up to its declared size; its header must declare
    ``dtype`` and ``shape`` (``None``: any 1-D shape within the member's declared size)."""
    try:
        with zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"npy format version {version}")
            got_shape, fortran, got_dtype = read_header(fp)
            header = fp.tell()
            if shape is None:
                ok_shape = len(got_shape) == 1 and got_shape[0] <= info.file_size
            else:
                ok_shape = tuple(got_shape) == tuple(shape)
            if fortran or got_dtype != dtype or not ok_shape:
                raise _bad(
                    path,
                    f"the member {info.filename!r} does not match the metadata",
                    f"{dtype} {shape if shape is not None else '1-D'}",
                    f"{got_dtype} {tuple(got_shape)}",
                    "the file was modified: save the learner again",
                )
            nbytes = int(np.prod(got_shape, dtype=np.int64)) * dtype.itemsize
            if info.file_size != header + nbytes:
                raise _bad(
                    path,
                    f"the member {info.filename!r} has the wrong size",
                    f"{header + nbytes} bytes",
                    f"{info.file_size} bytes declared",
                    "the file was modified: save the learner again",
                )
            buf = bytearray(nbytes)
            if fp.readinto(buf) != nbytes:  # type: ignore[attr-defined]  # a ZipExtFile
                raise EOFError("the member is cut short")
    except InputError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        raise _corrupt(path, err) from None
    return np.frombuffer(buf, dtype=dtype).reshape(got_shape)


def _read_meta(
    path: Path, zf: zipfile.ZipFile, members: Mapping[str, zipfile.ZipInfo]
) -> dict[str, Any]:
    blob = _read_member(path, zf, members[_META], np.dtype(np.uint8), None)
    try:
        meta = json.loads(blob.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _bad(
            path,
            "unreadable metadata",
            _WRITTEN_BY,
            str(err),
            "the file is corrupt: save the learner again",
        ) from None
    if not isinstance(meta, dict) or meta.get("kind") != _KIND:
        raise _bad(
            path,
            _DAMAGED,
            _WRITTEN_BY,
            "another kind of .npz",
            "load files written by evofeat.io.save only",
        )
    return meta


def _declared_arrays(
    path: Path, meta: Mapping[str, Any], members: Mapping[str, zipfile.ZipInfo], max_bytes: int
) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """The arrays the metadata declares, checked against the central directory (sizes only)."""
    declared = meta.get("arrays")
    wrong = _bad(
        path,
        "the metadata's array list is malformed",
        "{name: [dtype, shape]}",
        repr(declared)[:200],
        "save the learner again",
    )
    if not isinstance(declared, dict):
        raise wrong
    out: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
    total = 0
    for name, spec in declared.items():
        try:
            dtype = np.dtype(spec[0])
            shape = tuple(spec[1])
            ok = dtype.kind in _DTYPE_KINDS and all(type(n) is int and n >= 0 for n in shape)
        except (TypeError, ValueError, IndexError, KeyError):
            ok = False
        if not ok or len(spec) != 2:
            raise wrong
        nbytes = math.prod(shape) * dtype.itemsize
        total += nbytes
        info = members.get(name)
        if info is None:
            raise _bad(
                path,
                _DAMAGED,
                f"the array member {name!r}",
                "no such member",
                "save the learner again",
            )
        if not nbytes <= info.file_size <= nbytes + 65536:
            raise _bad(
                path,
                f"the member {name!r} declares another size than its dtype and shape take",
                f"about {nbytes} bytes ({dtype} {shape})",
                f"{info.file_size} bytes",
                "the file was modified: save the learner again",
            )
        out[name] = (dtype, shape)
    extra = set(members) - set(out) - {_META}
    if extra:
        raise _bad(
            path,
            "the file holds members the metadata does not declare",
            "only declared arrays",
            ", ".join(sorted(extra))[:200],
            "load files written by evofeat.io.save only",
        )
    if total > max_bytes:
        raise _bad(
            path,
            "the arrays are larger than allowed",
            f"at most max_bytes={max_bytes} bytes",
            f"{total} bytes declared",
            "pass a larger max_bytes to load if you trust the file",
        )
    return out


# ---------------------------------------------------------------------------- load
def _resolve_class(path_text: str) -> type:
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
    if not (
        isinstance(obj, type) and (issubclass(obj, OnlineLearner) or _schema_of(obj) is not None)
    ):
        raise InputError(
            "the model file names something that is not an online learner, estimator or selector",
            expected="an OnlineLearner subclass, a one-pass estimator or a streaming selector",
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
        from evofeat import registry

        tables = {
            **{n: (m, "LEARNERS") for n, m in registry.ONLINE.items()},
            **{n: (m, "LEARNERS") for n, m in registry.ONEPASS.items()},
            **{n: (m, "SELECTORS") for n, m in registry.SELECTORS.items()},
        }
        if expected not in tables:
            raise InputError(
                f"unknown learner {expected!r} for expected=",
                expected="a registry name, 'module:Class' or a class",
                received=repr(expected),
                fix="check the spelling",
            )
        module_name, attr = tables[expected]
        factory = getattr(importlib.import_module(module_name), attr)[expected]
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


_COMMON_KEYS = frozenset(
    {"kind", "format_version", "evofeat_version", "class", "name", "params", "arrays", "sha256"}
)
_ONLINE_KEYS = _COMMON_KEYS | {"state_fields", "capacity", "features", "n_learned"}
_ESTIMATOR_KEYS = _COMMON_KEYS | {"attrs", "feature_names_in"}


def _check_keys(path: Path, meta: Mapping[str, Any], cls: type) -> None:
    """The metadata has exactly the entries of its kind of class (nothing extra is ever set)."""
    if issubclass(cls, OnlineLearner):
        want = _ONLINE_KEYS
    else:
        want = _ESTIMATOR_KEYS | ({"support"} if _is_selector(cls) else set())
    if set(meta) != want:
        extra, missing = sorted(set(meta) - want), sorted(want - set(meta))
        raise _bad(
            path,
            f"the metadata does not fit {cls.__name__}",
            f"exactly the entries {', '.join(sorted(want))}",
            f"extra {extra}, missing {missing}",
            "load files written by this evofeat's io.save only",
        )


def _params(path: Path, meta: Mapping[str, Any], cls: type) -> dict[str, Any]:
    """The saved parameters: exactly the class's ``get_params`` names, plain values."""
    raw = meta.get("params")
    names = set(cls().get_params())
    if not isinstance(raw, dict):
        raise _bad(
            path,
            "the model file has no parameters",
            f"params for {cls.__name__}: {', '.join(sorted(names))}",
            "no params" if raw is None else repr(raw)[:200],
            "save the learner again",
        )
    if set(raw) != names:
        raise _bad(
            path,
            f"the parameters do not fit {cls.__name__}",
            f"exactly {', '.join(sorted(names))}",
            ", ".join(sorted(map(str, raw))),
            "the file names another class than it was written for: save it again",
        )
    try:
        return {k: _from_json(v) for k, v in raw.items()}
    except ValueError as err:
        raise _bad(
            path,
            "a parameter is not a plain value",
            "numbers, strings, bools, lists",
            str(err),
            "save the learner again",
        ) from None


def load(
    path: str | os.PathLike[str], expected: str | type | None = None, *, max_bytes: int = MAX_BYTES
) -> Any:
    """Read what :func:`save` wrote; an online learner continues exactly where it was saved.

    Parameters
    ----------
    path
        The model file.
    expected
        If given, what the file must hold: a registry name (``"pa-i"``:
        class and the parameters the name fixes), ``"module:Class"``, or a
        class (subclasses accepted).
    max_bytes
        Refuse files whose arrays take more than this many bytes (checked
        from the zip's directory, before anything is decompressed).

    Returns
    -------
    OnlineLearner, estimator or selector
        With its parameters and learned state.

    Raises
    ------
    InputError
        For a file of another format version, a truncated, corrupt or tampered
        file (the sha256 does not match), anything that does not fit the
        class's schema (parameter names, state fields, dtypes, shapes,
        capacity, fitted attributes), sizes beyond the caps, a class outside
        evofeat, or a learner other than ``expected``. The message says what
        was expected, what was found and how to fix it.

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
    with _open_zip(path) as zf:
        members = _check_directory(path, zf)
        meta = _read_meta(path, zf, members)
        version = meta.get("format_version")
        if version != FORMAT_VERSION:
            raise _bad(
                path,
                "unsupported model file format version",
                f"format version {FORMAT_VERSION} (evofeat {evofeat.__version__})",
                f"version {version!r} (written by evofeat {meta.get('evofeat_version', '?')})",
                "load it with the evofeat version that wrote it, and save it again from there",
            )
        cls = _resolve_class(str(meta.get("class")))
        _check_keys(path, meta, cls)
        params = _params(path, meta, cls)
        if expected is not None:
            _check_expected(expected, meta, cls, params)
        declared = _declared_arrays(path, meta, members, max_bytes)
        learner: Any
        if issubclass(cls, OnlineLearner):
            learner, schema = _online_schema(path, meta, cls, params)
        else:
            learner, schema = cls(**params), None
        if schema is not None and schema != declared:
            diff = sorted(set(schema.items()) ^ set(declared.items()), key=str)[:3]
            raise _bad(
                path,
                f"the arrays do not fit {cls.__name__}'s state",
                "its fields with the dtypes and shapes of its capacity",
                f"differences {diff}",
                "the file was modified, or written by another evofeat: save it again",
            )
        arrays = {
            name: _read_member(path, zf, members[name], dt, sh)
            for name, (dt, sh) in declared.items()
        }
    if meta.get("sha256") != _digest(arrays, meta):
        raise _bad(
            path,
            "the checksum does not match the content",
            f"sha256 {meta.get('sha256')}",
            "different arrays or metadata",
            "the file was modified or damaged: save the learner again",
        )
    if isinstance(learner, OnlineLearner):
        _restore_online(path, learner, meta, arrays)
    else:
        _restore_estimator(path, learner, meta, arrays)
    return learner


# ---------------------------------------------------------------------------- online learners
def _online_schema(
    path: Path, meta: Mapping[str, Any], cls: type, params: dict[str, Any]
) -> tuple[OnlineLearner, dict[str, tuple[np.dtype, tuple[int, ...]]]]:
    """A fresh learner of the saved size and the arrays its state has (name -> dtype, shape)."""
    try:
        learner = cls(**params)
        learner._reset()
    except InputError as err:
        raise _bad(
            path,
            f"the parameters are not valid for {cls.__name__}",
            "valid parameters",
            str(err),
            "save the learner again",
        ) from None
    try:
        names = [_decode_name(item) for item in meta["features"]]
        capacity, n_learned, fields = meta["capacity"], meta["n_learned"], meta["state_fields"]
        ok = (
            type(capacity) is int
            and type(n_learned) is int
            and n_learned >= 0
            and isinstance(fields, list)
        )
    except (KeyError, TypeError, ValueError) as err:
        raise _bad(
            path,
            "the learner's metadata is malformed",
            "features, capacity, n_learned, state_fields",
            repr(err),
            "save the learner again",
        ) from None
    if not ok or len(set(names)) != len(names) or len({(type(n), n) for n in names}) != len(names):
        raise _bad(
            path,
            "the learner's metadata is malformed",
            "distinct feature names, integer counts",
            f"{len(names)} names",
            "save the learner again",
        )
    n = len(names)
    schema: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
    if not fields:
        if capacity != 0 or n:
            raise _bad(
                path,
                "the capacity does not fit the features",
                "capacity 0 and no features before any learning",
                f"capacity {capacity}, {n} features",
                "save the learner again",
            )
        return learner, schema
    if not n <= capacity <= max(8, 2 * n):
        raise _bad(
            path,
            "the capacity does not fit the features",
            f"a capacity between the {n} features and {max(8, 2 * n)}",
            f"capacity {capacity}",
            "the file was modified: save the learner again",
        )
    learner._ensure_capacity(capacity)
    template = learner._state
    if list(fields) != list(template._fields):
        raise _bad(
            path,
            f"the state does not fit {cls.__name__} in this evofeat",
            f"fields {list(template._fields)}",
            f"fields {fields}",
            f"load it with the evofeat version that wrote it ({meta.get('evofeat_version', '?')})",
        )
    for name in template._fields:
        arr = np.asarray(getattr(template, name))
        schema[_STATE + name] = (arr.dtype, tuple(arr.shape))
    vis = meta["arrays"].get(_VISIBLE) if isinstance(meta.get("arrays"), dict) else None
    if vis is not None:
        try:
            size = int(vis[1][0])
        except (TypeError, ValueError, IndexError):
            size = -1
        if not 0 <= size <= n:
            raise _bad(
                path,
                "the visible feature set does not fit",
                f"at most {n} columns",
                repr(vis)[:80],
                "save the learner again",
            )
        schema[_VISIBLE] = (np.dtype(np.int64), (size,))
    return learner, schema


def _check_heap(path: Path, fields: Mapping[str, np.ndarray], capacity: int) -> None:
    """The top-k heap's index fields (``heap``, ``pos``, ``hsize``) stay within the capacity."""
    if not {"heap", "pos", "hsize"} <= set(fields):
        return
    hsize = int(fields["hsize"].reshape(-1)[0]) if fields["hsize"].size else -1  # 0-d or [n]
    heap, pos = fields["heap"], fields["pos"]
    ok = 0 <= hsize <= capacity and bool(np.all((heap[:hsize] >= 0) & (heap[:hsize] < capacity)))
    ok = ok and bool(np.all((pos >= -1) & (pos < max(hsize, 1))))
    if not ok:
        raise _bad(
            path,
            "the state's index arrays point outside the state",
            f"indices below the capacity {capacity}",
            "out-of-range heap entries",
            "the file was modified: save the learner again",
        )


def _restore_online(
    path: Path, learner: OnlineLearner, meta: Mapping[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    for name in meta["features"]:
        learner.feature_index_.add([_decode_name(name)])
    learner.n_learned_ = int(meta["n_learned"])
    if meta["state_fields"]:
        template = learner._state
        fields = {name: arrays[_STATE + name] for name in template._fields}
        _check_heap(path, fields, int(meta["capacity"]))
        learner._state = type(template)(**fields)
    if _VISIBLE in arrays:
        vis = arrays[_VISIBLE]
        n = len(learner.feature_index_)
        if vis.size and (vis.min() < 0 or vis.max() >= n or np.any(np.diff(vis) <= 0)):
            raise _bad(
                path,
                "the visible feature set does not fit",
                f"increasing columns below {n}",
                repr(vis[:5].tolist()),
                "the file was modified: save the learner again",
            )
        learner._visible = vis


# ---------------------------------------------------------------------------- estimators and selectors
def _restore_estimator(
    path: Path, estimator: Any, meta: Mapping[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    cls = type(estimator)
    schema = _schema_of(cls)
    assert schema is not None
    attrs = meta.get("attrs")
    private = {name for name in schema if name.startswith("_")}  # a selector's column state
    if private and isinstance(attrs, dict) and set(attrs) == set(schema) - private:
        raise _bad(
            path,
            f"the file holds no column state of {cls.__name__}",
            f"the state a {cls.__name__} needs to read further columns: "
            + ", ".join(sorted(private)),
            "a file written by an older evofeat (it saved the selection only)",
            "fit the selector again and save it",
        )
    if not isinstance(attrs, dict) or set(attrs) != set(schema):
        got = "none" if not isinstance(attrs, dict) else ", ".join(sorted(attrs))
        raise _bad(
            path,
            f"the fitted attributes do not fit {cls.__name__}",
            ", ".join(sorted(schema)),
            got,
            "the file names another class than it was written for: save it again",
        )
    values = {}
    for name, kind in schema.items():
        try:
            values[name] = _decode_part(attrs[name], arrays, kind)
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            raise _bad(
                path,
                f"the fitted attribute {name!r} does not fit {cls.__name__}",
                kind,
                str(err)[:200],
                "the file was modified: save it again",
            ) from None
    if _is_selector(cls):  # the empty state of its labels (a tester, buffers), then the file's
        estimator.y_, estimator.n_rows_ = values["y_"], values["n_rows_"]
        estimator._init_state()
    for name, value in values.items():
        if schema[name] == "tester":
            getattr(estimator, name).columns = value
        else:
            setattr(estimator, name, value)
    names = meta.get("feature_names_in")
    if names is not None:
        estimator.feature_names_in_ = _decode_part(names, arrays, "names")
        if estimator.feature_names_in_.size != estimator.n_features_in_:
            raise _bad(
                path,
                "the feature names do not fit",
                f"{estimator.n_features_in_} names",
                f"{estimator.feature_names_in_.size}",
                "save it again",
            )
    bound = sum(a.size for a in arrays.values()) + 1
    if estimator.n_features_in_ > bound:
        raise _bad(
            path,
            "n_features_in_ does not fit the arrays",
            f"at most {bound}",
            str(estimator.n_features_in_),
            "save it again",
        )
    probe: Callable[[np.ndarray], Any]
    if _is_selector(cls):
        _restore_support(path, estimator, meta)
        probe = estimator.transform
    else:
        probe = estimator.predict
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an unnamed row of zeros, a probe only
            probe(np.zeros((1, estimator.n_features_in_)))
    except (ValueError, IndexError, TypeError, np.linalg.LinAlgError) as err:
        raise _bad(
            path,
            f"the fitted state of {cls.__name__} is inconsistent",
            "arrays whose shapes agree",
            f"{type(err).__name__}: {str(err)[:200]}",
            "the file was modified: save it again",
        ) from None


def _column_state_problem(selector: Any) -> str:
    """What in a selector's column state disagrees with its selection ('' when nothing)."""
    from evofeat.selection import CEOFS, OSFS, SAOLA, AlphaInvesting

    sel, n = selector, selector.n_features_in_
    if isinstance(sel, CEOFS) and not (sel._dependent.size == n == sel.group_of_.size):
        return f"{sel._dependent.size} relevance flags for {n} features"
    if isinstance(sel, CEOFS) and sel._reps.size != len(sel._rep_levels):
        return f"{sel._reps.size} representative columns for {len(sel._rep_levels)} groups"
    if isinstance(sel, OSFS) and set(sel._tester.columns) != set(sel.selected_):
        return f"tester columns {sorted(sel._tester.columns)[:10]} for {sel.selected_[:10]}"
    if isinstance(sel, SAOLA) and sel._cols.size != len(sel.selected_):
        return f"{sel._cols.size} columns for {len(sel.selected_)} selected features"
    if isinstance(sel, AlphaInvesting) and sel._resid.size != sel.n_rows_:
        return f"a residual of {sel._resid.size} rows for {sel.n_rows_}"
    return ""


def _restore_support(path: Path, selector: Any, meta: Mapping[str, Any]) -> None:
    """Check the restored selector: its columns' sizes, and that it selects what was saved."""
    from evofeat.selection._base import ColumnBuffer
    from evofeat.selection.citests import _ConditionalTester

    support = meta.get("support")
    n, rows = selector.n_features_in_, selector.n_rows_
    ok = isinstance(support, list) and all(type(j) is int and 0 <= j < n for j in support)
    ok = ok and selector.relevance_.size == n and selector.y_.size == rows
    if not ok:
        raise _bad(
            path,
            "the selection does not fit the selector",
            f"columns below n_features_in_={n}",
            repr(support)[:200],
            "the file was modified: save it again",
        )
    for name, value in vars(selector).items():
        if isinstance(value, ColumnBuffer):
            sizes = {value.view.shape[0]}
        elif isinstance(value, _ConditionalTester):
            sizes = {np.shape(c)[0] for c in value.columns.values()} | {rows}
            sizes |= {rows + 1 for k in value.columns if not 0 <= k < n}  # a feature never seen
        else:
            continue
        if sizes != {rows}:
            raise _bad(
                path,
                f"the column state {name!r} does not fit the selector",
                f"columns of {rows} rows, of features below {n}",
                f"sizes {sorted(sizes)}",
                "the file was modified: save it again",
            )
    problem = _column_state_problem(selector)
    if problem:
        raise _bad(
            path,
            "the column state does not fit the selector",
            "buffers that hold the columns its selection names",
            problem,
            "the file was modified: save it again",
        )
    try:
        with np.errstate(all="ignore"):
            now = [int(j) for j in np.flatnonzero(selector.get_support())]
    except (ValueError, IndexError, TypeError) as err:
        now = [f"{type(err).__name__}: {str(err)[:100]}"]  # type: ignore[list-item]
    assert isinstance(support, list)
    if now != sorted(support):
        raise _bad(
            path,
            "the selector's state does not give the saved selection",
            f"columns {sorted(support)[:20]}",
            f"{now[:20]}",
            "the file was modified: save it again",
        )
