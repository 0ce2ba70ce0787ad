"""One folder per paper: its declaration, published numbers, explanations and prose.

``papers/<name>/__init__.py`` declares the paper's experiments (a
:class:`evofeat.experiments.spec.PaperSpec` named ``PAPER``);
``published.json`` holds its published cells (as transcribed in
``shared/papers/published.json``), ``explanations.json`` why the cells it
misses are missed, and the ``*.md`` files its report's prose. The renderer
(:mod:`evofeat.report`) reads the data files through :func:`text`, as
package data, and imports nothing of a paper.

>>> sorted(NAMES)
['ceofs', 'fesl', 'ofs', 'opid', 'stsd']
>>> text("stsd", "nope.md")
Traceback (most recent call last):
...
KeyError: "paper 'stsd' has no file 'nope.md'"
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["NAMES", "text"]

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
