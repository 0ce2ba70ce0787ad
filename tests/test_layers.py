"""Clean dependencies between evofeat's layers (issue 14), read from the source's imports.

Every ``import`` and ``from ... import`` of every module under ``src/evofeat``
is parsed with :mod:`ast` (function-level imports included, docstring
examples not), and every ``cimport``/``import`` line of the Cython files with
a regular expression. Forbidden edges:

- ``datasets`` imports no learner package (``linear``, ``ensemble``,
  ``onepass``, ``selection``) nor the learner registry ``evofeat.registry``;
- no learner package imports ``datasets``;
- ``evaluate`` does not import ``experiments`` (the evaluation layer is what
  experiments build on, not the other way round);
- ``experiments`` and ``report`` reach learners only through
  ``evofeat.registry`` (by name), never by importing a learner package;
- ``linear``, ``onepass`` and ``selection`` import no other learner family
  (``ensemble`` builds on ``linear``'s learners, never the other way round).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "evofeat"
LEARNERS = frozenset({"linear", "ensemble", "onepass", "selection", "haphazard"})
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(evofeat[\w.]*)\s+c?import|c?import\s+(evofeat[\w.]*))")


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` for each evofeat import of one source file."""
    if path.suffix in (".pyx", ".pxd"):
        found = []
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _CYTHON_IMPORT.match(line)
            if m:
                found.append((m.group(1) or m.group(2), lineno))
        return found
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing package
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
    return [(t, n) for t, n in found if t == "evofeat" or t.startswith("evofeat.")]


def _layer(module: str) -> str:
    """The first component under ``evofeat`` ("datasets" for evofeat.datasets.fetch)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _edges() -> list[tuple[str, str, str]]:
    """``(importing module, imported module, "path:line")`` over the whole package."""
    edges = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd"):
            continue
        for target, lineno in _imports(path):
            edges.append((_module(path), target, f"{path.relative_to(SRC)}:{lineno}"))
    return edges


def _forbidden(
    src_layers: set[str], dst: set[str], dst_modules: frozenset[str] = frozenset()
) -> list[str]:
    """Every import from a module of ``src_layers`` into ``dst`` (or into ``dst_modules``)."""
    return [
        f"{where}: {a} imports {b}"
        for a, b, where in _edges()
        if _layer(a) in src_layers and (_layer(b) in dst or b in dst_modules)
    ]


def test_the_scanner_sees_the_edges_that_exist() -> None:
    """The checks below could fail: known edges are found, relative imports resolved."""
    edges = {(a, b) for a, b, _ in _edges()}
    assert ("evofeat.datasets.fetch", "evofeat.datasets.registry") in edges  # from .registry
    assert ("evofeat.datasets", "evofeat.datasets.fetch") in edges  # from .fetch (an __init__)
    assert any(a == "evofeat.cli" and _layer(b) == "datasets" for a, b in edges)  # in a function
    assert any(a.startswith("evofeat.linear.") and b.startswith("evofeat._core") for a, b in edges)
    pyx = [b for _, b, where in _edges() if ".pyx:" in where or ".pxd:" in where]
    assert any(b.startswith("evofeat._core") for b in pyx)  # cimports of the compiled core


def test_datasets_import_no_learner() -> None:
    assert _forbidden({"datasets"}, set(LEARNERS), frozenset({"evofeat.registry"})) == []


def test_no_learner_imports_datasets() -> None:
    assert _forbidden(set(LEARNERS), {"datasets"}) == []


def test_evaluate_does_not_import_experiments() -> None:
    assert _forbidden({"evaluate"}, {"experiments"}) == []


def test_experiments_and_reports_reach_learners_only_through_the_registry() -> None:
    assert _forbidden({"experiments", "report"}, set(LEARNERS)) == []


def test_learner_families_import_no_other_family() -> None:
    for family in ("linear", "onepass", "selection", "haphazard"):
        assert _forbidden({family}, set(LEARNERS) - {family}) == [], family
