"""OPID and OPIDe: one-pass learning with incremental and decremental features.

Both learn in two stages. C-stage: a stream of mini-batches over the
vanished and survived features ``[X_v, X_s]`` is read once by
:class:`~evofeat.onepass.cstage.CStage` (Eq. 2, Prop. 1-2), which keeps the
survived-feature model ``W_s*``. E-stage: one batch over the survived and
augmented features ``[X_s, X_a]``; ``Z = X_s W_s*`` replaces ``X_s`` (a
stacking representation), and

- :class:`OPIDe` trains two L2 logistic regressions, on ``Z`` and on ``[Z,
  X_a]``, and mixes their class probabilities with weights chosen by
  cross-validation (Eq. 3-4);
- :class:`OPID` solves the joint problem of Eq. 16-17 (alternating Prop. 3
  and Prop. 4), with the linear map by default or an RBF kernel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils.validation import check_is_fitted

from evofeat.base.errors import InputError
from evofeat.base.state import StateSpec
from evofeat.onepass._checks import check_n_survived, resolve_survived, validate_X, validate_y
from evofeat.onepass.baselines import DEFAULT_CS, folds, tuned_logistic
from evofeat.onepass.cstage import CStage
from evofeat.onepass.estage import JointFit, best_weight, joint_dual, joint_primal

__all__ = ["OPID", "OPIDe"]

#: Default grid of OPIDe's weight w_1 searched by cross-validation.
DEFAULT_WEIGHTS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(11))
#: Default grid of OPID's gamma (Eq. 16) searched by cross-validation.
DEFAULT_GAMMAS: tuple[float, ...] = (1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3, 1e4)


class _OnePass(ClassifierMixin, BaseEstimator):
    """The two-stage frame shared by OPID and OPIDe; subclasses write the E-stage."""

    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = StateSpec(
        attrs={
            "n_features_in_": "int",
            "n_survived_": "int",
            "classes_": "array:biufU:1",
            "cstage_classes_": "array:biufU:1",
            "cstage_rows_": "int",
            "coef_cstage_": "array:f:2",
        },
        consistent=lambda m: (
            ""
            if m.coef_cstage_.shape[0] == m.n_survived_ <= m.n_features_in_
            else f"W_s* of {m.coef_cstage_.shape[0]} rows for {m.n_survived_} survived features"
        ),
    )

    n_survived: int | None
    consistency: float
    l2: float
    solver: str

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified: the one-pass solvers work on dense blocks
        return tags

    def fit(self, X: Any, y: Any, cstage: Iterable[tuple[Any, Any]] | None = None) -> Any:
        """Read the C-stage stream once, then fit the E-stage batch ``X = [X_s, X_a]``.

        Parameters
        ----------
        X, y
            The E-stage training batch: the ``n_survived`` survived columns
            first, then the augmented ones.
        cstage
            An iterable of C-stage mini-batches ``(X_i, y_i)``, ``X_i =
            [X_v, X_s]`` (vanished columns first, the ``n_survived`` survived
            ones last), or the :class:`~evofeat.streams.incdec.IncDec`
            scenario itself (its ``batches``). It is read once and no batch
            is kept. Without it (``fit(X, y)``, as scikit-learn's
            ``cross_val_score`` calls it) no feature vanished: the C-stage
            is the survived columns of ``X`` itself, read as one batch
            (``n_survived`` of them, by default all, so no column is
            augmented).
        """
        name = type(self).__name__
        own = cstage is None  # no feature vanished: the C-stage is the survived columns of X
        if not own:
            d_s, cstage = resolve_survived(self, X, cstage)
        # check the E-stage batch first: a one-pass stream cannot be read again after an error
        X = validate_X(self, X, reset=True)
        if own:
            d_s = X.shape[1] if self.n_survived is None else check_n_survived(self.n_survived, name)
        if X.shape[1] < d_s:
            raise InputError(
                "bad X",
                expected=f"at least n_survived={d_s} columns ([survived, augmented])",
                received=f"n_features = {X.shape[1]}",
            )
        y = validate_y(y, X.shape[0], name)
        if own:
            cstage = [(X[:, :d_s], y)]
        assert cstage is not None
        solver = CStage(d_s, consistency=self.consistency, l2=self.l2, solver=self.solver)
        for Xi, yi in cstage:
            solver.learn_many(Xi, yi)
        if solver.n_rows_ == 0:
            raise InputError("empty C-stage stream", expected="at least one batch", received="none")
        if len(solver.classes_) < 2:
            raise InputError(
                "the C-stage stream has one class only",
                expected="at least 2 classes",
                received=f"{solver.classes_.tolist()}",
                fix="give a stream with several classes",
            )
        self.n_survived_ = d_s
        self.cstage_classes_ = solver.classes_
        self.cstage_rows_ = solver.n_rows_
        self.coef_cstage_ = solver.solve()[1]  # W_s*, d_s x c
        self.classes_ = np.unique(y)
        self._fit_estage(*self._stack(X), np.searchsorted(self.classes_, y))
        return self

    def _stack(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d_s = self.coef_cstage_.shape[0]
        return X[:, :d_s] @ self.coef_cstage_, X[:, d_s:]

    def _fit_estage(self, Z: np.ndarray, Xa: np.ndarray, codes: np.ndarray) -> None:
        raise NotImplementedError

    def _scores(self, Z: np.ndarray, Xa: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _check_X(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        return validate_X(self, X, reset=False, layout=" ([survived, augmented], as in fit)")

    def predict(self, X: Any) -> np.ndarray:
        """Labels of the E-stage test rows ``X = [X_s, X_a]`` (Algorithm 1, steps 7-8)."""
        scores = self._scores(*self._stack(self._check_X(X)))
        out: np.ndarray = self.classes_[scores.argmax(1)]
        return out


class OPIDe(_OnePass):
    """OPIDe: OPID's C-stage, then an ensemble of two logistic regressions (Eq. 3-4).

    Parameters
    ----------
    n_survived
        ``d_s``: the first ``n_survived`` columns of the E-stage ``X`` and the
        last ``n_survived`` of every C-stage batch are the survived features.
        ``None`` (default): read from the data where they say it (an
        ``IncDec`` scenario as ``cstage``, or the column names that the
        E-stage and C-stage DataFrames share); otherwise ``fit`` says to
        pass it.
    consistency
        ``lambda`` of Eq. 2 (default 1, not stated in the paper).
    l2
        ``rho`` of Eq. 2, the ridge of the C-stage (default 1, not stated).
    solver
        C-stage solver: ``"accumulate"`` (Eq. 9, Algorithm 1) or ``"woodbury"``
        (Prop. 2); both give the same ``W_s*``.
    Cs
        Grid of LIBLINEAR's ``C`` (``alpha_1``, ``alpha_2`` of Eq. 4), each
        picked by ``cv``-fold cross-validation (default ``10^-2 .. 10^2``).
    weights
        Grid of ``w_1`` (``w_2 = 1 - w_1``) searched by ``cv``-fold
        cross-validation on the out-of-fold probabilities of the two tuned
        models, same folds (default 0, 0.1, ..., 1; ties go to the value
        nearest 1/2).
    cv
        Number of folds (fewer if a class has fewer rows than ``cv``).
    seed
        Seed of the fold shuffling and of LIBLINEAR (default 0, so that a fit
        is repeatable; ``None`` draws a new shuffle each fit).

    Attributes
    ----------
    coef_cstage_ : numpy.ndarray
        ``W_s*`` (``d_s x c``), the C-stage model on the survived features.
    model_s_, model_bar_ : LogisticRegression or OneVsRestClassifier
        The logistic regressions on ``Z`` and on ``[Z, X_a]``.
    weights_ : tuple of float
        ``(w_1, w_2)``.
    classes_ : numpy.ndarray
        Labels of the E-stage batch.
    n_features_in_ : int
        Columns of the E-stage ``X`` (``feature_names_in_`` too, for a DataFrame).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams.incdec import incdec
    >>> data = load("splice", preprocess="minmax")
    >>> sc = incdec(data.X, data.y, d_v=10, d_s=40, d_a=10, batch_size=40, n_cstage=2240,
    ...             n_estage=40, seed=0)
    >>> model = OPIDe(n_survived=sc.d_s, seed=0).fit(sc.X_train, sc.y_train, cstage=sc.batches)
    >>> print(f"{model.score(sc.X_test, sc.y_test):.3f}")
    0.900

    References
    ----------
    Hou and Zhou, "One-Pass Learning with Incremental and Decremental
    Features", Eq. 2-4, Prop. 1-2, Section 4 ("OPIDe").
    """

    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = _OnePass._state_spec.extend(
        attrs={"model_s_": "logistic", "model_bar_": "logistic", "weights_": "floats2"},
        nonnegative=("weights_",),
    )

    def __init__(
        self,
        n_survived: int | None = None,
        consistency: float = 1.0,
        l2: float = 1.0,
        solver: str = "accumulate",
        Cs: Sequence[float] = DEFAULT_CS,
        weights: Sequence[float] = DEFAULT_WEIGHTS,
        cv: int = 5,
        seed: int | None = 0,
    ) -> None:
        self.n_survived = n_survived
        self.consistency = consistency
        self.l2 = l2
        self.solver = solver
        self.Cs = Cs
        self.weights = weights
        self.cv = cv
        self.seed = seed

    def _fit_estage(self, Z: np.ndarray, Xa: np.ndarray, codes: np.ndarray) -> None:
        Zbar = np.hstack([Z, Xa])
        self.model_s_, P_s = tuned_logistic(Z, codes, self.Cs, self.cv, self.seed)
        self.model_bar_, P_bar = tuned_logistic(Zbar, codes, self.Cs, self.cv, self.seed)
        w1 = best_weight(P_s, P_bar, codes, self.weights)
        self.weights_ = (w1, 1.0 - w1)

    def _scores(self, Z: np.ndarray, Xa: np.ndarray) -> np.ndarray:
        w1, w2 = self.weights_
        out: np.ndarray = w1 * self.model_s_.predict_proba(Z) + w2 * self.model_bar_.predict_proba(
            np.hstack([Z, Xa])
        )
        return out

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities ``w_1 P(y | Z) + w_2 P(y | [Z, X_a])`` (columns: ``classes_``)."""
        return self._scores(*self._stack(self._check_X(X)))


