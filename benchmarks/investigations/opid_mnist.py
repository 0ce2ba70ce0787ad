"""OPID's MNIST cells: does "only the test split is here" explain the cells outside 2σ?

The OPID report leaves 15 MNIST cells of Table 2 outside 2σ of the paper
(z = (ours - paper) / the paper's std), explained by ``opid-mnist-split``:
with MNIST's 10,000-image test split only, our C-stage has 3.3x fewer rows
than the paper's (960 / 1440 against 3200 / 4800), and our baselines (other
pixels kept, per-pixel scaling) are stronger at large n_i. Each part of that
explanation, and what else the paper states about MNIST, is run here as the
report's own cells (``experiments.opid``'s settings and seeds, the learners
through ``onepass.make_learner`` / ``run_incdec`` as ``evaluate.batch.incdec_once``
runs them, the same 10 draws), all 40 MNIST cells under every hypothesis:

- (a) rows, a dose-response: the C-stage cut to 25 %, 50 %, 75 % of our rows
  (the first rows of each class, as the paper's rule (3) takes them) with the
  E-stage draw held fixed (100 % is the report's cell, checked equal), and
  the largest C-stage the test split allows at each n_i (a new E-stage draw);
  each cell's mean is fitted against log(rows) on the held draws and
  extrapolated to the paper's 3200 / 4800 rows (SVM rerun on the cut C-stages as a check);
- (b) the baselines' preprocessing: the paper keeps 455 / 489 pixels (rule not
  stated) and states no scaling; we keep the 549 / 581 pixels that are not
  constant and min-max each pixel. Variants: intensities / 255 (one scale
  for every pixel), the paper's pixel count (the 455 / 489 pixels inked in
  the most images), both, and all 784 pixels / 255;
- (c) the E-stage pool: the paper "randomly split[s]" the E-stage examples;
  ours draws the same number from every class (the below-chance SVM(a)
  cells of DNA and Splice need it); here drawn at the data's class shares;
  the baselines with one C (1, LIBLINEAR's default; 0.01) instead of C by
  5-fold CV over our grid (the paper states no grid).
  And the stage diagnostics (the C-stage model alone, OPID on Z only) on the
  OPID cells, to separate the C-stage from the E-stage.

    python benchmarks/investigations/opid_mnist.py [--repeats 10] [--jobs 1]
    python benchmarks/investigations/opid_mnist.py --render   # the .md from the .json
    python benchmarks/investigations/opid_mnist.py --only "baselines C = 1, no CV"  # add one

Writes ``opid_mnist.json`` (every accuracy, per hypothesis, cell and draw)
and ``opid_mnist.md`` beside this file. Needs the shared data folder
(``EVOFEAT_DATA``); about 15 minutes of one core (1 s a draw).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from evofeat.datasets import load, preprocess
from evofeat.evaluate import batch
from evofeat.onepass import make_learner, run_incdec
from evofeat.papers import opid as exp
from evofeat.report import published
from evofeat.streams.incdec import IncDec, incdec

HERE = Path(__file__).resolve().parent
KEYS = ("mnist0vs5", "mnist0vs3vs5")
METHODS = (*exp.METHODS, *batch.INCDEC_DIAGNOSTICS)
CSTAGE_METHODS = ("opide", "opid", *batch.INCDEC_DIAGNOSTICS)
#: The paper's Table 1: C-stage rows and pixels kept (d_v + d_s + d_a).
PAPER_ROWS = {"mnist0vs5": 3200, "mnist0vs3vs5": 4800}
PAPER_PIXELS = {"mnist0vs5": 455, "mnist0vs3vs5": 489}
FRACTIONS = (0.25, 0.5, 0.75)
#: hypothesis -> (pixels, scaling, C-stage, E-stage pool)
HYPOTHESES: dict[str, tuple[str, str, str, str]] = {
    "report": ("non-constant", "minmax", "1", "balanced"),
    **{f"rows {f:.0%}": ("non-constant", "minmax", str(f), "balanced") for f in FRACTIONS},
    "rows max": ("non-constant", "minmax", "max", "balanced"),
    "scale /255": ("non-constant", "255", "1", "balanced"),
    "paper's pixel count": ("paper-count", "minmax", "1", "balanced"),
    "paper's pixel count, /255": ("paper-count", "255", "1", "balanced"),
    "all 784 pixels, /255": ("all", "255", "1", "balanced"),
    "E-stage at class shares": ("non-constant", "minmax", "1", "shares"),
}
#: The baselines with one C, no cross-validation (the paper tunes "the parameters" by 5-fold CV
#: over a grid it does not state; LIBLINEAR's default is C = 1).
BASELINE_C = {"baselines C = 1, no CV": (1.0,), "baselines C = 0.01, no CV": (0.01,)}
HYPOTHESES.update({h: HYPOTHESES["report"] for h in BASELINE_C})
LABEL = {k: v for k, v in exp.PAPER_NAME.items()}
LABEL.update({"cstage": "C-stage alone", "opid-z": "OPID on Z"})


@cache
def data(key: str, pixels: str, scaling: str) -> tuple[np.ndarray, np.ndarray]:
    """The setting's rows (its digits, in file order), the pixels kept, scaled.

    ``non-constant`` and ``minmax`` rebuild ``experiments.opid._data`` (checked equal).
    """
    s = exp.SETTINGS[key]
    ds = load(s.source)
    names = np.asarray([str(c) for c in ds.classes])
    keep = np.isin(names[ds.y], [str(c) for c in s.classes or ()])
    X = np.asarray(ds.X[np.flatnonzero(keep)], dtype=float)
    if pixels == "non-constant":
        cols = X.max(0) > X.min(0)
    elif pixels == "paper-count":  # the most often inked pixels, in row-major order
        inked = np.argsort(-(X > 0).sum(0), kind="stable")[: PAPER_PIXELS[key]]
        cols = np.isin(np.arange(X.shape[1]), inked)
    else:
        cols = np.ones(X.shape[1], bool)
    X = X[:, cols]
    X = np.asarray(preprocess(X, "minmax")) if scaling == "minmax" else X / 255.0
    return X, ds.y[keep]


def max_cstage(key: str, n: int, y: np.ndarray) -> int:
    """The most C-stage rows (a multiple of n_i) that leave a balanced E-stage of 2 n_i rows."""
    counts = np.unique(y, return_counts=True)[1]
    c = counts.size
    per_class = int(counts.min()) - math.ceil(2 * n / c)
    return (c * per_class) // n * n


def shrink(sc: IncDec, y: np.ndarray, frac: float, batch_size: int) -> IncDec:
    """``sc`` with its C-stage cut to the first ``frac`` of each class's rows (E-stage kept)."""
    Xc = np.vstack([b[0] for b in sc.batches])
    yc = np.concatenate([b[1] for b in sc.batches])
    rows = sc.cstage_rows
    assert np.array_equal(yc, y[rows])  # the batches are the rows in cstage_rows' order
    keep = np.zeros(rows.size, bool)
    for label in np.unique(yc):
        mine = np.sort(rows[yc == label])
        keep |= np.isin(rows, mine[: round(frac * mine.size)])
    Xk, yk = Xc[keep], yc[keep]
    cut = range(0, yk.size, batch_size)
    batches = [(Xk[i : i + batch_size], yk[i : i + batch_size]) for i in cut]
    return dataclasses.replace(sc, batches=batches, cstage_rows=rows[keep])


