# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Online per-feature scaling in front of any learner's core: running z-scores and normal scores.

A :class:`ScaledCore` holds the core of another learner (``inner``) and its
own per-feature statistics. The one prequential loop and the dict path call
it as any :class:`~evofeat._core.core.Core`:

``predict``
    scales the row's present values with the statistics of the rows before
    it and asks ``inner`` for the score;
``learn``
    hands ``inner`` the very row it predicted (scaled with the same, older
    statistics: the score it learns from is that row's), then the
    statistics take the row's raw values;
``visible``
    passes through.

An absent feature is not in the row, so it is neither scaled nor counted: its
statistics stay as they were, and a feature never seen starts with none.

Three transforms (see :mod:`evofeat.preprocessing` for their parameters and
error bounds):

:class:`ZScoreCore`
    Welford's running mean and variance per feature (``count``, ``mean``,
    ``m2``); a value becomes ``(x - mean) / sd`` with the population standard
    deviation ``sd = sqrt(m2 / count)``, or 0 while ``sd`` is 0 (no value or
    one distinct value seen yet). O(1) per present feature.
:class:`QuantileCore`
    The last ``window`` values of each feature in a ring (``recent``, the count
    ``seen``); a value's mid-rank among them, ``q = (#below + #equal / 2 +
    1/2) / (n + 1)`` over the ``n = min(seen, window)`` values kept, becomes
    the normal score ``Phi^-1(q)`` (0 for the first value). The ranks come
    from a sorted copy of the window kept beside it (scratch): O(log window)
    per score and at most a ``memmove`` of ``window`` values per update.
:class:`QuantileSketchCore`
    The same mid-rank's normal score against a uniform sample of at most
    ``window`` of all the values seen (reservoir sampling, kept sorted):
    O(log window) per score, O(1) amortised per update.

Each class is used through a subclass made for its inner core's type by
:func:`scaled_type`, whose ``_fields`` are the scaler's own fields followed
by the inner core's, prefixed ``learner__``; so growing, copies, pickles and
model files see one flat state.
"""

from libc.math cimport fabs, log, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, memmove

import numpy as np

from evofeat._core.core cimport Core
from evofeat._core.safe cimport saturate

#: the prefix of the inner core's fields in a scaled core's flat state
PREFIX = "learner__"


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define EVO_PREFETCH(p) __builtin_prefetch((p))
    #else
    #define EVO_PREFETCH(p) ((void)(p))
    #endif
    """
    void prefetch "EVO_PREFETCH"(const void* p) noexcept nogil


cdef double normal_quantile(double p) noexcept nogil:
    """``Phi^-1(p)`` for ``0 < p < 1``: Wichura's AS 241 (PPND16), relative error about 1e-16."""
    cdef double q = p - 0.5, r, num, den
    if fabs(q) <= 0.425:
        r = 0.180625 - q * q
        num = (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r
                    + 67265.770927008700853) * r + 45921.953931549871457) * r
                  + 13731.693765509461125) * r + 1971.5909503065514427) * r
                + 133.14166789178437745) * r + 3.387132872796366608)
        den = (((((((r * 5226.495278852545925 + 28729.085735721942674) * r
                    + 39307.89580009271061) * r + 21213.794301586595867) * r
                  + 5394.1960214247511077) * r + 687.1870074920579083) * r
                + 42.313330701600911252) * r + 1.0)
        return q * num / den
    r = p if q < 0.0 else 1.0 - p
    r = sqrt(-log(r))
    if r <= 5.0:
        r -= 1.6
        num = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r
                    + 0.24178072517745061177) * r + 1.27045825245236838258) * r
                  + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                + 4.6303378461565452959) * r + 1.42343711074968357734)
        den = (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r
                    + 0.0151986665636164571966) * r + 0.14810397642748007459) * r
                  + 0.68976733498510000455) * r + 1.6763848301838038494) * r
                + 2.05319162663775882187) * r + 1.0)
    else:
        r -= 5.0
        num = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r
                    + 0.0012426609473880784386) * r + 0.026532189526576123093) * r
                  + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                + 5.4637849111641143699) * r + 6.6579046435011037772)
        den = (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r
                    + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r
                  + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
                + 0.59983220655588793769) * r + 1.0)
    return -num / den if q < 0.0 else num / den


