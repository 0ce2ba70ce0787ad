"""Makes olvf_package_predictions.npz: the haphazard package's OLVF (1.2.8) on a small stream.

Run with the bench venv that holds the package (not in CI: it pulls in PyTorch), from the
repository root: /work/venvs/review-bench/bin/python tests/data/olvf_package_predictions.py
"""

import json
from pathlib import Path

import numpy as np

PARAMS = [
    {"C": 1.0, "C_bar": 1.0, "B": 1.0, "reg": 1e-4},
    {"C": 0.01, "C_bar": 1e-4, "B": 1.0, "reg": 1e-4},
    {"C": 0.5, "C_bar": 0.01, "B": 0.3, "reg": 1e-4},
]


def main() -> None:
    from haphazard.models.model_zoo.olvf import olvf as mod

    rng = np.random.default_rng(20261127)
    n, d = 400, 10
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 20.0, size=d)
    y01 = (X[:, :3] @ np.array([1.0, -0.5, 0.2]) + rng.normal(size=n) > 0).astype(np.int64)
    mask = rng.random((n, d)) < 0.5
    out = {"X": np.where(mask, X, np.nan), "y": y01, "params": np.asarray(json.dumps(PARAMS))}
    for i, prm in enumerate(PARAMS):
        np.random.seed(0)  # noqa: NPY002 (the package draws its random predictions from it)
        m = mod.OLVF(**prm, n_feat0=d)
        rows = zip(X, mask, y01, strict=True)
        out[f"pred_{i}"] = np.array(
            [m.partial_fit(np.where(mk, x, 0.0), mk, int(t))[0] for x, mk, t in rows],
            dtype=np.int64,
        )
    np.savez_compressed(Path(__file__).with_suffix(".npz"), **out)


if __name__ == "__main__":
    main()
