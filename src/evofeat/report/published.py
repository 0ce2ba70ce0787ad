"""The papers' published numbers: ``papers/<paper>/published.json`` (from ``shared/papers/published.json``)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from evofeat.papers import NAMES, text

__all__ = ["published"]


@cache
def published(paper: str) -> dict[str, Any]:
    """Every published cell of ``paper`` (``stsd``, ``ofs``, ``fesl``, ``opid``, ``ceofs``).

    >>> rec = published("stsd")["table2"][0]
    >>> rec["dataset"], rec["algorithm"], rec["mistakes_mean"]
    ('magic04', 'STSD', 8051.3)
    """
    if paper not in NAMES:
        raise KeyError(f"no published numbers for {paper!r}; expected one of: {', '.join(NAMES)}")
    data: dict[str, Any] = json.loads(text(paper, "published.json"))
    return data
