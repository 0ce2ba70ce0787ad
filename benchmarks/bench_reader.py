"""Rows per second of the streamed readers: LIBSVM (plain and gzip) and JSON Lines.

Generates ``--rows`` rows of ``--nnz`` non-zeros (default 10^6 x 20) into a
temporary folder, then times, for each file: the reader alone (every chunk
made, nothing learned) and PA-I end to end through ``prequential``.
Optionally compares with Vowpal Wabbit's text parser (``--vw``, needs the
``vowpalwabbit`` package). A measurement, not a test::

    python benchmarks/bench_reader.py --rows 1000000
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def write_libsvm(path: Path, rows: int, nnz: int, d: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for a in range(0, rows, 50_000):
            m = min(50_000, rows - a)
            idx = np.sort(rng.choice(d, size=(m, nnz), replace=True), axis=1) + 1
            val = rng.random((m, nnz))
            y = np.where(rng.random(m) < 0.5, 1, -1)
            lines = []
            for i in range(m):
                u, first = np.unique(idx[i], return_index=True)
                feats = " ".join(f"{j}:{v:.4f}" for j, v in zip(u, val[i][first], strict=True))
                lines.append(f"{y[i]} {feats}\n")
            fh.write("".join(lines))


def libsvm_to_jsonl(src: Path, dst: Path) -> None:
    with open(src) as fin, open(dst, "w") as fout:
        for line in fin:
            tok = line.split()
            row: dict[str, float] = {t.split(":")[0]: float(t.split(":")[1]) for t in tok[1:]}
            row["y"] = int(tok[0])
            fout.write(json.dumps(row) + "\n")


def timed(label: str, rows: int, fn) -> None:  # type: ignore[no-untyped-def]
    """Wall and CPU (this process) time: on a shared machine the CPU figure is the steadier one."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    s, c = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"{label:<42} wall {s:7.2f} s {rows / s:10,.0f} rows/s   cpu {c:7.2f} s "
        f"{rows / max(c, 1e-9):10,.0f} rows/s",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--nnz", type=int, default=20)
    ap.add_argument("--features", type=int, default=10_000)
    ap.add_argument("--jsonl", action="store_true", help="also time the JSON Lines reader")
    ap.add_argument("--vw", action="store_true", help="also time vowpalwabbit's text parser")
    args = ap.parse_args()

    from evofeat.base.feature_index import FeatureIndex
    from evofeat.evaluate import prequential
    from evofeat.linear.pa import PA
    from evofeat.streams import LibsvmStream

    tmp = Path(tempfile.mkdtemp(prefix="evofeat-bench-"))
    try:
        path = tmp / "bench.libsvm"
        t0 = time.perf_counter()
        write_libsvm(path, args.rows, args.nnz, args.features)
        print(
            f"wrote {args.rows:,} rows x {args.nnz} nnz ({path.stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        gz = tmp / "bench.libsvm.gz"
        with open(path, "rb") as fin, gzip.open(gz, "wb", compresslevel=1) as fout:
            shutil.copyfileobj(fin, fout)
        files = [path, gz]
        if args.jsonl:
            jl = tmp / "bench.jsonl"
            libsvm_to_jsonl(path, jl)
            files.append(jl)
        for f in files:
            if f.suffix == ".jsonl":
                from evofeat.streams import JsonlStream

                make = lambda f=f: JsonlStream(f)  # noqa: E731
            else:
                make = lambda f=f: LibsvmStream(f)  # noqa: E731

            def read_only(make=make) -> None:  # type: ignore[no-untyped-def]
                s = make()
                for _ in s.chunks(*s.internal_columns(FeatureIndex())):
                    pass

            timed(f"{f.name}: reader (survey + chunks)", args.rows, read_only)
            timed(
                f"{f.name}: PA-I end to end",
                args.rows,
                lambda make=make: prequential(PA("pa-i", C=1.0), make()),
            )
        if args.vw:
            vwf = tmp / "bench.vw"
            with open(path) as fin, open(vwf, "w") as fout:
                for line in fin:
                    y, _, rest = line.partition(" ")
                    fout.write(f"{y} | {rest}")
            # vw's own driver: parse + learn one pass, no cache
            import subprocess
            import sys

            cmd = [
                sys.executable,
                "-c",
                f"from vowpalwabbit import pyvw; pyvw.Workspace('-d {vwf} --quiet --noconstant')",
            ]
            timed("vw: -d file (parse + learn)", args.rows, lambda: subprocess.run(cmd, check=True))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
