"""Each paper's experiment protocol, its published numbers and its report."""

from __future__ import annotations

import importlib

from evofeat.experiments.base import Cell, Paper
from evofeat.papers import NAMES

__all__ = ["PAPERS", "Cell", "Paper", "get_paper"]

#: paper name -> "module:attribute" of its :class:`Paper` instance (imported lazily).
PAPERS: dict[str, str] = {name: f"evofeat.papers.{name}:PAPER" for name in NAMES}


def get_paper(name: str) -> Paper:
    """Return the :class:`Paper` registered under ``name``.

    >>> get_paper("nope")
    Traceback (most recent call last):
    ...
    KeyError: "unknown paper 'nope'; expected one of: ceofs, fesl, ofs, opid, stsd"
    """
    if name not in PAPERS:
        raise KeyError(f"unknown paper {name!r}; expected one of: {', '.join(sorted(PAPERS))}")
    module, attr = PAPERS[name].split(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:  # a paper whose experiments are not written yet
        raise KeyError(f"paper {name!r} has no experiments yet ({exc})") from exc
    paper: Paper = getattr(mod, attr)
    return paper
