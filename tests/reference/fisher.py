"""The Fisher-z search in plain NumPy: the reference of the compiled search of
:class:`evofeat.selection.citests.FisherZTester` (``_fisher.fisher_search``)."""

from __future__ import annotations

import numpy as np

from evofeat.selection.citests import (
    ConditionalTester,
    FisherZTester,
    fisher_z_independent,
    partial_corr_batch,
)

__all__ = ["NumpyFisherZTester"]


class NumpyFisherZTester(FisherZTester):
    """:class:`FisherZTester` searching in NumPy, one batch of sets per size.

    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=500); b = a + 0.1 * rng.normal(size=500)
    >>> t = NumpyFisherZTester(a + 0.1 * rng.normal(size=500), alpha=0.05)
    >>> t.add(0, a); t.add(1, b)
    >>> t.separating_set(1, [0, 1], max_size=3)
    (0,)
    """

    separating_set = ConditionalTester.separating_set

    def _first_independent(self, ctx: object, sets: np.ndarray) -> int | None:
        C = np.asarray(ctx)
        r = partial_corr_batch(C, 0, 1, sets + 2)
        indep = fisher_z_independent(r, self.n, sets.shape[1], self.alpha)
        hits = np.flatnonzero(indep)
        return int(hits[0]) if hits.size else None
