"""Streaming-feature selection: tests against closed forms, LOFS's facts, and known answers."""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest
from scipy.spatial.distance import squareform
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from conftest import requires_data
from evofeat.base.errors import InputError
from evofeat.selection import CEOFS, COFS, OSFS, SAOLA, SELECTORS, AlphaInvesting, FastOSFS
from evofeat.selection.citests import (
    FisherZTester,
    G2Tester,
    correlations,
    entropy,
    fisher_z_independent,
    fisher_z_stat,
    g2_test,
    mutual_info,
    mutual_info_many,
    partial_corr,
    standardize,
    symmetric_uncertainty,
)
from evofeat.selection.groups import (
    coassociation_distance,
    consensus_groups,
    ensemble_groups,
    feature_kmeans,
)
from evofeat.streams.feature_stream import feature_stream
from reference.fisher import NumpyFisherZTester

# ---------------------------------------------------------------------- helpers


def _residual(v: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Residual of v regressed on [1, S] by least squares."""
    A = np.column_stack([np.ones(v.size), S])
    return v - A @ np.linalg.lstsq(A, v, rcond=None)[0]


def _known_groups(seed: int = 3, n: int = 600) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """3 relevant latent groups of 4 noisy copies + 20 noise columns, shuffled; group of each column."""
    rng = np.random.default_rng(seed)
    lat = rng.normal(size=(n, 3))
    X = np.column_stack(
        [lat[:, [g]] + 0.3 * rng.normal(size=(n, 4)) for g in range(3)] + [rng.normal(size=(n, 20))]
    )
    group = np.r_[np.repeat([0, 1, 2], 4), -np.ones(20, dtype=int)]
    y = np.where(lat @ np.array([1.0, -1.0, 0.8]) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    perm = rng.permutation(X.shape[1])
    return X[:, perm], y, group[perm]


def _stream_fit(sel, X: np.ndarray, y: np.ndarray, n_hist: int):  # type: ignore[no-untyped-def]
    sel.fit(X[:, :n_hist], y)
    for j in range(n_hist, X.shape[1]):
        sel.add_feature(X[:, j])
    return sel


# ---------------------------------------------------------------------- citests: closed forms


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_partial_corr_equals_regression_residual_correlation(k: int) -> None:
    rng = np.random.default_rng(k)
    S = rng.normal(size=(300, k))
    x = S.sum(axis=1) + rng.normal(size=300)
    y = 0.5 * x + S @ rng.normal(size=k) + rng.normal(size=300)
    C = np.cov(np.column_stack([x, y, S]), rowvar=False)
    rx, ry = _residual(x, S), _residual(y, S)
    expected = rx @ ry / math.sqrt((rx @ rx) * (ry @ ry))
    assert partial_corr(C, 0, 1, list(range(2, 2 + k))) == pytest.approx(expected, abs=1e-12)


def test_fisher_z_statistic_closed_form() -> None:
    r, n, k = 0.3, 57, 2
    W = math.sqrt(n - k - 3) * 0.5 * math.log((1 + r) / (1 - r))
    assert float(fisher_z_stat(r, n, k)) == pytest.approx(W, rel=1e-14)
    assert np.isnan(fisher_z_stat(0.3, 4, 1))  # n - |S| - 3 <= 0


def test_fisher_z_is_strict_and_nan_is_independent() -> None:
    # alpha = 1 puts the cutoff at exactly 0: W = 0 is then *dependent* (|W| < 0 is false)
    assert not fisher_z_independent(0.0, n=100, alpha=1.0)
    assert fisher_z_independent(np.nan, n=100, alpha=0.05)
    # |W| just below and above the 5% cutoff 1.959963984540054
    c = 1.959963984540054
    r_lo, r_hi = math.tanh((c - 1e-9) / math.sqrt(97)), math.tanh((c + 1e-9) / math.sqrt(97))
    assert fisher_z_independent(r_lo, n=100) and not fisher_z_independent(r_hi, n=100)


def test_constant_column_gives_nan_correlation() -> None:
    Z = standardize(np.column_stack([np.arange(5.0), np.full(5, 3.0)]))
    assert np.isnan(correlations(Z, Z[:, 0])[1])


def test_singular_conditioning_set_gives_nan() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=50)
    C = np.cov(np.column_stack([rng.normal(size=50), rng.normal(size=50), a, a]), rowvar=False)
    C[3, :] = C[2, :]
    C[:, 3] = C[:, 2]  # exactly singular block
    assert np.isnan(partial_corr(C, 0, 1, [2, 3]))


def test_g2_closed_form_with_and_without_strata() -> None:
    rng = np.random.default_rng(1)
    x, y, s = rng.integers(0, 3, 400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    y = np.where(rng.random(400) < 0.3, x % 2, y)

    def g(xx: np.ndarray, yy: np.ndarray) -> float:
        total = 0.0
        for a in np.unique(xx):
            for b in np.unique(yy):
                o = np.sum((xx == a) & (yy == b))
                e = np.sum(xx == a) * np.sum(yy == b) / xx.size
                total += 2 * o * math.log(o / e) if o else 0.0
        return total

    G, dof, p = g2_test(x, y)
    assert G == pytest.approx(g(x, y)) and dof == 2 and 0 <= p < 0.05
    assert G == pytest.approx(2 * 400 * math.log(2) * mutual_info(x, y))  # G = 2 n I (nats)
    Gs, dofs, _ = g2_test(x, y, s.reshape(-1, 1))
    assert Gs == pytest.approx(sum(g(x[s == v], y[s == v]) for v in (0, 1))) and dofs == 4
    assert g2_test(np.zeros(10), y[:10])[2] == 1.0  # a constant column: dof 0, independent


def test_entropy_mutual_information_and_su_closed_forms() -> None:
    a = np.array([0, 0, 1, 1, 1, 1, 0, 1])
    b = np.array([0, 1, 1, 1, 0, 1, 0, 1])
    p = {(u, v): np.mean((a == u) & (b == v)) for u in (0, 1) for v in (0, 1)}
    mi = sum(
        q * math.log2(q / (np.mean(a == u) * np.mean(b == v))) for (u, v), q in p.items() if q > 0
    )
    ha = -sum(q * math.log2(q) for q in (np.mean(a == 0), np.mean(a == 1)))
    assert entropy(a) == pytest.approx(ha)
    assert mutual_info(a, b) == pytest.approx(mi)
    assert symmetric_uncertainty(a, b) == pytest.approx(2 * mi / (ha + entropy(b)))
    assert symmetric_uncertainty(a, a) == pytest.approx(1.0)
    B = np.column_stack([b, a, 1 - a])
    assert mutual_info_many(a, B) == pytest.approx([mutual_info(a, B[:, j]) for j in range(3)])


# ---------------------------------------------------------------------- citests: the search of a separating set


def _tester_pair(X: np.ndarray, y: np.ndarray) -> list[FisherZTester]:
    ts = [FisherZTester(y, 0.05), NumpyFisherZTester(y, 0.05)]
    for t in ts:
        for j in range(X.shape[1]):
            t.add(j, X[:, j])
    return ts


def test_separating_set_follows_size_then_lexicographic_order() -> None:
    rng = np.random.default_rng(0)
    d = rng.normal(size=2000)
    x = d + 0.3 * rng.normal(size=2000)
    y = d + 0.3 * rng.normal(size=2000)
    X = np.column_stack([x, rng.normal(size=2000), d, d + 1e-3 * rng.normal(size=2000)])
    for t in _tester_pair(X, y):
        # {1} (noise) does not separate; {2} and {3} both do: the first in pool order wins
        assert t.separating_set(0, [1, 2, 3], 3) == (2,)
        assert t.separating_set(0, [1, 3, 2], 3) == (3,)
        assert t.separating_set(0, [1], 3) is None
        # with `require`, only sets holding it: {1} fails, then {1, 3} (positions 0, 1) comes first
        assert t.separating_set(0, [1, 3, 2], 3, require=1) == (1, 3)
        assert t.separating_set(0, [1, 2, 3], 3, require=1) == (1, 2)


def test_compiled_search_agrees_with_numpy_reference() -> None:
    rng = np.random.default_rng(1)
    for trial in range(150):
        n, p = int(rng.integers(8, 60)), int(rng.integers(1, 7))
        B = rng.normal(size=(n, p + 1))
        B[:, 1:] += rng.uniform(0, 2) * B[:, [0]]
        y = B[:, 0] * rng.uniform(0, 1) + rng.normal(size=n)
        if trial % 5 == 0 and p >= 2:
            B[:, 2] = B[:, 1]  # a singular conditioning block
        fast, ref = _tester_pair(B, y)
        pool = list(range(1, p + 1))
        for req in (None, pool[-1]):
            assert fast.separating_set(0, pool, 3, req) == ref.separating_set(0, pool, 3, req), (
                trial
            )


def test_g2_tester_finds_the_separating_variable() -> None:
    rng = np.random.default_rng(2)
    d = rng.integers(0, 2, 3000)
    flip = lambda v, q: np.where(rng.random(v.size) < q, 1 - v, v)  # noqa: E731
    x, y = flip(d, 0.1), flip(d, 0.1)
    t = G2Tester(y, 0.01)
    for j, col in enumerate([x, rng.integers(0, 2, 3000), d]):
        t.add(j, col)
    assert t.separating_set(0, [1, 2], 3) == (2,)


# ---------------------------------------------------------------------- groups


def test_coassociation_distance_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    runs = rng.integers(0, 4, size=(7, 300))
    W = np.mean(runs[:, :, None] == runs[:, None, :], axis=0)
    D = coassociation_distance(runs, block=64)
    assert D.dtype == np.float32
    np.testing.assert_allclose(D, squareform(1 - W, checks=False), atol=1e-6)


def _average_linkage_by_hand(runs: np.ndarray, theta: float) -> list[frozenset[int]]:
    W = np.mean(runs[:, :, None] == runs[:, None, :], axis=0)
    groups = [[i] for i in range(runs.shape[1])]
    while len(groups) > 1:
        best, pair = -1.0, None
        for a, b in itertools.combinations(range(len(groups)), 2):
            s = W[np.ix_(groups[a], groups[b])].mean()
            if s > best:
                best, pair = s, (a, b)
        if best <= theta + 1e-9 or pair is None:
            break
        a, b = pair
        groups[a] = groups[a] + groups[b]
        del groups[b]
    return [frozenset(g) for g in groups]


@pytest.mark.parametrize("theta", [0.3, 0.5, 0.7])
def test_consensus_groups_equal_hand_written_average_linkage(theta: float) -> None:
    # many runs, so that average similarities hardly ever tie (with ties the merge order, and so
    # the cut, may legitimately differ)
    rng = np.random.default_rng(int(theta * 10))
    base = rng.integers(0, 3, 14)
    runs = np.array(
        [np.where(rng.random(14) < 0.3, rng.integers(0, 3, 14), base) for _ in range(997)]
    )
    labels = consensus_groups(runs, theta)
    ours = {frozenset(np.flatnonzero(labels == g).tolist()) for g in np.unique(labels)}
    assert ours == set(_average_linkage_by_hand(runs, theta))


def test_one_run_gives_the_kmeans_partition() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 30))
    labels = feature_kmeans(X, 5, np.random.default_rng(7))
    groups = ensemble_groups(
        X, n_runs=1, n_clusters=5, bootstrap=False, rng=np.random.default_rng(7)
    )
    assert {frozenset(np.flatnonzero(labels == g)) for g in np.unique(labels)} == {
        frozenset(np.flatnonzero(groups == g)) for g in np.unique(groups)
    }


def test_feature_kmeans_finds_correlated_blocks_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(200, 4))
    X = np.repeat(base, 5, axis=1) + 0.2 * rng.normal(size=(200, 20))
    a = feature_kmeans(X, 4, np.random.default_rng(3))
    assert np.array_equal(a, feature_kmeans(X, 4, np.random.default_rng(3)))
    assert all(np.unique(a[5 * g : 5 * g + 5]).size == 1 for g in range(4))
    assert np.unique(a).size == 4


# ---------------------------------------------------------------------- selectors: LOFS facts and references


def test_osfs_shortcut_equals_retesting_every_set() -> None:
    class Exhaustive(OSFS):
        """OSFS re-testing each older member against every set, not only the newcomer's."""

        def _independent(self, key: int, pool: list[int], require: int | None = None) -> bool:
            return super()._independent(key, pool)

    for seed in range(4):
        X, y, _ = _known_groups(seed, n=300)
        assert OSFS().fit(X, y).selected_ == Exhaustive().fit(X, y).selected_


def test_osfs_removes_an_older_feature_made_redundant_and_fast_osfs_discards_the_newcomer() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 12))
    X[:, 5] = X[:, 0] + 0.05 * rng.normal(size=400)
    y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    assert OSFS().fit(X, y).selected_ == [3, 5]
    assert FastOSFS().fit(X, y).selected_ == [0, 3]


