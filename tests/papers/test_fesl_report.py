"""FESL's declared report: c chosen on the search runs, the cells read at that c, the sections.

The results here are made up (no learner runs): each test plants numbers
that only the declared rule (choose c on the held-out search runs, report
the other runs at that c) turns into the asserted rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.experiments.sections import Search, View
from evofeat.papers.fesl import METHODS, OVERLAP, PAPER


def _rows(table: str, ds: str, c: int, acc: float, runs: int, B: int = OVERLAP, **kw: Any) -> list[dict[str, Any]]:  # fmt: skip
    """One cell per method and run at (c, B); accuracy ``acc + 0.01 r`` in run r."""
    curve = {"curve_rows": [1.0, 2.0], "curve_loss": [0.7, 0.6]}
    return [
        {"table": table, "dataset": ds, "method": m, "params": {"c": c, "overlap": B},
         "repeat": r, "accuracy": acc + 0.01 * r, "avg_loss": 1 - acc, "seconds": 0.1,
         "n": 690, "d1": 42, "d2": 29, **curve, **kw}
        for m in METHODS
        for r in range(runs)
    ]  # fmt: skip


def _results() -> pd.DataFrame:
    """australian: c = 10 wins the search, c = 1 would win on the reported runs (it must not count)."""
    rows = [
        *_rows("table2-search", "australian", 1, 0.60, 2),
        *_rows("table2-search", "australian", 10, 0.70, 2),
        *_rows("table2", "australian", 1, 0.90, 3),
        *_rows("table2", "australian", 10, 0.50, 3),
        *_rows("overlap", "australian", 10, 0.55, 3, B=5),
        *_rows("overlap", "australian", 10, 0.80, 3, B=58),
        *_rows("overlap", "australian", 1, 0.99, 3, B=58),
    ]
    return pd.DataFrame(rows)


def test_c_is_chosen_on_the_search_runs_and_the_comparison_reads_the_runs_at_it() -> None:
    rows = [r for r in PAPER.comparison(_results()) if r.verdict != "not run"]
    assert {(r.dataset, r.setting) for r in rows} == {("australian", "c=10")}
    nogd = next(r for r in rows if r.method == "NOGD")
    assert nogd.ours_mean == np.mean([0.50, 0.51, 0.52])
    assert "--param lr" not in nogd.command  # c = 10 is the protocol's lr = 1/10
    assert "--repeats 3" in nogd.command


def test_ties_on_the_search_runs_go_to_the_smaller_c_and_loss_is_minimised() -> None:
    search = Search("c", (("s", ("t",), "acc", True), ("rs", ("rt",), "loss", False)))
    res = pd.DataFrame(
        {
            "table": ["s", "s", "s", "rs", "rs"],
            "dataset": ["d", "d", "d", "e", "e"],
            "method": ["m"] * 5,
            "params": [{"c": 50}, {"c": 10}, {"c": 100}, {"c": 1}, {"c": 10}],
            "repeat": [0] * 5,
            "acc": [0.7, 0.7, 0.6, np.nan, np.nan],
            "loss": [np.nan, np.nan, np.nan, 2.0, 0.5],
        }
    )
    assert search.chosen(res) == {("t", "d"): 10, ("rt", "e"): 10}


def test_the_report_shows_the_chosen_cells_the_search_and_the_overlap(tmp_path: Path) -> None:
    text = PAPER.write_report(_results(), tmp_path, "evofeat reproduce fesl").read_text()
    # Table 2: the paper's number beside ours at the chosen c (0.51 +- 0.01), not at c = 1
    assert "| australian | NOGD | .767 ± .009 | 0.510 ± 0.010 |" in text
    # the c search: search runs / reported runs at each c, the chosen c
    assert "| australian | accuracy | 10 | 0.605 / 0.910 | 0.705 / 0.510 |" in text
    # the overlap: B = 5 and 2 d2 at the chosen c, B = 10 from Table 2's cells
    assert "| australian | 29 | 5 |  | 0.560 ± 0.010 |" in text
    assert "| australian | 29 | 10 | .849 | 0.510 ± 0.010 |" in text
    assert "| australian | 29 | 58 |  | 0.810 ± 0.010 |" in text
    assert "closer to the paper's with B = 2 d2 on australian" in text
    assert "mean of 3 runs" in text and (tmp_path / "figure3.png").exists()


def test_a_runaway_curve_is_named_and_left_off_the_scale() -> None:
    from evofeat.report.figures import new_figure
    from evofeat.report.paper import _clipped

    x = np.arange(3.0)
    curves = {"A": (x, np.array([1.0, 0.9, 0.8])), "B": (x, np.array([1.0, 1.1, 1.2])),
              "C": (x, np.array([1.0, 50.0, 90.0]))}  # fmt: skip
    fig, (ax,) = new_figure(1)
    _clipped(ax, curves, 3.0)
    assert [t.get_text() for t in ax.texts] == ["C off scale (ends at 90)"]
    assert ax.get_ylim()[1] < 2.0
    fig2, (ax2,) = new_figure(1)
    _clipped(ax2, curves, 0.0)  # no clip: every curve on the scale
    assert not ax2.texts and ax2.get_ylim()[1] > 90


def test_the_view_keeps_search_and_reported_runs_of_one_setting_apart() -> None:
    view = View(_results(), spec=PAPER)
    chosen = {"c": "chosen", "overlap": OVERLAP, "table": "table2"}
    assert view.values("australian", "nogd", chosen, "accuracy").tolist() == [0.5, 0.51, 0.52]
    # without the table, a setting's search and reported runs are one group (repeats 0-1 twice)
    assert view.values("australian", "nogd", {"c": 10, "overlap": OVERLAP}, "accuracy").size == 5
