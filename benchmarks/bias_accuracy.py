"""Accuracy of stsd-i, ofs and pa-i with and without the bias (``fit_intercept``).

On River's Hyperplane stream (raw features in [0, 1]; seeds 0-4) and the
bundled german / svmguide3 data (raw as bundled, and z-scored) as trapezoidal
streams over 10 row orders. Prints the Markdown table of
``docs/api/linear.md``. Needs ``river`` (the test extras). About a minute.
Other learners as arguments: ``python benchmarks/bias_accuracy.py olvf ocds``
prints the haphazard learners' table (a few minutes).
"""

from __future__ import annotations

import sys

import numpy as np
from river.datasets import synth

from evofeat.datasets import load
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream, full, trapezoidal


def hyperplane(seed: int, n: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    rows = list(synth.Hyperplane(seed=seed, n_features=10, noise_percentage=0.05).take(n))
    X = np.array([[x[k] for k in sorted(x)] for x, _ in rows])
    y = np.array([1 if t else -1 for _, t in rows])
    return X, y


NAMES = sys.argv[1:] or ["stsd-i", "ofs", "pa-i"]


def row(label: str, streams: list[Stream]) -> None:
    accs: dict[tuple[str, bool], list[float]] = {(n, on): [] for n in NAMES for on in (False, True)}
    maj: list[float] = []
    for s in streams:
        maj.append(float(max(np.mean(s.y > 0), np.mean(s.y <= 0))))
        for n in NAMES:
            for on in (False, True):
                accs[(n, on)].append(prequential(make(n, fit_intercept=on), s).accuracy)
    cells = [f"{np.mean(accs[(n, on)]):.3f}" for n in NAMES for on in (False, True)]
    print(f"| {label} | {np.mean(maj):.3f} | " + " | ".join(cells) + " |")


def main() -> None:
    print("| stream | majority | " + " | ".join(f"{n} | {n} + bias" for n in NAMES) + " |")
    row(
        "Hyperplane (River, 10 features, 5 % noise, 10k rows; seeds 0-4), full",
        [full(*hyperplane(s)) for s in range(5)],
    )
    row("Hyperplane, trapezoidal", [trapezoidal(*hyperplane(s)) for s in range(5)])
    for name in ("german", "svmguide3"):
        for prep in (None, "zscore"):
            ds = load(name, preprocess=prep) if prep else load(name)
            rng = np.random.default_rng(0)
            streams = []
            for _ in range(10):
                o = rng.permutation(len(ds.y))
                streams.append(trapezoidal(ds.X[o], ds.y[o], ds.feature_names))
            row(f"{name} ({prep or 'raw, as bundled'}), trapezoidal, 10 orders", streams)


if __name__ == "__main__":
    main()
