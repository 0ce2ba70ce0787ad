"""Vowpal Wabbit through its Python bindings, one example a row, features by name."""

from __future__ import annotations

import numpy as np
from benchmarks.peers import Feed, Peer, PeerUnavailable, timed

ARGS = "--loss_function logistic --binary --quiet"


def _run(feed: Feed) -> tuple[np.ndarray, float]:
    try:
        import vowpalwabbit
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise PeerUnavailable(f"vowpalwabbit is not installed ({exc})") from None
    names = feed.safe_names()
    lines = [
        ("1" if y else "-1")
        + " |f "
        + " ".join(f"{names[j]}:{v!r}" for j, v in zip(c.tolist(), x.tolist(), strict=True))
        for c, x, y in zip(feed.cols, feed.vals, feed.y.tolist(), strict=True)
    ]
    ws = vowpalwabbit.Workspace(ARGS)

    def loop() -> np.ndarray:
        pred = np.zeros(len(lines), dtype=np.int64)
        for i, line in enumerate(lines):
            ex = ws.parse(line)
            ws.learn(ex)  # VW predicts, then updates: the prediction is the one before the update
            pred[i] = ex.get_simplelabel_prediction() > 0
            ws.finish_example(ex)
        return pred

    out = timed(loop)
    ws.finish()
    return out


def peers() -> dict[str, Peer]:
    what = f"Vowpal Wabbit 9 (pyvw `Workspace`, `{ARGS}`, its defaults otherwise: adaptive, normalised, invariant updates, a bias)"
    return {"vw": Peer("vw", what, _run)}
