"""CEOFS (Du and Li 2017) declared: Table 2 (accuracy on the selected features), Table 3 (time of
the online phase), Figure 4 (accuracy against θ2) and the group construction at Arcene's scale.

The paper's tables are lost (no published number to compare with, see ``_INTRO``); its cells run
their own runners below, through the evaluation layer, and the report is declared.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from evofeat.evaluate.footprint import measure_group_construction
from evofeat.experiments import protocols
from evofeat.experiments.base import Cell
from evofeat.experiments.sections import ANY, Col, Figure, Line, Results, View
from evofeat.experiments.spec import Grid, PaperSpec
from evofeat.papers import text

__all__ = ["PAPER", "dataset", "measure_group_construction", "protocol_setting"]

DATASETS = ("hill-valley", "madelon", "isolet", "colon", "arcene", "colon-discretized")
DISCRETE = frozenset({"colon-discretized"})
#: No feature is significantly relevant: every relevance-based selector keeps none (no comparison).
NOTHING_RELEVANT = ("hill-valley",)
SELECTOR_METHODS = ("ceofs", "cofs", "alpha-investing", "osfs", "fast-osfs", "saola")
BASELINES = ("alpha-investing", "osfs", "fast-osfs", "saola")
REFERENCE = "all-features"
N_REPEATS = 1
N_FOLDS = 10
HISTORICAL_FRACTION = 0.8
FIGURE4_THETA2 = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
CLASSIFIERS = {"svm_rbf": "SVM (RBF)", "knn3": "3-NN"}
#: A stored metric's classifier -> its name in ``evofeat run``'s ``classifier`` scenario parameter.
_CLASSIFY = {"svm_rbf": "svm", "knn3": "knn3"}
#: Label of a method in the tables.
_LABELS = dict(zip((*SELECTOR_METHODS, REFERENCE), ("CEOFS", "COFS", "Alpha-investing", "OSFS",
                   "Fast-OSFS", "SAOLA", "all features (no selection)"), strict=True))  # fmt: skip


# ---------------------------------------------------------------------- the cells' runners
def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Dense X and labels; Isolet made binary as the paper has it (letters A-M against N-Z)."""
    from evofeat.datasets import load

    ds = load(name)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
    y = np.asarray(ds.y).astype(np.int64)
    if name == "isolet":  # class codes 0-25 stand for the letters 1-26
        letter = np.asarray(getattr(ds, "classes", None) or np.arange(1, 27))[y].astype(int)
        y = np.where(letter <= 13, -1, 1)
    return X.astype(np.float64), y


def dataset(name: str) -> Any:
    """The data set as the paper's rows read it (dense; Isolet binary): ``--protocol ceofs``'s data."""
    from evofeat.datasets.dataset import Dataset

    X, y = _load(name)
    names = [f"f{j + 1}" for j in range(X.shape[1])]
    return Dataset(name, X, y, names, "binary", sorted({int(v) for v in y}), name)


def protocol_setting(name: str, learner: str) -> protocols.Setting:
    """``--protocol ceofs``: a Table 2 row (both classifiers scored on every test fold).

    The repeat seeds the split of the features, the folds and CEOFS's and COFS's bootstrap, as
    in the report's cells; ``--param variant=lofs`` gives a baseline's LOFS row and
    ``--scenario-param select=false`` the row on all features.

    >>> s = protocol_setting("colon-discretized", "osfs")
    >>> s.params, s.scenario_params["classifier"]
    ({'test': 'g2'}, ['svm', 'knn3'])
    """
    test = _test_for(learner, name)
    return protocols.Setting(
        name,
        scenario="feature-stream",
        scenario_params={
            "historical_fraction": HISTORICAL_FRACTION,
            "folds": N_FOLDS,
            "classifier": list(_CLASSIFY.values()),
        },
        params={} if test is None else {"test": test},
        loader=f"{__name__}:dataset",
    )


def _test_for(method: str, dataset: str) -> str | None:
    """The association test a method uses on a data set."""
    if method in (REFERENCE, "alpha-investing"):
        return None
    if dataset not in DISCRETE:
        return "fisher-z"
    return "g2" if method in ("osfs", "fast-osfs") else "mi"


