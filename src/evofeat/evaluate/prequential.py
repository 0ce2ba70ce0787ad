"""The one prequential (test-then-train) loop, compiled once per learner."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np

from evofeat.base.kernel import kernel_learn, kernel_predict, kernel_visible
from evofeat.base.learner import OnlineLearner
from evofeat.streams.stream import Stream

__all__ = ["PrequentialResult", "log_ticks", "prequential"]


@nb.njit(cache=True)
def _run_chunk(state, indptr, indices, data, y, seg_rows, seg_indptr, seg_cols, seg_dim,
               out_label, out_score, out_loss):  # type: ignore[no-untyped-def]
    k = 0
    n_seg = seg_rows.shape[0]
    for i in range(y.shape[0]):
        a = indptr[i]
        b = indptr[i + 1]
        idx = indices[a:b]
        val = data[a:b]
        score, label = kernel_predict(state, idx, val)
        out_label[i] = label
        out_score[i] = score
        if k < n_seg and seg_rows[k] == i:
            kernel_visible(state, seg_cols[seg_indptr[k]:seg_indptr[k + 1]], seg_dim[k])
            k += 1
        out_loss[i] = kernel_learn(state, idx, val, y[i], score)


def log_ticks(n: int, per_decade: int = 20) -> np.ndarray:
    """Row counts (1-based, increasing, ending at ``n``) spaced evenly on a log scale.

    >>> log_ticks(1000, per_decade=2).tolist()
    [1, 3, 7, 19, 52, 139, 373, 1000]
    """
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    t = np.unique(np.round(np.logspace(0, np.log10(n), int(np.log10(n) * per_decade) + 2)).astype(np.int64))
    t = t[(t >= 1) & (t <= n)]
    return np.unique(np.concatenate([t, [n]]))


@dataclass
class PrequentialResult:
    """What one prequential run measured.

    ``mistakes`` and ``accuracy`` count the scored rows (from ``eval_from``
    on; all rows by default); ``curve_rows`` / ``curve_mistake_rate`` /
    ``curve_loss`` are the online average mistake rate and average loss at
    log-spaced row counts of the scored part; ``labels`` holds every
    prediction when ``keep_predictions`` was set.
    """

    n_rows: int
    n_scored: int
    mistakes: int
    accuracy: float
    cumulative_loss: float
    seconds: float
    curve_rows: np.ndarray
    curve_mistake_rate: np.ndarray
    curve_loss: np.ndarray
    labels: np.ndarray | None = None
    scores: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary (curves as lists)."""
        return {
            "n_rows": self.n_rows, "n_scored": self.n_scored, "mistakes": self.mistakes,
            "accuracy": self.accuracy, "cumulative_loss": self.cumulative_loss, "seconds": self.seconds,
            "curve_rows": self.curve_rows.tolist(), "curve_mistake_rate": self.curve_mistake_rate.tolist(),
            "curve_loss": self.curve_loss.tolist(), **self.extra,
        }


