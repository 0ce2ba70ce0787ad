"""The benchmark streams: seeded synthetic ones, the real a8a and covtype, and their VW files.

Every stream is built once and cached in ``benchmarks/data/`` (git-ignored)
as ``<name>.npz`` (CSR or dense values, labels in {-1, +1}); the Vowpal
Wabbit text file of the same rows (``<name>.vw``, values to 9 significant
digits: VW reads float32) is written next to it the first time a VW
measurement asks for it.

Synthetic streams (labels: ``sign(x . w*)`` of a seeded Gaussian ``w*``,
then 5% of the labels flipped, so no learner reaches zero mistakes):

``dense``
    19,020 x 10 standard Gaussian values (the shape of magic04).
``a8a-like``
    32,561 x 123 binary values, 14 non-zeros a row: the 123 columns are cut
    into 14 one-hot groups (as a8a's categorical attributes), each row takes
    one column of each group, drawn from a skewed law within the group.
``sparse``
    100,000 x 100,000, 50 distinct non-zeros a row, columns drawn from a Zipf
    law (probability of the j-th most frequent column proportional to 1/j,
    the frequent columns scattered over the index range by a seeded
    permutation), positive values scaled so each row has unit L2 norm (a
    tf-idf-like bag of words). ``sweep-1e3`` ... ``sweep-1e6`` are the same
    law with d = 10^3 ... 10^6 columns (the d-scaling sweep).

Real data (``EVOFEAT_DATA``): ``a8a`` (32,561 x 123) and ``covtype``
(``covtype-binary``, 581,012 x 54, each column z-scored then each row
scaled to unit L2 norm: the OFS experiment's preprocessing).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["DATA", "SPECS", "load_stream", "vw_file"]

DATA = Path(__file__).resolve().parent / "data"
SEED = 20261122
NOISE = 0.05

#: name -> how to build it (kind, rows, columns, non-zeros a row)
SPECS: dict[str, dict[str, Any]] = {
    "dense": {"kind": "dense", "n": 19020, "d": 10},
    "a8a-like": {"kind": "onehot", "n": 32561, "d": 123, "nnz": 14},
    "sparse": {"kind": "zipf", "n": 100_000, "d": 100_000, "nnz": 50},
    "a8a": {"kind": "real", "dataset": "a8a"},
    "covtype": {"kind": "real", "dataset": "covtype-binary", "preprocess": "zscore+unit-norm"},
    **{f"sweep-1e{k}": {"kind": "zipf", "n": 100_000, "d": 10**k, "nnz": 50} for k in (3, 4, 5, 6)},
}


def _labels(score: np.ndarray, rng: np.random.Generator, threshold: float = 0.0) -> np.ndarray:
    y = np.where(score > threshold, 1, -1)
    flip = rng.random(y.size) < NOISE
    return np.where(flip, -y, y).astype(np.int64)


def _zipf_rows(
    n: int, d: int, nnz: int, cdf: np.ndarray, perm: np.ndarray, seed: int
) -> np.ndarray:
    """``n`` rows of ``nnz`` distinct columns drawn from ``cdf`` (by rank), mapped through ``perm``."""
    import sys

    import pyximport

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    pyximport.install(language_level=3, inplace=False)
    from _synth import zipf_rows  # benchmarks/_synth.pyx, compiled on first use

    return zipf_rows(n, d, nnz, np.ascontiguousarray(cdf, dtype=np.float64),
                     np.ascontiguousarray(perm, dtype=np.int64), seed)  # fmt: skip


def _build(name: str) -> tuple[Any, np.ndarray]:
    spec = SPECS[name]
    rng = np.random.default_rng([SEED, sum(map(ord, name))])
    kind = spec["kind"]
    if kind == "dense":
        X = rng.standard_normal((spec["n"], spec["d"]))
        return X, _labels(X @ rng.standard_normal(spec["d"]), rng)
    if kind == "onehot":
        n, d, g = spec["n"], spec["d"], spec["nnz"]
        bounds = np.linspace(0, d, g + 1).round().astype(np.int64)
        cols = np.empty((n, g), np.int64)
        for k in range(g):
            size = bounds[k + 1] - bounds[k]
            p = 1.0 / np.arange(1, size + 1) ** 1.2
            cols[:, k] = bounds[k] + rng.choice(size, size=n, p=p / p.sum())
        X = sp.csr_matrix((np.ones(n * g), cols.ravel(), np.arange(0, n * g + 1, g)), shape=(n, d))
        score = X @ rng.standard_normal(d)
        return X, _labels(
            score, rng, threshold=float(np.quantile(score, 0.76))
        )  # a8a: 24% positive
    if kind == "zipf":
        n, d, m = spec["n"], spec["d"], spec["nnz"]
        cdf = np.cumsum(1.0 / np.arange(1, d + 1))
        perm = rng.permutation(d).astype(np.int64)
        indices = _zipf_rows(n, d, m, cdf, perm, int(rng.integers(2**31)))
        data = 1.0 + np.abs(rng.standard_normal(n * m))
        X = sp.csr_matrix((data, indices, np.arange(0, n * m + 1, m)), shape=(n, d))
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = sp.csr_matrix(sp.diags(1.0 / norms) @ X)
        return X, _labels(X @ rng.standard_normal(d), rng)
    from evofeat.datasets import load
    from evofeat.datasets import preprocess as apply

    ds = load(spec["dataset"])
    X = ds.X
    if spec.get("preprocess"):
        X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        for step in spec["preprocess"].split("+"):
            X = apply(X, step)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
    return X, np.asarray(ds.y).astype(np.int64)


def load_stream(name: str, rows: int | None = None) -> tuple[Any, np.ndarray]:
    """``(X, y)`` of stream ``name`` (first ``rows`` rows), built and cached on first use."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"{name}.npz"
    if not path.exists():
        X, y = _build(name)
        tmp = path.with_suffix(f".{os.getpid()}.npz")
        if sp.issparse(X):
            np.savez(tmp, indptr=X.indptr, indices=X.indices, data=X.data, shape=X.shape, y=y)
        else:
            np.savez(tmp, X=X, y=y)
        tmp.replace(path)
    z = np.load(path)
    if "X" in z:
        X, y = z["X"], z["y"]
    else:
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        y = z["y"]
    if rows is not None and rows < X.shape[0]:
        X, y = X[:rows], y[:rows]
    return X, y


