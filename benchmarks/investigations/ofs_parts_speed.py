"""Rows per CPU second of the OFS family's compiled loop, per learner and option, on two synthetic streams.

Written to compare two builds of ``linear/_ofs.pyx`` (issue 22: the updates over
shared parts) in one run on one machine: run it alternately under each build
(``PYTHONPATH=<other build's src>``) and compare::

    python benchmarks/investigations/ofs_parts_speed.py --repeats 5

Each cell: a fresh learner, ``prequential`` on a prebuilt stream (100,000 rows:
sparse, d = 5,000 with 30 non-zeros a row; dense, d = 54 unit-norm rows as
covtype's), its process CPU time (steadier than wall time on a shared machine),
the best of the repeats. Prints one JSON object: cell -> rows per CPU second.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import scipy.sparse as sp

from evofeat.evaluate import prequential
from evofeat.linear.ofs import LEARNERS
from evofeat.streams import Stream, full

CASES = [
    ("ofs", {}),
    ("ofs", {"step": "adagrad", "truncate_by": "sum"}),
    ("pe-trun", {}),
    ("rand", {}),
    ("rand", {"draw": "per-mistake"}),
    ("ofs-p", {}),
]


def streams(n: int = 100_000) -> dict[str, Stream]:
    """A sparse stream (d = 5,000, 30 non-zeros a row) and a dense one (d = 54, unit-norm rows)."""
    rng = np.random.default_rng(0)
    X = sp.random(n, 5000, density=30 / 5000, format="csr", random_state=0)
    X.data = rng.standard_normal(X.nnz)
    y = np.where(X @ rng.standard_normal(5000) > 0, 1, -1)
    D = rng.standard_normal((n, 54))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    yd = np.where(D @ rng.standard_normal(54) > 0, 1, -1)
    return {"sparse": full(X, y, list(range(5000))), "dense54": full(D, yd, list(range(54)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    out = {}
    for label, stream in streams(args.rows).items():
        for name, params in CASES:
            times = []
            for _ in range(args.repeats):
                start = time.process_time()
                prequential(LEARNERS[name](**params), stream)
                times.append(time.process_time() - start)
            out[f"{label} {name} {json.dumps(params, sort_keys=True)}"] = args.rows / min(times)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
