"""FESL Table 2: is the caption's second number a standard deviation or a variance?

The caption reads "Accuracy with its variance". Two readings of a printed cell
``.767.009``: std = .009, or variance = .009 (std = sqrt(.009) = .095). Three
checks on the 45 synthetic cells (9 data sets x 5 methods):

1. within 2 sigma: ``z = (ours - paper) / paper_std`` under each reading;
2. scale: the ratio of our run-to-run std to the paper's under each reading (a
   right reading puts it near 1: both are spreads of the same quantity over 10
   runs of the same protocol);
3. the sampling floor: an accuracy measured on T2 ~ n/2 rounds whose rows change
   from run to run cannot spread much less than the binomial std
   ``sqrt(a (1 - a) / T2)``; count the cells whose spread is below half of it.

Ours: the committed ``docs/reports/fesl/report.md`` (Table 2, synthetic).
Paper: ``../shared/papers/published.json``.

    python benchmarks/investigations/fesl_variance.py
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT.parent / "shared" / "papers" / "published.json"
METHODS = ("NOGD", "ROGD-u", "ROGD-f", "FESL-c", "FESL-s")


def ours() -> dict[tuple[str, str], tuple[float, float]]:
    """Our (mean, std) per (data set, method) from the report's synthetic Table 2."""
    text = (ROOT / "docs" / "reports" / "fesl" / "report.md").read_text()
    block = text.split("## Table 2: accuracy after the switch (synthetic data)")[1].split("\n\n")
    table = next(b for b in block if b.lstrip().startswith("| data |"))
    out = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for k, m in enumerate(METHODS):
            mean, std = re.findall(r"\.\d+", cells[1 + 2 * k])
            out[cells[0], m] = (float(mean), float(std))
    return out


def paper() -> tuple[dict[tuple[str, str], tuple[float, float]], dict[str, int]]:
    pub = json.loads(PUBLISHED.read_text())["fesl"]
    cells = {
        (r["dataset"].lower(), r["algorithm"]): (r["accuracy_mean"], r["accuracy_std"])
        for r in pub["table2"]
        if r["group"] == "synthetic"
    }
    sizes = {r["dataset"].lower(): r["n"] for r in pub["table1"] if r["group"] == "synthetic"}
    return cells, sizes


def main() -> int:
    mine = ours()
    pub, sizes = paper()
    keys = [k for k in pub if k in mine]
    print(
        f"{len(keys)} synthetic cells (ours: docs/reports/fesl/report.md; paper: published.json)\n"
    )
    print(
        "| reading of the second number | within 2σ of the paper (z by the paper's std) | median ours std / paper std | cells below half the binomial floor |"
    )
    print("| --- | --- | --- | --- |")
    rows = {}
    for reading, to_std in (("std", lambda s: s), ("variance (std = sqrt)", math.sqrt)):
        z, ratio, below = [], [], 0
        for k in keys:
            (pm, ps), (om, os_) = pub[k], mine[k]
            sd = to_std(ps)
            z.append((om - pm) / sd if sd > 0 else math.inf)
            ratio.append(os_ / sd if sd > 0 else math.inf)
            floor = math.sqrt(pm * (1 - pm) / (sizes[k[0]] / 2))
            below += sd < 0.5 * floor
        within = sum(abs(v) <= 2 for v in z)
        rows[reading] = z
        print(
            f"| {reading} | {within} of {len(keys)} | {np.median(ratio):.2f} | {below} of {len(keys)} |"
        )
    print("\nCells outside 2σ under the variance reading:")
    for k, v in zip(keys, rows["variance (std = sqrt)"], strict=True):
        if abs(v) > 2:
            print(
                f"- {k[0]}/{k[1]}: paper {pub[k][0]:.3f} (var {pub[k][1]:.3f}), ours {mine[k][0]:.3f}, z = {v:+.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
