"""A stream read from a LIBSVM file in chunks, in memory bounded by the chunk, not the file.

Each block of lines is parsed in one compiled pass into CSR arrays
(:func:`evofeat.datasets.readers.libsvm_arrays`; a line it does not take
goes to scikit-learn's :func:`~sklearn.datasets.load_svmlight_file`, which
parses it or names what is wrong with it). A first pass over the file
counts the rows, the largest feature index and the label values; the
prequential loop then reads the file again, one chunk at a time. Every
feature is visible in every row (the ``full`` scenario): an index missing
from a line is the value 0, as in any LIBSVM file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex
from evofeat.base.stream import Chunk
from evofeat.datasets._libsvm_parse import remap_rows
from evofeat.datasets.errors import DataFormatError
from evofeat.datasets.readers import LibsvmArrays, libsvm_arrays, warn_zero_based
from evofeat.datasets.textio import BZ2_MAGIC, GZIP_MAGIC, iter_blocks, open_binary, peek_stdin

__all__ = ["DEFAULT_BLOCK_BYTES", "LIBSVM_SUFFIXES", "LibsvmStream", "libsvm_path", "stdin_format"]

#: File suffixes read as LIBSVM (before an optional ``.gz``), as :func:`evofeat.datasets.load` reads them.
LIBSVM_SUFFIXES = (".libsvm", ".svm", ".txt")
#: Bytes of text parsed at a time when ``block_bytes`` is not given (read at each call, so it can be tuned).
DEFAULT_BLOCK_BYTES = 4 << 20
#: label values tracked by the first pass; beyond this many, labels are taken as regression targets.
_MAX_CLASSES = 1024
_TASKS = ("binary", "multiclass", "regression")


@dataclass
class _Survey:
    """What the first pass learned about the file."""

    n_rows: int
    min_index: int
    max_index: int
    labels: np.ndarray | None  # the distinct labels (None: more than _MAX_CLASSES)
    integral: bool


def infer_task(labels: np.ndarray | None, integral: bool) -> str:
    """Two label values: binary; up to 1024 integral values: multiclass; otherwise regression."""
    if labels is not None and labels.size <= 2:
        return "binary"
    return "multiclass" if labels is not None and integral else "regression"


class LabelCoding:
    """Label coding shared by the file streams: classes from the first pass, codes per chunk.

    Needs ``path``, ``task`` and ``classes`` on the stream.
    """

    path: Any
    _where: str  # the source as messages name it
    task: str
    classes: np.ndarray

    def _classes(self, survey: Any) -> np.ndarray:
        if self.task == "regression":
            return np.zeros(0)
        found = survey.labels
        if found is None:
            raise InputError(
                f"{self._where}: too many label values for a {self.task} task",
                expected=f"at most {_MAX_CLASSES} label values",
                received="more",
                fix="pass task='regression', or --task regression on the command line",
            )
        if self.task == "binary":
            for pair in ([-1.0, 1.0], [0.0, 1.0]):
                if set(found.tolist()) <= set(pair):
                    return np.array(pair)
            if found.size != 2:
                raise InputError(
                    f"{self._where}: a binary task needs two label values",
                    expected="two values (or only values of {-1, +1} or {0, 1})",
                    received=str(found[:10].tolist()),
                    fix="pass task='multiclass' or task='regression', or --task multiclass "
                    "or --task regression on the command line",
                )
        return found

    def _encode(self, y: np.ndarray) -> np.ndarray:
        if self.task == "regression":
            return y
        codes = np.searchsorted(self.classes, y)
        if self.task == "binary":
            return np.where(codes == self.classes.size - 1, 1.0, -1.0)
        return codes.astype(np.float64)

    # ---------------------------------------------------------------- what the prequential loop reads
    @property
    def y(self) -> np.ndarray:
        """The distinct labels, encoded (-1/+1, class codes), **not one per row**.

        The prequential loop only checks which label values occur; the label
        of each row comes with its :class:`~evofeat.streams.Chunk`. (For
        regression: an empty array.)
        """
        return self.label_values()

    def label_values(self) -> np.ndarray:
        """The distinct encoded labels of the stream (empty for regression).

        >>> import tempfile, pathlib
        >>> from evofeat.streams import LibsvmStream
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.libsvm"
        >>> _ = path.write_text("3 1:1\\n7 1:2\\n3 2:1\\n")
        >>> LibsvmStream(path).label_values().tolist()
        [-1.0, 1.0]
        """
        return self._encode(self.classes)


class LibsvmStream(LabelCoding):
    """Rows of a LIBSVM file (optionally gzip), streamed in chunks in bounded memory.

    It offers what :func:`evofeat.evaluate.prequential` reads from a
    :class:`~evofeat.streams.Stream`: ``n_rows``, ``n_features``, ``task``,
    ``info``, ``y`` (here only the distinct labels, see below),
    :meth:`internal_columns` and :meth:`chunks`. Memory is a few times
    ``block_bytes`` plus the ``n_features`` feature names, whatever the
    number of rows.

    Parameters
    ----------
    path
        The LIBSVM file; ``.gz`` (or any gzip content) is decompressed on the
        fly. ``"-"`` reads standard input: the first pass copies it to an
        anonymous temporary file (deleted when the stream is closed or
        collected), which the second pass reads, so memory stays bounded and
        the disk holds one copy of the text.
    task
        ``"binary"``, ``"multiclass"`` or ``"regression"``; default: inferred
        by the first pass (two label values: binary; integral values:
        multiclass; otherwise regression).
    zero_based
        Whether feature indices start at 0. ``"auto"``: 1-based unless an
        index 0 appears anywhere in the file (decided once, for the whole
        file, by the first pass).
    n_features
        The number of features (default: the largest index in the file).
    max_rows
        Read only the first ``max_rows`` rows (the head of a long stream).
    block_bytes
        Bytes of text read and parsed at a time (whole lines; a longer line
        is read whole). Memory is a few times this, whatever ``n_rows``.
        Default: :data:`DEFAULT_BLOCK_BYTES` (4 MiB), read when the stream
        is made.

    Attributes
    ----------
    n_rows, n_features : int
        Rows (at most ``max_rows``) and features of the stream.
    classes : numpy.ndarray
        The label values as found in the file, in code order: for a binary
        task ``[negative, positive]`` (the larger value is +1, e.g. 1 of
        {0, 1}, or 2 of {1, 2}); for multiclass the values coded 0, 1, ...
        Empty for regression.
    feature_names : list of str
        ``f1 .. fd`` for a 1-based file, ``f0 .. f(d-1)`` for a 0-based one
        (the names :func:`evofeat.datasets.load` gives).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.evaluate import prequential
    >>> from evofeat.linear.pa import PA
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.libsvm"
    >>> _ = path.write_text("1 1:1\\n0 2:1\\n" * 500)
    >>> stream = LibsvmStream(path)
    >>> stream.n_rows, stream.n_features, stream.task, stream.classes.tolist()
    (1000, 2, 'binary', [0.0, 1.0])
    >>> prequential(PA(), stream, chunk_rows=128).mistakes
    1
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        task: str | None = None,
        zero_based: bool | str = "auto",
        n_features: int | None = None,
        max_rows: int | None = None,
        block_bytes: int | None = None,
    ) -> None:
        self.source = str(path)
        self.path: Path | str = "-" if self.source == "-" else Path(path)
        self._where = "standard input (read as LIBSVM)" if self.path == "-" else self.source
        self._spool: IO[bytes] | None = None
        if isinstance(self.path, Path) and not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such LIBSVM file")
        if task is not None and task not in _TASKS:
            raise InputError(
                "unknown task",
                expected=" or ".join(_TASKS),
                received=repr(task),
                fix="pass task='binary' or leave it out to infer it",
            )
        if zero_based not in (True, False, "auto"):
            raise InputError(
                "zero_based must be True, False or 'auto'",
                received=repr(zero_based),
                fix="pass zero_based='auto'",
            )
        for label, value in (
            ("n_features", n_features),
            ("max_rows", max_rows),
            ("block_bytes", block_bytes),
        ):
            if value is not None and not (isinstance(value, int | np.integer) and value > 0):
                raise InputError(
                    f"{label} must be a positive integer",
                    received=repr(value),
                    fix=f"pass {label}=None for the default",
                )
        self.name = "stdin" if self.path == "-" else Path(self.path).name
        self.max_rows = max_rows
        self._block_bytes = int(DEFAULT_BLOCK_BYTES if block_bytes is None else block_bytes)
        survey = self._survey()
        self.zero_based = bool(zero_based) if zero_based != "auto" else survey.min_index == 0
        if zero_based == "auto" and self.zero_based:
            warn_zero_based(self._where)
        offset = 0 if self.zero_based else 1
        if survey.n_rows == 0:
            raise DataFormatError(
                f"{self._where} holds no rows of data. Expected LIBSVM lines "
                "'label index:value ...': check the file."
            )
        if offset and survey.min_index == 0:
            raise DataFormatError(
                f"{self._where}: a feature index 0 appears, but zero_based=False (--one-based) "
                "says indices start at 1. Pass zero_based=True (or 'auto'), or --zero-based on "
                "the command line, or fix the file."
            )
        if n_features is not None and survey.max_index - offset >= n_features:
            raise DataFormatError(
                f"{self._where}: feature index {survey.max_index} exceeds the {n_features} "
                "features given as n_features. Fix n_features or the file."
            )
        self.n_rows = survey.n_rows
        self.n_features = int(
            n_features if n_features is not None else max(1, survey.max_index + 1 - offset)
        )
        self.feature_names: list[Hashable] = [f"f{j + offset}" for j in range(self.n_features)]
        self.task = task or infer_task(survey.labels, survey.integral)
        self.classes = self._classes(survey)
        self.info: dict[str, Any] = {"scenario": "full", "source": self.source}

    # ---------------------------------------------------------------- reading
    @contextlib.contextmanager
    def _open(self) -> Iterator[tuple[IO[bytes], IO[bytes] | None]]:
        """The text to read and, on the first read of standard input, the spool to copy it to."""
        if self._spool is not None:  # standard input, read again from its copy
            self._spool.seek(0)
            yield self._spool, None
        elif self.path == "-":  # the first pass (with max_rows, the copy holds the head read)
            self._spool = tempfile.TemporaryFile(prefix="evofeat-stdin-")  # noqa: SIM115
            yield open_binary("-"), self._spool
        else:
            with open_binary(self.path) as fh:
                yield fh, None

    def _blocks(self, zero_based: bool, n_features: int | None) -> Iterator[LibsvmArrays]:
        """Parse the file block by block into CSR arrays (``max_rows`` respected)."""
        remaining = self.max_rows
        with self._open() as (fh, spool):
            for text, first_line in iter_blocks(fh, self._where, self._block_bytes):
                if spool is not None:
                    spool.write(text if text.endswith(b"\n") else text + b"\n")
                block = libsvm_arrays(
                    text,
                    self._where,
                    n_features=n_features,
                    zero_based=zero_based,
                    first_line=first_line,
                )
                del text
                if remaining is not None:
                    if block.n_rows > remaining:
                        block = block.head(remaining)
                    remaining -= block.n_rows
                if block.n_rows:
                    yield block
                if remaining == 0:
                    return

    def _survey(self) -> _Survey:
        """The first pass: parsed 0-based (index 0 allowed) and without a width, to find the index range."""
        n = 0
        lo, hi = np.iinfo(np.int64).max, -1
        labels: set[float] | None = set()
        integral = True
        for block in self._blocks(True, None):
            y = block.y
            n += y.size
            if block.hi >= 0:
                lo, hi = min(lo, block.lo), max(hi, block.hi)
            integral = integral and bool(np.all(y == np.round(y)))
            if labels is not None:
                labels.update(np.unique(y).tolist())
                if len(labels) > _MAX_CLASSES:
                    labels = None
            del block, y
        found = None if labels is None else np.array(sorted(labels))
        return _Survey(n, lo if hi >= 0 else 1, max(hi, 0), found, integral)

    def internal_columns(self, fi: FeatureIndex) -> tuple[np.ndarray, np.ndarray]:
        """Register every feature in ``fi``; return ``col_map`` and ``seg_dim`` (one segment).

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.libsvm"
        >>> _ = path.write_text("1 1:1 3:2\\n")
        >>> col_map, seg_dim = LibsvmStream(path).internal_columns(FeatureIndex())
        >>> col_map.tolist(), seg_dim.tolist()
        ([0, 1, 2], [3])
        """
        fi.add(self.feature_names)
        col_map = np.fromiter(
            (fi.get(n) for n in self.feature_names), dtype=np.int64, count=self.n_features
        )
        return col_map, np.array([len(fi)], dtype=np.int64)

    def chunks(
        self, col_map: np.ndarray, seg_dim: np.ndarray, size: int = 65536
    ) -> Iterator[Chunk]:
        """Yield the rows as :class:`~evofeat.streams.Chunk` blocks of at most ``size`` rows.

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.libsvm"
        >>> _ = path.write_text("1 1:1 3:2\\n-1 2:5\\n1 3:1\\n")
        >>> s = LibsvmStream(path)
        >>> [(c.start, c.indices.tolist(), c.seg_rows.tolist()) for c in s.chunks(*s.internal_columns(FeatureIndex()), size=2)]
        [(0, [0, 2, 1], [0]), (2, [2], [])]
        """
        cols = np.sort(col_map[col_map >= 0]).astype(np.int64)
        col_map = np.asarray(col_map, dtype=np.int64)
        identity = np.array_equal(col_map, np.arange(col_map.size))
        start = 0
        for block in self._blocks(self.zero_based, self.n_features):
            indptr, indices, values = block.indptr, block.indices, block.values
            if not identity:  # the internal columns (name order), each row sorted by them
                remap_rows(indptr, indices, values, col_map)
            for a in range(0, block.n_rows, size):
                b = min(a + size, block.n_rows)
                lo, hi = indptr[a], indptr[b]
                first = start == 0
                yield Chunk(
                    indptr=indptr[a : b + 1] - lo,
                    indices=indices[lo:hi],
                    data=values[lo:hi],
                    y=self._encode(block.y[a:b]),
                    seg_rows=np.zeros(1 if first else 0, dtype=np.int64),
                    seg_indptr=np.array([0, cols.size] if first else [0], dtype=np.int64),
                    seg_cols=cols if first else np.zeros(0, dtype=np.int64),
                    seg_dim=np.asarray(seg_dim[:1] if first else seg_dim[:0], dtype=np.int64),
                    start=start,
                )
                start += b - a

    def __repr__(self) -> str:
        return f"LibsvmStream({self.source!r}, {self.n_rows} rows x {self.n_features} features, {self.task})"

    def close(self) -> None:
        """Delete the copy of standard input (a file stream holds nothing to close)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def __del__(self) -> None:
        if getattr(self, "_spool", None) is not None:
            self.close()


def libsvm_path(name_or_path: str | os.PathLike[str]) -> Path | None:
    """The path of a user's LIBSVM file named by ``name_or_path``, else None.

    None for a registered data-set name, a file that does not exist, or a
    file of another format (the suffix decides, as for
    :func:`evofeat.datasets.load`: ``.libsvm``, ``.svm`` or ``.txt``, each
    optionally ``.gz``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.libsvm.gz"
    >>> _ = path.write_bytes(b"")
    >>> libsvm_path(str(path)) == path, libsvm_path("german"), libsvm_path(path.with_suffix(".csv"))
    (True, None, None)
    """
    return user_file(name_or_path, LIBSVM_SUFFIXES)


def user_file(name_or_path: str | os.PathLike[str], suffixes: tuple[str, ...]) -> Path | None:
    """The path of the user's existing file ``name_or_path`` if its suffix (before ``.gz``) is one of ``suffixes``.

    None for a registered data-set name, a missing file or another suffix.

    >>> user_file("german", (".csv",)) is None
    True
    """
    from evofeat.datasets.catalogue import resolve

    try:
        target = resolve(name_or_path)
    except (KeyError, TypeError):
        return None
    if not isinstance(target, Path) or not target.is_file():
        return None
    found = [x.lower() for x in target.suffixes]
    if found and found[-1] == ".gz":
        found = found[:-1]
    return target if found and found[-1] in suffixes else None


def stdin_format(stdin: IO[bytes] | None = None) -> str:
    """What standard input holds: ``"jsonl"`` if its first non-blank character is ``{``, else ``"libsvm"``.

    A JSON Lines line is an object, so it starts with ``{``; a LIBSVM line
    never does (it starts with its label, a number, or ``#``). So the two
    cannot be mistaken for each other, and text of any other format is read
    as LIBSVM, whose parser names its first line as not LIBSVM. The input is
    read ahead past any byte-order mark and any number of blank lines, in
    bounded memory, and what was read is put back
    (:func:`evofeat.datasets.textio.peek_stdin`). Empty input is
    ``"jsonl"`` (its message says it holds no rows).

    >>> import io
    >>> stdin_format(io.BytesIO(b'\\n {"a": 1, "y": 0}\\n')), stdin_format(io.BytesIO(b"1 3:0.5\\n"))
    ('jsonl', 'libsvm')
    """
    fh = sys.stdin.buffer if stdin is None else stdin
    if fh.isatty():
        raise InputError(
            "standard input is a terminal, not data",
            expected="LIBSVM or JSON Lines piped in",
            received="a terminal",
            fix="pipe the data in: zcat data.libsvm.gz | evofeat run --dataset - ...",
        )
    head = peek_stdin(fh)
    if head[:2] == GZIP_MAGIC or head[:3] == BZ2_MAGIC:
        raise InputError(
            "standard input is compressed",
            expected="LIBSVM or JSON Lines text",
            received="gzip or bzip2 data",
            fix="decompress it on the way in: zcat data.libsvm.gz | evofeat run --dataset - ..., "
            "or pass the .gz file itself as --dataset",
        )
    return "libsvm" if head[:1] not in (b"{", b"") else "jsonl"
