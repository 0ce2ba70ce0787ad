"""OPID's compressing stage: one-pass least squares with a consistency term (Eq. 2).

The C-stage learns two linear models at once, ``W~`` on all C-stage features
``[X_v, X_s]`` and ``W_s`` on the survived features ``X_s`` only, tied by a
consistency term::

    min  sum_i ||X~_i W~ - Y_i||^2 + ||X_s,i W_s - Y_i||^2
       + lambda ||X~_i W~ - X_s,i W_s||^2 + rho (||W~||^2 + ||W_s||^2)     (Eq. 2)

Its solution solves ``A [W~; W_s] = B`` (Prop. 1, Eq. 5-6), and both ``A``
and ``B`` are sums over the mini-batches, so one pass suffices: either add
each batch to ``A`` and ``B`` (Eq. 9) and solve once at the end, or keep
``A^{-1}`` up to date through the Woodbury identity (Prop. 2, Eq. 11), which
inverts one ``3n x 3n`` matrix per batch of ``n`` rows. Either way the state is
one ``(d_v + 2 d_s)``-square matrix and one ``(d_v + 2 d_s) x c`` matrix,
whatever the number of rows; no batch is kept.

Note: at ``rho = 0``, ``W_s`` is the plain least-squares fit on ``X_s``
whatever ``lambda`` (the survived columns are columns of ``X~``, so the
consistency term only moves ``W~``); with ``rho > 0`` it moves ``W_s``
slightly.

The tests check both one-pass solvers against a plain batch solution
(``tests/reference/cstage.py``: all rows at once, as one stacked ridge problem).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
from scipy import linalg

from evofeat.base.errors import InputError
from evofeat.onepass._checks import check_labels, check_matrix, check_n_survived

__all__ = ["CStage"]

_SOLVERS = ("accumulate", "woodbury")


class CStage:
    """One-pass solver of OPID's C-stage problem (Eq. 2) over mini-batches.

    Parameters
    ----------
    n_survived
        ``d_s``: the survived features are the last ``n_survived`` columns of
        every C-stage batch (the first ``d_v`` columns are the vanished ones).
    consistency
        ``lambda`` of Eq. 2, the weight of the consistency term (> 0).
    l2
        ``rho`` of Eq. 2, the ridge on both models (> 0; it also makes ``A``
        invertible, ``A_[0] = rho I``).
    solver
        ``"accumulate"`` adds each batch to ``A`` and ``B`` (Eq. 9, the
        paper's Algorithm 1) and solves ``A W = B`` by Cholesky when asked;
        ``"woodbury"`` updates ``A^{-1}`` batch by batch (Prop. 2), so the
        solution is available at any time without a new factorisation.

    Attributes
    ----------
    classes_ : numpy.ndarray
        Sorted labels seen so far: the columns of the one-hot ``Y`` and of
        the solution (new labels may appear in any batch; earlier rows count
        as 0 in their column).
    n_rows_ : int
        Number of rows seen.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); y = (X[:, 3] > 0).astype(int)
    >>> cs = CStage(n_survived=3)
    >>> for start in range(0, 200, 50):
    ...     _ = cs.learn_many(X[start:start + 50], y[start:start + 50])
    >>> W_all, W_s = cs.solve()
    >>> W_all.shape, W_s.shape
    ((5, 2), (3, 2))
    >>> print(f"{np.mean((X[:, 2:] @ W_s).argmax(1) == y):.2f}")
    0.98

    References
    ----------
    Hou and Zhou, "One-Pass Learning with Incremental and Decremental
    Features", Eq. 2, Prop. 1 (Eq. 5-6), Eq. 9-10, Prop. 2 (Eq. 11-14).
    """

    def __init__(
        self, n_survived: int, consistency: float = 1.0, l2: float = 1.0, solver: str = "accumulate"
    ) -> None:
        self.n_survived = n_survived
        self.consistency = consistency
        self.l2 = l2
        self.solver = solver
        self._reset()

    def _reset(self) -> None:
        check_n_survived(self.n_survived, "CStage")
        for name in ("consistency", "l2"):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise InputError(f"bad {name}", expected="a finite float > 0", received=repr(value))
        if self.solver not in _SOLVERS:
            raise InputError(
                "bad solver", expected=" or ".join(_SOLVERS), received=repr(self.solver)
            )
        self._labels: list[Hashable] = []  # in order of first appearance: the columns of B
        self.n_rows_ = 0
        self._n_all: int | None = None  # d_v + d_s, fixed by the first batch
        self._A: np.ndarray | None = None  # A (accumulate) or A^{-1} (woodbury)
        self._B: np.ndarray | None = None

    # ------------------------------------------------------------------ learning
    def _one_hot(self, y: np.ndarray) -> np.ndarray:
        col = {c: j for j, c in enumerate(self._labels)}
        for label in y.tolist():
            if label not in col:
                col[label] = len(self._labels)
                self._labels.append(label)
        Y = np.zeros((y.shape[0], len(self._labels)))
        Y[np.arange(y.shape[0]), [col[v] for v in y.tolist()]] = 1.0
        return Y

    def _start(self, n_all: int) -> None:
        if n_all < self.n_survived:  # equal: no feature vanished (fit(X, y) without a C-stage)
            raise InputError(
                "C-stage batch too narrow",
                expected=f"at least n_survived={self.n_survived} columns ([vanished, survived])",
                received=f"{n_all} columns",
                fix="pass the vanished columns first, then the survived ones",
            )
        self._n_all = n_all
        D = n_all + self.n_survived
        self._A = np.eye(D) * (1.0 / self.l2 if self.solver == "woodbury" else self.l2)
        self._B = np.zeros((D, 0))

    def learn_many(self, X: np.ndarray, y: np.ndarray) -> CStage:
        """Fold one mini-batch ``X = [X_v, X_s]``, labels ``y``, into the state (Eq. 9 or 11)."""
        X = check_matrix(
            X, "C-stage X", self._n_all, " ([vanished, survived], as in the first batch)"
        )
        y = check_labels(y, X.shape[0], "C-stage y", min_classes=1)
        if self._n_all is None:
            self._start(X.shape[1])
        Y = self._one_hot(y)
        assert self._A is not None and self._B is not None and self._n_all is not None
        n_all: int = self._n_all
        Xs = X[:, n_all - self.n_survived :]
        XU = np.hstack([X, Xs])  # rows of [X~, X_s]
        if self._B.shape[1] < Y.shape[1]:
            self._B = np.hstack(
                [self._B, np.zeros((self._B.shape[0], Y.shape[1] - self._B.shape[1]))]
            )
        self._B += XU.T @ Y
        if self.solver == "accumulate":
            self._A += _increment(XU, n_all, self.consistency)
        else:
            self._A = _woodbury(self._A, X, Xs, self.consistency)
        self.n_rows_ += X.shape[0]
        return self

    # ------------------------------------------------------------------ solution
    @property
    def classes_(self) -> np.ndarray:
        return np.sort(np.asarray(self._labels))

    def solve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W~, W_s)`` of Eq. 5 for the rows seen so far (columns: :attr:`classes_`)."""
        if self._A is None or self._B is None:
            raise InputError(
                "the C-stage has no data",
                expected="at least one learn_many call",
                received="none",
                fix="feed the C-stage batches first",
            )
        if self.solver == "accumulate":
            W = linalg.cho_solve(linalg.cho_factor(self._A), self._B)
        else:
            W = self._A @ self._B
        W = W[:, np.argsort(np.asarray(self._labels))]
        assert self._n_all is not None
        return W[: self._n_all], W[self._n_all :]

    @property
    def state_nbytes(self) -> int:
        """Bytes held by the state (``A`` or ``A^{-1}``, and ``B``): independent of the rows."""
        return sum(a.nbytes for a in (self._A, self._B) if a is not None)


