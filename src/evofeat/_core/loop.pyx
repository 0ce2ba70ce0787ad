# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The one prequential loop and the dict path, over any :class:`evofeat._core.core.Core`.

:func:`run_chunk` predicts, announces visibility, learns and records, row by
row, for a block of CSR rows. :func:`learn_dict` and :func:`predict_dict`
walk a River-style ``{name: value}`` row in C through the feature index's
name -> column dict, with the same math as the array path.
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBuffer_Release, PyObject_GetBuffer
from cpython.dict cimport PyDict_GetItem, PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.long cimport PyLong_AsSsize_t
from cpython.object cimport PyObject
from libc.math cimport isfinite
from libc.stdint cimport INT64_MAX, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp

from evofeat._core.core cimport Core
from evofeat._core.rows cimport Entry, sort_entries as _sort_entries, sort_pairs as _sort_pairs


#: codes returned by the dict path
OK = 0
NOT_FINITE = 1
UNSEEN = 2
NOT_NUMERIC = 3
#: what learn_one returns for a learned row (WATCH: the divergence check is due)
LEARNED = True
WATCH = 2


cdef struct Record:
    # what the loops record: every prediction (when keep), the running mistakes and loss of the
    # scored rows (from first_scored on), and the curve's totals at its ticks (tick_at: 1-based
    # row positions, increasing; the next to fill is t)
    bint keep
    bint count_mistakes
    double* out_label
    double* out_score
    const int64_t* tick_at
    Py_ssize_t n_tick
    Py_ssize_t t
    Py_ssize_t first_scored
    double* curve_m
    double* curve_l
    double base_m
    double base_l
    int64_t wrong
    double loss_sum


cdef Record _record(Py_ssize_t first_scored, bint count_mistakes, const int64_t[::1] tick_at,
                    int64_t[::1] tick_pos, double[::1] curve_m, double[::1] curve_l,
                    double base_m, double base_l, double[::1] out_label, double[::1] out_score):
    cdef Record rec
    rec.keep = out_label.shape[0] > 0
    rec.count_mistakes = count_mistakes
    rec.out_label = &out_label[0] if rec.keep else NULL
    rec.out_score = &out_score[0] if rec.keep else NULL
    rec.n_tick = tick_at.shape[0]
    rec.tick_at = &tick_at[0] if rec.n_tick > 0 else NULL
    rec.t = tick_pos[0]
    rec.first_scored = first_scored
    rec.curve_m = &curve_m[0] if curve_m.shape[0] > 0 else NULL
    rec.curve_l = &curve_l[0] if curve_l.shape[0] > 0 else NULL
    rec.base_m = base_m
    rec.base_l = base_l
    rec.wrong = 0
    rec.loss_sum = 0.0
    return rec


cdef inline int _step(Core core, Record* rec, Py_ssize_t r, const int64_t* idx,
                      const double* val, Py_ssize_t m, double y, const int64_t* vcols,
                      Py_ssize_t nv, Py_ssize_t vdim) except -1:
    """Row ``r`` (its position in the block): predict, record, announce ``vcols`` if given, learn."""
    cdef double label = 0.0
    cdef double score = core.predict(idx, val, m, &label)
    if rec.keep:
        rec.out_label[r] = label
        rec.out_score[r] = score
    if nv >= 0:
        core.visible(vcols, nv, vdim)
    cdef double loss = core.learn(idx, val, m, y, score)
    if r >= rec.first_scored:
        if rec.count_mistakes and label != y:
            rec.wrong += 1
        rec.loss_sum += loss
    if rec.t < rec.n_tick and rec.tick_at[rec.t] == r + 1:
        rec.curve_m[rec.t] = rec.base_m + rec.wrong
        rec.curve_l[rec.t] = rec.base_l + rec.loss_sum
        rec.t += 1
    return 0


