"""Alpha-investing: streamwise regression with a test level that spends and earns wealth."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from evofeat.selection._base import ColumnBuffer, StreamingSelector, check_range

__all__ = ["AlphaInvesting"]


class AlphaInvesting(StreamingSelector):
    """Alpha-investing (Zhou et al. 2006) as in LOFS's ``Alpha_investing``.

    The model is a least-squares fit of the label (as a number) on the
    selected columns, without an intercept. The column at position ``i``
    (1-based, in order of arrival) is tested at level
    ``alpha_i = wealth / (2 i)`` by the likelihood-ratio test of the Gaussian
    model, ``T = n ln(RSS_without / RSS_with)``, ``p = P(chi2_1 > T)``; it is
    added when ``p < alpha_i``, and then ``wealth += payout - alpha_i``,
    otherwise ``wealth -= alpha_i``.

    LOFS keeps the first column unconditionally, meaning it to be a constant
    term. ``variant="textbook"`` (default) prepends a real constant column
    (position 1, an intercept that is never reported), so every data column
    is tested and the first data column has position 2. ``variant="lofs"``
    follows LOFS's ``Alpha_Investing``: it takes the columns as given (the
    first data column is kept untested and reported, the others start at
    position 2), and its p-value is the likelihood ratio of the Gaussian model
    with the variance fixed at the current fit's, ``p = exp((RSS_with -
    RSS_without) / (2 RSS_without / n))``, not the chi^2 tail.

    Parameters
    ----------
    wealth
        Initial wealth ``w0`` (LOFS: 0.5).
    payout
        Wealth earned by an accepted feature ``dw`` (LOFS: 0.5).
    variant
        ``"textbook"`` (default) or ``"lofs"``.
    budget
        None (default), a count, or a fraction of the features seen.

    Attributes
    ----------
    selected_ : list of int
        Selected columns, in order of arrival.
    wealth_ : float
        Current wealth.
    relevance_ : ndarray of shape (n_features_seen,)
        ``|r|`` of each feature with the label (used by ``budget`` only).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 12))
    >>> y = np.where(X[:, 2] - X[:, 7] > 0, 1, -1)
    >>> print(AlphaInvesting().fit(X, y).get_support(indices=True))
    [2 7]

    References
    ----------
    Zhou J., Foster D. P., Stine R. A., Ungar L. H. (2006). Streamwise feature
    selection. JMLR 7: 1861-1885 (Algorithm 1).
    """

    #: The fitted attributes a model file holds (evofeat.io): the selection, the wealth (>= 0) and
    #: the regression state (one residual per row).
    _state_spec = StreamingSelector._state_spec.extend(
        attrs={
            "selected_": "ints",
            "wealth_": "float",
            "_Q": "columns",
            "_resid": "array:f:1",
            "_rss": "float",
            "_position": "int",
        },
        nonnegative=("wealth_", "_rss"),
        consistent=lambda s: (
            f"a residual of {s._resid.size} rows for {s.n_rows_}"
            if s._resid.size != s.n_rows_
            else ""
        ),
    )

    def __init__(
        self,
        wealth: float = 0.5,
        payout: float = 0.5,
        variant: str = "textbook",
        budget: float | int | None = None,
    ) -> None:
        self.wealth = wealth
        self.payout = payout
        self.variant = variant
        self.budget = budget

    def _check_params(self) -> None:
        super()._check_params()
        check_range("wealth", self.wealth, 0.0, np.inf, open_lo=True)
        check_range("payout", self.payout, 0.0, np.inf)

    def _init_state(self) -> None:
        n = self.n_rows_
        self.selected_: list[int] = []
        self.wealth_ = float(self.wealth)
        self._Q = ColumnBuffer(n)  # orthonormal basis of the model's columns
        self._resid = self.y_.copy()
        self._rss = float(self._resid @ self._resid)
        self._position = 0
        if self.variant == "textbook":
            self._position = 1
            self._accept(np.ones(n))

    def _residual(self, x: np.ndarray) -> np.ndarray:
        """``x`` minus its projection on the model's columns (Gram-Schmidt twice)."""
        Q = self._Q.view
        for _ in range(2):
            x = x - Q @ (Q.T @ x)
        return x

    def _accept(self, x: np.ndarray) -> None:
        xr = self._residual(x)
        norm = math.sqrt(float(xr @ xr))
        if norm > 1e-10 * max(1.0, math.sqrt(float(x @ x))):
            q = xr / norm
            self._Q.append(q)
            self._resid = self._resid - (self._resid @ q) * q
            self._rss = float(self._resid @ self._resid)

    def _pvalue(self, x: np.ndarray) -> float:
        xr = self._residual(x)
        nx = float(xr @ xr)
        if nx <= 1e-20 * max(1.0, float(x @ x)) or self._rss <= 0:
            return 1.0
        rss1 = max(self._rss - float(self._resid @ xr) ** 2 / nx, 0.0)
        if self.variant == "lofs":
            return math.exp((rss1 - self._rss) / (2.0 * self._rss / self.n_rows_))
        if rss1 <= 0:
            return 0.0
        T = self.n_rows_ * math.log(self._rss / rss1)
        return float(stats.chi2.sf(T, 1))

    def _process(self, X: np.ndarray, start: int) -> None:
        self._record_relevance(self._marginal(X)[0])
        for t in range(X.shape[1]):
            self._position += 1
            x = X[:, t]
            if self._position == 1:  # LOFS: the first column is kept untested
                self.selected_.append(start + t)
                self._accept(x)
                continue
            level = self.wealth_ / (2.0 * self._position)
            if self._pvalue(x) < level:
                self.selected_.append(start + t)
                self._accept(x)
                self.wealth_ += self.payout - level
            else:
                self.wealth_ -= level

    def _selected(self) -> list[int]:
        return self.selected_
