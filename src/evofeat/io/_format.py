"""The file format: a zip of ``.npy`` members read with every size bounded before it is allocated.

Only a regular file is opened (never a device, a pipe or a symlink to one:
checked before and after opening, and opened non-blocking so a FIFO cannot
hang); the zip's central directory is checked before anything is inflated;
each member is inflated only up to its declared size, in chunks, so memory
follows the bytes that really arrive; the metadata's size and nesting depth
are bounded before it is parsed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.base.errors import InputError

#: Version of the file layout; files of another version are refused with a clear message.
FORMAT_VERSION = 2
#: Largest metadata member (bytes, uncompressed; 256 MiB: millions of feature names).
MAX_META_BYTES = 1 << 28
#: Deepest nesting of lists and objects in the metadata (a saved model needs fewer than 10).
MAX_DEPTH = 64
#: Largest ratio of a member's size to its compressed size (deflate cannot exceed about 1032).
MAX_RATIO = 1100
#: Default cap on the total size of the arrays of a file (``load(max_bytes=...)``), 2 GiB.
MAX_BYTES = 1 << 31
KIND = "evofeat-model"
META = "__meta__"
DTYPE_KINDS = "biufU"  # numbers, bools and fixed-width strings; never objects
DAMAGED = "the file is not a complete evofeat model file"
WRITTEN_BY = "a file written by evofeat.io.save"
_ONLY_OURS = "load files written by evofeat.io.save only"
_NAME_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
_CHUNK = 1 << 20
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def bad(path: Path, what: str, expected: str, received: str, fix: str) -> InputError:
    return InputError(f"{path}: {what}", expected=expected, received=received, fix=fix)


def corrupt(path: Path, err: BaseException) -> InputError:
    return bad(
        path,
        DAMAGED,
        WRITTEN_BY,
        f"{type(err).__name__}: {err}",
        "the file is truncated or corrupt: save the learner again",
    )


# ---------------------------------------------------------------------------- JSON values
def json_value(value: Any, what: str) -> Any:
    """``value`` as JSON (tuples tagged so they come back as tuples, non-finite floats tagged)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, tuple):
        return {"__tuple__": [json_value(v, what) for v in value]}
    if isinstance(value, list):
        return [json_value(v, what) for v in value]
    raise InputError(
        f"cannot save {what}",
        expected="None, a bool, a number, a string, or a list/tuple of them",
        received=f"a {type(value).__name__}",
        fix="pass plain values as parameters",
    )


def from_json(value: Any) -> Any:
    """The value :func:`json_value` encoded (``ValueError`` for anything else)."""
    if isinstance(value, dict) and set(value) == {"__tuple__"}:
        return tuple(from_json(v) for v in value["__tuple__"])
    if isinstance(value, dict) and set(value) == {"__float__"}:
        text = value["__float__"]
        if text not in ("inf", "-inf", "nan"):
            raise ValueError(f"not a float: {text!r}")
        return float(text)
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if isinstance(value, dict):
        raise ValueError("a JSON object where a plain value belongs")
    return value


def encode_name(name: Hashable) -> list[Any]:
    if isinstance(name, np.generic):
        name = name.item()
    for tag, kind in _NAME_TYPES.items():
        if type(name) is kind:
            return [tag, json_value(name, "a feature name")]
    raise InputError(
        f"cannot save the feature name {name!r}",
        expected="feature names of type str, int, float or bool",
        received=f"a {type(name).__name__}",
        fix="use str or int feature names",
    )


def decode_name(item: Any) -> Hashable:
    tag, value = item
    kind = _NAME_TYPES[tag]
    value = from_json(value)
    if type(value) is not kind and not (kind is float and type(value) is int):
        raise ValueError(f"{value!r} is not a {tag}")
    return kind(value)  # type: ignore[no-any-return,call-arg,arg-type]


