"""A stream held as arrays: values, labels and the visible features of each row.

Rows are grouped in *segments*: maximal runs of consecutive rows that see the
same set of features. A feature is absent from a row exactly when it is not
in its segment's visible set (or, for dense input built with
:meth:`Stream.from_dense`, when the value is NaN). Zeros are values.

It sits in ``base`` (``evofeat.streams`` re-exports it) because
:meth:`~evofeat.base.OnlineLearner.learn_many` runs its rows as a stream.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat._core.loop import same_bytes
from evofeat.base.canonical import canonical_csr
from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex, sort_names

__all__ = ["Chunk", "Stream"]


def _same(kept: np.ndarray, now: np.ndarray, dtype: Any) -> bool:
    """Whether ``now`` (as ``dtype``) holds the bytes of ``kept`` (C-ordered, of that dtype)."""
    now = np.ascontiguousarray(now, dtype=dtype)
    return kept.shape == now.shape and bool(same_bytes(kept, now))


_NO_INDEX = np.zeros(0, dtype=np.int64)  # the CSR arrays of a dense stream (read-only: shared)
_NO_INDEX.flags.writeable = False
_NO_VALUE = np.zeros(0)
_NO_VALUE.flags.writeable = False


def _compress(seg_rows: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge consecutive segments with equal masks."""
    if masks.shape[0] <= 1:
        return seg_rows, masks
    same = np.all(masks[1:] == masks[:-1], axis=1)
    keep = np.concatenate([[True], ~same])
    return seg_rows[keep], masks[keep]


