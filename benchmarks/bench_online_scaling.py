"""Online scaling in front of FTRL: accuracy on raw-feature streams, and the rows/s it costs.

    python benchmarks/bench_online_scaling.py            # writes benchmarks/results/online_scaling.md
    python benchmarks/bench_online_scaling.py --quick    # 2 orders, a short speed stream; prints only

Accuracy: ``ftrl`` on the raw values, behind ``online-zscore`` and
``online-quantile`` (:class:`evofeat.preprocessing.OnlineScaled`, which use
only the rows seen so far), and on whole-file z-scores (``zscore``: looks
ahead, a reference, not a method). Streams: the bundled german and svmguide3
(full: every feature present; row orders seeded ``0..n-1``) and the same
plus the haphazard-review's raw wdbc, spambase, australian and ionosphere
files (``$EVOFEAT_DATA/haphazard-review``) with each value absent at random
with probability 0.5 (evofeat's ``haphazard`` scenario, the mask seeded
like the order). Accuracy and balanced accuracy (the review's metric),
mean +- std over the orders; ``d`` is the paired mean difference against
raw ftrl and ``p`` its paired t-test.

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
from evofeat.streams import full, haphazard

ROOT = Path(__file__).resolve().parent
LEARNERS = ("ftrl", "online-zscore+ftrl", "online-quantile+ftrl")
LOOK_AHEAD = "ftrl on zscore (looks ahead)"


def _review(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The review's raw file of ``name`` as (X, y in -1/+1), or None when it is not here."""
    base = Path(os.environ.get("EVOFEAT_DATA", "../shared/datasets")) / "haphazard-review"
    files = {
        "wdbc": ("wdbc/wdbc.data", ",", lambda r: (r[2:], r[1] == "M")),
        "spambase": ("spambase/spambase.data", ",", lambda r: (r[:-1], r[-1] == "1")),
        "australian": ("australian/australian.dat", None, lambda r: (r[:-1], r[-1] == "1")),
        "ionosphere": ("ionosphere/ionosphere.data", ",", lambda r: (r[:-1], r[-1] == "g")),
    }
    rel, sep, split = files[name]
    path = base / rel
    if not path.exists():
        return None
    X, y = [], []
    for line in path.read_text().splitlines():
        if line.strip():
            values, positive = split(line.strip().split(sep))
            X.append([float(v) for v in values])
            y.append(1 if positive else -1)
    return np.array(X), np.array(y)


def _balanced(labels: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean([np.mean(labels[y == c] == c) for c in (-1, 1) if np.any(y == c)]))


def cells(quick: bool) -> list[tuple[str, np.ndarray, np.ndarray, list[str], float | None]]:
    """(name, X, y, feature names, p absent or None) of every stream."""
    out = []
    for name in ("german", "svmguide3"):
        ds = load(name)
        X = np.asarray(ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X, dtype=float)
        out.append((name, X, ds.y, list(ds.feature_names), None))
        out.append((name, X, ds.y, list(ds.feature_names), 0.5))
    for name in ("wdbc", "spambase", "australian", "ionosphere")[: 1 if quick else 4]:
        got = _review(name)
        if got is not None:
            X, y = got
            out.append((name, X, y, [f"f{j}" for j in range(X.shape[1])], 0.5))
    return out


def accuracy_table(orders: int, quick: bool) -> list[str]:
    lines = [
        "| stream | learner | accuracy | balanced accuracy | d balanced | p |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, X, y, names, p in cells(quick):
        Z = preprocess(X, "zscore")
        scores: dict[str, list[tuple[float, float]]] = {}
        for seed in range(orders):
            order = np.random.default_rng(seed).permutation(X.shape[0])
            for learner in (*LEARNERS, LOOK_AHEAD):
                data = Z if learner == LOOK_AHEAD else X
                Xs, ys = data[order], y[order]
                if p is None:
                    stream = full(Xs, ys, names)
                else:
                    stream = haphazard(Xs, ys, names, p=p, seed=seed)
                model = make("ftrl" if learner == LOOK_AHEAD else learner)
                res = prequential(model, stream, keep_predictions=True)
                assert res.labels is not None
                scores.setdefault(learner, []).append((res.accuracy, _balanced(res.labels, ys)))
        base = np.array([b for _, b in scores["ftrl"]])
        where = f"{name} ({'full' if p is None else f'haphazard p={p}'})"
        for learner, got in scores.items():
            acc = np.array([a for a, _ in got])
            bal = np.array([b for _, b in got])
            d, pv = "", ""
            if learner != "ftrl":
                d = f"{100 * (bal - base).mean():+.1f}"
                pv = f"{stats.ttest_rel(bal, base).pvalue:.2g}" if orders > 1 else ""
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

                def build() -> object:
                    return OnlineScaled("ftrl", method="quantile", window=1000)
            else:

                def build(learner: str = learner) -> object:
                    return make(learner)

            secs = _best(lambda build=build, stream=stream: prequential(build(), stream))
            base = secs if base is None else base
            extra = "" if secs is base else f"{1e9 * (secs - base) / present:.1f}"
            lines.append(f"| {label} | {learner} | {n / secs:,.0f} | {extra} |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--orders", type=int, default=10)
    args = parser.parse_args()
    orders = 2 if args.quick else args.orders
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    acc = accuracy_table(orders, args.quick)
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
