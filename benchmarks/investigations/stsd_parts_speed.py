"""CPU seconds of the STSD family's compiled loop, per learner and option, on three synthetic streams.

Written to compare two builds of ``linear/_stsd.pyx`` (issue 22: the round split
into parts) in one run on one machine: run it alternately under each build
(``PYTHONPATH=<other build's src>``) and compare the medians::

    python benchmarks/investigations/stsd_parts_speed.py --repeats 5

Each cell: a fresh learner, ``prequential`` on a prebuilt stream, its CPU
time (the thread's: steadier than wall time on a shared machine), the median of
the repeats after one warm-up. Prints one JSON object: cell -> [median seconds, rows/s].
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import scipy.sparse as sp

from evofeat.evaluate import prequential
from evofeat.linear.stsd import STSD
from evofeat.linear.stsd_multiclass import STSDMulticlass
from evofeat.streams import full, trapezoidal

CELLS = {
    "stsd-i": (STSD, {"mode": "stsd-i"}),
    "stsd-i adagrad": (STSD, {"mode": "stsd-i", "step": "adagrad"}),
    "stsd-i adagrad-tau": (STSD, {"mode": "stsd-i", "step": "adagrad-tau"}),
    "stsd-i original-code": (STSD, {"mode": "stsd-i", "variant": "original-code"}),
    "stsd-i-rand": (STSD, {"mode": "stsd-i-rand", "budget": 0.9}),
    "stsd-i-all": (STSD, {"mode": "stsd-i-all"}),
    "stsd-multiclass": (STSDMulticlass, {"mode": "stsd-i", "n_classes": 3}),
}


def streams(n: int) -> dict[str, tuple]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 20))
    t = X[:, :5].sum(1) + 0.5 * rng.standard_normal(n)
    y2, y3 = np.where(t > 0, 1, -1), np.digitize(t, [-1.0, 1.0])
    nnz, d = 30, 5000
    cols = rng.integers(0, d, (n, nnz))
    S = sp.csr_matrix((np.ones(n * nnz), cols.ravel(), np.arange(0, n * nnz + 1, nnz)), (n, d))
    S.sum_duplicates()
    ys = np.where(np.asarray(S[:, :50].sum(1)).ravel() > 0.3, 1, -1)
    return {
        "dense": (full(X, y2), full(X, y3)),
        "trapezoidal": (trapezoidal(X, y2, n_stages=10), trapezoidal(X, y3, n_stages=10)),
        "sparse": (full(S, ys), None),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out = {}
    for sname, (binary, multi) in streams(args.rows).items():
        for cell, (cls, params) in CELLS.items():
            stream = multi if cls is STSDMulticlass else binary
            if stream is None:
                continue
            times = []
            for r in range(args.repeats + 1):
                t0 = time.thread_time()
                prequential(cls(**params), stream)
                if r:
                    times.append(time.thread_time() - t0)
            med = statistics.median(times)
            out[f"{cell} @{sname}"] = [round(med, 5), round(stream.n_rows / med)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
