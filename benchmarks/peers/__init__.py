"""Peer learners of the leaderboard, one module per family.

Every peer is a :class:`Peer`: ``run(feed)`` takes one stream, already
converted by :class:`Feed`, and returns the prediction (0 or 1) made for each
row before the peer learned it, with the CPU seconds of its predict-then-learn
loop. Input conversion (dicts, text lines, OpenMOA instances) is done before
the clock starts, so each peer is timed on its own per-row work only.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Feed", "Peer", "PeerUnavailable", "all_peers"]


class PeerUnavailable(RuntimeError):
    """The peer's package is missing or cannot run here (the message says why)."""


@dataclass
class Feed:
    """One stream as every peer sees it: the visible values of each row.

    ``cols[i]`` holds the global column indices of the features visible in
    row ``i`` (zeros kept: a visible zero is a value), ``vals[i]`` their
    values, ``names`` the stream's feature names, ``y`` the labels as 0/1.
    """

    cols: list[np.ndarray]
    vals: list[np.ndarray]
    names: list[str]
    y: np.ndarray
    d: int
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_stream(cls, stream: Any) -> Feed:
        """The visible entries of ``stream`` (``Stream.to_dense`` marks the absent ones NaN)."""
        X = stream.to_dense()
        present = ~np.isnan(X)
        cols = [np.flatnonzero(m) for m in present]
        vals = [X[i, c] for i, c in enumerate(cols)]
        names = [str(n) for n in stream.feature_names]
        y = (np.asarray(stream.y) > 0).astype(np.int64)
        return cls(cols, vals, names, y, X.shape[1])

    def dicts(self) -> list[dict[str, float]]:
        """Row dicts ``{name: value}`` of the visible features (as ``Stream.to_dicts``)."""
        if "dicts" not in self._memo:
            n = self.names
            self._memo["dicts"] = [
                {n[j]: float(v) for j, v in zip(c.tolist(), x.tolist(), strict=True)}
                for c, x in zip(self.cols, self.vals, strict=True)
            ]
        return self._memo["dicts"]

    def safe_names(self) -> list[str]:
        """Feature names with VW's separators (space, colon, pipe) replaced by ``_``."""
        return [re.sub(r"[\s:|]", "_", s) for s in self.names]


@dataclass
class Peer:
    """A peer learner: ``family:name``, what it is, and how to run it on a feed."""

    key: str
    what: str
    run_fn: Callable[[Feed], tuple[np.ndarray, float]]
    python_per_row: bool = True

    def run(self, feed: Feed) -> tuple[np.ndarray, float]:
        """Predictions (0/1, made before learning each row) and the CPU seconds of the loop."""
        return self.run_fn(feed)


def timed(loop: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    """Run ``loop`` and return its result with the CPU seconds of this thread it took.

    Thread time, not process time: the JVM that OpenMOA starts keeps threads
    (JIT, GC) that would otherwise be charged to whatever runs next.
    """
    t0 = time.thread_time()
    out = loop()
    return out, time.thread_time() - t0


def all_peers() -> dict[str, Peer]:
    """Every peer the leaderboard knows, by key (a family that fails to import still lists its peers)."""
    from benchmarks.peers import openmoa_peers, river_peers, vw_peers

    out: dict[str, Peer] = {}
    for mod in (river_peers, vw_peers, openmoa_peers):
        out.update(mod.peers())
    return out
