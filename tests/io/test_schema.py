"""Model files refuse whatever does not fit the class's own schema, whatever the checksum says;
sizes are checked from the zip's directory before anything is inflated; one-pass estimators and
selectors are saved and loaded too, and predict / select exactly as the originals."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.linear.pa import PA
from evofeat.linear.stsd import STSD
from evofeat.onepass import OPID, SVM, OPIDe, SVMa, SVMs
from evofeat.selection import SELECTORS


def _trained(model: Any, n: int = 60) -> Any:
    rng = np.random.default_rng(0)
    for i in range(n):
        x = {f"f{j}": float(v) for j, v in enumerate(rng.standard_normal(6)) if j < 2 + i // 10}
        model.learn_one(x, 1 if x["f0"] + x["f1"] > 0 else -1)
    return model


def _content(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    with np.load(path, allow_pickle=False) as npz:
        content = {k: npz[k] for k in npz.files}
    return json.loads(content.pop("__meta__").tobytes()), content


def _write(path: Path, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Write a well-formed file whose checksum matches its (altered) content: a forged file."""
    meta["arrays"] = {k: [a.dtype.str, list(a.shape)] for k, a in sorted(arrays.items())}
    meta["sha256"] = io._digest(arrays, meta)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, __meta__=blob, **arrays)


def _forge(path: Path, change: dict[str, Any] | None = None, **arrays: np.ndarray) -> None:
    meta, content = _content(path)
    meta.update(change or {})
    content.update(arrays)
    _write(path, meta, content)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    return io.save(_trained(STSD(budget=0.5)), tmp_path / "m.npz")


def test_a_forged_file_with_a_valid_checksum_loads_when_it_fits(saved: Path) -> None:
    _forge(saved)  # re-written by the forger's helper, unchanged: still a valid file
    assert io.load(saved).n_learned_ == 60


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": {"_capacity": 10**9}}, r"metadata does not fit STSD.*extra \['extra'\]"),
        ({"capacity": 10**9}, "capacity does not fit the features"),
        ({"capacity": 1}, "capacity does not fit the features"),
        ({"features": [["str", "a"]] * 3}, "distinct feature names"),
        ({"state_fields": ["v"]}, "state does not fit STSD"),
        (
            {"params": {**STSD().get_params(), "lambda_": 1.0}},
            "parameters do not fit STSD: expected among C, budget, .*mode, .*received lambda_;",
        ),
        ({"params": {"C": 1.0}}, "'C' differs from what the parameters set"),
        ({"params": {**STSD().get_params(), "budget": -1.0}}, "parameters are not valid"),
        ({"class": "evofeat.linear.ofs:OFS"}, "parameters do not fit OFS"),
        ({"class": "evofeat.onepass:OPID"}, "metadata does not fit OPID"),
    ],
)
def test_metadata_outside_the_schema_is_refused(
    saved: Path, change: dict[str, Any], message: str
) -> None:
    _forge(saved, change)
    with pytest.raises(InputError, match=message):
        io.load(saved)


def test_missing_params_is_a_clean_error(saved: Path) -> None:
    meta, content = _content(saved)
    del meta["params"]
    _write(saved, meta, content)
    with pytest.raises(InputError, match=r"metadata does not fit STSD.*missing \['params'\]"):
        io.load(saved)


@pytest.mark.parametrize(
    "alter",
    [
        lambda a: a[:-1],  # a per-feature array shorter than the capacity
        lambda a: np.concatenate([a, a]),  # longer
        lambda a: a.astype(np.float32),  # another dtype
        lambda a: a.reshape(-1, 1),  # another number of axes
    ],
)
def test_state_arrays_must_have_the_schema_shape_and_dtype(saved: Path, alter: Any) -> None:
    _, content = _content(saved)
    _forge(saved, **{"state.v": alter(content["state.v"])})
    with pytest.raises(InputError, match="arrays do not fit STSD's state"):
        io.load(saved)


def test_heap_indices_past_the_capacity_are_refused(saved: Path) -> None:
    _, content = _content(saved)
    heap = content["state.heap"].copy()
    heap[0] = 10**6
    _forge(saved, **{"state.heap": heap})
    with pytest.raises(InputError, match="heap. points outside the state"):
        io.load(saved)


