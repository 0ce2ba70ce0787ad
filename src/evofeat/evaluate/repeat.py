"""The one repeat runner: a learner over permutations of a data set's rows."""

from __future__ import annotations

import csv
import math
import signal
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evofeat.base.errors import InputError
from evofeat.base.prequential import PrequentialResult, prequential
from evofeat.streams import Stream, evolvable, full, haphazard, permutation, trapezoidal

__all__ = [
    "SCENARIOS",
    "RepeatTally",
    "check_online_scenario",
    "iter_repeats",
    "load_cached",
    "make_stream",
    "repeat",
    "run_once",
    "scenario_params_used",
    "summarize",
]

#: Row-wise scenarios run by the prequential loop (incdec and feature-stream
#: are run by their own estimators: :mod:`evofeat.evaluate.batch`).
SCENARIOS: dict[str, Callable[..., Stream]] = {
    "full": full,
    "trapezoidal": trapezoidal,
    "evolvable": evolvable,
    "haphazard": haphazard,
}


@lru_cache(maxsize=16)
def load_cached(dataset: str, preprocess: str = "none") -> Any:
    """``evofeat.datasets.load`` memoised per process (workers load each data set once)."""
    from evofeat.datasets import load

    return load(dataset, preprocess=preprocess)


def check_online_scenario(scenario: str) -> None:
    """Raise :class:`InputError` unless ``scenario`` is a row-wise scenario of :data:`SCENARIOS`.

    >>> check_online_scenario("incdec")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: scenario 'incdec' is not run by the online learners: expected one of full, trapezoidal, evolvable, haphazard; fix: incdec runs with opid, opide, svm, svm-s, svm-a (--learner)
    """
    if scenario not in SCENARIOS:
        from evofeat.registry import ONEPASS, SELECTORS

        owners = {"incdec": ONEPASS, "feature-stream": SELECTORS}
        if scenario in owners:
            raise InputError(
                f"scenario {scenario!r} is not run by the online learners",
                expected="one of " + ", ".join(SCENARIOS),
                fix=f"{scenario} runs with " + ", ".join(owners[scenario]) + " (--learner)",
            )
        raise InputError(
            f"unknown scenario {scenario!r}",
            expected="one of " + ", ".join([*SCENARIOS, *owners]),
            fix="incdec runs with the one-pass estimators (opid...), "
            "feature-stream with the selectors (ceofs...)",
        )


def make_stream(
    data: Any,
    scenario: str = "full",
    scenario_params: Mapping[str, Any] | None = None,
    *,
    order: np.ndarray | None = None,
    seed: int = 0,
) -> Stream:
    """The stream of ``data`` (a loaded Dataset) in row ``order`` under ``scenario``.

    ``seed`` seeds the scenario's own randomness (random feature order,
    Gaussian map, haphazard visibility) unless ``scenario_params`` sets one.
    """
    check_online_scenario(scenario)
    X, y = data.X, data.y
    if order is not None:
        X, y = X[order], y[order]
    params = dict(scenario_params or {})
    fn = SCENARIOS[scenario]
    if scenario != "full":
        params.setdefault("seed", seed)
    try:
        stream = fn(X, y, data.feature_names, task=data.task, **params)
    except TypeError as exc:
        import inspect

        valid = [
            p
            for p in inspect.signature(fn).parameters
            if p not in ("X", "y", "feature_names", "task")
        ]
        raise InputError(
            f"bad parameter for scenario {scenario!r} ({exc})",
            expected="one of " + ", ".join(valid),
            fix="check --scenario-param names",
        ) from None
    stream.name = getattr(data, "name", "")
    return stream


