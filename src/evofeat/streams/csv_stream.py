"""A stream read from delimited text (CSV, TSV, whitespace) in chunks, in memory bounded by the chunk.

The file (optionally gzip) is read in blocks of whole lines
(:func:`evofeat.datasets.textio.iter_blocks`) and each block is parsed by
:func:`pandas.read_csv` with the C parser, with the options, checks and
encodings of :func:`evofeat.datasets.load`: the same separator guess, header
detection, label column (and the warning that names ``--label-column``),
errors naming the line for a ragged line or a value that is not a number,
an error for a repeated header name, decimal commas detected and said,
categorical columns coded from their sorted levels, labels coded as the
loader codes them. A first pass reads the file once to learn what the
loader learns from the whole table (rows, the kind and levels of each
column, the labels, where each feature is first present); the prequential
loop then reads it again, chunk by chunk.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex, sort_names
from evofeat.base.stream import Chunk
from evofeat.datasets import textio
from evofeat.datasets.encode import (
    CATEGORICAL_MODES,
    MISSING_TOKENS,
    RawColumn,
    _format_level,
    _sort_levels,
    _to_numeric,
    encode_features,
    encode_labels,
)
from evofeat.datasets.errors import DataFormatError
from evofeat.datasets.loaders import (
    _TABLE_SUFFIXES,
    _column_ref,
    _suffix,
    warn_label_column,
)
from evofeat.datasets.readers import (
    LineMap,
    _check_header,
    check_ragged,
    guess_sep,
    not_utf8,
    quoted_records,
    read_bytes,
    table_header,
    table_options,
    unclosed_quote,
    unreadable,
    warn_decimal_commas,
)
from evofeat.datasets.textio import iter_blocks, open_binary
from evofeat.streams.libsvm_stream import _MAX_CLASSES, user_file

__all__ = ["CSV_SUFFIXES", "DEFAULT_BLOCK_BYTES", "MAX_LEVELS", "CsvStream", "csv_path"]

#: File suffixes read as delimited text (before an optional ``.gz``), as :func:`evofeat.datasets.load` reads them.
CSV_SUFFIXES = _TABLE_SUFFIXES
#: Bytes of text parsed at a time when ``block_bytes`` is not given (read when the stream is made).
DEFAULT_BLOCK_BYTES = 4 << 20
#: The most distinct text values the first pass keeps for one categorical column.
MAX_LEVELS = 1 << 16
_MISSING = ("keep", "drop")
_HEAD_LINES = 64  # lines of the first block at least (the header is detected from its first 50)
_TASKS = ("binary", "multiclass", "regression")


@dataclass
class _Column:
    """What the first pass learns about one feature column."""

    name: str
    numeric: bool = False  # a number was seen
    text: tuple[str, str] | None = None  # (where, value) of the first text value
    levels: set[str] = field(default_factory=set)
    first_row: int = -1  # the first (kept) row where the column is present


class CsvStream:
    """Rows of a CSV/TSV/whitespace file (optionally gzip), streamed in chunks in bounded memory.

    It goes into :func:`evofeat.evaluate.prequential` like
    :class:`~evofeat.streams.LibsvmStream` (``n_rows``, ``n_features``,
    ``task``, ``info``, ``y``: the distinct encoded labels,
    :meth:`internal_columns` and :meth:`chunks`), and reads the file as
    :func:`evofeat.datasets.load` does, so a streamed run makes the same
    predictions as a run on ``Stream.from_dense(load(path, missing=...).X,
    ...)``. Memory is bounded by the block, whatever the number of rows:
    about 15 times ``block_bytes`` for the parsed and encoded block and its
    chunks (57 to 63 MiB traced with the default 4 MiB blocks, measured on
    files of 20 numeric columns with and without missing values), plus the
    feature names, the label values and the levels of the categorical
    columns.

    **Missing values** (``?`` or an empty field) are absent features
    (``missing="keep"``, NaN as :meth:`Stream.from_dense` reads it): the
    feature is not shown to the learner in that row, as a missing key on the
    dict path; ``missing="drop"`` drops the rows holding one, as
    :func:`~evofeat.datasets.load`'s default does. A missing label is an
    error (``"keep"``) or drops its row (``"drop"``).

    **Categorical columns** (every present value text): the first pass
    collects each such column's levels (at most :data:`MAX_LEVELS`; more is
    an error: an id or free text is not a feature), so the codes are those
    of the whole file, exactly as the loader gives them: sorted levels,
    ``categorical="ordinal"`` (codes 0..L-1) or ``"onehot"`` (one 0/1
    column per level, named ``attr=level``). A stream thus never meets an
    unseen category, and its feature space is known before the first row. A
    column holding both numbers and text is an error naming the first text
    value, as in the loader.

    Parameters
    ----------
    path
        The file; gzip (or bzip2) content is decompressed on the fly.
    label_column
        The label's column by position (0-based, -1 = last) or header name;
        default: the last column (a warning names ``--label-column`` when
        another column holds text that looks like class labels).
    task
        ``"binary"``, ``"multiclass"`` or ``"regression"``; default inferred
        from the labels as the loader infers it (two values: binary, the
        second of the sorted values is +1; non-integral numbers:
        regression; otherwise multiclass). More than 1024 distinct labels
        must be numbers: then the task is regression.
    binary_positive
        The label that becomes +1 (one-vs-rest on a multiclass label).
    categorical
        ``"ordinal"`` or ``"onehot"``, as for :func:`~evofeat.datasets.load`.
    missing
        ``"keep"`` (absent features) or ``"drop"`` (drop the row).
    header, sep
        Whether the file has a header row, and its separator (``","``,
        ``"\\t"``, ``";"`` or ``"whitespace"``); default detected and
        guessed from the first block, as the loader does.
    block_bytes
        Bytes of text parsed at a time (whole lines). Default:
        :data:`DEFAULT_BLOCK_BYTES` (4 MiB).

    Attributes
    ----------
    n_rows, n_features : int
        Rows (those kept) and encoded feature columns.
    feature_names : list of str
        The header names (``f1 ..`` without a header), one-hot columns as
        ``attr=level``: :func:`~evofeat.datasets.load`'s names.
    classes : list
        The label values in code order (binary: ``[negative, positive]``);
        empty for regression.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.evaluate import prequential
    >>> from evofeat.linear.pa import PA
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.csv"
    >>> _ = path.write_text("a,b,colour,label\\n" + "1,0,red,yes\\n0,?,blue,no\\n" * 500)
    >>> stream = CsvStream(path, categorical="onehot")
    >>> stream.n_rows, stream.feature_names, stream.task, stream.classes
    (1000, ['a', 'b', 'colour=blue', 'colour=red'], 'binary', ['no', 'yes'])
    >>> prequential(PA(), stream, chunk_rows=128).mistakes
    1
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        label_column: int | str | None = None,
        task: str | None = None,
        binary_positive: Any = None,
        categorical: str = "ordinal",
        missing: str = "keep",
        header: bool | None = None,
        sep: str | None = None,
        block_bytes: int | None = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such delimited-text file")
        for label, value, allowed in (
            ("task", task, (None, *_TASKS)),
            ("categorical", categorical, CATEGORICAL_MODES),
            ("missing", missing, _MISSING),
            ("sep", sep, (None, ",", "\t", ";", "whitespace")),
        ):
            if value not in allowed:
                raise InputError(
                    f"unknown {label}",
                    expected=" or ".join(repr(a) for a in allowed if a is not None),
                    received=repr(value),
                    fix=f"pass {label}={allowed[0]!r}"
                    + (
                        " (missing='impute' needs the whole file: evofeat.datasets.load)"
                        if label == "missing"
                        else ""
                    ),
                )
        if block_bytes is not None and not (isinstance(block_bytes, int) and block_bytes > 0):
            raise InputError(
                "block_bytes must be a positive integer",
                received=repr(block_bytes),
                fix="pass block_bytes=None for the default",
            )
        self.name = self.path.name
        self.where = str(self.path)
        self.categorical = categorical
        self.missing = missing
        self._block_bytes = int(DEFAULT_BLOCK_BYTES if block_bytes is None else block_bytes)
        self._sep = sep
        self._header = header
        self._label_ref = label_column
        self._decimal = "."
        self.columns: list[Any] = []  # the header's names (positions without one): set by _layout
        self._want: tuple[int, int] | None = None  # (line, fields) of the first line
        self._survey(label_column is None)
        self._code_labels(task, binary_positive)
        self.info: dict[str, Any] = {"scenario": "full", "source": self.where}
        self._base = 0
        self._new_cum = np.arange(self.n_features + 1, dtype=np.int64)

    # ---------------------------------------------------------------- reading
    def _texts(self) -> Iterator[tuple[bytes, int]]:
        """Blocks of whole records and their first line number; a block never ends inside quotes.

        A record whose quoted field stays open for more than
        :data:`~evofeat.datasets.textio.MAX_LINE_BYTES` (a quote that is never
        closed) is an error naming the line where it opened, so memory stays
        bounded whatever the quoting.
        """
        carry, carry_line = b"", 0
        first = True
        sep = self._sep
        with open_binary(self.path) as fh:
            for text, first_line in iter_blocks(fh, self.where, self._block_bytes):
                if carry:
                    text, first_line, carry = carry + text, carry_line, b""
                if first and text.count(b"\n") < _HEAD_LINES:
                    carry, carry_line = text, first_line  # a short first block
                    continue
                sep = sep or guess_sep(text, _suffix(self.path))
                end, opened = quoted_records(text, sep)
                if opened >= 0:  # a quoted field runs on: carry its record to the next block
                    if len(text) - opened > textio.MAX_LINE_BYTES:
                        raise unclosed_quote(self.where, text, opened, first_line)
                    text, carry = text[:end], text[end:]
                    carry_line = first_line + text.count(b"\n")
                    if not end:
                        continue
                first = False
                yield text, first_line
        if carry:
            _, opened = quoted_records(carry, sep or guess_sep(carry, _suffix(self.path)))
            if opened >= 0:
                raise unclosed_quote(self.where, carry, opened, carry_line)
            yield carry, carry_line

    def _blocks(self) -> Iterator[tuple[RawColumn, list[RawColumn], LineMap]]:
        """Each block parsed: its label, its feature columns (:meth:`_columns`) and its line map.

        The first block fixes the separator, the header and the number of
        fields (later blocks are checked against it).
        """
        want: tuple[int, int] | None = None
        for text, first_line in self._texts():
            if want is None:
                if not text.strip():
                    continue
                if not self.columns:
                    self._layout(text, first_line)
                text, first_line, want = self._data_part(text, first_line)
                self._want = want
                if not text.strip():
                    continue
            else:
                check_ragged(text, self.sep, self.where, first_line=first_line, want=want)
            label, features = self._columns(text, first_line)
            yield label, features, LineMap([(self.where, text, 0, 0)], first_line=first_line)
        if want is None:  # nothing but blanks: the loader's message
            read_bytes(self.path)
            raise DataFormatError(f"{self.where} is empty: no rows of data.")

    def _layout(self, text: bytes, first_line: int) -> None:
        """Separator, header, columns, label column and decimal mark, from the first block (as the loader decides them)."""
        self.sep = self._sep or guess_sep(text, _suffix(self.path))
        check_ragged(text, self.sep, self.where, first_line=first_line)
        try:
            self.has_header = table_header(text, self.where, self.sep, self._header)
            if self.has_header:
                _check_header(text, self.sep, self.where)
            head = pd.read_csv(
                io.BytesIO(text),
                header=0 if self.has_header else None,
                nrows=0 if self.has_header else 1,
                **table_options(self.sep),
            )
        except pd.errors.EmptyDataError as err:
            raise DataFormatError(f"{self.where} is empty: no rows of data.") from err
        except DataFormatError:
            raise
        except UnicodeDecodeError:
            raise not_utf8(self.where, text, first_line) from None
        except (pd.errors.ParserError, ValueError) as err:
            raise unreadable(self.where, self.sep, err, text, first_line) from err
        self.columns = list(head.columns) if self.has_header else list(range(head.shape[1]))
        ref = -1 if self._label_ref is None else self._label_ref
        self.label_pos = _column_ref(ref, self.columns, self.has_header, self.where)
        self.feature_pos = [j for j in range(len(self.columns)) if j != self.label_pos]
        if not self.feature_pos:
            raise DataFormatError(
                f"{self.where}: {len(self.columns)} column(s), all taken by the label: no "
                "feature columns. Expected at least one feature column beside the label: "
                "check the separator (sep=...) or the file."
            )
        self._names = (
            [str(self.columns[j]) for j in self.feature_pos]
            if self.has_header
            else [f"f{i + 1}" for i in range(len(self.feature_pos))]
        )
        data, data_line, _ = self._data_part(text, first_line)
        if data.strip():
            frame = self._parse(data, data_line)
            frame.columns = self.columns
            if warn_decimal_commas(frame, self.where, self.sep):
                self._decimal = ","

    def _data_part(self, text: bytes, first_line: int) -> tuple[bytes, int, tuple[int, int]]:
        """The first block from its first non-blank line, without the header line; ``(line, fields)`` of that line."""
        start = 0
        while True:  # skip blank lines (the block holds a non-blank one)
            end = text.find(b"\n", start)
            stop = len(text) if end < 0 else end
            if text[start:stop].strip():
                break
            start = stop + 1
        line = first_line + text.count(b"\n", 0, start)
        want = (line, len(self.columns))
        if self.has_header:  # the data start after the header line
            return text[stop + 1 :], line + 1, want
        return text[start:], line, want

    def _parse(self, text: bytes, first_line: int, **options: Any) -> pd.DataFrame:
        """The block's fields as the loader reads them (no NA conversion; the label as text)."""
        kwargs = {**table_options(self.sep), "dtype": {self.label_pos: str}, **options}
        try:
            return pd.read_csv(
                io.BytesIO(text),
                header=None,
                names=range(len(self.columns)),
                decimal=self._decimal,
                **kwargs,
            )
        except pd.errors.EmptyDataError:
            return pd.DataFrame(columns=range(len(self.columns)))
        except UnicodeDecodeError:
            raise not_utf8(self.where, text, first_line) from None
        except (pd.errors.ParserError, ValueError) as err:
            message = re.sub(  # pandas counts the lines of the block
                r"line (\d+)", lambda m: f"line {int(m.group(1)) + first_line - 1}", str(err)
            )
            raise unreadable(self.where, self.sep, message, text, first_line, self._want) from err

    def _columns(self, text: bytes, first_line: int) -> tuple[RawColumn, list[RawColumn]]:
        """The label and the feature columns of a block, as the loader's :class:`RawColumn`.

        Numbers are parsed by the C parser with the missing markers (``?``,
        empty) read as NaN; a column holding anything else (text, ``nan``,
        an infinite number) is read again as text and then handled exactly
        as the loader handles it (its levels, or its error message).
        """
        fast = self._parse(
            text,
            first_line,
            na_filter=True,
            keep_default_na=False,
            na_values={j: list(MISSING_TOKENS) for j in self.feature_pos},
        )
        features: list[RawColumn | None] = []
        for j, name in zip(self.feature_pos, self._names, strict=True):
            col = fast[j]
            if is_numeric_dtype(col.dtype) and not is_bool_dtype(col.dtype):
                values = col.to_numpy(np.float64)
                if not np.isinf(values).any():
                    features.append(RawColumn(name, values, np.isnan(values)))
                    continue
            features.append(None)
        slow = [j for j, c in zip(self.feature_pos, features, strict=True) if c is None]
        if slow:
            text_frame = self._parse(text, first_line, usecols=slow)
            features = [
                RawColumn.from_series(name, text_frame[j]) if c is None else c
                for j, name, c in zip(self.feature_pos, self._names, features, strict=True)
            ]
        label = RawColumn.from_series("label", fast[self.label_pos])
        return label, [c for c in features if c is not None]

    # ---------------------------------------------------------------- the first pass
    def _survey(self, say_label: bool) -> None:
        """Read the file once: columns, their kinds and levels, labels, kept rows, first presence."""
        cols: list[_Column] | None = None
        labels: set[str] | None = set()
        numeric_labels = True
        n = total = 0  # rows kept, rows read
        for label, features, line_of in self._blocks():
            if cols is None:
                cols = [_Column(name) for name in self._names]
            absent = np.zeros((len(label.values), len(cols)), dtype=bool)
            for k, (col, raw) in enumerate(zip(cols, features, strict=True)):
                absent[:, k] = raw.missing
                self._survey_column(col, raw, line_of)
            kept = ~(absent.any(axis=1) | label.missing) if self.missing == "drop" else None
            if kept is None and label.missing.any():
                raise DataFormatError(
                    f"{line_of(int(np.flatnonzero(label.missing)[0]))}: the label is missing. A "
                    "label cannot be imputed: fix it, or use missing='drop' to drop rows without "
                    "a label."
                )
            if kept is not None:
                absent, values = absent[kept], label.values[kept]
            else:
                values = label.values
            for k in np.flatnonzero(~absent.all(axis=0)).tolist():
                if cols[k].first_row < 0:
                    cols[k].first_row = n + int(np.argmax(~absent[:, k]))
            if values.size:
                distinct = pd.unique(values)
                numeric_labels = numeric_labels and bool(
                    np.isfinite(pd.to_numeric(pd.Series(distinct), errors="coerce")).all()
                )
                if labels is not None:
                    labels.update(distinct.tolist())
                    if len(labels) > _MAX_CLASSES:
                        labels = None
            n += len(values)
            total += len(label.values)
        if cols is None:
            raise DataFormatError(f"{self.where} has a header but no rows of data.")
        if n == 0:
            raise DataFormatError(
                f"{self.where}: every row holds a missing value ('?' or an empty field), so "
                "missing='drop' leaves no row. Expected rows to learn from: pass missing='keep' "
                "(a missing value is an absent feature)."
            )
        self.n_rows = n
        self._cols = cols
        self._labels, self._numeric_labels = labels, numeric_labels
        self._levels = [_sort_levels(sorted(c.levels)) if not c.numeric else None for c in cols]
        self._order_features(self._name_features())
        if say_label and numeric_labels:
            limit = max(2, min(100, total // 2))
            texts = [k for k, lv in enumerate(self._levels) if lv and len(lv) <= limit]
            if texts:
                pos, header = self.feature_pos[texts[0]], self.has_header
                warn_label_column(self.columns, self.label_pos, pos, header, self.where, 4)

    def _name_features(self) -> list[int]:
        """The encoded feature names (the loader's); returns the encoded width of each column."""
        names: list[Hashable] = []
        widths: list[int] = []
        for col, levels in zip(self._cols, self._levels, strict=True):
            if levels is not None and self.categorical == "onehot":
                names.extend(f"{col.name}={_format_level(level)}" for level in levels)
                widths.append(len(levels))
            else:
                names.append(col.name)
                widths.append(1)
        self.feature_names: list[Hashable] = names
        self.n_features = len(names)
        return widths

    def _survey_column(self, col: _Column, raw: RawColumn, line_of: LineMap) -> None:
        """Numbers or text: the loader's rule (a column of both is an error at its first text value)."""
        if raw.values.dtype != object:
            _to_numeric(raw, line_of, strict=True)  # NaN or inf: the loader's error
            col.numeric = col.numeric or bool((~raw.missing).any())
        else:
            present = np.flatnonzero(~raw.missing)
            parsed = pd.to_numeric(pd.Series(raw.values[present]), errors="coerce").to_numpy(
                np.float64
            )
            ok = np.isfinite(parsed)
            col.numeric = col.numeric or bool(ok.any())
            if not ok.all():
                r = int(present[np.flatnonzero(~ok)[0]])
                if col.text is None:
                    col.text = (line_of(r), str(raw.values[r]))
                if not col.numeric:
                    col.levels.update(raw.values[present].tolist())
                    if len(col.levels) > MAX_LEVELS:
                        raise DataFormatError(
                            f"{self.where}: column {col.name!r} holds more than {MAX_LEVELS:,} "
                            "distinct text values (evofeat.streams.csv_stream.MAX_LEVELS): an id "
                            "or free text rather than a categorical feature. Drop the column, or "
                            "encode it as numbers."
                        )
        if col.numeric and col.text is not None:
            where, value = col.text  # the loader's message, at the first text value of the file
            mixed = RawColumn(
                col.name, np.array([value, "0"], dtype=object), np.zeros(2, dtype=bool)
            )
            _to_numeric(mixed, lambda _r: where, strict=False)

    def _order_features(self, widths: list[int]) -> None:
        """Number the encoded columns as :meth:`Stream.internal_columns` would: by first presence, then name."""
        first = np.repeat([c.first_row for c in self._cols], widths)
        seen = np.flatnonzero(first >= 0)
        by_row = seen[np.argsort(first[seen], kind="stable")]
        groups = np.split(by_row, np.flatnonzero(np.diff(first[by_row])) + 1) if by_row.size else []
        names = self.feature_names
        self._groups: list[list[Hashable]] = [sort_names([names[c] for c in g]) for g in groups]
        self._rank = np.full(self.n_features, -1, dtype=np.int64)
        position = {name: j for j, name in enumerate(names)}
        ordered = [name for group in self._groups for name in group]
        self._rank[[position[name] for name in ordered]] = np.arange(len(ordered))

    def _code_labels(self, task: str | None, positive: Any) -> None:
        """Task, classes and the code of each label value, from the distinct labels of the first pass."""
        self._codes: dict[str, float] | None = None
        if self._labels is None:  # more than _MAX_CLASSES values
            if not self._numeric_labels or task not in (None, "regression"):
                raise DataFormatError(
                    f"{self.where}: more than {_MAX_CLASSES} distinct labels"
                    + ("" if self._numeric_labels else ", some of them text")
                    + ". Expected class labels (at most that many) or numbers for regression: "
                    "check label_column (--label-column), or pass task='regression' "
                    "(--task regression on the command line)."
                )
            self.task, self.classes = "regression", []
            return
        distinct = np.array(sorted(self._labels), dtype=object)
        codes, self.task, classes = encode_labels(
            distinct, task=task, positive=positive, where=self.where
        )
        self.classes = list(classes)
        if self.task != "regression":
            self._codes = dict(
                zip(distinct.tolist(), codes.astype(np.float64).tolist(), strict=True)
            )

    def _encode_labels(self, values: np.ndarray) -> np.ndarray:
        if self._codes is None:
            y = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(np.float64)
        else:
            y = pd.Series(values).map(self._codes).to_numpy(np.float64)
        if not np.isfinite(y).all():
            raise DataFormatError(
                f"{self.where} changed between the two passes (a label not seen by the first "
                "one). Expected the same file: do not write to it while it is read."
            )
        return y

    # ---------------------------------------------------------------- what the prequential loop reads
    @property
    def y(self) -> np.ndarray:
        """The distinct encoded labels (-1/+1, class codes), **not one per row** (empty for regression)."""
        if self._codes is None:
            return np.zeros(0)
        return np.unique(np.fromiter(self._codes.values(), dtype=np.float64))

    def internal_columns(self, fi: FeatureIndex) -> tuple[np.ndarray, np.ndarray]:
        """Register the features in ``fi`` by first presence (ties in name order); return ``col_map`` and ``seg_dim``.

        A feature never present (a column of missing values) maps to -1.

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = path.write_text("b,a,c,y\\n1,2,?,1\\n3,4,5,-1\\n")
        >>> col_map, seg_dim = CsvStream(path).internal_columns(FeatureIndex())
        >>> col_map.tolist(), seg_dim.tolist()
        ([1, 0, 2], [3])
        """
        self._base = len(fi)
        before = set(fi.names) if self._base else set()
        ordered = [name for group in self._groups for name in group]
        new = np.array([name not in before for name in ordered], dtype=np.int64)
        self._new_cum = np.concatenate([[0], np.cumsum(new)]).astype(np.int64)
        if self._base:  # as learn_one adds them: the features first present together at a time
            for group in self._groups:
                fi.add(group)
        else:
            fi.extend_new(ordered)
        col_map = np.fromiter(
            (
                fi.get(n) if r >= 0 else -1
                for n, r in zip(self.feature_names, self._rank, strict=True)
            ),
            dtype=np.int64,
            count=self.n_features,
        )
        return col_map, np.array([len(fi)], dtype=np.int64)

    def _rows(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(X, y)`` of each block: encoded features (NaN where absent) and encoded labels."""
        for label, features, line_of in self._blocks():
            for c, levels in zip(features, self._levels, strict=True):
                c.kind, c.levels = ("numeric", None) if levels is None else ("categorical", levels)
            X, names, kept = encode_features(
                features,
                categorical=self.categorical,
                missing=self.missing,
                line_of=line_of,
                label_missing=label.missing,
            )
            if names != self.feature_names:
                raise DataFormatError(
                    f"{self.where} changed between the two passes. Expected the same file: do "
                    "not write to it while it is read."
                )
            if len(X):
                yield X, self._encode_labels(label.values[kept])

    def chunks(
        self, col_map: np.ndarray, seg_dim: np.ndarray, size: int = 65536
    ) -> Iterator[Chunk]:
        """Yield the rows as :class:`~evofeat.streams.Chunk` blocks of at most ``size`` rows.

        A row whose present features differ from the row before starts a
        segment (a file without missing values has one, at row 0).

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = path.write_text("a,b,y\\n1,0,1\\n?,2,-1\\n3,4,1\\n")
        >>> s = CsvStream(path)
        >>> [(c.start, c.indices.tolist(), c.seg_rows.tolist()) for c in s.chunks(*s.internal_columns(FeatureIndex()), size=2)]
        [(0, [0, 1, 1], [0, 1]), (2, [0, 1], [0])]
        """
        width = max(1, int(seg_dim[-1]))
        start, seen = 0, 0
        prev: np.ndarray | None = None
        for X_block, y_block in self._rows():
            for a in range(0, X_block.shape[0], size):
                X, y = X_block[a : a + size], y_block[a : a + size]
                present = ~np.isnan(X)
                rows, cols = np.nonzero(present)
                counts = present.sum(axis=1)
                indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
                np.cumsum(counts, out=indptr[1:])
                A = sp.csr_matrix((X[rows, cols], col_map[cols], indptr), shape=(X.shape[0], width))
                A.has_canonical_format = False
                A.sort_indices()
                # a segment starts where the present features change
                changed = np.ones(X.shape[0], dtype=bool)
                changed[1:] = (present[1:] != present[:-1]).any(axis=1)
                if prev is not None:
                    changed[0] = bool((present[0] != prev).any())
                prev = present[-1].copy()
                seg_rows = np.flatnonzero(changed)
                # features seen once each segment starts: the largest first-presence rank so far
                last = np.full(X.shape[0], -1, dtype=np.int64)
                filled = counts > 0
                if filled.any():
                    last[filled] = np.maximum.reduceat(self._rank[cols], indptr[:-1][filled])
                seen_at = np.maximum.accumulate(np.maximum(last[seg_rows] + 1, seen))
                seen = int(seen_at[-1]) if seen_at.size else seen
                yield Chunk(
                    indptr=A.indptr.astype(np.int64),
                    indices=A.indices.astype(np.int64),
                    data=A.data.astype(np.float64),
                    y=y.astype(np.float64),
                    seg_rows=seg_rows.astype(np.int64),
                    seg_indptr=np.concatenate([[0], np.cumsum(counts[seg_rows])]).astype(np.int64),
                    seg_cols=A.indices[np.repeat(changed, counts)].astype(np.int64),
                    seg_dim=(self._base + self._new_cum[seen_at]).astype(np.int64),
                    start=start,
                )
                start += X.shape[0]

    def __repr__(self) -> str:
        return f"CsvStream({self.where!r}, {self.n_rows} rows x {self.n_features} features, {self.task})"


def csv_path(name_or_path: str | os.PathLike[str]) -> Path | None:
    """The path of a user's delimited-text file named by ``name_or_path``, else None.

    None for a registered data-set name, a file that does not exist, or a
    file of another format (the suffix decides, as for
    :func:`evofeat.datasets.load`: ``.csv``, ``.tsv``, ``.data`` or ``.dat``,
    each optionally ``.gz``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv.gz"
    >>> _ = path.write_bytes(b"")
    >>> csv_path(str(path)) == path, csv_path("german"), csv_path(path.with_suffix(".libsvm"))
    (True, None, None)
    """
    return user_file(name_or_path, CSV_SUFFIXES)
