"""OPID (Hou and Zhou): Table 2, Figures 2 and 3, on the data sets available.

``evofeat reproduce opid`` runs, for every data set of the paper's Table 1
that is available, the incdec scenario of Section 4 at every batch size n_i
with the five learners (SVM, SVM(s), SVM(a), OPIDe, OPID), repeated; it
writes Table 2 (paper beside ours, with our paired t-tests), the win/tie/loss
rows, Figure 2 (accuracy against n_i), Figure 3 (accuracy against the share
of survived features) and a sensitivity study of the C-stage's lambda and
rho. Every cell is one learner on one seeded draw of the scenario, so the
learners of a repetition share the same rows and the t-tests are paired.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.evaluate.stats import paired_outcome
from evofeat.experiments import protocols
from evofeat.experiments.base import Cell
from evofeat.experiments.spec import Grid, PairSpec, PaperSpec, Published, Variant
from evofeat.report import diff_in_std, markdown_table, mean_std, published, save_figure
from evofeat.report.figures import new_figure
from evofeat.report.paper import section

__all__ = ["PAPER", "SETTINGS", "Setting", "protocol_setting"]

METHODS = ("svm", "svm-s", "svm-a", "opide", "opid")
PAPER_NAME = {"svm": "SVM", "svm-s": "SVM(s)", "svm-a": "SVM(a)", "opide": "OPIDe", "opid": "OPID"}
#: Repetitions (the paper does not state its number): Table 2, Figure 2 and the diagnosis.
REPEATS = 10
#: Repetitions of Figure 3 and of the sensitivity study.
FIG3_REPEATS = 5
SENS_REPEATS = 3
FIG3_SURVIVED = (0.1, 0.3, 0.5, 0.7, 0.9)
FIG3_SETS = ("dna", "usps0vs5", "satimage")
SENS_SETS = ("dna", "splice")
SENS_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
SYMBOL = {"win": "●", "tie": "○", "loss": "▼"}
#: Diagnostic learners: the C-stage model alone (argmax of Z), and OPID without X_a.
DIAGNOSTICS = ("cstage", "opid-z")  # evaluate.batch.INCDEC_DIAGNOSTICS


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


SETTINGS: dict[str, Setting] = {
    "mnist0vs5": Setting(
        "mnist",
        (0, 5),
        (0.25, 0.5, 0.25),
        960,
        (40, 80, 160, 320),
        "Mnist0vs5",
        "Mnist 0vs5",
        drop_constant=True,
    ),
    "mnist0vs3vs5": Setting(
        "mnist",
        (0, 3, 5),
        (0.25, 0.5, 0.25),
        1440,
        (60, 120, 240, 480),
        "Mnist0vs3vs5",
        "Mnist 0vs3vs5",
        drop_constant=True,
    ),
    "dna": Setting("dna", None, (50, 80, 50), 1200, (60, 120, 240, 300), "DNA", "DNA"),
    "splice": Setting("splice", None, (10, 40, 10), 2240, (40, 80, 160, 320), "Splice", "Splice"),
    "usps0vs5": Setting("usps", (0, 5), (64, 128, 64), 960, (20, 40, 60, 80), "USPS0vs5", None),
    "usps0vs3vs5": Setting(
        "usps", (0, 3, 5), (64, 128, 64), 1440, (30, 60, 90, 120), "USPS0vs3vs5", None
    ),
    "satimage": Setting(
        "satimage", (1, 2, 3), (10, 18, 8), 1080, (30, 60, 90, 120), "Satimage", None
    ),
}
UNAVAILABLE = {
    "Gisette": "not in the shared data folder (Table 2)",
    "SensIT Vehicle": "not in the shared data folder (Table 2, Figure 3)",
    "Protein": "not in the shared data folder (Figure 2)",
}


def protocol_setting(name: str, learner: str) -> protocols.Setting:
    """``--protocol opid``: the paper's Table 1 row (feature split, C-stage rows, the smallest n_i).

    >>> protocol_setting("dna", "opid").scenario_params["n_cstage"]
    1200
    """
    s = SETTINGS[name]
    d_v, d_s, d_a = s.split
    n = s.n_i[0]
    return protocols.Setting(
        name,
        preprocess="minmax",
        scenario="incdec",
        scenario_params={
            "d_v": d_v,
            "d_s": d_s,
            "d_a": d_a,
            "batch_size": n,
            "n_cstage": s.n_cstage,
            "n_estage": n,
        },
        loader=f"{__name__}:dataset",
        seeds=f"{__name__}:repeat_seed",
    )


@cache
def _data(key: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the setting's classes, constant columns dropped if asked, min-max to [0, 1].

    MNIST: train + test (``mnist-full``, 70,000 rows, as the paper) once the training split is
    downloaded, else the test split alone (``load(..., fullest=True)``).
    """
    from evofeat.datasets import load, preprocess

    s = SETTINGS[key]
    ds = load(s.source, fullest=True)
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
    return Dataset(key, X, y, names, task, classes, SETTINGS[key].source, "minmax")


