"""Online scaling in front of FTRL: accuracy on raw-feature streams, and the rows/s it costs.

    python benchmarks/bench_online_scaling.py            # writes benchmarks/results/online_scaling.md
    python benchmarks/bench_online_scaling.py --quick    # 2 orders, a short speed stream; prints only

Accuracy: ``ftrl`` on the raw values, behind ``online-zscore`` and
``online-quantile`` (:class:`evofeat.preprocessing.OnlineScaled`, which use
only the rows seen so far), behind the quantile sketch
(``OnlineScaled(method="quantile-sketch")``: normal scores against a uniform
sample of 100 of all the values seen, not the last 100; its ``d`` and ``p``
are against the window's, ``online-quantile+ftrl``), and on whole-file z-scores (``zscore``: looks
ahead, a reference, not a method). Streams: the bundled german and svmguide3
(full: every feature present; row orders seeded ``0..n-1``), the same with
each value present with probability 0.5, and the haphazard-review's raw
files (``$EVOFEAT_DATA/haphazard-review``: wdbc, spambase, australian,
ionosphere, diabetes_f, wbc, ipd, magic04) with each value present at random
with probability ``--p`` (the review's p: 0.25, 0.5, 0.75; evofeat's
``haphazard`` scenario, the mask seeded like the order, not the review's own
masks; wbc's own missing values stay absent, under a mask drawn the same
way). Accuracy and balanced accuracy (the review's metric), mean +- std over
the orders; ``d`` is the paired mean difference of the balanced accuracy
(points) against raw ftrl and ``p`` its paired t-test.

Speed: rows/s of the compiled loop (the whole ``prequential`` call, best of
3) on a dense Gaussian stream with 30 features, all present and half absent
at random, and the cost per present feature that each scaler adds.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

from evofeat.datasets import load, preprocess
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream, full, haphazard

ROOT = Path(__file__).resolve().parent
LEARNERS = ("ftrl", "online-zscore+ftrl", "online-quantile+ftrl", "quantile-sketch:ftrl")
LOOK_AHEAD = "ftrl on zscore (looks ahead)"
#: the quantile sketch (a method of OnlineScaled, no registry name): compared with the window
SKETCH, WINDOW = "quantile-sketch:ftrl", "online-quantile+ftrl"


def build(learner: str) -> object:
    """The learner of a row of the tables (a registry name, or ``<method>:<learner>``)."""
    from evofeat.preprocessing import OnlineScaled

    if learner == LOOK_AHEAD:
        return make("ftrl")
    if ":" in learner:
        method, _, inner = learner.partition(":")
        return OnlineScaled(inner, method=method)
    return make(learner)


#: the review's raw files: (files, separator, header lines, feature columns, label column, the
#: label's positive value); "?" is an absent value
REVIEW = {
    "wdbc": (["wdbc/wdbc.data"], ",", 0, slice(2, None), 1, "M"),
    "spambase": (["spambase/spambase.data"], ",", 0, slice(None, -1), -1, "1"),
    "australian": (["australian/australian.dat"], None, 0, slice(None, -1), -1, "1"),
    "ionosphere": (["ionosphere/ionosphere.data"], ",", 0, slice(None, -1), -1, "g"),
    "diabetes_f": (["diabetes_f/diabetes_f.csv"], ",", 1, slice(None, -1), -1, "1"),
    "wbc": (["wbc/wbc.data"], ",", 0, slice(1, -1), -1, "4"),
    "ipd": (
        ["ipd/ItalyPowerDemand_TRAIN.txt", "ipd/ItalyPowerDemand_TEST.txt"],
        None,
        0,
        slice(1, None),
        0,
        "1",
    ),
    "magic04": (["magic04/magic04.data"], ",", 0, slice(None, -1), -1, "g"),
}


def _same(label: str, positive: str) -> bool:
    try:
        return float(label) == float(positive)
    except ValueError:
        return label == positive


def _review(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The review's raw file(s) of ``name`` as (X with NaN absent, y in -1/+1), or None when
    they are not here."""
    base = Path(os.environ.get("EVOFEAT_DATA", "../shared/datasets")) / "haphazard-review"
    files, sep, header, features, label, positive = REVIEW[name]
    if not all((base / f).exists() for f in files):
        return None
    X, y = [], []
    for f in files:
        for line in (base / f).read_text().splitlines()[header:]:
            if line.strip():
                row = line.strip().split(sep)
                X.append([np.nan if v.strip() == "?" else float(v) for v in row[features]])
                y.append(1 if _same(row[label].strip(), positive) else -1)
    return np.array(X), np.array(y)


def _balanced(labels: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean([np.mean(labels[y == c] == c) for c in (-1, 1) if np.any(y == c)]))


