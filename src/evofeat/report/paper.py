"""One renderer for every declared paper: a report written from data, nothing called back.

When a paper's runs finish, :func:`evofeat.experiments.sections.document`
resolves the paper's declared sections against the stored results into a
plain, JSON-able *document* (written beside the results as ``report.json``).
This module renders that document and nothing else: it imports no paper's
module and calls nothing of a paper's declaration.

A document is ``{"title": ..., "command": ..., "sections": [[part, ...], ...]}``;
a section is the concatenation of its parts, each of them

- a string (Markdown, as it is printed),
- ``{"table": {"head": [...], "rows": [[...], ...]}}`` (a Markdown table),
- ``{"figure": {...}}`` (means against a parameter, drawn here: :func:`draw_figure`),
- ``{"curves": {...}}`` (mean learning curves, drawn here: :func:`draw_curves`).

Examples
--------
>>> import tempfile
>>> doc = {"title": "Toy", "command": "evofeat reproduce toy",
...        "sections": [["## Table\\n\\n", {"table": {"head": ["a", "b"], "rows": [[1, 0.5]]}}, "\\n"]]}
>>> with tempfile.TemporaryDirectory() as d:
...     print(render(doc, Path(d)).read_text(encoding="utf-8"))
# Toy: reproduction
<BLANKLINE>
Regenerate with `evofeat reproduce toy`.
<BLANKLINE>
## Table
<BLANKLINE>
| a | b |
| --- | --- |
| 1 | 0.5 |
<BLANKLINE>
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.report.figures import new_figure, save_figure
from evofeat.report.tables import band, diff_in_std, markdown_table

__all__ = ["count", "draw_curves", "draw_figure", "exact", "render", "render_part", "verdict"]


def exact(values: np.ndarray, mean: float, std: float) -> bool:
    """Mean and std equal to printed one-decimal values (the mean compared as a fraction).

    A mean ending in 5 in the second decimal counts as printed rounded half up.

    >>> exact(np.array([1.0, 2.0, 4.0]), 2.3, 1.5)
    True
    >>> exact(np.array([1.0, 2.0, 4.0]), 2.4, 1.5)
    False
    """
    if values.size < 2:
        return False
    ours = Fraction(int(round(values.sum())), values.size)
    return bool(
        abs(ours - Fraction(str(mean))) <= Fraction(1, 20)
        and abs(values.std(ddof=1) - std) <= 0.05 + 1e-9
    )


def verdict(d: float, signed: bool = False) -> str:
    """The band of a z (Δ/σ, σ the paper's std); ``signed``: lower / higher beyond 2σ.

    >>> verdict(0.4), verdict(-1.5), verdict(3.0), verdict(-3.0, signed=True), verdict(float("nan"))
    ('within 1σ', 'within 2σ', 'outside 2σ', 'lower', '–')
    """
    if np.isnan(d):
        return "–"
    word = band(d)
    if signed and word == "outside 2σ":
        return "lower" if d < 0 else "higher"
    return word


def _delta(v: np.ndarray, pub: Any) -> float:
    """Our runs' mean against a published cell in the paper's std (Δ/σ, the one yardstick).

    >>> from types import SimpleNamespace
    >>> _delta(np.array([1.0, 3.0]), SimpleNamespace(mean=1.0, std=0.5))
    2.0
    """
    return diff_in_std(float(v.mean()), pub.mean, pub.std)


def count(verdicts: Sequence[dict[str, str]], variant: str, exact: bool = True) -> str:
    """``"5 of 6 within 1σ (0 exact), 6 within 2σ, 0 further"`` for one variant's verdicts.

    Within 2σ counts the cells within 1σ too.

    >>> count([{"v": "exact"}, {"v": "within 2σ"}, {"v": "lower"}, {"v": "–"}], "v")
    '1 of 3 within 1σ (1 exact), 2 within 2σ, 1 further'
    """
    got = [v[variant] for v in verdicts if v[variant] != "–"]
    if not got:
        return "not run"
    n = {k: sum(x == k for x in got) for k in ("exact", "within 1σ", "within 2σ")}
    one = n["exact"] + n["within 1σ"]
    return (
        f"{one} of {len(got)} within 1σ"
        + (f" ({n['exact']} exact)" if exact else "")
        + f", {one + n['within 2σ']} within 2σ, {len(got) - one - n['within 2σ']} further"
    )


# ---------------------------------------------------------------------- drawing
def draw_figure(f: dict[str, Any], out: Path) -> str:
    """Draw a figure record (one panel per entry of ``panels``); the Markdown that embeds it.

    A line is ``{"label", "style", "color", "x", "y", "yerr"}`` (``yerr``
    None: a plain line, else error bars); a panel with no line says "not run".
    """
    panels = f["panels"]
    fig, axes = new_figure(len(panels), ncols=3)
    for ax, panel in zip(axes, panels, strict=True):
        for line in panel["lines"]:
            if line["yerr"] is not None:
                ax.errorbar(line["x"], line["y"], capsize=3, marker=f["marker"], yerr=line["yerr"],
                            linestyle=line["style"], color=line["color"], label=line["label"])  # fmt: skip
            else:
                ax.plot(line["x"], line["y"], line["style"], color=line["color"],
                        marker=f["marker"], label=line["label"])  # fmt: skip
        ax.set_xscale(f["xscale"])
        ax.set_title(panel["title"])
        ax.set_xlabel(f["xlabel"])
        ax.set_ylabel(f["ylabel"])
    drawn = [ax for ax in axes if ax.get_legend_handles_labels()[0]]
    if drawn:
        drawn[0].legend(fontsize=6)
    for ax in axes:
        if ax not in drawn:
            ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
    return save_figure(fig, out, f["name"], f["caption"])


def draw_curves(c: dict[str, Any], out: Path) -> str:
    """Draw a curves record: per panel ``{"title", "curves": [[label, x, y], ...]}``."""
    fig, axes = new_figure(len(c["panels"]))
    for ax, panel in zip(axes, c["panels"], strict=True):
        drawn = {label: (np.asarray(x, float), np.asarray(y, float)) for label, x, y in panel["curves"]}  # fmt: skip
        _clipped(ax, drawn, c["clip"])
        ax.set_title(panel["title"])
        ax.set_xlabel(c["xlabel"])
        ax.set_ylabel(c["ylabel"])
        if ax.lines:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "not run", ha="center", va="center", transform=ax.transAxes)
    return save_figure(fig, out, c["name"], c["caption"])


def _clipped(ax: Any, curves: dict[str, tuple[np.ndarray, np.ndarray]], clip: float) -> None:
    """Plot the curves; with ``clip``, one ending above clip x the median end is named, off scale."""
    typical = float(np.median([y[-1] for _, y in curves.values()])) if curves else 0.0
    off = {k: y[-1] for k, (_, y) in curves.items() if clip and y[-1] > clip * typical}
    for label, (x, y) in curves.items():
        ax.plot(x, y, label=label)
    kept = [y for k, (_, y) in curves.items() if k not in off]
    if off and kept:
        lo, hi = min(float(y.min()) for y in kept), max(float(y.max()) for y in kept)
        ax.set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
        note = "\n".join(f"{k} off scale (ends at {v:.3g})" for k, v in off.items())
        ax.text(0.98, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=7)


# ---------------------------------------------------------------------- the document
def render_part(part: Any, out: Path) -> str:
    """One part of a section as Markdown (a figure's files written to ``out``).

    >>> render_part({"table": {"head": ["x"], "rows": [["a|b"]]}}, Path("."))
    '| x |\\n| --- |\\n| a\\\\|b |'
    """
    if isinstance(part, str):
        return part
    if "table" in part:
        return markdown_table(part["table"]["rows"], part["table"]["head"])
    if "figure" in part:
        return draw_figure(part["figure"], out)
    if "curves" in part:
        return draw_curves(part["curves"], out)
    raise ValueError(f"unknown report part {sorted(part)}; expected text, table, figure or curves")


def render(document: dict[str, Any], out: Path) -> Path:
    """Write ``out/report.md`` (and its figures) from a resolved document (see the module)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = [
        f"# {document['title']}: reproduction\n",
        f"Regenerate with `{document['command']}`.\n",
    ]
    parts += ["".join(render_part(p, out) for p in section) for section in document["sections"]]
    path = out / "report.md"
    # ``out`` is the scratch folder that experiments.runner moves in whole (write_atomically)
    path.write_text("\n".join(p for p in parts if p) + "\n", encoding="utf-8")
    return path
