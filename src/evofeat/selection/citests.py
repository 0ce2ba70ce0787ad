"""Independence tests and association measures, written once for every selector.

Continuous data: Pearson correlation and Fisher's z-test of a (partial)
correlation. Discrete data: entropy, mutual information, symmetric
uncertainty, the G^2 and chi^2 tests, and LOFS's own discrete test
(:func:`lofs_ci_test`). The conventions follow LOFS (Yu et al.'s
MATLAB library of streaming feature selection), which the streaming-feature
literature uses:

- the partial correlation of (X, Y) given S comes from the sample covariance
  of ``[X, Y, S]`` by the Schur complement;
- ``W = sqrt(n - |S| - 3) atanh(r)``; X and Y are independent given S when
  ``|W| < z_{1 - alpha/2}`` (strict), and a NaN ``r`` (a constant column, a
  singular conditioning block, too few rows) counts as independent;
- mutual information is in bits.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from scipy import special, stats

from evofeat.base.errors import InputError
from evofeat.selection._fisher import fisher_search

__all__ = [
    "ConditionalTester",
    "FisherZTester",
    "G2Tester",
    "chi2_test",
    "correlations",
    "encode",
    "entropy",
    "fisher_z_independent",
    "fisher_z_stat",
    "g2_test",
    "lofs_ci_test",
    "lofs_codes",
    "mutual_info",
    "mutual_info_codes",
    "mutual_info_many",
    "partial_corr",
    "partial_corr_batch",
    "standardize",
    "symmetric_uncertainty",
    "symmetric_uncertainty_many",
]


# ---------------------------------------------------------------------- continuous
def standardize(X: np.ndarray) -> np.ndarray:
    """Centre and scale columns so that ``Z.T @ Z / n`` is the correlation matrix.

    A constant column becomes NaN, so that every correlation it enters is NaN
    (independent, in LOFS's convention).

    >>> standardize(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, nan], [1.0, nan]]
    """
    X = np.asarray(X, dtype=np.float64)
    Z = X - X.mean(axis=0)
    sd = np.sqrt((Z * Z).mean(axis=0))
    # a column is constant when its spread is at rounding level relative to its scale
    scale = np.maximum(np.abs(X).max(axis=0) if X.shape[0] else 0.0, 1e-300)
    const = sd <= 1e-12 * scale
    with np.errstate(invalid="ignore", divide="ignore"):
        Z = Z / np.where(const, np.nan, sd)
    return Z


def correlations(Z: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Pearson correlation of every standardized column of ``Z`` with ``z``.

    >>> Z = standardize(np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]]))
    >>> np.round(correlations(Z, Z[:, 0]), 3).tolist()
    [1.0, 0.5]
    """
    n = Z.shape[0]
    r = (Z.T @ z) / n
    return np.clip(r, -1.0, 1.0)


def fisher_z_stat(r: np.ndarray | float, n: int, n_cond: int | np.ndarray = 0) -> np.ndarray:
    """Fisher's statistic ``W = sqrt(n - |S| - 3) atanh(r)`` (NaN when ``n - |S| - 3 <= 0``).

    >>> round(float(fisher_z_stat(0.5, 103)), 4)
    5.4931
    """
    r = np.asarray(r, dtype=np.float64)
    dof = np.asarray(n - np.asarray(n_cond) - 3, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.sqrt(np.where(dof > 0, dof, np.nan))
        return np.asarray(scale * np.arctanh(r))


def fisher_z_independent(
    r: np.ndarray | float, n: int, n_cond: int | np.ndarray = 0, alpha: float = 0.05
) -> np.ndarray:
    """True where the (partial) correlation ``r`` is not significant at level ``alpha``.

    Independent when ``|W| < z_{1 - alpha/2}`` (strict, as LOFS) or when
    ``W`` is NaN.

    >>> fisher_z_independent(np.array([0.05, 0.5, np.nan]), n=100).tolist()
    [True, False, True]
    """
    W = fisher_z_stat(r, n, n_cond)
    cutoff = special.ndtri(1.0 - 0.5 * alpha)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.isnan(W) | (np.abs(W) < cutoff))


