"""Tests of evofeat.datasets: registry, loaders, preprocessing, errors, download."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import requires_data, shared_data_dir
from evofeat.base.errors import InputError
from evofeat.datasets import (
    PREPROCESSORS,
    ChecksumError,
    DataFormatError,
    DataNotFoundError,
    Dataset,
    UnknownDatasetError,
    download,
    find,
    list_datasets,
    load,
    preprocess,
    register_preprocessor,
    registry,
    stsd_german_permutations,
)
from evofeat.datasets.catalogue import DATA_DIR, get_entry, names
from evofeat.datasets.readers import ZeroBasedWarning

REQUIRED_NAMES = {
    "magic04", "german", "svmguide3", "splice", "spambase", "a8a", "australian", "credit-a",
    "credit-g", "diabetes", "dna", "kr-vs-kp", "ijcnn1", "ijcnn1-train", "covtype",
    "covtype-binary", "colon", "colon-discretized", "madelon", "arcene", "isolet",
    "hill-valley", "hill-valley-nonoise", "usps", "satimage", "mnist", "reuters1200-view1",
    "reuters1200-view2", "reuters1200-view3", "reuters1200-view4", "reuters1200-view5",
    "ionosphere", "wdbc", "wpbc", "wbc", "dexter", "german-stsd",
}  # fmt: skip
#: The sets the papers used that the shared folder lacks (datasets/data/papers_data.json).
PAPERS_DATA = {
    "codrna", "gisette", "gisette-train", "sensit-vehicle", "protein", "kddcup08", "cifar10-ofs",
    "rfid", "mnist-full",
}  # fmt: skip
BUNDLED = {
    "german", "svmguide3", "australian", "diabetes", "splice", "credit-a", "credit-g",
    "kr-vs-kp", "dna", "german-stsd",
}  # fmt: skip


def _write(path: Path, text: str | bytes) -> Path:
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


# --------------------------------------------------------------------------- registry


def test_registry_names_are_the_required_ones() -> None:
    assert set(names()) == REQUIRED_NAMES | PAPERS_DATA
    assert {n for n in names() if get_entry(n).bundled} == BUNDLED


def test_bundled_files_match_catalog_checksums_and_stay_small() -> None:
    total = 0
    for name in BUNDLED:
        for rec in get_entry(name).records:
            path = DATA_DIR / Path(rec.path).name
            raw = path.read_bytes()
            total += len(raw)
            assert hashlib.sha256(raw).hexdigest() == rec.sha256_gz, path
            assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == rec.sha256_uncompressed
    perms = DATA_DIR / "german_stsd_id_all.csv.gz"
    assert (
        hashlib.sha256(perms.read_bytes()).hexdigest()
        == registry.file_record("permutations/german_stsd_id_all.csv.gz").sha256_gz
    )
    total += perms.stat().st_size
    assert total < 2_000_000
    readme = (DATA_DIR / "README.md").read_text()
    for name in BUNDLED:
        for rec in get_entry(name).records:
            assert Path(rec.path).name in readme
            assert rec.source["commit"] in readme


@requires_data("german")
def test_catalog_matches_shared_manifest() -> None:
    root = shared_data_dir()
    assert root is not None
    manifest = json.loads((root / "manifest.json").read_text())
    data_files = {f["file"]: f for f in manifest["files"] if f["role"] != "documentation"}
    used = {f for n in REQUIRED_NAMES for f in get_entry(n).files}  # papers_data.json: no copy
    assert set(data_files) <= used  # every data file has a registry name
    keys = ["n_rows", "n_features", "label_counts", "sha256_gz", "sha256_uncompressed", "source"]
    for path, record in data_files.items():
        ours = registry.file_record(path)
        for key in keys:
            assert getattr(ours, key) == record.get(key), (path, key)
        assert ours.licence == record["licence"]
    for path in used - set(data_files):  # the STSD files: checked against the folder
        raw = (root / path).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == registry.file_record(path).sha256_gz


def _expected(name: str) -> tuple[int, int, dict[int, int]]:
    """Rows, features and label counts (after encoding) from the catalog's manifest copy."""
    entry = get_entry(name)
    counts: Counter[str] = Counter()
    for rec in entry.records:
        counts.update(rec.label_counts or {})
    if entry.task == "binary":
        pos = str(entry.positive)
        encoded = {1: counts[pos], -1: sum(v for k, v in counts.items() if k != pos)}
    else:
        order = sorted(counts, key=float)
        encoded = {i: counts[k] for i, k in enumerate(order)}
    return entry.n_rows, entry.n_features, encoded


