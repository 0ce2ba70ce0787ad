"""The one map from feature names to weight columns."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np

__all__ = ["FeatureIndex", "name_order"]


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
        self._col: dict[Hashable, int] = {}
        self.names: list[Hashable] = []

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self._col

    def __getitem__(self, name: Hashable) -> int:
        return self._col[name]

    def get(self, name: Hashable, default: int = -1) -> int:
        """The column of ``name``, or ``default`` if it was never seen."""
        return self._col.get(name, default)

    def add(self, names: Iterable[Hashable]) -> list[int]:
        """Add the unseen names (in :func:`name_order`); return their new columns."""
        col = self._col
        new = [n for n in names if n not in col]
        if not new:
            return []
        if len(new) > 1:
            new = sorted(set(new), key=name_order)
        start = len(self.names)
        for i, n in enumerate(new):
            col[n] = start + i
        self.names.extend(new)
        return list(range(start, start + len(new)))

    def copy(self) -> FeatureIndex:
        """An independent copy."""
        other = FeatureIndex()
        other._col = dict(self._col)
        other.names = list(self.names)
        return other

    def __getstate__(self) -> dict[str, object]:
        return {"names": self.names}

    def __setstate__(self, state: dict[str, list[Hashable]]) -> None:
        self.names = list(state["names"])
        self._col = {n: i for i, n in enumerate(self.names)}

    def __repr__(self) -> str:
        return f"FeatureIndex({len(self)} features)"
