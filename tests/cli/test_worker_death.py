"""A worker that dies during ``run``: the repeats that finished are kept, and the message says how to go on."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from cli_invoke import invoke
from evofeat._parallel import WorkerDied

_ARGS = ["--learner", "pa-i", "--dataset", "german", "--scenario", "trapezoidal"]


def _die_at(monkeypatch: pytest.MonkeyPatch, stop: int) -> None:
    """The worker running repeat ``stop`` dies (the repeats before it have finished)."""
    rep = importlib.import_module("evofeat.evaluate.repeat")  # the module, not the function
    real = rep.run_once

    def run_once(*args: Any, **kw: Any) -> Any:
        if kw.get("repeat") == stop:
            raise WorkerDied("a worker process died while it ran (killed by a signal?)")
        return real(*args, **kw)

    monkeypatch.setattr(rep, "run_once", run_once)


def test_a_dead_worker_keeps_the_finished_repeats_in_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    whole = json.loads(invoke("run", *_ARGS, "--repeats", "2", "--format", "json").stdout)
    _die_at(monkeypatch, 2)
    out = tmp_path / "res"
    result = invoke("run", *_ARGS, "--repeats", "5", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        "error: a worker process died while it ran (killed by a signal?): 2 of 5 repeats "
        f"finished, kept in {out}; to run the other 3, run the same command with --seed 2 "
        "--repeats 3 and another --out (repeat r uses seed + r)"
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["interrupted"], summary["repeats_done"], summary["repeats_asked"]) == (
        True,
        2,
        5,
    )
    assert summary["mistakes"] == whole["mistakes"]
    assert len((out / "repeats.csv").read_text().splitlines()) == 3


def test_a_dead_worker_before_any_repeat_finished_says_nothing_was_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _die_at(monkeypatch, 0)
    result = invoke("run", *_ARGS, "--repeats", "3", "--out", str(tmp_path / "res"))
    assert result.exit_code == 1, result.output
    assert "a worker process died" in result.stderr and "nothing" in result.stderr
    assert "a bug in evofeat" not in result.stderr and not (tmp_path / "res").exists()