def repeat_seed(key: str, n_i: int, repeat: int, survived: float | str = "") -> int:
    """Seed of a repetition: the same for every learner (paired tests), set by data and setting."""
    tag = f"{key}|{n_i}|{survived}"
    return int(np.random.SeedSequence([zlib.crc32(tag.encode()), repeat]).generate_state(1)[0])


def _seed(cell: Cell) -> int:
    p = cell.params
    return repeat_seed(cell.dataset, p["n_i"], cell.repeat, p.get("survived", ""))


def _run(cell: Cell) -> dict[str, Any]:
    """One learner on one seeded draw of the incdec scenario (single-threaded BLAS).

    The matrices are small (at most a few hundred columns), where
    multi-threaded BLAS only costs time, badly so when the cores are
    shared: cells run in parallel instead.
    """
    from threadpoolctl import threadpool_limits

    from evofeat.evaluate.batch import incdec_once

    s, p = SETTINGS[cell.dataset], cell.params
    X, y = _data(cell.dataset)
    split: tuple[float, ...] = s.split
    if "survived" in p:
        split = ((1 - p["survived"]) / 2, float(p["survived"]), (1 - p["survived"]) / 2)
    scenario = {
        "d_v": split[0],
        "d_s": split[1],
        "d_a": split[2],
        "batch_size": p["n_i"],
        "n_cstage": s.n_cstage,
        "n_estage": p["n_i"],
    }
    extra: dict[str, Any] = {k: p[k] for k in ("consistency", "l2") if k in p}
    attrs = {"weights_": "w1", "estage_l2_": "gamma"}
    with threadpool_limits(limits=1):
        return incdec_once(cell.method, X, y, scenario, _seed(cell), extra, attrs)


@cache
def _published_cells() -> list[Published]:
    out = []
    for rec in published("opid")["table2"]:
        m = next(k for k, v in PAPER_NAME.items() if v == rec["algorithm"])
        mean, std, n = rec["accuracy_mean"], rec["accuracy_std"], rec["n_i"]
        out.append(
            Published(
                "table2",
                rec["dataset"],
                m,
                rec["algorithm"],
                {"n_i": n},
                mean,
                std,
                f"{mean:.3f} ± {std:.3f}",
                f"n_i={n}",
            )  # fmt: skip
        )
    return out


def _key_of(paper_name: str) -> str:
    return next((k for k, s in SETTINGS.items() if s.table2 == paper_name), "")


def _lookup(pub: Published, variant: str) -> tuple[Any, ...]:
    return _key_of(pub.dataset), pub.method, {"n_i": pub.setting["n_i"]}, "accuracy"


def _command(pub: Published, v: Variant, repeats: int) -> str:
    """``evofeat run --protocol opid`` at the cell's n_i ("" for a set not held here)."""
    key, n = _key_of(pub.dataset), pub.setting["n_i"]
    if not key:
        return ""
    sp = {"batch_size": n, "n_estage": n}
    return protocols.command("opid", key, pub.method, repeats, scenario_params=sp)


def _pairs() -> list[PairSpec]:
    """OPID against each other learner on the same draws (Table 2)."""
    out = []
    for key, s in SETTINGS.items():
        for n in s.n_i if s.table2 else ():
            for m in METHODS[:-1]:
                ours, theirs = (key, "opid", {"n_i": n}), (key, m, {"n_i": n})
                out.append(PairSpec("table2", f"{key} n_i={n}", "OPID", PAPER_NAME[m], ours, theirs, "accuracy"))  # fmt: skip
    return out


