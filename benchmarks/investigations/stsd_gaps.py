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
sees what it breaks as well as what it fixes.

``--rand`` runs STSD-I-rand's own hypotheses on its 18 cells (the six data
sets, german included): the schedule (``STSD_rand.m``'s 10 stages, the
protocol, against 4), the C the drivers pass to ``STSD_rand`` (1e4, 100,
1e-4) on either schedule, STSD-I's C per data set, the grid C with the
fewest mistakes, the mask rule (the protocol follows ``STSD_rand.m``,
``rand_mask="always"``; our learner's default ``"over-budget"`` instead;
and :func:`stsd_rand_m`, the file transliterated line by line with NumPy's
permutation for ``randperm``) and two other
readings of "randomly selected features" (one subset per stage, a new
subset every row). ``--spambase-orders SETS`` runs spambase's cells on SETS
independent sets of 20 random orders.

    python benchmarks/investigations/stsd_gaps.py --repeats 5            # screen
    python benchmarks/investigations/stsd_gaps.py --repeats 20 --only ... # confirm
    python benchmarks/investigations/stsd_gaps.py --rand --repeats 20      # STSD-I-rand
    python benchmarks/investigations/stsd_gaps.py --spambase-orders 50     # spambase
        [--out docs/reports/investigations/stsd_gaps.json]

