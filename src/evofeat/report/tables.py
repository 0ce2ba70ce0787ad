"""Markdown tables and the numbers that go in them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["diff_in_std", "markdown_table", "mean_std"]


def mean_std(values: Sequence[float] | np.ndarray, digits: int = 1) -> str:
    """Format ``mean ± std`` (sample std, ``ddof=1``; 0 for a single value).

    >>> mean_std([1, 2, 3])
    '2.0 ± 1.0'
    >>> mean_std([0.8125], digits=3)
    '0.812 ± 0.000'
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return "–"
    std = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    return f"{arr.mean():.{digits}f} ± {std:.{digits}f}"


def diff_in_std(
    ours_mean: float, paper_mean: float, paper_std: float, ours_std: float = 0.0
) -> float:
    """How far our mean is from the paper's, in standard deviations.

    The scale is the larger of the two standard deviations (so a cell whose
    published std is 0 is not judged infinitely far); ``nan`` if both are 0
    and the means differ, 0 if they are equal.

    >>> diff_in_std(110.0, 100.0, 5.0)
    2.0
    >>> diff_in_std(100.0, 100.0, 0.0)
    0.0
    """
    scale = max(abs(paper_std), abs(ours_std))
    delta = ours_mean - paper_mean
    if scale == 0:
        return 0.0 if delta == 0 else math.nan
    return float(delta / scale)


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.0f}"
    return str(value).replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A GitHub-flavoured Markdown table.

    A ``|`` inside a header or a cell is escaped so it cannot split the column.

    >>> print(markdown_table([["german", 1.5]], ["data", "|x| <= 1"]))
    | data | \\|x\\| <= 1 |
    | --- | --- |
    | german | 1.5 |
    """

    def esc(text: str) -> str:
        return text.replace("\\|", "|").replace("|", "\\|")

    lines = ["| " + " | ".join(esc(str(h)) for h in headers) + " |"]
    lines.append("| " + " | ".join("---" for _ in headers) + " |")
    for row in rows:
        lines.append("| " + " | ".join(esc(_cell(v)) for v in row) + " |")
    return "\n".join(lines)
