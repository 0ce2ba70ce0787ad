"""Data input: JSON Lines streams, LIBSVM limits, and no silent surprises."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from evofeat.base import FeatureIndex
from evofeat.datasets import DataFormatError, load, textio
from evofeat.datasets.readers import ZeroBasedWarning
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import JsonlStream, LibsvmStream


def events(n: int, seed: int = 0, labels: tuple = (-1, 1)) -> list[tuple[dict, object]]:
    """Rows whose keys come and go: runs of rows with one key set, zeros included, new keys late."""
    rng = np.random.default_rng(seed)
    keys = [f"k{j}" for j in range(12)]
    w = rng.standard_normal(len(keys))
    rows = []
    present = rng.random(len(keys)) < 0.5
    for i in range(n):
        if rng.random() < 0.3:  # the key set changes
            present = rng.random(len(keys)) < 0.5
            present[: 2 + i * 10 // n] |= True
        x = {
            keys[j]: (0.0 if rng.random() < 0.1 else float(np.round(rng.standard_normal(), 3)))
            for j in rng.permutation(np.flatnonzero(present))  # key order varies too
        }
        score = sum(w[int(k[1:])] * v for k, v in x.items())
        rows.append((x, labels[1] if score > 0 else labels[0]))
    return rows


def write_jsonl(path: Path, rows: list[tuple[dict, object]], key: str = "y") -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as fh:  # type: ignore[operator]
        for x, y in rows:
            fh.write(json.dumps({**x, key: y}) + "\n")
    return path


def dict_path(learner, rows):  # type: ignore[no-untyped-def]
    out = []
    for x, y in rows:
        p = learner.predict_one(x)
        out.append(-1 if p is None else p)  # the loop predicts -1 from zero weights
        learner.learn_one(x, y)
    return np.array(out, dtype=float)


# --------------------------------------------------------------------------- JSON Lines


@pytest.mark.parametrize("name", ["perceptron", "pa-i", "stsd-i", "ofs"])
def test_jsonl_stream_predicts_as_learn_one(tmp_path: Path, name: str) -> None:
    rows = events(700, seed=1)
    path = write_jsonl(tmp_path / "events.jsonl.gz", rows)
    stream = JsonlStream(path)
    assert stream.n_rows == 700 and stream.task == "binary"
    streamed = prequential(make(name), stream, keep_predictions=True, chunk_rows=64)
    expected = dict_path(make(name), rows)
    assert streamed.labels is not None
    got = np.where(streamed.labels > 0, 1.0, -1.0)  # the loop's raw label 0 is predict_one's -1
    np.testing.assert_array_equal(got[1:], expected[1:])
    assert streamed.mistakes == int((streamed.labels != np.array([y for _, y in rows])).sum())


def test_jsonl_continues_a_learner_as_learn_one_does(tmp_path: Path) -> None:
    """A learner that saw other keys first numbers the new keys as learn_one would."""
    head, tail = events(200, seed=2), events(300, seed=3)
    tail = [({f"z{k}": v for k, v in x.items()} | {"k0": 1.0}, y) for x, y in tail]
    a, b = make("pa-i"), make("pa-i")
    for x, y in head:
        a.learn_one(x, y)
        b.learn_one(x, y)
    streamed = prequential(
        a, JsonlStream(write_jsonl(tmp_path / "t.jsonl", tail)), keep_predictions=True
    )
    expected = dict_path(b, tail)
    np.testing.assert_array_equal(np.where(streamed.labels > 0, 1.0, -1.0), expected)
    assert a.feature_index_.names == b.feature_index_.names


def test_jsonl_labels_bounded_memory_and_errors(tmp_path: Path) -> None:
    rows = [({"a": 1.0}, "spam"), ({"b": 2.0}, "ham")] * 5
    s = JsonlStream(write_jsonl(tmp_path / "l.jsonl", rows, key="label"))
    assert s.classes.tolist() == ["ham", "spam"] and s.label_values().tolist() == [-1.0, 1.0]
    s = JsonlStream(write_jsonl(tmp_path / "t.jsonl", rows, key="target"), label="target")
    assert s.n_features == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1, "y": 1}\n{"a": null, "y": -1}\n')
    with pytest.raises(
        DataFormatError, match=r"bad\.jsonl, line 2: feature 'a' is null.*leave the key out"
    ):
        JsonlStream(bad)
    bad.write_text('{"a": 1, "y": 1}\n\n[1, 2]\n')
    with pytest.raises(DataFormatError, match=r"line 3: a JSON list, not an object"):
        JsonlStream(bad)
    bad.write_text('{"a": 1, "target": 1}\n')
    with pytest.raises(DataFormatError, match=r"line 1: no label key.*--label-column"):
        JsonlStream(bad)
    bad.write_text('{"a": 1, "y": 1}\n{"a": 2}\n')
    with pytest.raises(DataFormatError, match=r"line 2: the label key 'y' is missing"):
        JsonlStream(bad)
    bad.write_text('{"a": 1, "y": 1}\n{"a": 2, "y": tru\n')
    with pytest.raises(DataFormatError, match=r"line 2: not valid JSON"):
        JsonlStream(bad)


def test_jsonl_chunks_do_not_hold_the_file(tmp_path: Path) -> None:
    import tracemalloc

    rows = events(20_000, seed=4)
    s = JsonlStream(write_jsonl(tmp_path / "big.jsonl", rows), block_bytes=1 << 16)
    cols = s.internal_columns(FeatureIndex())
    tracemalloc.start()
    n = sum(c.y.size for c in s.chunks(*cols, size=512))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == 20_000
    assert peak < 4 << 20, peak  # the file is about 2 MB of text per 10,000 rows


# --------------------------------------------------------------------------- LIBSVM limits


@pytest.mark.parametrize("index", [10**12, 2 * 10**9])
def test_libsvm_huge_index_is_a_clean_error_on_both_paths(tmp_path: Path, index: int) -> None:
    path = tmp_path / "h.libsvm"
    path.write_text(f"1 1:1\n-1 2:1 {index}:1\n")
    for read in (load, LibsvmStream):
        with pytest.raises(
            DataFormatError, match=rf"h\.libsvm, line 2: .*{index}.*limit of 33,554,432"
        ):
            read(path)


def test_line_without_newline_and_gzip_bomb_stop_at_the_limit(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(textio, "MAX_LINE_BYTES", 1 << 20)
    flat = tmp_path / "flat.libsvm"
    flat.write_bytes(b"1 " + b"1:1 " * 600_000)  # 2.4 MB, no newline
    bomb = tmp_path / "bomb.libsvm.gz"
    bomb.write_bytes(gzip.compress(b"1 1:1\n" + b"9" * (50 << 20), 9))  # 50 KB -> 50 MB
    for path in (flat, bomb):
        for read in (load, LibsvmStream):
            with pytest.raises(DataFormatError) as err:
                read(path)
            msg = str(err.value)
            assert (
                f"{path.name}, line {1 if path is flat else 2}: longer than 1,048,576 bytes" in msg
            )
            assert len(msg) < 500


def test_plain_file_named_gz_reads_alike_on_both_paths(tmp_path: Path) -> None:
    path = tmp_path / "plain.libsvm.gz"
    path.write_text("1 1:1 2:3\n-1 2:1\n")
    whole, streamed = load(path), LibsvmStream(path)
    assert whole.X.shape == (2, 2) and streamed.n_rows == 2 and streamed.n_features == 2


def test_zero_based_libsvm_is_said(tmp_path: Path) -> None:
    path = tmp_path / "z.libsvm"
    path.write_text("1 0:1 2:3\n-1 1:1\n")
    with pytest.warns(ZeroBasedWarning, match="0-based"):
        assert load(path).feature_names == ["f0", "f1", "f2"]
    with pytest.warns(ZeroBasedWarning):
        LibsvmStream(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(path, zero_based=True).feature_names == ["f0", "f1", "f2"]
    one = tmp_path / "one.libsvm"
    one.write_text("1 1:1\n-1 2:1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(one)


def test_cut_short_gzip_names_the_line(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    text = "".join(f"1 1:{v:.6f}\n" for v in rng.random(60_000)).encode()
    data = gzip.compress(text)
    path = tmp_path / "cut.libsvm.gz"
    path.write_bytes(data[: len(data) // 2])
    for read in (load, LibsvmStream):
        with pytest.raises(
            DataFormatError, match=r"cut short or corrupt; it stops after line (\d+)"
        ) as err:
            read(path)
        line = int(str(err.value).split("after line ")[1].split()[0])
        assert 20_000 < line <= 30_000  # the cut is near the middle of 60,000 lines


# --------------------------------------------------------------------------- CSV


def test_csv_says_which_column_is_the_label(tmp_path: Path) -> None:
    from evofeat.datasets.loaders import LabelColumnWarning

    path = tmp_path / "lab.csv"
    path.write_text("label,a,b\nspam,1,2\nham,3,4\nspam,5,6\nham,7,9\n")
    with pytest.warns(
        LabelColumnWarning, match=r"last column \('b'.*label_column='label'.*--label-column label"
    ):
        load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = load(path, label_column="label")
    assert ds.classes == ["ham", "spam"] and ds.feature_names == ["a", "b"]


def test_csv_ragged_repeated_header_and_no_features(tmp_path: Path) -> None:
    ragged = tmp_path / "r.csv"
    ragged.write_text("a,b,label\n1,2,0\n\n3,1\n4,5,1\n")  # too few fields on line 4
    with pytest.raises(DataFormatError, match=r"r\.csv, line 4: 2 fields, but line 1 has 3"):
        load(ragged)
    spaced = tmp_path / "w.dat"
    spaced.write_text("1 2 0\n3 4 1\n5 6\n")
    with pytest.raises(DataFormatError, match=r"w\.dat, line 3: 2 fields"):
        load(spaced)
    dup = tmp_path / "d.csv"
    dup.write_text("a,a,label\n1,2,0\n3,4,1\n")
    with pytest.raises(DataFormatError, match=r"d\.csv, line 1: the column name 'a' appears twice"):
        load(dup)
    one = tmp_path / "one.csv"
    one.write_text("y\n1\n-1\n")
    with pytest.raises(DataFormatError, match="no feature columns"):
        load(one)


def test_csv_decimal_commas_are_detected(tmp_path: Path) -> None:
    from evofeat.datasets.readers import DecimalCommaWarning

    path = tmp_path / "dec.csv"
    path.write_text("a;b;label\n1,5;2;0\n3,25;4;1\n")
    with pytest.warns(DecimalCommaWarning, match=r"decimal commas.*'1,5' in column 'a'"):
        ds = load(path)
    assert ds.X.tolist() == [[1.5, 2.0], [3.25, 4.0]]


def test_a_device_is_not_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="exists but is not a regular file"):
        load("/dev/null")


# --------------------------------------------------------------------------- permutations


def test_permutation_files_name_the_bad_line(tmp_path: Path) -> None:
    from evofeat.base import InputError
    from evofeat.streams import load_permutations

    path = tmp_path / "p.txt"
    path.write_text("1 2 3\n\n3 x 1\n")
    with pytest.raises(InputError, match=r"line 3 of .*p\.txt is not a row order.*received 'x'"):
        load_permutations(path, 3)
    path.write_text("1,2,3\n\n2,3\n")
    with pytest.raises(InputError, match=r"line 3 of .*wrong length.*received 2"):
        load_permutations(path, 3)
    path.write_text("1 2 3\n2 2 3\n")
    with pytest.raises(InputError, match=r"line 2 of .*not a permutation"):
        load_permutations(path, 3)
    path.write_text("0 2 1\n\n2 1 0\n")  # 0-based, detected from the minimum
    assert load_permutations(path, 3).tolist() == [[0, 2, 1], [2, 1, 0]]


def test_n_stages_must_be_whole() -> None:
    from evofeat.base import InputError
    from evofeat.streams import trapezoidal_schedule

    with pytest.raises(
        InputError, match=r"number of stages: expected a whole number >= 1, received 2\.5"
    ):
        trapezoidal_schedule(100, 10, 2.5)  # type: ignore[arg-type]


def test_tokenized_libsvm_parser_agrees_with_scikit_learn() -> None:
    """The fast block parser gives scikit-learn's arrays, or hands the text to it."""
    import io as _io

    from sklearn.datasets import load_svmlight_file

    from evofeat.datasets.readers import _tokenized_libsvm

    rng = np.random.default_rng(5)
    lines = []
    for i in range(3000):
        cols = np.unique(rng.integers(1, 500, rng.integers(0, 12)))
        vals = rng.standard_normal(cols.size) * 10.0 ** rng.integers(-300, 300, cols.size)
        vals[rng.random(cols.size) < 0.1] = 0.0
        lead = " \t"[i % 2] * (i % 3)
        label = ["+1", "-1", "1.0", "0", "2e0"][i % 5]
        feats = " ".join(f"{c}:{float(v)!r}" for c, v in zip(cols, vals, strict=True))
        lines.append(f"{lead}{label} {feats}{' ' * (i % 2)}" + ("\r" if i % 7 == 0 else ""))
        if i % 97 == 0:
            lines.append("   ")
    text = ("\n".join(lines) + "\n").encode()
    for zero_based, n_features in ((False, None), (True, None), (False, 600)):
        fast = _tokenized_libsvm(text, n_features, zero_based)
        assert fast is not None
        X, y = load_svmlight_file(
            _io.BytesIO(text), n_features=n_features, zero_based=zero_based, dtype=np.float64
        )
        assert fast[0].shape == X.shape
        np.testing.assert_array_equal(fast[0].indptr, X.indptr)
        np.testing.assert_array_equal(fast[0].indices, X.indices)
        np.testing.assert_array_equal(fast[0].data, X.data)
        np.testing.assert_array_equal(fast[1], y)
    for odd in (
        b"1 1:2 # c\n",
        b"1 qid:3 1:2\n",
        b"1,2 1:1\n",
        b"1 2:1 1:1\n",
        b"1 1:2:3\n",
        b"1 :2\n",
        b"1 2:\n",
        b"1 0:1\n",
        b"1 x:1\n",
        b"1 1.5:1\n",
    ):
        assert _tokenized_libsvm(odd, None, False) is None, odd