Needs the shared data folder (``EVOFEAT_DATA``). CPU: under a second a run
(a8a), about 12 s a hypothesis at 5 orders; ``--rand`` about 4 min for our
learner's 13 hypotheses and 4 min for each transliterated one (a8a, magic04) at 20 orders.
"""

from __future__ import annotations

import argparse
import json
import math
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
    for label in (k for k in saved if k.endswith("orders") and not k.startswith("rand")):
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
    for label in (k for k in saved if k.startswith("rand:")):
        out += rand_page_tables(saved, label)
    return "\n".join(out)


#: The columns of the page's per-cell STSD-I-rand table.
RAND_COLUMNS = (
    ("protocol (10 stages)", "protocol (drivers' schedule: 10 stages, C = 0.1)"),
    ("4 stages", "4 stages (stsd-published)"),
    ("4 stages, orders seed 1000", "4 stages, another 20 orders (seed 1000)"),
    ("C = 1e4, 10 stages", "C = 1e4 (experiment1.m)"),
    ("C = 1e4, 4 stages", "C = 1e4 (experiment1.m) [4 stages]"),
    ("STSD_rand.m, 10 stages", "STSD_rand.m line by line (randperm) [10 stages]"),
    ("STSD_rand.m, 4 stages", "STSD_rand.m line by line (randperm) [4 stages]"),
)


def rand_page_tables(saved: dict[str, Any], label: str) -> list[str]:
    """The STSD-I-rand counts per hypothesis, then the cells under the main hypotheses (mean, z)."""
    outside, hs = set(saved.get("rand outside", [])), saved[label]
    keys = list(next(iter(hs.values()))["cells"])
    out = [f"#### STSD-I-rand, {label.removeprefix('rand: ')}", ""]
    out += ["| hypothesis | group | outside in the report: within 2σ | others within 2σ |"]
    out += ["| --- | --- | --- | --- |"]
    for name, h in hs.items():
        u = [abs(h["cells"][k][2]) <= 2 for k in keys if k in outside]
        o = [abs(h["cells"][k][2]) <= 2 for k in keys if k not in outside]
        out.append(f"| {name} | {h['group']} | {sum(u)} of {len(u)} | {sum(o)} of {len(o)} |")
    cols = [(short, name) for short, name in RAND_COLUMNS if name in hs]
    out += ["", "| cell | paper | " + " | ".join(short for short, _ in cols) + " |"]
    out += ["| --- | --- |" + " --- |" * len(cols)]
    for k in keys:
        _, d, _, b = k.split("|")
        vals = [
            f"{hs[name]['cells'][k][0]:.1f} ({hs[name]['cells'][k][2]:+.1f})" for _, name in cols
        ]
        pm, ps = saved["paper"][k]
        star = " *" if k in outside else ""
        out.append(f"| {d} B={b}{star} | {pm} ± {ps} | " + " | ".join(vals) + " |")
    return out + [""]


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


# --- STSD-I-rand (``--rand``) -------------------------------------------------------------------

RAND = "stsd-i-rand"
RAND_DATASETS = (*DATASETS, "german")
#: C of STSD_rand in the drivers: ``..._experiment1.m`` (a8a) 1e4, ``..._experiment2.m`` (a8a)
#: 100, ``..._experiment3.m`` (german) 1e-4; the protocol passes 0.1 (the text's) elsewhere.
RAND_DRIVER_C = {
    "1e4 (experiment1.m)": 1e4,
    "100 (experiment2.m)": 100.0,
    "1e-4 (experiment3.m)": 1e-4,
}
#: The rand grid of the C rule: the drivers' grid and their two larger rand values.
RAND_C_GRID = (*C_GRID, 1e4)
TEN = _sp(fractions=list(STSD_FRACTIONS_10))
#: The hypothesis the rand verdict rests on: 4 stages (today's ``stsd-published``).
RAND_FINAL = "4 stages (stsd-published)"


def stsd_rand_m(
    X: np.ndarray,
    Y: np.ndarray,
    order: np.ndarray,
    budget: float,
    C: float,
    dimen: list[float],
    rng: np.random.Generator,
    draw: str = "update",
) -> int:
    """``STSD_rand.m`` line by line (algorithm 1, PA-I), with NumPy's permutation for ``randperm``.

    Mistakes over the rows ``order`` of the preprocessed ``X``. MATLAB's
    rules as written: stage ``j = max(floor((t-1)/step), 1)``, ``step =
    max(1, floor(n / K))``, row ``t`` sees ``max(1, floor(dimen(j) d))``
    columns; a mistake when ``y f <= 0``; an update when ``y f <= 1`` with
    ``tau = min(C, (1 - y f) / ||x||)``; after an update on a row of an old
    stage, ``w`` keeps a fresh random ``round(B len(w))`` of its ``len(w)``
    coordinates (``randperm``, whatever the support); on the first row of a
    new stage ``w`` is extended by ``tau y x_new`` (``tau`` of the last
    update) and masked the same way. ``draw`` reads the mask otherwise (not
    the file): ``"stage"`` draws one subset per stage and applies it after
    every update; ``"row"`` redraws and applies it on every row, updated or
    not.
    """
    n, d = len(order), X.shape[1]
    K = len(dimen)
    step = max(1, int(math.floor(1 / K * n)))
    w = np.zeros(max(1, int(math.floor(dimen[0] * d))))
    err, tau, mask = 0, 0.0, None

    def masked(w: np.ndarray, fresh: bool) -> np.ndarray:
        nonlocal mask
        if fresh or mask is None or mask.size != w.size:
            k = int(math.floor(budget * w.size + 0.5))  # MATLAB round
            mask = np.zeros(w.size)
            mask[rng.permutation(w.size)[:k]] = 1.0
        return w * mask

    for t in range(1, n + 1):
        j = max((t - 1) // step, 1)
        x = X[order[t - 1], : max(1, int(math.floor(dimen[j - 1] * d)))]
        grow = x.size > w.size
        f = float(w @ x[: w.size])
        yf = Y[order[t - 1]] * f
        err += yf <= 0
        if yf <= 1:
            tau = min(C, (1 - yf) / float(np.linalg.norm(x)))
            w = w + tau * Y[order[t - 1]] * x[: w.size]
            if not grow and draw != "row":
                w = masked(w, fresh=draw == "update")
        if grow:
            w = np.concatenate([w, tau * Y[order[t - 1]] * x[w.size :]])
            w = masked(w, fresh=True)
        elif draw == "row":
            w = masked(w, fresh=True)
    return int(err)


@dataclass(frozen=True)
class RandHypothesis:
    """One change to the protocol for STSD-I-rand; ``matlab``: run :func:`stsd_rand_m` instead."""

    name: str
    group: str
    override: Callable[[str], dict[str, Any]] = field(default=lambda d: {})
    order_seed: int = 0
    matlab: str = ""  # the draw rule of stsd_rand_m ("update": as written); "" runs our learner


def rand_hypotheses(repeats: int = 20) -> list[RandHypothesis]:
    """Every STSD-I-rand hypothesis, in the order of the page."""
    c = lambda v: {"params": {"C": v}}  # noqa: E731
    hs = [
        RandHypothesis("protocol (drivers' schedule: 10 stages, C = 0.1)", "c"),
        RandHypothesis(RAND_FINAL, "c", lambda d: FOUR),
        RandHypothesis("4 stages, another 20 orders (seed 1000)", "e", lambda d: FOUR, 1000),
    ]
    for base, sched in (("", TEN), (" [4 stages]", FOUR)):
        for label, v in RAND_DRIVER_C.items():
            hs.append(
                RandHypothesis(f"C = {label}{base}", "d", lambda d, v=v, s=sched: _merge(s, c(v)))
            )
    hs += [
        RandHypothesis(
            "C of STSD-I per data set (STSD_C_PUBLISHED) [4 stages]",
            "d",
            lambda d: _merge(FOUR, c(_published_c(d))),
        ),
        RandHypothesis(
            "C with the fewest mistakes (grid 1e-4 .. 1e4, B = 0.5) [4 stages]",
            "d",
            lambda d: _merge(FOUR, c(_best_rand_c(d, repeats))),
        ),
        RandHypothesis(
            "STSD_rand.m line by line (randperm) [10 stages]", "f", lambda d: TEN, 0, "update"
        ),
        RandHypothesis(
            "STSD_rand.m line by line (randperm) [4 stages]", "f", lambda d: FOUR, 0, "update"
        ),
        RandHypothesis(
            "rand_mask='over-budget' (a draw only when the support exceeds round(B d)) [10 stages]",
            "f",
            lambda d: _merge(TEN, {"params": {"rand_mask": "over-budget"}}),
        ),
        RandHypothesis(
            "rand_mask='over-budget' (a draw only when the support exceeds round(B d)) [4 stages]",
            "f",
            lambda d: _merge(FOUR, {"params": {"rand_mask": "over-budget"}}),
        ),
        RandHypothesis("one random subset per stage [4 stages]", "f", lambda d: FOUR, 0, "stage"),
        RandHypothesis("a new random subset every row [4 stages]", "f", lambda d: FOUR, 0, "row"),
    ]
    return hs


def _published_c(dataset: str) -> float:
    from evofeat.experiments.protocols import STSD_C_PUBLISHED

    v = STSD_C_PUBLISHED[dataset]
    return v if isinstance(v, float) else v["stsd-i"]


@cache
def _best_rand_c(dataset: str, repeats: int) -> float:
    """The grid C with the fewest mean STSD-I-rand mistakes at B = 0.5 on 4 stages (our runs only)."""
    means = {}
    for v in RAND_C_GRID:
        s = setting("stsd-authors", dataset, RAND, **_merge(FOUR, {"params": {"C": v}}))
        means[v] = np.mean([run_setting(RAND, s, r).mistakes for r in range(repeats)])
    best = min(means, key=lambda v: means[v])  # the first (smallest C) among ties
    print(f"  best C for {RAND} on {dataset}: {best:g} ({means[best]:.1f} mistakes)", flush=True)
    return best


def run_rand_cell(h: RandHypothesis, dataset: str, budget: float, repeats: int) -> list[int]:
    """Mistakes of STSD-I-rand at ``budget`` under ``h``, one per row order."""
    s = setting(
        "stsd-authors", dataset, RAND, **_merge(h.override(dataset), {"params": {"budget": budget}})
    )
    if not h.matlab:
        return [int(run_setting(RAND, s, r, seed=h.order_seed).mistakes) for r in range(repeats)]
    data = load_setting(s.source, s.rows, s.cols, s.preprocess, s.loader)
    X, Y = np.asarray(data.X, dtype=float), np.asarray(data.y, dtype=float)
    orders = _rand_orders(s, X.shape[0], repeats, h.order_seed)
    fr = list(s.scenario_params["fractions"])
    return [
        stsd_rand_m(X, Y, orders[r], budget, s.params["C"], fr, np.random.default_rng(r), h.matlab)
        for r in range(repeats)
    ]


def _rand_orders(s: Any, n: int, repeats: int, seed: int) -> list[np.ndarray]:
    """The row orders :func:`run_setting` uses: german's file, else ``permutation(n, seed + r)``."""
    from evofeat.datasets import stsd_german_permutations
    from evofeat.streams import permutation

    if s.permutations:
        return [np.asarray(p) for p in stsd_german_permutations()[:repeats]]
    return [permutation(n, seed + r) for r in range(repeats)]


