"""``evofeat run --repeats N`` in memory that does not grow with N (issue 16).

Each repeat is folded into a :class:`~evofeat.evaluate.repeat.RepeatTally` as
it finishes: its line of repeats.csv is written then, its numbers and curves
are summarised by running mean and variance. Memory is measured with
tracemalloc (relative: many repeats against few), never with a clock.
"""

from __future__ import annotations

import importlib
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from evofeat._curves import curve_stats
from evofeat.cli import main
from evofeat.evaluate.repeat import RepeatTally, repeat

repeat_module = importlib.import_module("evofeat.evaluate.repeat")  # the package exports repeat()
ARGS = ["run", "--learner", "pa-i", "--dataset", "german", "--scenario", "trapezoidal"]


def _peak(fn) -> int:  # type: ignore[no-untyped-def]
    """Bytes allocated at the peak of ``fn()`` above what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def _cli(*args: str) -> None:
    result = CliRunner().invoke(main, [*ARGS, *args])
    assert result.exit_code == 0, result.output


def test_run_memory_does_not_grow_with_repeats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repeat_module, "KEEP_VALUES", 20)  # values kept for the summary: 20
    _cli("--repeats", "3", "--out", str(tmp_path / "warm"))  # loads the data, imports matplotlib
    few = _peak(lambda: _cli("--repeats", "50", "--out", str(tmp_path / "few")))
    many = _peak(lambda: _cli("--repeats", "500", "--out", str(tmp_path / "many")))
    # 450 more repeats: each one's curves alone are ~120 floats (the table kept every repeat's
    # row: ~2 MB more, checked below); folded, the peak stays where it was
    # Bound: a quarter of what keeping every row adds (~2.7 MB, measured below); the slack absorbs
    # caches that earlier tests in the same process leave to fill (+320 kB seen after doctests).
    assert many - few < 700_000, (few, many)
    table = _peak(lambda: repeat("pa-i", "german", "trapezoidal", repeats=500))
    small = _peak(lambda: repeat("pa-i", "german", "trapezoidal", repeats=50))
    assert table - small > 2_000_000, "the measurement must see a table that grows"
    lines = (tmp_path / "many" / "repeats.csv").read_text().splitlines()
    assert len(lines) == 501 and [int(x.split(",")[0]) for x in lines[1:]] == list(range(500))
    summary = json.loads((tmp_path / "many" / "summary.json").read_text())
    assert "values" not in summary["mistakes"]  # beyond KEEP_VALUES: mean and std only


def test_run_out_matches_the_repeat_table(tmp_path: Path) -> None:
    _cli("--repeats", "4", "--out", str(tmp_path / "out"))
    df = repeat("pa-i", "german", "trapezoidal", repeats=4)
    csv = pd.read_csv(tmp_path / "out" / "repeats.csv")
    assert list(csv.columns) == [
        c for c in df.columns if not isinstance(df[c].iloc[0], list | dict | tuple)
    ]
    np.testing.assert_array_equal(csv["mistakes"], df["mistakes"])
    curve = pd.read_csv(tmp_path / "out" / "curve.csv")
    ref = curve_stats(df, "curve_mistake_rate")
    np.testing.assert_array_equal(curve["rows"], ref["rows"])
    np.testing.assert_allclose(curve["mistake_rate_mean"], ref["mean"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(curve["mistake_rate_std"], ref["std"], rtol=1e-9, atol=1e-12)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["mistakes"]["values"] == df["mistakes"].tolist()
    assert summary["accuracy"]["std"] == pytest.approx(float(df["accuracy"].std(ddof=1)))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "scratch left behind"


def test_tally_writes_lines_in_repeat_order_and_running_stats_match_numpy(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=30)
    curves = rng.random((30, 5))
    order = [1, 0, 3, 2, *range(4, 30)]  # finished out of order, as with --jobs 2
    with RepeatTally(tmp_path / "r.csv", keep_values=10) as tally:
        for r in order:
            row = {"repeat": r, "x": float(values[r]), "curve_rows": [1, 2, 3, 4, 5]}
            tally.add({**row, "curve_m": curves[r].tolist()})
    assert pd.read_csv(tmp_path / "r.csv")["repeat"].tolist() == list(range(30))
    stat = tally.stat("x")
    assert stat is not None and "values" not in stat
    assert stat["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert stat["std"] == pytest.approx(values.std(ddof=1), rel=1e-12)
    table = tally.curve("curve_m")
    assert table is not None
    np.testing.assert_allclose(table["mean"], curves.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(table["std"], curves.std(axis=0, ddof=1), rtol=1e-10)
    assert tally.stat("missing") is None
