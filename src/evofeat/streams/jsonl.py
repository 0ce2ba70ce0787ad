"""A schema-less stream read from JSON Lines: one object of features and a label a line.

Each line is a JSON object such as ``{"clicks": 3, "dwell": 0.5, "y": 1}``:
the label under one key (``"y"``, else ``"label"``, else the one named by
``label``), every other key a feature. A feature is absent from a row exactly
when its key is missing from the line, as on the dict path
(``learn_one(x, y)``); ``0`` is a value. Feature values are finite numbers
(within a float64's range); ``true``/``false``, ``null``, text, lists, objects,
NaN, infinities, a key given twice in one object and values nested too deep
to read are errors that name the line.

A first pass reads the file once to count the rows, number the features in
the order ``learn_one`` would (first appearance; the new keys of one line in
name order) and find the labels; the prequential loop then reads it again,
chunk by chunk. Memory is bounded by a chunk and the number of distinct
features, not by the rows. Standard input (``"-"``) is copied to a temporary
file during the first pass, so it can be read twice.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex
from evofeat.base.stream import Chunk
from evofeat.datasets.errors import DataFormatError
from evofeat.datasets.textio import iter_blocks, open_binary, short
from evofeat.streams.libsvm_stream import _MAX_CLASSES, LabelCoding, infer_task

__all__ = ["JSONL_SUFFIXES", "LABEL_KEYS", "JsonlStream", "jsonl_path"]

#: File suffixes read as JSON Lines (before an optional ``.gz``).
JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: The label keys looked for, in order, when ``label`` is not given.
LABEL_KEYS = ("y", "label")
_TASKS = ("binary", "multiclass", "regression")


@dataclass
class _Survey:
    n_rows: int
    labels: np.ndarray | None
    integral: bool


class JsonlStream(LabelCoding):
    """Rows of a JSON Lines file (or standard input), streamed in chunks; keys come and go.

    Goes into :func:`evofeat.evaluate.prequential` like
    :class:`~evofeat.streams.LibsvmStream`, with the same predictions as
    giving each line's features to ``learn_one`` one by one.

    Parameters
    ----------
    path
        The file (gzip content is decompressed on the fly), or ``"-"`` for
        standard input.
    label
        The key of the label; default ``"y"`` if the first line has it, else
        ``"label"``. Every line must hold it.
    task
        ``"binary"``, ``"multiclass"`` or ``"regression"``; default inferred
        from the labels (two values: binary, the larger one, or ``true``, or
        the later in sort order, is +1; up to 1024 integral values:
        multiclass; otherwise regression).
    block_bytes
        Bytes of text read at a time.

    Attributes
    ----------
    n_rows, n_features : int
        Rows and distinct feature keys of the file.
    feature_names : list of str
        The keys, in the order ``learn_one`` numbers them.
    classes : numpy.ndarray
        The label values found, in code order (binary: ``[negative, positive]``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.evaluate import prequential
    >>> from evofeat.linear.pa import PA
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "events.jsonl"
    >>> _ = path.write_text('{"a": 1, "y": 1}\\n{"b": 1, "y": -1}\\n{"a": 1, "c": 0, "y": 1}\\n' * 100)
    >>> stream = JsonlStream(path)
    >>> stream.n_rows, stream.feature_names, stream.task
    (300, ['a', 'b', 'c'], 'binary')
    >>> prequential(PA(), stream).mistakes
    1
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        label: str | None = None,
        task: str | None = None,
        block_bytes: int = 4 << 20,
    ) -> None:
        self.source = str(path)
        self._where = "standard input" if self.source == "-" else self.source
        self.path: Path | str = "-" if self.source == "-" else Path(path)
        if isinstance(self.path, Path) and not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such JSON Lines file")
        if task is not None and task not in _TASKS:
            raise InputError(
                "unknown task",
                expected=" or ".join(_TASKS),
                received=repr(task),
                fix="pass task='binary' or leave it out to infer it",
            )
        if not (isinstance(block_bytes, int) and block_bytes > 0):
            raise InputError(
                "block_bytes must be a positive integer",
                received=repr(block_bytes),
                fix="leave it out for the default",
            )
        self.name = "stdin" if self.source == "-" else Path(path).name
        self.label = label
        self._block_bytes = block_bytes
        self._spool: IO[bytes] | None = None
        self._local = FeatureIndex()
        self._groups: list[int] = [0]  # local features first seen on the same line: a group
        survey = self._survey()
        if survey.n_rows == 0:
            raise DataFormatError(
                f"{self._where} holds no rows. Expected one JSON object a line, e.g. "
                '{"clicks": 3, "y": 1}.'
            )
        self.n_rows = survey.n_rows
        self.feature_names: list[Hashable] = list(self._local.names)
        self.n_features = len(self.feature_names)
        self.task = task or infer_task(survey.labels, survey.integral)
        self.classes = self._classes(survey)
        self.info: dict[str, Any] = {"scenario": "full", "source": self.source}
        self._to_internal = np.arange(self.n_features, dtype=np.int64)
        self._new_cum = np.arange(self.n_features + 1, dtype=np.int64)
        self._base = 0

    # ---------------------------------------------------------------- reading
    def _rows(self, first_pass: bool = False) -> Iterator[tuple[int, dict[str, Any], Any]]:
        """``(line number, features, label)`` of each non-blank line."""
        spool = None
        if self._spool is not None:
            self._spool.seek(0)
            fh: IO[bytes] = self._spool
        else:
            fh = open_binary(self.path)
            if first_pass and self.source == "-":
                spool = self._spool = tempfile.TemporaryFile(prefix="evofeat-stdin-")  # noqa: SIM115
        try:
            for text, first_line in iter_blocks(fh, self._where, self._block_bytes):
                if spool is not None:
                    spool.write(text if text.endswith(b"\n") else text + b"\n")
                if not first_pass:  # checked by the first pass: parse only
                    key = self.label
                    for obj in map(json.loads, filter(bytes.strip, text.split(b"\n"))):
                        yield 0, obj, _label_value(obj.pop(key))
                    continue
                for k, line in enumerate(text.split(b"\n")):
                    if line.strip():
                        yield self._parse(line, first_line + k)
        finally:
            if fh is not self._spool and self.source != "-":
                fh.close()

    def _parse(self, line: bytes, lineno: int) -> tuple[int, dict[str, Any], Any]:
        where = f"{self._where}, line {lineno}"
        try:
            obj = json.loads(line, object_pairs_hook=_unique_keys)
        except _RepeatedKey as err:
            raise DataFormatError(
                f"{where}: the key {short(err.key)} appears twice in one object: {short(line)}. "
                "Expected each feature (and the label) once a line: remove one of them."
            ) from None
        except RecursionError:
            raise DataFormatError(
                f"{where}: values nested too deeply to read ({short(line)}). Expected one flat "
                'object of numbers a line, e.g. {"clicks": 3, "y": 1}.'
            ) from None
        except ValueError as err:
            raise DataFormatError(
                f"{where}: not valid JSON ({short(str(err), 120)}): {short(line)}. Expected one "
                'JSON object a line, e.g. {"clicks": 3, "y": 1}.'
            ) from None
        if not isinstance(obj, dict):
            raise DataFormatError(
                f"{where}: a JSON {type(obj).__name__}, not an object: {short(line)}. Expected "
                'one object of features and a label a line, e.g. {"clicks": 3, "y": 1}.'
            )
        key = self.label
        if key is None:
            key = next((k for k in LABEL_KEYS if k in obj), None)
            if key is None:
                raise DataFormatError(
                    f"{where}: no label key: expected {' or '.join(map(repr, LABEL_KEYS))} in "
                    f"each object, found {short(', '.join(list(obj)[:10]), 80)}. Name the label's "
                    "key with --label-column KEY (label=KEY in Python)."
                )
            self.label = key
        if key not in obj:
            raise DataFormatError(
                f"{where}: the label key {key!r} is missing. Every line needs its label; fix the "
                "line, or name the right key with --label-column."
            )
        y = obj.pop(key)
        for name, v in obj.items():
            if (type(v) is float or type(v) is int) and _finite(v):
                continue
            raise DataFormatError(
                f"{where}: feature {short(name)} is {_show(v)}. Expected a finite "
                "number (a flag as 1 or 0, not true/false); for an absent feature leave the key "
                "out (null is not a value), and encode text as numbers first."
            )
        if not (isinstance(y, str | bool) or (type(y) in (int, float) and _finite(y))):
            raise DataFormatError(
                f"{where}: the label {key!r} is {_show(y)}. Expected a finite number (at most "
                "about 1.8e308 in size), true/false or a string."
            )
        return lineno, obj, _label_value(y)

    def _survey(self) -> _Survey:
        n = 0
        labels: set[Any] | None = set()
        kinds: set[type] = set()
        local = self._local
        groups = self._groups
        for lineno, x, y in self._rows(first_pass=True):
            if local.add(x.keys()):
                groups.append(len(local))
            n += 1
            if labels is not None:
                if y not in labels:
                    kind = str if isinstance(y, str) else float
                    if kinds and kind not in kinds:
                        raise DataFormatError(
                            f"{self._where}, line {lineno}: the label {y!r} mixes text and "
                            "numbers with the labels above. Expected labels of one kind."
                        )
                    kinds.add(kind)
                    labels.add(y)
                if len(labels) > _MAX_CLASSES:
                    if str in kinds:
                        raise DataFormatError(
                            f"{self._where}: more than {_MAX_CLASSES} distinct text labels. "
                            "Expected a class label (or numbers for regression)."
                        )
                    labels = None
        found = None if labels is None else np.array(sorted(labels))
        integral = (
            found is None or found.dtype.kind in "US" or bool(np.all(found == np.round(found)))
        )
        return _Survey(n, found, integral)

    # ---------------------------------------------------------------- what the prequential loop reads
    def internal_columns(self, fi: FeatureIndex) -> tuple[np.ndarray, np.ndarray]:
        """Register the keys in ``fi`` in ``learn_one``'s order; return ``col_map`` and ``seg_dim``.

        ``seg_dim`` is only the total; the features seen by each row are
        counted again as the chunks are made.

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
        >>> _ = path.write_text('{"b": 2, "a": 1, "y": 1}\\n{"c": 0, "y": -1}\\n')
        >>> col_map, seg_dim = JsonlStream(path).internal_columns(FeatureIndex())
        >>> col_map.tolist(), seg_dim.tolist()
        ([0, 1, 2], [3])
        """
        self._base = len(fi)
        before = set(fi.names) if self._base else set()
        new = np.array([n not in before for n in self.feature_names], dtype=np.int64)
        self._new_cum = np.concatenate([[0], np.cumsum(new)]).astype(np.int64)
        names = self.feature_names
        if self._base:  # as learn_one adds them: the new keys of one line at a time
            for a, b in zip(self._groups[:-1], self._groups[1:], strict=True):
                fi.add(names[a:b])
        else:
            fi.extend_new(list(names))
        self._to_internal = np.fromiter(
            (fi.get(n) for n in self.feature_names), dtype=np.int64, count=self.n_features
        )
        return self._to_internal.copy(), np.array([len(fi)], dtype=np.int64)

    def chunks(
        self, col_map: np.ndarray, seg_dim: np.ndarray, size: int = 65536
    ) -> Iterator[Chunk]:
        """Yield the rows as :class:`~evofeat.streams.Chunk` blocks of at most ``size`` rows.

        A row whose set of keys differs from the row before starts a segment
        (its visible features are its keys, as ``learn_one`` announces them).
        """
        local = {name: j for j, name in enumerate(self.feature_names)}.get
        width = max(1, int(seg_dim[-1]))
        start = 0
        seen = 0  # local features seen so far (they are numbered by first appearance)
        prev_keys: frozenset[str] | None = None
        rows: list[tuple[dict[str, Any], Any]] = []
        for _lineno, x, y in self._rows():
            rows.append((x, y))
            if len(rows) == size:
                chunk, seen, prev_keys = self._chunk(
                    rows, start, col_map, width, seen, prev_keys, local
                )
                yield chunk
                start += len(rows)
                rows = []
        if rows:
            yield self._chunk(rows, start, col_map, width, seen, prev_keys, local)[0]

    def _chunk(
        self,
        rows: list[tuple[dict[str, Any], Any]],
        start: int,
        col_map: np.ndarray,
        width: int,
        seen: int,
        prev_keys: frozenset[str] | None,
        local: Any,
    ) -> tuple[Chunk, int, frozenset[str] | None]:
        m = len(rows)
        counts = np.fromiter((len(x) for x, _ in rows), dtype=np.int64, count=m)
        indptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        nnz = int(indptr[-1])
        loc = np.fromiter((local(k, -1) for x, _ in rows for k in x), dtype=np.int64, count=nnz)
        if nnz and loc.min() < 0:
            raise DataFormatError(
                f"{self._where} changed between the two passes (a key not seen by the first "
                "one). Expected the same file: do not write to it while it is read."
            )
        try:
            data = np.fromiter((v for x, _ in rows for v in x.values()), np.float64, count=nnz)
        except (TypeError, ValueError):
            raise DataFormatError(
                f"{self._where} changed between the two passes (a value that is not a number). "
                "Expected the same file: do not write to it while it is read."
            ) from None
        X = sp.csr_matrix((data, col_map[loc], indptr), shape=(m, width))
        X.has_canonical_format = False
        X.sort_indices()
        seg_rows, seg_cols, seg_indptr, seg_dim = [], [], [0], []
        for i, (x, _) in enumerate(rows):
            keys = frozenset(x)
            if keys == prev_keys:
                continue
            prev_keys = keys
            a, b = int(indptr[i]), int(indptr[i + 1])
            if b > a:
                seen = max(seen, int(loc[a:b].max()) + 1)
            seg_rows.append(i)
            seg_cols.append(X.indices[a:b])
            seg_indptr.append(seg_indptr[-1] + b - a)
            seg_dim.append(self._base + int(self._new_cum[seen]))
        y = np.array([lab for _, lab in rows])
        chunk = Chunk(
            indptr=X.indptr.astype(np.int64),
            indices=X.indices.astype(np.int64),
            data=X.data.astype(np.float64),
            y=self._encode(y).astype(np.float64),
            seg_rows=np.array(seg_rows, dtype=np.int64),
            seg_indptr=np.array(seg_indptr, dtype=np.int64),
            seg_cols=np.concatenate(seg_cols).astype(np.int64)
            if seg_cols
            else np.zeros(0, np.int64),
            seg_dim=np.array(seg_dim, dtype=np.int64),
            start=start,
        )
        return chunk, seen, prev_keys

    def __repr__(self) -> str:
        return f"JsonlStream({self.source!r}, {self.n_rows} rows x {self.n_features} features, {self.task})"

    def __del__(self) -> None:
        spool = getattr(self, "_spool", None)
        if spool is not None:
            spool.close()


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: a dict, or :class:`_RepeatedKey` for a key given twice."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))  # type: ignore[func-returns-value]
    return obj


