"""AdaGrad's per-coordinate step for the references of STSD and OFS (``step="adagrad"``).

The NumPy twin of ``adagrad_step`` in ``evofeat/_core/adaptive.pxd``: the
same operations in the same order, each saturated at ``+-MAX``, so a
reference and the compiled learner agree to the last bit.
"""

from __future__ import annotations

import numpy as np

from reference.safe import MAX

__all__ = ["adagrad_delta"]


def adagrad_delta(
    G: np.ndarray, cols: np.ndarray, g: np.ndarray, lr: float, eps: float
) -> np.ndarray:
    """``G[cols] += g^2`` in place; returns the steps ``-lr g / sqrt(eps + G[cols])`` to add to ``w``.

    >>> G = np.zeros(3)
    >>> adagrad_delta(G, np.array([0, 2]), np.array([-2.0, 1.0]), 0.5, 0.0), G
    (array([ 0.5, -0.5]), array([4., 0., 1.]))
    """
    G[cols] = np.clip(G[cols] + g * g, -MAX, MAX)
    return np.clip(-lr * (g / np.sqrt(eps + G[cols])), -MAX, MAX)
