"""End to end: ``evofeat reproduce PAPER --quick`` for every paper, as a user runs it.

Each quick run reruns a small subset of the paper's protocol on the real data
sets, so these tests need the shared data folder (CI has it).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import shared_data_dir
from evofeat.cli import main
from evofeat.experiments import PAPERS, get_paper

pytestmark = pytest.mark.skipif(
    shared_data_dir() is None,
    reason="needs the shared data sets: set EVOFEAT_DATA to ../shared/datasets (CI does)",
)


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_reproduce_quick_writes_a_complete_report(paper: str, tmp_path: Path) -> None:
    out = tmp_path / paper
    result = CliRunner().invoke(
        main, ["reproduce", paper, "--quick", "--out", str(out), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert f"evofeat reproduce {paper} --quick" in report  # the command that regenerates it
    assert "**Quick run**" in report and "- Repeats run:" in report  # says what it ran
    if paper != "ceofs":  # the four papers with published numbers
        with (out / "comparison.csv").open() as fh:
            head, *rows = fh.read().splitlines()
        assert head.startswith("paper,table,dataset,method,setting,paper_mean,paper_std")
        assert len(rows) == len(get_paper(paper).comparison(__import__("pandas").DataFrame()))
        assert "## Every published cell" in report and "## Paired tests" in report
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    assert figures, "the report embeds its figures"
    for fig in figures:
        assert (out / fig).is_file(), f"{fig} is referenced but missing"
        assert (out / fig).with_suffix(".svg").is_file()
    with sqlite3.connect(out / "results.sqlite") as db:
        (n_cells,) = db.execute("SELECT COUNT(*) FROM cells").fetchone()
    assert n_cells == len(get_paper(paper).cells(quick=True))
    # a rerun finds every cell finished and computes nothing
    again = CliRunner().invoke(
        main, ["reproduce", paper, "--quick", "--out", str(out), "--jobs", "1"]
    )
    assert again.exit_code == 0, again.output
    assert (out / "report.md").read_text() == report
