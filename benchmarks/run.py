"""evofeat's speed benchmark: ``python benchmarks/run.py [--quick] [--sections ...]``.

Every measurement runs in its own process (:mod:`worker`): warm-up on the
first rows (compilation excluded), then ``--repeats`` timed runs with a
fresh model, the median reported. Sections:

``speed``
    Prequential (predict-then-update) throughput of every registered online
    learner on evofeat's array path, PA-I and STSD-I on the dict path, and
    the peers (River, Vowpal Wabbit, scikit-learn) on the same streams.
``sweep``
    Cost per row of PA-I, STSD-I and OFS for d = 10^3 ... 10^6 (50 non-zeros a row).
``table8``
    OFS on covtype (B = round(0.1 d)), 20 permutations, joblib on two cores.
``startup``
    ``evofeat demo`` twice in fresh processes after the install (cold, then warm).

Writes ``benchmarks/results/speed.md`` and ``speed.json`` (``--quick``: small
sizes, one run each, written under ``benchmarks/data/`` instead) and prints
the tables. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
SYNTH = ("dense", "a8a-like", "sparse")
REAL = ("a8a", "covtype")
PEERS = ("river:pa", "river:logreg", "vw:driver", "vw:py", "sklearn:sgd-row", "sklearn:sgd-1024")
DICT = ("evofeat-dict:pa-i", "evofeat-dict:stsd-i")
#: the floor of the "within 5x" targets: a bare compiled PA-I loop (worker.run_floor)
FLOOR = "floor:pa-i"
SWEEP = ("sweep-1e3", "sweep-1e4", "sweep-1e5", "sweep-1e6")
SWEEP_LEARNERS = ("evofeat:pa-i", "evofeat:stsd-i", "evofeat:ofs")
#: rows of the d sweep: every generated row (the end-to-end path costs O(d) once a run, to register
#: d features and build the state, and O(stored values) a row)
SWEEP_ROWS = 100_000
#: Python per-row loops on covtype (581,012 rows) run on its first 100,000 rows (memory of the dicts)
PY_LOOP_CAP = {"covtype": 100_000}
PY_LOOPS = ("river:", "evofeat-dict:", "vw:py")
LABEL = {
    "river:pa": "River PAClassifier (PA-I, dicts)",
    "river:logreg": "River LogisticRegression (dicts)",
    "vw:driver": "Vowpal Wabbit, its C++ driver on a file",
    "vw:py": "Vowpal Wabbit, Python bindings per row",
    "sklearn:sgd-row": "scikit-learn SGDClassifier, partial_fit per row",
    "sklearn:sgd-1024": "scikit-learn SGDClassifier, partial_fit per 1024 rows",
    "floor:pa-i": "the floor: PA-I as one bare compiled loop (not a library)",
    "evofeat-dict:pa-i": "evofeat PA-I, dict path",
    "evofeat-dict:stsd-i": "evofeat STSD-I, dict path",
}


def online_learners() -> list[str]:
    from evofeat.registry import ONLINE

    return list(ONLINE)


# ------------------------------------------------------------------------------------ machine
def load_average() -> tuple[float, float, float]:
    return os.getloadavg()


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {}
    for pkg in (
        "evofeat",
        "numpy",
        "scipy",
        "Cython",
        "scikit-learn",
        "river",
        "vowpalwabbit",
        "joblib",
    ):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    mem = "unknown"
    try:
        with open("/proc/meminfo") as fh:
            mem = f"{int(fh.readline().split()[1]) / 2**20:.0f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
    }


# ------------------------------------------------------------------------------------ running
def measure(spec: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    """Run one spec in a fresh process; the worker's result, or an ``error``."""
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
    }
    load = load_average()[0]
    try:
        out = subprocess.run(
            [sys.executable, str(HERE / "worker.py"), json.dumps(spec)],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {
            **spec,
            "error": f"did not finish within {timeout:.0f} s (warm-up and runs)",
            "load": load,
        }
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {**spec, "error": f"failed: {tail[:200]}", "load": load}
    return {**json.loads(lines[-1][7:]), "load": load}


def med(values: list[float]) -> float:
    return float(np.median(values)) if values else float("nan")


def rate(r: dict[str, Any], key: str = "cpu") -> float:
    """Rows per second from the median of the timed runs (``nan`` if missing)."""
    if "error" in r or not r.get(key):
        return float("nan")
    return r["n"] / med(r[key])


# ------------------------------------------------------------------------------------ formatting
def fmt_rate(x: float) -> str:
    if not np.isfinite(x):
        return "-"
    return f"{x / 1e6:.3g} M" if x >= 1e5 else f"{x / 1e3:.3g} k"


def fmt_ratio(x: float) -> str:
    return "-" if not np.isfinite(x) else (f"{x:.3g}x")


def table(rows: list[list[Any]], head: list[str]) -> str:
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def speed_table(results: list[dict[str, Any]], stream: str) -> str:
    rs = [r for r in results if r["stream"] == stream]
    river = next((rate(r) for r in rs if r["impl"] == "river:pa"), float("nan"))
    vw = next((rate(r) for r in rs if r["impl"] == "vw:driver"), float("nan"))
    rows = []
    for r in rs:
        name = LABEL.get(r["impl"], r["impl"].replace("evofeat:", "evofeat ") + ", array path")
        if "error" in r:
            rows.append([name, "-", "-", "-", "-", "-", "-", "-", "-", r["error"]])
            continue
        rr = rate(r)
        kern = rate(r, "kernel_cpu")
        mis = r.get("mistakes")
        note = []
        if r["n"] < max(x["n"] for x in rs if "error" not in x):
            note.append(f"first {r['n']:,} rows")
        if r["impl"] == "vw:driver":
            note.append(f"start-up {r['startup_wall']:.2f} s subtracted")
        rows.append(
            [
                name,
                fmt_rate(rr),
                f"{1e6 / rr:.3g}" if np.isfinite(rr) else "-",
                fmt_rate(kern),
                fmt_rate(rate(r, "wall")),
                f"{mis / r['n']:.3f}" if mis is not None else "-",
                f"{r['maxrss_mib']:.0f}" if "maxrss_mib" in r else "-",
                fmt_ratio(rr / river),
                fmt_ratio(rr / vw),
                "; ".join(note),
            ]
        )
    head = [
        "implementation",
        "rows/s (CPU)",
        "µs/row",
        "rows/s in the compiled loop",
        "rows/s (wall)",
        "online error",
        "peak RSS MiB",
        "x River PA",
        "x VW driver",
        "note",
    ]
    return table(rows, head)


def sweep_table(results: list[dict[str, Any]]) -> str:
    rows = []
    for impl in SWEEP_LEARNERS:
        rs = [r for r in results if r["impl"] == impl and r["stream"].startswith("sweep")]
        us = [1e6 / rate(r) if "error" not in r else float("nan") for r in rs]
        uk = [1e6 / rate(r, "kernel_cpu") if "error" not in r else float("nan") for r in rs]
        for r, u, k in zip(rs, us, uk, strict=True):
            if "error" in r:
                rows.append([impl, r["stream"], "-", "-", "-", "-", "-", r["error"]])
                continue
            rows.append(
                [
                    impl.split(":")[1],
                    f"{r['d']:,}",
                    f"{u:.3g}",
                    f"{k:.3g}",
                    f"{r['state_mib']:.2f}",
                    f"{r['state_mib'] * 2**20 / r['d']:.1f}",
                    f"{r['maxrss_mib']:.0f}",
                    f"{r['mistakes'] / r['n']:.3f}",
                ]
            )
        fin = [x for x in uk if np.isfinite(x)]
        fe = [x for x in us if np.isfinite(x)]
        if fin:
            rows.append(
                [
                    f"**{impl.split(':')[1]}: max/min**",
                    "",
                    f"{max(fe) / min(fe):.2f}",
                    f"{max(fin) / min(fin):.2f}",
                    "",
                    "",
                    "",
                    "",
                ]
            )
    head = [
        "learner",
        "d",
        "µs/row (CPU, end to end)",
        "µs/row in the compiled loop",
        "state MiB",
        "state bytes per feature",
        "peak RSS MiB",
        "online error",
    ]
    return table(rows, head)


# ------------------------------------------------------------------------------------ targets
def targets(
    results: list[dict[str, Any]], t8: dict[str, Any] | None, st: dict[str, Any] | None
) -> str:
    def get(impl: str, stream: str) -> dict[str, Any] | None:
        return next(
            (
                r
                for r in results
                if r["impl"] == impl and r["stream"] == stream and "error" not in r
            ),
            None,
        )

    lines = []

    def check(ok: bool | None, what: str, detail: str) -> None:
        mark = "not measured" if ok is None else ("met" if ok else "**missed**")
        lines.append(f"| {what} | {detail} | {mark} |")

    streams = [st_ for st_ in SYNTH + REAL if get(FLOOR, st_)]
    for stream in streams:  # PA-I end to end within 1.5x of the floor
        r, floor = get("evofeat:pa-i", stream), get(FLOOR, stream)
        if r and floor:
            x = rate(floor) / rate(r)
            check(
                x <= 1.5,
                f"PA-I on {stream}, array path end to end: within 1.5x of the floor",
                f"the floor / PA-I: {x:.2f}x end to end, "
                f"{rate(floor) / rate(r, 'kernel_cpu'):.2f}x compiled loop",
            )
    for impl in ("evofeat:stsd-i", "evofeat:ofs"):
        for stream in SYNTH + REAL:
            r, floor, vw = get(impl, stream), get(FLOOR, stream), get("vw:driver", stream)
            if r is None:
                continue
            if floor and stream in ("dense", "a8a-like"):
                x = rate(floor) / rate(r)
                check(
                    x <= 3,
                    f"{impl[8:]} on {stream}: within 3x of the floor (end to end)",
                    f"the floor / this: {x:.1f}x end to end, "
                    f"{rate(floor) / rate(r, 'kernel_cpu'):.1f}x compiled loop",
                )
            if vw:
                check(
                    rate(r) > rate(vw),
                    f"{impl[8:]} on {stream}: ahead of VW's driver",
                    f"{rate(r) / rate(vw):.2f}x end to end",
                )
    rand = get("evofeat:stsd-i-rand", "sparse")
    if rand is not None:
        check(
            bool(rand.get("cpu")),
            "stsd-i-rand finishes on the sparse stream",
            f"{med(rand['cpu']):.1f} s of CPU a run" if rand.get("cpu") else "did not finish",
        )
    for impl in SWEEP_LEARNERS:
        rs = [get(impl, s_) for s_ in SWEEP]
        if all(rs):
            es = [1e6 / rate(r) for r in rs if r]
            ks = [1e6 / rate(r, "kernel_cpu") for r in rs if r]
            check(
                max(es) / min(es) <= 1.5,
                f"{impl[8:]}: cost per row flat in d = 10^3..10^6 (max/min <= 1.5)",
                f"end to end {max(es) / min(es):.2f} ({min(es):.2g}-{max(es):.2g} µs), "
                f"compiled loop {max(ks) / min(ks):.2f}",
            )
    goals = {
        "evofeat-dict:pa-i": {"dense": 10, "a8a-like": 10, "sparse": 3},
        "evofeat-dict:stsd-i": dict.fromkeys(SYNTH + REAL, 5),
    }
    for impl, per_stream in goals.items():
        for stream, goal in per_stream.items():
            r, river = get(impl, stream), get("river:pa", stream)
            if r and river:
                check(
                    rate(r) >= goal * rate(river),
                    f"{impl[13:]} dict path on {stream}: >= {goal}x River's PAClassifier",
                    f"{rate(r) / rate(river):.1f}x ({fmt_rate(rate(r))} vs {fmt_rate(rate(river))} rows/s)",
                )
    if st and st.get("cold_cpu"):
        check(
            med(st["cold_cpu"]) < 5,
            "cold `evofeat demo`: < 5 s of CPU",
            f"{med(st['cold_cpu']):.1f} s CPU ({med(st['cold']):.1f} s wall)",
        )
        check(
            med(st["import"]) < 0.5,
            "`import evofeat`: < 0.5 s",
            f"{med(st['import']):.2f} s wall, {med(st['import_cpu']):.2f} s CPU",
        )
    return "| target | measured | verdict |\n| --- | --- | --- |\n" + "\n".join(lines)


# ------------------------------------------------------------------------------------ main
def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="small sizes, one run each (a smoke test)")
    ap.add_argument(
        "--repeats", type=int, default=None, help="timed runs per measurement (default 3)"
    )
    ap.add_argument(
        "--sections",
        default="speed,sweep,table8,startup",
        help="comma-separated: speed, sweep, table8, startup",
    )
    ap.add_argument(
        "--streams", default=",".join(SYNTH + REAL), help="streams of the speed section"
    )
    ap.add_argument(
        "--learners", default="", help="comma-separated evofeat learners (default: all online)"
    )
    ap.add_argument(
        "--peers", default=",".join(PEERS), help="comma-separated peers of the speed section"
    )
    ap.add_argument("--out", default=None, help="report path (default results/speed.md)")
    ap.add_argument("--render", default=None, help="only rewrite the report from a saved JSON file")
    args = ap.parse_args()
    if args.render:
        src = Path(args.render)
        return write_report(
            json.loads(src.read_text()), Path(args.out) if args.out else src.with_suffix(".md")
        )
    sections = set(args.sections.split(","))
    repeats = args.repeats or (1 if args.quick else 3)
    rows = 4000 if args.quick else None
    out = (
        Path(args.out)
        if args.out
        else (HERE / "data" / "speed_quick.md" if args.quick else HERE / "results" / "speed.md")
    )
    learners = [x for x in args.learners.split(",") if x] or online_learners()
    info = machine()
    t_start = time.time()
    load_start = load_average()
    print(
        f"{info['cpu']}, {info['cores']} cores, load average {load_start[0]:.2f} at start",
        flush=True,
    )

    results: list[dict[str, Any]] = []

    def go(spec: dict[str, Any]) -> dict[str, Any]:
        r = measure({"repeats": repeats, "rows": rows, **spec})
        results.append(r)
        what = (
            r.get("error")
            or f"{fmt_rate(rate(r))} rows/s (CPU), loop {fmt_rate(rate(r, 'kernel_cpu'))}"
        )
        print(
            f"  {spec['impl']:24s} {spec['stream']:10s} {what}   [load {r['load']:.1f}]", flush=True
        )
        return r

    if "speed" in sections:
        for stream in args.streams.split(","):
            print(f"speed: {stream}", flush=True)
            peers = [p for p in args.peers.split(",") if p]
            for impl in (*peers, FLOOR, *DICT, *(f"evofeat:{n}" for n in learners)):
                spec: dict[str, Any] = {"impl": impl, "stream": stream}
                cap = PY_LOOP_CAP.get(stream)
                if cap and impl.startswith(PY_LOOPS) and rows is None:
                    spec["rows"] = cap
                go(spec)
    if "sweep" in sections:
        print("sweep", flush=True)
        sweep = SWEEP[:3] if args.quick else SWEEP
        for stream in sweep:
            for impl in (i for i in SWEEP_LEARNERS if i.split(":", 1)[1] in learners):
                go({"impl": impl, "stream": stream, "rows": 5000 if args.quick else SWEEP_ROWS})
    t8 = None
    if "table8" in sections:
        print("table8: OFS on covtype", flush=True)
        t8 = measure(
            {
                "impl": "table8:ofs",
                "stream": "covtype",
                "repeats": 2 if args.quick else 20,
                "rows": 50_000 if args.quick else None,
                "n_jobs": 2,
            },
            timeout=1800,
        )
        print(
            "  " + (t8.get("error") or f"{t8['total_wall']:.1f} s for {len(t8['runs'])} runs"),
            flush=True,
        )
    st = None
    if "startup" in sections:
        print("startup: evofeat demo", flush=True)
        st = measure(
            {
                "impl": "startup:demo",
                "stream": "none",
                "repeats": 1 if args.quick else 3,
                "demo_repeats": 1 if args.quick else 5,
            },
            timeout=1800,
        )
        print(
            "  "
            + (st.get("error") or f"cold {med(st['cold']):.1f} s, warm {med(st['warm']):.1f} s"),
            flush=True,
        )

    meta = {
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:]),
        "repeats": repeats,
        "load_start": load_start[0],
        "loads": [r["load"] for r in results if "load" in r] + [load_average()[0]],
        "seconds": time.time() - t_start,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    data = {"machine": info, "meta": meta, "results": results, "table8": t8, "startup": st}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(data, indent=1))
    return write_report(data, out)


