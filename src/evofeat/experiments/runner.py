"""Run a paper's cells (locally with joblib, or on a Dask cluster) into the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evofeat.experiments import get_paper
from evofeat.experiments.base import Cell, Paper
from evofeat.experiments.finish import available_cells, finish_report
from evofeat.experiments.store import ResultStore

__all__ = ["reproduce", "run_cells"]


def _work(paper_name: str, cell: Cell) -> tuple[Cell, dict[str, Any]]:
    paper = get_paper(paper_name)
    return cell, paper.run_cell(cell)


def run_cells(
    paper: Paper, cells: list[Cell], *, jobs: int = 1, scheduler: str | None = None
) -> Iterator[tuple[Cell, dict[str, Any]]]:
    """Yield ``(cell, result)`` as each cell finishes (in completion order)."""
    if not cells:
        return
    if scheduler:
        from dask.distributed import Client, as_completed

        with Client(scheduler) as client:
            futures = [client.submit(_work, paper.name, c, pure=False) for c in cells]
            for fut in as_completed(futures):
                yield fut.result()
        return
    if jobs == 1:
        for c in cells:
            yield c, paper.run_cell(c)
        return
    from joblib import Parallel, delayed

    par = Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    yield from par(delayed(_work)(paper.name, c) for c in cells)


def reproduce(
    paper_name: str,
    out: str | Path,
    *,
    quick: bool = False,
    jobs: int = 1,
    scheduler: str | None = None,
    command: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Run every cell of ``paper_name`` not yet in ``out/results.sqlite``, then write the report.

    Returns the path of ``out/report.md``. Results are stored as each cell
    completes, so an interrupted run resumes where it stopped.
    """
    paper = get_paper(paper_name)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.sqlite")
    cells, skipped = available_cells(paper, paper.cells(quick))  # absent data: listed
    done = store.done_keys(paper.name)
    todo = [c for c in cells if c.key not in done]
    total = len(cells)
    finished = total - len(todo)
    if progress:
        progress(finished, total)
    jobs = (os.cpu_count() or 1) if jobs <= 0 else jobs
    for cell, result in run_cells(paper, todo, jobs=jobs, scheduler=scheduler):
        store.put(paper.name, cell, result)
        finished += 1
        if progress:
            progress(finished, total)
    results = store.results(paper.name, cells)
    command = command or f"evofeat reproduce {paper_name}{' --quick' if quick else ''} --out {out}"
    return _write_report_atomically(paper, results, out, command, quick, skipped)


def _write_report_atomically(
    paper: Paper,
    results: Any,
    out: Path,
    command: str,
    quick: bool = False,
    skipped: list[tuple[str, str]] | None = None,
) -> Path:
    """Write the report in a scratch folder, then move each file into ``out`` (report.md last)."""
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
    try:
        paper.write_report(results, tmp, command)
        finish_report(paper, results, tmp, quick, skipped or [])
        files = sorted(
            (p for p in tmp.rglob("*") if p.is_file()), key=lambda p: p.name == "report.md"
        )
        for f in files:
            dest = out / f.relative_to(tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out / "report.md"
