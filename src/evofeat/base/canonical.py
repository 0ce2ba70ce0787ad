"""The one gate between a user's sparse matrix and the compiled core: :func:`canonical_csr`.

The compiled loop reads a CSR row as its stored ``(column, value)`` pairs and
trusts them: columns in range, increasing, each stored once. SciPy's CSR
format promises none of this (duplicates are legal and summed in arithmetic;
indices may be unsorted; ``indices`` and ``indptr`` are plain arrays a caller
may have built by hand), so every sparse input goes through
:func:`canonical_csr` before the compiled code sees it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evofeat.base.errors import InputError

__all__ = ["canonical_csr"]

_FIX = "build the matrix with scipy.sparse.csr_matrix((data, (rows, cols)), shape=...)"


def _fail(what: str, problem: str, expected: str, received: str, fix: str = _FIX) -> InputError:
    return InputError(f"{what} {problem}", expected=expected, received=received, fix=fix)


def _check_compressed(A: Any, what: str) -> None:
    """Refuse a CSR/CSC matrix whose ``indptr`` / ``indices`` could send a reader out of bounds.

    O(rows) for ``indptr``, O(stored entries) for the column range (two
    vectorised passes): SciPy checks neither when it builds a matrix from
    ``(data, indices, indptr)``, and its own compiled routines trust them.
    """
    major, minor = (0, 1) if A.format == "csr" else (1, 0)
    indptr, indices, data = A.indptr, A.indices, A.data
    axis = "column" if A.format == "csr" else "row"
    for name, arr in (("indptr", indptr), ("indices", indices)):
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise _fail(
                what,
                f"has a bad {name} array",
                "a 1-D integer array",
                f"a {arr.ndim}-D array of dtype {arr.dtype}",
            )
    n_major = A.shape[major]
    if indptr.size != n_major + 1 or (n_major >= 0 and indptr.size and indptr[0] != 0):
        raise _fail(
            what,
            "has a bad indptr array",
            f"{n_major + 1} offsets starting at 0",
            f"{indptr.size} offsets starting at {indptr[0] if indptr.size else 'nothing'}",
        )
    nnz = int(indptr[-1])
    if nnz > indices.size or nnz > data.size:
        raise _fail(
            what,
            "has a bad indptr array",
            f"offsets within the {min(indices.size, data.size)} stored entries",
            f"a last offset of {nnz}",
        )
    if n_major > 0 and bool(np.any(indptr[1:] < indptr[:-1])):
        raise _fail(what, "has a bad indptr array", "non-decreasing offsets", "a decreasing one")
    if nnz:
        stored = indices[:nnz]
        low, high = int(stored.min()), int(stored.max())
        if low < 0 or high >= A.shape[minor]:
            raise _fail(
                what,
                f"has a {axis} index out of range",
                f"{axis} indices from 0 to {A.shape[minor] - 1} (the shape is {A.shape})",
                f"{axis} index {low if low < 0 else high}",
                fix="give the matrix the shape its indices need, or drop those entries",
            )


def _check_coo(A: Any, what: str) -> None:
    """Refuse a COO matrix with an index out of range (SciPy checks it when built, not after)."""
    coords = getattr(A, "coords", None) or (A.row, A.col)
    for axis, idx in enumerate(coords):
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= A.shape[axis]):
            raise _fail(
                what,
                f"has a {('row', 'column')[axis]} index out of range",
                f"indices from 0 to {A.shape[axis] - 1} (the shape is {A.shape})",
                f"{int(idx.min()) if int(idx.min()) < 0 else int(idx.max())}",
                fix="give the matrix the shape its indices need, or drop those entries",
            )


def canonical_csr(X: Any, what: str = "a sparse matrix") -> Any:
    """``X`` (any SciPy sparse matrix or array) as a canonical float64 ``scipy.sparse.csr_matrix``.

    Canonical is SciPy's ``has_canonical_format``: in each row the column
    indices increase and none is stored twice. Duplicates are summed by
    SciPy's own :meth:`~scipy.sparse.csr_matrix.sum_duplicates` (so the
    values are those SciPy's arithmetic gives), on a copy: the caller's
    arrays are never changed. Explicit zeros stay stored (a zero is a
    value); indices stay int32 or int64. A matrix that is already canonical,
    CSR and float64 is returned as it is, after O(1) checks where SciPy
    already knows it is canonical (its cached flag) and one vectorised pass
    over ``indptr`` and the stored column indices (the bounds, which SciPy
    does not track). A matrix whose index arrays are not a valid CSR (an
    index out of range, decreasing offsets) or whose values are not real
    numbers raises :class:`~evofeat.base.errors.InputError`.

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), np.array([1, 0, 1]), np.array([0, 3])),
    ...                   shape=(1, 2))
    >>> C = canonical_csr(X)
    >>> C.indices.tolist(), C.data.tolist(), X.indices.tolist()
    ([0, 1], [2.0, 5.0], [1, 0, 1])
    >>> canonical_csr(C) is C
    True
    >>> canonical_csr(sp.csr_matrix((np.ones(1), np.array([7]), np.array([0, 1])), shape=(1, 2)))
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: a sparse matrix has a column index out of range: expected column indices from 0 to 1 (the shape is (1, 2)), received column index 7; fix: give the matrix the shape its indices need, or drop those entries
    """
    import scipy.sparse as sp

    if len(X.shape) != 2:
        raise _fail(
            what, "must be 2-D", "a matrix of rows", f"shape {X.shape}", "reshape it to (rows, 1)"
        )
    if X.dtype.kind not in "biuf":
        raise _fail(
            what,
            "must hold real numbers",
            "a float, integer or bool dtype",
            f"dtype {X.dtype}",
            "convert it with X.astype(float) (take the real part first if complex)",
        )
    if X.format in ("csr", "csc"):
        _check_compressed(X, what)
    elif X.format == "coo":
        _check_coo(X, what)
    A = X if X.format == "csr" else X.tocsr()  # SciPy's conversions sum duplicates themselves
    if A is not X:
        _check_compressed(A, what)
    copied = A is not X
    nnz = int(A.indptr[-1])
    odd = A.indices.dtype != A.indptr.dtype or A.indices.dtype not in (np.int32, np.int64)
    if odd or nnz != A.indices.size or nnz != A.data.size:  # odd index dtypes or spare room
        A = sp.csr_matrix(
            (
                A.data[:nnz],
                A.indices[:nnz].astype(np.int64, copy=False),
                A.indptr.astype(np.int64, copy=False),
            ),
            shape=A.shape,
        )  # SciPy's own routines below take int32 or int64 indices only
    if not A.has_canonical_format:  # SciPy's cached flag, else its O(nnz) compiled check
        if not copied:
            A = A.copy()
        A.sum_duplicates()
    if type(A) is not sp.csr_matrix or A.dtype != np.float64:
        B = sp.csr_matrix((A.data.astype(np.float64), A.indices, A.indptr), shape=A.shape)
        B.has_canonical_format = True  # A's indices, which are canonical
        A = B
    return A
