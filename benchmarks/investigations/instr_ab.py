"""Instructions per row of evofeat's learners under two or more builds, counted by valgrind.

Wall-clock ratios on the shared 2-core machine swing 0.7-1.4, so a 3 % change
cannot be seen in them. Valgrind's instruction count (``Ir``) is deterministic
and independent of the machine's load. For each build (``--trees
label=/path/to/checkout``, each built in place) and each stream, one process
runs under ``valgrind --tool=callgrind`` with ``PYTHONPATH=<checkout>/src``;
for each learner it warms up on the first rows, then runs ``prequential`` (the
array path: chunk conversion and the compiled loop) on the first N rows and,
with a fresh model, on the first 2N rows, and asks callgrind to dump its counts
after each (a client request through a tiny C helper compiled on first use).
Instructions per row = (Ir(2N) - Ir(N)) / N: start-up, imports, warm-up and
per-run fixed costs cancel. ``--dict-rows M`` does the same for the dict path
(``predict_one`` then ``learn_one`` per row) on M and 2M rows of the stream.

A separate run without valgrind checks that the builds give bit-identical
predictions (labels and scores of every row, ``keep_predictions=True``).

    python benchmarks/investigations/instr_ab.py \
        --trees before=/work/wt-instr-before,after=/work/wt-instr-after \
        --learners pa-i,stsd-i,ofs --streams dense,a8a-like,covtype \
        --json benchmarks/investigations/results/instr_ab.json

A learner is ``label=name`` or ``label=name{"param": value}`` (JSON parameters);
``tree:label=...`` gives a learner only to one build (e.g. ``fit_intercept``
where the old build has no such parameter). Ir is not cycles: cache misses,
branch mispredictions and the latency of divisions and square roots are not in
it, so it resolves changes in the work done, not every change of time.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
#: rows N of each stream (2N rows must exist): dense 19,020 rows, a8a-like 32,561, covtype 581,012
ROWS = {"dense": 9_000, "a8a-like": 16_000, "covtype": 20_000, "sparse": 20_000}
WARMUP = 500
CHECK_ROWS = 100_000
HELPER_C = """
#include <valgrind/valgrind.h>
#include <valgrind/callgrind.h>
void cg_dump(const char *tag) { CALLGRIND_DUMP_STATS_AT(tag); }
int cg_running(void) { return RUNNING_ON_VALGRIND; }
"""


# ------------------------------------------------------------------------------ in the child
def _helper() -> Any:
    """The compiled ``cg_dump`` helper (built in the temp directory on first use)."""
    lib = Path(tempfile.gettempdir()) / f"evofeat_cgdump_{os.getuid()}.so"
    if not lib.exists():
        src = lib.with_suffix(f".{os.getpid()}.c")
        src.write_text(HELPER_C)
        tmp = lib.with_suffix(f".{os.getpid()}.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(tmp), str(src)], check=True)
        tmp.replace(lib)
        src.unlink()
    return ctypes.CDLL(str(lib))


def _stream(name: str, rows: int) -> tuple[Any, Any]:
    sys.path.insert(0, str(BENCH))
    from synth import load_stream  # benchmarks/synth.py: the speed benchmark's seeded streams

    return load_stream(name, rows)


def _make(name: str, params: dict[str, Any]) -> Any:
    from evofeat.registry import make

    return make(name, **params)


def child_count(job: dict[str, Any]) -> None:
    """Under callgrind: dump after each learner's N-row and 2N-row runs (tags ``label|path|rows``)."""
    from evofeat.evaluate.prequential import prequential
    from evofeat.streams import full

    warnings.simplefilter("ignore")
    cg = _helper()
    n, m = job["rows"], job["dict_rows"]
    X, y = _stream(job["stream"], 2 * max(n, m))
    streams = {k: full(X[:k], y[:k]) for k in (WARMUP, n, 2 * n) if n}
    from worker import _dicts  # benchmarks/worker.py: the speed benchmark's dict rows

    rows = _dicts(X[: 2 * m], y[: 2 * m]) if m else []
    gc.disable()  # a collection inside one measured run and not in the other is not the learner's

    def counted(tag: str, run: Any, *args: Any) -> None:
        gc.collect()
        cg.cg_dump(b"collect")
        run(*args)
        cg.cg_dump(tag.encode())

    def one_by_one(model: Any, data: list[Any]) -> None:
        for x, t in data:
            model.predict_one(x)
            model.learn_one(x, t)

    for label, name, params in job["learners"]:
        for k in (WARMUP, n, 2 * n) if n else ():
            counted(f"{label}|array|{k}", prequential, _make(name, params), streams[k])
        for k in (WARMUP, m, 2 * m) if m else ():
            counted(f"{label}|dict|{k}", one_by_one, _make(name, params), rows[:k])


