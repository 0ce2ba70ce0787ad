"""Best-of-5 CPU rows/s of one learner's prequential run, for an A/B between two builds.

    PYTHONPATH=/path/to/build-a/src python benchmarks/investigations/speed_ab.py ftrl dense
    PYTHONPATH=/path/to/build-b/src python benchmarks/investigations/speed_ab.py ftrl dense

``dense``: 200,000 x 10 Gaussian rows; ``wide``: 200,000 x 54. Run the two builds
alternately, several times: on a shared machine one pair is not a measurement.
"""

import sys
import time

import numpy as np

from evofeat.evaluate.prequential import prequential
from evofeat.registry import make
from evofeat.streams.stream import Stream


def main(name: str, kind: str) -> None:
    """Print the best of 5 CPU rows/s of ``name`` on the ``kind`` stream."""
    rng = np.random.default_rng(0)
    n, d = (200_000, 10) if kind == "dense" else (200_000, 54)
    X = rng.normal(size=(n, d))
    if kind == "dense":
        y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    else:
        y = np.where(X[:, :10].sum(1) > 0, 1.0, -1.0)
    stream = Stream.from_dense(X, y, [f"f{i}" for i in range(d)], task="binary")
    best = float("inf")
    for _ in range(5):
        model = make(name)
        start = time.process_time()
        prequential(model, stream)
        best = min(best, time.process_time() - start)
    print(f"{name} {kind} {n / best / 1e6:.3f} M rows/s")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