cdef int _bad_row(Py_ssize_t row, const int64_t* idx, Py_ssize_t m, int64_t width) except -1:
    """Raise ``ValueError`` unless the row's columns ``idx[:m]`` increase within ``[0, width)``.

    The boundary (:func:`evofeat.base.canonical.canonical_csr`) makes rows so; this is what
    keeps the compiled core's memory safe when arrays reach the loop another way (changed in
    place after a check, or built by hand): a column out of range or stored twice would read or
    write past a learner's arrays.
    """
    cdef Py_ssize_t k
    cdef int64_t prev = -1
    for k in range(m):
        if idx[k] <= prev or idx[k] >= width:
            raise ValueError(
                f"row {row} has column {idx[k]} "
                + ("after column %d" % prev if idx[k] <= prev else f"past the last ({width - 1})")
                + ": the compiled loop takes rows with increasing columns in range (a SciPy "
                "matrix reaches it through evofeat.base.canonical.canonical_csr; a Stream whose "
                "arrays were changed in place needs to be built again)"
            )
        prev = idx[k]
    return 0


cdef int _bad_offsets(Py_ssize_t row, int64_t a, int64_t b, Py_ssize_t nnz) except -1:
    """Raise ``ValueError`` unless ``0 <= a <= b <= nnz`` (a CSR row's offsets)."""
    if a < 0 or b < a or b > nnz:
        raise ValueError(
            f"row {row} spans entries {a} to {b} of {nnz}: a CSR indptr must be non-decreasing "
            "offsets within the stored entries"
        )
    return 0


def run_chunk(
    Core core,
    const int64_t[::1] indptr,
    const int64_t[::1] indices,
    const double[::1] data,
    const double[::1] y,
    const int64_t[::1] seg_rows,
    const int64_t[::1] seg_indptr,
    const int64_t[::1] seg_cols,
    const int64_t[::1] seg_dim,
    Py_ssize_t first_scored,
    bint count_mistakes,
    const int64_t[::1] tick_at,
    int64_t[::1] tick_pos,
    double[::1] curve_m,
    double[::1] curve_l,
    double base_m,
    double base_l,
    double[::1] out_label,
    double[::1] out_score,
    int64_t width=-1,
):
    """Predict, announce visibility, learn, row by row; record the running totals at the curve's ticks.

    ``tick_at`` are the curve's rows as chunk positions (1-based, increasing;
    from ``tick_pos[0]`` on); ``curve_m`` / ``curve_l`` receive ``base_m`` /
    ``base_l`` plus the chunk's running mistakes / loss of the scored rows
    (those from ``first_scored`` on). Returns the chunk's mistakes and loss.
    ``out_label`` / ``out_score`` get every prediction when they are not empty. Each row's
    columns must increase and, when ``width >= 0``, stay below ``width`` (the learner's
    capacity); a row that breaks this raises ``ValueError`` before the learner sees it.
    """
    cdef Record rec = _record(first_scored, count_mistakes, tick_at, tick_pos, curve_m, curve_l,
                              base_m, base_l, out_label, out_score)
    cdef Py_ssize_t n_seg = seg_rows.shape[0], k = 0, i, a, b, nv
    cdef Py_ssize_t nnz = min(indices.shape[0], data.shape[0])
    cdef int64_t bound = width if width >= 0 else INT64_MAX
    if indptr.shape[0] < y.shape[0] + 1:
        raise ValueError(f"{y.shape[0]} rows need {y.shape[0] + 1} offsets, not {indptr.shape[0]}")
    cdef const int64_t* ip = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const double* dp = &data[0] if data.shape[0] > 0 else NULL
    cdef const int64_t* sp = &seg_cols[0] if seg_cols.shape[0] > 0 else NULL
    for i in range(y.shape[0]):
        a = indptr[i]
        b = indptr[i + 1]
        _bad_offsets(i, a, b, nnz)
        _bad_row(i, ip + a, b - a, bound)
        nv = -1
        if k < n_seg and seg_rows[k] == i:
            nv = seg_indptr[k + 1] - seg_indptr[k]
            _step(core, &rec, i, ip + a, dp + a, b - a, y[i], sp + seg_indptr[k] if sp else NULL,
                  nv, seg_dim[k])
            k += 1
        else:
            _step(core, &rec, i, ip + a, dp + a, b - a, y[i], NULL, -1, 0)
    tick_pos[0] = rec.t
    return rec.wrong, rec.loss_sum


