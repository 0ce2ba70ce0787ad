"""River's linear models on the stream's visible features as dicts."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from benchmarks.peers import Feed, Peer, PeerUnavailable, timed

MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "river:pa": ("PAClassifier", {}, "River PAClassifier() (PA-I, C = 1.0, intercept)"),
    "river:logreg": ("LogisticRegression", {}, "River LogisticRegression() (SGD, lr 0.01)"),
    "river:perceptron": ("Perceptron", {}, "River Perceptron()"),
}


def _run(cls_name: str, params: dict[str, Any], feed: Feed) -> tuple[np.ndarray, float]:
    try:
        from river import linear_model
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise PeerUnavailable(f"river is not installed ({exc}); pip install river") from None
    model = getattr(linear_model, cls_name)(**params)
    rows = feed.dicts()
    labels = [bool(v) for v in feed.y.tolist()]

    def loop() -> np.ndarray:
        pred = np.zeros(len(rows), dtype=np.int64)
        for i, (x, y) in enumerate(zip(rows, labels, strict=True)):
            pred[i] = bool(model.predict_one(x))
            model.learn_one(x, y)
        return pred

    return timed(loop)


def peers() -> dict[str, Peer]:
    return {key: Peer(key, what, partial(_run, c, p)) for key, (c, p, what) in MODELS.items()}
