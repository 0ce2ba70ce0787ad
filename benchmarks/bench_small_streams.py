"""evofeat's whole ``prequential`` call against River's per-row loops on the leaderboard's small streams.

Issue 15 asks for at least 10x the rows/s of every peer that runs in Python
per row, on every stream. On streams of a few hundred rows the fixed cost of
a call (set-up, the stream's arrays for the compiled loop, the result)
weighs as much as the loop, so this script times exactly what the leaderboard
times (:func:`benchmarks.leaderboard.run_evofeat`: ``prequential(make(name),
stream)`` on this thread's CPU clock, a fresh learner each time, the streams
built once by :func:`benchmarks.leaderboard.build_streams` and fed to every
learner in turn) beside the River peers on the same streams, in the same run.

    python benchmarks/bench_small_streams.py                       # 4 data sets x 3 scenarios
    python benchmarks/bench_small_streams.py --datasets german --scenarios haphazard --rounds 5

Each (cell, learner) is timed on every row order; its rows/s is the median
over the orders (as the leaderboard), and the best of ``--rounds`` rounds
(each round runs every evofeat learner, then every peer), to see past the
other processes of a shared machine. ``ratio`` is evofeat's rows/s over the
peer's; ``worst`` is the smallest ratio over the peers, for each evofeat
learner and for the cell's best learner in ``benchmarks/results/leaderboard.json``
(by mean accuracy, as the leaderboard picks it; timed too when it is not listed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))  # `benchmarks.*` when run as a script

from benchmarks.leaderboard import build_streams, make_learner, run_evofeat  # noqa: E402
from benchmarks.peers import Feed, PeerUnavailable, all_peers  # noqa: E402

DATASETS = ("german", "ionosphere", "australian", "wbc")
SCENARIOS = ("trapezoidal", "evolvable", "haphazard")
LEARNERS = ("ftrl", "adagrad", "ogd", "fesl-c", "rogd-u")
PEERS = ("river:logreg", "river:perceptron", "river:pa")


def stored_best(dataset: str, scenario: str) -> str | None:
    """The cell's best evofeat learner in the stored leaderboard (highest mean accuracy), if any."""
    path = ROOT / "results" / "leaderboard.json"
    if not path.exists():
        return None
    cell = json.loads(path.read_text())["cells"].get(f"{dataset}/{scenario}", {})
    ours = {
        k.split(":", 1)[1]: float(np.mean(v["acc"]))
        for k, v in cell.get("learners", {}).items()
        if k.startswith("evofeat:") and v.get("acc")
    }
    return max(ours, key=ours.__getitem__) if ours else None


def time_cell(
    dataset: str, scenario: str, learners: list[str], peers: list[str], orders: int, rounds: int,
    preprocess: str,
) -> dict[str, Any]:  # fmt: skip
    """Rows/s of each evofeat learner (whole call, loop alone) and each peer, best of ``rounds``."""
    best = stored_best(dataset, scenario)
    if best and best not in learners:
        try:
            make_learner(best)
            learners = [*learners, best]
        except Exception:  # not a learner of this checkout (e.g. timing an older one)
            best = None
    streams = build_streams(dataset, scenario, orders, preprocess)
    feeds = [Feed.from_stream(s) for s in streams]
    catalogue = all_peers()
    whole: dict[str, list[float]] = {n: [] for n in learners}
    loop: dict[str, list[float]] = {n: [] for n in learners}
    peer: dict[str, list[float]] = {p: [] for p in peers}
    missing: dict[str, str] = {}
    for _ in range(rounds):
        for name in learners:  # as the leaderboard: one learner over every order, then the next
            runs = [run_evofeat(name, s) for s in streams]
            whole[name].append(
                float(
                    np.median([s.n_rows / c for s, (*_, c, _) in zip(streams, runs, strict=True)])
                )
            )
            loop[name].append(float(np.median([s.n_rows / lp for s, (*_, lp) in zip(streams, runs, strict=True)])))  # fmt: skip
        for key in peers:
            if key in missing:
                continue
            try:
                cpu = [catalogue[key].run(f)[1] for f in feeds]
            except PeerUnavailable as exc:
                missing[key] = str(exc)
                continue
            peer[key].append(float(np.median([s.n_rows / c for s, c in zip(streams, cpu, strict=True)])))  # fmt: skip
    return {
        "rows": int(streams[0].n_rows),
        "evofeat": {n: max(v) for n, v in whole.items()},
        "loop": {n: max(v) for n, v in loop.items()},
        "peers": {k: max(v) for k, v in peer.items() if v},
        "missing": missing,
        "best": best,
    }


def report(cells: dict[str, dict[str, Any]]) -> str:
    """One table per cell and a summary line: the 10x target over the cells."""
    out = []
    met, total = 0, 0
    for key, c in cells.items():
        peers = c["peers"]
        out.append(f"\n{key} ({c['rows']} rows); stored best: {c['best']}")
        out.append(
            f"  {'learner':<28} {'rows/s':>10} {'loop':>10}  "
            + "  ".join(f"{'x ' + p:>18}" for p in peers)
            + f"  {'worst':>6}"
        )
        for name in c["evofeat"]:
            r = c["evofeat"][name]
            ratios = [r / v for v in peers.values()]
            out.append(
                f"  {name:<28} {r:>10,.0f} {c['loop'][name]:>10,.0f}  "
                + "  ".join(f"{x:>18.1f}" for x in ratios)
                + f"  {min(ratios, default=float('nan')):>6.1f}"
            )
        out.append("  peers      " + "  ".join(f"{p} {v:,.0f} rows/s" for p, v in peers.items()))
        for p, why in c["missing"].items():
            out.append(f"  {p}: not run ({why})")
        if c["best"] in c["evofeat"] and peers:
            total += 1
            worst = min(c["evofeat"][c["best"]] / v for v in peers.values())
            met += worst >= 10
            out.append(f"  stored best {c['best']}: worst ratio {worst:.1f}x")
    out.append(
        f"\n10x target (the stored best learner, against every peer timed): met in {met} of {total} cells"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--orders", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--preprocess", default="zscore", help="as the leaderboard (default zscore)")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    args = ap.parse_args(argv)
    learners = args.learners.split(",")
    cells = {}
    for d in args.datasets.split(","):
        for s in args.scenarios.split(","):
            cells[f"{d}/{s}"] = time_cell(
                d, s, learners, args.peers.split(","), args.orders, args.rounds, args.preprocess
            )
            print(f"{d}/{s} done", file=sys.stderr, flush=True)
    print(report(cells))
    if args.json:
        args.json.write_text(json.dumps(cells, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
