"""The ``variant="lofs"`` selectors against LOFS's rules and against LOFS's own runs.

``tests/data/lofs/oracle.tsv`` holds what LOFS's MATLAB code (github.com/kuiy/LOFS,
run under Octave 7.3 by ``benchmarks/investigations/lofs_oracle.m``) selects on
its example data ``spect.mat`` (kept here as ``spect.csv``) and on wdbc and
colon-discretized from the shared data folder; ``oracle_differ.tsv`` holds 15
more runs (``lofs_oracle.m ... differ``) where LOFS's rules and the textbook
rules select differently.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import special
from scipy.stats import chi2_contingency

from evofeat.base.errors import InputError
from evofeat.selection import OSFS, FastOSFS
from evofeat.selection.citests import G2Tester, lofs_ci_test, lofs_codes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "investigations"))
import lofs_exactness  # noqa: E402


# ---------------------------------------------------------------------- the test's rules, by hand
def _g2_by_scipy(x: np.ndarray, y: np.ndarray, s: np.ndarray) -> float:
    """G^2 summed over the strata, each stratum's table by scipy (observed rows and columns)."""
    total = 0.0
    for v in np.unique(s):
        m = s == v
        tab = np.array(
            [[np.sum((x[m] == a) & (y[m] == b)) for b in np.unique(y[m])] for a in np.unique(x[m])]
        )
        if min(tab.shape) > 1:
            total += chi2_contingency(tab, correction=False, lambda_="log-likelihood")[0]
    return total


def test_g2_statistic_equals_scipy_log_likelihood_and_df_counts_column_maxima() -> None:
    rng = np.random.default_rng(3)
    n = 600
    s = rng.integers(1, 3, n)
    x = rng.choice([1, 3], n)  # level 2 never observed: LOFS still counts 3 levels
    y = np.where(rng.random(n) < 0.3, (x > 1) + 1, rng.integers(1, 3, n))
    G, df, p = lofs_ci_test(x, y, s.reshape(-1, 1))
    assert G == pytest.approx(_g2_by_scipy(x, y, s), rel=1e-12)
    assert df == (3 - 1) * (2 - 1) * 2  # column maxima, not the 2 observed levels of x
    assert p == pytest.approx(1 - special.gammainc(df / 2, G / 2), abs=0)
    G0, df0, _ = lofs_ci_test(x, y)
    assert G0 == pytest.approx(_g2_by_scipy(x, y, np.ones(n)), rel=1e-12) and df0 == 2


def test_too_few_rows_for_the_degrees_of_freedom_read_as_independent() -> None:
    # a perfectly dependent pair: 5 * df = 5 * (2 - 1)(2 - 1) * 4 = 20 rows are needed given S
    x = np.array([1, 2] * 10)
    s = np.repeat([1, 2, 3, 4], 5)
    assert lofs_ci_test(x[:19], x[:19], s[:19].reshape(-1, 1)) == (-1.0, 4, 1.0)  # 19 < 20
    stat, df, p = lofs_ci_test(x, x, s.reshape(-1, 1))  # 20 rows: tested, and dependent
    assert stat > 0 and df == 4 and p < 0.01
    t = G2Tester(x[:19].copy(), alpha=0.05, rule="lofs")
    assert t.independent(lofs_codes(x[:19]), s[:19].reshape(-1, 1))
    assert not G2Tester(x[:19].copy(), alpha=0.05).independent(x[:19] - 1, s[:19].reshape(-1, 1))


def test_chi2_corrects_each_cell_with_an_expected_count_below_ten() -> None:
    O = np.array([[30, 5], [10, 15]])  # expected [[26.67, 8.33], [13.33, 6.67]]: three cells < 10
    x = np.repeat([1, 1, 2, 2], O.ravel())
    y = np.repeat([1, 2, 1, 2], O.ravel())
    E = O.sum(1, keepdims=True) * O.sum(0, keepdims=True) / O.sum()
    d = np.where(E < 10, np.abs(O - E) - 0.5, O - E)
    stat, df, p = lofs_ci_test(x, y, test="chi2")
    assert stat == pytest.approx(float(np.sum(d * d / E)), rel=1e-12) and df == 1
    plain = float(np.sum((O - E) ** 2 / E))
    assert stat != pytest.approx(plain)  # not Pearson's plain statistic
    assert p == pytest.approx(1 - special.gammainc(0.5, stat / 2), abs=0)