def cells(
    quick: bool, ps: list[float]
) -> list[tuple[str, np.ndarray, np.ndarray, list[str], float | None]]:
    """(name, X, y, feature names, p absent or None) of every stream."""
    out = []
    for name in ("german", "svmguide3"):
        ds = load(name)
        X = np.asarray(ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X, dtype=float)
        out.append((name, X, ds.y, list(ds.feature_names), None))
        out.append((name, X, ds.y, list(ds.feature_names), 0.5))
    for name in list(REVIEW)[: 1 if quick else None]:
        got = _review(name)
        if got is not None:
            X, y = got
            out += [(name, X, y, [f"f{j}" for j in range(X.shape[1])], p) for p in ps]
    return out


def accuracy_table(orders: int, quick: bool, ps: list[float]) -> list[str]:
    lines = [
        "| stream | learner | accuracy | balanced accuracy | d balanced | p |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, X, y, names, p in cells(quick, ps):
        Z = preprocess(X, "zscore")
        scores: dict[str, list[tuple[float, float]]] = {}
        for seed in range(orders):
            order = np.random.default_rng(seed).permutation(X.shape[0])
            for learner in (*LEARNERS, LOOK_AHEAD):
                data = Z if learner == LOOK_AHEAD else X
                Xs, ys = data[order], y[order]
                if p is None:
                    stream = full(Xs, ys, names)
                elif np.isnan(Xs).any():  # the file's own absent values stay absent too
                    seen = np.random.default_rng(seed).random(Xs.shape) < p
                    stream = Stream.from_dense(np.where(seen, Xs, np.nan), ys, names)
                else:
                    stream = haphazard(Xs, ys, names, p=p, seed=seed)
                model = build(learner)
                res = prequential(model, stream, keep_predictions=True)
                assert res.labels is not None
                scores.setdefault(learner, []).append((res.accuracy, _balanced(res.labels, ys)))
        base = np.array([b for _, b in scores["ftrl"]])
        where = f"{name} ({'full' if p is None else f'haphazard p={p}'})"
        for learner, got in scores.items():
            acc = np.array([a for a, _ in got])
            bal = np.array([b for _, b in got])
            d, pv = "", ""
            ref = np.array([b for _, b in scores[WINDOW]]) if learner == SKETCH else base
            if learner != "ftrl":
                d = f"{100 * (bal - ref).mean():+.1f}" + (" vs window" if learner == SKETCH else "")
                pv = f"{stats.ttest_rel(bal, ref).pvalue:.2g}" if orders > 1 else ""
            lines.append(
                f"| {where} | {learner} | {acc.mean():.3f} +- {acc.std():.3f} "
                f"| {bal.mean():.3f} +- {bal.std():.3f} | {d} | {pv} |"
            )
            print(lines[-1], flush=True)
    return lines


def _best(fn: Callable[[], object], rounds: int = 3) -> float:
    best = np.inf
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def speed_table(n: int) -> list[str]:
    rng = np.random.default_rng(0)
    d = 30
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 100.0, d)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    names = [f"f{j}" for j in range(d)]
    lines = [
        f"Dense Gaussian stream, {n:,} rows x {d} features (CPU seconds, best of 3):",
        "",
        "| stream | learner | rows/s | ns per present feature added |",
        "| --- | --- | --- | --- |",
    ]
    for label, stream, present in (
        ("all present", full(X, y, names), n * d),
        ("half absent", haphazard(X, y, names, p=0.5, seed=0), n * d // 2),  # expected count
    ):
        base = None
        for learner in (*LEARNERS, "online-quantile+ftrl(window=1000)"):
            if learner.endswith("(window=1000)"):
                from evofeat.preprocessing import OnlineScaled

                def made() -> object:
                    return OnlineScaled("ftrl", method="quantile", window=1000)
            else:

                def made(learner: str = learner) -> object:
                    return build(learner)

            secs = _best(lambda made=made, stream=stream: prequential(made(), stream))
            base = secs if base is None else base
            extra = "" if secs is base else f"{1e9 * (secs - base) / present:.1f}"
            lines.append(f"| {label} | {learner} | {n / secs:,.0f} | {extra} |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--orders", type=int, default=10)
    parser.add_argument("--p", default="0.25,0.5,0.75", help="absent rates of the review's sets")
    args = parser.parse_args()
    ps = [float(v) for v in args.p.split(",")]
    orders = 2 if args.quick else args.orders
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    acc = accuracy_table(orders, args.quick, ps)
    speed = speed_table(20_000 if args.quick else 200_000)
    if args.quick:
        return
    text = [
        "# Online scaling in front of FTRL",
        "",
        f"`python benchmarks/bench_online_scaling.py` ({started}, {orders} orders; "
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores). See the script's docstring.",
        "",
        *acc,
        "",
        *speed,
        "",
    ]
    (ROOT / "results" / "online_scaling.md").write_text("\n".join(text))


if __name__ == "__main__":
    main()
