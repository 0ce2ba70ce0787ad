"""The G^2 test comes from SciPy (chi2_contingency with lambda_="log-likelihood") and gives the
numbers of the mutual-information form it replaced: G = 2 n ln 2 I, dof = (|x| - 1)(|y| - 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import mutual_info_score

from evofeat.selection._base import g2_test, marginal_association
from evofeat.selection.citests import encode, mutual_info_many


@pytest.mark.parametrize("seed", range(5))
def test_scipy_g2_equals_the_mutual_information_form(seed: int) -> None:
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
        g, p, dof = g2_test(X[:, j], y)
        assert mutual_info_score(y, X[:, j]) / math.log(2) == pytest.approx(mi[j], abs=1e-12)
        assert g == pytest.approx(2 * n * math.log(2) * mi[j], rel=1e-9, abs=1e-9)
        levels = (encode(X[:, j])[1] - 1) * (encode(y)[1] - 1)
        assert dof == levels
        assert p == (pytest.approx(stats.chi2.sf(g, dof), rel=1e-9) if dof else 1.0)
    score, dep = marginal_association(X, y, "g2", 0.05)
    np.testing.assert_array_equal(score, mi)
    assert dep.tolist()[1:3] == [True, False]
