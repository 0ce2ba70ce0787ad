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
from evofeat.experiments.spec import Grid, PaperSpec
from evofeat.report.paper import ANY, Col, Figure, Line, Results, View

__all__ = ["PAPER", "dataset", "measure_group_construction", "protocol_setting"]

DATASETS = ("hill-valley", "madelon", "isolet", "colon", "arcene", "colon-discretized")
DISCRETE = frozenset({"colon-discretized"})
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
_INTRO = """\
## What can be compared

The paper's Tables 1-3 and Figure 4 are lost from its text (only their captions survive; see
`shared/papers/published.md`, items 23-27), so no published number exists to set beside ours and
there is no "paper vs ours" column. What the paper states in words is checked instead: CEOFS's
accuracy is "similar to or higher than" COFS's, the online phase is fast, and the correlation
threshold has "little effect" on Isolet. The comparison below is between the methods, all run here
on the same splits, folds and column orders. The paper also compared only CEOFS and COFS; the
streaming baselines (Alpha-investing, OSFS, Fast-OSFS, SAOLA) are added by issue 7, each in its
textbook form and in LOFS's form ("(LOFS)"), the MATLAB library the streaming-feature literature
uses.
"""
_CHOICES = """\
## Choices made (the paper leaves them open)

- **Scenario.** The 80%/20% split is by *features* (the paper's "80% of the training data as
  historical data, 20% as streaming features"): `numpy.random.default_rng(repeat).permutation(d)`;
  its first `floor(0.8 d + 0.5)` entries are the historical columns (in their original order), the
  rest arrive one at a time in the permuted order (`evofeat.streams.feature_stream`). Repeat r uses
  seed r for the split, the folds and CEOFS's bootstrap.
- **Evaluation.** 10-fold stratified cross-validation (shuffled, seed = repeat). Selection runs
  *inside* each training fold (historical block, then the arriving columns of the training rows),
  so the test fold never informs the selection; classifiers are trained on the training fold's
  selected columns, standardized on the training fold. Accuracies are mean ± std over all folds of
  all repeats. A method that selects nothing predicts the training fold's majority class.
- **Classifiers.** SVM with C = 1 (the paper's) and an RBF kernel (`gamma="scale"`, scikit-learn's
  default; LIBSVM's default kernel is RBF too): the paper does not say which. A linear kernel was
  tried and dropped: with C = 1 on all 500 standardized Madelon features LIBSVM's solver needs over
  a million iterations for 1,000 rows (the reference row would have taken hours), and liblinear
  does not converge either. 3-NN: Euclidean distance on standardized features.
- **CEOFS / COFS parameters** (`evofeat.selection.CEOFS`): ensemble size m = 10 (the paper's); k of
  the feature k-means = ceil(sqrt(d_historical)); k-means runs at most 20 rounds from k random
  features; a centre moves to the member whose correlation with the centre is closest to the
  cluster's mean correlation with it (our reading of section 2.2 step 3); similarity is the signed
  correlation r (the paper's); θ = 0.5 (groups merge while they were together in more than half of
  the runs); θ2 = 0.5 (absolute correlation for an arriving feature to join a group; Fisher's
  z-test must also find it significant); θ3 = 0 with Fisher's z-test at α = 0.05 (a group is
  dropped when its representative is not significantly correlated with the label); the relevance of
  a feature is |r| with the label. COFS is the same with one k-means run on all historical rows (no
  bootstrap, no co-association).
- **Discrete data.** `colon-discretized` (values in {-2, ..., 2}) is added to exercise the discrete
  tests: CEOFS/COFS use mutual information (bits, gated by the G² test), OSFS/Fast-OSFS the G²
  test, SAOLA symmetric uncertainty. The continuous `colon` (LIBSVM) is the paper's row.
- **Baselines.** α = 0.05 and conditioning sets of at most 3 features (LOFS's defaults) for OSFS
  and Fast-OSFS; SAOLA at α = 0.05 (δ = 0 for SU); Alpha-investing with wealth 0.5 and payout 0.5.
  "Textbook" prepends a constant column to Alpha-investing and never selects constant columns;
  "(LOFS)" follows LOFS: Alpha-investing keeps the first data column as its constant term (no
  intercept otherwise), columns whose sum is exactly 0 are skipped, and SAOLA's comparisons follow
  `saola_z_test`/`saola_mi`. Baselines read the historical columns in order, then the arriving
  ones.
- **Isolet** is multiclass (26 letters) in UCI while the paper calls it binary; we use letters A-M
  against N-Z, on the only copy available, the 1,560-row ASU subset (the paper's full set has 7,797
  rows).
- **Urban Land Cover** could not be obtained (it is in no package registry this project can reach,
  and not in the shared data folder), so its row is missing.
- **Figure 4.** The "correlation threshold" is read as θ2 (the threshold that "decides the grouping
  of streaming features", section 3.3); six values 0.3-0.8 on Isolet.
"""
_DATA = """\
## Data

*relevant*: features whose correlation with the label is significant (Fisher's z-test, α = 0.05) on
a training fold, mean over folds: the pool every relevance-based selector draws from; where it is 0
(no single feature is significantly correlated with the label) every selector that starts from a
relevance test selects nothing and predicts the majority class. Isolet is made binary (letters A-M
against N-Z) on its 1,560-row subset.
"""
_GROUPS = """\
## Group construction at scale

The paper says its hierarchical clustering "could not cope" with Arcene's 10,000 features. Here the
co-association matrix is never formed as a square: its condensed form is filled in float32 by row
blocks and handed to scipy's `linkage(method="average")`, which copies it to float64 and runs in
O(d²) memory. The ensemble: bootstrap k-means runs with k = ceil(sqrt(d)) on all the features, then
scipy's average linkage. `benchmarks/bench_ceofs_arcene.py` measures the same in a fresh process
(`benchmarks/results/ceofs_arcene.md`); no `evofeat run` gives this table, which times the group
construction alone, outside any selection run.
"""


