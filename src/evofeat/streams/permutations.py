"""Row orders: seeded permutations or a given permutation file."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evofeat.base.errors import InputError

__all__ = ["load_permutations", "permutation"]


def permutation(n: int, seed: int | None) -> np.ndarray:
    """The row order of repeat ``seed``: identity for ``None``, else a seeded permutation.

    >>> permutation(5, None).tolist()
    [0, 1, 2, 3, 4]
    >>> sorted(permutation(5, 3).tolist())
    [0, 1, 2, 3, 4]
    """
    if seed is None:
        return np.arange(n)
    return np.random.default_rng(seed).permutation(n)


def load_permutations(
    path: str | Path, n_rows: int, *, one_based: bool | None = None
) -> np.ndarray:
    """Read row orders (one per line, comma or space separated; ``.gz`` allowed).

    Indices may be 0-based or 1-based (detected from the minimum unless
    ``one_based`` is given). Each line must be a permutation of the rows;
    blank lines are skipped. Errors name the line (as counted in the file).
    Returns a ``(repeats, n_rows)`` array of 0-based indices.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "perm.txt"
    >>> _ = p.write_text("3 1 2\\n\\n2,3,1\\n")
    >>> load_permutations(p, 3).tolist()
    [[2, 0, 1], [1, 2, 0]]
    """
    from evofeat.datasets.errors import DataFormatError, DataNotFoundError
    from evofeat.datasets.textio import read_all

    path = Path(path)
    if not path.exists():
        raise InputError(
            "permutation file not found",
            expected="an existing file",
            received=str(path),
            fix="check the path",
        )
    try:
        text = read_all(path)
    except (DataFormatError, DataNotFoundError) as err:
        raise InputError(
            f"cannot read the permutation file {path}",
            expected="a text file of row orders",
            received=str(err),
            fix="write one permutation per line",
        ) from None
    rows, linenos = [], []
    for lineno, line in enumerate(text.split(b"\n"), start=1):
        tokens = line.replace(b",", b" ").split()
        if not tokens:
            continue
        try:
            row = np.array([int(t) for t in tokens], dtype=np.int64)
        except ValueError:
            bad = next(t for t in tokens if not t.strip(b"+-").isdigit())
            raise InputError(
                f"line {lineno} of {path} is not a row order",
                expected="whole numbers (row indices) separated by commas or spaces",
                received=repr(bad.decode("utf-8", "replace")[:40]),
                fix="write one permutation of the rows per line",
            ) from None
        if row.size != n_rows:
            raise InputError(
                f"line {lineno} of {path} has the wrong length",
                expected=f"{n_rows} indices per line (the data set's rows)",
                received=f"{row.size}",
                fix="use the file made for this data set",
            )
        rows.append(row)
        linenos.append(lineno)
    if not rows:
        raise InputError(
            f"the permutation file {path} is empty",
            expected="one permutation of the rows per line",
            received="no lines",
            fix="write one permutation per line",
        )
    arr = np.vstack(rows)
    if one_based is None:
        one_based = bool(arr.min() == 1)
    arr -= 1 if one_based else 0
    expected = np.arange(n_rows)
    for lineno, row in zip(linenos, arr, strict=True):
        if not np.array_equal(np.sort(row), expected):
            raise InputError(
                f"line {lineno} of {path} is not a permutation",
                expected=f"each of 0..{n_rows - 1} (or 1..{n_rows}) once",
                received="repeats or gaps",
                fix="regenerate the file",
            )
    return arr
