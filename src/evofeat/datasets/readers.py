"""Read one file's bytes with a well-kept parser; turn failures into clear errors.

LIBSVM goes through a compiled one-pass parser (:mod:`._libsvm_parse`) that
reads what :func:`sklearn.datasets.load_svmlight_file` reads and hands
anything else to it; delimited text through :func:`pandas.read_csv` (C
parser), ARFF through liac-arff; the other hand-written reader is the tiny
IDX reader for MNIST. Each reader gets
the file's (decompressed) bytes from :func:`read_bytes`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import math
import re
import warnings
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import textio
from .errors import DataFormatError
from .textio import BZ2_MAGIC, GZIP_MAGIC, MAX_FEATURE_INDEX, as_text, read_all, short


def load_svmlight_file(*args: Any, **kwargs: Any) -> Any:
    """scikit-learn's LIBSVM parser, imported on first use (importing sklearn.datasets costs ~1 s)."""
    from sklearn.datasets import load_svmlight_file as parse

    return parse(*args, **kwargs)


__all__ = [
    "DecimalCommaWarning",
    "LibsvmArrays",
    "LineMap",
    "ZeroBasedWarning",
    "libsvm_arrays",
    "libsvm_bad_line",
    "not_utf8",
    "read_arff",
    "read_bytes",
    "read_idx",
    "read_libsvm",
    "read_table",
]