def normal_score(double p):
    """``Phi^-1(p)``, the standard normal quantile of ``0 < p < 1`` (as ``scipy.special.ndtri``).

    >>> round(normal_score(0.975), 6), normal_score(0.5)
    (1.959964, 0.0)
    """
    return normal_quantile(p)


_TYPES = {}


def scaled_type(base, inner_type):
    """The subclass of ``base`` (:class:`ZScoreCore` or :class:`QuantileCore`) over cores of
    ``inner_type``: its ``_fields`` are ``base``'s followed by the inner core's, prefixed
    :data:`PREFIX` (made once per pair).

    >>> from evofeat._core.core import Core
    >>> scaled_type(ZScoreCore, Core)._fields
    ('count', 'mean', 'm2')
    """
    key = (base, inner_type)
    cls = _TYPES.get(key)
    if cls is None:
        cls = type(
            f"{base.__name__}[{inner_type.__name__}]",
            (base,),
            {
                "__slots__": (),
                "__module__": __name__,
                "_base": base,
                "_inner_type": inner_type,
                "_own_fields": base._fields,
                "_fields": base._fields + tuple(PREFIX + f for f in inner_type._fields),
            },
        )
        _TYPES[key] = cls
    return cls


def scaled_core(base, Core inner, **own):
    """A ``base`` scaled core over the core ``inner`` (its own fields ``own``)."""
    cls = scaled_type(base, type(inner))
    fields = dict(own)
    for name, value in inner._asdict().items():
        fields[PREFIX + name] = value
    return cls(**fields)


def _type_key(cls):
    """``cls``, or for a class made by :func:`scaled_type` (not importable by name) the pair it
    was made from, recursively: what a pickle can hold."""
    inner = getattr(cls, "_inner_type", None)
    return cls if inner is None else (cls._base, _type_key(inner))


def _type_of(key):
    return scaled_type(key[0], _type_of(key[1])) if isinstance(key, tuple) else key


def _rebuild_scaled(base, inner_key, fields):
    return scaled_type(base, _type_of(inner_key))(**fields)