def scenario(hyp: str, key: str, n: int, repeat: int) -> tuple[IncDec, int]:
    """One draw of the hypothesis's scenario for a cell (the report's seed)."""
    pixels, scaling, rows, pool = HYPOTHESES[hyp]
    s = exp.SETTINGS[key]
    X, y = data(key, pixels, scaling)
    seed = exp.repeat_seed(key, n, repeat)
    n_cstage = max_cstage(key, n, y) if rows == "max" else s.n_cstage
    d_v, d_s, d_a = s.split
    sc = incdec(X, y, d_v=d_v, d_s=d_s, d_a=d_a, batch_size=n, n_cstage=n_cstage,
                n_estage=n, estage_balanced=pool == "balanced", seed=seed)  # fmt: skip
    if rows not in ("1", "max"):
        sc = shrink(sc, y, float(rows), n)
    return sc, seed


def methods_of(hyp: str) -> tuple[str, ...]:
    """The learners a hypothesis runs: the stage diagnostics where the C-stage changes, and of
    the baselines (which never see the C-stage) SVM alone on the cut C-stages, as a check."""
    if hyp in ("report", "rows max"):
        return METHODS
    if hyp.startswith("rows"):
        return ("svm", *CSTAGE_METHODS)
    if hyp in BASELINE_C:
        return ("svm", "svm-s", "svm-a")
    return exp.METHODS


