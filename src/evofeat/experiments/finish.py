"""What a run could not do, and the sections every report shares.

Before a run, :func:`available_cells` sets aside the cells whose data is not
on this machine (so a quick run on a fresh install never stops on a missing
large data set); after it, :func:`finish_report` adds to the paper's
``report.md`` what the run did (quick or full, the repeats it actually ran,
every skipped cell and why), the paired tests and every published cell
beside ours, and writes ``comparison.csv``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evofeat.experiments.base import Cell, Paper

__all__ = ["absent_paper_data", "available_cells", "finish_report", "missing_data"]


def missing_data(names: Iterable[str]) -> str | None:
    """Why the registry data sets ``names`` cannot be read here (None when all are present).

    Each absent set gets the registry's line (:func:`evofeat.datasets.registry.needs_data`:
    the command that downloads it, or why it is not public). A name the
    registry does not know (a generated or derived set) is not checked.

    >>> missing_data(["german", "no-such-set"]) is None
    True
    """
    from evofeat.datasets.catalogue import names as registered
    from evofeat.datasets.catalogue import needs_data, status

    known = set(registered())
    absent = [n for n in dict.fromkeys(names) if n in known and status(n) != "here"]
    if not absent:
        return None
    text = "; ".join(needs_data(n) for n in absent)
    if "EVOFEAT_DATA" not in text:  # the registry's line names it already for a downloadable set
        text += " (or set EVOFEAT_DATA to a folder that holds it)"
    return text


def absent_paper_data(paper: str) -> list[str]:
    """The registry's line for each data set ``paper``'s tables use that is not here.

    >>> absent_paper_data("no-such-paper")
    []
    """
    from evofeat.datasets.catalogue import get_entry, names, needs_data, status

    lines: dict[tuple[str, ...], str] = {}
    for name in names():
        entry = get_entry(name)
        if any(t.split()[0].lower() == paper for t in entry.used_by) and status(name) != "here":
            lines.setdefault(tuple(entry.files), needs_data(name))  # one line per set of files
    return list(lines.values())


def available_cells(paper: Paper, cells: list[Cell]) -> tuple[list[Cell], list[tuple[str, str]]]:
    """The cells whose data is here, and (what was skipped, why) for the others."""
    keep: list[Cell] = []
    gone: dict[tuple[str, str, str], int] = {}
    reasons: dict[tuple[str, ...], str | None] = {}
    for c in cells:
        need = paper.requires(c)
        if need not in reasons:
            reasons[need] = missing_data(need)
        why = reasons[need]
        if why is None:
            keep.append(c)
        else:
            gone[(c.table, c.dataset, why)] = gone.get((c.table, c.dataset, why), 0) + 1
    return keep, [(f"{t} on {d} ({n} cells)", why) for (t, d, why), n in gone.items()]


def _repeats(results: Any) -> dict[str, tuple[int, int]]:
    """Per table, the fewest and most repeats run for one (data set, method, parameters)."""
    if results.empty:
        return {}
    key = results["dataset"] + "|" + results["method"] + "|" + results["params"].map(str)
    counts = results.assign(_k=key).groupby(["table", "_k"])["repeat"].nunique()
    return {str(t): (int(c.min()), int(c.max())) for t, c in counts.groupby(level=0)}


def finish_report(
    paper: Paper,
    results: Any,
    out: Path,
    quick: bool,
    skipped: list[tuple[str, str]],
    set_aside: tuple[int, int] = (0, 0),
) -> None:
    """Add the run, paired-test and comparison sections to ``out/report.md``; write comparison.csv.

    The run section goes right after the report's first paragraph (title and
    regenerate line), the others at its end. ``set_aside``: (cells set aside
    for absent data, cells planned); a full run that set some aside is called
    incomplete, not full.
    """
    from evofeat.report.compare import (
        comparison_section,
        explain_not_run,
        paired_section,
        run_section,
        write_comparison_csv,
    )
    from evofeat.report.explanations import EXPLANATIONS

    rows = paper.comparison(results)
    explanations = dict(EXPLANATIONS.get(paper.name, {}))
    explain_not_run(rows, quick, explanations)
    if rows:
        write_comparison_csv(rows, out / "comparison.csv")
    path = out / "report.md"
    head, rest = _split_head(path.read_text(encoding="utf-8"))
    published = [r for r in rows if not getattr(r, "variant", "")]  # variant rows are ours only
    not_run = sum(r.verdict == "not run" for r in published)
    if not_run:  # outside this run's subset, or on data the project does not hold
        skipped = [
            *skipped,
            (
                f"{not_run} of {len(published)} published cells",
                "not in this run (each is listed as 'not run' under Every published cell, "
                "with the data it needs where that is the reason)",
            ),
        ]
    run = run_section(
        quick,
        _repeats(results),
        paper.paper_repeats or "not stated",
        skipped,
        absent_paper_data(paper.name),
    )
    if not quick and set_aside[0]:
        run = run.replace(
            "**Full run** of the protocol",
            f"**Incomplete run**: {set_aside[0]} of the protocol's {set_aside[1]} cells did not "
            "run "
            "(their data is not here: see Skipped below), so this is not a full reproduction of "
            "the protocol",
            1,
        )
    tail = [
        paired_section(paper.pairs(results)),
        comparison_section(rows, explanations),
    ]
    parts = [head.rstrip("\n") + "\n", run, rest.strip("\n") + "\n", *(t for t in tail if t)]
    # ``out`` is the scratch folder that runner._write_report_atomically moves in whole
    path.write_text("\n".join(parts), encoding="utf-8")


def _split_head(text: str) -> tuple[str, str]:
    """(the title and the paragraph that names the regenerating command, the rest)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines[:12]):
        if "Regenerate" in line or "evofeat reproduce" in line:
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            return "".join(lines[:j]), "".join(lines[j:])
    return "".join(lines[:1]), "".join(lines[1:])
