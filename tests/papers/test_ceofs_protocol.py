"""Every CEOFS Table 2 row is one command: ``evofeat run --protocol ceofs`` gives the row's numbers.

The report's cells run through :func:`evofeat.papers.ceofs` runners (what ``evofeat
reproduce ceofs`` stores); the command the report prints beside a row runs through the CLI and
the feature-stream evaluation of :mod:`evofeat.evaluate.batch`. Both must give the same per-fold
accuracies of both classifiers and the same features kept, bit for bit, repeat by repeat (times
are wall-clock and left out). Both run with one BLAS thread, as the reproduction's runner and
``evofeat run`` do: with more, sums in another order change CEOFS's and COFS's selections on
Isolet (one feature in one fold of COFS's row).
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from conftest import requires_data
from evofeat._parallel import one_blas_thread
from evofeat.cli import main
from evofeat.experiments.base import Cell
from evofeat.experiments.sections import ANY, View
from evofeat.papers import ceofs

_METRICS = {"svm_rbf_folds": "accuracy_svm", "knn3_folds": "accuracy_knn3",
            "n_selected_folds": "n_selected"}  # fmt: skip


def _cells(dataset: str, method: str, variant: str, repeats: int) -> pd.DataFrame:
    """The stored results of a Table 2 cell, as the reproduction runs and stores them."""
    params = ceofs._params(dataset, method, ceofs.N_FOLDS, variant)
    rows = []
    for r in range(repeats):
        with one_blas_thread():  # as the reproduction's runner (and `evofeat run`) run it
            res = ceofs.PAPER.run_cell(Cell("table2", dataset, method, params, r))
        rows.append({"table": "table2", "dataset": dataset, "method": method,
                     "params": params, "repeat": r, **res})  # fmt: skip
    return pd.DataFrame(rows)


def _run(command: str) -> dict[str, Any]:
    args = shlex.split(command)
    assert args[:2] == ["evofeat", "run"]
    result = CliRunner().invoke(main, [*args[1:], "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])  # type: ignore[no-any-return]


@requires_data("colon")
@pytest.mark.parametrize(
    ("method", "variant", "repeats"),
    [("ceofs", "textbook", 1), ("alpha-investing", "lofs", 2), (ceofs.REFERENCE, "", 2)],
)
def test_the_rows_command_gives_the_stored_numbers(method: str, variant: str, repeats: int) -> None:
    stored = _cells("colon", method, variant, repeats)
    view = View(stored)
    key = ceofs._key("colon", method, variant or "textbook")
    command = ceofs._command(view, key)
    assert f"--repeats {repeats}" in command
    assert ("--param variant=lofs" in command) == (variant == "lofs")
    assert ("--scenario-param select=false" in command) == (method == ceofs.REFERENCE)
    out = _run(command)
    for metric, name in _METRICS.items():
        want = view.values(*key, metric)  # every fold of every repeat, as the report reads them
        got = out[f"fold_{name}"]
        assert got["values"] == want.tolist()  # bit for bit
        assert got["mean"] == float(want.mean()) and got["std"] == float(want.std(ddof=1))
    assert out["scenario_params"]["classifier"] == ["svm", "knn3"]
    assert out["n_scored"] == 62


@requires_data("colon")
def test_a_figure4_point_is_a_fresh_run_at_its_threshold() -> None:
    """θ2 acts in the online phase only: the figure's copies of one fitted selector select what a
    fresh run at each θ2 selects (the report prints one command per point on that ground)."""
    with one_blas_thread():
        fig = ceofs.PAPER.run_cell(
            Cell(
                "figure4",
                "colon",
                "ceofs",
                {**ceofs._FIG4[2], "folds": 10, "theta2": [0.3, 0.8]},
                0,
            )
        )
    assert fig["n_selected_folds@0.3"] != fig["n_selected_folds@0.8"]  # the threshold matters here
    for t in (0.3, 0.8):
        out = _run(
            f"evofeat run --protocol ceofs --learner ceofs --dataset colon --param theta2={t}"
        )
        assert out["fold_accuracy_svm"]["values"] == fig[f"svm_rbf_folds@{t}"]
        assert out["fold_accuracy_knn3"]["values"] == fig[f"knn3_folds@{t}"]
        assert out["fold_n_selected"]["values"] == fig[f"n_selected_folds@{t}"]


def test_the_protocol_settings() -> None:
    s = ceofs.protocol_setting("colon", "saola")
    assert (s.scenario, s.params, s.loader) == ("feature-stream", {"test": "fisher-z"},
                                                "evofeat.papers.ceofs:dataset")  # fmt: skip
    assert s.scenario_params == {"historical_fraction": 0.8, "folds": 10,
                                 "classifier": ["svm", "knn3"]}  # fmt: skip
    assert ceofs.protocol_setting("colon", "alpha-investing").params == {}
    assert ceofs.protocol_setting("colon-discretized", "ceofs").params == {"test": "mi"}


@requires_data("isolet")
def test_isolet_is_binary_letters_a_to_m_against_n_to_z() -> None:
    ds = ceofs.dataset("isolet")
    assert ds.task == "binary" and set(np.unique(ds.y)) == {-1, 1}
    assert ds.X.shape == (1560, 617) and ds.X.dtype == np.float64


def test_a_quick_cells_command_names_its_folds() -> None:
    res = pd.DataFrame({"table": ["table2"], "dataset": ["colon"], "method": ["osfs"],
                        "params": [ceofs._params("colon", "osfs", 2, "lofs")], "repeat": [0],
                        "svm_rbf_folds": [[0.5, 0.5]]})  # fmt: skip
    cmd = ceofs._command(View(res), ("colon", "osfs", ceofs._params("colon", "osfs", ANY, "lofs")))
    assert cmd == (
        "evofeat run --protocol ceofs --learner osfs --dataset colon --repeats 1 "
        "--param variant=lofs --scenario-param folds=2"
    )


def test_bad_select_and_classifier_values_are_explained() -> None:
    from evofeat.base.errors import InputError
    from evofeat.evaluate.batch import run_batch_once

    rng = np.random.default_rng(0)
    data = type("D", (), {"name": "toy", "X": rng.normal(size=(40, 6)),
                          "y": np.repeat([-1, 1], 20)})()  # fmt: skip
    with pytest.raises(InputError, match="select=false"):
        run_batch_once("saola", data, scenario_params={"folds": 2, "select": "no"})
    with pytest.raises(InputError, match=r"svm,knn3"):
        run_batch_once("saola", data, scenario_params={"folds": 2, "classifier": ["svm", "rbf"]})
    out = run_batch_once("saola", data, scenario_params={"folds": 2, "select": False,
                                                         "classifier": ["knn3", "svm"]})  # fmt: skip
    assert out["fold_n_selected"] == [6.0, 6.0]
    assert out["accuracy"] == out["accuracy_knn3"] and len(out["fold_accuracy_svm"]) == 2


def test_the_text_summary_prints_each_classifier_per_fold() -> None:
    args = ["run", "--learner", "saola", "--dataset", "german", "--repeats", "2"]
    args += ["--scenario-param", "folds=3", "--scenario-param", "classifier=svm,knn3"]
    text = CliRunner().invoke(main, args).output
    assert "per test fold (mean ± std over 3 folds x 2 repeats):" in text
    assert "accuracy_svm" in text and "accuracy_knn3" in text and text.startswith("saola on")
    every = CliRunner().invoke(main, [*args, "--scenario-param", "select=false"]).output
    assert every.startswith("every feature (no selector) on german")
    assert "n_selected      24.0 ± 0.0" in every