def digest(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> str:
    """sha256 over every array (name, dtype, shape, bytes) and the metadata without its digest.

    The arrays are hashed in place (no copy of their bytes).
    """
    h = hashlib.sha256()
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode())
        h.update(arr.reshape(-1).view(np.uint8).data)
    body = {k: v for k, v in meta.items() if k != "sha256"}
    h.update(json.dumps(body, sort_keys=True).encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------- opening
def _not_regular(path: Path, mode: int) -> InputError:
    kind = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a named pipe"
        if stat.S_ISFIFO(mode)
        else "a character device"
        if stat.S_ISCHR(mode)
        else "a block device"
        if stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return bad(
        path,
        "a model file must be a regular file",
        "a regular file (or a symlink to one) written by evofeat.io.save",
        kind,
        "pass the path of the saved .npz file itself (copy it from a pipe or device first)",
    )


@contextmanager
def open_zip(path: Path) -> Iterator[tuple[zipfile.ZipFile, int]]:
    """The zip at ``path`` and the file's size; only a regular file is ever opened.

    ``FileNotFoundError`` for a missing path and ``PermissionError`` for an
    unreadable one (as ``open`` raises them); any other failure to resolve or
    open the path (a symlink loop...) is an :class:`InputError`.
    """
    try:
        info = os.stat(path)  # follows symlinks: what the path resolves to
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)  # non-blocking: a FIFO swapped in meanwhile cannot hang it
    except (FileNotFoundError, PermissionError):
        raise
    except OSError as err:
        raise bad(
            path,
            "the model file cannot be opened",
            "a path that resolves to a regular file",
            f"{type(err).__name__}: {err.strerror}",
            "check the path (a symlink loop, a name too long?)",
        ) from None
    try:
        info = os.fstat(fd)  # what was opened, whatever the path points at now
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        try:
            zf = zipfile.ZipFile(fh)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
            raise corrupt(path, err) from None
        with zf:
            yield zf, info.st_size


# ---------------------------------------------------------------------------- the directory
def check_directory(path: Path, zf: zipfile.ZipFile, file_size: int) -> dict[str, zipfile.ZipInfo]:
    """The members by name, after the central directory's checks (nothing inflated)."""
    members: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in zf.infolist():
        name = info.filename
        if not name.endswith(".npy") or name[:-4] in members:
            raise bad(path, DAMAGED, WRITTEN_BY, f"the member {name!r}", _ONLY_OURS)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise bad(
                path,
                DAMAGED,
                "stored or deflated members",
                f"compression method {info.compress_type} in {name!r}",
                _ONLY_OURS,
            )
        if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > 1 << 20:
            raise bad(
                path,
                "a member inflates too much (a zip bomb?)",
                f"at most {MAX_RATIO} times its compressed size",
                f"{name!r}: {info.file_size} bytes from {info.compress_size}",
                _ONLY_OURS,
            )
        if info.compress_size > file_size:
            raise bad(
                path,
                f"the member {name!r} is larger than the file",
                f"at most the file's {file_size} bytes",
                f"{info.compress_size} compressed bytes declared",
                "the file is truncated or corrupt: save the learner again",
            )
        total += info.file_size
        members[name[:-4]] = info
    if total > MAX_RATIO * file_size + (1 << 20):
        raise bad(
            path,
            "the members inflate too much (a zip bomb?)",
            f"at most {MAX_RATIO} times the file's {file_size} bytes",
            f"{total} bytes declared",
            _ONLY_OURS,
        )
    if META not in members:
        raise bad(path, DAMAGED, WRITTEN_BY, "an .npz without metadata", _ONLY_OURS)
    if members[META].file_size > MAX_META_BYTES:
        raise bad(
            path,
            "the metadata is too large",
            f"at most {MAX_META_BYTES} bytes",
            f"{members[META].file_size} bytes declared",
            _ONLY_OURS,
        )
    return members


# ---------------------------------------------------------------------------- members
def _read_exactly(fp: Any, nbytes: int) -> np.ndarray:
    """``nbytes`` from ``fp`` into one buffer, in chunks (no second copy; a buffer's pages are
    touched only as bytes really arrive). ``nbytes`` was bounded by the caps before."""
    buf = np.empty(nbytes, dtype=np.uint8)
    view = buf.data  # a memoryview of the buffer
    done = 0
    while done < nbytes:
        got = fp.readinto(view[done : min(done + _CHUNK, nbytes)])
        if not got:
            raise EOFError(f"the member is cut short ({done} of {nbytes} bytes)")
        done += got
    return buf