def _data_marks(name: str) -> list[pytest.MarkDecorator]:
    entry = get_entry(name)
    if entry.bundled:
        return []
    return [requires_data(*sorted({Path(f).parts[0] for f in entry.files}))]


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=_data_marks(n)) for n in sorted(REQUIRED_NAMES)]
)
def test_every_registry_entry_matches_the_manifest(name: str) -> None:
    entry = get_entry(name)
    n_rows, n_features, counts = _expected(name)
    ds = load(name, missing="impute")  # impute: keep every row, as the manifest counts them
    assert (ds.n_rows, ds.n_features) == (n_rows, n_features)
    assert ds.task == entry.task
    got = dict(zip(*(v.tolist() for v in np.unique(ds.y, return_counts=True)), strict=True))
    assert got == {k: v for k, v in counts.items() if v}
    assert len(ds.feature_names) == ds.n_features
    if not ds.is_sparse:
        assert np.isfinite(ds.X).all()
    assert ds.X.dtype == np.float64
    assert ds.y.dtype == (np.int64 if ds.task != "regression" else np.float64)
    assert ds.is_sparse == (entry.format in ("libsvm", "sparse-nolabel"))
    if entry.rows_with_missing:
        assert load(name).n_rows == n_rows - entry.rows_with_missing


def test_bundled_sets_load_without_shared_folder(isolated: Path) -> None:
    assert "EVOFEAT_DATA" not in os.environ
    for name in sorted(BUNDLED):
        paths = find(name)
        assert all(p.parent == DATA_DIR for p in paths)
        ds = load(name, missing="impute")
        assert ds.n_rows == get_entry(name).n_rows
    assert not isolated.exists()  # nothing written to the cache


def test_list_datasets_reports_whereabouts(isolated: Path) -> None:
    infos = {i.name: i for i in list_datasets()}
    assert set(infos) == REQUIRED_NAMES | PAPERS_DATA
    assert infos["german"].found_at == DATA_DIR and infos["german"].bundled
    assert infos["a8a"].found_at is None and not infos["a8a"].bundled
    assert infos["ijcnn1"].rows == 141691 and infos["usps"].rows == 9298
    assert infos["arcene"].features == infos["arcene"].n_features == 10000
    assert infos["german"].source.startswith(
        "https://raw.githubusercontent.com/deshanadesai/GreedyBoost/04a6bf0"
    )
    assert "PyPI scikit-multiflow==0.4.1" in infos["covtype"].source
    assert "MIT" in infos["dna"].licence
    assert infos["covtype-binary"].task == "binary" and infos["covtype"].task == "multiclass"
    assert "Cover_Type 2" in infos["covtype-binary"].positive
    assert json.dumps(infos["a8a"].as_dict())  # JSON-friendly for the CLI


