"""A paper's report sections as declared, resolved against the stored results into data.

A paper declaration (:class:`evofeat.experiments.spec.PaperSpec`) lists its
report as sections: prose (a string), a :class:`Table` (the paper's
published cells beside ours in each variant), a :class:`Figure` (lines of
means against a parameter), :class:`Curves`, a :class:`Results` table (cells
the paper publishes no number for) or a small function of a :class:`View`
for what is genuinely one paper's own. When the runs finish,
:func:`document` resolves each of them (calling the declaration's functions)
into a plain, JSON-able document; :func:`evofeat.report.paper.render`
renders that document and calls nothing back here.

Examples
--------
>>> import pandas as pd
>>> res = pd.DataFrame({"table": ["t"] * 3, "dataset": ["german"] * 3, "method": ["ofs"] * 3,
...                     "params": [{"budget": 0.1}] * 3, "repeat": [0, 1, 2],
...                     "mistakes": [300, 310, 320]})
>>> view = View(res)
>>> view.values("german", "ofs", {"budget": 0.1}).tolist(), view.runs()
([300.0, 310.0, 320.0], '3 runs')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.report.paper import _delta, count, exact, render_part, verdict
from evofeat.report.tables import markdown_table, mean_std

#: What is resolved: an :class:`evofeat.experiments.spec.PaperSpec` (not imported: the
#: spec builds on these sections) and its published cells.
PaperSpec = Any
Published = Any
#: A part of a resolved section: Markdown, or a table / figure / curves record
#: (see :mod:`evofeat.report.paper`).
Part = Any

__all__ = [
    "ADAPTIVE_JSON",
    "ANY",
    "Adaptive",
    "Col",
    "Curves",
    "Figure",
    "Line",
    "Results",
    "Search",
    "Table",
    "View",
    "count",
    "document",
    "summary",
    "verdict",
]

#: A cell's identity in the results: (data set, method, parameters).
Key = tuple[str, str, dict[str, Any]]


class _Anything:
    def __repr__(self) -> str:
        return "ANY"


#: A parameter value that matches whatever a stored cell has there (e.g. a quick run's folds).
ANY: Any = _Anything()

#: The adaptive variants' per-run results (issue 15), written by
#: ``benchmarks/investigations/adaptive_variants.py``; each paper's cells are kept in its folder
#: (``papers/<paper>/adaptive.json``), read when its report is rendered.
ADAPTIVE_JSON = "docs/reports/investigations/adaptive_variants.json"
ADAPTIVE_SCRIPT = (
    "python benchmarks/investigations/adaptive_variants.py --repeats 20 --fesl-repeats 10"
)


#: What a :class:`Search` puts in a key's parameters for "the value chosen on this data set".
CHOSEN = "chosen"


@dataclass(frozen=True)
class Search:
    """A parameter chosen per data set on held-out search cells; as a section, the search's table.

    ``tables`` lists (search table, reported tables, metric, higher is
    better): on each data set the value of ``param`` whose search cells have
    the best mean ``metric`` over every method and run is chosen (ties: the
    smaller value) for the reported tables. Declared among a paper's
    sections, it lets any section read a reported cell at the chosen value as
    ``(data set, method, {**params, param: "chosen", "table": table})``.

    >>> res = pd.DataFrame({"table": ["s", "s", "t", "t"], "dataset": ["d"] * 4,
    ...     "method": ["m"] * 4, "params": [{"c": 1}, {"c": 10}] * 2, "repeat": [0] * 4,
    ...     "acc": [0.6, 0.7, 0.5, 0.8]})
    >>> s = Search("c", (("s", ("t",), "acc", True),))
    >>> s.chosen(res)
    {('t', 'd'): 10}
    >>> from types import SimpleNamespace
    >>> View(res, spec=SimpleNamespace(sections=(s,))).values("d", "m", {"c": "chosen", "table": "t"}, "acc").tolist()
    [0.8]
    """

    param: str
    tables: tuple[tuple[str, tuple[str, ...], str, bool], ...]
    title: str = "Parameter search"
    note: str = ""

    def _means(self, results: pd.DataFrame, table: str, metric: str) -> pd.Series:
        """The mean ``metric`` per (data set, value) over the cells of ``table``."""
        sub = results[results["table"] == table]
        value = sub["params"].map(lambda p: p.get(self.param))
        return sub.assign(_v=value).groupby(["dataset", "_v"])[metric].mean()

    def chosen(self, results: pd.DataFrame) -> dict[tuple[str, str], Any]:
        """(reported table, data set) -> the value chosen on the search cells."""
        out: dict[tuple[str, str], Any] = {}
        for search, reported, metric, higher in self.tables:
            for ds, g in self._means(results, search, metric).groupby(level=0):
                g = g.droplevel(0).sort_index()
                best = g.idxmax() if higher else g.idxmin()  # first of equals: the smaller
                best = best.item() if isinstance(best, np.generic) else best
                out.update({(t, str(ds)): best for t in reported})
        return out

    def alias(self, results: pd.DataFrame, chosen: Mapping[tuple[str, str], Any]) -> list[Any]:
        """Per result row, its key at the chosen value (None: not a reported cell at it)."""
        out: list[Any] = []
        for t, d, m, p in zip(
            results["table"], results["dataset"], results["method"], results["params"], strict=True
        ):
            at = (t, d) in chosen and p.get(self.param) == chosen[(t, d)]
            out.append(View.key(d, m, {**p, self.param: CHOSEN, "table": t}) if at else None)
        return out

    def __call__(self, view: View) -> str:
        """Per data set: the chosen value and the mean at each value, search runs / reported runs."""
        res = view.results
        if res.empty:
            return ""
        tables = {t for s, rep, _, _ in self.tables for t in (s, *rep)}
        grid = sorted({p.get(self.param) for p in res.loc[res["table"].isin(tables), "params"]})
        rows = []
        for search, reported, metric, _ in self.tables:
            for ds in sorted(set(res.loc[res["table"] == reported[0], "dataset"])):
                one = res[res["dataset"] == ds]
                s1, s2 = self._means(one, search, metric), self._means(one, reported[0], metric)
                cells = [f"{_num(s1.get((ds, v)))} / {_num(s2.get((ds, v)))}" for v in grid]
                rows.append([ds, metric, _num(view.chosen.get((reported[0], ds)), "g"), *cells])
        head = ["data", "score", f"chosen {self.param}", *(f"{self.param} = {v:g}" for v in grid)]
        note = f"{self.note}\n\n" if self.note else ""
        return f"## {self.title}\n\n{note}" + markdown_table(rows, head) + "\n" if rows else ""


def _num(value: Any, spec: str = ".3f") -> str:
    """A number as a table shows it: ``–`` when missing, ``.1e`` from 10^4 on."""
    if value is None or not np.isfinite(value):
        return "–"
    return format(value, ".1e" if abs(value) >= 1e4 else spec)


class View:
    """Per-run metrics looked up by (data set, method, parameters), whatever table stored them.

    ``out`` is the folder the report is written to (figures go there);
    ``spec`` the paper being rendered.

    >>> View(pd.DataFrame()).values("german", "ofs", {}).size
    0
    """

    def __init__(self, results: pd.DataFrame, out: Path | None = None, spec: Any = None) -> None:
        self.results, self.out, self.spec = results, out, spec
        self.groups: dict[str, pd.DataFrame] = {}
        self.chosen: dict[tuple[str, str], Any] = {}  # (table, data set) -> a Search's choice
        self.datasets: list[str] = []
        self.n = 0
        if results.empty:
            return
        keys = [
            self.key(d, m, p)
            for d, m, p in zip(
                results["dataset"], results["method"], results["params"], strict=True
            )
        ]
        search = next((s for s in getattr(spec, "sections", ()) if isinstance(s, Search)), None)
        self.chosen = search.chosen(results) if search is not None else {}
        frame = results.assign(_key=keys)
        if self.chosen:  # the reported cells at the chosen value, also under their Search key
            assert search is not None
            at = search.alias(results, self.chosen)
            hit = np.array([k is not None for k in at], dtype=bool)
            alias = results[hit].assign(_key=[k for k in at if k is not None])
            frame = pd.concat([frame, alias])
        for key, group in frame.groupby("_key"):
            self.groups[str(key)] = group.sort_values("repeat")
        self.datasets = sorted(set(results["dataset"]))
        self.n = int(results.groupby(keys)["repeat"].nunique().max())

    def runs(self) -> str:
        """``"20 runs"``: the most repeats a cell has in these results."""
        return f"{self.n} runs"

    @staticmethod
    def key(dataset: str, method: str, params: dict[str, Any]) -> str:
        return f"{dataset}|{method}|{json.dumps(params, sort_keys=True, default=str)}"

    def values(
        self,
        dataset: str,
        method: str,
        params: dict[str, Any],
        metric: str | tuple[str, int] = "mistakes",
    ) -> np.ndarray:
        """The metric of every stored repeat of the cell, in repeat order (empty if not run).

        ``(name, i)`` reads item ``i`` of a list-valued metric.
        """
        g = self.group(dataset, method, params)
        name, item = (metric, None) if isinstance(metric, str) else metric
        if g is None or name not in g:
            return np.zeros(0)
        if item is not None:
            return np.array([v[item] for v in g[name]], dtype=float)
        if len(g) and isinstance(g[name].iloc[0], list):  # a list per run: all items, run by run
            return np.array([x for v in g[name] if isinstance(v, list) for x in v], dtype=float)
        return g[name].to_numpy(dtype=float)

    def group(self, dataset: str, method: str, params: dict[str, Any]) -> pd.DataFrame | None:
        """The stored runs of a cell; a parameter given as :data:`ANY` matches any value there.

        >>> res = pd.DataFrame({"dataset": ["d"], "method": ["m"], "params": [{"folds": 2}],
        ...                     "repeat": [0], "acc": [[0.5, 0.7]]})
        >>> View(res).values("d", "m", {"folds": ANY}, "acc").tolist()
        [0.5, 0.7]
        """
        if not any(v is ANY for v in params.values()):
            return self.groups.get(self.key(dataset, method, params))
        want = {k: json.dumps(v, default=str) for k, v in params.items() if v is not ANY}
        for g in self.groups.values():
            d, m, p = g["dataset"].iloc[0], g["method"].iloc[0], g["params"].iloc[0]
            if (d, m) == (dataset, method) and set(p) == set(params):
                if all(json.dumps(p[k], default=str) == v for k, v in want.items()):
                    return g
        return None


@dataclass(frozen=True)
class Table:
    """A published table beside ours: one row per published cell, two columns per variant.

    ``columns`` name what precedes the numbers: ``"data"``, ``"algorithm"``
    or a key of the published cell's setting (``"B"``). ``{runs}`` in the
    title is replaced by the repeats run. ``variants`` picks the paper's
    variants shown (default: all); ``digits`` formats ours. ``per`` (one of
    ``columns``, e.g. ``"algorithm"``) adds, per value of it, the cells run,
    their mean Δ/σ and how many lie within 1σ and 2σ (the first variant shown).

    >>> Table("table2", "Table II (B = 0.5, {runs})", ("data", "algorithm")).key
    'table2'
    """

    key: str
    title: str
    columns: tuple[str, ...]
    note: str = ""
    variants: tuple[str, ...] = ()
    digits: int = 1
    per: str = ""


@dataclass(frozen=True)
class Line:
    """One line of a :class:`Figure`: a method's mean at each x, ``params(dataset, x)`` its cell.

    ``row`` labels the line in the figure's table (None: drawn, not tabulated);
    ``draw=False``: tabulated, not drawn. ``metric`` replaces the figure's
    (``{x}`` in it: the point, for a cell that stores a metric per x), and
    values are multiplied by ``scale``.

    >>> Line("OFS", "ofs", lambda d, x: {"budget": x}).style
    '-'
    """

    label: str
    method: str
    params: Callable[[str, Any], dict[str, Any]]
    style: str = "-"
    color: str | None = None
    row: tuple[str, ...] | None = None
    metric: str = ""
    scale: float = 1.0
    draw: bool = True


@dataclass(frozen=True)
class Figure:
    """Means against a parameter: one panel per data set, one :class:`Line` per curve.

    ``spread``: error bars of one std and mean ± std in the table. ``panels``
    may be a function of the :class:`View` (panels that follow what was run).

    >>> Figure("figure1", "Figure 1", "", ("german",), (0.1, 1.0), ()).ylabel
    'average mistakes'
    """

    name: str
    title: str
    caption: str
    panels: tuple[str, ...] | Callable[[View], tuple[str, ...]]
    x: tuple[Any, ...]
    lines: tuple[Line, ...]
    xlabel: str = ""
    ylabel: str = "average mistakes"
    xscale: str = "linear"
    row_head: tuple[str, ...] = ("data", "algorithm")
    note: str = ""
    metric: str = "mistakes"
    marker: str = "."
    spread: bool = False


@dataclass(frozen=True)
class Curves:
    """The mean learning curve of each method, one panel per data set (stored curves).

    ``cell(dataset, method)`` is the stored cell whose runs kept their curves;
    ``metric`` the stored curve; ``titles`` a panel's title (default: its
    data set); ``{runs}`` in the caption the runs its curves had. With
    ``clip`` > 0, a curve ending above ``clip`` times the panel's median end
    is left off the scale and named.

    >>> Curves("figure1", "Figure 1", "cap", ("german",), {"ofs": "OFS"}, lambda d, m: (d, m, {})).ylabel
    'online average mistake rate'
    """

    name: str
    title: str
    caption: str
    panels: tuple[str, ...]
    methods: Mapping[str, str]
    cell: Callable[[str, str], Key]
    xlabel: str = "number of samples"
    ylabel: str = "online average mistake rate"
    metric: str = "curve_mistake_rate"
    titles: Mapping[str, str] = field(default_factory=dict)
    clip: float = 0.0


@dataclass(frozen=True)
class Col:
    """A column of :class:`Results`: a metric of the row's cell, as mean ± std (``spread``) or mean.

    ``metric`` is a stored metric or ``fn(view, key) -> values``; values are
    multiplied by ``scale``; ``digits=None`` leaves the mean a number (four
    significant digits). ``cell(key)`` reads another cell than the row's
    (e.g. another method at the same point); ``minus(key)``: the signed
    difference of the means against that cell. ``marks`` are methods tested
    against the cell at its data set and parameters (paired t-test, 0.05),
    each adding ● (that method significantly better), ○ (a tie) or ▼ (worse);
    ``lower_is_better`` for a metric such as mistakes.

    >>> res = pd.DataFrame({"dataset": ["d"] * 2, "method": ["a", "b"], "params": [{}] * 2,
    ...                     "repeat": [0, 0], "acc": [[0.5, 0.7], [0.25, 0.25]]})
    >>> v, k = View(res), ("d", "a", {})
    >>> Col("acc", 1, 100).value(v, k), Col("acc", 1, 100, minus=lambda k: ("d", "b", {})).value(v, k)
    ('60.0 ± 14.1', '+35.0')
    """

    metric: str | Callable[[View, Key], np.ndarray]
    digits: int | None = 1
    scale: float = 1.0
    spread: bool = True
    cell: Callable[[Key], Key] | None = None
    minus: Callable[[Key], Key] | None = None
    marks: tuple[str, ...] = ()
    lower_is_better: bool = False

    def values(self, view: View, key: Key) -> np.ndarray:
        k = self.cell(key) if self.cell else key
        v = self.metric(view, k) if callable(self.metric) else view.values(*k, self.metric)
        return self.scale * np.asarray(v, dtype=float)

    def value(self, view: View, key: Key) -> Any:
        v = self.values(view, key)
        if v.size == 0:
            return "–"
        if self.minus is not None:
            w = Col(self.metric, scale=self.scale).values(view, self.minus(key))
            return f"{v.mean() - w.mean():+.{self.digits or 0}f}" if w.size else "–"  # None: whole
        if self.spread:
            return mean_std(v, 1 if self.digits is None else self.digits) + self._marks(
                view, key, v
            )
        return float(v.mean()) if self.digits is None else f"{v.mean():.{self.digits}f}"

    def _marks(self, view: View, key: Key, v: np.ndarray) -> str:
        """``" ●○"``: each of ``marks`` against this cell, from that method's side ("–": not paired)."""
        from evofeat.evaluate.stats import paired_outcome

        ds, _, p = self.cell(key) if self.cell else key
        out = ""
        for m in self.marks:
            w = Col(self.metric, scale=self.scale).values(view, (ds, m, p))
            o = (
                paired_outcome(w, v, higher_is_better=not self.lower_is_better)
                if w.size == v.size
                else ""
            )
            out += {"win": "●", "tie": "○", "loss": "▼"}.get(o, "–")
        return f" {out}" if out else ""


