"""The result store and the runner: stored as finished, resumed after SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evofeat.experiments import PAPERS
from evofeat.experiments.runner import reproduce
from evofeat.experiments.store import ResultStore

HERE = Path(__file__).resolve().parents[1]  # tests/, beside toy_paper.py and sleepy_paper.py

_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from evofeat.experiments import PAPERS
PAPERS["toy"] = "toy_paper:PAPER"
from evofeat.experiments.runner import reproduce
reproduce("toy", {out!r}, jobs=1)
"""


def _run_toy(out: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    code = _SCRIPT.format(here=str(HERE), out=str(out))
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _stored(out: Path) -> dict[str, int]:
    df = ResultStore(out / "results.sqlite").results("toy")
    return {f"{r.method}|{r.repeat}|{r.params}": int(r.mistakes) for r in df.itertuples()}


def test_kill_and_resume_recomputes_nothing_finished(tmp_path: Path) -> None:
    ref_out = tmp_path / "ref"
    proc = _run_toy(ref_out, {"TOY_SLEEP": "0"})
    assert proc.wait(timeout=300) == 0, proc.stderr.read().decode() if proc.stderr else ""
    reference = _stored(ref_out)
    assert len(reference) == 12

    out = tmp_path / "killed"
    log = tmp_path / "log.txt"
    env = {"TOY_SLEEP": "0.4", "TOY_LOG": str(log)}
    for delay in (2.5, 1.0, 1.7):  # kill at several moments, each time resuming
        proc = _run_toy(out, env)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    stored_before = ResultStore(out / "results.sqlite").done_keys("toy")
    n_logged = len(log.read_text().splitlines()) if log.exists() else 0
    proc = _run_toy(out, env)
    assert proc.wait(timeout=300) == 0
    assert _stored(out) == reference, "resumed results must equal an uninterrupted run"
    final_run = log.read_text().splitlines()[n_logged:]
    assert not set(final_run) & stored_before, "a stored cell was computed again"
    assert len(final_run) == 12 - len(stored_before)
    assert (out / "report.md").read_text().startswith("# toy")


def test_rerun_skips_finished_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(HERE))
    monkeypatch.setitem(PAPERS, "toy", "toy_paper:PAPER")
    log = tmp_path / "log.txt"
    monkeypatch.setenv("TOY_LOG", str(log))
    reproduce("toy", tmp_path / "r", jobs=1)
    assert len(log.read_text().splitlines()) == 12
    report = reproduce("toy", tmp_path / "r", jobs=1)
    assert len(log.read_text().splitlines()) == 12, "finished cells must not run again"
    assert "12 cells" in report.read_text()
    assert not [p for p in (tmp_path / "r").iterdir() if p.name.startswith(".report-")]