# ---------------------------------------------------------------------- report helpers
_INTRO = """## Setting

Two stages (Section 1 of the paper). C-stage: a stream of mini-batches of n_i
rows over the vanished and survived features, read once. E-stage: a batch
over the survived and augmented features, split into equal train and test
halves of n_i rows each. Learners: **SVM**, **SVM(s)**, **SVM(a)**: LIBLINEAR
L2 logistic regression (one-vs-rest) on the E-stage train half, on all, the
survived or the augmented columns, C by 5-fold cross-validation; **OPIDe**:
C-stage of Eq. 2 solved in one pass (Prop. 1, Eq. 9), Z = X_s W_s*, two
logistic regressions on Z and [Z, X_a] mixed with weights chosen by 5-fold
cross-validation (Eq. 3-4); **OPID**: same C-stage, E-stage of Eq. 16-17
with the linear map, alternating Prop. 4 and Prop. 3. Accuracy on the test
half, mean ± std over repetitions; markers come from paired t-tests at 0.05
over the repetitions (the learners of a repetition share one draw of the
scenario).

## What is not available

- **Gisette, SensIT Vehicle, Protein** are not in the shared data folder:
  their Table 2 rows, Figure 2 (c) and Figure 3 (the paper's Figure 3 is on
  SensIT Vehicle and Gisette only) are not reproduced. Figure 3 is run on the
  data sets we have instead.
- **MNIST**: only the official 10,000-image test split is available. The
  C-stage is cut from 3200 to 960 rows (0 vs 5) and from 4800 to 1440 rows
  (0 vs 3 vs 5), the largest multiple of every n_i that leaves rows of each
  class for the largest E-stage; the E-stage sizes n_i are the paper's. The
  paper keeps 455 and 489 pixels (its rule is not stated); we keep the pixels
  that are not constant over the chosen digits (549 and 581) and split them
  in quarters as the paper does.
- The numbers behind the paper's Figure 2 are not in the text: for USPS and
  Satimage only our numbers are shown.
"""

_CHOICES = """## Choices (the paper leaves them open)

- **lambda = 1, rho = 1** (C-stage, Eq. 2): `consistency`, `l2`; the
  sensitivity table shows their effect. The C-stage uses the accumulation of
  Eq. 9 (Algorithm 1); the Woodbury solver of Prop. 2 gives the same W_s*
  (tested to 1e-8). A property of Eq. 2 worth knowing: at rho = 0 the
  survived-feature model W_s* is exactly the least-squares fit of Y on X_s,
  whatever lambda (eliminate W~ from Eq. 7: X~ W~ = (P~ Y + lambda X_s W_s) /
  (1 + lambda), and X_s^T P~ = X_s^T because the survived columns are
  columns of X~, which leaves X_s^T X_s W_s = X_s^T Y). lambda moves W~,
  which the E-stage never uses; with rho > 0 it moves W_s* only slightly.
  So the C-stage hands the E-stage a ridge regression on the survived
  features learned from many rows; the vanished features do not reach it.
- **gamma** (OPID's E-stage, Eq. 16): searched by 5-fold cross-validation on
  the E-stage train half over 10^-2 .. 10^4 (ties: the larger value); the
  paper does not state it and tunes its other parameters by 5-fold CV.
- **C of LIBLINEAR**: 5-fold CV over 10^-2 .. 10^2 (folds stratified,
  shuffled, fewer folds when a class has fewer than 5 rows); one-vs-rest for
  more than two classes. **OPIDe's w_1**: 5-fold CV accuracy of the mixed
  out-of-fold probabilities over 0, 0.1, ..., 1 (ties: nearest to 1/2).
- **OPID's alternation** stops when Eq. 17 decreases by less than 1e-6
  (relative) or after 100 rounds. With the linear map Z is in both blocks,
  so the exact optimum of Eq. 17 has w_1 = 0 (the [Z, X_a] block pays less
  per unit of norm): OPID is then a ridge regression on [Z, X_a] with the
  one-hot labels as targets. Our runs reach w_1 of about 0.
- **Data**: each feature min-max scaled to [0, 1] over the rows of the
  chosen classes (the paper does not say; LIBSVM's scaled copies do the
  same); MNIST pixels constant over the chosen digits dropped. Satimage's 3
  classes (the paper's c = 3 of 6): its first three labels, 1, 2 and 3. USPS:
  train and test files joined (9298 rows).
- **Rows**: the C-stage takes the first sum(n_i)/c rows of each class in file
  order (the paper's rule (3)), shuffled and cut in batches of n_i. The
  E-stage pool of 2 n_i rows is drawn at random from the other rows, the same
  number from each class, then split at random (not stratified) into train
  and test halves. Balanced pools are our reading of the paper's
  below-chance SVM(a) accuracies (.3063 on 3-class DNA, .4640 on Splice): an
  uninformative classifier trained on one random half of a balanced pool is
  below chance on the other half, while an unbalanced pool would give the
  majority rate. Columns: first d_v vanished, next d_s survived, the rest
  augmented (the paper's rule (4)); fractions give d_s = ceil(f_s d),
  d_a = floor(f_a d).
- **Repetitions**: 10 per (data set, n_i) for Table 2, Figure 2 and the
  diagnosis, 5 for Figure 3 and 3 for the sensitivity table (the paper does
  not say how many; `REPEATS`, `FIG3_REPEATS`, `SENS_REPEATS` in
  `evofeat.experiments.opid`). Each repetition draws a new E-stage (the
  C-stage rows are fixed by rule (3)).
- **Figure 3**: the smallest n_i of each data set; the survived features are
  the middle share f_s of the columns, the vanished and augmented ones split
  the rest equally (as the paper describes); f_s = 10%, 30%, ..., 90%; on
  DNA, USPS0vs5 and Satimage.
"""


