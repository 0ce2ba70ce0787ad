"""Learning curves of runs: curve.csv, curve.png and curve.svg."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["write_curves", "write_tally_curves"]


def write_tally_curves(learner: str, tally: Any, title: str, out: Path) -> None:
    """:func:`write_curves` from a :class:`~evofeat.evaluate.repeat.RepeatTally`'s running curves."""
    classifier = tally.stat("accuracy") is not None  # as curve_kind: regressors' accuracy is NaN
    column, ylabel = (
        ("curve_mistake_rate", "online mistake rate")
        if classifier
        else ("curve_loss", "online average loss")
    )
    table = tally.curve(column)
    if table is None:
        return
    stages = tally.first.get("curve_stages")
    stages = [int(s) for s in stages] if isinstance(stages, list | tuple) else []
    _draw_curves({learner: table}, column, ylabel, stages, tally.n, title, out)


def write_curves(frames: dict[str, Any], title: str, out: Path) -> None:
    """``curve.csv`` (rows, then mean and std per learner) and ``curve.png``/``.svg``.

    The curve is the online mistake rate of classifiers, the online average
    loss of regressors, with a ±1 std band over the repeats and the
    scenario's stage boundaries.
    """

    from evofeat._curves import curve_kind, curve_stats, stage_boundaries

    frames = {k: df for k, df in frames.items() if "curve_rows" in df}
    if not frames:
        return
    first = next(iter(frames.values()))
    column, ylabel = curve_kind(first)
    tables = {k: curve_stats(df, column) for k, df in frames.items()}
    _draw_curves(tables, column, ylabel, stage_boundaries(first), len(first), title, out)


def _draw_curves(
    tables: dict[str, Any],
    column: str,
    ylabel: str,
    stages: list[int],
    n: int,
    title: str,
    out: Path,
) -> None:
    """``curve.csv`` and ``curve.png``/``.svg`` of each learner's ``rows, mean, std`` table."""
    import pandas as pd

    from evofeat._curves import plot_curves
    from evofeat.report.figures import new_figure, save_figure

    name = column.removeprefix("curve_")
    csv = pd.DataFrame({"rows": next(iter(tables.values()))["rows"]})
    for k, t in tables.items():
        prefix = "" if len(tables) == 1 else f"{k}_"
        csv[f"{prefix}{name}_mean"] = t["mean"].to_numpy()
        csv[f"{prefix}{name}_std"] = t["std"].to_numpy()
    csv.to_csv(out / "curve.csv", index=False)
    fig, (ax,) = new_figure(1, size=5.0)
    plot_curves(ax, tables, stages, ylabel)
    ax.set_title(f"{title}, {n} repeat{'s' if n > 1 else ''}" + (" (±1 std)" if n > 1 else ""))
    save_figure(fig, out, "curve")
