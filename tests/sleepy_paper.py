"""A paper protocol for the interrupt and Dask tests: slow cells that log when they finish.

Each cell returns a float whose last digits depend on how many BLAS threads
summed it (a long dot product), the number of BLAS threads it saw, and the
pid of the process that ran it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.experiments.base import Cell, Paper


class SleepyPaper(Paper):
    name = "sleepy"
    title = "sleepy protocol"

    def cells(self, quick: bool = False) -> list[Cell]:
        return [Cell("t", "none", "dot", {}, repeat=r) for r in range(8)]

    def run_cell(self, cell: Cell) -> dict[str, Any]:
        from threadpoolctl import threadpool_info

        time.sleep(float(os.environ.get("SLEEPY_SLEEP", "0")))
        v = np.random.default_rng(cell.repeat).normal(size=400_000)
        threads = max((i["num_threads"] for i in threadpool_info()), default=1)
        result = {"value": float(v @ v), "blas_threads": threads, "pid": os.getpid()}
        log = os.environ.get("SLEEPY_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{cell.key} {os.getpid()}\n")
        return result

    def write_report(self, results: pd.DataFrame, out: Path, command: str) -> Path:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(f"# sleepy\n\n{len(results)} cells\n", encoding="utf-8")
        return out / "report.md"


PAPER = SleepyPaper()
