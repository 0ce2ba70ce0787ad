"""Markdown tables and the numbers that go in them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["band", "diff_in_std", "markdown_table", "mean_std", "spread_note"]


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


def diff_in_std(ours_mean: float, paper_mean: float, paper_std: float) -> float:
    """How far our mean is from the paper's, in the paper's standard deviations (z).

    This is the one yardstick of every report, summary and ``comparison.csv``:
    the scale is the paper's std only, never ours, so a larger spread on our
    side never counts as agreement. A published std of 0 (or none) gives 0
    when the means agree to 1e-9 and an infinite z of the difference's sign
    otherwise; ``nan`` when either mean is missing.

    >>> diff_in_std(110.0, 100.0, 5.0)
    2.0
    >>> diff_in_std(100.0, 100.0, 0.0), diff_in_std(101.0, 100.0, 0.0)
    (0.0, inf)
    """
    if math.isnan(ours_mean) or math.isnan(paper_mean):
        return math.nan
    delta = ours_mean - paper_mean
    if not paper_std or math.isnan(paper_std):
        return 0.0 if abs(delta) < 1e-9 else math.copysign(math.inf, delta)
    return float(delta / abs(paper_std))


def band(z: float) -> str:
    """The band of a z from :func:`diff_in_std`: within 1σ, within 2σ, outside 2σ (or not run).

    >>> band(0.4), band(-1.5), band(3.0), band(float("nan"))
    ('within 1σ', 'within 2σ', 'outside 2σ', 'not run')
    """
    if math.isnan(z):
        return "not run"
    return "within 1σ" if abs(z) <= 1 else "within 2σ" if abs(z) <= 2 else "outside 2σ"


def spread_note(ours_std: float, paper_std: float) -> str:
    """Our std against the paper's when they differ by more than 2x (else ""): its own column.

    >>> spread_note(40.0, 1.0), spread_note(1.5, 1.0), spread_note(0.1, 1.0)
    ('ours 40x wider', '', 'ours 0.1x (narrower)')
    """
    if not paper_std or math.isnan(paper_std) or math.isnan(ours_std):
        return ""
    r = ours_std / paper_std
    if r > 2:
        return f"ours {r:.2g}x wider"
    return f"ours {r:.2g}x (narrower)" if r < 0.5 else ""


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