def test_lookup_order_env_then_cache(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rel = get_entry("wbc").files[0]
    text = "1,5,1,1,1,2,1,3,1,1,2\n2,5,4,4,5,7,10,3,2,1,4\n"
    (isolated / rel).parent.mkdir(parents=True)
    cached = _write(isolated / rel, text)  # the cache dir has the file
    assert find("wbc") == [cached]
    env = tmp_path / "env"
    (env / rel).parent.mkdir(parents=True)
    in_env = _write(env / rel, text)
    monkeypatch.setenv("EVOFEAT_DATA", str(env))
    assert find("wbc") == [in_env]  # EVOFEAT_DATA wins
    ds = load("wbc")
    assert ds.n_rows == 2 and ds.y.tolist() == [-1, 1] and ds.classes == [2, 4]


def test_missing_data_set_error_says_where_and_how(isolated: Path) -> None:
    with pytest.raises(DataNotFoundError) as exc:
        load("madelon")
    msg = str(exc.value)
    assert "'madelon'" in msg
    assert "EVOFEAT_DATA is not set" in msg
    assert str(isolated / "madelon" / "madelon_train_plus_valid.csv.gz") in msg
    assert "EVOFEAT_DATA" in msg and "converted" in msg
    with pytest.raises(DataNotFoundError, match=r"download\('a8a'\)"):
        find("a8a")
    with pytest.raises(DataNotFoundError, match="pip download scikit-multiflow==0.4.1"):
        load("covtype-binary")


def test_unknown_name_lists_close_matches_first() -> None:
    with pytest.raises(UnknownDatasetError) as exc:
        load("germn")
    assert isinstance(exc.value, KeyError)
    msg = str(exc.value)
    assert msg.startswith("unknown data set 'germn'; did you mean: german")
    assert "covtype-binary" in msg and "reuters1200-view5" in msg
    with pytest.raises(UnknownDatasetError, match="covtype"):
        find("covtyp")


# --------------------------------------------------------------------------- semantics


def test_labels_positive_and_classes() -> None:
    german = load("german")
    assert german.classes == [-1, 1] and int((german.y == 1).sum()) == 300
    credit = load("credit-a")
    assert credit.classes == ["-", "+"]  # '+' (approved) is +1, not the default rule's '-'
    assert load("credit-a", binary_positive="-").classes == ["+", "-"]
    flipped = load("german", binary_positive=-1)
    assert np.array_equal(flipped.y, -german.y)
    dna = load("dna")
    assert dna.task == "multiclass" and dna.classes == [1, 2, 3]
    assert sorted(set(dna.y.tolist())) == [0, 1, 2]
    one_vs_rest = load("dna", binary_positive=3)
    assert one_vs_rest.task == "binary" and one_vs_rest.classes == ["not 3", 3]
    assert int((one_vs_rest.y == 1).sum()) == 1654
    with pytest.raises(ValueError, match="not a label"):
        load("german", binary_positive=7)


def test_german_stsd_and_permutations() -> None:
    perms = stsd_german_permutations()
    assert perms.shape == (20, 1000) and perms.dtype == np.int64
    assert all(np.array_equal(np.sort(r), np.arange(1000)) for r in perms)
    assert perms[0, :3].tolist() == [608, 451, 122]  # authors' 609, 452, 123 (1-based)
    stsd, german = load("german-stsd"), load("german")
    assert stsd.n_features == 24 and not stsd.is_sparse
    assert np.array_equal(stsd.X, german.X.toarray()) and np.array_equal(stsd.y, german.y)


def test_categorical_ordinal_onehot_and_coded() -> None:
    ca = load("credit-a", missing="keep")
    # first row of crx.data: b,30.83,0,u,g,w,v,... ; A1 levels documented as (b, a)
    assert ca.X[0, 0] == 0.0 and ca.X[1, 0] == 1.0  # rows 'b' then 'a'
    assert ca.X[0, 3] == 0.0  # A4 = 'u', first of (u, y, l, t)
    onehot = load("credit-a", categorical="onehot")
    assert onehot.feature_names[:2] == ["A1=b", "A1=a"]
    assert onehot.n_features == 6 + sum(
        len(v) for v in get_entry("credit-a").options["categorical"].values()
    )
    blocks = [i for i, n in enumerate(onehot.feature_names) if n.startswith("A6=")]
    assert np.all(onehot.X[:, blocks].sum(axis=1) == 1.0)
    kr = load("kr-vs-kp", categorical="onehot")
    assert kr.n_features == 35 * 2 + 3 and "katri=n" in kr.feature_names
    aus, aus1 = load("australian"), load("australian", categorical="onehot")
    assert aus.n_features == 14 and aus.X[0, 0] == 1.0  # integer codes kept as in the file
    assert "A1=0" in aus1.feature_names and "A5=14" in aus1.feature_names
    assert aus1.n_features == 6 + sum(
        len(np.unique(aus.X[:, j])) for j in (0, 3, 4, 5, 7, 8, 10, 11)
    )


def test_missing_value_policies() -> None:
    drop = load("credit-a")
    impute = load("credit-a", missing="impute")
    keep = load("credit-a", missing="keep")
    assert drop.n_rows == 653 and impute.n_rows == keep.n_rows == 690
    assert not np.isnan(drop.X).any() and not np.isnan(impute.X).any()
    assert int(np.isnan(keep.X).any(axis=1).sum()) == 37
    a2 = drop.feature_names.index("A2")
    rows = np.isnan(keep.X[:, a2])
    assert rows.sum() == 12
    assert np.allclose(impute.X[rows, a2], np.nanmean(keep.X[:, a2]))
    a1_mode = Counter(keep.X[~np.isnan(keep.X[:, 0]), 0].tolist()).most_common(1)[0][0]
    assert np.all(impute.X[np.isnan(keep.X[:, 0]), 0] == a1_mode)
    onehot_keep = load("credit-a", missing="keep", categorical="onehot")
    a1 = [i for i, n in enumerate(onehot_keep.feature_names) if n.startswith("A1=")]
    assert int(np.isnan(onehot_keep.X[:, a1]).all(axis=1).sum()) == 12


# --------------------------------------------------------------------------- user files


CSV = "x,y,colour,label\n1.5,2,red,yes\n3,?,blue,no\n4,5,red,yes\n6,7,green,no\n"


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_user_csv_with_header(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"mine{suffix}", CSV)
    ds = load(path)
    assert ds.name == "mine" and ds.source == str(path)
    assert ds.feature_names == ["x", "y", "colour"]
    assert ds.X.tolist() == [[1.5, 2.0, 2.0], [4.0, 5.0, 2.0], [6.0, 7.0, 1.0]]  # blue<green<red
    assert ds.classes == ["no", "yes"] and ds.y.tolist() == [1, 1, -1]
    oh = load(str(path), categorical="onehot", missing="impute")
    assert oh.feature_names == ["x", "y", "colour=blue", "colour=green", "colour=red"]
    assert oh.X[1, 1] == pytest.approx((2 + 5 + 7) / 3)
    assert find(path) == [path]
    by_name = load(path, label_column="x", task="regression")  # row 2 ('?') dropped
    assert by_name.task == "regression" and by_name.y.tolist() == [1.5, 4.0, 6.0]
    assert by_name.feature_names == ["y", "colour", "label"]


def test_user_headerless_whitespace_and_tsv(tmp_path: Path) -> None:
    dat = _write(tmp_path / "w.dat", "1 2 0\n3 4 1\n\n5 6 0\n")
    ds = load(dat)
    assert ds.feature_names == ["f1", "f2"] and ds.X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert ds.classes == [0, 1] and ds.y.tolist() == [-1, 1, -1]
    first = load(dat, label_column="0", task="multiclass")  # a position given as text
    assert first.classes == [1, 3, 5] and first.y.tolist() == [0, 1, 2]
    tsv = _write(tmp_path / "t.tsv.gz", "a\tb\tc\n0.5\t1\tp\n0.25\t2\tq\n1.5\t3\tr\n")
    t = load(tsv)
    assert t.task == "multiclass" and t.classes == ["p", "q", "r"] and t.n_features == 2
    reg = _write(tmp_path / "r.csv", "1,0.5\n2,1.25\n3,2.5\n")
    assert load(reg).task == "regression" and load(reg).y.dtype == np.float64
    cats = _write(tmp_path / "c.data", "a,x,yes\nb,x,no\na,y,yes\n")  # all text, no header
    c = load(cats)
    assert c.n_rows == 3 and c.X.tolist() == [[0, 0], [1, 0], [0, 1]]


@pytest.mark.parametrize("suffix", [".libsvm", ".svm", ".txt", ".libsvm.gz"])
def test_user_libsvm(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"s{suffix}", "+1 1:0.5 3:2\n-1 2:1\n# comment\n+1 3:-1\n")
    ds = load(path)
    assert ds.is_sparse and ds.feature_names == ["f1", "f2", "f3"]
    assert ds.X.toarray().tolist() == [[0.5, 0, 2], [0, 1, 0], [0, 0, -1]]
    assert ds.y.tolist() == [1, -1, 1]
    zero_based = _write(tmp_path / f"z{suffix}", "1 0:1 2:3\n2 1:1\n3 0:2\n")
    with pytest.warns(ZeroBasedWarning, match="read as 0-based"):  # said, not silent
        z = load(zero_based)
    assert z.feature_names == ["f0", "f1", "f2"] and z.task == "multiclass"


def test_user_arff(tmp_path: Path) -> None:
    text = (
        "% a comment\n@relation r\n@attribute width numeric\n@attribute shape {square,round}\n"
        "@attribute class {neg,pos}\n@data\n1.5,round,pos\n?,square,neg\n2,square,pos\n"
        "% a comment line\n3,round,neg\n"
    )
    for name in ("a.arff", "a.arff.gz"):
        path = _write(tmp_path / name, text)
        ds = load(path)
        assert ds.feature_names == ["width", "shape"]
        assert ds.X.tolist() == [[1.5, 1.0], [2.0, 0.0], [3.0, 1.0]]  # levels: square, round
        assert ds.classes == ["neg", "pos"] and ds.y.tolist() == [1, 1, -1]
        oh = load(path, categorical="onehot", missing="keep")
        assert oh.feature_names == ["width", "shape=square", "shape=round"]
        assert np.isnan(oh.X[1, 0]) and oh.X[1, 1:].tolist() == [1.0, 0.0]


# --------------------------------------------------------------------------- preprocessing


def test_preprocessors() -> None:
    X = np.array([[1.0, 5.0, 0.0], [3.0, 5.0, 0.0], [8.0, 5.0, 4.0]])
    before = X.copy()
    z = preprocess(X, "zscore")
    assert np.allclose(z.mean(axis=0), 0) and np.allclose(z[:, [0, 2]].std(axis=0), 1)
    assert np.all(z[:, 1] == 0)  # constant column
    assert np.allclose(z[:, 0], (X[:, 0] - X[:, 0].mean()) / X[:, 0].std(ddof=0))
    m = preprocess(X, "minmax")
    assert m[:, 0].tolist() == [0.0, 2 / 7, 1.0] and np.all(m[:, 1] == 0)
    u = preprocess(np.vstack([X, np.zeros(3)]), "unit-norm")
    assert np.allclose(np.linalg.norm(u[:3], axis=1), 1) and np.all(u[3] == 0)
    assert np.array_equal(X, before)  # input unchanged
    assert np.array_equal(preprocess(X, "none"), X)
    nan = preprocess(np.array([[1.0, np.nan], [3.0, 2.0], [5.0, 4.0]]), "zscore")
    assert np.isnan(nan[0, 1]) and np.allclose(nan[1:, 1], [-1, 1])


def test_sparse_preprocessing(monkeypatch: pytest.MonkeyPatch) -> None:
    S = sp.csr_matrix(np.array([[3.0, 0.0, 4.0], [0.0, 0.0, 0.0], [0.0, 2.0, 1.0]]))
    u = preprocess(S, "unit-norm")
    assert sp.issparse(u) and np.allclose(u.toarray()[0], [0.6, 0, 0.8])
    assert np.all(u.toarray()[1] == 0)
    m = preprocess(S, "minmax")
    assert sp.issparse(m) and np.allclose(m.toarray(), S.toarray() / [3.0, 2.0, 4.0])
    z = preprocess(S, "zscore")  # small sparse input is densified: same values, dense storage
    assert isinstance(z, np.ndarray) and np.allclose(z, preprocess(S.toarray(), "zscore"))
    monkeypatch.setattr("evofeat.datasets.preprocessing.DENSIFY_LIMIT_BYTES", 8)
    with pytest.raises(ValueError, match=r"toarray\(\).*'unit-norm'"):
        preprocess(S, "zscore")
    with pytest.raises(ValueError, match="negative values"):
        preprocess(sp.csr_matrix(np.array([[-1.0, 0.0], [0.0, 1.0]])), "minmax")
    g = load("german", preprocess="unit-norm")
    assert g.is_sparse and g.preprocessing == "unit-norm"
    assert np.allclose(sp.linalg.norm(g.X, axis=1), 1)


def test_preprocessor_registry() -> None:
    with pytest.raises(
        ValueError, match="registered: minmax, none, stsd-original, unit-norm, zscore"
    ):
        preprocess(np.ones((2, 2)), "standardise")
    with pytest.raises(ValueError, match="unknown preprocessing"):
        load("german", preprocess="standardise")
    register_preprocessor("test-triple", lambda X: 3.0 * X)
    try:
        ds = load("diabetes", preprocess="test-triple")
        assert np.allclose(ds.X, 3.0 * load("diabetes").X)
        with pytest.raises(ValueError, match="already registered"):
            register_preprocessor("test-triple", lambda X: X)
        register_preprocessor("test-triple", lambda X: X, overwrite=True)
        assert np.array_equal(preprocess(np.ones(2), "test-triple"), np.ones(2))
    finally:
        PREPROCESSORS.pop("test-triple", None)


def test_zscore_on_loaded_data_uses_population_std() -> None:
    ds = load("diabetes", preprocess="zscore")
    assert np.allclose(ds.X.mean(axis=0), 0) and np.allclose(ds.X.std(axis=0), 1)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", ["e.csv", "e.libsvm", "e.csv.gz", "e.arff"])
def test_empty_file(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, "  \n")
    with pytest.raises(DataFormatError, match="is empty"):
        load(path)


def test_cut_short_and_fake_gzip(tmp_path: Path) -> None:
    data = gzip.compress(("1,2,0\n" * 5000).encode())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFormatError, match=r"cut\.csv\.gz: the compressed stream is cut short"):
        load(cut)
    fake = tmp_path / "fake.csv.gz"  # plain text named .gz: read by its content, as when streamed
    fake.write_bytes(b"1,2,0\n3,4,1\n")
    assert load(fake).X.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_non_numeric_nan_and_inf_in_csv(tmp_path: Path) -> None:
    bad = _write(tmp_path / "b.csv", "a,b,label\n1,2,0\n\n3,abc,1\n")
    with pytest.raises(DataFormatError) as exc:
        load(bad)
    msg = str(exc.value)
    assert "b.csv, line 4" in msg and "'abc'" in msg and "not a number" in msg
    nan = _write(tmp_path / "n.csv", "1,2,0\n3,nan,1\n")
    with pytest.raises(DataFormatError, match=r"n\.csv, line 2.*'nan'.*NaN or infinite"):
        load(nan)
    inf = _write(tmp_path / "i.csv", "1,2,0\n3,4,1\n5,-inf,1\n")
    with pytest.raises(DataFormatError, match=r"i\.csv, line 3.*NaN or infinite"):
        load(inf)
    ragged = _write(tmp_path / "r.csv", "1,2,0\n3,4,1,9\n")
    with pytest.raises(DataFormatError, match=r"r\.csv.*line 2"):
        load(ragged)


