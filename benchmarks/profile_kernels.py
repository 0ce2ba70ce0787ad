"""Where a learner's compiled prequential loop spends its time: ``python benchmarks/profile_kernels.py LEARNER STREAM [RUNS]``.

Samples the process with Linux ``perf`` (``cpu-clock``, so it works in a VM
without hardware counters) while ``prequential`` runs ``RUNS`` times on a
benchmark stream (``synth.py``: dense, a8a-like, sparse, sweep-1e3 ...,
covtype), then attributes each sample in numba's compiled code to its
function. numba writes no symbol map, so the script records the address of
every function it compiled (which is why it compiles from scratch, with the
disk cache off) and maps the samples onto them. Prints the share of the
compiled time per function, e.g.::

    python benchmarks/profile_kernels.py stsd-i sparse 10

Functions that LLVM inlined into their caller are counted in the caller
(``_rows`` is the prequential loop); ``NRT_incref`` / ``NRT_decref`` are the
reference-count calls numba makes for each array argument of a call that was
not inlined. Needs ``perf`` on the PATH; see ``results/speed_findings.md``.
"""

from __future__ import annotations

import bisect
import collections
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record(learner: str, stream: str, runs: int, addr_file: str) -> None:
    """Run the learner (inside ``perf record``) and save the compiled functions' addresses."""
    sys.path.insert(0, str(HERE))
    from numba.core.registry import CPUDispatcher
    from synth import load_stream

    from evofeat.evaluate import prequential
    from evofeat.registry import make
    from evofeat.streams import full

    X, y = load_stream(stream)
    s = full(X, y)
    prequential(make(learner), full(X[:100], y[:100]))
    for _ in range(runs):
        prequential(make(learner), s)
    out = []
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in obj.overloads.values():
            module = getattr(cres.library, "_final_module", None)
            if module is None:
                continue
            for f in module.functions:
                if f.is_declaration:
                    continue
                addr = cres.library.get_pointer_to_function(f.name)
                if addr:
                    out.append((addr, f"{obj.py_func.__qualname__} | {f.name[:70]}"))
    Path(addr_file).write_text(json.dumps(out))


def attribute(samples: list[tuple[int, str]], addrs: list[tuple[int, str]]) -> None:
    """Print the share of the compiled time of each function (samples in numba's code only)."""
    addrs.sort()
    starts = [a for a, _ in addrs]
    count: collections.Counter[str] = collections.Counter()
    for ip, sym in samples:
        if sym != "[unknown]":
            continue
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip - starts[i] < 200_000:
            count[addrs[i][1]] += 1
    total = sum(count.values())
    print(f"{len(samples)} samples, {total} in compiled code")
    for name, n in count.most_common(15):
        print(f"  {100 * n / max(total, 1):5.1f}%  {name}")


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == "--record":
        record(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return 0
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    if shutil.which("perf") is None:
        print("perf is not installed (linux-tools): nothing to sample with", file=sys.stderr)
        return 1
    learner, stream = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as tmp:
        data, addr_file = os.path.join(tmp, "perf.data"), os.path.join(tmp, "addrs.json")
        env = {**os.environ, "EVOFEAT_NUMBA_CACHE": "0", "NUMBA_CACHE_DIR": tmp}
        cmd = [sys.executable, __file__, "--record", learner, stream, str(runs), addr_file]
        subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", data, *cmd],
            env=env,
            check=True,
        )
        script = subprocess.run(
            ["perf", "script", "-i", data, "-F", "ip,sym"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        samples = []
        for line in script.splitlines():
            parts = line.split(None, 1)
            if parts:
                samples.append((int(parts[0], 16), parts[1].strip() if len(parts) > 1 else ""))
        attribute(samples, [tuple(a) for a in json.loads(Path(addr_file).read_text())])
    return 0


if __name__ == "__main__":
    sys.exit(main())
