"""Fingerprints of every STSD-family learner x its options x three small streams, both paths.

Each case runs the compiled array path (dense and CSR input) and the dict path
(``decision_one`` / ``learn_one``) and hashes, bit for bit, the scores, the
labels, ``coef_`` and ``intercept_``, the compiled state, and a model-file
round trip (the state after :func:`evofeat.io.load` and the scores of the
loaded learner on the stream's rows). ``tests/linear/test_stsd_fingerprint.py``
compares them against ``tests/data/stsd_fingerprint.json``, written with the
build before the STSD core was split into parts::

    python tests/stsd_fingerprint.py tests/data/stsd_fingerprint.json
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from evofeat import io
from evofeat.evaluate import prequential
from evofeat.linear.stsd import STSD
from evofeat.linear.stsd_multiclass import STSDMulticlass
from evofeat.linear.stsd_regression import STSDRegressor
from evofeat.streams import Stream, full, trapezoidal
from fingerprint_digest import digest

MODES = ("stsd", "stsd-i", "stsd-ii", "stsd-i-all", "stsd-i-rand", "stsd-i-per")
#: the options of STSD, each on top of the mode
STSD_OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"step": "adagrad"},
    {"step": "adagrad-tau"},
    {"variant": "original-code"},
    {"project": False},
    {"variant": "original-code", "project": True},
    {"fit_intercept": True},
    {"step": "adagrad", "fit_intercept": True},
    {"step": "adagrad-tau", "fit_intercept": True},
    {"variant": "original-code", "fit_intercept": True},
)
#: the parameters the cases run under: the defaults, and a tight ball and budget
SETTINGS: tuple[dict[str, Any], ...] = ({}, {"radius": 1.0, "budget": 0.3, "seed": 7})


def cases() -> list[tuple[str, type, dict[str, Any], str]]:
    """(name, class, parameters, task) of every case."""
    out = []
    for setting in SETTINGS:
        for mode in MODES:
            options = list(STSD_OPTIONS)
            if mode == "stsd-i-rand":
                options.append({"variant": "original-code", "rand_mask": "always"})
            for opt in options:
                out.append((mode, STSD, {"mode": mode, **setting, **opt}, "binary"))
        for mode in ("stsd", "stsd-i", "stsd-ii"):
            for bias in (False, True):
                p = {"mode": mode, **setting, "fit_intercept": bias}
                out.append(("stsd-multiclass", STSDMulticlass, p, "multiclass"))
                out.append(("stsd-regressor", STSDRegressor, p, "regression"))
    for bias in (False, True):
        p = {"budget": 1.0, "radius": float("inf"), "fit_intercept": bias}
        out.append(("pa-multiclass", STSDMulticlass, p, "multiclass"))
        out.append(("pa-regressor", STSDRegressor, {**p, "mode": "stsd-i"}, "regression"))
    return out


def data(task: str, n: int = 240, d: int = 12, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.3] = 0.0  # zeros: the sparse path skips them
    t = X[:, :4].sum(1) - X[:, 4:6].sum(1) + 0.3 * rng.standard_normal(n)
    if task == "binary":
        return X, np.where(t > 0, 1, -1)
    if task == "multiclass":
        return X, np.digitize(t, [-0.7, 0.7])
    return X, t + 0.5


def streams(task: str) -> dict[str, tuple[Stream, Stream]]:
    """Name -> (the stream, the same rows as CSR)."""
    X, y = data(task)
    return {
        "dense": (full(X, y), full(sp.csr_matrix(X), y)),
        "trapezoidal": (
            trapezoidal(X, y, n_stages=4),
            trapezoidal(sp.csr_matrix(X), y, n_stages=4),
        ),
        "sparse-binary": (
            full((X > 0.5).astype(float), y),
            full(sp.csr_matrix((X > 0.5).astype(float)), y),
        ),
    }


def _h(*arrays: Any) -> str:
    return digest(*arrays, length=12)


def _state(model: Any) -> list[np.ndarray]:
    """The compiled state's fields but ``last_tau`` (see ``NOT_WRITTEN`` in the test)."""
    s = model._state
    return [np.asarray(getattr(s, f), dtype=np.float64) for f in s._fields if f != "last_tau"]


def _coef(model: Any) -> list[Any]:
    return [*model.coef_.values(), model.intercept_]


def fingerprint(cls: type, params: dict[str, Any], stream: Stream, csr: Stream) -> dict[str, str]:
    """Hashes of the scores and labels of both paths, ``coef_``, the state, and a model file's."""
    dense = prequential(cls(**params), stream, keep_predictions=True)
    model = cls(**params)
    sparse = prequential(model, csr, keep_predictions=True)
    byd = cls(**params)
    scores = []
    for x, y in stream.to_dicts():
        f = byd.decision_one(x)
        scores.append(np.nan if f is None else np.asarray(f, dtype=float).ravel()[0])
        byd.learn_one(x, y)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.evofeat"
        io.save(model, path)
        back = io.load(path)
    rows = [x for x, _ in list(stream.to_dicts())[:40]]
    after = [np.asarray(back.decision_one(x), dtype=float).ravel()[0] for x in rows]
    before = [np.asarray(model.decision_one(x), dtype=float).ravel()[0] for x in rows]
    if before != after:
        raise AssertionError(f"{params}: a model file does not predict as its learner")
    return {
        "scores": _h(dense.scores, sparse.scores, dense.labels, sparse.labels, scores),
        "coef": _h(*_coef(model), *_coef(byd)),
        "state": _h(*_state(model)),
        "last_tau": _h(model._state.last_tau) if hasattr(model._state, "last_tau") else "",
        "file": _h(*_state(back), after),
    }


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    by_task = {t: streams(t) for t in ("binary", "multiclass", "regression")}
    for name, cls, params, task in cases():
        key = f"{name} {json.dumps(params, sort_keys=True)}"
        for sname, (stream, csr) in by_task[task].items():
            out[f"{key} @{sname}"] = fingerprint(cls, params, stream, csr)
    return out


if __name__ == "__main__":
    result = run()
    text = json.dumps(result, indent=0, sort_keys=True, separators=(",", ":"))
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text + "\n")
    else:
        print(text)
