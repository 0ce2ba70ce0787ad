"""``evofeat run`` with the one-pass estimators (incdec) and the feature selectors (feature-stream)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import requires_data
from evofeat.base import InputError
from evofeat.cli import main
from evofeat.evaluate import repeat, repeat_batch, run_batch_once
from evofeat.evaluate.batch import check_scenario, incdec_defaults

ONEPASS = ("opid", "opide", "svm", "svm-s", "svm-a")
SELECTORS = ("ceofs", "cofs", "alpha-investing", "osfs", "fast-osfs", "saola")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["run", *args])


def run_json(*args: str) -> dict[str, Any]:
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def check_shape(out: dict[str, Any], learner: str, scenario: str, repeats: int) -> None:
    assert (out["learner"], out["scenario"], out["repeats"]) == (learner, scenario, repeats)
    for key in ("dataset", "accuracy", "mistakes", "seconds", "n_scored"):
        assert key in out
    acc = out["accuracy"]
    assert len(acc["values"]) == repeats and all(0.0 <= v <= 1.0 for v in acc["values"])
    assert acc["mean"] == pytest.approx(np.mean(acc["values"]))
    mistakes = np.asarray(out["mistakes"]["values"])
    np.testing.assert_allclose(1 - mistakes / out["n_scored"], acc["values"], atol=1e-9)
    assert out["seconds"]["mean"] >= 0


# ---------------------------------------------------------------------------- incdec
@pytest.mark.parametrize("learner", ONEPASS)
def test_onepass_learners_on_incdec(learner: str) -> None:
    out = run_json(
        "--learner",
        learner,
        "--param",
        "cv=3",
        "--dataset",
        "german",
        "--scenario",
        "incdec",
        "--scenario-param",
        "n_estage=40",
        "--repeats",
        "2",
    )
    check_shape(out, learner, "incdec", 2)
    assert out["kind"] == "onepass" and out["n_scored"] == 40
    # the defaults are filled in and reported
    assert out["scenario_params"] == {
        "d_v": 0.25,
        "d_s": 0.5,
        "d_a": 0.25,
        "n_estage": 40,
        "n_cstage": 520,
        "batch_size": 52,
    }
    assert "n_selected" not in out


def test_incdec_is_the_default_scenario_of_onepass_and_seeds_repeat() -> None:
    args = (
        "--learner",
        "svm-s",
        "--param",
        "cv=3",
        "--dataset",
        "german",
        "--scenario-param",
        "d_v=8",
        "--scenario-param",
        "d_s=8",
        "--scenario-param",
        "d_a=8",
        "--scenario-param",
        "n_estage=40",
        "--repeats",
        "3",
    )
    a, b = run_json(*args), run_json(*args, "--seed", "0")
    assert a["scenario"] == "incdec" and a["accuracy"]["values"] == b["accuracy"]["values"]
    c = run_json(*args, "--seed", "1")  # repeat r uses seed + r: seed 1 shifts the repeats by one
    assert c["accuracy"]["values"][:2] == a["accuracy"]["values"][1:]


def test_text_format_and_out_folder(tmp_path: Path) -> None:
    out = tmp_path / "res"
    result = invoke(
        "--learner",
        "opid",
        "--dataset",
        "german",
        "--scenario-param",
        "n_estage=40",
        "--repeats",
        "2",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "opid on german (incdec, 2 repeats)" in result.output
    assert "accuracy" in result.output and "(40 rows scored)" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["repeats.csv", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["learner"] == "opid" and len(summary["accuracy"]["values"]) == 2
    assert (out / "repeats.csv").read_text().splitlines()[0].startswith("repeat,")
    assert [p.name for p in tmp_path.iterdir()] == ["res"]  # no temporary folder left


def test_opid_on_dna_uses_the_papers_setting() -> None:  # dna is bundled: no data folder needed
    out = run_json(
        "--learner", "opid", "--dataset", "dna", "--scenario", "incdec", "--repeats", "2"
    )
    check_shape(out, "opid", "incdec", 2)
    assert out["scenario_params"] == {
        "d_v": 50,
        "d_s": 80,
        "d_a": 50,
        "n_estage": 60,
        "n_cstage": 1200,
        "batch_size": 60,
    }
    # Against the paper (Table 2, DNA, n_i = 60): OPID .9253 (.0248); ours is lower on DNA (the
    # E-stage fits the noise of the augmented features; see docs/reports/opid), but within five of
    # the paper's standard deviations. Against a baseline on the same repeats: OPID beats SVM(a)
    # (the paper: .3063, at chance on three classes) on each repeat by a wide margin.
    acc = np.asarray(out["accuracy"]["values"])
    assert acc.mean() >= 0.9253 - 5 * 0.0248, acc
    svm_a = run_json(
        "--learner", "svm-a", "--dataset", "dna", "--scenario", "incdec", "--repeats", "2"
    )
    assert (acc - np.asarray(svm_a["accuracy"]["values"]) >= 0.2).all(), (acc, svm_a["accuracy"])


# ---------------------------------------------------------------------------- feature-stream
@pytest.mark.parametrize("learner", SELECTORS)
def test_selectors_on_the_feature_stream(learner: str) -> None:
    out = run_json(
        "--learner",
        learner,
        "--dataset",
        "german",
        "--scenario",
        "feature-stream",
        "--scenario-param",
        "folds=3",
        "--repeats",
        "2",
    )
    check_shape(out, learner, "feature-stream", 2)
    assert out["kind"] == "selector" and out["n_scored"] == 1000
    sel = out["n_selected"]
    assert len(sel["values"]) == 2 and all(0 <= v <= 24 for v in sel["values"])
    assert out["scenario_params"] == {"historical_fraction": 0.8, "folds": 3, "classifier": "svm"}


def test_a_selectors_seed_in_the_summary_is_the_repeats() -> None:
    """Each repeat's selector gets ``--seed`` + repeat unless ``--param seed`` fixes it; the
    summary says which (it listed the class default 0, which no repeat used)."""
    args = ("--learner", "cofs", "--dataset", "german", "--scenario", "feature-stream")
    args += ("--scenario-param", "folds=3", "--repeats", "1")
    assert run_json(*args, "--seed", "3")["params"]["seed"] == "3 + repeat"
    assert run_json(*args, "--param", "seed=5")["params"]["seed"] == 5


def test_selector_text_and_knn() -> None:
    result = invoke(
        "--learner",
        "saola",
        "--dataset",
        "german",
        "--scenario-param",
        "folds=3",
        "--scenario-param",
        "classifier=knn3",
    )
    assert result.exit_code == 0, result.output
    assert (
        "saola on german (feature-stream, 1 repeat)" in result.output
        and "n_selected" in result.output
    )


@requires_data("colon")
def test_selectors_on_colon() -> None:
    for learner in ("cofs", "fast-osfs"):
        out = run_json(
            "--learner",
            learner,
            "--dataset",
            "colon",
            "--scenario",
            "feature-stream",
            "--scenario-param",
            "folds=3",
            "--repeats",
            "2",
        )
        check_shape(out, learner, "feature-stream", 2)
        assert out["n_scored"] == 62 and out["n_selected"]["mean"] >= 1


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--learner", "ceofs", "--scenario", "incdec"),
            "ceofs is a streaming feature selector: it runs on the feature-stream scenario",
        ),
        (("--learner", "saola", "--scenario", "trapezoidal"), "pass --scenario feature-stream"),
        (
            ("--learner", "opid", "--scenario", "feature-stream"),
            "opid is a one-pass estimator: it runs on the incdec scenario",
        ),
        (("--learner", "opide", "--scenario", "full"), "pass --scenario incdec"),
        (
            ("--learner", "pa-i", "--scenario", "incdec"),
            "incdec runs with opid, opide, svm, svm-s, svm-a",
        ),
        (
            ("--learner", "pa-i", "--scenario", "feature-stream"),
            "feature-stream runs with ceofs, cofs",
        ),
        (("--learner", "pa-i", "--scenario", "sideways"), "unknown scenario 'sideways'"),
        (
            ("--learner", "opid", "--scenario-param", "n_rows=5"),
            "unknown incdec parameter 'n_rows'",
        ),
        (
            ("--learner", "opid", "--scenario-param", "d_v=0.5"),
            "give all three of d_v, d_s, d_a or none",
        ),
        (("--learner", "opid", "--scenario-param", "n_cstage=999998"), "too few rows of class"),
        (
            ("--learner", "opid", "--param", "n_survived=3"),
            "n_survived is set by the incdec scenario",
        ),
        (("--learner", "opid", "--param", "lamda=3"), "unknown parameter 'lamda' for opid"),
        (("--learner", "osfs", "--scenario-param", "folds=1"), "bad number of folds"),
        (("--learner", "osfs", "--scenario-param", "folds=5000"), "bad number of folds"),
        (("--learner", "osfs", "--scenario-param", "classifier=tree"), "unknown classifier"),
        (
            ("--learner", "osfs", "--scenario-param", "theta=2"),
            "unknown feature-stream parameter 'theta'",
        ),
        (
            ("--learner", "osfs", "--permutations", "perms.txt"),
            "--permutations applies to the online learners",
        ),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    out = tmp_path / "out"
    result = invoke(*args, "--dataset", "german", "--out", str(out))
    assert result.exit_code == 2, result.output
    assert "error: " in result.output and message in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_check_scenario_api() -> None:
    assert (
        check_scenario("pa-i", None) == "full"
        and check_scenario("pa-i", "haphazard") == "haphazard"
    )
    assert (
        check_scenario("svm-a", None) == "incdec"
        and check_scenario("cofs", None) == "feature-stream"
    )
    with pytest.raises(
        InputError, match="expected --scenario incdec, received --scenario feature-stream"
    ):
        check_scenario("svm", "feature-stream")
    with pytest.raises(InputError, match="is an online learner"):
        run_batch_once("pa-i", "german", "full")


# ---------------------------------------------------------------------------- the one repeat runner
def test_repeat_batch_goes_through_repeat_and_joblib() -> None:
    """Same table whether the repeats run one after the other or through joblib.

    joblib's threading backend keeps the test fast (process workers take
    tens of seconds to start on a loaded machine); what process workers add
    is pickling, checked on the job itself.
    """
    import pickle

    from joblib import parallel_config

    from evofeat.datasets import load

    kw: dict[str, Any] = {"repeats": 2, "seed": 5}
    one = repeat_batch("fast-osfs", {}, "german", "feature-stream", {"folds": 3}, n_jobs=1, **kw)
    with parallel_config(backend="threading"):
        two = repeat_batch(
            "fast-osfs", {}, "german", "feature-stream", {"folds": 3}, n_jobs=2, **kw
        )
    job = pickle.loads(pickle.dumps((run_batch_once, load("german"), {"folds": 3})))
    assert job[0] is run_batch_once and job[1].X.shape == (1000, 24)
    assert list(one["repeat"]) == [0, 1]
    for col in ("accuracy", "mistakes", "n_selected"):
        assert one[col].tolist() == two[col].tolist()
    # the runner hook is the same call as repeat(..., runner=...)
    via = repeat(
        "fast-osfs",
        "german",
        "feature-stream",
        runner=run_batch_once,
        params={},
        scenario_params={"folds": 3},
        **kw,
    )
    assert via["accuracy"].tolist() == one["accuracy"].tolist()
    # and the online callers are unchanged
    online = repeat("pa-i", "german", "trapezoidal", repeats=2, preprocess="zscore")
    assert list(online["repeat"]) == [0, 1] and "curve_rows" in online


def test_incdec_defaults_for_an_unknown_set() -> None:
    from types import SimpleNamespace

    data = SimpleNamespace(name="x", y=np.repeat([0, 1, 2], [50, 60, 70]))
    d = incdec_defaults(data)
    assert d["n_estage"] == 18 and d["n_cstage"] == 3 * (50 - 12) and d["n_cstage"] % 3 == 0