def child_check(job: dict[str, Any]) -> None:
    """Without valgrind: a digest of every row's predicted label and score, and the mistakes."""
    import numpy as np

    from evofeat.evaluate.prequential import prequential
    from evofeat.streams import full

    warnings.simplefilter("ignore")
    X, y = _stream(job["stream"], CHECK_ROWS)
    stream = full(X, y)
    out = {}
    for label, name, params in job["learners"]:
        r = prequential(_make(name, params), stream, keep_predictions=True)
        h = hashlib.sha256()
        for a in (r.labels, r.scores):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        out[label] = {"mistakes": int(r.mistakes), "digest": h.hexdigest()[:16], "n": len(y)}
    print("RESULT " + json.dumps(out))


# ------------------------------------------------------------------------------ in the driver
def parse_dumps(prefix: Path) -> dict[str, int]:
    """``tag -> Ir`` from callgrind's dump files ``<prefix>.<k>`` (each counts since the last)."""
    out: dict[str, int] = {}
    for path in sorted(prefix.parent.glob(prefix.name + ".*")):
        text = path.read_text(errors="replace")
        tag = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if tag and total:
            out[tag.group(1).strip()] = int(total.group(1))
    return out


def run_child(tree: Path, job: dict[str, Any], valgrind: Path | None) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = "1"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(job)]
    if valgrind is not None:
        cmd = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={valgrind}",
            "--dump-line=no",
            *cmd,
        ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree)
    if out.returncode != 0:
        raise SystemExit(f"{tree} {job['stream']}: exit {out.returncode}\n{out.stderr[-3000:]}")
    return out.stdout


def parse_learner(spec: str) -> tuple[str | None, str, str, dict[str, Any]]:
    """``[tree:]label=name[{json}]`` -> (tree or None, label, name, params)."""
    tree, _, rest = spec.partition(":") if re.match(r"^[\w.-]+:", spec) else ("", "", spec)
    name_part = rest.split("{", 1)[0]
    label, _, body = rest.partition("=") if "=" in name_part else (name_part, "", rest)
    name, brace, params = body.partition("{")
    return tree or None, label, name, json.loads(brace + params) if brace else {}


