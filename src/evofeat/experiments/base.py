"""The frame every paper's experiments plug into.

A paper module defines a :class:`Paper` subclass: the list of :class:`Cell`
objects its protocol needs, how to compute one cell, and how to turn the
stored results into a report. The runner (:mod:`evofeat.experiments.runner`)
stores each finished cell in SQLite as soon as it completes and skips cells
that are already stored, so an interrupted run resumes without losing work.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["Cell", "Paper"]


def _freeze(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Cell:
    """One unit of work of a paper's protocol, identified by its content.

    Parameters
    ----------
    table
        The table or figure the cell belongs to (``"table2"``, ``"figure1"``).
    dataset
        Data set name (a registry name or a path).
    method
        Learner, selector or estimator name (``"stsd-i"``).
    params
        JSON-able parameters that define the cell (learner parameters,
        scenario parameters, variant, budget, ...).
    repeat
        Index of the repetition (permutation or seed index).

    Examples
    --------
    >>> c = Cell("table2", "german", "stsd-i", {"budget": 0.5}, repeat=3)
    >>> c.key
    'table2|german|stsd-i|{"budget":0.5}|3'
    """

    table: str
    dataset: str
    method: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    repeat: int = 0

    @property
    def key(self) -> str:
        """A canonical string that identifies the cell in the result store."""
        return f"{self.table}|{self.dataset}|{self.method}|{_freeze(self.params)}|{self.repeat}"

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cell) and other.key == self.key


class Paper:
    """Base class of a paper's experiment protocol.

    Subclasses set :attr:`name` and :attr:`title` and implement
    :meth:`cells`, :meth:`run_cell` and :meth:`write_report`; they may
    override :meth:`requires` (the data a cell reads: a cell whose data is
    absent is skipped and listed in the report), :meth:`comparison` (the
    published cells beside ours: ``comparison.csv``) and :meth:`pairs`
    (the paired tests).
    ``run_cell`` must be a deterministic function of the cell (seeds come
    from ``cell.repeat``) and return a JSON-able dict of metrics; it runs in
    a worker process, so it must not rely on state set in the parent.
    """

    name: str = ""
    title: str = ""
    #: How many repeats the paper states (printed beside the repeats a run made).
    paper_repeats: str = ""

    def requires(self, cell: Cell) -> tuple[str, ...]:
        """The registry data sets ``cell`` reads (a name the registry does not know is not checked)."""
        return (cell.dataset,)

    def comparison(self, results: pd.DataFrame) -> list[Any]:
        """One :class:`evofeat.report.compare.Row` per published cell (none by default)."""
        return []

    def pairs(self, results: pd.DataFrame) -> list[Any]:
        """The :class:`evofeat.report.compare.Pair` objects of the paired tests (none by default)."""
        return []

    def cells(self, quick: bool = False) -> list[Cell]:
        """All cells of the protocol; ``quick`` gives a small subset for smoke runs."""
        raise NotImplementedError

    def run_cell(self, cell: Cell) -> dict[str, Any]:
        """Compute one cell and return its metrics (JSON-able)."""
        raise NotImplementedError

    def write_report(self, results: pd.DataFrame, out: Path, command: str) -> Path:
        """Write ``out/report.md`` (and its figures) from the stored results.

        ``results`` has one row per finished cell: the columns ``table``,
        ``dataset``, ``method``, ``repeat``, ``params`` (a dict) and one column
        per metric key returned by :meth:`run_cell`. ``command`` is the command
        line that regenerates the report; print it in the report.
        """
        raise NotImplementedError
