"""A learner module's ``LEARNERS`` display registers it (no line in ``evofeat.registry``)."""

from __future__ import annotations

import importlib
from pathlib import Path

from evofeat._discover import FAMILIES, discovered
from evofeat.registry import ONLINE, make


def test_every_discovered_name_is_what_its_module_declares() -> None:
    found = discovered()
    assert "perceptron" in found and "auto" in found
    for name, module in found.items():
        assert name in importlib.import_module(module).LEARNERS, (name, module)
        assert ONLINE[name] == module
        make(name)


def test_the_hand_written_entries_of_a_discovered_module_agree() -> None:
    found = discovered()
    for module in set(found.values()):
        listed = {n for n, m in ONLINE.items() if m == module}
        assert listed == {n for n, m in found.items() if m == module}, module


def test_a_new_module_is_found_and_others_are_not(tmp_path: Path) -> None:
    for family in FAMILIES:
        (tmp_path / family).mkdir()
    (tmp_path / "linear" / "widget.py").write_text(
        'class Widget:\n    pass\n\n\nLEARNERS = {"widget": Widget, "widget-2": Widget}\n'
    )
    (tmp_path / "linear" / "_private.py").write_text('LEARNERS = {"hidden": object}\n')
    (tmp_path / "ensemble" / "modes.py").write_text('LEARNERS = {m: m for m in ("a", "b")}\n')
    (tmp_path / "haphazard" / "keyed.py").write_text('LEARNERS = {1: int, "x": int}\n')
    (tmp_path / "haphazard" / "broken.py").write_text('LEARNERS = {"y": (\n')
    assert discovered(tmp_path) == {
        "widget": "evofeat.linear.widget",
        "widget-2": "evofeat.linear.widget",
    }
