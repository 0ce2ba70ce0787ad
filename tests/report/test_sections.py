"""Generic report sections added for the declared papers: Col marks, Table.per, batch runtime,
the paper's own outcomes in the paired tests, panels that follow what was run."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from evofeat.experiments.sections import Col, Figure, Line, Table, View, _figure, _table, runtime
from evofeat.experiments.spec import Published, Variant
from evofeat.report.compare import Pair, paired_section
from evofeat.report.paper import render_part


def _md(parts: list[object], out: Path = Path(".")) -> str:
    """A resolved section rendered as the report prints it (figures drawn into ``out``)."""
    return "".join(render_part(p, out) for p in parts)


def _runs(cells: dict[tuple[str, str], list[float]], metric: str = "acc") -> pd.DataFrame:
    rows = [
        {"table": "t", "dataset": d, "method": m, "params": {}, "repeat": r, metric: v,
         "seconds": 0.5}
        for (d, m), vals in cells.items()
        for r, v in enumerate(vals)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_col_marks_are_the_paired_t_test_of_each_marking_method_against_the_cell() -> None:
    up = [0.90, 0.92, 0.91, 0.93, 0.90]
    view = View(_runs({("d", "a"): [0.5, 0.52, 0.51, 0.53, 0.5], ("d", "b"): up,
                       ("d", "c"): [0.2, 0.22, 0.21, 0.23, 0.2], ("d", "e"): [0.5, 0.53, 0.5, 0.52, 0.51]}))  # fmt: skip
    cell = Col("acc", 2, marks=("b", "c", "e")).value(view, ("d", "a", {}))
    assert cell == "0.51 ± 0.01 ●▼○"  # b better, c worse, e a tie
    lower = Col("acc", 2, marks=("b", "c"), lower_is_better=True).value(view, ("d", "a", {}))
    assert lower.endswith(" ▼●")  # mistakes: the higher values lose
    assert Col("acc", 2, marks=("zz",)).value(view, ("d", "a", {})).endswith(" –")  # not run


def test_paired_section_shows_the_papers_outcomes_only_where_declared() -> None:
    a, b = [1.0, 2.0, 3.0, 4.5], [0.0, 1.0, 1.5, 2.0]
    plain = paired_section([Pair("t2", "s1", "M", "B", a, b)])
    assert "paper W/T/L" not in plain
    pairs = [
        Pair("t2", "s1", "M", "B", a, b, paper="win"),
        Pair("t2", "s2", "M", "B", a, b, paper="tie_or_loss"),
        Pair("f2", "s3", "M", "B", a, b),
    ]
    text = paired_section(pairs)
    assert "| t2 | M | B | 1/0/0 (+1 tie or loss) | 2/0/0 |" in text
    assert "| f2 | M | B | – | 1/0/0 |" in text


def _spec() -> SimpleNamespace:
    pubs = [
        Published("t", "d", "a", "A", {"n": 1}, 0.5, 0.1, "0.5"),
        Published("t", "d", "a", "A", {"n": 2}, 0.5, 0.1, "0.5"),
        Published("t", "d", "b", "B", {"n": 1}, 0.5, 0.1, "0.5"),
    ]
    results = pd.DataFrame(
        [
            {"table": "t", "dataset": "d", "method": m, "params": {"n": n}, "repeat": r, "acc": v}
            for m, n, vals in (("a", 1, [0.6, 0.6]), ("a", 2, [0.8, 0.8]), ("b", 1, [0.5, 0.5]))
            for r, v in enumerate(vals)
        ]
    )
    spec = SimpleNamespace(
        variants=(Variant("ours", "ours", "ours", "p"),), published=lambda: pubs,
        lookup=lambda pub, v: (pub.dataset, pub.method, pub.setting, "acc"), extras=(),
        exact=False, paper_repeats="", signed=False,
    )  # fmt: skip
    return SimpleNamespace(spec=spec, results=results)


def test_table_per_counts_each_algorithms_cells_within_one_and_two_sigma() -> None:
    s = _spec()
    text = _md(
        _table(
            s.spec, View(s.results), Table("t", "T", ("data", "n", "algorithm"), per="algorithm")
        )
    )
    # A: Δ/σ of +1 (n=1) and +3 (n=2): mean +2, one within 1σ, one within 2σ; B: 0
    assert "| A | 2 | +2.00 | 1 | 1 |" in text and "| B | 1 | +0.00 | 1 | 1 |" in text
    assert "Per algorithm" not in _md(_table(s.spec, View(s.results), Table("t", "T", ("data",))))


def test_runtime_of_batch_cells_is_the_seconds_per_method() -> None:
    res = _runs({("d", "a"): [0.1, 0.2], ("d", "b"): [0.3]})
    res.loc[2, "seconds"] = np.nan  # an untimed run is not counted
    text = runtime(View(res, spec=SimpleNamespace(runtime_note="a note")))
    assert "3 runs, 1.0 s of worker time (wall clock, shared cores; a note)" in text
    assert "| a | 2 | 1 |" in text and "| b |" not in text


def test_figure_panels_may_follow_what_was_run(tmp_path) -> None:
    res = _runs({("d2", "a"): [0.5, 0.7]})
    res["params"] = [{"x": 1}, {"x": 1}]
    view = View(res, tmp_path)
    ran = Figure("f", "F", "cap {runs}", lambda v: tuple(v.datasets), (1, 2),
                 (Line("A", "a", lambda d, x: {"x": x}),), metric="acc", spread=True)  # fmt: skip
    text = _md(_figure(view, ran), tmp_path)
    assert "cap 2 runs" in text and (tmp_path / "f.png").exists()


def test_curves_none_of_whose_cells_ran_say_so_instead_of_an_empty_figure(tmp_path) -> None:
    from evofeat.experiments.sections import Curves, _curves

    view = View(_runs({("d2", "a"): [0.5, 0.7]}), tmp_path)  # stored runs without curves
    curves = Curves(
        "c", "C", "cap, mean of {runs}", ("d1", "d2"), {"a": "A"}, lambda d, m: (d, m, {})
    )
    text = _md(_curves(view, curves), tmp_path)
    assert "Not drawn: none of its curves ran" in text and "of 0 runs" not in text
    assert not (tmp_path / "c.png").exists()
