"""The compiled LIBSVM parser: scikit-learn's arrays wherever it reads the text, the slow path's
messages (naming the line) wherever it does not, standard input, and bounded memory."""

from __future__ import annotations

import doctest
import gzip
import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evofeat.base import FeatureIndex, InputError
from evofeat.datasets import DataFormatError, load, textio
from evofeat.datasets import _libsvm_parse as compiled
from evofeat.datasets.readers import _parse_libsvm, libsvm_arrays, read_libsvm
from evofeat.datasets.textio import stdin_reader
from evofeat.evaluate import prequential
from evofeat.linear.pa import PA
from evofeat.streams import LibsvmStream, full
from evofeat.streams.libsvm_stream import stdin_format


def sklearn_parse(text: bytes, zero_based: bool, n_features: int | None = None):  # type: ignore[no-untyped-def]
    from sklearn.datasets import load_svmlight_file

    return load_svmlight_file(
        io.BytesIO(text), n_features=n_features, zero_based=zero_based, dtype=np.float64
    )


def assert_same_bits(a: np.ndarray, b: np.ndarray) -> None:
    """Equal as float64 bit patterns (so -0.0 and 0.0 differ, and NaN would be caught)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))


def assert_parses_as_sklearn(text: bytes, zero_based: bool, n_features: int | None = None) -> None:
    fast = _parse_libsvm(text, n_features, zero_based, True)
    assert fast is not None, text[:200]
    X, y = sklearn_parse(text, zero_based, n_features)
    assert (fast.n_rows, fast.width) == X.shape
    np.testing.assert_array_equal(fast.indptr, X.indptr)
    np.testing.assert_array_equal(fast.indices, X.indices)
    assert_same_bits(fast.values, X.data)
    assert_same_bits(fast.y, y)
    Xr, yr = read_libsvm(text, "t", n_features=n_features, zero_based=zero_based)
    assert (Xr != X).nnz == 0 and Xr.shape == X.shape
    assert_same_bits(yr, y)


def test_the_compiled_module_examples_run() -> None:
    result = doctest.testmod(compiled)
    assert result.attempted >= 4 and result.failed == 0


_VALUES = [
    "0",
    "-0",
    "1",
    "+2",
    "-3.25",
    "5.",
    ".5",
    "+.5e-1",
    "1e5",
    "1E+5",
    "-2.5e-3",
    "0.000001234",
    "123456789012345678",  # 18 digits: the exact fast path
    "9007199254740993",  # 2**53 + 1: not exact, strtod rounds
    "0.12345678901234567890123",  # 23 digits
    "1e22",
    "1e23",
    "3e-23",
    "4.9e-324",  # the smallest subnormal
    "1e-400",  # underflows to 0, as float() reads it
    "1.7976931348623157e308",
    "00012.5000",
]


def random_text(rng: np.random.Generator, n: int, zero_based: bool) -> bytes:
    """LIBSVM lines with every legal variant: blank and comment lines, empty rows, qid, CRLF, tabs."""
    lines = []
    for i in range(n):
        k = int(rng.integers(0, 30)) if i % 9 else 0  # some rows without features
        cols = np.unique(rng.integers(0 if zero_based else 1, 10**6 if i % 2 else 50, k))
        vals = []
        for _ in cols:
            u = rng.random()
            if u < 0.4:
                vals.append(repr(float(rng.standard_normal() * 10.0 ** rng.integers(-30, 30))))
            elif u < 0.7:
                vals.append(f"{rng.standard_normal():.4f}")
            else:
                vals.append(_VALUES[int(rng.integers(len(_VALUES)))])
        sep = lambda: " \t"[int(rng.integers(2))] * int(rng.integers(1, 3))  # noqa: E731
        feats = "".join(
            f"{sep()}{'+' if rng.random() < 0.05 else ''}{'0' if rng.random() < 0.05 else ''}{c}:{v}"
            for c, v in zip(cols, vals, strict=True)
        )
        label = ["+1", "-1", "1.0", "0", "2e0", "3", "-0.5", "1e-3"][i % 8]
        qid = f" qid:{i}" if i % 11 == 0 else ""
        comment = " # note 3:x" if i % 13 == 0 else ""
        lead = " " * int(rng.integers(0, 2))
        end = "\r" if i % 7 == 0 else (" " if i % 5 == 0 else "")
        lines.append(f"{lead}{label}{qid}{feats}{comment}{end}")
        if i % 17 == 0:
            lines.append("")
        if i % 19 == 0:
            lines.append("# a comment line")
    return ("\n".join(lines) + ("\n" if n % 2 else "")).encode()


@pytest.mark.parametrize("zero_based", [False, True])
def test_random_files_parse_as_scikit_learn_parses_them(zero_based: bool) -> None:
    rng = np.random.default_rng(11)
    text = random_text(rng, 4000, zero_based)
    assert_parses_as_sklearn(text, zero_based)
    assert_parses_as_sklearn(text, zero_based, n_features=10**6 + 1)
    assert_parses_as_sklearn(b"1\n-1\n", zero_based)  # rows without a feature: one column
    assert_parses_as_sklearn(b"1 3:1", zero_based)  # no newline at the end


# pieces of tokens, legal and not: any text the compiled parser takes must read as scikit-learn reads it
_LABELS = ["1", "-1", "+1", "0.5", "1e3", "nan", "inf", "1_0", "1,2", "1:2", "x", ".", "1e", "0x10"]
_INDICES = ["1", "2", "3", "+4", "07", "0", "-1", "1.5", "x", "", "qid", "1_0", "99999999999"]
_NUMBERS = ["1", "-2.5", "1e-3", ".5", "5.", "nan", "inf", "-inf", "1e999", "1_0", "", "1e", "2:3"]


@st.composite
def libsvm_like(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        tokens = [draw(st.sampled_from(_LABELS))]
        for _ in range(draw(st.integers(0, 5))):
            idx, val = draw(st.sampled_from(_INDICES)), draw(st.sampled_from(_NUMBERS))
            tokens.append(f"{idx}:{val}" if draw(st.booleans()) or idx == "qid" else idx)
        line = draw(st.sampled_from([" ", "\t", "  "])).join(tokens)
        lines.append(line + draw(st.sampled_from(["", " ", "\r", " # c 1:x", "#"])))
    return "\n".join(lines).encode()


@settings(max_examples=300, deadline=None)
@given(text=libsvm_like(), zero_based=st.booleans())
def test_the_compiled_parser_never_guesses(text: bytes, zero_based: bool) -> None:
    """Where it takes the text, scikit-learn takes it too and gives the same arrays; elsewhere
    read_libsvm gives the slow path's answer (scikit-learn's arrays or an error naming a line)."""
    fast = _parse_libsvm(text, None, zero_based, True)
    try:
        X, y = sklearn_parse(text, zero_based)
        finite = bool(np.isfinite(X.data).all() and np.isfinite(y).all())
    except (ValueError, OverflowError):
        X = None
    if fast is not None:
        assert X is not None and finite, text
        np.testing.assert_array_equal(fast.indices, X.indices)
        np.testing.assert_array_equal(fast.indptr, X.indptr)
        assert_same_bits(fast.values, X.data)
        assert_same_bits(fast.y, y)
    elif X is None or not finite:
        with pytest.raises(DataFormatError):
            read_libsvm(text, "t", n_features=None, zero_based=zero_based)
    else:  # something only scikit-learn reads (e.g. '1_0'): its arrays
        Xr, _ = read_libsvm(text, "t", n_features=None, zero_based=zero_based)
        assert (Xr != X).nnz == 0


# ---------------------------------------------------------------------------- bad input
_BAD = [
    (b"1 1:2\n-1 3:1 2:1\n", "line 2: indices must increase along a line, but '2:1' follows 3"),
    (b"1 1:2\n-1 2:1 2:1\n", "line 2: indices must increase"),
    (b"1 1:2\n1:2 3:1\n", "line 2: the label '1:2' is not a number"),
    (b"1 1:2\n-1 3:1e999\n", "line 2: '3:1e999' holds a NaN or infinite value"),
    (b"1 1:2\ninf 3:1\n", "line 2: the label 'inf' is NaN or infinite"),
    (b"1 1:2\n-1 3:nan\n", "line 2: '3:nan' holds a NaN or infinite value"),
    (b"1 1:2\n-1 3\n", "line 2: '3' is not of the form index:value"),
    (b"1 1:2\n-1 3:1:2\n", "line 2: '3:1:2' is not of the form index:value"),
    (b"1 1:2\n-1 x:1\n", "line 2: the index in 'x:1' is not an integer"),
    (b"1 1:2\n-1 -4:1\n", "line 2: index -4 in '-4:1'"),
    (b"1 1:2\n-1 2:1 33554434:1\n", "line 2: feature index 33554434 is above the limit"),
    (b"1 1:2\n-1 2:1 1000000000000:1\n", "line 2: feature index 1000000000000 is above the limit"),
]


@pytest.mark.parametrize(("text", "message"), _BAD)
@pytest.mark.parametrize("gz", [False, True])
def test_bad_lines_are_named_on_both_paths(
    tmp_path: Path, text: bytes, message: str, gz: bool
) -> None:
    path = tmp_path / ("b.libsvm.gz" if gz else "b.libsvm")
    path.write_bytes(gzip.compress(text) if gz else text)
    for read in (load, LibsvmStream):
        with pytest.raises(DataFormatError) as err:
            read(path)
        assert f"{path.name}, {message}" in str(err.value)


def test_a_bad_line_far_into_a_file_is_named_with_its_number(tmp_path: Path) -> None:
    good = b"".join(b"%d 1:0.5 7:1.25e-2 30:-3\n" % (1 - 2 * (i % 2)) for i in range(50_000))
    path = tmp_path / "far.libsvm"
    path.write_bytes(good + b"1 4:1 4:2\n" + good)
    with pytest.raises(DataFormatError, match=r"far\.libsvm, line 50001: indices must increase"):
        LibsvmStream(path, block_bytes=1 << 16)
    with pytest.raises(DataFormatError, match=r"far\.libsvm, line 50001: indices must increase"):
        load(path)


def test_index_zero_needs_zero_based(tmp_path: Path) -> None:
    text = b"1 1:2\n-1 0:1 2:1\n"
    assert _parse_libsvm(text, None, False, True) is None  # the slow path explains it
    with pytest.raises(
        DataFormatError, match=r"line 2: index 0 in '0:1': indices of this file start at 1"
    ):
        read_libsvm(text, "z.libsvm", n_features=None, zero_based=False)
    path = tmp_path / "z.libsvm"
    path.write_bytes(text)
    with pytest.raises(DataFormatError, match="index 0 appears, but zero_based=False"):
        LibsvmStream(path, zero_based=False)
    assert LibsvmStream(path, zero_based=True).n_features == 3


def test_comments_and_qid_are_read_as_scikit_learn_reads_them(tmp_path: Path) -> None:
    text = b"# header\n1 qid:7 1:2 # 3:x\n\n-1 qid:8 2:1\n1 3:4#5:6\n"
    assert_parses_as_sklearn(text, False)
    path = tmp_path / "c.libsvm"
    path.write_bytes(text)
    stream = LibsvmStream(path)
    assert (stream.n_rows, stream.n_features) == (3, 3)
    assert load(path).X.toarray().tolist() == [[2, 0, 0], [0, 1, 0], [0, 0, 4]]


def test_what_only_scikit_learn_reads_goes_to_it(tmp_path: Path) -> None:
    """'1_0' is a number to Python's float() and int(): not the compiled parser's to decide."""
    text = b"1 1_0:2 12:1_5\n"
    assert _parse_libsvm(text, None, False, True) is None
    a = libsvm_arrays(text, "u", n_features=None, zero_based=False)
    assert a.indices.tolist() == [9, 11] and a.values.tolist() == [2.0, 15.0] and a.width == 12
    path = tmp_path / "u.libsvm"
    path.write_bytes((text + b"-1 2:1 11:3\n") * 50)  # streamed: the blocks scikit-learn parsed
    ds = load(path)
    ref = prequential(PA(), full(ds.X, ds.y, ds.feature_names), keep_predictions=True)
    got = prequential(PA(), LibsvmStream(path, block_bytes=256), keep_predictions=True)
    np.testing.assert_array_equal(got.scores, ref.scores)


def test_a_line_without_newline_stops_at_the_limit_in_linear_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textio, "MAX_LINE_BYTES", 1 << 20)
    flat = tmp_path / "flat.libsvm"
    flat.write_bytes(b"1 " + b"".join(b"%d:1 " % j for j in range(1, 300_000)))  # ~2.6 MB
    with pytest.raises(DataFormatError, match=r"flat\.libsvm, line 1: longer than 1,048,576 bytes"):
        LibsvmStream(flat)


# ---------------------------------------------------------------------------- the stream
def test_long_rows_sorted_by_internal_column_give_the_in_memory_predictions(tmp_path: Path) -> None:
    """Rows of up to 200 entries (sorted by qsort, not insertion) in the columns' name order."""
    rng = np.random.default_rng(3)
    lines = []
    for _ in range(600):
        cols = np.unique(rng.integers(1, 400, int(rng.integers(1, 200))))
        vals = np.round(rng.standard_normal(cols.size), 3)
        feats = " ".join(f"{c}:{v:g}" for c, v in zip(cols, vals, strict=True))
        lines.append(f"{1 if rng.random() < 0.5 else -1} {feats}")
    path = tmp_path / "long.libsvm"
    path.write_text("\n".join(lines) + "\n")
    ds = load(path)
    ref = prequential(PA("pa-i"), full(ds.X, ds.y, ds.feature_names), keep_predictions=True)
    got = prequential(PA("pa-i"), LibsvmStream(path, block_bytes=4096), keep_predictions=True)
    np.testing.assert_array_equal(got.scores, ref.scores)
    assert got.mistakes == ref.mistakes


