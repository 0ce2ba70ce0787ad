"""Re-judge a committed report from its committed numbers, when its result store is not at hand.

The result stores (SQLite) are not committed, and a paper's full rerun can
take hours. ``comparison.csv`` carries our mean and std of every published
cell, which is all the yardstick needs, so this module re-judges a committed
report with the current code and nothing rerun:

- ``comparison.csv`` is rewritten (z by the paper's std, band, spread,
  status, explanation, command);
- the *Every published cell* section of ``report.md`` is rendered again;
- every Markdown table of ``report.md`` with a ``Δ/σ`` column whose rows
  match a published cell gets its Δ/σ and verdict recomputed from the CSV's
  numbers, and the *Summary*'s count lines are recounted from them.

Numbers are not recomputed: a rerun (``evofeat reproduce PAPER --out DIR``)
remains the way to regenerate them; a report refreshed this way says so.

    python -m evofeat.report.committed opid docs/reports/opid

Examples
--------
>>> _setting_key({"data": "DNA", "n_i": "60", "algorithm": "OPID"}, ("data", "algorithm"))
'n_i=60'
"""

from __future__ import annotations

import csv
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evofeat._scratch import write_atomically
from evofeat.report.compare import (
    Explanation,
    Row,
    comparison_section,
    explain_not_run,
    status_counts,
    write_comparison_csv,
)
from evofeat.report.explanations import EXPLANATIONS, explain
from evofeat.report.paper import verdict

__all__ = ["NOTE", "CommittedRow", "read_rows", "refresh"]

#: The line a refreshed report carries under its title.
NOTE = (
    "*Re-judged from the committed numbers* (`python -m evofeat.report.committed {paper} {dir}`): "
    "the z, bands, statuses and counts below follow the current code's one yardstick and status "
    "vocabulary; our means and stds are those of the last full run, not rerun."
)


def _float(text: str) -> float:
    return float(text) if text not in ("", None) else math.nan


@dataclass
class CommittedRow(Row):
    """A row of a committed ``comparison.csv``, its z as the full run computed it.

    The CSV keeps 6 significant digits, so a z recomputed from them drifts in
    its last digits (a mean of 280,652.6 is stored as 280653, the paper's
    277,394.5 as 277394): the committed z, computed from the exact numbers,
    is kept whenever it is the recomputed one up to that rounding; any other
    z (another yardstick, or numbers changed since) is recomputed.

    >>> r = CommittedRow("ofs", "table8", "covtype", "RAND", "", 277394.0, 127.0, 280653.0, 5064.73)
    >>> round(r.z, 4)
    25.6614
    >>> r.committed_z = 25.6543  # the full run's z, from 280,652.6 and 277,394.5
    >>> r.z
    25.6543
    >>> r.committed_z = 31.0  # not a rounding (another yardstick): recomputed
    >>> round(r.z, 4)
    25.6614
    """

    committed_z: float = math.nan

    @property
    def z(self) -> float:
        z = super().z
        c, s = self.committed_z, self.paper_std
        if not (math.isfinite(c) and math.isfinite(z) and s > 0):
            return z
        tol = 1e-5 * ((abs(self.ours_mean) + abs(self.paper_mean)) / s + abs(z) + 1)
        return c if abs(c - z) <= tol else z


def read_rows(path: Path) -> list[Row]:
    """The rows of a committed ``comparison.csv``, explanations assigned again by the current rules.

    A not-run row keeps its committed reason (missing data, or not in the run).
    """
    rows: list[Row] = []
    with Path(path).open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            row = CommittedRow(
                r["paper"], r["table"], r["dataset"], r["method"], r["setting"],
                _float(r["paper_mean"]), _float(r["paper_std"]), _float(r["ours_mean"]),
                _float(r["ours_std"]), command=r["command"], variant=r["variant"],
                within=r.get("within") or _within(r), committed_z=_float(r.get("z", "")),
            )  # fmt: skip
            if row.verdict == "not run":
                row.explanation_id = r["explanation_id"]
            elif not row.variant or row.verdict == "outside 2σ":
                row.explanation_id = explain(row.paper, row)
            rows.append(row)
    return rows


def _within(r: dict[str, str]) -> str:
    """What a row within 2σ shows, from its committed status (or the paper's stated settings)."""
    status = r.get("status", "")
    return status if status.startswith("reproduces") else "reproduces"


