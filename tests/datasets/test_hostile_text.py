"""Hostile text for the readers: every input fails on its line (exit 2), never in the crash handler.

Line ends of every kind, byte-order marks, deep nesting, huge numbers,
repeated keys, quotes left open and standard input that starts with blank
lines, through the streams, the loader and the command line.
"""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli_invoke import invoke
from evofeat.datasets import DataFormatError, load, textio
from evofeat.datasets.readers import quoted_records
from evofeat.streams import CsvStream, JsonlStream, LibsvmStream


def run_file(path: Path, *extra: str, stdin: bytes | None = None) -> Any:
    return invoke("run", "--learner", "pa-i", "--dataset", str(path), *extra, stdin=stdin)


def assert_input_error(result: Any, *needles: str) -> None:
    """Exit 2 with one ``error:`` line holding every needle; not the crash handler."""
    assert result.exit_code == 2, (result.exit_code, result.stderr, result.exception)
    assert "a bug in evofeat" not in result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


# ---------------------------------------------------------------- JSON Lines
@pytest.mark.parametrize(
    ("line", "needles"),
    [
        ('{"a": ' + "[" * 10_000 + "]" * 10_000 + ', "y": 0}', ("line 2", "nested too deeply")),
        ('{"a": ' + "9" * 401 + ', "y": 0}', ("line 2", "401 digits")),
        ('{"a": 1, "y": ' + "9" * 401 + "}", ("line 2", "label", "401 digits")),
        ('{"a": 0.5, "a": 99, "y": 0}', ("line 2", "'a' appears twice")),
        ('{"a": 0.5, "y": 0, "y": 1}', ("line 2", "'y' appears twice")),
        ('{"a": true, "y": 0}', ("line 2", "feature 'a' is true", "1 or 0")),
        ('{"a": 1e999, "y": 0}', ("line 2", "feature 'a' is Infinity")),
        ('{"a": 1, "y": 0', ("line 2", "not valid JSON")),
    ],
)
def test_jsonl_refuses_on_the_line(tmp_path: Path, line: str, needles: tuple[str, ...]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1, "y": 1}\n' + line + "\n")
    assert_input_error(run_file(path), *needles)
    with pytest.raises(DataFormatError, match="line 2"):
        JsonlStream(path)


def test_jsonl_labels_beyond_int64_are_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1, "y": 1}\n{"a": 2, "y": 100000000000000000000000}\n')
    stream = JsonlStream(path)
    assert stream.task == "binary" and stream.classes.tolist() == [1.0, 1e23]


@pytest.mark.parametrize("bom", [b"", textio.UTF8_BOM])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_jsonl_every_line_end_and_a_bom(tmp_path: Path, bom: bytes, eol: bytes) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(bom + eol.join([b'{"a": 1, "y": 1}', b'{"b": 2, "y": 0}', b""]))
    stream = JsonlStream(path)
    assert (stream.n_rows, stream.feature_names) == (2, ["a", "b"])
    assert run_file(path).exit_code == 0