def _frame(results: pd.DataFrame) -> pd.DataFrame:
    df = results.copy()
    params = df["params"].apply(lambda p: p if isinstance(p, dict) else {})
    for key in ("n_i", "survived", "consistency", "l2"):
        df[key] = params.apply(lambda p, k=key: p.get(k))
    return df


def _pivot(df: pd.DataFrame, table: str | tuple[str, ...]) -> pd.DataFrame:
    """Accuracy per (dataset, n_i, repeat) x method, complete repetitions only."""
    tables = (table,) if isinstance(table, str) else table
    sub = df[df["table"].isin(tables)]
    if sub.empty:
        return pd.DataFrame()
    wide = sub.pivot_table(index=["dataset", "n_i", "repeat"], columns="method", values="accuracy")
    return wide.dropna()


def _fmt(values: np.ndarray) -> str:
    return mean_std(values, digits=4)


def _outcomes(wide: pd.DataFrame) -> dict[tuple[str, int], dict[tuple[str, str], str]]:
    """Per (dataset, n_i): outcome of (row learner, column learner) from the row's side."""
    res: dict[tuple[str, int], dict[tuple[str, str], str]] = {}
    for (key, n), g in wide.groupby(level=[0, 1]):
        cell = {}
        for row in ("opide", "opid"):
            for col in METHODS:
                if row != col and row in g and col in g:
                    cell[(row, col)] = paired_outcome(g[row].to_numpy(), g[col].to_numpy())
        res[(str(key), int(n))] = cell
    return res


def _published() -> dict[tuple[str, int, str], dict[str, Any]]:
    return {(r["dataset"], r["n_i"], r["algorithm"]): r for r in published("opid")["table2"]}


def _table1(df: pd.DataFrame) -> str:
    rows = []
    for rec in published("opid")["table1"]:
        key = next((k for k, s in SETTINGS.items() if s.table1 == rec["dataset"]), None)
        paper = f"{rec['sum_n_i_C_stage']}; {rec['d_v']}/{rec['d_s']}/{rec['d_a']}"
        if key is None:
            rows.append([rec["dataset"], rec["c"], paper, "–", UNAVAILABLE.get(rec["dataset"], "")])
            continue
        s = SETTINGS[key]
        sub = df[(df["dataset"] == key) & df["table"].isin(["table2", "figure2"])]
        dims = (
            "/".join(str(int(sub[c].iloc[0])) for c in ("d_v", "d_s", "d_a")) if len(sub) else "–"
        )
        where = f"Table 2 ({s.table2})" if s.table2 else "Figure 2"
        rows.append(
            [
                rec["dataset"],
                rec["c"],
                paper,
                f"{s.n_cstage}; {dims}",
                f"{where}; n_i = {', '.join(map(str, s.n_i))}" + ("" if len(sub) else " (not run)"),
            ]
        )
    head = ["data", "c", "paper: sum n_i; d_v/d_s/d_a", "ours: sum n_i; d_v/d_s/d_a", "where"]
    return "## Table 1: the settings\n\n" + markdown_table(rows, head) + "\n"


def _marks(outc: dict[tuple[str, str], str], method: str) -> str:
    if method == "opid":
        return ""
    if method == "opide":
        return SYMBOL[outc.get(("opid", "opide"), "tie")]
    return SYMBOL[outc[("opide", method)]] + SYMBOL[outc[("opid", method)]]


