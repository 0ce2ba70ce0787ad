"""Model files: every registered learner saved mid-stream continues identically; bad files are refused."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError, OnlineLearner
from evofeat.evaluate import prequential
from evofeat.linear.pa import PA
from evofeat.registry import ONLINE, make
from evofeat.streams import trapezoidal

NAMES = list(ONLINE)  # every registered online learner


def _learner(name: str) -> OnlineLearner:
    model = make(name)
    if model.task == "multiclass" and getattr(model, "n_classes", 0) is None:
        model.set_params(n_classes=3)
    return model


def _data(task: str, n: int = 200, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(n)
    if task == "regression":
        return X, f
    if task == "multiclass":
        return X, np.digitize(f, [-0.5, 0.5]).astype(np.int64)
    return X, np.where(f > 0, 1, -1)


def _rows(task: str, n: int = 200) -> list[tuple[dict, object]]:
    """Emerging then vanishing features, keys of mixed types (int and str)."""
    X, y = _data(task, n=n)
    rows = []
    for i, (row, label) in enumerate(zip(X, y, strict=True)):
        keep = range(min(8, 2 + i // 15)) if i < n // 2 else range(i // 40, 8)
        rows.append(({(j if j % 2 else f"f{j}"): float(row[j]) for j in keep}, label.item()))
    return rows


def _run(model: OnlineLearner, rows: list[tuple[dict, object]]) -> list[object]:
    out = []
    for x, y in rows:
        out.append((model.predict_one(x), model.decision_one(x)))
        model.learn_one(x, y)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_saved_learner_continues_identically_dict_path(name: str, tmp_path: Path) -> None:
    model = _learner(name)
    rows = _rows(model.task)
    _run(model, rows[:110])  # past the point where features start to vanish
    path = io.save(model, tmp_path / "m.npz")
    loaded = io.load(path, expected=name)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    assert loaded.feature_index_.names == model.feature_index_.names
    assert loaded.n_learned_ == model.n_learned_ == 110
    assert _run(loaded, rows[110:]) == _run(model, rows[110:])
    assert loaded._state._fields == model._state._fields
    for field in model._state._fields:
        np.testing.assert_array_equal(getattr(loaded._state, field), getattr(model._state, field))


@pytest.mark.parametrize("name", NAMES)
def test_saved_learner_continues_identically_array_path(name: str, tmp_path: Path) -> None:
    model = _learner(name)
    X, y = _data(model.task, n=300)
    first = trapezoidal(X[:150], y[:150], task=model.task)
    prequential(model, first)
    loaded = io.load(io.save(model, tmp_path / "m.npz"))
    rest = trapezoidal(X[150:], y[150:], task=model.task)
    a = prequential(loaded, rest, keep_predictions=True)
    b = prequential(model, rest, keep_predictions=True)
    assert a.labels is not None and b.labels is not None
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.scores, b.scores)


def test_unfitted_learner_round_trips(tmp_path: Path) -> None:
    loaded = io.load(io.save(PA(mode="pa-ii", C=0.25), tmp_path / "m.npz"))
    assert loaded.get_params() == {"mode": "pa-ii", "C": 0.25, "fit_intercept": False}
    assert loaded.predict_one({"a": 1.0}) is None


def test_feature_names_keep_their_types(tmp_path: Path) -> None:
    model = (
        PA()
        .learn_one({1: 1.0, "1": 2.0, 2.5: 3.0, False: 4.0}, 1)
        .learn_one({np.int64(7): 1.0}, -1)
    )
    loaded = io.load(io.save(model, tmp_path / "m.npz"))
    assert loaded.feature_index_.names == model.feature_index_.names == [1, 2.5, "1", False, 7]
    assert [type(n) for n in loaded.feature_index_.names] == [int, float, str, bool, int], (
        "str/int/float/bool keep their type; a NumPy integer comes back as int"
    )
    assert loaded.coef_ == model.coef_


def test_unsupported_feature_name_is_refused(tmp_path: Path) -> None:
    model = PA().learn_one({("a", 1): 1.0}, 1)
    with pytest.raises(InputError, match="feature name .* expected feature names of type str, int"):
        io.save(model, tmp_path / "m.npz")
    assert not list(tmp_path.iterdir()), "a failed save must leave no file behind"


def test_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = io.save(PA(C=0.5), tmp_path / "m.npz")
    before = path.read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", boom)
    with pytest.raises(OSError, match="disk full"):
        io.save(PA(C=2.0), path)
    assert path.read_bytes() == before, "the old file must survive a failed write"
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"], "no temporary file may be left"


# ---------------------------------------------------------------------------- bad files
def _saved(tmp_path: Path) -> Path:
    model = PA()
    for x, y in _rows("binary", 40):
        model.learn_one(x, y)
    return io.save(model, tmp_path / "m.npz")


def _rewrite(
    path: Path,
    change: dict[str, object] | None = None,
    arrays: dict[str, np.ndarray] | None = None,
    keep_digest: bool = True,
) -> None:
    """Rewrite a model file with changed metadata or arrays (a well-formed but altered file)."""
    with np.load(path, allow_pickle=False) as npz:
        content = {k: npz[k] for k in npz.files}
    meta = json.loads(content.pop("__meta__").tobytes())
    meta.update(change or {})
    content.update(arrays or {})
    if not keep_digest:
        meta["sha256"] = io._digest(content, meta)
    blob = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, __meta__=blob, **content)


def test_other_format_version_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, {"format_version": 99, "evofeat_version": "9.9"}, keep_digest=False)
    with pytest.raises(
        InputError,
        match=r"format version.*expected format version 2.*received version 99 "
        r"\(written by evofeat 9.9\); fix: load it with",
    ):
        io.load(path)


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 3, 0):
        path.write_bytes(data[:cut])
        with pytest.raises(
            InputError, match="not a complete evofeat model file.*fix: the file is truncated"
        ):
            io.load(path)


@pytest.mark.parametrize("member", ["__meta__.npy", "state.w.npy", "visible.npy"])
def test_flipped_byte_is_refused(tmp_path: Path, member: str) -> None:
    """A flipped byte inside any stored member's bytes is caught.

    (A byte of the zip's own bookkeeping that does not change what is read,
    such as a data descriptor, is not tampering and may pass.)
    """
    path = _saved(tmp_path)
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    data = bytearray(path.read_bytes())
    header = 30 + len(info.filename.encode()) + len(info.extra)  # local file header
    data[info.header_offset + header + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="evofeat model file|checksum"):
        io.load(path)


def test_tampered_weights_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    with np.load(path) as npz:
        w = npz["state.w"].copy()
    w[0] += 1.0
    _rewrite(path, arrays={"state.w": w})
    with pytest.raises(InputError, match="checksum does not match.*fix: the file was modified"):
        io.load(path)


def test_tampered_parameters_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, {"params": {"mode": "pa-i", "C": 100.0, "fit_intercept": False}})
    with pytest.raises(InputError, match="checksum"):
        io.load(path)


def test_class_outside_evofeat_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    _rewrite(path, {"class": "os:system"}, keep_digest=False)
    with pytest.raises(InputError, match="outside evofeat.*received 'os:system'"):
        io.load(path)
    _rewrite(path, {"class": "evofeat.io:save"}, keep_digest=False)
    with pytest.raises(InputError, match="not an online learner"):
        io.load(path)


def test_pickled_objects_are_never_loaded(tmp_path: Path) -> None:
    path = tmp_path / "evil.npz"
    np.savez(path, __meta__=np.array([{"kind": "evofeat-model"}], dtype=object))
    with pytest.raises(
        InputError, match="does not match the metadata: expected uint8 1-D, received object"
    ):
        io.load(path)


def test_plain_npz_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plain.npz"
    np.savez(path, w=np.zeros(3))
    with pytest.raises(InputError, match="without metadata"):
        io.load(path)
    path.write_text("not a zip")
    with pytest.raises(InputError, match="not a complete evofeat model file"):
        io.load(path)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("__meta__.npy", b"garbage")
    with pytest.raises(InputError, match="not a complete evofeat model file"):
        io.load(path)


def test_expected_learner_is_checked(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    assert isinstance(io.load(path, expected="pa-i"), PA)
    assert isinstance(io.load(path, expected=PA), PA)
    assert isinstance(io.load(path, expected=OnlineLearner), PA)
    assert isinstance(io.load(path, expected="evofeat.linear.pa:PA"), PA)
    with pytest.raises(
        InputError, match=r"another learner: expected pa-ii, received evofeat.linear.pa:PA \(pa-i\)"
    ):
        io.load(path, expected="pa-ii")
    with pytest.raises(InputError, match="expected perceptron"):
        io.load(path, expected="perceptron")
    with pytest.raises(InputError, match="unknown learner 'pa-j'"):
        io.load(path, expected="pa-j")


def test_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        io.load(tmp_path / "nothing.npz")


def test_not_a_learner_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        InputError, match="only evofeat's learners, one-pass estimators and selectors"
    ):
        io.save(object(), tmp_path / "m.npz")  # type: ignore[arg-type]


VARIANTS = [
    ("ofs", {"step": "adagrad"}),
    ("ofs", {"truncate_by": "metric", "step": "adagrad"}),
    ("ofs", {"truncate_by": "sum", "step": "adagrad"}),
    ("ofs", {"budget_count": 3, "radius": 2.0}),
    ("stsd-i", {"variant": "original-code"}),
    ("stsd-i-rand", {"variant": "original-code"}),
    ("stsd-i", {"step": "adagrad"}),
    ("rand", {"draw": "per-mistake"}),
    ("ofs-p", {"budget_count": 2}),
    ("fesl-c", {"base": "adagrad"}),
    ("fesl-c", {"base": "ftrl"}),
    ("fesl-c", {"base": "nag", "fit_intercept": True}),
    ("fesl-s", {"clock": "switch"}),  # its uint64 RNG state below 2^63: stored as int64
    ("nag", {"invariant": True}),
    ("ftrl", {"fit_intercept": True}),
    ("stsd-multiclass", {"n_classes": 3, "budget": 0.3}),
    ("online-zscore+stsd-i", {}),  # composites: their members' declarations, prefixed
    ("online-quantile+ofs", {}),
]


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=[f"{n}-{p}" for n, p in VARIANTS])
def test_variants_pass_their_state_declaration_and_continue_identically(
    name: str, params: dict[str, object], tmp_path: Path
) -> None:
    """Non-default parameters exercise other fields (AdaGrad's G, a rank heap, the original
    code's rules, the random sets): a saved state always satisfies its class's declaration."""
    model = make(name, **params)
    rows = _rows(model.task)
    _run(model, rows[:130])
    loaded = io.load(io.save(model, tmp_path / "m.npz"))
    assert _run(loaded, rows[130:]) == _run(model, rows[130:])


def test_a_value_outside_its_fields_type_is_refused(tmp_path: Path) -> None:
    path = io.save(make("stsd-i-rand").learn_one({"a": 1.0}, 1), tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as npz:
        declared = json.loads(npz["__meta__"].tobytes())["arrays"]
    declared["state.dim"] = ["<u8", []]  # an int64 field declared (and stored) as uint64
    dim = np.array(2**64 - 1, dtype=np.uint64)
    _rewrite(path, {"arrays": declared}, arrays={"state.dim": dim}, keep_digest=False)
    with pytest.raises(InputError, match="does not fit STSD's fields|not valid"):
        io.load(path)
