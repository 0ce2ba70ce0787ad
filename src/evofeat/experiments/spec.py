"""A paper as data: its grids, its variants, its published cells and its report's sections.

A :class:`PaperSpec` is a :class:`~evofeat.experiments.base.Paper` whose
cells come from expanding its :class:`Grid` declarations, whose every cell
runs through :func:`evofeat.experiments.protocols.run_setting` (the one
repeat runner, locally or on Dask through :mod:`evofeat.experiments.runner`),
and whose report is resolved from the declared sections into data
(:func:`evofeat.experiments.sections.document`, stored beside the results as
``report.json``) that :func:`evofeat.report.paper.render` renders. A paper module holds only the declaration (and a small
function for what is genuinely its own).

Examples
--------
>>> g = Grid("table2", ("german", "magic04"), ("ofs",), axes={"budget": (0.1, 0.2)},
...          quick={"datasets": ("german",)})
>>> [(d, p["budget"]) for d, _, p in g.points(quick=True)]
[('german', 0.1), ('german', 0.2)]
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.experiments import protocols
from evofeat.experiments.base import Cell, Paper
from evofeat.experiments.sections import Adaptive, View

__all__ = ["Extra", "Grid", "PaperSpec", "PairSpec", "Published", "Variant", "protocol_params"]

#: A stored cell: (data set, method, parameters), optionally with the metric to read from it
#: (a name, or (name, index) for a list-valued metric).
Key = tuple[Any, ...]


@dataclass(frozen=True)
class Grid:
    """A table's cells: every point of ``axes`` x data set x method.

    ``params(dataset, method, **point)`` turns a point into the cell's
    parameters (default: the point itself; None: no cell there). ``datasets``
    may be a function of ``quick`` (e.g. the sets found on this machine).
    ``quick`` replaces ``"datasets"``, ``"methods"`` or an axis's values in a
    quick run. ``repeats`` (an int or
    data set -> int) and ``quick_repeats`` replace the paper's repeats.

    >>> Grid("t", ("german",), ("ofs", "rand")).cells(2)[3].key
    't|german|rand|{}|1'
    """

    table: str
    datasets: tuple[str, ...] | Callable[[bool], tuple[str, ...]]
    methods: tuple[str, ...]
    axes: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    params: Callable[..., dict[str, Any] | None] | None = None
    quick: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    repeats: int | Mapping[str, int] | None = None
    quick_repeats: int | None = None

    def n_repeats(self, dataset: str, default: int, quick: bool) -> int:
        """The repeats of this grid's cells on ``dataset``."""
        if quick:
            return min(default, self.quick_repeats or default)
        r = self.repeats
        return default if r is None else r if isinstance(r, int) else r.get(dataset, default)

    def points(self, quick: bool = False) -> Iterator[Key]:
        """(data set, method, parameters) of every cell, in declaration order."""

        def pick(name: str, full: tuple[Any, ...]) -> tuple[Any, ...]:
            return self.quick.get(name, full) if quick else full

        axes = {k: pick(k, v) for k, v in self.axes.items()}
        sets = self.datasets(quick) if callable(self.datasets) else pick("datasets", self.datasets)
        for values in itertools.product(*axes.values()):
            point = dict(zip(axes, values, strict=True))
            for ds in sets:
                for m in pick("methods", self.methods):
                    p = self.params(ds, m, **point) if self.params else point
                    if p is not None:  # None: no cell at this point
                        yield ds, m, p

    def cells(self, repeats: int, quick: bool = False) -> list[Cell]:
        return [
            Cell(self.table, d, m, p, r)
            for d, m, p in self.points(quick)
            for r in range(self.n_repeats(d, repeats, quick))
        ]