def _increment(XU: np.ndarray, n_all: int, lam: float) -> np.ndarray:
    """The matrix added to ``A`` by one batch (Eq. 9), from the rows of ``[X~, X_s]``."""
    G = XU.T @ XU
    G[:n_all, :n_all] *= 1.0 + lam
    G[n_all:, n_all:] *= 1.0 + lam
    G[:n_all, n_all:] *= -lam
    G[n_all:, :n_all] *= -lam
    return G


def _woodbury(Ainv: np.ndarray, X: np.ndarray, Xs: np.ndarray, lam: float) -> np.ndarray:
    """``(A + U U^T)^{-1}`` from ``A^{-1}`` with ``U = [U_1, U_2, U_3]`` of Prop. 2 (Eq. 11)."""
    n, n_all = X.shape
    D = Ainv.shape[0]
    U = np.zeros((D, 3 * n))
    U[:n_all, :n] = X.T
    U[n_all:, n : 2 * n] = Xs.T
    U[:n_all, 2 * n :] = np.sqrt(lam) * X.T
    U[n_all:, 2 * n :] = -np.sqrt(lam) * Xs.T
    AU = Ainv @ U
    M = np.eye(3 * n) + U.T @ AU
    out = Ainv - AU @ linalg.cho_solve(linalg.cho_factor(M), AU.T)
    out += out.T  # keep it exactly symmetric against round-off
    out *= 0.5
    return out
