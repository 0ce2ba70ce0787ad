"""``auto`` beside each of its members and ``ftrl``: the demo's data, a few selection streams, rows/s.

Run after the members were fixed (``benchmarks/investigations/auto_selection.py``);
this script chooses nothing, it reports:

- **the demo's cells** (``evofeat demo``: german, svmguide3, australian as
  trapezoidal streams, whole-file z-scores, 5 seeded row orders through
  ``evofeat.evaluate.repeat``, as the demo runs them): the majority-class
  rate, ``auto``, each member alone and ``ftrl``, accuracy mean +- std;
- **the selection's cells** (read from ``auto_selection.json``, not rerun):
  ``auto`` (the winner), each of its members and ``ftrl``;
- **rows/s** of ``auto`` and ``ftrl`` on ijcnn1-train (49990 rows, full
  scenario, z-scored; the compiled loop, median of 3 runs, CPU time of this
  thread), each run right after the other.

    python benchmarks/investigations/auto_measure.py   # writes docs/reports/investigations/auto_measure.md
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.investigations.auto_selection import SCENARIOS  # noqa: E402

OUT = ROOT / "docs" / "reports" / "investigations" / "auto_measure.md"
DEMO = ("german", "svmguide3", "australian")


def learners() -> list[tuple[str, Any]]:
    """``auto``, each of its members alone, and ``ftrl`` (if it is not a member)."""
    from evofeat.ensemble.auto import DEFAULT_MEMBERS, Auto, parse_member

    out: list[tuple[str, Any]] = [("auto", Auto())]
    out += [(m, parse_member(m)) for m in DEFAULT_MEMBERS]
    if "ftrl" not in DEFAULT_MEMBERS:
        out.append(("ftrl", parse_member("ftrl")))
    return out


def demo_table() -> list[str]:
    from evofeat.demo import majority_rate
    from evofeat.evaluate import repeat
    from evofeat.evaluate.repeat import load_cached

    models = learners()
    lines = [
        "| data set | majority class | " + " | ".join(f"`{n}`" for n, _ in models) + " |",
        "| --- | --- | " + " | ".join("---" for _ in models) + " |",
    ]
    for ds in DEMO:
        rate = majority_rate(load_cached(ds, "zscore").y)
        cells = []
        for _, model in models:
            df = repeat(model, ds, "trapezoidal", repeats=5, preprocess="zscore")
            cells.append(f"{df['accuracy'].mean():.3f} ± {df['accuracy'].std():.3f}")
        lines.append(f"| {ds} | {rate:.3f} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def selection_table() -> list[str]:
    """``auto`` (the winner), its members and ``ftrl`` on every selection cell, from the
    selection's own results (``auto_selection.json``: nothing is rerun)."""
    import json

    from benchmarks.investigations.auto_selection import OUT as SELECTION

    data = json.loads(SELECTION.with_suffix(".json").read_text())
    win = next(r for r in data["ranked"] if r["name"] == data["winner"])
    names = [win["name"], *win["members"]] + (["ftrl"] if "ftrl" not in win["members"] else [])
    shown = ["auto"] + names[1:]
    lines = [
        "| cell | " + " | ".join(f"`{n}`" for n in shown) + " |",
        "| --- | " + " | ".join("---" for _ in shown) + " |",
    ]
    for cell, got in data["values"].items():
        metric = SCENARIOS[cell.split(" / ")[1]][3]
        vals = [f"{np.mean(got[n]):.4f}" for n in names]
        lines.append(f"| {cell} ({metric}) | " + " | ".join(vals) + " |")
    return lines


def speed_lines() -> list[str]:
    from evofeat.evaluate import prequential
    from evofeat.evaluate.repeat import load_cached, make_stream

    data = load_cached("ijcnn1-train", "zscore")
    stream = make_stream(data, "full")
    times: dict[str, list[float]] = {"auto": [], "ftrl": []}
    models = dict(learners())
    for _ in range(3):
        for name in times:
            model = models[name].clone()
            t0 = time.thread_time()
            prequential(model, stream)
            times[name].append(time.thread_time() - t0)
    rps = {n: stream.n_rows / float(np.median(t)) for n, t in times.items()}
    return [
        f"ijcnn1-train, {stream.n_rows} rows x {stream.n_features} features, full scenario: "
        f"`auto` {rps['auto']:,.0f} rows/s, `ftrl` {rps['ftrl']:,.0f} rows/s "
        f"(ratio {rps['ftrl'] / rps['auto']:.1f}; median CPU time of 3 runs each, "
        "interleaved, on a shared machine)."
    ]


def main() -> None:
    from evofeat.ensemble.auto import DEFAULT_MEMBERS, DEFAULT_SHARE

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = [
        "# `auto` beside its members and `ftrl`",
        "",
        f"Written by `python benchmarks/investigations/auto_measure.py` on {when}. `auto` = "
        f"members {', '.join(f'`{m}`' for m in DEFAULT_MEMBERS)}, share={DEFAULT_SHARE} (fixed "
        "by the held-out selection, `auto_selection.md`). Nothing here chose anything.",
        "",
        "## The demo's cells",
        "",
        "Trapezoidal streams, whole-file z-scores, 5 seeded row orders (as `evofeat demo`); "
        "accuracy, mean ± std over the orders.",
        "",
        *demo_table(),
        "",
        "## The selection's cells",
        "",
        "From `auto_selection.json` (3 orders, at most 20000 rows; mean over the orders; "
        "balanced accuracy on the raw haphazard cells, accuracy on the others).",
        "",
        *selection_table(),
        "",
        "## Speed",
        "",
        *speed_lines(),
        "",
    ]
    OUT.write_text("\n".join(text))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