# ---------------------------------------------------------------------- what is this paper's own
def _params(ds: str, m: str, folds: Any, variant: str) -> dict[str, Any]:
    """A Table 2 cell: the folds, the historical share, the method's test, a baseline's variant."""
    params: dict[str, Any] = {"folds": folds, "historical_fraction": HISTORICAL_FRACTION}
    if (test := _test_for(m, ds)) is not None:
        params["test"] = test
    if m in BASELINES:  # the others have no variant: one cell (the grid's points coincide)
        params["variant"] = variant
    return params


def _key(ds: str, m: str, variant: str = "textbook") -> tuple[str, str, dict[str, Any]]:
    """The stored Table 2 cell, whatever its folds (a quick run makes 2)."""
    return ds, m, _params(ds, m, ANY, variant)


def _at(m: str) -> Any:
    """The cell of method ``m`` (a baseline: textbook) on the row's data set and folds."""
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
    ((ds, f"{_LABELS[m]}{' (LOFS)' if v == 'lofs' else ''}",
      "–" if m == REFERENCE else _test_for(m, ds) or "LR test of least squares"), _key(ds, m, v))
    for ds in DATASETS for m in (*SELECTOR_METHODS, REFERENCE)
    for v in (("textbook", "lofs") if m in BASELINES else ("",))
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
_QUICK = {"folds": (2,), "datasets": ("hill-valley", "colon"), "variant": ("textbook",)}
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
        "### The paper's claims, checked\n\nCEOFS against COFS on the same folds: the difference "
        "of the mean accuracies (points), the features selected and the historical groups they "
        "come from.\n",
        Results(("data set", *(f"{n}: CEOFS - COFS" for n in CLASSIFIERS.values()),
                 "features CEOFS", "features COFS", "groups CEOFS", "groups COFS"),
                tuple(((ds,), _key(ds, "ceofs")) for ds in DATASETS),
                (*(Col(f"{c}_folds", 1, 100, minus=_at("cofs")) for c in CLASSIFIERS),
                 *(c for at in (None, _at("cofs")) for c in _cols("n_selected_folds", digits=1, cell=at)),
                 *(c for at in (None, _at("cofs")) for c in _cols("n_groups_historical_folds", cell=at)))),
        _variants_differ,
        "## Table 3: time of the online phase\n\nWall-clock seconds to read all arriving columns "
        "of one training fold (mean over folds and repeats; one core per cell, "
        f"{os.cpu_count()} on the machine, cells run two at a time). Baselines: textbook variant. "
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
