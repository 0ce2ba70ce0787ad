"""Hostile model files: paths that are not files, sizes and nesting beyond the caps, and states
that are well-formed (their checksum recomputed) but not valid for their class. Each is refused
with an InputError before it can cost memory, hang, or load a broken model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.linear.ofs import OFS
from evofeat.linear.pa import PA
from evofeat.onepass import OPID
from evofeat.registry import make
from tests.io.test_schema import _content, _member, _npy_header, _write


def _forge(path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """A well-formed file whose (unkeyed) checksum matches its altered content."""
    _write(path, meta, arrays)
    return path


def _rows(n: int = 80, d: int = 8, seed: int = 0) -> list[tuple[dict[str, float], int]]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    return [
        ({f"f{j}": float(v) for j, v in enumerate(row)}, int(t))
        for row, t in zip(X, y, strict=True)
    ]


def _trained(model: Any) -> Any:
    for x, y in _rows():
        model.learn_one(x, y)
    return model


# ---------------------------------------------------------------------------- not a regular file
def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "m.npz"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="must be a regular file.*received a character device"):
        io.load(link)


def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading would block forever
    with pytest.raises(InputError, match="must be a regular file.*received a named pipe"):
        io.load(fifo)
    link = tmp_path / "link.npz"
    link.symlink_to(fifo)
    with pytest.raises(InputError, match="named pipe"):
        io.load(link)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must be a regular file.*received a directory"):
        io.load(tmp_path)


def test_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.npz").symlink_to(tmp_path / "b.npz")
    (tmp_path / "b.npz").symlink_to(tmp_path / "a.npz")
    with pytest.raises(InputError, match="cannot be opened.*symlink loop"):
        io.load(tmp_path / "a.npz")


def test_a_symlink_to_a_model_file_loads(tmp_path: Path) -> None:
    path = io.save(_trained(PA()), tmp_path / "m.npz")
    link = tmp_path / "link.npz"
    link.symlink_to(path)
    assert io.load(link).coef_ == io.load(path).coef_


# ---------------------------------------------------------------------------- sizes and nesting
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply: expected at most 64 levels"),
        ("9" * 5000, "unreadable metadata"),  # beyond Python's int-from-text limit
    ],
    ids=["nested-100000-deep", "5000-digit-int"],
)
def test_hostile_metadata_is_refused_before_parsing(
    tmp_path: Path, value: str, message: str
) -> None:
    path = io.save(PA(), tmp_path / "m.npz")
    meta, arrays = _content(path)
    text = json.dumps(meta)[:-1] + ', "extra": ' + value + "}"
    np.savez(path, __meta__=np.frombuffer(text.encode(), dtype=np.uint8), **arrays)
    with pytest.raises(InputError, match=message):
        io.load(path)


def test_arrays_beyond_the_cap_are_refused_before_inflating(tmp_path: Path) -> None:
    """64 MiB of zeros deflate to about 64 KiB: the cap is checked from the directory."""
    path = io.save(PA(), tmp_path / "m.npz")
    meta, _ = _content(path)
    big = np.zeros(1 << 23)
    meta["arrays"] = {"state.w": ["<f8", [1 << 23]]}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("__meta__.npy", _member(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
        zf.writestr("state.w.npy", _member(big))
    assert path.stat().st_size < 1 << 20
    with pytest.raises(InputError, match="larger than allowed: expected at most max_bytes="):
        io.load(path, max_bytes=1 << 24)


def test_the_default_cap_is_stated() -> None:
    assert io.MAX_BYTES == 1 << 31 and io.MAX_DEPTH == 64


_LIMITED = """
import resource, sys
from evofeat import io
from evofeat.base import InputError
import evofeat.onepass, sklearn.linear_model, sklearn.multiclass
vm = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) << 10
resource.setrlimit(resource.RLIMIT_AS, (vm + (128 << 20), resource.RLIM_INFINITY))
try:
    io.load(sys.argv[1], max_bytes=1 << 40)
except InputError as err:
    print("InputError:", err)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_file_larger_than_memory_ends_in_a_clear_error(tmp_path: Path) -> None:
    """A real deflated member of 256 MiB (about 1 MiB on disk), loaded with the caps lifted in a
    process whose address space cannot hold it: a clear error, no MemoryError traceback."""
    X, y, cstage = _incdec()
    saved = io.save(OPID(n_survived=3, seed=0).fit(X, y, cstage=cstage), tmp_path / "opid.npz")
    meta, arrays = _content(saved)
    key = meta["attrs"]["coef_"]["__array__"]  # an estimator's arrays have no fixed shape
    shape = (4 << 20, 8)  # 256 MiB of float64 zeros
    meta["arrays"][key] = ["<f8", list(shape)]
    path = tmp_path / "m.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("__meta__.npy", _member(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
        for name, arr in arrays.items():
            if name != key:
                zf.writestr(f"{name}.npy", _member(arr))
        with zf.open(f"{key}.npy", "w", force_zip64=True) as fh:
            fh.write(_npy_header("<f8", shape))
            block = bytes(1 << 20)
            for _ in range(256):
                fh.write(block)
    assert path.stat().st_size < 4 << 20
    out = subprocess.run(  # 128 MiB of address space left once evofeat is imported
        [sys.executable, "-c", _LIMITED, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "InputError:" in out.stdout and "not enough memory" in out.stdout, out.stdout


# ---------------------------------------------------------------------------- states
def test_nan_weights_are_refused_whatever_the_checksum(tmp_path: Path) -> None:
    path = io.save(_trained(PA()), tmp_path / "m.npz")
    meta, arrays = _content(path)
    arrays["state.w"] = np.full_like(arrays["state.w"], np.nan)
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match=r"state of PA is not valid: 'w' holds NaN or inf"):
        io.load(path)


def test_a_parameter_field_that_differs_from_the_parameters_is_refused(tmp_path: Path) -> None:
    path = io.save(_trained(PA(C=0.5)), tmp_path / "m.npz")
    meta, arrays = _content(path)
    arrays["state.C"] = np.array(np.inf)
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="'C' differs from what the parameters set"):
        io.load(path)


