"""The ``incdec`` scenario: features vanish, survive and are added, in two stages.

From one data set this builds the setting of OPID (Hou and Zhou, Section 1
and 4): a C-stage stream of mini-batches over the vanished and survived
features ``[X_v, X_s]``, then an E-stage batch over the survived and
augmented features ``[X_s, X_a]``, split into equal train and test halves.

Choices, all parameters (defaults follow the paper's Section 4):

- columns: ``columns="order"`` gives the first ``d_v`` columns to the
  vanished features, the next ``d_s`` to the survived, the rest to the
  augmented (paper); ``"random"`` does the same on a seeded permutation.
  Sizes are counts (ints, summing to the number of columns) or fractions
  (floats summing to 1): then ``d_s = ceil(f_s d)``, ``d_a = floor(f_a d)``
  and ``d_v`` the rest, which gives Table 1's 114/228/113 for d = 455 and
  1239/2478/1238 for Gisette's 4955.
- C-stage rows: ``n_cstage / c`` rows of every class (balanced, as in the
  paper), the first ones in file order (``cstage_rows="first"``, paper) or
  random ones (``"random"``); shuffled, then cut into batches of
  ``batch_size`` rows (the last one smaller if it does not divide).
- E-stage rows: ``2 n_estage`` rows drawn at random from the rest, the same
  number from every class when ``estage_balanced`` (default; the paper's
  below-chance accuracies of SVM(a), e.g. .3063 on 3-class DNA and .4640 on
  Splice, are what a balanced pool split at random gives), then split at
  random (not stratified) into train and test halves of ``n_estage`` rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat.base.errors import InputError

__all__ = ["IncDec", "default_sizes", "incdec", "split_sizes"]


@dataclass(eq=False)
class IncDec:
    """One draw of the incdec scenario (all arrays dense float64).

    Attributes
    ----------
    batches : list of (X, y)
        The C-stage mini-batches; ``X`` holds the vanished then the survived
        columns (``d_v + d_s``).
    X_train, y_train, X_test, y_test : numpy.ndarray
        The E-stage halves; ``X`` holds the survived then the augmented
        columns (``d_s + d_a``).
    vanished, survived, augmented : numpy.ndarray
        The original column indices of each group.
    cstage_rows, train_rows, test_rows : numpy.ndarray
        The original row indices used, in the order given.

    Examples
    --------
    >>> X, y = np.arange(120.0).reshape(30, 4), np.arange(30) % 2
    >>> sc = incdec(X, y, d_v=0.25, d_s=0.5, d_a=0.25, batch_size=5, n_cstage=10, n_estage=4, seed=0)
    >>> sc.d_v, sc.d_s, sc.d_a, sc.survived.tolist()
    (1, 2, 1, [1, 2])
    """

    batches: list[tuple[np.ndarray, np.ndarray]]
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    vanished: np.ndarray
    survived: np.ndarray
    augmented: np.ndarray
    cstage_rows: np.ndarray
    train_rows: np.ndarray
    test_rows: np.ndarray

    @property
    def d_v(self) -> int:
        """Number of vanished features."""
        return int(self.vanished.size)

    @property
    def d_s(self) -> int:
        """Number of survived features."""
        return int(self.survived.size)

    @property
    def d_a(self) -> int:
        """Number of augmented features."""
        return int(self.augmented.size)

    def __repr__(self) -> str:
        return (
            f"IncDec(d_v={self.d_v}, d_s={self.d_s}, d_a={self.d_a}, C-stage "
            f"{self.cstage_rows.size} rows in {len(self.batches)} batches, E-stage "
            f"{self.train_rows.size} + {self.test_rows.size} rows)"
        )


def split_sizes(d: int, d_v: float, d_s: float, d_a: float) -> tuple[int, int, int]:
    """``(d_v, d_s, d_a)`` as counts, from counts or from fractions of ``d``.

    >>> split_sizes(455, 0.25, 0.5, 0.25), split_sizes(180, 50, 80, 50)
    ((114, 228, 113), (50, 80, 50))
    """
    sizes = (d_v, d_s, d_a)
    if all(isinstance(s, int | np.integer) and not isinstance(s, bool) for s in sizes):
        if min(sizes) < 0 or sum(sizes) != d or d_s == 0:  # type: ignore[operator]
            raise InputError(
                "bad feature split",
                expected=f"counts >= 0, d_s > 0, summing to {d}",
                received=f"d_v={d_v}, d_s={d_s}, d_a={d_a}",
                fix="give counts that cover every column, or fractions summing to 1",
            )
        return int(d_v), int(d_s), int(d_a)
    if all(isinstance(s, float) for s in sizes) and min(sizes) >= 0 and abs(sum(sizes) - 1) < 1e-9:
        n_s = math.ceil(d_s * d - 1e-9)
        n_a = min(math.floor(d_a * d + 1e-9), d - n_s)
        if n_s == 0:
            raise InputError(
                "no survived feature", expected="d_s * d >= 1", received=f"{d_s} * {d}"
            )
        return d - n_s - n_a, n_s, n_a
    raise InputError(
        "bad feature split",
        expected="three ints (counts) or three floats (fractions summing to 1)",
        received=f"d_v={d_v!r}, d_s={d_s!r}, d_a={d_a!r}",
        fix="e.g. d_v=0.25, d_s=0.5, d_a=0.25",
    )


def _take(
    rows: np.ndarray, k: int, what: str, label: Any, rng: np.random.Generator | None
) -> np.ndarray:
    if rows.size < k:
        raise InputError(
            f"too few rows of class {label!r} for the {what}",
            expected=f"{k} rows",
            received=f"{rows.size}",
            fix="lower n_cstage or n_estage, or use a larger data set",
        )
    return rows[:k] if rng is None else rng.choice(rows, size=k, replace=False)


def default_sizes(y: Any, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The feature split and row counts of :func:`incdec` not ``given``, from the labels ``y``.

    A quarter of the features vanish, half survive, a quarter are added
    (``d_v=0.25, d_s=0.5, d_a=0.25``); E-stage halves of ``n_estage =
    min(100, n // 10)`` rows; the C-stage takes, from every class, all the
    rows the balanced E-stage leaves (``n_cstage``, a multiple of the number
    of classes), in batches of ``batch_size = min(100, n_cstage // 10)``
    rows. Each default is computed from the given values it depends on
    (``n_cstage`` from ``n_estage``, ``batch_size`` from ``n_cstage``).

    >>> y = np.arange(1000) % 2
    >>> default_sizes(y)
    {'d_v': 0.25, 'd_s': 0.5, 'd_a': 0.25, 'n_estage': 100, 'n_cstage': 800, 'batch_size': 80}
    >>> default_sizes(y, {"n_estage": 50})["n_cstage"]
    900
    """
    given = dict(given or {})
    out: dict[str, Any] = {"d_v": 0.25, "d_s": 0.5, "d_a": 0.25}
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    c = max(1, classes.size)
    n = int(np.asarray(y).shape[0])
    out["n_estage"] = given.get("n_estage", max(1, min(100, n // 10)))
    if "n_cstage" not in given:
        n_estage = out["n_estage"] if isinstance(out["n_estage"], int) else 1
        per_class = int(counts.min()) - math.ceil(2 * n_estage / c) if counts.size else 0
        out["n_cstage"] = c * max(1, per_class)
    else:
        out["n_cstage"] = given["n_cstage"]
    n_cstage = out["n_cstage"] if isinstance(out["n_cstage"], int) else 10
    out["batch_size"] = max(1, min(100, n_cstage // 10))
    return {**out, **given}


def incdec(
    X: Any,
    y: Any,
    *,
    d_v: float | None = None,
    d_s: float | None = None,
    d_a: float | None = None,
    batch_size: int | None = None,
    n_cstage: int | None = None,
    n_estage: int | None = None,
    columns: str = "order",
    cstage_rows: str = "first",
    estage_balanced: bool = True,
    seed: int | None = None,
) -> IncDec:
    """Draw the incdec scenario from ``(X, y)`` (see the module docstring for the rules).

    Parameters
    ----------
    X, y
        The data set (dense or sparse ``X``, class labels ``y``).
    d_v, d_s, d_a
        Vanished, survived and augmented features: counts or fractions
        (default 0.25, 0.5, 0.25: :func:`default_sizes`).
    batch_size
        ``n_i``, rows per C-stage mini-batch (default ``min(100, n_cstage // 10)``).
    n_cstage
        ``sum_i n_i``, C-stage rows; a multiple of the number of classes
        (default: every row of every class that the balanced E-stage leaves).
    n_estage
        ``n_{T1+1} = n_{T1+2}``, rows in each E-stage half (default
        ``min(100, n // 10)``).
    columns, cstage_rows, estage_balanced
        See the module docstring.
    seed
        Seed of the numpy Generator that draws rows (and columns).

    Examples
    --------
    >>> X = np.arange(200.0).reshape(50, 4); y = np.arange(50) % 2
    >>> sc = incdec(X, y, d_v=1, d_s=2, d_a=1, batch_size=8, n_cstage=20, n_estage=10, seed=0)
    >>> sc
    IncDec(d_v=1, d_s=2, d_a=1, C-stage 20 rows in 3 batches, E-stage 10 + 10 rows)
    >>> sc.batches[0][0].shape, sc.X_train.shape
    ((8, 3), (10, 3))
    >>> incdec(X, y, seed=0)  # the defaults of default_sizes
    IncDec(d_v=1, d_s=2, d_a=1, C-stage 40 rows in 10 batches, E-stage 5 + 5 rows)
    """
    y = np.asarray(y)
    given = {"d_v": d_v, "d_s": d_s, "d_a": d_a, "batch_size": batch_size}
    given.update(n_cstage=n_cstage, n_estage=n_estage)
    sizes = default_sizes(y, {k: v for k, v in given.items() if v is not None})
    d_v, d_s, d_a = sizes["d_v"], sizes["d_s"], sizes["d_a"]
    batch_size, n_cstage = sizes["batch_size"], sizes["n_cstage"]
    n_estage = sizes["n_estage"]
    if X.shape[0] != y.shape[0]:
        raise InputError(
            "X and y disagree",
            expected="one label per row",
            received=f"{X.shape[0]} rows and {y.shape[0]} labels",
        )
    if columns not in ("order", "random") or cstage_rows not in ("first", "random"):
        raise InputError(
            "bad option",
            expected="columns in {'order', 'random'} and cstage_rows in {'first', 'random'}",
            received=f"{columns!r}, {cstage_rows!r}",
        )
    if batch_size < 1 or n_estage < 1:
        raise InputError(
            "bad sizes",
            expected="batch_size >= 1 and n_estage >= 1",
            received=f"{batch_size}, {n_estage}",
        )
    rng = np.random.default_rng(seed)
    nv, ns, na = split_sizes(X.shape[1], d_v, d_s, d_a)
    order = np.arange(X.shape[1]) if columns == "order" else rng.permutation(X.shape[1])
    vanished, survived, augmented = order[:nv], order[nv : nv + ns], order[nv + ns :]

    classes = np.unique(y)
    c = classes.size
    if c < 2 or n_cstage % c or n_cstage < c:
        raise InputError(
            "bad n_cstage",
            expected=f"a positive multiple of the {c} classes (>= 2 classes)",
            received=f"n_cstage={n_cstage}",
            fix=f"use n_cstage = {c} * rows per class",
        )
    per_class = [np.flatnonzero(y == k) for k in classes]
    cs = [
        _take(r, n_cstage // c, "C-stage", k, None if cstage_rows == "first" else rng)
        for r, k in zip(per_class, classes, strict=True)
    ]
    rest = [np.setdiff1d(r, t, assume_unique=True) for r, t in zip(per_class, cs, strict=True)]
    c_rows = rng.permutation(np.concatenate(cs))

    n_pool = 2 * n_estage
    if estage_balanced:
        counts = np.full(c, n_pool // c)
        counts[rng.choice(c, size=n_pool % c, replace=False)] += 1
        pool = np.concatenate(
            [
                _take(r, int(m), "E-stage", k, rng)
                for r, m, k in zip(rest, counts, classes, strict=True)
            ]
        )
    else:
        pool = _take(np.concatenate(rest), n_pool, "E-stage", "any", rng)
    pool = rng.permutation(pool)
    train, test = pool[:n_estage], pool[n_estage:]

    def cols(rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        block = X[rows][:, idx]
        return np.asarray(block.toarray() if sp.issparse(block) else block, dtype=float)

    cv_idx, ea_idx = np.concatenate([vanished, survived]), np.concatenate([survived, augmented])
    Xc = cols(c_rows, cv_idx)
    batches = [
        (Xc[s : s + batch_size], y[c_rows[s : s + batch_size]])
        for s in range(0, c_rows.size, batch_size)
    ]
    return IncDec(
        batches,
        cols(train, ea_idx),
        y[train],
        cols(test, ea_idx),
        y[test],
        vanished,
        survived,
        augmented,
        c_rows,
        train,
        test,
    )