@dataclass
class Chunk:
    """A block of rows ready for the compiled loop (columns already internal).

    ``indptr/indices/data`` hold the visible values of each row (CSR, sorted
    columns); segment ``k`` starts at row ``seg_rows[k]`` of the chunk, its
    visible columns are ``seg_cols[seg_indptr[k]:seg_indptr[k + 1]]`` and
    ``seg_dim[k]`` features have been seen once it starts.
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    y: np.ndarray
    seg_rows: np.ndarray
    seg_indptr: np.ndarray
    seg_cols: np.ndarray
    seg_dim: np.ndarray
    start: int


@dataclass
class Stream:
    """Rows whose set of visible features changes as the stream runs.

    Parameters
    ----------
    X
        ``(n, d)`` values: a dense array or a CSR matrix (stored zeros and
        unstored entries are both the value 0 where visible).
    y
        ``(n,)`` labels.
    feature_names
        ``d`` names.
    seg_rows
        ``(K,)`` first row of each segment (``seg_rows[0] == 0``, increasing).
    seg_masks
        ``(K, d)`` boolean: the features visible in each segment.
    task
        ``"binary"``, ``"multiclass"`` or ``"regression"``.
    info
        What the scenario that built the stream wants reported (e.g.
        ``eval_from``: the first row the paper scores).

    Examples
    --------
    >>> s = Stream.from_dense(np.array([[1.0, np.nan], [0.0, 2.0]]), np.array([1, -1]))
    >>> s.n_rows, s.n_features, s.seg_rows.tolist()
    (2, 2, [0, 1])
    >>> [x for x, _ in s.to_dicts()]
    [{'x0': 1.0}, {'x0': 0.0, 'x1': 2.0}]
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    feature_names: list[Hashable]
    seg_rows: np.ndarray
    seg_masks: np.ndarray
    task: str = "binary"
    name: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    _nan_absent: bool = False
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if sp.issparse(self.X):  # duplicates summed, rows sorted, indices checked (or refused)
            self.X = canonical_csr(self.X, "the stream's sparse matrix")
        n, d = self.X.shape
        if n == 0:
            raise InputError(
                "the stream is empty",
                expected="at least one row",
                received="0 rows",
                fix="check the data file and the row selection",
            )
        self.y = np.asarray(self.y)
        if self.y.shape != (n,):
            raise InputError(
                "labels do not match the rows",
                expected=f"{n} labels",
                received=f"shape {self.y.shape}",
                fix="pass one label per row",
            )
        if len(self.feature_names) != d:
            raise InputError(
                "feature names do not match the columns",
                expected=f"{d} names",
                received=f"{len(self.feature_names)}",
                fix="pass one name per column",
            )
        if len(set(self.feature_names)) != d:
            raise InputError(
                "duplicate feature names",
                expected="unique names",
                received="a repeated name",
                fix="rename the duplicated columns",
            )
        self.seg_rows = np.asarray(self.seg_rows, dtype=np.int64)
        self.seg_masks = np.asarray(self.seg_masks, dtype=bool).reshape(-1, d)
        if self.seg_rows.size == 0 or self.seg_rows[0] != 0 or np.any(np.diff(self.seg_rows) <= 0):
            raise InputError(
                "bad segments",
                expected="increasing first rows starting at 0",
                received=str(self.seg_rows[:5]),
                fix="build streams with a scenario function",
            )
        if self.seg_masks.shape[0] != self.seg_rows.size:
            raise InputError(
                "bad segments",
                expected="one mask per segment",
                received=f"{self.seg_masks.shape[0]} masks for {self.seg_rows.size} segments",
                fix="build streams with a scenario function",
            )
        values = self.X.data if sp.issparse(self.X) else self.X
        if not self._nan_absent and not np.all(np.isfinite(values)):
            raise InputError(
                "the data hold NaN or infinite values",
                expected="finite values",
                received="NaN/inf",
                fix="impute or drop them, or use Stream.from_dense to read NaN as absent",
            )
        self.seg_rows, self.seg_masks = _compress(self.seg_rows, self.seg_masks)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def full(
        cls, X: Any, y: Any, feature_names: Sequence[Hashable] | None = None, **kw: Any
    ) -> Stream:
        """Every feature visible in every row."""
        d = X.shape[1]
        names: list[Hashable] = (
            list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
        )
        return cls(X, y, names, np.array([0]), np.ones((1, d), dtype=bool), **kw)

    @classmethod
    def from_dense(
        cls, X: np.ndarray, y: Any, feature_names: Sequence[Hashable] | None = None, **kw: Any
    ) -> Stream:
        """A dense array in which NaN marks an absent feature."""
        X = np.asarray(X, dtype=np.float64)
        n, d = X.shape
        if np.any(np.isinf(X)):
            raise InputError(
                "the data hold infinite values",
                expected="finite values or NaN for absent",
                received="inf",
                fix="clip or drop them",
            )
        masks = ~np.isnan(X)
        names: list[Hashable] = (
            list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
        )
        rows, masks = _compress(np.arange(n), masks)
        return cls(X, y, names, rows, masks, _nan_absent=True, **kw)

    @classmethod
    def from_dicts(cls, rows: Iterable[tuple[Mapping[Hashable, float], Any]], **kw: Any) -> Stream:
        """A stream from ``(dict, label)`` pairs; a missing key is an absent feature."""
        fi = FeatureIndex()
        xs, ys = [], []
        for x, y in rows:
            fi.add(x.keys())
            xs.append(x)
            ys.append(y)
        X = np.full((len(xs), len(fi)), np.nan)
        for i, x in enumerate(xs):
            for k, v in x.items():
                X[i, fi[k]] = v
        return cls.from_dense(X, np.asarray(ys), fi.names, **kw)

    # ---------------------------------------------------------------- views
    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def segment_of_rows(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The segment number of each row in ``[start, stop)``."""
        stop = self.n_rows if stop is None else stop
        return np.searchsorted(self.seg_rows, np.arange(start, stop), side="right") - 1

    def visible_mask(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """``(rows, d)`` boolean mask of the visible entries of rows ``[start, stop)``."""
        stop = self.n_rows if stop is None else stop
        mask = self.seg_masks[self.segment_of_rows(start, stop)]
        if self._nan_absent:
            mask &= ~np.isnan(np.asarray(self.X[start:stop]))
        return mask

    def to_dense(self) -> np.ndarray:
        """Dense values with NaN for absent entries (for references and small data)."""
        src: Any = self.X
        X = src.toarray() if sp.issparse(src) else np.array(src, dtype=np.float64)
        X[~self.visible_mask()] = np.nan
        return X

    def to_dicts(self) -> Iterator[tuple[dict[Hashable, float], Any]]:
        """Yield ``(x, y)`` with ``x`` a dict of the visible features (zeros included)."""
        names = self.feature_names
        for start in range(0, self.n_rows, 4096):
            stop = min(self.n_rows, start + 4096)
            block: Any = self.X[start:stop]
            block = block.toarray() if sp.issparse(block) else np.asarray(block)
            mask = self.visible_mask(start, stop)
            for i in range(stop - start):
                cols = np.flatnonzero(mask[i])
                yield {names[j]: float(block[i, j]) for j in cols}, self.y[start + i].item()

    def take(self, order: np.ndarray) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
        """Values and labels with the rows in ``order`` (visibility is a schedule over positions)."""
        return self.X[order], self.y[order]

    # ---------------------------------------------------------------- compiled-loop input
    def _entry_masks(self) -> np.ndarray:
        """``(K, d)``: the features visible in each segment as the compiled loop is told them.

        A segment's visible set; for :meth:`from_dense` input, that of its
        first row (a segment of a NaN-marked array is a run of rows with the
        same NaN pattern). What is derived from them (this C-ordered copy,
        the order of first visibility, the loop's arrays) is kept in
        ``_cache`` while the segments, these masks and the feature names stay
        as they are: each call compares them with the kept copies (O(K x d)
        bytes, no more than the loop reads) and starts the cache afresh when
        any changed, so a stream changed in place is never run on stale arrays.
        """
        masks = self.seg_masks
        if self._nan_absent:
            masks = masks & ~np.isnan(np.asarray(self.X[self.seg_rows]))
        names = self.feature_names
        kept = self._cache.get("masks")
        if (
            kept is None
            or kept[0].shape != masks.shape
            or not _same(kept[1], self.seg_rows, np.int64)
            or not _same(kept[0], masks, bool)
            or kept[2] != (names if isinstance(names, list) else list(names))
        ):
            self._cache.clear()
            kept = (
                np.array(masks, dtype=bool, order="C"),
                np.array(self.seg_rows, dtype=np.int64),
                list(names),
            )
            self._cache["masks"] = kept
        return kept[0]

    def segment_masks(self, col_map: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The compiled loop's view of the segments: ``seg_rows``, ``(K, d)`` uint8 masks, ``by_internal``.

        ``by_internal`` lists the columns ever visible by increasing internal
        column (``col_map``), so a segment's visible internal columns, in
        increasing order, are read off its mask row in that order.

        >>> s = Stream.from_dense(np.array([[np.nan, 1.0], [0.0, 2.0]]), np.array([1, -1]))
        >>> from evofeat.base.feature_index import FeatureIndex
        >>> rows, masks, by = s.segment_masks(s.internal_columns(FeatureIndex())[0])
        >>> rows.tolist(), masks.tolist(), by.tolist()
        ([0, 1], [[0, 1], [1, 1]], [1, 0])
        """
        masks = self._entry_masks()
        rows = self._cache["masks"][1]
        return rows, masks.view(np.uint8), self._by_internal(col_map)

    def _first_order(self) -> tuple[np.ndarray, np.ndarray, list[Hashable]]:
        """The columns in order of first visibility, where each segment's newcomers start, and their names.

        Columns first visible in the same segment are in :func:`name_order`
        of their names (as :meth:`FeatureIndex.add` numbers them); computed
        once per stream (while its segments stay as they are).
        """
        masks = self._entry_masks()  # first: it empties the cache if the segments changed
        cached = self._cache.get("order")
        if cached is None:
            seen = masks.any(axis=0)
            first_seg = np.where(seen, np.argmax(masks, axis=0), masks.shape[0])
            by_seg = np.argsort(first_seg, kind="stable")
            bounds = np.searchsorted(first_seg[by_seg], np.arange(masks.shape[0] + 1))
            names = self.feature_names
            parts = []
            ordered: list[Hashable] = []
            for k in np.flatnonzero(
                bounds[1:] > bounds[:-1]
            ).tolist():  # the segments that bring features
                cols = by_seg[bounds[k] : bounds[k + 1]]
                if cols.size > 1:
                    pos = {names[c]: c for c in cols.tolist()}
                    group = sort_names(pos)
                    cols = np.fromiter(map(pos.__getitem__, group), dtype=np.int64, count=cols.size)
                    ordered.extend(group)
                else:
                    ordered.append(names[int(cols[0])])
                parts.append(cols)
            order = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
            cached = (order, bounds.astype(np.int64), ordered)
            self._cache["order"] = cached
        return cached

    def internal_columns(self, fi: FeatureIndex) -> tuple[np.ndarray, np.ndarray]:
        """Register the features in ``fi`` in order of first visibility.

        Returns ``col_map`` (stream column -> internal column, -1 if never
        visible) and ``seg_dim`` (features seen once each segment starts).
        """
        order, bounds, ordered = self._first_order()
        if len(fi) == 0:  # a fresh learner: every feature is new, in first-visibility order
            fi.extend_new(ordered)
            fresh = self._cache.get("fresh")
            if fresh is None:
                fresh = np.full(self.n_features, -1, dtype=np.int64), bounds[1:].copy()
                fresh[0][order] = np.arange(order.size)
                self._cache["fresh"] = fresh
            return fresh[0].copy(), fresh[1].copy()
        col_map = np.full(self.n_features, -1, dtype=np.int64)
        seg_dim = np.empty(bounds.size - 1, dtype=np.int64)
        for k in range(seg_dim.size):
            fi.add(ordered[bounds[k] : bounds[k + 1]])
            seg_dim[k] = len(fi)
        col_map[order] = np.fromiter(map(fi.__getitem__, ordered), dtype=np.int64, count=order.size)
        return col_map, seg_dim

    def _by_internal(self, col_map: np.ndarray) -> np.ndarray:
        """The visible stream columns sorted by their internal column (int64; kept per column map).

        Its callers check the segments first (:meth:`_entry_masks`), which empties the cache when
        they changed.
        """
        key = ("by-internal", col_map.tobytes())
        by = self._cache.get(key)
        if by is None:
            order = self._first_order()[0]
            if np.array_equal(col_map[order], np.arange(order.size)):  # numbered by this stream
                by = order
            else:
                by = np.argsort(col_map, kind="stable")
                by = by[np.count_nonzero(col_map < 0) :]
            by = np.ascontiguousarray(by, dtype=np.int64)
            self._cache = {k: v for k, v in self._cache.items() if k[0] != "by-internal"}
            self._cache[key] = by
        return by

    def segment_block(
        self, col_map: np.ndarray, seg_dim: np.ndarray, start: int, stop: int
    ) -> dict[str, Any]:
        """The segments that rows ``start:stop`` see, as arrays for the compiled loop.

        ``first`` (the index of the first of them), ``rows`` (first row of each, the first holding ``start``), ``indptr``
        into ``icols`` (their visible internal columns, increasing) and
        ``scols`` (the stream columns those come from), ``dim`` (features seen
        once each starts) and ``full`` (every column visible). O(segments x d)
        booleans at most, the size of the stream's own masks for these rows.

        >>> s = Stream.from_dense(np.array([[1.0, np.nan], [0.0, 2.0]]), np.array([1, -1]))
        >>> from evofeat.base.feature_index import FeatureIndex
        >>> b = s.segment_block(*s.internal_columns(FeatureIndex()), 0, 2)
        >>> b["rows"].tolist(), b["icols"].tolist(), b["full"].tolist()
        ([0, 1], [0, 0, 1], [0, 1])
        """
        masks = self._entry_masks()
        by_internal = self._by_internal(col_map)
        lo = int(np.searchsorted(self.seg_rows, start, side="right")) - 1
        hi = int(np.searchsorted(self.seg_rows, stop, side="left"))
        sel = masks[lo:hi][:, by_internal]
        indptr = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(sel.sum(axis=1), out=indptr[1:])
        _, cc = np.nonzero(sel)
        return {
            "first": np.int64(lo),
            "rows": np.ascontiguousarray(self.seg_rows[lo:hi], dtype=np.int64),
            "indptr": indptr,
            "icols": np.ascontiguousarray(col_map[by_internal][cc], dtype=np.int64),
            "scols": np.ascontiguousarray(by_internal[cc], dtype=np.int64),
            "dim": np.ascontiguousarray(seg_dim[lo:hi], dtype=np.int64),
            "full": np.ascontiguousarray(masks[lo:hi].all(axis=1), dtype=np.uint8),
        }

    def row_arrays(self, col_map: np.ndarray | None = None) -> dict[str, Any]:
        """The rows as the compiled loop reads them in place: dense ``X`` or CSR, float ``y``.

        ``X`` is C-ordered float64 (no copy when it already is), or the CSR
        arrays with int64 indices; ``longest`` is the most entries a row can
        show. For a CSR stream whose rows, mapped through ``col_map``, would
        not be in increasing internal column, the arrays are those of a copy
        in internal columns with each row sorted (``internal``: True), made
        once per column map and kept: the loop then sorts no row.

        ``y`` and a dense ``X`` are read afresh on each call (no copy when
        they are float64 already), so they follow changes made in place. The
        CSR arrays made for the loop (int64 indices, the sorted copy) are kept
        while ``X`` is the same matrix holding the same arrays: a CSR matrix
        whose arrays are changed in place after a run (rather than replaced)
        needs a new ``Stream``.
        """
        y = np.ascontiguousarray(self.y, dtype=np.float64)
        if not sp.issparse(self.X):
            return {
                "X": np.ascontiguousarray(self.X, dtype=np.float64),
                "indptr": _NO_INDEX,
                "indices": _NO_INDEX,
                "data": _NO_VALUE,
                "longest": self.n_features,
                "internal": False,
                "y": y,
            }
        src = self.X
        parts = tuple(getattr(src, k, None) for k in ("indptr", "indices", "data"))
        cached = self._cache.get("rows")
        if (
            cached is None
            or cached["src"][0] is not src
            or any(p is not q for p, q in zip(cached["src"][1], parts, strict=True))
        ):
            self._cache = {k: v for k, v in self._cache.items() if k[0] != "rows-internal"}
            A = canonical_csr(src, "the stream's sparse matrix")  # X may have been replaced
            indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
            cached = {
                "src": (src, parts),
                "X": np.zeros((0, 0)),
                "indptr": indptr,
                "indices": np.ascontiguousarray(A.indices, dtype=np.int64),
                "data": np.ascontiguousarray(A.data, dtype=np.float64),
                "longest": int(np.diff(indptr).max(initial=0)),
                "sorted": bool(A.has_sorted_indices),
                "internal": False,
            }
            self._cache["rows"] = cached
        if col_map is None:
            return {**cached, "y": y}
        seen = col_map[col_map >= 0]
        if cached["sorted"] and bool(np.all(seen[1:] > seen[:-1])):
            return {**cached, "y": y}  # rows in stream order are in internal order
        key = ("rows-internal", col_map.tobytes())
        remapped = self._cache.get(key)
        if remapped is None:
            cols = col_map[cached["indices"]]
            keep = cols >= 0
            kept_before = np.zeros(keep.size + 1, dtype=np.int64)  # entries kept before each one
            np.cumsum(keep, out=kept_before[1:])
            indptr = kept_before[cached["indptr"]]  # empty rows too (reduceat misreads them)
            A = sp.csr_matrix(
                (cached["data"][keep], cols[keep], indptr),
                shape=(self.n_rows, int(seen.max(initial=-1)) + 1),
            )
            A.sort_indices()
            remapped = {
                **cached,
                "indptr": np.ascontiguousarray(A.indptr, dtype=np.int64),
                "indices": np.ascontiguousarray(A.indices, dtype=np.int64),
                "data": np.ascontiguousarray(A.data, dtype=np.float64),
                "internal": True,
            }
            self._cache = {k: v for k, v in self._cache.items() if k[0] != "rows-internal"}
            self._cache[key] = remapped
        return {**remapped, "y": y}

    def chunks(
        self, col_map: np.ndarray, seg_dim: np.ndarray, size: int = 65536
    ) -> Iterator[Chunk]:
        """Yield the stream as :class:`Chunk` blocks of at most ``size`` rows.

        The work is O(stored values) a chunk (and O(d) once per segment, for
        its visible set): no ``(rows, d)`` mask is built for sparse input.
        """
        n = self.n_rows
        y = self.y.astype(np.float64)
        masks = self._entry_masks()
        full_seg: np.ndarray = np.asarray(masks.all(axis=1))
        sparse = sp.issparse(self.X)
        X: Any = self.X
        by_internal = self._by_internal(col_map)
        sorted_map = col_map[by_internal]  # increasing
        mono = True
        if sparse:
            X = canonical_csr(X, "the stream's sparse matrix")  # X may have been replaced
            vis = np.flatnonzero(col_map >= 0)
            mono = bool(np.all(col_map[vis[1:]] > col_map[vis[:-1]])) and bool(X.has_sorted_indices)
        for start in range(0, n, size):
            stop = min(n, start + size)
            m = stop - start
            lo = (
                int(np.searchsorted(self.seg_rows, start, side="right")) - 1
            )  # segment of the first row
            hi = int(
                np.searchsorted(self.seg_rows, stop, side="left")
            )  # segments starting before stop
            one_full = hi - lo == 1 and bool(full_seg[lo])
            if sparse:
                a, b = int(X.indptr[start]), int(X.indptr[stop])
                counts = np.diff(X.indptr[start : stop + 1])
                cols = X.indices[a:b]
                data = X.data[a:b]
                if not one_full:
                    seg_of = np.repeat(
                        np.searchsorted(self.seg_rows, np.arange(start, stop), side="right") - 1,
                        counts,
                    )
                    keep = masks[seg_of, cols]
                    rows = np.repeat(np.arange(m), counts)[keep]
                    counts = np.bincount(rows, minlength=m)
                    cols = cols[keep]
                    data = data[keep]
                indptr = np.zeros(m + 1, dtype=np.int64)
                np.cumsum(counts, out=indptr[1:])
                indices = col_map[cols]
                data = np.asarray(data, dtype=np.float64)
                if not mono:  # sort each row by internal column (on copies: the stream's arrays stay as they are)
                    data = np.array(data, dtype=np.float64)
                    csr = sp.csr_matrix(
                        (data, indices, indptr), shape=(m, max(1, int(seg_dim[-1])))
                    )
                    csr.has_sorted_indices = False
                    csr.sort_indices()
                    indices, data = csr.indices, csr.data
            else:
                block = np.asarray(X[start:stop], dtype=np.float64)[
                    :, by_internal
                ]  # columns in internal order
                if one_full and not self._nan_absent:  # every value of every row
                    d = block.shape[1]
                    indptr = np.arange(0, (m + 1) * d, d, dtype=np.int64)
                    indices = np.tile(sorted_map, m)
                    data = block.ravel()
                else:
                    seg_of = (
                        np.searchsorted(self.seg_rows, np.arange(start, stop), side="right") - 1
                    )
                    present = masks[seg_of][:, by_internal]
                    if self._nan_absent:
                        present &= ~np.isnan(block)
                    indptr = np.zeros(m + 1, dtype=np.int64)
                    np.cumsum(present.sum(axis=1), out=indptr[1:])
                    rr, cc = np.nonzero(present)
                    indices = sorted_map[cc]
                    data = block[rr, cc]
            segs = np.arange(int(np.searchsorted(self.seg_rows, start, side="left")), hi)
            seg_cols_list = [sorted_map[masks[k][by_internal]] for k in segs]
            seg_indptr = np.zeros(segs.size + 1, dtype=np.int64)
            np.cumsum([c.size for c in seg_cols_list], out=seg_indptr[1:])
            seg_cols = (
                np.concatenate(seg_cols_list).astype(np.int64)
                if seg_cols_list
                else np.zeros(0, np.int64)
            )
            yield Chunk(
                indptr=indptr,
                indices=np.ascontiguousarray(indices, dtype=np.int64),
                data=np.ascontiguousarray(data, dtype=np.float64),
                y=y[start:stop],
                seg_rows=(self.seg_rows[segs] - start).astype(np.int64),
                seg_indptr=seg_indptr,
                seg_cols=seg_cols,
                seg_dim=seg_dim[segs].astype(np.int64),
                start=start,
            )