def test_an_ofs_support_larger_than_its_budget_is_refused(tmp_path: Path) -> None:
    model = _trained(OFS(budget_count=1))
    assert np.count_nonzero(model._state.v) == 1
    path = io.save(model, tmp_path / "m.npz")
    meta, arrays = _content(path)
    v = arrays["state.v"].copy()
    v[:7] = 0.5  # 7 non-zero weights for B = 1, the heap left as it was
    arrays["state.v"] = v
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="non-zero weights outside its support 'heap'"):
        io.load(path)
    arrays["state.hsize"] = np.array(7)  # and a heap that claims them
    heap, pos = arrays["state.heap"].copy(), np.full_like(arrays["state.pos"], -1)
    heap[:7] = np.arange(7)
    pos[:7] = np.arange(7)
    arrays["state.heap"], arrays["state.pos"] = heap, pos
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="'hsize' exceeds 'B'"):
        io.load(path)


def test_heap_positions_that_disagree_are_refused(tmp_path: Path) -> None:
    path = io.save(_trained(make("stsd-i", budget=0.5)), tmp_path / "m.npz")
    meta, arrays = _content(path)
    pos = arrays["state.pos"].copy()
    pos[pos >= 0] = 0  # every member at position 0
    arrays["state.pos"] = pos
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="heap's index arrays point outside the state or disagree"):
        io.load(path)


def _incdec() -> tuple[Any, ...]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 8))
    y = np.digitize(X[:, 2] + X[:, 5], [0.0])
    cstage = [(X[a : a + 50, :5], y[a : a + 50]) for a in range(0, 200, 50)]
    return X[200:260, 2:], y[200:260], cstage


def test_opid_with_nan_arrays_is_refused(tmp_path: Path) -> None:
    X, y, cstage = _incdec()
    path = io.save(OPID(n_survived=3, seed=0).fit(X, y, cstage=cstage), tmp_path / "m.npz")
    meta, arrays = _content(path)
    for key in [k for k, a in arrays.items() if a.dtype.kind == "f"]:
        arrays[key] = np.full_like(arrays[key], np.nan)
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="state of OPID is not valid: .* holds NaN or inf"):
        io.load(path)


def test_alpha_investing_with_nan_or_negative_wealth_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6))
    path = io.save(make("alpha-investing").fit(X, X[:, 0] > 0), tmp_path / "s.npz")
    meta, arrays = _content(path)
    meta["attrs"]["wealth_"] = {"__float__": "nan"}
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="'wealth_' holds nan"):
        io.load(path)
    meta["attrs"]["wealth_"] = -1.0
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="'wealth_' is negative"):
        io.load(path)


# ---------------------------------------------------------------------------- added later
def test_a_file_without_a_parameter_and_field_added_since_loads_at_their_defaults(
    tmp_path: Path,
) -> None:
    """A file written before ``fit_intercept`` existed: the parameter takes its default and the
    scalar state fields it brought take a fresh state's values, so the learner continues."""
    model = _trained(PA(C=0.5))
    path = io.save(model, tmp_path / "m.npz")
    meta, arrays = _content(path)
    del meta["params"]["fit_intercept"]
    for field in ("fit_intercept", "intercept"):
        del arrays[f"state.{field}"]
        meta["state_fields"].remove(field)
    _forge(path, meta, arrays)
    loaded = io.load(path)
    assert loaded.get_params() == model.get_params()
    x = {"f0": 1.0, "f3": -2.0}
    assert loaded.decision_one(x) == model.decision_one(x)
    meta["state_fields"].remove("w")  # an array field cannot be made up
    del arrays["state.w"]
    _forge(path, meta, arrays)
    with pytest.raises(InputError, match="state does not fit PA in this evofeat"):
        io.load(path)


def test_a_composites_members_are_checked_against_their_own_declarations(tmp_path: Path) -> None:
    """``auto`` holds scaled members: a member's field is read against that member's declaration
    (NAG's ``s`` is a largest |x| seen, never negative), a scaler's count never negative."""
    path = io.save(_trained(make("auto")), tmp_path / "m.npz")
    meta, arrays = _content(path)
    nested = next(k for k in arrays if k.endswith("_learner__s"))  # a scaled NAG member's s
    for key, value in [(nested, -1.0), (next(k for k in arrays if k.endswith("_count")), -5.0)]:
        changed = dict(arrays)
        changed[key] = arrays[key].copy()
        changed[key].reshape(-1)[0] = value
        _forge(path, meta, changed)
        with pytest.raises(
            InputError, match=f"state of Auto is not valid: '{key[6:]}' is negative"
        ):
            io.load(path)
