"""Invariants checked after every row, with parameters that bind (hypothesis, the dict path).

For every truncating or projecting learner, on random small streams whose
features appear, vanish and return: ``||w||_2 <= R`` (OFS, OFS_P),
``||w||_1 <= R`` (STSD where it scales onto the ball), and ``nnz(w) <= B``
with B computed here from the rule the paper (or the authors' code) states,
from the features seen so far, never read from the learner. Every other
registered learner keeps finite weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evofeat.registry import ONLINE, make
from oracle.ofs import ofs_budget
from oracle.stsd import budget_of

_TOL = 1e-12

values = st.floats(-3.0, 3.0, allow_nan=False).map(lambda v: 0.0 if abs(v) < 0.3 else v)


@st.composite
def streams(draw: Any, max_rows: int = 30, max_features: int = 10) -> list[tuple[dict, int]]:
    """Rows as dicts: a growing prefix of the features (trapezoidal) or a random subset per row."""
    d = draw(st.integers(1, max_features))
    n = draw(st.integers(1, max_rows))
    growing = draw(st.booleans())
    out = []
    for t in range(n):
        if growing:
            visible = list(range(1 + (t * d) // n))
        else:
            visible = [j for j in range(d) if draw(st.booleans())]
        row = {f"f{j}": draw(values) for j in visible}
        out.append((row, draw(st.sampled_from([-1, 1]))))
    return out


def _weights(model: Any) -> np.ndarray:
    return np.array(list(model.coef_.values()), dtype=float)


def _run(model: Any, rows: list[tuple[dict, int]], check: Any) -> None:
    seen: set[str] = set()
    for t, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        seen |= set(x)
        check(t, _weights(model), len(seen))


radii = st.floats(0.05, 2.0)
budgets = st.integers(1, 100).map(lambda k: k / 100)  # as written: 0.01 .. 1.00


@settings(max_examples=40, deadline=None)
@given(
    rows=streams(),
    mode=st.sampled_from(["stsd", "stsd-i", "stsd-ii", "stsd-i-all", "stsd-i-rand", "stsd-i-per"]),
    variant=st.sampled_from(["paper", "original-code", "paper-adagrad"]),
    C=st.sampled_from([0.01, 0.1, 1.0]),
    radius=radii,
    budget=budgets,
    seed=st.integers(0, 1000),
)
def test_stsd_l1_ball_and_budget(
    rows: list, mode: str, variant: str, C: float, radius: float, budget: float, seed: int
) -> None:
    step = {"step": "adagrad", "lr": C * 10} if variant == "paper-adagrad" else {}
    variant = variant.removesuffix("-adagrad")
    model = make(mode, C=C, radius=radius, budget=budget, variant=variant, seed=seed, **step)
    original = variant == "original-code"
    projects = not original or mode not in ("stsd-i-all", "stsd-i-rand")
    truncates = mode != "stsd-i-all"

    def check(t: int, w: np.ndarray, d: int) -> None:
        assert np.isfinite(w).all()
        if projects:
            assert np.abs(w).sum() <= radius * (1 + _TOL), f"row {t}: ||w||_1 > {radius}"
        if truncates:
            B = budget_of(budget, d, original)
            assert np.count_nonzero(w) <= B, f"row {t}: {np.count_nonzero(w)} weights, B = {B}"

    _run(model, rows, check)


@settings(max_examples=40, deadline=None)
@given(
    rows=streams(),
    name=st.sampled_from(["ofs", "ofs-p"]),
    lr=st.sampled_from([0.05, 0.2, 1.0]),
    l2=st.sampled_from([0.0, 0.01, 0.5]),
    radius=st.one_of(st.none(), radii),
    budget=budgets,
    budget_count=st.one_of(st.none(), st.integers(1, 4)),
    step=st.sampled_from(["paper", "adagrad"]),
)
def test_ofs_l2_ball_and_budget(
    rows: list,
    name: str,
    lr: float,
    l2: float,
    radius: float | None,
    budget: float,
    budget_count: int | None,
    step: str,
) -> None:
    model = make(
        name, lr=lr, l2=l2, radius=radius, budget=budget, budget_count=budget_count, step=step
    )
    R = radius if radius is not None else (1 / math.sqrt(l2) if l2 > 0 else math.inf)

    def check(t: int, w: np.ndarray, d: int) -> None:
        assert np.isfinite(w).all()
        assert np.linalg.norm(w) <= R * (1 + _TOL), f"row {t}: ||w||_2 > {R}"
        B = ofs_budget(budget, d, budget_count)
        assert np.count_nonzero(w) <= B, f"row {t}: {np.count_nonzero(w)} weights, B = {B}"

    _run(model, rows, check)


@settings(max_examples=30, deadline=None)
@given(
    rows=streams(),
    name=st.sampled_from(["pe-trun", "rand"]),
    budget=budgets,
    budget_count=st.one_of(st.none(), st.integers(1, 4)),
)
def test_perceptron_baselines_budget(
    rows: list, name: str, budget: float, budget_count: int | None
) -> None:
    model = make(name, budget=budget, budget_count=budget_count)

    def check(t: int, w: np.ndarray, d: int) -> None:
        B = ofs_budget(budget, d, budget_count)
        assert np.count_nonzero(w) <= B, f"row {t}: {np.count_nonzero(w)} weights, B = {B}"

    _run(model, rows, check)


_OTHERS = sorted(
    n
    for n in set(ONLINE) - {"ofs", "ofs-p", "pe-trun", "rand"}
    if not n.startswith("stsd") and make(n).task == "binary"
)


@settings(max_examples=25, deadline=None)
@given(rows=streams(), name=st.sampled_from(_OTHERS))
def test_other_learners_stay_finite(rows: list, name: str) -> None:
    model = make(name)

    def check(t: int, w: np.ndarray, d: int) -> None:
        assert np.isfinite(w).all(), f"row {t}: a weight is not finite"
        assert model.predict_one(rows[t][0]) in (-1, 1)

    _run(model, rows, check)
