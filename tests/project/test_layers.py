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
  (``ensemble`` builds on ``linear``'s learners, never the other way round);
- ``base`` imports nothing above it (only ``evofeat.base`` and the compiled
  ``evofeat._core``);
- a learner family imports no other family's internals (a module or package
  whose name starts with ``_``, the compiled cores included);
- ``io`` imports no private module or name of another package;
- no import circles: no module imports (even inside a function) a module
  that imports it back, directly or through others.

A rule that cannot hold yet lists its exceptions (``importing module ->
imported module``, or a circle's modules) explicitly below; an exception that no longer occurs fails
the test, so the list shrinks as the code is fixed.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "evofeat"
LEARNERS = frozenset({"linear", "ensemble", "onepass", "selection", "haphazard"})
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(evofeat[\w.]*)\s+c?import|c?import\s+(evofeat[\w.]*))")


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` for each evofeat import of one source file."""
    return [(t, n) for t, n, _ in _imports_with_names(path)]


def _imports_with_names(path: Path) -> list[tuple[str, int, tuple[str, ...]]]:
    """``(imported module, line, names imported from it)`` for each evofeat import of one file."""
    if path.suffix in (".pyx", ".pxd"):
        found = []
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = _CYTHON_IMPORT.match(line)
            if m:
                found.append((m.group(1) or m.group(2), lineno, ()))
        return found
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing package
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno, tuple(alias.name for alias in node.names)))
    return [(t, n, names) for t, n, names in found if t == "evofeat" or t.startswith("evofeat.")]


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
    assert ("evofeat.datasets.fetch", "evofeat.datasets.catalogue") in edges  # from .catalogue
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


def _a_paper(module: str) -> bool:
    """Whether ``module`` is a paper's declaration (``evofeat.papers.<paper>``) or the experiments."""
    return module.startswith("evofeat.papers.") or _layer(module) == "experiments"


def test_the_report_renders_data_and_imports_no_paper() -> None:
    """``report`` renders a resolved document: it imports no paper's module and no ``experiments``
    (where a paper's declaration and its callables live); ``evofeat.papers`` itself, the
    package-data reader, is allowed."""
    found = [
        f"{w}: {a} imports {b}" for a, b, w in _edges() if _layer(a) == "report" and _a_paper(b)
    ]
    assert found == []
    assert _a_paper("evofeat.papers.ofs") and _a_paper("evofeat.experiments.spec")
    assert not _a_paper("evofeat.papers") and not _a_paper("evofeat.report.paper")


def test_learner_families_import_no_other_family() -> None:
    for family in ("linear", "onepass", "selection", "haphazard"):
        assert _forbidden({family}, set(LEARNERS) - {family}) == [], family


def _private(module: str, start: int = 1) -> bool:
    """Whether a component of ``module`` from the ``start``-th on is private (starts with ``_``)."""
    return any(part.startswith("_") for part in module.split(".")[start:])


def _check_exceptions(found: list[str], allowed: set[str]) -> None:
    """``found`` (``"path:line: a imports b"``) holds only the ``allowed`` ``"a -> b"``, and each of them."""
    pairs = {f.split(": ", 1)[1].replace(" imports ", " -> ") for f in found}
    assert [
        f for f in found if f.split(": ", 1)[1].replace(" imports ", " -> ") not in allowed
    ] == []
    assert allowed <= pairs, (
        f"no longer needed, remove from the exceptions: {sorted(allowed - pairs)}"
    )


def test_base_imports_nothing_above_it() -> None:
    """No exception: ``learn_many``'s loop and the array form of a stream live in ``base``
    (``evofeat.base.prequential``, ``evofeat.base.stream``; ``evaluate`` and ``streams``
    re-export them)."""
    found = [
        f"{where}: {a} imports {b}"
        for a, b, where in _edges()
        if _layer(a) == "base" and _layer(b) not in ("base", "_core")
    ]
    assert found == []


def test_a_learner_family_imports_no_other_familys_internals() -> None:
    found = [
        f"{where}: {a} imports {b}"
        for a, b, where in _edges()
        if _layer(a) in LEARNERS
        and _layer(b) in LEARNERS
        and _layer(a) != _layer(b)
        and _private(b, 2)
    ]
    assert found == []


#: io -> a private module or class elsewhere: none (the selectors' and OPID's state value types,
#: ColumnBuffer, ConditionalTester and JointSolution, are public and documented).
IO_EXCEPTIONS: set[str] = set()

#: the package's own plumbing (one atomic-write helper for every output), not an estimator's class.
SHARED_PLUMBING = {"evofeat._scratch"}


def test_io_imports_no_private_class() -> None:
    found = []
    for path in sorted((PACKAGE / "io").rglob("*.py")):
        module = _module(path)
        for target, lineno, names in _imports_with_names(path):
            if _layer(target) == "io" or target in SHARED_PLUMBING:
                continue
            where = f"{path.relative_to(SRC)}:{lineno}"
            if _private(target) or any(n.startswith("_") for n in names):
                found.append(f"{where}: {module} imports {target}")
    _check_exceptions(found, IO_EXCEPTIONS)


def test_the_new_rules_could_fail() -> None:
    """Each rule's predicate flags the edges it is written against."""
    assert _private("evofeat.linear._ofs", 2) and not _private("evofeat.linear.ofs", 2)
    assert _private("evofeat.selection._base") and not _private("evofeat.base.errors")
    assert ("evofeat.ensemble.fesl", "evofeat.linear.ogd") in {(a, b) for a, b, _ in _edges()}


def _type_checking_lines(path: Path) -> set[int]:
    """The lines of the imports under ``if TYPE_CHECKING:`` in a Python file (run by no import)."""
    if path.suffix != ".py":
        return set()
    lines = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Name | ast.Attribute) and "TYPE_CHECKING" in ast.unparse(test):
            for inner in node.body:
                lines.update(
                    n.lineno for n in ast.walk(inner) if isinstance(n, ast.Import | ast.ImportFrom)
                )
    return lines


def _sources() -> dict[str, list[Path]]:
    """Each module of the package with its source files (a ``.pyx`` and its ``.pxd`` are one)."""
    found: dict[str, list[Path]] = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd"):
            found.setdefault(_module(path), []).append(path)
    return found


def _defining(target: str, name: str, sources: dict[str, list[Path]]) -> str:
    """The module that ``from target import name`` reaches, as Python looks it up: the module a
    package's ``__init__`` re-exports ``name`` from (followed on), else the submodule
    ``target.name`` if there is one, else ``target`` itself."""
    init = [p for p in sources.get(target, []) if p.name == "__init__.py"]
    for source, _, names in _imports_with_names(init[0]) if init else []:
        if name in names and source != target:  # not ``from . import name``: a submodule
            return _defining(source, name, sources)
    return f"{target}.{name}" if f"{target}.{name}" in sources else target


def _module_graph() -> dict[str, set[str]]:
    """The modules each module imports when it runs (function-level imports included).

    Two kinds of import are not edges. One under ``if TYPE_CHECKING:`` names a type for the type
    checker and runs no import. And ``from package import name`` is an edge to the module that
    defines ``name``, not to the package's ``__init__``: the ``__init__`` only re-exports it, and an
    edge to it would close a false circle with the ``__init__``'s own import of that module.
    """
    sources = _sources()
    graph: dict[str, set[str]] = {m: set() for m in sources}
    for module, paths in sources.items():
        for path in paths:
            typing_only = _type_checking_lines(path)
            for target, lineno, names in _imports_with_names(path):
                if lineno in typing_only:
                    continue
                reached = {_defining(target, n, sources) for n in names} or {target}
                graph[module].update(m for m in reached if m in sources and m != module)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of two or more modules."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    nodes = sorted(graph)
    number = {m: i for i, m in enumerate(nodes)}
    pairs = [(number[a], number[b]) for a in nodes for b in sorted(graph[a])]
    rows, cols = zip(*pairs, strict=True) if pairs else ((), ())
    adjacency = csr_matrix(([1] * len(pairs), (rows, cols)), shape=(len(nodes), len(nodes)))
    _, label = connected_components(adjacency, directed=True, connection="strong")
    groups: dict[int, list[str]] = {}
    for m, k in zip(nodes, label, strict=True):
        groups.setdefault(int(k), []).append(m)
    return sorted(g for g in groups.values() if len(g) > 1)


#: Circles that cannot go yet, each with both of its function-level imports. The registry and the
#: preprocessing wrappers: ``registry.make`` builds ``OnlineScaled``/``Imputed`` for the
#: ``scaled-*``/``impute-*`` names, and those build their inner learner by name with
#: ``registry.make`` (and list the names in their errors); breaking it means passing the inner
#: learner's factory in, a change to both public constructors. The report's cells and their
#: explanations: ``Row.status`` reads ``explanations.EXPLANATIONS``, which are built of
#: ``compare.Explanation``; breaking it means moving ``Explanation`` (a public name of
#: ``evofeat.report.compare``) out, or handing ``status`` its explanations.
CIRCLE_EXCEPTIONS = {
    ("evofeat.preprocessing.imputed", "evofeat.preprocessing.scaled", "evofeat.registry"),
    ("evofeat.report.compare", "evofeat.report.explanations"),
}


def test_no_import_circles_among_evofeats_modules() -> None:
    """No module imports, even from inside a function, a module that imports it back, directly or
    through others (see :func:`_module_graph` for what an import is); the listed exceptions occur."""
    found = {tuple(c) for c in _circles(_module_graph())}
    assert found - CIRCLE_EXCEPTIONS == set()
    assert CIRCLE_EXCEPTIONS - found == set(), "no longer a circle: remove it from the exceptions"


def test_the_circle_check_could_fail() -> None:
    """A circle is found, re-exports are followed to the defining module, typing imports skipped."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    sources = _sources()
    assert _defining("evofeat.streams", "Stream", sources) == "evofeat.base.stream"
    # the re-exporting module, where a package's __init__ takes the name from one
    assert _defining("evofeat.evaluate", "prequential", sources) == "evofeat.evaluate.prequential"
    assert _defining("evofeat.streams", "full", sources) == "evofeat.streams.scenarios"
    assert _defining("evofeat.linear", "ofs", sources) == "evofeat.linear.ofs"  # a submodule
    graph = _module_graph()
    assert "evofeat.base.prequential" in graph["evofeat.base.learner"]  # in a function
    assert "evofeat.base.learner" not in graph["evofeat.base.prequential"]  # TYPE_CHECKING only
    assert {"evofeat._core.core", "evofeat.base.stream"} <= graph["evofeat.base.prequential"]


def test_the_moved_modules_keep_their_public_paths() -> None:
    """``evofeat.streams.stream`` and ``evofeat.evaluate.prequential`` re-export what moved to
    ``base`` (pickles name these paths), and loading the second does not turn
    ``evofeat.evaluate.prequential``, the function, into the module."""
    from evofeat.base import prequential as loop
    from evofeat.base import stream

    old = importlib.import_module("evofeat.evaluate.prequential")
    names = ("PrequentialResult", "check_task", "log_ticks", "prequential")
    assert all(getattr(old, n) is getattr(loop, n) for n in names)
    old_stream = importlib.import_module("evofeat.streams.stream")
    assert old_stream.Stream is stream.Stream and old_stream.Chunk is stream.Chunk

    from evofeat.evaluate import prequential

    assert prequential is loop.prequential
