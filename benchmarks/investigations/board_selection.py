"""Held-out choice of ONE new leaderboard variant for the evolvable scenario (issue 15).

The leaderboard (``benchmarks/leaderboard.py``) left open "evofeat's best ahead
of OpenMOA's FTRL on australian/evolvable". Picking a setting on that cell (or
on any board cell) and then testing it there is cell tuning. This script picks
one setting on data sets that are NOT on the board, with a rule fixed here
before any run; the winner is then added to the board's ``VARIANTS`` as it is.

**Data sets** (binary, none of the board's 12: german, australian, credit-a,
credit-g, diabetes, svmguide3, ionosphere, wdbc, wbc, kr-vs-kp, splice,
spambase): hill-valley (1212 rows), madelon (2600), magic04 (19020), a8a
(32561), ijcnn1 (141691), all rows (no subsampling: the longest run, ijcnn1,
takes about 0.1 s). magic04 and a8a are in the leaderboard's default grid but
were never run on the board.

**Streams**: exactly the leaderboard's (``benchmarks.leaderboard.build_streams``:
``evofeat.datasets.load(name, preprocess="zscore")``, scenario "evolvable" with
its defaults, order r = ``evofeat.streams.permutation(n, r)`` and scenario seed
r, r = 0..9), each learner run by ``benchmarks.leaderboard.run_evofeat``
(predict then learn on every row, accuracy on the rows the scenario scores: the
rows after the switch).

**Grid** (39 settings, in this order; the index breaks ties):

- 0-11: ``fesl-c(base=b, lr=lr)`` for b, lr in adagrad {0.03, 0.1, 0.3, 1},
  ftrl {0.03, 0.1, 0.3, 1}, nag {0.1, 0.3, 0.5, 1} (around each base's library
  default: AdaGrad's lr 0.1, FTRL's alpha 0.1, NAG's (VW's) lr 0.5);
- 12-23: the same for ``fesl-s``;
- 24-26: ``fesl-c(base=b, lr=default, ridge=1.0)`` for b in adagrad, ftrl, nag:
  the map from the new space to the old one is fitted on only B = 10 overlap
  rows, so its Gram matrix ``X2 X2^T`` (10 x 10, entries ~d2 on z-scored
  features) can be ill-conditioned; a unit ridge is the usual Tikhonov
  guard for unit-variance features (``ridge=0``, the default, takes the
  pseudo-inverse);
- 27-38: the plain learners over the same lr grids: ``ftrl(alpha=...)``,
  ``adagrad(lr=...)``, ``nag(lr=...)`` (their defaults learn a bias).

**Rule**: for each data set, a candidate's gain is its mean accuracy over the
10 orders minus that of ``ftrl`` (evofeat's FTRL at its defaults, the
reference: also grid entry 28, whose gain is 0); the winner has the highest
mean gain over the five data sets (gains rounded to 1e-12), ties broken by the
smaller grid index, among the candidates NOT already on the board (a setting
whose name and full parameters equal a board learner's: ``ftrl(alpha=0.1)``,
``adagrad(lr=0.1)``, ``nag(lr=0.5)``, ``fesl-c(base='adagrad', lr=0.1)``,
``fesl-c(base='nag', lr=0.5)`` are the defaults or variants it runs already;
they stay in the table, marked). Exactly one winner goes to the board, whatever
it is.

    python benchmarks/investigations/board_selection.py            # writes the report
    python benchmarks/investigations/board_selection.py --orders 2 --out /tmp/sel  # a smoke run

Writes ``docs/reports/investigations/board_selection.{md,json}``. One process,
about 80 s of one core. Needs ``EVOFEAT_DATA`` (the shared data folder).

**ROUND 2** (``--round 2``; declared here, and committed, before its run).
Round 1 found every FESL setting 0.08-0.11 behind ``ftrl``: FESL's models
learned no bias, and ijcnn1 and a8a are imbalanced. ``FESL(fit_intercept=True)``
now gives each of its two models a bias (not the paper's; see its docstring).
Round 2 asks, with round 1's data sets, streams and rule unchanged, whether a
FESL with biases should join the board instead of nothing:

- **Grid** (18 settings, in this order; the index breaks ties):
  ``fesl-c(base=b, lr=lr, fit_intercept=True)`` for b, lr in adagrad {0.03,
  0.1, 0.3}, ftrl {0.03, 0.1, 0.3}, nag {0.3, 0.5, 1} (each base's library
  default and its two neighbours on round 1's grid), then the same 9 for
  ``fesl-s``. None of them is on the board, so all are eligible (the same
  ``on_board`` check runs).
- **Rule**: round 1's (mean over the five data sets of the gain in mean
  accuracy over evofeat's ``ftrl``, rounded to 1e-12, ties to the smaller
  index). ``nag(lr=1)``, round 1's winner, is run again beside them (not a
  candidate). The round-2 winner joins ``VARIANTS`` only if its mean gain is
  strictly greater than ``nag(lr=1)``'s in the same run; otherwise nothing is
  added. Either way no further variant is chosen.

    python benchmarks/investigations/board_selection.py --round 2  # adds round 2 to the report

Round 2 writes its own section (``## Round 2``) at the end of the same page and
a ``round2`` entry in the JSON; round 1's table stays as it is (a rerun of
round 1 keeps the round-2 section).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `benchmarks.leaderboard` when run as a script

from benchmarks.leaderboard import (  # noqa: E402
    build_streams,
    evofeat_learners,
    learner_params,
    parse_learner,
    run_evofeat,
)

OUT = ROOT / "docs" / "reports" / "investigations" / "board_selection"
DATASETS = ("hill-valley", "madelon", "magic04", "a8a", "ijcnn1")
SCENARIO = "evolvable"
REFERENCE = "ftrl"
LRS = {"adagrad": (0.03, 0.1, 0.3, 1), "ftrl": (0.03, 0.1, 0.3, 1), "nag": (0.1, 0.3, 0.5, 1)}
DEFAULT_LR = {"adagrad": 0.1, "ftrl": 0.1, "nag": 0.5}
PLAIN_LR = {"ftrl": "alpha", "adagrad": "lr", "nag": "lr"}  # FTRL calls its step alpha
#: round 2: each base's default lr and its two neighbours on round 1's grid
LRS2 = {"adagrad": (0.03, 0.1, 0.3), "ftrl": (0.03, 0.1, 0.3), "nag": (0.3, 0.5, 1)}
ROUND1_WINNER = "nag(lr=1)"
ROUND2 = "## Round 2"


def grid() -> list[str]:
    """The candidates, in the order of the module docstring (the index breaks ties).

    >>> g = grid()
    >>> len(g), g[0], g[24], g[28]
    (39, "fesl-c(base='adagrad', lr=0.03)", "fesl-c(base='adagrad', lr=0.1, ridge=1.0)", 'ftrl(alpha=0.1)')
    """
    out = [f"{m}(base={b!r}, lr={lr})" for m in ("fesl-c", "fesl-s") for b in LRS for lr in LRS[b]]
    out += [f"fesl-c(base={b!r}, lr={DEFAULT_LR[b]}, ridge=1.0)" for b in LRS]
    out += [f"{b}({PLAIN_LR[b]}={lr})" for b in ("ftrl", "adagrad", "nag") for lr in LRS[b]]
    return out


def grid2() -> list[str]:
    """Round 2's candidates, in the order of the module docstring (the index breaks ties).

    >>> g = grid2()
    >>> len(g), g[0], g[17]
    (18, "fesl-c(base='adagrad', lr=0.03, fit_intercept=True)", "fesl-s(base='nag', lr=1, fit_intercept=True)")
    """
    return [
        f"{m}(base={b!r}, lr={lr}, fit_intercept=True)"
        for m in ("fesl-c", "fesl-s")
        for b in LRS2
        for lr in LRS2[b]
    ]


def on_board(spec: str) -> str | None:
    """The board learner that runs the same setting as ``spec`` (name and full parameters).

    >>> on_board("nag(lr=0.5)"), on_board("nag(lr=0.3)")
    ('nag', None)
    """
    name, params = parse_learner(spec), learner_params(spec)
    for board in evofeat_learners():
        if parse_learner(board)[0] == name[0] and learner_params(board) == params:
            return board
    return None


def select(
    acc: dict[str, dict[str, list[float]]], candidates: list[str], board: dict[str, str | None]
) -> list[dict[str, Any]]:
    """Rank the candidates by mean gain over :data:`REFERENCE`, ties to the smaller index.

    ``acc[dataset][spec]`` holds the per-order accuracies of each candidate and
    of the reference; ``board[spec]`` names the board learner a candidate
    duplicates (or None). The first row not on the board is the winner.

    >>> acc = {"a": {"ftrl": [0.5], "x": [0.7], "y": [0.7]}, "b": {"ftrl": [0.5], "x": [0.4], "y": [0.4]}}
    >>> r = select(acc, ["y", "x", "ftrl"], {"y": "y", "x": None, "ftrl": "ftrl"})
    >>> [(r["spec"], round(r["mean_gain"], 3), r["eligible"]) for r in r]
    [('y', 0.05, False), ('x', 0.05, True), ('ftrl', 0.0, False)]
    """
    rows = []
    for i, spec in enumerate(candidates):
        gains = {d: float(np.mean(a[spec]) - np.mean(a[REFERENCE])) for d, a in acc.items()}
        rows.append(
            {
                "index": i,
                "spec": spec,
                "acc": {d: float(np.mean(a[spec])) for d, a in acc.items()},
                "gain": gains,
                "mean_gain": float(np.mean(list(gains.values()))),
                "on_board": board[spec],
                "eligible": board[spec] is None,
            }
        )
    return sorted(rows, key=lambda r: (-round(r["mean_gain"], 12), r["index"]))


def winner(ranked: list[dict[str, Any]]) -> dict[str, Any]:
    """The first row of :func:`select`'s ranking that is not on the board already."""
    return next(r for r in ranked if r["eligible"])


