"""Every run row one command: the one-cell command behind the rows no ``evofeat run`` covers."""

from __future__ import annotations

import shlex

import pytest

from conftest import requires_data
from evofeat.experiments import Cell, cell, protocols
from evofeat.experiments.spec import Published
from evofeat.papers.fesl import _row_command
from evofeat.papers.ofs import _Z, _command
from evofeat.papers.ofs import _published as ofs_published


def test_every_ofs_table5_cell_names_a_command_that_reruns_it() -> None:
    cells = [p for p in ofs_published() if p.table == "table5"]
    assert len(cells) == 28
    for pub in cells:
        line = _command(pub, _Z, 20)
        assert line.startswith(cell.MODULE), line
        words = shlex.split(line)[3:]
        assert words[:4] == ["ofs", "table5", "colon", pub.method]
        assert words[-2] == "--metric" and words[-1].split(":")[0] in ("ogd_error", "knn_error")


def test_a_reuters_row_names_the_one_cell_command_and_a_synthetic_row_evofeat_run() -> None:
    reuters = Published("reuters", "r.GR-SP", "fesl-c", "FESL-c", {}, 0.9, 0.01, ".900.010")
    assert _row_command(reuters, 50, 3) == (
        "python -m evofeat.experiments.cell fesl reuters reuters-3-5 fesl-c c=50 overlap=50 "
        "--repeats 3"
    )
    synthetic = Published("table2", "german", "nogd", "NOGD", {}, 0.7, 0.01, ".700.010")
    assert _row_command(synthetic, 10, 10).startswith("evofeat run --protocol fesl")


@requires_data("german")
def test_the_one_cell_command_prints_the_cells_runs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fesl", "table2", "german", "nogd", "c=10", "overlap=10", "--repeats", "2"]
    assert cell.main(argv) == 0
    runs, summary = capsys.readouterr().out.strip().splitlines()
    want = cell.run("fesl", Cell("table2", "german", "nogd", {"c": 10, "overlap": 10}), 2)
    assert [float(x) for x in runs.split()] == pytest.approx(want.tolist(), rel=1e-5)
    assert summary.startswith("mean ") and summary.endswith("over 2 repeats")
    # the same number as the synthetic row's evofeat run line (the protocol at lr = 1/c)
    s = protocols.setting("fesl", "german", "nogd", params={"lr": 0.1})
    assert protocols.run_setting("nogd", s, 0).accuracy == pytest.approx(want[0])


def test_bad_arguments_exit_nonzero_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert cell.main(["fesl", "table2", "german", "nogd", "c"]) == 2
    assert "expected K=V" in capsys.readouterr().err
    assert cell.main(["nope", "t", "d", "m"]) == 2
    assert "unknown paper" in capsys.readouterr().err
