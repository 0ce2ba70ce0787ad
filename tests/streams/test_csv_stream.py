"""The CSV stream: the loader's predictions, semantics and errors, in bounded memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

from evofeat.base import FeatureIndex, InputError
from evofeat.datasets import DataFormatError, load
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import CsvStream, Stream, full, haphazard


def write_table(path: Path, X: np.ndarray, y: np.ndarray, *, sep: str = ",", names=None) -> Path:  # type: ignore[no-untyped-def]
    """``X`` (NaN written as '?' or, every third one, an empty field) and the label last, with a header."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    names = names or [f"x{j}" for j in range(X.shape[1])]
    cells = np.array([[repr(float(v)) for v in row] for row in X], dtype=object)
    nan = np.isnan(X)
    marks = np.where(np.arange(nan.sum()) % 3 == 2, "", "?")
    cells[nan] = marks
    lines = [sep.join([*names, "label"])]
    lines += [
        sep.join([*row, str(lab)]) for row, lab in zip(cells.tolist(), y.tolist(), strict=True)
    ]
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def predictions(name: str, stream, chunk_rows: int = 65536):  # type: ignore[no-untyped-def]
    res = prequential(make(name), stream, keep_predictions=True, chunk_rows=chunk_rows)
    return res.mistakes, res.labels, res.scores


def assert_same(name: str, streamed, ref) -> None:  # type: ignore[no-untyped-def]
    a, b = predictions(name, streamed, chunk_rows=97), predictions(name, ref)
    assert a[0] == b[0], name
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])


# --------------------------------------------------------------------------- same as the loader
@pytest.mark.parametrize("suffix", [".csv", ".tsv.gz"])
@pytest.mark.parametrize("name", ["perceptron", "pa-i", "stsd-i", "ofs"])
def test_german_streamed_as_loaded(tmp_path: Path, suffix: str, name: str) -> None:
    """german written to CSV: the streamed run makes the loaded run's predictions, across many blocks."""
    ds = load("german")
    path = write_table(
        tmp_path / f"german{suffix}", ds.X, ds.y, sep="\t" if ".tsv" in suffix else ","
    )
    stream = CsvStream(path, block_bytes=4096)  # about 40 blocks
    loaded = load(path)
    assert (stream.n_rows, stream.n_features, stream.task) == (1000, 24, "binary")
    assert stream.feature_names == loaded.feature_names and stream.classes == loaded.classes
    np.testing.assert_array_equal(loaded.X, ds.X.toarray())
    assert_same(name, stream, full(loaded.X, loaded.y, loaded.feature_names))


@pytest.mark.parametrize("name", ["pa-i", "ofs", "stsd-i"])
def test_nan_marked_haphazard_data(tmp_path: Path, name: str) -> None:
    """Missing fields are absent features: the loaded NaN array's predictions, and the simulated stream's."""
    ds = load("german", preprocess="zscore")
    hap = haphazard(ds.X, ds.y, ds.feature_names, p=0.4, seed=3)
    X = hap.to_dense()
    path = write_table(tmp_path / "hap.csv", X, ds.y, names=list(ds.feature_names))
    stream = CsvStream(path, block_bytes=8192)
    assert stream.n_rows == 1000 and stream.missing == "keep"
    loaded = load(path, missing="keep")
    assert np.array_equal(np.isnan(loaded.X), np.isnan(X))
    ref = Stream.from_dense(loaded.X, loaded.y, loaded.feature_names, task="binary")
    assert_same(name, stream, ref)
    assert predictions(name, stream)[0] == predictions(name, hap)[0]
    # missing="drop" keeps only the complete rows, as the loader's default
    X[np.random.default_rng(0).random(1000) < 0.8] = ds.X[:1000][
        np.random.default_rng(0).random(1000) < 0.8
    ]
    path = write_table(tmp_path / "few.csv", X, ds.y)
    dropped = CsvStream(path, missing="drop")
    complete = load(path)
    assert dropped.n_rows == complete.n_rows == int((~np.isnan(X).any(axis=1)).sum()) > 500
    assert_same(name, dropped, full(complete.X, complete.y, complete.feature_names))


def test_a_learner_continues_as_on_the_loaded_stream(tmp_path: Path) -> None:
    """A learner that saw other features first numbers the file's as the array stream would."""
    ds = load("german", preprocess="zscore")
    X = haphazard(ds.X, ds.y, ds.feature_names, p=0.5, seed=4).to_dense()
    path = write_table(tmp_path / "h.csv", X, ds.y, names=list(ds.feature_names))
    loaded = load(path, missing="keep")
    rng = np.random.default_rng(5)
    warm = Stream.from_dense(
        rng.standard_normal((50, 3)), np.where(rng.random(50) < 0.5, -1, 1), ["f3", "z", "f10"]
    )
    out = []
    for stream in (
        CsvStream(path),
        Stream.from_dense(loaded.X, loaded.y, loaded.feature_names, task="binary"),
    ):
        learner = make("ofs")
        prequential(learner, warm)
        res = prequential(learner, stream, keep_predictions=True)
        out.append((res.mistakes, res.scores, list(learner.feature_index_.names)))
    assert out[0][0] == out[1][0] and out[0][2] == out[1][2]
    np.testing.assert_array_equal(out[0][1], out[1][1])


