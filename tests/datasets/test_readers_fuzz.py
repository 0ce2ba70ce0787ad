"""Property and fuzz tests of the JSON Lines, CSV and LIBSVM readers.

Every input either parses to what a reference parser (``json``, pandas,
scikit-learn) gives, or raises the library's input error naming a line; no
other exception, whatever the bytes. The example counts keep the whole file
to a few tens of seconds.
"""

from __future__ import annotations

import io
import json
import math
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

from evofeat.base import FeatureIndex, InputError
from evofeat.datasets import DataFormatError, load, textio
from evofeat.datasets.readers import libsvm_arrays
from evofeat.streams import CsvStream, JsonlStream, LibsvmStream

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EOLS = st.sampled_from([b"\n", b"\r\n", b"\r"])
BOMS = st.sampled_from([b"", textio.UTF8_BOM])
LINE = re.compile(r"line \d+")
# messages about the whole file rather than one line
WHOLE_FILE = (
    "no rows",
    "is empty",
    "holds no",
    "distinct",
    "no feature columns",
    "binary task",
    "every row has the label",
    "every row holds a missing value",
)

_DIR = Path(tempfile.mkdtemp(prefix="evofeat-fuzz-"))


def write(data: bytes, suffix: str) -> Path:
    path = _DIR / f"fuzz{suffix}"
    path.write_bytes(data)
    return path


def refused_on_a_line(err: Exception) -> None:
    """The library's input error, naming the line unless it is about the whole file."""
    assert isinstance(err, DataFormatError | InputError), repr(err)
    text = str(err)
    assert LINE.search(text) or any(w in text for w in WHOLE_FILE), text


def quietly(fn: Any, *args: Any, **kw: Any) -> Any:
    """``fn(...)``; the warnings a reader gives on purpose (0-based, label column) are not printed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kw)


def rows_of(stream: Any) -> list[dict[Any, float]]:
    """The rows of a stream's chunks as ``{feature name: value}``."""
    fi = FeatureIndex()
    col_map, seg_dim = stream.internal_columns(fi)
    names = list(fi.names)
    out = []
    for chunk in stream.chunks(col_map, seg_dim, size=7):
        for i in range(chunk.indptr.size - 1):
            a, b = chunk.indptr[i], chunk.indptr[i + 1]
            out.append(
                {
                    names[c]: float(v)
                    for c, v in zip(chunk.indices[a:b], chunk.data[a:b], strict=True)
                }
            )
    return out


# ---------------------------------------------------------------- JSON Lines
KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)
NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
)


@FUZZ
@given(
    rows=st.lists(
        st.tuples(
            st.dictionaries(KEYS.filter(lambda k: k != "y"), NUMBERS, max_size=5),
            st.sampled_from([0, 1]),
        ),
        min_size=1,
        max_size=20,
    ),
    eol=EOLS,
    bom=BOMS,
    blank=st.booleans(),
)
def test_jsonl_rows_round_trip(
    rows: list[tuple[dict[str, Any], int]], eol: bytes, bom: bytes, blank: bool
) -> None:
    lines = [json.dumps({**x, "y": y}).encode() for x, y in rows]
    if blank:
        lines.insert(len(lines) // 2, b"   ")
    stream = JsonlStream(write(bom + eol.join(lines) + eol, ".jsonl"))
    assert stream.n_rows == len(rows)
    want = [{k: float(v) for k, v in x.items()} for x, _ in rows]
    assert rows_of(stream) == want


@FUZZ
@given(data=st.binary(max_size=200) | st.text(max_size=120).map(str.encode))
def test_jsonl_any_bytes_parse_or_fail_on_a_line(data: bytes) -> None:
    try:
        quietly(JsonlStream, write(data, ".jsonl"))
    except Exception as err:  # noqa: BLE001 (the property is about the kind of exception)
        refused_on_a_line(err)


@settings(max_examples=20, deadline=None)
@given(depth=st.integers(1, 20_000), where=st.sampled_from(["feature", "label"]))
def test_jsonl_nesting_of_any_depth_fails_on_its_line(depth: int, where: str) -> None:
    nested = "[" * depth + "]" * depth
    line = f'{{"a": {nested}, "y": 0}}' if where == "feature" else f'{{"a": 1, "y": {nested}}}'
    with pytest.raises(DataFormatError, match="line 2"):
        JsonlStream(write(b'{"a": 1, "y": 1}\n' + line.encode() + b"\n", ".jsonl"))


# ---------------------------------------------------------------- CSV
CELLS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: repr(float(v))),
)


