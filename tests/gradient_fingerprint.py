"""Fingerprints of the gradient learners (OGD, AdaGrad, FTRL, NAG, FESL over each base).

For each learner x options x stream: SHA-256 digests of the array path's scores and labels, the
dict path's predictions, ``coef_`` and ``intercept_``, every state field, and the predictions of a
model-file round trip continued on the stream's last rows. ``tests/linear/test_gradient_fingerprint.py``
compares them with ``tests/data/gradient_fingerprint.json``; ``python tests/gradient_fingerprint.py
--write`` rewrites the file (only when a change of results is intended and said so).
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from evofeat import io
from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream, evolvable, haphazard, trapezoidal
from fingerprint_digest import digest

JSON = Path(__file__).parent / "data" / "gradient_fingerprint.json"
ROWS = 160


def _data(square: bool, scale: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((ROWS, 7))
    f = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.standard_normal(ROWS)
    if (
        scale
    ):  # very different scales, growing along the stream (NAG rescales, FESL stores rescaled rows)
        X = X * np.logspace(-3, 4, 7) * np.linspace(0.5, 4.0, ROWS)[:, None]
    return X, (f if square else np.where(f > 0, 1, -1))


def streams(square: bool) -> dict[str, Stream]:
    X, y = _data(square, False)
    Xs, ys = _data(square, True)
    return {
        "trapezoidal": trapezoidal(X, y),
        "evolvable": evolvable(Xs, ys, d2=4, overlap=12, seed=1),
        "haphazard": haphazard(X, y, p=0.6, seed=2),
    }


def _digest(*arrays: Any) -> str:
    return digest(*arrays, length=16)


def _coef(model: Any) -> np.ndarray:
    c = model.coef_
    return np.asarray(list(c.values()) if isinstance(c, dict) else c, dtype=float)


def cases() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for loss, fi in itertools.product(("logistic", "square"), (False, True)):
        out.append(("ogd", {"loss": loss, "fit_intercept": fi}))
        out.append(("adagrad", {"loss": loss, "fit_intercept": fi}))
        for l1, l2 in ((1.0, 1.0), (0.0, 0.0), (0.3, 0.0)):
            out.append(("ftrl", {"loss": loss, "fit_intercept": fi, "l1": l1, "l2": l2}))
        for inv in (False, True):
            out.append(("nag", {"loss": loss, "fit_intercept": fi, "invariant": inv}))
    out += [
        ("ogd", {"fit_intercept": True, "intercept_lr": 0.05, "lr": 0.3}),
        ("adagrad", {"fit_intercept": True, "intercept_lr": 0.05, "eps": 0.1}),
        ("ftrl", {"fit_intercept": True, "intercept_lr": 0.05, "alpha": 0.5, "beta": 0.1}),
        ("nag", {"fit_intercept": True, "intercept_lr": 0.05, "lr": 0.2, "invariant": True}),
    ]
    for method, base, fi in itertools.product(
        ("fesl-c", "fesl-s", "nogd", "rogd-u", "rogd-f"),
        ("ogd", "adagrad", "ftrl", "nag"),
        (False, True),
    ):
        params: dict[str, Any] = {"base": base, "fit_intercept": fi, "overlap": 6, "lr": 0.3}
        out.append((method, params))
    for base in ("ogd", "adagrad", "ftrl", "nag"):
        out.append(
            (
                "fesl-c",
                {"base": base, "loss": "square", "clock": "switch", "overlap": 6, "lr": 0.05},
            )
        )
        out.append(("fesl-c", {"base": base, "l1": 0.0, "l2": 0.5, "horizon": 100, "overlap": 6}))
    return out


def fingerprint(name: str, params: dict[str, Any], stream: Stream) -> dict[str, str]:
    model = make(name, **params)
    res = prequential(model, stream, keep_predictions=True)
    out = {"scores": _digest(res.scores), "labels": _digest(res.labels)}
    out["coef"] = _digest(_coef(model), [float(model.intercept_)])
    out["state"] = _digest(*[np.asarray(v, dtype=float) for v in model._state])
    twin = make(name, **params)
    preds = []
    for x, t in stream.to_dicts():
        p = twin.predict_one(x)
        preds.append(np.nan if p is None else float(p))
        twin.learn_one(x, t)
    out["dict"] = _digest(preds, _coef(twin))
    # model-file round trip, saved half-way and continued on the second half, on the dict path
    rows = list(stream.to_dicts())
    half = make(name, **params)
    for x, t in rows[: len(rows) // 2]:
        half.learn_one(x, t)
    with tempfile.TemporaryDirectory() as d:
        back = io.load(io.save(half, Path(d) / "m"))
    cont = []
    for x, t in rows[len(rows) // 2 :]:
        p = back.predict_one(x)
        cont.append(np.nan if p is None else float(p))
        back.learn_one(x, t)
    out["file"] = _digest(cont, _coef(back))
    return out


def compute() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    by_loss = {sq: streams(sq) for sq in (False, True)}
    for name, params in cases():
        square = params.get("loss") == "square"
        for sname, stream in by_loss[square].items():
            key = f"{name} {json.dumps(params, sort_keys=True)} {sname}"
            table[key] = fingerprint(name, params, stream)
    return table


if __name__ == "__main__":
    table = compute()
    if "--write" in sys.argv:
        JSON.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(table)} fingerprints to {JSON}")
    else:
        old = json.loads(JSON.read_text())
        bad = [k for k in table if old.get(k) != table[k]]
        print(f"{len(table)} cases, {len(bad)} differ")
        for k in bad[:20]:
            print("DIFF", k, old.get(k), table[k])
