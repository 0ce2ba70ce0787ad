"""The one prequential (test-then-train) loop: :func:`prequential` around the compiled ``evofeat._core.loop``.

It sits in ``base``, below ``evaluate`` (which re-exports it as
:func:`evofeat.evaluate.prequential`), because
:meth:`~evofeat.base.OnlineLearner.learn_many` runs it and ``base`` imports
no layer above it. The learner is named here for the type checker only:
importing this module does not import :mod:`evofeat.base.learner`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evofeat._core.core import Core
from evofeat._core.loop import first_bad_label, run_chunk, run_rows
from evofeat.base.errors import InputError
from evofeat.base.stream import Stream

if TYPE_CHECKING:  # a type only: learn_many imports this module, not the other way round
    from evofeat.base.learner import OnlineLearner

__all__ = ["PrequentialResult", "check_task", "log_ticks", "prequential"]


def _run_in_place(
    core: Core,
    stream: Stream,
    col_map: np.ndarray,
    seg_dim: np.ndarray,
    start_eval: int,
    count_mistakes: bool,
    block: int,
    tick_rows: np.ndarray,
    tick_pos: np.ndarray,
    curve_m: np.ndarray,
    curve_l: np.ndarray,
    labels: np.ndarray | None,
    scores: np.ndarray | None,
    announce_first: bool = True,
    check: Callable[[int, float], None] | None = None,
) -> tuple[int, float, float]:
    """The compiled loop over ``stream``'s own arrays, ``block`` rows of segments at a time.

    ``announce_first=False``: the first row's features are already announced (not again).
    ``check(rows, loss)`` is called after each block with the rows it ends at and its loss.
    """
    rows = stream.row_arrays(col_map)
    seg_rows, masks, by_internal = stream.segment_masks(col_map)
    no_out = np.empty(0)
    total_m, total_l, compute = 0, 0.0, 0.0
    n = stream.n_rows
    for start in range(0, n, block):
        stop = min(n, start + block)
        c0 = time.perf_counter()
        wrong, loss = run_rows(
            core, rows["X"], stream._nan_absent, rows["indptr"], rows["indices"], rows["data"],
            col_map, rows["internal"], rows["y"], start, stop, seg_rows, masks,
            by_internal, seg_dim, announce_first, max(0, start_eval - start), count_mistakes,
            tick_rows - start if start else tick_rows, tick_pos, curve_m,
            curve_l, float(total_m), total_l,
            no_out if labels is None else labels[start:stop],
            no_out if scores is None else scores[start:stop],
        )  # fmt: skip
        compute += time.perf_counter() - c0
        total_m += int(wrong)
        total_l += float(loss)
        if check is not None:
            check(stop, float(loss))
    return total_m, total_l, compute


def _row_features(stream: Stream, col_map: np.ndarray, seg_dim: np.ndarray, row: int) -> np.ndarray:
    """The internal columns (increasing) announced for ``row`` of ``stream``."""
    seg = stream.segment_block(col_map, seg_dim, row, row + 1)
    return seg["icols"][seg["indptr"][0] : seg["indptr"][1]]


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _f64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def log_ticks(n: int, per_decade: int = 20) -> np.ndarray:
    """Row counts (1-based, increasing, ending at ``n``) spaced evenly on a log scale.

    >>> log_ticks(1000, per_decade=2).tolist()
    [1, 3, 7, 19, 52, 139, 373, 1000]
    """
    return _log_ticks(int(n), int(per_decade)).copy()


@functools.lru_cache(maxsize=64)
def _log_ticks(n: int, per_decade: int) -> np.ndarray:
    """:func:`log_ticks`, computed once per ``(n, per_decade)`` (read-only: callers get a copy)."""
    if n <= 0:
        t = np.zeros(0, dtype=np.int64)
    else:
        t = np.unique(
            np.round(np.logspace(0, np.log10(n), int(np.log10(n) * per_decade) + 2)).astype(
                np.int64
            )
        )
        t = t[(t >= 1) & (t <= n)]
        t = np.unique(np.concatenate([t, [n]]))
    t.flags.writeable = False
    return t


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
            "n_rows": self.n_rows,
            "n_scored": self.n_scored,
            "mistakes": self.mistakes,
            "accuracy": self.accuracy,
            "cumulative_loss": self.cumulative_loss,
            "seconds": self.seconds,
            "curve_rows": self.curve_rows.tolist(),
            "curve_mistake_rate": self.curve_mistake_rate.tolist(),
            "curve_loss": self.curve_loss.tolist(),
            **self.extra,
        }


def check_task(learner: Any, task: str) -> None:
    """Raise :class:`~evofeat.base.errors.InputError` unless ``learner`` learns a ``task`` stream.

    A regressor also learns a binary stream (its -1/+1 labels as numbers).

    >>> from evofeat.linear.pa import PA
    >>> check_task(PA(), "multiclass")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: PA is a binary learner: expected a binary stream, received a multiclass stream; fix: pick a learner for this task or another data set
    """
    if task != learner.task and not (learner.task == "regression" and task != "multiclass"):
        raise InputError(
            f"{type(learner).__name__} is a {learner.task} learner",
            expected=f"a {learner.task} stream",
            received=f"a {task} stream",
            fix="pick a learner for this task or another data set",
        )


def prequential(
    learner: OnlineLearner,
    stream: Stream,
    *,
    eval_from: int | None = None,
    keep_predictions: bool = False,
    chunk_rows: int = 65536,
    continues: bool = False,
) -> PrequentialResult:
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
    continues
        The rows continue the learner's dict path, as ``learn_one`` on each row
        would: the first row's features are announced only if they differ from
        the last ones announced, and the last row's stay announced afterwards
        (:meth:`~evofeat.base.OnlineLearner.learn_many` sets it; a
        :class:`~evofeat.streams.Stream` only). By default each run announces
        its first row's features, and the dict path announces again after it.

    Examples
    --------
    >>> from evofeat.linear.pa import PA
    >>> s = Stream.full(np.array([[1.0, 0.0], [0.0, 1.0]] * 50), np.array([1, -1] * 50))
    >>> r = prequential(PA(), s)
    >>> r.mistakes, r.accuracy
    (1, 0.99)
    """
    t0 = time.perf_counter()
    if continues and not isinstance(stream, Stream):
        raise TypeError("continues=True needs an evofeat.streams.Stream")
    if learner.task == "multiclass" and getattr(learner, "n_classes", 0) is None:
        learner.n_classes = int(np.max(stream.y)) + 1  # type: ignore[attr-defined]  # inferred from the stream's class codes
        learner._reset()
    if not hasattr(learner, "feature_index_"):
        learner._reset()
    check_task(learner, stream.task)
    if learner.task == "binary":
        y = np.asarray(stream.y)
        if y.dtype.kind not in "biuf" or first_bad_label(np.ascontiguousarray(y, np.float64)) >= 0:
            bad = ~np.isin(y, (-1, 1))
            raise InputError(
                f"{type(learner).__name__} is a binary classifier",
                expected="labels in {-1, +1}",
                received=f"{np.unique(y[bad])[:5].tolist()}",
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
    tick_pos = np.zeros(1, dtype=np.int64)
    labels_all = np.empty(n) if keep_predictions else None
    scores_all = np.empty(n) if keep_predictions else None
    no_out = np.empty(0)
    count_mistakes = learner.task != "regression"
    total_m = 0
    total_l = 0.0
    compute = 0.0
    done = learner.n_learned_

    def check(rows: int, loss: float) -> None:  # once a block: its loss, the weights when due
        learner._check_divergence(done + rows, loss)

    if isinstance(stream, Stream):
        announced = learner._visible if continues else None
        total_m, total_l, compute = _run_in_place(
            learner._state, stream, col_map, seg_dim, start_eval, count_mistakes, chunk_rows,
            tick_rows, tick_pos, curve_m, curve_l, labels_all, scores_all,
            announced is None or not np.array_equal(_row_features(stream, col_map, seg_dim, 0), announced),
            check,
        )  # fmt: skip
    else:
        for ch in stream.chunks(col_map, seg_dim, size=chunk_rows):
            m = ch.y.shape[0]
            c0 = time.perf_counter()
            wrong, loss = run_chunk(
                learner._state,
                _i64(ch.indptr),
                _i64(ch.indices),
                _f64(ch.data),
                _f64(ch.y),
                _i64(ch.seg_rows),
                _i64(ch.seg_indptr),
                _i64(ch.seg_cols),
                _i64(ch.seg_dim),
                max(0, start_eval - ch.start),
                count_mistakes,
                tick_rows - ch.start,
                tick_pos,
                curve_m,
                curve_l,
                float(total_m),
                total_l,
                no_out if labels_all is None else labels_all[ch.start : ch.start + m],
                no_out if scores_all is None else scores_all[ch.start : ch.start + m],
                learner._capacity,  # every row's columns are checked against it
            )
            compute += time.perf_counter() - c0
            total_m += int(wrong)
            total_l += float(loss)
            check(ch.start + m, float(loss))
    # the dict path re-announces visibility after an array run, unless the run continued it
    learner._visible = _row_features(stream, col_map, seg_dim, n - 1) if continues else None
    learner.n_learned_ += n
    seconds = time.perf_counter() - t0
    n_scored = n - start_eval
    return PrequentialResult(
        n_rows=n,
        n_scored=n_scored,
        mistakes=total_m,
        accuracy=1.0 - total_m / n_scored if n_scored and count_mistakes else float("nan"),
        cumulative_loss=total_l,
        seconds=seconds,
        curve_rows=ticks,
        curve_mistake_rate=curve_m / ticks,  # ticks count rows from 1
        curve_loss=curve_l / ticks,
        labels=labels_all,
        scores=scores_all,
        extra={"compute_seconds": compute},
    )