@pytest.mark.parametrize("categorical", ["ordinal", "onehot"])
def test_categorical_columns_are_coded_from_the_whole_file(
    tmp_path: Path, categorical: str
) -> None:
    """A level first seen late gets the loader's code: the first pass collects every level."""
    rng = np.random.default_rng(0)
    n = 3000
    colour = np.where(
        np.arange(n) < 2000, rng.choice(["red", "blue"], n), rng.choice(["green", "red"], n)
    )
    x = np.round(rng.standard_normal(n), 3)
    y = np.where(x + (colour == "green") - (colour == "blue") > 0, "yes", "no")
    rows = [f"{a},{c},{t}" for a, c, t in zip(x, colour, y, strict=True)]
    rows[5] = f"?,{colour[5]},{y[5]}"
    rows[2500] = f"{x[2500]},?,{y[2500]}"
    path = tmp_path / "cat.csv"
    path.write_text("x,colour,label\n" + "\n".join(rows) + "\n")
    stream = CsvStream(path, categorical=categorical, block_bytes=2048)
    loaded = load(path, categorical=categorical, missing="keep")
    assert stream.feature_names == loaded.feature_names and stream.classes == ["no", "yes"]
    if categorical == "onehot":
        assert stream.feature_names == ["x", "colour=blue", "colour=green", "colour=red"]
    ref = Stream.from_dense(loaded.X, loaded.y, loaded.feature_names, task="binary")
    for name in ("pa-i", "ofs"):
        assert_same(name, stream, ref)


def streamed_values(stream: CsvStream) -> np.ndarray:
    """The stream's rows as a dense array in its own columns (NaN where absent), read from its chunks."""
    col_map, seg_dim = stream.internal_columns(FeatureIndex())
    back = np.full(max(1, int(seg_dim[-1])), -1)
    back[col_map[col_map >= 0]] = np.flatnonzero(col_map >= 0)
    out = np.full((stream.n_rows, stream.n_features), np.nan)
    for chunk in stream.chunks(col_map, seg_dim, size=3):
        rows = np.repeat(np.arange(chunk.indptr.size - 1), np.diff(chunk.indptr))
        out[chunk.start + rows, back[chunk.indices]] = chunk.data
    return out


@pytest.mark.parametrize(
    "text",
    [
        "a,b,c,y\n 1.5 , ? ,x,0\n-0,,y,1\n+2,1e3, x ,0\n7,8,?,1\n",
        "a;b;y\n1,5;2;0\n?;3,25;1\n",
        "a\tb\ty\nTrue\t1\t0\nFalse\t\t1\n?\t3\t0\n",
        "1 2 0\n3 ? 1\n? 6 0\n",
        "a,b,y\n?,?,0\n?,?,1\n1,?,0\n",
    ],
)
@pytest.mark.parametrize("categorical", ["ordinal", "onehot"])
def test_values_as_loaded(tmp_path: Path, text: str, categorical: str) -> None:
    """Odd but valid fields (blanks around values and markers, signs, exponents, decimal commas,
    true/false, all-missing columns) reach the learner as the loader reads them."""
    path = tmp_path / ("t.dat" if "\t" not in text and "," not in text else "t.csv")
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = load(path, missing="keep", categorical=categorical)
        stream = CsvStream(path, categorical=categorical, block_bytes=8)
    assert stream.feature_names == loaded.feature_names
    np.testing.assert_array_equal(streamed_values(stream), loaded.X)


