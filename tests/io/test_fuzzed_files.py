"""Model files mutated at random (hypothesis): cut short, bytes flipped, declared sizes changed,
arrays set to NaN, inf or out-of-range indices, metadata nested deep. ``load`` either returns a
valid model of the saved class or raises InputError: never another exception, and never more
memory than the declared sizes, which the caps bound before anything is allocated."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evofeat import io
from evofeat.base import InputError, OnlineLearner
from evofeat.onepass import OPID
from evofeat.registry import make

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # probes of broken states

_DIR = Path(tempfile.mkdtemp(prefix="evofeat-fuzz-"))
atexit.register(shutil.rmtree, _DIR, True)
_CAP = 1 << 26  # a 64 MiB cap: no example may make load allocate more


def _rows(n: int = 60) -> list[tuple[dict[str, float], int]]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 8))
    return [
        ({f"f{j}": float(v) for j, v in enumerate(row) if j < 3 + i // 10}, 1 if row[0] > 0 else -1)
        for i, row in enumerate(X)
    ]


def _build(name: str) -> Any:
    if name == "opid":
        rng = np.random.default_rng(1)
        X = rng.normal(size=(300, 8))
        y = np.digitize(X[:, 2] + X[:, 5], [0.0])
        cstage = [(X[a : a + 50, :5], y[a : a + 50]) for a in range(0, 200, 50)]
        return OPID(n_survived=3, seed=0).fit(X[200:260, 2:], y[200:260], cstage=cstage)
    if name == "alpha-investing":
        X = np.random.default_rng(2).normal(size=(100, 6))
        return make(name).fit(X, X[:, 0] + 0.1 * X[:, 3] > 0)
    model = make(name, **({"budget_count": 2} if name == "ofs" else {}))
    for x, y in _rows():
        model.learn_one(x, y)
    return model


_NAMES = ["pa-i", "ofs", "stsd-i", "fesl-c", "opid", "alpha-investing"]
_TYPES = {name: type(_build(name)) for name in _NAMES}
_FILES = {name: io.save(_build(name), _DIR / f"{name}.npz").read_bytes() for name in _NAMES}


def _parts(data: bytes) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    path = _DIR / "parts.npz"
    path.write_bytes(data)
    with np.load(path, allow_pickle=False) as npz:
        content = {k: npz[k] for k in npz.files}
    return json.loads(content.pop("__meta__").tobytes()), content


def _write(meta: dict[str, Any], arrays: dict[str, np.ndarray], digest: bool = True) -> bytes:
    if digest:
        meta["sha256"] = io._digest(arrays, meta)
    path = _DIR / "written.npz"
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, __meta__=blob, **arrays)
    return path.read_bytes()


# ---------------------------------------------------------------------------- mutations
@st.composite
def _truncated(draw: Any, data: bytes) -> bytes:
    return data[: draw(st.integers(0, len(data) - 1))]


@st.composite
def _flipped(draw: Any, data: bytes) -> bytes:
    out = bytearray(data)
    for at in draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=8)):
        out[at] ^= draw(st.integers(1, 255))
    return bytes(out)


_HOSTILE = st.sampled_from([np.nan, np.inf, -np.inf, -1.0, 1e308, -(2**62), 2**62, 10**6])


@st.composite
def _bad_values(draw: Any, data: bytes) -> bytes:
    """Set entries of a state array to NaN, inf, huge or negative values (checksum recomputed)."""
    meta, arrays = _parts(data)
    name = draw(st.sampled_from(sorted(arrays)))
    arr = arrays[name].copy()
    if arr.size and arr.dtype.kind in "fiu":
        value = draw(_HOSTILE)
        flat = arr.reshape(-1)
        at = draw(st.integers(0, flat.size - 1))
        if arr.dtype.kind == "f":
            flat[at] = value
        elif np.isfinite(value) and np.iinfo(arr.dtype).min <= value <= np.iinfo(arr.dtype).max:
            flat[at] = int(value)
    arrays[name] = arr
    return _write(meta, arrays)


@st.composite
def _resized(draw: Any, data: bytes) -> bytes:
    """Declare another shape for an array (header, metadata and checksum consistent or not)."""
    meta, arrays = _parts(data)
    name = draw(st.sampled_from(sorted(arrays)))
    shape = list(arrays[name].shape) or [1]
    axis = draw(st.integers(0, len(shape) - 1))
    shape[axis] = draw(st.sampled_from([0, 1, shape[axis] + 1, 2**31, 2**40, 2**62]))
    if draw(st.booleans()):  # the metadata only: the member's header disagrees
        meta["arrays"][name] = [arrays[name].dtype.str, shape]
        return _write(meta, arrays, digest=False)
    if np.prod(shape, dtype=float) * arrays[name].itemsize < 1 << 24:  # a real array of it
        arrays[name] = np.resize(arrays[name], shape)
    meta["arrays"] = {k: [a.dtype.str, list(a.shape)] for k, a in arrays.items()}
    meta["arrays"][name] = [arrays[name].dtype.str, shape]
    return _write(meta, arrays)


@st.composite
def _meta_changed(draw: Any, data: bytes) -> bytes:
    """Replace one metadata entry by a hostile JSON value (nested deep, huge, wrong type)."""
    meta, arrays = _parts(data)
    key = draw(st.sampled_from(sorted(k for k in meta if k != "sha256")))
    depth = draw(st.integers(1, 100_000))
    value = draw(
        st.sampled_from(
            [
                "nest",
                None,
                -1,
                10**400,
                "x" * 100,
                [],
                {},
                [["str", "a"]] * 3,
                {"__float__": "nan"},
            ]
        )
    )
    text = json.dumps({**meta, key: "@@"})
    text = text.replace('"@@"', "[" * depth + "]" * depth if value == "nest" else json.dumps(value))
    path = _DIR / "meta.npz"
    np.savez(path, __meta__=np.frombuffer(text.encode(), dtype=np.uint8), **arrays)
    return path.read_bytes()


_DAMAGE = [_truncated, _flipped]  # the checksum left as it was
_FORGERY = [_bad_values, _resized, _meta_changed]  # well-formed, the checksum recomputed


@st.composite
def _mutated(draw: Any) -> tuple[str, bytes, bool]:
    name = draw(st.sampled_from(_NAMES))
    mutation = draw(st.sampled_from(_DAMAGE + _FORGERY))
    return name, draw(mutation(_FILES[name])), mutation in _FORGERY


def _same_as_saved(model: Any, name: str) -> None:
    """A damaged file that loads holds exactly what was saved (saved again: the same content)."""
    meta, arrays = _parts(io.save(model, _DIR / "again.npz").read_bytes())
    saved_meta, saved_arrays = _parts(_FILES[name])
    assert meta == saved_meta
    assert arrays.keys() == saved_arrays.keys()
    for key, arr in arrays.items():
        np.testing.assert_array_equal(arr, saved_arrays[key])


def _valid(model: Any, name: str) -> None:
    """What a loaded model must be: the saved class, every float of its state finite."""
    assert type(model) is _TYPES[name]
    if isinstance(model, OnlineLearner) and model._state is not None:
        fixed = type(model)._state_spec.fixed  # may be inf when the parameters say so
        for field in model._state._fields:
            value = np.asarray(getattr(model._state, field))
            if value.dtype.kind == "f" and field not in fixed:
                assert np.isfinite(value).all(), field


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples every run: a failure is reproducible in CI
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_mutated())
def test_a_mutated_model_file_loads_validly_or_raises_input_error(
    case: tuple[str, bytes, bool],
) -> None:
    name, data, forged = case
    path = _DIR / "case.npz"
    path.write_bytes(data)
    try:
        model = io.load(path, max_bytes=_CAP)
    except InputError:
        return
    _valid(model, name)
    if not forged:
        _same_as_saved(model, name)


@pytest.mark.parametrize("name", _NAMES)
def test_the_unmutated_files_load(name: str) -> None:
    path = _DIR / "plain.npz"
    path.write_bytes(_FILES[name])
    _valid(io.load(path, max_bytes=_CAP), name)
