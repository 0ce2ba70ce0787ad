"""``load``: a registered data set or a user's own file, as a :class:`Dataset`."""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .catalogue import DATA_DIR, DatasetEntry, find, resolve
from .catalogue import fullest as fullest_entry
from .dataset import TASKS, Dataset
from .encode import (
    CATEGORICAL_MODES,
    MISSING_POLICIES,
    MISSING_TOKENS,
    RawColumn,
    encode_features,
    encode_labels,
)
from .errors import DataFormatError
from .preprocessing import check_preprocess
from .preprocessing import preprocess as apply_preprocessing
from .readers import (
    LineMap,
    guess_sep,
    read_arff,
    read_bytes,
    read_idx,
    read_libsvm,
    read_table,
    warn_zero_based,
)
from .textio import iter_blocks, open_binary

__all__ = ["load", "stsd_german_permutations"]

_LIBSVM_SUFFIXES = (".libsvm", ".svm", ".txt")
_TABLE_SUFFIXES = (".csv", ".tsv", ".data", ".dat")
#: The most bytes of a user's delimited text (decompressed) that :func:`load` reads whole
#: (pandas then holds several times this). A larger file is refused with a message saying how
#: to stream it (:class:`evofeat.streams.CsvStream`); read at each call, so it can be raised.
MAX_TABLE_BYTES = 2 << 30


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _user_format(path: Path) -> str:
    suffix = _suffix(path)
    if suffix in _LIBSVM_SUFFIXES:
        return "libsvm"
    if suffix in _TABLE_SUFFIXES:
        return "csv"
    if suffix == ".arff":
        return "arff"
    raise DataFormatError(
        f"{path}: cannot tell the format from the suffix {suffix or '(none)'!r}. Expected "
        f"{', '.join(_LIBSVM_SUFFIXES)} (LIBSVM), {', '.join(_TABLE_SUFFIXES)} (delimited "
        "text) or .arff, optionally followed by .gz: rename the file."
    )


def _joined(paths: list[Path]) -> str:
    return " + ".join(str(p) for p in paths)


# --------------------------------------------------------------------------- readers


def _load_libsvm(
    paths: list[Path], n_features: int | None, registered: bool, zero_based: bool | str = "auto"
) -> tuple[sp.csr_matrix, np.ndarray, list[str]]:
    """Read LIBSVM files block by block (the limits of :mod:`.textio`), then stack the blocks.

    Registered files are 1-based. A user's file: ``zero_based="auto"`` reads
    the indices as they are and drops an empty column 0 (a 1-based file, as
    scikit-learn's "auto"); when index 0 is used, the file is 0-based and a
    :class:`ZeroBasedWarning` says so.
    """
    zb: bool | str = False if registered else (True if zero_based == "auto" else zero_based)
    mats, ys = [], []
    for path in paths:
        with open_binary(path) as fh:
            for text, first_line in iter_blocks(fh, str(path)):
                X, y = read_libsvm(
                    text, str(path), n_features=n_features, zero_based=zb, first_line=first_line
                )
                mats.append(X)
                ys.append(y)
    if not mats:
        raise DataFormatError(
            f"{_joined(paths)} is empty (no rows of data). Expected LIBSVM lines 'label index:value "
            "...': the file may be an interrupted download or copy: fetch it again."
        )
    width = max(m.shape[1] for m in mats)
    mats = [sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], width)) for m in mats]
    X = sp.csr_matrix(sp.vstack(mats, format="csr"))
    first = 0 if zb is True else 1
    if not registered and zero_based == "auto":
        if X.shape[1] and X[:, 0].nnz == 0:
            X = sp.csr_matrix(X[:, 1:])
            first = 1
        else:
            warn_zero_based(_joined(paths))
    names = [f"f{j + first}" for j in range(X.shape[1])]
    return X, np.concatenate(ys), names


def _table_bytes(path: Path) -> bytes:
    """A user's delimited file, read whole (as :func:`read_bytes`) up to :data:`MAX_TABLE_BYTES`.

    A plain file over the limit is refused before it is read; compressed
    content is counted as it is decompressed and refused at the limit.
    """
    limit = MAX_TABLE_BYTES
    size = path.stat().st_size if path.is_file() else 0
    if size <= limit:
        parts: list[bytes] = []
        size = 0  # now the bytes of text read
        with open_binary(path) as fh:
            for text, _ in iter_blocks(fh, str(path), block_bytes=16 << 20):
                size += len(text)
                if size > limit:
                    break
                parts.append(text)
        if size <= limit:
            data = b"".join(parts)
            return data if data.strip() else read_bytes(path)  # its message for an empty file
    raise DataFormatError(
        f"{path}: more than {_bytes(limit)} of text (at least {_bytes(size)}), too large"
        " to load whole (evofeat.datasets.loaders.MAX_TABLE_BYTES; pandas holds several times"
        " the text). Stream it instead: evofeat run --learner <online learner> --dataset FILE"
        " with the full scenario, --repeats 1, no --permutations and --preprocess none reads it"
        " in chunks (evofeat.streams.CsvStream in Python). What needs every row in memory (other"
        " scenarios, permutations, preprocessing, one-pass estimators, selectors) needs a sample"
        " of the rows, or the limit raised in Python if the memory allows."
    )