def test_independence_is_p_at_least_alpha_and_codes_are_checked() -> None:
    x = np.repeat([1, 1, 2, 2], [30, 20, 20, 30])
    y = np.repeat([1, 2, 1, 2], [30, 20, 20, 30])
    p = lofs_ci_test(x, y)[2]
    assert G2Tester(y, alpha=p, rule="lofs").independent(x)  # p >= alpha: independent
    assert not G2Tester(y, alpha=np.nextafter(p, 1), rule="lofs").independent(x)
    with pytest.raises(InputError, match="LOFS codes"):
        lofs_ci_test(x - 1, y)


def test_lofs_osfs_keeps_only_the_last_relevant_feature_when_no_conditional_test_can_run() -> None:
    # 40 rows, binary label, 3-level features: df given one feature is 2 * 3 = 6, 5 * 6 = 30 <= 40,
    # given two 18 (90 > 40): LOFS tests pairs, and every newcomer that is relevant is kept;
    # with 25 rows even one feature cannot be conditioned on (30 > 25): each newcomer makes the
    # older members independent without a test, so OSFS keeps only the last relevant one
    rng = np.random.default_rng(1)
    d = rng.integers(1, 4, 25)
    X = np.column_stack(
        [np.where(rng.random(25) < 0.1, rng.integers(1, 4, 25), d) for _ in range(4)]
    )
    y = (d == 3).astype(int) + 1
    sel = OSFS(test="g2", variant="lofs").fit(X, y)
    relevant = [j for j in range(4) if lofs_ci_test(X[:, j], y)[2] < 0.05]
    assert len(relevant) >= 2 and sel.selected_ == relevant[-1:]


# ---------------------------------------------------------------------- LOFS's own runs
RUNS = lofs_exactness.oracle()


@pytest.mark.parametrize("name", sorted(RUNS))
def test_selects_exactly_what_lofs_selects(name: str) -> None:
    got = lofs_exactness.ours(name)
    if got is None:
        pytest.skip(f"{name}: needs its data set (set EVOFEAT_DATA to the shared data folder)")
    assert got == RUNS[name]


def test_the_oracle_covers_every_lofs_selector() -> None:
    methods = {name.split("/")[1] for name in RUNS}
    assert methods == {
        "osfs_d",
        "fast_osfs_d",
        "osfs_z",
        "fast_osfs_z",
        "saola_z_test",
        "alpha_investing",
    }
    assert any("/chi2/" in name for name in RUNS) and any(RUNS[n] for n in RUNS if "spect" in n)


def test_spect_runs_separate_the_lofs_rules_from_the_textbook_ones() -> None:
    # on 80 rows the n < 5 df rule and the column-maximum levels change what Fast-OSFS keeps
    d = lofs_exactness.spect()[:80]
    X, y = d[:, :-1], d[:, -1]
    lofs = FastOSFS(alpha=0.05, test="chi2", variant="lofs").fit(X, y).selected_
    text = FastOSFS(alpha=0.05, test="chi2").fit(X, y).selected_
    assert [j + 1 for j in lofs] == RUNS["spect80/fast_osfs_d/chi2/0.05"] and lofs != text


DIFFER = lofs_exactness.oracle(("oracle_differ.tsv",))


@pytest.mark.parametrize("name", sorted(DIFFER))
def test_second_oracle_runs_tell_the_lofs_rules_from_the_textbook_ones(name: str) -> None:
    # each run of oracle_differ.tsv is one where LOFS's rules and the textbook rules select
    # differently: matching LOFS there cannot come from the textbook rules
    text = lofs_exactness.ours(name, "textbook")
    if text is None:
        pytest.skip(f"{name}: needs its data set (set EVOFEAT_DATA to the shared data folder)")
    assert text != DIFFER[name] and lofs_exactness.ours(name) == DIFFER[name]


def test_second_oracle_holds_alpha_investing_runs_beyond_wdbc() -> None:
    ai = [name for name in DIFFER if name.endswith("/alpha_investing")]
    assert len(ai) >= 5 and {name.split("/")[0][:4] for name in ai} >= {"spec", "wdbc", "colo"}
    assert set(DIFFER) <= set(RUNS)
