"""Run orchestration: a learner's repeats on a data set, as ``run`` and ``compare`` start them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import click

from evofeat.base.errors import InputError
from evofeat.cli.summaries import summarize_run

__all__ = [
    "Interrupted",
    "compare_args",
    "mean_loss",
    "parse_params",
    "reading_options",
    "run_repeats",
    "show_value",
]


def _parse_value(text: str) -> Any:
    """``k=v`` values: numbers, booleans, none, comma lists, else the string.

    >>> _parse_value("0.5"), _parse_value("10"), _parse_value("true"), _parse_value("0.1,0.4")
    (0.5, 10, True, [0.1, 0.4])
    """
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if "," in text:
        return [_parse_value(t) for t in text.split(",") if t]
    return text


def parse_params(items: tuple[str, ...], option: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(
                f"bad {option} {item!r}",
                expected="NAME=VALUE",
                received=item,
                fix=f"write e.g. {option} C=0.1",
            )
        k, v = item.split("=", 1)
        out[k.strip()] = _parse_value(v.strip())
    return out


def show_value(value: Any) -> str:
    """A default as it is written on the command line (``--param K=V``)."""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _streamable(
    dataset: str,
    kind: str,
    scenario: str,
    repeats: int,
    perm_file: str | None,
    preprocess: str,
    scenario_params: dict[str, Any],
    label_column: str | None = None,
    reading: Mapping[str, Any] | None = None,
) -> Any:
    """The stream to read from disk (LIBSVM, JSON Lines), or None when the run needs the rows in memory."""
    from evofeat.streams.libsvm_stream import LibsvmStream
    from evofeat.streams.sources import streamed_source

    stream = streamed_source(
        dataset,
        kind=kind,
        scenario=scenario,
        repeats=repeats,
        perm_file=perm_file,
        preprocess=preprocess,
        scenario_params=scenario_params,
        label_column=label_column,
        **(reading or {}),
    )
    if dataset == "-" and stream is not None:  # the format was sniffed: say which, on stderr
        as_libsvm = isinstance(stream, LibsvmStream)
        click.echo(
            "evofeat: standard input read as "
            + (
                "LIBSVM (its first character is not '{')"
                if as_libsvm
                else "JSON Lines (it starts with '{')"
            ),
            err=True,
        )
    return stream


def run_repeats(
    learner: str,
    params: tuple[str, ...],
    dataset: str,
    scenario: str | None,
    scenario_params: tuple[str, ...],
    preprocess: str,
    label_column: str | None,
    repeats: int,
    seed: int,
    perm_file: str | None,
    jobs: int,
    protocol: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    tally: Any = None,
    reading: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], Any]:
    """The summary of the run and its table of repeats: a DataFrame, or ``tally`` (a
    :class:`~evofeat.evaluate.repeat.RepeatTally`) when given: each repeat folded into it as it
    finishes, in memory independent of the number of repeats. ``reading`` holds the options
    for reading a user's file (``task``, ``zero_based``; :func:`reading_options`). Ctrl-C after at least one repeat
    of the tally finished raises :class:`Interrupted` with the summary of those repeats."""
    from evofeat._parallel import WorkerDied
    from evofeat.datasets.preprocessing import split_online
    from evofeat.evaluate import repeat
    from evofeat.evaluate.batch import check_scenario
    from evofeat.evaluate.repeat import RepeatTally
    from evofeat.registry import resolve
    from evofeat.streams import load_permutations

    lp = parse_params(params, "--param")
    sp_ = parse_params(scenario_params, "--scenario-param")
    learner = _learner_name(learner, scenario)
    learner, preprocess = split_online(learner, preprocess)  # an online step: the learner's
    entry = resolve(learner)  # the name resolved once: its kind, parameters and factory
    kind = entry.kind
    proto = None
    if protocol:  # a paper's settings, the flags given on top
        from evofeat.experiments.protocols import cli_setting

        proto = cli_setting(protocol, learner, dataset, lp, sp_, scenario, preprocess, perm_file)
        lp, sp_, scenario = dict(proto.params), dict(proto.scenario_params), proto.scenario
        preprocess = proto.preprocess
    scenario = check_scenario(learner, scenario)  # online learners: the given one or full
    _check_param_kinds(learner, lp, entry.parameters())
    _check_run_args(dataset, scenario, sp_, label_column)
    entry.make(**lp)  # validate the parameters before any work
    if kind != "online" and perm_file:
        raise InputError(
            f"--permutations applies to the online learners, not to {learner}",
            expected="no --permutations",
            received=perm_file,
            fix=f"drop --permutations; the {scenario} scenario draws its rows from --seed",
        )

    stream_path = _streamable(
        dataset, kind, scenario, repeats, perm_file, preprocess, sp_, label_column, reading
    )
    summary_of = partial(
        summarize_run,
        entry=entry,
        params=lp,
        dataset=dataset,
        protocol=protocol,
        scenario=scenario,
        scenario_params=sp_,
        preprocess=preprocess,
        seed=seed,
        permutations=perm_file,
        streamed=stream_path is not None,
    )
    try:
        if stream_path is not None:
            stream = stream_path
            df = repeat(
                learner,
                stream,
                scenario,
                repeats=1,
                n_jobs=1,
                params=lp,
                seed=seed,
                progress=progress,
                tally=tally,
            )
        elif proto is not None:
            from evofeat.experiments.protocols import protocol_runner

            df = repeat(
                learner,
                proto,
                scenario,
                repeats=repeats,
                n_jobs=jobs,
                runner=protocol_runner,
                seed=seed,
                progress=progress,
                tally=tally,
            )
        else:
            kw: dict[str, Any] = {"preprocess": preprocess, **(reading or {})}
            if label_column is not None:
                kw["label_column"] = label_column
            data = _load(dataset, **kw)
            perms = load_permutations(perm_file, data.X.shape[0]) if perm_file else None
            if perms is not None and len(perms) < repeats:
                raise InputError(
                    "not enough permutations in the file",
                    expected=f"at least {repeats} lines",
                    received=f"{len(perms)}",
                    fix="use fewer --repeats",
                )
            if kind != "online":
                from evofeat.evaluate.batch import repeat_batch

                df = repeat_batch(
                    learner,
                    lp,
                    data,
                    scenario,
                    sp_,
                    repeats=repeats,
                    seed=seed,
                    n_jobs=jobs,
                    progress=progress,
                    tally=tally,
                )
            else:
                df = repeat(
                    learner,
                    data,
                    scenario,
                    repeats=repeats,
                    n_jobs=jobs,
                    params=lp,
                    scenario_params=sp_,
                    seed=seed,
                    permutations=perms,
                    progress=progress,
                    tally=tally,
                )
    except (KeyboardInterrupt, WorkerDied) as exc:  # keep the repeats that finished
        if not isinstance(tally, RepeatTally) or tally.n == 0:
            raise
        failure = str(exc) if isinstance(exc, WorkerDied) else None
        summary = {**summary_of(tally, tally.n), "repeats_asked": repeats}
        raise Interrupted(summary, failure) from None
    return summary_of(df, repeats), df


def _check_param_kinds(learner: str, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """A ``--param`` whose default is a number must be a number (not true/false, not text).

    >>> _check_param_kinds("pa-i", {"C": "abc"}, {"C": 1.0})
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: bad --param C=abc for pa-i: expected a number (the default is 1.0), received 'abc', which is not a number; fix: write e.g. --param C=1.0
    """
    for key, value in given.items():
        default = defaults.get(key)
        number = isinstance(default, int | float) and not isinstance(default, bool)
        if isinstance(default, bool) and not isinstance(value, bool):
            want, bad = "true or false", f"{value!r}"
        elif number and (isinstance(value, bool) or not isinstance(value, int | float)):
            want = f"a number (the default is {show_value(default)})"
            bad = f"{show_value(value)}, a boolean" if isinstance(value, bool) else f"{value!r}"
            bad += "" if isinstance(value, bool) else ", which is not a number"
        else:
            continue
        raise InputError(
            f"bad --param {key}={show_value(value)} for {learner}",
            expected=want,
            received=bad,
            fix=f"write e.g. --param {key}={show_value(default)}",
        )


def _check_run_args(
    dataset: str, scenario: str, scenario_params: Mapping[str, Any], label_column: str | None
) -> None:
    """Options that would be ignored are refused: parameters of the full scenario, and
    ``--label-column`` for a registered data set (its label is known)."""
    if scenario == "full" and scenario_params:
        raise InputError(
            "the full scenario takes no parameters",
            expected="no --scenario-param with --scenario full (the default)",
            received=", ".join(f"{k}={show_value(v)}" for k, v in scenario_params.items()),
            fix="drop --scenario-param, or pick a scenario that takes them (trapezoidal, "
            "evolvable, haphazard)",
        )
    if label_column is not None and dataset != "-" and not Path(dataset).exists():
        from evofeat.datasets.catalogue import get_entry

        try:
            name = get_entry(dataset).name
        except KeyError:
            return  # not registered either: loading it names the problem
        raise InputError(
            f"--label-column is for a file of your own, not the registered data set {name}",
            expected="no --label-column (a registered data set's label is known)",
            received=f"--label-column {label_column}",
            fix="drop --label-column",
        )


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or a worker's death) after some repeats finished: ``summary`` is the summary of
    those; ``failure`` says what failed when it was not a signal (a worker process died)."""

    def __init__(self, summary: dict[str, Any], failure: str | None = None) -> None:
        super().__init__()
        self.summary = summary
        self.failure = failure