def read_member(
    path: Path,
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    dtype: np.dtype,
    shape: tuple[int, ...] | None,
) -> np.ndarray:
    """One ``.npy`` member, inflated only up to its declared size; its header must declare
    ``dtype`` and ``shape`` (``None``: any 1-D shape within the member's declared size)."""
    try:
        with zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"npy format version {version}")
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            got_shape, fortran, got_dtype = read_header(fp)
            header = fp.tell()
            if shape is None:
                ok_shape = len(got_shape) == 1 and got_shape[0] <= info.file_size
            else:
                ok_shape = tuple(got_shape) == tuple(shape)
            if fortran or got_dtype != dtype or not ok_shape:
                raise bad(
                    path,
                    f"the member {info.filename!r} does not match the metadata",
                    f"{dtype} {shape if shape is not None else '1-D'}",
                    f"{got_dtype} {tuple(got_shape)}",
                    "the file was modified: save the learner again",
                )
            nbytes = math.prod(got_shape) * dtype.itemsize
            if info.file_size != header + nbytes:
                raise bad(
                    path,
                    f"the member {info.filename!r} has the wrong size",
                    f"{header + nbytes} bytes",
                    f"{info.file_size} bytes declared",
                    "the file was modified: save the learner again",
                )
            buf = _read_exactly(fp, nbytes)
    except InputError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        raise corrupt(path, err) from None
    return buf.view(dtype).reshape(got_shape)


def json_depth(text: bytes) -> int:
    """The deepest nesting of lists and objects in the JSON ``text`` (strings skipped).

    Counted a chunk at a time, so the work memory stays a few MiB whatever the text's size.

    >>> json_depth(b'{"a": [1, {"b": "[[["}]}')
    3
    """
    skeleton = _STRING.sub(b'""', text)
    deepest = depth = 0
    for start in range(0, len(skeleton), _CHUNK):
        part = np.frombuffer(skeleton, np.uint8, min(_CHUNK, len(skeleton) - start), start)
        step = (part == ord("[")).astype(np.int64) + (part == ord("{"))
        step -= (part == ord("]")).astype(np.int64) + (part == ord("}"))
        running = np.cumsum(step) + depth
        deepest = max(deepest, int(running.max()))
        depth = int(running[-1])
    return deepest


def read_meta(
    path: Path, zf: zipfile.ZipFile, members: Mapping[str, zipfile.ZipInfo]
) -> dict[str, Any]:
    """The metadata, its size and nesting bounded before it is parsed."""
    text = read_member(path, zf, members[META], np.dtype(np.uint8), None).tobytes()
    depth = json_depth(text)
    if depth > MAX_DEPTH:
        raise bad(
            path,
            "the metadata is nested too deeply",
            f"at most {MAX_DEPTH} levels of lists and objects",
            f"{depth} levels",
            _ONLY_OURS,
        )
    try:
        meta = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:  # JSONDecodeError, or an int of 4300+ digits
        raise bad(
            path,
            "unreadable metadata",
            WRITTEN_BY,
            str(err)[:200],
            "the file is corrupt: save the learner again",
        ) from None
    if not isinstance(meta, dict) or meta.get("kind") != KIND:
        raise bad(path, DAMAGED, WRITTEN_BY, "another kind of .npz", _ONLY_OURS)
    return meta


def declared_arrays(
    path: Path, meta: Mapping[str, Any], members: Mapping[str, zipfile.ZipInfo], max_bytes: int
) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    """The arrays the metadata declares, checked against the central directory (sizes only)."""
    declared = meta.get("arrays")
    wrong = bad(
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
            dtype = np.dtype(spec[0]) if isinstance(spec[0], str) else None
            shape = tuple(spec[1])
            ok = (
                dtype is not None
                and dtype.kind in DTYPE_KINDS
                and len(spec) == 2
                and all(type(n) is int and n >= 0 for n in shape)
                and len(shape) <= 8
            )
        except (TypeError, ValueError, IndexError, KeyError):
            ok = False
        if not ok:
            raise wrong
        assert dtype is not None
        nbytes = math.prod(shape) * dtype.itemsize
        total += nbytes
        info = members.get(name)
        if info is None:
            raise bad(path, DAMAGED, f"the array member {name!r}", "no such member", "save again")
        if not nbytes <= info.file_size <= nbytes + 65536:
            raise bad(
                path,
                f"the member {name!r} declares another size than its dtype and shape take",
                f"about {nbytes} bytes ({dtype} {shape})",
                f"{info.file_size} bytes",
                "the file was modified: save the learner again",
            )
        out[name] = (dtype, shape)
    extra = set(members) - set(out) - {META}
    if extra:
        raise bad(
            path,
            "the file holds members the metadata does not declare",
            "only declared arrays",
            ", ".join(sorted(extra))[:200],
            _ONLY_OURS,
        )
    if total > max_bytes:
        raise bad(
            path,
            "the arrays are larger than allowed",
            f"at most max_bytes={max_bytes} bytes",
            f"{total} bytes declared",
            "pass a larger max_bytes to load if you trust the file",
        )
    return out