@dataclass(frozen=True)
class Results:
    """Our numbers where the paper publishes none: a row per (label cells, cell), a column per metric.

    ``metrics`` are (metric, digits) pairs or :class:`Col`; a row whose cell was not run
    (no value in the first column) is left out. ``transpose``: a row per column. ``rows``
    may be a function of the :class:`View` (rows that follow what was run). ``command(view,
    key)``: the ``evofeat run`` line of a row's cell, a last column.

    >>> Results(("learner",), ((("OFS",), ("german", "ofs", {})),)).render(View(pd.DataFrame()))
    'not run'
    """

    head: tuple[str, ...]
    rows: tuple[tuple[tuple[Any, ...], Key], ...] | Callable[[View], list[Any]]
    metrics: tuple[tuple[str, int] | Col, ...] = (("mistakes", 1),)
    transpose: bool = False
    command: Callable[[View, Key], str] | None = None

    def render(self, view: View) -> str:
        return "".join(render_part(p, Path(".")) for p in self.parts(view))

    def parts(self, view: View) -> list[Part]:
        """The section resolved: ``["not run"]`` or its table's record."""
        cols = [c if isinstance(c, Col) else Col(*c) for c in self.metrics]
        body = [
            [*label, *(c.value(view, key) for c in cols), *self._command(view, key)]
            for label, key in (self.rows(view) if callable(self.rows) else self.rows)
            if cols[0].values(view, key).size
        ]
        if not body:
            return ["not run"]
        head = [*self.head, *(["command"] if self.command else [])]
        if self.transpose:
            first, *rest = [list(r) for r in zip(head, *body, strict=True)]
            return [_table_part(rest, first)]
        return [_table_part(body, head)]

    def _command(self, view: View, key: Key) -> list[str]:
        return [] if self.command is None else [f"`{self.command(view, key)}`"]