def vw_file(name: str, rows: int | None = None) -> Path:
    """The stream in Vowpal Wabbit's text format (``label | col:value ...``), written once."""
    tag = "" if rows is None else f"-{rows}"
    path = DATA / f"{name}{tag}.vw"
    if path.exists():
        return path
    X, y = load_stream(name, rows)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with open(tmp, "w") as fh:
        if sp.issparse(X):
            for i in range(X.shape[0]):
                a, b = X.indptr[i], X.indptr[i + 1]
                feats = " ".join(
                    f"{c}:{v:.9g}"
                    for c, v in zip(X.indices[a:b].tolist(), X.data[a:b].tolist(), strict=True)
                )
                fh.write(f"{y[i]} | {feats}\n")
        else:
            for i in range(X.shape[0]):
                feats = " ".join(f"{c}:{v:.9g}" for c, v in enumerate(X[i].tolist()))
                fh.write(f"{y[i]} | {feats}\n")
    tmp.replace(path)
    return path


if __name__ == "__main__":
    import sys

    for nm in sys.argv[1:] or list(SPECS):
        X, y = load_stream(nm)
        nnz = X.nnz / X.shape[0] if sp.issparse(X) else X.shape[1]
        print(
            f"{nm}: {X.shape[0]} x {X.shape[1]}, {nnz:.1f} nnz/row, {np.mean(y == 1):.3f} positive"
        )
