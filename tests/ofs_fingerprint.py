"""Fingerprints of the OFS family's predictions: learners x options x streams, both paths.

Each cell is hashed (SHA-256 of the float64 bytes) from what the learner
produces: the array path's scores and labels (``prequential``), the dict
path's scores and labels (``decision_one``, ``predict_one``, ``learn_one``),
``coef_`` and ``intercept_`` after each path, and a model-file and a pickle
round trip in the middle of the stream (the loaded copy and the original
continue on the same rows). ``tests/linear/test_ofs_fingerprint.py`` compares them
with ``tests/data/ofs_fingerprint.json``; run this module to write that file
(``python tests/ofs_fingerprint.py``) only when a change of the predictions
is intended.
"""

from __future__ import annotations

import json
import pickle
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat import io
from evofeat.evaluate import prequential
from evofeat.linear.ofs import LEARNERS
from evofeat.streams import Stream, full, trapezoidal
from fingerprint_digest import digest as _digest

PATH = Path(__file__).parent / "data" / "ofs_fingerprint.json"

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "ofs": [
        {},
        {"radius": 1.0, "budget_count": 4},
        {"step": "adagrad"},
        {"step": "adagrad", "truncate_by": "sum", "budget": 0.3},
        {"step": "adagrad", "truncate_by": "metric", "l2": 4.0},
        {"zero_score": "negative", "budget": 0.2},
        {"fit_intercept": True},
        {"fit_intercept": True, "step": "adagrad", "truncate_by": "sum"},
    ],
    "pe-trun": [
        {},
        {"budget_count": 3},
        {"zero_score": "negative"},
        {"fit_intercept": True, "budget": 0.3},
    ],
    "rand": [
        {"seed": 3},
        {"draw": "per-mistake", "seed": 2},
        {"draw": "per-mistake", "fit_intercept": True, "budget_count": 5},
        {"budget_count": 5, "seed": 1},
        {"zero_score": "negative", "fit_intercept": True, "budget": 0.3},
    ],
    "ofs-p": [
        {"seed": 3},
        {"step": "adagrad", "seed": 1},
        {"step": "adagrad", "truncate_by": "sum", "epsilon": 0.5, "seed": 2},
        {"step": "adagrad", "truncate_by": "metric", "l2": 4.0, "budget": 0.3},
        {"fit_intercept": True, "step": "adagrad"},
        {"budget_count": 4, "zero_score": "negative", "radius": 1.0},
        {"fit_intercept": True, "epsilon": 0.7, "budget": 0.3},
    ],
}


def _dense(n: int = 240, d: int = 30, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) + 0.3
    y = np.where(X @ rng.standard_normal(d) > 0.5, 1, -1)
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


def streams() -> Iterator[tuple[str, Stream]]:
    """Three small streams: dense and evolving, sparse 0/1, and one with huge rows (the scale folds)."""
    X, y = _dense()
    yield "trapezoidal", trapezoidal(X, y, list(range(X.shape[1])), n_stages=4)
    rng = np.random.default_rng(1)
    n, d, nnz = 300, 200, 6
    cols = np.concatenate([np.sort(rng.choice(d, nnz, replace=False)) for _ in range(n)])
    S = sp.csr_matrix((np.ones(n * nnz), cols, np.arange(n + 1) * nnz), shape=(n, d))
    ys = np.where(np.asarray(S[:, : d // 2].sum(axis=1)).ravel() >= nnz / 2, 1, -1)
    yield "sparse01", full(S, ys, list(range(d)))
    H, yh = _dense(n=200, d=20, seed=7)
    H[::37] *= 1e200  # rows whose step exceeds the HUGE bound: w is re-expressed under a new scale
    yield "huge", full(H, yh, list(range(H.shape[1])))


def digest(*parts: Any) -> str:
    return _digest(*parts, length=16, shapes=False)


def _weights(model: Any) -> list[float]:
    return [*model.coef_.values(), model.intercept_]


def continue_on(model: Any, rows: list[tuple[dict, Any]]) -> list[float]:
    out: list[float] = []
    for x, target in rows:
        score = model.decision_one(x)
        out.append(np.nan if score is None else score)
        model.learn_one(x, target)
    return out + _weights(model)


def cell(name: str, params: dict[str, Any], stream: Stream) -> dict[str, str]:
    """The fingerprints of one learner with one set of options on one stream."""
    with warnings.catch_warnings():  # the huge rows make the perceptrons warn of divergence
        warnings.simplefilter("ignore", RuntimeWarning)
        return _cell(name, params, stream)


def _cell(name: str, params: dict[str, Any], stream: Stream) -> dict[str, str]:
    model = LEARNERS[name](**params)
    res = prequential(model, stream, keep_predictions=True)
    array = digest(res.scores, res.labels, _weights(model))
    rows = list(stream.to_dicts())
    twin = LEARNERS[name](**params)
    labels = []
    for x, target in rows:
        labels.append(twin.predict_one(x) or 0)
        twin.learn_one(x, target)
    half = len(rows) // 2
    first = LEARNERS[name](**params)
    for x, target in rows[:half]:
        first.learn_one(x, target)
    with tempfile.TemporaryDirectory() as tmp:
        io.save(first, Path(tmp) / "m.evofeat")
        loaded = io.load(Path(tmp) / "m.evofeat")
    unpickled = pickle.loads(pickle.dumps(first))
    rest = rows[half:]
    after = digest(continue_on(first, rest))
    assert digest(continue_on(loaded, rest)) == after, f"{name} {params}: the loaded model differs"
    assert digest(continue_on(unpickled, rest)) == after, f"{name} {params}: unpickled differs"
    return {"array": array, "dict": digest(labels, _weights(twin)), "roundtrip": after}


def fingerprints() -> dict[str, dict[str, str]]:
    """Every cell, keyed ``learner params stream``."""
    out = {}
    for name, options in OPTIONS.items():
        for params in options:
            for label, stream in streams():
                out[f"{name} {json.dumps(params, sort_keys=True)} {label}"] = cell(
                    name, params, stream
                )
    return out


if __name__ == "__main__":
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(json.dumps(fingerprints(), indent=1, sort_keys=True) + "\n")
    sys.stdout.write(f"wrote {PATH}\n")
