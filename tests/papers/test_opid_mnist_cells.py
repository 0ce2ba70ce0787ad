"""OPID's MNIST cells with MNIST's training split here (issue 14): cell keys, C-stage rows, data table.

mnist-full (70,000 images) is not in the shared folder: the registry's choice
(:func:`evofeat.datasets.registry.fullest`) is monkeypatched, and where a cell
runs, a small synthetic set stands in for its rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from evofeat.datasets import registry
from evofeat.experiments import protocols
from evofeat.experiments.base import Cell
from evofeat.experiments.sections import View
from evofeat.papers import opid


@pytest.fixture
def absent(monkeypatch: pytest.MonkeyPatch) -> None:
    """No fuller set anywhere (as on this machine, whatever a user has downloaded)."""
    monkeypatch.setattr(registry, "fullest", registry.get_entry)


@pytest.fixture
def full_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """mnist-full's files "here": the registry picks it for mnist."""
    real = registry.fullest
    monkeypatch.setattr(
        registry, "fullest", lambda n: registry.get_entry("mnist-full") if n == "mnist" else real(n)
    )


def _keys(quick: bool) -> set[str]:
    return {c.key for c in opid.PAPER.cells(quick)}


def _mnist(keys: set[str]) -> set[str]:
    return {k for k in keys if k.split("|")[1].startswith("mnist")}


def test_cell_keys_name_the_full_data_only_when_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store made on the test split never answers for a run on train + test (and back)."""
    monkeypatch.setattr(registry, "fullest", registry.get_entry)
    without = {q: _keys(q) for q in (True, False)}
    real = registry.get_entry
    monkeypatch.setattr(registry, "fullest", lambda n: real("mnist-full" if n == "mnist" else n))
    withfull = {q: _keys(q) for q in (True, False)}
    assert withfull[True] == without[True]  # the quick run has no MNIST cell
    a, b = without[False], withfull[False]
    assert 'table2|mnist0vs5|opid|{"n_i":40}|0' in a  # today's keys, unchanged
    assert not any('"data"' in k for k in a)
    assert a - _mnist(a) == b - _mnist(b)  # the other sets' cells are the same cells
    assert len(_mnist(b)) == len(_mnist(a)) > 0 and _mnist(a).isdisjoint(_mnist(b))
    assert all('"data":"mnist-full"' in k for k in _mnist(b))
    assert 'table2|mnist0vs5|opid|{"data":"mnist-full","n_i":40}|0' in b


def test_the_report_reads_the_cells_of_the_data_in_use(full_here: None) -> None:
    """Published cells, paired tests and the files a cell needs follow the data in use."""
    pub = next(p for p in opid.PAPER.published_cells() if p.dataset == "Mnist 0vs5")
    assert opid._lookup(pub, "ours")[2] == {"n_i": pub.setting["n_i"], "data": "mnist-full"}
    dna = next(p for p in opid.PAPER.published_cells() if p.dataset == "DNA")
    assert opid._lookup(dna, "ours")[2] == {"n_i": dna.setting["n_i"]}
    pairs = [p for p in opid.PAPER.pair_specs() if p.ours[0] == "mnist0vs3vs5"]
    assert pairs and all(p.ours[2]["data"] == p.theirs[2]["data"] == "mnist-full" for p in pairs)
    cell = next(c for c in opid.PAPER.cells() if c.dataset == "mnist0vs5")
    assert opid.PAPER.requires(cell) == ("mnist-full",)
    stale = Cell("table2", "mnist0vs5", "svm", {"n_i": 40}, 0)  # a cell of the test split
    assert opid.PAPER.requires(stale) == ("mnist",)


@pytest.mark.parametrize(
    ("key", "cut", "paper"), [("mnist0vs5", 960, 3200), ("mnist0vs3vs5", 1440, 4800)]
)
def test_the_c_stage_has_the_papers_rows_with_the_full_data(
    key: str, cut: int, paper: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Table 1's 3200 / 4800 rows on train + test; the cut 960 / 1440 on the test split alone."""

    def c_stage() -> int:
        return int(opid.protocol_setting(key, "opid").scenario_params["n_cstage"])

    monkeypatch.setattr(registry, "fullest", registry.get_entry)
    assert c_stage() == opid._setting(key).n_cstage == cut
    real = registry.get_entry
    monkeypatch.setattr(registry, "fullest", lambda n: real("mnist-full" if n == "mnist" else n))
    assert c_stage() == opid._setting(key, "mnist-full").n_cstage == paper
    assert opid.protocol_setting("dna", "opid").scenario_params["n_cstage"] == 1200