def test_remap_rows_checks_the_map() -> None:
    indptr, indices, values = np.array([0, 2]), np.array([0, 5]), np.array([1.0, 2.0])
    with pytest.raises(IndexError, match="column 5 is outside col_map"):
        compiled.remap_rows(indptr, indices, values, np.arange(3))


def test_memory_is_bounded_by_the_block_not_the_file(tmp_path: Path) -> None:
    """Both passes over a 24 MiB file in blocks of 1 MiB peak at a few blocks, far below the file.

    Measured: 5.7 MiB (the block's text, its arrays, and the previous
    block's, which the last chunk handed out still views).
    """
    base = b"".join(
        b"%d %s\n"
        % (1 - 2 * (i % 2), b" ".join(b"%d:0.%04d" % (j * 37 + i % 37 + 1, i) for j in range(20)))
        for i in range(10_000)
    )
    path = tmp_path / "big.libsvm"
    with open(path, "wb") as fh:
        while fh.tell() < 24 << 20:
            fh.write(base)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        stream = LibsvmStream(path, block_bytes=1 << 20)
        rows = sum(c.y.size for c in stream.chunks(*stream.internal_columns(FeatureIndex())))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rows == stream.n_rows and rows >= 10_000 * (24 << 20) // len(base)
    assert peak < min(size / 3, 8 << 20), (
        f"peak {peak / 2**20:.1f} MiB for a {size / 2**20:.0f} MiB file"
    )


