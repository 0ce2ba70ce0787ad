"""STSD cells outside 2σ under ``--protocol stsd-authors``: which hypothesis reaches them?

The STSD report (``evofeat reproduce stsd``) leaves 26 published cells outside
2σ of the paper (z = (ours - paper) / the paper's std) with no tested reason:
magic04 (Table II, Table III STSD-I), splice, spambase, a8a, svmguide3 (Table
III STSD-I and STSD-I-all). Each hypothesis below is one reading of what the
paper, the authors' MATLAB release (github BlindReview/onlineLearning, the
zip the paper cites: ``STSD.m``, ``STSD_all.m``, ``STSD_per.m``, the drivers
``STSD_I_II_experiment{1,2,3}.m`` and ``STSDI_all_random_perceptron_experiment{1,2}.m``
on ``a8a.mat``, ``..._experiment3.m`` on ``german.mat``) or our data leave open, run through
``protocols.setting`` / ``protocols.run_setting`` (the report's own runner,
row orders and learner seeds) with one change each:

- (c) schedule: the drivers' (10 stages for STSD / -I / -II, 4 for -all / -per:
  the protocol), 4 stages for every algorithm (as german reproduces exactly),
  10 for every algorithm, the paper's layout (equal parts) with 10 or 4 stages;
- (b) preprocessing instead of the authors' (z-score twice, unit rows): none,
  z-score only, unit rows only, min-max, min-max then unit rows;
- (d) parameters the text leaves open: the drivers' other C values
  (STSD-I-all C = 1 in ``..._experiment1.m``, C = 10 in ``..._experiment2.m``;
  STSD-II C = 10 in ``STSD_I_II_experiment3.m``), german's C = 0.01 for every
  algorithm, the radius (30 as the text's lambda, 10 from ``STSD_all.m``'s
  unused ``lambda = 0.01``, no ball), and the text's rules as a whole
  (``variant="paper"``: floor(B d) >= 1 weights, ||x||^2, ...) on the code's
  schedule; and one C of the drivers' grid (0.01, 1, 10) for STSD-I as well
  as -all (the drivers keep C = 0.1 for STSD-I on a8a; this tests the paper's
  pattern that STSD-I at B = 0.8 nearly equals STSD-I-all, i.e. one C for both);
- (e) row orders: the file order instead of random permutations, and a second
  set of random permutations (seed 1000), which measures how far two sets of
  20 orders land apart;
- (a) data: svmguide3 with its 22nd (all-zero) column and / or its 41 test
  rows, splice's and a8a's LIBSVM training rows only, and a random column
  order (the stage i features are then a random subset).

Schedule-independent hypotheses run on two bases: the protocol's schedule and
4 stages everywhere. Every hypothesis is applied to every cell of the five
data sets (Table II; Table III STSD-I, STSD-I-all, STSD-I-per), so a reader
sees what it breaks as well as what it fixes; STSD-I-rand is left out (its
cells wait on MATLAB's random stream, ``stsd-rand-stream``).

    python benchmarks/investigations/stsd_gaps.py --repeats 5            # screen
    python benchmarks/investigations/stsd_gaps.py --repeats 20 --only ... # confirm
        [--out docs/reports/investigations/stsd_gaps.json]

Needs the shared data folder (``EVOFEAT_DATA``). CPU: under a second a run
(a8a), about 12 s a hypothesis at 5 orders.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.evaluate import run_once
from evofeat.experiments.protocols import (
    STSD_FRACTIONS_4,
    STSD_FRACTIONS_10,
    load_setting,
    run_setting,
    setting,
)

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT.parent / "shared" / "papers" / "published.json"
DATASETS = ("magic04", "svmguide3", "splice", "spambase", "a8a")
METHODS = {"STSD": "stsd", "STSD-I": "stsd-i", "STSD-II": "stsd-ii"}
METHODS3 = {"STSD-I": "stsd-i", "STSD-I-all": "stsd-i-all", "STSD-I-per": "stsd-i-per"}
#: The 26 cells the full report (today's code) leaves outside 2σ as ``stsd-unexplained``.
UNEXPLAINED = {
    ("table2", "magic04", "STSD", 0.5),
    ("table2", "magic04", "STSD-I", 0.5),
    ("table2", "magic04", "STSD-II", 0.5),
    ("table2", "splice", "STSD", 0.5),
    ("table2", "splice", "STSD-I", 0.5),
    ("table2", "splice", "STSD-II", 0.5),
    ("table2", "spambase", "STSD", 0.5),
    ("table2", "spambase", "STSD-II", 0.5),
    ("table2", "a8a", "STSD", 0.5),
    *(("table3", "magic04", "STSD-I", b) for b in (0.2, 0.5, 0.8)),
    ("table3", "svmguide3", "STSD-I", 0.2),
    ("table3", "svmguide3", "STSD-I", 0.8),
    *(("table3", "svmguide3", "STSD-I-all", b) for b in (0.2, 0.5, 0.8)),
    ("table3", "splice", "STSD-I", 0.5),
    ("table3", "splice", "STSD-I", 0.8),
    ("table3", "spambase", "STSD-I", 0.8),
    *(("table3", "spambase", "STSD-I-all", b) for b in (0.2, 0.5, 0.8)),
    *(("table3", "a8a", "STSD-I-all", b) for b in (0.2, 0.5, 0.8)),
}

Cell = tuple[str, str, str, float]  # (table, data set, method, B)


def published() -> dict[Cell, tuple[float, float]]:
    """The paper's mean and std of each cell this investigation runs."""
    pub = json.loads(PUBLISHED.read_text())["stsd"]
    out: dict[Cell, tuple[float, float]] = {}
    for table, methods in (("table2", METHODS), ("table3", METHODS3)):
        for row in pub[table]:
            if row["dataset"] in DATASETS and row["algorithm"] in methods:
                key = (table, row["dataset"], row["algorithm"], float(row["B"]))
                out[key] = (row["mistakes_mean"], row["mistakes_std"])
    return out


