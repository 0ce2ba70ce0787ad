"""Learning curves over repeats: mean, spread band and the scenario's stage boundaries.

Used by ``evofeat run --out``, ``evofeat compare --out`` and ``evofeat demo``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["curve_kind", "curve_stats", "plot_curves", "stage_boundaries"]


def curve_kind(df: pd.DataFrame) -> tuple[str, str]:
    """The curve column of a repeat table and its axis label.

    The online mistake rate for classifiers; the online average loss for
    regressors (they make no mistakes to count: their ``accuracy`` is NaN).

    >>> curve_kind(pd.DataFrame({"accuracy": [0.9]}))
    ('curve_mistake_rate', 'online mistake rate')
    >>> curve_kind(pd.DataFrame({"accuracy": [float("nan")]}))
    ('curve_loss', 'online average loss')
    """
    if "accuracy" in df and df["accuracy"].isna().all():
        return "curve_loss", "online average loss"
    return "curve_mistake_rate", "online mistake rate"


def curve_stats(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """Rows, mean and sample std (ddof=1; 0 for one repeat) of a curve over the repeats.

    >>> df = pd.DataFrame({"curve_rows": [[1, 2], [1, 2]], "c": [[0.0, 0.5], [1.0, 0.5]]})
    >>> curve_stats(df, "c").to_dict("list")
    {'rows': [1, 2], 'mean': [0.5, 0.5], 'std': [0.7071067811865476, 0.0]}
    """
    rows = np.asarray(df["curve_rows"].iloc[0])
    values = np.array([np.asarray(v, dtype=float) for v in df[column]])
    std = values.std(axis=0, ddof=1) if len(values) > 1 else np.zeros(rows.size)
    return pd.DataFrame({"rows": rows, "mean": values.mean(axis=0), "std": std})


def stage_boundaries(df: pd.DataFrame) -> list[int]:
    """Where the scenario's stages (or periods) start, in the curve's rows; empty when it has none."""
    if "curve_stages" not in df or not len(df):
        return []
    stages = df["curve_stages"].iloc[0]
    return [int(s) for s in stages] if isinstance(stages, list | tuple | np.ndarray) else []


def plot_curves(ax: Any, tables: dict[str, pd.DataFrame], stages: list[int], ylabel: str) -> None:
    """Draw each ``label -> curve_stats`` table as a mean line in a ±1 std band, and the stage lines.

    The time axis is linear (rows seen), so the stage boundaries fall where
    they are in the stream (a log axis crowded them into its last tenth).

    >>> from evofeat.report.figures import new_figure
    >>> fig, (ax,) = new_figure(1)
    >>> t = pd.DataFrame({"rows": [1, 10, 100], "mean": [0.5, 0.3, 0.2], "std": [0.1, 0.05, 0.02]})
    >>> plot_curves(ax, {"pa-i": t}, [50], "online mistake rate")
    >>> len(ax.lines), len(ax.collections)
    (2, 1)
    """
    for k, s in enumerate(stages):
        ax.axvline(
            s,
            color="0.6",
            linestyle=":",
            linewidth=0.8,
            label="stage boundary" if k == 0 else None,
            zorder=0,
        )
    for label, t in tables.items():
        (line,) = ax.plot(t["rows"], t["mean"], label=label)
        if (t["std"] > 0).any():
            upper = t["mean"] + t["std"]
            if "mistake rate" in ylabel:  # a rate stays within [0, 1]
                upper = upper.clip(upper=1.0)
            ax.fill_between(
                t["rows"],
                (t["mean"] - t["std"]).clip(lower=0),  # rates and losses are not negative
                upper,
                color=line.get_color(),
                alpha=0.2,
                linewidth=0,
            )
    ax.set_xlabel("rows seen")  # a linear axis: every stage gets its share of the width
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
