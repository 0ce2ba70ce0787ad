"""Online learners found by their modules, so that adding one needs no line elsewhere.

A module of a learner family (``linear``, ``ensemble``, ``haphazard``; not a
private ``_name`` module) whose ``LEARNERS`` is a dict display with string keys
(``LEARNERS = {"perceptron": Perceptron}``) registers those names. The names are
read from the source text: nothing is imported until a name is used, so the
command line starts as fast as before. A ``LEARNERS`` built another way (a
comprehension over modes) is listed in :data:`evofeat.registry.ONLINE` by hand.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

__all__ = ["FAMILIES", "discovered"]

#: the packages searched, under ``evofeat``
FAMILIES = ("linear", "ensemble", "haphazard")
_HEAD = re.compile(r"^LEARNERS\b[^=\n]*=", re.MULTILINE)


def _names(text: str) -> list[str]:
    """The keys of the module-level ``LEARNERS = {...}`` display in ``text`` (none if not one)."""
    match = _HEAD.search(text)
    if match is None:
        return []
    try:
        body = ast.parse(text[match.start() :]).body
    except SyntaxError:
        return []
    value = getattr(body[0], "value", None) if body else None
    if not isinstance(value, ast.Dict) or not value.keys:
        return []
    keys = [k.value if isinstance(k, ast.Constant) else None for k in value.keys]
    return [k for k in keys if isinstance(k, str)] if all(isinstance(k, str) for k in keys) else []


def discovered(root: Path | None = None) -> dict[str, str]:
    """``name -> module`` of every learner a family module declares in a ``LEARNERS`` display.

    ``root`` is the ``evofeat`` package directory (default: this one).

    >>> discovered()["perceptron"]
    'evofeat.linear.perceptron'
    """
    root = Path(__file__).resolve().parent if root is None else Path(root)
    out: dict[str, str] = {}
    for family in FAMILIES:
        for path in sorted((root / family).glob("*.py")):
            if path.name.startswith("_"):
                continue
            for name in _names(path.read_text(encoding="utf-8")):
                out.setdefault(name, f"evofeat.{family}.{path.stem}")
    return out
