"""Saving matplotlib figures for reports (PNG and SVG, embedded in Markdown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["new_figure", "save_figure"]


def new_figure(n_panels: int = 1, *, ncols: int = 3, size: float = 3.6) -> tuple[Any, Any]:
    """A figure with ``n_panels`` axes on a grid (non-interactive backend).

    >>> fig, axes = new_figure(4)
    >>> len(axes)
    4
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ncols = max(1, min(ncols, n_panels))
    nrows = -(-n_panels // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(size * ncols, size * 0.8 * nrows), squeeze=False
    )
    flat = list(axes.ravel())
    for ax in flat[n_panels:]:
        ax.set_visible(False)
    return fig, flat[:n_panels]


def save_figure(fig: Any, out: Path, name: str, caption: str = "") -> str:
    """Write ``out/name.png`` and ``out/name.svg``; return the Markdown that embeds it."""
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    # not atomic by itself: the package's callers (report.paper, demo, cli.plots) pass a
    # scratch folder that evofeat._scratch.write_atomically moves in whole
    fig.savefig(out / f"{name}.png", dpi=120)
    fig.savefig(out / f"{name}.svg")
    plt.close(fig)
    alt = caption or name
    return (
        f"![{alt}]({name}.png)\n\n*{caption}* ([SVG]({name}.svg))\n"
        if caption
        else f"![{alt}]({name}.png)\n"
    )