cdef struct Scratch:
    # run_rows' scratch: one row's entries (idx, val: room for the longest row), a segment's
    # visible internal and stream columns (icols, scols: room for every column ever visible) and,
    # for CSR rows, the segment that last stamped each column (stamp: -1 at first)
    int64_t* idx
    double* val
    int64_t* icols
    int64_t* scols
    int64_t* stamp


cdef int _scratch_alloc(Scratch* buf, bint dense, const int64_t[::1] indptr,
                        const int64_t[::1] col_map, Py_ssize_t d, Py_ssize_t nb, Py_ssize_t start,
                        Py_ssize_t stop) except -1:
    cdef Py_ssize_t i, width = d, longest = nb, n_stamp = 0
    if not dense:
        longest = 0
        for i in range(start, stop):
            longest = max(longest, indptr[i + 1] - indptr[i])
        for i in range(col_map.shape[0]):
            width = max(width, col_map[i] + 1)
        n_stamp = width
    buf.idx = <int64_t*> malloc(max(1, longest) * sizeof(int64_t))
    buf.val = <double*> malloc(max(1, longest) * sizeof(double))
    buf.icols = <int64_t*> malloc(max(1, nb) * sizeof(int64_t))
    buf.scols = <int64_t*> malloc(max(1, nb) * sizeof(int64_t))
    buf.stamp = <int64_t*> malloc(max(1, n_stamp) * sizeof(int64_t))
    if (buf.idx is NULL or buf.val is NULL or buf.icols is NULL or buf.scols is NULL
            or buf.stamp is NULL):
        _scratch_free(buf)
        raise MemoryError("no memory for the compiled loop's scratch space")
    for i in range(n_stamp):
        buf.stamp[i] = -1
    return 0


cdef void _scratch_free(Scratch* buf) noexcept:
    free(buf.idx)
    free(buf.val)
    free(buf.icols)
    free(buf.scols)
    free(buf.stamp)
    buf.idx = buf.val = NULL
    buf.icols = buf.scols = buf.stamp = NULL


cdef Py_ssize_t _segment_of(const int64_t[::1] seg_rows, Py_ssize_t row) noexcept:
    """The segment holding ``row``: the last ``k`` with ``seg_rows[k] <= row`` (binary search)."""
    cdef Py_ssize_t lo = 0, hi = seg_rows.shape[0] - 1, mid
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if seg_rows[mid] <= row:
            lo = mid
        else:
            hi = mid - 1
    return lo


cdef struct Segment:
    # the segment being read: its number k, its visible columns (nv of them, in the Scratch's
    # icols / scols), whether every column is visible (full) and, for a dense X without NaN for
    # absent, whether the visible values lie side by side in a row (contiguous)
    Py_ssize_t k
    Py_ssize_t nv
    bint full
    bint contiguous


cdef int _check_fit(Py_ssize_t start, Py_ssize_t stop, bint dense, Py_ssize_t n_y,
                    Py_ssize_t n_map, Py_ssize_t d, Py_ssize_t xn, Py_ssize_t xd,
                    Py_ssize_t n_ptr) except -1:
    """Raise ``ValueError`` unless rows ``start:stop`` fit the arrays given to :func:`run_rows`."""
    if n_y < stop or n_map != d or (dense and (xn < stop or xd != d)) or (
            not dense and n_ptr < stop + 1):
        raise ValueError(
            f"rows {start}:{stop} do not fit the arrays: {n_y} labels, "
            f"{n_map} mapped columns and masks of {d}, X of shape "
            f"{xn} x {xd}, {n_ptr} CSR offsets"
        )
    return 0


cdef int64_t _internal_bound(const int64_t[::1] col_map, bint internal) noexcept:
    """The bound of a CSR row's columns: the stream's columns, or (``internal``) the internal
    columns they map to."""
    cdef Py_ssize_t j
    cdef int64_t bound = col_map.shape[0]
    if internal:
        bound = 0
        for j in range(col_map.shape[0]):
            bound = max(bound, col_map[j] + 1)
    return bound


