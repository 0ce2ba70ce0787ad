"""Time and peak memory of CEOFS's group construction on Arcene (200 rows x 10,000 features).

The CEOFS paper says its hierarchical clustering could not cope with
Arcene. This measures ours: 10 bootstrap k-means runs over the features,
the co-association matrix in condensed float32 form, scipy's average
linkage, on all 10,000 features, in this (fresh) process; the resident-set
peak is measured from the process's high-water mark.

Run: ``EVOFEAT_DATA=../shared/datasets python benchmarks/bench_ceofs_arcene.py``
Writes ``benchmarks/results/ceofs_arcene.md``.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import numpy as np
import scipy

from evofeat.datasets import load
from evofeat.papers.ceofs import measure_group_construction
from evofeat.report import markdown_table

OUT = Path(__file__).resolve().parent / "results" / "ceofs_arcene.md"


def main() -> int:
    ds = load("arcene")
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X, dtype=np.float64)
    load_before = os.getloadavg()[0]
    rows = []
    for n_runs, what in ((1, "one k-means run (COFS)"), (10, "ensemble of 10 (CEOFS)")):
        r = measure_group_construction(X, n_runs=n_runs, seed=0)
        rows.append(
            [
                what,
                f"{r['seconds']:.1f}",
                f"{r.get('seconds_kmeans', 0.0):.1f}",
                f"{r.get('seconds_coassociation', 0.0):.1f}",
                f"{r.get('seconds_linkage', 0.0):.1f}",
                f"{r['traced_peak_mb']:.0f}",
                f"{r.get('rss_peak_mb', float('nan')):.0f}",
                r["n_groups"],
                r["largest_group"],
                r["singletons"],
            ]
        )
        print(what, r, flush=True)
    d = X.shape[1]
    load_after = os.getloadavg()[0]
    text = "\n".join(
        [
            "# CEOFS group construction on Arcene",
            "",
            f"Data: arcene, {X.shape[0]} rows x {d} features (all of them). k = ceil(sqrt(d)) = "
            f"{int(np.ceil(np.sqrt(d)))}, at most 20 k-means rounds, theta = 0.5, seed 0.",
            "",
            markdown_table(
                rows,
                [
                    "construction",
                    "total s",
                    "k-means s",
                    "co-association s",
                    "linkage s",
                    "traced peak MB",
                    "RSS peak rise MB",
                    "groups",
                    "largest",
                    "singletons",
                ],
            ),
            "",
            f"The condensed co-association distance has d(d-1)/2 = {d * (d - 1) // 2:,} entries: "
            f"{d * (d - 1) / 2 * 4 / 2**20:.0f} MB in float32; scipy's `linkage` copies it to float64 "
            f"({d * (d - 1) / 2 * 8 / 2**20:.0f} MB; the float32 form is dropped before the linkage) and its "
            "average-linkage kernel works on a further copy in C++, which is why the resident-set peak "
            "exceeds the traced (numpy) peak.",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} cores; Python {sys.version.split()[0]}, "
            f"numpy {np.__version__}, scipy {scipy.__version__}; one-minute load average "
            f"{load_before:.1f} before and {load_after:.1f} after (other jobs on the machine slow the "
            "timings; memory is not affected). A benchmark, not a test: nothing is asserted.",
            "",
        ]
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
