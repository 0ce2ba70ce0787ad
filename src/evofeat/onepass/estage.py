"""OPID's expanding stage: the joint problem of Eq. 16-17 and OPIDe's weights (Eq. 3).

OPID fits, on the E-stage batch, one regression on ``Phi(Z)`` (``Z = X_s
W_s*``, the C-stage predictions) and one on ``Phi([Z, X_a])``, added with
weights ``w_1 + w_2 = 1`` that are learned too (Eq. 17)::

    min ||Phi_s V_s + Phi_bar V_bar - Y||^2
        + gamma (||V_s||^2 / (c w_1) + ||V_bar||^2 / ((c + d_a) w_2))

by alternating Prop. 4 (``V`` in closed form for fixed ``w``) and Prop. 3
(``w`` in closed form for fixed ``V``). Each step cannot increase the
objective, so the loop stops once it decreases by less than ``tol``
(relative). :func:`joint_primal` solves the linear map ``Phi(x) = x`` in the
primal (a ``(2c + d_a)``-square system); :func:`joint_dual` solves any kernel
through the kernel trick (an ``n``-square system on the kernel matrices).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import linalg

__all__ = ["JointFit", "best_weight", "joint_dual", "joint_primal", "weights_from_norms"]

_TINY = np.finfo(float).eps  # keeps w_1, w_2 away from 0 (gamma / w would be infinite)


@dataclass
class JointFit:
    """Result of the alternating solver: the coefficients and the weights.

    ``coef`` holds ``[V_s; V_bar]`` (primal) or the dual coefficients
    ``alpha`` (kernel); ``scale`` is ``(1 / a_1, 1 / a_2)`` with ``a_k`` the
    effective ridges ``gamma / (c w_1)`` and ``gamma / ((c + d_a) w_2)``,
    needed to predict with the dual. ``objective`` is Eq. 17 after each
    iteration (non-increasing).

    >>> fit = joint_primal(np.eye(4)[:, :2], np.eye(4)[:, 2:], np.eye(4)[:, :2], gamma=1.0)
    >>> fit.coef.shape, len(fit.w)
    ((6, 2), 2)
    """

    coef: np.ndarray
    w: tuple[float, float]
    scale: tuple[float, float]
    objective: list[float]


def weights_from_norms(norm_s: float, norm_bar: float, c: int, d_a: int) -> tuple[float, float]:
    """Prop. 3 (Eq. 19): the optimal ``(w_1, w_2)`` for fixed coefficients.

    >>> weights_from_norms(1.0, 2.0, c=1, d_a=3)
    (0.5, 0.5)
    """
    a, b = norm_s / np.sqrt(c), norm_bar / np.sqrt(c + d_a)
    if a + b == 0:
        return 0.5, 0.5
    w1 = float(np.clip(a / (a + b), _TINY, 1 - _TINY))
    return w1, 1.0 - w1


def _solve_pos(M: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``M^{-1} B`` for symmetric positive definite ``M``.

    As ``w_1`` approaches 0, the ridge ``gamma / (c w_1)`` of the ``Z`` block
    grows without bound and scipy warns of ill-conditioning; the solution is
    still right (that block goes to 0), so the warning is silenced.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        out: np.ndarray = linalg.solve(M, B, assume_a="pos")
    return out


def _ridges(gamma: float, w: tuple[float, float], c: int, d_a: int) -> tuple[float, float]:
    return gamma / (c * w[0]), gamma / ((c + d_a) * w[1])


def joint_primal(
    Z: np.ndarray,
    Xa: np.ndarray,
    Y: np.ndarray,
    gamma: float,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> JointFit:
    """Eq. 17 with ``Phi(x) = x``: alternate Prop. 4 (Eq. 23-24) and Prop. 3.

    >>> rng = np.random.default_rng(0)
    >>> Z, Xa = rng.normal(size=(30, 2)), rng.normal(size=(30, 3))
    >>> fit = joint_primal(Z, Xa, np.eye(2)[(Z[:, 0] > 0).astype(int)], gamma=1.0)
    >>> fit.coef.shape, round(sum(fit.w), 12)
    ((7, 2), 1.0)
    """
    c, d_a = Z.shape[1], Xa.shape[1]
    F = np.hstack([Z, Z, Xa])  # [Phi(Z), Phi([Z, X_a])]
    G, FY = F.T @ F, F.T @ Y
    w, hist = (0.5, 0.5), []
    for _ in range(max_iter):
        a1, a2 = _ridges(gamma, w, c, d_a)
        V = _solve_pos(G + np.diag(np.r_[np.full(c, a1), np.full(c + d_a, a2)]), FY)
        n_s, n_bar = float(np.linalg.norm(V[:c])), float(np.linalg.norm(V[c:]))
        hist.append(float(np.sum((F @ V - Y) ** 2) + a1 * n_s**2 + a2 * n_bar**2))
        w = weights_from_norms(n_s, n_bar, c, d_a)
        if len(hist) > 1 and hist[-2] - hist[-1] <= tol * abs(hist[-2]):
            break
    a1, a2 = _ridges(gamma, w, c, d_a)
    V = _solve_pos(G + np.diag(np.r_[np.full(c, a1), np.full(c + d_a, a2)]), FY)
    return JointFit(V, w, (1.0 / a1, 1.0 / a2), hist)


def joint_dual(
    Ks: np.ndarray,
    Kbar: np.ndarray,
    Y: np.ndarray,
    c: int,
    d_a: int,
    gamma: float,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> JointFit:
    """Eq. 17 through the kernel trick, on the kernel matrices of ``Z`` and ``[Z, X_a]``.

    With ``a_k`` the effective ridges, Eq. 17 is a kernel ridge regression on
    the kernel ``K_s / a_1 + K_bar / a_2``: ``alpha = (K_s / a_1 + K_bar / a_2
    + I)^{-1} Y``, ``V_s = Phi_s^T alpha / a_1``, ``V_bar = Phi_bar^T alpha /
    a_2``, so ``||V_s||^2 = tr(alpha^T K_s alpha) / a_1^2`` (same for
    ``V_bar``) feeds Prop. 3. Predict with ``(k_s / a_1 + k_bar / a_2)
    alpha`` (``scale`` holds ``1 / a_k``).

    >>> K = np.eye(4); fit = joint_dual(K, K, np.eye(4)[:, :2], c=2, d_a=1, gamma=1.0)
    >>> fit.coef.shape
    (4, 2)
    """
    n = Ks.shape[0]
    w, hist = (0.5, 0.5), []
    alpha = np.zeros_like(Y, dtype=float)
    for _ in range(max_iter):
        a1, a2 = _ridges(gamma, w, c, d_a)
        K = Ks / a1 + Kbar / a2
        alpha = _solve_pos(K + np.eye(n), Y)
        sq_s = float(np.sum(alpha * (Ks @ alpha))) / a1**2
        sq_bar = float(np.sum(alpha * (Kbar @ alpha))) / a2**2
        hist.append(float(np.sum((K @ alpha - Y) ** 2) + a1 * sq_s + a2 * sq_bar))
        w = weights_from_norms(np.sqrt(max(sq_s, 0.0)), np.sqrt(max(sq_bar, 0.0)), c, d_a)
        if len(hist) > 1 and hist[-2] - hist[-1] <= tol * abs(hist[-2]):
            break
    a1, a2 = _ridges(gamma, w, c, d_a)
    alpha = _solve_pos(Ks / a1 + Kbar / a2 + np.eye(n), Y)
    return JointFit(alpha, w, (1.0 / a1, 1.0 / a2), hist)


def best_weight(
    P_s: np.ndarray, P_bar: np.ndarray, y_codes: np.ndarray, grid: Sequence[float]
) -> float:
    """OPIDe's ``w_1`` (Eq. 3): the grid value whose mix ``w_1 P_s + (1 - w_1) P_bar`` of
    out-of-fold class probabilities is most accurate; ties go to the value nearest 1/2.

    >>> P_s = np.array([[0.9, 0.1], [0.6, 0.4]]); P_bar = np.array([[0.2, 0.8], [0.3, 0.7]])
    >>> best_weight(P_s, P_bar, np.array([0, 1]), grid=(0.0, 0.5, 1.0))
    0.5
    """
    grid_arr = np.asarray(grid, dtype=float)
    acc = np.array([np.mean((w * P_s + (1 - w) * P_bar).argmax(1) == y_codes) for w in grid_arr])
    best = np.flatnonzero(acc == acc.max())
    return float(grid_arr[best[np.argmin(np.abs(grid_arr[best] - 0.5))]])