def write_report(data: dict[str, Any], out: Path) -> int:
    text = report(data)
    out.write_text(text)
    print(text)
    print(f"written: {out}")
    return 0


def report(data: dict[str, Any]) -> str:
    """The Markdown report of a run (``data`` as saved in the JSON file)."""
    info, results = data["machine"], data["results"]
    t8, st = data.get("table8"), data.get("startup")
    loads = [r["load"] for r in results if "load" in r] or [float("nan")]
    meta = {
        "command": "python benchmarks/run.py",
        "repeats": 3,
        "load_start": loads[0],
        "loads": loads,
        "seconds": float("nan"),
        "date": "unknown",
        **data.get("meta", {}),
    }
    loads = meta["loads"]
    v = info["versions"]
    parts = [
        "# evofeat speed benchmark\n",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory']} RAM; Python {info['python']}; "
        + ", ".join(f"{k} {x}" for k, x in v.items())
        + ".",
        f"1-minute load average: {meta['load_start']:.2f} at the start, "
        f"{min(loads):.2f}-{max(loads):.2f} during the measurements (2 cores: a load above 2 means "
        f"other processes shared the CPU)."
        + (f" Took {meta['seconds'] / 60:.0f} min." if np.isfinite(meta["seconds"]) else "")
        + f" Finished {meta['date']}.",
        f"Command: `{meta['command'].strip()}`. Each cell: its own process, "
        f"warm-up excluded, median of {meta['repeats']} run(s). **rows/s (CPU)** is rows over the CPU time of the "
        "run (the measuring thread; for VW's driver the child process, start-up subtracted): on a shared "
        "machine it is far steadier than wall time, also shown. For evofeat's array path, the CPU time is "
        "the whole `prequential` call on a prebuilt `Stream` (chunk conversion + compiled loop); "
        "**rows/s in the compiled loop** is the loop alone (`compute_seconds`). Online error: "
        "predict-then-update mistakes over the rows. Ratios use rows/s (CPU).\n",
    ]
    if results:
        streams = []
        for r in results:
            if not r["stream"].startswith("sweep") and r["stream"] not in streams:
                streams.append(r["stream"])
        for s in streams:
            n = max((r["n"] for r in results if r["stream"] == s and "n" in r), default=0)
            d = max((r["d"] for r in results if r["stream"] == s and "d" in r), default=0)
            parts.append(f"## {s} ({n:,} x {d:,})\n\n{speed_table(results, s)}\n")
    if any(r["stream"].startswith("sweep") for r in results):
        n_sweep = max(
            (r["n"] for r in results if r["stream"].startswith("sweep") and "n" in r), default=0
        )
        parts.append(
            f"## Cost per row against d ({n_sweep:,} rows, 50 non-zeros a row, Zipf columns)\n\n"
            + sweep_table(results)
            + "\n"
        )
    if t8:
        if "error" in t8:
            parts.append(f"## OFS on covtype (Table 8)\n\n{t8['error']}\n")
        else:
            per = [x["run_wall"] for x in t8["serial"]]
            ker = [x["kernel"] for x in t8["serial"]]
            par = [x["run_wall"] for x in t8["runs"]]
            parts.append(
                f"## OFS on covtype (Table 8)\n\nOFS (lr 0.2, l2 0.01, B = round(0.1 x 54) = 5), covtype "
                f"{t8['n']:,} x {t8['d']} (z-scored, rows unit-norm), permutation r = "
                "`numpy.random.default_rng(r).permutation`. The paper's MATLAB: 601.5 s for one run.\n\n"
                + table(
                    [
                        [
                            "one run, one process (median)",
                            f"{med(per):.2f} s",
                            f"compiled loop {med(ker):.2f} s; the rest converts the stream to CSR chunks",
                        ],
                        [
                            f"{len(par)} runs, joblib n_jobs={t8['n_jobs']}, total wall",
                            f"{t8['total_wall']:.1f} s",
                            f"per run in the pool: median {med(par):.2f} s, max {max(par):.2f} s (the first run in "
                            "each worker loads the compiled kernels); each task memory-maps the data and permutes it",
                        ],
                        [
                            "online error (mean over runs)",
                            f"{np.mean([x['mistakes'] for x in t8['runs']]) / t8['n']:.3f}",
                            "",
                        ],
                    ],
                    ["what", "seconds", "note"],
                )
                + "\n"
            )
    if st:
        if "error" in st:
            parts.append(f"## Start-up\n\n{st['error']}\n")
        else:
            parts.append(
                "## Start-up: `evofeat demo`\n\nThe whole command in a fresh process (import, data, "
                "the demo's runs, the figure), wall and CPU (user + system) time; nothing is compiled "
                "at run time, so cold (the first after the install) and warm differ only by the "
                "operating system's file cache.\n\n"
                + table(
                    [
                        [
                            name,
                            f"{med(st[key]):.2f}",
                            f"{med(st.get(key + '_cpu') or [float('nan')]):.2f}",
                            ", ".join(f"{x:.2f}" for x in st[key]),
                        ]
                        for name, key in (
                            ("cold `evofeat demo`", "cold"),
                            ("warm `evofeat demo`", "warm"),
                            ("`import evofeat`", "import"),
                        )
                    ],
                    ["run", "median s (wall)", "median s (CPU)", "runs (wall)"],
                )
                + "\n"
            )
    parts.append("## Targets (issue 13)\n\n" + targets(results, t8, st) + "\n")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