# ---------------------------------------------------------------------------- standard input
def test_stdin_format_is_decided_by_the_first_character() -> None:
    assert stdin_format(io.BytesIO(b'\n\n  {"a": 1, "y": 1}\n')) == "jsonl"
    assert stdin_format(io.BytesIO(b"# comment\n1 1:2\n")) == "libsvm"
    assert stdin_format(io.BytesIO(b"a,b\n1,2\n")) == "libsvm"  # not JSON: its parser names line 1
    assert stdin_format(io.BytesIO(b"")) == "jsonl"
    data = io.BytesIO(b"1 1:2\n")
    stdin_format(data)
    assert stdin_reader(data).read() == b"1 1:2\n"  # read ahead, and put back


@pytest.mark.parametrize(
    ("head", "blank_lines"),
    [(b"\n", 1), (b"\n" * 100_000, 100_000), (b"\r\n \t\r" * 30_000, 60_000), (b"", 0)],
)
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_stdin_is_sniffed_on_its_first_non_blank_byte(
    head: bytes, blank_lines: int, bom: bytes
) -> None:
    """Blank lines (any number, any line end) and a byte-order mark are read past, and put back."""
    for body, kind in ((b"1 1:2\n-1 2:1\n", "libsvm"), (b'{"a": 1, "y": 1}\n', "jsonl")):
        data = io.BytesIO(bom + head + body)
        assert stdin_format(data) == kind
        reader = stdin_reader(data)
        replay = b"".join(iter(lambda: reader.read(1 << 16), b""))  # noqa: B023
        assert replay == b"\n" * blank_lines + body  # the line numbers are those of the input


