"""Every STSD-family learner and option gives, bit for bit, what it gave before its core was split
into parts (``tests/data/stsd_fingerprint.json``, see ``tests/stsd_fingerprint.py``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stsd_fingerprint as fp
from evofeat import io

EXPECTED = Path(__file__).parents[1] / "data" / "stsd_fingerprint.json"
#: ``last_tau`` is the tau of the paper's last step, read by the authors' round only; the AdaGrad
#: steps no longer write it (they did before the split, though nothing read it)
NOT_WRITTEN = ("adagrad", "adagrad-tau")


@functools.cache
def _expected() -> dict[str, Any]:
    return dict(json.loads(EXPECTED.read_text()))


@pytest.mark.parametrize(
    "name, cls, params, task", fp.cases(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_bit_identical(name: str, cls: type, params: dict[str, Any], task: str) -> None:
    key = f"{name} {json.dumps(params, sort_keys=True)}"
    for sname, (stream, csr) in fp.streams(task).items():
        got, want = fp.fingerprint(cls, params, stream, csr), dict(_expected()[f"{key} @{sname}"])
        if params.get("step") in NOT_WRITTEN:
            got.pop("last_tau"), want.pop("last_tau")
        assert got == want, f"{key} on {sname}"


def test_every_case_is_checked() -> None:
    keys = {f"{n} {json.dumps(p, sort_keys=True)}" for n, _, p, _ in fp.cases()}
    assert {k.rpartition(" @")[0] for k in _expected()} == keys


MAIN_FILES = Path(__file__).parents[1] / "data" / "stsd_main_files"


@pytest.mark.parametrize(
    "name, task",
    [
        ("stsd-i", "binary"),
        ("stsd-i-adagrad", "binary"),
        ("stsd-ii-adagrad-tau", "binary"),
        ("stsd-i-rand-code", "binary"),
        ("stsd-multiclass", "multiclass"),
        ("stsd-regressor", "regression"),
    ],
)
def test_files_saved_before_the_parts_load_and_continue(name: str, task: str) -> None:
    """Model files saved by the build before the split (160 rows of the trapezoidal stream) load
    and continue on the remaining rows with the scores that build gave."""
    expected = json.loads((MAIN_FILES / "main_scores.json").read_text())[name]["scores"]
    model = io.load(MAIN_FILES / f"main_{name}.evofeat")
    stream, _ = fp.streams(task)["trapezoidal"]
    got = []
    for x, y in list(stream.to_dicts())[160:]:
        got.append(np.asarray(model.decision_one(x), float).ravel().tolist())
        model.learn_one(x, y)
    assert got == expected
