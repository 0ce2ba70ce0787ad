"""The ``evofeat`` command as a user meets it: entry points, exit codes, names, output, --out."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import evofeat.cli as cli
from cli_invoke import invoke

ROOT = Path(__file__).resolve().parents[2]


def run_json(*args: str) -> dict[str, Any]:
    result = invoke("run", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ----------------------------------------------------------------------------- entry points
def test_python_dash_m_and_version() -> None:
    for flag in ("-V", "--version"):
        proc = subprocess.run(
            [sys.executable, "-m", "evofeat", flag], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("evofeat, version ")
    proc = subprocess.run(
        [sys.executable, "-m", "evofeat", "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "Usage: evofeat" in proc.stdout


def test_no_placeholder_url_and_lowest_pins() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "example.invalid" not in text
    assert '"scikit-learn>=1.6"' in text  # validate_data is in scikit-learn 1.6+
    assert "threadpoolctl" in text  # imported directly (one BLAS thread per run)


def test_ctrl_c_exits_130_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kw: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    result = invoke("run", "--learner", "pa-i", "--dataset", "german")
    assert result.exit_code == 130
    assert "Aborted" not in result.stdout + result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == ["interrupted"]


def _interrupt_at(monkeypatch: pytest.MonkeyPatch, stop: int) -> None:
    """Ctrl-C while repeat ``stop`` runs (the repeats before it have finished)."""
    import importlib

    rep = importlib.import_module("evofeat.evaluate.repeat")  # the module, not the function
    real = rep.run_once

    def run_once(*args: Any, **kw: Any) -> Any:
        if kw.get("repeat") == stop:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(rep, "run_once", run_once)


def test_ctrl_c_keeps_the_finished_repeats_in_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Nothing finished is lost: --out holds the 3 repeats done of the 5 asked, marked interrupted."""
    args = ["--learner", "pa-i", "--dataset", "german", "--scenario", "trapezoidal"]
    whole = run_json(*args, "--repeats", "3")
    _interrupt_at(monkeypatch, 3)
    out = tmp_path / "res"
    result = invoke("run", *args, "--repeats", "5", "--out", str(out))
    assert result.exit_code == 130, result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"interrupted: 3 of 5 repeats finished, kept in {out}; to run the other 2, run the "
        "same command with --seed 3 --repeats 2 and another --out (repeat r uses seed + r)"
    ], result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    assert (summary["repeats_done"], summary["repeats_asked"], summary["repeats"]) == (3, 5, 3)
    assert summary["mistakes"] == whole["mistakes"]  # the summary over the 3 that finished
    assert summary["scenario_params"] == whole["scenario_params"]
    table = (out / "repeats.csv").read_text().splitlines()
    assert len(table) == 4 and [line.split(",")[0] for line in table[1:]] == ["0", "1", "2"]
    assert (out / "curve.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"], "a scratch folder was left"


def test_ctrl_c_with_an_out_that_cannot_be_written_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def full(out: Path, write: Any) -> None:
        raise cli.InputError(f"cannot write the results to --out {out}: No space left on device")

    _interrupt_at(monkeypatch, 2)
    monkeypatch.setattr(cli, "_write_atomically", full)
    out = tmp_path / "res"
    result = invoke(
        "run", "--learner", "pa-i", "--dataset", "german", "--repeats", "4", "--out", str(out)
    )
    assert result.exit_code == 130, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "interrupted: 2 of 4 repeats finished; cannot write the results to --out"
    )
    assert "Traceback" not in result.stderr and not out.exists()


def test_ctrl_c_without_out_prints_the_finished_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    _interrupt_at(monkeypatch, 2)
    result = invoke("run", "--learner", "pa-i", "--dataset", "german", "--repeats", "4")
    assert result.exit_code == 130, result.output
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("interrupted: 2 of 4 repeats finished: pa-i on german (full): mistakes ")
    assert "±" in line and "accuracy 0." in line


def test_ctrl_c_before_any_repeat_finished_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _interrupt_at(monkeypatch, 0)
    out = tmp_path / "res"
    result = invoke(
        "run", "--learner", "pa-i", "--dataset", "german", "--repeats", "3", "--out", str(out)
    )
    assert result.exit_code == 130
    assert result.stderr.strip().splitlines() == ["interrupted"]
    assert list(tmp_path.iterdir()) == []


def test_unexpected_error_is_one_line_exit_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli, "_run", broken)
    monkeypatch.delenv("EVOFEAT_TRACEBACK", raising=False)
    result = invoke("run", "--learner", "pa-i", "--dataset", "german")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "RuntimeError: boom" in lines[0] and "Traceback" not in lines[0]


# ----------------------------------------------------------------------------- names
def test_learner_names_are_case_insensitive() -> None:
    out = run_json("--learner", "PA-I", "--dataset", "german")
    assert out["learner"] == "pa-i"
    assert out == {**out, "params": {"C": 1.0, "fit_intercept": False}}  # defaults filled in