def test_labels_coded_as_the_loader_codes_them(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    X = np.round(rng.standard_normal((400, 3)), 3)
    multi = write_table(tmp_path / "m.csv", X, rng.integers(1, 4, 400))
    s, d = CsvStream(multi), load(multi)
    assert (s.task, s.classes, s.y.tolist()) == ("multiclass", d.classes, [0.0, 1.0, 2.0])
    assert_same("stsd-multiclass", s, full(d.X, d.y, d.feature_names, task="multiclass"))
    reg = write_table(tmp_path / "r.csv", X, np.round(X @ [1.0, -2.0, 0.5], 3))
    s = CsvStream(reg)
    assert s.task == "regression" and s.y.size == 0 and s.n_rows == 400
    ovr = CsvStream(multi, binary_positive=2)
    assert ovr.task == "binary" and ovr.classes == load(multi, binary_positive=2).classes


def test_quotes_across_blocks_and_files_without_a_header(tmp_path: Path) -> None:
    """A quoted field may hold separators and newlines, even where a block ends; a tiny first block still finds the header."""
    quoted = tmp_path / "q.csv"
    quoted.write_text('"a","b c","label"\n' + '"1","x, y","yes"\n"2","two\nlines","no"\n' * 40)
    s, d = CsvStream(quoted, block_bytes=16), load(quoted, missing="keep")
    assert (s.n_rows, s.feature_names, s.classes) == (80, d.feature_names, d.classes)
    assert_same("pa-i", s, Stream.from_dense(d.X, d.y, d.feature_names, task="binary"))
    spaced = tmp_path / "w.dat"
    spaced.write_text("".join(f"{i % 2} {i * 0.5} {i % 3}\n" for i in range(300)))
    s, d = CsvStream(spaced, label_column=0, block_bytes=64), load(spaced, label_column=0)
    assert (s.has_header, s.feature_names, s.task) == (False, ["f1", "f2"], "binary")
    assert_same("pa-i", s, full(d.X, d.y, d.feature_names))


# --------------------------------------------------------------------------- the loader's errors
def test_label_column_is_said_and_chosen(tmp_path: Path) -> None:
    from evofeat.datasets.loaders import LabelColumnWarning

    path = tmp_path / "lab.csv"
    path.write_text("label,a,b\nspam,1,2\nham,3,4\nspam,5,6\nham,7,9\n")
    with pytest.warns(LabelColumnWarning, match=r"last column \('b'.*--label-column label"):
        CsvStream(path, task="regression")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = CsvStream(path, label_column="label")
    assert s.classes == ["ham", "spam"] and s.feature_names == ["a", "b"]
    assert CsvStream(path, label_column="0").feature_names == ["a", "b"]


@pytest.mark.parametrize(
    "text",
    [
        "a,b,y\n1,2,0\n3,abc,1\n5,6,0\n",
        "a,b,y\n1,2,0\n3,nan,1\n",
        "a,b,y\n1,2,0\n3,1e999,1\n",
        "a,b,y\n1,2,0\n3,4\n5,6,1\n",
        "a,b,y\n1,2,0\n3,4,1,7\n",
        "\n\na,b,y\n\n1,x,0\n2,3,1\n",
        "a,b,y\n",
        "a,a,y\n1,2,0\n",
        "y\n1\n0\n",
        "",
    ],
)
def test_bad_files_get_the_loaders_message(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFormatError) as loaded:
        load(path, missing="keep")
    with pytest.raises(DataFormatError) as streamed:
        CsvStream(path)
    assert str(streamed.value) == str(loaded.value)


def test_ragged_line_in_a_later_block_is_named(tmp_path: Path) -> None:
    ds = load("german")
    path = write_table(tmp_path / "g.csv", ds.X, ds.y)
    lines = path.read_text().splitlines()
    lines[900] = ",".join(lines[900].split(",")[:-2])  # two fields short, many blocks later
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"g\.csv, line 901: 23 fields, but line 1 has 25"):
        CsvStream(path, block_bytes=4096)
    with pytest.raises(DataFormatError, match=r"g\.csv, line 901: 23 fields, but line 1 has 25"):
        load(path)


def test_header_decimal_commas_and_values(tmp_path: Path) -> None:
    from evofeat.datasets.readers import DecimalCommaWarning

    dup = tmp_path / "d.csv"
    dup.write_text("a,a,label\n1,2,0\n3,4,1\n")
    with pytest.raises(DataFormatError, match=r"d\.csv, line 1: the column name 'a' appears twice"):
        CsvStream(dup)
    dec = tmp_path / "dec.csv"
    dec.write_text("a;b;label\n" + "1,5;2;0\n3,25;4;1\n" * 300)
    with pytest.warns(DecimalCommaWarning, match=r"decimal commas.*'1,5' in column 'a'"):
        s = CsvStream(dec, block_bytes=1024)
    chunk = next(s.chunks(*s.internal_columns(FeatureIndex())))
    assert chunk.data[:4].tolist() == [1.5, 2.0, 3.25, 4.0]
    bad = tmp_path / "b.csv"
    bad.write_text("a,b,label\n" + "1,2,0\n" * 500 + "3,abc,1\n")  # text far below the numbers
    with pytest.raises(
        DataFormatError, match=r"b\.csv, line 502: column 'b' holds 'abc', not a number"
    ):
        CsvStream(bad, block_bytes=512)
    nan = tmp_path / "n.csv"
    nan.write_text("a,b,label\n" + "1,2,0\n" * 500 + "3,inf,1\n")
    with pytest.raises(DataFormatError, match=r"n\.csv, line 502: column 'b' holds inf"):
        CsvStream(nan, block_bytes=512)
    nolabel = tmp_path / "l.csv"
    nolabel.write_text("a,b,label\n1,2,0\n3,4,?\n5,6,1\n")
    with pytest.raises(DataFormatError, match=r"l\.csv, line 3: the label is missing"):
        CsvStream(nolabel)
    assert CsvStream(nolabel, missing="drop").n_rows == 2
    for empty in ("", "a,b,label\n"):
        (tmp_path / "e.csv").write_text(empty)
        with pytest.raises(DataFormatError, match="no rows|empty"):
            CsvStream(tmp_path / "e.csv")
    with pytest.raises(InputError, match="unknown missing"):
        CsvStream(dup, missing="impute")


