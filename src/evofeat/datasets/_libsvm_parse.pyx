# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""LIBSVM text parsed in one pass in C into CSR arrays (see :func:`evofeat.datasets.readers.read_libsvm`).

The parser accepts exactly the lines that scikit-learn's
:func:`~sklearn.datasets.load_svmlight_file` reads the same way (a label,
then ``index:value`` tokens with increasing integer indices; ``#`` starts a
comment; a ``qid:...`` token right after the label is skipped) and gives the
same numbers: a decimal number is converted exactly (Clinger's fast path: an
integer of at most 2**53 times or divided by an exact power of ten is
correctly rounded), otherwise by the C library's correctly rounded
``strtod``. Anything else (a malformed token, an index out of order or out
of range, a value that is not finite, ``nan``, ``1_000``, a multi-label
line) stops the parser at that line: it never guesses, and the caller hands
the text to the slow path, which parses it as scikit-learn does or explains
what is wrong with that line.
"""

from libc.math cimport isfinite
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport strtod
from libc.string cimport memchr

from evofeat._core.rows cimport sort_pairs

import numpy as np

cdef double[23] POW10 = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
#: mantissas up to 2**53 are exact doubles
cdef uint64_t EXACT = 1ULL << 53


#: character kinds: 0 part of a token, 1 a blank (ASCII whitespace but the newline, as
#: ``bytes.split()`` splits on), 2 the newline, 3 ``#`` (a comment runs to the end of the line)
cdef unsigned char KIND[256]
KIND[:] = [0] * 256
for _c in (32, 9, 11, 12, 13):  # space, tab, vertical tab, form feed, carriage return
    KIND[_c] = 1
KIND[10] = 2
KIND[35] = 3


cdef inline const unsigned char* next_line(const unsigned char* p, const unsigned char* e) noexcept nogil:
    """The start of the line after the one ``p`` is in (``e`` after the last line)."""
    cdef const void* newline = memchr(p, 10, e - p)
    return e if newline == NULL else <const unsigned char*> newline + 1


cdef inline const unsigned char* parse_number(
    const unsigned char* p, const unsigned char* e, double* out
) noexcept nogil:
    """Read a decimal number ``[+-]digits[.digits][(e|E)[+-]digits]`` that ends a token.

    Returns the end of the number, or NULL when the token is anything else
    (``nan``, ``inf``, ``1_0``, ``0x1p3``, ``1e``, ``.``, ``2:3``): the slow
    path decides what those are.
    """
    cdef const unsigned char* q = p
    cdef bint neg = False, eneg = False
    cdef uint64_t mant = 0
    cdef unsigned int d
    cdef int nd = 0, exp10 = 0, e10 = 0
    cdef const unsigned char* digits
    cdef char* stop
    cdef double v
    if q < e and (q[0] == 43 or q[0] == 45):  # '+' '-'
        neg = q[0] == 45
        q += 1
    digits = q
    while q < e:
        d = q[0] - 48
        if d > 9:
            break
        mant = mant * 10 + d
        nd += mant != 0  # significant digits (an overflowing mant is not used: nd > 19)
        q += 1
    if q < e and q[0] == 46:  # '.'
        q += 1
        while q < e:
            d = q[0] - 48
            if d > 9:
                break
            mant = mant * 10 + d
            nd += mant != 0
            exp10 -= 1
            q += 1
        if q - digits == 1:
            return NULL  # '.' alone
    elif q == digits:
        return NULL
    if q < e and (q[0] == 101 or q[0] == 69):  # 'e' 'E'
        q += 1
        if q < e and (q[0] == 43 or q[0] == 45):
            eneg = q[0] == 45
            q += 1
        if q >= e or <unsigned int> (q[0] - 48) > 9:
            return NULL
        while q < e:
            d = q[0] - 48
            if d > 9:
                break
            if e10 < 100000:
                e10 = e10 * 10 + d
            q += 1
        exp10 += -e10 if eneg else e10
    if q < e and KIND[q[0]] == 0:
        return NULL  # more of the token follows
    if mant == 0 and nd == 0:
        v = 0.0
    elif nd <= 19 and mant <= EXACT and -22 <= exp10 <= 22:
        v = mant * POW10[exp10] if exp10 >= 0 else mant / POW10[-exp10]
    else:
        # p..q is a decimal literal followed by a blank, a newline, '#' or the terminating NUL of
        # the bytes object: the correctly rounded strtod reads exactly it (the C locale's '.')
        v = strtod(<const char*> p, &stop)
        if <const unsigned char*> stop != q:
            return NULL
        out[0] = v
        return q
    out[0] = -v if neg else v
    return q


def parse_block(bytes data, bint zero_based, int64_t max_index, bint comments=True):
    """Parse whole lines of LIBSVM text; returns ``(y, indptr, indices, values, stop, lo, hi)``.

    ``indices`` are 0-based columns (the file's index minus 1 unless
    ``zero_based``), int64, increasing along each row; ``values`` and ``y``
    are float64. ``lo`` and ``hi`` are the smallest and largest index as
    written in the file (``-1`` when there is none). ``stop`` is 0 when every
    line was read, else the 1-based number (within ``data``) of the first
    line the parser does not take: there the arrays are empty and the text
    must go to the slow path. A line stops the parser when it is malformed,
    when an index is 0 in a 1-based file, out of order, repeated or above
    ``max_index``, when a number is not finite, and, with ``comments=False``,
    at a ``#`` comment or a ``qid`` token.

    >>> y, indptr, indices, values, stop, lo, hi = parse_block(b"1 1:2 3:.5e1\\n\\n-1 # c\\n", False, 9)
    >>> y.tolist(), indptr.tolist(), indices.tolist(), values.tolist(), stop, lo, hi
    ([1.0, -1.0], [0, 2, 2], [0, 2], [2.0, 5.0], 0, 1, 3)
    >>> parse_block(b"1 1:2\\n1 2:1 2:1\\n", False, 9)[4]
    2
    """
    cdef Py_ssize_t n = len(data)
    cdef const unsigned char* s = <const unsigned char*> data
    cdef const unsigned char* e = s + n
    cdef const unsigned char* p = s
    cdef const unsigned char* t
    chars = np.frombuffer(data, dtype=np.uint8)  # rows: at most the newlines + 1; entries: the colons
    cdef Py_ssize_t rows_cap = np.count_nonzero(chars == 10) + 1
    cdef Py_ssize_t nnz_cap = np.count_nonzero(chars == 58)
    del chars
    y_arr = np.empty(rows_cap, dtype=np.float64)
    indptr_arr = np.empty(rows_cap + 1, dtype=np.int64)
    indices_arr = np.empty(nnz_cap, dtype=np.int64)
    values_arr = np.empty(nnz_cap, dtype=np.float64)
    cdef double[::1] y = y_arr
    cdef int64_t[::1] indptr = indptr_arr
    cdef int64_t[::1] indices = indices_arr
    cdef double[::1] values = values_arr
    cdef Py_ssize_t rows = 0, nnz = 0, line = 0, stop = 0
    cdef int64_t idx, prev, lo = -1, hi = -1
    cdef int64_t shift = 0 if zero_based else 1
    cdef int64_t least = 0 if zero_based else 1
    cdef double v
    cdef bint first
    indptr[0] = 0
    with nogil:
        while p < e:
            line += 1
            while p < e and KIND[p[0]] == 1:
                p += 1
            if p >= e:
                break
            if KIND[p[0]] == 2:  # a blank line
                p += 1
                continue
            if KIND[p[0]] == 3:  # a comment line
                if not comments:
                    stop = line
                    break
                p = next_line(p, e)
                continue
            t = parse_number(p, e, &v)  # the label
            if t == NULL or not isfinite(v):
                stop = line
                break
            y[rows] = v
            p = t
            prev = -1
            first = True
            while True:
                while p < e and KIND[p[0]] == 1:
                    p += 1
                if p >= e or p[0] == 10:
                    p += 1
                    break
                if p[0] == 35:  # a comment to the end of the line
                    if not comments:
                        stop = line
                        break
                    p = next_line(p, e)
                    break
                if first and e - p >= 3 and p[0] == 113 and p[1] == 105 and p[2] == 100:
                    # 'qid...:...' right after the label is skipped, as scikit-learn does
                    first = False
                    t = p
                    while t < e and KIND[t[0]] == 0 and t[0] != 58:
                        t += 1
                    if not comments or t >= e or t[0] != 58:
                        stop = line
                        break
                    while t < e and KIND[t[0]] == 0:
                        t += 1
                    p = t
                    continue
                first = False
                if p[0] == 43:  # '+'
                    p += 1
                t = p
                idx = 0
                while p < e and p - t < 18 and <unsigned int> (p[0] - 48) <= 9:
                    idx = idx * 10 + (p[0] - 48)
                    p += 1
                # the index: 1 to 18 digits (no overflow), then ':'
                if p == t or p >= e or p[0] != 58:
                    stop = line
                    break
                if idx < least or idx <= prev or idx > max_index:
                    stop = line
                    break
                p += 1
                t = parse_number(p, e, &v)
                if t == NULL or not isfinite(v):
                    stop = line
                    break
                if lo < 0 or idx < lo:
                    lo = idx
                if idx > hi:
                    hi = idx
                indices[nnz] = idx - shift
                values[nnz] = v
                nnz += 1
                prev = idx
                p = t
            if stop:
                break
            rows += 1
            indptr[rows] = nnz
    if stop:
        rows = nnz = 0
        lo = hi = -1
    return (
        y_arr[:rows],
        indptr_arr[: rows + 1],
        indices_arr[:nnz],
        values_arr[:nnz],
        stop,
        lo,
        hi,
    )


def remap_rows(
    const int64_t[::1] indptr, int64_t[::1] indices, double[::1] values, const int64_t[::1] col_map
):
    """Replace each column ``j`` by ``col_map[j]`` and sort every row by its new columns, in place.

    ``col_map`` must be one-to-one on the columns used, so no row gets a
    column twice.

    >>> import numpy as np
    >>> indptr, indices, values = np.array([0, 3, 4]), np.array([0, 1, 2, 1]), np.array([1.0, 2.0, 3.0, 4.0])
    >>> remap_rows(indptr, indices, values, np.array([2, 0, 1]))
    >>> indices.tolist(), values.tolist()
    ([0, 1, 2, 0], [2.0, 3.0, 1.0, 4.0])
    """
    cdef Py_ssize_t rows = indptr.shape[0] - 1, r, k
    cdef int64_t width = col_map.shape[0]
    for k in range(indices.shape[0]):
        if not 0 <= indices[k] < width:
            raise IndexError(f"column {indices[k]} is outside col_map (of {width} columns)")
    if indices.shape[0] == 0:
        return
    with nogil:
        for k in range(indices.shape[0]):
            indices[k] = col_map[indices[k]]
        for r in range(rows):
            sort_pairs(&indices[indptr[r]], &values[indptr[r]], indptr[r + 1] - indptr[r])
