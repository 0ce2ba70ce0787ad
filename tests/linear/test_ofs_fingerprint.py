"""The OFS family predicts bit for bit what the committed fingerprints record (both paths, round trips)."""

from __future__ import annotations

import json
import pickle

import pytest

from evofeat import io
from ofs_fingerprint import OPTIONS, PATH, cell, continue_on, digest, streams

EXPECTED = json.loads(PATH.read_text())


@pytest.mark.parametrize(
    ("name", "params"),
    [(name, params) for name, options in OPTIONS.items() for params in options],
    ids=lambda v: v if isinstance(v, str) else json.dumps(v, sort_keys=True),
)
def test_predictions_match_the_committed_fingerprints(name: str, params: dict) -> None:
    for label, stream in streams():
        key = f"{name} {json.dumps(params, sort_keys=True)} {label}"
        assert cell(name, params, stream) == EXPECTED[key], key


SAVED = PATH.parent / "ofs_saved"


@pytest.mark.parametrize("key", sorted(json.loads((SAVED / "expected.json").read_text())))
def test_files_and_pickles_saved_before_the_parts_still_predict_the_same(key: str) -> None:
    """Model files and pickles written by the flag-based cores (half a stream learnt) load into
    the parts-based ones and continue on the other half exactly as the originals did."""
    expected = json.loads((SAVED / "expected.json").read_text())[key]
    rows = list(next(iter(streams()))[1].to_dicts())
    rest = rows[len(rows) // 2 :]
    loaded = io.load(SAVED / f"{key}.evofeat")
    unpickled = pickle.loads((SAVED / f"{key}.pkl").read_bytes())
    assert [digest(continue_on(loaded, rest)), digest(continue_on(unpickled, rest))] == expected