# --------------------------------------------------------------------------- memory
def test_memory_does_not_grow_with_rows(tmp_path: Path) -> None:
    """Peak traced memory of a whole run (both passes) is the same for 20k and 60k rows.

    Holding anything per row (8 bytes a row: 320 KB more for the longer
    file) would break the margin of 256 KiB. The peak also stays below the
    size of the 60k-row file (2.9 MiB; measured: 1.9 MiB with blocks of
    64 KiB), while loading that file whole peaks near 41 MiB.
    """
    rng = np.random.default_rng(0)
    X = np.round(rng.standard_normal((20_000, 8)), 3)
    X[rng.random(X.shape) < 0.1] = np.nan
    base = write_table(tmp_path / "base.csv", X, np.where(np.nansum(X, axis=1) > 0, 1, -1))
    body = base.read_bytes().split(b"\n", 1)[1]
    prequential(make("pa-i"), CsvStream(base, block_bytes=1 << 16))  # warm up outside the trace
    peaks = {}
    for n in (20_000, 60_000):
        path = tmp_path / f"s{n}.csv"
        path.write_bytes(base.read_bytes() + body * (n // 20_000 - 1))
        tracemalloc.start()
        result = prequential(make("pa-i"), CsvStream(path, block_bytes=1 << 16), chunk_rows=4096)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert result.n_rows == n
    assert peaks[60_000] < peaks[20_000] + 256 * 1024, (
        f"peak memory grew with the rows: {peaks[20_000] / 2**20:.2f} MiB for 20k rows, "
        f"{peaks[60_000] / 2**20:.2f} MiB for 60k"
    )
    tracemalloc.start()
    load(tmp_path / "s60000.csv", missing="keep")
    whole = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peaks[60_000] < (tmp_path / "s60000.csv").stat().st_size < whole, (peaks[60_000], whole)


def test_loading_a_huge_table_whole_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evofeat.datasets.loaders as loaders

    ds = load("german")
    plain = write_table(tmp_path / "g.csv", ds.X, ds.y)
    packed = write_table(tmp_path / "g.csv.gz", ds.X, ds.y)
    monkeypatch.setattr(loaders, "MAX_TABLE_BYTES", 50_000)
    for path in (plain, packed):
        with pytest.raises(
            DataFormatError, match=r"more than 50,000 bytes .*too large to load whole.*CsvStream"
        ):
            load(path)
    assert CsvStream(packed).n_rows == 1000  # streaming is not limited
    refused = _cli("--learner", "pa-i", "--dataset", str(plain), "--repeats", "2")
    assert refused.exit_code == 2 and "too large to load whole" in refused.output
    assert json.loads(_cli("--learner", "pa-i", "--dataset", str(plain)).output)["streamed"]


# --------------------------------------------------------------------------- the command line
def _cli(*args: str):  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from evofeat.cli import main

    return CliRunner().invoke(main, ["run", *args, "--format", "json"])


def test_cli_streams_a_csv_file(tmp_path: Path) -> None:
    ds = load("german")
    path = write_table(tmp_path / "g.csv.gz", ds.X, ds.y)
    result = _cli("--learner", "pa-i", "--dataset", str(path))
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["streamed"] is True and out["n_scored"] == 1000
    ref = prequential(make("pa-i"), full(ds.X, ds.y, ds.feature_names))  # file order
    assert out["mistakes"]["values"] == [ref.mistakes]
    loaded = json.loads(_cli("--learner", "pa-i", "--dataset", str(path), "--repeats", "2").output)
    assert loaded["streamed"] is False and len(loaded["mistakes"]["values"]) == 2
    labelled = tmp_path / "lab.csv"
    labelled.write_text("label,a,b\n" + "yes,1,0\nno,0,1\n" * 50)
    out = json.loads(
        _cli("--learner", "pa-i", "--dataset", str(labelled), "--label-column", "label").output
    )
    assert out["streamed"] is True and out["mistakes"]["values"] == [1]