@dataclass(frozen=True)
class Adaptive:
    """A paper's adaptive variant beside its published cells, read from its folder when rendered.

    The investigation ``ADAPTIVE_SCRIPT`` writes ``path``; the cells of
    ``paper`` in it, with its ``meta``, are kept as the paper's
    ``adaptive.json`` (package data: ``papers/<paper>/adaptive.json``; an
    absolute ``path`` is read instead), the
    faithful and adaptive runs of each published cell over the same row
    orders, their paired p-values and commands. Declared in a paper's
    ``extras``; rendered as its own section.

    >>> print(Adaptive("ceofs").render())
    ## Adaptive variant (not the paper's rule)
    <BLANKLINE>
    Not computed here: `python benchmarks/investigations/adaptive_variants.py --repeats 20 --fesl-repeats 10` writes `docs/reports/investigations/adaptive_variants.json`, whose ceofs cells this section reads.
    <BLANKLINE>
    """

    paper: str
    path: str = ADAPTIVE_JSON
    title: str = "Adaptive variant (not the paper's rule)"

    def _data(self) -> dict[str, Any] | None:
        """The investigation's output: ``path`` itself when absolute, else the paper's copy."""
        from evofeat.papers import text

        if Path(self.path).is_absolute():
            own = Path(self.path)
            return json.loads(own.read_text(encoding="utf-8")) if own.is_file() else None
        try:
            data: dict[str, Any] = json.loads(text(self.paper, "adaptive.json"))
        except KeyError:  # the investigation has not run this paper
            return None
        return data

    def render(self, view: View | None = None) -> str:
        """The section: the win/tie/loss count and one row per published cell run."""
        head = f"## {self.title}\n\n"
        data = self._data()
        if data is None:
            return head + f"Not computed here: `{ADAPTIVE_SCRIPT}` writes `{self.path}`, whose {self.paper} cells this section reads.\n"  # fmt: skip
        meta, cells = data["meta"], [c for c in data["cells"] if c["paper"] == self.paper]
        if not cells:
            return head + f"`{self.path}` has no cell of {self.paper}.\n"
        setting = ", ".join(f"{k}={v}" for k, v in meta["variants"][self.paper].items())
        counts = [["adaptive", *_wtl(cells, "outcome", "wilcoxon_outcome")]]
        for name, params in meta.get("extra", {}).get(self.paper, {}).items():
            shown = ", ".join(f"{k}={v}" for k, v in params.items())
            counts.append(
                [f"{name} ({shown}; shown, not counted)", *_wtl(cells, f"{name}_outcome")]
            )
        rows = [
            [c["table"], c["dataset"], c["algorithm"], c["setting"],
             f"{c['paper_mean']:.{(d := 1 if c['metric'] == 'mistakes' else 3)}f} ± {c['paper_std']:.{d}f}",
             mean_std(np.asarray(c["faithful_runs"]), d), mean_std(np.asarray(c["adaptive_runs"]), d),
             f"{c['t_pvalue']:.2g}", f"{c['wilcoxon_pvalue']:.2g}", c["outcome"], f"`{c['adaptive_command']}`"]
            for c in cells
        ]  # fmt: skip
        return (
            head
            + f"Each published cell's method as the paper states it (*faithful*: the row's "
            f"command without the adaptive `--param`) against the same method with `{setting}` "
            f"(*adaptive*, not the paper's rule) over the same row orders "
            f"({cells[0]['repeats']} runs). A *win*: the adaptive "
            "variant is better and the paired t-test rejects equality at 0.05; a *loss*: worse "
            f"and rejected; else a *tie*. Read from `{self.path}` (commit {meta.get('commit', '?')}, "
            f"{meta.get('date', '?')}; `{ADAPTIVE_SCRIPT}` reruns it).\n\n"
            + markdown_table(counts, ["against the faithful method", "cells", "t-test W/T/L", "Wilcoxon W/T/L"])
            + "\n\n"
            + markdown_table(rows, ["table", "data", "algorithm", "setting", "paper", "faithful (ours)",
                                    "adaptive (ours)", "t-test p", "Wilcoxon p", "adaptive vs faithful", "command"])
            + "\n"
        )  # fmt: skip


