# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled math of :class:`evofeat.ensemble.auto.Auto`: members run in one pass, mixed online.

See :mod:`evofeat.ensemble.auto` for the rule, its bound and its reference;
this module holds the per-row arithmetic.
"""

import importlib

import numpy as np

from libc.math cimport exp, fabs, log, log1p
from libc.stdint cimport int64_t

from evofeat._core.core cimport Core
from evofeat._core.scaling cimport ScaledCore
from evofeat._core.losses cimport exp_or_0, softplus, softplus_of
from evofeat._core.safe cimport MAX, saturate, sign_label

#: the fields of the mixture itself; each member's fields follow as ``m<i>_<name>``
OWN = ("kinds", "log_weight", "member_loss", "loss", "t", "share")


cdef inline double log_loss(double s, double y) noexcept nogil:
    """``-ln sigmoid(y s) = ln(1 + exp(-y s))`` (stable), saturated: ``c_loss_value``'s
    logistic loss with :func:`exp_or_0` for ``exp`` (the same bits)."""
    cdef double m = -y * s
    return saturate(softplus(m, exp_or_0(-fabs(m))))


cdef inline void log_losses(double s, double* plus, double* minus) noexcept nogil:
    """``log_loss(s, 1.0)`` and ``log_loss(s, -1.0)`` at once (the same ``exp`` and ``log1p``:
    the same bits as two calls)."""
    cdef double l = log1p(exp_or_0(-fabs(s)))
    plus[0] = saturate(softplus_of(-s, l))
    minus[0] = saturate(softplus_of(s, l))


cdef double log_sum_exp(const double* a, Py_ssize_t n) noexcept nogil:
    """``ln sum_i exp(a_i)``, stably (``-MAX`` when every ``a_i`` is ``-MAX`` or below)."""
    cdef Py_ssize_t i
    cdef double top = -MAX, s = 0.0
    for i in range(n):
        if a[i] > top:
            top = a[i]
    for i in range(n):
        s += exp_or_0(a[i] - top)
    return top + log(s)


cdef double mix_step(double* log_weight, const double* loss, Py_ssize_t K, double alpha,
                     double* buf) noexcept nogil:
    """One round of the rule: returns the mixture's loss ``-ln sum_i w_i exp(-loss_i)`` and sets
    ``log_weight`` to the posterior ``ln(w_i exp(-loss_i) / sum)``, then mixes a share ``alpha``
    of the uniform weight into it (``alpha = 0``: none). ``buf`` has room for ``K`` doubles."""
    cdef Py_ssize_t i
    for i in range(K):
        buf[i] = log_weight[i] - loss[i]
    cdef double lse = log_sum_exp(buf, K)
    for i in range(K):
        log_weight[i] = saturate(buf[i] - lse)
        if log_weight[i] < -MAX:
            log_weight[i] = -MAX
    if alpha > 0.0:
        for i in range(K):
            log_weight[i] = log((1.0 - alpha) * exp(log_weight[i]) + alpha / K)
    return saturate(-lse)


def mix_update(double[::1] log_weight, const double[::1] loss, double alpha):
    """The rule on NumPy arrays (``log_weight`` updated in place); returns the mixture's loss.

    >>> w = np.log(np.full(2, 0.5))
    >>> round(mix_update(w, np.array([0.0, np.log(4.0)]), 0.0), 6), np.exp(w).round(3).tolist()
    (0.470004, [0.8, 0.2])
    """
    cdef Py_ssize_t K = log_weight.shape[0]
    if loss.shape[0] != K:
        raise ValueError(f"{loss.shape[0]} losses for {K} weights")
    buf = np.empty(max(K, 1))
    cdef double[::1] b = buf
    return mix_step(&log_weight[0], &loss[0], K, alpha, &b[0])


#: the member cores a mixture may hold, by code (the second column of the ``kinds`` field):
#: append only, so that model files keep their meaning
MEMBER_CORES = (
    "evofeat.linear._adaptive:FTRLCore",
    "evofeat.linear._adaptive:AdaGradCore",
    "evofeat.linear._adaptive:NAGCore",
    "evofeat.linear._pa:PACore",
    "evofeat.linear._perceptron:PerceptronCore",
    "evofeat.linear._ogd:OGDCore",
    "evofeat.linear._stsd:STSDCore",
)
#: the online scalings in front of a member, by code (the first column of ``kinds``; 0: none)
SCALERS = (
    "",
    "evofeat._core.scaling:ZScoreCore",
    "evofeat._core.scaling:QuantileCore",
    "evofeat._core.scaling:QuantileSketchCore",
)


def mixture_scores(const double[:, ::1] scores, const double[::1] y, bint share):
    """The mixture's score on each row from its members' scores ``(K, n)`` run alone, with the
    arithmetic of :class:`AutoCore` (its members learn from their own predictions only, so this
    is what it predicts on the same stream).

    >>> mixture_scores(np.array([[2.0, 2.0], [0.0, -2.0]]), np.array([1.0, 1.0]), False).round(3)
    array([0.802, 0.426])
    """
    cdef Py_ssize_t K = scores.shape[0], n = scores.shape[1], i, t
    out = np.zeros(n)
    if K == 0:
        return out
    cdef double[::1] o = out
    lw = np.full(K, -log(<double> K))
    cdef double[::1] log_weight = lw
    cdef double[::1] s = np.zeros(K), loss = np.zeros(K), buf = np.zeros(K)
    cdef double plus
    for t in range(n):
        for i in range(K):
            buf[i] = log_weight[i] - log_loss(scores[i, t], 1.0)
        plus = log_sum_exp(&buf[0], K)
        for i in range(K):
            buf[i] = log_weight[i] - log_loss(scores[i, t], -1.0)
        o[t] = saturate(plus - log_sum_exp(&buf[0], K))
        for i in range(K):
            loss[i] = log_loss(scores[i, t], y[t])
        mix_step(&log_weight[0], &loss[0], K, 1.0 / (t + 2.0) if share else 0.0, &buf[0])
    return out


def _class_of(path):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def member_code(cls):
    """``(scaler, core)``: the codes of a member core class (``(-1, -1)``: not a member core).

    A scaled core (see :mod:`evofeat._core.scaling`) is its scaling's code in
    :data:`SCALERS` and its inner core's in :data:`MEMBER_CORES`.

    >>> member_code(AutoCore)
    (-1, -1)
    """
    scaler = 0
    base = getattr(cls, "_base", None)
    if base is not None:
        path = f"{base.__module__}:{base.__name__}"
        if path not in SCALERS:
            return -1, -1
        scaler = SCALERS.index(path)
        cls = cls._inner_type
    path = f"{cls.__module__}:{cls.__name__}"
    return (scaler, MEMBER_CORES.index(path)) if path in MEMBER_CORES else (-1, -1)


def _same_scaling(a, b):
    """Whether the member cores ``a`` and ``b`` scale the same way: the same transform (the same
    scaling class) with equal statistics (every field of the scaling's own)."""
    base = getattr(type(a), "_base", None)
    if base is None or base is not getattr(type(b), "_base", None):
        return False
    return all(
        np.array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f)))
        for f in type(a)._own_fields
    )


