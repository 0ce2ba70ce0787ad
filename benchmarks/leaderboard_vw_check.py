"""Why Vowpal Wabbit beats evofeat on some leaderboard cells: its settings switched off one at a time.

The leaderboard (``benchmarks/leaderboard.py``) runs VW with its defaults
(adaptive, normalised and invariant updates, a bias). Here the same streams
(same cells, same 10 orders, built by the leaderboard's ``build_streams``)
are fed to VW without normalised updates, without the bias and with
evofeat's step scale, beside evofeat's FTRL, AdaGrad and NAG (the
normalised adaptive update VW runs by default, Ross et al. 2013; with
``invariant=True`` also VW's importance-invariant step) with and without
their bias, and each is compared with VW's defaults (paired t-test).

    python benchmarks/leaderboard_vw_check.py      # german, credit-g, australian evolvable; credit-a trapezoidal
    python benchmarks/leaderboard_vw_check.py --cells wbc/trapezoidal

Writes ``benchmarks/results/leaderboard_vw_check.md``. A diagnosis, not a
tuning: nothing here changes a default of the leaderboard.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from benchmarks import leaderboard as lb  # noqa: E402
from benchmarks.peers import Feed, vw_peers  # noqa: E402

CELLS = ("german/evolvable", "credit-g/evolvable", "australian/evolvable", "credit-a/trapezoidal")
BASE = "--loss_function logistic --binary --quiet"
VW = {
    "vw (its defaults, as the leaderboard)": BASE,
    "vw without normalised updates (--adaptive --invariant)": f"{BASE} --adaptive --invariant",
    "vw without its bias (--noconstant)": f"{BASE} --noconstant",
    "vw with evofeat's step scale (-l 0.1)": f"{BASE} -l 0.1",
}
EVOFEAT = (
    "ftrl",
    "adagrad",
    "nag",
    "nag(invariant=True)",
    "ftrl(fit_intercept=False)",
    "adagrad(fit_intercept=False)",
    "nag(fit_intercept=False)",
)


def run_vw(args: str, feeds: list[Feed], first: list[int]) -> list[float]:
    old = vw_peers.ARGS
    vw_peers.ARGS = args
    try:
        return [
            float(np.mean(vw_peers._run(f)[0][i:] == f.y[i:]))
            for f, i in zip(feeds, first, strict=True)
        ]
    finally:
        vw_peers.ARGS = old


def check(cell: str, orders: int) -> list[str]:
    from scipy.stats import ttest_rel

    dataset, scenario = cell.split("/")
    streams = lb.build_streams(dataset, scenario, orders, "zscore")
    feeds = [Feed.from_stream(s) for s in streams]
    first = [int(s.info.get("eval_from", 0)) for s in streams]
    majority = np.mean(
        [
            max(np.mean(s.y[i:] > 0), np.mean(s.y[i:] <= 0))
            for s, i in zip(streams, first, strict=True)
        ]
    )
    acc = {name: run_vw(args, feeds, first) for name, args in VW.items()}
    acc.update(
        {f"evofeat {spec}": [lb.run_evofeat(spec, s)[0] for s in streams] for spec in EVOFEAT}
    )
    base = acc[next(iter(VW))]
    out = [
        f"## {cell}",
        "",
        f"{orders} orders; majority class of the scored rows {majority:.3f}.",
        "",
        "| learner | accuracy | minus VW's defaults | p (paired t) |",
        "| --- | --- | --- | --- |",
    ]
    for name, a in acc.items():
        x = np.asarray(a)
        diff = x.mean() - np.mean(base)
        p = "-" if a is base else f"{ttest_rel(a, base).pvalue:.3g}"
        out.append(f"| {name} | {x.mean():.3f} ± {x.std(ddof=1):.3f} | {diff:+.3f} | {p} |")
    return out + [""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default=",".join(CELLS), help="dataset/scenario, comma-separated")
    ap.add_argument("--orders", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "leaderboard_vw_check.md")
    args = ap.parse_args(argv)
    lines = [
        "# Why VW beats evofeat on some leaderboard cells (written by "
        f"`python benchmarks/leaderboard_vw_check.py --cells {args.cells}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        "The leaderboard's streams, VW with one of its defaults switched off at a time, and "
        "evofeat's FTRL, AdaGrad and NAG with and without their bias. Read with "
        "[leaderboard_findings.md](leaderboard_findings.md).",
        "",
    ]
    for cell in args.cells.split(","):
        lines += check(cell.strip(), args.orders)
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