class OPID(_OnePass):
    """OPID: OPID's C-stage, then the joint E-stage problem of Eq. 16-17 (Algorithm 1).

    Parameters
    ----------
    n_survived
        ``d_s``: the first ``n_survived`` columns of the E-stage ``X`` and the
        last ``n_survived`` of every C-stage batch are the survived features.
        ``None`` (default): read from the data where they say it (an
        ``IncDec`` scenario as ``cstage``, or the column names that the
        E-stage and C-stage DataFrames share); otherwise ``fit`` says to
        pass it.
    consistency
        ``lambda`` of Eq. 2 (default 1, not stated in the paper).
    l2
        ``rho`` of Eq. 2, the ridge of the C-stage (default 1, not stated).
    solver
        C-stage solver: ``"accumulate"`` (Eq. 9, Algorithm 1) or ``"woodbury"``
        (Prop. 2); both give the same ``W_s*``.
    estage_l2
        ``gamma`` of Eq. 16, the E-stage regularisation: a float fixes it; a
        sequence is a grid searched by ``cv``-fold cross-validation accuracy
        on the E-stage batch (default ``10^-2 .. 10^4``; ties go to the larger
        value). The paper does not state gamma; it tunes its other
        parameters by five-fold cross-validation.
    kernel
        ``"linear"``: ``Phi(x) = x``, solved in the primal (Prop. 4), as in the
        paper's experiments; ``"rbf"``: Gaussian kernels on ``Z`` and on ``[Z,
        X_a]`` through the kernel trick (the E-stage rows are kept to predict).
    kernel_gamma
        Width of the RBF kernel; ``None`` uses ``1 / (n_columns * variance)``
        of each block (scikit-learn's ``"scale"``).
    max_iter, tol
        The alternation of Prop. 4 and Prop. 3 stops after ``max_iter`` rounds
        or when Eq. 17 decreases by less than ``tol`` (relative); the paper
        says "until converges". Note: with the linear map ``Z`` is in both
        blocks, so the exact optimum drives ``w_1`` to 0 (the ``[Z, X_a]``
        block is cheaper per unit norm); the alternation approaches it slowly.
    cv
        Folds of the search over ``estage_l2`` (fewer if a class has fewer rows).
    seed
        Seed of the fold shuffling (default 0, so that a fit is repeatable;
        ``None`` draws a new shuffle each fit).

    Attributes
    ----------
    coef_cstage_ : numpy.ndarray
        ``W_s*`` (``d_s x c``), the C-stage model on the survived features.
    estage_l2_ : float
        The gamma used (the one chosen by cross-validation, if searched).
    coef_ : numpy.ndarray
        ``[V_s; V_bar]`` (linear) or the dual coefficients (rbf).
    weights_ : tuple of float
        ``(w_1, w_2)`` of Prop. 3.
    objective_ : list of float
        Eq. 17 after each round (non-increasing).
    n_iter_ : int
        Rounds of the alternation (at most ``max_iter``).
    classes_ : numpy.ndarray
        Labels of the E-stage batch.
    n_features_in_ : int
        Columns of the E-stage ``X`` (``feature_names_in_`` too, for a DataFrame).

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams.incdec import incdec
    >>> data = load("splice", preprocess="minmax")
    >>> sc = incdec(data.X, data.y, d_v=10, d_s=40, d_a=10, batch_size=40, n_cstage=2240,
    ...             n_estage=40, seed=0)
    >>> model = OPID(n_survived=sc.d_s, seed=0).fit(sc.X_train, sc.y_train, cstage=sc.batches)
    >>> print(f"{model.score(sc.X_test, sc.y_test):.3f}")
    0.850

    References
    ----------
    Hou and Zhou, "One-Pass Learning with Incremental and Decremental
    Features", Eq. 2, 16-17, Prop. 1-4, Algorithm 1.
    """

    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = _OnePass._state_spec.extend(
        attrs={
            "estage_l2_": "float",
            "estage_": "joint",
            "coef_": "array:f:2",
            "weights_": "floats2",
            "objective_": "floats",
            "n_iter_": "int",
        },
        nonnegative=("weights_", "estage_l2_"),
        consistent=lambda m: (
            _OnePass._state_spec.consistent(m)  # type: ignore[misc]
            or (
                ""
                if np.array_equal(m.coef_, m.estage_.fit.coef)
                else "coef_ is not the E-stage solution it reports"
            )
        ),
    )

    def __init__(
        self,
        n_survived: int | None = None,
        consistency: float = 1.0,
        l2: float = 1.0,
        solver: str = "accumulate",
        estage_l2: float | Sequence[float] = DEFAULT_GAMMAS,
        kernel: str = "linear",
        kernel_gamma: float | None = None,
        max_iter: int = 100,
        tol: float = 1e-6,
        cv: int = 5,
        seed: int | None = 0,
    ) -> None:
        self.n_survived = n_survived
        self.consistency = consistency
        self.l2 = l2
        self.solver = solver
        self.estage_l2 = estage_l2
        self.kernel = kernel
        self.kernel_gamma = kernel_gamma
        self.max_iter = max_iter
        self.tol = tol
        self.cv = cv
        self.seed = seed

    def _grid(self) -> list[float]:
        raw = self.estage_l2
        try:
            grid = [float(raw)] if np.isscalar(raw) else [float(g) for g in raw]  # type: ignore[arg-type,union-attr]
        except (TypeError, ValueError):
            grid = []
        if not grid or not all(np.isfinite(g) and g > 0 for g in grid):
            raise InputError(
                "bad estage_l2",
                expected="a float > 0 or a non-empty grid of them",
                received=repr(self.estage_l2),
            )
        return sorted(grid)

    def _fit_estage(self, Z: np.ndarray, Xa: np.ndarray, codes: np.ndarray) -> None:
        if self.kernel not in ("linear", "rbf"):
            raise InputError("bad kernel", expected="'linear' or 'rbf'", received=repr(self.kernel))
        grid = self._grid()
        gamma = grid[0]
        if len(grid) > 1:
            split = list(folds(codes, self.cv, self.seed).split(Z, codes))
            acc = [
                np.mean(
                    [
                        np.mean(
                            self._joint(Z[tr], Xa[tr], codes[tr], g).scores(Z[te], Xa[te]).argmax(1)
                            == codes[te]
                        )
                        for tr, te in split
                    ]
                )
                for g in grid
            ]
            gamma = grid[int(np.flatnonzero(np.isclose(acc, max(acc)))[-1])]
        self.estage_l2_ = gamma
        self.estage_ = self._joint(Z, Xa, codes, gamma)
        fit = self.estage_.fit
        self.coef_, self.weights_, self.objective_ = fit.coef, fit.w, fit.objective
        self.n_iter_ = len(fit.objective)

    def _joint(
        self, Z: np.ndarray, Xa: np.ndarray, codes: np.ndarray, gamma: float
    ) -> JointSolution:
        Y = np.eye(self.classes_.size)[codes]
        if self.kernel == "linear":
            return JointSolution(
                joint_primal(Z, Xa, Y, gamma, self.max_iter, self.tol), None, None, ()
            )
        Zbar = np.hstack([Z, Xa])
        widths = self._widths(Z, Zbar)
        Ks, Kbar = rbf_kernel(Z, gamma=widths[0]), rbf_kernel(Zbar, gamma=widths[1])
        fit = joint_dual(Ks, Kbar, Y, Z.shape[1], Xa.shape[1], gamma, self.max_iter, self.tol)
        return JointSolution(fit, Z, Zbar, widths)

    def _widths(self, Z: np.ndarray, Zbar: np.ndarray) -> tuple[float, float]:
        if self.kernel_gamma is not None:
            return float(self.kernel_gamma), float(self.kernel_gamma)
        return tuple(1.0 / (M.shape[1] * (M.var() or 1.0)) for M in (Z, Zbar))  # type: ignore[return-value]

    def _scores(self, Z: np.ndarray, Xa: np.ndarray) -> np.ndarray:
        return self.estage_.scores(Z, Xa)

    def decision_function(self, X: Any) -> np.ndarray:
        """The regression outputs ``Phi_s V_s + Phi_bar V_bar``, one column per class.

        With two classes, scikit-learn's convention: one value per row, the
        output of ``classes_[1]`` minus that of ``classes_[0]`` (positive
        where ``predict`` gives ``classes_[1]``).
        """
        scores = self._scores(*self._stack(self._check_X(X)))
        if scores.shape[1] == 2:
            out: np.ndarray = scores[:, 1] - scores[:, 0]
            return out
        return scores


@dataclass
class JointSolution:
    """A solved Eq. 17 and what predicting with it needs (the E-stage rows for a kernel).

    What a fitted :class:`OPID` keeps of its E-stage (and a model file saves):
    the linear form scores ``[Z, Z, Xa] @ coef``.

    >>> from evofeat.onepass.estage import JointFit
    >>> fit = JointFit(np.ones(3), (0.5, 0.5), (1.0, 1.0), [])
    >>> JointSolution(fit, None, None, ()).scores(np.array([[1.0]]), np.array([[2.0]]))
    array([4.])
    """

    fit: JointFit
    Z: np.ndarray | None
    Zbar: np.ndarray | None
    widths: tuple[float, ...]

    def scores(self, Z: np.ndarray, Xa: np.ndarray) -> np.ndarray:
        if self.Z is None or self.Zbar is None:
            out: np.ndarray = np.hstack([Z, Z, Xa]) @ self.fit.coef
            return out
        ks = rbf_kernel(Z, self.Z, gamma=self.widths[0])
        kbar = rbf_kernel(np.hstack([Z, Xa]), self.Zbar, gamma=self.widths[1])
        out = (self.fit.scale[0] * ks + self.fit.scale[1] * kbar) @ self.fit.coef
        return out