def scenario_params_used(
    scenario: str, scenario_params: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The parameters ``scenario`` runs with: ``scenario_params`` over its defaults.

    ``seed`` is left out unless given (repeat ``r`` then uses ``seed + r``).

    >>> scenario_params_used("trapezoidal", {"n_stages": 5})
    {'n_stages': 5, 'feature_order': 'original', 'layout': 'paper', 'fractions': None}
    >>> scenario_params_used("full")
    {}
    """
    import inspect

    check_online_scenario(scenario)
    given = dict(scenario_params or {})
    used = {
        name: p.default
        for name, p in inspect.signature(SCENARIOS[scenario]).parameters.items()
        if name not in ("X", "y", "feature_names", "task", "seed")
        and p.default is not inspect.Parameter.empty
    }
    return {**used, **given}


def run_once(
    learner: Any,
    dataset: Any,
    scenario: str = "full",
    *,
    params: Mapping[str, Any] | None = None,
    scenario_params: Mapping[str, Any] | None = None,
    preprocess: str = "none",
    repeat: int = 0,
    seed: int = 0,
    permutations: np.ndarray | None = None,
    keep_predictions: bool = False,
) -> PrequentialResult:
    """One prequential run: repeat ``repeat`` of ``learner`` on ``dataset`` under ``scenario``.

    The row order is ``permutations[repeat]`` when a permutation array is
    given, otherwise a permutation seeded with ``seed + repeat`` (``seed=None``
    keeps the file order). ``learner`` is a registry name (with ``params``)
    or a learner object (cloned, so it starts fresh).

    ``dataset`` may also be a ready stream that holds no arrays (``chunks``
    and ``internal_columns`` but no ``X``, e.g. a
    :class:`~evofeat.streams.LibsvmStream` or :class:`~evofeat.streams.CsvStream`
    read from disk in chunks): it is
    run as it is, in its own row order, so ``scenario`` must be ``"full"``
    (or the stream's own) and no ``permutations`` can be applied.
    """
    from evofeat.registry import make

    if _is_stream(dataset):
        own = dataset.info.get("scenario", "full") if hasattr(dataset, "info") else "full"
        if scenario not in ("full", own) or permutations is not None:
            raise InputError(
                "a ready stream is run as it is, in its own row order",
                expected=f"scenario {own!r} and no permutations",
                received=f"scenario {scenario!r}"
                + (" and permutations" if permutations is not None else ""),
                fix="load the data whole (evofeat.datasets.load) for other scenarios or row orders",
            )
        model = make(learner, **dict(params or {})) if isinstance(learner, str) else learner.clone()
        return prequential(model, dataset, keep_predictions=keep_predictions)
    data = load_cached(dataset, preprocess) if isinstance(dataset, str) else dataset
    n = data.X.shape[0]
    if permutations is not None:
        if repeat >= len(permutations):
            raise InputError(
                "not enough permutations",
                expected=f"at least {repeat + 1} rows in the file",
                received=f"{len(permutations)}",
                fix="use fewer repeats",
            )
        order = np.asarray(permutations[repeat])
    else:
        order = permutation(n, None if seed is None else seed + repeat)
    stream = make_stream(data, scenario, scenario_params, order=order, seed=(seed or 0) + repeat)
    model = make(learner, **dict(params or {})) if isinstance(learner, str) else learner.clone()
    result = prequential(model, stream, keep_predictions=keep_predictions)
    starts = stream.info.get("stage_rows", [])[1:] or stream.info.get("switch_rows", [])
    first = int(stream.info.get("eval_from", 0))
    if starts:  # where the stages start, in the curve's rows (counted from the first scored row)
        result.extra["curve_stages"] = [int(r) - first for r in starts if r > first]
    return result


def _is_stream(obj: Any) -> bool:
    """Whether ``obj`` is a ready stream without arrays (a LibsvmStream), not a data set with ``X``."""
    return (
        not isinstance(obj, str)
        and hasattr(obj, "chunks")
        and hasattr(obj, "internal_columns")
        and not hasattr(obj, "X")
    )


def _one(args: tuple[Any, ...]) -> dict[str, Any]:
    learner, dataset, scenario, kw, r, runner = args
    res: Any = (runner or run_once)(learner, dataset, scenario, repeat=r, **kw)
    return {"repeat": r, **(res.as_dict() if hasattr(res, "as_dict") else dict(res))}


def repeat(
    learner: Any,
    dataset: Any,
    scenario: str = "full",
    *,
    repeats: int = 20,
    progress: Callable[[int, int], None] | None = None,
    tally: RepeatTally | None = None,
    **kw: Any,
) -> Any:
    """:func:`run_once` for ``repeat = 0 .. repeats-1`` (joblib's loky workers across ``n_jobs`` cores).

    Returns a tidy table, one row per repeat (``mistakes``, ``accuracy``,
    ``cumulative_loss``, ``seconds``, the curves, ...); or, given a
    :class:`RepeatTally`, that tally with every repeat folded into it as it
    finished (nothing kept per repeat). On Ctrl-C the tally holds every repeat that finished
    (each folded whole) when :class:`KeyboardInterrupt` comes out of this call.

    ``runner`` replaces :func:`run_once` (same call: ``runner(learner,
    dataset, scenario, repeat=r, **kw)``, returning a result with
    ``as_dict()`` or a dict); :func:`evofeat.evaluate.batch.repeat_batch`
    runs the one-pass estimators and the feature selectors this way. It must
    be a module-level function so that joblib can send it to the workers.
    ``progress(done, repeats)`` is called as each repeat finishes. The other
    keywords are those of :func:`iter_repeats` (``n_jobs``, ``runner``) and of
    :func:`run_once`. Every repeat runs with one BLAS thread, so the results
    do not depend on ``n_jobs`` or on where they ran. A learner that does not fit the task of
    ``dataset`` (a loaded data set or a stream) is refused before any repeat starts.

    >>> df = repeat("pa-i", "german", "trapezoidal", repeats=3, preprocess="zscore")
    >>> len(df), sorted(df["repeat"])
    (3, [0, 1, 2])
    """
    from evofeat._parallel import deferred_sigint

    if kw.get("runner") is None and isinstance(getattr(dataset, "task", None), str):
        # a learner that does not fit the data's task is refused here, before any worker starts
        from evofeat.base.prequential import check_task
        from evofeat.registry import make

        params = dict(kw.get("params") or {})
        check_task(make(learner, **params) if isinstance(learner, str) else learner, dataset.task)
    rows = []
    for row in iter_repeats(learner, dataset, scenario, repeats=repeats, **kw):
        if tally is None:
            rows.append(row)
        else:
            with deferred_sigint() as sigint:  # a finished repeat is folded whole, or not at all
                tally.add(row)
            if sigint.hit:  # the Ctrl-C held back, now that the tally is consistent
                signal.raise_signal(signal.SIGINT)
        if progress:
            progress(len(rows) if tally is None else tally.n, repeats)
    if tally is not None:
        return tally
    return pd.DataFrame(rows).sort_values("repeat").reset_index(drop=True)


def iter_repeats(
    learner: Any,
    dataset: Any,
    scenario: str = "full",
    *,
    repeats: int = 20,
    n_jobs: int = 1,
    runner: Callable[..., Any] | None = None,
    **kw: Any,
) -> Iterator[dict[str, Any]]:
    """The rows of :func:`repeat`, yielded as each repeat finishes (in any order when ``n_jobs > 1``).

    Nothing is kept: with a :class:`RepeatTally` the memory of a run does not
    grow with the number of repeats. The repeats are made one at a time as
    workers free up, never all up front.

    >>> [row["repeat"] for row in iter_repeats("pa-i", "german", repeats=2)]
    [0, 1]
    """
    from evofeat._parallel import imap_unordered, one_blas_thread

    jobs = ((learner, dataset, scenario, kw, r, runner) for r in range(repeats))
    if n_jobs == 1:
        for j in jobs:
            with one_blas_thread():  # the same sums, in the same order, as in a worker
                row = _one(j)
            yield row
    else:
        for _, row in imap_unordered(_one, ((j,) for j in jobs), n_jobs):
            yield row


#: Repeats whose values :class:`RepeatTally` keeps for the summary (``evofeat run``'s summary.json
#: lists each repeat's value up to this many repeats; beyond, its repeats.csv holds them).
KEEP_VALUES = 1000


class _Running:
    """Count, mean and sum of squared deviations (Welford), elementwise; NaN once any value is."""

    def __init__(self) -> None:
        self.n = 0
        self.mean: Any = 0.0
        self.m2: Any = 0.0

    def add(self, value: Any) -> None:
        self.n += 1
        delta = value - self.mean
        self.mean = self.mean + delta / self.n
        self.m2 = self.m2 + delta * (value - self.mean)

    def std(self) -> Any:
        return np.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else self.mean * 0.0


class RepeatTally:
    """The repeats of a run, folded as they finish, in memory independent of their number.

    Each repeat's row (as :func:`iter_repeats` yields it) is split: its
    scalar results (``repeat``, ``mistakes``, ``accuracy``, ``seconds``...)
    are written as a line of the CSV file ``csv_path`` (in repeat order: a
    repeat that finishes early waits for those before it, at most one per
    worker) and summarised by a running mean and variance; its curves (the
    list columns ``curve_*`` holding one value per curve point) by a running
    mean and variance at each point; the list columns ``fold_*`` (one value
    per fold of a cross-validated repeat) as one column whose values are
    every fold of every repeat. Other list columns (``curve_rows``,
    ``curve_stages``) are kept from the first repeat. The values of the first
    ``keep_values`` repeats (default :data:`KEEP_VALUES`) are kept for
    :meth:`stat`'s ``values``. ``derive(row)`` gives more values of a repeat to
    summarise (not written to the file).

    Examples
    --------
    >>> tally = RepeatTally()
    >>> for r, m in enumerate([3, 5, 4]):
    ...     tally.add({"repeat": r, "mistakes": m, "curve_rows": [1, 2], "curve_x": [m, 2 * m]})
    >>> tally.n, tally.stat("mistakes")
    (3, {'mean': 4.0, 'std': 1.0, 'values': [3, 5, 4]})
    >>> tally.curve("curve_x").to_dict("list")
    {'rows': [1, 2], 'mean': [4.0, 8.0], 'std': [1.0, 2.0]}
    >>> folds = RepeatTally()
    >>> folds.add({"repeat": 0, "fold_acc": [0.5, 1.0]}); folds.add({"repeat": 1, "fold_acc": [0.75]})
    >>> folds.stat("fold_acc")
    {'mean': 0.75, 'std': 0.25, 'values': [0.5, 1.0, 0.75]}
    """

    def __init__(
        self,
        csv_path: str | Path | None = None,
        keep_values: int | None = None,
        derive: Callable[[Mapping[str, Any]], Mapping[str, float]] | None = None,
    ) -> None:
        self.csv_path = None if csv_path is None else Path(csv_path)
        self.derive = derive
        self.keep_values = KEEP_VALUES if keep_values is None else keep_values
        self.n = 0
        self.first: dict[str, Any] = {}
        self._stats: dict[str, _Running] = {}
        self._values: dict[str, list[Any]] = {}
        self._defined: dict[str, int] = {}  # values that are neither None nor NaN, by column
        self._curves: dict[str, _Running] = {}
        self._columns: list[str] | None = None
        self._waiting: dict[int, dict[str, Any]] = {}
        self._next = 0
        self._file: Any = None
        self._writer: Any = None

    @property
    def columns(self) -> list[str]:
        """The scalar columns (those of the CSV), in the first repeat's order."""
        return list(self._columns or [])

    def add(self, row: Mapping[str, Any]) -> None:
        """Fold one repeat's ``row`` (and what ``derive`` gives of it)."""
        derived = self.derive(row) if self.derive is not None else {}
        if self._columns is None:
            self.first = {k: v for k, v in row.items() if not _is_curve(k, v)}
            self._columns = [k for k, v in row.items() if not isinstance(v, list | tuple | dict)]
        self.n += 1
        for key, value in row.items():
            if _is_curve(key, value):
                self._curves.setdefault(key, _Running()).add(np.asarray(value, dtype=float))
            elif key.startswith("fold_") and isinstance(value, list | tuple | np.ndarray):
                for v in value:  # every fold's value, repeat after repeat
                    self._fold(key, v)
        for key, value in [*((k, row.get(k)) for k in self._columns), *derived.items()]:
            self._fold(key, value)
        self._write({k: row.get(k) for k in self._columns})

    def _fold(self, key: str, value: Any) -> None:
        if hasattr(value, "item"):
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, int | float | type(None)):
            return
        kept = self._values.setdefault(key, [])
        if len(kept) < self.keep_values:
            kept.append(value)
        x = math.nan if value is None else float(value)
        self._stats.setdefault(key, _Running()).add(x)
        if not math.isnan(x):
            self._defined[key] = self._defined.get(key, 0) + 1

    def _write(self, line: dict[str, Any]) -> None:
        if self.csv_path is None:
            return
        if self._writer is None:
            self._file = self.csv_path.open("w", newline="", encoding="utf-8")
            self._writer = csv.DictWriter(self._file, fieldnames=self._columns or [])
            self._writer.writeheader()
        r = line.get("repeat")
        if not isinstance(r, int | np.integer):  # no repeat number: as it comes
            self._writer.writerow(line)
            return
        self._waiting[int(r)] = line
        while self._next in self._waiting:
            self._writer.writerow(self._waiting.pop(self._next))
            self._next += 1

    def close(self) -> None:
        """Write the lines still waiting (repeats missing before them) and close the file."""
        if self._writer is not None:
            for r in sorted(self._waiting):
                self._writer.writerow(self._waiting.pop(r))
            self._file.close()
            self._writer = None

    def __enter__(self) -> RepeatTally:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def stat(self, column: str, values: bool = True) -> dict[str, Any] | None:
        """:func:`summarize` of a column over the repeats; ``None`` when it is missing or undefined
        (None or NaN) in every repeat. Beyond ``keep_values`` repeats the mean and std are the
        running ones and ``values`` is left out (every value is in the CSV file)."""
        run = self._stats.get(column)
        if run is None or not self._defined.get(column):
            return None
        kept = self._values[column]
        if len(kept) == run.n:
            out = summarize([math.nan if v is None else v for v in kept])
        else:
            out = {"mean": float(run.mean), "std": float(run.std())}
        if not values:
            out.pop("values", None)
        return out

    def curve(self, column: str) -> pd.DataFrame | None:
        """Rows, mean and sample std (ddof=1; 0 for one repeat) of a curve over the repeats."""
        run = self._curves.get(column)
        if run is None:
            return None
        rows = np.asarray(self.first.get("curve_rows", np.arange(1, np.size(run.mean) + 1)))
        return pd.DataFrame({"rows": rows, "mean": run.mean, "std": run.std()})


def _is_curve(key: str, value: Any) -> bool:
    """A per-point curve column (``curve_mistake_rate``, ``curve_loss``), not its rows or stages."""
    return (
        key.startswith("curve_")
        and key not in ("curve_rows", "curve_stages")
        and isinstance(value, list | tuple | np.ndarray)
    )


def summarize(values: Any) -> dict[str, Any]:
    """Mean, sample std (ddof=1) and the values.

    >>> summarize([1, 2, 3])
    {'mean': 2.0, 'std': 1.0, 'values': [1, 2, 3]}
    """
    arr = np.asarray(values, dtype=float)
    std = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    vals = [v.item() if hasattr(v, "item") else v for v in values]
    return {"mean": float(arr.mean()), "std": std, "values": vals}