def partial_corr(C: np.ndarray, i: int, j: int, S: Sequence[int] = ()) -> float:
    """Partial correlation of variables ``i`` and ``j`` given ``S`` from a covariance matrix.

    The Schur complement ``C[ij,ij] - C[ij,S] C[S,S]^{-1} C[S,ij]`` (LOFS's
    ``partial_corr_coef``); NaN when ``C[S,S]`` is singular or a variance is 0.

    >>> C = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])
    >>> round(partial_corr(C, 0, 1), 3), round(partial_corr(C, 0, 1, [2]), 4)
    (0.5, 0.3333)
    """
    S_arr = np.asarray(S, dtype=np.int64).reshape(1, -1)
    return float(partial_corr_batch(C, i, j, S_arr)[0])


def partial_corr_batch(C: np.ndarray, i: int, j: int, S: np.ndarray) -> np.ndarray:
    """:func:`partial_corr` for many conditioning sets of one size (rows of ``S``).

    >>> C = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])
    >>> np.round(partial_corr_batch(C, 0, 1, np.array([[2], [2]])), 4).tolist()
    [0.3333, 0.3333]
    """
    S = np.asarray(S, dtype=np.int64)
    m, k = S.shape
    ij = np.array([i, j])
    A = np.broadcast_to(C[np.ix_(ij, ij)], (m, 2, 2))
    if k:
        B = C[ij[None, :, None], S[:, None, :]]  # (m, 2, k)
        D = C[S[:, :, None], S[:, None, :]]  # (m, k, k)
        A = A - B @ _batch_solve(D, np.swapaxes(B, 1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = A[:, 0, 1] / np.sqrt(A[:, 0, 0] * A[:, 1, 1])
    return np.clip(r, -1.0, 1.0)  # rounding can push |r| past 1; NaN stays NaN


def _batch_solve(D: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Solve ``D x = B`` for a stack by Gaussian elimination with partial pivoting.

    A zero pivot (an exactly singular ``D``) gives NaN, as MATLAB's ``inv``
    (LOFS) gives Inf/NaN; LAPACK's batched solve does not flag every such
    case, and this is the same arithmetic as the compiled kernel.
    """
    M = np.concatenate([D, B], axis=2).astype(np.float64)
    m, k, _ = M.shape
    ar = np.arange(m)
    bad = np.zeros(m, dtype=bool)
    for col in range(k):
        piv = col + np.argmax(np.abs(M[:, col:, col]), axis=1)
        top = M[ar, col].copy()
        M[ar, col] = M[ar, piv]
        M[ar, piv] = top
        p = M[:, col, col]
        bad |= p == 0.0
        f = M[:, col + 1 :, col] / np.where(p == 0.0, 1.0, p)[:, None]
        M[:, col + 1 :, col:] -= f[:, :, None] * M[:, None, col, col:]
    X = np.zeros((m, k, B.shape[2]))
    for row in range(k - 1, -1, -1):
        acc = M[:, row, k:] - np.einsum("mc,mcr->mr", M[:, row, row + 1 : k], X[:, row + 1 :, :])
        piv_row = M[:, row, row]
        X[:, row, :] = acc / np.where(piv_row == 0.0, 1.0, piv_row)[:, None]
    X[bad] = np.nan
    return X


def _condition_sets(n_pool: int, size: int, require: int | None) -> np.ndarray:
    """Positions of the conditioning sets of one size, in lexicographic order.

    With ``require`` (a position in the pool) only the sets that contain it.
    """
    if require is None:
        combos = list(itertools.combinations(range(n_pool), size))
    else:
        others = [p for p in range(n_pool) if p != require]
        combos = [tuple(sorted((*c, require))) for c in itertools.combinations(others, size - 1)]
    return np.asarray(combos, dtype=np.int64).reshape(len(combos), size)


class ConditionalTester:
    """Search of a conditioning set that makes a feature independent of the label.

    Sets are subsets of a *pool* (a list of feature keys, in the order of the
    current selection), tried by size 1, 2, ..., ``max_size``, and in
    lexicographic order of their positions in the pool within a size; the
    search stops at the first set that gives independence (LOFS's
    ``compter_dep_2``). A base class: :class:`FisherZTester` and
    :class:`G2Tester` give the test; its ``columns`` (feature key -> column)
    are what a model file keeps.

    >>> t = FisherZTester(np.array([1.0, -1.0, 1.0, -1.0]), alpha=0.05)
    >>> isinstance(t, ConditionalTester)
    True
    >>> t.add(3, np.ones(4)); sorted(t.columns)
    [3]
    """

    def __init__(self, y: np.ndarray, alpha: float) -> None:
        self.y = y
        self.n = y.shape[0]
        self.alpha = alpha
        self.columns: dict[int, np.ndarray] = {}

    def add(self, key: int, column: np.ndarray) -> None:
        self.columns[key] = column

    def discard(self, key: int) -> None:
        self.columns.pop(key, None)

    def separating_set(
        self, key: int, pool: Sequence[int], max_size: int, require: int | None = None
    ) -> tuple[int, ...] | None:
        """The first subset of ``pool`` given which ``key`` is independent of y, or None."""
        pool = list(pool)
        req = None if require is None else pool.index(require)
        ctx: object = None
        for size in range(1, min(max_size, len(pool)) + 1):
            sets = _condition_sets(len(pool), size, req)
            if len(sets) == 0:
                continue
            if ctx is None:
                ctx = self._prepare(key, pool)
            hit = self._first_independent(ctx, sets)
            if hit is not None:
                return tuple(pool[p] for p in sets[hit])
        return None

    def _prepare(self, key: int, pool: list[int]) -> object:
        """What every test of ``key`` against subsets of ``pool`` needs."""
        raise NotImplementedError

    def _first_independent(self, ctx: object, sets: np.ndarray) -> int | None:
        """Index of the first row of ``sets`` that gives independence, or None."""
        raise NotImplementedError


class FisherZTester(ConditionalTester):
    """Fisher's z-test of partial correlations given subsets of a pool.

    The search runs in compiled code (``evofeat.selection._fisher.fisher_search``) that
    enumerates the sets in order and stops at the first independence; the tests check it against
    a plain NumPy search (:func:`partial_corr_batch`, one batch per size:
    ``tests/reference/fisher.py``).

    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=500); b = a + 0.1 * rng.normal(size=500)
    >>> t = FisherZTester(a + 0.1 * rng.normal(size=500), alpha=0.05)
    >>> t.add(0, a); t.add(1, b)
    >>> t.separating_set(1, [0, 1], max_size=3)
    (0,)
    """

    def __init__(self, y: np.ndarray, alpha: float) -> None:
        super().__init__(y, alpha)
        self.cutoff = float(special.ndtri(1.0 - 0.5 * alpha))

    def separating_set(
        self, key: int, pool: Sequence[int], max_size: int, require: int | None = None
    ) -> tuple[int, ...] | None:
        pool = list(pool)
        if not pool or max_size < 1:
            return None
        C = np.asarray(self._prepare(key, pool), dtype=np.float64)
        req = -1 if require is None else pool.index(require)
        hit = fisher_search(np.ascontiguousarray(C), self.n, self.cutoff, max_size, req)
        return tuple(pool[p] for p in hit) if hit.size else None

    def _prepare(self, key: int, pool: list[int]) -> object:
        cols = np.column_stack([self.columns[key], self.y, *(self.columns[p] for p in pool)])
        return np.cov(cols, rowvar=False)


class G2Tester(ConditionalTester):
    """The G^2 (or chi^2) test of conditional independence on discrete codes, set by set.

    ``rule="textbook"`` (default): levels as observed, no minimum sample,
    independent when ``p > alpha`` (:func:`g2_test`, :func:`chi2_test`).
    ``rule="lofs"``: LOFS's ``my_cond_indep_chisquare`` (:func:`lofs_ci_test`:
    levels are column maxima, ``n < 5 df`` reads as independent, the chi^2 test
    corrects the cells with ``E < 10``), independent when ``p >= alpha``.
    ``statistic`` is ``"g2"`` (default) or ``"chi2"``.

    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400); b = a.copy(); b[:20] = 1 - b[:20]
    >>> t = G2Tester(a.copy(), alpha=0.05)
    >>> t.add(0, a); t.add(1, b)
    >>> t.separating_set(1, [0, 1], max_size=3)
    (0,)
    """

    def __init__(
        self, y: np.ndarray, alpha: float, rule: str = "textbook", statistic: str = "g2"
    ) -> None:
        self.rule = rule
        self.statistic = statistic
        super().__init__(self._code(y, label=True), alpha)

    def _code(self, x: np.ndarray, label: bool = False) -> np.ndarray:
        return lofs_codes(x, label) if self.rule == "lofs" else encode(x)[0]

    def add(self, key: int, column: np.ndarray) -> None:
        self.columns[key] = self._code(column)

    def independent(self, x: np.ndarray, S: np.ndarray | None = None) -> bool:
        """Whether the coded column ``x`` is independent of the label given the coded ``S``."""
        if self.rule == "lofs":
            return lofs_ci_test(x, self.y, S, self.statistic)[2] >= self.alpha
        test = g2_test if self.statistic == "g2" else chi2_test
        return test(x, self.y, S)[2] > self.alpha

    def relevant(self, X: np.ndarray) -> np.ndarray:
        """Whether each column of ``X`` (raw values) depends on the label, given nothing."""
        return np.array([not self.independent(self._code(X[:, j])) for j in range(X.shape[1])])

    def _prepare(self, key: int, pool: list[int]) -> object:
        return self.columns[key], [self.columns[p] for p in pool]

    def _first_independent(self, ctx: object, sets: np.ndarray) -> int | None:
        x: np.ndarray = ctx[0]  # type: ignore[index]
        cols: list[np.ndarray] = ctx[1]  # type: ignore[index]
        for t, s in enumerate(sets):
            if self.independent(x, np.column_stack([cols[p] for p in s])):
                return t
        return None


# ---------------------------------------------------------------------- discrete
def encode(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes ``0..L-1`` of a discrete column and its number of levels ``L``.

    >>> encode(np.array([5, -2, 5, 7]))
    (array([1, 0, 1, 2]), 3)
    """
    levels, codes = np.unique(np.asarray(x), return_inverse=True)
    return codes.astype(np.int64).ravel(), int(levels.size)


