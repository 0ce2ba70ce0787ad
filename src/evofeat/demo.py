"""``evofeat demo``: a small real experiment on the bundled data sets."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from evofeat._scratch import write_atomically
from evofeat.evaluate import repeat
from evofeat.report import markdown_table, mean_std
from evofeat.report.figures import new_figure, save_figure

__all__ = ["DEMO_DATASETS", "DEMO_LEARNERS", "LABELS", "majority_rate", "run_demo"]

DEMO_DATASETS = ("german", "svmguide3", "australian")
#: the recommended learner first, then the papers' methods
DEMO_LEARNERS = ("auto", "perceptron", "pa-i", "stsd-i", "ofs")
#: what the demo runs for each learner: the raw features go to ``auto``, which scales them
#: online itself; the papers' methods see them standardised online (``online-zscore+NAME``:
#: each feature's mean and sd from the rows seen so far, so nothing looks ahead in the stream)
RUN_AS = {
    "auto": "auto",
    "perceptron": "online-zscore+perceptron",
    "pa-i": "online-zscore+pa-i",
    "stsd-i": "online-zscore+stsd-i",
    "ofs": "online-zscore+ofs",
}
#: how the table names each learner: the papers' methods as their papers define them (no bias)
LABELS = {
    "auto": "auto (recommended)",
    "perceptron": "perceptron (Rosenblatt 1958, as defined) on online z-scores",
    "pa-i": "PA-I (Crammer et al. 2006, as defined) on online z-scores",
    "stsd-i": "STSD-I (Zhang et al. 2015, as defined) on online z-scores",
    "ofs": "OFS (Wang et al. 2014, as defined) on online z-scores",
}
#: the table's first row of each data set: predicting the more frequent class of its rows
MAJORITY = "majority class (baseline)"


def majority_rate(y: Any) -> float:
    """The share of the more frequent of the two classes: the accuracy of always predicting it.

    >>> majority_rate([1, -1, -1, -1])
    0.75
    """
    y = np.asarray(y)
    return float(max(np.mean(y > 0), np.mean(y <= 0)))


def _available(names: tuple[str, ...]) -> list[str]:
    from evofeat.registry import make

    out = []
    for n in names:
        try:
            make(n)
        except Exception:  # a learner whose module has not landed yet
            continue
        out.append(n)
    return out


def run_demo(
    out: Path, repeats: int = 5, progress: Callable[[int, int], None] | None = None
) -> str:
    """Trapezoidal streams (STSD's protocol: 10 stages, features arrive in order) over
    ``repeats`` seeded row orders of the bundled data sets; returns the table and
    writes ``out/demo.md`` and ``out/demo.png`` (mean curves in a ±1 std band,
    the stage boundaries dotted). ``progress(done, total)`` counts the runs.
    """
    from evofeat._curves import curve_stats, plot_curves, stage_boundaries

    t0 = time.perf_counter()
    learners = _available(DEMO_LEARNERS)
    total = len(DEMO_DATASETS) * len(learners) * repeats
    rows = []
    fig, axes = new_figure(len(DEMO_DATASETS))
    done = 0
    from evofeat.evaluate.repeat import load_cached

    for ax, ds in zip(axes, DEMO_DATASETS, strict=True):
        tables, stages = {}, []
        y = load_cached(ds, "none").y
        rate = majority_rate(y)
        wrong = round(len(y) * (1.0 - rate))
        rows.append([ds, MAJORITY, f"{wrong} ± 0", f"{rate:.3f}"])
        for name in learners:
            df = repeat(
                RUN_AS.get(name, name),
                ds,
                "trapezoidal",
                repeats=repeats,
                preprocess="none",
                progress=None if progress is None else partial(_step, progress, done, total),
            )
            done += repeats
            label = LABELS.get(name, name)
            rows.append([ds, label, mean_std(df["mistakes"]), f"{df['accuracy'].mean():.3f}"])
            tables[label] = curve_stats(df, "curve_mistake_rate")
            stages = stage_boundaries(df)
        plot_curves(ax, tables, stages, "online mistake rate")
        ax.set_title(f"{ds}, trapezoidal")
    table = markdown_table(rows, ["data set", "learner", "mistakes (mean ± std)", "accuracy"])
    seconds = time.perf_counter() - t0

    def write(tmp: Path) -> None:
        fig_md = save_figure(
            fig,
            tmp,
            "demo",
            "online mistake rate on trapezoidal streams (mean ± std over the row orders)",
        )
        text = (
            f"# evofeat demo\n\nTrapezoidal streams (10 stages; stage i sees the first i/10 of the features), "
            f"raw features, {repeats} seeded row orders per cell. `auto` is the recommended "
            'learner (see the documentation page "Which learner?"): it takes the raw features and '
            "scales them online itself; the papers' methods run as their papers define them, on "
            "features standardised online (each feature's mean and sd from the rows seen so far: "
            "nothing looks ahead in the stream); the majority class is the accuracy of always "
            f"predicting the more frequent class.\n\n{table}\n\n{fig_md}\n"
            f"Took {seconds:.1f} s. Regenerate: `evofeat demo --out {out} --repeats {repeats}`\n"
        )
        (tmp / "demo.md").write_text(text, encoding="utf-8")

    write_atomically(out, write, last="demo.md")  # the figure and the report, all at once
    return f"{table}\n\nfigure: {out / 'demo.png'}\nreport: {out / 'demo.md'}"


def _step(progress: Callable[[int, int], None], base: int, total: int, done: int, _: int) -> None:
    progress(base + done, total)
