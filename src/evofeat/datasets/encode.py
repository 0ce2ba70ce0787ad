"""Turn parsed columns into a float64 feature matrix and encoded labels.

Conventions (documented here once, used by every loader):

* **Missing values** are the fields ``?`` and empty fields (and ``None`` in
  ARFF). ``missing="drop"`` (default) drops every row holding one;
  ``"impute"`` replaces a numeric value by the column mean of the observed
  rows and a categorical value by its most frequent level (ties: the first in
  level order); ``"keep"`` writes NaN, evofeat's array marker for an absent
  feature (every one-hot column of the attribute is NaN). A row whose *label*
  is missing is dropped under ``"drop"`` and is an error otherwise.
* **Text** such as ``nan`` or ``inf`` is not a missing marker: a NaN or an
  infinite value in a feature is a :class:`DataFormatError`.
* **Categorical attributes**: ``categorical="ordinal"`` gives integer codes
  ``0..L-1`` in the documented level order (the ``.names``/``.doc`` order for
  registered sets, the declaration order in ARFF, sorted order for a user's
  CSV); attributes that a file already stores as integer codes keep their
  codes. ``categorical="onehot"`` gives one 0/1 column per level, named
  ``attr=level``.
* **Labels**: binary labels become -1/+1, the positive one being
  ``binary_positive``, else the registry's documented choice, else the second
  of the sorted label values; a ``binary_positive`` on a multiclass label
  makes it one-vs-rest (classes ``["not <p>", p]``). Multiclass labels become
  int64 codes in sorted label order (numbers sorted by value).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataFormatError

__all__ = ["MISSING_TOKENS", "RawColumn", "encode_features", "encode_labels", "normalise_label"]

MISSING_TOKENS = ("?", "")
MISSING_POLICIES = ("drop", "impute", "keep")
CATEGORICAL_MODES = ("ordinal", "onehot")

LineOf = Callable[[int], str]


@dataclass
class RawColumn:
    """One parsed column.

    ``values`` is float64 for numeric columns or an object array of stripped
    strings; ``missing`` marks missing fields. ``kind`` is ``"numeric"``,
    ``"categorical"`` (text levels), ``"coded"`` (integer codes of a
    categorical attribute) or ``"auto"`` (decide from the values).

    Examples
    --------
    >>> import pandas as pd
    >>> col = RawColumn.from_series("a", pd.Series(["x", "?", "y"]))
    >>> col.missing.tolist()
    [False, True, False]
    """

    name: str
    values: np.ndarray
    missing: np.ndarray
    kind: str = "auto"
    levels: list[Any] | None = None

    @classmethod
    def from_series(cls, name: str, s: pd.Series) -> RawColumn:
        """Build from a pandas column read with ``na_filter=False``."""
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            values = s.to_numpy(dtype=np.float64)
            return cls(name, values, np.zeros(len(values), dtype=bool))
        text = s.astype(str).str.strip().to_numpy(dtype=object)
        return cls(name, text, np.isin(text, MISSING_TOKENS))


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _to_numeric(col: RawColumn, line_of: LineOf, strict: bool) -> RawColumn | None:
    """Numeric version of a text column; None if it is all text and not ``strict``."""
    if col.values.dtype != object:
        bad = ~np.isfinite(col.values) & ~col.missing
        if bad.any():
            r = _first(bad)
            raise DataFormatError(
                f"{line_of(r)}: column {col.name!r} holds {float(col.values[r])}, a NaN or "
                "infinite value, which is not allowed in features. Expected a finite number: "
                "fix the value, or write '?' (or leave the field empty) for a missing one."
            )
        return col
    present = ~col.missing
    parsed = pd.to_numeric(pd.Series(col.values[present]), errors="coerce").to_numpy(np.float64)
    ok = np.isfinite(parsed)
    if not ok.any() and not strict:
        return None
    if not ok.all():
        r = int(np.flatnonzero(present)[np.flatnonzero(~ok)[0]])
        text = col.values[r]
        try:
            float(text)
            what = "a NaN or infinite value, which is not allowed in features"
        except ValueError:
            what = "not a number"
        raise DataFormatError(
            f"{line_of(r)}: column {col.name!r} holds {text!r}, {what}. Expected a finite "
            "number in this numeric column. Fix the value, or write '?' (or leave the field "
            "empty) for a missing value. If the column is categorical, every value in it "
            "must be text."
        )
    values = np.full(len(col.values), np.nan)
    values[present] = parsed
    return RawColumn(col.name, values, col.missing, "numeric")


def _sort_levels(levels: Sequence[Any]) -> list[Any]:
    try:
        return sorted(levels, key=float)
    except (TypeError, ValueError):
        return sorted(levels, key=str)


def _format_level(level: Any) -> str:
    if isinstance(level, float) and level.is_integer():
        return str(int(level))
    return str(level)


def _categorical_codes(col: RawColumn, line_of: LineOf) -> tuple[np.ndarray, list[Any]]:
    """Codes 0..L-1 (NaN where missing) and the level list."""
    present = ~col.missing
    if col.kind == "coded":
        num = _to_numeric(col, line_of, strict=True)
        assert num is not None
        levels = _sort_levels(np.unique(num.values[present]).tolist())
        codes = np.full(len(col.values), np.nan)
        codes[present] = np.searchsorted(np.asarray(levels, dtype=np.float64), num.values[present])
        return codes, levels
    if col.values.dtype != object:
        text = np.array([_format_level(v) for v in col.values.tolist()], dtype=object)
    else:
        text = col.values
    levels = (
        list(col.levels)
        if col.levels is not None
        else _sort_levels(np.unique(text[present]).tolist())
    )
    lookup = {str(level): i for i, level in enumerate(levels)}
    codes = np.full(len(text), np.nan)
    for r in np.flatnonzero(present):
        code = lookup.get(text[r])
        if code is None:
            raise DataFormatError(
                f"{line_of(int(r))}: column {col.name!r} holds {text[r]!r}, which is not one of "
                f"its documented levels {levels}. Fix the value, or write '?' for a missing one."
            )
        codes[r] = code
    return codes, levels


def encode_features(
    columns: list[RawColumn],
    *,
    categorical: str,
    missing: str,
    line_of: LineOf,
    label_missing: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Encode parsed columns; returns ``(X, feature_names, kept_rows)``.

    ``kept_rows`` is the boolean mask of the input rows that survive
    ``missing="drop"`` (all True otherwise).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> cols = [RawColumn.from_series("c", pd.Series(["b", "a", "?"])),
    ...         RawColumn.from_series("x", pd.Series([1.0, 2.0, 3.0]))]
    >>> X, names, kept = encode_features(cols, categorical="onehot", missing="drop",
    ...                                  line_of=str)
    >>> names, X.tolist(), kept.tolist()
    (['c=a', 'c=b', 'x'], [[0.0, 1.0, 1.0], [1.0, 0.0, 2.0]], [True, True, False])
    """
    if categorical not in CATEGORICAL_MODES:
        raise ValueError(f"categorical must be one of {CATEGORICAL_MODES}, got {categorical!r}")
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    n = len(columns[0].values) if columns else (0 if label_missing is None else len(label_missing))
    # 1. decide each column's kind and get numbers (values or codes)
    resolved: list[tuple[RawColumn, np.ndarray, list[Any] | None]] = []
    for col in columns:
        if col.kind in ("numeric", "auto"):
            num = _to_numeric(col, line_of, strict=col.kind == "numeric")
            if num is not None:
                resolved.append((col, num.values, None))
                continue
            col = RawColumn(col.name, col.values, col.missing, "categorical")
        codes, col_levels = _categorical_codes(col, line_of)
        if col.kind == "coded":
            num = _to_numeric(col, line_of, strict=True)
            assert num is not None
            resolved.append((col, num.values if categorical == "ordinal" else codes, col_levels))
        else:
            resolved.append((col, codes, col_levels))
    # 2. rows to keep
    any_missing = np.zeros(n, dtype=bool)
    for col, _, _ in resolved:
        any_missing |= col.missing
    if label_missing is not None and label_missing.any():
        if missing != "drop":
            r = _first(label_missing)
            raise DataFormatError(
                f"{line_of(r)}: the label is missing. A label cannot be imputed: fix it, or "
                "use missing='drop' to drop rows without a label."
            )
        any_missing |= label_missing
    kept = ~any_missing if missing == "drop" else np.ones(n, dtype=bool)
    # 3. encode
    blocks: list[np.ndarray] = []
    names: list[str] = []
    for col, values, levels in resolved:
        v = values[kept]
        m = col.missing[kept]
        if missing == "impute" and m.any():
            v = v.copy()
            observed = v[~m]
            if observed.size == 0:
                raise DataFormatError(
                    f"column {col.name!r} has no observed value to impute from; drop the column "
                    "or use missing='keep'."
                )
            if levels is None:
                v[m] = observed.mean()
            else:
                vals, counts = np.unique(observed, return_counts=True)
                v[m] = vals[int(np.argmax(counts))]
        onehot_codes = levels is not None and categorical == "onehot"
        if onehot_codes:
            assert levels is not None
            block = np.zeros((len(v), len(levels)))
            present = ~np.isnan(v)
            block[np.flatnonzero(present), v[present].astype(np.int64)] = 1.0
            block[~present] = np.nan
            blocks.append(block)
            names.extend(f"{col.name}={_format_level(level)}" for level in levels)
        else:
            blocks.append(v.reshape(-1, 1))
            names.append(col.name)
    X = np.hstack(blocks) if blocks else np.empty((int(kept.sum()), 0))
    return np.ascontiguousarray(X, dtype=np.float64), names, kept


