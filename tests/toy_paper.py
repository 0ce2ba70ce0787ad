"""A tiny paper protocol for the runner's tests (slow cells, a log of what ran)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from evofeat.experiments.base import Cell, Paper


class ToyPaper(Paper):
    name = "toy"
    title = "toy protocol"

    def cells(self, quick: bool = False) -> list[Cell]:
        return [
            Cell("table1", "german", "pa-i", {"C": 0.1 * (1 + r % 3)}, repeat=r) for r in range(12)
        ]

    def run_cell(self, cell: Cell) -> dict[str, Any]:
        log = os.environ.get("TOY_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(cell.key + "\n")
        time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
        from evofeat.evaluate import run_once

        res = run_once(
            cell.method,
            cell.dataset,
            "trapezoidal",
            params=cell.params,
            repeat=cell.repeat,
            preprocess="zscore",
        )
        return {"mistakes": res.mistakes}

    def write_report(self, results: pd.DataFrame, out: Path, command: str) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        text = f"# toy\n\n{len(results)} cells, {int(results['mistakes'].sum())} mistakes\n\n`{command}`\n"
        (out / "report.md").write_text(text, encoding="utf-8")
        return out / "report.md"


PAPER = ToyPaper()