def _wtl(cells: Sequence[dict[str, Any]], *keys: str) -> list[Any]:
    """The cells with each outcome key, and their win/tie/loss counts (``"-"`` for a missing key)."""
    got = [[c[k] for c in cells if k in c] for k in keys]
    tallies = ["/".join(str(g.count(o)) for o in ("win", "tie", "loss")) for g in got]
    return [len(got[0]), *tallies, *["-"] * (2 - len(keys))]


# ---------------------------------------------------------------------- the paper's tables
def _variants(spec: PaperSpec, t: Table) -> list[Any]:
    return [v for v in spec.variants if not t.variants or v.name in t.variants]


def compare(
    spec: PaperSpec, view: View, pub: Published, t: Table
) -> tuple[list[Any], dict[str, str]]:
    """A published cell beside ours in each variant: (the row's number cells, verdict per variant)."""
    row: list[Any] = [pub.printed]
    verdicts = {}
    for variant in _variants(spec, t):
        v = view.values(*spec.lookup(pub, variant.name))
        if v.size == 0:
            row += ["–", "–"]
            verdicts[variant.name] = "–"
            continue
        d = _delta(v, pub)
        ok = judges_exact(spec, view) and exact(v, pub.mean, pub.std)
        row += [mean_std(v, t.digits), f"{d:+.2f}"]
        verdicts[variant.name] = "exact" if ok else verdict(d, spec.signed)
    return [*row, " / ".join(verdicts.values())], verdicts


