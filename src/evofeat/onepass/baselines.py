"""The OPID paper's baselines: L2 logistic regression on the E-stage batch only.

The paper calls them SVM, SVM^(s) and SVM^(a), but they are LIBLINEAR's
L2-regularised logistic regression (Section 4), with ``C`` chosen by
five-fold cross-validation and one-vs-rest for more than two classes. They
never see the C-stage: ``SVM`` uses the survived and augmented columns,
``SVMs`` the survived ones, ``SVMa`` the augmented ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.utils.validation import check_is_fitted

from evofeat.base.errors import InputError
from evofeat.base.state import StateSpec
from evofeat.onepass._checks import resolve_survived, validate_X, validate_y

__all__ = ["SVM", "SVMa", "SVMs", "folds", "tuned_logistic"]

#: Default grid of LIBLINEAR's C searched by cross-validation (10^-2 .. 10^2).
DEFAULT_CS: tuple[float, ...] = (1e-2, 1e-1, 1.0, 1e1, 1e2)


def folds(y: np.ndarray, cv: int, seed: int | None) -> StratifiedKFold:
    """Shuffled stratified ``cv``-fold split, with fewer folds if a class has fewer rows.

    >>> folds(np.array([0, 0, 0, 1, 1, 1]), cv=5, seed=0).n_splits
    3
    """
    smallest = int(np.unique(y, return_counts=True)[1].min())
    return StratifiedKFold(n_splits=max(2, min(cv, smallest)), shuffle=True, random_state=seed)


def tuned_logistic(
    X: np.ndarray, y: np.ndarray, Cs: Sequence[float], cv: int, seed: int | None
) -> tuple[LogisticRegression | OneVsRestClassifier, np.ndarray]:
    """LIBLINEAR L2 logistic regression, ``C`` picked by ``cv``-fold accuracy.

    Binary: one logistic regression; more classes: one-vs-rest (LIBLINEAR's
    own multiclass scheme, which scikit-learn now asks to spell out). Returns
    the model refitted on all rows with the best ``C`` (the first of the
    best, as GridSearchCV) and the out-of-fold class probabilities of that
    ``C`` (rows of ``X``, columns of ``np.unique(y)``), which OPIDe uses to
    choose its mixing weight without refitting.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
    >>> model, oof = tuned_logistic(X, y, Cs=(0.1, 1.0), cv=5, seed=0)
    >>> print(f"{model.score(X, y):.2f}", oof.shape)
    0.98 (60, 2)
    """
    classes = np.unique(y)

    def model(C: float) -> LogisticRegression | OneVsRestClassifier:
        lr = LogisticRegression(solver="liblinear", C=float(C), random_state=seed)
        return lr if classes.size == 2 else OneVsRestClassifier(lr)

    oof = np.zeros((len(Cs), X.shape[0], classes.size))
    correct = np.zeros(len(Cs))
    # inputs are checked once by the caller: skip scikit-learn's per-fit re-validation
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for train, test in folds(y, cv, seed).split(X, y):
            for k, C in enumerate(Cs):
                fitted = model(C).fit(X[train], y[train])
                cols = np.searchsorted(classes, fitted.classes_)
                oof[k][np.ix_(test, cols)] = fitted.predict_proba(X[test])
                correct[k] += np.mean(fitted.classes_[oof[k][test][:, cols].argmax(1)] == y[test])
        best = int(np.argmax(correct))
        return model(Cs[best]).fit(X, y), oof[best]


class _LogisticBaseline(ClassifierMixin, BaseEstimator):
    """L2 logistic regression on some columns of the E-stage batch."""

    #: Which E-stage columns: "all", "survived" or "augmented".
    columns: ClassVar[str] = "all"
    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = StateSpec(
        attrs={"n_features_in_": "int", "classes_": "array:biufU:1", "model_": "logistic"}
    )

    def __init__(
        self,
        n_survived: int | None = None,
        Cs: Sequence[float] = DEFAULT_CS,
        cv: int = 5,
        seed: int | None = 0,
    ) -> None:
        self.n_survived = n_survived
        self.Cs = Cs
        self.cv = cv
        self.seed = seed

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified, as for OPID
        return tags

    def _select(self, X: np.ndarray) -> np.ndarray:
        if self.columns == "all":
            return X
        d_s = self.n_survived_
        if X.shape[1] < d_s or (X.shape[1] == d_s and self.columns == "augmented"):
            more = "more than" if self.columns == "augmented" else "at least"
            raise InputError(
                "too few columns" if X.shape[1] < d_s else "no augmented columns",
                expected=f"{more} n_survived={d_s} columns",
                received=f"n_features = {X.shape[1]}",
                fix="pass X = [survived, augmented]",
            )
        return X[:, :d_s] if self.columns == "survived" else X[:, d_s:]

    def fit(self, X: Any, y: Any, cstage: Iterable[tuple[Any, Any]] | None = None) -> Any:
        """Fit on the E-stage batch ``X = [X_s, X_a]``; ``cstage`` is not read.

        ``SVMs`` and ``SVMa`` need ``n_survived``; when it is ``None`` it is
        taken from an ``IncDec`` scenario passed as ``cstage`` or from the
        column names shared with the first C-stage batch (only its names are
        looked at), as for :class:`~evofeat.onepass.OPID`.
        """
        if self.columns != "all":
            self.n_survived_, _ = resolve_survived(self, X, cstage)
        X = validate_X(self, X, reset=True)
        y = validate_y(y, X.shape[0], type(self).__name__)
        self.model_ = tuned_logistic(self._select(X), y, self.Cs, self.cv, self.seed)[0]
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Labels of the E-stage test rows ``X = [X_s, X_a]``."""
        check_is_fitted(self)
        X = validate_X(self, X, reset=False, layout=" (as in fit)")
        out: np.ndarray = self.model_.predict(self._select(X))
        return out


