"""Each paper lives in one folder (``evofeat/papers/<name>/``), shipped as package data."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import pytest

import evofeat
from evofeat.experiments import PAPERS, get_paper
from evofeat.papers import NAMES, text
from evofeat.report.compare import STATUSES

SRC = Path(evofeat.__file__).resolve().parent
PYPROJECT = SRC.parents[1] / "pyproject.toml"


@pytest.mark.parametrize("name", NAMES)
def test_a_paper_folder_holds_its_declaration_numbers_and_explanations(name: str) -> None:
    assert PAPERS[name] == f"evofeat.papers.{name}:PAPER"
    assert get_paper(name).name == name
    published = json.loads(text(name, "published.json"))
    assert "source" in published  # the transcription's provenance, kept with the numbers
    data = json.loads(text(name, "explanations.json"))
    ids = {e["id"] for e in data["explanations"]}
    assert len(ids) == len(data["explanations"])  # one entry per id
    assert all(e["status"] in STATUSES for e in data["explanations"])
    assert {eid for _, eid in data["rules"]} <= ids  # a rule names a declared explanation


def test_the_published_numbers_equal_the_shared_transcription() -> None:
    shared = SRC.parents[2] / "shared" / "papers" / "published.json"
    if not shared.is_file():
        pytest.skip(f"the shared transcription is not here ({shared})")
    whole = json.loads(shared.read_text(encoding="utf-8"))
    assert sorted(whole) == sorted(NAMES)
    for name in NAMES:
        assert json.loads(text(name, "published.json")) == whole[name], name


def test_every_data_and_prose_file_of_a_paper_ships_in_the_wheel() -> None:
    if not PYPROJECT.is_file():
        pytest.skip("not a source checkout: no pyproject.toml")
    block = PYPROJECT.read_text(encoding="utf-8").split("[tool.setuptools.package-data]")[1]
    patterns = re.findall(r'"([^"]+)"', block.split("\n[")[0])
    files = [p for p in (SRC / "papers").rglob("*") if p.suffix in (".json", ".md")]
    assert files
    for f in files:
        rel = f.relative_to(SRC).as_posix()
        assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), rel


def test_the_renderer_imports_no_paper_and_reads_nothing_outside_the_package() -> None:
    for f in (SRC / "report").glob("*.py"):
        code = f.read_text(encoding="utf-8")
        names = "|".join(NAMES)
        assert not re.search(rf"evofeat\.papers\.({names})\b", code), f.name
        assert "parents[" not in code, f.name  # no path out of the installed package


def test_a_paper_declaration_keeps_its_prose_in_markdown() -> None:
    """No long string literal of prose in a paper's Python (a docstring aside)."""
    import ast

    for name in NAMES:
        tree = ast.parse((SRC / "papers" / name / "__init__.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                value = node.value.value
                assert not (isinstance(value, str) and len(value) > 300), (name, node.lineno)


def test_each_papers_adaptive_cells_equal_the_investigations_output() -> None:
    """A stale copy fails: rerun ``split_adaptive`` on the investigation's file after it changes."""
    whole = SRC.parents[1] / "docs" / "reports" / "investigations" / "adaptive_variants.json"
    if not whole.is_file():
        pytest.skip(f"not a source checkout: no {whole}")
    data = json.loads(whole.read_text(encoding="utf-8"))
    fix = (
        f"run `python -c \"from evofeat.papers import split_adaptive; split_adaptive('{whole}')\"`"
    )
    for name in NAMES:
        cells = [c for c in data["cells"] if c["paper"] == name]
        if not cells:
            with pytest.raises(KeyError):
                text(name, "adaptive.json")
            continue
        assert json.loads(text(name, "adaptive.json")) == {"meta": data["meta"], "cells": cells}, (
            fix
        )
