"""OPID (Hou and Zhou), declared: Table 2, Figures 2 and 3 on the data sets available.

Every cell is one learner (SVM, SVM(s), SVM(a), OPIDe, OPID) on one seeded
draw of the incdec scenario of Section 4 at one batch size n_i, so the
learners of a repetition share the same rows and the t-tests are paired.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np

from evofeat.experiments import protocols
from evofeat.experiments.base import Cell
from evofeat.experiments.sections import Col, Figure, Line, Results, Table, summary
from evofeat.experiments.spec import Grid, PairSpec, PaperSpec, Published, Variant
from evofeat.papers import text
from evofeat.report import published

__all__ = ["PAPER", "SETTINGS", "Setting", "protocol_setting"]

METHODS = ("svm", "svm-s", "svm-a", "opide", "opid")
PAPER_NAME = {"svm": "SVM", "svm-s": "SVM(s)", "svm-a": "SVM(a)", "opide": "OPIDe", "opid": "OPID"}
#: Repetitions (the paper does not state its number): Table 2, Figure 2 and the diagnosis.
REPEATS = 10
#: Repetitions of Figure 3 and of the sensitivity study.
FIG3_REPEATS = 5
SENS_REPEATS = 3
FIG3_SURVIVED = (0.1, 0.3, 0.5, 0.7, 0.9)
FIG3_QUICK = (0.2, 0.5, 0.8)  # on Splice
FIG3_SETS = ("dna", "usps0vs5", "satimage")
SENS_SETS = ("dna", "splice")
SENS_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
DIAGNOSTICS = ("cstage", "opid-z")  # evaluate.batch.INCDEC_DIAGNOSTICS: C-stage alone, no X_a
#: The paper's markers: on a column, OPIDe's then OPID's paired t-test against it.
MARKS = {**{m: ("opide", "opid") for m in METHODS[:3]}, "opide": ("opid",)}


@dataclass(frozen=True)
class Setting:
    """One row of the paper's Table 1, as we run it.

    >>> s = SETTINGS["dna"]
    >>> s.split, s.n_cstage, s.n_i
    ((50, 80, 50), 1200, (60, 120, 240, 300))
    """

    source: str  # registry name
    classes: tuple[int, ...] | None  # original labels kept (None: all)
    split: tuple[float, float, float]  # (d_v, d_s, d_a): counts or fractions
    n_cstage: int
    n_i: tuple[int, ...]
    table1: str  # name in the paper's Table 1
    table2: str | None  # name in the paper's Table 2 (None: the set is in Figure 2)
    drop_constant: bool = False


# fmt: off
SETTINGS: dict[str, Setting] = {  # source, classes, split, n_cstage, n_i, Table 1, Table 2 names
    "mnist0vs5": Setting("mnist", (0, 5), (0.25, 0.5, 0.25), 960, (40, 80, 160, 320), "Mnist0vs5",
                         "Mnist 0vs5", drop_constant=True),
    "mnist0vs3vs5": Setting("mnist", (0, 3, 5), (0.25, 0.5, 0.25), 1440, (60, 120, 240, 480),
                            "Mnist0vs3vs5", "Mnist 0vs3vs5", drop_constant=True),
    "dna": Setting("dna", None, (50, 80, 50), 1200, (60, 120, 240, 300), "DNA", "DNA"),
    "splice": Setting("splice", None, (10, 40, 10), 2240, (40, 80, 160, 320), "Splice", "Splice"),
    "usps0vs5": Setting("usps", (0, 5), (64, 128, 64), 960, (20, 40, 60, 80), "USPS0vs5", None),
    "usps0vs3vs5": Setting("usps", (0, 3, 5), (64, 128, 64), 1440, (30, 60, 90, 120),
                           "USPS0vs3vs5", None),
    "satimage": Setting("satimage", (1, 2, 3), (10, 18, 8), 1080, (30, 60, 90, 120), "Satimage",
                        None),
}
# fmt: on
_T1 = {r["dataset"]: r for r in published("opid")["table1"]}
#: How a registry set holds MNIST (the data table's wording).
_SPLIT = {"mnist": "test split only", "mnist-full": "train + test"}


def _fuller(key: str) -> str | None:
    """The registered set extending the setting's source whose files are here (mnist-full), else None.

    >>> _fuller("dna") is None
    True
    """
    from evofeat.datasets.catalogue import fullest

    source = SETTINGS[key].source
    name = fullest(source).name
    return None if name == source else name


def _params(key: str, **params: Any) -> dict[str, Any]:
    """A cell's parameters on set ``key``; ``"data"`` names the fuller set when the cells use it.

    A results store made on MNIST's test split and a rerun with mnist-full here
    then share no cell key; without mnist-full the keys are the parameters alone.

    >>> _params("dna", n_i=60)
    {'n_i': 60}
    """
    full = _fuller(key) if key in SETTINGS else None
    return {**params, "data": full} if full else params


def _setting(key: str, data: str | None = None) -> Setting:
    """The Table 1 row as run on registry set ``data``: on a fuller set, the paper's C-stage rows.

    >>> _setting("mnist0vs5").n_cstage, _setting("mnist0vs5", "mnist-full").n_cstage
    (960, 3200)
    """
    s = SETTINGS[key]
    if data in (None, s.source):
        return s
    return replace(s, n_cstage=int(_T1[s.table1]["sum_n_i_C_stage"]))


def _rows_from(key: str) -> str:
    """The data table's words for where a setting's rows come from: registry set, split, rows."""
    from evofeat.datasets.catalogue import get_entry

    name = _fuller(key) or SETTINGS[key].source
    n = sum(r.n_rows or 0 for r in get_entry(name).records if r.n_features)
    return ", ".join(x for x in (f"`{name}`", _SPLIT.get(name, ""), f"{n:,} rows") if x)


def _scenario(s: Setting, n: int, survived: float | None = None) -> dict[str, Any]:
    """The incdec scenario of a Table 1 row at batch size ``n`` (Figure 3: a survived share)."""
    f = survived
    d_v, d_s, d_a = s.split if f is None else ((1 - f) / 2, float(f), (1 - f) / 2)
    return {"d_v": d_v, "d_s": d_s, "d_a": d_a, "batch_size": n, "n_cstage": s.n_cstage,
            "n_estage": n}  # fmt: skip


def protocol_setting(name: str, learner: str) -> protocols.Setting:
    """``--protocol opid``: the paper's Table 1 row (feature split, C-stage rows, the smallest n_i).

    >>> protocol_setting("dna", "opid").scenario_params["n_cstage"]
    1200
    """
    s = _setting(name, _fuller(name))
    return protocols.Setting(
        name,
        preprocess="minmax",
        scenario="incdec",
        scenario_params=_scenario(s, s.n_i[0]),
        loader=f"{__name__}:dataset",
        seeds=f"{__name__}:repeat_seed",
    )


def _data(key: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the setting's classes, constant columns dropped if asked, min-max to [0, 1].

    MNIST: train + test (``mnist-full``, 70,000 rows, as the paper) once the training split is
    downloaded, else the test split alone.
    """
    return _load(key, _fuller(key) or SETTINGS[key].source)


