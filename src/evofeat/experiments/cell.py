"""One stored cell of a paper, rerun from the command line: the command of a row no ``evofeat run`` covers.

Most rows of a ``comparison.csv`` are one ``evofeat run --protocol ...``
line. A few cells are not one prequential run of a registered data set (the
FESL Reuters pairs, two views of the 1,200-document sample; the OFS Table 5
selections, a batch selector then two classifiers); their rows name this
module instead::

    python -m evofeat.experiments.cell fesl reuters reuters-1-2 nogd c=10 overlap=50 --repeats 3

runs the paper's own cell function over the repeats (the same row orders as
the report) and prints each repeat's metric and their mean ± std (sample
std). ``--metric NAME:I`` reads item ``I`` of a list-valued metric (Table 5's
``ogd_error:2`` is fraction 0.02).

Examples
--------
>>> command("ofs", "table5", "colon", "mrmr", {"preprocess": "zscore+unit-norm"}, 20, ("ogd_error", 1))
'python -m evofeat.experiments.cell ofs table5 colon mrmr preprocess=zscore+unit-norm --repeats 20 --metric ogd_error:1'
>>> parse_value("10"), parse_value("0.5"), parse_value("zscore")
(10, 0.5, 'zscore')
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.experiments import Cell, get_paper

__all__ = ["command", "main", "parse_value", "run"]

MODULE = "python -m evofeat.experiments.cell"


def parse_value(text: str) -> Any:
    """A parameter value as JSON when it parses (numbers, true, null), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def command(
    paper: str,
    table: str,
    dataset: str,
    method: str,
    params: dict[str, Any],
    repeats: int,
    metric: str | tuple[str, int] = "",
) -> str:
    """The command line that reruns one stored cell (``params`` as ``K=V`` words)."""
    words = [paper, table, dataset, method]
    words += [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in params.items()]
    words += ["--repeats", str(repeats)]
    if metric:
        name = metric if isinstance(metric, str) else f"{metric[0]}:{metric[1]}"
        words += ["--metric", name]
    return MODULE + " " + shlex.join(words)


def run(paper: str, cell: Cell, repeats: int, metric: str = "") -> np.ndarray:
    """The metric of each repeat of ``cell`` (the paper's cell function; repeat r = row order r)."""
    spec = get_paper(paper)
    name, _, index = metric.partition(":")
    out = []
    for r in range(repeats):
        res = spec.run_cell(replace(cell, repeat=r))
        key = name or next(k for k in ("accuracy", "mistakes") if k in res)
        if key not in res:
            raise InputError(
                f"cell has no metric {key!r}",
                expected="one of " + ", ".join(sorted(res)),
                fix="pass --metric with one of those",
            )
        value = res[key][int(index)] if index else res[key]
        out.append(float(value))
    return np.asarray(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, run the cell, print its repeats and mean ± std."""
    ap = argparse.ArgumentParser(prog=MODULE, description=__doc__.split("\n\n")[0])
    ap.add_argument("paper")
    ap.add_argument("table")
    ap.add_argument("dataset")
    ap.add_argument("method")
    ap.add_argument("params", nargs="*", help="the cell's parameters as K=V")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--metric", default="")
    a = ap.parse_args(argv)
    bad = [p for p in a.params if "=" not in p]
    if bad or a.repeats < 1:
        print(f"error: expected K=V parameters and --repeats >= 1, got {bad or a.repeats}",
              file=sys.stderr)  # fmt: skip
        return 2
    params = {k: parse_value(v) for k, v in (p.split("=", 1) for p in a.params)}
    try:
        v = run(a.paper, Cell(a.table, a.dataset, a.method, params), a.repeats, a.metric)
    except (InputError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    std = float(v.std(ddof=1)) if v.size > 1 else 0.0
    print(" ".join(f"{x:.6g}" for x in v))
    print(f"mean {v.mean():.6g} ± {std:.6g} over {v.size} repeats")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