class SVM(_LogisticBaseline):
    """The paper's "SVM": L2 logistic regression on ``[X_s, X_a]`` of the E-stage batch.

    Parameters
    ----------
    n_survived
        Number of survived features (the first columns of ``X``); unused by
        ``SVM`` itself, kept so that every OPID-paper learner takes it.
    Cs
        Grid of LIBLINEAR's ``C`` searched by ``cv``-fold cross-validation
        (default ``10^-2 .. 10^2``; the paper says only "tuned by five-fold
        cross validation").
    cv
        Number of folds (fewer if a class has fewer rows than ``cv``).
    seed
        Seed of the fold shuffling and of LIBLINEAR (default 0, so that a fit
        is repeatable: scikit-learn's ``check_fit_idempotent``; ``None`` draws
        a new shuffle each fit).

    Attributes
    ----------
    model_ : LogisticRegression or OneVsRestClassifier
        The refitted logistic regression (one-vs-rest for more than two classes).
    classes_ : numpy.ndarray
        Labels seen in fit.
    n_features_in_ : int
        Columns of ``X`` seen in fit (``feature_names_in_`` too, for a DataFrame).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SVM(seed=0).fit(X[::2], y[::2])
    >>> print(f"{model.score(X[1::2], y[1::2]):.3f}")
    0.960

    References
    ----------
    Hou and Zhou, "One-Pass Learning with Incremental and Decremental
    Features", Section 4 (baselines SVM, SVM^(s), SVM^(a)).
    """

    columns = "all"


class SVMs(_LogisticBaseline):
    """The paper's "SVM^(s)": L2 logistic regression on the survived columns ``X_s`` only.

    Parameters and attributes as :class:`SVM`; ``n_survived`` is required.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SVMs(n_survived=2, seed=0).fit(X[::2], y[::2])
    >>> print(f"{model.score(X[1::2], y[1::2]):.3f}")
    0.813
    """

    columns = "survived"
    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = _LogisticBaseline._state_spec.extend(attrs={"n_survived_": "int"})


class SVMa(_LogisticBaseline):
    """The paper's "SVM^(a)": L2 logistic regression on the augmented columns ``X_a`` only.

    Parameters and attributes as :class:`SVM`; ``n_survived`` is required.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = SVMa(n_survived=2, seed=0).fit(X[::2], y[::2])
    >>> print(f"{model.score(X[1::2], y[1::2]):.3f}")
    0.947
    """

    columns = "augmented"
    #: The fitted attributes a model file holds (evofeat.io), with their kinds.
    _state_spec = _LogisticBaseline._state_spec.extend(attrs={"n_survived_": "int"})