def run_draw(hyp: str, key: str, n: int, repeat: int) -> dict[str, Any]:
    """Every learner (and stage diagnostic) on one draw: accuracies and the draw's sizes."""
    from threadpoolctl import threadpool_limits

    sc, seed = scenario(hyp, key, n, repeat)
    acc = {}
    params = {"Cs": BASELINE_C[hyp]} if hyp in BASELINE_C else {}
    with threadpool_limits(limits=1):
        for m in methods_of(hyp):
            if m in batch.INCDEC_DIAGNOSTICS:
                acc[m] = batch._incdec_diagnostic(m, sc, seed, {})["accuracy"]
            else:
                acc[m] = run_incdec(make_learner(m, sc.d_s, seed, **params), sc)["accuracy"]
    sizes = {"n_cstage": int(sc.cstage_rows.size), "d": [sc.d_v, sc.d_s, sc.d_a]}
    return {"hyp": hyp, "key": key, "n": n, "repeat": repeat, "acc": acc, **sizes}


def collect(repeats: int, jobs: int, hypotheses: list[str]) -> dict[str, Any]:
    from multiprocessing import get_context

    for key in KEYS:  # our rebuild of the report's data is the report's data
        X0, y0 = exp._data(key)
        X1, y1 = data(key, "non-constant", "minmax")
        assert np.array_equal(X0, X1) and np.array_equal(y0, y1), key
    tasks = [
        (h, k, n, r)
        for h in hypotheses
        for k in KEYS
        for n in exp.SETTINGS[k].n_i
        for r in range(repeats)
    ]
    if jobs > 1:  # forked workers share this module (run as a script: not importable by name)
        with get_context("fork").Pool(jobs) as pool:
            out = pool.starmap(run_draw, tasks, chunksize=4)
    else:
        out = [run_draw(*t) for t in tasks]
    res: dict[str, Any] = {"repeats": repeats, "hypotheses": {}}
    for rec in out:
        cell = res["hypotheses"].setdefault(rec["hyp"], {}).setdefault(rec["key"], {})
        slot = cell.setdefault(str(rec["n"]), {"n_cstage": rec["n_cstage"], "d": rec["d"]})
        for m, a in rec["acc"].items():
            slot.setdefault(m, []).append(a)
    return res


# ---------------------------------------------------------------------- analysis
@cache
def paper() -> dict[tuple[str, int, str], tuple[float, float]]:
    out = {}
    for rec in published("opid")["table2"]:
        key = exp._key_of(rec["dataset"])
        m = next(k for k, v in exp.PAPER_NAME.items() if v == rec["algorithm"])
        if key in KEYS:
            out[key, int(rec["n_i"]), m] = (rec["accuracy_mean"], rec["accuracy_std"])
    return out


