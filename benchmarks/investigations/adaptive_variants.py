"""Adaptive variants of the papers' methods against the faithful ones, cell by cell (issue 15).

For every published cell of STSD's Tables II and III, of OFS's Tables 2-4 and
of FESL's Table 2 whose data are here, the cell's method runs twice over the
SAME row orders the reproductions use: as the paper states it (the faithful
run, the reproduction report's number) and with AdaGrad's per-coordinate
steps (Duchi, Hazan & Singer 2011; not the papers'):

- STSD (all six algorithms, ``--protocol stsd-paper``): ``step="adagrad"``
  with the class default ``lr=1.0`` (chosen once on australian, credit-a,
  diabetes and kr-vs-kp, none of them in STSD's tables). With AdaGrad the PA
  rule and C no longer enter, so STSD, STSD-I and STSD-II share one variant.
  Shown, not counted: ``step="adagrad-tau"`` (the paper's tau and C in
  AdaGrad's metric), added after the counted results were seen.
- OFS (``--protocol ofs``, Table 2 and Table 4's rho): ``step="adagrad"``,
  ``truncate_by="sum"`` (keep the B largest ``|w_i| sqrt(G_i)``, what the
  paper's ``|w_i|`` ranks by) and ``lr=5.0``, chosen by ``--probe-truncate`` on
  australian, credit-a, diabetes and kr-vs-kp (none in OFS's tables). Shown,
  not counted: AdaGrad with the paper's ``|w|`` truncation and eta (the
  previous run's variant). RAND and PE_trun (perceptron baselines) have no
  step to adapt.
- FESL (every method, the synthetic sets of Table 2, B = 10, c chosen per data
  set on held-out runs as the FESL report does): ``base="adagrad"`` with
  lr = 1/c searched per data set on the held-out runs exactly as the FESL
  report searches c for the paper's OGD. Shown beside it, not counted:
  ``base="adagrad"`` with ``lr=0.1`` (AdaGrad's library default),
  ``base="ftrl"`` with ``lr=0.1`` (FTRL's usual alpha), and ``base="nag"`` at
  ``lr=0.5`` (VW's rate) and with lr searched as the counted variant.

Each cell gets the paired t-test and Wilcoxon signed-rank test of the variant
against the faithful run (evofeat.evaluate.stats.paired_tests, alpha 0.05);
a *win* is the variant better with the t-test rejecting equality. A second
count reads the target as "some adaptive variant": a cell counts when any
variant run for its paper (counted or shown) wins at 0.05 / k, k the number
of variants of that paper (Bonferroni), so trying more variants cannot
inflate it. The
results go to ``docs/reports/investigations/adaptive_variants.{md,json}``;
runs are cached per (setting, repeat) in ``--cache`` so a run resumes. With
``--papers`` naming some of the three, the other papers' cells already in
the JSON are kept (merged), so one paper can be rerun alone.

    python benchmarks/investigations/adaptive_variants.py [--repeats 20] [--fesl-repeats 10]
        [--papers stsd,ofs,fesl] [--cache /tmp/adaptive_variants.json]

Needs the shared data folder (``EVOFEAT_DATA``). About 15 minutes of one core
with the full repeats.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.evaluate.stats import paired_tests
from evofeat.experiments import protocols
from evofeat.report import published

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reports" / "investigations" / "adaptive_variants"
STSD_MODE = {
    "STSD": "stsd",
    "STSD-I": "stsd-i",
    "STSD-II": "stsd-ii",
    "STSD-I-all": "stsd-i-all",
    "STSD-I-rand": "stsd-i-rand",
    "STSD-I-per": "stsd-i-per",
}
OFS_DATA = {"svmguid3": "svmguide3"}  # the OFS paper's spelling -> ours
FESL_METHOD = {
    "NOGD": "nogd",
    "ROGD-u": "rogd-u",
    "ROGD-f": "rogd-f",
    "FESL-c": "fesl-c",
    "FESL-s": "fesl-s",
}
#: c of tau = 1 / (c sqrt(t)) per data set, as chosen on the held-out runs by the FESL report
#: (docs/reports/fesl/report.md, "Step size: the c search").
FESL_C = {
    "australian": 10,
    "credit-a": 1,
    "credit-g": 100,
    "diabetes": 1,
    "dna": 50,
    "german": 100,
    "kr-vs-kp": 1,
    "splice": 10,
    "svmguide3": 1,
}
#: the counted variant of each paper. OFS: chosen by ``--probe-truncate`` (data sets outside OFS's
#: tables). FESL: AdaGrad with lr = 1/c searched per data set on the held-out runs, exactly as the
#: FESL report searches c for the paper's OGD (declared before this run looked at Table 2; the
#: lr is filled in per data set by the search, LR_SEARCHED stands for it in the meta).
LR_SEARCHED = "1/c, c searched on the held-out runs"
VARIANTS: dict[str, dict[str, Any]] = {
    "stsd": {"step": "adagrad"},
    "ofs": {"step": "adagrad", "lr": 5.0, "truncate_by": "sum"},
    "fesl": {"base": "adagrad", "lr": LR_SEARCHED},
}
#: shown beside the counted variant, not counted. STSD: the paper's tau (and C) in AdaGrad's metric
#: (``step="adagrad-tau"``, no parameter of its own), added after the counted results were seen.
#: OFS: AdaGrad with the paper's |w| truncation and
#: eta (the previous run's counted variant); the counted truncation at the paper's eta; and the
#: counted variant with the paper's decay 1 - 0.2 * 0.01 and radius 10 (l2 = 0.0004: with lr = 5
#: the counted one decays w by 1 - 5 * 0.01 a row), added after the counted results were seen.
#: FESL: over AdaGrad at lr 0.1 (the previous run's counted variant), over FTRL at alpha 0.1, and
#: over NAG (added after the counted variant was declared and run) at VW's rate 0.5 and with lr =
#: 1/c searched on the held-out runs as the counted one.
EXTRA: dict[str, dict[str, dict[str, Any]]] = {
    "stsd": {"adagrad-tau": {"step": "adagrad-tau"}},
    "ofs": {
        "adagrad-truncate-w": {"step": "adagrad"},
        "sum-lr-0.2": {"step": "adagrad", "truncate_by": "sum"},
        "sum-paper-decay": {
            "step": "adagrad",
            "truncate_by": "sum",
            "lr": 5.0,
            "l2": 0.0004,
            "radius": 10.0,
        },
    },
    "fesl": {
        "adagrad-lr-0.1": {"base": "adagrad", "lr": 0.1},
        "ftrl-lr-0.1": {"base": "ftrl", "lr": 0.1},
        "nag-lr-0.5": {"base": "nag", "lr": 0.5},
        "nag-searched": {"base": "nag", "lr": LR_SEARCHED},
    },
}
EXTRA_NAME = {
    "adagrad-tau": "the paper's tau in AdaGrad's metric",
    "adagrad-truncate-w": "AdaGrad, lr 0.2, truncation by abs(w)",
    "sum-lr-0.2": "AdaGrad, lr 0.2, truncation by abs(w) sqrt(G)",
    "sum-paper-decay": "as counted, the paper's decay and ball (l2 0.0004, radius 10)",
    "adagrad-lr-0.1": "AdaGrad base, lr 0.1",
    "ftrl-lr-0.1": "FTRL base, lr 0.1",
    "nag-lr-0.5": "NAG base, lr 0.5",
    "nag-searched": "NAG base, lr searched",
}


class Runs:
    """Per-repeat metric of each run setting, cached in a JSON file as they finish."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, list[float]] = json.loads(path.read_text()) if path.exists() else {}
        self.last_save = time.time()

    def get(self, key: str, repeats: int, one: Callable[[int], float]) -> np.ndarray:
        vals = self.data.setdefault(key, [])
        for r in range(len(vals), repeats):
            vals.append(float(one(r)))
            if time.time() - self.last_save > 20:
                self.save()
        return np.array(vals[:repeats])

    def save(self) -> None:
        self.path.write_text(json.dumps(self.data))
        self.last_save = time.time()