def mean_loss(row: Mapping[str, Any]) -> dict[str, float]:
    """A repeat's mean loss over its scored rows (the score of regressors), when it has one."""
    if row.get("cumulative_loss") is None or row.get("n_scored") is None:
        return {}
    return {"mean_loss": float(row["cumulative_loss"]) / max(1, int(row["n_scored"]))}


def reading_options(task: str | None, zero_based: bool | None) -> dict[str, Any]:
    """The options given for reading a user's file, as :func:`evofeat.datasets.load` takes them.

    >>> reading_options(None, None), reading_options("regression", True)
    ({}, {'task': 'regression', 'zero_based': True})
    """
    given = {"task": task, "zero_based": zero_based}
    return {k: v for k, v in given.items() if v is not None}


def _learner_name(name: str, scenario: str | None) -> str:
    """The registered name (case-insensitive); "did you mean" offers names that run ``scenario``."""
    from evofeat.evaluate.repeat import SCENARIOS
    from evofeat.registry import canonical

    try:
        return canonical(name)
    except InputError:
        owner = {"incdec": "onepass", "feature-stream": "selector"}
        kind = owner.get(scenario or "", "online" if scenario in SCENARIOS else None)
        return canonical(name, kind=kind)


@lru_cache(maxsize=2)
def _load(dataset: str, **kw: Any) -> Any:
    """``evofeat.datasets.load``, once per command (``compare`` runs every learner on it)."""
    from evofeat.datasets import load

    return load(dataset, **kw)


