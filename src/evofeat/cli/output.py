"""The files of ``run --out`` and ``compare --out``: summary.json, repeats.csv, pairs.csv, curves."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from evofeat.base.errors import InputError
from evofeat.cli.plots import write_curves, write_tally_curves

__all__ = ["OUTPUTS", "check_writable", "write_compare_files", "write_run_files"]


def check_writable(out: Path) -> None:
    """Raise :class:`InputError` naming ``out`` when it cannot be created or written into."""
    target = out if out.exists() else next((p for p in out.parents if p.exists()), Path("."))
    problem = ""
    if out.exists() and not out.is_dir():
        problem = "it exists and is not a folder"
    elif not target.is_dir():
        problem = f"{target} is not a folder"
    elif not os.access(target, os.W_OK | os.X_OK):
        problem = f"{target} is not writable"
    if problem:
        raise InputError(
            f"cannot write the results to --out {out}: {problem}",
            expected="a folder that can be created or written into",
            received=str(out),
            fix="pick another --out",
        )


OUTPUTS = frozenset(
    {"summary.json", "repeats.csv", "pairs.csv", "curve.csv", "curve.png", "curve.svg"}
)


def write_run_files(df: Any, summary: dict[str, Any], tmp: Path) -> None:
    from evofeat.evaluate.repeat import RepeatTally

    (tmp / "summary.json").write_text(
        json.dumps(summary, indent=1, default=float) + "\n", encoding="utf-8"
    )
    title = f"{summary['dataset']} ({summary['scenario']})"
    if isinstance(df, RepeatTally):  # repeats.csv written as the repeats finished
        df.close()
        if df.csv_path is not None and df.csv_path.exists():
            shutil.move(df.csv_path, tmp / "repeats.csv")
        write_tally_curves(summary["learner"], df, title, tmp)
        return
    scalar = [
        c for c in df.columns if not df[c].map(lambda v: isinstance(v, list | dict | tuple)).any()
    ]
    df[scalar].to_csv(tmp / "repeats.csv", index=False)
    write_curves({summary["learner"]: df}, title, tmp)


def write_compare_files(result: dict[str, Any], frames: dict[str, Any], tmp: Path) -> None:
    import pandas as pd

    (tmp / "summary.json").write_text(
        json.dumps(result, indent=1, default=float) + "\n", encoding="utf-8"
    )
    tables = []
    for name, df in frames.items():
        scalar = [
            c
            for c in df.columns
            if not df[c].map(lambda v: isinstance(v, list | dict | tuple)).any()
        ]
        tables.append(df[scalar].assign(learner=name))
    pd.concat(tables, ignore_index=True).to_csv(tmp / "repeats.csv", index=False)
    pd.DataFrame(result["pairs"]).to_csv(tmp / "pairs.csv", index=False)
    write_curves(frames, f"{result['dataset']} ({result['scenario']})", tmp)
