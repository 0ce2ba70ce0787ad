"""``auto``'s mixture in NumPy: exponential weights on the members' log loss, over each member
run alone in the compiled loop (the members learn from their own predictions only)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import logsumexp

from evofeat.evaluate.prequential import prequential
from evofeat.streams.stream import Stream


def member_scores(model: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each member's scores on the dense stream ``X`` (NaN: absent), run alone: ``(K, n)``."""
    fresh = model.clone()  # the model itself stays as it is
    fresh._reset()
    stream = Stream.from_dense(X, y, [f"f{j}" for j in range(X.shape[1])])
    return np.array(
        [prequential(m.clone(), stream, keep_predictions=True).scores for m in fresh._members]
    )


def mixture_reference(scores: np.ndarray, y: np.ndarray, share: bool = False) -> np.ndarray:
    """The mixture's score on each row from the members' scores ``(K, n)`` (in log space, so
    saturated scores give no NaN).

    ``ln P(+1) - ln P(-1)`` with ``P(c) = sum_i w_i sigmoid(c s_i)`` and ``w``
    the exponential weights on the members' cumulative log loss (with
    ``share``: the decreasing share ``1 / (t + 1)`` of the uniform weight
    mixed in after row ``t``).

    >>> mixture_reference(np.array([[2.0, 2.0], [0.0, -2.0]]), np.array([1.0, 1.0])).round(3)
    array([0.802, 0.426])
    """
    K, n = scores.shape
    log_w = np.full(K, -np.log(K))
    out = np.empty(n)
    for t in range(n):
        log_p = -np.logaddexp(0.0, -scores[:, t])  # ln sigmoid(s): the members' ln P(+1)
        log_m = -np.logaddexp(0.0, scores[:, t])  # and ln P(-1)
        out[t] = logsumexp(log_w + log_p) - logsumexp(log_w + log_m)
        post = log_w + (log_p if y[t] > 0 else log_m)
        log_w = post - logsumexp(post)
        if share:
            alpha = 1.0 / (t + 2.0)
            log_w = np.log((1.0 - alpha) * np.exp(log_w) + alpha / K)
    return out


def auto_reference(model: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``auto``'s labels: the sign of :func:`mixture_reference` over :func:`member_scores`."""
    scores = mixture_reference(member_scores(model, X, y), y, model.share)
    return np.where(scores > 0, 1.0, -1.0)
