"""Peng's mRMR (evofeat.selection.mrmr_reference) against its definition and against pymrmr."""

from __future__ import annotations

import os

import numpy as np
import pytest

from evofeat.base.errors import InputError
from evofeat.selection.mrmr_reference import nr_sort2_order, peng_mrmr


def test_sort2_order_sorts_and_is_not_stable_on_ties() -> None:
    rng = np.random.default_rng(0)
    keys = rng.normal(size=200)
    assert nr_sort2_order(keys).tolist() == np.argsort(keys).tolist()  # distinct keys: sorted
    tied = np.repeat([2.0, 1.0], 10)
    order = nr_sort2_order(tied)
    assert sorted(order[:10].tolist()) == list(range(10, 20))  # the 1.0s first
    assert order[:10].tolist() != list(range(10, 20))  # but not in index order


def _mi_bits(a: np.ndarray, b: np.ndarray) -> float:
    total = 0.0
    for u in np.unique(a):
        for v in np.unique(b):
            p = np.mean((a == u) & (b == v))
            if p > 0:
                total += p * np.log2(p / (np.mean(a == u) * np.mean(b == v)))
    return total


def test_mid_follows_relevance_minus_mean_redundancy() -> None:
    rng = np.random.default_rng(1)
    D = rng.integers(0, 3, (80, 12))
    y = (D[:, 3] + rng.integers(0, 2, 80) > 2).astype(int)
    chosen = peng_mrmr(D, y, 5)
    rel = np.array([_mi_bits(y, D[:, j]) for j in range(12)])
    assert chosen[0] == int(np.argmax(rel))
    for k in range(1, 5):
        score = np.array(
            [rel[j] - np.mean([_mi_bits(D[:, s], D[:, j]) for s in chosen[:k]]) for j in range(12)]
        )
        score[chosen[:k]] = -np.inf
        assert score[chosen[k]] == pytest.approx(score.max(), abs=1e-12)
    with pytest.raises(InputError, match="criterion"):
        peng_mrmr(D, y, 2, method="MIX")


@pytest.mark.parametrize("seed", range(10))
def test_selects_what_pymrmr_selects(seed: int) -> None:
    pymrmr = pytest.importorskip("pymrmr")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(10, 40)), int(rng.integers(5, 60))
    D = rng.integers(0, 3, (n, d))
    y = rng.integers(0, 2, n)
    if seed % 3 == 0:
        D[:, d // 2 :] = D[:, : d - d // 2]  # exact copies: tied relevances
    k = int(rng.integers(1, d))
    method = "MIQ" if seed % 4 == 1 else "MID"
    df = pd.DataFrame(np.column_stack([y, D]), columns=["c"] + [f"f{j}" for j in range(d)])
    out, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # the program prints its tables on the C stdout
    try:
        ref = [int(c[1:]) for c in pymrmr.mRMR(df, method, k)]
    finally:
        os.dup2(out, 1)
        os.close(null)
        os.close(out)
    assert peng_mrmr(D, y, k, method) == ref
