"""CEOFS's declared report: rendered from stored cells, its tables read the right cells.

The cells here are synthetic (no selector runs): each stores per-fold lists,
as the CEOFS runners do, so the test checks what the declaration reads and
how it pools and formats them, not the selectors.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evofeat.experiments.base import Cell
from evofeat.experiments.store import ResultStore
from evofeat.papers.ceofs import PAPER
from evofeat.report import mean_std


def _fake(cell: Cell) -> dict[str, Any]:
    """A stored result of the cell's shape; LOFS differs from textbook only for Alpha-investing on madelon."""
    if cell.table == "groups":
        return {"n_rows": 20, "n_features": 50, "n_runs": 10, "seconds": 1.25, "seconds_kmeans": 0.5,
                "seconds_coassociation": 0.25, "seconds_linkage": 0.5, "condensed_mb_float32": 0.1,
                "traced_peak_mb": 3.0, "rss_peak_mb": 4.0, "n_groups": 12, "largest_group": 9,
                "singletons": 7}  # fmt: skip
    p = cell.params
    k = p["folds"]
    differs = (cell.method, cell.dataset) == ("alpha-investing", "madelon")
    variant = p.get("variant") if differs else ""  # LOFS selects as textbook: the same numbers
    rng = np.random.default_rng(
        zlib.crc32(f"{cell.table}|{cell.dataset}|{cell.method}|{variant}".encode())
    )
    if cell.table == "figure4":
        out: dict[str, Any] = {"theta2": p["theta2"]}
        for t in p["theta2"]:
            for m in ("svm_rbf", "knn3", "n_selected"):
                out[f"{m}_folds@{t}"] = rng.uniform(0.5, 1.0, k).tolist() if m != "n_selected" else [t * 100] * k  # fmt: skip
        return out
    out = {
        f"{m}_folds": rng.uniform(0.5, 1.0, k).tolist()
        for m in ("svm_rbf", "knn3", "fit_seconds", "online_seconds")
    }
    out.update(n_selected_folds=rng.integers(0, 9, k).astype(float).tolist(),
               n_relevant_folds=[3.0] * k, n_rows=100, n_features=40, n_historical=32,
               n_arriving=8, load_average=1.5)  # fmt: skip
    if cell.method in ("ceofs", "cofs"):
        out["n_groups_historical_folds"] = [11.0 if cell.method == "ceofs" else 4.0] * k
    return out


def _results(tmp_path: Path, quick: bool) -> pd.DataFrame:
    store = ResultStore(tmp_path / "results.sqlite")
    for cell in PAPER.cells(quick=quick):
        store.put("ceofs", cell, _fake(cell))
    return store.results("ceofs")


def _row(report: str, *start: str) -> list[str]:
    """The cells of the Markdown table row that starts with ``start``."""
    line = next(ln for ln in report.splitlines() if ln.startswith("| " + " | ".join(start) + " |"))
    return [c.strip() for c in line.strip("|").split(" | ")]


def _stored(res: pd.DataFrame, ds: str, method: str, metric: str, **match: Any) -> np.ndarray:
    rows = res[(res["dataset"] == ds) & (res["method"] == method) & (res["table"] == "table2")]
    rows = rows[[all(p.get(k) == v for k, v in match.items()) for p in rows["params"]]]
    assert len(rows) == 1
    return np.asarray(rows[metric].iloc[0], dtype=float)


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame, Path]:
    out = tmp_path_factory.mktemp("ceofs")
    res = _results(out, quick=False)
    return PAPER.write_report(res, out, "cmd").read_text(), res, out


