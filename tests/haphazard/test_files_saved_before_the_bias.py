"""Model files of OLVF, OCDS and OVFM written before they took ``fit_intercept`` still load, with
the default (OLVF, OCDS: no bias; OVFM: the authors' bias), and continue bit for bit.

``tests/data/haphazard_main_files`` was written by evofeat at commit 5154dde (before the option):
each learner learned rows 0-79 of the stream below, was saved, then scored rows 80-159
(``main_scores.json``, the scores as ``float.hex``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evofeat import io
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import haphazard

FILES = Path(__file__).parents[1] / "data" / "haphazard_main_files"
CASES = json.loads((FILES / "main_scores.json").read_text())


@pytest.mark.parametrize("key", sorted(CASES))
def test_files_saved_before_the_bias_load_and_continue(key: str) -> None:
    case = CASES[key]
    model = io.load(FILES / f"main_{key}.evofeat", expected=case["name"])
    assert model.get_params() == make(case["name"], **case["params"]).get_params()
    assert model._state.fit_intercept == (case["name"] == "ovfm")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((160, 6)) + 0.5
    y = np.where(X[:, 0] + X[:, 1] > 1.2, 1, -1)
    res = prequential(model, haphazard(X[80:], y[80:], p=0.6, seed=2), keep_predictions=True)
    assert res.scores is not None
    assert [float(v).hex() for v in res.scores] == case["scores"]
