"""OpenMOA's learners for changing feature spaces (OpenMOA 1.0.1, ``pip install openmoa``; needs Java).

OpenMOA reads a dense array as "0 and NaN are absent", which would drop every
visible zero. So each row is fed as OpenMOA's own wrappers feed it: a
``LabeledInstance`` of the visible values (zeros kept) with the global
column ids in ``instance.feature_indices``. OVFM reads ``instance.x`` by
position, so it gets the whole row with NaN for the absent features (it
reads only NaN as missing).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from benchmarks.peers import Feed, Peer, PeerUnavailable, timed

# key: (class name, parameters, input) with input "indexed" (visible values + global ids) or "nan"
MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "openmoa:ftrl": ("FTRLClassifier", {}, "indexed"),
    "openmoa:fesl": ("FESLClassifier", {}, "indexed"),
    "openmoa:fobos": ("FOBOSClassifier", {}, "indexed"),
    "openmoa:oasf": ("OASFClassifier", {}, "indexed"),
    "openmoa:rsol": ("RSOLClassifier", {}, "indexed"),
    "openmoa:orf3v": ("ORF3VClassifier", {}, "indexed"),
    "openmoa:ovfm": ("OVFMClassifier", {}, "nan"),
}


def _imports() -> tuple[Any, Any, Any]:
    try:
        from openmoa import classifier
        from openmoa.instance import LabeledInstance
        from openmoa.stream import Schema
    except Exception as exc:  # ImportError, or the JVM failing to start
        raise PeerUnavailable(
            f"openmoa cannot be imported ({type(exc).__name__}: {exc}); "
            "pip install openmoa (needs a Java runtime)"
        ) from None
    return classifier, LabeledInstance, Schema


def instances(feed: Feed, mode: str) -> list[Any]:
    """The feed as OpenMOA instances (built before the clock starts)."""
    _, LabeledInstance, Schema = _imports()
    schema = Schema.from_custom(
        [f"f{j}" for j in range(feed.d)],
        values_for_class_label=["0", "1"],
        dataset_name="leaderboard",
    )
    out = []
    for c, x, y in zip(feed.cols, feed.vals, feed.y.tolist(), strict=True):
        if mode == "nan":
            full = np.full(feed.d, np.nan)
            full[c] = x
            inst = LabeledInstance.from_array(schema, full, int(y))
        else:
            inst = LabeledInstance.from_array(schema, np.asarray(x, dtype=float), int(y))
            inst.feature_indices = np.asarray(c)
        out.append(inst)
    feed._memo["openmoa_schema"] = schema
    return out


def _run(cls_name: str, params: dict[str, Any], mode: str, feed: Feed) -> tuple[np.ndarray, float]:
    classifier, _, _ = _imports()
    rows = instances(feed, mode)
    model = getattr(classifier, cls_name)(schema=feed._memo["openmoa_schema"], **params)

    def loop() -> np.ndarray:
        pred = np.zeros(len(rows), dtype=np.int64)
        for i, inst in enumerate(rows):
            p = model.predict(inst)
            pred[i] = 1 if p is not None and int(p) == 1 else 0
            model.train(inst)
        return pred

    return timed(loop)


def peers() -> dict[str, Peer]:
    return {
        key: Peer(
            key,
            f"OpenMOA {c}({', '.join(f'{k}={v}' for k, v in p.items()) or 'defaults'}), "
            + ("visible values + global ids" if m == "indexed" else "whole row, NaN = absent"),
            partial(_run, c, p, m),
        )
        for key, (c, p, m) in MODELS.items()
    }