def _selector(method: str, params: dict[str, Any], seed: int) -> Any:
    """A fresh selector with the cell's parameters (CEOFS and COFS seeded by the repeat)."""
    from evofeat.registry import make

    kwargs = {k: v for k, v in params.items() if k not in ("folds", "historical_fraction")}
    return make(method, **kwargs, **({"seed": seed} if method in ("ceofs", "cofs") else {}))


def _score(out: dict[str, Any], X: np.ndarray, y: np.ndarray, train: Any, test: Any,
           chosen: np.ndarray, suffix: str = "") -> None:  # fmt: skip
    """Append one fold's accuracy of each classifier (with no feature: the training majority
    class) and the number of features selected to ``out[f"{metric}_folds{suffix}"]``."""
    from evofeat.evaluate.batch import fold_predict

    for c, kind in _CLASSIFY.items():
        pred = fold_predict(kind, X[np.ix_(train, chosen)], y[train], X[np.ix_(test, chosen)])
        out.setdefault(f"{c}_folds{suffix}", []).append(float(np.mean(pred == y[test])))
    out.setdefault(f"n_selected_folds{suffix}", []).append(float(chosen.size))


def _split(cell: Cell) -> tuple[np.ndarray, np.ndarray, Any, dict[str, Any]]:
    """The cell's data, its split of the features and its folds (both seeded by the repeat)."""
    from evofeat.streams.feature_stream import feature_stream

    X, y = _load(cell.dataset)
    hist = cell.params.get("historical_fraction", HISTORICAL_FRACTION)
    stream = feature_stream(X, y, historical_fraction=hist, seed=cell.repeat)
    return X, y, stream, {"folds": cell.params.get("folds", N_FOLDS), "seed": cell.repeat}


def _run_selection_cell(cell: Cell) -> dict[str, Any]:
    from evofeat.evaluate.batch import n_relevant, selection_folds

    X, y, stream, folds = _split(cell)
    p = cell.params
    make = None if cell.method == REFERENCE else (lambda: _selector(cell.method, p, cell.repeat))
    res: dict[str, list[float]] = {}
    for train, test, sel, run in selection_folds(stream, y, make, **folds):
        _score(res, X, y, train, test, np.arange(X.shape[1]) if run is None else run.columns)
        got = {
            "n_relevant": n_relevant(X[train], y[train], "fisher-z", 0.05),
            "fit_seconds": run.fit_seconds if run else 0.0,
            "online_seconds": run.online_seconds if run else 0.0,
        }
        if hasattr(sel, "representatives_"):
            got.update(n_groups_historical=sel.n_groups_historical_, n_groups=sel.representatives_.size)  # fmt: skip
        for k, v in got.items():
            res.setdefault(f"{k}_folds", []).append(float(v))
    return {
        **res,
        **{k.removesuffix("_folds"): float(np.mean(v)) for k, v in res.items()},
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan,
        "n_rows": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_historical": int(stream.historical.size),
        "n_arriving": int(stream.arriving.size),
    }


def _run_threshold_cell(cell: Cell) -> dict[str, Any]:
    """CEOFS at several θ2 on one split: θ2 acts in the online phase only, so each fold's
    historical groups are built once and copied for every threshold."""
    from evofeat.evaluate.batch import selection_variants

    X, y, stream, folds = _split(cell)
    thetas = [float(t) for t in cell.params["theta2"]]
    first = {**cell.params, "theta2": thetas[0]}
    out: dict[str, Any] = {"theta2": thetas}
    for train, test, kept in selection_variants(
        stream, y, lambda: _selector(cell.method, first, cell.repeat),
        [{"theta2": t} for t in thetas], **folds,
    ):  # fmt: skip
        for t, chosen in zip(thetas, kept, strict=True):
            _score(out, X, y, train, test, chosen, f"@{t}")
    return out


def _groups_cell(cell: Cell) -> dict[str, Any]:
    X, _ = _load(cell.dataset)
    return measure_group_construction(X, n_runs=cell.params.get("n_runs", 10), seed=cell.repeat)


# ---------------------------------------------------------------------- the report's prose
_INTRO = text("ceofs", "intro.md")
_CHOICES = text("ceofs", "choices.md")
_DATA = text("ceofs", "data.md")
_GROUPS = text("ceofs", "groups.md")
_CLAIMS = text("ceofs", "claims.md")


