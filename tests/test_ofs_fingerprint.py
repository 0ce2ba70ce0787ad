"""The OFS family predicts bit for bit what the committed fingerprints record (both paths, round trips)."""

from __future__ import annotations

import json

import pytest

from ofs_fingerprint import OPTIONS, PATH, cell, streams

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