def _table2(df: pd.DataFrame) -> str:
    wide = _pivot(df, "table2")
    if wide.empty:
        return ""
    outc, pub = _outcomes(wide), _published()
    layout: list[list[Any]] = []
    long: list[list[Any]] = []
    diffs: dict[str, list[float]] = {m: [] for m in METHODS}
    for (key, n), g in wide.groupby(level=[0, 1]):
        name = SETTINGS[str(key)].table2 or str(key)
        o = outc[(str(key), int(n))]
        layout.append(
            [name, int(n)] + [_fmt(g[m].to_numpy()) + " " + _marks(o, m) for m in METHODS]
        )
        for m in METHODS:
            rec = pub.get((name, int(n), PAPER_NAME[m]))
            acc = g[m].to_numpy()
            if rec is None:
                continue
            d = diff_in_std(
                float(acc.mean()), rec["accuracy_mean"], rec["accuracy_std"], float(acc.std(ddof=1))
            )
            diffs[m].append(d)
            long.append(
                [
                    name,
                    int(n),
                    PAPER_NAME[m],
                    f"{rec['accuracy_mean']:.4f} ({rec['accuracy_std']:.4f})",
                    _fmt(acc),
                    round(d, 2),
                    rec["markers"],
                    _marks(o, m),
                ]
            )
    reps = int(wide.groupby(level=[0, 1]).size().min())
    summary = [
        [
            PAPER_NAME[m],
            len(v),
            round(float(np.mean(v)), 2),
            sum(abs(x) <= 1 for x in v),
            sum(abs(x) <= 2 for x in v),
        ]
        for m, v in diffs.items()
        if v
    ]
    return (
        "## Table 2: test accuracy, ours in the paper's layout\n\n"
        f"Mean ± std over {reps} repetitions. Markers on SVM, SVM(s), SVM(a): our paired t-test "
        "(0.05) of OPIDe, then OPID, against that learner: ● OPIDe (OPID) significantly better, "
        "○ tie, ▼ significantly worse. On OPIDe: OPID against OPIDe (● OPID better).\n\n"
        + markdown_table(layout, ["data", "n_i"] + [PAPER_NAME[m] for m in METHODS])
        + "\n\n### Paper beside ours\n\n"
        "`diff` = (ours - paper) / max(std paper, std ours). Paper markers as printed (○ is printed "
        "for both tie and worse); ours with ▼ for worse.\n\n"
        + markdown_table(
            long, ["data", "n_i", "method", "paper", "ours", "diff (std)", "paper test", "our test"]
        )
        + "\n\n### How close, per method\n\n"
        + markdown_table(
            summary, ["method", "cells", "mean diff (std)", "|diff| <= 1", "|diff| <= 2"]
        )
        + "\n"
    )


def _count(outc: dict[tuple[str, int], dict[tuple[str, str], str]], row: str, col: str) -> str:
    vals = [o[(row, col)] for o in outc.values() if (row, col) in o]
    return "/".join(str(vals.count(k)) for k in ("win", "tie", "loss")) if vals else "–"


def _paper_counts(names: set[str], row: str, col: str) -> str:
    recs = published("opid")["table2"]
    if col == "opid" or (row, col) == ("opid", "opide"):  # the OPIDe-vs-OPID test, on OPIDe records
        vals = [r["vs_opid"] for r in recs if r["algorithm"] == "OPIDe" and r["dataset"] in names]
        if row == "opide":
            flip = {"win": "loss", "tie": "tie", "tie_or_loss": "tie_or_win"}
            vals = [flip[v] for v in vals]
    else:
        field = "vs_opide" if row == "opide" else "vs_opid"
        vals = [
            r[field] for r in recs if r["algorithm"] == PAPER_NAME[col] and r["dataset"] in names
        ]
    text = "/".join(str(vals.count(k)) for k in ("win", "tie", "loss"))
    extra = [
        f"+{vals.count(k)} {k.replace('_', ' ')}"
        for k in ("tie_or_loss", "tie_or_win")
        if vals.count(k)
    ]
    return text + (f" ({', '.join(extra)})" if extra else "")