cdef inline void _begin_segment(Segment* seg, Scratch* buf, Py_ssize_t k,
                                const unsigned char* mask, const int64_t* by_internal,
                                Py_ssize_t nb, const int64_t* col_map, Py_ssize_t d, bint dense,
                                bint nan_absent, bint internal) noexcept:
    """Segment ``k`` begins (or the block does): its visible set read off its ``mask`` row."""
    cdef Py_ssize_t j, nv = 0
    cdef int64_t c
    cdef int64_t* scols = buf.scols  # locals: the C compiler need not reload them per entry
    cdef int64_t* icols = buf.icols
    cdef int64_t* stamp = buf.stamp
    for j in range(nb):  # without a branch: a haphazard mask is a coin toss per column
        c = by_internal[j]
        scols[nv] = c
        icols[nv] = col_map[c]
        nv += mask[c] != 0
    seg.k = k
    seg.nv = nv
    seg.full = nv == d
    seg.contiguous = False
    if dense and not nan_absent and nv > 0:  # the visible values lie side by side in X
        seg.contiguous = True
        for j in range(1, nv):
            if scols[j] != scols[j - 1] + 1:
                seg.contiguous = False
                break
    if not dense and not seg.full:
        for j in range(nv):
            stamp[icols[j] if internal else scols[j]] = k


cdef inline Py_ssize_t _dense_row(const Segment* seg, Scratch* buf, const double* xrow,
                                  bint nan_absent) noexcept:
    """A dense row's visible entries (not NaN when ``nan_absent``) into the scratch's
    ``idx`` / ``val``, by internal column; returns their number."""
    cdef Py_ssize_t j, m = 0
    cdef double v
    cdef const int64_t* scols = buf.scols
    cdef const int64_t* icols = buf.icols
    cdef int64_t* bi = buf.idx
    cdef double* bv = buf.val
    for j in range(seg.nv):
        v = xrow[scols[j]]
        if nan_absent and v != v:
            continue
        bi[m] = icols[j]
        bv[m] = v
        m += 1
    return m


cdef inline Py_ssize_t _copy_entries(const Segment* seg, Scratch* buf, Py_ssize_t i,
                                     const int64_t* indices, const double* data, int64_t a,
                                     int64_t b, const int64_t* col_map, bint full, bint internal,
                                     int64_t bound, bint* sorted_row) except -1:
    """:func:`_sparse_row`'s copy of the entries, written once; each call passes ``full`` and
    ``internal`` as constants, so the compiler drops their tests from the loop."""
    cdef Py_ssize_t j, m = 0
    cdef int64_t c, ic, last = -1, k = seg.k
    cdef bint unsorted = False
    cdef const int64_t* stamp = buf.stamp
    cdef int64_t* bi = buf.idx
    cdef double* bv = buf.val
    for j in range(a, b):
        c = indices[j]
        if <uint64_t> c >= <uint64_t> bound:  # a negative c too; before c indexes anything
            _bad_row(i, &indices[j], 1, bound)
        if not full and stamp[c] != k:
            continue
        ic = c if internal else col_map[c]
        bi[m] = ic
        bv[m] = data[j]
        unsorted |= ic <= last
        last = ic
        m += 1
    sorted_row[0] = not unsorted
    return m


cdef inline Py_ssize_t _sparse_row(const Segment* seg, Scratch* buf, Py_ssize_t i,
                                   const int64_t* indices, const double* data, int64_t a,
                                   int64_t b, const int64_t* col_map, bint internal,
                                   int64_t bound) except -1:
    """Row ``i``'s visible CSR entries ``a:b`` into the scratch's ``idx`` / ``val``, by internal
    column, sorted (a column out of ``bound`` or stored twice raises); returns their number."""
    cdef Py_ssize_t m
    cdef bint sorted_row
    if not seg.full:
        m = _copy_entries(seg, buf, i, indices, data, a, b, col_map, False, internal, bound,
                          &sorted_row)
    elif internal:
        m = _copy_entries(seg, buf, i, indices, data, a, b, col_map, True, True, bound, &sorted_row)
    else:
        m = _copy_entries(seg, buf, i, indices, data, a, b, col_map, True, False, bound,
                          &sorted_row)
    if not sorted_row:
        _sort_pairs(buf.idx, buf.val, m)
        _bad_row(i, buf.idx, m, INT64_MAX)  # a column stored twice
    return m


