"""One folder per paper: its declaration, published numbers, explanations and prose.

``papers/<name>/__init__.py`` declares the paper's experiments (a
:class:`evofeat.experiments.spec.PaperSpec` named ``PAPER``);
``published.json`` holds its published cells (as transcribed in
``shared/papers/published.json``), ``explanations.json`` why the cells it
misses are missed, and the ``*.md`` files its report's prose. When the runs
finish, :func:`evofeat.experiments.sections.document` resolves the
declaration into a plain document (``report.json`` beside the results); the
renderer (:mod:`evofeat.report.paper`) renders that document, reads the
data files through :func:`text`, as package data, and imports nothing of a
paper.

>>> sorted(NAMES)
['ceofs', 'fesl', 'ofs', 'opid', 'stsd']
>>> text("stsd", "nope.md")
Traceback (most recent call last):
...
KeyError: "paper 'stsd' has no file 'nope.md'"
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

from evofeat._scratch import write_atomically

__all__ = ["NAMES", "split_adaptive", "text"]

#: The papers, in the order the project implements them.
NAMES = ("stsd", "ofs", "fesl", "opid", "ceofs")


@cache
def text(paper: str, name: str) -> str:
    """The text of the file ``name`` in ``paper``'s folder (package data)."""
    if paper not in NAMES:
        raise KeyError(f"unknown paper {paper!r}; expected one of: {', '.join(sorted(NAMES))}")
    path = resources.files(__name__).joinpath(paper, name)
    if not path.is_file():
        raise KeyError(f"paper {paper!r} has no file {name!r}")
    return path.read_text(encoding="utf-8")


def split_adaptive(path: str | Path) -> list[Path]:
    """Write each paper's ``adaptive.json`` from the adaptive-variants investigation's output.

    ``benchmarks/investigations/adaptive_variants.py`` writes one file for
    every paper (``docs/reports/investigations/adaptive_variants.json``); a
    report reads its paper's cells, with the file's ``meta``, from its own
    folder. Run this after the investigation (in a source checkout).
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for paper in NAMES:
        cells = [c for c in data["cells"] if c["paper"] == paper]
        if cells:
            target = Path(str(resources.files(__name__).joinpath(paper, "adaptive.json")))
            own = {"meta": data["meta"], "cells": cells}
            _write_whole(target, json.dumps(own, indent=1) + "\n")
            out.append(target)
    text.cache_clear()
    return out


def _write_whole(target: Path, body: str) -> None:
    """``target`` written whole or not at all (a report reads it), through a scratch folder."""

    def write(tmp: Path) -> None:
        (tmp / target.name).write_text(body, encoding="utf-8")

    write_atomically(target.parent, write, inside=f"{target.name}.")
