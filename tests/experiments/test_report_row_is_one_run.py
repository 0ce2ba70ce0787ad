"""Every report row is one ``evofeat run``: protocols, preprocessing chains, comparison rows, skips."""

from __future__ import annotations

import csv
import json
import math
import shlex
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from evofeat.cli import main
from evofeat.datasets import load, preprocess
from evofeat.experiments import get_paper
from evofeat.experiments.base import Cell
from evofeat.report.compare import COLUMNS, Pair, Row, write_comparison_csv


def _run(command: str) -> dict:
    args = shlex.split(command)
    assert args[:2] == ["evofeat", "run"]
    result = CliRunner().invoke(main, [*args[1:], "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_stsd_authors_protocol_gives_the_published_german_cell() -> None:
    # Table II / III, STSD-I at B = 0.5 on german: the authors' code prints 366.9 ± 8.8
    got = _run("evofeat run --protocol stsd-authors --learner stsd-i --dataset german --repeats 20")
    assert round(got["mistakes"]["mean"], 1) == 366.9
    assert round(got["mistakes"]["std"], 1) == 8.8


def test_a_flag_overrides_the_protocol() -> None:
    base = _run("evofeat run --protocol stsd-authors --learner stsd-i --dataset german --repeats 2")
    other = _run(
        "evofeat run --protocol stsd-authors --learner stsd-i --dataset german --repeats 2 "
        "--param budget=0.2"
    )
    assert other["params"]["budget"] == 0.2 and base["params"]["budget"] == 0.5
    assert other["mistakes"]["values"] != base["mistakes"]["values"]


def test_unknown_protocol_is_a_clear_error() -> None:
    result = CliRunner().invoke(
        main, ["run", "--protocol", "nope", "--learner", "ofs", "--dataset", "german"]
    )
    assert result.exit_code == 2
    assert "unknown protocol 'nope'" in result.output and "stsd-authors" in result.output


def test_preprocess_chain_equals_the_steps_in_turn() -> None:
    X = load("german").X.toarray()
    chained = load("german", preprocess="zscore,unit-norm").X
    np.testing.assert_array_equal(chained, preprocess(preprocess(X, "zscore"), "unit-norm"))
    with pytest.raises(ValueError, match="unknown preprocessing 'unit' in 'zscore,unit'"):
        load("german", preprocess="zscore,unit")


@pytest.mark.parametrize(
    ("paper", "cell"),
    [
        ("stsd", None),  # built below from the paper's own setting
        (
            "ofs",
            Cell("table2", "german", "rand", {"budget": 0.1, "preprocess": "zscore+unit-norm"}),
        ),
        ("fesl", Cell("table2", "credit-a", "fesl-c", {"c": 10, "overlap": 10})),
        ("opid", Cell("table2", "dna", "opid", {"n_i": 120})),
    ],
)
def test_a_cell_and_its_command_give_the_same_numbers(paper: str, cell: Cell | None) -> None:
    """The comparison row's command, run by the CLI, gives the cell's stored numbers."""
    import pandas as pd

    p = get_paper(paper)
    if cell is None:
        from evofeat.papers.stsd import setting

        cell = Cell(
            "table3", "svmguide3", "stsd-i", setting("svmguide3", "stsd-i", "original-code", 0.2)
        )
    cells = [Cell(cell.table, cell.dataset, cell.method, cell.params, r) for r in range(2)]
    results = pd.DataFrame(
        [
            {
                "table": c.table,
                "dataset": c.dataset,
                "method": c.method,
                "params": c.params,
                "repeat": c.repeat,
                **p.run_cell(c),
            }
            for c in cells
        ]
    )
    if paper == "fesl":  # the c is chosen on search runs: give it one
        search = results.assign(table="table2-search")
        results = pd.concat([results, search], ignore_index=True)
    rows = [r for r in p.comparison(results) if r.verdict != "not run"]
    assert rows, "the cell is a published one"
    row = rows[0]
    metric = "accuracy" if paper in ("fesl", "opid") else "mistakes"
    got = _run(row.command)[metric]
    assert got["mean"] == pytest.approx(row.ours_mean, rel=1e-12)
    assert got["std"] == pytest.approx(row.ours_std, rel=1e-9)


def test_row_z_and_verdict_use_the_papers_std() -> None:
    r = Row("p", "t", "d", "m", "", 100.0, 10.0, 115.0, 1.0)
    assert r.z == pytest.approx(1.5) and r.verdict == "within 2σ"
    assert Row("p", "t", "d", "m", "", 1.0, 0.0, 1.0, 0.0).z == 0.0
    assert Row("p", "t", "d", "m", "", 1.0, 0.0, 2.0, 0.0).verdict == "outside 2σ"
    assert Row("p", "t", "d", "m", "", 1.0, 1.0).verdict == "not run"


def test_comparison_csv_has_the_columns(tmp_path: Path) -> None:
    rows = [Row("ofs", "table2", "german", "OFS", "B=0.1", 300.0, 10.0, 290.0, 5.0, "x", "cmd")]
    path = write_comparison_csv(rows, tmp_path / "comparison.csv")
    with path.open() as fh:
        got = list(csv.DictReader(fh))
    assert tuple(got[0]) == COLUMNS
    assert float(got[0]["z"]) == -1.0 and got[0]["verdict"] == "within 1σ"


def test_paired_outcomes_follow_the_direction_of_better() -> None:
    a = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]
    b = [x + 5 + 0.1 * i for i, x in enumerate(a)]
    assert Pair("t", "s", "m", "b", a, b, higher_is_better=False).outcomes() == ("win", "win")
    assert Pair("t", "s", "m", "b", a, b, higher_is_better=True).outcomes() == ("loss", "loss")
    assert Pair("t", "s", "m", "b", a, a).outcomes() == ("tie", "tie")


@pytest.mark.parametrize("paper", ["ofs", "ceofs"])
def test_quick_run_without_data_writes_an_honest_report(
    paper: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("EVOFEAT_DATA", str(empty))
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda *a, **k: str(tmp_path / "cache"))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["reproduce", paper, "--quick", "--out", str(out), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "**Quick run**" in report and "Repeats run:" in report
    missing = "colon" if paper == "ofs" else "hill-valley"
    assert f"needs data {missing}" in report
    assert f"evofeat.datasets.download({missing!r})" in report


def test_ofs_comparison_names_missing_published_data() -> None:
    import pandas as pd

    rows = get_paper("ofs").comparison(pd.DataFrame())
    kdd = [r for r in rows if r.dataset == "KDDCUP08"]
    assert kdd and all(r.explanation_id == "needs-data-kddcup08" for r in kdd)
    assert all(math.isnan(r.ours_mean) for r in kdd)