cdef class ScaledCore(Core):
    """The scaling in front of a core ``inner`` (the base scales nothing: values pass through)."""

    _parts = ("inner",)  # the inner core is no field: its fields join the scaler's, prefixed

    def __init__(self, **fields):
        cls = type(self)
        inner_type = getattr(cls, "_inner_type", None)
        if inner_type is None:
            raise TypeError(f"build a {cls.__name__} with scaled_type({cls.__name__}, type(inner))")
        own = cls._own_fields
        stray = sorted(set(fields).difference(cls._fields)) + [n for n in own if n not in fields]
        if stray:
            raise TypeError(f"{cls.__name__} takes the fields {list(cls._fields)}; unknown or missing: {stray}")
        cut = len(PREFIX)  # the inner core checks its own fields
        self.inner = inner_type(**{n[cut:]: v for n, v in fields.items() if n.startswith(PREFIX)})
        for name in own:  # a read-only array (unpickled from a memory map) is copied: it is written
            value = fields[name]
            setattr(self, name, value.copy() if isinstance(value, np.ndarray)
                    and not value.flags.writeable else value)

    def __getattr__(self, name):
        if name.startswith(PREFIX) and self.inner is not None:
            return getattr(self.inner, name[len(PREFIX):])
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __reduce__(self):
        cls = type(self)
        return (_rebuild_scaled, (cls._base, _type_key(cls._inner_type), self._asdict()))

    def __dealloc__(self):
        free(self.tcols)
        free(self.traw)
        free(self.tval)

    cdef void transform(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* out) noexcept:
        memcpy(out, val, n * sizeof(double))

    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        pass

    cdef bint reserve(self, Py_ssize_t n) noexcept:
        """Room for ``n`` values in the kept row (False: no memory)."""
        cdef void* p
        if n <= self.tcap:
            return True
        p = realloc(self.tcols, n * sizeof(int64_t))
        if p == NULL:
            return False
        self.tcols = <int64_t*> p
        p = realloc(self.traw, n * sizeof(double))
        if p == NULL:
            return False
        self.traw = <double*> p
        p = realloc(self.tval, n * sizeof(double))
        if p == NULL:
            return False
        self.tval = <double*> p
        self.tcap = n
        return True

    cdef double* scaled(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """The row's values scaled with the statistics as they are (NULL if no memory). The
        last row scaled is kept (columns and raw values), so the row that ``learn`` gets right
        after its ``predict`` is not scaled twice."""
        if (self.tlen == n and n > 0 and memcmp(self.tcols, idx, n * sizeof(int64_t)) == 0
                and memcmp(self.traw, val, n * sizeof(double)) == 0):
            return self.tval
        self.tlen = -1
        if not self.reserve(n):
            return NULL
        if n == 0:
            return self.tval
        self.transform(idx, val, n, self.tval)
        memcpy(self.tcols, idx, n * sizeof(int64_t))
        memcpy(self.traw, val, n * sizeof(double))
        self.tlen = n
        return self.tval

    cdef bint adopt(self, ScaledCore other) noexcept:
        """Take ``other``'s last scaled row as this core's own (False: none, or no memory).

        For a core whose statistics are known to equal ``other``'s (the same
        transform, fed the same rows): its ``predict`` and ``learn`` of that row
        then reuse the values instead of computing the transform again."""
        cdef Py_ssize_t n = other.tlen
        if n <= 0:
            return False
        self.tlen = -1
        if not self.reserve(n):
            return False
        memcpy(self.tcols, other.tcols, n * sizeof(int64_t))
        memcpy(self.traw, other.traw, n * sizeof(double))
        memcpy(self.tval, other.tval, n * sizeof(double))
        self.tlen = n
        return True

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        if z == NULL:  # no memory to scale the row: score it without features
            return self.inner.predict(idx, val, 0, label)
        return self.inner.predict(idx, z, n, label)

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef double* z = self.scaled(idx, val, n)
        cdef double loss
        if z == NULL:
            loss = self.inner.learn(idx, val, 0, y, score)
        else:
            loss = self.inner.learn(idx, z, n, y, score)
        self.update(idx, val, n)
        self.tlen = -1  # the statistics moved: the kept row is stale
        return loss

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        return self.inner.visible(cols, n, dim)


cdef class ZScoreCore(ScaledCore):
    """Running z-scores: per feature the count of values seen, their mean and ``m2`` (the sum of
    squared deviations from the mean, Welford's update)."""

    cdef void transform(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* out) noexcept:
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double c, sd
        for k in range(n):
            i = idx[k]
            c = self.count[i]
            sd = sqrt(self.m2[i] / c) if c > 0.0 else 0.0
            if sd > 0.0:
                out[k] = saturate(saturate(val[k] - self.mean[i]) / sd)
            else:  # no spread seen yet: the value is at the centre
                out[k] = 0.0

    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        cdef Py_ssize_t k
        cdef int64_t i
        cdef double c, d, x, r
        for k in range(n):
            i = idx[k]
            x = val[k]
            c = self.count[i] + 1.0
            d = saturate(x - self.mean[i])
            self.mean[i] = saturate(self.mean[i] + d / c)
            r = saturate(self.m2[i] + saturate(d * saturate(x - self.mean[i])))
            self.m2[i] = r if r > 0.0 else 0.0
            self.count[i] = c


cdef Py_ssize_t count_below(const double* a, Py_ssize_t m, double x) noexcept nogil:
    """How many of the increasing ``a[:m]`` are below ``x`` (binary search, O(log m), without
    branches on the values: the step is added times a 0/1 comparison)."""
    if m <= 0:
        return 0
    cdef const double* base = a
    cdef Py_ssize_t half
    while m > 1:
        half = m >> 1
        base += half * (base[half - 1] < x)
        m -= half
    return (base - a) + (base[0] < x)


cdef Py_ssize_t count_not_above(const double* a, Py_ssize_t lo, Py_ssize_t m,
                                double x) noexcept nogil:
    """How many of the increasing ``a[:m]`` are at most ``x``, knowing ``lo`` of them are below."""
    if lo >= m or a[lo] > x:  # no value equal to x (the common case): no search
        return lo
    cdef const double* base = a + lo
    cdef Py_ssize_t half
    m -= lo
    while m > 1:
        half = m >> 1
        base += half * (base[half - 1] <= x)
        m -= half
    return (base - a) + (base[0] <= x)


cdef Py_ssize_t sorted_insert(double* a, Py_ssize_t m, double x) noexcept nogil:
    """Insert ``x`` into the increasing ``a[:m]`` (room for ``m + 1``); returns ``m + 1``."""
    cdef Py_ssize_t q = count_not_above(a, 0, m, x)
    memmove(&a[q + 1], &a[q], (m - q) * sizeof(double))
    a[q] = x
    return m + 1


cdef void sorted_replace(double* a, Py_ssize_t m, double old, double x) noexcept nogil:
    """Replace one value equal to ``old`` in the increasing ``a[:m]`` by ``x``, keeping it
    increasing: one ``memmove`` of the values between the two places only (as
    :func:`sorted_remove` then :func:`sorted_insert`, up to which of equal values moves)."""
    cdef Py_ssize_t p = count_below(a, m, old), r
    if p == m or not (a[p] == old):
        return
    r = count_not_above(a, count_below(a, m, x), m, x)
    if r > p:  # x goes after the old value's place: the values between move down one
        memmove(&a[p], &a[p + 1], (r - 1 - p) * sizeof(double))
        a[r - 1] = x
    else:  # x goes before it: the values between move up one
        memmove(&a[r + 1], &a[r], (p - r) * sizeof(double))
        a[r] = x


cdef Py_ssize_t sorted_remove(double* a, Py_ssize_t m, double x) noexcept nogil:
    """Remove one value equal to ``x`` from the increasing ``a[:m]``; returns the new length
    (``m`` if none is equal)."""
    cdef Py_ssize_t p = count_below(a, m, x)
    if p == m or not (a[p] == x):
        return m
    memmove(&a[p], &a[p + 1], (m - 1 - p) * sizeof(double))
    return m - 1


cdef inline double mid_rank_score(const double* a, Py_ssize_t m, double x) noexcept nogil:
    """``Phi^-1(q)``, ``q`` the mid-rank of ``x`` among the increasing ``a[:m]``."""
    cdef Py_ssize_t below = count_below(a, m, x)
    cdef Py_ssize_t equal = count_not_above(a, below, m, x) - below
    return normal_quantile((2.0 * below + equal + 1.0) / (2.0 * m + 2.0))


cdef int _cmp_double(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*> a)[0], y = (<const double*> b)[0]
    return (x > y) - (x < y)


cdef class QuantileCore(ScaledCore):
    """Running normal scores: per feature the last ``window`` values (``recent``, a ring written at
    ``seen % window``) and the count ``seen`` of values seen.

    Beside the ring, as scratch (not state: rebuilt from ``recent`` when the
    core is built, grown, copied or loaded), each feature's kept values in
    increasing order: a value's rank is two binary searches (O(log window)),
    and ``update`` moves one value out and one in (a binary search and a
    ``memmove`` of at most ``window`` values). The counts are those of a scan
    of the ring, so the scores are the same to the bit.
    """

    def __dealloc__(self):
        free(self.srt)

    cdef bint sort_kept(self) noexcept:
        """Build the sorted copy of every feature's kept values (False: no memory for it)."""
        cdef Py_ssize_t rows = self.recent.shape[0], w = self.window, i, m
        cdef double* p = <double*> malloc(max(rows * w, 1) * sizeof(double))
        if p == NULL:
            return False
        for i in range(rows):
            m = min(self.seen[i], w)
            if m > 0:
                memcpy(&p[i * w], &self.recent[i, 0], m * sizeof(double))
                qsort(&p[i * w], m, sizeof(double), _cmp_double)
        self.srt = p
        self.srt_rows = rows
        return True

    cdef void transform(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* out) noexcept:
        cdef Py_ssize_t k, j, m, w = self.window
        cdef int64_t i, below, equal
        cdef double x, v
        cdef const double* row
        if self.srt == NULL and not self.sort_kept():  # no memory for the sorted copy: scan
            for k in range(n):
                i = idx[k]
                x = val[k]
                m = min(self.seen[i], w)
                row = &self.recent[i, 0]
                below = 0
                equal = 0
                for j in range(m):
                    v = row[j]
                    below += v < x
                    equal += v == x
                out[k] = normal_quantile((2.0 * below + equal + 1.0) / (2.0 * m + 2.0))
            return
        cdef const double* srt = self.srt
        for k in range(n):  # the first probes of every feature's search, fetched together
            i = idx[k]
            m = min(self.seen[i], w)
            prefetch(&srt[i * w + (m >> 1)])
            prefetch(&srt[i * w + (m >> 2)])
            prefetch(&srt[i * w + m - (m >> 2)])
        for k in range(n):
            i = idx[k]
            out[k] = mid_rank_score(&srt[i * w], min(self.seen[i], w), val[k])

    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        cdef Py_ssize_t k, m, w = self.window
        cdef int64_t i, at
        cdef double* row
        for k in range(n):
            i = idx[k]
            at = self.seen[i] % w
            m = min(self.seen[i], w)
            if self.srt != NULL and not (m == w and self.recent[i, at] == val[k]):
                row = &self.srt[i * w]  # (a value replaced by an equal one leaves it as it is)
                if m == w:  # the oldest value leaves the window
                    sorted_replace(row, m, self.recent[i, at], val[k])
                else:
                    sorted_insert(row, m, val[k])
            self.recent[i, at] = val[k]
            self.seen[i] += 1


cdef inline uint64_t splitmix64(uint64_t z) noexcept nogil:
    """A 64-bit mix of ``z`` (Steele, Lea and Flood's SplitMix64 finaliser)."""
    z += 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t sketch_draw(uint64_t n) noexcept nogil:
    """The sketch's draw for a feature's ``n``-th value (from 0): uniform on ``0 .. n`` (up to a
    bias below ``n / 2^64``), a hash of ``n`` alone, so runs repeat whatever the features'
    numbering (each feature's sample is uniform; the features' draws are the same sequence)."""
    return splitmix64(n) % (n + 1)


def sketch_draws(uint64_t start, uint64_t stop):
    """The sketch's draws for a feature's values ``start .. stop - 1`` (for references, tests).

    >>> [int(j) <= n for n, j in enumerate(sketch_draws(0, 5))]
    [True, True, True, True, True]
    """
    out = np.empty(stop - start if stop > start else 0, dtype=np.uint64)
    cdef uint64_t n
    for n in range(start, stop):
        out[n - start] = sketch_draw(n)
    return out


cdef class QuantileSketchCore(ScaledCore):
    """Normal scores against a uniform sample of every value seen: per feature at most ``window``
    values (``sample``, kept in increasing order) drawn from all ``seen`` values by reservoir
    sampling (Vitter's algorithm R): the ``n``-th value (from 0) enters when the draw ``j``
    uniform on ``0 .. n`` is below ``window`` (always while fewer are kept), replacing the
    ``j``-th smallest kept value; the draw is a hash of ``n`` (:func:`sketch_draws`). A score is
    two binary searches (O(log window)); a replacement (a ``memmove`` of at most ``window``
    values) happens with probability ``window / (n + 1)``."""

    cdef void transform(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* out) noexcept:
        cdef Py_ssize_t k, w = self.window
        cdef int64_t i
        for k in range(n):
            i = idx[k]
            out[k] = mid_rank_score(&self.sample[i, 0], min(self.seen[i], w), val[k])

    cdef void update(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        cdef Py_ssize_t k, w = self.window, m
        cdef int64_t i
        cdef uint64_t j
        cdef double* row
        for k in range(n):
            i = idx[k]
            row = &self.sample[i, 0]
            m = min(self.seen[i], w)
            if m < w:
                sorted_insert(row, m, val[k])
            else:
                j = sketch_draw(<uint64_t> self.seen[i])
                if j < <uint64_t> w:  # replaces the j-th smallest (a uniform pick of the kept)
                    memmove(&row[j], &row[j + 1], (w - 1 - j) * sizeof(double))
                    sorted_insert(row, w - 1, val[k])
            self.seen[i] += 1


def scale_row(ScaledCore core, const int64_t[::1] idx, const double[::1] val):
    """The values ``val`` of the columns ``idx`` (increasing) as ``core`` would scale them now.

    >>> from evofeat._core.core import Core
    >>> z = scaled_core(ZScoreCore, Core(), count=np.array([2.0]), mean=np.array([1.0]),
    ...                 m2=np.array([2.0]))
    >>> scale_row(z, np.array([0]), np.array([3.0])).tolist()
    [2.0]
    """
    if idx.shape[0] != val.shape[0]:
        raise ValueError(f"idx and val differ in length: {idx.shape[0]} and {val.shape[0]}")
    out = np.zeros(idx.shape[0])
    cdef double[::1] o = out
    if idx.shape[0]:
        core.transform(&idx[0], &val[0], idx.shape[0], &o[0])
    return out