def table_rows(
    spec: PaperSpec, view: View, t: Table
) -> tuple[list[list[Any]], list[dict[str, str]]]:
    """The rows of a :class:`Table` (its published cells, in order) and their verdicts."""
    rows, verdicts = [], []
    for pub in spec.published():
        if pub.table == t.key:
            cells, v = compare(spec, view, pub, t)
            names = {"data": pub.dataset, "algorithm": pub.label}
            rows.append([names.get(c, pub.setting.get(c)) for c in t.columns] + cells)
            verdicts.append(v)
    return rows, verdicts


def _table_part(rows: Sequence[Sequence[Any]], head: Sequence[str]) -> dict[str, Any]:
    """A table's record: its head and rows as plain lists (numpy scalars made Python's)."""
    plain = [[v.item() if isinstance(v, np.generic) else v for v in r] for r in rows]
    return {"table": {"head": [str(h) for h in head], "rows": plain}}


def _table(spec: PaperSpec, view: View, t: Table) -> list[Part]:
    rows, _ = table_rows(spec, view, t)
    head = ["paper"]
    shown = _variants(spec, t)
    for v in shown:
        head += [f"ours: {v.label}", "Δ/σ"]
    head.append(f"verdict ({' / '.join(v.short for v in shown)})")
    note = f"{t.note}\n\n" if t.note else ""
    title = f"## {t.title.format(runs=view.runs())}\n\n{note}"
    body = [_table_part(rows, [*t.columns, *head]), *_extras(spec, view, t)]
    return [title, *body, *_per(spec, view, t), "\n"]