def _label_value(y: Any) -> Any:
    """A label as the streams code it: true/false as 1/0, an integer beyond int64 as a float.

    >>> _label_value(True), _label_value(3), _label_value(10**20), _label_value("spam")
    (1, 3, 1e+20, 'spam')
    """
    if type(y) is bool:
        return int(y)
    if type(y) is int and not -(2**63) <= y < 2**63:
        return float(y)
    return y


def _finite(v: float) -> bool:
    """Whether the number ``v`` is finite as a float64 (a 401-digit integer is not).

    >>> _finite(1.5), _finite(float("nan")), _finite(10**400)
    (True, False, False)
    """
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _show(v: Any) -> str:
    """A JSON value, cut short, for messages (a huge number as its size)."""
    if type(v) is int and not _finite(v):
        return f"an integer of {len(str(abs(v)))} digits, too large for a float64"
    text = json.dumps(v)
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"


def jsonl_path(name_or_path: str | os.PathLike[str]) -> str | None:
    """``name_or_path`` when it names JSON Lines (``-``, or a ``.jsonl``/``.ndjson`` name, maybe ``.gz``), else None.

    >>> jsonl_path("-"), jsonl_path("events.jsonl.gz"), jsonl_path("german")
    ('-', 'events.jsonl.gz', None)
    """
    text = str(name_or_path)
    if text == "-":
        return text
    suffixes = [s.lower() for s in Path(text).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return text if suffixes and suffixes[-1] in JSONL_SUFFIXES else None