@dataclass(frozen=True)
class Hypothesis:
    """One change to the protocol: ``override(dataset, learner)`` -> ``protocols.setting`` fields."""

    name: str
    group: str
    override: Callable[[str, str], dict[str, Any]] = field(default=lambda d, m: {})
    file_order: bool = False  # the file's row order instead of the permutations
    order_seed: int = 0  # seed of the row permutations (the report's: 0)
    datasets: tuple[str, ...] = DATASETS


def _sp(**kw: Any) -> dict[str, Any]:
    return {"scenario_params": kw}


def _merge(*parts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in parts:
        for k, v in p.items():
            out[k] = {**out.get(k, {}), **v} if isinstance(v, dict) else v
    return out


FOUR = _sp(fractions=list(STSD_FRACTIONS_4))
#: The hypothesis the page's verdict rests on: 4 stages, C per data set.
FINAL = "C: the a8a drivers' on a8a, else the fewest mistakes [4 stages]"


def hypotheses(repeats: int = 20) -> list[Hypothesis]:
    """Every hypothesis, in the order of the page."""
    hs = [
        Hypothesis("protocol (drivers' schedule)", "c"),
        Hypothesis("4 stages for every algorithm", "c", lambda d, m: FOUR),
        Hypothesis(
            "10 stages for every algorithm",
            "c",
            lambda d, m: _sp(fractions=list(STSD_FRACTIONS_10)),
        ),
        Hypothesis(
            "paper layout, 10 equal parts",
            "c",
            lambda d, m: _sp(layout="paper", fractions=None, n_stages=10),
        ),
        Hypothesis(
            "paper layout, 4 equal parts (0.1, 0.4, 0.7, 1)",
            "c",
            lambda d, m: _sp(layout="paper", fractions=list(STSD_FRACTIONS_4)),
        ),
    ]
    changes: list[tuple[str, str, Callable[[str, str], dict[str, Any]], dict[str, Any]]] = [
        ("preprocessing: none", "b", lambda d, m: {"preprocess": "none"}, {}),
        ("preprocessing: z-score only", "b", lambda d, m: {"preprocess": "zscore"}, {}),
        ("preprocessing: unit rows only", "b", lambda d, m: {"preprocess": "unit-norm"}, {}),
        ("preprocessing: min-max", "b", lambda d, m: {"preprocess": "minmax"}, {}),
        (
            "preprocessing: min-max, unit rows",
            "b",
            lambda d, m: {"preprocess": "minmax,unit-norm"},
            {},
        ),
        (
            "C = 1 for STSD-I-all (experiment1.m)",
            "d",
            lambda d, m: {"params": {"C": 1.0}} if m == "stsd-i-all" else {},
            {},
        ),
        (
            "C = 10 for STSD-I-all (experiment2.m)",
            "d",
            lambda d, m: {"params": {"C": 10.0}} if m == "stsd-i-all" else {},
            {},
        ),
        (
            "C = 10 for STSD-II (STSD_I_II_experiment3.m)",
            "d",
            lambda d, m: {"params": {"C": 10.0}} if m == "stsd-ii" else {},
            {},
        ),
        *(
            (
                f"C = {c:g} for STSD-I and STSD-I-all",
                "d",
                lambda d, m, c=c: {"params": {"C": c}} if m in ("stsd-i", "stsd-i-all") else {},
                {},
            )
            for c in (0.01, 1.0, 10.0)
        ),
        ("C = 0.01 for every algorithm (german's)", "d", lambda d, m: {"params": {"C": 0.01}}, {}),
        ("radius 30 (the text's lambda)", "d", lambda d, m: {"params": {"radius": 30.0}}, {}),
        ("radius 10 (lambda = 0.01)", "d", lambda d, m: {"params": {"radius": 10.0}}, {}),
        ("no L1 ball", "d", lambda d, m: {"params": {"radius": float("inf")}}, {}),
        (
            "the text's rules (variant='paper')",
            "d",
            lambda d, m: {"params": {"variant": "paper"}},
            {},
        ),
        ("file order", "e", lambda d, m: {}, {"file_order": True}),
        ("another 20 random orders (seed 1000)", "e", lambda d, m: {}, {"order_seed": 1000}),
        (
            "random column order",
            "a",
            lambda d, m: _sp(feature_order="random"),
            {},
        ),
        *(
            (f"{d}: {what}", "a", lambda _d, _m, o=over: o, {"datasets": (d,)})
            for d, what, over in (
                ("svmguide3", "22 columns (the all-zero one kept)", {"cols": 22}),
                ("svmguide3", "1284 rows (train + test), 21 columns", {"rows": 1284}),
                ("splice", "the 1000 LIBSVM training rows", {"rows": 1000}),
                ("a8a", "the 22696 LIBSVM training rows", {"rows": 22696}),
            )
        ),
    ]
    for base, base_fn in (("", None), (" [4 stages]", FOUR)):
        for name, group, fn, extra in changes:
            over = fn if base_fn is None else (lambda d, m, fn=fn: _merge(FOUR, fn(d, m)))
            hs.append(Hypothesis(name + base, group, over, **extra))
    for name, drivers, seed in (
        ("C with the fewest mistakes (grid, B = 0.5) for STSD-I and -all [4 stages]", False, 0),
        (FINAL, True, 0),
        (FINAL + ", another 20 orders (seed 1000)", True, 1000),  # C still picked on seed 0
    ):
        tuned = partial(_tuned_four, repeats=repeats, drivers=drivers)
        hs.append(Hypothesis(name, "d", tuned, order_seed=seed))
    return hs


def _tuned_four(dataset: str, learner: str, repeats: int, drivers: bool) -> dict[str, Any]:
    return _merge(FOUR, _tuned_c(dataset, learner, repeats, drivers))


#: The drivers' C grid (``STSD_I_II_experiment1.m`` sweeps 10^-4 .. 10^8; beyond 10^2
#: every learner is at its C -> infinity plateau, Figure 1).
C_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
#: The C the a8a drivers pass (``..._experiment1.m``): STSD-I 0.1, STSD_all 1.
A8A_DRIVERS = {"stsd-i": 0.1, "stsd-i-all": 1.0}


def _tuned_c(dataset: str, learner: str, repeats: int, drivers: bool) -> dict[str, Any]:
    """C of STSD-I / -all chosen from our own runs, never from the paper's numbers.

    The grid value with the fewest mean mistakes at B = 0.5 on 4 stages over
    the same row orders (the authors' drivers sweep C on the evaluation
    stream itself); with ``drivers``, a8a takes the released drivers' value.
    """
    if learner not in ("stsd-i", "stsd-i-all"):
        return {}
    if drivers and dataset == "a8a":
        return {"params": {"C": A8A_DRIVERS[learner]}}
    return {"params": {"C": _best_c(dataset, learner, repeats)}}


@cache
def _best_c(dataset: str, learner: str, repeats: int) -> float:
    means = {}
    for c in C_GRID:
        s = setting("stsd-authors", dataset, learner, **_merge(FOUR, {"params": {"C": c}}))
        means[c] = np.mean([run_setting(learner, s, r).mistakes for r in range(repeats)])
    best = min(means, key=lambda c: means[c])
    print(f"  best C for {learner} on {dataset}: {best:g} ({means[best]:.1f} mistakes)", flush=True)
    return best


def german_control(repeats: int) -> dict[str, Any]:
    """The C rule on german, the one data set whose published cells are known exactly.

    german runs on the authors' file and their 20 row orders, on 4 stages,
    where C = 0.01 gives the printed means and stds; the rule is not told
    that and picks its C from our runs as on the other data sets.
    """
    pub = json.loads(PUBLISHED.read_text())["stsd"]["table3"]
    paper = {
        (r["algorithm"], float(r["B"])): (r["mistakes_mean"], r["mistakes_std"])
        for r in pub
        if r["dataset"] == "german"
    }
    out: dict[str, Any] = {}
    for learner, method in (("stsd-i", "STSD-I"), ("stsd-i-all", "STSD-I-all")):
        c = _best_c("german", learner, repeats)
        for b in (0.2, 0.5, 0.8) if learner == "stsd-i" else (0.5,):
            s = setting("stsd-authors", "german", learner, params={"C": c, "budget": b})
            m = np.array([run_setting(learner, s, r).mistakes for r in range(repeats)], float)
            pm, ps = paper[(method, b)]
            cell = [round(m.mean(), 2), round(m.std(ddof=1), 2), round((m.mean() - pm) / ps, 3)]
            out[f"{method}|{b}"] = {"C": c, "ours": cell, "paper": [pm, ps]}
            print(f"| german | {method} B={b} | {c:g} | {pm} ± {ps} | {_fmt(cell)} |")
    return out


def run_cell(h: Hypothesis, dataset: str, learner: str, budget: float, repeats: int) -> list[int]:
    """Mistakes of ``learner`` at ``budget`` under ``h``, one per row order."""
    over = h.override(dataset, learner)
    over = _merge(over, {"params": {"budget": budget}})
    s = setting("stsd-authors", dataset, learner, **over)
    if h.file_order:  # one run: the order is fixed, so the repeats would all agree
        data = load_setting(s.source, s.rows, s.cols, s.preprocess, s.loader)
        order = np.arange(data.X.shape[0])[None, :]
        res = run_once(
            learner,
            data,
            s.scenario,
            params=s.params,
            scenario_params=s.scenario_params,
            permutations=order,
        )
        return [int(res.mistakes)]
    return [int(run_setting(learner, s, r, seed=h.order_seed).mistakes) for r in range(repeats)]


def investigate(hs: list[Hypothesis], repeats: int) -> dict[str, Any]:
    """Every cell under every hypothesis: runs, mean, std and z against the paper."""
    pub = published()
    out: dict[str, Any] = {}
    for h in hs:
        runs: dict[tuple[str, str, float], list[int]] = {}
        cells = {}
        for (table, d, method, b), (pm, ps) in pub.items():
            if d not in h.datasets:
                continue
            learner = {**METHODS, **METHODS3}[method]
            b_run = 0.5 if method == "STSD-I-all" else b  # -all does not truncate: one run set
            key = (d, learner, b_run)
            if key not in runs:
                runs[key] = run_cell(h, d, learner, b_run, repeats)
            r = np.asarray(runs[key], dtype=float)
            mean, std = float(r.mean()), float(r.std(ddof=1)) if r.size > 1 else 0.0
            cells["|".join((table, d, method, str(b)))] = {
                "paper": [pm, ps],
                "mean": mean,
                "std": std,
                "z": round((mean - pm) / ps, 3),  # as saved, so the counts agree
                "unexplained": (table, d, method, b) in UNEXPLAINED,
                "runs": runs[key],
            }
        out[h.name] = {"group": h.group, "cells": cells}
        summary(h.name, cells)
    return out


def counts(cells: dict[str, Any]) -> tuple[int, int, int, int]:
    """(unexplained cells within 2σ, unexplained run, other cells within 2σ, other cells run)."""
    u = [c for c in cells.values() if c["unexplained"]]
    o = [c for c in cells.values() if not c["unexplained"]]
    within = lambda cs: sum(abs(c["z"]) <= 2 for c in cs)  # noqa: E731
    return within(u), len(u), within(o), len(o)


def summary(name: str, cells: dict[str, Any]) -> None:
    uw, un, ow, on = counts(cells)
    print(f"| {name} | {uw} of {un} | {ow} of {on} |", flush=True)


def table(results: dict[str, Any], dataset: str) -> str:
    """Markdown: one row per hypothesis, one column per cell of ``dataset`` (z against the paper)."""
    first = {k: c for res in results.values() for k, c in res["cells"].items()}
    keys = [k for k in first if k.split("|")[1] == dataset]
    head = [
        f"{k.split('|')[2]} B={k.split('|')[3]}{' *' if first[k]['unexplained'] else ''}"
        f"{' (T2)' if k.startswith('table2') else ''}"
        for k in keys
    ]
    lines = ["| hypothesis | " + " | ".join(head) + " |", "| --- |" + " --- |" * len(keys)]
    for name, res in results.items():
        c = res["cells"]
        if not any(k in c for k in keys):
            continue
        vals = [f"{c[k]['mean']:.0f} ({c[k]['z']:+.1f})" if k in c else "" for k in keys]
        lines.append(f"| {name} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


FOUR_STAGES = "4 stages for every algorithm"
C_PROFILE = {
    "0.01": "C = 0.01 for STSD-I and STSD-I-all [4 stages]",
    "0.1": FOUR_STAGES,
    "1": "C = 1 for STSD-I and STSD-I-all [4 stages]",
    "10": "C = 10 for STSD-I and STSD-I-all [4 stages]",
}


def _label(key: str) -> str:
    t, d, m, b = key.split("|")
    return f"{'II' if t == 'table2' else 'III'} {d} {m}" + ("" if m == "STSD-I-all" else f" B={b}")


def _fmt(c: list[Any], std: bool = True) -> str:
    return f"{c[0]:.1f}" + (f" ± {c[1]:.1f}" if std else "") + f" ({c[2]:+.1f})"


def page_tables(saved: dict[str, Any]) -> str:
    """The page's tables from the saved JSON: screen and confirmation counts, C profile, the 26 cells."""
    paper, unexplained = saved["paper"], set(saved["unexplained"])
    out = []
    for label in (k for k in saved if k.endswith("orders")):
        out += [f"#### {label}", "", "| hypothesis | group | unexplained within 2σ | "
                "unexplained within 1σ | others within 2σ |", "| --- | --- | --- | --- | --- |"]  # fmt: skip
        for name, h in saved[label].items():
            u = [abs(c[2]) for k, c in h["cells"].items() if k in unexplained]
            o = [abs(c[2]) for k, c in h["cells"].items() if k not in unexplained]
            out.append(
                f"| {name} | {h['group']} | {sum(z <= 2 for z in u)} of {len(u)} | "
                f"{sum(z <= 1 for z in u)} of {len(u)} | {sum(z <= 2 for z in o)} of {len(o)} |"
            )
        out.append("")
    conf = saved.get("20 orders", {})
    if all(h in conf for h in C_PROFILE.values()):
        out += ["| cell | paper | " + " | ".join(f"C = {c}" for c in C_PROFILE) + " |"]
        out += ["| --- | --- |" + " --- |" * len(C_PROFILE)]
        for d in DATASETS:
            for m, b in (("STSD-I", 0.2), ("STSD-I", 0.5), ("STSD-I", 0.8), ("STSD-I-all", 0.5)):
                k = f"table3|{d}|{m}|{b}"
                vals = [_fmt(conf[h]["cells"][k], std=False) for h in C_PROFILE.values()]
                out.append(
                    f"| {_label(k)} | {paper[k][0]} ± {paper[k][1]} | " + " | ".join(vals) + " |"
                )
        out.append("")
    cols = ["protocol (drivers' schedule)", FOUR_STAGES, FINAL]
    if all(h in conf for h in cols):
        out += [
            "| cell | paper | protocol (drivers' schedule) | 4 stages | 4 stages, C per data set |"
        ]
        out += ["| --- | --- | --- | --- | --- |"]
        done = set()
        for k in saved["unexplained"]:
            t, d, m, b = k.split("|")
            if (d, m) in done:
                continue
            if m == "STSD-I-all":
                done.add((d, m))
            label = _label(k) + (" (B = 0.2, 0.5, 0.8)" if m == "STSD-I-all" else "")
            vals = [_fmt(conf[h]["cells"][k]) for h in cols]
            out.append(f"| {label} | {paper[k][0]} ± {paper[k][1]} | " + " | ".join(vals) + " |")
    return "\n".join(out)


def save(path: Path, results: dict[str, Any], repeats: int) -> None:
    """Add the results of ``repeats`` orders to the JSON at ``path`` (the screen and the confirmation share it).

    Layout: ``paper`` (cell -> the paper's mean and std), ``unexplained`` (the
    26 cells), and per number of orders, per hypothesis, its group and cell ->
    [mean, std, z] (with the runs for 20 orders).
    """
    saved = json.loads(path.read_text()) if path.exists() else {}
    cells = {k: c for res in results.values() for k, c in res["cells"].items()}
    saved["paper"] = {**saved.get("paper", {}), **{k: c["paper"] for k, c in cells.items()}}
    keys = set(saved.get("unexplained", [])) | {k for k, c in cells.items() if c["unexplained"]}
    saved["unexplained"] = [k for k in saved["paper"] if k in keys]  # the paper's order
    label = f"{repeats} orders"
    saved[label] = saved.get(label, {}) | {  # a later run adds (or replaces) its hypotheses
        name: {
            "group": res["group"],
            "cells": {
                k: [round(c["mean"], 2), round(c["std"], 2), round(c["z"], 3)]
                + ([c["runs"]] if repeats >= 20 else [])
                for k, c in res["cells"].items()
            },
        }
        for name, res in results.items()
    }
    write(path, saved)


def write(path: Path, saved: dict[str, Any]) -> None:
    """The JSON with one line per hypothesis (diffable, and a third of an indented dump)."""
    blocks = []
    for label, value in saved.items():
        if isinstance(value, dict) and label.endswith("orders"):  # one line per hypothesis
            lines = [f"  {json.dumps(n)}: {json.dumps(h)}" for n, h in value.items()]
            blocks.append(f"{json.dumps(label)}: {{\n" + ",\n".join(lines) + "\n}")
        else:
            blocks.append(f"{json.dumps(label)}: {json.dumps(value)}")
    path.write_text("{\n" + ",\n".join(blocks) + "\n}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--only", default="", help="hypothesis names separated by ; (default: all)")
    ap.add_argument("--out", type=Path, default=None, help="write the numbers as JSON here")
    ap.add_argument(
        "--tables", type=Path, default=None, help="print the page's tables from this JSON and stop"
    )
    ap.add_argument(
        "--german",
        action="store_true",
        help="run only the control: the C rule on german (authors' file and orders) and stop",
    )
    args = ap.parse_args(argv)
    if args.tables:
        print(page_tables(json.loads(args.tables.read_text())))
        return 0
    if args.german:
        print("| data | cell | C picked | paper | ours (z) |\n| --- | --- | --- | --- | --- |")
        control = german_control(args.repeats)
        if args.out:
            saved = json.loads(args.out.read_text()) if args.out.exists() else {}
            write(args.out, {**saved, "german control": control})
        return 0
    hs = hypotheses(args.repeats)
    if args.only:
        wanted = [s.strip() for s in args.only.split(";")]
        hs = [h for h in hs if h.name in wanted]
    print(f"{args.repeats} row orders; z = (ours - paper) / paper std\n")
    print("| hypothesis | unexplained cells within 2σ | other cells within 2σ |")
    print("| --- | --- | --- |")
    results = investigate(hs, args.repeats)
    for d in DATASETS:
        print(f"\n### {d} (mean mistakes, z; * = unexplained in the report)\n")
        print(table(results, d))
    if args.out:
        save(args.out, results, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
