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
    ``one_based`` is given). Each line must be a permutation of the rows.
    Returns a ``(repeats, n_rows)`` array of 0-based indices.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(
            "permutation file not found",
            expected="an existing file",
            received=str(path),
            fix="check the path",
        )
    try:
        import pandas as pd

        arr = pd.read_csv(path, header=None, sep=r"[,\s]+", engine="python").to_numpy()
    except Exception as exc:
        raise InputError(
            f"cannot read the permutation file {path}",
            expected="rows of integers",
            received=str(exc).splitlines()[0],
            fix="write one permutation per line",
        ) from None
    arr = np.atleast_2d(arr)
    if arr.shape[1] != n_rows:
        raise InputError(
            f"the permutation file {path} has the wrong length",
            expected=f"{n_rows} indices per line (the data set's rows)",
            received=f"{arr.shape[1]} per line",
            fix="use the file made for this data set",
        )
    if one_based is None:
        one_based = bool(arr.min() == 1)
    arr = arr.astype(np.int64) - (1 if one_based else 0)
    for i, row in enumerate(arr):
        if not np.array_equal(np.sort(row), np.arange(n_rows)):
            raise InputError(
                f"line {i + 1} of {path} is not a permutation",
                expected=f"each of 0..{n_rows - 1} (or 1..{n_rows}) once",
                received="repeats or gaps",
                fix="regenerate the file",
            )
    return arr