def _fake_mnist(key: str, data: str) -> tuple[np.ndarray, np.ndarray]:
    """Digits 0 and 5, 1,800 rows each (enough for 3200 C-stage rows and a 2 x 40 E-stage)."""
    assert (key, data) == ("mnist0vs5", "mnist-full")
    rng = np.random.default_rng(0)
    y = np.repeat([0, 5], 1800)
    X = rng.random((y.size, 16)) + 0.3 * (y == 5)[:, None] * (np.arange(16) % 3 == 0)
    return (X - X.min(0)) / (X.max(0) - X.min(0)), y


def test_a_full_data_cell_and_its_protocol_command_give_the_same_numbers(
    full_here: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evofeat run --protocol opid`` (loader and setting) reproduces the cell, 3200 rows in the C-stage."""
    monkeypatch.setattr(opid, "_load", _fake_mnist)
    cell = Cell("table2", "mnist0vs5", "opide", opid._params("mnist0vs5", n_i=40), 1)
    assert cell.key in _keys(False)
    ours = opid.PAPER.run_cell(cell)
    assert ours["n_cstage"] == 3200
    with threadpool_limits(limits=1):
        cli = protocols.run_setting("opide", opid.protocol_setting("mnist0vs5", "opide"), 1)
    assert cli["accuracy"] == ours["accuracy"]


def _store(keys: tuple[str, ...], n_cstage: dict[str, int]) -> pd.DataFrame:
    """Stored runs of SVM and OPID on ``keys`` (every declared cell there, two repeats)."""
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = [
        {"table": c.table, "dataset": c.dataset, "method": c.method, "params": c.params,
         "repeat": c.repeat, "accuracy": 0.9 + rng.uniform(0.0, 0.01), "seconds": 0.1,
         "d_v": 137, "d_s": 275, "d_a": 137, "n_cstage": n_cstage[c.dataset]}
        for c in opid.PAPER.cells() if c.dataset in keys and c.repeat < 2
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _table1_line(text: str, name: str) -> str:
    return next((line for line in text.splitlines() if line.startswith(f"| {name} | ")), "")


def test_the_data_table_says_which_split_and_how_many_rows(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test split only (10,000 rows) or train + test (70,000); a test-split store is not shown as full."""
    monkeypatch.setattr(registry, "fullest", registry.get_entry)
    test_split = _store(("mnist0vs5",), {"mnist0vs5": 960})
    text = opid.PAPER.write_report(test_split, tmp_path / "a", "x").read_text()
    line = _table1_line(text, "Mnist0vs5")
    assert "| `mnist`, test split only, 10,000 rows | 960 | 137 |" in line
    assert "only the official 10,000-image test split is here" in text
    real = registry.get_entry
    monkeypatch.setattr(registry, "fullest", lambda n: real("mnist-full" if n == "mnist" else n))
    stale = opid.PAPER.write_report(test_split, tmp_path / "b", "x").read_text()
    assert _table1_line(stale, "Mnist0vs5") == ""  # the test split's cells are not these cells
    assert View(test_split).values("mnist0vs5", "svm", opid._params("mnist0vs5", n_i=40),
                                   "accuracy").size == 0  # fmt: skip
    full = _store(("mnist0vs5",), {"mnist0vs5": 3200})
    text = opid.PAPER.write_report(full, tmp_path / "c", "x").read_text()
    assert "| `mnist-full`, train + test, 70,000 rows | 3200 | 137 |" in _table1_line(
        text, "Mnist0vs5"
    )
    assert "train and test splits joined (`mnist-full`, 70,000 images" in text
