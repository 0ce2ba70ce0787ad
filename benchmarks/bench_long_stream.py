"""Peak memory of a prequential run over a long LIBSVM stream, against the number of rows.

Generates a synthetic LIBSVM file (10 million rows by default) under
``benchmarks/data/`` (git-ignored; reused when present), then runs PA-I over
the first N rows with :class:`evofeat.streams.libsvm_stream.LibsvmStream`, each
N in a fresh process, and records the process's peak resident memory (RSS)
and the time. Writes ``benchmarks/results/long_stream.md``.

Usage::

    python benchmarks/bench_long_stream.py              # 10M rows
    python benchmarks/bench_long_stream.py --rows 1000000 --points 1e4,1e5,1e6
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent


def generate(
    path: Path, rows: int, d: int = 1000, nnz: int = 10, seed: int = 0, block: int = 200_000
) -> None:
    """Write ``rows`` rows (``nnz`` features each, labels of a noisy linear model) to ``path``."""
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as fh:
        for start in range(0, rows, block):
            m = min(block, rows - start)
            cols = np.sort(rng.integers(0, d, size=(m, nnz)), axis=1)
            X = sp.csr_matrix(
                (
                    np.round(rng.standard_normal(m * nnz), 3),
                    cols.ravel(),
                    np.arange(0, (m + 1) * nnz, nnz),
                ),
                shape=(m, d),
            )
            X.sum_duplicates()
            y = np.where(X @ w + 0.5 * rng.standard_normal(m) > 0, 1, -1)
            dump_svmlight_file(X, y, fh, zero_based=False)
    tmp.replace(path)


def child(path: str, rows: int) -> None:
    """One measurement in this (fresh) process: prints a JSON line."""
    from evofeat.evaluate import prequential
    from evofeat.linear.pa import PA
    from evofeat.streams.libsvm_stream import LibsvmStream

    t0 = time.perf_counter()
    stream = LibsvmStream(path, max_rows=rows)
    result = prequential(PA(mode="pa-i", C=1.0), stream)
    seconds = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "rows": result.n_rows,
                "seconds": seconds,
                "peak_rss_mib": peak_kib / 1024,
                "accuracy": result.accuracy,
                "features": stream.n_features,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the generated file")
    parser.add_argument(
        "--points", default="1e3,1e5,1e6,3e6,1e7", help="row counts to measure (comma-separated)"
    )
    parser.add_argument("--child", nargs=2, metavar=("PATH", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    data = HERE / "data" / f"long_stream_{args.rows}.libsvm"
    data.parent.mkdir(parents=True, exist_ok=True)
    if not data.exists():
        t0 = time.perf_counter()
        generate(data, args.rows)
        print(
            f"generated {data} ({data.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - t0:.0f} s"
        )
    points = sorted({min(args.rows, int(float(p))) for p in args.points.split(",")})
    records = []
    for n in points:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(data), str(n)],
            check=True,
            capture_output=True,
            text=True,
        )
        rec = json.loads(out.stdout.strip().splitlines()[-1])
        records.append(rec)
        print(rec)
    lines = [
        "# Long stream: peak memory against rows",
        "",
        f"`python benchmarks/bench_long_stream.py --rows {args.rows} --points {args.points}`",
        "",
        f"PA-I over the first N rows of a synthetic LIBSVM file ({records[-1]['features']} features, "
        f"10 non-zeros a row, {data.stat().st_size / 2**20:.0f} MiB of text) read by `LibsvmStream` "
        "(default 4 MiB blocks, 65536-row chunks), each N in a fresh Python process; peak RSS is "
        "`ru_maxrss` of that process (interpreter, NumPy/SciPy/scikit-learn imports included).",
        "",
        "| rows | peak RSS (MiB) | seconds | rows/s | accuracy |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r['rows']:,} | {r['peak_rss_mib']:.1f} | {r['seconds']:.1f} | "
            f"{r['rows'] / r['seconds']:,.0f} | {r['accuracy']:.4f} |"
        )
    base = next((r for r in records if r["rows"] >= 1_000_000), records[0])
    growth = records[-1]["peak_rss_mib"] - base["peak_rss_mib"]
    lines += [
        "",
        f"Peak RSS grows by {growth:.1f} MiB from {base['rows']:,} to {records[-1]['rows']:,} rows "
        "(below about 100,000 rows the file is shorter than a few blocks, so the peak is lower).",
        "",
        f"Machine: {platform.platform()}, Python {platform.python_version()}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the end (timings are only comparable at similar load).",
        "",
    ]
    results = HERE / "results" / "long_stream.md"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {results}")


if __name__ == "__main__":
    main()