def _per(spec: PaperSpec, view: View, t: Table) -> list[Part]:
    """Per value of ``t.per``: the cells run, their mean Δ/σ, how many within 1σ and within 2σ."""
    if not t.per:
        return []
    first, by = _variants(spec, t)[0], dict[Any, list[float]]()
    for pub in (p for p in spec.published() if p.table == t.key):
        v = view.values(*spec.lookup(pub, first.name))
        if v.size:
            names = {"data": pub.dataset, "algorithm": pub.label}
            by.setdefault(names.get(t.per, pub.setting.get(t.per)), []).append(_delta(v, pub))
    rows = [[g, len(d), f"{np.mean(d):+.2f}", sum(abs(x) <= 1 for x in d),
             sum(abs(x) <= 2 for x in d)] for g, d in by.items()]  # fmt: skip
    head = [t.per, "cells", "mean Δ/σ", "within 1σ", "within 2σ"]
    return [f"\n\nPer {t.per} ({first.label}):\n\n", _table_part(rows, head)] if rows else []


def _extras(spec: PaperSpec, view: View, t: Table) -> list[Part]:
    """The extra rows declared beside a table (e.g. adaptive variants), against the same cells."""
    out: list[Part] = []
    for e in (e for e in spec.extras if getattr(e, "table", None) == t.key):
        rows = []
        for pub in spec.published():
            key = e.lookup(pub) if pub.table == t.key else None
            v = view.values(*key) if key is not None else np.zeros(0)
            if v.size:
                d = _delta(v, pub)
                names = {"data": pub.dataset, "algorithm": pub.label}
                rows.append([*(names.get(c, pub.setting.get(c)) for c in t.columns),
                             pub.printed, mean_std(v, t.digits), f"{d:+.2f}", verdict(d, spec.signed)])  # fmt: skip
        if rows:
            head = [*t.columns, "paper", f"ours: {e.label}", "Δ/σ", "verdict"]
            out += [
                f"\n\n**{e.label}** beside the same published cells:\n\n",
                _table_part(rows, head),
            ]
    return out


def judges_exact(spec: Any, view: View) -> bool:
    """Whether ``exact`` verdicts are given: the paper asks for them and this run has its repeats.

    A quick run (fewer repeats than the paper states) judges no cell exact.

    >>> from types import SimpleNamespace
    >>> judges_exact(SimpleNamespace(exact=True, paper_repeats="20"), View(pd.DataFrame()))
    False
    """
    want = str(getattr(spec, "paper_repeats", "") or "")
    return bool(spec.exact) and want.isdigit() and view.n >= int(want)


