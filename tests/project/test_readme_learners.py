"""The README names every registered learner (a new learner must be added to it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evofeat.registry import all_names

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.skipif(
    not README.exists(), reason="README.md is not beside tests/ (an installed copy)"
)
def test_the_readme_names_every_registered_learner() -> None:
    text = README.read_text(encoding="utf-8")
    assert [n for n in all_names() if f"`{n}`" not in text] == []