def test_lofs_variant_skips_columns_summing_to_zero() -> None:
    rng = np.random.default_rng(0)
    X = rng.integers(-5, 6, size=(300, 5)).astype(float)
    X[0, 2] -= X[:, 2].sum()  # integer values: the sum is exactly 0 in any order
    assert X.sum(axis=0)[2] == 0.0
    y = np.where(X[:, 2] > 0, 1, -1)
    for cls in (OSFS, FastOSFS, SAOLA):
        assert 2 in cls(variant="textbook").fit(X, y).get_support(indices=True)
        assert 2 not in cls(variant="lofs").fit(X, y).get_support(indices=True)


def test_saola_tie_rule_textbook_vs_lofs() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=500)
    X = np.column_stack([x, x, rng.normal(size=500)])  # column 1 is an exact copy of column 0
    y = np.where(x + 0.5 * rng.normal(size=500) > 0, 1, -1)
    # equal dep: LOFS's saola_z_test removes the newcomer (dep(j) >= dep(i), |r| = 1 > dep(i));
    # the paper's rule needs I(Y;C) > I(F;C) and keeps both
    assert SAOLA(variant="lofs").fit(X, y).selected_ == [0]
    assert SAOLA(variant="textbook").fit(X, y).selected_ == [0, 1]
    Xd = np.column_stack([(x > 0).astype(int)] * 2 + [rng.integers(0, 2, 500)])
    # saola_mi is strict everywhere: equal SU keeps both copies (and with delta = 0 any SU > 0 is relevant)
    assert SAOLA(test="mi", variant="lofs").fit(Xd, y).selected_[:2] == [0, 1]