def prequential(learner: OnlineLearner, stream: Stream, *, eval_from: int | None = None,
                keep_predictions: bool = False, chunk_rows: int = 65536) -> PrequentialResult:
    """Run ``learner`` test-then-train over ``stream`` on the compiled array path.

    Each row is predicted, then (if its visible features changed) the learner
    is told, then it learns from the row. The learner keeps what it learned,
    so calling this again continues the stream.

    Parameters
    ----------
    eval_from
        First row (0-based) that is scored; default ``stream.info["eval_from"]``
        or 0 (FESL scores only the rows after the switch).
    keep_predictions
        Keep every predicted label and score in the result.
    chunk_rows
        Rows converted at a time (memory is bounded by the chunk, not the stream).

    Examples
    --------
    >>> from evofeat.linear.pa import PA
    >>> s = Stream.full(np.array([[1.0, 0.0], [0.0, 1.0]] * 50), np.array([1, -1] * 50))
    >>> r = prequential(PA(), s)
    >>> r.mistakes, r.accuracy
    (1, 0.99)
    """
    if learner.task == "multiclass" and getattr(learner, "n_classes", 0) is None:
        learner.n_classes = int(np.max(stream.y)) + 1  # inferred from the stream's class codes
        learner._reset()
    if not hasattr(learner, "feature_index_"):
        learner._reset()
    if stream.task != learner.task and not (learner.task == "regression" and stream.task != "multiclass"):
        from evofeat.base.errors import InputError

        raise InputError(
            f"{type(learner).__name__} is a {learner.task} learner", expected=f"a {learner.task} stream",
            received=f"a {stream.task} stream", fix="pick a learner for this task or another data set",
        )
    if learner.task == "binary":
        bad = ~np.isin(stream.y, (-1, 1))
        if bad.any():
            from evofeat.base.errors import InputError

            raise InputError(
                f"{type(learner).__name__} is a binary classifier",
                expected="labels in {-1, +1}", received=f"{np.unique(stream.y[bad])[:5].tolist()}",
                fix="load the data with evofeat.datasets.load (binary labels become -1/+1)",
            )
    start_eval = int(stream.info.get("eval_from", 0) if eval_from is None else eval_from)
    col_map, seg_dim = stream.internal_columns(learner.feature_index_)
    learner._ensure_capacity(max(1, len(learner.feature_index_)))
    n = stream.n_rows
    ticks = log_ticks(max(0, n - start_eval))
    tick_rows = start_eval + ticks  # global 1-based row counts at which the curve is sampled
    curve_m = np.zeros(ticks.size)
    curve_l = np.zeros(ticks.size)
    labels_all = np.empty(n) if keep_predictions else None
    scores_all = np.empty(n) if keep_predictions else None
    is_reg = learner.task == "regression"
    total_m = 0
    total_l = 0.0
    t0 = time.perf_counter()
    compute = 0.0
    for ch in stream.chunks(col_map, seg_dim, size=chunk_rows):
        m = ch.y.shape[0]
        out_label = np.empty(m)
        out_score = np.empty(m)
        out_loss = np.empty(m)
        c0 = time.perf_counter()
        _run_chunk(learner._state, ch.indptr, ch.indices, ch.data, ch.y, ch.seg_rows, ch.seg_indptr,
                   ch.seg_cols, ch.seg_dim, out_label, out_score, out_loss)
        compute += time.perf_counter() - c0
        scored = np.arange(ch.start, ch.start + m) >= start_eval
        wrong = np.zeros(m) if is_reg else ((out_label != ch.y) & scored).astype(np.float64)
        cm = total_m + np.cumsum(wrong)
        cl = total_l + np.cumsum(np.where(scored, out_loss, 0.0))
        inside = (tick_rows > ch.start) & (tick_rows <= ch.start + m)
        curve_m[inside] = cm[tick_rows[inside] - ch.start - 1]
        curve_l[inside] = cl[tick_rows[inside] - ch.start - 1]
        total_m = int(round(cm[-1]))
        total_l = float(cl[-1])
        if labels_all is not None and scores_all is not None:
            labels_all[ch.start: ch.start + m] = out_label
            scores_all[ch.start: ch.start + m] = out_score
    learner._visible = None  # the dict path re-announces visibility after an array run
    learner.n_learned_ += n
    seconds = time.perf_counter() - t0
    n_scored = n - start_eval
    return PrequentialResult(
        n_rows=n, n_scored=n_scored, mistakes=total_m,
        accuracy=1.0 - total_m / n_scored if n_scored and not is_reg else float("nan"),
        cumulative_loss=total_l, seconds=seconds,
        curve_rows=ticks, curve_mistake_rate=curve_m / np.maximum(ticks, 1),
        curve_loss=curve_l / np.maximum(ticks, 1),
        labels=labels_all, scores=scores_all, extra={"compute_seconds": compute},
    )
