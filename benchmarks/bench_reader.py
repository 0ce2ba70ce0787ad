"""Rows per second of the streamed readers: LIBSVM (plain and gzip) and JSON Lines.

Generates ``--rows`` rows of ``--nnz`` non-zeros (default 10^6 x 20) into a
temporary folder, then times, for each file: the reader alone (every chunk
made, nothing learned) and PA-I end to end through ``prequential``.
Optionally compares with Vowpal Wabbit's own driver reading the same rows in
its text format (``--vw``, needs the ``vowpalwabbit`` package): ``--noop``
(parse only) and PA-like learning, plain and gzip. ``--repeat N`` times each
line N times and prints the median (the machine may be shared), and the
ratios of evofeat's reader to VW's parser. A measurement, not a test::

    python benchmarks/bench_reader.py --rows 1000000 --vw --repeat 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
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


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (VW runs in a child)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed(label: str, rows: int, fn, repeat: int = 1) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median wall and CPU time over ``repeat`` runs, printed as rows/s; returns ``(wall, cpu)``.

    On a shared machine the CPU figure is the steadier one.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), _cpu()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    s, c = statistics.median(walls), statistics.median(cpus)
    runs = f"  (median of {repeat})" if repeat > 1 else ""
    print(
        f"{label:<44} wall {s:7.2f} s {rows / s:10,.0f} rows/s   cpu {c:7.2f} s "
        f"{rows / max(c, 1e-9):10,.0f} rows/s{runs}",
        flush=True,
    )
    return s, c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--nnz", type=int, default=20)
    ap.add_argument("--features", type=int, default=10_000)
    ap.add_argument("--jsonl", action="store_true", help="also time the JSON Lines reader")
    ap.add_argument("--vw", action="store_true", help="also time vowpalwabbit's text parser")
    ap.add_argument("--repeat", type=int, default=1, help="runs per line; the median is printed")
    args = ap.parse_args()
    rep = max(1, args.repeat)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")

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
        reader: dict[str, tuple[float, float]] = {}
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

            reader[f.name] = timed(f"{f.name}: reader (survey + chunks)", args.rows, read_only, rep)
            timed(
                f"{f.name}: PA-I end to end",
                args.rows,
                lambda make=make: prequential(PA("pa-i", C=1.0), make()),
                rep,
            )
        if args.vw:
            vwf = tmp / "bench.vw"
            with open(path) as fin, open(vwf, "w") as fout:
                for line in fin:
                    y, _, rest = line.partition(" ")
                    fout.write(f"{y} | {rest}")
            vwgz = tmp / "bench.vw.gz"
            with open(vwf, "rb") as fin, gzip.open(vwgz, "wb", compresslevel=1) as fout:
                shutil.copyfileobj(fin, fout)

            def vw(opts: str) -> None:
                """VW's own driver in a child process (its start-up, about 0.1 s, included)."""
                code = f"from vowpalwabbit import pyvw; pyvw.Workspace({opts!r})"
                subprocess.run([sys.executable, "-c", code], check=True)

            vw_runs = {
                "bench.libsvm": (vwf, ""),
                "bench.libsvm.gz": (vwgz, " --compressed"),
            }
            for name, (vfile, extra) in vw_runs.items():
                parse = timed(
                    f"vw: -d {vfile.name} --noop (parse only)",
                    args.rows,
                    lambda v=vfile, e=extra: vw(f"-d {v} --quiet --noconstant --noop{e}"),
                    rep,
                )
                timed(
                    f"vw: -d {vfile.name} (parse + learn)",
                    args.rows,
                    lambda v=vfile, e=extra: vw(f"-d {v} --quiet --noconstant{e}"),
                    rep,
                )
                if name in reader:
                    ours = reader[name]
                    print(
                        f"  ratio evofeat reader / vw parser on {name}: wall "
                        f"{parse[0] / ours[0]:.2f}x, cpu {parse[1] / ours[1]:.2f}x "
                        "(above 1: evofeat reads faster)",
                        flush=True,
                    )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