def _alpha_investing_by_hand(
    X: np.ndarray, y: np.ndarray, variant: str, pvalue: str | None = None
) -> tuple[list[int], float]:
    """Alpha-investing from its rules: the textbook chi^2 likelihood-ratio test, or LOFS's.

    LOFS's ``Alpha_Investing``: the first column is kept untested, the fits are
    ``inv(X'X) X'y`` without an intercept, ``sigma2 = SSE_old / n`` and
    ``p = exp((SSE_new - SSE_old) / (2 sigma2))``.
    """
    from scipy import stats

    n = y.size
    lofs = variant == "lofs"
    exp_rule = lofs if pvalue is None else pvalue == "exp"
    design = [X[:, 0]] if lofs else [np.ones(n)]
    chosen, w = ([0] if lofs else []), 0.5

    def sse(A: np.ndarray) -> float:
        r = y - A @ (np.linalg.inv(A.T @ A) @ A.T @ y)
        return float(r @ r)

    for j in range(1 if lofs else 0, X.shape[1]):
        i = j + (1 if lofs else 2)
        rss0 = sse(np.column_stack(design))
        rss1 = sse(np.column_stack([*design, X[:, j]]))
        if exp_rule:
            p = math.exp((rss1 - rss0) / (2 * rss0 / n))
        else:
            p = stats.chi2.sf(n * math.log(rss0 / rss1), 1)
        level = w / (2 * i)
        if p < level:
            chosen.append(j)
            design.append(X[:, j])
            w += 0.5 - level
        else:
            w -= level
    return chosen, w


