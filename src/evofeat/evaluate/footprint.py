"""Time and peak memory of a computation, and of CEOFS's group construction (the paper's Table 3).

Examples
--------
>>> _, info = peak_memory(lambda: sum(range(10)))
>>> {"seconds", "traced_peak_mb"} <= set(info)
True
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["measure_group_construction", "peak_memory"]


def _proc_status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_memory(fn: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    """Run ``fn()`` and measure its time and peak memory.

    Returns ``(result, info)`` with ``seconds``, ``traced_peak_mb`` (the
    peak of memory allocated through Python and numpy, by
    :mod:`tracemalloc`) and, on Linux, ``rss_peak_mb``: the rise of the
    process's resident-set high-water mark over the resident size before the
    call (the mark is reset through ``/proc/self/clear_refs``), which also
    counts buffers allocated in C/C++ code such as scipy's linkage.

    >>> _, info = peak_memory(lambda: np.ones(10**6))
    >>> info["traced_peak_mb"] > 7.5
    True
    """
    reset = False
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        reset = True
    except OSError:
        pass
    base = _proc_status_kib("VmRSS")
    tracemalloc.start()
    tic = time.perf_counter()
    try:
        result = fn()
        seconds = time.perf_counter() - tic
        traced = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    info = {"seconds": seconds, "traced_peak_mb": traced / 2**20}
    hwm = _proc_status_kib("VmHWM")
    if reset and base is not None and hwm is not None:
        info["rss_peak_mb"] = max(0, hwm - base) / 1024
    return result, info


def measure_group_construction(
    X: np.ndarray, *, n_runs: int = 10, seed: int = 0, **kwargs: Any
) -> dict[str, Any]:
    """Time, peak memory and phases of CEOFS's group construction on ``X``.

    >>> rng = np.random.default_rng(0)
    >>> out = measure_group_construction(rng.normal(size=(30, 50)), n_runs=3)
    >>> out["n_features"], out["n_groups"] > 0
    (50, True)
    """
    from evofeat.selection.groups import ensemble_groups

    phases: dict[str, float] = {}
    groups, info = peak_memory(
        lambda: ensemble_groups(
            X, n_runs=n_runs, rng=np.random.default_rng(seed), timings=phases, **kwargs
        )
    )
    sizes = np.bincount(groups) if groups.size else np.zeros(0, dtype=np.int64)
    d = X.shape[1]
    return {
        "n_rows": int(X.shape[0]),
        "n_features": int(d),
        "n_runs": n_runs,
        "n_groups": int(sizes.size),
        "largest_group": int(sizes.max()) if sizes.size else 0,
        "singletons": int((sizes == 1).sum()),
        "condensed_mb_float32": d * (d - 1) / 2 * 4 / 2**20,
        **info,
        **{f"seconds_{k}": v for k, v in phases.items()},
    }
