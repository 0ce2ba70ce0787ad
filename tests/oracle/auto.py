"""The aggregating algorithm for the log loss over online members (evofeat's ``auto``).

Written from the rule (Vovk, "Aggregating strategies", COLT 1990;
Cesa-Bianchi and Lugosi, *Prediction, Learning, and Games*, 2006, Sections
3.6 and 9.2: the Bayesian mixture, exponential weights with rate 1 on the
log loss) and the choices the learner documents:

- member ``i``'s probability of ``+1`` is ``sigmoid(s_i)`` (``s_i`` its
  score); every member predicts and learns on every row as it would alone
  (its updates do not depend on the mixture), so its scores are those of
  its own oracle;
- its weight before row ``t`` is ``w_i = exp(-L_i) / sum_j exp(-L_j)`` with
  ``L_i = sum_{u < t} ln(1 + exp(-y_u s_{u,i}))`` its cumulative log loss
  (uniform before any row);
- the mixture's score is ``ln P(+1) - ln P(-1)`` with ``P(c) = sum_i w_i
  sigmoid(c s_i)``, its label ``+1`` if the score is positive, else ``-1``;
- ``share``: after the ``t``-th row (``t = 1, 2, ...``) the weights become
  ``(1 - alpha) w + alpha / K`` with ``alpha = 1 / (t + 1)`` (fixed share,
  Herbster and Warmuth 1998, with a decreasing rate), so they are no longer
  a function of the cumulative losses alone and are carried row to row.

The default members: NAG on the raw values, and FTRL and NAG behind online
z-scores and behind online normal scores (:mod:`oracle.scaling`), each with
its registered defaults (a bias included).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp

from oracle import adaptive, nag, scaling

__all__ = ["DEFAULT_MEMBERS", "auto", "member_scores", "mixture"]

Member = tuple[str | None, Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]]


def _nag(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return nag.nag(X, y, fit_intercept=True)


def _ftrl(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return adaptive.ftrl(X, y, fit_intercept=True)


#: (scaling or None, learner oracle): nag, zscore+ftrl, zscore+nag, quantile+ftrl, quantile+nag
DEFAULT_MEMBERS: tuple[Member, ...] = (
    (None, _nag),
    ("zscore", _ftrl),
    ("zscore", _nag),
    ("quantile", _ftrl),
    ("quantile", _nag),
)


def member_scores(
    X: np.ndarray, y: np.ndarray, members: tuple[Member, ...] = DEFAULT_MEMBERS, window: int = 100
) -> np.ndarray:
    """Each member's scores on the stream, run alone: ``(K, n)``."""
    scaled = {m: scaling.scale(X, m, window) for m in {s for s, _ in members if s}}
    return np.array([learner(scaled[s] if s else X, y)[1] for s, learner in members])


def _log_sigmoid(s: np.ndarray) -> np.ndarray:
    """``ln sigmoid(s) = -ln(1 + exp(-s))``."""
    return -np.logaddexp(0.0, -s)


def mixture(scores: np.ndarray, y: np.ndarray, share: bool = False) -> np.ndarray:
    """The mixture's score on each row from the members' scores ``(K, n)``."""
    K, n = scores.shape
    loss = np.zeros(K)  # the members' cumulative log loss
    log_w = np.full(K, -np.log(K))  # with share: the carried weights
    out = np.empty(n)
    for t in range(n):
        s = scores[:, t]
        if not share:
            log_w = -loss - logsumexp(-loss)
        out[t] = logsumexp(log_w + _log_sigmoid(s)) - logsumexp(log_w + _log_sigmoid(-s))
        row_loss = -_log_sigmoid(y[t] * s)
        loss = loss + row_loss
        if share:
            post = log_w - row_loss
            w = np.exp(post - logsumexp(post))
            alpha = 1.0 / (t + 2.0)  # after the (t + 1)-th row
            log_w = np.log((1.0 - alpha) * w + alpha / K)
    return out


def auto(
    X: np.ndarray, y: np.ndarray, share: bool = False, window: int = 100, fit_intercept: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``auto`` with its default members: labels and scores (``fit_intercept=False``: every
    member without its bias)."""
    members = DEFAULT_MEMBERS
    if not fit_intercept:
        plain = {_nag: nag.nag, _ftrl: adaptive.ftrl}
        members = tuple((s, plain[learner]) for s, learner in DEFAULT_MEMBERS)
    scores = mixture(member_scores(X, y, members, window), y, share)
    return np.where(scores > 0.0, 1.0, -1.0), scores
