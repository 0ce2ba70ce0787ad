"""DynFo (Schreckenberger et al. 2022), as the review's code runs it: a plain-Python oracle.

A list of stumps (dicts), a window of the last ``N`` rows (dense, NaN absent) and the forest's
last ``N`` 0/1 correctness values, written from the rules :class:`evofeat.haphazard.DynFo`
documents (the vote, the four steps on a label, the stump's split, the draws of accepted
features and of the stumps to relearn from one SplitMix64 stream, in the order the rules make
them). Every split is recomputed from the window (no cache).
"""

from __future__ import annotations

import math

import numpy as np

from oracle import SplitMix64

#: the smallest positive normal double: each side's vote is at least this in the score.
NORMAL = 2.2250738585072014e-308

__all__ = ["dynfo"]


def _below(rng: SplitMix64, n: int) -> int:
    return min(int(rng.uniform() * n), n - 1)


def _best_split(window: list[tuple[np.ndarray, float]], f: int) -> tuple[float, ...] | None:
    """``(gini, threshold, left_neg, left_pos, right_neg, right_pos)`` of feature ``f``'s best
    split over the window rows where it is present (a tie: the value first in the window)."""
    vals = [(x[f], yy, age) for age, (x, yy) in enumerate(window) if not np.isnan(x[f])]
    if not vals:
        return None
    m = len(vals)
    pos_all = float(sum(1.0 for _, yy, _ in vals if yy > 0))
    best: tuple[float, int, tuple[float, ...]] | None = None
    for v in sorted({v for v, _, _ in vals}):
        left = [(yy, age) for vv, yy, age in vals if vv <= v]
        first = min(age for vv, _, age in vals if vv == v)
        nl, nr = float(len(left)), float(m - len(left))
        pos_left = float(sum(1.0 for yy, _ in left if yy > 0))
        pl = pos_left / nl
        gl = 1.0 - (pl * pl + (1.0 - pl) * (1.0 - pl))
        if nr > 0:
            pr = (pos_all - pos_left) / nr
            gr = 1.0 - (pr * pr + (1.0 - pr) * (1.0 - pr))
            rn = 1.0 - pr
        else:
            pr, gr, rn = 0.0, 1.0, 0.0
        g = (nl / m) * gl + (nr / m) * gr
        if best is None or (g, first) < (best[0], best[1]):
            best = (g, first, (g, float(v), 1.0 - pl, pl, rn, pr))
    assert best is not None
    return best[2]


def dynfo(
    X: np.ndarray,
    y: np.ndarray,
    alpha: float = 0.1,
    beta: float = 0.8,
    delta: float = 0.001,
    epsilon: float = 0.001,
    gamma: float = 0.5,
    M: int = 500,
    N: int = 20,
    theta1: float = 0.05,
    theta2: float = 0.75,
    max_learners: int | None = None,
    relearn: str = "refit",
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of DynFo, predict-then-learn over the rows of ``X`` (NaN: absent)."""
    rng = SplitMix64(seed)
    cap = max_learners if max_learners is not None else 10 * M
    window: list[tuple[np.ndarray, float]] = []
    ok: list[float] = []
    stumps: list[dict[str, float]] = []
    perm: list[int] = []
    n_seen = 0
    labels, scores = np.zeros(len(y)), np.zeros(len(y))

    def side(s: dict[str, float], v: float) -> tuple[float, float]:
        return (s["ln"], s["lp"]) if v <= s["thr"] else (s["rn"], s["rp"])

    def fit(s: dict[str, float]) -> None:
        k = min(max(int(delta * n_seen), 1), n_seen)
        for i in range(k):
            r = i + _below(rng, n_seen - i)
            perm[i], perm[r] = perm[r], perm[i]
            split = _best_split(window, perm[i])
            if split is not None and split[0] < s["gini"]:
                s.update(zip(("gini", "thr", "ln", "lp", "rn", "rp"), split, strict=True))
                s["f"] = perm[i]

    def grow() -> None:
        if len(stumps) >= cap:
            return
        s = {"f": -1, "gini": 2.0, "thr": 0.0, "ln": 0.0, "lp": 0.0, "rn": 0.0, "rp": 0.0}
        s["w"] = 1.0
        stumps.append(s)
        fit(s)

    for t in range(len(y)):
        x = X[t]
        present = ~np.isnan(x)
        neg = pos = 0.0
        for s in stumps:
            f = int(s["f"])
            if f >= 0 and present[f]:
                sn, sp = side(s, x[f])
                neg += s["w"] * sn
                pos += s["w"] * sp
        score = math.log(max(pos, NORMAL)) - math.log(max(neg, NORMAL))
        label = 1.0 if score > 0.0 else -1.0
        labels[t], scores[t] = label, score
        cols = np.flatnonzero(present)
        if cols.size:
            n_seen = max(n_seen, int(cols.max()) + 1)
            perm.extend(range(len(perm), n_seen))
        window.append((x, float(y[t])))
        del window[:-N]
        if not stumps:
            if n_seen:
                for _ in range(M):
                    grow()
            continue
        ok.append(1.0 if label == y[t] else 0.0)
        del ok[:-N]
        if sum(1.0 - o for o in ok) / len(ok) > gamma:
            grow()
        for s in stumps:
            f = int(s["f"])
            if f < 0 or not present[f]:
                s["w"] -= epsilon
            else:
                sn, sp = side(s, x[f])
                right = 1.0 if (1.0 if sp > sn else -1.0) == y[t] else 0.0
                s["w"] = (right * 2.0 * alpha + s["w"]) / (1.0 + alpha)
        q2 = float(np.quantile([s["w"] for s in stumps], theta2))
        picks = [j for j, s in enumerate(stumps) if theta1 <= s["w"] < q2]
        for i in range(int((1.0 - beta) * len(picks))):
            j = i + _below(rng, len(picks) - i)
            picks[i], picks[j] = picks[j], picks[i]
            s = stumps[picks[i]]
            if relearn == "refit":
                s["gini"], s["f"] = 2.0, -1
            fit(s)
            s["w"] = 1.0
        kept = [s for s in stumps if s["w"] >= theta1]
        stumps[:] = kept or stumps[-1:]
    return labels, scores
