"""Finished cells in SQLite, written as each one completes.

Each cell is one row, committed in its own transaction, with the database in
WAL mode: killing the process (even with SIGKILL) loses only the cells still
running, and a rerun skips every stored cell.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from evofeat.experiments.base import Cell

__all__ = ["ResultStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cells (
    paper TEXT NOT NULL,
    key TEXT NOT NULL,
    tbl TEXT NOT NULL,
    dataset TEXT NOT NULL,
    method TEXT NOT NULL,
    params TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    result TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (paper, key)
)
"""


class ResultStore:
    """The result store of ``evofeat reproduce`` (one SQLite file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
    >>> store = ResultStore(path)
    >>> c = Cell("table2", "german", "ofs", {"budget": 0.1}, repeat=0)
    >>> store.put("ofs", c, {"mistakes": 300})
    >>> store.done_keys("ofs") == {c.key}
    True
    >>> store.results("ofs")[["dataset", "mistakes"]].values.tolist()
    [['german', 300]]
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=60)
        con.execute("PRAGMA synchronous=NORMAL")
        return con

    def done_keys(self, paper: str) -> set[str]:
        """Keys of the cells of ``paper`` already stored."""
        with self._connect() as con:
            return {k for (k,) in con.execute("SELECT key FROM cells WHERE paper = ?", (paper,))}

    def put(self, paper: str, cell: Cell, result: dict[str, Any]) -> None:
        """Store one finished cell (its own transaction)."""
        payload = json.dumps(result, default=_jsonable)
        con = self._connect()
        try:
            with con:
                con.execute(
                    "INSERT OR REPLACE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        paper,
                        cell.key,
                        cell.table,
                        cell.dataset,
                        cell.method,
                        json.dumps(cell.params, sort_keys=True, default=str),
                        cell.repeat,
                        payload,
                        time.time(),
                    ),
                )
        finally:
            con.close()

    def results(self, paper: str, cells: Iterable[Cell] | None = None) -> pd.DataFrame:
        """A tidy table of the stored cells of ``paper`` (restricted to ``cells`` if given)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT key, tbl, dataset, method, params, repeat, result FROM cells WHERE paper = ? ORDER BY rowid",
                (paper,),
            ).fetchall()
        wanted = None if cells is None else {c.key for c in cells}
        records = []
        for key, tbl, dataset, method, params, rep, result in rows:
            if wanted is not None and key not in wanted:
                continue
            rec = {
                "table": tbl,
                "dataset": dataset,
                "method": method,
                "params": json.loads(params),
                "repeat": rep,
            }
            rec.update(json.loads(result))
            records.append(rec)
        return (
            pd.DataFrame.from_records(records)
            if records
            else pd.DataFrame(columns=["table", "dataset", "method", "params", "repeat"])
        )


def _jsonable(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"cannot store a {type(obj).__name__} in the result store")