def _plogp(counts: np.ndarray, total: float) -> np.ndarray:
    p = counts / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)


def entropy(x: np.ndarray) -> float:
    """Shannon entropy in bits of a discrete column.

    >>> entropy(np.array([0, 1, 0, 1]))
    1.0
    """
    codes, _ = encode(x)
    return float(-_plogp(np.bincount(codes), codes.size).sum())


def mutual_info_many(a: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Mutual information in bits between a discrete column ``a`` and every column of ``B``.

    ``I(A;B) = H(A) + H(B) - H(A,B)`` from the joint counts, all columns in
    one ``bincount``.

    >>> a = np.array([0, 0, 1, 1]); B = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> mutual_info_many(a, B).tolist()
    [1.0, 0.0]
    """
    a_codes, la = encode(a)
    B = np.asarray(B)
    n, p = B.shape
    if p == 0:
        return np.zeros(0)
    codes = np.empty((n, p), dtype=np.int64)
    for j in range(p):
        codes[:, j] = encode(B[:, j])[0]
    return mutual_info_codes(a_codes, la, codes)


def mutual_info_codes(a_codes: np.ndarray, la: int, codes: np.ndarray) -> np.ndarray:
    """:func:`mutual_info_many` on columns already encoded as codes ``0..L-1``.

    >>> mutual_info_codes(np.array([0, 0, 1, 1]), 2, np.array([[0, 0], [0, 1], [1, 0], [1, 1]])).tolist()
    [1.0, 0.0]
    """
    n, p = codes.shape
    if p == 0:
        return np.zeros(0)
    lb = int(codes.max()) + 1
    flat = (np.arange(p) * la * lb)[None, :] + a_codes[:, None] * lb + codes
    joint = np.bincount(flat.ravel(), minlength=p * la * lb).reshape(p, la, lb)
    h_ab = -_plogp(joint, n).sum(axis=(1, 2))
    h_a = -_plogp(joint.sum(axis=2), n).sum(axis=1)
    h_b = -_plogp(joint.sum(axis=1), n).sum(axis=1)
    return np.maximum(h_a + h_b - h_ab, 0.0)


def mutual_info(a: np.ndarray, b: np.ndarray) -> float:
    """Mutual information in bits of two discrete columns.

    >>> mutual_info(np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0]))
    1.0
    """
    return float(mutual_info_many(a, np.asarray(b).reshape(-1, 1))[0])


def symmetric_uncertainty_many(a: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Symmetric uncertainty ``2 I(A;B) / (H(A) + H(B))`` of ``a`` with every column of ``B``.

    0 where both entropies are 0.

    >>> symmetric_uncertainty_many(np.array([0, 0, 1, 1]), np.array([[0, 1], [0, 1], [1, 1], [1, 1]])).tolist()
    [1.0, 0.0]
    """
    B = np.asarray(B)
    mi = mutual_info_many(a, B)
    h_a = entropy(a)
    h_b = np.array([entropy(B[:, j]) for j in range(B.shape[1])])
    den = h_a + h_b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2.0 * mi / np.where(den > 0, den, 1.0), 0.0)