def mean(res: dict[str, Any], hyp: str, key: str, n: int, m: str) -> float:
    """The cell's mean accuracy under ``hyp`` (NaN for a learner the hypothesis does not run)."""
    runs = res["hypotheses"][hyp][key][str(n)].get(m)
    return float(np.mean(runs)) if runs else float("nan")


def z(res: dict[str, Any], hyp: str, key: str, n: int, m: str) -> float:
    pm, ps = paper()[key, n, m]
    return (mean(res, hyp, key, n, m) - pm) / ps


def outside(res: dict[str, Any]) -> list[tuple[str, int, str]]:
    """The published cells outside 2σ in the report's hypothesis (the report's cells)."""
    return [c for c in paper() if abs(z(res, "report", *c)) > 2]


def dose(res: dict[str, Any], key: str, n: int, m: str) -> dict[str, Any]:
    """The dose-response of one cell: means on the held draws, fit in log(rows), extrapolation."""
    hyps = [f"rows {f:.0%}" for f in FRACTIONS] + ["report"]
    rows = [res["hypotheses"][h][key][str(n)]["n_cstage"] for h in hyps]
    means = [mean(res, h, key, n, m) for h in hyps]
    xs = np.repeat(np.log(rows), res["repeats"])
    ys = np.concatenate([res["hypotheses"][h][key][str(n)][m] for h in hyps])
    slope, icpt = np.polyfit(xs, ys, 1)
    resid = ys - (slope * xs + icpt)
    se = float(np.sqrt(resid @ resid / (ys.size - 2) / ((xs - xs.mean()) @ (xs - xs.mean()))))
    at_paper = float(icpt + slope * np.log(PAPER_ROWS[key]))
    rho = float(spearmanr(rows, means)[0]) if np.ptp(means) > 0 else 0.0
    pm, ps = paper().get((key, n, m), (np.nan, np.nan))  # a diagnostic has no paper value
    return {
        "rows": rows,
        "means": means,
        "slope_per_doubling": float(slope * np.log(2)),
        "se_per_doubling": se * np.log(2),
        "spearman": rho,
        "toward_paper": bool(np.sign(slope) == np.sign(pm - means[-1]) and abs(slope) > 2 * se),
        "at_paper_rows": at_paper,
        "z_at_paper_rows": (at_paper - pm) / ps,
        "max_rows": res["hypotheses"]["rows max"][key][str(n)]["n_cstage"],
        "z_max": z(res, "rows max", key, n, m) if ps == ps else np.nan,
    }


def report_matches(res: dict[str, Any]) -> bool:
    """Whether the 'report' hypothesis reproduces the committed comparison.csv's MNIST means."""
    import csv

    path = HERE.parents[1] / "docs" / "reports" / "opid" / "comparison.csv"
    if not path.is_file() or res["repeats"] != exp.REPEATS:
        return False
    rows = [r for r in csv.DictReader(path.open()) if r["dataset"].startswith("Mnist")]
    return len(rows) == len(paper()) and all(
        abs(
            mean(res, "report", exp._key_of(r["dataset"]), int(r["setting"][4:]), m)
            - float(r["ours_mean"])
        )
        < 1e-6  # fmt: skip
        for r in rows
        for m in [next(k for k, v in exp.PAPER_NAME.items() if v == r["method"])]
    )


def svm_held(res: dict[str, Any]) -> bool:
    """Whether SVM's accuracies are the same on every cut C-stage (the E-stage draws held)."""
    hyps = [f"rows {f:.0%}" for f in FRACTIONS]
    return all(
        res["hypotheses"][h][k][str(n)]["svm"] == res["hypotheses"]["report"][k][str(n)]["svm"]
        for h in hyps
        for k in KEYS
        for n in exp.SETTINGS[k].n_i
    )


