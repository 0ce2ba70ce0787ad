"""The quantile sketch (``OnlineScaled(method="quantile-sketch")``) on known distributions, and
the quantile transform's sorted window through growth.

The sketch's NumPy reference and its generic checks (both paths, copies,
model files, absent features) run with the other transforms in
``test_online_scaled.py``; here: its stated rank error, its sample's
uniformity and memory, and its use as a member of ``auto``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import reference
from evofeat._core import core as corelib
from evofeat._core import scaling as compiled
from evofeat.ensemble.auto import Auto, parse_member
from evofeat.evaluate import prequential
from evofeat.linear import _adaptive
from evofeat.preprocessing import METHODS, OnlineScaled
from evofeat.streams import Stream


def _sketch(k: int, d: int = 1):
    own = {"window": k, "seen": np.zeros(d, dtype=np.int64), "sample": np.zeros((d, k))}
    return compiled.scaled_core(METHODS["quantile-sketch"], corelib.Core(), **own)


def _ranks(core, x: np.ndarray) -> np.ndarray:
    """The mid-rank ``q = Phi(score)`` the core gives each value of the one-column stream ``x``
    (scored with the values before it, then learned)."""
    idx = np.zeros(1, dtype=np.int64)
    out = np.empty(x.size)
    for t, v in enumerate(x.tolist()):
        val = np.array([v])
        out[t] = special.ndtr(compiled.scale_row(core, idx, val)[0])
        _adaptive.learn_row(core, idx, val, 1.0, 0.0)
    return out


def _exact_ranks(x: np.ndarray) -> np.ndarray:
    """Each value's mid-rank among all the values before it (no ties): ``(B + 1/2) / (n + 1)``."""
    out = np.empty(x.size)
    seen: list[float] = []
    for t, v in enumerate(x.tolist()):
        b = np.searchsorted(seen, v)
        out[t] = (b + 0.5) / (t + 1.0)
        seen.insert(int(b), v)
    return out


def _eps(m: int, delta: float) -> float:
    """The docstring's bound on ``|b / m - B / n|`` (Hoeffding, sampling without replacement)."""
    return math.sqrt(math.log(2.0 / delta) / (2.0 * m))


@pytest.mark.parametrize("k", [100, 1000])
@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, n: rng.uniform(0.0, 1.0, n),
        lambda rng, n: rng.lognormal(0.0, 2.0, n),  # skewed
        # a shift half way: the whole history is the reference, not the recent values
        lambda rng, n: np.concatenate([rng.normal(0, 1, n // 2), rng.normal(3, 1, n - n // 2)]),
    ],
    ids=["uniform", "lognormal", "shifted"],
)
def test_the_rank_error_is_within_the_stated_bound(k: int, draw) -> None:
    rng = np.random.default_rng(k)
    n = 8000
    x = draw(rng, n)
    got, want = _ranks(_sketch(k), x), _exact_ranks(x)
    np.testing.assert_allclose(got[:k], want[:k], atol=1e-12, err_msg="exact while all are kept")
    m = np.minimum(np.arange(n), k)[k:]
    delta = 0.01
    bound = np.array([_eps(int(v), delta) for v in m]) + 1.0 / (m + 1.0)
    err = np.abs(got[k:] - want[k:])
    # each value's error exceeds its bound with probability at most delta
    assert np.mean(err > bound) <= 2 * delta
    assert err.max() < 2 * bound.max(), "no rank is far outside the bound"


def test_the_window_is_not_a_summary_of_the_history_and_the_sketch_is() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(0, 1, 4000), rng.normal(3, 1, 4000)])
    exact = _exact_ranks(x)[4500:]
    window = OnlineScaled("ftrl", method="quantile", window=100)._make_state(1)
    sketch = _sketch(100)
    err_window = np.abs(_ranks(window, x)[4500:] - exact).mean()
    err_sketch = np.abs(_ranks(sketch, x)[4500:] - exact).mean()
    assert err_sketch < _eps(100, 0.05) < err_window


@pytest.mark.parametrize("n", [1000, 10_000, 100_000])
def test_the_kept_positions_are_a_uniform_sample(n: int) -> None:
    k = 200
    core = _sketch(k)
    _ranks(core, np.arange(float(n)))  # value t is position t
    kept = np.asarray(core.sample[0])
    assert kept.shape == (k,) and int(core.seen[0]) == n, "k values kept, not every value"
    assert np.all(np.diff(kept) > 0) and np.all(np.isin(kept, np.arange(float(n))))
    # one sample of k positions out of n: uniform (the KS test's 99.9 % quantile)
    assert stats.kstest(kept / n, "uniform").statistic < 1.95 / math.sqrt(k)


def test_the_draws_are_uniform_and_fixed() -> None:
    n = np.arange(200_000, 200_000 + 50_000, dtype=np.uint64)
    draws = compiled.sketch_draws(200_000, 250_000)
    assert np.array_equal(draws, compiled.sketch_draws(200_000, 250_000)), "a run repeats"
    assert np.all(draws <= n)
    assert stats.kstest(draws / (n + 1.0), "uniform").statistic < 1.95 / math.sqrt(n.size)


def test_the_sketch_is_a_member_of_auto() -> None:
    member = parse_member("quantile-sketch:ftrl")
    assert isinstance(member, OnlineScaled) and member.method == "quantile-sketch"
    rng = np.random.default_rng(0)
    X = rng.lognormal(0, 1, (300, 4))
    y = np.where(np.log(X[:, 0]) - np.log(X[:, 1]) > 0, 1, -1)
    stream = Stream.from_dense(X, y, ["a", "b", "c", "d"])
    model = Auto(members=("quantile-sketch:ftrl", "quantile-sketch:nag", "ftrl"))
    res = prequential(model, stream, keep_predictions=True)
    assert res.labels is not None
    want = reference.predictions(model, X, y.astype(float))
    assert np.array_equal(res.labels, want)
    assert res.accuracy > max(np.mean(y > 0), np.mean(y < 0))


@pytest.mark.parametrize("method", ["quantile", "quantile-sketch"])
def test_the_sorted_values_survive_growth_and_pickles(method: str) -> None:
    """Features arriving one by one grow the dict path's state several times (8, 16, 32, 64
    columns; each growth rebuilds the quantile's sorted copy of every window from the rings) and
    a pickle mid-stream rebuilds it again: the scores stay the array path's, where all 60
    columns exist from the start."""
    import pickle

    rng = np.random.default_rng(5)
    d, n = 60, 900
    X = np.round(rng.exponential(1.0, (n, d)), 1)  # ties
    X[rng.random((n, d)) < 0.3] = np.nan
    for j in range(d):
        X[: j * 10, j] = np.nan  # feature j first appears at row 10 j
    y = np.where(np.arange(n) % 3 == 0, 1, -1)
    names = [f"f{j}" for j in range(d)]
    res = prequential(
        OnlineScaled("ftrl", method=method, window=7),
        Stream.from_dense(X, y, names),
        keep_predictions=True,
    )
    model = OnlineScaled("ftrl", method=method, window=7)
    scores = []
    for t in range(n):
        row = {names[j]: float(X[t, j]) for j in range(d) if not np.isnan(X[t, j])}
        scores.append(model.decision_one(row) if t else 0.0)
        model.learn_one(row, int(y[t]))
        if t == n // 2:
            model = pickle.loads(pickle.dumps(model))
    assert model._capacity >= d and res.scores is not None
    assert np.array_equal(np.array(scores[1:]), res.scores[1:])
