"""Held-out choice of the members and the rule of ``auto``, the recommended learner (issue 25).

``auto`` (``evofeat.ensemble.auto.Auto``) runs a fixed set of member learners
and mixes them online (the Bayesian mixture of their probabilities, optionally
with a decreasing share: see its docstring). Which members, and whether to
share, is chosen HERE, once, on data sets and streams that are in neither
benchmark the recommended learner is judged on, with the candidates, data,
streams and rule fixed in this file before it runs; the winner becomes
``DEFAULT_MEMBERS`` / ``DEFAULT_SHARE`` as it is.

**Excluded data** (never loaded here): the haphazard review's 13 data sets
(wpbc, ionosphere, wdbc, australian, wbc, diabetes_f, german, ipd, svmguide3,
krvskp = kr-vs-kp, spambase, magic04, a8a) and the leaderboard's 12 (german,
australian, credit-a, credit-g, diabetes, svmguide3, ionosphere, wdbc, wbc,
kr-vs-kp, splice, spambase).

**Data sets** (binary, in ``EVOFEAT_DATA``): hill-valley (1212 x 100),
madelon (2600 x 500), ijcnn1-train (49990 x 22), covtype-binary (class 2 vs
the rest, 581012 x 54) and arcene (200 x 10000). A row order keeps at most
:data:`MAX_ROWS` rows (its first ones), so the run stays small.

**Streams**: for each data set, :data:`ORDERS` row orders r = 0, 1, 2
(``evofeat.streams.permutation(n, r)``, scenario seed r), under five
scenarios, each with the protocol of the benchmark it stands in for:

- ``haphazard`` with p = 0.15, 0.6 and 0.9 (none of the review's 0.25 / 0.5 /
  0.75), **raw** (unscaled) features as the review feeds them, scored by
  **balanced accuracy** (the review's metric) on every row;
- ``trapezoidal`` and ``evolvable`` (their defaults), features z-scored over
  the file as the leaderboard and the demo do, scored by **accuracy** on the
  rows the scenario scores (evolvable: after the switch).

A cell is a data set x scenario (25 cells); its value is the mean over the
orders.

**Candidates** (in this order; the index breaks ties): the member sets of
:data:`SETS`, each with ``share=False`` then ``share=True`` (12 candidates).
Members are linear learners with a bias and adaptive or normalised steps
(FTRL, AdaGrad, NAG; PA-I with a bias), behind online z-scores
(``zscore:``) or running normal scores (``quantile:``), or raw (NAG is
scale-invariant by design).

**How a candidate is run**: the members of ``auto`` learn from their own
predictions only (the mixture changes nothing they do), so each single member
runs once per stream, and each candidate's predictions are ``auto``'s rule
applied to its members' scores (:func:`mixture_scores`, the same function as
``mixture_reference`` in ``tests/reference/auto.py``; ``tests/ensemble/test_auto.py``
proves ``auto`` equals it). On every stream ``auto`` itself also runs (candidate 0 and
the last candidate, alternately) and its scores must equal that computation
bit for bit.

**Rule**: every member of any set is also run alone; in each cell, the
reference is the best of these single members *chosen after the fact* (what
the issue's target compares with). A candidate's gap in a cell is its value
minus that reference. The winner has (1) the most cells with a gap of at
least -0.005 (the target's "within 0.5 points"), then (2) the highest mean
gap over the cells (rounded to 1e-12), then (3) the smaller index. Exactly
one winner, whatever it is.

    python benchmarks/investigations/auto_selection.py                 # writes the report
    python benchmarks/investigations/auto_selection.py --orders 1 --max-rows 2000 --out /tmp/sel

Writes ``docs/reports/investigations/auto_selection.{md,json}``. Needs
``EVOFEAT_DATA`` (the shared data folder) and online scaling
(``evofeat.preprocessing``).
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
OUT = ROOT / "docs" / "reports" / "investigations" / "auto_selection"
DATASETS = ("hill-valley", "madelon", "ijcnn1-train", "covtype-binary", "arcene")
EXCLUDED = (
    "wpbc ionosphere wdbc australian wbc diabetes diabetes_f german ipd svmguide3 krvskp "
    "kr-vs-kp spambase magic04 a8a credit-a credit-g splice"
).split()
#: scenario name -> (scenario, its parameters, preprocess, metric)
SCENARIOS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "haphazard p=0.15": ("haphazard", {"p": 0.15}, "none", "balanced"),
    "haphazard p=0.6": ("haphazard", {"p": 0.6}, "none", "balanced"),
    "haphazard p=0.9": ("haphazard", {"p": 0.9}, "none", "balanced"),
    "trapezoidal": ("trapezoidal", {}, "zscore", "accuracy"),
    "evolvable": ("evolvable", {}, "zscore", "accuracy"),
}
ORDERS = 3
MAX_ROWS = 20000
PA = "pa-i(fit_intercept=True)"
SETS: tuple[tuple[str, ...], ...] = (
    ("zscore:ftrl", "zscore:adagrad", "zscore:nag"),
    ("zscore:ftrl", "quantile:ftrl"),
    (
        "zscore:ftrl",
        "zscore:adagrad",
        "zscore:nag",
        "quantile:ftrl",
        "quantile:adagrad",
        "quantile:nag",
    ),
    (
        "zscore:ftrl",
        "zscore:adagrad",
        "zscore:nag",
        "quantile:ftrl",
        "quantile:adagrad",
        "quantile:nag",
        f"zscore:{PA}",
        f"quantile:{PA}",
    ),
    ("ftrl", "adagrad", "nag", "zscore:ftrl", "quantile:ftrl"),
    ("nag", "zscore:ftrl", "zscore:nag", "quantile:ftrl", "quantile:nag"),
)
WITHIN = -0.005


def candidates() -> list[tuple[tuple[str, ...], bool]]:
    """``(members, share)`` of each candidate, in the order of the docstring.

    >>> c = candidates()
    >>> len(c), c[0][1], c[1][1], c[1][0] == c[0][0]
    (12, False, True, True)
    """
    return [(members, share) for members in SETS for share in (False, True)]


def singles() -> list[str]:
    """Every member of any set, once, in order of first appearance.

    >>> singles()[:3]
    ['zscore:ftrl', 'zscore:adagrad', 'zscore:nag']
    """
    return list(dict.fromkeys(m for s in SETS for m in s))


def label(members: tuple[str, ...], share: bool) -> str:
    """A candidate's name in the report.

    >>> label(("nag", "zscore:ftrl"), True)
    'auto(nag, zscore:ftrl; share)'
    """
    return f"auto({', '.join(members)}{'; share' if share else ''})"


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """The mean of the two classes' recalls (a class absent from ``y`` is left out).

    >>> balanced_accuracy(np.array([1, 1, 1, -1]), np.array([1, 1, 1, 1]))
    0.5
    """
    recalls = [float(np.mean(pred[y == c] == c)) for c in (-1, 1) if np.any(y == c)]
    return float(np.mean(recalls))


def streams(dataset: str, scenario: str, orders: int, max_rows: int) -> list[Any]:
    """The stream of each row order (its first ``max_rows`` rows) under ``scenario``."""
    from evofeat.evaluate.repeat import load_cached, make_stream
    from evofeat.streams import permutation

    kind, params, preprocess, _ = SCENARIOS[scenario]
    data = load_cached(dataset, preprocess)
    n = data.X.shape[0]
    return [
        make_stream(data, kind, params, order=permutation(n, r)[:max_rows], seed=r)
        for r in range(orders)
    ]


def mixture_scores(scores: np.ndarray, y: np.ndarray, share: bool) -> np.ndarray:
    """``auto``'s score on each row, from its members' scores ``(K, n)`` run alone.

    The members learn from their own predictions only, so a mixture's scores
    are a function of its members' scores: this is ``auto``'s compiled rule
    (``evofeat.ensemble._auto.mixture_scores``, the arithmetic of its core),
    equal to the NumPy reference. :func:`run` checks it against ``auto``
    itself on every stream.

    >>> s = np.array([[2.0, 2.0, -1.0], [0.0, -2.0, 3.0]])
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> mixture_scores(s, y, False).round(3), mixture_scores(s, y, True).round(3)
    (array([ 0.802,  0.426, -0.764]), array([ 0.802,  0.211, -0.301]))
    """
    from evofeat.ensemble._auto import mixture_scores as compiled

    return np.asarray(compiled(np.ascontiguousarray(scores, dtype=float), y, share))


def value(y: np.ndarray, pred: np.ndarray, metric: str) -> float:
    """The cell's metric of the predictions ``pred`` (labels) of the scored rows.

    >>> value(np.array([1, -1]), np.array([1, 1]), "accuracy")
    0.5
    """
    return balanced_accuracy(y, pred) if metric == "balanced" else float(np.mean(y == pred))


def run(datasets: list[str], orders: int, max_rows: int) -> dict[str, Any]:
    """Every single member alone, and every candidate from its members' scores, on every cell.

    On every stream, ``auto`` itself (candidate 0's members, then the last
    candidate's, alternately) is run too and its scores must equal the
    mixture computed from its members' scores, bit for bit.
    """
    from evofeat.ensemble.auto import Auto, parse_member
    from evofeat.evaluate import prequential

    assert not set(datasets) & set(EXCLUDED), "a benchmark data set"
    cands = candidates()
    values: dict[str, dict[str, list[float]]] = {}
    speed: dict[str, list[float]] = {}
    info: dict[str, Any] = {}
    checked = 0
    for d in datasets:
        for sc in SCENARIOS:
            cell = f"{d} / {sc}"
            t0 = time.time()
            metric = SCENARIOS[sc][3]
            out: dict[str, list[float]] = {}
            for r, stream in enumerate(streams(d, sc, orders, max_rows)):
                f = int(stream.info.get("eval_from", 0))
                y = np.asarray(stream.y, dtype=float)
                alone = {}
                for m in singles():
                    c0 = time.thread_time()
                    res = prequential(parse_member(m), stream, keep_predictions=True)
                    speed.setdefault(m, []).append(
                        stream.n_rows / max(time.thread_time() - c0, 1e-9)
                    )
                    alone[m] = np.asarray(res.scores)
                    out.setdefault(m, []).append(value(y[f:], np.asarray(res.labels[f:]), metric))
                for members, share in cands:
                    mixed = mixture_scores(np.array([alone[m] for m in members]), y, share)
                    pred = np.where(mixed > 0, 1.0, -1.0)
                    out.setdefault(label(members, share), []).append(value(y[f:], pred[f:], metric))
                members, share = cands[0 if r % 2 == 0 else -1]
                res = prequential(Auto(members=members, share=share), stream, keep_predictions=True)
                mixed = mixture_scores(np.array([alone[m] for m in members]), y, share)
                assert np.array_equal(np.asarray(res.scores), mixed), "auto != its computed mixture"
                checked += 1
            values[cell] = out
            info[cell] = {"rows": int(stream.n_rows), "seconds": round(time.time() - t0, 1)}
            print(f"{cell}: {info[cell]['seconds']} s", flush=True)
    return {"values": values, "speed": speed, "info": info, "checked": checked}


def select(
    values: dict[str, dict[str, list[float]]],
    cands: list[tuple[tuple[str, ...], bool]] | None = None,
    single: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Rank the candidates (default :func:`candidates`) by the rule of the docstring, best first.

    >>> c = [(("a", "b"), False), (("a", "b"), True)]
    >>> v = {"x": {"a": [0.7], "b": [0.6], label(*c[0]): [0.696], label(*c[1]): [0.7]},
    ...      "y": {"a": [0.5], "b": [0.6], label(*c[0]): [0.6], label(*c[1]): [0.5]}}
    >>> [(r["index"], r["within"], round(r["mean_gap"], 3)) for r in select(v, c, ["a", "b"])]
    [(0, 2, -0.002), (1, 1, -0.05)]
    """
    cands = candidates() if cands is None else cands
    single = singles() if single is None else single
    rows = []
    for i, (members, share) in enumerate(cands):
        name = label(members, share)
        gaps = {}
        for cell, out in values.items():
            best = max(float(np.mean(out[m])) for m in single)
            gaps[cell] = float(np.mean(out[name])) - best
        within = sum(g >= WITHIN for g in gaps.values())
        rows.append(
            {
                "index": i,
                "name": name,
                "members": list(members),
                "share": share,
                "gap": gaps,
                "within": within,
                "mean_gap": float(np.mean(list(gaps.values()))),
            }
        )
    return sorted(rows, key=lambda r: (-r["within"], -round(r["mean_gap"], 12), r["index"]))


def merge(paths: list[str]) -> dict[str, Any]:
    """The runs in ``paths`` (JSON written by this script) as one: cells in :data:`DATASETS` order."""
    parts = [json.loads(Path(p).read_text()) for p in paths]
    out: dict[str, Any] = {"values": {}, "speed": {}, "info": {}, "checked": 0}
    for d in DATASETS:
        for part in parts:
            for cell in part["values"]:
                if cell.split(" / ")[0] == d:
                    out["values"][cell] = part["values"][cell]
                    out["info"][cell] = part["info"][cell]
    for part in parts:
        out["checked"] += part["checked"]
        for name, v in part["speed"].items():
            out["speed"].setdefault(name, []).extend(v)
    assert len(out["values"]) == len(DATASETS) * len(SCENARIOS), "a cell is missing"
    return out


def write(out: Path, data: dict[str, Any], ranked: list[dict[str, Any]], argv: str) -> None:
    win = ranked[0]
    cells = list(data["values"])
    names = singles() + [win["name"]]
    rps = {n: float(np.median(v)) for n, v in data["speed"].items()}
    for r in ranked:  # a candidate's rows/s: its members' time per row, added
        rps[r["name"]] = 1.0 / sum(1.0 / rps[m] for m in r["members"])
    lines = [
        "# Held-out choice of the members and the rule of `auto`",
        "",
        f"Written by `python benchmarks/investigations/auto_selection.py{argv}` on "
        f"{data['when']}. Candidates, data sets, streams and rule: the docstring of "
        "`benchmarks/investigations/auto_selection.py`, fixed and committed before the run. "
        f"{data['orders']} row orders per cell (at most {data['max_rows']} rows each); no data "
        "set of the haphazard review or of the leaderboard was loaded. `auto` itself was run on "
        f"{data['checked']} streams and gave the computed mixture's scores, bit for bit, on each.",
        "",
        f"**Winner: `{win['name']}`** (candidate {win['index']}): within 0.5 points of the best "
        f"single member (chosen after the fact) in {win['within']} of {len(cells)} cells, mean "
        f"gap {win['mean_gap']:+.4f}. It becomes `DEFAULT_MEMBERS` / `DEFAULT_SHARE` in "
        "`src/evofeat/ensemble/auto.py`.",
        "",
        "## Candidates, best first",
        "",
        "Cells within 0.5 points of the best single member, and the mean gap to it "
        "(metric: balanced accuracy on the raw haphazard cells, accuracy on the others).",
        "",
        "| rank | index | candidate | cells within 0.5 points | mean gap | worst gap | "
        "rows/s (members' time added) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rank, r in enumerate(ranked, 1):
        lines.append(
            f"| {rank} | {r['index']} | `{r['name']}` | {r['within']} / {len(cells)} | "
            f"{r['mean_gap']:+.4f} | {min(r['gap'].values()):+.4f} | {rps[r['name']]:,.0f} |"
        )
    lines += [
        "",
        "## Every cell: the single members and the winner",
        "",
        "Mean over the orders (best single member in bold).",
        "",
        "| cell | rows | " + " | ".join(f"`{n}`" for n in names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for cell in cells:
        got = data["values"][cell]
        best = max(float(np.mean(got[m])) for m in singles())
        vals = []
        for n in names:
            v = float(np.mean(got[n]))
            vals.append(f"**{v:.4f}**" if n in singles() and v == best else f"{v:.4f}")
        lines.append(f"| {cell} | {data['info'][cell]['rows']} | " + " | ".join(vals) + " |")
    lines += [
        "",
        "Median rows/s of each single member (same runs, one core, a shared machine): "
        + ", ".join(f"`{n}` {rps[n]:,.0f}" for n in singles())
        + ".",
        "",
    ]
    out.with_suffix(".md").write_text("\n".join(lines))
    out.with_suffix(".json").write_text(
        json.dumps({**data, "ranked": ranked, "winner": win["name"]}, indent=1, default=str)
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--orders", type=int, default=ORDERS)
    p.add_argument("--max-rows", type=int, default=MAX_ROWS)
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument(
        "--merge",
        default="",
        help="comma-separated JSON files of runs on disjoint data sets (--datasets X --out ...): "
        "their cells are put together, in the order of DATASETS, and ranked as one run",
    )
    args = p.parse_args(argv)
    t0 = time.time()
    data = (
        merge(args.merge.split(","))
        if args.merge
        else run(args.datasets.split(","), args.orders, args.max_rows)
    )
    data.update(
        when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        orders=args.orders,
        max_rows=args.max_rows,
        seconds=round(time.time() - t0, 1),
    )
    ranked = select(data["values"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    write(args.out, data, ranked, f" {shown}" if shown else "")
    print(f"winner: {ranked[0]['name']} ({data['seconds']} s)")


if __name__ == "__main__":
    main()