def verdict(res: dict[str, Any], key: str, n: int, m: str) -> str:
    """Which hypothesis brings the cell within 2σ (rows: the extrapolation), or none."""
    found = []
    if m in CSTAGE_METHODS:
        d = dose(res, key, n, m)
        if d["toward_paper"] and abs(d["z_at_paper_rows"]) <= 2:
            found.append("rows (extrapolated)")
    for h in HYPOTHESES:
        if h == "report" or h.startswith("rows") and h != "rows max":
            continue
        if abs(z(res, h, key, n, m)) <= 2:
            found.append("most rows (measured)" if h == "rows max" else h)
    return "; ".join(found) if found else "does not reproduce"


def _f(v: float, signed: bool = False) -> str:
    return "–" if v != v else f"{v:+.1f}" if signed else f"{v:.4f}"


def render(res: dict[str, Any]) -> str:
    name = {k: exp.SETTINGS[k].table2 for k in KEYS}
    out_cells = outside(res)
    lines = [
        "# OPID MNIST cells: hypotheses of `opid-mnist-split`, run",
        "",
        f"Written by `benchmarks/investigations/opid_mnist.py` ({res['repeats']} draws a cell, "
        "the report's seeds). z = (ours - paper) / the paper's std.",
        "",
        "## Data under each hypothesis",
        "",
        "| hypothesis | pixels | scaling | C-stage rows (0vs5 / 0vs3vs5, at the smallest n_i) "
        "| d_v/d_s/d_a (0vs5; 0vs3vs5) | E-stage pool |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for h, (pix, sca, _rows, pool) in HYPOTHESES.items():
        cells = [res["hypotheses"][h][k][str(exp.SETTINGS[k].n_i[0])] for k in KEYS]
        rows_ = " / ".join(str(c["n_cstage"]) for c in cells)
        ds = "; ".join("/".join(map(str, c["d"])) for c in cells)
        scale = "min-max per pixel" if sca == "minmax" else "/ 255"
        lines.append(f"| {h} | {pix} | {scale} | {rows_} | {ds} | {pool} |")
    n_out = len(out_cells)
    lines += [
        "",
        f"## Control: the report's cells ({n_out} of {len(paper())} outside 2σ)",
        "",
        "| data | n_i | method | paper | ours (this run) | z |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for key, n, m in out_cells:
        pm, ps = paper()[key, n, m]
        lines.append(
            f"| {name[key]} | {n} | {LABEL[m]} | {pm:.4f} ({ps:.4f}) | "
            f"{_f(mean(res, 'report', key, n, m))} | {_f(z(res, 'report', key, n, m), True)} |"
        )
    same = report_matches(res)
    lines += [
        "",
        f"Every MNIST cell of this run's 'report' hypothesis equals the committed report's "
        f"(`docs/reports/opid/comparison.csv`, mean to 1e-6): {'yes' if same else 'NO'}.",
    ]
    lines += [
        "",
        "## (a) Rows: the C-stage at 25-100 % of our rows (E-stage draws held), and the most "
        "the test split allows",
        "",
        "Means at 25 / 50 / 75 / 100 % of our C-stage; the change per doubling of the rows "
        "(least squares in log rows over the 4 x draws points, ± its standard error); "
        "'toward' when that slope points from our 100 % value toward the paper and exceeds "
        "2 SE; the fit's value at the paper's rows (3200 / 4800) and its z; z with the most "
        "rows the test split allows (a new E-stage draw). SVM, SVM(s), SVM(a) never see the "
        "C-stage: their means do not move (by construction; checked: identical at every "
        "fraction); SVM was rerun on every cut C-stage as a check: "
        f"{'identical' if svm_held(res) else 'NOT identical'} on every draw.",
        "",
        "| data | n_i | method | mean at 25/50/75/100 % | per doubling | toward paper? "
        "| at paper's rows (z) | most rows (z) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key in KEYS:
        for n in exp.SETTINGS[key].n_i:
            for m in CSTAGE_METHODS:
                d = dose(res, key, n, m)
                flag = " **(outside 2σ)**" if (key, n, m) in out_cells else ""
                at = "–" if m not in exp.METHODS else _f(d["z_at_paper_rows"], True)
                mx = "–" if m not in exp.METHODS else _f(d["z_max"], True)
                lines.append(
                    f"| {name[key]} | {n} | {LABEL[m]}{flag} | "
                    f"{' / '.join(f'{v:.3f}' for v in d['means'])} | "
                    f"{d['slope_per_doubling']:+.4f} ± {d['se_per_doubling']:.4f} | "
                    f"{'yes' if d['toward_paper'] else 'no'} | {d['at_paper_rows']:.4f} ({at}) | "
                    f"{mean(res, 'rows max', key, n, m):.4f} at {d['max_rows']} rows ({mx}) |"
                )
    others = [h for h in HYPOTHESES if h != "report" and not h.startswith("rows")]
    lines += [
        "",
        "## (b), (c) Preprocessing, the baselines' C and the E-stage pool: z of every cell "
        "outside 2σ ('–': not run under that hypothesis)",
        "",
        "| data | n_i | method | report | " + " | ".join(others) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in others) + " |",
    ]
    for key, n, m in out_cells:
        zs = [_f(z(res, h, key, n, m), True) for h in ["report", *others]]
        lines.append(f"| {name[key]} | {n} | {LABEL[m]} | " + " | ".join(zs) + " |")
    lines += [
        "",
        "Cells within 2σ under each hypothesis, of the MNIST cells it runs (all 40, or the 24 "
        f"baseline cells) and of the {n_out} outside in the report (a fix must not break the "
        "others):",
        "",
        "| hypothesis | within 2σ | of the report's outside cells | mean z of SVM, "
        "SVM(s) at the two largest n_i |",
        "| --- | --- | --- | --- |",
    ]
    for h in ["report", *others, "rows max"]:
        allz = [v for v in (z(res, h, *c) for c in paper()) if v == v]
        within = sum(abs(v) <= 2 for v in allz)
        outz = [v for v in (z(res, h, *c) for c in out_cells) if v == v]
        fixed = sum(abs(v) <= 2 for v in outz)
        big = [z(res, h, k, n, m) for k in KEYS for n in exp.SETTINGS[k].n_i[2:] for m in ("svm", "svm-s")]  # fmt: skip
        lines.append(
            f"| {h} | {within} of {len(allz)} | {fixed} of {len(outz)} | {np.mean(big):+.2f} |"
        )
    lines += [
        "",
        "## Per-cell verdict",
        "",
        "The hypotheses under which the cell is within 2σ ('rows (extrapolated)': the "
        "dose-response points toward the paper and its value at the paper's rows is "
        "within 2σ; 'most rows (measured)': run with the most C-stage rows the test split "
        "allows, on a new E-stage draw).",
        "",
        "| data | n_i | method | report z | within 2σ under |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key, n, m in out_cells:
        lines.append(
            f"| {name[key]} | {n} | {LABEL[m]} | {_f(z(res, 'report', key, n, m), True)} | "
            f"{verdict(res, key, n, m)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=exp.REPEATS)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--render", action="store_true", help="write the .md from the saved .json")
    ap.add_argument("--only", nargs="+", choices=list(HYPOTHESES), metavar="HYPOTHESIS",
                    help="run these hypotheses and add them to the saved .json")  # fmt: skip
    ap.add_argument("--out", type=Path, default=HERE / "opid_mnist")
    args = ap.parse_args(argv)
    js, md = args.out.with_suffix(".json"), args.out.with_suffix(".md")
    if args.render:
        res = json.loads(js.read_text())
    else:
        res = collect(args.repeats, args.jobs, args.only or list(HYPOTHESES))
        if args.only:
            saved = json.loads(js.read_text())
            assert saved["repeats"] == res["repeats"], "--only needs the saved run's --repeats"
            res = {**saved, "hypotheses": {**saved["hypotheses"], **res["hypotheses"]}}
        js.write_text(json.dumps(res, indent=1) + "\n")
    md.write_text(render(res))
    print(md.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