def compare_args(
    names: str, params: tuple[str, ...], scenario: str | None
) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """The learners (registered names, one kind, no repeats) and each one's ``--param`` list."""
    from evofeat.registry import kind_of

    learners = [_learner_name(n, scenario) for n in names.split(",") if n.strip()]
    if len(set(learners)) < 2 or len(set(learners)) != len(learners):
        raise InputError(
            "compare needs two or more different learners",
            expected="--learners A,B[,C...] with no name twice",
            received=names,
            fix="write e.g. --learners pa-i,stsd-i,ofs",
        )
    kinds = {n: kind_of(n) for n in learners}
    if len(set(kinds.values())) > 1:
        raise InputError(
            "compare runs learners of one kind (they need the same scenario)",
            expected="only online learners, only one-pass estimators or only selectors",
            received=", ".join(f"{n} ({k})" for n, k in kinds.items()),
            fix="`evofeat learners` gives each learner's kind",
        )
    per: dict[str, list[str]] = {n: [] for n in learners}
    for item in params:
        head, sep, kv = item.partition(":")
        name = _learner_name(head, scenario) if sep and "=" not in head else None
        if name not in per:
            raise InputError(
                f"bad --param {item!r}",
                expected="LEARNER:K=V with LEARNER one of " + ", ".join(learners),
                received=item,
                fix=f"write e.g. --param {learners[0]}:C=0.1",
            )
        per[name].append(kv)
    return learners, {n: tuple(v) for n, v in per.items()}