def _win_tie_loss(df: pd.DataFrame) -> str:
    t2 = _pivot(df, "table2")
    if t2.empty:
        return ""
    both = _pivot(df, ("table2", "figure2"))
    ours_t2, ours_all = _outcomes(t2), _outcomes(both)
    ours_names = {SETTINGS[str(k)].table2 or str(k) for k, _ in ours_t2}
    pub_rows = {
        (r["row_method"], r["column_method"]): r["printed"]
        for r in published("opid")["win_tie_loss"]
    }
    rows = []
    for row in ("opide", "opid"):
        cols = [c for c in METHODS if c != row]
        rows.append(
            [f"{PAPER_NAME[row]}: paper, 6 data sets (24 cells)"]
            + [pub_rows.get((PAPER_NAME[row], PAPER_NAME[c]), "–") for c in cols]
        )
        rows.append(
            [f"{PAPER_NAME[row]}: paper, our Table 2 data sets"]
            + [_paper_counts(ours_names, row, c) for c in cols]
        )
        rows.append(
            [f"{PAPER_NAME[row]}: ours, Table 2 data sets ({len(ours_t2)} cells)"]
            + [_count(ours_t2, row, c) for c in cols]
        )
        rows.append(
            [f"{PAPER_NAME[row]}: ours, + Figure 2 data sets ({len(ours_all)} cells)"]
            + [_count(ours_all, row, c) for c in cols]
        )
    table = "\n\n".join(
        markdown_table(
            [r for r in rows if r[0].startswith(PAPER_NAME[row] + ":")],
            ["row: win/tie/loss against"] + [PAPER_NAME[c] for c in METHODS if c != row],
        )
        for row in ("opide", "opid")
    )
    return (
        "## Win/tie/loss (paired t-test, 0.05)\n\n"
        "Counted over (data set, n_i) cells from the row learner's side. The paper's ○ is both "
        "tie and loss; where the text cannot separate them the count is given apart.\n\n"
        + table
        + "\n"
    )


def _diagnosis(df: pd.DataFrame) -> str:
    wide = _pivot(df, ("table2", "diagnosis"))
    if wide.empty or not set(DIAGNOSTICS) <= set(wide.columns):
        return ""
    cols = ("opide", "opid", "opid-z", "cstage", "svm-a")
    rows = []
    for (key, n), g in wide.groupby(level=[0, 1]):
        rows.append(
            [SETTINGS[str(key)].table1, int(n)]
            + [_fmt(g[m].to_numpy()) for m in cols]
            + [SYMBOL[paired_outcome(g["opid-z"].to_numpy(), g["opid"].to_numpy())]]
        )
    head = [
        "data",
        "n_i",
        "OPIDe",
        "OPID",
        "OPID without X_a",
        "C-stage only",
        "SVM(a)",
        "OPID without X_a vs OPID",
    ]
    return (
        "## Where OPID falls short: a diagnosis\n\n"
        "With the linear map the optimum of Eq. 17 puts all weight on the [Z, X_a] block "
        "(w_1 -> 0), so OPID's E-stage is a square-loss ridge regression on [Z, X_a]. The "
        "columns below separate its parts on the same draws as Table 2: OPID fed the survived "
        "columns only (`OPID without X_a`), and the C-stage model alone (argmax of Z, no "
        "E-stage training). Where the augmented features carry little signal (SVM(a) near or "
        "below chance) and n_i is small, X_a's noise enters the least-squares fit with the "
        "same penalty as Z; OPIDe's cross-validated mixing can instead fall back on Z alone. "
        "Last column: paired t-test of OPID without X_a against OPID (● better).\n\n"
        + markdown_table(rows, head)
        + "\n"
    )


