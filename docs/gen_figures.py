"""Draw the schedule of each scenario for the documentation (docs/img/scenario-*.png/.svg).

Every picture comes from the real scenario functions of :mod:`evofeat.streams`
run on a small synthetic data set: rows (or time) on the x axis, features on
the y axis, a shaded cell where the feature is visible. Run from the
repository root:

    python docs/gen_figures.py

It takes a few seconds and needs only evofeat and matplotlib. The images are
committed; rerun this script when a scenario's schedule changes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from evofeat.streams import evolvable, full, haphazard, trapezoidal  # noqa: E402
from evofeat.streams.feature_stream import feature_stream  # noqa: E402
from evofeat.streams.incdec import incdec  # noqa: E402

OUT = Path(__file__).resolve().parent / "img"
HIDDEN, VISIBLE = "#f2f2f2", "#3f6fb5"
CMAP = ListedColormap([HIDDEN, VISIBLE])
# Deterministic SVG output (no date, fixed ids), so reruns do not churn the files.
plt.rcParams["svg.hashsalt"] = "evofeat-docs"
plt.rcParams["svg.fonttype"] = "none"


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    return X, y


def _draw(
    mask: np.ndarray,
    title: str,
    xlabel: str,
    name: str,
    *,
    ylabel: str = "feature",
    vlines: list[tuple[float, str]] | None = None,
    hlines: list[float] | None = None,
    ylabels: list[tuple[float, str]] | None = None,
    width: float = 6.4,
) -> None:
    """``mask`` is (rows, features): drawn transposed, rows on x, features on y (first at the top)."""
    fig, ax = plt.subplots(figsize=(width, 3.0))
    n, d = mask.shape
    ax.imshow(
        mask.T.astype(int),
        aspect="auto",
        cmap=CMAP,
        vmin=0,
        vmax=1,
        interpolation="nearest",
        extent=(-0.5, n - 0.5, d - 0.5, -0.5),
    )
    for x, text in vlines or []:
        ax.axvline(x - 0.5, color="#c0392b", lw=0.8, ls="--")
        if text:  # a label for the region that starts at the line; "<" puts it left of the line
            left = text.startswith("<")
            ax.text(
                x - 0.5 + (-0.5 if left else 0.5),
                -0.6,
                text.lstrip("<"),
                color="#c0392b",
                fontsize=7,
                ha="right" if left else "left",
                va="bottom",
            )
    for yv in hlines or []:
        ax.axhline(yv - 0.5, color="#333333", lw=0.6)
    if ylabels:
        ax.set_yticks([p for p, _ in ylabels], [t for _, t in ylabels], fontsize=7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10, pad=14 if vlines and any(t for _, t in vlines) else 6)
    fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / f"scenario-{name}.png", dpi=90)
    fig.savefig(OUT / f"scenario-{name}.svg", metadata={"Date": None})
    plt.close(fig)


def draw_full() -> None:
    X, y = _data(100, 12)
    s = full(X, y)
    _draw(s.visible_mask(), "full: every feature in every row", "row", "full")


def draw_trapezoidal() -> None:
    X, y = _data(200, 20)
    s = trapezoidal(X, y, n_stages=10)
    lines = [(int(r), "") for r in s.info["stage_rows"][1:]]
    _draw(
        s.visible_mask(),
        "trapezoidal (STSD): 10 stages, stage i sees the first i/10 of the features",
        "row",
        "trapezoidal",
        vlines=lines,
    )
    s2 = trapezoidal(X, y, layout="original-code", fractions=[0.1, 0.4, 0.7, 1.0], n_stages=4)
    lines2 = [(int(r), "") for r in s2.seg_rows[1:]]
    _draw(
        s2.visible_mask(),
        "trapezoidal, layout='original-code', fractions 0.1, 0.4, 0.7, 1.0",
        "row",
        "trapezoidal-original-code",
        vlines=lines2,
    )


def draw_evolvable() -> None:
    X, y = _data(120, 10)
    s = evolvable(X, y, d2=6, overlap=10)
    d1 = s.info["space_dims"][0]
    sw = s.info["switch_rows"][0]
    _draw(
        s.visible_mask(),
        "evolvable (FESL): S1, B overlap rows with S1 and S2, then S2 only",
        "row",
        "evolvable",
        vlines=[(sw - s.info["overlap"], "<B overlap rows →"), (sw, "switch: S2 only")],
        hlines=[d1],
        ylabels=[(d1 / 2 - 0.5, "S1"), (d1 + 2.5, "S2")],
        ylabel="feature space",
    )
    s2 = evolvable(X, y, d2=6, overlap=8, cycles=2)
    dims = np.cumsum(s2.info["space_dims"])
    _draw(
        s2.visible_mask(),
        "evolvable with cycles=2: S1 -> S2 -> S3",
        "row",
        "evolvable-cycles",
        vlines=[(r, "") for r in s2.info["switch_rows"]],
        hlines=[int(v) for v in dims[:-1]],
        ylabels=[
            (0.5 * (a + b) - 0.5, f"S{k + 1}")
            for k, (a, b) in enumerate(zip(np.r_[0, dims[:-1]], dims, strict=True))
        ],
        ylabel="feature space",
    )


def draw_haphazard() -> None:
    X, y = _data(80, 12)
    s = haphazard(X, y, p=0.5, seed=0)
    _draw(
        s.visible_mask(),
        "haphazard: each feature visible with probability p = 0.5 in each row",
        "row",
        "haphazard",
    )


def draw_incdec() -> None:
    X, y = _data(400, 16)
    y = np.where(np.arange(400) % 2 == 0, 1, -1)
    sc = incdec(X, y, d_v=0.25, d_s=0.5, d_a=0.25, batch_size=20, n_cstage=80, n_estage=20, seed=0)
    n_c = sc.cstage_rows.size
    n_tr, n_te = sc.train_rows.size, sc.test_rows.size
    d = X.shape[1]
    mask = np.zeros((n_c + n_tr + n_te, d), dtype=bool)
    mask[:n_c, np.concatenate([sc.vanished, sc.survived])] = True
    mask[n_c:, np.concatenate([sc.survived, sc.augmented])] = True
    edges = np.cumsum([len(b[1]) for b in sc.batches])[:-1]
    vl = [(int(e), "") for e in edges] + [(n_c, "E-stage train"), (n_c + n_tr, "E-stage test")]
    _draw(
        mask,
        "incdec (OPID): C-stage batches over [X_v, X_s], E-stage over [X_s, X_a]",
        "row (C-stage mini-batches, then the E-stage halves)",
        "incdec",
        vlines=vl,
        hlines=[sc.d_v, sc.d_v + sc.d_s],
        ylabels=[
            (sc.d_v / 2 - 0.5, "vanished"),
            (sc.d_v + sc.d_s / 2 - 0.5, "survived"),
            (sc.d_v + sc.d_s + sc.d_a / 2 - 0.5, "augmented"),
        ],
        ylabel="",
    )


def draw_feature_stream() -> None:
    X, y = _data(50, 30)
    fs = feature_stream(X, y, historical_fraction=0.8, seed=0)
    d = X.shape[1]
    order = fs.order  # historical columns, then the arriving ones in arrival order
    steps = 1 + fs.arriving.size  # step 0: the historical block; step k: k-th arriving column
    mask = np.zeros((steps, d), dtype=bool)
    for t in range(steps):
        mask[t, order[: fs.historical.size + t]] = True
    # draw features in reading order (historical first) so the arrivals form a staircase
    _draw(
        mask[:, order],
        "feature-stream (CEOFS): 80% historical columns, then one at a time",
        "time (0: historical block; t: t-th arriving column)",
        "feature-stream",
        hlines=[fs.historical.size],
        ylabel="feature (reading order)",
        ylabels=[
            (fs.historical.size / 2 - 0.5, "historical"),
            (fs.historical.size + fs.arriving.size / 2 - 0.5, "arriving"),
        ],
    )


def main() -> None:
    draw_full()
    draw_trapezoidal()
    draw_evolvable()
    draw_haphazard()
    draw_incdec()
    draw_feature_stream()
    for p in sorted(OUT.glob("scenario-*")):
        print(f"{p.relative_to(OUT.parent)}  {p.stat().st_size / 1024:.0f} kB")


if __name__ == "__main__":
    main()