@pytest.mark.parametrize("variant", ["textbook", "lofs"])
def test_alpha_investing_matches_least_squares_by_hand(variant: str) -> None:
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 25))
    y = np.where(X[:, 3] - X[:, 10] + 0.7 * X[:, 0] + 0.5 * rng.normal(size=150) > 0, 1.0, -1.0)
    sel = AlphaInvesting(variant=variant).fit(X[:, :15], y)
    for j in range(15, 25):
        sel.add_feature(X[:, j])
    chosen, wealth = _alpha_investing_by_hand(X, y, variant)
    assert sel.selected_ == chosen
    assert sel.wealth_ == pytest.approx(wealth)


def test_alpha_investing_lofs_p_value_is_not_the_chi2_tail() -> None:
    # exp(-dSSE / (2 SSE_old / n)) against P(chi2_1 > n ln(SSE_old / SSE_new)): on many weak
    # features the two rules select differently, and the lofs variant follows LOFS's
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 40))
    y = X[:, 0] + 0.06 * X[:, 1:].sum(axis=1) + rng.normal(size=300)
    lofs_rule = _alpha_investing_by_hand(X, y, "lofs", pvalue="exp")[0]
    assert lofs_rule != _alpha_investing_by_hand(X, y, "lofs", pvalue="chi2")[0]
    assert AlphaInvesting(variant="lofs").fit(X, y).selected_ == lofs_rule