def test_cli_runs_json_lines_from_a_file_and_from_standard_input(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from evofeat.cli import main

    rows = events(300, seed=6)
    path = write_jsonl(tmp_path / "events.jsonl", rows, key="label")
    runner = CliRunner()
    args = ["run", "--learner", "pa-i", "--format", "json"]
    by_file = runner.invoke(main, [*args, "--dataset", str(path)])
    by_stdin = runner.invoke(main, [*args, "--dataset", "-"], input=path.read_text())
    assert by_file.exit_code == 0 and by_stdin.exit_code == 0, by_file.output + by_stdin.output
    a, b = json.loads(by_file.stdout), json.loads(by_stdin.stdout)
    assert a["streamed"] and a["mistakes"]["values"] == b["mistakes"]["values"]
    expected = dict_path(make("pa-i"), rows)
    assert a["mistakes"]["values"][0] == int((expected != np.array([y for _, y in rows])).sum())
    bad = runner.invoke(main, [*args, "--dataset", str(path), "--repeats", "3"])
    assert bad.exit_code == 2 and "--repeats 3" in bad.output and "Traceback" not in bad.output


def test_cli_datasets_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from evofeat.cli import main
    from evofeat.datasets import fetch
    from evofeat.datasets.catalogue import DATA_DIR

    body = gzip.decompress((DATA_DIR / "german.numer.gz").read_bytes())
    monkeypatch.setattr(
        fetch, "_open_url", lambda url, timeout: (url, len(body), iter([body]))
    )  # no network in tests
    runner = CliRunner()
    listed = runner.invoke(main, ["datasets"])
    assert listed.exit_code == 0 and "german" in listed.output
    http = runner.invoke(main, ["datasets", "download", "german", "--url", "http://example.test/g"])
    assert http.exit_code == 2 and "expected an https:// URL" in http.output
    ok = runner.invoke(
        main,
        [
            "datasets",
            "download",
            "german",
            "--url",
            "https://example.test/g",
            "--dest",
            str(tmp_path),
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "german" / "german.numer.gz").is_file()
    assert runner.invoke(main, ["datasets", "download"]).exit_code == 2


@pytest.mark.parametrize("repeats", ["1", "2"])  # streamed, and loaded whole
def test_cli_zero_based_and_task_options(tmp_path: Path, repeats: str) -> None:
    """The messages name the command-line option beside the Python argument, and the option works."""
    from click.testing import CliRunner

    from evofeat.cli import main

    def run(*args: str) -> object:
        args = ("--learner", "pa-i", "--repeats", repeats, "--format", "json", *args)
        return CliRunner().invoke(main, ["run", *args])

    zero = tmp_path / "z.libsvm"
    zero.write_text("1 0:1 1:2\n-1 0:1\n1 1:1\n-1 0:2\n")
    said = run("--dataset", str(zero))
    assert said.exit_code == 0, said.output
    assert "pass zero_based=True, or --zero-based on the command line" in said.stderr
    told = run("--dataset", str(zero), "--zero-based")
    assert told.exit_code == 0 and "0-based" not in told.stderr, told.output
    mistakes = [json.loads(r.stdout)["mistakes"] for r in (said, told)]
    assert mistakes[0] == mistakes[1]  # the same reading, without the warning
    refused = run("--dataset", str(zero), "--one-based")
    assert refused.exit_code == 2 and "--zero-based on the command line" in refused.stderr
    one_class = tmp_path / "one.csv"
    one_class.write_text("a,b,y\n1,2,5\n2,1,5\n3,3,5\n")
    said = run("--dataset", str(one_class))
    assert said.exit_code == 2 and "--task regression" in said.stderr, said.output
    told = CliRunner().invoke(
        main,
        ["run", "--learner", "pa-regressor", "--repeats", repeats, "--dataset", str(one_class)]
        + ["--task", "regression", "--format", "json"],
    )
    assert told.exit_code == 0, told.output
    assert json.loads(told.stdout)["mean_loss"] is not None