def _setting_key(cells: dict[str, str], named: Sequence[str]) -> str:
    """The setting text of a table row: its columns other than data and algorithm, as k=v."""
    return ", ".join(f"{k}={v}" for k, v in cells.items() if k not in named)


def _retable(text: str, rows: Sequence[Row], signed: bool) -> tuple[str, list[str]]:
    """Recompute the Δ/σ and verdict of every table row that matches a published cell."""
    by = {(r.dataset, r.method, r.setting): r for r in rows if not r.variant}
    out, verdicts, head = [], [], None
    for line in text.split("\n"):
        cells = (
            [c.strip() for c in line.strip().strip("|").split(" | ")]
            if line.startswith("|")
            else []
        )
        if cells and "Δ/σ" in cells and "paper" in cells:
            head = cells
        elif not cells:
            head = None
        elif head is not None and len(cells) == len(head) and not set(line) <= set("|- "):
            named = dict(zip(head[: head.index("paper")], cells, strict=False))
            key = (named.get("data", ""), named.get("algorithm", ""),
                   _setting_key(named, ("data", "algorithm")))  # fmt: skip
            row = by.get(key)
            if row is not None and not math.isnan(row.z):
                i = head.index("Δ/σ")
                cells[i] = f"{row.z:+.2f}"
                word = verdict(row.z, signed)
                cells[i + 1] = word
                verdicts.append(word)
                line = "| " + " | ".join(cells) + " |"
        out.append(line)
    return "\n".join(out), verdicts


def refresh(paper: str, folder: Path, signed: bool = False) -> Path:
    """Re-judge ``folder``'s ``comparison.csv`` and ``report.md`` (see the module docstring)."""
    folder = Path(folder)
    rows = read_rows(folder / "comparison.csv")
    explanations: dict[str, Explanation] = dict(EXPLANATIONS.get(paper, {}))
    explain_not_run(rows, False, explanations)
    path = folder / "report.md"
    text = path.read_text(encoding="utf-8")
    head, _, _ = text.partition("\n## Every published cell")
    head, verdicts = _retable(head, rows, signed)
    n1 = sum(v == "within 1σ" for v in verdicts)
    n2 = n1 + sum(v == "within 2σ" for v in verdicts)
    head = re.sub(
        r"A cell \*reproduces\* when our mean is within one standard deviation.*?\.\n",
        "z = (ours - paper) / the paper's std, never ours. A cell is *within 1σ* or *within 2σ* "
        "of the paper's, else *further*.\n",
        head,
        count=1,
    )
    n = status_counts(rows, explanations)
    counts = "; ".join(f"{s}: {k}" for s, k in n.items())
    by_status = (
        f"\nBy status, the {sum(n.values())} published cells (see *Every published cell* for "
        f"each cell's reason): {counts}.\n"
    )
    head, kept = re.subn(  # a count line already there keeps its wording, its numbers renewed
        r"(\nBy status, the )\d+( published cells[^\n]*?\(see [^\n]*?\)): [^\n]*\n",
        lambda m: f"{m[1]}{sum(n.values())}{m[2]}: {counts}.\n",
        head,
        count=1,
    )
    head = re.sub(
        r"(- \*\*Table 2\*\*, ours: )\d+ of (\d+) within 1σ, \d+ within 2σ, \d+ further\.\n",
        lambda m: (
            f"{m[1]}{n1} of {m[2]} within 1σ, {n2} within 2σ, {int(m[2]) - n2} further.\n"
            + ("" if kept else by_status)
        ),
        head,
    )
    title, _, rest = head.partition("\n\n")
    note = NOTE.format(paper=paper, dir=folder.as_posix())
    if NOTE.split("(")[0] not in rest:
        head = f"{title}\n\n{note}\n\n{rest}"
    report = head.rstrip("\n") + "\n\n" + comparison_section(rows, explanations)

    def write(tmp: Path) -> None:
        write_comparison_csv(rows, tmp / "comparison.csv")
        (tmp / "report.md").write_text(report, encoding="utf-8")

    # both files or neither, report.md last (as evofeat reproduce writes them)
    write_atomically(folder, write, last="report.md", inside="report-")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m evofeat.report.committed PAPER DIR", file=sys.stderr)
        return 2
    print(refresh(args[0], Path(args[1])))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