def investigate_rand(hs: list[RandHypothesis], repeats: int) -> dict[str, Any]:
    """Every STSD-I-rand cell of the six data sets under every hypothesis."""
    pub = json.loads(PUBLISHED.read_text())["stsd"]["table3"]
    paper = {
        (r["dataset"], float(r["B"])): (r["mistakes_mean"], r["mistakes_std"])
        for r in pub
        if r["algorithm"] == "STSD-I-rand" and r["dataset"] in RAND_DATASETS
    }
    out: dict[str, Any] = {}
    for h in hs:
        cells = {}
        for (d, b), (pm, ps) in paper.items():
            r = np.asarray(run_rand_cell(h, d, b, repeats), dtype=float)
            mean, std = float(r.mean()), float(r.std(ddof=1))
            cells[f"table3|{d}|STSD-I-rand|{b}"] = {
                "paper": [pm, ps],
                "mean": mean,
                "std": std,
                "z": round((mean - pm) / ps, 3),
                "unexplained": (d, b) in RAND_OUTSIDE,
                "runs": [int(v) for v in r],
            }
        out[h.name] = {"group": h.group, "cells": cells}
        summary(h.name, cells)
    return out


#: The 8 STSD-I-rand cells the report's authors'-code run leaves outside 2σ (10 stages, C = 0.1).
RAND_OUTSIDE = {
    ("magic04", 0.2), ("magic04", 0.5), ("magic04", 0.8), ("svmguide3", 0.2),
    ("svmguide3", 0.8), ("splice", 0.8), ("spambase", 0.8), ("a8a", 0.2),
}  # fmt: skip