def symmetric_uncertainty(a: np.ndarray, b: np.ndarray) -> float:
    """Symmetric uncertainty of two discrete columns (in [0, 1]).

    >>> symmetric_uncertainty(np.array([0, 1, 0, 1]), np.array([0, 1, 0, 1]))
    1.0
    """
    return float(symmetric_uncertainty_many(a, np.asarray(b).reshape(-1, 1))[0])


def _contingency(
    x: np.ndarray, y: np.ndarray, S: np.ndarray | None
) -> tuple[np.ndarray, int, int, int]:
    """Counts ``O[stratum, x, y]`` over the observed strata of ``S``, and the levels of x, y and S.

    Levels are those observed (:func:`encode`); the strata levels are the
    product of the levels of the columns of ``S``.
    """
    xc, lx = encode(x)
    yc, ly = encode(y)
    n = xc.size
    strata_levels = 1
    sc = np.zeros(n, dtype=np.int64)
    if S is not None and np.asarray(S).size:
        S = np.asarray(S).reshape(n, -1)
        for j in range(S.shape[1]):
            c, lev = encode(S[:, j])
            sc = sc * lev + c
            strata_levels *= lev
    sc, ls = encode(sc)
    O = np.bincount((sc * lx + xc) * ly + yc, minlength=ls * lx * ly).reshape(ls, lx, ly)
    return O.astype(float), lx, ly, strata_levels