def run(
    datasets: list[str], orders: int, candidates: list[str], also: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Accuracies of every candidate (the reference and ``also`` too) on every data set and order."""
    specs = list(dict.fromkeys([REFERENCE, *also, *candidates]))
    acc: dict[str, dict[str, list[float]]] = {}
    info: dict[str, Any] = {}
    for d in datasets:
        t0 = time.time()
        streams = build_streams(d, SCENARIO, orders, "zscore")
        acc[d] = {s: [run_evofeat(s, st)[0] for st in streams] for s in specs}
        s0 = streams[0]
        f = int(s0.info.get("eval_from", 0))
        info[d] = {
            "n_rows": int(s0.n_rows),
            "space_dims": s0.info.get("space_dims"),
            "eval_from": f,
            "majority": float(max(np.mean(s0.y[f:] > 0), np.mean(s0.y[f:] <= 0))),
            "seconds": round(time.time() - t0, 1),
        }
        print(f"{d}: {len(specs)} settings x {orders} orders in {info[d]['seconds']} s", flush=True)
    return {"acc": acc, "info": info}


def _round2_tail(md: Path) -> str:
    """The round-2 section of an existing report (empty if none), kept when round 1 is rewritten."""
    text = md.read_text() if md.exists() else ""
    at = text.find("\n" + ROUND2)
    return text[at:] if at >= 0 else ""


def write(out: Path, data: dict[str, Any], ranked: list[dict[str, Any]], argv: str) -> None:
    datasets = list(data["acc"])
    win = winner(ranked)
    lines = [
        "# Held-out choice of one leaderboard variant for the evolvable scenario",
        "",
        f"Written by `python benchmarks/investigations/board_selection.py{argv}` on "
        f"{data['when']}. Grid, data sets and rule: the docstring of "
        "`benchmarks/investigations/board_selection.py`, fixed "
        "before the run. Streams as the leaderboard's (evolvable, z-scored, orders 0.."
        f"{data['orders'] - 1}); accuracy on the rows after the switch, mean over the orders.",
        "",
        f"**Winner: `{win['spec']}`** (grid index {win['index']}), mean gain "
        f"{win['mean_gain']:+.4f} over evofeat's `{REFERENCE}` (defaults). It joins "
        "`VARIANTS` in `benchmarks/leaderboard.py`; no board cell was looked at to choose it.",
        "",
        "| data set | rows | spaces (d1, d2) | scored from | majority | "
        f"`{REFERENCE}` accuracy | seconds |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for d in datasets:
        i = data["info"][d]
        ref = np.mean(data["acc"][d][REFERENCE])
        lines.append(
            f"| {d} | {i['n_rows']} | {tuple(i['space_dims'] or ())} | {i['eval_from']} | "
            f"{i['majority']:.3f} | {ref:.4f} | {i['seconds']} |"
        )
    lines += [
        "",
        "Every candidate, best first: accuracy minus the reference's per data set, and the mean.",
        "",
        *_gain_rows(ranked, datasets, win),
    ]
    md, js = out.with_suffix(".md"), out.with_suffix(".json")
    tail = _round2_tail(md)
    old = json.loads(js.read_text()) if js.exists() else {}
    md.write_text("\n".join(lines) + "\n" + tail)
    kept = {"round2": old["round2"]} if "round2" in old else {}
    js.write_text(
        json.dumps({**data, "ranked": ranked, "winner": win["spec"], **kept}, indent=1, default=str)
    )


def _gain_rows(ranked: list[dict[str, Any]], datasets: list[str], win: Any) -> list[str]:
    """The ranked table: rank, index, candidate (marked), gain per data set, mean gain."""
    lines = [
        "| rank | index | candidate | " + " | ".join(datasets) + " | mean gain |",
        "| --- | --- | --- | " + " | ".join("---" for _ in datasets) + " | --- |",
    ]
    for rank, r in enumerate(ranked, 1):
        cells = " | ".join(f"{r['gain'][d]:+.4f}" for d in datasets)
        mark = " **(winner)**" if r is win else ""
        if r["on_board"]:
            mark = f" (on the board as `{r['on_board']}`: not eligible)"
        lines.append(
            f"| {rank} | {r['index']} | `{r['spec']}`{mark} | {cells} | {r['mean_gain']:+.4f} |"
        )
    return lines


def write2(
    out: Path, data: dict[str, Any], ranked: list[dict[str, Any]], r1: dict[str, Any], argv: str
) -> bool:
    """Round 2's section at the end of the report (replacing an earlier one); True if it adds."""
    datasets = list(data["acc"])
    win = winner(ranked)
    adds = round(win["mean_gain"], 12) > round(r1["mean_gain"], 12)
    verdict = (
        f"It beats round 1's winner `{ROUND1_WINNER}` ({r1['mean_gain']:+.4f} in the same run) "
        "on the rule, so it joins `VARIANTS` in `benchmarks/leaderboard.py`."
        if adds
        else f"It does not beat round 1's winner `{ROUND1_WINNER}` ({r1['mean_gain']:+.4f} in the "
        "same run) on the rule, so nothing is added to the board."
    )
    lines = [
        "",
        ROUND2,
        "",
        f"Written by `python benchmarks/investigations/board_selection.py{argv}` on "
        f"{data['when']}. FESL-c and FESL-s with `fit_intercept=True` (a bias for each of FESL's "
        "two models, not the paper's) over AdaGrad, FTRL and NAG; grid and rule: the ROUND 2 "
        "part of the script's docstring, fixed and committed before the run. Same data sets, "
        "streams and reference as round 1.",
        "",
        f"**Round-2 winner: `{win['spec']}`** (grid index {win['index']}), mean gain "
        f"{win['mean_gain']:+.4f} over evofeat's `{REFERENCE}`. {verdict}",
        "",
        "| data set | majority | `" + REFERENCE + "` accuracy | round-2 winner's accuracy | "
        f"`{ROUND1_WINNER}` accuracy |",
        "| --- | --- | --- | --- | --- |",
    ]
    for d in datasets:
        ref = np.mean(data["acc"][d][REFERENCE])
        lines.append(
            f"| {d} | {data['info'][d]['majority']:.3f} | {ref:.4f} | {win['acc'][d]:.4f} | "
            f"{r1['acc'][d]:.4f} |"
        )
    lines += [
        "",
        "Every round-2 candidate, best first (gain over the reference per data set, and the "
        f"mean), then `{ROUND1_WINNER}` for comparison:",
        "",
        *_gain_rows(ranked, datasets, win),
        "| - | - | `"
        + ROUND1_WINNER
        + "` (round 1's winner, not a candidate) | "
        + " | ".join(f"{r1['gain'][d]:+.4f}" for d in datasets)
        + f" | {r1['mean_gain']:+.4f} |",
    ]
    md, js = out.with_suffix(".md"), out.with_suffix(".json")
    text = md.read_text() if md.exists() else ""
    at = text.find("\n" + ROUND2)
    md.write_text((text[:at] if at >= 0 else text).rstrip("\n") + "\n" + "\n".join(lines) + "\n")
    old = json.loads(js.read_text()) if js.exists() else {}
    old["round2"] = {
        **data,
        "ranked": ranked,
        "winner": win["spec"],
        "round1_winner": r1,
        "adds_to_board": adds,
    }
    js.write_text(json.dumps(old, indent=1, default=str))
    return adds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated")
    ap.add_argument("--orders", type=int, default=10, help="row orders per data set (default 10)")
    ap.add_argument("--out", type=Path, default=OUT, help="report path without suffix")
    ap.add_argument("--round", type=int, choices=(1, 2), default=1, help="1 (default) or 2")
    args = ap.parse_args(argv)
    given = " ".join(sys.argv[1:] if argv is None else argv)
    datasets = [d.strip() for d in args.datasets.split(",")]
    candidates = grid() if args.round == 1 else grid2()
    also = () if args.round == 1 else (ROUND1_WINNER,)
    data = run(datasets, args.orders, candidates, also)
    data.update(
        orders=args.orders,
        when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        grid=candidates,
        reference=REFERENCE,
    )
    ranked = select(data["acc"], candidates, {c: on_board(c) for c in candidates})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    win = winner(ranked)
    if args.round == 1:
        write(args.out, data, ranked, f" {given}" if given else "")
    else:
        r1 = select(data["acc"], [ROUND1_WINNER], {ROUND1_WINNER: None})[0]
        adds = write2(args.out, data, ranked, r1, f" {given}")
        print(f"round 1's winner {ROUND1_WINNER}: mean gain {r1['mean_gain']:+.4f}; adds: {adds}")
    print(f"winner: {win['spec']} (mean gain {win['mean_gain']:+.4f})")
    print(f"wrote {args.out.with_suffix('.md')}, {args.out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