def _core_class(scaler, code):
    """The member core class of the codes ``(scaler, code)`` (see :func:`member_code`)."""
    if not (0 <= code < len(MEMBER_CORES) and 0 <= scaler < len(SCALERS)):
        raise TypeError(f"AutoCore: no member core has the codes {(scaler, code)}")
    cls = _class_of(MEMBER_CORES[code])
    if scaler:
        from evofeat._core.scaling import scaled_type

        cls = scaled_type(_class_of(SCALERS[scaler]), cls)
    return cls


cdef class AutoCore(Core):
    """Member cores run on every row and mixed by exponential weights on their log loss.

    ``members`` are the member cores (rebuilt from the flat fields: ``kinds``,
    each member's class as its codes, see :func:`member_code`, and
    ``m<i>_<name>`` for its fields); ``log_weight`` the log of each member's weight (summing to 1);
    ``member_loss`` each member's cumulative log loss, ``loss`` the
    mixture's; ``t`` the rows learned; ``share`` 1 for the decreasing
    share ``alpha_t = 1 / (t + 1)`` of the uniform weight mixed in after
    each row, 0 for none.
    """

    cdef public list members
    cdef public object kinds
    cdef public double[::1] log_weight
    cdef public double[::1] member_loss
    cdef public double loss
    cdef public int64_t t
    cdef public int share
    cdef public tuple _fields
    # scratch (not state): the members' scores of the row predict saw last (fresh until learn)
    cdef double[::1] scores
    cdef double[::1] buf
    cdef double[::1] losses
    cdef double[::1] lplus  # each member's log loss of the scored row if its label is +1
    cdef double[::1] lminus  # and if it is -1
    cdef int64_t[::1] lead
    cdef bint fresh

    def __init__(self, **fields):
        kinds = np.array(fields.get("kinds", ()), dtype=np.int64).reshape(-1, 2)
        classes = [_core_class(a, b) for a, b in kinds.tolist()]
        names = list(OWN)
        for i, cls in enumerate(classes):
            names += [f"m{i}_{f}" for f in cls._fields]
        unknown = sorted(set(fields) - set(names))
        missing = [n for n in names if n not in fields]
        if unknown or missing:
            raise TypeError(
                f"AutoCore takes the fields {names}: missing {missing}, unknown {unknown}"
            )
        self._fields = tuple(names)
        self.kinds = kinds
        self.members = [
            cls(**{f: fields[f"m{i}_{f}"] for f in cls._fields}) for i, cls in enumerate(classes)
        ]
        K = len(classes)
        for name in ("log_weight", "member_loss"):
            value = np.array(fields[name], dtype=np.float64)  # a copy: state is written
            if value.shape != (K,):
                raise TypeError(f"AutoCore's {name} has shape {value.shape}, not ({K},)")
            setattr(self, name, value)
        self.loss = fields["loss"]
        self.t = fields["t"]
        self.share = fields["share"]
        self.scores = np.zeros(max(K, 1))
        self.buf = np.zeros(max(K, 1))
        self.losses = np.zeros(max(K, 1))
        self.lplus = np.zeros(max(K, 1))
        self.lminus = np.zeros(max(K, 1))
        lead = np.full(max(K, 1), -1, dtype=np.int64)
        for i, m in enumerate(self.members):
            lead[i] = next((j for j in range(i) if _same_scaling(m, self.members[j])), -1)
        self.lead = lead
        self.fresh = False

    def __getattr__(self, name):
        """A member's field by its flat name ``m<i>_<field>``."""
        head, sep, field = name.partition("_")
        if sep and head[:1] == "m" and head[1:].isdigit() and int(head[1:]) < len(self.members):
            return getattr(self.members[int(head[1:])], field)
        raise AttributeError(name)

    def _asdict(self):
        out = {"kinds": self.kinds, "log_weight": np.asarray(self.log_weight),
               "member_loss": np.asarray(self.member_loss), "loss": self.loss, "t": self.t,
               "share": self.share}
        for i, member in enumerate(self.members):
            for f, v in member._asdict().items():
                out[f"m{i}_{f}"] = v
        return out

    def __repr__(self):
        return f"AutoCore({', '.join(c.__name__ for c in map(type, self.members))})"

    cdef inline double mixture(self, Py_ssize_t K) noexcept:
        """``ln P(+1) - ln P(-1)`` of the mixture, from the members' scores in ``scores``."""
        cdef Py_ssize_t i
        cdef double* b = &self.buf[0]
        for i in range(K):
            b[i] = self.log_weight[i] - self.lplus[i]
        cdef double plus = log_sum_exp(b, K)
        for i in range(K):
            b[i] = self.log_weight[i] - self.lminus[i]
        return saturate(plus - log_sum_exp(b, K))

    cdef void score_members(self, const int64_t* idx, const double* val, Py_ssize_t n,
                            Py_ssize_t K) noexcept:
        """Each member's score of the row in ``scores`` (a member with a lead takes its lead's
        scaled row first: the lead, earlier, has just scaled it), and its log loss of the row for
        either label in ``lplus`` and ``lminus``."""
        cdef Py_ssize_t i
        cdef double lab
        for i in range(K):
            if self.lead[i] >= 0:
                (<ScaledCore> self.members[i]).adopt(<ScaledCore> self.members[self.lead[i]])
            self.scores[i] = (<Core> self.members[i]).predict(idx, val, n, &lab)
            log_losses(self.scores[i], &self.lplus[i], &self.lminus[i])

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        cdef Py_ssize_t K = len(self.members)
        self.score_members(idx, val, n, K)
        self.fresh = True
        cdef double s = self.mixture(K) if K > 0 else 0.0
        label[0] = sign_label(s)
        return s

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef Py_ssize_t i, K = len(self.members)
        if not self.fresh:  # a learn without its predict: score the row first
            self.score_members(idx, val, n, K)
        self.fresh = False
        if K == 0:
            return 0.0
        for i in range(K):
            (<Core> self.members[i]).learn(idx, val, n, y, self.scores[i])
            if y == 1.0:
                self.losses[i] = self.lplus[i]
            elif y == -1.0:
                self.losses[i] = self.lminus[i]
            else:
                self.losses[i] = log_loss(self.scores[i], y)
            self.member_loss[i] = saturate(self.member_loss[i] + self.losses[i])
        self.t += 1
        cdef double alpha = 1.0 / (self.t + 1.0) if self.share else 0.0
        cdef double mixed = mix_step(&self.log_weight[0], &self.losses[0], K, alpha, &self.buf[0])
        self.loss = saturate(self.loss + mixed)
        return mixed

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        cdef Py_ssize_t i
        for i in range(len(self.members)):
            (<Core> self.members[i]).visible(cols, n, dim)
        return 0
