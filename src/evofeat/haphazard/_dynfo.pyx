# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""DynFo's math (see :mod:`evofeat.haphazard.dynfo`): a weighted forest of decision stumps,
each fitted on the window of recent rows over a random subset of the features seen."""

from libc.math cimport floor, fmax, log
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort

from evofeat._core.core cimport Core
from evofeat._core.rng cimport next_uniform
from evofeat._core.safe cimport NORMAL

#: ``gini`` of a stump that has no split yet (any split's Gini impurity is at most 1).
DEF NO_SPLIT = 2.0


cdef struct Entry:
    double v      # the feature's value in a window row
    double y      # that row's label (-1 or +1)
    int64_t age   # the row's place in the window, 0 the oldest


cdef int _by_value_then_age(const void* a, const void* b) noexcept nogil:
    cdef const Entry* p = <const Entry*> a
    cdef const Entry* q = <const Entry*> b
    if p.v < q.v:
        return -1
    if p.v > q.v:
        return 1
    return (p.age > q.age) - (p.age < q.age)


cdef int _by_double(const void* a, const void* b) noexcept nogil:
    cdef double p = (<const double*> a)[0], q = (<const double*> b)[0]
    return (p > q) - (p < q)


cdef class DynFoCore(Core):
    """DynFo's state, named as in the paper (Schreckenberger et al. 2022).

    The window (``N`` rows): ``win_x[f, s]`` is feature ``f`` of the row in slot ``s``,
    present when ``win_t[f, s] == slot_t[s]`` (the row's stamp); ``win_y`` the labels;
    ``ok`` the forest's 0/1 correctness on the same rows (its error rate is checked
    against ``gamma``). The learners (at most ``max_learners``, ``n_learners`` of them, in
    the order they were made): ``feature`` (-1: no split yet), ``threshold`` (``x <= threshold``
    goes left), the class shares ``left_neg``/``left_pos`` and ``right_neg``/``right_pos``
    of each side in the window it was fitted on, ``gini`` (its split's impurity, ``2.0``
    when it has none) and ``weight``. ``best_*`` cache each feature's best split on the
    current window (valid when ``best_t[f] == t``). ``perm`` holds the features seen
    (``n_seen``) in the order the last draw of accepted features left them; ``rng`` is the
    SplitMix64 state; ``corrupt`` is set when a NaN is found in the window (only a broken
    state holds one: rows are checked), for the divergence check.
    """

    cdef public double alpha, beta, delta, epsilon, gamma, theta1, theta2
    cdef public int64_t M, N, max_learners, improve
    cdef public double[:, ::1] win_x
    cdef public int64_t[:, ::1] win_t
    cdef public int64_t[::1] slot_t
    cdef public double[::1] win_y, ok
    cdef public int64_t win_next, win_len, ok_next, ok_len, t, n_seen, n_learners, rng, corrupt
    cdef public int64_t[::1] feature
    cdef public double[::1] threshold, left_neg, left_pos, right_neg, right_pos, gini, weight
    cdef public int64_t[::1] perm, best_t, best_n, x_t
    cdef public double[::1] best_gini, best_threshold, best_left_neg, best_left_pos
    cdef public double[::1] best_right_neg, best_right_pos, x_val
    cdef Entry* entries    # scratch: one feature's window values (N)
    cdef double* scratch   # scratch: the learners' weights (max_learners), their indices
    cdef int64_t* picks

    def __init__(self, **fields):
        Core.__init__(self, **fields)
        self.entries = <Entry*> malloc(max(1, self.N) * sizeof(Entry))
        self.scratch = <double*> malloc(max(1, self.max_learners) * sizeof(double))
        self.picks = <int64_t*> malloc(max(1, self.max_learners) * sizeof(int64_t))
        if self.entries == NULL or self.scratch == NULL or self.picks == NULL:
            raise MemoryError("DynFo's scratch space")

    def __dealloc__(self):
        free(self.entries)
        free(self.scratch)
        free(self.picks)

    # ------------------------------------------------------------------ helpers
    cdef inline double uniform(self) noexcept:
        cdef uint64_t s = <uint64_t> self.rng
        cdef double u = next_uniform(&s)
        self.rng = <int64_t> s
        return u

    cdef inline int64_t below(self, int64_t n) noexcept:
        """A uniform integer in ``[0, n)``."""
        cdef int64_t r = <int64_t> (self.uniform() * n)
        return r if r < n else n - 1

    cdef void scatter(self, const int64_t* idx, const double* val, Py_ssize_t n) noexcept:
        """Mark the row's features as present (``x_t[f] == 1``) with their values."""
        cdef Py_ssize_t k
        for k in range(n):
            self.x_t[idx[k]] = 1
            self.x_val[idx[k]] = val[k]

    cdef inline bint present(self, int64_t f) noexcept:
        return f >= 0 and self.x_t[f] == 1

    cdef inline double stump_label(self, int64_t j, double v) noexcept:
        """Stump ``j``'s class (the majority of its side; a tie or an empty side: -1)."""
        if v <= self.threshold[j]:
            return 1.0 if self.left_pos[j] > self.left_neg[j] else -1.0
        return 1.0 if self.right_pos[j] > self.right_neg[j] else -1.0

    # ------------------------------------------------------------------ the forest's vote
    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        """Each stump whose split feature is present adds ``weight`` times its side's class
        shares; the class with the larger sum wins (a tie: -1). The score is the log ratio of
        the two sums (each at least the smallest normal double), so its logistic function is
        the forest's vote share for +1."""
        cdef double neg = 0.0, pos = 0.0, v
        cdef int64_t j, f
        self.scatter(idx, val, n)
        for j in range(self.n_learners):
            f = self.feature[j]
            if not self.present(f):
                continue
            v = self.x_val[f]
            if v <= self.threshold[j]:
                neg += self.weight[j] * self.left_neg[j]
                pos += self.weight[j] * self.left_pos[j]
            else:
                neg += self.weight[j] * self.right_neg[j]
                pos += self.weight[j] * self.right_pos[j]
        self.unscatter(idx, n)
        v = log(fmax(pos, NORMAL)) - log(fmax(neg, NORMAL))  # 0 when neither side has a vote
        label[0] = 1.0 if v > 0.0 else -1.0
        return v

    cdef void unscatter(self, const int64_t* idx, Py_ssize_t n) noexcept:
        cdef Py_ssize_t k
        for k in range(n):
            self.x_t[idx[k]] = 0

    # ------------------------------------------------------------------ the window and splits
    cdef void remember(self, const int64_t* idx, const double* val, Py_ssize_t n,
                       double y) noexcept:
        """Put the row in the window's next slot (the oldest row leaves when it is full)."""
        cdef int64_t s = self.win_next
        cdef Py_ssize_t k
        self.slot_t[s] = self.t
        self.win_y[s] = y
        for k in range(n):
            self.win_x[idx[k], s] = val[k]
            self.win_t[idx[k], s] = self.t
        self.win_next = (s + 1) % self.N
        if self.win_len < self.N:
            self.win_len += 1

    cdef void best_split(self, int64_t f) noexcept:
        """Feature ``f``'s split of least Gini impurity over the window rows where it is
        present: thresholds at its values (``x <= v`` left); a tie goes to the value first
        seen in the window. Cached for the current row."""
        cdef int64_t s, m = 0, oldest, i, k, n_left = 0, best_age = 0
        cdef double pos_all = 0.0, pos_left = 0.0, g, gl, gr, pl, pr, nl, nr, best = NO_SPLIT
        cdef double thr = 0.0, lp = 0.0, rp = 0.0, min_age
        if self.best_t[f] == self.t:
            return
        self.best_t[f] = self.t
        oldest = self.win_next if self.win_len == self.N else 0
        for s in range(self.win_len):
            if self.win_t[f, s] == self.slot_t[s]:
                self.entries[m].v = self.win_x[f, s]
                if self.win_x[f, s] != self.win_x[f, s]:
                    self.corrupt = 1  # NaN never enters from a row: the state was broken
                self.entries[m].y = self.win_y[s]
                self.entries[m].age = (s - oldest + self.N) % self.N
                pos_all += self.win_y[s] > 0
                m += 1
        self.best_n[f] = m
        if m == 0:
            return
        qsort(self.entries, m, sizeof(Entry), _by_value_then_age)
        i = 0
        while i < m:
            min_age = self.entries[i].age  # the group's oldest (sorted by age within a value)
            pos_left += self.entries[i].y > 0
            k = i + 1  # at least one row per group (a NaN, in a corrupted state, is its own)
            while k < m and self.entries[k].v == self.entries[i].v:
                pos_left += self.entries[k].y > 0
                k += 1
            n_left = k
            nl = <double> n_left
            nr = <double> (m - n_left)
            pl = pos_left / nl
            gl = 1.0 - (pl * pl + (1.0 - pl) * (1.0 - pl))
            if nr > 0:
                pr = (pos_all - pos_left) / nr
                gr = 1.0 - (pr * pr + (1.0 - pr) * (1.0 - pr))
            else:
                pr = 0.0
                gr = 1.0  # the empty side's shares are 0 (its weight is 0)
            g = (nl / m) * gl + (nr / m) * gr
            if g < best or (g == best and min_age < best_age):
                best, best_age, thr, lp, rp = g, <int64_t> min_age, self.entries[i].v, pl, pr
                self.best_right_neg[f] = 0.0 if nr == 0 else 1.0 - pr
            i = k
        self.best_gini[f] = best
        self.best_threshold[f] = thr
        self.best_left_pos[f] = lp
        self.best_left_neg[f] = 1.0 - lp
        self.best_right_pos[f] = rp

    cdef void fit(self, int64_t j) noexcept:
        """Fit stump ``j`` on a fresh draw of ``max(int(delta n_seen), 1)`` accepted features:
        it takes a feature's best split when its Gini impurity is below the stump's."""
        cdef int64_t k = <int64_t> (self.delta * self.n_seen), i, r, f, tmp
        if k < 1:
            k = 1
        if k > self.n_seen:
            k = self.n_seen
        for i in range(k):  # a partial Fisher-Yates shuffle of the features seen
            r = i + self.below(self.n_seen - i)
            tmp = self.perm[i]
            self.perm[i] = self.perm[r]
            self.perm[r] = tmp
            f = self.perm[i]
            self.best_split(f)
            if self.best_n[f] > 0 and self.best_gini[f] < self.gini[j]:
                self.gini[j] = self.best_gini[f]
                self.feature[j] = f
                self.threshold[j] = self.best_threshold[f]
                self.left_neg[j] = self.best_left_neg[f]
                self.left_pos[j] = self.best_left_pos[f]
                self.right_neg[j] = self.best_right_neg[f]
                self.right_pos[j] = self.best_right_pos[f]

    cdef void new_learner(self) noexcept:
        cdef int64_t j = self.n_learners
        if j >= self.max_learners:
            return
        self.n_learners += 1
        self.feature[j] = -1
        self.gini[j] = NO_SPLIT
        self.threshold[j] = 0.0
        self.left_neg[j] = self.left_pos[j] = self.right_neg[j] = self.right_pos[j] = 0.0
        self.weight[j] = 1.0
        self.fit(j)

    # ------------------------------------------------------------------ one row
    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        cdef int64_t j, f, m, kept
        cdef double correct, errors, q2, h, frac
        cdef Py_ssize_t i
        self.t += 1
        if n > 0 and idx[n - 1] + 1 > self.n_seen:
            self.n_seen = idx[n - 1] + 1
        self.remember(idx, val, n, y)
        if self.n_learners == 0:  # the first row with a feature grows the first M stumps
            if self.n_seen > 0:
                for j in range(self.M):
                    self.new_learner()
            return 0.0
        correct = 1.0 if (score > 0.0) == (y > 0.0) else 0.0
        self.ok[self.ok_next] = correct
        self.ok_next = (self.ok_next + 1) % self.N
        if self.ok_len < self.N:
            self.ok_len += 1
        errors = 0.0
        for i in range(self.ok_len):
            errors += 1.0 - self.ok[i]
        if errors / self.ok_len > self.gamma:
            self.new_learner()
        # each stump's weight: -epsilon when its feature is absent, else (w + 2 alpha [right]) / (1 + alpha)
        self.scatter(idx, val, n)
        for j in range(self.n_learners):
            f = self.feature[j]
            if not self.present(f):
                self.weight[j] -= self.epsilon
            else:
                correct = 1.0 if self.stump_label(j, self.x_val[f]) == y else 0.0
                self.weight[j] = (correct * 2.0 * self.alpha + self.weight[j]) / (1.0 + self.alpha)
        self.unscatter(idx, n)
        # relearn a (1 - beta) share, drawn at random, of the stumps with theta1 <= w < q(theta2)
        m = self.n_learners
        for j in range(m):
            self.scratch[j] = self.weight[j]
        qsort(self.scratch, m, sizeof(double), _by_double)
        h = (m - 1) * self.theta2  # numpy.quantile's "linear" rule, its lerp written as numpy's
        j = <int64_t> floor(h)
        frac = h - j
        if j + 1 >= m:
            q2 = self.scratch[m - 1]
        elif frac >= 0.5:
            q2 = self.scratch[j + 1] - (self.scratch[j + 1] - self.scratch[j]) * (1.0 - frac)
        else:
            q2 = self.scratch[j] + (self.scratch[j + 1] - self.scratch[j]) * frac
        kept = 0
        for j in range(m):
            if self.theta1 <= self.weight[j] < q2:
                self.picks[kept] = j
                kept += 1
        m = <int64_t> ((1.0 - self.beta) * kept)
        for i in range(m):
            j = i + self.below(kept - i)
            f = self.picks[i]
            self.picks[i] = self.picks[j]
            self.picks[j] = f
            j = self.picks[i]
            if not self.improve:
                self.gini[j] = NO_SPLIT
                self.feature[j] = -1
            self.fit(j)
            self.weight[j] = 1.0
        # drop the stumps below theta1 (one stays)
        kept = 0
        for j in range(self.n_learners):
            if self.weight[j] >= self.theta1 or (
                    kept == 0 and j == self.n_learners - 1):
                if kept != j:
                    self.move(j, kept)
                kept += 1
        self.n_learners = kept
        return 0.0 if (score > 0.0) == (y > 0.0) else 1.0

    cdef void move(self, int64_t src, int64_t dst) noexcept:
        self.feature[dst] = self.feature[src]
        self.threshold[dst] = self.threshold[src]
        self.left_neg[dst] = self.left_neg[src]
        self.left_pos[dst] = self.left_pos[src]
        self.right_neg[dst] = self.right_neg[src]
        self.right_pos[dst] = self.right_pos[src]
        self.gini[dst] = self.gini[src]
        self.weight[dst] = self.weight[src]