def test_stdin_in_utf16_is_refused_with_how_to_convert() -> None:
    with pytest.raises(DataFormatError, match="UTF-16 byte-order mark.*iconv"):
        stdin_format(io.BytesIO("1 1:2\n".encode("utf-16")))

    class Terminal(io.BytesIO):
        def isatty(self) -> bool:
            return True

    with pytest.raises(InputError, match="standard input is a terminal"):
        stdin_format(Terminal())
    with pytest.raises(InputError, match="standard input is compressed.*zcat"):
        stdin_format(io.BytesIO(gzip.compress(b"1 1:2\n")))


def test_libsvm_stream_reads_standard_input_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = b"1 1:1 3:2\n-1 2:5\n1 3:1\n" * 100
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    stream = LibsvmStream("-", block_bytes=64)
    assert (stream.n_rows, stream.n_features, stream.name) == (300, 3, "stdin")
    got = prequential(PA(), stream, keep_predictions=True)
    got_again = prequential(PA(), stream, keep_predictions=True)  # read from the copy
    np.testing.assert_array_equal(got.scores, got_again.scores)
    stream.close()
    assert stream._spool is None


def _evofeat(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    code = "import sys; from evofeat.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, timeout=300
    )


def test_cli_streams_libsvm_from_standard_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    lines = [
        f"{1 if rng.random() < 0.5 else -1} "
        + " ".join(
            f"{c}:{rng.standard_normal():.3f}" for c in sorted(rng.choice(50, 5, replace=False) + 1)
        )
        for _ in range(2000)
    ]
    text = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "s.libsvm"
    path.write_bytes(text)
    args = ("run", "--learner", "pa-i", "--format", "json", "--dataset")
    by_stdin = _evofeat(*args, "-", stdin=text)
    by_file = _evofeat(*args, str(path), stdin=b"")
    assert by_stdin.returncode == 0, by_stdin.stderr.decode()
    a, b = json.loads(by_stdin.stdout), json.loads(by_file.stdout)
    assert a["streamed"] and a["n_scored"] == 2000
    assert a["mistakes"]["values"] == b["mistakes"]["values"]
    assert "standard input read as LIBSVM" in by_stdin.stderr.decode()
    bad = _evofeat(*args, "-", stdin=b"1 1:2\n-1 3:x\n")
    assert bad.returncode == 2
    assert "standard input (read as LIBSVM), line 2: the value in '3:x' is not a number" in (
        bad.stderr.decode()
    )
    assert "Traceback" not in bad.stderr.decode()