@dataclass(frozen=True)
class Variant:
    """One way the paper's cells are run, a column pair in its tables (``protocol`` names the command).

    ``within`` is what a cell within 2σ shows in this variant (a status of
    :data:`evofeat.report.compare.STATUSES`): ``"reproduces"`` with the
    paper's stated settings, ``"reproduces with a declared setting"`` for a
    setting fixed before scoring (e.g. the authors' released code), or
    ``"post hoc"`` for a setting chosen on the scored runs and not validated
    on others (its rows are listed, never counted).

    >>> Variant("paper", "paper text", "text", "stsd-paper").setting
    'paper text'
    """

    name: str
    label: str
    short: str
    protocol: str
    setting_label: str = ""
    within: str = "reproduces"

    @property
    def setting(self) -> str:
        return self.setting_label or self.label


@dataclass(frozen=True)
class Published:
    """A published cell: where it is (table, data set, method, setting) and its numbers.

    >>> Published("table2", "german", "stsd-i", "STSD-I", {"B": 0.5}, 366.9, 8.8, "366.9 ± 8.8").std
    8.8
    """

    table: str
    dataset: str
    method: str
    label: str
    setting: dict[str, Any]
    mean: float
    std: float
    printed: str
    text: str = ""  # the setting as comparison.csv names it (default: from ``setting``)


@dataclass(frozen=True)
class PairSpec:
    """A paired test: the paper's method against a baseline, each a stored cell (same row orders).

    >>> PairSpec("table2", "german", "STSD-I", "STSD", ("german", "stsd-i", {}), ("german", "stsd", {})).table
    'table2'
    """

    table: str
    setting: str
    method: str
    baseline: str
    ours: Key
    theirs: Key
    metric: str = "mistakes"
    paper: str = ""  # the paper's outcome here ("win", "tie", "loss" or what it leaves open)


@dataclass(frozen=True)
class Extra:
    """Extra rows of a published table (e.g. adaptive variants), declared and rendered, not published.

    ``lookup(pub)`` gives the stored cell of the extra method beside the
    published cell ``pub`` (None: no extra row there). The cells themselves
    come from a :class:`Grid` of the same paper. Each row is also a row of
    ``comparison.csv`` marked with ``variant = label`` (not counted as a
    published cell); ``command(pub, repeats)`` is its ``evofeat run`` line.

    >>> Extra("table2", "STSD-I adaptive", lambda pub: None).label
    'STSD-I adaptive'
    """

    table: str
    label: str
    lookup: Callable[[Published], Key | None]
    command: Callable[[Published, int], str] | None = None
    within: str = "post hoc"  # what a row within 2σ shows (see Variant.within)


def protocol_params(protocol: str, dataset: str, method: str, **override: Any) -> dict[str, Any]:
    """A cell's parameters under a named protocol: ``{"learner", "scenario", "preprocess"}``.

    >>> protocol_params("stsd-authors", "german", "stsd-i")["scenario"]["fractions"]
    [0.1, 0.4, 0.7, 1.0]
    """
    st = protocols.setting(protocol, dataset, method, **override)
    return {"learner": st.params, "scenario": st.scenario_params, "preprocess": st.preprocess}