def run_rows(
    Core core,
    const double[:, ::1] X,
    bint nan_absent,
    const int64_t[::1] indptr,
    const int64_t[::1] indices,
    const double[::1] data,
    const int64_t[::1] col_map,
    bint internal,
    const double[::1] y,
    Py_ssize_t start,
    Py_ssize_t stop,
    const int64_t[::1] seg_rows,
    const unsigned char[:, ::1] seg_masks,
    const int64_t[::1] by_internal,
    const int64_t[::1] seg_dim,
    bint announce_first,
    Py_ssize_t first_scored,
    bint count_mistakes,
    const int64_t[::1] tick_at,
    int64_t[::1] tick_pos,
    double[::1] curve_m,
    double[::1] curve_l,
    double base_m,
    double base_l,
    double[::1] out_label,
    double[::1] out_score,
):
    """:func:`run_chunk` on rows ``start:stop`` of a stream's own arrays, with no conversion pass.

    The rows are read where they are: a dense ``X`` (C order; ``nan_absent``:
    NaN marks an absent value) when it has rows, else the CSR arrays
    ``indptr`` / ``indices`` / ``data``: stream columns, mapped to internal
    columns by ``col_map``, or (``internal``) internal columns already, each
    row sorted. The segments are the whole stream's: segment ``k`` starts at
    row ``seg_rows[k]`` and sees the stream columns ``c`` with
    ``seg_masks[k, c]``; ``by_internal`` lists the columns ever visible by
    increasing internal column, so a segment's visible set is read off its
    mask row in that order when its first row comes, and announced then
    with ``seg_dim[k]`` features seen (the stream's first row only if
    ``announce_first``). Row positions (``first_scored``, ``tick_at``,
    ``out_*``) count from ``start``. Returns the mistakes and loss.
    """
    cdef bint dense = X.shape[0] > 0
    cdef Record rec = _record(first_scored, count_mistakes, tick_at, tick_pos, curve_m, curve_l,
                              base_m, base_l, out_label, out_score)
    cdef Py_ssize_t n_seg = seg_rows.shape[0], i, m, k = _segment_of(seg_rows, start)
    cdef Py_ssize_t d = seg_masks.shape[1], nb = by_internal.shape[0]
    cdef Py_ssize_t nnz = min(indices.shape[0], data.shape[0])
    cdef int64_t bound = _internal_bound(col_map, internal)
    cdef const int64_t* bip = &by_internal[0] if nb > 0 else NULL
    cdef const int64_t* cmp = &col_map[0] if col_map.shape[0] > 0 else NULL
    cdef const int64_t* ip = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const double* dp = &data[0] if data.shape[0] > 0 else NULL
    cdef const int64_t* idx
    cdef const double* val
    cdef const double* xrow
    cdef Segment seg
    cdef Scratch buf
    seg.k, seg.nv, seg.full, seg.contiguous = -1, 0, False, False  # read by no row before set
    _scratch_alloc(&buf, dense, indptr, col_map, d, nb, start, stop)
    try:
        _check_fit(start, stop, dense, y.shape[0], col_map.shape[0], d, X.shape[0], X.shape[1],
                   indptr.shape[0])
        for i in range(start, stop):
            while k + 1 < n_seg and seg_rows[k + 1] <= i:
                k += 1
            if k != seg.k:
                _begin_segment(&seg, &buf, k, &seg_masks[k, 0], bip, nb, cmp, d, dense,
                               nan_absent, internal)
            idx = buf.idx
            val = buf.val
            if dense:
                xrow = &X[i, 0] if d > 0 else NULL
                if seg.contiguous:
                    idx = buf.icols
                    val = xrow + buf.scols[0]
                    m = seg.nv
                else:
                    m = _dense_row(&seg, &buf, xrow, nan_absent)
            else:
                _bad_offsets(i, indptr[i], indptr[i + 1], nnz)
                m = _sparse_row(&seg, &buf, i, ip, dp, indptr[i], indptr[i + 1], cmp, internal,
                                bound)
            if seg_rows[k] == i and (i > 0 or announce_first):
                _step(core, &rec, i - start, idx, val, m, y[i], buf.icols, seg.nv, seg_dim[k])
            else:
                _step(core, &rec, i - start, idx, val, m, y[i], NULL, -1, 0)
        tick_pos[0] = rec.t
        return rec.wrong, rec.loss_sum
    finally:
        _scratch_free(&buf)


