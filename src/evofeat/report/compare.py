"""Paper against ours, for every paper: comparison rows, verdicts, explanations, paired tests.

A paper's experiment module turns its stored results into :class:`Row`
objects (one per published cell) and :class:`Pair` objects (the paper's
method against a baseline on the same row orders); this module renders
them the same way for every paper: the Markdown sections of ``report.md``,
``comparison.csv`` beside it, and the explanations each gap points to.

Examples
--------
>>> r = Row("ofs", "table2", "german", "OFS", "B=0.1", 300.0, 10.0, 325.0, 12.0)
>>> round(r.z, 2), r.verdict
(2.5, 'outside 2σ')
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

import numpy as np

from evofeat.report.tables import markdown_table

__all__ = [
    "COLUMNS",
    "Explanation",
    "Pair",
    "Row",
    "comparison_section",
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
    "explanation_id",
    "command",
    "variant",
)


@dataclass(frozen=True)
class Explanation:
    """Why a published cell is missed, and the experiment that tests the reason.

    ``status`` says how far the reason is established: ``"tested"`` (the
    experiment named in ``experiment`` shows it), ``"plausible"`` (argued,
    not tested) or ``"open"`` (a hypothesis still to test). ``note`` may
    point to a write-up under ``docs/reports/investigations/``.

    >>> Explanation("ofs-t8-protocol", "the protocol is not recovered", "Table 8 variants").status
    'open'
    """

    id: str
    text: str
    experiment: str
    status: str = "open"
    note: str = ""


@dataclass
class Row:
    """One published cell beside ours (``ours_*`` NaN when the cell was not run).

    ``variant`` names a declared variant row (not the paper's rule, e.g. the
    authors' code's): the same published cell against another of our runs,
    listed but not counted as a published cell.

    ``z`` is ``(ours - paper) / paper_std`` (against the paper's std, as the
    papers report it); a published std of 0 gives ``z = 0`` when the means
    agree to the printed precision and ``inf`` otherwise.
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

    @property
    def z(self) -> float:
        if math.isnan(self.ours_mean) or math.isnan(self.paper_mean):
            return math.nan
        delta = self.ours_mean - self.paper_mean
        if not self.paper_std or math.isnan(self.paper_std):
            return 0.0 if abs(delta) < 1e-9 else math.copysign(math.inf, delta)
        return delta / self.paper_std

    @property
    def verdict(self) -> str:
        z = self.z
        if math.isnan(z):
            return "not run"
        return "within 1σ" if abs(z) <= 1 else "within 2σ" if abs(z) <= 2 else "outside 2σ"

    def as_dict(self) -> dict[str, object]:
        return {c: getattr(self, c) for c in COLUMNS}


def _num(v: float, digits: int = 4) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def write_comparison_csv(rows: Iterable[Row], path: Path) -> Path:
    """``comparison.csv``: one line per published cell, the columns :data:`COLUMNS`."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            d = r.as_dict()
            w.writerow([_num(v, 6) if isinstance(v, float) else v for v in (d[c] for c in COLUMNS)])
    return path


def _counts(rows: Sequence[Row], explanations: dict[str, Explanation]) -> str:
    variants = sum(bool(r.variant) for r in rows)
    rows = [r for r in rows if not r.variant]
    run = [r for r in rows if r.verdict != "not run"]
    n = {v: sum(r.verdict == v for r in run) for v in ("within 1σ", "within 2σ", "outside 2σ")}
    settled = ("tested", "plausible")
    explained = sum(
        r.verdict == "outside 2σ"
        and r.explanation_id in explanations
        and explanations[r.explanation_id].status in settled
        for r in run
    )
    return (
        f"{len(run)} of {len(rows)} published cells run: {n['within 1σ']} within 1σ, "
        f"{n['within 1σ'] + n['within 2σ']} within 2σ, {n['outside 2σ']} outside 2σ "
        f"({explained} of them with a tested or plausible explanation); "
        f"{len(rows) - len(run)} not run"
        + (f"; and {variants} variant rows (not the paper's rule, not counted)" if variants else "")
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
                r.explanation_id,
                f"`{r.command}`" if r.command else "",
            ]
        )
    head = ["table", "data", "method", "setting", "paper", "ours", "z", "verdict", "why"]
    used = sorted({r.explanation_id for r in rows if r.explanation_id})
    notes = [
        f"- **{e}** ({explanations[e].status}): {explanations[e].text} "
        f"*Tested by:* {explanations[e].experiment}"
        + (f" (see `{explanations[e].note}`)" if explanations[e].note else "")
        for e in used
        if e in explanations
    ]
    return (
        "## Every published cell\n\n"
        f"{_counts(rows, explanations)}. z = (ours - paper) / the paper's std; the same rows are in "
        "`comparison.csv`. Each row's command regenerates our number.\n\n"
        + markdown_table(body, [*head, "command"])
        + ("\n\n### Explanations\n\n" + "\n".join(notes) if notes else "")
        + "\n"
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