@dataclass(frozen=True, eq=False, kw_only=True)
class PaperSpec(Paper):
    """A paper declared as data (see the module docstring); the base class's hooks are derived.

    ``setting(cell)`` is how a cell runs (``learners`` maps a cell's method
    to another registry name, ``runs`` a table to its own runner, for cells
    that are not one prequential run); ``metrics(cell, setting, result)``
    adds or replaces metrics (mistakes, rows, seconds); ``lookup(pub,
    variant)`` is the stored cell of a published cell in a variant;
    ``commands(pub, variant, repeats)`` its ``evofeat run`` line (default: the
    variant's protocol with the cell's learner and scenario parameters);
    ``pair_specs()`` the paired tests; ``extras`` the rows declared beside a
    table (e.g. adaptive variants, added later).

    >>> toy = PaperSpec(name="toy", title="Toy", paper_repeats="2", repeats=2, quick_repeats=1,
    ...     grids=(Grid("t", ("german",), ("ofs", "rand"), {"budget": (0.1,)}),), variants=(),
    ...     sections=(), published_cells=list, lookup=lambda pub, v: ("", "", {}),
    ...     setting=lambda cell: protocols.setting("ofs", cell.dataset, cell.method, params=cell.params))
    >>> [c.key for c in toy.cells(quick=True)]
    ['t|german|ofs|{"budget":0.1}|0', 't|german|rand|{"budget":0.1}|0']
    >>> toy.run_cell(toy.cells(quick=True)[0])["n_rows"]
    1000
    """

    name: str
    title: str
    paper_repeats: str
    repeats: int
    quick_repeats: int
    grids: tuple[Grid, ...]
    variants: tuple[Variant, ...]
    sections: tuple[Any, ...]
    published_cells: Callable[[], list[Published]]
    lookup: Callable[[Published, str], Key]
    setting: Callable[[Cell], protocols.Setting]
    main_variant: str = ""
    metrics: Callable[[Cell, protocols.Setting, Any], dict[str, Any]] | None = None
    predictions: Callable[[Cell], bool] | None = None  # keep the run's predictions (for metrics)
    learners: Mapping[str, str] = field(default_factory=dict)
    runs: Mapping[str, Callable[[Cell], dict[str, Any]]] = field(default_factory=dict)
    shared_cells: bool = True  # one cell for a (data set, method, parameters) in several grids
    data_of: Callable[[Cell], tuple[str, ...]] | None = None  # the registry files a cell reads
    rows_of: Callable[[pd.DataFrame], list[Any]] | None = None  # comparison rows, when data-driven
    pairs_of: Callable[[pd.DataFrame], list[Any]] | None = None  # paired tests, when data-driven
    runtime: bool = True  # the common runtime section (False: the paper states its own)
    commands: Callable[[Published, Variant, int], str] | None = None
    signed: bool = False  # a cell beyond 2σ is "lower" / "higher" rather than "differs"
    pair_specs: Callable[[], list[PairSpec]] = list
    extras: tuple[Extra | Adaptive, ...] = ()
    exact: bool = False
    higher_is_better: bool = False
    seed: int | Callable[[Cell], int] = 0  # the base seed of the row orders (or a cell's)
    runtime_note: str = ""
    explain: str = ""  # the paper's name in :mod:`evofeat.report.explanations` (default: name)
    #: further variants whose rows comparison.csv carries after the main variant's, marked with
    #: the variant's name (not counted as published cells)
    compare_variants: tuple[str, ...] = ()

    def cells(self, quick: bool = False) -> list[Cell]:
        """Every grid expanded; a (data set, method, parameters) in several grids is one cell (the first)."""
        seen: dict[str, tuple[str, str, str, dict[str, Any], int]] = {}
        default = self.quick_repeats if quick else self.repeats
        for g in self.grids:
            for d, m, p in g.points(quick):
                n = g.n_repeats(d, default, quick)
                key = _key(d, m, p) if self.shared_cells else f"{g.table}|{_key(d, m, p)}"
                seen.setdefault(key, (g.table, d, m, p, n))
        return [Cell(t, d, m, p, r) for t, d, m, p, n in seen.values() for r in range(n)]

    def requires(self, cell: Cell) -> tuple[str, ...]:
        """The data files the cell reads (default: its setting's source)."""
        return self.data_of(cell) if self.data_of else (self.setting(cell).source,)

    def run_cell(self, cell: Cell) -> dict[str, Any]:
        """One repeat through :func:`protocols.run_setting`; seeds and row order from ``cell.repeat``."""
        if cell.table in self.runs:
            return self.runs[cell.table](cell)
        t0 = time.perf_counter()
        s = self.setting(cell)
        kw = {"keep_predictions": True} if self.predictions and self.predictions(cell) else {}
        learner = self.learners.get(cell.method, cell.method)
        seed = self.seed(cell) if callable(self.seed) else self.seed
        res = protocols.run_setting(learner, s, cell.repeat, seed=seed, **kw)
        out: dict[str, Any] = {
            "mistakes": res.mistakes,
            "n_rows": res.n_rows,
            "seconds": time.perf_counter() - t0,
            "compute_seconds": float(res.extra.get("compute_seconds", res.seconds)),
        }
        return {**out, **(self.metrics(cell, s, res) if self.metrics else {})}

    def published(self) -> list[Published]:
        return self.published_cells()

    def variant(self, name: str = "") -> Variant:
        name = name or self.main_variant or self.variants[-1].name
        return next(v for v in self.variants if v.name == name)

    def command(self, pub: Published, variant: str, repeats: int) -> str:
        """The ``evofeat run`` line of a published cell in a variant (its protocol plus what differs)."""
        v = self.variant(variant)
        if self.commands is not None:
            return self.commands(pub, v, repeats)
        ds, m, p = self.lookup(pub, v.name)[:3]
        return protocols.command(
            v.protocol,
            ds,
            m,
            repeats,
            params=p.get("learner", p),
            scenario_params=p.get("scenario", {}),
        )

    def comparison(self, results: pd.DataFrame) -> list[Any]:
        """Each published cell beside ours in the main variant, then in each of ``compare_variants``.

        A further variant's rows carry its name in ``Row.variant`` and its
        label in the setting; their explanation is named only where they
        miss the paper by more than 2σ.
        """
        if self.rows_of is not None:
            return self.rows_of(results)
        if not self.published():  # a paper with no published number (CEOFS): no comparison.csv
            return []
        view = View(results)
        main = self._comparison_rows(view, self.variant())
        for name in self.compare_variants:
            main += self._comparison_rows(view, self.variant(name), further=True)
        for e in (e for e in self.extras if isinstance(e, Extra)):
            main += self._comparison_rows(view, self.variant(), further=True, extra=e)
        return main

    def _comparison_rows(
        self, view: Any, v: Variant, further: bool = False, extra: Extra | None = None
    ) -> list[Any]:
        """Rows of ``v`` (or of the declared ``extra``'s rows, marked with its label)."""
        from evofeat.report.compare import Row
        from evofeat.report.explanations import explain

        rows = []
        for pub in self.published():
            key = self.lookup(pub, v.name) if extra is None else extra.lookup(pub)
            vals = view.values(*key) if key is not None else np.zeros(0)
            if extra is not None and (pub.table != extra.table or key is None):
                continue
            n = vals.size or self.repeats
            setting = pub.text or ", ".join(
                [*(f"{k}={x}" for k, x in pub.setting.items()), v.setting]
            )
            row = Row(
                self.name,
                pub.table,
                pub.dataset,
                pub.label,
                setting,
                pub.mean,
                pub.std,
                float(vals.mean()) if vals.size else np.nan,
                float(vals.std(ddof=1)) if vals.size > 1 else np.nan,
                command=self.command(pub, v.name, n)
                if extra is None
                else (extra.command(pub, n) if extra.command else ""),
                variant=extra.label if extra else v.name if further else "",
                within=extra.within if extra else v.within,
            )
            if not further or row.verdict == "outside 2σ":
                row.explanation_id = explain(self.explain or self.name, row)
            rows.append(row)
        return rows

    def pairs(self, results: pd.DataFrame) -> list[Any]:
        """The declared paired tests whose two cells ran the same repeats (more than one)."""
        if self.pairs_of is not None:
            return self.pairs_of(results)
        from evofeat.report.compare import Pair

        view, out = View(results, spec=self), []
        for s in self.pair_specs():
            ours = view.values(s.ours[0], s.ours[1], s.ours[2], s.metric)
            theirs = view.values(s.theirs[0], s.theirs[1], s.theirs[2], s.metric)
            if ours.size > 1 and ours.size == theirs.size:
                out.append(
                    Pair(
                        s.table,
                        s.setting,
                        s.method,
                        s.baseline,
                        ours,
                        theirs,
                        self.higher_is_better,
                        paper=s.paper,
                    )  # fmt: skip
                )
        return out

    def write_report(self, results: pd.DataFrame, out: Path, command: str) -> Path:
        """Resolve the report into data, store it as ``out/report.json``, render it from there."""
        import json

        from evofeat.experiments.sections import document
        from evofeat.report.paper import render

        doc = document(self, results, command)
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        return render(json.loads((out / "report.json").read_text(encoding="utf-8")), out)


def _key(dataset: str, method: str, params: dict[str, Any]) -> str:
    return View.key(dataset, method, params)
