"""Papers as declarations: grids expand to the stored cells, one renderer writes every report."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from evofeat.cli import main
from evofeat.experiments import get_paper
from evofeat.experiments.base import Cell
from evofeat.experiments.sections import Figure, Line, Results, Table
from evofeat.experiments.spec import Grid, PairSpec, PaperSpec, Published, Variant
from evofeat.experiments.store import ResultStore


def _toy(**kw: object) -> PaperSpec:
    pubs = [
        Published("t1", "german", "a", "A", {"B": 0.1}, 10.0, 1.0, "10.0 ± 1.0"),
        Published("t1", "german", "b", "B", {"B": 0.1}, 20.0, 2.0, "20.0 ± 2.0"),
    ]
    base: dict[str, object] = dict(
        name="toy",
        title="Toy",
        paper_repeats="4",
        repeats=4,
        quick_repeats=2,
        grids=(
            Grid("t1", ("german",), ("a", "b"), {"budget": (0.1,)}),
            Grid("fig", ("german",), ("a",), {"budget": (0.1, 0.2)}, quick={"budget": (0.2,)}),
        ),
        variants=(Variant("v", "ours", "v", "ofs"),),
        sections=(
            Table("t1", "Table 1 ({runs})", ("data", "B", "algorithm")),
            Figure(
                "fig",
                "Figure ({runs})",
                "cap",
                ("german",),
                (0.1, 0.2),
                (Line("A", "a", lambda d, x: {"budget": x}, row=("A",)),),
            ),  # fmt: skip
            Results(("learner", "mistakes"), ((("A",), ("german", "a", {"budget": 0.2})),)),
        ),
        published_cells=lambda: pubs,
        lookup=lambda pub, v: (pub.dataset, pub.method, {"budget": pub.setting["B"]}),
        setting=lambda cell: None,
        pair_specs=lambda: [
            PairSpec(
                "t1",
                "german",
                "A",
                "B",
                ("german", "a", {"budget": 0.1}),
                ("german", "b", {"budget": 0.1}),
            )  # fmt: skip
        ],
    )
    base.update(kw)
    return PaperSpec(**base)  # type: ignore[arg-type]


def _results(spec: PaperSpec, quick: bool = False) -> pd.DataFrame:
    value = {"a": 10.0, "b": 30.0}
    return pd.DataFrame(
        [
            {
                "table": c.table,
                "dataset": c.dataset,
                "method": c.method,
                "params": c.params,
                "repeat": c.repeat,
                "mistakes": value[c.method] + c.repeat % 2,
            }  # fmt: skip
            for c in spec.cells(quick)
        ]
    )


def test_grids_expand_to_cells_and_a_shared_setting_is_one_cell() -> None:
    spec = _toy()
    cells = spec.cells()
    # fig's budget 0.1 cell of "a" is t1's: stored once, under the first grid that declares it
    assert len(cells) == 4 * 3
    assert {c.table for c in cells if c.params == {"budget": 0.1} and c.method == "a"} == {"t1"}
    quick = spec.cells(quick=True)
    assert {c.repeat for c in quick} == {0, 1}
    assert {(c.table, c.params["budget"]) for c in quick if c.method == "a"} == {
        ("t1", 0.1),
        ("fig", 0.2),
    }


def test_comparison_rows_carry_z_verdict_and_pairs(tmp_path: Path) -> None:
    spec = _toy()
    rows = spec.comparison(_results(spec))
    assert [r.method for r in rows] == ["A", "B"]
    a, b = rows
    assert a.ours_mean == 10.5 and a.z == pytest.approx(0.5) and a.verdict == "within 1σ"
    assert b.ours_mean == 30.5 and b.verdict == "outside 2σ"
    assert a.setting == "B=0.1, ours"
    assert a.command.startswith("evofeat run --protocol ofs --learner a --dataset german")
    pairs = spec.pairs(_results(spec))
    assert len(pairs) == 1 and pairs[0].outcomes()[0] == "win"  # fewer mistakes than b
    assert spec.comparison(pd.DataFrame())[0].verdict == "not run"


def test_render_writes_every_declared_section(tmp_path: Path) -> None:
    spec = _toy()
    path = spec.write_report(_results(spec), tmp_path, "evofeat reproduce toy")
    text = path.read_text()
    assert "Regenerate with `evofeat reproduce toy`" in text
    assert "## Table 1 (4 runs)" in text
    assert "| german | 0.1 | A | 10.0 ± 1.0 | 10.5 ± 0.6 | +0.50 | within 1σ |" in text
    assert "| german | 0.1 | B | 20.0 ± 2.0 | 30.5 ± 0.6 | +5.25 | outside 2σ |" in text
    assert "| german | A | 10.5 | 10.5 |" in text  # the figure's table
    assert (tmp_path / "fig.png").is_file() and (tmp_path / "fig.svg").is_file()
    assert "| A | 10.5 ± 0.6 |" in text  # the results table
    assert "## Runtime" not in text  # no timing stored, no runtime section


def test_the_stored_document_alone_renders_the_report(tmp_path: Path) -> None:
    """report.json is plain data: rendered elsewhere, with no paper at hand, it gives the same report."""
    import json

    from evofeat.report.paper import render

    spec = _toy()
    path = spec.write_report(_results(spec), tmp_path / "run", "evofeat reproduce toy")
    doc = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    kinds = {next(iter(p)) for s in doc["sections"] for p in s if isinstance(p, dict)}
    assert kinds == {"table", "figure"}  # tables and the figure are records, not Markdown
    again = render(doc, tmp_path / "elsewhere")
    assert again.read_bytes() == path.read_bytes()
    assert (tmp_path / "elsewhere" / "fig.png").read_bytes() == (
        tmp_path / "run" / "fig.png"
    ).read_bytes()


def test_stsd_declaration_keeps_the_stored_cell_keys() -> None:
    """The keys of results computed before the declaration (and being computed now) stay valid."""
    p = get_paper("stsd")
    full, quick = p.cells(), p.cells(quick=True)
    # 7680 / 249 before stsd-published; its Table II / III cells add 13 x 20 / 4 x 3 (the rest are
    # cells already run: german's are the authors' own, others the schedule check's)
    assert (len(full), len(quick)) == (7940, 261)
    keys = {c.key for c in full}
    assert set(c.key for c in quick) <= keys
    assert (
        'table2|german|stsd-i|{"learner":{"C":0.01,"budget":0.5,"radius":31.622776601683796,'
        '"seed":0,"variant":"original-code"},"preprocess":"stsd-original","scenario":'
        '{"fractions":[0.1,0.4,0.7,1.0],"layout":"original-code"}}|19'
    ) in keys
    assert (
        'multiclass|dna|pa-multiclass|{"C":0.1,"budget":1.0,"mode":"stsd-i","radius":Infinity}|0'
        in keys
    )


def test_render_only_rerenders_from_the_store_without_running(tmp_path: Path) -> None:
    p = get_paper("stsd")
    cells = [c for c in p.cells(quick=True) if c.table == "multiclass"][:2]
    store = ResultStore(tmp_path / "results.sqlite")
    for c in cells:
        store.put("stsd", c, {"mistakes": 1000 + c.repeat, "n_rows": 3186, "seconds": 1.0})
    result = CliRunner().invoke(
        main, ["reproduce", "stsd", "--quick", "--out", str(tmp_path), "--render-only"]
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "report.md").read_text()
    assert "| STSD-I multiclass | 0.5 | 1000.5 ± 0.7 |" in text
    with sqlite_count(tmp_path / "results.sqlite") as n:
        assert n == 2  # nothing ran
    with (tmp_path / "comparison.csv").open() as fh:
        assert all(r["verdict"] == "not run" for r in csv.DictReader(fh))
    missing = CliRunner().invoke(
        main, ["reproduce", "stsd", "--out", str(tmp_path / "none"), "--render-only"]
    )
    assert missing.exit_code != 0 and "results.sqlite" in missing.output


class sqlite_count:  # noqa: N801 - a tiny context manager for the test above
    def __init__(self, path: Path) -> None:
        import sqlite3

        self.db = sqlite3.connect(path)

    def __enter__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM cells").fetchone()[0])

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def test_a_cell_runs_through_the_protocol_layer() -> None:
    p = get_paper("stsd")
    cell = next(c for c in p.cells(quick=True) if c.table == "regression")
    got = p.run_cell(Cell(cell.table, cell.dataset, cell.method, cell.params, 0))
    assert set(got) >= {"mistakes", "mse", "mae", "n_rows", "seconds"}
    assert got["n_rows"] == 442 and 0 < got["mse"] < 2


def test_ofs_declaration_keeps_the_stored_cell_keys() -> None:
    p = get_paper("ofs")
    full, quick = p.cells(), p.cells(quick=True)
    # covtype at the paper's 20 row orders and Table 8's held-out budget rows (issue 23)
    assert (len(full), len(quick)) == (2670, 65)
    keys = {c.key for c in full}
    # RAND with the authors' per-mistake draw: a variant row of Tables 2, 4 and 8 (20 repeats)
    draw = '"draw":"per-mistake","preprocess":"zscore+unit-norm"}'
    assert f'table2|a8a|rand|{{"budget":0.1,{draw}|19' in keys
    assert f'table8|covtype-binary|rand|{{"budget":0.1,{draw}|19' in keys
    assert f'table8|covtype-binary|rand|{{"budget":0.1,{draw}|20' not in keys
    assert f'table4|colon|rand|{{"budget":0.64,{draw}|19' in keys
    assert 'table5|colon|mrmr|{"preprocess":"zscore+unit-norm"}|19' in keys
    assert 'table8|covtype-binary|ofs|{"budget":0.1,"preprocess":"unit-norm"}|19' in keys
    assert 'table8|covtype-binary|ofs|{"budget":0.1,"preprocess":"unit-norm"}|20' not in keys
    held_out = '{"budget_count":16,"l2":0.0001,"preprocess":"zscore+unit-norm"}'
    assert f"table8|ijcnn1|ofs|{held_out}|19" in keys  # the budget chosen on held-out orders
    assert 'figure2|german|rand|{"budget":0.05,"preprocess":"zscore+unit-norm"}|4' in keys
    assert {c.table for c in quick if c.dataset == "ijcnn1"} == {"table8"}
    assert {c.repeat for c in quick if c.dataset == "ijcnn1"} == {0}


def test_signed_verdicts_and_table_subsets_render(tmp_path: Path) -> None:
    from evofeat.experiments.sections import View, summary

    spec = _toy(signed=True)
    text = spec.write_report(_results(spec), tmp_path, "x").read_text()
    assert "| +5.25 | higher |" in text
    counts = summary(spec, View(_results(spec)))
    assert "- **Table 1**, ours: 1 of 2 within 1σ, 1 within 2σ, 1 further." in counts


def test_incdec_defaults_are_the_opid_papers_table1_rows() -> None:
    """The evaluation layer's copy of OPID's Table 1 rows (it imports no experiment) agrees."""
    from evofeat.evaluate.batch import INCDEC_PAPER
    from evofeat.papers.opid import SETTINGS

    whole = {k for k, s in SETTINGS.items() if s.source == k and s.classes is None}
    assert set(INCDEC_PAPER) == whole
    for name, row in INCDEC_PAPER.items():
        s = SETTINGS[name]
        assert (row["d_v"], row["d_s"], row["d_a"]) == s.split
        assert (row["n_cstage"], row["n_estage"], row["batch_size"]) == (
            s.n_cstage,
            s.n_i[0],
            s.n_i[0],
        )


def test_fesl_declaration_keeps_search_and_reported_runs_apart() -> None:
    """A search run and a reported run of one setting are two cells (shared_cells=False)."""
    p = get_paper("fesl")
    quick = p.cells(quick=True)
    reuters = [c for c in quick if c.table.startswith("reuters")]
    assert len(quick) - len(reuters) == 130  # the Reuters cells only where the sample is here
    assert len(reuters) in (0, 20)
    same = [c for c in quick if c.dataset == "australian" and c.method == "nogd" and c.repeat == 0]
    same = [c for c in same if c.params == {"c": 10, "overlap": 10}]
    assert {c.table for c in same} == {"table2", "table2-search"}
    assert p.requires(Cell("table2", "german", "nogd", {}, 0)) == ("credit-g",)
    assert {c.params["overlap"] for c in quick if c.table == "overlap"} > {10}


def test_extra_variant_rows_render_beside_their_table(tmp_path: Path) -> None:
    """A declared Extra (e.g. an adaptive variant) gets its rows against the same published cells."""
    from evofeat.experiments.spec import Extra

    spec = _toy(extras=(Extra("t1", "A adaptive", lambda pub: ("german", "a", {"budget": 0.2})),))
    text = spec.write_report(_results(spec), tmp_path, "x").read_text()
    assert "**A adaptive** beside the same published cells:" in text
    assert "| german | 0.1 | B | 20.0 ± 2.0 | 10.5 ± 0.6 | -4.75 | outside 2σ |" in text


def test_extra_rows_enter_the_comparison_as_variant_rows_not_published_cells() -> None:
    """An Extra's rows are comparison.csv rows marked with its label, left out of the counts."""
    from evofeat.experiments.spec import Extra
    from evofeat.report.compare import comparison_section

    extra = Extra(
        "t1",
        "A adaptive",
        lambda pub: ("german", "a", {"budget": 0.2}) if pub.method == "b" else None,
        lambda pub, n: f"run {pub.method} x{n}",
    )
    spec = _toy(extras=(extra,))
    rows = spec.comparison(_results(spec))
    assert [(r.method, r.variant) for r in rows] == [("A", ""), ("B", ""), ("B", "A adaptive")]
    v = rows[-1]
    assert (v.paper_mean, v.ours_mean, v.command) == (20.0, 10.5, "run b x4")
    assert v.z == pytest.approx(-4.75)
    text = comparison_section(rows, {})
    assert "2 of 2 published cells run" in text and "1 variant rows" in text
    assert "| B (A adaptive) |" in text
    none = spec.comparison(pd.DataFrame())  # not run: still listed, as not run
    assert [(r.variant, r.verdict) for r in none][-1] == ("A adaptive", "not run")


