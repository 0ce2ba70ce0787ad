"""Model files: save a learner, estimator or selector and load it to continue or predict.

One ``.npz`` file (a zip of ``.npy`` members) holds the arrays and one JSON
metadata member: the format version, the evofeat version that wrote it, the
class (``module:Class``, only evofeat's own modules are ever imported on
load), its parameters, the dtype and shape of every array member, what the
class needs beyond its parameters (an online learner's feature names, state
fields and capacity; an estimator's or a selector's fitted attributes) and a
sha256 over the arrays and the metadata.

Nothing is pickled and nothing in the file is trusted (the sha256 catches
damage, not forgery: anyone can recompute it):

- only a regular file is opened (a device, a named pipe, or a symlink to
  one is refused before reading; the open is non-blocking, so a pipe cannot
  hang it);
- before anything is inflated, the zip's central directory is read: only
  stored or deflated ``.npy`` members, the metadata at most
  :data:`MAX_META_BYTES`, no member inflating more than :data:`MAX_RATIO`
  times its compressed size nor all of them more than that times the file's
  size, every array member's declared size equal to what its declared dtype
  and shape take, their total at most ``max_bytes`` (:data:`MAX_BYTES` by
  default);
- a member is inflated only up to its declared size, in chunks, and a header
  declaring another shape than the metadata (such as 10^11 values) is
  refused before any memory is allocated; the metadata's nesting is at most
  :data:`MAX_DEPTH` levels, checked before it is parsed;
- every field is checked against the class's own declaration, its
  ``_state_spec`` (:class:`evofeat.base.state.StateSpec`), whatever the
  checksum says: the parameter names are those of ``get_params`` (a
  parameter added since the file was written takes its default); an online
  learner's state fields, dtypes and shapes are those of a fresh compiled
  state of its capacity, every float is finite, the fields the parameters
  set are what they set, every column index falls inside the state, and the
  declared relations hold (an indexed heap that holds every non-zero weight,
  at most the budget of them); an estimator's fitted attributes are exactly
  those its class declares, with their kinds, finite; then a loaded
  estimator or selector is asked to predict (select) one row of zeros, so
  inconsistent shapes are refused at load rather than at first use;
- no attribute is set that the declaration does not name.

Every refusal is an :class:`~evofeat.base.errors.InputError` that says what
was expected, what the file holds and how to fix it.

A loaded selector selects exactly as the saved one (``get_support``,
``transform``) and reads further columns (``partial_fit`` / ``add_feature``)
exactly as the saved one would: its column state (the buffers of selected or
representative columns, a conditional-independence tester's columns, a
running residual) is saved with it, and on load it must give the saved
selection.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

import evofeat
from evofeat._scratch import write_atomically
from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.io import _classes, _estimators, _format, _online
from evofeat.io._format import (
    FORMAT_VERSION,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_META_BYTES,
    MAX_RATIO,
    bad,
)

__all__ = [
    "FORMAT_VERSION",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_META_BYTES",
    "MAX_RATIO",
    "load",
    "save",
]
#: The checksum of a file's content (tests use it to forge files whose checksum matches).
_digest = _format.digest


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
        arrays, body = _online.body(learner)
    elif _estimators.schema_of(cls) is not None:
        arrays, body = _estimators.body(learner)
    else:
        raise InputError(
            "only evofeat's learners, one-pass estimators and selectors can be saved",
            expected="an OnlineLearner, OPID, OPIDe, SVM, SVMs, SVMa or a streaming selector",
            received=f"a {cls.__name__}",
            fix="pass a learner built with evofeat.registry.make",
        )
    path = Path(path)
    params = {
        k: _format.json_value(v, f"the parameter {k!r}") for k, v in learner.get_params().items()
    }
    meta: dict[str, Any] = {
        "kind": _format.KIND,
        "format_version": FORMAT_VERSION,
        "evofeat_version": evofeat.__version__,
        "class": _classes.class_path(cls),
        "name": _classes.registry_name(learner),
        "params": params,
        "arrays": {k: [a.dtype.str, list(a.shape)] for k, a in sorted(arrays.items())},
        **body,
    }
    meta["sha256"] = _format.digest(arrays, meta)
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)

    def write(tmp: Path) -> None:
        with (tmp / path.name).open("wb") as fh:
            payload: dict[str, Any] = {_format.META: blob, **arrays}
            np.savez_compressed(fh, **payload)
            fh.flush()
            os.fsync(fh.fileno())

    # whole or not at all: written in a scratch folder beside it, then moved in
    write_atomically(path.parent, write, inside=f"{path.name}.")
    return path


def load(
    path: str | os.PathLike[str], expected: str | type | None = None, *, max_bytes: int = MAX_BYTES
) -> Any:
    """Read what :func:`save` wrote; an online learner continues exactly where it was saved.

    Parameters
    ----------
    path
        The model file (a regular file, or a symlink to one).
    expected
        If given, what the file must hold: a registry name (``"pa-i"``:
        class and the parameters the name fixes), ``"module:Class"``, or a
        class (subclasses accepted).
    max_bytes
        Refuse files whose arrays take more than this many bytes (checked
        from the zip's directory, before anything is inflated); 2 GiB by
        default (:data:`MAX_BYTES`).

    Returns
    -------
    OnlineLearner, estimator or selector
        With its parameters and learned state.

    Raises
    ------
    InputError
        For a path that is not a regular file, a file of another format
        version, a truncated, corrupt or tampered file (the sha256 does not
        match), anything that does not fit the class's declaration
        (parameter names, state fields, dtypes, shapes, capacity, fitted
        attributes, NaN or inf, indices outside the state, a support larger
        than the budget...), sizes beyond the caps, a class outside evofeat,
        or a learner other than ``expected``. The message says what was
        expected, what was found and how to fix it.
    FileNotFoundError
        When ``path`` does not exist.

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
    evofeat.base.errors.InputError: the model file holds another learner: expected perceptron, received evofeat.linear.pa:PA (pa-i); fix: load the right file, or call load() without expected=
    """
    path = Path(path)
    try:
        return _load(path, expected, max_bytes)
    except MemoryError:
        raise bad(
            path,
            "not enough memory to load the model file",
            f"arrays that fit in memory (max_bytes={max_bytes})",
            "an allocation that failed",
            "free memory, or pass a smaller max_bytes to refuse such files early",
        ) from None


def _load(path: Path, expected: str | type | None, max_bytes: int) -> Any:
    with _format.open_zip(path) as (zf, file_size):
        members = _format.check_directory(path, zf, file_size)
        meta = _format.read_meta(path, zf, members)
        version = meta.get("format_version")
        if version != FORMAT_VERSION:
            raise bad(
                path,
                "unsupported model file format version",
                f"format version {FORMAT_VERSION} (evofeat {evofeat.__version__})",
                f"version {version!r} (written by evofeat {meta.get('evofeat_version', '?')})",
                "load it with the evofeat version that wrote it, and save it again from there",
            )
        cls = _classes.resolve_class(str(meta.get("class")))
        _classes.check_keys(path, meta, cls)
        params = _classes.params(path, meta, cls)
        if expected is not None:
            _classes.check_expected(expected, meta, cls, params)
        declared = _format.declared_arrays(path, meta, members, max_bytes)
        learner: Any
        if issubclass(cls, OnlineLearner):
            learner, schema = _online.schema(path, meta, cls, params)
            if schema != declared:
                diff = sorted(set(schema.items()) ^ set(declared.items()), key=str)[:3]
                raise bad(
                    path,
                    f"the arrays do not fit {cls.__name__}'s state",
                    "its fields with the dtypes and shapes of its capacity",
                    f"differences {diff}",
                    "the file was modified, or written by another evofeat: save it again",
                )
        else:
            learner = cls(**params)
        arrays = {
            name: _format.read_member(path, zf, members[name], dt, sh)
            for name, (dt, sh) in declared.items()
        }
    if meta.get("sha256") != _format.digest(arrays, meta):
        raise bad(
            path,
            "the checksum does not match the content",
            f"sha256 {meta.get('sha256')}",
            "different arrays or metadata",
            "the file was modified or damaged: save the learner again",
        )
    if isinstance(learner, OnlineLearner):
        _online.restore(path, learner, meta, arrays)
    else:
        _estimators.restore(path, learner, meta, arrays)
    return learner