def _protocol_run(
    protocol: str,
    dataset: str,
    learner: str,
    params: dict[str, Any],
    metric: str,
    scenario_params: dict[str, Any] | None = None,
    seed: int = 0,
) -> Callable[[int], float]:
    st = protocols.setting(
        protocol, dataset, learner, params=params, scenario_params=scenario_params or {}
    )

    def one(r: int) -> float:
        res = protocols.run_setting(learner, st, r, seed=seed)
        if metric == "mistakes":
            return float(res.mistakes)
        if metric == "mistake_rate":
            return res.mistakes / res.n_rows
        return float(res.accuracy)

    return one


def _key(*parts: Any) -> str:
    return json.dumps(parts, sort_keys=True, default=str)


def _compare(
    runs: Runs,
    where: dict[str, Any],
    protocol: str,
    learner: str,
    base: dict[str, Any],
    variants: dict[str, dict[str, Any]],
    repeats: int,
    metric: str,
    scenario_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run ``learner`` under ``protocol`` with ``base`` and each variant's parameters on top; one cell.

    ``where``: the cell's paper, table, dataset, algorithm, setting and published mean and std.
    ``variants`` maps "faithful" ({}), "adaptive" (counted) and any shown extra to parameters.
    """
    ds = where["dataset"]
    vals, commands = {}, {}
    for name, extra in variants.items():
        params = {**base, **extra}
        vals[name] = runs.get(
            _key(protocol, ds, learner, params, metric),
            repeats,
            _protocol_run(protocol, ds, learner, params, metric, scenario_params),
        )
        commands[f"{name}_command"] = protocols.command(
            protocol, ds, learner, repeats, params=params
        )
    cell = _cell(where, vals, metric, commands)
    print(_line(cell), flush=True)
    return cell


def stsd_cells(runs: Runs, repeats: int) -> list[dict[str, Any]]:
    """Table II and III on the paper's text protocol (stsd-paper), B of the cell (-all: 0.5)."""
    out = []
    for table, records in published("stsd").items():
        if table not in ("table2", "table3"):
            continue
        for rec in records:
            mode = STSD_MODE[rec["algorithm"]]
            where = {
                "paper": "stsd",
                "table": table,
                "dataset": rec["dataset"],
                "algorithm": rec["algorithm"],
                "setting": f"B={rec['B']}",
                "paper_mean": rec["mistakes_mean"],
                "paper_std": rec["mistakes_std"],
            }
            base = {"budget": 0.5 if mode == "stsd-i-all" else rec["B"]}
            variants = {"faithful": {}, "adaptive": VARIANTS["stsd"], **EXTRA["stsd"]}
            out.append(
                _compare(runs, where, "stsd-paper", mode, base, variants, repeats, "mistakes")
            )
    return out


def ofs_cells(runs: Runs, repeats: int) -> list[dict[str, Any]]:
    """OFS's rows of Table 2 (B = 0.1 d) and Table 4 (Colon, B = rho d); Table 3 (CIFAR-10) is absent."""
    pub = published("ofs")
    todo = [
        ("table2", rec, OFS_DATA.get(rec["dataset"], rec["dataset"]), 0.1, "mistakes")
        for rec in pub["table2"]
    ]
    todo += [("table4", rec, "colon", rec["rho"], "mistake_rate") for rec in pub["table4"]]
    out = []
    for table, rec, ds, B, metric in todo:
        if rec["algorithm"] != "OFS":
            continue
        where = {
            "paper": "ofs",
            "table": table,
            "dataset": ds,
            "algorithm": "OFS",
            "setting": "B=0.1 d" if table == "table2" else f"rho={B}",
            "paper_mean": rec[f"{metric}_mean"],
            "paper_std": rec[f"{metric}_std"],
        }
        variants = {"faithful": {}, "adaptive": VARIANTS["ofs"], **EXTRA["ofs"]}
        out.append(_compare(runs, where, "ofs", "ofs", {"budget": B}, variants, repeats, metric))
    return out


def fesl_cells(runs: Runs, repeats: int) -> list[dict[str, Any]]:
    """Table 2's synthetic cells at the report's c (B = 10, T1 = n/2, seeds 0..repeats-1)."""
    from evofeat.papers import fesl

    out = []
    for rec in published("fesl")["table2"]:
        ds = rec["dataset"]
        if rec["group"] != "synthetic":
            continue
        n = protocols.load_setting(ds, None, None, "none", "evofeat.papers.fesl:dataset").n_rows
        where = {
            "paper": "fesl",
            "table": "table2",
            "dataset": ds,
            "algorithm": rec["algorithm"],
            "setting": f"c={FESL_C[ds]}, B=10",
            "paper_mean": rec["accuracy_mean"],
            "paper_std": rec["accuracy_std"],
        }
        base = {
            "lr": 1.0 / FESL_C[ds],
            "overlap": fesl.OVERLAP,
            "horizon": n - n // 2,
            "loss": "logistic",
        }
        variants: dict[str, dict[str, Any]] = {"faithful": {}}
        chosen = {}
        for name, params in {"adaptive": VARIANTS["fesl"], **EXTRA["fesl"]}.items():
            if params.get("lr") == LR_SEARCHED:
                chosen[name] = _fesl_search(runs, ds, base, params)
                params = {**params, "lr": chosen[name]}
            variants[name] = params
        out.append(
            _compare(
                runs,
                where,
                "fesl",
                FESL_METHOD[rec["algorithm"]],
                base,
                variants,
                repeats,
                "accuracy",
                {"overlap": fesl.OVERLAP},
            )
        )
        out[-1].update({f"{name}_lr": lr for name, lr in chosen.items()})
    return out


def _fesl_search(runs: Runs, ds: str, base: dict[str, Any], variant: dict[str, Any]) -> float:
    """lr = 1/c of FESL over ``variant``'s base, chosen as the FESL report chooses c for OGD.

    The best mean accuracy over the five methods and the held-out search runs
    (seed SEARCH_SEED + r, never a reported run), c in the paper's grid; ties: the smaller c.
    """
    from evofeat.papers import fesl

    means = []
    for c in fesl.C_GRID:
        params = {**base, **variant, "lr": 1.0 / c}
        accs = [
            runs.get(
                _key("fesl-search", ds, m, params),
                fesl.SEARCH_RUNS,
                _protocol_run(
                    "fesl",
                    ds,
                    m,
                    params,
                    "accuracy",
                    {"overlap": fesl.OVERLAP},
                    seed=fesl.SEARCH_SEED,
                ),
            )
            for m in fesl.METHODS
        ]
        means.append(float(np.mean(accs)))
    return 1.0 / fesl.C_GRID[int(np.argmax(means))]  # argmax: the first (smaller c) among ties


def _cell(
    where: dict[str, Any], vals: dict[str, np.ndarray], metric: str, commands: dict[str, str]
) -> dict[str, Any]:
    higher = metric == "accuracy"
    test = paired_tests(vals["adaptive"], vals["faithful"], higher_is_better=higher)
    cell = {
        **where,
        "metric": metric,
        "higher_is_better": higher,
        "repeats": int(vals["faithful"].size),
        **commands,
        **{f"{k}_runs": v.tolist() for k, v in vals.items()},
        **{f"{k}_mean": float(v.mean()) for k, v in vals.items()},
        **{f"{k}_std": float(v.std(ddof=1)) if v.size > 1 else math.nan for k, v in vals.items()},
        "t_pvalue": test["t_pvalue"],
        "wilcoxon_pvalue": test["wilcoxon_pvalue"],
        "outcome": test["t_outcome"],
        "wilcoxon_outcome": test["wilcoxon_outcome"],
    }
    for name in set(vals) - {"faithful", "adaptive"}:
        ex = paired_tests(vals[name], vals["faithful"], higher_is_better=higher)
        cell.update({f"{name}_t_pvalue": ex["t_pvalue"], f"{name}_outcome": ex["t_outcome"]})
    return cell


def _line(c: dict[str, Any]) -> str:
    return (
        f"{c['paper']} {c['table']} {c['dataset']} {c['algorithm']} {c['setting']}: "
        f"paper {c['paper_mean']} faithful {c['faithful_mean']:.4g} adaptive "
        f"{c['adaptive_mean']:.4g} p={c['t_pvalue']:.3g} {c['outcome']}"
    )


def _fmt(mean: float, std: float, higher: bool, rate: bool) -> str:
    if higher or rate:
        return f"{mean:.3f} ± {std:.3f}"
    return f"{mean:.1f} ± {std:.1f}"


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.0e}"