@cache
def _load(key: str, data: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_data` read from registry set ``data`` (the setting's source or a fuller set)."""
    from evofeat.datasets import load, preprocess

    s = SETTINGS[key]
    ds = load(data)
    names = np.asarray([str(c) for c in ds.classes]) if ds.task == "multiclass" else None
    labels = ds.y if names is None else names[ds.y]
    keep = (
        np.ones(ds.n_rows, bool)
        if s.classes is None
        else np.isin(labels, [str(c) for c in s.classes])
    )
    X = ds.X[np.flatnonzero(keep)]
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    if s.drop_constant:
        X = X[:, X.max(0) > X.min(0)]
    return np.asarray(preprocess(X, "minmax")), ds.y[keep]


def dataset(key: str) -> Any:
    """The setting's data as a Dataset (``evofeat run --protocol opid``'s data)."""
    from evofeat.datasets.dataset import Dataset

    X, y = _data(key)
    classes = sorted({int(v) for v in y})
    task = "binary" if set(classes) <= {-1, 1} else "multiclass"
    names = [f"f{j + 1}" for j in range(X.shape[1])]
    return Dataset(key, X, y, names, task, classes, _fuller(key) or SETTINGS[key].source, "minmax")


def repeat_seed(key: str, n_i: int, repeat: int, survived: float | str = "") -> int:
    """Seed of a repetition: the same for every learner (paired tests), set by data and setting."""
    tag = f"{key}|{n_i}|{survived}"
    return int(np.random.SeedSequence([zlib.crc32(tag.encode()), repeat]).generate_state(1)[0])


def _run(cell: Cell) -> dict[str, Any]:
    """One learner on one seeded draw of the incdec scenario (single-threaded BLAS).

    The data is the cell's own (``"data"``, else the setting's source), whatever is here now.
    The matrices are small, where multi-threaded BLAS only costs time, badly
    so on shared cores: cells run in parallel instead.
    """
    from threadpoolctl import threadpool_limits

    from evofeat.evaluate.batch import incdec_once

    p = cell.params
    data = p.get("data", SETTINGS[cell.dataset].source)
    X, y = _load(cell.dataset, data)
    scenario = _scenario(_setting(cell.dataset, data), p["n_i"], p.get("survived"))
    extra: dict[str, Any] = {k: p[k] for k in ("consistency", "l2") if k in p}
    attrs = {"weights_": "w1", "estage_l2_": "gamma"}
    with threadpool_limits(limits=1):
        seed = repeat_seed(cell.dataset, p["n_i"], cell.repeat, p.get("survived", ""))
        return incdec_once(cell.method, X, y, scenario, seed, extra, attrs)


@cache
def _published_cells() -> list[Published]:
    """Table 2's cells; the printed cell keeps the paper's markers (OPIDe's, then OPID's test)."""
    method = {v: k for k, v in PAPER_NAME.items()}
    return [Published("table2", r["dataset"], method[r["algorithm"]], r["algorithm"],
                      {"n_i": r["n_i"]}, r["accuracy_mean"], r["accuracy_std"],
                      f"{r['accuracy_mean']:.4f} ± {r['accuracy_std']:.4f} {r['markers'] or ''}".strip(),
                      f"n_i={r['n_i']}") for r in published("opid")["table2"]]  # fmt: skip


def _key_of(paper_name: str) -> str:
    return next((k for k, s in SETTINGS.items() if s.table2 == paper_name), "")


def _lookup(pub: Published, variant: str) -> tuple[Any, ...]:
    key = _key_of(pub.dataset)
    return key, pub.method, _params(key, n_i=pub.setting["n_i"]), "accuracy"


def _command(pub: Published, v: Variant, repeats: int) -> str:
    """``evofeat run --protocol opid`` at the cell's n_i ("" for a set not held here)."""
    key, n = _key_of(pub.dataset), pub.setting["n_i"]
    sp = {"batch_size": n, "n_estage": n}
    return protocols.command("opid", key, pub.method, repeats, scenario_params=sp) if key else ""


def _pairs() -> list[PairSpec]:
    """OPIDe and OPID against the other learners on the same draws, with the paper's outcome.

    On the paper's record of learner m, ``vs_opide`` / ``vs_opid`` is OPIDe's / OPID's outcome.
    """
    pub = {(r["dataset"], r["n_i"], r["algorithm"]): r for r in published("opid")["table2"]}
    out = []
    for key, s in SETTINGS.items():
        for n in s.n_i:
            for row, m in ((r, m) for r in ("opide", "opid") for m in METHODS[: 3 + (r == "opid")]):
                rec = pub.get((s.table2, n, PAPER_NAME[m]), {})
                out.append(PairSpec("table2" if s.table2 else "figure2", f"{key} n_i={n}",
                                    PAPER_NAME[row], PAPER_NAME[m], (key, row, _params(key, n_i=n)),
                                    (key, m, _params(key, n_i=n)), "accuracy",
                                    rec.get(f"vs_{row}") or ""))  # fmt: skip
    return out


# ---------------------------------------------------------------------- the report's pieces
def _at(method: str) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    return lambda key: (key[0], method, key[2])  # the method's cell at a row's data and params


def _wide(rows: Callable[[], Any], methods: tuple[str, ...],
          head: tuple[str, ...] = ("data", "n_i"),
          marks: dict[str, tuple[str, ...]] = MARKS) -> Results:  # fmt: skip
    """Accuracy, a row per (labels, data set, parameters) of ``rows()``, a column per learner.

    The rows are built when the report is rendered (their parameters follow :func:`_params`).
    """
    cols = tuple(Col("accuracy", 4, cell=_at(m), marks=marks.get(m, ())) for m in methods)
    return Results((*head, *(_LABEL.get(m, m) for m in methods)),
                   lambda view: [(label, (k, methods[0], p)) for label, k, p in rows()], cols)  # fmt: skip


def _ran(table: str, default: tuple[str, ...]) -> Callable[[Any], tuple[str, ...]]:
    """A figure's panels: the sets with cells of ``table`` in this run (else ``default``)."""

    def panels(view: Any) -> tuple[str, ...]:
        res = view.results
        ran = set(res.loc[res["table"] == table, "dataset"]) if "table" in res else set()
        return tuple(k for k in SETTINGS if k in ran) or default

    return panels


def _at_n(keys: Any) -> tuple[Any, ...]:
    """Rows (name, n_i) of each set's every n_i."""
    return tuple(((SETTINGS[k].table2 or SETTINGS[k].table1, n), k, _params(k, n_i=n))
                 for k in keys for n in SETTINGS[k].n_i)  # fmt: skip


def _curves(name: str, title: str, caption: str, keys: Any, x: tuple[Any, ...] = (),
            params: Callable[[str, Any], dict[str, Any]] | None = None, xlabel: str = "n_i",
            ) -> Figure:  # fmt: skip
    """Mean accuracy ± std of the five learners against ``x`` (default: n_i), a panel per set."""
    x = x or tuple(sorted({n for k in keys for n in SETTINGS[k].n_i}))
    lines = tuple(Line(PAPER_NAME[m], m, params or (lambda ds, n: _params(ds, n_i=n)))
                  for m in METHODS)  # fmt: skip
    return Figure(name, title, caption, keys, x, lines, xlabel, "test accuracy",
                  metric="accuracy", marker="o", spread=True)  # fmt: skip


T2_SETS = tuple(k for k, s in SETTINGS.items() if s.table2)
F2_SETS = tuple(k for k, s in SETTINGS.items() if not s.table2)
_SENS = tuple({"consistency": v} for v in SENS_GRID) + tuple(
    {"l2": v} for v in SENS_GRID if v != 1.0
)
_PAPER_WTL = "; ".join(
    f"{r['row_method']} against {r['column_method']} {r['printed']}"
    for r in published("opid")["win_tie_loss"]
    if r["win"] is not None
)

_INTRO = text("opid", "intro.md")
#: The MNIST bullet: the test split alone (cut C-stage), or train + test (the paper's rows).
_MNIST = {False: text("opid", "mnist_test_split.md"), True: text("opid", "mnist_full.md")}

_CHOICES = text("opid", "choices.md")


_LABEL = {**PAPER_NAME, "opid-z": "OPID without X_a", "cstage": "C-stage only"}
_WHY = text("opid", "why.md")
_WHY_MNIST = {
    False: "with the test split only, our C-stage has 3.3 times fewer rows than the paper's, and ",
    True: "on the test split alone (the earlier runs), ",
}
_MARKED = text("opid", "marked.md")
_DIAGNOSIS = text("opid", "diagnosis.md")


QUICK_SETS = ("dna", "splice")
_NO_QUICK = {"datasets": ()}


def _table1_rows() -> list[Any]:
    """The data table's rows: the paper's Table 1 row, where we use it, the data read, our sizes."""
    return [((s.table1, (r := _T1[s.table1])["c"],
              f"{r['sum_n_i_C_stage']}; {r['d_v']}/{r['d_s']}/{r['d_a']}",
              f"{f'Table 2 ({s.table2})' if s.table2 else 'Figure 2'}; n_i = "
              + ", ".join(map(str, s.n_i)), _rows_from(k)), (k, "svm", _params(k, n_i=s.n_i[0])))
            for k, s in SETTINGS.items()]  # fmt: skip


def _at_ni(ds: str, method: str, n_i: int) -> dict[str, Any]:
    return _params(ds, n_i=n_i)


def _by_key() -> tuple[Grid, ...]:
    """Per data set: its Table 2 or Figure 2 cells (every n_i), the diagnosis and sensitivity."""
    out = []
    for k, s in SETTINGS.items():
        quick = {"n_i": s.n_i[:2]} if k in QUICK_SETS else _NO_QUICK
        out.append(Grid("table2" if s.table2 else "figure2", (k,), METHODS, {"n_i": s.n_i}, _at_ni,
                        quick))  # fmt: skip
        if k in SENS_SETS:
            out += [Grid("diagnosis", (k,), DIAGNOSTICS, {"n_i": s.n_i}, _at_ni, _NO_QUICK),
                    Grid("sensitivity", (k,), ("opide", "opid", "cstage"), {"g": _SENS},
                         lambda ds, m, g, n0=s.n_i[0]: _params(ds, n_i=n0, **g), _NO_QUICK,
                         SENS_REPEATS)]  # fmt: skip
    return tuple(out)


# fmt: off
PAPER = PaperSpec(
    name="opid",
    title="One-Pass Learning with Incremental and Decremental Features (OPID)",
    paper_repeats="not stated",
    repeats=REPEATS,
    quick_repeats=2,
    shared_cells=False,
    grids=(
        *_by_key(),
        Grid("figure3", FIG3_SETS, METHODS, {"survived": FIG3_SURVIVED},
             lambda ds, m, survived: _params(ds, n_i=SETTINGS[ds].n_i[0], survived=survived),
             {"datasets": ("splice",), "survived": FIG3_QUICK}, FIG3_REPEATS),
    ),
    variants=(Variant("opid", "ours", "ours", "opid"),),
    sections=(
        lambda view: _INTRO + _MNIST[_fuller("mnist0vs5") is not None],
        lambda view: summary(view.spec, view) + "\n" + _WHY.format(mnist=_WHY_MNIST[
            _fuller("mnist0vs5") is not None]),
        "## Table 1: the settings\n\nThe paper's rows beside the sizes our runs used "
        "(Gisette, SensIT Vehicle and Protein are not here).\n",
        Results(("data", "c", "paper: sum n_i; d_v/d_s/d_a", "where", "rows from", "ours: sum n_i",
                 "d_v", "d_s", "d_a"), lambda view: _table1_rows(),
                tuple(Col(c, 0, spread=False) for c in ("n_cstage", "d_v", "d_s", "d_a"))),
        f"## Table 2: test accuracy, ours in the paper's layout\n\nMean ± std. {_MARKED}\n",
        _wide(lambda: _at_n(T2_SETS), METHODS),
        Table("table2", "Table 2: the paper beside ours ({runs})", ("data", "n_i", "algorithm"),
              "The paper's cells as printed, with its markers (OPIDe's, then OPID's test; its ○ "
              f"is both tie and worse). The paper's own win/tie/loss rows, over its 6 data sets "
              f"(24 cells): {_PAPER_WTL}.", digits=4, per="algorithm"),
        _DIAGNOSIS,
        _wide(lambda: _at_n(SENS_SETS), ("opide", "opid", "opid-z", "cstage", "svm-a"),
              marks={"opid": ("opid-z",)}),
        _curves("figure2", "Figure 2: test accuracy against n_i",
                "Figure 2: test accuracy against n_i (USPS0vs5, USPS0vs3vs5, Satimage; Protein "
                "is not available). Mean ± std over {runs}.", F2_SETS),
        f"Our numbers (the paper's values are only in its plot). {_MARKED}\n",
        _wide(lambda: _at_n(F2_SETS), METHODS),
        _curves("figure2_table2_sets", "Figure 2 drawn on Table 2's data sets",
                "Table 2's data sets drawn the same way (mean ± std over {runs}).", T2_SETS),
        _curves("figure3", "Figure 3: share of survived features",
                "Figure 3: test accuracy against the share f_s of survived features (the middle "
                "columns; smallest n_i of each data set; vanished and augmented features share "
                "the rest equally, as the paper describes). The paper's Figure 3 uses SensIT "
                "Vehicle and Gisette, which are not available. Mean ± std over {runs}.",
                _ran("figure3", FIG3_SETS), tuple(sorted({*FIG3_SURVIVED, *FIG3_QUICK})),
                lambda ds, f: _params(ds, n_i=SETTINGS[ds].n_i[0], survived=f), "survived share"),
        f"## Sensitivity to the C-stage's lambda and rho\n\nSmallest n_i, {SENS_REPEATS} "
        "repetitions; lambda varies with rho = 1, then rho with lambda = 1. `C-stage only`: the "
        "C-stage model on the survived features, argmax of Z, no E-stage training.\n",
        _wide(lambda: tuple(((SETTINGS[k].table1, SETTINGS[k].n_i[0],
                              "lambda" if "consistency" in g else "rho (lambda = 1)", *g.values()),
                             k, _params(k, n_i=SETTINGS[k].n_i[0], **g))
                            for k in SENS_SETS for g in _SENS),
              ("opide", "opid", "cstage"), ("data", "n_i", "parameter", "value"), {}),
        _CHOICES,
    ),
    published_cells=_published_cells,
    lookup=_lookup,
    setting=lambda cell: protocol_setting(cell.dataset, cell.method),
    runs={t: _run for t in ("table2", "figure2", "figure3", "diagnosis", "sensitivity")},
    commands=_command,
    pair_specs=_pairs,
    higher_is_better=True,
    data_of=lambda cell: ((cell.params.get("data", SETTINGS[cell.dataset].source),)
                          if cell.dataset in SETTINGS else ()),
    runtime_note="fitting and predicting inside each cell, data loading excluded",
)
# fmt: on