def same_bytes(a, b):
    """Whether two C-contiguous buffers hold the same bytes (one ``memcmp``, no copy).

    >>> import numpy as np
    >>> same_bytes(np.zeros(3, bool), np.zeros(3, bool)), same_bytes(np.zeros(3), np.ones(3))
    (True, False)
    """
    cdef Py_buffer va, vb
    PyObject_GetBuffer(a, &va, PyBUF_C_CONTIGUOUS)
    try:
        PyObject_GetBuffer(b, &vb, PyBUF_C_CONTIGUOUS)
        try:
            return va.len == vb.len and (va.len == 0 or memcmp(va.buf, vb.buf, va.len) == 0)
        finally:
            PyBuffer_Release(&vb)
    finally:
        PyBuffer_Release(&va)


def first_bad_label(const double[::1] y):
    """The first position whose label is not -1 or +1 (NaN included), or -1 if there is none.

    >>> import numpy as np
    >>> first_bad_label(np.array([1.0, -1.0, 0.0])), first_bad_label(np.array([1.0, -1.0]))
    (2, -1)
    """
    cdef Py_ssize_t i
    for i in range(y.shape[0]):
        if y[i] != 1.0 and y[i] != -1.0:
            return i
    return -1


def predict_rows(
    Core core,
    const int64_t[::1] indptr,
    const int64_t[::1] indices,
    const double[::1] data,
    double[::1] out_score,
    double[::1] out_label,
    int64_t width=-1,
):
    """Score CSR rows without learning: ``out_score[i]``, ``out_label[i]`` for each row ``i``.

    Each row's columns must increase and, when ``width >= 0``, stay below ``width`` (the
    learner's capacity): a row that breaks this raises ``ValueError`` (see :func:`run_chunk`).
    """
    cdef Py_ssize_t i, a
    cdef double label
    cdef const int64_t* ip = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const double* dp = &data[0] if data.shape[0] > 0 else NULL
    cdef Py_ssize_t nnz = min(indices.shape[0], data.shape[0])
    if indptr.shape[0] < out_score.shape[0] + 1 or out_label.shape[0] < out_score.shape[0]:
        raise ValueError(f"{out_score.shape[0]} rows need {out_score.shape[0] + 1} offsets and "
                         f"labels, not {indptr.shape[0]} and {out_label.shape[0]}")
    for i in range(out_score.shape[0]):
        a = indptr[i]
        _bad_offsets(i, a, indptr[i + 1], nnz)
        _bad_row(i, ip + a, indptr[i + 1] - a, width if width >= 0 else INT64_MAX)
        out_score[i] = core.predict(ip + a, dp + a, indptr[i + 1] - a, &label)
        out_label[i] = label