def summary(spec: PaperSpec, view: View, extra: str = "") -> str:
    """Per declared :class:`Table`, how many cells each variant brings within 1σ and 2σ.

    The paper's own settings come first; a variant whose setting was chosen
    after seeing the scored runs says so. ``extra`` (Markdown bullets) is
    added to the list; the status counts of the published cells follow
    (:func:`evofeat.report.compare.status_counts`), after what the paper's
    stated settings reproduce when the main variant is another.
    """
    from evofeat.report.compare import YARDSTICK, status_counts
    from evofeat.report.explanations import EXPLANATIONS

    lines = [
        f"{YARDSTICK} A cell is *within 1σ* or *within 2σ* of the paper's, else *further*"
        + ("; *exact* means our mean and std round to the printed values" if spec.exact else "")
        + (
            f" (judged only on the paper's {spec.paper_repeats} runs: this run made {view.n})"
            if spec.exact and not judges_exact(spec, view)
            else ""
        )
        + ".\n",
    ]
    for t in (s for s in spec.sections if isinstance(s, Table)):
        _, verdicts = table_rows(spec, view, t)
        each = "; ".join(
            f"{_label(v)}: {count(verdicts, v.name, judges_exact(spec, view))}"
            for v in _variants(spec, t)
        )
        lines.append(f"- **{t.title.split(':')[0].split(' (')[0]}**, {each}.")
    lines += [extra.rstrip("\n")] if extra else []
    rows = spec.comparison(view.results) if hasattr(spec, "comparison") else []
    if rows:
        n = status_counts(rows, EXPLANATIONS.get(spec.explain or spec.name, {}))
        main = spec.variant()
        if getattr(main, "within", "reproduces") != "reproduces":
            lines.append("\n" + _paper_settings(spec, view))
        lines.append(
            f"\nBy status, the {sum(n.values())} published cells in {_label(main)} (see *Every "
            "published cell* for each cell's reason): "
            + "; ".join(f"{s}: {k}" for s, k in n.items())
            + "."
        )
    return "## Summary\n\n" + "\n".join(lines) + "\n"


def _paper_settings(spec: PaperSpec, view: View) -> str:
    """How many published cells *reproduce* with the paper's stated settings (its first variant)."""
    paper = next((v for v in spec.variants if v.within == "reproduces"), None)
    if paper is None:
        return "No variant runs the paper's stated settings: no cell can *reproduce*."
    got = [
        v[paper.name]
        for t in (s for s in spec.sections if isinstance(s, Table))
        for v in table_rows(spec, view, t)[1]
        if paper.name in v and v[paper.name] != "–"
    ]
    ok = sum(x in ("exact", "within 1σ", "within 2σ") for x in got)
    return (
        f"With the paper's stated settings ({paper.label}), {ok} of {len(got)} published cells "
        "*reproduce* (within 2σ); the counts below are for the main variant, whose cells within "
        "2σ reproduce only with its declared setting."
    )


def _label(variant: Any) -> str:
    """A variant's label, marked when its setting is post hoc (chosen on the scored runs)."""
    within = getattr(variant, "within", "reproduces")
    return variant.label + (
        " (post hoc: chosen on the scored runs)" if within == "post hoc" else ""
    )


# ---------------------------------------------------------------------- figures, runtime
def _figure(view: View, f: Figure) -> list[Part]:
    """A :class:`Figure` resolved: its record (the points of each drawn line) and its table."""
    panels = f.panels(view) if callable(f.panels) else f.panels
    rows, sizes, drawn = [], set(), []
    for ds in panels:
        lines = []
        for line in f.lines:
            metric = (line.metric or f.metric).format
            pts = [(x, line.scale * view.values(ds, line.method, line.params(ds, x), metric(x=x)))
                   for x in f.x]  # fmt: skip
            sizes |= {v.size for _, v in pts if v.size}
            means = {x: float(v.mean()) for x, v in pts if v.size}
            if means and line.draw:
                lines.append({
                    "label": line.label, "style": line.style, "color": line.color,
                    "x": list(means), "y": list(means.values()),
                    "yerr": [float(v.std(ddof=1)) if v.size > 1 else 0.0 for _, v in pts if v.size]
                    if f.spread else None,
                })  # fmt: skip
            cell = {x: mean_std(v) if f.spread else f"{v.mean():.1f}" for x, v in pts if v.size}
            if line.row is not None and means:
                rows.append([ds, *line.row, *(cell.get(x, "–") for x in f.x)])
        drawn.append({"title": ds, "lines": lines})
    lo, hi = (min(sizes), max(sizes)) if sizes else (0, 0)
    runs = f"{lo} runs" if lo == hi else f"{lo} to {hi} runs"  # what this figure's points had
    record = {"name": f.name, "caption": f.caption.format(runs=runs), "panels": drawn,
              "marker": f.marker, "xscale": f.xscale, "xlabel": f.xlabel, "ylabel": f.ylabel}  # fmt: skip
    note = f"\n{f.note}\n" if f.note else ""
    head = [*f.row_head, *(f"{x:g}" for x in f.x)]
    table: list[Part] = ["\n", _table_part(rows, head), "\n"] if rows else []
    if not rows and any(line.row for line in f.lines):
        table = ["\nNo point of the figure was run.\n"]
    return [f"## {f.title.format(runs=view.runs())}\n\n", {"figure": record}, note, *table]


