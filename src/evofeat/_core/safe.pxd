# Overflow-safe arithmetic shared by the linear learners (perceptron, PA, OGD, FESL). The rules:
# - a dot product is summed left to right; only when that sum is not finite, or is 0 or below the smallest normal
#   double (products may have underflowed), is it recomputed on operands rescaled by powers of two (exact) and
#   saturated to +-MAX or, if it is not 0 but underflows, to +-TINY: a score is never NaN and keeps its sign, so a
#   mistake-driven learner is scale-invariant from rows of norm 1e-300 to 1e300, and ordinary data are unchanged;
# - a step w += a x is skipped when a is not finite and saturates each weight at +-MAX instead of overflowing.
# Other underflow is left alone. The NumPy twin used by the tests' references is tests/reference/safe.py.
# Everything here is ``cdef inline``: each learner module compiles its own copy, so a call costs nothing.
from libc.math cimport fabs, frexp, ldexp
from libc.stdint cimport int64_t

cdef extern from *:
    """
    static const double EVO_MAX = 1.7976931348623157e308;   /* the largest finite double */
    static const double EVO_TINY = 5e-324;                  /* the smallest positive double */
    static const double EVO_NORMAL = 2.2250738585072014e-308; /* the smallest positive normal double */
    """
    const double MAX "EVO_MAX"
    const double TINY "EVO_TINY"
    const double NORMAL "EVO_NORMAL"


cdef inline double saturate(double v) noexcept nogil:
    """``v`` clipped to ``[-MAX, MAX]``."""
    if v > MAX:
        return MAX
    if v < -MAX:
        return -MAX
    return v


cdef inline int exponent(double m) noexcept nogil:
    """``e`` with ``m 2^-e`` in ``[0.5, 1)`` for ``m > 0`` (0 for ``m = 0``)."""
    cdef int e = 0
    frexp(m, &e)
    return e


cdef inline double unscale(double t, int e) noexcept nogil:
    """``t 2^e`` saturated at ``+-MAX``, and at ``+-TINY`` if ``t != 0`` underflows."""
    cdef double r = saturate(ldexp(t, e))
    if r == 0.0 and t != 0.0:
        return TINY if t > 0.0 else -TINY
    return r


cdef inline double fmax0(double a, double b) noexcept nogil:
    """Python's ``max(a, b)``: ``b`` only when it is greater."""
    return b if b > a else a


cdef inline double dot(const double* w, const int64_t* idx, const double* val,
                       Py_ssize_t n) noexcept nogil:
    """``w[idx] . val``, summed left to right."""
    cdef double s = 0.0
    cdef Py_ssize_t k
    for k in range(n):
        s += w[idx[k]] * val[k]
    return s


cdef inline double sq_norm(const double* val, Py_ssize_t n) noexcept nogil:
    """``||val||^2``, summed left to right."""
    cdef double s = 0.0
    cdef Py_ssize_t k
    for k in range(n):
        s += val[k] * val[k]
    return s


cdef inline double safe_dot(const double* w, const int64_t* idx, const double* val,
                            Py_ssize_t n) noexcept nogil:
    """``w[idx] . val``; on overflow or underflow recomputed on rescaled operands (never NaN)."""
    cdef double s = dot(w, idx, val, n)
    if NORMAL <= fabs(s) <= MAX:
        return s
    cdef double mw = 0.0, mv = 0.0, t = 0.0
    cdef Py_ssize_t k
    for k in range(n):
        mw = fmax0(mw, fabs(w[idx[k]]))
        mv = fmax0(mv, fabs(val[k]))
    cdef int ew = exponent(mw), ev = exponent(mv)
    for k in range(n):
        t += ldexp(w[idx[k]], -ew) * ldexp(val[k], -ev)
    return unscale(t, ew + ev)


cdef inline double safe_dotn(const double* a, const double* b, Py_ssize_t n) noexcept nogil:
    """``a[:n] . b[:n]`` with the overflow rule of :func:`safe_dot`."""
    cdef double s = 0.0, ma = 0.0, mb = 0.0, t = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        s += a[i] * b[i]
    if NORMAL <= fabs(s) <= MAX:
        return s
    for i in range(n):
        ma = fmax0(ma, fabs(a[i]))
        mb = fmax0(mb, fabs(b[i]))
    cdef int ea = exponent(ma), eb = exponent(mb)
    for i in range(n):
        t += ldexp(a[i], -ea) * ldexp(b[i], -eb)
    return unscale(t, ea + eb)


cdef inline bint safe_axpy(double* w, double a, const int64_t* idx, const double* val,
                           Py_ssize_t n) noexcept nogil:
    """``w[idx] += a val``, each weight saturated at ``+-MAX``; nothing if ``a`` is not finite."""
    if not fabs(a) <= MAX:
        return False
    cdef Py_ssize_t k
    cdef double v
    for k in range(n):
        v = w[idx[k]] + a * val[k]
        if not fabs(v) <= MAX:  # not saturate(v): a NaN becomes -MAX here, stays NaN there
            v = MAX if v > 0.0 else -MAX
        w[idx[k]] = v
    return True


cdef inline double sign_label(double score) noexcept nogil:
    """+1 if ``score > 0``, else -1 (a score of 0 predicts -1)."""
    return 1.0 if score > 0.0 else -1.0