def test_libsvm_errors_name_the_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "b.libsvm", "1 1:2 3:4\n-1 2:1\n1 2:x\n")
    with pytest.raises(
        DataFormatError, match=r"b\.libsvm, line 3: the value in '2:x' is not a number"
    ):
        load(bad)
    order = _write(tmp_path / "o.svm", "1 1:2\n-1 3:1 2:1\n")
    with pytest.raises(DataFormatError, match="line 2: indices must increase"):
        load(order)
    nan = _write(tmp_path / "n.txt", "1 1:2\n-1 2:nan\n")
    with pytest.raises(DataFormatError, match=r"n\.txt, line 2: '2:nan' holds a NaN"):
        load(nan)


def test_other_format_errors(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match=r"suffix '\.xlsx'"):
        load(_write(tmp_path / "d.xlsx", "1,2\n"))
    arff_bad = "@relation r\n@attribute a numeric\n@attribute c {n,p}\n@data\n1,p\nabc,n\n"
    with pytest.raises(DataFormatError, match="line 6"):
        load(_write(tmp_path / "bad.arff", arff_bad))
    missing_label = _write(tmp_path / "m.csv", "1,2,0\n3,4,?\n5,6,1\n")
    assert load(missing_label).n_rows == 2
    with pytest.raises(DataFormatError, match=r"m\.csv, line 2: the label is missing"):
        load(missing_label, missing="impute")
    one_class = _write(tmp_path / "one.csv", "1,0\n2,0\n")
    with pytest.raises(DataFormatError, match="every row has the label 0"):
        load(one_class)
    with pytest.raises(DataNotFoundError, match="no such file"):
        load(tmp_path / "absent.csv")
    with pytest.raises(ValueError, match="categorical must be one of"):
        load("german", categorical="dummy")