# ---------------------------------------------------------------------- what is this paper's own
def _params(ds: str, m: str, folds: Any, variant: str) -> dict[str, Any]:
    """A Table 2 cell: the folds, the historical share, the method's test, a baseline's variant."""
    params: dict[str, Any] = {"folds": folds, "historical_fraction": HISTORICAL_FRACTION}
    if (test := _test_for(m, ds)) is not None:
        params["test"] = test
    if m in BASELINES:  # the others have no variant: one cell (the grid's points coincide)
        params["variant"] = variant
    return params


#: The rule of the baselines' rows: LOFS's code (``variant="lofs"``, exact against LOFS's MATLAB code
#: on 50 oracle runs, ``docs/reports/investigations/lofs_oracle_differ.md``), the rule the field's
#: comparisons run; the textbook rule is kept as a named variant row, "(textbook)".
BASELINE_RULE = "lofs"
#: The other rule of a baseline, shown beside it as a named variant row.
OTHER_RULE = "textbook"


def _key(ds: str, m: str, variant: str = BASELINE_RULE) -> tuple[str, str, dict[str, Any]]:
    """The stored Table 2 cell, whatever its folds (a quick run makes 2)."""
    return ds, m, _params(ds, m, ANY, variant)


def _at(m: str) -> Any:
    """The cell of method ``m`` (a baseline: its LOFS rule) on the row's data set and folds."""
    return lambda key: _key(key[0], m)


def _cols(*metrics: Any, digits: int | None = 0, **kw: Any) -> tuple[Col, ...]:
    """Columns of the metrics' means."""
    return tuple(Col(m, digits, spread=False, **kw) for m in metrics)


def _command(view: View, key: Any) -> str:
    """The ``evofeat run`` line of a stored Table 2 cell: its method, variant, folds and repeats."""
    ds, m, p = key
    g = view.group(ds, m, p)
    assert g is not None  # rows not run are left out before their command is asked for
    sp: dict[str, Any] = {"folds": g["params"].iloc[0]["folds"]}
    if m == REFERENCE:  # no selector runs: the learner named is not used
        sp["select"] = False
    return protocols.command(
        "ceofs", ds, "ceofs" if m == REFERENCE else m, int(g["repeat"].nunique()),
        params={"variant": "lofs"} if p.get("variant") == "lofs" else {}, scenario_params=sp,
    )  # fmt: skip


def _figure4_commands(view: View) -> str:
    """Figure 4's points as commands: θ2 acts in the online phase only, so a fresh run at one θ2
    selects what the figure's copy of the fitted selector did."""
    g = view.group(*_FIG4)
    if g is None:
        return ""
    folds, n = g["params"].iloc[0]["folds"], int(g["repeat"].nunique())
    return ("Each point: `" + protocols.command("ceofs", "isolet", "ceofs", n, scenario_params={"folds": folds})
            + " --param theta2=T` (T the point's θ2).\n")  # fmt: skip


def _folds(view: View) -> str:
    res = view.results
    got = sorted({p["folds"] for p in res[res["table"] == "table2"]["params"]}) if len(res) else []
    return (f"Mean ± std over {'/'.join(map(str, got))} folds x {view.n} repeat(s) (column "
            "orders); features selected per fold.\n" if got else "")  # fmt: skip


def _variants_differ(view: View) -> str:
    """Where the textbook and LOFS variants of a baseline do not select the same in every fold."""
    metrics = ("n_selected_folds", *(f"{c}_folds" for c in CLASSIFIERS))
    diff = [f"{_LABELS[m]} on {ds}" for ds in DATASETS for m in BASELINES
            if (got := [[view.values(*_key(ds, m, v), k) for k in metrics] for v in ("textbook", "lofs")])
            and got[0][0].size and got[1][0].size and not all(map(np.array_equal, *got))]  # fmt: skip
    return (f"Textbook and LOFS variants differ on: {'; '.join(diff)}. Elsewhere they select the "
            "same features in every fold.\n" if diff else "")  # fmt: skip