def test_alpha_investing_lofs_keeps_the_first_column_untested() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = np.where(X[:, 4] > 0, 1, -1)
    assert AlphaInvesting(variant="lofs").fit(X, y).selected_[0] == 0
    assert 0 not in AlphaInvesting().fit(X, y).selected_


def test_ceofs_online_phase_joins_or_starts_groups() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(400, 2))
    X = np.repeat(base, 4, axis=1) + 0.3 * rng.normal(size=(400, 8))
    y = np.where(base[:, 0] > 0, 1, -1)
    sel = CEOFS(n_clusters=2, seed=0).fit(X, y)
    assert sel.n_groups_historical_ == 2
    # a near copy of the label's driver joins group 0 and becomes its representative
    strong = base[:, 0] + 0.01 * rng.normal(size=400)
    sel.add_feature(strong)
    assert sel.group_of_[-1] == sel.group_of_[0] and sel.representatives_[sel.group_of_[0]] == 8
    # related to no group: a new group, whose representative is not relevant: dropped
    sel.add_feature(rng.normal(size=400))
    assert sel.representatives_.size == 3 and 9 not in sel.get_support(indices=True)
    assert sel.get_support(indices=True).tolist() == [8]
    # theta2 above every relation: the strong copy starts its own group
    sel2 = CEOFS(n_clusters=2, seed=0, theta2=0.9999).fit(X, y)
    sel2.add_feature(strong)
    assert sel2.representatives_.size == 3


def test_cofs_is_ceofs_without_the_ensemble() -> None:
    X, y, _ = _known_groups(1, n=300)
    a = COFS(n_clusters=5).fit(X, y)
    b = CEOFS(n_runs=1, bootstrap=False, n_clusters=5).fit(X, y)
    assert np.array_equal(a.group_of_, b.group_of_) and np.array_equal(
        a.get_support(), b.get_support()
    )


# ---------------------------------------------------------------------- selectors: generic checks

ALL = sorted(SELECTORS)


@pytest.mark.parametrize("name", ALL)
def test_finds_every_relevant_group(name: str) -> None:
    X, y, group = _known_groups()
    sel = _stream_fit(SELECTORS[name](), X, y, 24)
    chosen = group[sel.get_support(indices=True)]
    assert set(chosen[chosen >= 0].tolist()) == {0, 1, 2}
    assert np.sum(chosen < 0) <= 2  # few noise columns (alpha = 0.05 on 20 of them)


