"""One measurement in its own process: ``python benchmarks/worker.py '<json spec>'``.

The spec names an implementation (``impl``), a stream (``stream``, see
:mod:`synth`), an optional row limit (``rows``), the number of timed runs
(``repeats``) and the warm-up rows (``warmup``). The worker loads the stream,
runs the implementation once on the first ``warmup`` rows (compilation,
imports, caches: not timed), then ``repeats`` times on the whole stream,
each time with a fresh model, and prints one line ``RESULT {json}``:

``cpu``
    CPU seconds of each timed run (this thread; for VW's driver, the child
    process's user + system time), the primary measure on a shared machine.
``wall``
    Wall-clock seconds of each timed run.
``kernel_cpu``
    evofeat's array path only: CPU seconds inside the compiled loop
    (``prequential``'s ``compute_seconds``; the rest of ``cpu`` is the
    conversion of the stream to the loop's CSR chunks).
``mistakes``
    Online (predict-then-update) mistakes of the last run.
``maxrss_mib`` / ``base_rss_mib``
    Peak resident memory of the process (``getrusage``), and the resident
    memory once the data were loaded, before any model was built.
``state_mib``
    evofeat only: the bytes of the learner's state arrays.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import DATA, load_stream, vw_file  # noqa: E402

#: River's and scikit-learn's per-row loops and VW's bindings are Python loops; their
#: rows are capped per stream when the whole stream would take minutes (see README).
PEER_ROW_CAP = {"sklearn:sgd-row": 5_000}
#: once the timed runs of one measurement have taken this many wall seconds, no further run starts
LONG_RUN = 45.0


def _enough(res: dict[str, Any]) -> bool:
    return sum(res["wall"]) > LONG_RUN


def _rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _dicts(X: Any, y: np.ndarray) -> list[tuple[dict[int, float], int]]:
    """The rows as ``({column: value}, label)`` (every stored entry, zeros of a dense row included)."""
    out = []
    if sp.issparse(X):
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            out.append(
                (dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist(), strict=True)), int(y[i]))
            )
    else:
        for i in range(X.shape[0]):
            out.append((dict(enumerate(X[i].tolist())), int(y[i])))
    return out


def _timed(fn: Any) -> tuple[float, float, Any]:
    w0, c0 = time.perf_counter(), time.thread_time()
    out = fn()
    return time.thread_time() - c0, time.perf_counter() - w0, out


# ---------------------------------------------------------------------------------- evofeat
def _chunk_rows(d: int) -> int:
    """Rows per chunk: ``prequential``'s default (the conversion is O(stored values) a chunk, whatever d)."""
    return 65536


