"""OFS Table 8's budget chosen again on held-out row orders, then scored on the 20 scored ones.

``ofs_table8.py`` found that a larger budget (d/2 to d) with lambda = 1e-4 and
RAND redrawn after each mistake brings Table 8 near the paper, but that budget
was picked per cell after seeing 2-3 permutations that are among the scored
ones (post hoc). Here the same choice is made on row orders **disjoint** from
the 20 scored ones, with the rule fixed before the run, and only then scored.

Declared before the run (issue 23):

- data: ijcnn1 and covtype-binary, preprocessed as the authors' ``Experiment.m``
  (each column z-scored, each row scaled to unit norm: ``zscore+unit-norm``);
  a score of 0 is a mistake (``y f <= 0``);
- scored orders: ``default_rng(r).permutation(n)`` for r = 0..19 (the 20 runs
  of ``ofs_table8.py``; its post-hoc pick saw r = 0..2); held-out orders:
  r = 1000..1000+H-1 (default H = 4), disjoint from them;
- candidates per cell (data set x algorithm): PE_trun at every B of
  ``BUDGETS``; RAND redrawn after each mistake (the authors' ``RND.m``) at every
  B; OFS (eta 0.2, with the shrink) at every B and lambda in {0.01, 1e-4};
- rule: the candidate whose held-out mean is closest to the paper's mean (ties:
  the smaller B, then the larger lambda);
- verdict on the 20 scored orders, by the paper's std: within 2 sigma is
  "reproduces with a declared setting", otherwise "does not reproduce".

The choice is made with the small re-implementations of ``ofs_table8.py``
(compiled, independent of evofeat); the chosen setting is then scored both with
them and with evofeat's learners, ``evofeat run --protocol ofs ... --repeats 20``
(seeds 0..19, the report's row orders; ``--evofeat`` adds those runs to the
written results, each row's command is printed). The verdict is evofeat's.

    EVOFEAT_DATA=../shared/datasets python benchmarks/investigations/ofs_table8_heldout.py [--heldout 4] [--scored 20]
    EVOFEAT_DATA=../shared/datasets python benchmarks/investigations/ofs_table8_heldout.py --evofeat [--from DIR]

writes ``benchmarks/investigations/results/ofs_table8_heldout.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ofs_table8 import PAPER, load, ofs, pe_trun, preprocess, rand_sel  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
HELDOUT_SEED0 = 1000
LAMBDAS = (0.01, 1e-4)
ETA = 0.2


def budgets(d: int) -> list[int]:
    """The budgets tried: Table 2's round(0.1 d), small ones, d/2 and d (as ``ofs_table8.py``)."""
    return sorted({b for b in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, d // 2, d) if 1 <= b <= d})


def run(alg: str, X: np.ndarray, y: np.ndarray, order: np.ndarray, seed: int, cand: dict) -> int:
    """Mistakes of one algorithm on one row order (RAND's draws seeded by the order's seed)."""
    if alg == "PE_trun":
        return int(pe_trun(X, y, order, cand["B"], False))
    if alg == "RAND":
        return int(rand_sel(X, y, order, cand["B"], 1, seed))
    return int(ofs(X, y, order, cand["B"], ETA, cand["lambda"], True))


def candidates(alg: str, d: int) -> list[dict]:
    if alg == "OFS":
        return [{"B": b, "lambda": lam} for b in budgets(d) for lam in LAMBDAS]
    return [{"B": b} for b in budgets(d)]


def choose(alg: str, name: str, held: list[dict]) -> dict:
    """The declared rule: closest held-out mean to the paper's, ties to smaller B, larger lambda."""
    mu = PAPER[name][alg][0]
    return min(held, key=lambda h: (abs(h["mean"] - mu), h["B"], -h.get("lambda", 0.0)))


LEARNER = {"PE_trun": "pe-trun", "RAND": "rand", "OFS": "ofs"}


def evofeat_command(name: str, alg: str, chosen: dict, repeats: int) -> str:
    """The ``evofeat run`` line of a chosen setting (RAND with the authors' per-mistake draw)."""
    words = f"evofeat run --protocol ofs --learner {LEARNER[alg]} --dataset {name} "
    words += f"--repeats {repeats} --param budget_count={chosen['B']}"
    if alg == "RAND":
        words += " --param draw=per-mistake"
    if "lambda" in chosen:
        words += f" --param l2={chosen['lambda']:g}"
    return words


def score_evofeat(result: dict, src: Path | None) -> None:
    """Run (or read from ``src/<data>-<learner>.json``) each chosen setting with evofeat's learner."""
    n = result["scored_seeds"][1] + 1
    for c in result["cells"]:
        cmd = evofeat_command(c["dataset"], c["algorithm"], c["chosen"], n)
        if src is not None:
            res = json.loads((src / f"{c['dataset']}-{LEARNER[c['algorithm']]}.json").read_text())
        else:
            out = subprocess.run(
                [*shlex.split(cmd), "--format", "json"], check=True, capture_output=True, text=True
            ).stdout
            res = json.loads(out)
        v = np.asarray(res["mistakes"]["values"], dtype=float)
        mu, sd = c["paper"]
        m, s = float(v.mean()), float(v.std(ddof=1))
        c["evofeat"] = {"command": cmd, "values": v.tolist(), "mean": m, "std": s,
                        "z": (m - mu) / sd, "std_ratio": s / sd}  # fmt: skip
        c["status"] = (
            "reproduces with a declared setting"
            if abs(c["evofeat"]["z"]) <= 2
            else "does not reproduce"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--heldout", type=int, default=4, help="held-out row orders (seeds 1000..)")
    ap.add_argument("--scored", type=int, default=20, help="scored row orders (seeds 0..)")
    ap.add_argument("--data", default="ijcnn1,covtype-binary")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--evofeat", action="store_true", help="score the written choices with evofeat")
    ap.add_argument(
        "--from", dest="src", type=Path, help="with --evofeat: read the runs' JSON here"
    )
    a = ap.parse_args(argv)
    if a.evofeat:
        result = json.loads((a.out / "ofs_table8_heldout.json").read_text())
        a.heldout = result["heldout_seeds"][1] - result["heldout_seeds"][0] + 1
        a.scored = result["scored_seeds"][1] + 1
        score_evofeat(result, a.src)
        (a.out / "ofs_table8_heldout.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
        (a.out / "ofs_table8_heldout.md").write_text(render(result, a), "utf-8")
        return 0
    t0 = time.time()
    result: dict = {
        "heldout_seeds": [HELDOUT_SEED0, HELDOUT_SEED0 + a.heldout - 1],
        "scored_seeds": [0, a.scored - 1],
        "cells": [],
    }
    for name in a.data.split(","):
        X0, y = load(name)
        X = preprocess(X0, "zscore+unit-norm", False)
        n, d = X.shape
        rng_orders = {
            s: np.random.default_rng(s).permutation(n)
            for s in [*range(a.scored), *range(HELDOUT_SEED0, HELDOUT_SEED0 + a.heldout)]
        }
        held_seeds = list(range(HELDOUT_SEED0, HELDOUT_SEED0 + a.heldout))
        for alg in ("PE_trun", "RAND", "OFS"):
            held = []
            for cand in candidates(alg, d):
                vals = [run(alg, X, y, rng_orders[s], s, cand) for s in held_seeds]
                held.append({**cand, "mean": float(np.mean(vals)), "values": vals})
            pick = choose(alg, name, held)
            cand = {k: pick[k] for k in ("B", "lambda") if k in pick}
            scored = [run(alg, X, y, rng_orders[s], s, cand) for s in range(a.scored)]
            mu, sd = PAPER[name][alg]
            m, s = float(np.mean(scored)), float(np.std(scored, ddof=1))
            z = (m - mu) / sd
            cell = {
                "dataset": name,
                "algorithm": alg,
                "d": d,
                "chosen": cand,
                "heldout_mean": pick["mean"],
                "scored_mean": m,
                "scored_std": s,
                "scored_values": scored,
                "paper": [mu, sd],
                "z": z,
                "std_ratio": s / sd,
                "status": "reproduces with a declared setting"
                if abs(z) <= 2
                else "does not reproduce",
                "heldout": held,
            }
            result["cells"].append(cell)
            print(
                f"{name} {alg} chosen {cand}: held-out {pick['mean']:,.0f}; scored "
                f"{m:,.0f} ± {s:,.0f} vs paper {mu:,.1f} ± {sd} z={z:+.1f}",
                flush=True,
            )
    result["seconds"] = time.time() - t0
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "ofs_table8_heldout.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    (a.out / "ofs_table8_heldout.md").write_text(render(result, a), "utf-8")
    return 0


def render(result: dict, a: argparse.Namespace) -> str:
    lines = [
        "# OFS Table 8: the budget chosen on held-out row orders, scored on the 20",
        "",
        "Generated by `python benchmarks/investigations/ofs_table8_heldout.py "
        f"--heldout {a.heldout} --scored {a.scored}` ({result['seconds']:.0f} s, nice 19 on the "
        "shared machine). " + " ".join(__doc__.split("\n\n")[1].split()),
        "",
        "Rule and candidates as declared in the script's docstring (before the run): "
        f"held-out seeds {result['heldout_seeds'][0]}..{result['heldout_seeds'][1]}, "
        f"scored seeds {result['scored_seeds'][0]}..{result['scored_seeds'][1]}, "
        "zscore+unit-norm, RAND redrawn after each mistake, OFS eta 0.2 with lambda "
        "in {0.01, 1e-4}. z = (ours - paper) / the paper's std.",
        "",
        f"| data set | algorithm | chosen (held-out) | held-out mean | re-implementation, {a.scored} "
        "scored orders | z | evofeat, the same orders | z | evofeat's std / paper's | paper | "
        "status | command |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in result["cells"]:
        ch = ", ".join(f"{k} = {v:g}" for k, v in c["chosen"].items())
        ev = c.get("evofeat")
        evs = (
            f"{ev['mean']:,.0f} ± {ev['std']:,.0f} | {ev['z']:+.1f} | {ev['std_ratio']:.1f}x"
            if ev
            else "not run | | "
        )
        lines.append(
            f"| {c['dataset']} | {c['algorithm']} | {ch} | {c['heldout_mean']:,.0f} | "
            f"{c['scored_mean']:,.0f} ± {c['scored_std']:,.0f} | {c['z']:+.1f} | {evs} | "
            f"{c['paper'][0]:,.1f} ± {c['paper'][1]:g} | {c['status']} | "
            f"`{ev['command'] if ev else ''}` |"
        )
    n_ok = sum(c["status"].startswith("reproduces") for c in result["cells"])
    lines += [
        "",
        f"**{n_ok} of {len(result['cells'])} Table 8 cells reproduce with the declared setting "
        "chosen on held-out orders (judged on evofeat's runs where they were made, else on the "
        "re-implementation's); the others do not reproduce.**",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