def _expected(O: np.ndarray) -> np.ndarray:
    """Expected counts under independence within each stratum: ``n_{s,x} n_{s,y} / n_s``."""
    return (
        O.sum(axis=2, keepdims=True)
        * O.sum(axis=1, keepdims=True)
        / np.maximum(O.sum(axis=(1, 2), keepdims=True), 1)
    )


def _g2_statistic(O: np.ndarray) -> float:
    """``G = 2 sum O ln(O / E)`` over the cells with ``O > 0``, summed over the strata."""
    E = _expected(O)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(2.0 * np.sum(np.where(O > 0, O * np.log(O / np.where(E > 0, E, 1.0)), 0.0)))


def g2_test(x: np.ndarray, y: np.ndarray, S: np.ndarray | None = None) -> tuple[float, int, float]:
    """The G^2 test of ``x`` independent of ``y`` given the columns of ``S``: ``(G, dof, p)``.

    ``G = 2 sum O ln(O / E)`` over the strata of ``S`` with
    ``E = n_{s,x} n_{s,y} / n_s``; ``dof = (|X| - 1)(|Y| - 1) prod |S_i|``
    (levels as observed). ``dof = 0`` (a constant column) gives ``p = 1``.

    >>> x = np.array([0, 0, 1, 1] * 25); G, dof, p = g2_test(x, x)
    >>> round(G, 2), dof, p < 1e-10
    (138.63, 1, True)
    """
    O, lx, ly, strata_levels = _contingency(x, y, S)
    G = _g2_statistic(O)
    dof = (lx - 1) * (ly - 1) * strata_levels
    p = float(stats.chi2.sf(G, dof)) if dof > 0 else 1.0
    return G, int(dof), p


def chi2_test(
    x: np.ndarray, y: np.ndarray, S: np.ndarray | None = None
) -> tuple[float, int, float]:
    """Pearson's chi^2 test of ``x`` independent of ``y`` given ``S``: ``(X2, dof, p)``.

    ``X2 = sum (O - E)^2 / E`` over the cells with ``E > 0`` (no continuity
    correction), strata, ``E`` and ``dof`` as :func:`g2_test`.

    >>> x = np.array([0, 0, 1, 1] * 25); X2, dof, p = chi2_test(x, x)
    >>> X2, dof, p < 1e-10
    (100.0, 1, True)
    """
    O, lx, ly, strata_levels = _contingency(x, y, S)
    E = _expected(O)
    with np.errstate(divide="ignore", invalid="ignore"):
        X2 = float(np.sum(np.where(E > 0, (O - E) ** 2 / np.where(E > 0, E, 1.0), 0.0)))
    dof = (lx - 1) * (ly - 1) * strata_levels
    p = float(stats.chi2.sf(X2, dof)) if dof > 0 else 1.0
    return X2, int(dof), p


