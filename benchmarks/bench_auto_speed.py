"""``auto``'s rows/s before and after issue 25's speed-ups, with the peers in the same run.

    python benchmarks/bench_auto_speed.py --before /tmp/before/src      # writes results/speed_auto.md
    python benchmarks/bench_auto_speed.py --render benchmarks/results/speed_auto.json

``--before`` is the ``src`` folder of a built checkout of the commit before
the speed-ups (e.g. ``git archive 58933ba src | tar -x -C /tmp/before``,
then ``python setup.py build_ext --inplace`` there, or copy its built
extension modules in): its ``auto`` runs with that folder first on
``PYTHONPATH``; everything else runs on the installed evofeat. Each
measurement is its own process (``worker.py``, as ``run.py``: warm-up
excluded, the median of ``--repeats`` runs, rows/s over this thread's CPU
time), alternating before / after per stream so that the machine's load
hits both alike. Streams: ``synth.py``'s ``dense`` (19,020 x 10),
``a8a-like`` (32,561 x 123, 14 stored a row) and ``sparse`` (100,000 x
100,000, 50 a row). Peers: River's ``PAClassifier`` and
``LogisticRegression`` per row (dicts), Vowpal Wabbit's Python bindings per
row, and VW's C++ driver on a file (not a per-row Python loop: shown, not in
the 10x target). Not in CI (River and VW are optional).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import LABEL, fmt_rate, load_average, machine, measure, rate, table  # noqa: E402

STREAMS = ("dense", "a8a-like", "sparse")
PEERS = ("river:pa", "river:logreg", "vw:py", "vw:driver")
#: the per-row Python loops: the 10x target is against each of them
PER_ROW = ("river:pa", "river:logreg", "vw:py")
AFTER, BEFORE = "evofeat:auto", "evofeat:auto@before"


def run_one(spec: dict[str, Any], before: str | None) -> dict[str, Any]:
    """:func:`run.measure` of ``spec``; ``auto@before`` with ``before`` first on ``PYTHONPATH``."""
    if spec["impl"] != BEFORE:
        return measure(spec)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = before + (os.pathsep + old if old else "")
    try:
        r = measure({**spec, "impl": AFTER})
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return {**r, "impl": BEFORE}


def render(data: dict[str, Any]) -> str:
    res = data["results"]
    lines = [
        "# `auto`'s speed: before and after issue 25's speed-ups, with the peers",
        "",
        f"Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores; "
        f"evofeat {data['machine']['versions'].get('evofeat')}, river "
        f"{data['machine']['versions'].get('river')}, vowpalwabbit "
        f"{data['machine']['versions'].get('vowpalwabbit')}.",
        f"1-minute load average: {data['load'][0]:.1f} at the start, "
        f"{min(r.get('load', np.nan) for r in res):.1f}-{max(r.get('load', np.nan) for r in res):.1f}"
        " during the measurements (2 cores: the machine was shared, so every rate is lower than "
        "on a quiet machine, the peers' as much as evofeat's: the ratios, measured in the same "
        "run and alternated, are the comparable figures). "
        f"Took {data['seconds'] / 60:.0f} min, finished {data['when']}.",
        f"Command: `python benchmarks/bench_auto_speed.py{data['argv']}`. Before: "
        f"{data['before_what']}. rows/s is rows over the CPU time of the run (median of "
        f"{data['repeats']}; VW's driver: its child process, start-up subtracted); for `auto`, "
        "the whole `prequential` call on a prebuilt stream.",
        "",
    ]
    for stream in data["streams"]:
        rows = [r for r in res if r["stream"] == stream]
        got = {r["impl"]: r for r in rows}
        if not rows:
            continue
        r0 = rows[0]
        lines += [f"## {stream} ({r0.get('n', 0):,} x {r0.get('d', 0):,})", ""]
        after = rate(got[AFTER]) if AFTER in got else float("nan")
        body = []
        for impl in (BEFORE, AFTER, *PEERS):
            r = got.get(impl)
            if r is None:
                continue
            name = {
                AFTER: "evofeat auto, after",
                BEFORE: "evofeat auto, before (the commit before)",
            }.get(impl, LABEL.get(impl, impl))
            if "error" in r:
                body.append([name, "-", "-", "-", r["error"]])
                continue
            x = rate(r)
            body.append(
                [
                    name,
                    fmt_rate(x),
                    r.get("mistakes", "-"),
                    f"{after / x:.1f}x" if impl != AFTER else "1x",
                    "per-row Python loop" if impl in PER_ROW else "",
                ]
            )
        lines += [
            table(body, ["implementation", "rows/s (CPU)", "mistakes", "auto after / it", ""])
        ]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="src folder of the built commit before the speed-ups")
    ap.add_argument("--before-what", default="58933ba (main before issue 25's speed-ups)")
    ap.add_argument("--streams", default=",".join(STREAMS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "speed_auto.md")
    ap.add_argument("--render", type=Path, help="rewrite the report from its JSON only")
    args = ap.parse_args()
    if args.render:
        data = json.loads(args.render.read_text())
        args.render.with_suffix(".md").write_text(render(data))
        return 0
    streams = [s for s in args.streams.split(",") if s]
    peers = [p for p in args.peers.split(",") if p]
    impls = ([BEFORE] if args.before else []) + [AFTER]
    t0, load = time.time(), load_average()
    results = []
    for stream in streams:
        for impl in impls + peers:
            spec = {"impl": impl, "stream": stream, "repeats": args.repeats, "rows": None}
            r = run_one(spec, args.before)
            results.append(r)
            shown = r.get("error") or f"{fmt_rate(rate(r))} rows/s, {r.get('mistakes')} mistakes"
            print(f"{stream} {impl}: {shown} (load {r.get('load', 0):.1f})", flush=True)
    data = {
        "machine": machine(),
        "load": list(load),
        "seconds": time.time() - t0,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "argv": "".join(f" {shlex.quote(a)}" for a in sys.argv[1:]),
        "before_what": args.before_what if args.before else "not run",
        "repeats": args.repeats,
        "streams": streams,
        "results": results,
    }
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1))
    args.out.write_text(render(data))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