def _any_variant_wins(c: dict[str, Any]) -> bool:
    """Whether some variant of the cell (counted or shown) wins at 0.05 / k (Bonferroni over k)."""
    names = ["", *(f"{x}_" for x in EXTRA.get(c["paper"], {}))]
    alpha = 0.05 / len(names)
    for x in names:
        mean, p = c[f"{x or 'adaptive_'}mean"], c[f"{x}t_pvalue"]
        better = mean > c["faithful_mean"] if c["higher_is_better"] else mean < c["faithful_mean"]
        if better and p < alpha:
            return True
    return False


def _tally(cells: list[dict[str, Any]], key: str = "outcome") -> dict[str, int]:
    return {o: sum(c[key] == o for c in cells) for o in ("win", "tie", "loss")}


def _breakdown(cells: list[dict[str, Any]]) -> str:
    """Wins / ties / losses of the adaptive variant by data set and by algorithm."""
    parts = []
    for field in ("dataset", "algorithm"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for c in cells:
            groups.setdefault(c[field], []).append(c)
        tallies = ", ".join(
            f"{k} {t['win']}/{t['tie']}/{t['loss']}"
            for k, t in ((k, _tally(v)) for k, v in groups.items())
        )
        parts.append(f"By {field} (wins/ties/losses): {tallies}.")
    return " ".join(parts)


def render(cells: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    tot = _tally(cells)
    n = len(cells)
    lines = [
        "# Adaptive variants of STSD, OFS and FESL against the papers' rules (issue 15)",
        "",
        "*Produced by `python benchmarks/investigations/adaptive_variants.py "
        f"--repeats {meta['repeats']} --fesl-repeats {meta['fesl_repeats']}` ("
        + "; ".join(
            f"{p.upper()}'s cells on {r['date']}, commit {r['commit']}"
            for p, r in meta.get("produced", {}).items()
        )
        + "); the numbers are also in `adaptive_variants.json` beside this page.*",
        "",
        "Each published cell's method runs twice over the same row orders as its "
        "reproduction report: as the paper states it (*faithful*, the report's number) "
        "and with AdaGrad's per-coordinate steps (Duchi, Hazan & Singer 2011; *adaptive*, "
        "not the papers' rule). A cell is a *win* when the adaptive variant is better and "
        "the paired t-test over the runs rejects equality at 0.05 (the Wilcoxon "
        "signed-rank test is shown beside it), a *loss* when it is worse and rejected, "
        "else a *tie*. One setting per variant, never tuned on a table's data:",
        "",
        "- **STSD** (paper-text protocol `stsd-paper`: 10 stages, C = 0.1, radius 30, 20 "
        'row orders): `step="adagrad"`, `lr=1.0` (chosen once from {0.01, 0.03, 0.1, '
        "0.3, 1, 3, 10} on australian, credit-a, diabetes and kr-vs-kp, 5 orders each, "
        "none of them in STSD's tables: the lowest mean on credit-a and kr-vs-kp, within "
        "0.2 mistakes of the lowest on australian; lr = 3 was lowest on diabetes; "
        "`--probe-lr` reprints that probe). The update rows, the L1-ball scaling and the "
        "truncation are the paper's; the PA rule (and C) no longer enters, so STSD, "
        "STSD-I and STSD-II share one adaptive run per data set. Shown, not counted, and added "
        'after the counted results were seen: `step="adagrad-tau"`, the paper\'s tau (and C) '
        "with ||x||^2 measured in AdaGrad's metric D = diag(1 / sqrt(eps + G)) and the step "
        "tau y D x (no parameter of its own).",
        "- **OFS** (protocol `ofs`: z-scored columns, unit rows, 20 row orders): "
        '`step="adagrad"`, `truncate_by="sum"`, `lr=5.0`. AdaGrad\'s step, and the truncation '
        "keeps the B largest |w_i| sqrt(G_i) instead of |w_i|: AdaGrad divides each feature's "
        "running sum by sqrt(G_i), and this undoes it, so the features are ranked by their "
        "(decayed) gradient sums as the paper's |w_i| ranks them. Chosen by `--probe-truncate` "
        "from truncate_by in {weight, sum, metric} x lr in {0.05, 0.2, 1, 5, 25} on australian, "
        "credit-a, diabetes and kr-vs-kp (10 orders each, none of them in OFS's tables): the "
        "lowest mean of mistakes relative to the paper's step (0.856: australian 267 -> 191, "
        "credit-a 206 -> 156, diabetes 282 -> 271, kr-vs-kp 1147 -> 1142); the grid first ended "
        "at 1, then 5, and was extended while the best sat on its edge. The decay 1 - lr l2, "
        "the L2 ball (radius 10) and l2 = 0.01 are the paper's, so lr = 5 also decays w by 5% a "
        "row. Shown, not counted: AdaGrad with the paper's eta and |w| truncation (the previous "
        "run's variant); the counted truncation at the paper's eta 0.2; and, designed after the "
        "counted results were seen (so it cannot count), the counted variant with the paper's "
        "decay and ball: l2 = 0.0004 and radius 10, so that 1 - lr l2 = 0.998 as in the paper. "
        "RAND and PE_trun are perceptron baselines with no step to adapt: their "
        "cells are not run here.",
        "- **FESL** (protocol `fesl`: the synthetic sets of Table 2, B = 10, T1 = n/2, "
        f"{meta['fesl_repeats']} runs, c per data set as the FESL report chose it on "
        'held-out runs): `base="adagrad"` with lr = 1/c searched per data set over the '
        "paper's grid c in {1, 10, 50, 100, 150} on the held-out runs (never a reported run), "
        "as the FESL report searches c for the paper's OGD (the faithful runs' c); the lr "
        "chosen is shown beside each adaptive number. Declared the counted variant before this "
        "run looked at Table 2 (the previous run had counted AdaGrad at lr = 0.1 and shown this "
        'one). Shown beside it and not counted: `base="adagrad"`, `lr=0.1` (AdaGrad\'s library '
        'default), `base="ftrl"`, `lr=0.1` (FTRL\'s usual alpha), and, added after the counted '
        'variant was run, `base="nag"` (normalised adaptive gradient, Ross, Mineiro & Langford '
        "2013) at `lr=0.5` (Vowpal Wabbit's default rate) and with lr = 1/c searched on the "
        "held-out runs as the counted variant.",
        "",
        "## Count against the target",
        "",
        f"Over the **{n} cells run**, the adaptive variant wins **{tot['win']}**, ties "
        f"{tot['tie']} and loses {tot['loss']} (paired t-test); Wilcoxon: "
        + ", ".join(f"{v} {k}" for k, v in _tally(cells, "wilcoxon_outcome").items())
        + ".",
        "",
        "| paper | tables | published cells | run here | adaptive wins | ties | losses |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for paper, tables in meta["published"].items():
        sub = [c for c in cells if c["paper"] == paper]
        t = _tally(sub)
        lines.append(
            f"| {paper.upper()} | {', '.join(tables)} | {sum(tables.values())} | {len(sub)} | "
            f"{t['win']} | {t['tie']} | {t['loss']} |"
        )
        for name in EXTRA.get(paper, {}):
            t = _tally(sub, f"{name}_outcome")
            lines.append(
                f"| {paper.upper()}, {EXTRA_NAME[name]} (shown, not counted) | | | {len(sub)} | "
                f"{t['win']} | {t['tie']} | {t['loss']} |"
            )
    total_pub = sum(sum(t.values()) for t in meta["published"].values())
    target = "met" if tot["win"] * 2 >= total_pub else "not met"
    anyv = {
        p: [c for c in cells if c["paper"] == p and _any_variant_wins(c)] for p in meta["published"]
    }
    n_any = sum(len(v) for v in anyv.values())
    lines += [
        "",
        f"The target (an adaptive variant beats the paper's method on at least half of the "
        f"published cells) is **{target}**: {tot['win']} wins of {total_pub} published cells "
        f"of these tables ({tot['win']} of the {n} run here). Cells not run: " + meta["not_run"],
        "",
        "Read as *some* adaptive variant (a cell counts when any variant run for its paper, "
        "counted or shown, wins at 0.05 / k, k the number of that paper's variants: "
        + ", ".join(
            f"{p.upper()} k = {1 + len(EXTRA.get(p, {}))}: {len(v)}" for p, v in anyv.items()
        )
        + f"), the variants win **{n_any}** of the {n} cells run here, "
        + ("at least" if 2 * n_any >= n else "short of")
        + f" half of them ({(n + 1) // 2}), and {n_any} of the {total_pub} published cells.",
        "",
    ]
    for paper, title in (
        ("stsd", "STSD, Tables II and III (mistakes, lower is better)"),
        ("ofs", "OFS, Tables 2 and 4 (mistakes; Table 4: mistake rate)"),
        ("fesl", "FESL, Table 2 (accuracy after the switch, higher is better)"),
    ):
        sub = [c for c in cells if c["paper"] == paper]
        if not sub:
            continue
        lines += [f"## {title}", "", _breakdown(sub), ""]
        extras = list(EXTRA.get(paper, {}))
        head = [
            "table",
            "data",
            "algorithm",
            "setting",
            "paper",
            "faithful (ours)",
            "adaptive (ours)",
            "t-test p",
            "Wilcoxon p",
            "adaptive vs faithful",
        ]
        for name in extras:
            head += [f"{EXTRA_NAME[name]} (ours)", "t-test p", "vs faithful"]
        lines += ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        for c in sub:
            rate = c["metric"] == "mistake_rate"
            lr = f" (lr {c['adaptive_lr']:g})" if "adaptive_lr" in c else ""
            row = [
                c["table"],
                c["dataset"],
                c["algorithm"],
                c["setting"],
                _fmt(c["paper_mean"], c["paper_std"], c["higher_is_better"], rate),
                _fmt(c["faithful_mean"], c["faithful_std"], c["higher_is_better"], rate),
                _fmt(c["adaptive_mean"], c["adaptive_std"], c["higher_is_better"], rate) + lr,
                _p(c["t_pvalue"]),
                _p(c["wilcoxon_pvalue"]),
                f"**{c['outcome']}**" if c["outcome"] == "win" else c["outcome"],
            ]
            for name in extras:
                lr_x = f" (lr {c[name + '_lr']:g})" if name + "_lr" in c else ""
                row += [
                    _fmt(c[f"{name}_mean"], c[f"{name}_std"], c["higher_is_better"], rate) + lr_x,
                    _p(c[f"{name}_t_pvalue"]),
                    c[f"{name}_outcome"],
                ]
            lines.append("| " + " | ".join(str(v) for v in row) + " |")
        lines.append("")
    lines += ["## Findings", "", meta.get("findings", "(see the tables)"), ""]
    return "\n".join(lines)


#: data sets outside the STSD and OFS tables, and the grid, of the probe that chose the lr
PROBE_DATA = ("australian", "credit-a", "diabetes", "kr-vs-kp")
PROBE_LR = {"stsd": (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0), "ofs": (0.01, 0.05, 0.2, 1.0)}
PROBE_REPEATS = 5


def probe_lr() -> None:
    """Mean mistakes of the paper's step and of AdaGrad's at each lr, 5 orders, off-table data.

    STSD-I (protocol stsd-paper, B = 0.5) and OFS (protocol ofs); the lr of the variants was read
    off this once (STSD: 1.0, the lowest on credit-a and kr-vs-kp and within 0.2 of the lowest
    on australian; OFS: AdaGrad trails the paper's step at every lr on three sets, so the
    paper's 0.2 was kept).
    """
    for paper, protocol, learner in (("stsd", "stsd-paper", "stsd-i"), ("ofs", "ofs", "ofs")):
        print(f"{learner} ({protocol}): paper step, then AdaGrad at lr = {PROBE_LR[paper]}")
        for ds in PROBE_DATA:
            row = []
            extras: list[dict[str, Any]] = [{}]
            extras += [{"step": "adagrad", "lr": lr} for lr in PROBE_LR[paper]]
            for extra in extras:
                one = _protocol_run(protocol, ds, learner, extra, "mistakes")
                row.append(float(np.mean([one(r) for r in range(PROBE_REPEATS)])))
            print(f"  {ds}: " + " ".join(f"{v:.1f}" for v in row), flush=True)


#: the probe that chose OFS's truncate_by and lr (data sets outside OFS's tables, 10 orders each)
PROBE_TRUNCATE = ("weight", "sum", "metric")
PROBE_OFS_LR = (0.05, 0.2, 1.0, 5.0, 25.0)
PROBE_TRUNCATE_REPEATS = 10


def probe_truncate(paper_decay: bool = False) -> tuple[str, float]:
    """Mean mistakes of OFS (protocol ofs, B = 0.1 d) with AdaGrad at each truncate_by and lr.

    On PROBE_DATA (none of them in OFS's tables), 10 orders each; the setting chosen is the
    one with the lowest mean over the four sets of its mistakes divided by the paper step's.
    ``paper_decay``: each lr with l2 = 0.002 / lr and radius 10, so the decay 1 - lr l2 and the
    ball stay the paper's (a diagnostic run after the counted variant's results were seen).
    """

    def relative(extra: dict[str, Any]) -> list[float]:
        out = []
        for ds in PROBE_DATA:
            one = _protocol_run("ofs", ds, "ofs", extra, "mistakes")
            out.append(float(np.mean([one(r) for r in range(PROBE_TRUNCATE_REPEATS)])))
        return out

    paper = relative({})
    print("ofs (protocol ofs), mean mistakes on " + ", ".join(PROBE_DATA), flush=True)
    print(f"  paper step: {' '.join(f'{v:.1f}' for v in paper)}", flush=True)
    best, best_score = ("weight", 0.2), math.inf
    for by in PROBE_TRUNCATE:
        for lr in PROBE_OFS_LR:
            extra: dict[str, Any] = {"step": "adagrad", "lr": lr, "truncate_by": by}
            if paper_decay:
                extra.update(l2=0.2 * 0.01 / lr, radius=10.0)
            row = relative(extra)
            score = float(np.mean([r / p for r, p in zip(row, paper, strict=True)]))
            print(
                f"  adagrad truncate_by={by} lr={lr}: {' '.join(f'{v:.1f}' for v in row)}"
                f"  (relative to the paper step: {score:.3f})",
                flush=True,
            )
            if score < best_score:
                best, best_score = (by, lr), score
    print(f"chosen: truncate_by={best[0]!r}, lr={best[1]}", flush=True)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20, help="row orders for STSD and OFS (20)")
    ap.add_argument("--fesl-repeats", type=int, default=10, help="runs for FESL (10)")
    ap.add_argument("--papers", default="stsd,ofs,fesl")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/adaptive_variants_runs.json"))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--findings",
        type=Path,
        default=Path(__file__).with_name("adaptive_variants_findings.md"),
        help="a Markdown file whose text goes under Findings (adaptive_variants_findings.md)",
    )
    ap.add_argument(
        "--probe-lr",
        action="store_true",
        help="only print the probe that chose the variants' lr (data sets outside the tables)",
    )
    ap.add_argument(
        "--probe-truncate",
        action="store_true",
        help="only print the probe that chose OFS's truncate_by and lr (outside the tables)",
    )
    ap.add_argument(
        "--paper-decay",
        action="store_true",
        help="with --probe-truncate: keep the paper's decay and ball at every lr (diagnostic)",
    )
    args = ap.parse_args(argv)
    if args.probe_lr:
        probe_lr()
        return 0
    if args.probe_truncate:
        probe_truncate(args.paper_decay)
        return 0
    import subprocess

    runs = Runs(args.cache)
    papers = args.papers.split(",")
    cells: list[dict[str, Any]] = []
    try:
        if "stsd" in papers:
            cells += stsd_cells(runs, args.repeats)
        if "ofs" in papers:
            cells += ofs_cells(runs, args.repeats)
        if "fesl" in papers:
            cells += fesl_cells(runs, args.fesl_repeats)
    finally:
        runs.save()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    date = time.strftime("%Y-%m-%d", time.gmtime())
    produced = {p: {"commit": commit, "date": date} for p in papers}
    old = args.out.with_suffix(".json")
    if old.exists():  # the papers not rerun keep their stored cells
        stored = json.loads(old.read_text())
        kept = [c for c in stored["cells"] if c["paper"] not in papers]
        order = {"stsd": 0, "ofs": 1, "fesl": 2}
        cells = sorted(kept + cells, key=lambda c: order[c["paper"]])  # stable within a paper
        m = stored["meta"]
        before = m.get("produced") or {p: {"commit": m["commit"], "date": m["date"]} for p in order}
        produced = {**{p: before[p] for p in {c["paper"] for c in kept}}, **produced}
    pub = {p: published(p) for p in ("stsd", "ofs", "fesl")}
    meta = {
        "repeats": args.repeats,
        "fesl_repeats": args.fesl_repeats,
        "date": date,
        "commit": commit,
        "produced": produced,
        "variants": VARIANTS,
        "extra": EXTRA,
        "published": {
            "stsd": {
                "Table II": len(pub["stsd"]["table2"]),
                "Table III": len(pub["stsd"]["table3"]),
            },
            "ofs": {f"Table {i}": len(pub["ofs"][f"table{i}"]) for i in (2, 3, 4)},
            "fesl": {"Table 2": len(pub["fesl"]["table2"])},
        },
        "not_run": (
            "OFS's RAND and PE_trun cells (no step to adapt: 12 of Table 2, 14 of Table 4), "
            "OFS Table 3 (CIFAR-10 is not in the shared data: 21), FESL's Reuters cells "
            "(only a 1200-document sample is here, not comparable, 3 runs: 100)."
        ),
    }
    if args.findings is not None and args.findings.exists():
        meta["findings"] = args.findings.read_text().strip()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "cells": cells}, indent=1))
    args.out.with_suffix(".md").write_text(render(cells, meta))
    print(f"wrote {args.out.with_suffix('.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