def test_idx_reader_errors(tmp_path: Path) -> None:
    from evofeat.datasets.readers import read_idx

    header = bytes([0, 0, 8, 2]) + np.array([2, 3], ">i4").tobytes()
    assert read_idx(header + bytes(6), "ok").shape == (2, 3)
    with pytest.raises(DataFormatError, match="cut short"):
        read_idx(header + bytes(5), "short")
    with pytest.raises(DataFormatError, match="not an IDX file"):
        read_idx(b"PK\x03\x04", "zip")


def test_dataset_validates_shapes() -> None:
    with pytest.raises(ValueError, match="3 rows but y has 2"):
        Dataset("x", np.zeros((3, 2)), np.zeros(2), ["a", "b"], "binary", [-1, 1], "-")
    with pytest.raises(ValueError, match="task must be one of"):
        Dataset("x", np.zeros((2, 2)), np.zeros(2), ["a", "b"], "ranking", [], "-")


# --------------------------------------------------------------------------- download


def _german_source_bytes() -> bytes:
    return gzip.decompress((DATA_DIR / "german.numer.gz").read_bytes())


def test_download_verifies_and_stores_gzipped(isolated: Path, served: dict[str, bytes]) -> None:
    url = "https://example.test/german.numer"
    served[url] = _german_source_bytes()
    folder = download("german", url=url)
    stored = isolated / "german" / "german.numer.gz"
    assert folder == stored.parent and stored.is_file()
    assert gzip.decompress(stored.read_bytes()) == served[url]
    assert [p.name for p in folder.iterdir()] == ["german.numer.gz"]  # no temp file left
    del served[url]  # already present and valid: nothing is fetched
    assert download("german", url=url) == folder