def _load_note(view: View) -> str:
    """How busy the machine was: wall-clock times are only comparable on a quiet machine."""
    load = view.results.get("load_average", np.zeros(0))
    load = load[np.isfinite(load)]
    return (
        "Times are wall-clock on the machine that ran the cells; jobs of other users slow them "
        "without changing any selection or accuracy."
        + (f" The one-minute load average at the end of the cells was {np.median(load):.1f} "
           f"(median; {load.min():.1f} to {load.max():.1f}) on {os.cpu_count()} cores."
           if len(load) else "") + "\n"
    )  # fmt: skip


def _spread(view: View) -> str:
    """The range of Figure 4's mean accuracy over the thresholds (the paper: "little effect")."""
    got = {n: [v.mean() for t in FIGURE4_THETA2 if (v := 100 * view.values(*_FIG4, f"{c}_folds@{t}")).size]
           for c, n in CLASSIFIERS.items()}  # fmt: skip
    return ("Range of the mean accuracy over the thresholds: "
            + ", ".join(f"{n} {np.ptp(m):.1f} points" for n, m in got.items())
            + ' (the paper: the threshold has "little effect").\n' if all(got.values()) else "")  # fmt: skip


# ---------------------------------------------------------------------- the declaration
# fmt: off
_FIG4 = ("isolet", "ceofs", {"folds": ANY, "historical_fraction": HISTORICAL_FRACTION,
                             "test": "fisher-z", "theta2": ANY})