def _panel(ax: Any, x: list[float], g: pd.DataFrame, xlabel: str, title: str) -> None:
    for m in METHODS:
        if m not in g:
            continue
        stats = g[m].groupby(level=0).agg(["mean", "std"])
        ax.errorbar(
            x, stats["mean"], yerr=stats["std"], label=PAPER_NAME[m], marker="o", ms=3, capsize=2
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy")
    ax.set_title(title)


def _curves(
    df: pd.DataFrame,
    table: str,
    xkey: str,
    out: Path,
    name: str,
    caption: str,
    xscale: float = 1.0,
    xlabel: str = "n_i",
) -> str:
    sub = df[df["table"] == table]
    if sub.empty:
        return ""
    keys = [k for k in SETTINGS if k in set(sub["dataset"])]
    fig, axes = new_figure(len(keys), ncols=min(3, len(keys)))
    for ax, key in zip(axes, keys, strict=True):
        g = sub[sub["dataset"] == key].pivot_table(
            index=[xkey, "repeat"], columns="method", values="accuracy"
        )
        x = [float(v) * xscale for v in g.index.get_level_values(0).unique()]
        _panel(ax, x, g, xlabel, SETTINGS[key].table1)
    axes[0].legend(fontsize=7)
    return save_figure(fig, out, name, caption)


def _figure2(df: pd.DataFrame, out: Path) -> str:
    fig2 = _curves(
        df,
        "figure2",
        "n_i",
        out,
        "figure2",
        "Figure 2: test accuracy against n_i "
        "(USPS0vs5, USPS0vs3vs5, Satimage; Protein is not available). Mean ± std.",
    )
    if not fig2:
        return ""
    wide = _pivot(df, "figure2")
    outc = _outcomes(wide)
    rows = [
        [SETTINGS[str(k)].table1, int(n)]
        + [_fmt(g[m].to_numpy()) + " " + _marks(outc[(str(k), int(n))], m) for m in METHODS]
        for (k, n), g in wide.groupby(level=[0, 1])
    ]
    fig2b = _curves(
        df, "table2", "n_i", out, "figure2_table2_sets", "Table 2's data sets drawn the same way."
    )
    return (
        "## Figure 2\n\n" + fig2 + "\nOur numbers (markers as in Table 2; the paper's values "
        "are only in its plot):\n\n"
        + markdown_table(rows, ["data", "n_i"] + [PAPER_NAME[m] for m in METHODS])
        + "\n\n"
        + fig2b
    )


def _figure3(df: pd.DataFrame, out: Path) -> str:
    fig = _curves(
        df,
        "figure3",
        "survived",
        out,
        "figure3",
        "Figure 3: test accuracy against the percentage of survived features (smallest "
        "n_i of each data set; vanished and augmented features share the rest equally).",
        xscale=100.0,
        xlabel="survived features (%)",
    )
    if not fig:
        return ""
    return (
        "## Figure 3: share of survived features\n\nThe paper's Figure 3 uses SensIT Vehicle "
        "and Gisette, which are not available; these are the data sets we have.\n\n" + fig
    )


def _sensitivity(df: pd.DataFrame) -> str:
    sub = df[df["table"] == "sensitivity"]
    if sub.empty:
        return ""
    rows = []
    for key in SENS_SETS:
        for param in ("consistency", "l2"):
            for v in SENS_GRID:
                if param == "l2" and v == 1.0:
                    continue
                sel = sub[(sub["dataset"] == key) & (sub[param] == v)]
                if sel.empty:
                    continue
                accs = [
                    _fmt(sel[sel["method"] == m]["accuracy"].to_numpy())
                    for m in ("opide", "opid", "cstage")
                ]
                label = "lambda" if param == "consistency" else "rho (lambda = 1)"
                rows.append([SETTINGS[key].table1, int(sel["n_i"].iloc[0]), label, v, *accs])
    return (
        f"## Sensitivity to the C-stage's lambda and rho\n\nSmallest n_i, {SENS_REPEATS} repetitions; "
        "lambda varies with rho = 1, then rho with lambda = 1. `C-stage only`: the C-stage "
        "model on the survived features, argmax of Z, no E-stage training.\n\n"
        + markdown_table(
            rows, ["data", "n_i", "parameter", "value", "OPIDe", "OPID", "C-stage only"]
        )
        + "\n"
    )


def _runtime(df: pd.DataFrame) -> str:
    if "seconds" not in df:
        return ""
    timed = df.dropna(subset=["seconds"])
    secs = timed.groupby("method")["seconds"].agg(["count", "sum"])
    rows = [
        [PAPER_NAME.get(str(m), str(m)), int(r["count"]), round(float(r["sum"]), 1)]
        for m, r in secs.iterrows()
    ]
    return (
        f"## Run time\n\n{len(df)} cells. Wall-clock seconds of fitting and predicting inside "
        "each cell (data loading excluded), summed; on a shared machine they include waiting "
        "for the CPU.\n\n" + markdown_table(rows, ["method", "cells", "seconds"]) + "\n"
    )


def _summary(df: pd.DataFrame) -> str:
    """Which Table 2 cells land near the paper's and which do not, from the numbers."""
    wide, pub = _pivot(df, "table2"), _published()
    if wide.empty:
        return ""
    near: dict[str, int] = dict.fromkeys(METHODS, 0)
    low: dict[str, list[str]] = {m: [] for m in METHODS}
    high: dict[str, list[str]] = {m: [] for m in METHODS}
    for (key, n), g in wide.groupby(level=[0, 1]):
        name = SETTINGS[str(key)].table2 or str(key)
        for m in METHODS:
            rec = pub.get((name, int(n), PAPER_NAME[m]))
            if rec is None:
                continue
            acc = g[m].to_numpy()
            d = diff_in_std(
                float(acc.mean()), rec["accuracy_mean"], rec["accuracy_std"], float(acc.std(ddof=1))
            )
            near[m] += abs(d) <= 1
            (low if d < -1.5 else high if d > 1.5 else {m: []})[m].append(f"{name} {int(n)}")
    cells = len(wide.groupby(level=[0, 1]))
    lines = [
        f"- **{PAPER_NAME[m]}**: {near[m]} of {cells} cells within one std of the paper"
        + (f"; more than 1.5 std below: {', '.join(low[m])}" if low[m] else "")
        + (f"; more than 1.5 std above: {', '.join(high[m])}" if high[m] else "")
        for m in METHODS
    ]
    return (
        "## Summary\n\n" + "\n".join(lines) + "\n\n"
        "Why the gaps, as far as we can tell: (1) OPID's E-stage is, at the optimum of Eq. 17, a "
        "square-loss ridge regression on [Z, X_a]; when the augmented features are noise (DNA, "
        "Splice: SVM(a) at or below chance) and the E-stage is small, that noise costs it several "
        "points, which the diagnosis table shows by dropping X_a; the paper's OPID does not show "
        "this, and its gamma is not stated. (2) MNIST: with the test split only, our C-stage has "
        "3.3 times fewer rows than the paper's, and our baselines are stronger than the paper's at "
        "large n_i (different pixels kept, per-pixel scaling), so the C-stage helps less. (3) The "
        "paper's win/tie/loss rows are 24/0/0 against every baseline; ours agree against SVM(a) "
        "but many cells against SVM and SVM(s) are ties: gains of one to three points are often "
        "not significant over our repetitions (the paper does not state its number).\n"
    )


# ---------------------------------------------------------------------- the declaration
def _plain(res: pd.DataFrame) -> tuple[Any, ...]:
    return (_frame(res),)


QUICK_SETS = ("dna", "splice")
_NO_QUICK = {"datasets": ()}
_SENS = tuple({"consistency": v} for v in SENS_GRID) + tuple(
    {"l2": v} for v in SENS_GRID if v != 1.0
)


def _by_key() -> tuple[Grid, ...]:
    """Per data set: its Table 2 or Figure 2 cells (every n_i), the diagnosis and sensitivity."""
    out = []
    for k, s in SETTINGS.items():
        quick = {"n_i": s.n_i[:2]} if k in QUICK_SETS else _NO_QUICK
        out.append(
            Grid("table2" if s.table2 else "figure2", (k,), METHODS, {"n_i": s.n_i}, None, quick)
        )
        if k in SENS_SETS:
            n0 = s.n_i[0]
            out.append(Grid("diagnosis", (k,), DIAGNOSTICS, {"n_i": s.n_i}, None, _NO_QUICK))
            out.append(Grid("sensitivity", (k,), ("opide", "opid", "cstage"), {"g": _SENS},
                            lambda ds, m, g, n0=n0: {"n_i": n0, **g}, _NO_QUICK, SENS_REPEATS))  # fmt: skip
    return tuple(out)


PAPER = PaperSpec(
    name="opid",
    title="One-Pass Learning with Incremental and Decremental Features (OPID)",
    paper_repeats="not stated",
    repeats=REPEATS,
    quick_repeats=2,
    shared_cells=False,
    grids=(
        *_by_key(),
        Grid(
            "figure3",
            FIG3_SETS,
            METHODS,
            {"survived": FIG3_SURVIVED},
            lambda ds, m, survived: {"n_i": SETTINGS[ds].n_i[0], "survived": survived},
            {"datasets": ("splice",), "survived": (0.2, 0.5, 0.8)},
            FIG3_REPEATS,
        ),
    ),  # fmt: skip
    variants=(Variant("opid", "ours", "ours", "opid"),),
    sections=(
        _INTRO,
        section(_summary, _plain),
        section(_table1, _plain),
        section(_table2, _plain),
        section(_win_tie_loss, _plain),
        section(_diagnosis, _plain),
        section(_figure2, _plain, out=True),
        section(_figure3, _plain, out=True),
        section(_sensitivity, _plain),
        _CHOICES,
        section(_runtime, _plain),
    ),
    published_cells=_published_cells,
    lookup=_lookup,
    setting=lambda cell: protocol_setting(cell.dataset, cell.method),
    runs={t: _run for t in ("table2", "figure2", "figure3", "diagnosis", "sensitivity")},
    commands=_command,
    pair_specs=_pairs,
    higher_is_better=True,
    data_of=lambda cell: (SETTINGS[cell.dataset].source,) if cell.dataset in SETTINGS else (),
    runtime=False,
)