def _bytes(n: int) -> str:
    """``n`` bytes for a message: ``'1.5 GiB'``, ``'12.0 MiB'``, ``'900 bytes'``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:,} bytes"


def _column_ref(ref: Any, columns: list[Any], header: bool, where: str) -> int:
    """Position of a column given by position (int, may be negative) or name."""
    n = len(columns)
    labels = [str(c) for c in columns]
    if isinstance(ref, str) and (not header or ref not in labels):
        try:
            ref = int(ref)  # "0", "-1" given on a command line
        except ValueError:
            pass
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        if not -n <= int(ref) < n:
            raise ValueError(f"column position {ref} is out of range: {where} has {n} columns")
        return int(ref) % n
    if isinstance(ref, str):
        if not header:
            raise ValueError(
                f"column {ref!r} asked by name, but {where} has no header row: give its "
                f"position instead (0..{n - 1}, or -1 for the last)"
            )
        if ref not in labels:
            raise ValueError(f"no column named {ref!r} in {where}; its columns are {labels[:30]}")
        return labels.index(ref)
    raise TypeError(f"a column is given by position (int) or name (str), got {ref!r}")


def _load_table(
    paths: list[Path],
    *,
    opts: dict[str, Any],
    label_column: Any,
    categorical: str,
    missing: str,
    header: bool | None,
    registered: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], str]:
    """Returns ``(X, labels, kept_rows, feature_names, where)``."""
    frames: list[pd.DataFrame] = []
    segments: list[tuple[str, bytes, int, int]] = []
    had_header = False
    for path in paths:
        data = read_bytes(path) if registered else _table_bytes(path)
        suffix = _suffix(path)
        if suffix == ".arff":
            frame, had_header, decl = _arff_frame(data, str(path))
            opts = {**opts, "categorical": {**decl, **(opts.get("categorical") or {})}}
        else:
            sep = opts.get("sep") or guess_sep(data, suffix)
            frame, had_header = read_table(
                data, str(path), sep=sep, header=opts.get("header", header), suffix=suffix
            )
        if frames and list(frame.columns) != list(frames[0].columns):
            raise DataFormatError(
                f"{path}: its columns {list(frame.columns)[:10]} differ from those of "
                f"{paths[0]}; the files of one data set must have the same columns."
            )
        first_row = sum(len(f) for f in frames)
        segments.append((str(path), data, int(had_header), first_row))
        frames.append(frame)
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    where = _joined(paths)
    line_of = LineMap(segments)
    columns = list(frame.columns)
    label_ref = label_column if label_column is not None else opts.get("label_column", -1)
    label_pos = _column_ref(label_ref, columns, had_header, where)
    if label_column is None and not registered:
        _say_label_column(frame, label_pos, had_header, where)
    drop = {_column_ref(c, columns, had_header, where) for c in opts.get("id_columns", [])}
    feature_pos = [j for j in range(len(columns)) if j != label_pos and j not in drop]
    if not feature_pos:
        raise DataFormatError(
            f"{where}: {len(columns)} column(s), all taken by the label"
            f"{' and id columns' if drop else ''}: no feature columns. Expected at least one "
            "feature column beside the label: check the separator (sep=...) or the file."
        )
    given_names = opts.get("feature_names")
    if given_names is not None and len(given_names) != len(feature_pos):
        raise DataFormatError(
            f"{where}: {len(feature_pos)} feature columns, but the registry names "
            f"{len(given_names)}; the file does not have the documented layout."
        )
    if given_names is not None:
        names = list(given_names)
    elif had_header:
        names = [str(columns[j]) for j in feature_pos]
    else:
        names = [f"f{i + 1}" for i in range(len(feature_pos))]
    declared = opts.get("categorical") or {}
    raw = []
    dtypes = list(frame.dtypes)
    all_numeric = all(
        pd.api.types.is_numeric_dtype(dtypes[j]) and not pd.api.types.is_bool_dtype(dtypes[j])
        for j in feature_pos
    )
    label = RawColumn.from_series("label", frame.iloc[:, label_pos])
    if all_numeric and not declared and frame.shape[0]:
        # fast path (covtype: 581012 x 54): one conversion, one finiteness check
        X = frame.iloc[:, feature_pos].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(X)
        if bad.any():
            r, c = (int(v[0]) for v in np.nonzero(bad))
            raise DataFormatError(
                f"{line_of(r)}: column {names[c]!r} holds {float(X[r, c])}, a NaN or infinite "
                "value, which is not allowed in features. Expected a finite number: fix the "
                "value, or write '?' (or leave the field empty) for a missing one."
            )
        if label.missing.any() and missing != "drop":
            r = int(np.flatnonzero(label.missing)[0])
            raise DataFormatError(
                f"{line_of(r)}: the label is missing. A label cannot be imputed: fix it, or "
                "use missing='drop' to drop rows without a label."
            )
        kept = ~label.missing
        if not kept.all():
            X = X[kept]
        X = np.ascontiguousarray(X)
    else:
        for name, j in zip(names, feature_pos, strict=True):
            col = RawColumn.from_series(name, frame.iloc[:, j])
            if name in declared:
                levels = declared[name]
                col.kind = "coded" if levels is None else "categorical"
                col.levels = None if levels is None else list(levels)
            elif registered:
                col.kind = "numeric"
            raw.append(col)
        X, names, kept = encode_features(
            raw,
            categorical=categorical,
            missing=missing,
            line_of=line_of,
            label_missing=label.missing,
        )
    return X, label.values[kept], kept, names, where


class LabelColumnWarning(UserWarning):
    """The label of a user's table was taken from the last column while another column holds text."""