def run_evofeat(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    import importlib

    from evofeat.registry import make
    from evofeat.streams import full

    pq = importlib.import_module("evofeat.base.prequential")
    name = spec["impl"].split(":", 1)[1]
    params = spec.get("params", {})
    # prequential times itself with time.perf_counter; read its clock as this thread's CPU time
    pq.time = types.SimpleNamespace(perf_counter=time.thread_time)  # type: ignore[attr-defined]
    chunk = _chunk_rows(X.shape[1])
    warm = full(X[: spec["warmup"]], y[: spec["warmup"]])
    pq.prequential(make(name, **params), warm, chunk_rows=chunk)
    stream = full(X, y)
    res: dict[str, Any] = {"cpu": [], "wall": [], "kernel_cpu": [], "chunk_rows": chunk}
    for _ in range(spec["repeats"]):
        model = make(name, **params)
        w0 = time.perf_counter()
        r = pq.prequential(model, stream, chunk_rows=chunk)
        res["wall"].append(time.perf_counter() - w0)
        res["cpu"].append(r.seconds)
        res["kernel_cpu"].append(r.extra["compute_seconds"])
        res["mistakes"] = r.mistakes
        if _enough(res):
            break
    st = model._state
    res["state_mib"] = sum(np.asarray(a).nbytes for a in st) / 2**20
    return res


def run_evofeat_dict(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    from evofeat.registry import make

    name = spec["impl"].split(":", 1)[1]
    rows = _dicts(X, y)

    def loop(model: Any, data: list[Any]) -> int:
        wrong = 0
        predict, learn = model.predict_one, model.learn_one
        for x, t in data:
            p = predict(x)
            if p != t:
                wrong += 1
            learn(x, t)
        return wrong

    loop(make(name), rows[: spec["warmup"]])
    res: dict[str, Any] = {"cpu": [], "wall": []}
    for _ in range(spec["repeats"]):
        model = make(name)
        c, w, m = _timed(lambda model=model: loop(model, rows))
        res["cpu"].append(c)
        res["wall"].append(w)
        res["mistakes"] = m
        if _enough(res):
            break
    st = model._state
    res["state_mib"] = sum(np.asarray(a).nbytes for a in st) / 2**20
    return res


# ---------------------------------------------------------------------------------- peers
def run_river(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    from river import linear_model

    kind = spec["impl"].split(":", 1)[1]
    factory = {
        "pa": lambda: linear_model.PAClassifier(C=1.0, mode=1),
        "logreg": lambda: linear_model.LogisticRegression(),
    }[kind]
    rows = [(x, t == 1) for x, t in _dicts(X, y)]

    def loop(model: Any, data: list[Any]) -> int:
        wrong = 0
        predict, learn = model.predict_one, model.learn_one
        for x, t in data:
            if predict(x) != t:
                wrong += 1
            learn(x, t)
        return wrong

    loop(factory(), rows[: spec["warmup"]])
    res: dict[str, Any] = {"cpu": [], "wall": []}
    for _ in range(spec["repeats"]):
        model = factory()
        c, w, m = _timed(lambda model=model: loop(model, rows))
        res["cpu"].append(c)
        res["wall"].append(w)
        res["mistakes"] = m
        if _enough(res):
            break
    return res


VW_ARGS = ["--loss_function", "hinge", "--binary", "-b", "20"]


def run_vw_py(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    import vowpalwabbit

    path = vw_file(spec["stream"], spec.get("rows"))
    lines = path.read_text().splitlines()

    def loop(ws: Any, data: list[str]) -> int:
        wrong = 0
        for line in data:
            ex = ws.parse(line)
            ws.learn(ex)  # VW predicts, then updates; the prediction is the one before the update
            if ex.get_simplelabel_prediction() != float(line[: line.index(" ")]):
                wrong += 1
            ws.finish_example(ex)
        return wrong

    args = " ".join([*VW_ARGS, "--quiet"])
    loop(vowpalwabbit.Workspace(args), lines[: spec["warmup"]])
    res: dict[str, Any] = {"cpu": [], "wall": []}
    for _ in range(spec["repeats"]):
        ws = vowpalwabbit.Workspace(args)
        c, w, m = _timed(lambda ws=ws: loop(ws, lines))
        ws.finish()
        res["cpu"].append(c)
        res["wall"].append(w)
        res["mistakes"] = m
        if _enough(res):
            break
    return res


def _vw_driver(path: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "vowpalwabbit", "-d", str(path), *VW_ARGS],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out.stderr


def run_vw_driver(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    """VW's own C++ driver (``python -m vowpalwabbit -d file``) on the text file.

    Its start-up (the interpreter, loading the library, allocating 2^20
    weights) is measured on a one-row file and subtracted.
    """
    path = vw_file(spec["stream"], spec.get("rows"))
    one = path.with_name(path.stem + ".first.vw")
    if not one.exists():
        with open(path) as fh:
            one.write_text(fh.readline())
    _vw_driver(one)  # warm the file cache and the library
    starts = [_vw_driver(one)[:2] for _ in range(3)]
    c0 = float(np.median([s[0] for s in starts]))
    w0 = float(np.median([s[1] for s in starts]))
    res: dict[str, Any] = {"cpu": [], "wall": [], "startup_cpu": c0, "startup_wall": w0}
    for _ in range(spec["repeats"]):
        cpu, wall, log = _vw_driver(path)
        res["cpu"].append(max(cpu - c0, 1e-9))
        res["wall"].append(max(wall - w0, 1e-9))
        loss = [ln for ln in log.splitlines() if ln.startswith("average loss")]
        res["mistakes"] = round(float(loss[-1].split("=")[1]) * len(y)) if loss else None
    res["maxrss_children_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return res


def run_sklearn(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    from sklearn.linear_model import SGDClassifier

    kind = spec["impl"].split(":", 1)[1]
    classes = np.array([-1, 1])

    def per_row(model: Any, A: Any, b: np.ndarray) -> int:
        wrong = 1  # the first row, before any fit, counts as a mistake
        model.partial_fit(A[:1], b[:1], classes=classes)
        for i in range(1, A.shape[0]):
            xi = A[i : i + 1]
            wrong += int(model.predict(xi)[0] != b[i])
            model.partial_fit(xi, b[i : i + 1])
        return wrong

    def batched(model: Any, A: Any, b: np.ndarray, size: int = 1024) -> int:
        wrong = 0
        for s in range(0, A.shape[0], size):
            xb, yb = A[s : s + size], b[s : s + size]
            wrong += int(np.sum(model.predict(xb) != yb)) if s > 0 else yb.size
            model.partial_fit(xb, yb, classes=classes if s == 0 else None)
        return wrong

    loop = per_row if kind == "sgd-row" else batched
    loop(SGDClassifier(loss="hinge"), X[: spec["warmup"]], y[: spec["warmup"]])
    res: dict[str, Any] = {"cpu": [], "wall": []}
    for _ in range(spec["repeats"]):
        model = SGDClassifier(loss="hinge")
        c, w, m = _timed(lambda model=model: loop(model, X, y))
        res["cpu"].append(c)
        res["wall"].append(w)
        res["mistakes"] = m
        if _enough(res):
            break
    return res


# ---------------------------------------------------------------------------------- OFS Table 8
def _table8_one(x_path: str, y_path: str, r: int, chunk: int) -> dict[str, Any]:
    """One OFS run on permutation ``r`` of covtype (a joblib task: the data are memory-mapped)."""
    import importlib

    from evofeat.linear.ofs import OFS
    from evofeat.streams import full

    w0 = time.perf_counter()
    X, y = np.load(x_path, mmap_mode="r"), np.load(y_path)
    order = np.random.default_rng(r).permutation(X.shape[0])
    stream = full(np.ascontiguousarray(X[order]), y[order])
    t0 = time.perf_counter()
    res = importlib.import_module("evofeat.evaluate.prequential").prequential(
        OFS(budget=0.1), stream, chunk_rows=chunk
    )
    return {
        "repeat": r,
        "run_wall": time.perf_counter() - t0,
        "seconds": res.seconds,
        "kernel": res.extra["compute_seconds"],
        "task_wall": time.perf_counter() - w0,
        "mistakes": res.mistakes,
        "pid": os.getpid(),
    }


def run_table8(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    """OFS with B = round(0.1 d) over ``repeats`` seeded permutations, joblib ``n_jobs`` processes."""
    from joblib import Parallel, delayed

    x_path, y_path = (
        DATA / f"{spec['stream']}-{X.shape[0]}.X.npy",
        DATA / f"{spec['stream']}-{X.shape[0]}.y.npy",
    )
    if not x_path.exists():
        np.save(x_path, np.asarray(X))
        np.save(y_path, y)
    _table8_one(str(x_path), str(y_path), 0, 65536)  # compile (or load the cache) in this process
    one = [_table8_one(str(x_path), str(y_path), r, 65536) for r in range(min(3, spec["repeats"]))]
    n_jobs = spec.get("n_jobs", 2)
    w0 = time.perf_counter()
    runs = Parallel(n_jobs=n_jobs)(
        delayed(_table8_one)(str(x_path), str(y_path), r, 65536) for r in range(spec["repeats"])
    )
    total = time.perf_counter() - w0
    return {
        "serial": one,
        "runs": runs,
        "total_wall": total,
        "n_jobs": n_jobs,
        "cpu": [],
        "wall": [],
    }


def run_startup(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    """``evofeat demo`` twice in fresh processes (cold: the first after the install; warm: again).

    Wall and CPU time (user + system of the child) of each, and of ``import evofeat`` alone.
    """
    import shutil
    import tempfile

    exe = shutil.which("evofeat")
    cmd = [exe] if exe else [sys.executable, "-c", "from evofeat.cli import main; main()"]
    out: dict[str, Any] = {"cpu": [], "wall": [], "cold": [], "warm": [], "import": []}
    for key in ("cold_cpu", "warm_cpu", "import_cpu"):
        out[key] = []

    def child(args: list[str], key: str) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        subprocess.run(args, env=dict(os.environ), check=True, capture_output=True)
        out[key].append(time.perf_counter() - w0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out[f"{key}_cpu"].append(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        )

    for _ in range(spec["repeats"]):
        with tempfile.TemporaryDirectory() as work:
            for key in ("cold", "warm"):
                demo = ["demo", "--out", work, "--repeats", str(spec.get("demo_repeats", 5))]
                child([*cmd, *demo], key)
        child([sys.executable, "-c", "import evofeat"], "import")
    return out


def run_floor(spec: dict[str, Any], X: Any, y: np.ndarray) -> dict[str, Any]:
    """The floor: PA-I (C = 1) as one compiled loop over the stream's CSR arrays, nothing else.

    No feature index, no chunks, no visibility, no safety checks: the least a
    prequential linear learner can cost on this machine (the issue's "compiled
    plain PA-I"). Its time is both the CPU time and the compiled-loop time.
    """
    import pyximport

    pyximport.install(language_level=3, inplace=False)
    from floor import pa1  # benchmarks/floor.pyx, compiled on first use

    A = sp.csr_matrix(X)
    A.sort_indices()
    yy = y.astype(np.float64)
    args = (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.float64))
    pa1(*args, yy[: spec["warmup"]], np.zeros(A.shape[1]))
    res: dict[str, Any] = {"cpu": [], "wall": [], "kernel_cpu": []}
    for _ in range(spec["repeats"]):
        w = np.zeros(A.shape[1])
        c, wall, m = _timed(lambda w=w: pa1(*args, yy, w))
        res["cpu"].append(c)
        res["kernel_cpu"].append(c)
        res["wall"].append(wall)
        res["mistakes"] = int(m)
        if _enough(res):
            break
    return res


RUNNERS = {
    "floor": run_floor,
    "evofeat": run_evofeat,
    "evofeat-dict": run_evofeat_dict,
    "river": run_river,
    "vw": lambda s, X, y: (run_vw_driver if s["impl"] == "vw:driver" else run_vw_py)(s, X, y),
    "sklearn": run_sklearn,
    "table8": run_table8,
    "startup": run_startup,
}


def main() -> int:
    spec = json.loads(sys.argv[1])
    family = spec["impl"].split(":", 1)[0]
    rows = spec.get("rows")
    cap = PEER_ROW_CAP.get(spec["impl"])
    if cap is not None and (rows is None or rows > cap):
        rows = cap
    spec["rows"] = rows
    if family == "startup":
        X, y = np.zeros((1, 1)), np.zeros(1)
    else:
        X, y = load_stream(spec["stream"], rows)
    spec["warmup"] = min(spec.get("warmup", 2000), X.shape[0])
    base = _rss_mib()
    out: dict[str, Any] = {
        "impl": spec["impl"],
        "stream": spec["stream"],
        "n": int(X.shape[0]),
        "d": int(X.shape[1]),
        "base_rss_mib": base,
    }
    try:
        out.update(RUNNERS[family](spec, X, y))
        out["maxrss_mib"] = _maxrss_mib()
    except ImportError as exc:
        if family in ("river", "vw", "sklearn", "table8"):
            out["error"] = f"not installed ({exc.name})"
        else:
            raise
    print("RESULT " + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