def test_table2_pools_every_fold_in_percent(full: tuple[str, pd.DataFrame, Path]) -> None:
    report, res, _ = full
    # a baseline's row follows LOFS's rules; the textbook rule is its named variant row
    svm = _stored(res, "madelon", "alpha-investing", "svm_rbf_folds", variant="lofs")
    got = _row(report, "madelon", "Alpha-investing")
    assert got[2] == "LR test of least squares" and got[3] == mean_std(100 * svm)
    book = _stored(res, "madelon", "alpha-investing", "svm_rbf_folds", variant="textbook")
    assert _row(report, "madelon", "Alpha-investing (textbook)")[3] == mean_std(100 * book)
    assert mean_std(100 * book) != mean_std(100 * svm)  # the fake data tells the two rules apart
    assert "(LOFS)" not in report
    sel = _stored(res, "colon-discretized", "osfs", "n_selected_folds", variant="lofs")
    assert _row(report, "colon-discretized", "OSFS")[2:6:3] == ["g2", mean_std(sel)]
    assert "Mean ± std over 10 folds x 1 repeat(s)" in report


def test_ceofs_against_cofs_is_the_difference_of_the_means(
    full: tuple[str, pd.DataFrame, Path],
) -> None:
    report, res, _ = full
    a, b = (100 * _stored(res, "isolet", m, "knn3_folds") for m in ("ceofs", "cofs"))
    row = _row(report.split("### The paper's claims")[1], "isolet")
    assert row[2] == f"{a.mean() - b.mean():+.1f}" and row[-2:] == ["11", "4"]


def test_only_the_baselines_whose_variants_differ_are_named(
    full: tuple[str, pd.DataFrame, Path],
) -> None:
    report, _, _ = full
    assert "Textbook and LOFS variants differ on: Alpha-investing on madelon. Elsewhere" in report


def test_table3_reads_each_method_and_the_time_per_arriving_feature(
    full: tuple[str, pd.DataFrame, Path],
) -> None:
    report, res, _ = full
    head = "| data set | arriving | CEOFS (s) |"
    table = report[report.index(head) :].split("\n\n")[0]
    row = _row(table, "arcene")
    online = _stored(res, "arcene", "saola", "online_seconds_folds", variant="lofs")
    ceofs = _stored(res, "arcene", "ceofs", "online_seconds_folds")
    assert row[1] == "8" and row[7] == f"{online.mean():.4g}"
    assert row[8] == f"{1000 * ceofs.mean() / 8:.4g}"
    assert "load average at the end of the cells was 1.5" in report
    alpha = _stored(res, "madelon", "alpha-investing", "online_seconds_folds", variant="lofs")
    assert _row(table, "madelon")[4] == f"{alpha.mean():.4g}"  # the baselines' LOFS rule


def test_figure4_and_the_groups_table(full: tuple[str, pd.DataFrame, Path]) -> None:
    report, res, out = full
    assert (out / "figure4.png").is_file() and (out / "figure4.svg").is_file()
    row = _row(report, "isolet", "features")
    assert row[2:] == [mean_std([t * 100] * 10) for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)]
    assert re.search(r"Range of the mean accuracy over the thresholds: SVM \(RBF\) [\d.]+ points", report)  # fmt: skip
    assert "| data set | arcene |" in report and "| singleton groups | 7 |" in report
    assert "| total time (s) | 1.2 |" in report or "| total time (s) | 1.3 |" in report


def test_a_quick_run_is_read_through_its_own_folds(tmp_path: Path) -> None:
    res = _results(tmp_path, quick=True)
    report = PAPER.write_report(res, tmp_path, "cmd").read_text()
    assert "Mean ± std over 2 folds x 1 repeat(s)" in report
    svm = _stored(res, "colon", "cofs", "svm_rbf_folds")
    assert svm.size == 2 and _row(report, "colon", "COFS")[3] == mean_std(100 * svm)
    assert "| isolet | features | – | – | 50.0 ± 0.0 | – | 70.0 ± 0.0 | – |" in report
    assert "| data set | hill-valley |" in report  # the quick groups cell
    assert "(textbook)" not in report.split("## Table 3")[0].split("## Table 2")[1]
    assert "--param variant=lofs" in _row(report, "colon", "OSFS")[-1]  # the baseline rule runs


def test_the_declaration_keeps_its_cells() -> None:
    full, quick = PAPER.cells(False), PAPER.cells(True)
    assert (len(full), len(quick)) == (68, 16)
    assert {c.params.get("folds") for c in quick if c.table != "groups"} == {2}
    assert sum(c.params.get("variant") == "lofs" for c in full) == 4 * 6
