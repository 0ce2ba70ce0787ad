"""The one map from feature names to weight columns."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from itertools import repeat

import numpy as np

__all__ = ["FeatureIndex", "name_order", "sort_names"]


def name_order(name: Hashable) -> tuple[str, object]:
    """Sort key that orders feature names of mixed types deterministically.

    Numbers sort numerically before strings, strings lexicographically.

    >>> sorted(["b", 10, "a", 2], key=name_order)
    [2, 10, 'a', 'b']
    """
    if isinstance(name, bool):
        return ("1", str(name))
    if isinstance(name, int | float | np.integer | np.floating):
        return ("0", float(name))
    return ("1", str(name))


def sort_names(names: Iterable[Hashable]) -> list[Hashable]:
    """``names`` sorted by :func:`name_order` (without calling it when all are ``str``, or all ``int``/``float``).

    >>> sort_names(["b", "a"]), sort_names([3, 1.5]), sort_names(["b", 2])
    (['a', 'b'], [1.5, 3], [2, 'b'])
    """
    names = list(names)
    kinds = set(map(type, names))
    if kinds == {str}:
        return sorted(names)  # type: ignore[type-var]
    if kinds <= {int, float}:
        return sorted(names, key=float)  # type: ignore[arg-type]
    return sorted(names, key=name_order)


class FeatureIndex:
    """Feature name -> column, growing as features appear.

    Columns are given in order of first appearance; features that first
    appear together (in one row, or in one segment of an array stream) get
    their columns in :func:`name_order` of their names. So the column of a
    feature never depends on the order of the keys in a dict, and the dict
    path and the array path number features the same way.

    Examples
    --------
    >>> fi = FeatureIndex()
    >>> fi.add(["b", "a"])
    [0, 1]
    >>> fi.names
    ['a', 'b']
    >>> fi.add(["c", "a"])
    [2]
    >>> fi["c"], len(fi), "z" in fi
    (2, 3, False)
    """

    def __init__(self) -> None:
        self._col: dict[
            Hashable, int
        ] = {}  # the columns of names[:len(_col)]: built when first looked up
        self.names: list[Hashable] = []
        self._last: tuple[tuple[Hashable, ...], int, np.ndarray] = (
            (),
            -1,
            np.zeros(0, dtype=np.int64),
        )

    def _lookup(self) -> dict[Hashable, int]:
        """The name -> column dict, covering every name."""
        col = self._col
        if len(col) < len(self.names):
            col.update(zip(self.names[len(col) :], range(len(col), len(self.names)), strict=True))
        return col

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self._lookup()

    def __getitem__(self, name: Hashable) -> int:
        return self._lookup()[name]

    def get(self, name: Hashable, default: int = -1) -> int:
        """The column of ``name``, or ``default`` if it was never seen."""
        return self._lookup().get(name, default)

    def add(self, names: Iterable[Hashable]) -> list[int]:
        """Add the unseen names (in :func:`name_order`); return their new columns."""
        col = self._lookup()
        new = [n for n in names if n not in col]
        if not new:
            return []
        if len(new) > 1:
            new = sort_names(set(new))
        start = len(self.names)
        self.names.extend(new)
        return list(range(start, start + len(new)))

    def extend_new(self, names: list[Hashable]) -> None:
        """Append ``names``, which the caller knows are distinct and unseen, in the given order.

        O(1) a name and no hashing: the lookup dict catches up when first used.
        """
        self.names.extend(names)

    def columns(self, keys: tuple[Hashable, ...]) -> np.ndarray:
        """The column of each of ``keys`` (``-1`` where unseen), as an int64 array; do not modify it.

        The last answer is kept: rows with the same keys in the same order
        (a fixed schema) cost one tuple comparison.
        """
        last_keys, last_n, last_cols = self._last
        n = len(self.names)
        if last_n == n and keys == last_keys:
            return last_cols
        cols = np.fromiter(
            map(self._lookup().get, keys, repeat(-1)), dtype=np.int64, count=len(keys)
        )
        self._last = (keys, n, cols)
        return cols

    def copy(self) -> FeatureIndex:
        """An independent copy."""
        other = FeatureIndex()
        other._col = dict(self._col)
        other.names = list(self.names)
        return other

    def __getstate__(self) -> dict[str, object]:
        return {"names": self.names}

    def __setstate__(self, state: dict[str, list[Hashable]]) -> None:
        self._col = {}
        self.names = list(state["names"])
        self._last = ((), -1, np.zeros(0, dtype=np.int64))

    def __repr__(self) -> str:
        return f"FeatureIndex({len(self)} features)"
