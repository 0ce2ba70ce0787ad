"""OSFS and Fast-OSFS: online streaming feature selection by conditional-independence tests."""

from __future__ import annotations

import numpy as np

from evofeat.selection._base import StreamingSelector, check_choice, check_range
from evofeat.selection.citests import FisherZTester, G2Tester, mutual_info_many

__all__ = ["OSFS", "FastOSFS"]


class OSFS(StreamingSelector):
    """Online Streaming Feature Selection (OSFS, Wu et al. 2013).

    Each arriving feature is tested for relevance (dependence on the label
    given the empty set); a relevant one is appended to the current set, then
    every member, oldest first, is re-checked against the conditioning sets
    drawn from the current set minus itself and removed at once when one of
    them makes it independent of the label. Conditioning sets have at most
    ``max_cond_size`` features and are tried by size (1, 2, ...) and, within
    a size, in lexicographic order of their positions in the current set,
    stopping at the first that gives independence (as LOFS).

    Parameters
    ----------
    alpha
        Level of the independence tests. Default 0.05 (LOFS's).
    test
        ``"fisher-z"`` (continuous data: Fisher's z-test of the partial
        correlation), ``"g2"`` (discrete data: the G^2 likelihood-ratio test)
        or ``"chi2"`` (discrete data: Pearson's chi^2 test).
    max_cond_size
        Largest conditioning set (LOFS: 3).
    variant
        ``"textbook"`` (default): constant columns are never selected.
        ``"lofs"``: as LOFS's ``osfs_z``/``osfs_d``, a column whose sum is
        exactly 0 is skipped (even when it varies, e.g. centred data), and
        the discrete tests follow LOFS's ``my_cond_indep_chisquare``
        (:func:`~evofeat.selection.citests.lofs_ci_test`: values read as codes
        ``1..max``, levels counted as column maxima, a test with
        ``n < 5 df`` not run and read as independent, chi^2 with a continuity
        correction on the cells with expected count below 10).
        Everything else is shared: strict ``|W| < z_{1-alpha/2}``, NaN
        correlations independent, the subset order.
    budget
        None (default), a count, or a fraction of the features seen.

    Attributes
    ----------
    selected_ : list of int
        Current selection, in order of arrival.
    relevance_ : ndarray of shape (n_features_seen,)
        ``|r|`` (or, with a discrete test, mutual information in bits) of each
        feature with the label.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 12))
    >>> X[:, 5] = X[:, 0] + 0.05 * rng.normal(size=400)   # a near copy of column 0
    >>> y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    >>> print(OSFS().fit(X, y).get_support(indices=True))  # given 5, 0 adds nothing: 0 goes
    [3 5]

    References
    ----------
    Wu X., Yu K., Ding W., Wang H., Zhu X. (2013). Online feature selection
    with streaming features. IEEE TPAMI 35(5): 1178-1192 (Algorithm 1).
    """

    #: The fitted attributes a model file holds (evofeat.io): the selection and the tester's
    #: columns, which are the selection's.
    _state_spec = StreamingSelector._state_spec.extend(
        attrs={"selected_": "ints", "_tester": "tester"},
        consistent=lambda s: (
            f"tester columns {sorted(s._tester.columns)[:10]} for {s.selected_[:10]}"
            if set(s._tester.columns) != set(s.selected_)
            else ""
        ),
    )

    #: Fast-OSFS: test the newcomer before adding it; never re-check it.
    _fast = False

    def __init__(
        self,
        alpha: float = 0.05,
        test: str = "fisher-z",
        max_cond_size: int = 3,
        variant: str = "textbook",
        budget: float | int | None = None,
    ) -> None:
        self.alpha = alpha
        self.test = test
        self.max_cond_size = max_cond_size
        self.variant = variant
        self.budget = budget

    def _check_params(self) -> None:
        super()._check_params()
        check_choice("test", self.test, ("fisher-z", "g2", "chi2"))
        check_range("max_cond_size", self.max_cond_size, 0, 64, integer=True)

    def _init_state(self) -> None:
        self.selected_: list[int] = []
        self._tester: FisherZTester | G2Tester
        if self.test == "fisher-z":
            self._tester = FisherZTester(self.y_, self.alpha)
        else:
            self._tester = G2Tester(self.y_, self.alpha, rule=self.variant, statistic=self.test)

    def _marginal(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.test == "fisher-z":
            return super()._marginal(X)
        assert isinstance(self._tester, G2Tester)
        return mutual_info_many(self.y_, X), self._tester.relevant(X)

    def _process(self, X: np.ndarray, start: int) -> None:
        score, dep = self._marginal(X)
        self._record_relevance(score)
        candidates = np.flatnonzero(dep & ~self._lofs_skip(X))
        for t in candidates:
            self._newcomer(int(start + t), X[:, t])

    def _independent(self, key: int, pool: list[int], require: int | None = None) -> bool:
        return self._tester.separating_set(key, pool, self.max_cond_size, require) is not None

    def _newcomer(self, j: int, x: np.ndarray) -> None:
        tester = self._tester
        tester.add(j, x)
        if self._fast:
            if self._independent(j, self.selected_):
                tester.discard(j)
                return
            self.selected_.append(j)
            members = self.selected_[:-1]
        else:
            self.selected_.append(j)
            members = list(self.selected_)  # oldest first, the newcomer last
        for member in members:
            if member not in self.selected_:
                continue
            pool = [f for f in self.selected_ if f != member]
            # An older member survived every set without the newcomer when it was last
            # checked (the data do not change and the pool only lost members since), so
            # only the sets that contain the newcomer can change its verdict: OSFS gives
            # the same selection as re-testing every set (tests/selection/test_selectors.py checks).
            require = None if member == j else j
            if self._independent(member, pool, require):
                self.selected_.remove(member)
                tester.discard(member)

    def _selected(self) -> list[int]:
        return self.selected_


class FastOSFS(OSFS):
    """Fast-OSFS (Wu et al. 2013): OSFS with a cheaper redundancy analysis.

    A relevant newcomer is first tested against the conditioning sets drawn
    from the whole current set (discarded if any gives independence); if
    kept, it is appended and each older member is re-checked only with the
    conditioning sets that contain the newcomer. Parameters, set order and
    ``variant`` as :class:`OSFS`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 12))
    >>> X[:, 5] = X[:, 0] + 0.05 * rng.normal(size=400)
    >>> y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    >>> print(FastOSFS().fit(X, y).get_support(indices=True))  # 5 is redundant given 0
    [0 3]

    References
    ----------
    Wu X., Yu K., Ding W., Wang H., Zhu X. (2013). Online feature selection
    with streaming features. IEEE TPAMI 35(5): 1178-1192 (Algorithm 2).
    """

    _fast = True