_ROWS = tuple(
    ((ds, f"{_LABELS[m]}{' (textbook)' if v == OTHER_RULE else ''}",
      "–" if m == REFERENCE else _test_for(m, ds) or "LR test of least squares"), _key(ds, m, v))
    for ds in DATASETS for m in (*SELECTOR_METHODS, REFERENCE)
    for v in ((BASELINE_RULE, OTHER_RULE) if m in BASELINES else ("",))
)
_GROUPS_HEAD = {
    "n_rows": "rows", "n_features": "features", "n_runs": "bootstrap k-means runs",
    "seconds": "total time (s)", "seconds_kmeans": "k-means runs (s)",
    "seconds_coassociation": "co-association, condensed float32 (s)",
    "seconds_linkage": "average linkage and cut (s)",
    "condensed_mb_float32": "condensed distance, float32 (MB)",
    "traced_peak_mb": "peak memory allocated through numpy/Python (MB, tracemalloc)",
    "rss_peak_mb": "rise of the resident-set peak (MB, includes scipy's C buffers)",
    "n_groups": "groups", "largest_group": "largest group", "singletons": "singleton groups",
}
_FOLDS = {"folds": (N_FOLDS,)}
_QUICK = {"folds": (2,), "datasets": ("hill-valley", "colon"), "variant": (BASELINE_RULE,)}
PAPER = PaperSpec(
    name="ceofs",
    title="Online feature selection based on feature clustering ensemble technology (Du and Li 2017)",
    paper_repeats="",
    repeats=N_REPEATS,
    quick_repeats=1,
    grids=(
        Grid("table2", DATASETS, (*SELECTOR_METHODS, REFERENCE),
             {**_FOLDS, "variant": ("textbook", "lofs")}, _params, _QUICK),
        Grid("figure4", ("isolet",), ("ceofs",), {**_FOLDS, "theta2": (FIGURE4_THETA2,)},
             lambda ds, m, folds, theta2: {**_FIG4[2], "folds": folds, "theta2": list(theta2)},
             {"folds": (2,), "theta2": ((0.5, 0.7),)}),
        Grid("groups", ("arcene",), ("ceofs-groups",), {"n_runs": (10,)}, None,
             {"datasets": ("hill-valley",)}),
    ),
    variants=(),
    sections=(
        _INTRO,
        _CLAIMS,
        _DATA,
        Results(("data set", "values", "rows", "features", "historical", "arriving", "relevant"),
                tuple(((ds, "discrete" if ds in DISCRETE else "continuous"), _key(ds, REFERENCE))
                      for ds in DATASETS),
                _cols("n_rows", "n_features", "n_historical", "n_arriving", "n_relevant_folds")),
        "## Table 2: accuracy (%) on the selected features\n",
        _folds,
        "Each row's command gives its numbers (`fold_accuracy_svm`, `fold_accuracy_knn3` and "
        "`fold_n_selected` in its summary: mean ± std over every test fold), bit for bit: the "
        "command and the reproduction both run with one BLAS thread (with more, sums taken in "
        "another order change a feature of CEOFS's and COFS's selections on Isolet).\n",
        Results(("data set", "method", "test", *CLASSIFIERS.values(), "features"), _ROWS,
                (*(Col(f"{c}_folds", 1, 100) for c in CLASSIFIERS), Col("n_selected_folds")),
                command=_command),
        "### The paper's claims, checked: CEOFS against COFS\n\nOn the same folds: the difference "
        "of the mean accuracies (points), the features selected and the historical groups they "
        "come from (the verdicts are under *The paper's claims: verdicts*). "
        f"{', '.join(NOTHING_RELEVANT)}: nothing relevant, no comparison (every relevance-based "
        "selector keeps no feature there).\n",
        Results(("data set", *(f"{n}: CEOFS - COFS" for n in CLASSIFIERS.values()),
                 "features CEOFS", "features COFS", "groups CEOFS", "groups COFS"),
                tuple(((ds,), _key(ds, "ceofs")) for ds in DATASETS if ds not in NOTHING_RELEVANT),
                (*(Col(f"{c}_folds", 1, 100, minus=_at("cofs")) for c in CLASSIFIERS),
                 *(c for at in (None, _at("cofs")) for c in _cols("n_selected_folds", digits=1, cell=at)),
                 *(c for at in (None, _at("cofs")) for c in _cols("n_groups_historical_folds", cell=at)))),
        _variants_differ,
        "## Table 3: time of the online phase\n\nWall-clock seconds to read all arriving columns "
        "of one training fold (mean over folds and repeats; one core per cell, "
        f"{os.cpu_count()} on the machine, cells run two at a time). Baselines: LOFS's rules. "
        "The historical phase of CEOFS (group construction and representatives) is shown for "
        "scale. The times come from the Table 2 rows' runs, so each row's command there gives "
        "them too (`fit_seconds`, `online_seconds` in its summary: sums over the folds); they are "
        "wall-clock, so a rerun gives others, and no cell here has a command of its own.\n",
        Results(("data set", "arriving", *(f"{_LABELS[m]} (s)" for m in SELECTOR_METHODS),
                 "CEOFS ms/feature", "CEOFS historical phase (s)"),
                tuple(((ds,), _key(ds, "ceofs")) for ds in DATASETS),
                (*_cols("n_arriving"),
                 *(c for m in SELECTOR_METHODS for c in _cols("online_seconds_folds", digits=None, cell=_at(m))),
                 *_cols(lambda view, k: 1000 * view.values(*k, "online_seconds_folds")
                        / view.values(*k, "n_arriving").mean(), "fit_seconds_folds", digits=None))),
        _load_note,
        Figure("figure4", "Figure 4: accuracy against the correlation threshold (Isolet)",
               "Figure 4: CEOFS accuracy (mean ± std over folds) against θ2 on Isolet",
               ("isolet",), FIGURE4_THETA2,
               (*(Line(n, "ceofs", lambda ds, x: _FIG4[2], row=(n,), metric=f"{c}_folds@{{x}}",
                       scale=100) for c, n in CLASSIFIERS.items()),
                Line("features", "ceofs", lambda ds, x: _FIG4[2], row=("features",),
                     metric="n_selected_folds@{x}", draw=False)),
               xlabel="correlation threshold θ2", ylabel="CEOFS accuracy (%)",
               row_head=("data", "θ2"), marker="o", spread=True),
        _spread,
        _figure4_commands,
        _GROUPS,
        Results(("data set", *_GROUPS_HEAD.values()),
                tuple(((ds,), (ds, "ceofs-groups", {"n_runs": 10})) for ds in ("arcene", "hill-valley")),
                (*_cols("n_rows", "n_features", "n_runs"),
                 *_cols("seconds", "seconds_kmeans", "seconds_coassociation", "seconds_linkage", digits=1),
                 *_cols(*list(_GROUPS_HEAD)[7:])),
                transpose=True),
        _CHOICES,
    ),
    published_cells=list,
    lookup=lambda pub, variant: ("", "", {}),
    setting=lambda cell: protocols.Setting(cell.dataset),
    runs={"table2": _run_selection_cell, "figure4": _run_threshold_cell, "groups": _groups_cell},
    data_of=lambda cell: (cell.dataset,),
    runtime=False,
)
# fmt: on