def learners_for(tree: str, specs: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for spec in specs:
        only, label, name, params = parse_learner(spec)
        if only in (None, tree):
            out.append((label, name, params))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--trees", help="label=checkout,... (each built in place; the first is the base)"
    )
    p.add_argument("--learners", help="comma list of [tree:]label=name[{json}]")
    p.add_argument("--streams", default="dense,a8a-like,covtype")
    p.add_argument("--rows", type=int, default=-1, help="N (default: per stream, ROWS; 0: off)")
    p.add_argument("--dict-rows", type=int, default=0, help="M rows on the dict path (0: off)")
    p.add_argument("--keep", type=Path, default=None, help="keep callgrind's dumps here")
    p.add_argument("--no-check", action="store_true", help="skip the bit-identity run")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--merge", nargs="+", type=Path, help="combine these JSON results (Ir is")
    p.add_argument("--order", default=None, help="with --merge: the builds' columns, base first")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        job = json.loads(args.child)
        (child_check if job.get("check") else child_count)(job)
        return
    if args.merge:
        merged = merge(args.merge)
        order = args.order.split(",") if args.order else list(merged["trees"])
        print_table(merged, order)
        if args.json:
            args.json.write_text(json.dumps(merged, indent=1) + "\n")
        return
    if not args.trees or not args.learners:
        p.error("--trees and --learners are required")
    trees = dict(t.split("=", 1) for t in args.trees.split(","))
    specs = [s for s in re.split(r",(?![^{]*\})", args.learners) if s]
    for s in args.streams.split(","):  # build the stream caches once, outside valgrind
        _stream(s, None)
    results: dict[str, Any] = {"trees": trees, "rows": {}, "ir": {}, "check": {}}
    work = Path(tempfile.mkdtemp(prefix="instr_ab_")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    for stream in args.streams.split(","):
        n = ROWS[stream] if args.rows < 0 else args.rows
        results["rows"][stream] = {"array": n, "dict": args.dict_rows}
        for tree, path in trees.items():
            learners = learners_for(tree, specs)
            job = {"stream": stream, "rows": n, "dict_rows": args.dict_rows, "learners": learners}
            prefix = work / f"cg.{tree}.{stream}"
            for old in prefix.parent.glob(prefix.name + ".*"):
                old.unlink()
            run_child(Path(path), job, prefix)
            dumps = parse_dumps(prefix)
            for label, _, _ in learners:
                for kind, k in (("array", n), ("dict", args.dict_rows)):
                    a, b = dumps.get(f"{label}|{kind}|{k}"), dumps.get(f"{label}|{kind}|{2 * k}")
                    if k and a is not None and b is not None:
                        key = f"{stream}|{kind}|{label}"
                        results["ir"].setdefault(key, {})[tree] = (b - a) / k
            if not args.no_check:
                line = run_child(Path(path), {**job, "check": True}, None).splitlines()[-1]
                for label, res in json.loads(line[7:]).items():
                    results["check"].setdefault(f"{stream}|{label}", {})[tree] = res
            print(f"{stream} {tree}: done", file=sys.stderr, flush=True)
    print_table(results, list(trees))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n")


def merge(paths: list[Path]) -> dict[str, Any]:
    """One result from several runs' JSON (Ir does not depend on when or beside what it ran)."""
    out: dict[str, Any] = {"trees": {}, "rows": {}, "ir": {}, "check": {}}
    for path in paths:
        res = json.loads(path.read_text())
        out["trees"].update(res["trees"])
        out["rows"].update(res["rows"])
        for part in ("ir", "check"):
            for key, per_tree in res[part].items():
                out[part].setdefault(key, {}).update(per_tree)
    return out


def print_table(results: dict[str, Any], trees: list[str]) -> None:
    """Ir/row per build, the ratio of each build to the first, and whether predictions agree."""
    base = trees[0]
    head = ["stream", "path", "learner", *trees, *(f"{t}/{base}" for t in trees[1:]), "same"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for key, ir in results["ir"].items():
        stream, kind, label = key.split("|")
        if sum(t in ir for t in trees) < 2:
            continue
        ratios = [f"{ir[t] / ir[base]:.4f}" if t in ir and base in ir else "-" for t in trees[1:]]
        chk = results["check"].get(f"{stream}|{label}", {})
        digests = {chk[t]["digest"] for t in trees if t in chk}
        same = (
            "-"
            if len(digests) == 0 or sum(t in chk for t in trees) < 2
            else ("yes" if len(digests) == 1 else "NO")
        )
        cells = [f"{ir[t]:,.1f}" if t in ir else "-" for t in trees]
        print("| " + " | ".join([stream, kind, label, *cells, *ratios, same]) + " |")


if __name__ == "__main__":
    main()
