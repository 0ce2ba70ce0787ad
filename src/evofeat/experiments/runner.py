"""Run a paper's cells (locally with joblib, or on a Dask cluster) into the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evofeat.base.errors import InputError
from evofeat.experiments import get_paper
from evofeat.experiments.base import Cell, Paper
from evofeat.experiments.finish import available_cells, finish_report
from evofeat.experiments.store import ResultStore

__all__ = ["CONNECT_TIMEOUT", "connect", "reproduce", "run_cells"]


#: seconds to wait for a Dask scheduler before giving up
CONNECT_TIMEOUT = 10


def _work(paper: Paper | str, cell: Cell) -> tuple[Cell, dict[str, Any]]:
    """Run one cell (in a worker process: ``paper`` is sent itself, so it need not be registered there)."""
    from evofeat._parallel import one_blas_thread

    paper = get_paper(paper) if isinstance(paper, str) else paper
    with one_blas_thread():  # the same sums in the same order, wherever the cell runs
        return cell, paper.run_cell(cell)


def _dask_work(paper: Paper | str, cell: Cell) -> tuple[Cell, dict[str, Any]]:
    """:func:`_work` on a Dask worker: a missing data set is blamed on the worker's environment."""
    import socket

    from evofeat.datasets import DataNotFoundError

    try:
        return _work(paper, cell)
    except DataNotFoundError as exc:
        where = os.environ.get("EVOFEAT_DATA")
        env = f"EVOFEAT_DATA={where}" if where else "no EVOFEAT_DATA"
        raise DataNotFoundError(
            f"on the Dask worker {socket.gethostname()} (pid {os.getpid()}), whose environment has "
            f"{env}: {exc}; fix: start the workers with EVOFEAT_DATA set to the folder that holds "
            "the data (the worker's environment, not this shell's, is what counts)"
        ) from None


def connect(scheduler: str, timeout: float | None = None) -> Any:
    """A Dask ``Client`` of ``scheduler``, or :class:`InputError` in about ``timeout`` seconds.

    ``timeout`` defaults to :data:`CONNECT_TIMEOUT`.
    """
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError(
            "--scheduler needs Dask",
            expected="dask[distributed] installed",
            received="no dask.distributed",
            fix="pip install 'evofeat[dask]'",
        ) from None
    import logging

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # the connection retries would print their own tracebacks
    try:
        return Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise InputError(
            f"cannot reach the Dask scheduler at {scheduler!r} ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else 'no answer'})",
            expected=f"a running scheduler answering within {timeout:g} s, e.g. tcp://HOST:8786",
            received=scheduler,
            fix="start one with `dask scheduler` (and workers with `dask worker ADDRESS`), "
            "or drop --scheduler to run here",
        ) from None
    finally:
        quiet.setLevel(level)


def run_cells(
    paper: Paper,
    cells: list[Cell],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    client: Any = None,
) -> Iterator[tuple[Cell, dict[str, Any]]]:
    """Yield ``(cell, result)`` as each cell finishes (in completion order).

    On Ctrl-C (``KeyboardInterrupt``) the cells that already finished are
    still yielded before the interrupt goes on, so the caller can store them;
    the cells still running are stopped.
    """
    if not cells:
        return
    if scheduler or client is not None:
        yield from _run_dask(paper, cells, client or connect(str(scheduler)), own=client is None)
        return
    if jobs == 1:
        for c in cells:
            yield _work(paper, c)
        return
    from evofeat._parallel import imap_unordered

    for _, done in imap_unordered(_work, ((paper, c) for c in cells), jobs):
        yield done


def _run_dask(
    paper: Paper, cells: list[Cell], client: Any, own: bool
) -> Iterator[tuple[Cell, dict[str, Any]]]:
    import time

    from evofeat._parallel import deferred_sigint

    futures = [client.submit(_dask_work, paper.name, c, pure=False) for c in cells]
    remaining = list(futures)
    try:
        with deferred_sigint() as sigint:  # Ctrl-C: keep what finished, stop the rest
            while remaining and not sigint.hit:
                done = [f for f in remaining if f.done()]
                if not done:
                    time.sleep(0.1)
                for fut in done:
                    remaining.remove(fut)
                    yield fut.result()
            if sigint.hit:
                for fut in [f for f in remaining if f.status == "finished"]:
                    remaining.remove(fut)
                    yield fut.result()
                raise KeyboardInterrupt
    finally:
        if remaining:
            client.cancel(remaining)
        if own:
            client.close()


def reproduce(
    paper_name: str,
    out: str | Path,
    *,
    quick: bool = False,
    jobs: int = 1,
    scheduler: str | None = None,
    command: str = "",
    progress: Callable[[int, int], None] | None = None,
    render_only: bool = False,
) -> Path:
    """Run every cell of ``paper_name`` not yet in ``out/results.sqlite``, then write the report.

    Returns the path of ``out/report.md``. Results are stored as each cell
    completes, so an interrupted run resumes where it stopped.
    ``render_only`` runs nothing: the report is rendered from the cells
    already stored (those missing show as not run).
    """
    paper = get_paper(paper_name)
    out = Path(out)
    if render_only and not (out / "results.sqlite").is_file():
        raise InputError(
            "--render-only renders stored results",
            expected=f"{out / 'results.sqlite'}",
            received="no such file",
            fix="give --out the folder of an earlier run, or drop --render-only",
        )
    client = connect(scheduler) if scheduler and not render_only else None
    try:
        return _reproduce(paper, out, quick, jobs, client, command, progress, render_only)
    finally:
        if client is not None:
            client.close()


def _reproduce(
    paper: Paper,
    out: Path,
    quick: bool,
    jobs: int,
    client: Any,
    command: str,
    progress: Callable[[int, int], None] | None,
    render_only: bool = False,
) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.sqlite")
    planned = paper.cells(quick)
    cells, skipped = available_cells(paper, planned)  # absent data: listed
    done = store.done_keys(paper.name)
    todo = [] if render_only else [c for c in cells if c.key not in done]
    total = len(cells)
    finished = total - len(todo)
    if progress:
        progress(finished, total)
    for cell, result in run_cells(paper, todo, jobs=jobs, client=client):
        store.put(paper.name, cell, result)
        finished += 1
        if progress:
            progress(finished, total)
    results = store.results(paper.name, cells)
    command = command or f"evofeat reproduce {paper.name}{' --quick' if quick else ''} --out {out}"
    not_run = (len(planned) - len(cells), len(planned))
    return _write_report_atomically(paper, results, out, command, quick, skipped, not_run)


def _write_report_atomically(
    paper: Paper,
    results: Any,
    out: Path,
    command: str,
    quick: bool = False,
    skipped: list[tuple[str, str]] | None = None,
    not_run: tuple[int, int] = (0, 0),
) -> Path:
    """Write the report in a scratch folder, then move each file into ``out`` (report.md last)."""
    from evofeat._scratch import write_atomically

    def write(tmp: Path) -> None:
        paper.write_report(results, tmp, command)
        finish_report(paper, results, tmp, quick, skipped or [], not_run)

    write_atomically(out, write, last="report.md", inside="report-")
    return out / "report.md"
