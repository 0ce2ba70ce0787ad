"""The papers' published numbers (a bundled copy of ``shared/papers/published.json``)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["published"]


@cache
def _all() -> dict[str, Any]:
    text = resources.files("evofeat.experiments").joinpath("published.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def published(paper: str) -> dict[str, Any]:
    """Every published cell of ``paper`` (``stsd``, ``ofs``, ``fesl``, ``opid``, ``ceofs``).

    >>> rec = published("stsd")["table2"][0]
    >>> rec["dataset"], rec["algorithm"], rec["mistakes_mean"]
    ('magic04', 'STSD', 8051.3)
    """
    data = _all()
    if paper not in data:
        raise KeyError(f"no published numbers for {paper!r}; expected one of: {', '.join(data)}")
    out: dict[str, Any] = data[paper]
    return out
