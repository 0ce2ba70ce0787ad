"""Time evofeat's learners again on the leaderboard's stored cells, without running the peers.

``benchmarks/leaderboard.py`` skips a stored (cell, learner), so a change that
makes evofeat faster but computes the same thing leaves its stored rows/s as
they were. This script rebuilds each stored cell's streams
(:func:`benchmarks.leaderboard.build_streams`, same orders and preprocessing),
runs every stored evofeat learner on them with the leaderboard's own timing
(:func:`benchmarks.leaderboard.run_evofeat`, one learner over every order, then
the next, as the leaderboard runs them) and replaces only its ``rows_s``,
``loop_rows_s`` and ``cpu``. An entry is left as it is, and named, when its
parameters are no longer the learner's (its defaults changed: the leaderboard
runs it again) or when the run does not give the stored mistakes on every
order (then the learner computes something else, and its accuracy would be
stale too). The peers' rows are never touched.

    python benchmarks/retime_leaderboard.py                      # every stored cell
    python benchmarks/retime_leaderboard.py --cells german/haphazard,wbc/evolvable
    python benchmarks/leaderboard.py --render                    # then the report

The JSON is read again just before each cell is written, and only these three
fields of the re-timed entries are replaced, so a leaderboard run that stored
other entries in the meantime keeps them (do not run both at once all the same:
each writes the whole file).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))  # `benchmarks.*` when run as a script

from benchmarks.leaderboard import (  # noqa: E402
    build_streams,
    learner_params,
    note_update,
    run_evofeat,
    save,
)

RESULTS = ROOT / "results" / "leaderboard.json"
TIMING = ("rows_s", "loop_rows_s", "cpu")


def retime_cell(
    key: str, cell: dict[str, Any], preprocess: str
) -> tuple[dict[str, Any], list[str]]:
    """New timing fields for each stored evofeat entry of ``cell`` that still computes the same."""
    orders = int(cell["orders"])
    streams = build_streams(cell["dataset"], cell["scenario"], orders, preprocess)
    new: dict[str, Any] = {}
    skipped: list[str] = []
    for entry, rec in cell["learners"].items():
        if not entry.startswith("evofeat:") or len(rec.get("mistakes", [])) != orders:
            continue
        spec = entry.split(":", 1)[1]
        if rec.get("params") != learner_params(spec):
            skipped.append(f"{key} {spec}: parameters changed since it was stored")
            continue
        runs = [run_evofeat(spec, s) for s in streams]
        if [m for _, m, _, _ in runs] != rec["mistakes"]:
            skipped.append(f"{key} {spec}: mistakes differ from the stored ones")
            continue
        new[entry] = {
            "rows_s": [s.n_rows / max(cpu, 1e-9) for s, (_, _, cpu, _) in zip(streams, runs, strict=True)],
            "loop_rows_s": [s.n_rows / max(lp, 1e-9) for s, (*_, lp) in zip(streams, runs, strict=True)],
            "cpu": [cpu for _, _, cpu, _ in runs],
        }  # fmt: skip
    return new, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument(
        "--cells", help="comma-separated dataset/scenario keys (default: every stored cell)"
    )
    args = ap.parse_args(argv)
    results = json.loads(args.results.read_text())
    preprocess = results["meta"].get("preprocess", "zscore")
    keys = args.cells.split(",") if args.cells else list(results["cells"])
    skipped: list[str] = []
    for key in keys:
        cell = results["cells"].get(key)
        if cell is None or "orders" not in cell:
            skipped.append(f"{key}: not stored")
            continue
        new, why = retime_cell(key, cell, preprocess)
        skipped += why
        latest = json.loads(args.results.read_text())  # what a leaderboard run stored meanwhile
        for entry, fields in new.items():
            rec = latest["cells"].get(key, {}).get("learners", {}).get(entry)
            if rec is not None and rec.get("mistakes") == cell["learners"][entry]["mistakes"]:
                rec.update(fields)
        save(latest, args.results)
        print(f"{key}: {len(new)} evofeat entries re-timed", flush=True)
    latest = json.loads(args.results.read_text())
    given = " ".join(sys.argv[1:] if argv is None else argv)
    note_update(
        latest,
        f"python benchmarks/retime_leaderboard.py {given}".strip(),
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    save(latest, args.results)
    for line in skipped:
        print(f"left as stored: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