def test_download_bad_checksum_leaves_nothing(tmp_path: Path, served: dict[str, bytes]) -> None:
    url = "https://example.test/german.numer"
    served[url] = _german_source_bytes().replace(b"-1 ", b"+1 ", 1)
    dest = tmp_path / "dest"
    with pytest.raises(ChecksumError) as exc:
        download("german", dest=dest, url=url)
    assert "sha256" in str(exc.value) and "nothing was written" in str(exc.value)
    assert not dest.exists()
    served[url] = bz2.compress(_german_source_bytes())[:200]
    with pytest.raises(ChecksumError):
        download("german", dest=dest, url=url)
    assert not dest.exists()


def test_download_checks_the_canonical_hash_with_pooch(
    tmp_path: Path, served: dict[str, bytes]
) -> None:
    rec = get_entry("a8a").records[0]
    assert rec.source_url is not None and rec.source_url.startswith("https://")
    served[rec.source_url] = b"not the file"
    with pytest.raises(ChecksumError, match="nothing was written"):
        download("a8a", dest=tmp_path)
    assert served["hits"] == [rec.source_url]  # type: ignore[comparison-overlap]
    assert list(tmp_path.iterdir()) == []


def test_download_keeps_gzip_sources_byte_exact(tmp_path: Path, served: dict[str, bytes]) -> None:
    gz = DATA_DIR / "dna.tsv.gz"  # PMLB serves this very gzip file
    served["https://example.test/dna.tsv.gz"] = gz.read_bytes()
    folder = download("dna", dest=tmp_path, url="https://example.test/dna.tsv.gz")
    assert (folder / "dna.tsv.gz").read_bytes() == gz.read_bytes()


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "http://example.test/a8a",
        "ftp://example.test/a8a",
        "data:,1 1:1",
        "a8a",
    ],
)
def test_download_is_https_only(tmp_path: Path, served: dict[str, bytes], url: str) -> None:
    with pytest.raises(InputError, match="expected an https:// URL"):
        download("a8a", dest=tmp_path, url=url)
    assert served["hits"] == [] and list(tmp_path.iterdir()) == []  # type: ignore[comparison-overlap]


