"""The gradient learners (OGD, AdaGrad, FTRL, NAG, FESL over each base) give bit-identical results to
the commit that introduced their shared step rule (``evofeat._core.steprule``), and load model files
saved by that commit's predecessor."""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from evofeat.ensemble._fesl import FESLCore

import gradient_fingerprint as gf
from evofeat import io

MODELS = Path(__file__).parents[1] / "data" / "main_models"
RULE_NAMES = ("base", "lr", "eps", "beta", "l1", "l2", "nag_t", "nag_N")


@pytest.fixture(scope="module")
def table() -> dict[str, dict[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # some square-loss cases diverge on purpose
        return gf.compute()


def test_fingerprints_match_the_committed_ones(table: dict[str, dict[str, str]]) -> None:
    committed = json.loads(gf.JSON.read_text())
    assert set(table) == set(committed)
    differ = {k: (committed[k], v) for k, v in table.items() if committed[k] != v}
    assert not differ, (
        f"{len(differ)} of {len(table)} cases differ, e.g. {next(iter(differ.items()))}"
    )


@pytest.mark.parametrize("key", sorted(json.loads((MODELS / "expected.json").read_text())))
def test_model_files_of_the_previous_core_load_and_continue(key: str) -> None:
    e = json.loads((MODELS / "expected.json").read_text())[key]
    model = io.load(MODELS / e["file"])
    rows = list(gf.streams(False)["evolvable"].to_dicts())[100:]
    preds = []
    for x, t in rows:
        p = model.predict_one(x)
        preds.append(None if p is None else float(p))
        model.learn_one(x, t)
    assert preds == e["preds"]
    np.testing.assert_array_equal(gf._coef(model), e["coef"])
    assert float(model.intercept_) == e["intercept"]


def test_fesl_rule_fields_are_read_and_written_by_name() -> None:
    """FESL's step rule is a struct inside its core; its fields keep their model-file names."""
    core = FESLCore.empty(4, 2, 3, 0, 0.5, 0.0, 0.0, 0, 0, 3, 1e-8, 1.0, 0.2, 0.3)
    assert (core.base, core.lr, core.eps, core.beta, core.l1, core.l2) == (
        3,
        0.5,
        1e-8,
        1.0,
        0.2,
        0.3,
    )
    core.nag_t, core.nag_N = 4.0, 2.5
    fields = core._asdict()
    assert (fields["nag_t"], fields["nag_N"], fields["base"]) == (4.0, 2.5, 3)
    for twin in (FESLCore(**fields), pickle.loads(pickle.dumps(core))):
        assert {k: twin._asdict()[k] for k in RULE_NAMES} == {k: fields[k] for k in RULE_NAMES}
    assert not hasattr(core, "no_such_field")
    with pytest.raises(TypeError):
        core.base = "ftrl"  # the rule's kind is a code
