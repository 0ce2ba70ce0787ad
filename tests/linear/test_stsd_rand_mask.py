"""STSD-I-rand's ``rand_mask="always"``: ``STSD_rand.m`` masks ``w`` even when the support fits.

The authors' ``STSD_rand.m`` ends every update (and the first row of a
stage) with ``w_t = w_t .* v_idx``, ``v_idx`` one on a fresh ``randperm`` of
``round(B d)`` of the ``d`` coordinates, whatever the number of non-zero
weights; the learner's default (``"over-budget"``) draws only when the
support exceeds ``round(B d)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from evofeat.base import InputError
from evofeat.evaluate import prequential
from evofeat.linear.stsd import STSD
from evofeat.streams import full, trapezoidal
from oracle import stsd as ostsd
from reference.splitmix import uniform
from reference.stsd import stsd_reference
from tests.linear.test_stsd import _internal, assert_paths_agree

_CODE = {"mode": "stsd-i-rand", "variant": "original-code", "C": 10.0, "radius": np.inf}


def _first_uniform(seed: int) -> float:
    return uniform(np.array([seed], dtype=np.uint64))


@pytest.mark.parametrize("kept", [True, False])
def test_always_draws_on_a_support_that_fits_by_hand(kept: bool) -> None:
    """Two features, B = 0.5: ``round(B d) = 1`` weight may stay; the one non-zero weight fits.

    Row 0 (x = [1, 0], y = +1): f = 0 is a mistake; tau = min(C, 1 / ||x||) = 1,
    w = [1, 0]. ``STSD_rand.m`` then keeps a random 1 of the 2 coordinates:
    column 0 stays with probability 1/2 (Algorithm S: ``u * 2 < 1`` with the
    seed's first uniform). Row 1 (the same x): w . x = 1 if it stayed (+1),
    else 0 (no decision). The default leaves w alone: +1.
    """
    seed = next(s for s in range(100) if (_first_uniform(s) < 0.5) == kept)
    X, y = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1, 1])
    always = prequential(
        STSD(**_CODE, budget=0.5, seed=seed, rand_mask="always"), full(X, y), keep_predictions=True
    )
    default = prequential(STSD(**_CODE, budget=0.5, seed=seed), full(X, y), keep_predictions=True)
    assert always.labels is not None and default.labels is not None
    assert always.labels.tolist() == [0.0, 1.0 if kept else 0.0]
    assert default.labels.tolist() == [0.0, 1.0]


def test_always_matches_the_oracle_and_every_path() -> None:
    """Sparse binary rows (supports that fit the budget): reference, oracle and all paths agree."""
    rng = np.random.default_rng(7)
    X = (rng.random((400, 30)) < 0.1).astype(float)
    y = np.where(X[:, :6].sum(1) - X[:, 6:12].sum(1) + 0.4 * rng.standard_normal(400) > 0, 1, -1)
    kw = {**_CODE, "C": 0.1, "budget": 0.4, "seed": 5, "rand_mask": "always"}
    assert_paths_agree(kw, X, y)
    stream = trapezoidal(X, y, n_stages=5)
    Xi = _internal(stream)
    labels = stsd_reference(Xi, y.astype(float), **kw)
    oracle = ostsd.stsd(Xi, y.astype(float), **kw)[0]
    np.testing.assert_array_equal(labels, oracle)
    default = stsd_reference(Xi, y.astype(float), **{**kw, "rand_mask": "over-budget"})
    assert (labels != default).any()  # the rule matters on these rows


def test_rand_mask_errors() -> None:
    X, y = np.eye(3), np.array([1, -1, 1])
    with pytest.raises(InputError, match="unknown rand_mask"):
        prequential(STSD(mode="stsd-i-rand", rand_mask="every"), full(X, y))
    with pytest.raises(InputError, match="rule of the authors' code"):
        prequential(STSD(mode="stsd-i-rand", rand_mask="always"), full(X, y))


def test_the_authors_protocols_follow_stsd_rand_m() -> None:
    """``stsd-authors`` and ``stsd-published`` run STSD-I-rand with the file's mask; no other learner
    or protocol takes it (the paper's text has no such rule)."""
    from evofeat.experiments.protocols import setting

    assert setting("stsd-authors", "magic04", "stsd-i-rand").params["rand_mask"] == "always"
    assert setting("stsd-published", "german", "stsd-i-rand").params["rand_mask"] == "always"
    assert "rand_mask" not in setting("stsd-paper", "magic04", "stsd-i-rand").params
    assert "rand_mask" not in setting("stsd-authors", "magic04", "stsd-i").params
