"""SIGTERM and SIGHUP as Ctrl-C, a worker that dies, a full disk, and capped --jobs."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import evofeat.experiments.runner as runner
from cli_invoke import invoke
from evofeat._parallel import JobsCappedWarning, WorkerDied, imap_unordered, n_workers


def _lines_written(folder: Path) -> int:
    """Lines of the repeats.csv a running ``run --out`` writes in its scratch folder."""
    found = list(folder.glob(".out.*/repeats.csv"))
    return len(found[0].read_text().splitlines()) if found else 0


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_keep_the_finished_repeats_like_ctrl_c(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "evofeat", "run", "--learner", "pa-i", "--dataset", "german"]
        + ["--repeats", "100000", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    end = time.monotonic() + 240
    while _lines_written(tmp_path) < 4:  # the header and three repeats
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < end, "no repeat finished in time"
        time.sleep(0.1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    message = err.decode()
    assert proc.returncode == code, message
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["repeats_done"] >= 3
    assert f"interrupted ({sig.name})" in message
    done = summary["repeats_done"]
    assert f"--seed {done} --repeats {100000 - done}" in message  # how to run the rest
    assert not list(tmp_path.glob(".out.*")), "the scratch folder was left behind"


def test_a_worker_that_dies_is_said_so() -> None:
    with pytest.raises(WorkerDied, match="a worker process died"):
        list(imap_unordered(os._exit, [(3,), (3,)], jobs=2))


def test_jobs_are_capped_at_the_cores_and_the_tasks() -> None:
    cores = os.cpu_count() or 1
    with pytest.warns(JobsCappedWarning, match=f"the {cores} cores"):
        assert n_workers(cores + 100_000) == cores
    assert n_workers(-1, tasks=1) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert n_workers(1) == 1  # no warning when it fits


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (WorkerDied("a worker process died while it ran (killed?)"), "a worker process died"),
        (OSError(errno.ENOSPC, "No space left on device", "r/results.sqlite"), "no space left"),
        (sqlite3.OperationalError("database or disk is full"), "no space left"),
    ],
)
def test_reproduce_says_what_failed_and_that_it_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException, said: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise failure

    monkeypatch.setattr(runner, "reproduce", fail)
    result = invoke("reproduce", "stsd", "--quick", "--out", str(tmp_path / "r"))
    assert result.exit_code == 1
    assert said in result.stderr and "rerun the same command to resume" in result.stderr
    assert "a bug in evofeat" not in result.stderr
