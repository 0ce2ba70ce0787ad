"""Independent plain-NumPy oracles of evofeat's online learners, written from the papers.

Each module restates one family of algorithms straight from its paper (and,
where the learner documents a choice the paper leaves open or a rule of the
authors' code, from that documentation), with explicit weight vectors and
no import from ``evofeat``: a rewrite of the compiled core cannot change
what these functions compute, so comparing against them catches it.

Conventions shared by every oracle:

- ``X`` is dense, ``NaN`` marks an absent entry, columns are numbered in
  order of first appearance (the learners' internal columns); ``0.0`` is a
  value. A row's *visible set* is its non-NaN columns; the learner is told
  it after predicting and before learning, whenever it differs from the
  previous row's (as the prequential loop does).
- Dot products and squared norms are summed left to right in column order
  (:func:`dot`), the order the learners document, so predictions agree
  label for label.
- Random draws use SplitMix64 (Steele, Lea, Flood 2014), written here once:
  :class:`SplitMix64` (a sequential stream) and :func:`counter_uniform` (a
  counter-based draw), both mapping the top 53 bits to ``[0, 1)``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["MASK64", "SplitMix64", "counter_uniform", "dot", "mix64", "rows", "sq_norm"]

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's output function (Stafford's "Mix13" variant)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def to_unit(z: int) -> float:
    """The top 53 bits of ``z`` as a double in ``[0, 1)``."""
    return (z >> 11) / 9007199254740992.0


class SplitMix64:
    """The sequential SplitMix64 generator: ``state += golden``, output ``mix64(state)``.

    >>> g = SplitMix64(0)
    >>> hex(mix64(GOLDEN))
    '0xe220a8397b1dcdaf'
    >>> round(g.uniform(), 6)
    0.883311
    """

    def __init__(self, seed: int) -> None:
        self.state = int(seed) & MASK64

    def peek(self) -> float:
        """The next uniform without advancing."""
        return to_unit(mix64((self.state + GOLDEN) & MASK64))

    def advance(self) -> None:
        self.state = (self.state + GOLDEN) & MASK64

    def uniform(self) -> float:
        """The next uniform in ``[0, 1)``."""
        self.advance()
        return to_unit(mix64(self.state))


def counter_uniform(seed: int, stream: int, k: int) -> float:
    """The ``k``-th uniform of ``stream`` under ``seed``: SplitMix64 keyed by the three numbers.

    ``z = mix(seed + g); z = mix(z xor stream g); z = mix(z + k g)`` (``g`` the
    golden gamma, arithmetic modulo 2^64), top 53 bits.
    """
    z = mix64((int(seed) + GOLDEN) & MASK64)
    z = mix64(z ^ ((int(stream) * GOLDEN) & MASK64))
    z = mix64((z + int(k) * GOLDEN) & MASK64)
    return to_unit(z)


def dot(w: np.ndarray, x: np.ndarray, cols: np.ndarray) -> float:
    """``sum_c w[c] x[c]`` over ``cols`` (increasing), summed left to right."""
    s = 0.0
    for c in cols.tolist():
        s += float(w[c]) * float(x[c])
    return s


def sq_norm(x: np.ndarray, cols: np.ndarray) -> float:
    """``sum_c x[c]^2`` over ``cols``, left to right."""
    return dot(x, x, cols)


def rows(X: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, bool]]:
    """Yield ``(t, cols, x, changed)`` per row: visible columns, values (NaN -> 0), visible set changed."""
    prev: np.ndarray | None = None
    for t in range(X.shape[0]):
        vis = ~np.isnan(X[t])
        changed = prev is None or not np.array_equal(vis, prev)
        prev = vis
        yield t, np.flatnonzero(vis), np.where(vis, X[t], 0.0), changed
