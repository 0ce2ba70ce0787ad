"""CEOFS and COFS: online feature selection on feature groups built from historical data."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from evofeat.selection._base import ColumnBuffer, StreamingSelector, check_choice, check_range
from evofeat.selection.citests import (
    correlations,
    encode,
    fisher_z_independent,
    mutual_info_codes,
    standardize,
)
from evofeat.selection.groups import ensemble_groups

__all__ = ["CEOFS", "COFS"]


class CEOFS(StreamingSelector):
    """Online feature selection by a feature clustering ensemble (CEOFS).

    ``fit(X_historical, y)`` builds feature groups on the historical columns
    (:func:`evofeat.selection.groups.ensemble_groups`: ``n_runs`` bootstrap
    samples of the rows, k-means over features with correlation, the
    co-association matrix, average linkage cut at ``theta``); each group's
    representative is its member most relevant to the label. Each arriving
    column (``add_feature``) joins the group whose representative it is most
    related to, if that relation exceeds ``theta2``, and otherwise starts a
    new group; its group's representative is updated. The selection is the
    set of representatives whose relevance to the label is significant at
    ``alpha`` and not below ``theta3`` (groups failing it are dropped; the
    check is made when the selection is read, which is the paper's step 3
    when read after the last column).

    Relation and relevance: with ``test="fisher-z"`` (continuous data) the
    absolute Pearson correlation, counted only when Fisher's z-test finds it
    significant at ``alpha`` (0 otherwise); with ``test="mi"`` (discrete data)
    the mutual information in bits, counted only when the G^2 test
    (``G = 2 n ln 2 I``) finds it significant. Ties go to the older
    representative and to the lower group number.

    Parameters
    ----------
    n_runs
        Size of the clustering ensemble (the paper's m; "集成次數為10次");
        None: 10 (CEOFS), 1 (COFS).
    n_clusters
        k of the feature k-means; None: ``ceil(sqrt(d_historical))`` (the
        paper does not state k).
    theta
        Co-association threshold θ: two groups merge while their
        average-linkage similarity (fraction of runs together) exceeds it.
        Default 0.5: together in more than half the runs.
    theta2
        Relation threshold θ2 for an arriving feature to join a group
        (absolute correlation, or bits of mutual information); the paper's
        Figure 4 "correlation threshold". Default 0.5.
    theta3
        Relevance threshold θ3 below which a group is dropped. Default 0.0:
        only the significance test at ``alpha`` drops groups.
    alpha
        Level of Fisher's z-test / the G^2 test. Default 0.05.
    test
        ``"fisher-z"`` (continuous data) or ``"mi"`` (discrete data).
    bootstrap
        Draw each run's rows with replacement (the ensemble's bagging);
        None: True (CEOFS), False (COFS).
    max_iter
        Rounds of the feature k-means.
    absolute
        k-means similarity ``|r|`` instead of the paper's ``r``.
    budget
        None (default: no cap), a count, or a fraction of the features seen;
        keeps the most relevant of a larger selection.
    seed
        Seed of the bootstrap samples and the k-means starts.

    Attributes
    ----------
    group_of_ : ndarray of shape (n_features_seen,)
        Group of each feature seen.
    representatives_ : ndarray of shape (n_groups,)
        Representative (global index) of each group.
    relevance_ : ndarray of shape (n_features_seen,)
        Relevance of each feature to the label (0 where not significant).
    n_groups_historical_ : int
        Groups built from the historical block.
    n_iter_ : int
        Most rounds any k-means run of the ensemble took (at most
        ``max_iter``; 0 without historical columns).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(300, 4))
    >>> X = np.repeat(base, 5, axis=1) + 0.3 * rng.normal(size=(300, 20))
    >>> y = np.where(base[:, 0] - base[:, 2] > 0, 1, -1)
    >>> sel = CEOFS(n_clusters=4, seed=0).fit(X[:, :16], y)
    >>> for j in range(16, 20):
    ...     _ = sel.add_feature(X[:, j])
    >>> print(len(sel.representatives_), sorted(sel.group_of_[sel.get_support(indices=True)].tolist()))
    4 [0, 2]

    References
    ----------
    Du Z., Li Y. (2017). Online feature selection based on feature clustering
    ensemble technology. Journal of Computer Applications 37(3): 866-870,
    sections 2.2 (group construction) and 2.3 (Algorithm 1).
    """

    #: The fitted attributes a model file holds (evofeat.io): the groups, and the column state
    #: (relevance flags, the representatives' columns) that agrees with them.
    _state_spec = StreamingSelector._state_spec.extend(
        attrs={
            "n_iter_": "int",
            "group_of_": "array:i:1",
            "representatives_": "array:i:1",
            "n_groups_historical_": "int",
            "_dependent": "array:b:1",
            "_reps": "columns",
            "_rep_levels": "ints",
            "_started": "bool",
        },
        consistent=lambda s: (
            f"{s._dependent.size} relevance flags for {s.n_features_in_} features"
            if not s._dependent.size == s.n_features_in_ == s.group_of_.size
            else f"{s._reps.size} representative columns for {len(s._rep_levels)} groups"
            if s._reps.size != len(s._rep_levels)
            else ""
        ),
    )

    def __init__(
        self,
        n_runs: int | None = None,
        n_clusters: int | None = None,
        theta: float = 0.5,
        theta2: float = 0.5,
        theta3: float = 0.0,
        alpha: float = 0.05,
        test: str = "fisher-z",
        bootstrap: bool | None = None,
        max_iter: int = 20,
        absolute: bool = False,
        budget: float | int | None = None,
        seed: int | None = 0,
    ) -> None:
        self.n_runs = n_runs
        self.n_clusters = n_clusters
        self.theta = theta
        self.theta2 = theta2
        self.theta3 = theta3
        self.alpha = alpha
        self.test = test
        self.bootstrap = bootstrap
        self.max_iter = max_iter
        self.absolute = absolute
        self.budget = budget
        self.seed = seed

    #: ``n_runs`` and ``bootstrap`` when they are None.
    _default_runs, _default_bootstrap = 10, True

    def _check_params(self) -> None:
        super()._check_params()
        if self.n_runs is not None:
            check_range("n_runs", self.n_runs, 1, 10_000, integer=True)
        if self.n_clusters is not None:
            check_range("n_clusters", self.n_clusters, 1, np.inf, integer=True)
        check_range("theta", self.theta, 0.0, 1.0)
        check_range("theta2", self.theta2, 0.0, np.inf)
        check_range("theta3", self.theta3, 0.0, np.inf)
        check_range("max_iter", self.max_iter, 1, 10_000, integer=True)
        check_choice("test", self.test, ("fisher-z", "mi"))

    # ------------------------------------------------------------------ state
    def _init_state(self) -> None:
        self.n_iter_ = 0
        self.group_of_ = np.zeros(0, dtype=np.int64)
        self.representatives_ = np.zeros(0, dtype=np.int64)
        self.n_groups_historical_ = 0
        self._dependent = np.zeros(0, dtype=bool)
        dtype = np.float64 if self.test == "fisher-z" else np.int64
        self._reps = ColumnBuffer(self.n_rows_, dtype)  # standardized columns, or codes
        self._rep_levels: list[int] = []
        self._started = False

    def _prepare(self, X: np.ndarray) -> np.ndarray:
        """Columns as the relation measure uses them: standardized (NaN -> 0) or codes."""
        if self.test == "fisher-z":
            return np.nan_to_num(standardize(X))
        return np.column_stack([encode(X[:, j])[0] for j in range(X.shape[1])])

    def _process(self, X: np.ndarray, start: int) -> None:
        score, dep = self._marginal(X)
        score = np.where(dep, score, 0.0)
        self._record_relevance(score)
        self._dependent = np.concatenate([self._dependent, dep])
        if not self._started:  # the historical block
            self._started = True
            self._build_groups(X, score)
            return
        P = self._prepare(X)
        for t in range(X.shape[1]):
            self._add_one(start + t, P[:, t])

    def _build_groups(self, X: np.ndarray, score: np.ndarray) -> None:
        rng = np.random.default_rng(self.seed)
        rounds: list[int] = []
        groups = ensemble_groups(
            X,
            n_runs=self._default_runs if self.n_runs is None else self.n_runs,
            n_clusters=self.n_clusters,
            theta=self.theta,
            bootstrap=self._default_bootstrap if self.bootstrap is None else bool(self.bootstrap),
            max_iter=self.max_iter,
            absolute=self.absolute,
            rng=rng,
            n_iter=rounds,
        )
        self.n_iter_ = max(rounds, default=0)
        n_groups = int(groups.max()) + 1 if groups.size else 0
        ar = np.arange(groups.size)
        order = np.lexsort((ar, -score, groups))  # by group, most relevant first, lowest index
        first = (
            np.flatnonzero(np.r_[True, groups[order][1:] != groups[order][:-1]])
            if groups.size
            else ar
        )
        reps = order[first]
        self.group_of_ = groups
        self.representatives_ = reps.astype(np.int64)
        self.n_groups_historical_ = n_groups
        P = self._prepare(X[:, reps])
        for g in range(n_groups):
            self._reps.append(P[:, g])
            self._rep_levels.append(int(P[:, g].max()) + 1 if self.test == "mi" else 0)

    def _relations(self, p: np.ndarray) -> np.ndarray:
        """Relation of a prepared column with every representative (0 where not significant)."""
        R = self._reps.view
        if R.shape[1] == 0:
            return np.zeros(0)
        n = self.n_rows_
        if self.test == "fisher-z":
            r = correlations(R, p)
            return np.where(fisher_z_independent(r, n, 0, self.alpha), 0.0, np.abs(r))
        lp = int(p.max()) + 1
        mi = mutual_info_codes(p, lp, R)
        dof = (lp - 1) * (np.asarray(self._rep_levels) - 1)
        G = 2.0 * n * math.log(2.0) * mi
        pval = np.where(dof > 0, stats.chi2.sf(G, np.maximum(dof, 1)), 1.0)
        return np.where(pval <= self.alpha, mi, 0.0)

    def _add_one(self, j: int, p: np.ndarray) -> None:
        rel = self._relations(p)
        best = int(np.argmax(rel)) if rel.size else -1
        if best >= 0 and rel[best] > self.theta2:
            g = best
            if self.relevance_[j] > self.relevance_[self.representatives_[g]]:
                self.representatives_[g] = j
                self._reps.set(g, p)
                if self.test == "mi":
                    self._rep_levels[g] = int(p.max()) + 1
        else:
            g = self.representatives_.size
            self.representatives_ = np.append(self.representatives_, j)
            self._reps.append(p)
            self._rep_levels.append(int(p.max()) + 1 if self.test == "mi" else 0)
        self.group_of_ = np.append(self.group_of_, g)

    def _selected(self) -> list[int]:
        reps = self.representatives_
        keep = self._dependent[reps] & (self.relevance_[reps] >= self.theta3)
        return sorted(reps[keep].tolist())


class COFS(CEOFS):
    """COFS: CEOFS without the ensemble (one k-means run on all historical rows).

    The paper's non-ensemble baseline: the groups are the clusters of a single
    feature k-means run (``n_runs`` and ``bootstrap`` default to 1 and False);
    the online phase is CEOFS's. Parameters as :class:`CEOFS`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(300, 4))
    >>> X = np.repeat(base, 5, axis=1) + 0.3 * rng.normal(size=(300, 20))
    >>> y = np.where(base[:, 0] - base[:, 2] > 0, 1, -1)
    >>> sel = COFS(n_clusters=4, seed=0).fit(X, y)
    >>> print(sel.n_groups_historical_, len(sel.get_support(indices=True)))
    4 2
    """

    _default_runs, _default_bootstrap = 1, False