cdef class RowBuffer:
    """Scratch space for one dict row: its known entries sorted by column (grows as needed).

    >>> buf = RowBuffer()
    >>> buf.capacity >= 8
    True
    """

    cdef Entry* entries
    cdef int64_t* idx
    cdef double* val
    cdef readonly Py_ssize_t capacity
    # the keys of the last row walked and their columns, by position: a row with the same key
    # objects in the same order (a fixed schema) skips the name -> column lookups. The list holds
    # references, so an identical pointer is the same live object.
    cdef list last_keys
    cdef int64_t* last_cols
    cdef object last_col_of
    # the keys of the last row that the feature index did not know (learn_dict's UNSEEN)
    cdef public list unseen_keys
    # the learner's announced-visibility array, as a memoryview acquired once per array object
    cdef object vis_obj
    cdef int64_t[::1] vis

    def __cinit__(self, Py_ssize_t capacity=8):
        self.entries = NULL
        self.idx = NULL
        self.val = NULL
        self.last_cols = NULL
        self.last_keys = []
        self.last_col_of = None
        self._grow(capacity)

    def __dealloc__(self):
        free(self.entries)
        free(self.idx)
        free(self.val)
        free(self.last_cols)

    cdef int _grow(self, Py_ssize_t capacity) except -1:
        free(self.entries)
        free(self.idx)
        free(self.val)
        free(self.last_cols)
        self.capacity = max(8, capacity)
        self.entries = <Entry*> malloc(self.capacity * sizeof(Entry))
        self.idx = <int64_t*> malloc(self.capacity * sizeof(int64_t))
        self.val = <double*> malloc(self.capacity * sizeof(double))
        self.last_cols = <int64_t*> malloc(self.capacity * sizeof(int64_t))
        self.last_keys = []
        if (self.entries is NULL or self.idx is NULL or self.val is NULL
                or self.last_cols is NULL):
            raise MemoryError("no memory for a row buffer")
        return 0

    def __reduce__(self):
        return (RowBuffer, (self.capacity,))

    cdef int gather(self, dict x, dict col_of, bint need_all, Py_ssize_t* m_out) except -1:
        """Fill ``idx`` / ``val`` with the row's known entries by column; return a code."""
        cdef Py_ssize_t pos = 0, m = 0, k
        cdef PyObject* key
        cdef PyObject* value
        cdef PyObject* col
        cdef double v
        cdef int64_t c, prev = -1
        cdef bint in_order = True, unseen = False, same = True
        cdef Py_ssize_t n_last
        if len(x) > self.capacity:
            self._grow(2 * len(x))
        if col_of is not self.last_col_of:  # another learner's index: forget the cached columns
            self.last_keys = []
            self.last_col_of = col_of
        n_last = len(self.last_keys)
        while PyDict_Next(x, &pos, &key, &value):
            if PyFloat_CheckExact(<object> value):
                v = PyFloat_AS_DOUBLE(<object> value)
            else:
                try:  # as float() reads it (numbers, numeric strings), the rule of _values
                    v = float(<object> value)
                except (TypeError, ValueError, OverflowError):
                    return NOT_NUMERIC
            if not isfinite(v):
                return NOT_FINITE
            if same and m < n_last and not unseen and <PyObject*> self.last_keys[m] is key:
                c = self.last_cols[m]
            else:
                same = False
                col = PyDict_GetItem(col_of, <object> key)
                if col is NULL:
                    if need_all:
                        if not unseen:
                            self.unseen_keys = []
                        self.unseen_keys.append(<object> key)
                    unseen = True
                    continue
                c = PyLong_AsSsize_t(<object> col)
            self.entries[m].col = c
            self.entries[m].val = v
            in_order = in_order and c > prev
            prev = c
            m += 1
        if not same or m != n_last:
            if not unseen:  # remember this row's keys and columns for the next one
                self.last_keys = list(x)
                for k in range(m):
                    self.last_cols[k] = self.entries[k].col
            else:
                self.last_keys = []
        if unseen and need_all:
            return UNSEEN
        if not in_order:
            _sort_entries(self.entries, m)
        for k in range(m):
            self.idx[k] = self.entries[k].col
            self.val[k] = self.entries[k].val
        m_out[0] = m
        return OK


def predict_dict(Core core, dict x, dict col_of, RowBuffer buf):
    """``(code, score, label)`` of the dict row ``x`` (unseen keys are skipped)."""
    cdef Py_ssize_t m = 0
    cdef double label = 0.0, score
    cdef int code = buf.gather(x, col_of, False, &m)
    if code != OK:
        return code, 0.0, 0.0
    score = core.predict(buf.idx, buf.val, m, &label)
    return OK, score, label


