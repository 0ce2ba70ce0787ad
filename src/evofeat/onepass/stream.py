"""Run a one-pass learner on a drawn ``incdec`` scenario (the form the CLI and experiments use)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.onepass.baselines import SVM, SVMa, SVMs
from evofeat.onepass.opid import OPID, OPIDe
from evofeat.streams.incdec import IncDec

__all__ = ["LEARNERS", "make_learner", "run_incdec"]

#: Registry name -> estimator class; every one takes ``n_survived`` and ``fit(X, y, cstage=...)``.
LEARNERS: dict[str, type] = {"opid": OPID, "opide": OPIDe, "svm": SVM, "svm-s": SVMs, "svm-a": SVMa}


def make_learner(name: str, n_survived: int, seed: int | None = None, **params: Any) -> Any:
    """Build the registered learner ``name`` for ``n_survived`` survived features.

    ``seed`` (fold shuffling, LIBLINEAR) is passed to the learners that take
    one; ``params`` are further constructor parameters.

    >>> make_learner("svm-s", n_survived=3, seed=1, cv=3)
    SVMs(cv=3, n_survived=3, seed=1)
    """
    if name not in LEARNERS:
        raise InputError(
            f"unknown learner {name!r}", expected=", ".join(sorted(LEARNERS)), received=repr(name)
        )
    cls = LEARNERS[name]
    params = {"n_survived": n_survived, **params}
    if seed is not None and "seed" in cls().get_params():
        params["seed"] = seed
    return cls(**params)


def run_incdec(
    learner: str | Any, scenario: IncDec, seed: int | None = None, **params: Any
) -> dict[str, Any]:
    """Read the scenario's C-stage stream once, fit its E-stage train half, score the test half.

    Returns ``{"accuracy", "seconds", "d_v", "d_s", "d_a", "n_cstage", "n_train", "n_test"}``.

    >>> from evofeat.streams.incdec import incdec
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 8)); y = np.where(X[:, 2] + X[:, 5] > 0, 1, -1)
    >>> sc = incdec(X, y, d_v=2, d_s=4, d_a=2, batch_size=20, n_cstage=200, n_estage=20, seed=0)
    >>> out = run_incdec("opid", sc, seed=0)
    >>> print(f"{out['accuracy']:.2f}")
    0.85
    """
    model = (
        make_learner(learner, scenario.d_s, seed, **params) if isinstance(learner, str) else learner
    )
    start = time.perf_counter()
    model.fit(scenario.X_train, scenario.y_train, cstage=iter(scenario.batches))
    accuracy = float(np.mean(model.predict(scenario.X_test) == scenario.y_test))
    return {
        "accuracy": accuracy,
        "seconds": time.perf_counter() - start,
        "d_v": scenario.d_v,
        "d_s": scenario.d_s,
        "d_a": scenario.d_a,
        "n_cstage": int(scenario.cstage_rows.size),
        "n_train": int(scenario.train_rows.size),
        "n_test": int(scenario.test_rows.size),
    }