def normalise_label(value: Any) -> Any:
    """A label as a plain Python value: integral numbers as int, other numbers as float.

    Examples
    --------
    >>> normalise_label(1.0), normalise_label("2"), normalise_label("won"), normalise_label(0.5)
    (1, 2, 'won', 0.5)
    """
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode()
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value.strip()
        if not np.isfinite(number):
            return value.strip()
        value = number
    if isinstance(value, (np.integer, int)):
        return int(value)
    number = float(value)
    return int(number) if number.is_integer() else number


def _label_array(values: np.ndarray) -> np.ndarray:
    """float64 if every label is a finite number, else an object array of stripped text."""
    if values.dtype != object:
        return values.astype(np.float64)
    text = np.array([v.decode() if isinstance(v, bytes) else str(v) for v in values], dtype=object)
    text = np.array([v.strip() for v in text], dtype=object)
    parsed = pd.to_numeric(pd.Series(text), errors="coerce").to_numpy(np.float64)
    return parsed if np.isfinite(parsed).all() else text


def encode_labels(
    values: np.ndarray,
    *,
    task: str | None,
    positive: Any,
    where: str,
) -> tuple[np.ndarray, str, list[Any]]:
    """Encode labels; returns ``(y, task, classes)``.

    Parameters
    ----------
    values : numpy.ndarray
        Raw labels (numbers, or strings).
    task : str or None
        ``"binary"``, ``"multiclass"``, ``"regression"``, or None to infer:
        two label values -> binary; non-integral numbers -> regression;
        otherwise multiclass.
    positive : object or None
        The label that becomes +1 (default: the second of the sorted values).
        With more than two label values it makes the task one-vs-rest.
    where : str
        The file(s), for error messages.

    Examples
    --------
    >>> import numpy as np
    >>> y, task, classes = encode_labels(np.array(["-", "+", "-"], dtype=object),
    ...                                  task=None, positive="+", where="f")
    >>> y.tolist(), task, classes
    ([-1, 1, -1], 'binary', ['-', '+'])
    >>> encode_labels(np.array([3.0, 1.0, 2.0]), task=None, positive=None, where="f")[0].tolist()
    [2, 0, 1]
    """
    arr = _label_array(values)
    numeric = arr.dtype != object
    uniq_arr, codes = np.unique(arr, return_inverse=True)
    uniq = [normalise_label(v) for v in uniq_arr.tolist()] if numeric else uniq_arr.tolist()
    shown = f"{uniq[:20]}{' ...' if len(uniq) > 20 else ''}"
    pos: Any = None
    if positive is not None:
        pos = normalise_label(positive) if numeric else str(positive).strip()
        if isinstance(pos, str) and numeric or pos not in uniq:
            raise ValueError(
                f"binary_positive={positive!r} is not a label of {where}; its labels are {shown}"
            )
        if task not in (None, "binary"):
            raise ValueError(f"binary_positive makes the task binary, but task={task!r} was asked")
        task = "binary"
    if task is None:
        if len(uniq) < 2:
            raise DataFormatError(
                f"{where}: every row has the label {uniq[0] if uniq else None!r}. Expected at "
                "least two label values; check label_column (--label-column on the command "
                "line), or pass task='regression' (--task regression)."
            )
        if len(uniq) == 2:
            task = "binary"
        elif numeric and any(isinstance(v, float) for v in uniq):
            task = "regression"
        else:
            task = "multiclass"
    if task == "regression":
        if not numeric:
            raise DataFormatError(
                f"{where}: task='regression' (--task regression) needs numeric labels, got "
                f"{shown}. Check label_column (--label-column on the command line)."
            )
        return arr.astype(np.float64), task, []
    if task == "binary":
        if pos is None:
            if len(uniq) != 2:
                raise DataFormatError(
                    f"{where}: a binary task needs two label values, found {len(uniq)}: "
                    f"{shown}. Pass binary_positive=<label> for one-vs-rest, or "
                    "task='multiclass' (--task multiclass on the command line)."
                )
            pos = uniq[1]
        classes = (
            [uniq[0] if uniq[1] == pos else uniq[1], pos] if len(uniq) == 2 else [f"not {pos}", pos]
        )
        y = np.where(codes == uniq.index(pos), 1, -1).astype(np.int64)
        return y, task, classes
    if task != "multiclass":
        raise ValueError(f"task must be 'binary', 'multiclass' or 'regression', got {task!r}")
    return codes.astype(np.int64).reshape(-1), task, uniq
