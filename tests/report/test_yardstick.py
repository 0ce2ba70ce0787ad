"""One yardstick (z by the paper's std) and one status per cell, in every place that judges a cell."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evofeat.experiments.spec import Published
from evofeat.report.compare import STATUSES, Explanation, Row, cell_status, status_counts
from evofeat.report.explanations import EXPLANATIONS, explain
from evofeat.report.paper import _delta, count, verdict
from evofeat.report.tables import diff_in_std, spread_note


def test_a_wider_spread_on_our_side_never_counts_as_agreement() -> None:
    # our std 40x the paper's: by the larger std this would be within 1σ; by the paper's it is far
    row = Row("ofs", "table8", "covtype", "RAND", "B=0.1", 1000.0, 1.0, 1025.7, 40.0)
    assert row.z == pytest.approx(25.7)
    assert row.verdict == "outside 2σ"
    assert row.spread == "ours 40x wider"
    pub = Published("table8", "covtype", "rand", "RAND", {}, 1000.0, 1.0, "1000 ± 1")
    assert _delta(np.array([985.7, 1065.7]), pub) == pytest.approx(diff_in_std(1025.7, 1000, 1))
    assert verdict(_delta(np.array([985.7, 1065.7]), pub)) == "outside 2σ"


def test_diff_in_std_ignores_any_std_but_the_papers() -> None:
    assert diff_in_std(12.0, 10.0, 1.0) == 2.0
    assert diff_in_std(10.0, 10.0, 0.0) == 0.0
    assert diff_in_std(9.0, 10.0, 0.0) == -math.inf
    assert math.isnan(diff_in_std(math.nan, 10.0, 1.0))
    assert spread_note(1.9, 1.0) == "" and spread_note(0.4, 1.0).endswith("(narrower)")


def test_within_2_sigma_counts_within_1_sigma_too() -> None:
    got = [{"v": "within 1σ"}, {"v": "within 2σ"}, {"v": "outside 2σ"}]
    assert count(got, "v", exact=False) == "1 of 3 within 1σ, 2 within 2σ, 1 further"


@pytest.mark.parametrize("paper", sorted(EXPLANATIONS))
def test_every_explanation_has_a_status_of_the_vocabulary(paper: str) -> None:
    for eid, e in EXPLANATIONS[paper].items():
        assert e.status in STATUSES, (paper, eid, e.status)
        assert e.status != "reproduces", eid  # a gap's explanation never makes a cell reproduce
        if eid.startswith("needs-data"):
            assert e.status == "needs data"


def test_a_cell_on_data_that_is_not_the_papers_is_not_comparable_however_close() -> None:
    close = Row("fesl", "table2", "r.EN-FR", "NOGD", "c=10", 0.902, 0.004, 0.9011, 0.012)
    close.explanation_id = explain("fesl", close)
    far = Row("fesl", "table2", "r.EN-FR", "ROGD-u", "c=10", 0.849, 0.003, 0.8917, 0.005)
    far.explanation_id = explain("fesl", far)
    assert close.verdict == "within 1σ" and close.status == "not comparable"
    assert far.status == "not comparable"
    counts = status_counts([close, far], EXPLANATIONS["fesl"])
    assert counts == {"not comparable": 2}  # neither is counted among the agreements


@pytest.mark.parametrize(
    ("dataset", "want"),
    [("kr-vs-kp", "fesl-majority"), ("splice", "fesl-majority"), ("dna", "fesl-majority"),
     ("german", "fesl-nogd"), ("australian", "fesl-nogd")],
)  # fmt: skip
def test_the_majority_rule_covers_only_the_nogd_cells_it_fits(dataset: str, want: str) -> None:
    row = Row("fesl", "table2", dataset, "NOGD", "c=10", 0.6, 0.01, 0.8, 0.01)
    assert explain("fesl", row) == want


def test_opids_estage_explanation_stops_at_the_n_i_it_was_tested_on() -> None:
    at = {
        n: Row("opid", "table2", "DNA", "OPID", f"n_i={n}", 0.93, 0.02, 0.8, 0.05)
        for n in (60, 120, 300)
    }
    for r in at.values():
        r.explanation_id = explain("opid", r)
    assert at[60].status == at[120].status == "does not reproduce"
    assert at[300].status == "open"  # not investigated there: no borrowed verdict


def test_a_declared_settings_cell_and_an_unexplained_gap_get_their_own_words() -> None:
    row = Row(
        "x", "t", "d", "m", "", 10.0, 1.0, 11.0, 1.0, within="reproduces with a declared setting"
    )
    assert cell_status(row, {}) == "reproduces with a declared setting"
    gap = Row("x", "t", "d", "m", "", 10.0, 1.0, 15.0, 1.0, "e")
    assert cell_status(gap, {}) == "open"
    assert cell_status(gap, {"e": Explanation("e", "why", "run", "explained")}) == "explained"


def test_the_readmes_counts_are_the_committed_comparison_files() -> None:
    """README's status table is counted from the four committed comparison.csv files."""
    import csv
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    order = STATUSES[:6]
    for paper in ("stsd", "ofs", "fesl", "opid"):
        with (root / "docs" / "reports" / paper / "comparison.csv").open(encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if not r["variant"]]
        run = [r for r in rows if r["verdict"] != "not run"]
        within = sum(r["verdict"] in ("within 1σ", "within 2σ") for r in run)
        counts = [sum(r["status"] == s for r in rows) for s in order]
        line = f"| {paper.upper()} | {len(rows)} | {len(run)} | {within} | " + " | ".join(
            map(str, counts)
        )
        assert line + " |" in readme, line