def rand_table(results: dict[str, Any]) -> str:
    """Markdown: one row per hypothesis, one column per rand cell (mean, z); * = outside in the report."""
    keys = list(next(iter(results.values()))["cells"])
    first = next(iter(results.values()))["cells"]
    head = [
        f"{k.split('|')[1]} {k.split('|')[3]}{' *' if first[k]['unexplained'] else ''}"
        for k in keys
    ]
    lines = [
        "| hypothesis | within 2σ (* cells) | within 2σ (others) | " + " | ".join(head) + " |",
        "| --- | --- | --- |" + " --- |" * len(keys),
    ]
    for name, res in results.items():
        c = res["cells"]
        uw, un, ow, on = counts(c)
        vals = [f"{c[k]['mean']:.0f} ({c[k]['z']:+.1f})" for k in keys]
        lines.append(f"| {name} | {uw} of {un} | {ow} of {on} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


#: spambase's cells beyond 2σ under ``stsd-published`` (protocol, learner, B, paper mean, std).
SPAMBASE_CELLS = (
    ("stsd-published", "stsd-i", 0.8, 980.8, 20.6),
    ("stsd-published", RAND, 0.5, 1699.9, 25.2),
    ("stsd-published", RAND, 0.8, 1490.7, 19.2),
    ("stsd-published", "stsd", 0.5, 1132.1, 29.7),
)


def spambase_order_sets(sets: int, repeats: int) -> dict[str, Any]:
    """The spambase cells on ``sets`` independent sets of ``repeats`` random orders (seeds 0, 1000, ...).

    Tests whether the authors' particular orders (their ``ID_ALL``, not
    released for spambase) can explain spambase's offset: every algorithm
    runs on the same orders, so a lucky set would move all its cells
    together. Per cell: each set's mean and z, and how many sets land
    within 2σ of the paper.
    """
    out: dict[str, Any] = {}
    for protocol, learner, b, pm, ps in SPAMBASE_CELLS:
        s = setting(protocol, "spambase", learner, params={"budget": b})
        means = [
            float(
                np.mean(
                    [run_setting(learner, s, r, seed=1000 * k).mistakes for r in range(repeats)]
                )
            )
            for k in range(sets)
        ]
        z = [(m - pm) / ps for m in means]
        out[f"{learner}|{b}"] = {
            "paper": [pm, ps],
            "set means": [round(m, 2) for m in means],
            "z": [round(v, 3) for v in z],
            "sets within 2σ": int(sum(abs(v) <= 2 for v in z)),
        }
        print(
            f"| spambase {learner} B={b} | {pm} ± {ps} | {np.mean(means):.1f} | "
            f"{np.std(means, ddof=1):.1f} | {min(z):+.2f} .. {max(z):+.2f} | "
            f"{out[f'{learner}|{b}']['sets within 2σ']} of {sets} |",
            flush=True,
        )
    return out


def save_rand(path: Path, results: dict[str, Any], repeats: int) -> None:
    """Add the rand results to the JSON at ``path`` under ``rand: N orders`` (cell -> [mean, std, z, runs])."""
    saved = json.loads(path.read_text()) if path.exists() else {}
    cells = {k: c for res in results.values() for k, c in res["cells"].items()}
    saved["paper"] = {**saved.get("paper", {}), **{k: c["paper"] for k, c in cells.items()}}
    saved["rand outside"] = [k for k, c in cells.items() if c["unexplained"]]
    label = f"rand: {repeats} orders"
    saved[label] = saved.get(label, {}) | {
        name: {
            "group": res["group"],
            "cells": {
                k: [round(c["mean"], 2), round(c["std"], 2), round(c["z"], 3), c["runs"]]
                for k, c in res["cells"].items()
            },
        }
        for name, res in results.items()
    }
    write(path, saved)


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
    ap.add_argument(
        "--rand",
        action="store_true",
        help="run the STSD-I-rand hypotheses on the rand cells of all six data sets and stop",
    )
    ap.add_argument(
        "--spambase-orders",
        type=int,
        default=0,
        metavar="SETS",
        help="run spambase's cells on SETS sets of --repeats random orders and stop",
    )
    args = ap.parse_args(argv)
    if args.spambase_orders:
        print("| cell | paper | mean of set means | std of set means | z range | sets within 2σ |")
        print("| --- | --- | --- | --- | --- | --- |")
        res = spambase_order_sets(args.spambase_orders, args.repeats)
        if args.out:
            saved = json.loads(args.out.read_text()) if args.out.exists() else {}
            write(args.out, {**saved, "spambase order sets": res})
        return 0
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
    if args.rand:
        rhs = rand_hypotheses(args.repeats)
        if args.only:
            rhs = [h for h in rhs if h.name in [s.strip() for s in args.only.split(";")]]
        print(f"{args.repeats} row orders; z = (ours - paper) / paper std\n")
        print("| hypothesis | rand cells outside in the report, within 2σ | others within 2σ |")
        print("| --- | --- | --- |")
        rres = investigate_rand(rhs, args.repeats)
        print("\n" + rand_table(rres))
        if args.out:
            save_rand(args.out, rres, args.repeats)
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
