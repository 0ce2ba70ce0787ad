"""Named, explicit feature preprocessing: the ``PREPROCESSORS`` registry.

Every preprocessor takes a feature matrix and returns a new float64 one (the
input is never changed in place). Statistics are computed over all the rows
given, as the papers' offline scripts do: **they look ahead** (the first row
is scaled with statistics of the last), so a streaming evaluation that uses
them is told the future, which is why nothing is applied unless asked for by
name. NaN marks an absent value and stays NaN; statistics ignore it; no
preprocessor drops a row (rows holding a missing value are dropped, or not,
by the loader's ``missing`` policy, before any preprocessing).

Online preprocessing, learned from the rows seen so far only, is not applied
to the matrix but by the learner, in the order it sees the rows
(:data:`ONLINE_PREPROCESSORS`, :func:`split_online`):

``"online-zscore"``
    Running per-feature z-scores (River's ``StandardScaler`` rule): the
    learner ``L`` runs as ``"online-zscore+L"``
    (:class:`evofeat.preprocessing.OnlineScaled`).
``"online-quantile"``
    Running per-feature normal scores of the value's rank in a window of
    recent values (OVFM's marginal step): ``"online-quantile+L"``.
``"online-quantile-sketch"``
    The same normal scores from a bounded random sample of all the values seen
    so far, with the rank error stated in
    :class:`evofeat.preprocessing.OnlineScaled`: ``"online-quantile-sketch+L"``.

Built in:

``"none"``
    The matrix unchanged.
``"zscore"``
    Per column ``(x - mean) / std`` over the whole matrix (it looks ahead:
    ``"online-zscore"`` does not) with the **population** standard
    deviation (``ddof=0``, as scikit-learn's StandardScaler; MATLAB's
    ``zscore`` uses ``ddof=1``). Constant columns become 0; absent values
    (NaN) stay absent, and their rows are kept. Dense only.
``"unit-norm"``
    Each row scaled to unit L2 norm; zero rows stay zero; sparse stays sparse.
``"minmax"``
    Per column to ``[0, 1]``; constant columns become 0. Sparse input stays
    sparse when no stored value is negative (then every zero maps to 0).
``"stsd-original"``
    The STSD authors' preprocessing (:func:`stsd_original_preprocessing`):
    z-score each column with the sample std, z-score again, unit rows.

A comma-separated chain applies its steps left to right:
``"zscore,unit-norm"`` (the OFS paper's preprocessing) z-scores each column,
then scales each row to unit norm. ``"zscore+unit-norm"`` is the same chain
(the spelling of the OFS experiments' stored cells).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TypeAlias

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ONLINE_PREPROCESSORS",
    "PREPROCESSORS",
    "Preprocessor",
    "check_preprocess",
    "preprocess",
    "register_preprocessor",
    "split_online",
    "stsd_original_preprocessing",
]

Matrix: TypeAlias = np.ndarray | sp.csr_matrix
Preprocessor: TypeAlias = Callable[[Matrix], Matrix]


#: Sparse input whose dense form is at most this many bytes is densified by the
#: preprocessing that fills in zeros (z-score); the
#: values are the same, only the storage changes. Larger input raises instead.
DENSIFY_LIMIT_BYTES = 512 * 2**20


def _dense(X: Matrix, name: str, alternative: str) -> np.ndarray:
    if sp.issparse(X):
        n, d = X.shape
        if n * d * 8 <= DENSIFY_LIMIT_BYTES:
            return np.asarray(sp.csr_matrix(X).toarray(), dtype=np.float64)
        gb = n * d * 8 / 1e9
        raise ValueError(
            f"{name} would fill in every zero of this sparse {n} x {d} matrix "
            f"(nnz={sp.csr_matrix(X).nnz}), so it is not applied to sparse input. Densify first with "
            f"preprocess(X.toarray(), {name!r}) if {gb:.2g} GB fits in memory, or use "
            f"{alternative}, which keeps the matrix sparse."
        )
    return np.array(X, dtype=np.float64, copy=True)


def _none(X: Matrix) -> Matrix:
    return X.copy()


def _zscore(X: Matrix) -> Matrix:
    A = _dense(X, "zscore", "'unit-norm'")
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(A, axis=0)
        std = np.nanstd(A, axis=0)
    mean = np.where(np.isnan(mean), 0.0, mean)
    std = np.where(np.isnan(std) | (std == 0), 1.0, std)
    A -= mean
    A /= std
    return A


def _minmax(X: Matrix) -> Matrix:
    if sp.issparse(X):
        M = sp.csr_matrix(X, dtype=np.float64, copy=True)
        if M.nnz and M.data.min() < 0:
            raise ValueError(
                "minmax on a sparse matrix with negative values would turn its zeros into "
                "non-zeros, so it is not applied. Use 'unit-norm' (keeps sparsity), or densify "
                "with preprocess(X.toarray(), 'minmax') if the dense matrix fits in memory."
            )
        lo = np.asarray(M.min(axis=0).toarray()).ravel()
        span = np.asarray(M.max(axis=0).toarray()).ravel() - lo
        span[span == 0] = np.inf  # constant column -> 0
        cols = M.indices
        M.data = (M.data - lo[cols]) / span[cols]
        return M
    A = _dense(X, "minmax", "'unit-norm'")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanmin(A, axis=0)
        span = np.nanmax(A, axis=0) - lo
    lo = np.where(np.isnan(lo), 0.0, lo)
    span = np.where(np.isnan(span) | (span == 0), np.inf, span)
    A -= lo
    A /= span
    return A


def _unit_norm(X: Matrix) -> Matrix:
    if sp.issparse(X):
        from sklearn.preprocessing import normalize  # imported on first use: sklearn costs ~1 s

        return sp.csr_matrix(normalize(sp.csr_matrix(X, dtype=np.float64), norm="l2", copy=True))
    A = np.array(X, dtype=np.float64, copy=True)
    norms = np.sqrt(np.nansum(A * A, axis=1))
    norms[norms == 0] = 1.0
    A /= norms[:, None]
    return A


def stsd_original_preprocessing(X: Matrix) -> np.ndarray:
    """The STSD authors' preprocessing, applied once to the whole data set by their MATLAB drivers.

    Each column is z-scored with the sample standard deviation (``ddof=1``,
    MATLAB's ``zscore``; a constant column becomes 0), z-scored again, then
    each row is scaled to unit L2 norm over all its features (a zero row
    stays zero). Sparse input is densified. Registered as the preprocessor
    ``"stsd-original"`` (``load(name, preprocess="stsd-original")``).

    >>> Z = stsd_original_preprocessing(np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0]]))
    >>> Z.round(3).tolist()
    [[-1.0, 0.0], [1.0, 0.0], [0.0, 0.0]]
    """
    A = np.array(sp.csr_matrix(X).toarray() if sp.issparse(X) else X, dtype=np.float64)
    for _ in range(2):
        sd = A.std(axis=0, ddof=1) if A.shape[0] > 1 else np.zeros(A.shape[1])
        A = (A - A.mean(axis=0)) / np.where(sd == 0, 1.0, sd)
    norms = np.linalg.norm(A, axis=1, keepdims=True)
    return A / np.where(norms == 0, 1.0, norms)


PREPROCESSORS: dict[str, Preprocessor] = {
    "none": _none,
    "zscore": _zscore,
    "unit-norm": _unit_norm,
    "minmax": _minmax,
    "stsd-original": stsd_original_preprocessing,
}


#: The online preprocessing steps (learned from the rows seen so far, by the learner): each is the
#: name prefix of the scaled learner in :mod:`evofeat.registry` (``"online-zscore+ftrl"``).
ONLINE_PREPROCESSORS: tuple[str, ...] = (
    "online-zscore",
    "online-quantile",
    "online-quantile-sketch",
)


def _steps(name: str) -> list[str]:
    """The steps of a chain: ``"zscore,unit-norm"`` (or ``+``) -> ``["zscore", "unit-norm"]``."""
    return (
        [s.strip() for s in name.replace("+", ",").split(",")]
        if "," in name or "+" in name
        else [name]
    )


def check_preprocess(name: str) -> list[str]:
    """The steps of the preprocessing ``name`` (one name or a chain); ValueError on an unknown step.

    >>> check_preprocess("zscore,unit-norm")
    ['zscore', 'unit-norm']
    >>> check_preprocess("zscore,unit")
    Traceback (most recent call last):
    ...
    ValueError: unknown preprocessing 'unit' in 'zscore,unit'; registered: minmax, none, stsd-original, unit-norm, zscore. Chain them with commas (zscore,unit-norm); add one with evofeat.datasets.register_preprocessor(name, fn).
    """
    steps = _steps(name) if isinstance(name, str) else [name]
    for step in steps:
        if step in ONLINE_PREPROCESSORS:
            raise ValueError(
                f"{step!r} is learned by the learner from the rows it has seen, not applied to the "
                f"whole matrix; load with preprocess='none' and run the learner L as "
                f"'{step}+L' (evofeat.preprocessing.OnlineScaled), or pass --preprocess {step} "
                "to evofeat run / compare."
            )
        if not isinstance(step, str) or step not in PREPROCESSORS:
            where = f" in {name!r}" if len(steps) > 1 else ""
            raise ValueError(
                f"unknown preprocessing {step!r}{where}; registered: "
                f"{', '.join(sorted(PREPROCESSORS))}. Chain them with commas (zscore,unit-norm); "
                "add one with evofeat.datasets.register_preprocessor(name, fn)."
            )
    return steps


def split_online(learner: str, name: str) -> tuple[str, str]:
    """``(learner, name)`` with the online step of the chain ``name`` moved into the learner's name.

    An online step (:data:`ONLINE_PREPROCESSORS`) is learned by the learner
    from the rows it has seen, so it must be the chain's last step; the
    steps before it are applied to the whole matrix as usual.

    >>> split_online("ftrl", "online-zscore")
    ('online-zscore+ftrl', 'none')
    >>> split_online("adagrad", "minmax,online-quantile")
    ('online-quantile+adagrad', 'minmax')
    >>> split_online("ftrl", "zscore")
    ('ftrl', 'zscore')
    """
    steps = _steps(name) if isinstance(name, str) else [name]
    online = [k for k, step in enumerate(steps) if step in ONLINE_PREPROCESSORS]
    if not online:
        return learner, name
    if online != [len(steps) - 1]:
        raise ValueError(
            f"the online step of {name!r} must come once, last: the learner applies it to the "
            "rows as it sees them, after the whole-matrix steps (e.g. minmax,online-zscore)."
        )
    return f"{steps[-1]}+{learner}", ",".join(steps[:-1]) or "none"


def preprocess(X: Matrix, name: str) -> Matrix:
    """Apply the preprocessor registered as ``name`` to ``X``.

    Parameters
    ----------
    X : numpy.ndarray or scipy.sparse.csr_matrix
        Feature matrix (not modified).
    name : str
        A key of :data:`PREPROCESSORS`: ``"none"``, ``"zscore"``,
        ``"unit-norm"``, ``"minmax"``, ``"stsd-original"`` (the STSD
        authors' z-score twice then unit rows), or one added with
        :func:`register_preprocessor`; or a comma-separated chain of them,
        applied left to right (``"zscore,unit-norm"``).

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix
        A new float64 matrix of the same shape.

    Examples
    --------
    >>> import numpy as np
    >>> from evofeat.datasets import preprocess
    >>> X = np.array([[1.0, 5.0], [3.0, 5.0]])
    >>> preprocess(X, "zscore").tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    >>> preprocess(X, "unit-norm").round(3).tolist()
    [[0.196, 0.981], [0.514, 0.857]]
    >>> preprocess(X, "zscore,unit-norm").round(3).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    for step in check_preprocess(name):
        X = PREPROCESSORS[step](X)
    return X


def register_preprocessor(name: str, fn: Preprocessor, *, overwrite: bool = False) -> None:
    """Register ``fn`` under ``name`` so that ``load(..., preprocess=name)`` applies it.

    Parameters
    ----------
    name : str
        The name to register.
    fn : callable
        ``fn(X) -> X'``; must return a new matrix with the same number of rows
        and must not change ``X`` in place.
    overwrite : bool, default=False
        Replace an existing preprocessor of that name (the built-ins included).

    Examples
    --------
    >>> import numpy as np
    >>> from evofeat.datasets import PREPROCESSORS, preprocess, register_preprocessor
    >>> register_preprocessor("double", lambda X: 2.0 * X)
    >>> preprocess(np.ones((1, 2)), "double").tolist()
    [[2.0, 2.0]]
    >>> _ = PREPROCESSORS.pop("double")
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a preprocessor name must be a non-empty string, got {name!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if name in PREPROCESSORS and not overwrite:
        raise ValueError(
            f"a preprocessor named {name!r} is already registered; pass overwrite=True to "
            "replace it, or choose another name."
        )
    PREPROCESSORS[name] = fn