@pytest.mark.parametrize("name", ALL)
def test_seeded_runs_are_identical_and_clone_works(name: str) -> None:
    X, y, _ = _known_groups(5, n=200)
    a = _stream_fit(SELECTORS[name](), X, y, 20)
    b = _stream_fit(clone(SELECTORS[name]()), X, y, 20)
    assert np.array_equal(a.get_support(), b.get_support())
    assert a.get_params() == b.get_params()
    c = pickle.loads(pickle.dumps(a))  # a pickled selector goes on reading the stream identically
    a.add_feature(X[:, 0] + X[:, 1])
    c.add_feature(X[:, 0] + X[:, 1])
    assert np.array_equal(a.get_support(), c.get_support())


@pytest.mark.parametrize("name", ALL)
def test_budget_holds_and_keeps_the_most_relevant(name: str) -> None:
    X, y, _ = _known_groups()
    free = _stream_fit(SELECTORS[name](), X, y, 24).get_support(indices=True)
    for budget, cap in ((2, 2), (0.05, 1)):
        sel = _stream_fit(SELECTORS[name](budget=budget), X, y, 24)
        got = sel.get_support(indices=True)
        assert got.size == min(cap, free.size)
        expect = free[np.argsort(-sel.relevance_[free], kind="stable")][: got.size]
        assert set(got.tolist()) == set(expect.tolist())
    for bad in (0, -1, 1.5, 0.0, "3", True):
        with pytest.raises(InputError, match="budget"):
            SELECTORS[name](budget=bad).fit(X, y)


@pytest.mark.parametrize("name", ALL)
def test_support_and_transform_grow_with_the_stream(name: str) -> None:
    X, y, _ = _known_groups(2, n=200)
    sel = SELECTORS[name]().fit(X[:, :20], y)
    assert sel.get_support().size == 20
    sel.partial_fit(X[:, 20:30])
    sel.add_feature(X[:, 30:31])
    sel.add_feature(X[:, 31])
    assert sel.get_support().size == sel.n_features_in_ == 32
    assert sel.transform(X).shape == (200, sel.get_support().sum())
    with pytest.raises(ValueError):
        sel.transform(X[:, :20])


@pytest.mark.parametrize("name", ALL)
def test_constant_columns_are_never_selected(name: str) -> None:
    X, y, _ = _known_groups(0, n=200)
    X = np.column_stack([np.full(200, 2.0), X, np.zeros(200)])
    sel = _stream_fit(SELECTORS[name](), X, y, 10)
    chosen = sel.get_support(indices=True)
    if name == "alpha-investing":
        assert 0 not in chosen  # the textbook variant has its own constant term
    else:
        assert 0 not in chosen and X.shape[1] - 1 not in chosen


@pytest.mark.parametrize("name", ALL)
def test_bad_input_raises_clear_errors(name: str) -> None:
    X, y, _ = _known_groups(0, n=100)
    cls = SELECTORS[name]
    with pytest.raises(NotFittedError):
        cls().add_feature(X[:, 0])
    with pytest.raises(NotFittedError):
        cls().get_support()
    bad = X.copy()
    bad[3, 4] = np.nan
    with pytest.raises(InputError, match="column 4"):
        cls().fit(bad, y)
    with pytest.raises(InputError, match="single class"):
        cls().fit(X, np.ones(100))
    with pytest.raises(InputError, match="labels do not match"):
        cls().fit(X, y[:-1])
    with pytest.raises(InputError, match="2-D"):
        cls().fit(X[:, 0], y)
    with pytest.raises(InputError, match="not numeric"):
        cls().fit(np.array([["a", "b"]] * 100), y)
    with pytest.raises(InputError, match="partial_fit"):
        cls().partial_fit(X)
    sel = cls().fit(X, y)
    with pytest.raises(InputError, match="100 rows"):
        sel.add_feature(np.ones(99))
    with pytest.raises(InputError, match="one column"):
        sel.add_feature(X[:, :2])


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (CEOFS, {"theta": 2.0}),
        (CEOFS, {"test": "g2"}),
        (CEOFS, {"n_runs": 0}),
        (COFS, {"alpha": 0.0}),
        (OSFS, {"variant": "matlab"}),
        (FastOSFS, {"max_cond_size": -1}),
        (SAOLA, {"test": "g2"}),
        (AlphaInvesting, {"wealth": 0.0}),
    ],
)
def test_bad_parameters_name_the_parameter(cls: type, params: dict) -> None:  # type: ignore[type-arg]
    X, y, _ = _known_groups(0, n=100)
    with pytest.raises(InputError, match=next(iter(params))):
        cls(**params).fit(X, y)