def _curves(view: View, c: Curves) -> list[Part]:
    """:class:`Curves` resolved: each panel's mean curves (x, y per label), or why none is drawn."""
    sizes, panels = set(), []
    for ds in c.panels:
        drawn = []
        for m, label in c.methods.items():
            g = view.groups.get(view.key(*c.cell(ds, m)))
            if g is not None and "curve_rows" in g and not g["curve_rows"].isna().any():
                rows = np.asarray(g["curve_rows"].iloc[0], dtype=float)
                rate = np.mean([np.asarray(r, dtype=float) for r in g[c.metric]], axis=0)
                drawn.append([label, rows.tolist(), rate.tolist()])
                sizes.add(len(g))
        panels.append({"title": c.titles.get(ds, ds), "curves": drawn})
    if not sizes:  # a quick run can leave out every panel: no empty figure "of 0 runs"
        return [f"## {c.title}\n\nNot drawn: none of its curves ran in these results.\n"]
    lo, hi = min(sizes), max(sizes)
    runs = f"{lo} runs" if lo == hi else f"{lo} to {hi} runs"  # what this figure's curves had
    record = {"name": c.name, "caption": c.caption.format(runs=runs), "panels": panels,
              "clip": c.clip, "xlabel": c.xlabel, "ylabel": c.ylabel}  # fmt: skip
    return [f"## {c.title}\n\n", {"curves": record}]


def runtime(view: View) -> str:
    """Worker seconds, rows learnt and the compiled loop's rows per second."""
    res = view.results
    if res.empty or "seconds" not in res:
        return ""
    if "n_rows" not in res:  # batch cells (no stream of rows): the seconds per method
        per = res.dropna(subset=["seconds"]).groupby("method")["seconds"].agg(["count", "sum"])
        note = getattr(view.spec, "runtime_note", "")
        rows_ = [[m, int(r["count"]), round(float(r["sum"]), 1)] for m, r in per.iterrows()]
        table = markdown_table(rows_, ["method", "runs", "seconds"])
        return (f"## Runtime\n\n{len(res)} runs, {res['seconds'].sum():.1f} s of worker time (wall "
                f"clock, shared cores{'; ' + note if note else ''}).\n\n{table}\n")  # fmt: skip
    rows = float(res["n_rows"].sum()) if "n_rows" in res else 0.0
    comp = float(res["compute_seconds"].sum()) if "compute_seconds" in res else 0.0
    note = getattr(view.spec, "runtime_note", "")
    return (
        f"## Runtime\n\n{len(res)} runs, {res['seconds'].sum():.1f} s of worker time "
        f"(wall clock per cell, data loading included), {rows:.3g} rows learnt; "
        f"{rows / max(comp, 1e-9):.3g} rows/s in the compiled loop (wall clock, shared cores"
        f"{'; ' + note if note else ''}).\n"
    )


def _section(spec: PaperSpec, view: View, s: Any) -> list[Part]:
    """One declared section resolved into its parts."""
    if isinstance(s, str):
        return [s]
    if isinstance(s, Table):
        return _table(spec, view, s)
    if isinstance(s, Figure):
        return _figure(view, s)
    if isinstance(s, Curves):
        return _curves(view, s)
    if isinstance(s, Results):
        return [*s.parts(view), "\n"]
    return [s(view)]


def document(spec: PaperSpec, results: pd.DataFrame, command: str) -> dict[str, Any]:
    """The report of ``spec`` on ``results`` as data: what :func:`evofeat.report.paper.render` reads.

    Every function of the declaration is called here, once; the document is
    plain JSON (numbers, strings, lists, dicts), so it can be stored beside
    the results and rendered again without the paper's module.

    >>> from types import SimpleNamespace
    >>> toy = SimpleNamespace(title="Toy", sections=("Prose.\\n", lambda view: view.runs()))
    >>> document(toy, pd.DataFrame(), "evofeat reproduce toy")["sections"]
    [['Prose.\\n'], ['0 runs'], ['']]
    """
    view = View(results, spec=spec)
    sections = [_section(spec, view, s) for s in spec.sections]
    sections += [[e.render(view)] for e in getattr(spec, "extras", ()) if isinstance(e, Adaptive)]
    if getattr(spec, "runtime", True):
        sections.append([runtime(view)])
    doc = {"title": spec.title, "command": command, "sections": sections}
    return dict(json.loads(json.dumps(doc, default=_plain)))


def _plain(value: Any) -> Any:
    """A numpy scalar or array as the Python number or list JSON writes."""
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    raise TypeError(f"a report part holds {type(value).__name__}, not JSON: {value!r}")