def test_download_size_cap(tmp_path: Path, served: dict[str, bytes]) -> None:
    served["https://example.test/big"] = served["https://example.test/chunked"] = b"1 1:1\n" * 1000
    with pytest.raises(DataNotFoundError, match=r"announces 6,000 bytes, over the size cap of 100"):
        download("german", dest=tmp_path, url="https://example.test/big", max_bytes=100)
    with pytest.raises(DataNotFoundError, match=r"sent more than 100 bytes, over the size cap"):
        download("german", dest=tmp_path, url="https://example.test/chunked", max_bytes=100)
    assert list(tmp_path.iterdir()) == []


def test_download_refuses_what_it_cannot_fetch(tmp_path: Path, served: dict[str, bytes]) -> None:
    with pytest.raises(DataNotFoundError, match=r"(?si)covtype.*PyPI wheel.*by hand"):
        download("covtype", dest=tmp_path)
    with pytest.raises(DataNotFoundError, match="ships inside the package"):
        download("german-stsd", dest=tmp_path)
    with pytest.raises(ValueError, match="has 2 files"):
        download("ijcnn1", dest=tmp_path, url="https://example.test/nowhere")
    with pytest.raises(DataNotFoundError, match="could not fetch.*404"):
        download("a8a", dest=tmp_path, url="https://example.test/absent")
    assert list(tmp_path.iterdir()) == []


@requires_data("extras")
def test_downloaded_set_is_found_and_loaded(
    isolated: Path, tmp_path: Path, served: dict[str, bytes]
) -> None:
    root = shared_data_dir()
    assert root is not None
    rel = get_entry("wbc").files[0]
    src = tmp_path / "wbc.data"
    src.write_bytes(gzip.decompress((root / rel).read_bytes()))
    with pytest.raises(DataNotFoundError):
        load("wbc")
    served["https://example.test/wbc.data"] = src.read_bytes()
    download("wbc", url="https://example.test/wbc.data")
    assert find("wbc") == [isolated / rel]
    assert load("wbc").n_rows == 683