def learn_dict(Core core, dict x, dict col_of, double y, int64_t[::1] vis, Py_ssize_t dim,
               RowBuffer buf):
    """Predict, announce the row's features if they differ from ``vis``, learn; return a code.

    ``vis[0]`` is the count of the last announced columns (-1: none), ``vis[1:]``
    the columns. An unseen key returns ``UNSEEN`` before anything changes.
    """
    return c_learn_dict(core, x, col_of, y, vis, dim, buf)


cdef int c_learn_dict(Core core, dict x, dict col_of, double y, int64_t[::1] vis,
                      Py_ssize_t dim, RowBuffer buf) except -1:
    cdef Py_ssize_t m = 0, k
    cdef double label = 0.0, score
    cdef int code = buf.gather(x, col_of, True, &m)
    if code != OK:
        return code
    cdef const int64_t* idx = buf.idx
    cdef const double* val = buf.val
    score = core.predict(idx, val, m, &label)
    cdef bint changed = vis[0] != m
    if not changed:
        for k in range(m):
            if vis[k + 1] != idx[k]:
                changed = True
                break
    if changed:
        vis[0] = m
        for k in range(m):
            vis[k + 1] = idx[k]
        core.visible(idx, m, dim)
    core.learn(idx, val, m, y, score)
    return OK


def learn_one(learner, x, y):
    """:meth:`OnlineLearner.learn_one` in C for a compiled learner that knows every key of ``x``.

    Returns ``LEARNED`` when the row was learned (``WATCH``: and the learner's
    divergence check is due); ``False`` sends the caller to the general path
    (not a dict, no state yet, an unseen key, a bad value), which redoes the
    row from the start: nothing has changed.
    """
    if type(x) is not dict:
        return False
    cdef dict d = learner.__dict__
    core = d.get("_state")
    if not isinstance(core, Core):
        return False
    cdef double target
    if type(y) is int and (y == 1 or y == -1) and learner.task == "binary":
        target = <double> y
    else:
        target = learner._encode_label(y)
    fi = d["feature_index_"]
    col = fi._col
    if len(col) < len(fi.names):
        col = fi._lookup()
    try:
        buf = learner._buf
    except AttributeError:
        buf = learner._row_buffer()
    cdef RowBuffer rb = <RowBuffer> buf
    vis = learner._vis
    if vis is not rb.vis_obj:
        rb.vis = vis
        rb.vis_obj = vis
    code = c_learn_dict(<Core> core, <dict> x, <dict> col, target, rb.vis, len(fi.names), rb)
    if code != OK:
        return False
    n = d["n_learned_"] + 1
    d["n_learned_"] = n
    # the learner's divergence watch (OnlineLearner._check_divergence) is due at _next_check rows
    return True if n < d.get("_next_check", 0) else WATCH


_NOT_HANDLED = object()


def predict_one(learner, x):
    """:meth:`OnlineLearner.predict_one` in C for a compiled learner; ``NOT_HANDLED`` sends the
    caller to the general path (not a dict, no state yet, a bad value)."""
    if type(x) is not dict:
        return _NOT_HANDLED
    d = learner.__dict__
    core = d.get("_state")
    if not isinstance(core, Core):
        return _NOT_HANDLED
    fi = d["feature_index_"]
    col = fi._col
    if len(col) < len(fi.names):
        col = fi._lookup()
    try:
        buf = learner._buf
    except AttributeError:
        buf = learner._row_buffer()
    cdef Py_ssize_t m = 0
    cdef double label = 0.0
    if (<RowBuffer> buf).gather(x, col, False, &m) != OK:
        return _NOT_HANDLED
    (<Core> core).predict((<RowBuffer> buf).idx, (<RowBuffer> buf).val, m, &label)
    task = learner.task
    if task == "binary":
        return 1 if label > 0 else -1
    if task == "multiclass":
        return int(label)
    return float(label)


NOT_HANDLED = _NOT_HANDLED
