"""SAOLA: scalable and accurate online feature selection by pairwise comparisons."""

from __future__ import annotations

import numpy as np

from evofeat.selection._base import ColumnBuffer, StreamingSelector, check_choice, check_range
from evofeat.selection.citests import (
    correlations,
    fisher_z_independent,
    standardize,
    symmetric_uncertainty_many,
)

__all__ = ["SAOLA"]


def _beats(a: float, d: float, strict: bool) -> bool:
    """The redundancy comparison: ``a > d`` (LOFS) or ``a >= d`` (the paper)."""
    return bool(a > d) if strict else bool(a >= d)


class SAOLA(StreamingSelector):
    """SAOLA (Yu et al. 2014): online redundancy analysis by pairwise comparisons.

    ``dep(f)`` is the association of f with the label: ``|r|`` with
    ``test="fisher-z"`` (a feature is relevant when Fisher's z-test is
    significant at ``alpha``), symmetric uncertainty with ``test="mi"`` (a
    feature is relevant when ``SU > delta``). A relevant newcomer i is
    appended; then for each feature j selected before it, in order, and
    (Fisher z only) only when ``r(i, j)`` is itself significant, with
    ``a(i, j)`` = ``|r(i, j)|`` or ``SU(i, j)``:

    - if ``dep(j)`` beats ``dep(i)`` and ``a(i, j)`` beats ``dep(i)``, i is
      removed and the loop stops;
    - else if ``dep(i) > dep(j)`` and ``a(i, j)`` beats ``dep(j)``, j is
      removed.

    "Beats" depends on ``variant``. ``"textbook"`` (default, the paper's
    rule: ``I(Y;C) > I(F;C)`` and ``I(F;Y) >= I(F;C)``): ``dep(j) > dep(i)``,
    ``a >= dep``. ``"lofs"`` (LOFS's ``saola_z_test``): ``dep(j) >= dep(i)``
    and ``a > dep``; LOFS's ``saola_mi``: strict ``>`` everywhere. With
    ``"lofs"`` a column whose sum is exactly 0 is skipped.

    Parameters
    ----------
    alpha
        Level of Fisher's z-test (``test="fisher-z"``). Default 0.05.
    delta
        Relevance threshold on SU (``test="mi"``): relevant when
        ``SU > delta``. Default 0.
    test
        ``"fisher-z"`` (continuous) or ``"mi"`` (discrete: symmetric uncertainty).
    variant
        ``"textbook"`` (default) or ``"lofs"``.
    budget
        None (default), a count, or a fraction of the features seen.

    Attributes
    ----------
    selected_ : list of int
        Current selection, in order of arrival.
    relevance_ : ndarray of shape (n_features_seen,)
        ``dep`` of every feature seen.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 12))
    >>> X[:, 5] = X[:, 0] + 0.05 * rng.normal(size=400)
    >>> y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    >>> print(SAOLA().fit(X, y).get_support(indices=True))
    [0 3]

    References
    ----------
    Yu K., Wu X., Ding W., Pei J. (2014). Towards scalable and accurate online
    feature selection for big data. IEEE ICDM, 660-669 (Algorithm 1).
    """

    #: The fitted attributes a model file holds (evofeat.io): the selection and its columns.
    _state_spec = StreamingSelector._state_spec.extend(
        attrs={"selected_": "ints", "_cols": "columns"},
        consistent=lambda s: (
            f"{s._cols.size} columns for {len(s.selected_)} selected features"
            if s._cols.size != len(s.selected_)
            else ""
        ),
    )

    def __init__(
        self,
        alpha: float = 0.05,
        delta: float = 0.0,
        test: str = "fisher-z",
        variant: str = "textbook",
        budget: float | int | None = None,
    ) -> None:
        self.alpha = alpha
        self.delta = delta
        self.test = test
        self.variant = variant
        self.budget = budget

    def _check_params(self) -> None:
        super()._check_params()
        check_range("delta", self.delta, 0.0, 1.0)
        check_choice("test", self.test, ("fisher-z", "mi"))

    def _init_state(self) -> None:
        self.selected_: list[int] = []
        self._cols = ColumnBuffer(self.n_rows_)  # columns of selected_, in the same order

    def _marginal(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.test == "fisher-z":
            return super()._marginal(X)
        su = symmetric_uncertainty_many(self.y_, X)
        return su, su > self.delta

    def _pairwise(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Association of the newcomer with every selected feature, and whether it counts."""
        if not self.selected_:
            return np.zeros(0), np.zeros(0, dtype=bool)
        S = self._cols.view
        if self.test == "fisher-z":
            r = correlations(S, x)
            return np.nan_to_num(np.abs(r)), ~fisher_z_independent(r, self.n_rows_, 0, self.alpha)
        su = symmetric_uncertainty_many(x, S)
        return su, np.ones(su.size, dtype=bool)

    def _process(self, X: np.ndarray, start: int) -> None:
        dep, relevant = self._marginal(X)
        self._record_relevance(dep)
        zscored = standardize(X) if self.test == "fisher-z" else X
        lofs = self.variant == "lofs"
        ties_to_j = lofs and self.test == "fisher-z"  # saola_z_test: dep(j) >= dep(i)
        for t in np.flatnonzero(relevant & ~self._lofs_skip(X)):
            i = int(start + t)
            a, counts = self._pairwise(zscored[:, t])
            di = self.relevance_[i]
            keep_i = True
            for pos, j in enumerate(list(self.selected_)):
                if not counts[pos]:
                    continue
                dj, a_ij = self.relevance_[j], a[pos]
                j_beats = dj >= di if ties_to_j else dj > di
                if j_beats and _beats(a_ij, di, lofs):
                    keep_i = False
                    break
                if di > dj and _beats(a_ij, dj, lofs):
                    k = self.selected_.index(j)
                    del self.selected_[k]
                    self._cols.delete(k)
            if keep_i:
                self.selected_.append(i)
                self._cols.append(zscored[:, t])

    def _selected(self) -> list[int]:
        return self.selected_