def test_mistyped_learner_suggests_close_names_of_the_right_kind() -> None:
    result = invoke("run", "--learner", "stsd-j", "--dataset", "german")
    assert result.exit_code == 2
    msg = result.stderr.strip()
    assert "did you mean stsd-i, stsd or stsd-ii?" in msg and "evofeat learners" in msg
    assert "opid" not in msg and "ceofs" not in msg  # not a list of every name
    onepass = invoke("run", "--learner", "opi", "--scenario", "incdec", "--dataset", "german")
    assert "did you mean opid or opide?" in onepass.stderr
    online = invoke("run", "--learner", "opd", "--scenario", "trapezoidal", "--dataset", "german")
    assert "unknown online learner 'opd'" in online.stderr and "opid" not in online.stderr


def test_learners_lists_every_learner_with_kind_task_and_defaults() -> None:
    from evofeat.registry import all_names

    result = invoke("learners", "--format", "json")
    assert result.exit_code == 0, result.output
    infos = {i["name"]: i for i in json.loads(result.stdout)}
    assert sorted(infos) == all_names()
    assert infos["pa-i"] == {
        "name": "pa-i",
        "kind": "online",
        "task": "binary",
        "params": {"C": 1.0, "fit_intercept": False},
        "fixed": {"mode": "pa-i"},
    }
    assert infos["opid"]["kind"] == "onepass" and infos["ceofs"]["kind"] == "selector"
    assert infos["stsd-i"]["params"]["radius"] == 30.0
    text = invoke("learners", "--kind", "online").stdout.splitlines()
    assert text[0].split()[:3] == ["name", "kind", "task"]
    assert any(
        line.split()[:3] == ["ofs", "online", "binary"] and "budget=0.1" in line for line in text
    )
    assert not any(line.startswith("opid") for line in text)
    # a name that fixes parameters says so, apart from those one may set
    (pam,) = (line for line in text if line.split()[0] == "pa-multiclass")
    settable, fixed = pam.split("; fixed by the name: ")
    assert "mode=stsd-i" in settable and "budget" not in settable and "radius" not in settable
    assert fixed == "budget=1.0, radius=inf"
    assert infos["pa-multiclass"]["fixed"] == {"budget": 1.0, "radius": None}  # JSON: inf is null


# ----------------------------------------------------------------------------- output
def test_one_repeat_prints_no_spread() -> None:
    result = invoke("run", "--learner", "pa-i", "--dataset", "german")
    assert result.exit_code == 0, result.output
    assert "±" not in result.stdout
    many = invoke("run", "--learner", "pa-i", "--dataset", "german", "--repeats", "2")
    assert "±" in many.stdout


def test_json_shows_the_scenario_parameters_used() -> None:
    out = run_json("--learner", "pa-i", "--dataset", "german", "--scenario", "trapezoidal")
    assert out["scenario_params"] == {
        "n_stages": 10,
        "feature_order": "original",
        "layout": "paper",
        "fractions": None,
    }
    given = run_json(
        "--learner", "pa-i", "--dataset", "german", "--scenario", "haphazard",
        "--scenario-param", "p=0.3",
    )  # fmt: skip
    assert given["scenario_params"] == {"p": 0.3}