def test_discrete_tests_find_the_relevant_columns() -> None:
    rng = np.random.default_rng(0)
    d = rng.integers(0, 3, 800)
    X = np.column_stack(
        [np.where(rng.random(800) < 0.2, rng.integers(0, 3, 800), d) for _ in range(3)]
        + [rng.integers(0, 3, 800) for _ in range(9)]
    )
    y = np.where(d == 2, 1, -1)
    for sel in (
        CEOFS(test="mi", n_clusters=4),
        COFS(test="mi", n_clusters=4),
        OSFS(test="g2"),
        FastOSFS(test="g2"),
        SAOLA(test="mi"),
    ):
        chosen = set(_stream_fit(sel, X, y, 9).get_support(indices=True).tolist())
        assert chosen & {0, 1, 2} and len(chosen - {0, 1, 2}) <= 1, type(sel).__name__


# ---------------------------------------------------------------------- the scenario


def test_feature_stream_split_rule() -> None:
    X, y = np.arange(30.0).reshape(3, 10), np.array([1, -1, 1])
    s = feature_stream(X, y, seed=4)
    perm = np.random.default_rng(4).permutation(10)
    assert (
        s.historical.tolist() == sorted(perm[:8].tolist())
        and s.arriving.tolist() == perm[8:].tolist()
    )
    assert [j for j, _ in s.columns()] == perm[8:].tolist()
    assert np.array_equal(s.X_historical, X[:, s.historical]) and sorted(s.order.tolist()) == list(
        range(10)
    )
    assert feature_stream(X, y, historical_fraction=0.0).historical.size == 0
    assert feature_stream(np.zeros((2, 617)), np.array([1, -1])).historical.size == 494
    import scipy.sparse as sp

    cols = dict(feature_stream(sp.csr_matrix(X), y, seed=4).columns())
    assert np.array_equal(cols[int(perm[9])], X[:, perm[9]])
    with pytest.raises(InputError, match="historical_fraction"):
        feature_stream(X, y, historical_fraction=1.5)
    with pytest.raises(InputError, match="labels"):
        feature_stream(X, y[:2])


# ---------------------------------------------------------------------- real data

# fmt: off
MADELON_RELEVANT = {28, 48, 64, 105, 128, 153, 241, 281, 318, 336, 338, 378, 433, 442, 451, 453, 455, 472,
                    475, 493}
# fmt: on


@requires_data("madelon")
def test_madelon_selections_draw_on_the_twenty_relevant_features() -> None:
    """Madelon's 20 relevant features are redundant combinations of 5: selectors keep a few of them
    (chance alone would give 4% of a selection), and their most relevant pick is one of them."""
    from evofeat.datasets import load

    ds = load("madelon")
    X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y)
    s = feature_stream(X, y, seed=0)
    for sel, least in ((SAOLA(), 1), (FastOSFS(), 2), (COFS(), 3)):
        sel.fit(s.X_historical, y)
        for _, col in s.columns():
            sel.add_feature(col)
        idx = sel.get_support(indices=True)
        chosen = set(s.order[idx].tolist())
        assert len(chosen & MADELON_RELEVANT) >= least, type(sel).__name__
        assert int(s.order[idx[np.argmax(sel.relevance_[idx])]]) in MADELON_RELEVANT