def test_visible_set_outside_the_features_is_refused(saved: Path) -> None:
    _forge(saved, visible=np.array([0, 99], dtype=np.int64))
    with pytest.raises(InputError, match="visible feature set does not fit"):
        io.load(saved)


def test_undeclared_member_is_refused(saved: Path) -> None:
    meta, content = _content(saved)
    _write(saved, meta, content)
    with zipfile.ZipFile(saved, "a") as zf:
        zf.writestr("extra._capacity.npy", b"x")
    with pytest.raises(InputError, match="members the metadata does not declare"):
        io.load(saved)


# ---------------------------------------------------------------------------- sizes before inflating
def _opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = zipfile.ZipFile.open

    def spy(self: zipfile.ZipFile, name: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(getattr(name, "filename", name))
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    return names


def _npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    import io as stdio

    buf = stdio.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def test_a_one_megabyte_zip_bomb_is_refused_without_inflating(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    meta, content = _content(saved)
    bomb = saved.with_name("bomb.npz")
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("__meta__.npy", _member(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
        for name, arr in content.items():
            if name != "state.v":
                zf.writestr(f"{name}.npy", _member(arr))
        with zf.open("state.v.npy", "w", force_zip64=True) as fh:  # 1 GiB of zeros
            fh.write(_npy_header("<f8", (1 << 27,)))
            block = bytes(1 << 20)
            for _ in range(1024):
                fh.write(block)
    assert bomb.stat().st_size < 1_100_000
    opened = _opened(monkeypatch)
    with pytest.raises(InputError, match="'state.v' declares another size"):
        io.load(bomb)
    assert opened == ["__meta__.npy"], "only the metadata may be inflated before the sizes pass"


def _member(arr: np.ndarray) -> bytes:
    import io as stdio

    buf = stdio.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def test_a_header_declaring_1e11_values_is_refused(saved: Path) -> None:
    meta, content = _content(saved)
    huge = _npy_header("<f8", (10**11,)) + content["state.v"].tobytes()
    rewritten = saved.with_name("huge.npz")

    def write() -> None:
        with zipfile.ZipFile(rewritten, "w") as zf:
            zf.writestr("__meta__.npy", _member(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
            for name, arr in content.items():
                zf.writestr(f"{name}.npy", huge if name == "state.v" else _member(arr))

    write()
    with pytest.raises(InputError, match="'state.v.npy' does not match the metadata"):
        io.load(rewritten)
    meta["arrays"]["state.v"] = ["<f8", [10**11]]  # the metadata says so too
    meta["sha256"] = "0" * 64
    write()
    with pytest.raises(InputError, match="declares another size than its dtype and shape take"):
        io.load(rewritten)


def test_other_compression_and_oversized_files_are_refused(saved: Path) -> None:
    meta, content = _content(saved)
    other = saved.with_name("bz.npz")
    with zipfile.ZipFile(other, "w", compression=zipfile.ZIP_BZIP2) as zf:
        zf.writestr("__meta__.npy", _member(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
        for name, arr in content.items():
            zf.writestr(f"{name}.npy", _member(arr))
    with pytest.raises(InputError, match="stored or deflated members"):
        io.load(other)
    with pytest.raises(InputError, match="larger than allowed: expected at most max_bytes=100"):
        io.load(saved, max_bytes=100)


# ---------------------------------------------------------------------------- estimators and selectors
def _incdec(n_classes: int = 2) -> tuple[Any, ...]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 8))
    y = np.digitize(X[:, 2] + X[:, 5], [-0.5, 0.5][: n_classes - 1])
    cstage = [(X[a : a + 50, :5], y[a : a + 50]) for a in range(0, 200, 50)]  # [v, s]
    return X[200:260, 2:], y[200:260], X[260:, 2:], cstage  # E-stage [s, a]


ESTIMATORS = [
    lambda: OPID(n_survived=3, seed=0),
    lambda: OPID(n_survived=3, estage_l2=1.0, kernel="rbf", seed=0),
    lambda: OPIDe(n_survived=3, Cs=(0.1, 1.0), seed=0),
    lambda: SVM(Cs=(0.1, 1.0), seed=0),
    lambda: SVMs(n_survived=3, seed=0),
    lambda: SVMa(n_survived=3, seed=0),
]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("build", ESTIMATORS)
def test_one_pass_estimators_predict_exactly_as_saved(
    build: Any, n_classes: int, tmp_path: Path
) -> None:
    X, y, X_test, cstage = _incdec(n_classes)
    model = build().fit(X, y, cstage=cstage)
    loaded = io.load(io.save(model, tmp_path / "m.npz"), expected=type(model))
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X_test), model.predict(X_test))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(loaded.predict_proba(X_test), model.predict_proba(X_test))


def test_estimator_state_is_checked_against_its_schema(tmp_path: Path) -> None:
    X, y, _, cstage = _incdec()
    path = io.save(OPID(n_survived=3, seed=0).fit(X, y, cstage=cstage), tmp_path / "m.npz")
    meta, content = _content(path)
    coef = meta["attrs"]["coef_cstage_"]["__array__"]
    _forge(path, **{coef: content[coef][:2]})  # W_s* for 2 survived features instead of 3
    with pytest.raises(InputError, match="fitted state of OPID is inconsistent"):
        io.load(path)
    meta, content = _content(path)
    meta["attrs"]["estage_"] = {"__array__": coef}
    _write(path, meta, content)
    with pytest.raises(InputError, match="fitted attribute 'estage_' does not fit OPID"):
        io.load(path)
    meta["attrs"]["extra_"] = 1
    _write(path, meta, content)
    with pytest.raises(InputError, match="fitted attributes do not fit OPID"):
        io.load(path)
    with pytest.raises(InputError, match="not fitted"):
        io.save(OPID(n_survived=3), tmp_path / "unfitted.npz")


@pytest.mark.parametrize("name", list(SELECTORS))
def test_selectors_select_exactly_as_saved(name: str, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 10))
    y = np.where(X[:, 0] + X[:, 7] > 0, 1, -1)
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(10)])
    sel = SELECTORS[name](budget=3).fit(df.iloc[:, :4], y)
    for j in range(4, 10):
        sel.add_feature(df.iloc[:, j])
    loaded = io.load(io.save(sel, tmp_path / "s.npz"), expected=name)
    np.testing.assert_array_equal(loaded.get_support(), sel.get_support())
    np.testing.assert_array_equal(loaded.transform(df), sel.transform(df))
    assert loaded.get_feature_names_out().tolist() == sel.get_feature_names_out().tolist()
    np.testing.assert_array_equal(loaded.relevance_, sel.relevance_)
    loaded.add_feature(
        X[:, 0]
    )  # it reads further columns (tests/io/test_selector_continues_after_load.py)
    assert loaded.n_features_in_ == 11
    refit = loaded.fit(X[:, :4], y)  # fitting again is allowed and forgets the file
    assert refit.get_support().shape == (4,)


def test_selector_support_outside_its_features_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    path = io.save(SELECTORS["saola"]().fit(X, X[:, 0] > 0), tmp_path / "s.npz")
    _forge(path, {"support": [0, 7]})
    with pytest.raises(InputError, match="selection does not fit the selector"):
        io.load(path)


def test_pa_round_trip_still_works(tmp_path: Path) -> None:
    model = _trained(PA())
    loaded = io.load(io.save(model, tmp_path / "m.npz"), expected="pa-i")
    assert loaded.coef_ == model.coef_


def test_a_member_declaring_an_impossible_ratio_is_refused(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A central directory claiming 2 GB from a few bytes (beyond deflate's ~1032:1) is a bomb."""
    import struct

    data = bytearray(saved.read_bytes())
    name_at = data.index(b"state.v.npy", data.index(b"PK\x01\x02"))
    at = data.rindex(b"PK\x01\x02", 0, name_at)  # the directory entry of state.v.npy
    struct.pack_into("<I", data, at + 24, 2_000_000_000)  # its uncompressed size
    saved.write_bytes(bytes(data))
    opened = _opened(monkeypatch)
    with pytest.raises(InputError, match="inflates too much .*at most 1100 times"):
        io.load(saved)
    assert opened == []