def _say_label_column(frame: pd.DataFrame, label_pos: int, header: bool, where: str) -> None:
    """Warn when the default (last) label column is numeric but another column holds text labels."""
    numeric = pd.api.types.is_numeric_dtype
    if not numeric(frame.dtypes.iloc[label_pos]):
        return
    limit = max(2, min(100, frame.shape[0] // 2))
    texts = [
        j
        for j in range(frame.shape[1])
        if j != label_pos
        and not numeric(frame.dtypes.iloc[j])
        and _text_levels(frame.iloc[:, j], limit)
    ]
    if texts:
        warn_label_column(list(frame.columns), label_pos, texts[0], header, where, stacklevel=4)


def _text_levels(column: pd.Series, limit: int) -> bool:
    """Whether ``column`` holds text (no number, missing fields aside) of at most ``limit`` values."""
    present = column.astype(str).str.strip()
    present = present[~present.isin(MISSING_TOKENS)]
    if present.empty or present.nunique() > limit:
        return False
    return not pd.to_numeric(present, errors="coerce").notna().any()


def warn_label_column(
    columns: list[Any], label_pos: int, text_pos: int, header: bool, where: str, stacklevel: int
) -> None:
    """Say that the label was taken from the last column while column ``text_pos`` holds text labels."""
    name = (lambda j: repr(str(columns[j]))) if header else (lambda j: str(j))
    warnings.warn(
        f"{where}: the label is the last column ({name(label_pos)}, numbers), the default; "
        f"column {name(text_pos)} holds text that looks like class labels. If that is the "
        f"label, pass label_column={name(text_pos)} (evofeat run --label-column "
        f"{str(columns[text_pos]) if header else text_pos}).",
        LabelColumnWarning,
        stacklevel=stacklevel,
    )


def _arff_frame(data: bytes, where: str) -> tuple[pd.DataFrame, bool, dict[str, Any]]:
    attributes, rows = read_arff(data, where)
    names = [a[0] for a in attributes]
    frame = pd.DataFrame(rows, columns=names, dtype=object)
    declared: dict[str, Any] = {}
    for name, kind in attributes:
        if isinstance(kind, list):
            declared[name] = list(kind)
            frame[name] = frame[name].map(lambda v: "?" if v is None else str(v))
        elif str(kind).upper() == "STRING":
            frame[name] = frame[name].map(lambda v: "?" if v is None else str(v))
        else:
            frame[name] = frame[name].map(lambda v: "?" if v is None else repr(float(v)))
    return frame, True, declared


def _load_idx(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of (images, labels) files, their rows stacked in file order (mnist-full: train, test)."""
    Xs, ys = [], []
    for img, lab in zip(paths[::2], paths[1::2], strict=True):
        images = read_idx(read_bytes(img), str(img))
        labels = read_idx(read_bytes(lab), str(lab))
        if images.shape[0] != labels.shape[0]:
            raise DataFormatError(
                f"{img} holds {images.shape[0]} images but {lab} holds "
                f"{labels.shape[0]} labels; they must be the matching pair of files."
            )
        Xs.append(images.reshape(images.shape[0], -1).astype(np.float64))
        ys.append(labels.astype(np.float64))
    return np.vstack(Xs), np.concatenate(ys)


def _load_sparse_nolabel(
    paths: list[Path], n_features: int | None
) -> tuple[sp.csr_matrix, np.ndarray]:
    """NIPS 2003 layout: 'index:value ...' lines without a label, labels in a second file."""
    lines = read_bytes(paths[0]).splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    data = b"\n".join(b"0 " + line for line in lines) + b"\n"
    X, _ = read_libsvm(data, str(paths[0]), n_features=n_features, zero_based=False)
    labels, _had = read_table(read_bytes(paths[1]), str(paths[1]), sep="whitespace", header=False)
    y = labels.iloc[:, 0].to_numpy()
    if X.shape[0] != len(y):
        raise DataFormatError(
            f"{paths[0]} has {X.shape[0]} rows but {paths[1]} has {len(y)} labels; they must "
            "be the matching pair of files."
        )
    return X, y


# --------------------------------------------------------------------------- public


def load(
    name_or_path: str | os.PathLike[str],
    *,
    preprocess: str = "none",
    label_column: int | str | None = None,
    categorical: str = "ordinal",
    binary_positive: Any = None,
    missing: str = "drop",
    task: str | None = None,
    header: bool | None = None,
    sep: str | None = None,
    zero_based: bool | str = "auto",
    fullest: bool = False,
) -> Dataset:
    """Load a registered data set, or a user's own file, as a :class:`Dataset`.

    Parameters
    ----------
    name_or_path : str or path-like
        A registry name (see :func:`list_datasets`), or the path of a file:
        ``.libsvm``/``.svm``/``.txt`` (LIBSVM), ``.csv``/``.tsv``/``.data``/
        ``.dat`` (delimited text; the separator is guessed from the first
        line), ``.arff``; each optionally ``.gz``.
    preprocess : str, default="none"
        The name of a preprocessor in :data:`PREPROCESSORS` (``"none"``,
        ``"zscore"``, ``"unit-norm"``, ``"minmax"``, or a registered one),
        applied to ``X`` over all rows.
    label_column : int or str, optional
        The label's column, by position (0-based; -1 = last) or header name.
        Default: the registry's (for a user file: the last column, the last
        ARFF attribute). Ignored for LIBSVM and IDX.
    categorical : {"ordinal", "onehot"}, default="ordinal"
        How categorical attributes are encoded: integer codes in the
        documented level order (integer-coded attributes keep their codes),
        or one 0/1 column per level named ``attr=level``.
    binary_positive : optional
        The label value that becomes +1. Default: the registry's documented
        choice (see ``list_datasets()[i].positive``), else the second of the
        sorted label values. On a multiclass label it makes the task
        one-vs-rest.
    missing : {"drop", "impute", "keep"}, default="drop"
        Rows holding a missing value (``?`` or an empty field): dropped; or
        filled with the column mean (numeric) / most frequent level
        (categorical); or kept with NaN, evofeat's marker of an absent
        feature.
    task : {"binary", "multiclass", "regression"}, optional
        Default: the registry's; for a user file inferred from the labels (two
        values -> binary, non-integral numbers -> regression, else
        multiclass).
    header : bool, optional
        Whether a user's delimited file has a header row (default: detected).
    sep : str, optional
        Separator of a user's delimited file (``","``, ``"\\t"``, ``";"`` or
        ``"whitespace"``; default: guessed).
    zero_based : bool or "auto", default="auto"
        Whether a user's LIBSVM file numbers its features from 0. ``"auto"``:
        1-based unless index 0 appears (then a :class:`ZeroBasedWarning`
        says the file is read as 0-based). Registered files are 1-based.
    fullest : bool, default=False
        Load the registered set that holds the named set's rows and more
        (:func:`~evofeat.datasets.catalogue.fullest`: ``mnist-full``, MNIST's
        training then test split, for ``mnist``) when all its files are here,
        else the named set; the Dataset's ``name`` says which was loaded.

    Returns
    -------
    Dataset

    Raises
    ------
    UnknownDatasetError
        A name that is not registered (a :class:`KeyError`; lists close names).
    DataNotFoundError
        The file(s) are not on this machine (says where it looked and how to
        get them).
    DataFormatError
        A malformed file (says the file, the line, and what was expected).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> ds = load("german")
    >>> ds.X.shape, ds.task, int((ds.y == 1).sum())
    ((1000, 24), 'binary', 300)
    >>> ca = load("credit-a")                       # 37 rows with '?' dropped
    >>> ca.n_rows, load("credit-a", missing="impute").n_rows
    (653, 690)
    >>> load("credit-a", categorical="onehot").feature_names[:3]
    ['A1=b', 'A1=a', 'A2']
    >>> load("dna").classes
    [1, 2, 3]
    >>> round(float(abs(load("diabetes", preprocess="zscore").X.mean(axis=0)).max()), 12)
    0.0
    """
    check_preprocess(preprocess)  # one name or a chain (zscore,unit-norm)
    if categorical not in CATEGORICAL_MODES:
        raise ValueError(f"categorical must be one of {CATEGORICAL_MODES}, got {categorical!r}")
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {TASKS} or None, got {task!r}")
    target = resolve(name_or_path)
    if fullest and isinstance(target, DatasetEntry):
        target = fullest_entry(target)
    paths = find(name_or_path if isinstance(target, Path) else target.name)
    entry = target if isinstance(target, DatasetEntry) else None
    if entry is not None:
        fmt, opts, name = entry.format, dict(entry.options), entry.name
        positive = binary_positive if binary_positive is not None else entry.positive
        if binary_positive is None and task not in (None, "binary"):
            positive = None  # e.g. task="multiclass" on covtype-binary's file
        task = task or (entry.task if positive is None or entry.task == "binary" else None)
    else:
        path = paths[0]
        fmt, opts = _user_format(path), {}
        name = path.name.removesuffix(".gz").removesuffix(".GZ")
        name = name.rsplit(".", 1)[0] if "." in name else name
        positive = binary_positive
    if sep is not None:
        opts["sep"] = sep
    if header is not None:
        opts["header"] = header
    where = _joined(paths)
    X: np.ndarray | sp.csr_matrix
    if fmt == "libsvm":
        X, labels, names = _load_libsvm(
            paths, opts.get("n_features"), entry is not None, zero_based
        )
    elif fmt in ("csv", "arff"):
        X, labels, _, names, where = _load_table(
            paths,
            opts=opts,
            label_column=label_column,
            categorical=categorical,
            missing=missing,
            header=header,
            registered=entry is not None,
        )
    elif fmt == "idx":
        X, labels = _load_idx(paths)
        names = [f"f{j + 1}" for j in range(X.shape[1])]
    elif fmt == "sparse-nolabel":
        X, labels = _load_sparse_nolabel(paths, opts.get("n_features"))
        names = [f"f{j + 1}" for j in range(X.shape[1])]
    else:  # pragma: no cover - the catalog only holds the formats above
        raise DataFormatError(f"unknown format {fmt!r} in the registry entry of {name}")
    y, task_out, classes = encode_labels(labels, task=task, positive=positive, where=where)
    if preprocess != "none":
        X = apply_preprocessing(X, preprocess)
    return Dataset(
        name=name,
        X=X,
        y=y,
        feature_names=names,
        task=task_out,
        classes=classes,
        source=where,
        preprocessing=preprocess,
    )


def stsd_german_permutations() -> np.ndarray:
    """The 20 stream orders of the STSD authors' german experiments.

    Returns
    -------
    numpy.ndarray
        int64 array of shape (20, 1000): row ``i`` is the ``i``-th stream
        order, as **0-based** row indices into ``load("german-stsd")`` (the
        authors' file holds 1-based MATLAB indices; 1 is subtracted).

    Examples
    --------
    >>> from evofeat.datasets import load, stsd_german_permutations
    >>> perms = stsd_german_permutations()
    >>> perms.shape, int(perms.min()), int(perms.max())
    ((20, 1000), 0, 999)
    >>> perms[0, :5].tolist()
    [608, 451, 122, 447, 871]
    >>> load("german-stsd").X[perms[0]].shape
    (1000, 24)
    """
    path = DATA_DIR / "german_stsd_id_all.csv.gz"
    data = read_bytes(path)
    frame = pd.read_csv(io.BytesIO(data), header=None, dtype=np.int64)
    perms = frame.to_numpy(dtype=np.int64) - 1
    expected = np.arange(1000)
    if perms.shape != (20, 1000) or any(
        not np.array_equal(np.sort(row), expected) for row in perms
    ):
        raise DataFormatError(
            f"{path}: expected 20 rows that are each a permutation of 1..1000; the bundled "
            "file is damaged: reinstall evofeat."
        )
    return perms
