"""A griffe extension for the API pages: make evofeat's docstrings render as Markdown.

Three things in evofeat's docstrings would render badly or not at all; this
extension fixes them in the rendered pages only (never the sources):

1. Doctests outside an ``Examples`` section (a summary followed directly by
   ``>>>`` lines): Markdown would read ``>>>`` as nested block quotes and an
   output such as ``[0, 2]`` as a link. They are wrapped in a ``pycon`` fence.
2. Docstrings made at import time (``__doc__ = f"..."``, the OFS classes):
   static analysis does not see them, so for a class without a docstring in
   its source the extension imports the class and takes its ``__doc__``.
3. Sphinx roles (``:func:`evofeat.streams.permutation```,
   ``:class:`~evofeat.base.OnlineLearner```) would show the literal text
   ``:func:``; they become inline code (``~a.b.c`` keeps only ``c``, as
   Sphinx does).
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const|ref):`(~?)([^`<]+?)(?:\s*<([^>]+)>)?`"
)
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


def _replace(match: re.Match[str]) -> str:
    tilde, text, target = match.group(1), match.group(2).strip(), match.group(3)
    if target:  # :role:`title <target>`: keep the title
        return f"`{text}`"
    if tilde:
        text = text.rsplit(".", 1)[-1]
    return f"`{text}`"


def strip_roles(text: str) -> str:
    """Rewrite Sphinx roles as inline code.

    >>> strip_roles("see :func:`~evofeat.streams.permutation` and :class:`evofeat.base.OnlineLearner`")
    'see `permutation` and `evofeat.base.OnlineLearner`'
    """
    return _ROLE.sub(_replace, text)


def fence_doctests(text: str) -> str:
    """Wrap the doctest blocks that are not under an ``Examples`` header in a code fence.

    >>> fence_doctests("Sum.\\n\\n>>> 1 + 1\\n2\\n\\nMore.").splitlines()
    ['Sum.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    """
    lines = text.split("\n")
    out: list[str] = []
    in_examples = False
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if line.strip() and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]):
            in_examples = line.strip().lower() in ("examples", "example")
        if not in_examples and not in_fence and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _runtime_doc(obj: Any) -> str | None:
    """The ``__doc__`` a class sets on itself at import time, if any."""
    try:
        target: Any = importlib.import_module(obj.module.path)
        for part in obj.path[len(obj.module.path) + 1 :].split("."):
            target = getattr(target, part)
    except Exception:  # noqa: BLE001 - documentation only: leave the object as it is
        return None
    doc = vars(target).get("__doc__") if isinstance(target, type) else None
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None


class SphinxRoles(griffe.Extension):
    """Fence stray doctests, recover import-time docstrings, rewrite Sphinx roles."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if getattr(obj, "is_alias", False):
            return
        if obj.docstring is None and obj.is_class and "__doc__ = " in "\n".join(obj.lines):
            doc = _runtime_doc(obj)
            if doc is not None:
                parent_doc = obj.module.docstring
                obj.docstring = griffe.Docstring(
                    doc,
                    lineno=obj.lineno,
                    parent=obj,
                    parser=parent_doc.parser if parent_doc else None,
                    parser_options=parent_doc.parser_options if parent_doc else None,
                )
        if obj.docstring is not None:
            obj.docstring.value = strip_roles(fence_doctests(obj.docstring.value))