def test_regression_prints_the_loss_and_draws_its_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evofeat.registry as registry
    from evofeat.linear import stsd_regression

    name = next(iter(stsd_regression.LEARNERS))
    monkeypatch.setitem(registry.ONLINE, name, "evofeat.linear.stsd_regression")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=200)
    csv = tmp_path / "reg.csv"
    csv.write_text(
        "a,b,c,d,y\n"
        + "\n".join(",".join(f"{v:.6f}" for v in (*x, t)) for x, t in zip(X, y, strict=True)),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    args = ["--learner", name, "--dataset", str(csv), "--scenario", "trapezoidal", "--repeats", "2"]
    result = invoke("run", *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "mistakes" not in result.stdout and "n/a" not in result.stdout
    assert "mean loss" in result.stdout and "total loss" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mistakes"] is None and summary["mean_loss"]["mean"] > 0
    curve = (out / "curve.csv").read_text().splitlines()
    assert curve[0] == "rows,loss_mean,loss_std"
    assert float(curve[-1].split(",")[1]) > 0  # not a flat zero "mistake rate"


def test_curves_have_stage_boundaries_and_a_spread_band(tmp_path: Path) -> None:
    from evofeat.evaluate import repeat

    df = repeat("pa-i", "german", "trapezoidal", repeats=2)
    assert df["curve_stages"].iloc[0] == [100 * k for k in range(1, 10)]  # 1000 rows, 10 stages
    out = tmp_path / "res"
    result = invoke(
        "run", "--learner", "pa-i", "--dataset", "german", "--scenario", "trapezoidal",
        "--repeats", "3", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    import pandas as pd

    curve = pd.read_csv(out / "curve.csv")
    assert list(curve.columns) == ["rows", "mistake_rate_mean", "mistake_rate_std"]
    assert (curve["mistake_rate_std"].iloc[5:] > 0).all()
    svg = (out / "curve.svg").read_text()
    assert "stage boundary" in svg


def test_out_folder_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        result = invoke(
            "run", "--learner", "pa-i", "--dataset", "german", "--out", str(tmp_path / "o")
        )
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "o").stat().st_mode) == 0o755
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no scratch left


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_out_is_reported_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    monkeypatch.setattr(cli, "_run", lambda *a, **k: pytest.fail("the run started"))
    try:
        result = invoke(
            "run", "--learner", "pa-i", "--dataset", "german", "--out", str(locked / "o")
        )
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2
    assert f"--out {locked / 'o'}" in result.stderr and "/." not in result.stderr


def test_out_that_is_a_file_is_reported_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    monkeypatch.setattr(cli, "_run", lambda *a, **k: pytest.fail("the run started"))
    result = invoke("run", "--learner", "pa-i", "--dataset", "german", "--out", str(target))
    assert result.exit_code == 2
    assert str(target) in result.stderr and "is a file" in result.stderr


def test_out_under_a_file_is_reported_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    monkeypatch.setattr(cli, "_run", lambda *a, **k: pytest.fail("the run started"))
    for command in (["run", "--learner", "pa-i", "--dataset", "german"], ["demo"]):
        result = invoke(*command, "--out", str(blocker / "o"))
        assert result.exit_code == 2, result.output
        assert f"--out {blocker / 'o'}" in result.stderr and "is not a folder" in result.stderr
        assert "Traceback" not in result.stderr


def test_stale_scratch_of_a_killed_run_is_removed(tmp_path: Path) -> None:
    dead = tmp_path / ".o.999999999-abcd"  # no such process
    dead.mkdir()
    result = invoke("run", "--learner", "pa-i", "--dataset", "german", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    assert not dead.exists()


# ----------------------------------------------------------------------------- progress
def test_progress_writes_no_carriage_returns_off_a_terminal() -> None:
    result = invoke("run", "--learner", "pa-i", "--dataset", "german", "--repeats", "3")
    assert result.exit_code == 0
    assert "\r" not in result.stderr and "\r" not in result.stdout


def test_progress_bar_on_a_terminal_is_erased_before_an_error() -> None:
    import io

    from evofeat._progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    with pytest.raises(ValueError), Progress(10, "run", stream=err) as step:
        step(3)
        raise ValueError("bad")
    drawn = err.getvalue()
    assert "/10" in drawn  # the bar was drawn on the terminal
    assert drawn.endswith("\r") and not drawn.split("\r")[-2].strip()  # and erased at the end


def test_demo_help_makes_no_time_promise() -> None:
    result = invoke("demo", "--help")
    assert "under a minute" not in result.stdout


# ----------------------------------------------------------------------------- compare
def test_compare_pairs_learners_on_the_same_row_orders(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "--learners", "pa-i,perceptron,ofs", "--dataset", "german",
        "--scenario", "trapezoidal", "--repeats", "6", "--format", "json", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    res = json.loads(result.stdout)
    assert [s["learner"] for s in res["learners"]] == ["pa-i", "perceptron", "ofs"]
    assert [(p["a"], p["b"]) for p in res["pairs"]] == [
        ("pa-i", "perceptron"),
        ("pa-i", "ofs"),
        ("perceptron", "ofs"),
    ]
    # each learner saw exactly what `evofeat run` gives it with the same seed
    alone = run_json(
        "--learner", "ofs", "--dataset", "german", "--scenario", "trapezoidal", "--repeats", "6"
    )
    assert res["learners"][2]["mistakes"]["values"] == alone["mistakes"]["values"]
    from scipy.stats import ttest_rel, wilcoxon

    a, b = (np.array(s["mistakes"]["values"], float) for s in res["learners"][:2])
    first = res["pairs"][0]
    assert first["t_pvalue"] == pytest.approx(ttest_rel(a, b).pvalue)
    assert first["wilcoxon_pvalue"] == pytest.approx(wilcoxon(a, b, zero_method="zsplit").pvalue)
    assert first["mean_diff"] == pytest.approx(float((a - b).mean()))
    wtl = res["win_tie_loss"]
    assert sum(sum(v["t"]) for v in wtl.values()) == 2 * len(res["pairs"])
    for name in ("summary.json", "repeats.csv", "pairs.csv", "curve.csv", "curve.png", "curve.svg"):
        assert (out / name).is_file(), name
    header = (out / "curve.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "rows" and "ofs_mistake_rate_std" in header


def test_compare_text_and_bad_input() -> None:
    result = invoke(
        "compare", "--learners", "pa-i,pa-ii", "--dataset", "german", "--repeats", "3"
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "paired tests on mistakes" in result.stdout and "Wilcoxon" in result.stdout
    for learners, words in (
        ("pa-i", "two or more different learners"),
        ("pa-i,PA-I", "two or more different learners"),
        ("pa-i,opid", "one kind"),
        ("pa-i,stsd-j", "did you mean"),
    ):
        bad = invoke("compare", "--learners", learners, "--dataset", "german", "--repeats", "3")
        assert bad.exit_code == 2 and words in bad.stderr and "Traceback" not in bad.stderr
    bad = invoke(
        "compare", "--learners", "pa-i,ofs", "--param", "C=1", "--dataset", "german"
    )  # fmt: skip
    assert bad.exit_code == 2 and "LEARNER:K=V" in bad.stderr