def test_utf16_text_is_refused_with_how_to_convert(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes('{"a": 1, "y": 1}\n'.encode("utf-16"))
    assert_input_error(run_file(path), "line 1", "UTF-16", "iconv")


# ---------------------------------------------------------------- CSV
ROWS = "a,b,y\n" + "".join(f"{i % 7},{i % 3},{i % 2}\n" for i in range(200))


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("bom", [b"", textio.UTF8_BOM])
def test_csv_every_line_end_streamed_and_loaded(tmp_path: Path, eol: bytes, bom: bytes) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(bom + ROWS.encode().replace(b"\n", eol))
    want = load(_plain(tmp_path), missing="drop")
    got = load(path, missing="drop")
    assert got.feature_names == ["a", "b"] and np.array_equal(got.X, want.X)
    stream = CsvStream(path, block_bytes=256)  # many blocks: a \r\n may fall across two
    assert (stream.n_rows, stream.feature_names) == (200, ["a", "b"])
    for extra in ((), ("--repeats", "2")):  # streamed, then loaded whole
        assert run_file(path, *extra).exit_code == 0


def _plain(folder: Path) -> Path:
    path = folder / "plain.csv"
    path.write_text(ROWS)
    return path


def test_an_unclosed_quote_is_reported_where_it_opened(tmp_path: Path) -> None:
    lines = ROWS.splitlines()
    lines[50] = '"' + lines[50]  # line 51
    path = tmp_path / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    for extra in ((), ("--repeats", "2")):  # streamed, then loaded whole
        assert_input_error(run_file(path, *extra), "line 51: a quote opens a field")
    with pytest.raises(DataFormatError, match="line 51: a quote"):
        CsvStream(path, block_bytes=64)


def test_quoted_fields_across_lines_and_stray_quotes_are_read_as_pandas_reads_them(
    tmp_path: Path,
) -> None:
    text = 'a,b,y\n1,"x\ny",0\n2,3"4,1\n' + "".join(f'{i},"u{i % 2}",{i % 2}\n' for i in range(300))
    path = tmp_path / "t.csv"
    path.write_text(text)
    want = load(path, missing="drop", label_column="y")
    stream = CsvStream(path, block_bytes=32, label_column="y")  # cut between records only
    assert stream.n_rows == want.X.shape[0] == 302
    assert quoted_records(b'1,"x\n', ",") == (0, 2)


def test_a_stray_quote_in_a_streamed_csv_keeps_memory_bounded(tmp_path: Path) -> None:
    """A quote inside an unquoted field is a character: the stream does not hold the rest of
    the file for it (its peak is that of the same file without the quote)."""
    body = "".join(f"{i % 97},u{i % 3},{i % 5},{i % 2}\n" for i in range(200_000))  # ~2 MB
    peaks = []
    for stray in ("u1", 'u"1'):
        path = tmp_path / "stray.csv"
        path.write_text(f"a,b,c,y\n1,{stray},4,1\n" + body)
        tracemalloc.start()
        try:
            stream = CsvStream(path, block_bytes=16 << 10, label_column="y")
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert stream.n_rows == 200_001
    assert peaks[1] < 2 * peaks[0] < path.stat().st_size, peaks


def test_a_quote_left_open_stops_at_the_record_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textio, "MAX_LINE_BYTES", 1 << 16)
    body = "".join(f"{i % 97},{i % 2}\n" for i in range(100_000))
    path = tmp_path / "open.csv"
    path.write_text("a,y\n" + body[:40] + '"7,1\n' + body)
    with pytest.raises(DataFormatError, match=r"line \d+: a quote opens a field"):
        CsvStream(path, block_bytes=4096)


# ---------------------------------------------------------------- LIBSVM
@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_libsvm_every_line_end(tmp_path: Path, eol: bytes) -> None:
    path = tmp_path / "t.libsvm"
    path.write_bytes(eol.join([b"1 1:1 3:2", b"-1 2:5", b"1 3:1", b""]))
    X, y = load(path).X, load(path).y
    assert X.shape == (3, 3) and y.tolist() == [1, -1, 1]
    assert LibsvmStream(path, block_bytes=4).n_rows == 3
    assert run_file(path).exit_code == 0


def test_a_multilabel_line_is_named_loaded_whole_and_streamed(tmp_path: Path) -> None:
    path = tmp_path / "t.libsvm"
    path.write_text("1 1:1\n0 2:1\n1,2 1:1\n")
    for extra in ((), ("--repeats", "2")):
        assert_input_error(run_file(path, *extra), "line 3", "multi-label")


# ---------------------------------------------------------------- standard input
@pytest.mark.parametrize("blank", [b"\n", b"\n" * 5000, b"\r\n" * 3])
def test_stdin_libsvm_after_blank_lines_is_libsvm(blank: bytes) -> None:
    result = invoke("run", "--learner", "pa-i", "--dataset", "-", stdin=blank + b"1 1:1\n-1 2:1\n")
    assert result.exit_code == 0, result.stderr
    assert "read as LIBSVM" in result.stderr


def test_stdin_jsonl_with_a_bom_is_jsonl() -> None:
    data = textio.UTF8_BOM + b'{"a": 1, "y": 1}\n{"b": 1, "y": 0}\n'
    result = invoke("run", "--learner", "pa-i", "--dataset", "-", stdin=data)
    assert result.exit_code == 0, result.stderr
    assert "read as JSON Lines" in result.stderr
    assert "streamed from standard input" in result.stdout


def test_stdin_errors_name_the_line_after_blank_lines() -> None:
    result = invoke("run", "--learner", "pa-i", "--dataset", "-", stdin=b"\n\n1 1:1\n1 1:x\n")
    assert_input_error(result, "line 4")


def test_peek_keeps_bounded_memory_over_many_blank_lines() -> None:
    data = io.BytesIO(b"\n" * (8 << 20) + b"1 1:1\n")
    tracemalloc.start()
    try:
        head = textio.peek_stdin(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert head == b"1 1:1\n" and peak < 1 << 20
