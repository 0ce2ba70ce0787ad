"""Re-judging a committed report from its committed numbers (no result store at hand)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evofeat.report.committed import NOTE, refresh
from evofeat.report.compare import COLUMNS

HEAD = "paper,table,dataset,method,setting,paper_mean,paper_std,ours_mean,ours_std,z,verdict,explanation_id,command,variant"
REPORT = """# Toy: reproduction

Regenerate with `evofeat reproduce opid --out x`.

## Summary

A cell *reproduces* when our mean is within one standard deviation of the paper's (Δ/σ, σ the larger of the two stds over the runs), is *close* within two, and *differs* beyond.

- **Table 2**, ours: 2 of 2 within 1σ, 0 within 2σ, 0 further.

## Table 2

| data | n_i | algorithm | paper | ours: ours | Δ/σ | verdict (ours) |
| --- | --- | --- | --- | --- | --- | --- |
| DNA | 60 | OPID | 0.9253 ± 0.0248 | 0.7650 ± 0.0851 | -1.88 | close |
| DNA | 60 | SVM | 0.7693 ± 0.0495 | 0.7633 ± 0.0496 | -0.12 | reproduces |

## Every published cell

old text
"""


def test_a_committed_report_is_rejudged_by_the_papers_std(tmp_path: Path) -> None:
    (tmp_path / "comparison.csv").write_text(
        HEAD + "\n"
        "opid,table2,DNA,OPID,n_i=60,0.9253,0.0248,0.765,0.0851469,-1.88,within 2σ,,cmd,\n"
        "opid,table2,DNA,SVM,n_i=60,0.7693,0.0495,0.763333,0.049566,-0.12,within 1σ,,cmd,\n",
        encoding="utf-8",
    )
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")
    refresh("opid", tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    # the wider spread on our side no longer makes OPID's cell "close": it is 6.5σ off
    assert "| DNA | 60 | OPID | 0.9253 ± 0.0248 | 0.7650 ± 0.0851 | -6.46 | outside 2σ |" in text
    assert "- **Table 2**, ours: 1 of 2 within 1σ, 1 within 2σ, 1 further." in text
    assert "does not reproduce: 1" in text and "the larger of the two" not in text
    assert NOTE.split("(")[0] in text and "old text" not in text
    with (tmp_path / "comparison.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == COLUMNS
    assert (rows[0]["status"], rows[0]["explanation_id"]) == ("does not reproduce", "opid-estage")
    assert rows[1]["status"] == "reproduces"
    refresh("opid", tmp_path)  # idempotent: the note is not added twice
    again = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert again.count(NOTE.split("(")[0]) == 1 and again.count("By status, the 2 published") == 1


def test_a_refresh_that_fails_midway_leaves_both_files_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """comparison.csv and report.md are moved in together, or not at all."""
    from evofeat.report import committed

    csv_text = (
        HEAD + "\nopid,table2,DNA,OPID,n_i=60,0.9253,0.0248,0.765,0.0851469,-1.88,within 2σ,,cmd,\n"
    )
    (tmp_path / "comparison.csv").write_text(csv_text, encoding="utf-8")
    (tmp_path / "report.md").write_text(REPORT, encoding="utf-8")

    def half_written(rows: object, path: Path) -> Path:
        path.write_text("paper,tab", encoding="utf-8")
        raise OSError("No space left on device")

    monkeypatch.setattr(committed, "write_comparison_csv", half_written)
    with pytest.raises(OSError, match="No space"):
        refresh("opid", tmp_path)
    assert (tmp_path / "comparison.csv").read_text(encoding="utf-8") == csv_text
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == REPORT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["comparison.csv", "report.md"]


REPORTS = Path(__file__).resolve().parents[2] / "docs" / "reports"


@pytest.mark.parametrize("paper", ["stsd", "ofs", "fesl", "opid"])
def test_refreshing_a_committed_report_changes_none_of_its_cells(
    paper: str, tmp_path: Path
) -> None:
    """The CSV's 6 significant digits must not move z (STSD's 19 rows once did) or drop a count."""
    if not (REPORTS / paper / "comparison.csv").is_file():
        pytest.skip(f"docs/reports/{paper} is not in this checkout")
    for name in ("comparison.csv", "report.md"):
        (tmp_path / name).write_bytes((REPORTS / paper / name).read_bytes())
    refresh(paper, tmp_path)
    assert (tmp_path / "comparison.csv").read_bytes() == (
        REPORTS / paper / "comparison.csv"
    ).read_bytes()
    before = (REPORTS / paper / "report.md").read_text(encoding="utf-8")
    after = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert after.count("By status, the ") == before.count("By status, the ")