def decompress(raw: bytes, where: str) -> bytes:
    """Gunzip (or bunzip2) ``raw`` when it starts with the gzip (bzip2) magic bytes."""
    try:
        if raw[:2] == GZIP_MAGIC:
            return gzip.decompress(raw)
        if raw[:3] == BZ2_MAGIC:
            return bz2.decompress(raw)
    except EOFError as err:
        raise DataFormatError(
            f"{where}: the compressed stream is cut short ({err}). The file is incomplete, "
            "e.g. an interrupted download or copy: fetch it again (evofeat datasets download "
            "NAME re-verifies the checksum)."
        ) from err
    except (OSError, zlib.error, ValueError) as err:
        raise DataFormatError(
            f"{where}: the compressed stream is corrupt ({err}). Fetch the file again."
        ) from err
    return raw


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when the content is gzip (or bzip2), whatever its name.

    Read through :func:`evofeat.datasets.textio.iter_blocks`, so a line
    longer than :data:`~evofeat.datasets.textio.MAX_LINE_BYTES` stops the
    read with a short error.

    Raises
    ------
    DataFormatError
        For a cut-short or corrupt compressed stream, a line over the limit,
        or a file with no data.

    Examples
    --------
    >>> from evofeat.datasets import find
    >>> read_bytes(find("german")[0])[:3]
    b'-1 '
    """
    data = read_all(path)
    if not data.strip():
        raise DataFormatError(
            f"{path} is empty (no data). Expected at least one row of data; the file may be an "
            "interrupted download or copy: fetch it again."
        )
    return data


@dataclass
class LineMap:
    """Maps a row of the (concatenated) table to ``file, line N`` for messages.

    ``segments`` holds, per file, ``(path, data, header_lines, first_row)``.

    Examples
    --------
    >>> m = LineMap([("a.csv", b"x,y\\n\\n1,2\\n3,4\\n", 1, 0)])
    >>> m(1)
    'a.csv, line 4'
    """

    segments: list[tuple[str, bytes, int, int]]
    comment: bytes | None = None
    first_line: int = 1  # the line number of the data's first line (a block of a longer file)

    def __call__(self, row: int) -> str:
        path, data, header, first = self.segments[0]
        for seg in self.segments:
            if seg[3] <= row:
                path, data, header, first = seg
        target = row - first + header  # index among non-blank lines
        count = -1
        for lineno, line in enumerate(data.splitlines(), start=self.first_line):
            text = line.split(self.comment, 1)[0] if self.comment else line
            if text.strip():
                count += 1
                if count == target:
                    return f"{path}, line {lineno}"
        return f"{path}, data row {row - first + 1}"


def guess_sep(data: bytes, suffix: str) -> str:
    """The separator of delimited text: ``","``, ``"\\t"``, ``";"`` or ``"whitespace"``.

    Examples
    --------
    >>> guess_sep(b"1 2 3\\n", ".dat"), guess_sep(b"a\\tb\\n", ".data"), guess_sep(b"a,b", ".csv")
    ('whitespace', '\\t', ',')
    """
    if suffix == ".tsv":
        return "\t"
    first = next((ln for ln in data[:65536].splitlines() if ln.strip()), b"")
    if b"," in first:
        return ","
    if b"\t" in first:
        return "\t"
    if b";" in first:
        return ";"
    return "whitespace" if suffix != ".csv" else ","


def _numeric(v: str) -> bool:
    try:
        return math.isfinite(float(v))
    except ValueError:
        return False


def detect_header(head: pd.DataFrame) -> bool:
    """Whether the first row of ``head`` (read as text) is a header row.

    A header when some column holds text in the first row and numbers below
    it; or when every first-row field is text that never recurs in its
    column (a file of categorical values without a header repeats its levels).

    Examples
    --------
    >>> import pandas as pd
    >>> detect_header(pd.DataFrame([["a", "b"], ["1", "x"], ["2", "y"]]))
    True
    >>> detect_header(pd.DataFrame([["t", "f"], ["f", "f"], ["t", "t"]]))
    False
    """
    if len(head) < 2:
        return False
    first = [str(v).strip() for v in head.iloc[0]]
    rest = head.iloc[1:]
    for j, v in enumerate(first):
        below = [str(x).strip() for x in rest.iloc[:, j] if str(x).strip() not in ("?", "")]
        if v not in ("?", "") and not _numeric(v) and below and all(map(_numeric, below)):
            return True
    if all(v not in ("?", "") and not _numeric(v) for v in first):
        return all(v not in {str(x).strip() for x in rest.iloc[:, j]} for j, v in enumerate(first))
    return False


def read_table(
    data: bytes, where: str, *, sep: str, header: bool | None, suffix: str = ""
) -> tuple[pd.DataFrame, bool]:
    """Read delimited text with pandas' C parser; returns ``(frame, had_header)``.

    Fields are read without NA conversion (``na_filter=False``): the caller
    decides what is missing. ``sep="whitespace"`` splits on runs of blanks.
    ``header=None`` detects a header row (see :func:`detect_header`).

    Examples
    --------
    >>> df, had = read_table(b"a,b\\n1,x\\n2,y\\n", "f.csv", sep=",", header=None)
    >>> had, df.columns.tolist(), df["a"].tolist()
    (True, ['a', 'b'], [1, 2])
    """
    kwargs = table_options(sep)
    data = as_text(data, where)
    _, opened = quoted_records(data, sep)
    if opened >= 0:
        raise unclosed_quote(where, data, opened)
    check_ragged(data, sep, where)
    try:
        header = table_header(data, where, sep, header)
        frame = pd.read_csv(io.BytesIO(data), header=0 if header else None, **kwargs)
    except pd.errors.EmptyDataError as err:
        raise DataFormatError(f"{where} is empty: no rows of data.") from err
    except DataFormatError:
        raise
    except UnicodeDecodeError:
        raise not_utf8(where, data) from None
    except (pd.errors.ParserError, ValueError) as err:
        raise unreadable(where, sep, err, data) from err
    if frame.shape[0] == 0:
        raise DataFormatError(f"{where} has a header but no rows of data.")
    if header:
        _check_header(data, sep, where)
    if warn_decimal_commas(frame, where, sep):
        frame = pd.read_csv(io.BytesIO(data), header=0 if header else None, decimal=",", **kwargs)
        frame = _decimal_points(frame)
    return frame, bool(header)


def _decimal_points(frame: pd.DataFrame) -> pd.DataFrame:
    """Decimal-comma numbers left as text (a column with a missing marker) written with points.

    The parser reads ``1,5`` as 1.5 only in a column of numbers; beside a
    ``?`` the column stays text, and the numeric conversion needs ``1.5``.

    >>> _decimal_points(pd.DataFrame({"a": ["1,5", "?"], "b": ["x,y", "2"]}))["a"].tolist()
    ['1.5', '?']
    """
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
            continue
        text = col.astype(str)
        comma = text.str.strip().str.fullmatch(_DECIMAL_COMMA)
        if comma.any():
            frame[name] = text.where(~comma, text.str.replace(",", ".", regex=False))
    return frame


def table_options(sep: str) -> dict[str, Any]:
    """The :func:`pandas.read_csv` options of delimited text (C parser, no NA conversion).

    >>> table_options(";")["sep"], table_options(";")["na_filter"]
    (';', False)
    """
    pd_sep = r"\s+" if sep == "whitespace" else sep
    return dict(sep=pd_sep, na_filter=False, skip_blank_lines=True, engine="c", low_memory=False)


def check_ragged(
    data: bytes, sep: str, where: str, *, first_line: int = 1, want: tuple[int, int] | None = None
) -> None:
    """Raise :class:`DataFormatError` naming the first line whose number of fields differs.

    ``first_line`` is the line number of ``data``'s first line, ``want``
    ``(line, fields)`` of the file's first line when ``data`` is a later
    block of it (see :func:`ragged_line`).

    >>> check_ragged(b"1,2\\n3\\n", ",", "f.csv", first_line=10, want=(1, 2))
    Traceback (most recent call last):
    ...
    evofeat.datasets.errors.DataFormatError: f.csv, line 11: 1 fields, but line 1 has 2. Expected the same number of fields on every line: fix that line (a missing value is '?' or an empty field between two separators).
    """
    ragged = ragged_line(data, sep, want)
    if ragged is not None:
        lineno, got, first, fields = ragged
        first = first if want is not None else first + first_line - 1
        raise DataFormatError(
            f"{where}, line {lineno + first_line - 1}: {got} fields, but line {first} has "
            f"{fields}. Expected the same number of fields on every line: fix that line (a "
            "missing value is '?' or an empty field between two separators)."
        )


def table_header(data: bytes, where: str, sep: str, header: bool | None) -> bool:
    """``header``, or whether the text starts with a header row when None (:func:`detect_header`).

    >>> table_header(b"a,b\\n1,2\\n", "f.csv", ",", None), table_header(b"1,2\\n", "f.csv", ",", None)
    (True, False)
    """
    if header is not None:
        return header
    head = pd.read_csv(io.BytesIO(data), header=None, nrows=50, dtype=str, **table_options(sep))
    if len(head) == 1 and not any(_numeric(str(v).strip()) for v in head.iloc[0]):
        raise DataFormatError(f"{where} has a header line but no rows of data.")
    return detect_header(head)


def quoted_records(data: bytes, sep: str) -> tuple[int, int]:
    """``(end, opened)``: where the last whole record of ``data`` ends, and where a quote left open opened (-1: none).

    Quotes as pandas' C parser reads them (:func:`evofeat.datasets._textscan.csv_records`):
    a ``"`` opens a quoted field only at the start of a field, which may
    then hold newlines.

    >>> quoted_records(b'a,b\\n1,"x\\n', ","), quoted_records(b'a,b\\n1,2"\\n', ",")
    ((4, 6), (9, -1))
    """
    if b'"' not in data:
        return data.rfind(b"\n") + 1, -1
    from ._textscan import csv_records

    whitespace = sep == "whitespace"
    return csv_records(data, 0 if whitespace else ord(sep), whitespace)


def unclosed_quote(where: str, data: bytes, at: int, first_line: int = 1) -> DataFormatError:
    """The error for the quote at offset ``at`` of ``data`` (whose first line is ``first_line``) that is never closed."""
    line = first_line + data.count(b"\n", 0, at)
    start = data.rfind(b"\n", 0, at) + 1
    stop = data.find(b"\n", at, at + 200)
    return DataFormatError(
        f"{where}, line {line}: a quote opens a field here and is not closed "
        f"({short(data[start : stop if stop >= 0 else at + 40])}): the rest of the file would be read as one "
        f"field (at most {textio.MAX_LINE_BYTES:,} bytes are read for one record). Expected "
        'a closing " (a quote inside a quoted field is written ""): close or remove it.'
    )


def not_utf8(where: str, data: bytes, first_line: int = 1) -> DataFormatError:
    """The error for text that is not UTF-8, naming the line of its first bad byte.

    >>> print(not_utf8("f.csv", b"a,b\\n1,\\x80\\n"))
    f.csv, line 2: byte 0x80 is not UTF-8 text. Expected UTF-8 (or ASCII) text: convert the file (e.g. iconv -f LATIN1 -t UTF-8 FILE > FILE.utf8).
    """
    try:
        data.decode("utf-8")
        at = len(data)
    except UnicodeDecodeError as err:
        at = err.start
    byte = f"byte 0x{data[at]:02x}" if at < len(data) else "the text"
    line = first_line + data.count(b"\n", 0, at)
    return DataFormatError(
        f"{where}, line {line}: {byte} is not UTF-8 text. "
        "Expected UTF-8 (or ASCII) text: convert the file (e.g. iconv -f LATIN1 -t UTF-8 FILE "
        "> FILE.utf8)."
    )


def unreadable(
    where: str,
    sep: str,
    err: object,
    data: bytes | None = None,
    first_line: int = 1,
    want: tuple[int, int] | None = None,
) -> DataFormatError:
    """The error for text that pandas' parser refuses; given the text, it names the ragged line.

    >>> print(unreadable("f.csv", ",", "Too many columns", b'a,"b"\\n1,2\\n3\\n'))
    f.csv, line 3: 1 fields, but line 1 has 2. Expected the same number of fields on every line: fix that line (a missing value is '?' or an empty field between two separators).
    """
    if data is not None and not re.search(r"(line|row) \d+", str(err)):
        try:
            check_ragged_quoted(data, sep, where, first_line, want)
        except DataFormatError as found:
            return found
    return DataFormatError(
        f"{where}: cannot be read as {'whitespace' if sep == 'whitespace' else repr(sep)}"
        f"-separated text: {err}. Expected the same number of fields on every line; fix "
        "the line named above (or pass sep=... if the separator was guessed wrong)."
    )


def check_ragged_quoted(
    data: bytes, sep: str, where: str, first_line: int = 1, want: tuple[int, int] | None = None
) -> None:
    """:func:`check_ragged` for text with quotes (Python's csv module counts the fields of each record).

    ``want``: ``(line, fields)`` of the file's first line, when ``data`` is a later part of it.
    """
    import csv

    if sep == "whitespace":
        return
    text = data.replace(b"\x00", b"\x01").decode("utf-8", "replace")  # csv refuses NUL
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    line = 1
    try:
        for fields in rows:
            if fields and any(f.strip(" \t") for f in fields):
                if want is None:
                    want = (line + first_line - 1, len(fields))
                elif len(fields) != want[1]:
                    raise DataFormatError(
                        f"{where}, line {line + first_line - 1}: {len(fields)} fields, but line "
                        f"{want[0]} has {want[1]}. Expected the same number of "
                        "fields on every line: fix that line (a missing value is '?' or an empty "
                        "field between two separators)."
                    )
            line = rows.line_num + 1
    except csv.Error:
        return


def warn_decimal_commas(frame: pd.DataFrame, where: str, sep: str) -> bool:
    """Warn and return True when ``frame`` holds numbers written with decimal commas (``sep`` not ``,``)."""
    found = _decimal_commas(frame) if sep != "," else None
    if found:
        warnings.warn(
            f"{where}: numbers are written with decimal commas (e.g. {found}); read as decimal "
            "numbers. Write them with '.' to silence this.",
            DecimalCommaWarning,
            stacklevel=3,
        )
    return found is not None


class DecimalCommaWarning(UserWarning):
    """Numbers with decimal commas (``1,5``) in delimited text, read as decimal numbers."""


_DECIMAL_COMMA = r"[+-]?\d+,\d+"


def _decimal_commas(frame: pd.DataFrame) -> str | None:
    """An example ``column: value`` when a text column holds only decimal-comma numbers."""
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
            continue
        head = col.iloc[:1000].astype(str).str.strip()
        head = head[~head.isin(("?", ""))]
        if len(head) and bool(head.str.fullmatch(_DECIMAL_COMMA).all()):
            return f"{head.iloc[0]!r} in column {name!r}"
    return None


def _check_header(data: bytes, sep: str, where: str) -> None:
    """A repeated name in the header line is an error (pandas would rename it ``a.1``)."""
    import csv

    first = next(
        (i, ln) for i, ln in enumerate(data.split(b"\n", 200)[:200], start=1) if ln.strip()
    )
    line = first[1].decode("utf-8", "replace").strip()
    names = line.split() if sep == "whitespace" else next(csv.reader([line], delimiter=sep))
    names = [n.strip() for n in names]
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataFormatError(
                f"{where}, line {first[0]}: the column name {short(n)} appears twice in the "
                "header. Expected unique column names: rename one of them."
            )
        seen.add(n)


def ragged_line(
    data: bytes, sep: str, want: tuple[int, int] | None = None
) -> tuple[int, int, int, int] | None:
    """The first line whose number of fields differs from the first line's: ``(line, fields, first line, its fields)``.

    Blank lines are skipped. Text with quotes (where a separator may be
    inside a field) is left to the parser. ``want``: ``(line, fields)`` to
    compare with instead of the first line of ``data`` (a later block of a
    file).

    >>> ragged_line(b"1,2,0\\n\\n3,4\\n", ","), ragged_line(b"1 2\\n3  4\\n", "whitespace")
    ((3, 2, 1, 3), None)
    """
    if b'"' in data:
        return None
    if sep == "whitespace":
        counts = [len(line.split()) for line in data.split(b"\n")]
        lens = np.array(counts)
        nonblank = lens > 0
    else:
        # a few bytes of memory per byte of text (positions of line ends and separators only)
        arr = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        if not len(data) or data[-1:] != b"\n":
            ends = np.append(ends, len(data))
        starts = np.concatenate([[0], ends[:-1] + 1])
        seps = np.flatnonzero(arr == ord(sep))
        lens = np.searchsorted(seps, ends) - np.searchsorted(seps, starts) + 1
        nonblank = ends > starts
        if nonblank.any():  # a byte other than a space or tab in [start, next line's start),
            # as pandas skips blank lines (a line of "\x00" or "\x0b" is one field to it)
            filled = (arr != 32) & (arr != 9) & (arr != 13) & (arr != 10)
            nonblank[nonblank] = np.logical_or.reduceat(filled, starts[nonblank])
    rows = np.flatnonzero(nonblank)
    if rows.size == 0:
        return None
    first, fields = want if want is not None else (int(rows[0]) + 1, int(lens[rows[0]]))
    bad = rows[lens[rows] != fields]
    if bad.size == 0:
        return None
    return int(bad[0]) + 1, int(lens[bad[0]]), first, fields


class ZeroBasedWarning(UserWarning):
    """A LIBSVM file whose feature indices start at 0 (read as 0-based: features ``f0 ..``)."""


def warn_zero_based(where: str) -> None:
    """Say that ``where`` uses feature index 0, so its indices are read as 0-based.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_zero_based("f.libsvm")
    >>> "0-based" in str(w[0].message)
    True
    """
    warnings.warn(
        f"{where}: feature index 0 appears, so the indices are read as 0-based (features "
        "f0, f1, ...; LIBSVM files are usually 1-based). To say so, pass zero_based=True, or "
        "--zero-based on the command line; to refuse index 0, zero_based=False, or --one-based.",
        ZeroBasedWarning,
        stacklevel=3,
    )


#: A LIBSVM token (label or index:value) longer than this is wrong in itself: :func:`libsvm_bad_line`
#: reads no more of it, so explaining a bad file holds a few KiB beside it, however long its lines.
MAX_TOKEN_BYTES = 4096

_EOL = re.compile(rb"\r\n|\r|\n")  # the line ends of bytes.splitlines
_TOKEN = re.compile(rb"\S+")
_SHORT_LINE = 1 << 16  # lines up to this many bytes are decoded and split at once
_PIECE_LINES = 1 << 20  # bytes of whole lines copied at a time


def _lines(data: bytes) -> Iterator[bytes | tuple[int, int]]:
    """The lines of ``data`` as ``data.splitlines()`` cuts them, without copying it whole: runs of
    whole lines are copied a piece of :data:`_PIECE_LINES` bytes at a time; a line longer than
    that is given as its ``(start, end)`` in ``data``."""
    pos, n = 0, len(data)
    while pos < n:
        cut = data.rfind(b"\n", pos, pos + _PIECE_LINES)
        if cut >= 0:  # whole lines (a piece ends after a \n: no line end is cut in two)
            yield from data[pos : cut + 1].splitlines()
            pos = cut + 1
            continue
        nl = data.find(b"\n", pos)
        stop = n if nl < 0 else nl + 1
        at = pos
        for eol in _EOL.finditer(data, pos, stop):  # \r alone also ends a line
            yield at, eol.start()
            at = eol.end()
        if at < stop:
            yield at, stop
        pos = stop


def _tokens(data: bytes, line: bytes | tuple[int, int]) -> Iterable[tuple[str, int]]:
    """The tokens of ``line`` (a line of ``data``, or its span) before a ``#``, with their
    lengths; in a line over :data:`_SHORT_LINE` bytes a token longer than
    :data:`MAX_TOKEN_BYTES` is read no further than its first 40 bytes."""
    if isinstance(line, tuple):
        start, end = line
    else:
        data, start, end = line, 0, len(line)
    hash_at = data.find(b"#", start, end)
    end = end if hash_at < 0 else hash_at
    if end - start <= _SHORT_LINE:  # the usual line: decoded and split at once (faster)
        # split as bytes, as scikit-learn splits (str.split also cuts at \x1c-\x1f, \x85, ...)
        return [(tok.decode("utf-8", "replace"), len(tok)) for tok in data[start:end].split()]
    return (  # a long line: each token read in place
        (_head(data, m.start(), m.end() - m.start()), m.end() - m.start())
        for m in _TOKEN.finditer(data, start, end)
    )


def _head(data: bytes, at: int, size: int) -> str:
    """The token of ``size`` bytes at ``at``; its first 40 bytes if it is too long to read."""
    return data[at : at + (40 if size > MAX_TOKEN_BYTES else size)].decode("utf-8", "replace")


def libsvm_bad_line(
    data: bytes, *, zero_based: bool = False, n_features: int | None = None
) -> tuple[int, str] | None:
    """The first line of LIBSVM text that breaks the format, and why (None if none).

    Only used to explain a failure or a non-finite value; parsing is
    compiled (:func:`libsvm_arrays`) or scikit-learn's. It reads each token
    in place, at most :data:`MAX_TOKEN_BYTES` of it (a longer token is an
    error in itself), so its memory does not grow with the length of a line.

    Examples
    --------
    >>> libsvm_bad_line(b"1 1:2 3:4\\n-1 2:x\\n")
    (2, "the value in '2:x' is not a number")
    >>> libsvm_bad_line(b"1 1:2\\n" + b"9" * 10_000 + b" 1:1\\n")
    (2, "a token of 10,000 bytes ('9999999999999999999999999999999999999999...') is not a label or index:value: expected at most 4,096 bytes")
    """
    for lineno, line in enumerate(_lines(data), start=1):
        prev = -1
        for k, (tok, size) in enumerate(_tokens(data, line)):
            if size > MAX_TOKEN_BYTES:
                return lineno, (
                    f"a token of {size:,} bytes ({repr(tok[:40])[:-1]}...') is not a label "
                    f"or index:value: expected at most {MAX_TOKEN_BYTES:,} bytes"
                )
            if k == 0:
                if "," in tok:
                    return lineno, (
                        f"the labels {short(tok)} make a multi-label line: expected one label a "
                        "line (split the line into one line per label, or keep one label)"
                    )
                try:
                    label = float(tok)
                except ValueError:
                    return lineno, f"the label {short(tok)} is not a number"
                if not math.isfinite(label):
                    return lineno, f"the label {short(tok)} is NaN or infinite"
                continue
            if tok.startswith("qid:"):
                continue
            idx, colon, val = tok.partition(":")
            t = short(tok)
            if not colon or ":" in val:
                return lineno, f"{t} is not of the form index:value"
            try:
                i = int(idx)
            except ValueError:
                return lineno, f"the index in {t} is not an integer"
            try:
                v = float(val)
            except ValueError:
                return lineno, f"the value in {t} is not a number"
            if not math.isfinite(v):
                return lineno, f"{t} holds a NaN or infinite value"
            if i < (0 if zero_based else 1):
                first_index = 0 if zero_based else 1
                return lineno, (
                    f"index {i} in {t}: indices of this file start at {first_index} (if the "
                    "file is 0-based, pass zero_based=True, or --zero-based on the command line)"
                )
            if i <= prev:
                return lineno, f"indices must increase along a line, but {t} follows {prev}"
            if n_features is not None and i > n_features - (1 if zero_based else 0):
                return lineno, f"index {i} in {t} exceeds the {n_features} features expected"
            if i > MAX_FEATURE_INDEX:
                return lineno, (
                    f"feature index {i} is above the limit of {MAX_FEATURE_INDEX:,} "
                    "(evofeat.datasets.textio.MAX_FEATURE_INDEX: one weight per index is kept). "
                    "Renumber the features to consecutive indices"
                )
            prev = i
    return None


def read_libsvm(
    data: bytes,
    where: str,
    *,
    n_features: int | None,
    zero_based: bool | str = False,
    first_line: int = 1,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Parse LIBSVM text with scikit-learn; returns ``(X, y)`` with X float64 CSR.

    ``first_line`` is the line number of ``data``'s first line in its file
    (for messages). A feature index above
    :data:`~evofeat.datasets.textio.MAX_FEATURE_INDEX` is refused.

    Examples
    --------
    >>> X, y = read_libsvm(b"1 1:2 3:4\\n-1 2:1\\n", "f", n_features=None)
    >>> X.toarray().tolist(), y.tolist()
    ([[2.0, 0.0, 4.0], [0.0, 1.0, 0.0]], [1.0, -1.0])
    """
    data = as_text(data, where)
    if zero_based in (True, False):
        fast = _tokenized_libsvm(data, n_features, bool(zero_based), comments=True)
        if fast is not None:
            return fast
    return _read_libsvm_slow(data, where, n_features, zero_based, first_line)


def _read_libsvm_slow(
    data: bytes, where: str, n_features: int | None, zero_based: bool | str, first_line: int
) -> tuple[sp.csr_matrix, np.ndarray]:
    """scikit-learn's parser, and the messages naming the bad line (:func:`libsvm_bad_line`)."""
    zb = zero_based is True

    def bad(reason: str, expected: str) -> DataFormatError:
        found = libsvm_bad_line(data, zero_based=zb, n_features=n_features)
        at = (
            f"{where}, line {first_line + found[0] - 1}: {found[1]}"
            if found
            else f"{where}: {reason}"
        )
        return DataFormatError(f"{at}. {expected}")

    try:
        X, y = load_svmlight_file(
            io.BytesIO(data), n_features=n_features, zero_based=zero_based, dtype=np.float64
        )
    except (ValueError, IndexError, TypeError, OverflowError) as err:
        raise bad(
            short(str(err), 200),
            "Expected LIBSVM lines 'label index:value index:value ...' with integer indices "
            f"increasing along the line{'' if zb else ', starting at 1'}. Fix that line (or "
            "convert the file with sklearn.datasets.dump_svmlight_file).",
        ) from None
    if X.shape[1] > MAX_FEATURE_INDEX + 1:
        raise bad(
            f"a feature index above the limit of {MAX_FEATURE_INDEX:,}",
            "Expected indices up to evofeat.datasets.textio.MAX_FEATURE_INDEX.",
        )
    X = sp.csr_matrix(X, dtype=np.float64)
    if not np.isfinite(X.data).all() or not np.isfinite(y).all():
        raise bad(
            "a NaN or infinite value",
            "Expected finite numbers: NaN/inf are not allowed in features or labels. Omit a "
            "missing sparse entry instead (it then reads as 0), or fix the value.",
        )
    return X, np.asarray(y, dtype=np.float64)


@dataclass
class LibsvmArrays:
    """Rows of LIBSVM text as CSR arrays (see :func:`libsvm_arrays`).

    ``indices`` are 0-based columns (int64, increasing along each row),
    ``values`` and ``y`` float64; ``lo`` and ``hi`` are the smallest and
    largest column (-1 without any), ``width`` the number of columns
    (scikit-learn's: the largest column + 1, or ``n_features`` when given).

    Examples
    --------
    >>> a = libsvm_arrays(b"1 2:0.5\\n-1 1:3 4:1\\n", "f", n_features=None, zero_based=False)
    >>> a.n_rows, a.width, (a.lo, a.hi), a.head(1).indices.tolist()
    (2, 4, (0, 3), [1])
    >>> a.csr().toarray().tolist()
    [[0.0, 0.5, 0.0, 0.0], [3.0, 0.0, 0.0, 1.0]]
    """

    y: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    lo: int
    hi: int
    width: int

    @property
    def n_rows(self) -> int:
        return int(self.y.size)

    def head(self, rows: int) -> LibsvmArrays:
        """The first ``rows`` rows (views of the arrays)."""
        end = int(self.indptr[rows])
        cols = self.indices[:end]
        lo, hi = (int(cols.min()), int(cols.max())) if end else (-1, -1)
        return LibsvmArrays(
            self.y[:rows], self.indptr[: rows + 1], cols, self.values[:end], lo, hi, self.width
        )

    def csr(self) -> sp.csr_matrix:
        return sp.csr_matrix(
            (self.values, self.indices, self.indptr), shape=(self.n_rows, self.width)
        )


def _parse_libsvm(
    data: bytes, n_features: int | None, zero_based: bool, comments: bool
) -> LibsvmArrays | None:
    """LIBSVM text parsed in one compiled pass; None where the text needs the slow path.

    See :mod:`evofeat.datasets._libsvm_parse`: the compiled parser reads
    exactly what scikit-learn reads the same way and stops at anything else
    (malformed, unsorted, out of range, not finite, ``nan``, ``1_000``,
    multi-label), where the slow path parses or explains the text.
    """
    from ._libsvm_parse import parse_block

    shift = 0 if zero_based else 1
    limit = MAX_FEATURE_INDEX + shift
    if n_features is not None:
        limit = min(limit, n_features - 1 + shift)
    y, indptr, indices, values, stop, lo, hi = parse_block(data, zero_based, limit, comments)
    if stop:
        return None
    lo, hi = (lo - shift, hi - shift) if hi >= 0 else (-1, -1)
    width = n_features if n_features is not None else max(hi + 1, 1)
    return LibsvmArrays(y, indptr, indices, values, lo, hi, width)


def libsvm_arrays(
    data: bytes,
    where: str,
    *,
    n_features: int | None,
    zero_based: bool,
    first_line: int = 1,
) -> LibsvmArrays:
    """Parse whole lines of LIBSVM text into CSR arrays, as :func:`read_libsvm` reads them.

    The compiled parser reads the text in one pass; where it stops (a bad
    line, or something only scikit-learn reads, such as ``1_000``), the text
    goes to :func:`read_libsvm`'s slow path, which raises the error naming
    the line or parses the text. Either way the arrays are the same.

    >>> a = libsvm_arrays(b"1 1:2 3:4\\n-1 2:1\\n", "f", n_features=None, zero_based=False)
    >>> a.y.tolist(), a.indptr.tolist(), a.indices.tolist(), a.values.tolist(), a.width
    ([1.0, -1.0], [0, 2, 3], [0, 2, 1], [2.0, 4.0, 1.0], 3)
    """
    fast = _parse_libsvm(data, n_features, zero_based, True)
    if fast is not None:
        return fast
    X, y = _read_libsvm_slow(data, where, n_features, zero_based, first_line)
    indices = X.indices.astype(np.int64)
    lo, hi = (int(indices.min()), int(indices.max())) if indices.size else (-1, -1)
    return LibsvmArrays(y, X.indptr.astype(np.int64), indices, X.data, lo, hi, int(X.shape[1]))


def _tokenized_libsvm(
    data: bytes, n_features: int | None, zero_based: bool, *, comments: bool = False
) -> tuple[sp.csr_matrix, np.ndarray] | None:
    """LIBSVM text parsed by the compiled parser as ``(X, y)``; None when the text needs scikit-learn.

    With ``comments=False`` only plain lines are taken (a ``#`` comment or a
    ``qid`` token also returns None); :func:`read_libsvm` passes ``True``.
    Comments, ``qid``, multi-label lines, unsorted or repeated indices and
    anything malformed return None: scikit-learn then parses (or
    :func:`libsvm_bad_line` explains) the text, so both give one result.

    >>> X, y = _tokenized_libsvm(b"1 1:2 3:4\\n\\n-1 2:0.5\\n", None, False)
    >>> X.toarray().tolist(), y.tolist()
    ([[2.0, 0.0, 4.0], [0.0, 0.5, 0.0]], [1.0, -1.0])
    """
    fast = _parse_libsvm(data, n_features, zero_based, comments)
    return None if fast is None else (fast.csr(), fast.y)


_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(data: bytes, where: str) -> np.ndarray:
    """Parse LeCun's IDX format (MNIST); returns an array of the stored shape.

    Examples
    --------
    >>> import numpy as np
    >>> raw = bytes([0, 0, 8, 2]) + np.array([2, 3], ">i4").tobytes() + bytes(range(6))
    >>> read_idx(raw, "x").tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES:
        raise DataFormatError(
            f"{where}: not an IDX file (it starts with {data[:4]!r}; expected two zero bytes, "
            "a type code and the number of dimensions)."
        )
    ndim = data[3]
    dims = np.frombuffer(data, dtype=">i4", count=ndim, offset=4).astype(np.int64)
    dtype = np.dtype(_IDX_TYPES[data[2]])
    offset = 4 + 4 * ndim
    expected = int(np.prod(dims)) * dtype.itemsize
    if len(data) - offset != expected:
        raise DataFormatError(
            f"{where}: the header announces shape {tuple(dims.tolist())} ({expected} bytes of "
            f"data) but {len(data) - offset} bytes follow it. The file is cut short or "
            "corrupt: fetch it again."
        )
    return np.frombuffer(data, dtype=dtype, offset=offset).reshape(tuple(dims.tolist()))


def read_arff(data: bytes, where: str) -> tuple[list[tuple[str, Any]], list[list[Any]]]:
    """Parse ARFF with liac-arff; returns ``(attributes, rows)``.

    ``attributes`` is a list of ``(name, type)`` where type is ``"NUMERIC"``
    (also REAL/INTEGER), ``"STRING"`` or the list of nominal levels in
    declaration order; missing values are None.

    Examples
    --------
    >>> attrs, rows = read_arff(b"@relation r\\n@attribute a numeric\\n"
    ...                         b"@attribute c {n,p}\\n@data\\n1,p\\n?,n\\n", "f.arff")
    >>> attrs, rows
    ([('a', 'NUMERIC'), ('c', ['n', 'p'])], [[1.0, 'p'], [None, 'n']])
    """
    import arff  # liac-arff

    try:
        text = as_text(data, where).decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataFormatError(f"{where}: not UTF-8 text ({err}); save the ARFF as UTF-8.") from err
    try:
        parsed = arff.loads(text)
    except arff.ArffException as err:
        raise DataFormatError(
            f"{where}: not a valid ARFF file: {err} Expected '@relation', '@attribute name "
            "type' lines, '@data', then one comma-separated row per line whose values match "
            "the declared types ('?' for missing). Fix that line."
        ) from err
    return list(parsed["attributes"]), list(parsed["data"])