# ---------------------------------------------------------------------- LOFS's rules
def lofs_codes(x: np.ndarray, label: bool = False) -> np.ndarray:
    """A discrete column as LOFS reads it: integer codes ``1..max``.

    LOFS's discrete tests take a variable's values to be ``1..max(x)`` and
    count its levels as that maximum, observed or not. A feature column of
    integers ``>= 1`` is taken as LOFS codes and kept as it is; any other
    column (and a label) becomes the consecutive codes ``1..L`` of its sorted
    distinct values, the coding LOFS's manual asks for. To reproduce a LOFS
    run exactly, pass the codes given to LOFS.

    >>> lofs_codes(np.array([1, 3, 3])).tolist(), lofs_codes(np.array([-2, 0, 2])).tolist()
    ([1, 3, 3], [1, 2, 3])
    >>> lofs_codes(np.array([2, 1, 1]), label=True).tolist()
    [2, 1, 1]
    """
    x = np.asarray(x).ravel()
    if not label and x.size and np.issubdtype(x.dtype, np.number):
        xf = x.astype(np.float64)
        if np.all(np.isfinite(xf)) and xf.min() >= 1 and np.all(xf == np.round(xf)):
            return xf.astype(np.int64)
    return encode(x)[0] + 1


def lofs_ci_test(
    x: np.ndarray, y: np.ndarray, S: np.ndarray | None = None, test: str = "g2"
) -> tuple[float, int, float]:
    """LOFS's ``my_cond_indep_chisquare``: ``(statistic, df, p)`` for x independent of y given S.

    Every column holds LOFS codes ``1..max`` (:func:`lofs_codes`). The rules:

    - levels are column maxima: ``df = (max x - 1)(max y - 1) prod_s max s``,
      and ``df = 1`` when that is 0;
    - when ``n < 5 df`` the test is not run: ``(-1, df, 1.0)``, which reads as
      independent;
    - ``test="g2"``: ``G = 2 sum O ln(O / E)`` over the observed strata of S;
      ``test="chi2"``: Pearson's ``sum d^2 / E`` with ``d = |O - E| - 0.5``
      wherever ``E < 10`` (a continuity correction cell by cell) and
      ``d = O - E`` elsewhere, cells with ``E = 0`` left out;
    - ``p = 1 - P(chi2_df <= statistic)``; x and y are independent when
      ``p >= alpha``.

    >>> x = np.array([1, 1, 2, 2] * 5); y = x.copy()
    >>> stat, df, p = lofs_ci_test(x, y); round(stat, 3), df, p < 0.01
    (27.726, 1, True)
    >>> lofs_ci_test(x, y, np.full((20, 1), 5))  # df = 5 (S's maximum), 20 < 5 * 5: not tested
    (-1.0, 5, 1.0)
    """
    x = np.asarray(x, dtype=np.int64).ravel()
    y = np.asarray(y, dtype=np.int64).ravel()
    n = x.size
    S_arr = np.zeros((n, 0), dtype=np.int64) if S is None else np.asarray(S, dtype=np.int64)
    S_arr = S_arr.reshape(n, -1)
    if n == 0 or min(x.min(), y.min(), S_arr.min(initial=1)) < 1:
        raise InputError(
            "lofs_ci_test needs LOFS codes",
            expected="integers 1..max in every column",
            received="an empty column or a value below 1",
            fix="convert each column with lofs_codes() first",
        )
    nx, ny = int(x.max()), int(y.max())
    qs = math.prod(int(v) for v in S_arr.max(axis=0)) if S_arr.shape[1] else 1
    df = (nx - 1) * (ny - 1) * qs
    df = df if df > 0 else 1
    if n < 5 * df:
        return -1.0, df, 1.0
    if S_arr.shape[1]:
        strata = np.unique(S_arr, axis=0, return_inverse=True)[1].ravel()
        ls = int(strata.max()) + 1
    else:
        strata, ls = np.zeros(n, dtype=np.int64), 1
    O = np.bincount((strata * nx + x - 1) * ny + y - 1, minlength=ls * nx * ny)
    O = O.reshape(ls, nx, ny).astype(float)
    if test == "g2":
        stat = _g2_statistic(O)
    elif test == "chi2":
        E = _expected(O)
        d = np.where(E < 10, np.abs(O - E) - 0.5, O - E)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = float(np.sum(np.where(E > 0, d * d / np.where(E > 0, E, 1.0), 0.0)))
    else:
        raise InputError(
            "unknown test", expected="'g2' or 'chi2'", received=repr(test), fix="pass test='g2'"
        )
    return stat, df, float(1.0 - special.gammainc(0.5 * df, 0.5 * stat))