@FUZZ
@given(
    table=st.integers(1, 4).flatmap(
        lambda width: st.lists(
            st.lists(CELLS, min_size=width, max_size=width), min_size=2, max_size=15
        )
    ),
    labels=st.lists(st.sampled_from(["0", "1"]), min_size=15, max_size=15),
    eol=EOLS,
    bom=BOMS,
    quote=st.booleans(),
)
def test_csv_rows_round_trip(
    table: list[list[str]], labels: list[str], eol: bytes, bom: bytes, quote: bool
) -> None:
    width = len(table[0])
    header = [f"c{j}" for j in range(width)] + ["y"]
    labels[:2] = ["0", "1"]  # two classes (one is refused, as it should be)
    body = [[*row, labels[i]] for i, row in enumerate(table)]
    cell = (lambda v: f'"{v}"') if quote else str
    text = "\n".join(",".join(map(cell, r)) for r in [header, *body]) + "\n"
    reference = pd.read_csv(io.StringIO(text), dtype=float)
    path = write(bom + text.encode().replace(b"\n", eol), ".csv")
    want = reference[header[:-1]].to_numpy(float)
    loaded = quietly(load, path, label_column="y")
    assert loaded.feature_names == header[:-1]
    np.testing.assert_array_equal(loaded.X, want)
    stream = quietly(CsvStream, path, label_column="y", block_bytes=16)
    got = rows_of(stream)
    assert [[r.get(name, math.nan) for name in header[:-1]] for r in got] == want.tolist()


@FUZZ
@given(
    data=st.binary(max_size=200) | st.text(',"\n\r 0123456789.ab?;\t', max_size=120).map(str.encode)
)
def test_csv_any_bytes_parse_or_fail_on_a_line(data: bytes) -> None:
    path = write(data, ".csv")
    for read in (lambda: load(path), lambda: CsvStream(path, block_bytes=8)):
        try:
            quietly(read)
        except Exception as err:  # noqa: BLE001
            refused_on_a_line(err)


# ---------------------------------------------------------------- LIBSVM
ENTRY = st.tuples(
    st.integers(1, 40), st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)
)


@FUZZ
@given(
    rows=st.lists(
        st.tuples(st.sampled_from([-1, 1]), st.lists(ENTRY, max_size=6, unique_by=lambda e: e[0])),
        min_size=1,
        max_size=20,
    ),
    eol=EOLS,
    bom=BOMS,
)
def test_libsvm_rows_round_trip(
    rows: list[tuple[int, list[tuple[int, float]]]], eol: bytes, bom: bytes
) -> None:
    rows = [*rows, (1, []), (-1, [])]  # two classes (one is refused, as it should be)
    lines = [f"{y} " + " ".join(f"{i}:{v!r}" for i, v in sorted(entries)) for y, entries in rows]
    text = "\n".join(lines) + "\n"
    X_ref, y_ref = load_svmlight_file(io.BytesIO(text.encode()), zero_based=False)
    path = write(bom + text.encode().replace(b"\n", eol), ".libsvm")
    loaded = load(path)
    same_matrix(loaded.X, X_ref)
    stream = LibsvmStream(path, block_bytes=8)
    assert stream.n_rows == len(rows)
    ref_rows = [
        {f"f{j + 1}": float(v) for j, v in zip(r.indices, r.data, strict=True)} for r in X_ref
    ]
    assert [{k: v for k, v in r.items()} for r in rows_of(stream)] == ref_rows


def same_matrix(a: Any, b: Any) -> None:
    """Equal as matrices, up to columns of zeros on the right (the width of a file is its largest index)."""
    a = a.toarray() if hasattr(a, "toarray") else np.asarray(a)
    b = b.toarray() if hasattr(b, "toarray") else np.asarray(b)
    width = max(a.shape[1], b.shape[1])
    pad = [np.pad(m, ((0, 0), (0, width - m.shape[1]))) for m in (a, b)]
    np.testing.assert_array_equal(*pad)


def _sklearn(data: bytes) -> tuple[Any, Any] | None:
    """scikit-learn's reading of LIBSVM text (1-based), or None when it refuses it or finds NaN/inf."""
    try:
        X, y = load_svmlight_file(io.BytesIO(data), zero_based=False)
    except Exception:  # noqa: BLE001
        return None
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        return None
    return X, y


@FUZZ
@given(
    data=st.binary(max_size=120)
    | st.text(" \t\n\r0123456789:.-+e#,qid", max_size=80).map(str.encode)
)
def test_libsvm_any_bytes_parse_as_sklearn_or_fail_on_a_line(data: bytes) -> None:
    text = textio.universal_newlines(data)  # what the readers give the parser
    try:
        got = libsvm_arrays(text, "f", n_features=None, zero_based=False)
    except Exception as err:  # noqa: BLE001
        refused_on_a_line(err)
    else:
        ref = _sklearn(text)
        if ref is not None:
            np.testing.assert_array_equal(got.y, ref[1])
            same_matrix(got.csr(), ref[0])
    path = write(data, ".libsvm")
    try:
        quietly(LibsvmStream, path, block_bytes=8)
    except Exception as err:  # noqa: BLE001
        refused_on_a_line(err)


def test_the_compiled_scanner_s_examples_run() -> None:
    import doctest

    from evofeat.datasets import _textscan

    assert doctest.testmod(_textscan).failed == 0
