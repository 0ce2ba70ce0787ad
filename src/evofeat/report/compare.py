"""Paper against ours, for every paper: comparison rows, verdicts, explanations, paired tests.

A paper's experiment module turns its stored results into :class:`Row`
objects (one per published cell) and :class:`Pair` objects (the paper's
method against a baseline on the same row orders); this module renders
them the same way for every paper: the Markdown sections of ``report.md``,
``comparison.csv`` beside it, and the explanations each gap points to.

Examples
--------
>>> r = Row("ofs", "table2", "german", "OFS", "B=0.1", 300.0, 10.0, 325.0, 12.0)
>>> round(r.z, 2), r.verdict, r.status
(2.5, 'outside 2σ', 'open')
>>> Row("ofs", "table2", "german", "OFS", "B=0.1", 300.0, 10.0, 315.0, 40.0).status
'reproduces'
>>> Row("ofs", "table2", "german", "OFS", "B=0.1", 300.0, 10.0, 315.0, 40.0).spread
'ours 4x wider'
>>> p = Pair("table2", "german", "OFS", "RAND", [1, 2, 3, 4], [5, 6, 7, 9], higher_is_better=False)
>>> p.outcomes()
('win', 'tie')
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.report.tables import band, diff_in_std, markdown_table, spread_note

__all__ = [
    "COLUMNS",
    "STATUSES",
    "Explanation",
    "Pair",
    "Row",
    "comparison_section",
    "explain_not_run",
    "paired_section",
    "run_section",
    "write_comparison_csv",
]

#: The columns of ``comparison.csv``, in order.
COLUMNS = (
    "paper",
    "table",
    "dataset",
    "method",
    "setting",
    "paper_mean",
    "paper_std",
    "ours_mean",
    "ours_std",
    "z",
    "verdict",
    "spread",
    "status",
    "explanation_id",
    "command",
    "variant",
)


#: What a cell shows, one per published cell (the counts of every report are by these):
#: *reproduces*: within 2σ (z by the paper's std) with the paper's stated settings;
#: *reproduces with a declared setting*: within 2σ with a setting not in the paper, fixed before
#: scoring and validated on runs disjoint from the scored ones; *explained*: outside 2σ, and a
#: hypothesis stated before the experiment that tests it (named) closes the gap; *does not
#: reproduce*: outside 2σ, the stated causes tested and ruled out, the remaining candidates listed
#: (a setting chosen after seeing the scored runs and not validated lands here); *not comparable*:
#: our data or protocol differs (the explanation says how); *needs data*: not run, the data is not
#: here. Two labels are outside the vocabulary: *open* (outside 2σ, no cause tested yet) and
#: *not run* (left out of this run, e.g. a quick run's subset).
STATUSES = (
    "reproduces",
    "reproduces with a declared setting",
    "explained",
    "does not reproduce",
    "not comparable",
    "needs data",
    "open",
    "not run",
)


@dataclass(frozen=True)
class Explanation:
    """Why a published cell is missed, the experiment that tests the reason, and what it shows.

    ``status`` is one of :data:`STATUSES` (what the evidence supports for the
    cells it covers; ``"open"`` while the reason is untested). ``scope``:
    ``"outside"`` covers the cells outside 2σ its rules match, ``"all"``
    every cell they match, within 2σ too (a cell on data that is not the
    paper's is not comparable however close it lands). ``note`` may point to
    a write-up under ``docs/reports/investigations/``.

    >>> Explanation("ofs-t8-protocol", "the protocol is not recovered", "Table 8 variants").status
    'open'
    """

    id: str
    text: str
    experiment: str
    status: str = "open"
    note: str = ""
    scope: str = "outside"


@dataclass
class Row:
    """One published cell beside ours (``ours_*`` NaN when the cell was not run).

    ``variant`` names a declared variant row (not the paper's rule, e.g. the
    authors' code's): the same published cell against another of our runs,
    listed but not counted as a published cell.

    ``z`` is ``(ours - paper) / paper_std``, against the paper's std only
    (:func:`evofeat.report.tables.diff_in_std`, the one yardstick): a
    published std of 0 gives ``z = 0`` when the means agree and ``inf``
    otherwise. ``spread`` says when our std differs from the paper's by more
    than 2x. ``within`` is what a cell within 2σ shows in this row's setting
    (``"reproduces"`` with the paper's stated settings); ``status`` is the
    cell's one word of :data:`STATUSES`.
    """

    paper: str
    table: str
    dataset: str
    method: str
    setting: str
    paper_mean: float
    paper_std: float
    ours_mean: float = math.nan
    ours_std: float = math.nan
    explanation_id: str = ""
    command: str = ""
    variant: str = ""
    within: str = "reproduces"

    @property
    def z(self) -> float:
        return diff_in_std(self.ours_mean, self.paper_mean, self.paper_std)

    @property
    def verdict(self) -> str:
        return band(self.z)

    @property
    def spread(self) -> str:
        return spread_note(self.ours_std, self.paper_std)

    @property
    def status(self) -> str:
        """The cell's status: its explanation's where one covers it, else by its band."""
        from evofeat.report.explanations import EXPLANATIONS

        return cell_status(self, EXPLANATIONS.get(self.paper, {}))

    def as_dict(self) -> dict[str, object]:
        return {c: getattr(self, c) for c in COLUMNS}


def cell_status(row: Row, explanations: dict[str, Explanation]) -> str:
    """One word of :data:`STATUSES` for ``row`` given its paper's explanations.

    >>> e = {"x": Explanation("x", "another sample", "none", "not comparable", scope="all")}
    >>> cell_status(Row("p", "t", "d", "m", "", 1.0, 1.0, 1.5, 1.0, "x"), e)
    'not comparable'
    >>> cell_status(Row("p", "t", "d", "m", "", 1.0, 1.0, explanation_id="needs-data-d"), {})
    'needs data'
    """
    verdict = row.verdict
    if verdict == "not run":
        return "needs data" if row.explanation_id.startswith("needs-data") else "not run"
    e = explanations.get(row.explanation_id)
    if e is not None and (verdict == "outside 2σ" or e.scope == "all"):
        return e.status
    return "open" if verdict == "outside 2σ" else row.within


def _num(v: float, digits: int = 4) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def write_comparison_csv(rows: Iterable[Row], path: Path) -> Path:
    """``comparison.csv``: one line per published cell, the columns :data:`COLUMNS`."""
    # Not atomic by itself: its callers (experiments.finish.finish_report, committed.refresh)
    # write into a scratch folder that evofeat._scratch.write_atomically moves in whole.
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            d = r.as_dict()
            w.writerow([_num(v, 6) if isinstance(v, float) else v for v in (d[c] for c in COLUMNS)])
    return path


def status_counts(rows: Sequence[Row], explanations: dict[str, Explanation]) -> dict[str, int]:
    """How many of the published cells (variant rows left out) carry each status, in order."""
    got = [cell_status(r, explanations) for r in rows if not r.variant]
    return {s: got.count(s) for s in STATUSES if got.count(s)}


def _counts(rows: Sequence[Row], explanations: dict[str, Explanation]) -> str:
    variants = sum(bool(r.variant) for r in rows)
    rows = [r for r in rows if not r.variant]
    run = [r for r in rows if r.verdict != "not run"]
    n = {v: sum(r.verdict == v for r in run) for v in ("within 1σ", "within 2σ", "outside 2σ")}
    status = "; ".join(f"{s}: {k}" for s, k in status_counts(rows, explanations).items())
    return (
        f"{len(run)} of {len(rows)} published cells run: {n['within 1σ']} within 1σ, "
        f"{n['within 1σ'] + n['within 2σ']} within 2σ, {n['outside 2σ']} outside 2σ "
        f"(z by the paper's std). By status: {status}"
        + (f". And {variants} variant rows (not the paper's rule, not counted)" if variants else "")
    )


def comparison_section(rows: Sequence[Row], explanations: dict[str, Explanation]) -> str:
    """The "every published cell" section: counts, the rows with their commands, the explanations."""
    if not rows:
        return ""
    body = []
    for r in rows:
        ours = "–" if math.isnan(r.ours_mean) else f"{r.ours_mean:.4g} ± {r.ours_std:.2g}"
        body.append(
            [
                r.table,
                r.dataset,
                f"{r.method} ({r.variant})" if r.variant else r.method,
                r.setting,
                f"{r.paper_mean:.4g} ± {r.paper_std:.2g}",
                ours,
                "–" if math.isnan(r.z) else f"{r.z:+.1f}",
                r.verdict,
                r.spread,
                cell_status(r, explanations),
                r.explanation_id,
                f"`{r.command}`" if r.command else "",
            ]
        )
    head = ["table", "data", "method", "setting", "paper", "ours", "z", "band", "spread", "status"]
    head.append("why")
    used = sorted({r.explanation_id for r in rows if r.explanation_id})
    notes = [
        f"- **{e}** ({explanations[e].status}): {explanations[e].text} "
        f"*Experiment:* {explanations[e].experiment}"
        + (f" (see `{explanations[e].note}`)" if explanations[e].note else "")
        for e in used
        if e in explanations
    ]
    return (
        "## Every published cell\n\n"
        f"{_counts(rows, explanations)}.\n\n{YARDSTICK} {VOCABULARY} The same rows are in "
        "`comparison.csv`; each row's command regenerates our number.\n\n"
        + markdown_table(body, [*head, "command"])
        + ("\n\n### Explanations\n\n" + "\n".join(notes) if notes else "")
        + "\n"
    )


#: The one yardstick, as every report states it.
YARDSTICK = (
    "z = (ours - paper) / the paper's std, never ours: a larger spread on our side never counts "
    "as agreement; `spread` names a cell whose std differs from the paper's by more than 2x."
)
#: The status vocabulary, as every report states it.
VOCABULARY = (
    "Status: *reproduces* (within 2σ with the paper's stated settings), *reproduces with a "
    "declared setting* (a setting not in the paper, fixed before scoring), *explained* (a "
    "hypothesis tested by the named experiment closes the gap), *does not reproduce* (the "
    "causes tested are ruled out, or the only setting that closes the gap was chosen on the "
    "scored runs), *not comparable* (our data or protocol differs), *needs data*, *open* (no "
    "cause tested yet)."
)


@dataclass
class Pair:
    """The paper's method against a baseline on the same runs (same row orders, repeat by repeat)."""

    table: str
    setting: str
    method: str
    baseline: str
    ours: Sequence[float] | np.ndarray
    theirs: Sequence[float] | np.ndarray
    higher_is_better: bool = True
    alpha: float = 0.05
    pvalues: tuple[float, float] = field(init=False, default=(math.nan, math.nan))
    paper: str = ""  # the paper's own outcome here, when it prints one

    def outcomes(self) -> tuple[str, str]:
        """Win / tie / loss of ``method`` against ``baseline``: (paired t-test, Wilcoxon signed-rank).

        The tests are :func:`evofeat.evaluate.stats.paired_tests` (also behind ``evofeat compare``).
        """
        from evofeat.evaluate.stats import paired_tests

        t = paired_tests(
            self.ours, self.theirs, alpha=self.alpha, higher_is_better=self.higher_is_better
        )
        self.pvalues = (t["t_pvalue"], t["wilcoxon_pvalue"])
        return t["t_outcome"], t["wilcoxon_outcome"]


def paired_section(pairs: Sequence[Pair]) -> str:
    """Per table, win/tie/loss of the paper's method against each baseline (t-test and Wilcoxon)."""
    if not pairs:
        return ""
    tally: dict[tuple[str, str, str], list[list[int]]] = {}
    for p in pairs:
        t = tally.setdefault((p.table, p.method, p.baseline), [[0, 0, 0], [0, 0, 0]])
        for k, o in enumerate(p.outcomes()):
            t[k][("win", "tie", "loss").index(o)] += 1
    rows = [
        [table, m, b, "/".join(map(str, t)), "/".join(map(str, w)), sum(t)]
        for (table, m, b), (t, w) in tally.items()
    ]
    head = ["table", "method", "baseline", "t-test W/T/L", "Wilcoxon W/T/L", "settings"]
    note = ""
    if any(p.paper for p in pairs):  # the paper's own outcomes over the same settings
        printed = {k: [p.paper for p in pairs if (p.table, p.method, p.baseline) == k and p.paper]
                   for k in tally}  # fmt: skip
        rows = [[*r[:3], _tally(printed[k]), *r[3:]] for k, r in zip(tally, rows, strict=True)]
        head.insert(3, "paper W/T/L")
        note = (
            " `paper W/T/L`: the paper's own outcomes over the same settings, where it prints them."
        )
    return (
        "## Paired tests\n\n"
        "Win/tie/loss of the paper's method against each baseline over the settings of a table "
        "(a setting: one data set and parameter), by a two-sided paired t-test and a Wilcoxon "
        f"signed-rank test over the same row orders, at the 5% level.{note}\n\n"
        + markdown_table(rows, head)
        + "\n"
    )


def _tally(outcomes: Sequence[str]) -> str:
    """Win/tie/loss, then each outcome the paper leaves open.

    >>> _tally(["win", "tie", "tie_or_loss", "win"])
    '2/1/0 (+1 tie or loss)'
    """
    if not outcomes:
        return "–"
    open_ = sorted({o for o in outcomes if o not in ("win", "tie", "loss")})
    extra = ", ".join(f"+{outcomes.count(o)} {o.replace('_', ' ')}" for o in open_)
    return "/".join(str(outcomes.count(o)) for o in ("win", "tie", "loss")) + (
        f" ({extra})" if extra else ""
    )


def run_section(
    quick: bool,
    repeats: dict[str, tuple[int, int]],
    paper_repeats: str,
    skipped: Sequence[tuple[str, str]],
    absent: Sequence[str] = (),
) -> str:
    """What this run did: quick or full, the repeats it actually ran, every skipped cell and why.

    ``repeats`` maps a table to the (fewest, most) repeats run for one of
    its settings; ``skipped`` lists (cells, reason); ``absent`` the
    registry's line for each data set of the paper that is not here.

    >>> print(run_section(True, {"table2": (3, 3)}, "20", [("table8 ijcnn1 (3 cells)", "needs data ijcnn1")]))
    ## This run
    <BLANKLINE>
    **Quick run**: a small subset of the protocol, with fewer repeats than the paper (20); its numbers are a smoke test, not a reproduction.
    <BLANKLINE>
    - Repeats run: table2: 3
    - Skipped: table8 ijcnn1 (3 cells): needs data ijcnn1
    <BLANKLINE>
    """
    kind = (
        f"**Quick run**: a small subset of the protocol, with fewer repeats than the paper "
        f"({paper_repeats}); its numbers are a smoke test, not a reproduction."
        if quick
        else f"**Full run** of the protocol (the paper's repeats: {paper_repeats})."
    )
    reps = ", ".join(f"{t}: {a}" if a == b else f"{t}: {a}-{b}" for t, (a, b) in repeats.items())
    lines = [f"- Repeats run: {reps or 'none'}"]
    lines += [f"- Skipped: {what}: {why}" for what, why in skipped]
    if not skipped:
        lines.append("- Skipped: none")
    lines += [f"- Data not here: {line}" for line in absent]
    return "## This run\n\n" + kind + "\n\n" + "\n".join(lines) + "\n"


def _registered(dataset: str) -> str | None:
    """The registry name of a data set as a paper prints it, or None."""
    from evofeat.datasets.catalogue import get_entry

    try:
        return get_entry(dataset).name
    except KeyError:
        return None


def explain_not_run(rows: list[Any], quick: bool, explanations: dict[str, Any]) -> None:
    """Give every published cell that did not run its reason (absent data, or not in this run).

    >>> r = Row("p", "t", "no-such-set", "m", "", 1.0, 0.1, float("nan"), float("nan"))
    >>> why: dict[str, Explanation] = {}
    >>> explain_not_run([r], True, why)
    >>> r.explanation_id, why["not-in-this-run"].text[:30]
    ('not-in-this-run', 'Not run: the quick subset leav')
    """
    from evofeat.datasets.catalogue import needs_data, status

    for r in rows:
        if r.verdict != "not run" or r.explanation_id:
            continue
        name = _registered(r.dataset)
        if name is not None and status(name) != "here":
            r.explanation_id = f"needs-data-{name}"
            text = f"Not run: {needs_data(name)}."
        else:
            r.explanation_id = "not-in-this-run"
            text = (
                "Not run: the quick subset leaves this cell out (the full run has it)."
                if quick
                else "Not run: this run's protocol has no cell for it."
            )
        explanations.setdefault(
            r.explanation_id,
            Explanation(r.explanation_id, text, "none (the cell did not run)", "tested"),
        )