def test_ofs_declares_rand_per_mistake_beside_rand_with_its_paired_test() -> None:
    p = get_paper("ofs")
    pub = next(x for x in p.published() if x.table == "table2" and x.method == "rand")
    extras = [e for e in p.extras if getattr(e, "table", "") == "table2"]
    assert len(extras) == 1 and "per-mistake" in extras[0].label
    ds, m, params = extras[0].lookup(pub)[:3]
    assert (m, params["draw"], params["budget"]) == ("rand", "per-mistake", 0.1)
    assert extras[0].command is not None and extras[0].command(pub, 20).endswith(
        "--param draw=per-mistake"
    )
    ofs = next(x for x in p.published() if x.table == "table2" and x.method == "ofs")
    assert extras[0].lookup(ofs) is None
    pairs = [s for s in p.pair_specs() if s.baseline == "RAND (one draw)"]
    assert {s.table for s in pairs} == {"table2", "table4", "table8"}
    assert all(s.ours[2] == {**s.theirs[2], "draw": "per-mistake"} for s in pairs)


def test_adaptive_rows_render_from_the_json_with_their_count(tmp_path: Path) -> None:
    """The adaptive section reads the investigation's JSON at render time, one paper's cells."""
    import json

    from evofeat.experiments.sections import Adaptive

    cell = {
        "paper": "toy", "table": "t1", "dataset": "german", "algorithm": "A", "setting": "B=0.1",
        "paper_mean": 10.0, "paper_std": 1.0, "metric": "mistakes", "higher_is_better": False,
        "repeats": 2, "faithful_runs": [10.0, 12.0], "adaptive_runs": [8.0, 9.0],
        "t_pvalue": 0.01, "wilcoxon_pvalue": 0.5, "outcome": "win", "wilcoxon_outcome": "tie",
        "adaptive_command": "evofeat run --learner a --param step=adagrad", "ftrl_outcome": "loss",
    }  # fmt: skip
    other = {**cell, "paper": "other", "outcome": "loss"}
    meta = {"variants": {"toy": {"step": "adagrad"}}, "extra": {"toy": {"ftrl": {"base": "ftrl"}}}}
    path = tmp_path / "adaptive.json"
    path.write_text(json.dumps({"meta": meta, "cells": [cell, {**cell, "outcome": "tie"}, other]}))
    spec = _toy(extras=(Adaptive("toy", path=str(path)),))
    text = spec.write_report(_results(spec), tmp_path, "x").read_text()
    assert "## Adaptive variant (not the paper's rule)" in text and "`step=adagrad`" in text
    assert "| adaptive | 2 | 1/1/0 | 0/2/0 |" in text  # the other paper's loss is not counted
    assert "| ftrl (base=ftrl; shown, not counted) | 2 | 0/0/2 | - |" in text
    assert (
        "| t1 | german | A | B=0.1 | 10.0 ± 1.0 | 11.0 ± 1.4 | 8.5 ± 0.7 | 0.01 | 0.5 | win |"
        in text
    )
    assert len(spec.comparison(_results(spec))) == 2  # not comparison rows: no published cell added
    path.unlink()
    gone = spec.write_report(_results(spec), tmp_path, "x").read_text()
    assert "Not computed here: `python benchmarks/investigations/adaptive_variants.py" in gone


def test_stsd_ofs_and_fesl_declare_the_adaptive_rows() -> None:
    from evofeat.experiments.sections import Adaptive

    for name in ("stsd", "ofs", "fesl"):
        got = [e for e in get_paper(name).extras if isinstance(e, Adaptive)]
        assert [e.paper for e in got] == [name]