def _peak_bytes(fn: object) -> int:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_explaining_a_long_bad_line_holds_a_bounded_prefix(tmp_path: Path) -> None:
    """The error path reads each token in place (at most MAX_TOKEN_BYTES of it): its peak is a
    small part of the line, not a multiple of it (it split, decoded and tokenised the whole line)."""
    from evofeat.datasets.readers import MAX_TOKEN_BYTES, libsvm_bad_line

    huge_label = b"1 1:1\n" + b"9" * (8 << 20) + b" 1:1\n"  # a gzip bomb's one long line
    found: list[object] = []
    peak = _peak_bytes(lambda: found.append(libsvm_bad_line(huge_label)))
    assert found == [
        (2, f"a token of {8 << 20:,} bytes ('{'9' * 40}...') is not a label or index:value: "
         f"expected at most {MAX_TOKEN_BYTES:,} bytes")
    ]  # fmt: skip
    assert peak < len(huge_label) // 50, peak
    many = b"-1 1:1\n1 " + b" ".join(b"%d:1" % i for i in range(1, 200_001)) + b" 7:x\n"
    found.clear()  # a ~2 MB line of good tokens, the bad one last
    peak = _peak_bytes(lambda: found.append(libsvm_bad_line(many)))
    assert found == [(2, "the value in '7:x' is not a number")]
    assert peak < len(many) // 50, peak
    path = tmp_path / "bomb.libsvm"  # and through the reader, as a user meets it
    path.write_bytes(huge_label)
    with pytest.raises(DataFormatError, match=r"bomb\.libsvm, line 2: a token of 8,388,608 bytes"):
        load(path)
