"""The selectors' G^2 test and mutual information give the numbers of the well-kept libraries:
SciPy's ``chi2_contingency(..., lambda_="log-likelihood")`` (no Yates correction) for the
unconditional G^2 and scikit-learn's ``mutual_info_score`` (in nats) for the mutual information,
so either can replace the hand-written forms; the marginal step of the selectors uses them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import mutual_info_score

from evofeat.selection._base import marginal_association
from evofeat.selection.citests import g2_test, mutual_info_many


def _scipy_g2(x: np.ndarray, y: np.ndarray) -> tuple[float, int, float]:
    table = stats.contingency.crosstab(x, y).count
    if min(table.shape) < 2:
        return 0.0, 0, 1.0
    res = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    return float(res.statistic), int(res.dof), float(res.pvalue)


@pytest.mark.parametrize("seed", range(5))
def test_g2_and_mutual_information_equal_scipy_and_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 200
    y = rng.integers(0, 3, n).astype(float)
    X = np.column_stack(
        [
            rng.integers(0, 2, n),  # independent
            (y + rng.integers(0, 2, n)) % 4,  # dependent, four levels
            np.zeros(n),  # one level: never significant
            rng.integers(0, 5, n),
        ]
    ).astype(float)
    mi = mutual_info_many(y, X)
    for j in range(X.shape[1]):
        g, dof, p = g2_test(X[:, j], y)
        ref_g, ref_dof, ref_p = _scipy_g2(X[:, j], y)
        assert g == pytest.approx(ref_g, rel=1e-9, abs=1e-9)
        assert dof == ref_dof
        assert p == pytest.approx(ref_p, rel=1e-9)
        assert g == pytest.approx(2 * n * math.log(2) * mi[j], rel=1e-9, abs=1e-9)
        assert mutual_info_score(y, X[:, j]) / math.log(2) == pytest.approx(mi[j], abs=1e-12)
    score, dep = marginal_association(X, y, "g2", 0.05)
    np.testing.assert_array_equal(score, mi)
    assert dep.tolist()[1:3] == [True, False]
