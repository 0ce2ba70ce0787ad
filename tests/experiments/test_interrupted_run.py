"""Ctrl-C and kill -9 during a multi-job run: finished cells kept, no worker left, no scratch left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evofeat._scratch import _alive
from evofeat.experiments import PAPERS
from evofeat.experiments.runner import reproduce
from evofeat.experiments.store import ResultStore

HERE = Path(__file__).resolve().parents[1]  # tests/, beside toy_paper.py and sleepy_paper.py

_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from evofeat.experiments import PAPERS
PAPERS["sleepy"] = "sleepy_paper:PAPER"
from evofeat.experiments.runner import reproduce
try:
    reproduce("sleepy", {out!r}, jobs=2)
except KeyboardInterrupt:
    sys.exit(130)
"""


def _start(out: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SLEEPY_SLEEP": "1.5", "SLEEPY_LOG": str(log)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT.format(here=str(HERE), out=str(out))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _finished(log: Path) -> list[tuple[str, int]]:
    if not log.exists():
        return []
    return [(k, int(p)) for k, p in (line.split() for line in log.read_text().splitlines())]


def _wait_for(log: Path, n: int, proc: subprocess.Popen[bytes], timeout: float = 240) -> None:
    end = time.monotonic() + timeout
    while len(_finished(log)) < n:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < end, "the cells did not finish in time"
        time.sleep(0.1)


def _gone(pids: set[int], timeout: float = 10) -> set[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.2)
    return {p for p in pids if _alive(p)}


def test_sigint_keeps_every_finished_cell_and_stops_the_workers(tmp_path: Path) -> None:
    out, log = tmp_path / "out", tmp_path / "log"
    proc = _start(out, log)
    _wait_for(log, 2, proc)
    time.sleep(0.5)  # the finished cells' results have reached the main process
    finished = _finished(log)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130, proc.stderr.read().decode() if proc.stderr else ""
    stored = ResultStore(out / "results.sqlite").done_keys("sleepy")
    assert {k for k, _ in finished} <= stored, "a finished cell was thrown away"
    assert len(stored) < 8, "the run was not interrupted"
    workers = {p for _, p in finished}
    assert proc.pid not in workers
    assert not _gone(workers), "worker processes outlived the interrupted run"


def test_kill_9_leaves_no_worker_behind(tmp_path: Path) -> None:
    out, log = tmp_path / "out", tmp_path / "log"
    proc = _start(out, log)
    _wait_for(log, 2, proc)
    workers = {p for _, p in _finished(log)}
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert not _gone(workers), "worker processes outlived their parent (kill -9)"


def test_stale_report_scratch_is_removed_and_live_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setitem(PAPERS, "sleepy", "sleepy_paper:PAPER")
    out = tmp_path / "out"
    out.mkdir()
    dead = out / ".report-999999999-abcd"  # left by a run that was killed
    live = out / f".report-{os.getppid()}-abcd"  # a run still writing (a live process)
    dead.mkdir()
    live.mkdir()
    reproduce("sleepy", out, jobs=1)
    assert not dead.exists() and live.exists()
    assert (out / "report.md").exists()


def test_cells_run_with_one_blas_thread_here_and_in_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So a cell's sums add in the same order wherever it runs (here, a worker, a Dask worker)."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setitem(PAPERS, "sleepy", "sleepy_paper:PAPER")
    values = {}
    for jobs in (1, 2):
        reproduce("sleepy", tmp_path / str(jobs), jobs=jobs)
        df = ResultStore(tmp_path / str(jobs) / "results.sqlite").results("sleepy")
        assert (df["blas_threads"] == 1).all()
        values[jobs] = dict(zip(df["repeat"], df["value"], strict=True))
        pids = set(df["pid"])
        assert (os.getpid() in pids) == (jobs == 1)
    assert values[1] == values[2]  # bit for bit
