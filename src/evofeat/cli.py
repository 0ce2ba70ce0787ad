"""The ``evofeat`` command: data sets, single runs, paper reproductions, the demo."""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import warnings
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import click

from evofeat.base.errors import InputError

__all__ = ["main"]


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


def _parse_params(items: tuple[str, ...], option: str) -> dict[str, Any]:
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


def _fail(exc: BaseException) -> None:
    """``error: <message>`` on stderr, exit 2 (a full disk or another write failure said as such)."""
    if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):
        click.echo(f"error: {_what_failed(exc)}", err=True)
    else:
        click.echo(f"error: {exc}", err=True)
    sys.exit(2)


def _show_warning(
    message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any
) -> None:
    """A warning as a command-line user reads it: ``warning: <message>`` on stderr."""
    click.echo(f"warning: {message}", err=True)


class _Group(click.Group):
    """The command group, with the shell's conventions for the way a command ends.

    Ctrl-C exits 130 with one line (not click's ``Aborted!``), and SIGTERM
    and SIGHUP are handled as Ctrl-C (exit 143 and 129: 128 + the signal); a
    usage error exits 2 with click's message; a worker process that died
    exits 1 saying so; anything unexpected exits 1 with one line naming it
    (``EVOFEAT_TRACEBACK=1`` shows the traceback).
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if kwargs.get("standalone_mode") is False:  # a caller that handles the outcome itself
            return super().main(*args, **kwargs)
        from evofeat._parallel import WorkerDied, stop_on_signals

        kwargs["standalone_mode"] = False
        stop_on_signals()
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning  # one line, not evofeat's source location
                out = super().main(*args, **kwargs)
        except (KeyboardInterrupt, click.exceptions.Abort):
            click.echo(f"\ninterrupted{_by_signal()}", err=True)
            sys.exit(_interrupted_code())
        except WorkerDied as exc:
            click.echo(f"error: {exc}; nothing of the unfinished work was kept", err=True)
            sys.exit(1)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except BrokenPipeError:  # `evofeat ... | head`
            sys.stderr.close()
            sys.exit(1)
        except Exception as exc:
            if os.environ.get("EVOFEAT_TRACEBACK"):
                raise
            first = str(exc).splitlines()[0] if str(exc) else ""
            click.echo(
                f"error: unexpected {type(exc).__name__}: {first} "
                "(a bug in evofeat: please report it; EVOFEAT_TRACEBACK=1 shows where)",
                err=True,
            )
            sys.exit(1)
        sys.exit(out if isinstance(out, int) else 0)


def _interrupted_code() -> int:
    """The exit code of an interrupted command: 128 + the signal (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""
    from evofeat._parallel import stop_signal

    return 128 + int(stop_signal())


def _by_signal() -> str:
    """`` (SIGTERM)`` when a signal other than Ctrl-C's stopped the command, else nothing."""
    from evofeat._parallel import stop_signal

    name = stop_signal().name
    return "" if name == "SIGINT" else f" ({name})"


_USER_ERRORS: tuple[type[BaseException], ...] = (InputError, KeyError, FileNotFoundError)


def _user_errors() -> tuple[type[BaseException], ...]:
    try:
        from evofeat.datasets import DataFormatError, DataNotFoundError

        return (*_USER_ERRORS, DataFormatError, DataNotFoundError)
    except ImportError:  # pragma: no cover
        return _USER_ERRORS


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(None, "-V", "--version", package_name="evofeat")
def main() -> None:
    """Online learning on streams whose feature space changes (STSD, OFS, FESL, OPID, CEOFS)."""


@main.group(invoke_without_command=True)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.pass_context
def datasets(ctx: click.Context, fmt: str) -> None:
    """List the known data sets and where each was found (`datasets download NAME` fetches one)."""
    if ctx.invoked_subcommand is None:
        _echo_datasets(fmt)


@datasets.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default=None)
@click.pass_context
def datasets_list(ctx: click.Context, fmt: str | None) -> None:
    """Each data set's rows, features, task, status (here / not downloaded / not public), where."""
    _echo_datasets(fmt or (ctx.parent.params["fmt"] if ctx.parent else "text"))


def _echo_datasets(fmt: str) -> None:
    from evofeat.datasets import list_datasets

    infos = list_datasets()
    if fmt == "json":
        click.echo(json.dumps([_info_dict(i) for i in infos], indent=1, default=str))
        return
    click.echo(f"{'name':<22} {'rows':>8} {'features':>9} {'task':<11} {'status':<15} where")
    for i in infos:
        d = _info_dict(i)
        state = d.get("status", "here")
        if d.get("bundled"):
            where = "bundled"
        elif state == "here":
            where = str(d.get("found_at"))
        elif state == "not public":
            tables = ", ".join(d.get("used_by") or ["-"])
            where = f"needed by {tables} (evofeat datasets download {d['name']} says why)"
        else:
            where = f"evofeat datasets download {d['name']}"
        click.echo(
            f"{d['name']:<22} {d.get('rows', ''):>8} {d.get('features', ''):>9} "
            f"{d.get('task', ''):<11} {state:<15} {where}"
        )


@datasets.command("download")
@click.argument("names", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every data set that has a downloadable source.")
@click.option(
    "--dest",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder to store into (default: the user cache folder, searched after $EVOFEAT_DATA).",
)
@click.option("--url", default=None, help="An https:// address of a copy (one data set, one file).")
@click.option(
    "--paper",
    default=None,
    help="Every data set a paper's tables need (stsd, ofs, fesl, opid, ceofs) that can be fetched.",
)
def datasets_download(
    names: tuple[str, ...], all_: bool, dest: str | None, url: str | None, paper: str | None
) -> None:
    """Fetch data sets over HTTPS, check their sha256 and store them gzipped."""
    from evofeat.datasets.fetch import download_many

    try:
        for line in download_many(names, all_=all_, dest=dest, url=url, paper=paper):
            click.echo(line)
    except _user_errors() + (ValueError,) as exc:
        _fail(exc)


def _info_dict(info: Any) -> dict[str, Any]:
    if isinstance(info, dict):
        return info
    if hasattr(info, "_asdict"):
        return dict(info._asdict())
    from dataclasses import asdict, is_dataclass

    return asdict(info) if is_dataclass(info) and not isinstance(info, type) else dict(vars(info))


@main.command()
@click.option(
    "--kind",
    type=click.Choice(["online", "onepass", "selector"]),
    default=None,
    help="Only this kind (default: all).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def learners(kind: str | None, fmt: str) -> None:
    """List every registered learner: its kind, task and parameters (with their defaults).

    \b
    online    test-then-train on streams (scenarios full, trapezoidal, evolvable, haphazard)
    onepass   one-pass incremental/decremental estimators (scenario incdec)
    selector  streaming feature selectors (scenario feature-stream)
    Names are case-insensitive; set a parameter with `evofeat run --param K=V`.
    """
    from evofeat.registry import all_names, describe

    infos = [describe(n) for n in all_names(kind)]
    if fmt == "json":
        click.echo(json.dumps(_clean(infos), indent=1, default=str))
        return
    click.echo(f"{'name':<16} {'kind':<9} {'task':<15} parameters (defaults)")
    for i in infos:
        shown = ", ".join(f"{k}={_show(v)}" for k, v in i["params"].items())
        click.echo(f"{i['name']:<16} {i['kind']:<9} {i['task']:<15} {shown}")


def _show(value: Any) -> str:
    """A default as it is written on the command line (``--param K=V``)."""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _options(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator that adds several click options (in this order), for commands that share them."""

    def apply(fn: Any) -> Any:
        for decorate in reversed(decorators):
            fn = decorate(fn)
        return fn

    return apply


_DATA_OPTIONS = _options(
    click.option(
        "--dataset",
        required=True,
        help="Data set name, or a path to a .libsvm/.csv/.arff file or to JSON Lines "
        "(.jsonl: one object of features and a label a line, streamed), or - for standard "
        "input: JSON Lines if its first non-blank character (after any byte-order mark) is '{', "
        "else LIBSVM (streamed; stderr says which).",
    ),
    click.option(
        "--scenario",
        default=None,
        help="full, trapezoidal, evolvable, haphazard (online learners; default full), "
        "incdec (opid, opide, svm, svm-s, svm-a; their default) or "
        "feature-stream (selectors; their default).",
    ),
    click.option(
        "--scenario-param",
        "scenario_params",
        multiple=True,
        metavar="K=V",
        help="Scenario parameter (repeatable), e.g. n_stages=10.",
    ),
    click.option(
        "--preprocess",
        default="none",
        show_default=True,
        help="none, zscore, unit-norm, minmax (or a registered name): over the whole file, so "
        "they look ahead in the stream; or online-zscore, online-quantile: learned by the "
        "online learner from the rows seen so far (the learner L runs as online-zscore+L).",
    ),
    click.option(
        "--label-column",
        default=None,
        help="The label: a CSV column by name or position (default: the last column) or a "
        "JSON Lines key (default: 'y', else 'label').",
    ),
    click.option(
        "--task",
        type=click.Choice(["binary", "multiclass", "regression"]),
        default=None,
        help="The task of a user's file (default: inferred from the labels: two values "
        "binary, non-integral numbers regression, else multiclass).",
    ),
    click.option(
        "--zero-based/--one-based",
        "zero_based",
        default=None,
        help="Whether a user's LIBSVM file numbers its features from 0 (default: 1-based "
        "unless index 0 appears, then read as 0-based with a warning; --one-based refuses "
        "index 0).",
    ),
)
_REPEAT_OPTIONS = _options(
    click.option(
        "--seed", default=0, show_default=True, type=int, help="Base seed; repeat r uses seed + r."
    ),
    click.option(
        "--permutations",
        "perm_file",
        type=click.Path(dir_okay=False),
        default=None,
        help="File of row orders (one per line) used instead of seeded permutations (online learners).",
    ),
    click.option(
        "--jobs",
        default=1,
        show_default=True,
        type=int,
        help="Parallel repeats (-1: all cores; never more workers than cores or repeats). One "
        "process by default: a repeat of most data sets takes less time than starting a worker "
        "(reproduce, whose cells are long, uses all cores by default).",
    ),
    click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
    ),
)


_RUN_HELP = """Run one learner on one data set and scenario, over repeats.

\b
Online learners (perceptron, pa-i, stsd-i, ofs, fesl-s, ...) run test-then-train
over permutations of the rows; scenarios full (default), trapezoidal,
evolvable, haphazard. A LIBSVM file (--dataset path.libsvm[.gz], .svm, .txt)
or a delimited-text file (.csv[.gz], .tsv, .data, .dat) with the full
scenario, --repeats 1, no --permutations and --preprocess none is streamed
from disk in chunks, in bounded memory, in file order (in a streamed CSV a
missing value, '?' or an empty field, is an absent feature); the other
scenarios, row permutations and preprocessing need the rows in memory, so
the file is then loaded whole (rows with a missing value dropped; a CSV over
2 GiB is refused, with how to stream it). --dataset - streams standard input:
JSON Lines when its first non-blank character is '{', otherwise LIBSVM
(e.g. zcat big.libsvm.gz | evofeat run --learner pa-i --dataset -); stderr
says which, and the first pass copies the input to a temporary file, deleted
at the end, for the second.

\b
One-pass estimators (opid, opide, svm, svm-s, svm-a) run on the incdec
scenario (the default for them): --scenario-param d_v, d_s, d_a (counts or
fractions), batch_size, n_cstage, n_estage, columns, cstage_rows,
estage_balanced, seed; defaults: the OPID paper's Table 1 row for dna and
splice, otherwise 0.25/0.5/0.25 of the features (see
evofeat.evaluate.batch.incdec_defaults). Accuracy and mistakes are on the
E-stage test half.

\b
Feature selectors (ceofs, cofs, alpha-investing, osfs, fast-osfs, saola) run
on the feature-stream scenario (the default for them): --scenario-param
historical_fraction (0.8), folds (10), classifier (svm: RBF, C=1; knn3; or
both, svm,knn3), seed. Selection runs inside each training fold; accuracy and
mistakes are pooled over the test folds (the first classifier); n_selected is
the mean over the folds; each classifier's accuracy and the features kept are
also summarised over every test fold of every repeat (fold_accuracy_svm, ...);
select=false runs no selector (the classifiers see every feature).
"""


@main.command(help=_RUN_HELP)
@click.option(
    "--learner",
    default="auto",
    show_default=True,
    help="Learner name, e.g. auto, pa-i, stsd-i, ofs, fesl-s, opid, ceofs.",
)
@click.option(
    "--param", "params", multiple=True, metavar="K=V", help="Learner parameter (repeatable)."
)
@_DATA_OPTIONS
@click.option(
    "--protocol",
    default=None,
    help="A paper's settings for this data set and learner (stsd-authors, stsd-published, "
    "stsd-paper, ofs, ofs-unit-norm, fesl, opid, ceofs; see evofeat.experiments.protocols); the other flags override "
    "them. Each reproduction report names the command of each of its rows.",
)
@click.option(
    "--repeats",
    default=1,
    show_default=True,
    type=click.IntRange(1),
    help="Repeats to run (an online learner's repeat r: seed + r, or line r of "
    "--permutations). Each repeat is summarised as it finishes and its line of repeats.csv "
    "written then, so memory does not grow with the number of repeats; summary.json lists "
    "every repeat's value up to 1000 repeats (beyond, mean and std only: the values are in "
    "repeats.csv).",
)
@_REPEAT_OPTIONS
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write summary.json, repeats.csv and (online learners) the curve here: the "
    "mistake rate (the average loss for regressors), mean and ±1 std band over the repeats, "
    "the scenario's stage boundaries; as CSV, PNG and SVG. Ctrl-C (or SIGTERM, SIGHUP) keeps "
    "the repeats that finished: the folder is written with those (summary.json says "
    '"interrupted": true, repeats_done and repeats_asked), stderr says how to run the rest, '
    "and the command exits 130 (143, 129).",
)
def run(
    learner: str,
    params: tuple[str, ...],
    dataset: str,
    scenario: str | None,
    scenario_params: tuple[str, ...],
    preprocess: str,
    label_column: str | None,
    task: str | None,
    zero_based: bool | None,
    protocol: str | None,
    repeats: int,
    seed: int,
    perm_file: str | None,
    jobs: int,
    fmt: str,
    out: str | None,
) -> None:
    from evofeat._scratch import make_scratch
    from evofeat.evaluate.repeat import RepeatTally

    errors: tuple[type[BaseException], ...] = (*_user_errors(), ValueError, OSError)
    scratch = None
    try:
        if out:
            _check_writable(Path(out))  # before the run, not after it
            # repeats.csv is written as the repeats finish, into a scratch folder beside --out
            try:
                parent = Path(out).absolute().parent
                parent.mkdir(parents=True, exist_ok=True)  # --out a/b/c: created as promised
                scratch = make_scratch(parent, f"{Path(out).name}.")
            except OSError as exc:  # name --out, not the hidden scratch folder
                raise InputError(
                    f"cannot write the results to --out {out}: {exc.strerror or exc}",
                    expected="a folder that can be created or written into",
                    fix="pick another --out",
                ) from None
        with (
            RepeatTally(
                None if scratch is None else scratch / "repeats.csv", derive=_mean_loss
            ) as tally,
            _progress(repeats, f"{learner} on {dataset}", "repeat") as step,
        ):
            summary, _ = _run(
                learner,
                params,
                dataset,
                scenario,
                scenario_params,
                preprocess,
                label_column,
                repeats,
                seed,
                perm_file,
                jobs,
                protocol,
                progress=step,
                tally=tally,
                reading=_reading(task, zero_based),
            )
        if out:
            _write_out(tally, summary, Path(out))
    except _Interrupted as stop:  # Ctrl-C after some repeats finished: keep them
        _keep_interrupted(stop.summary, tally, None if out is None else Path(out))
    except errors as exc:
        # bad input: a message, exit 2, no traceback (and no --out folder: it is written last)
        _fail(exc)
        return
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if fmt == "json":
        click.echo(json.dumps(summary, default=float, allow_nan=False))
        return
    _print_text(summary)


def _fmt_stat(stat: dict[str, Any] | None, digits: int) -> str:
    """``mean ± std`` over repeats; the value alone for one repeat (no spread to show).

    >>> _fmt_stat({"mean": 3.0, "std": 0.0, "values": [3]}, 1), _fmt_stat({"mean": 3.0, "std": 1.0, "values": [2, 4]}, 1)
    ('3.0', '3.0 ± 1.0')
    """
    if stat is None:
        return "n/a"
    if len(stat.get("values", ())) == 1 or (stat["std"] == 0 and "values" not in stat):
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} ± {stat['std']:.{digits}f}"


def _print_text(summary: dict[str, Any]) -> None:
    n = summary["repeats"]
    source = "standard input" if summary["dataset"] == "-" else "disk"
    streamed = f", streamed from {source}" if summary.get("streamed") else ""
    every = (summary.get("scenario_params") or {}).get("select") is False  # no selector ran
    click.echo(
        f"{'every feature (no selector)' if every else summary['learner']} on "
        f"{summary['dataset']} ({summary['scenario']}, {n} repeat"
        f"{'s' if n > 1 else ''}{streamed})"
    )
    scored = (
        f"   ({summary['n_scored']} rows scored)" if summary.get("n_scored") is not None else ""
    )
    if summary.get("mistakes") is None and summary.get("mean_loss") is not None:  # regression
        click.echo(f"  mean loss   {_fmt_stat(summary['mean_loss'], 6)}{scored}")
        click.echo(f"  total loss  {_fmt_stat(summary['cumulative_loss'], 4)}")
    else:
        click.echo(f"  mistakes    {_fmt_stat(summary['mistakes'], 1)}{scored}")
        click.echo(f"  accuracy    {_fmt_stat(summary['accuracy'], 4)}")
    if "n_selected" in summary:
        click.echo(f"  n_selected  {_fmt_stat(summary['n_selected'], 1)}")
    folds = {k[5:]: v for k, v in summary.items() if k.startswith("fold_") and v is not None}
    if folds:  # a cross-validated selector: every test fold of every repeat
        n_folds = summary.get("scenario_params", {}).get("folds", "")
        click.echo(
            f"  per test fold (mean ± std over {n_folds} folds x {n} repeat{'s' if n > 1 else ''}):"
        )
        for name, stat in folds.items():
            value = (
                f"{stat['mean']:.4f} ± {stat['std']:.4f}"
                if "accuracy" in name
                else f"{stat['mean']:.1f} ± {stat['std']:.1f}"
            )
            click.echo(f"    {name:<15} {value}")
    click.echo(f"  seconds     {_fmt_stat(summary['seconds'], 3)}")


def _clean(value: Any) -> Any:
    """JSON-safe: NaN and inf become None (null), numpy scalars plain numbers, containers recursed."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not hasattr(value, "__len__"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _stat(df: Any, column: str, values: bool = True) -> dict[str, Any] | None:
    """``summarize`` of a column; None when the column is missing or undefined (NaN) in every repeat."""
    from evofeat.evaluate import summarize
    from evofeat.evaluate.repeat import RepeatTally

    if isinstance(df, RepeatTally):
        return df.stat(column, values)
    if column not in df:
        return None
    vals = df[column].tolist()
    if all(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
        return None
    stat = summarize(vals)
    if not values:
        stat.pop("values")
    return stat


def _fold_stat(df: Any, column: str) -> dict[str, Any] | None:
    """``summarize`` of a per-fold list column over every fold of every repeat (None if missing).

    >>> import pandas as pd
    >>> _fold_stat(pd.DataFrame({"fold_a": [[0.5, 1.0], [0.75]]}), "fold_a")
    {'mean': 0.75, 'std': 0.25, 'values': [0.5, 1.0, 0.75]}
    """
    from evofeat.evaluate import summarize
    from evofeat.evaluate.repeat import RepeatTally

    if isinstance(df, RepeatTally):
        return df.stat(column)
    if column not in df:
        return None
    return summarize([v for folds in df[column] for v in folds])


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


def _run(
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
    for reading a user's file (``task``, ``zero_based``; :func:`_reading`). Ctrl-C after at least one repeat
    of the tally finished raises :class:`_Interrupted` with the summary of those repeats."""
    from evofeat.datasets.preprocessing import split_online
    from evofeat.evaluate import repeat
    from evofeat.evaluate.batch import check_scenario
    from evofeat.evaluate.repeat import RepeatTally, scenario_params_used
    from evofeat.registry import kind_of, make, parameters
    from evofeat.streams import load_permutations

    lp = _parse_params(params, "--param")
    sp_ = _parse_params(scenario_params, "--scenario-param")
    learner = _learner_name(learner, scenario)
    learner, preprocess = split_online(learner, preprocess)  # an online step: the learner's
    kind = kind_of(learner)
    proto = None
    if protocol:  # a paper's settings, the flags given on top
        from evofeat.experiments.protocols import cli_setting

        proto = cli_setting(protocol, learner, dataset, lp, sp_, scenario, preprocess, perm_file)
        lp, sp_, scenario = dict(proto.params), dict(proto.scenario_params), proto.scenario
        preprocess = proto.preprocess
    scenario = check_scenario(learner, scenario)  # online learners: the given one or full
    _check_param_kinds(learner, lp, parameters(learner))
    _check_run_args(dataset, scenario, sp_, label_column)
    make(learner, **lp)  # validate the name and the parameters before any work
    if kind != "online" and perm_file:
        raise InputError(
            f"--permutations applies to the online learners, not to {learner}",
            expected="no --permutations",
            received=perm_file,
            fix=f"drop --permutations; the {scenario} scenario draws its rows from --seed",
        )

    def summary_of(df: Any, done: int) -> dict[str, Any]:
        """The summary of the ``done`` repeats in ``df`` (a DataFrame or the tally)."""
        used = sp_
        first = df.first if isinstance(df, RepeatTally) else df.iloc[0]
        if kind == "online":  # the parameters used, defaults filled in
            used = scenario_params_used(scenario, sp_)
        elif "scenario_params" in first:  # the batch runs report theirs, defaults filled in
            used = {
                k: v
                for k, v in dict(first["scenario_params"]).items()
                if k != "seed" or "seed" in sp_
            }
        run_params = {**parameters(learner), **lp}
        if kind != "online" and "seed" in run_params and "seed" not in lp:
            run_params["seed"] = f"{seed} + repeat"  # a batch learner's seed is the repeat's
        summary: dict[str, Any] = {
            "learner": learner,
            "kind": kind,
            "params": run_params,
            "dataset": dataset,
            "protocol": protocol,
            "scenario": scenario,
            "scenario_params": used,
            "preprocess": preprocess,
            "repeats": done,
            "seed": seed,
            "permutations": perm_file,
            "streamed": stream_path is not None,
            "mistakes": _stat(df, "mistakes"),
            "accuracy": _stat(df, "accuracy"),
            "seconds": _stat(df, "seconds", values=False),
        }
        columns = df.columns if isinstance(df, RepeatTally) else list(df)
        regression = summary["accuracy"] is None and "cumulative_loss" in columns
        if regression:  # no mistakes to count: the loss is the score
            summary["mistakes"] = None
        if kind == "selector":
            summary["n_selected"] = _stat(df, "n_selected")
            given = dict(first.get("scenario_params") or {}).get("classifier", "svm")
            for c in given if isinstance(given, list | tuple) else [given]:
                summary[f"fold_accuracy_{c}"] = _fold_stat(df, f"fold_accuracy_{c}")
            summary["fold_n_selected"] = _fold_stat(df, "fold_n_selected")
        if "cumulative_loss" in columns:
            summary["cumulative_loss"] = _stat(df, "cumulative_loss", values=regression)
            if regression and "n_scored" in columns:
                if isinstance(df, RepeatTally):
                    summary["mean_loss"] = df.stat("mean_loss", values=regression)
                else:
                    summary["mean_loss"] = _stat(
                        df.assign(mean_loss=df["cumulative_loss"] / df["n_scored"].clip(lower=1)),
                        "mean_loss",
                        values=regression,
                    )
        if "n_scored" in columns:
            summary["n_scored"] = int(first["n_scored"])
        return _clean(summary)

    stream_path = _streamable(
        dataset, kind, scenario, repeats, perm_file, preprocess, sp_, label_column, reading
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
    except KeyboardInterrupt:
        if not isinstance(tally, RepeatTally) or tally.n == 0:
            raise
        raise _Interrupted({**summary_of(tally, tally.n), "repeats_asked": repeats}) from None
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
            want = f"a number (the default is {_show(default)})"
            bad = f"{_show(value)}, a boolean" if isinstance(value, bool) else f"{value!r}"
            bad += "" if isinstance(value, bool) else ", which is not a number"
        else:
            continue
        raise InputError(
            f"bad --param {key}={_show(value)} for {learner}",
            expected=want,
            received=bad,
            fix=f"write e.g. --param {key}={_show(default)}",
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
            received=", ".join(f"{k}={_show(v)}" for k, v in scenario_params.items()),
            fix="drop --scenario-param, or pick a scenario that takes them (trapezoidal, "
            "evolvable, haphazard)",
        )
    if label_column is not None and dataset != "-" and not Path(dataset).exists():
        from evofeat.datasets.registry import get_entry

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


class _Interrupted(KeyboardInterrupt):
    """Ctrl-C after some repeats finished: ``summary`` is the summary of those."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__()
        self.summary = summary


def _keep_interrupted(summary: dict[str, Any], tally: Any, out: Path | None) -> None:
    """Keep the repeats that finished before Ctrl-C (or SIGTERM, SIGHUP), say so on stderr, and exit.

    With ``out``, it is written as a finished run's would be (repeats.csv of the finished
    repeats, their curves, summary.json marked ``interrupted`` with ``repeats_done`` and
    ``repeats_asked``; moved in whole, summary last), and the message says how to run the
    repeats that did not finish; without, their summary is one line. The exit code is
    128 + the signal (130 for Ctrl-C).
    """
    done, asked = summary["repeats"], summary.pop("repeats_asked")
    summary = {**summary, "interrupted": True, "repeats_done": done, "repeats_asked": asked}
    stopped = f"\ninterrupted{_by_signal()}: {done} of {asked} repeats finished"
    if out is not None:
        try:
            _write_out(tally, summary, out)
        except InputError as exc:  # e.g. the disk filled up meanwhile: say so, still exit 130
            click.echo(f"{stopped}; {exc}", err=True)
            sys.exit(_interrupted_code())
        click.echo(f"{stopped}, kept in {out}; {_rest_hint(summary, out)}", err=True)
    else:
        score = (
            f"mean loss {_fmt_stat(summary.get('mean_loss'), 6)}"
            if summary.get("mistakes") is None and summary.get("mean_loss") is not None
            else f"mistakes {_fmt_stat(summary['mistakes'], 1)}, "
            f"accuracy {_fmt_stat(summary['accuracy'], 4)}"
        )
        click.echo(
            f"{stopped}: {summary['learner']} on {summary['dataset']} ({summary['scenario']}): "
            f"{score}",
            err=True,
        )
    sys.exit(_interrupted_code())


def _rest_hint(summary: dict[str, Any], out: Path) -> str:
    """How to run the repeats an interrupted run did not finish (repeat r uses seed + r)."""
    import csv

    asked, seed = int(summary["repeats_asked"]), int(summary["seed"])
    try:
        with (out / "repeats.csv").open(encoding="utf-8", newline="") as fh:
            done = {int(row["repeat"]) for row in csv.DictReader(fh) if row.get("repeat")}
    except (OSError, ValueError, KeyError):
        done = set()
    rest = [r for r in range(asked) if r not in done]
    if done and not summary.get("permutations") and rest == list(range(rest[0], asked)):
        return (
            f"to run the other {len(rest)}, run the same command with --seed {seed + rest[0]} "
            f"--repeats {len(rest)} and another --out (repeat r uses seed + r)"
        )
    return "repeats.csv lists the repeats that finished (a new run starts again from repeat 0)"


def _mean_loss(row: Mapping[str, Any]) -> dict[str, float]:
    """A repeat's mean loss over its scored rows (the score of regressors), when it has one."""
    if row.get("cumulative_loss") is None or row.get("n_scored") is None:
        return {}
    return {"mean_loss": float(row["cumulative_loss"]) / max(1, int(row["n_scored"]))}


def _reading(task: str | None, zero_based: bool | None) -> dict[str, Any]:
    """The options given for reading a user's file, as :func:`evofeat.datasets.load` takes them.

    >>> _reading(None, None), _reading("regression", True)
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


def _progress(total: int, desc: str, unit: str) -> Any:
    """A progress display on stderr for ``total`` steps (none for a single step)."""
    from contextlib import nullcontext

    from evofeat._progress import Progress

    return Progress(total, desc, unit=unit) if total > 1 else nullcontext(None)


def _check_writable(out: Path) -> None:
    """Raise :class:`InputError` naming ``out`` when it cannot be created or written into."""
    target = out if out.exists() else next((p for p in out.parents if p.exists()), Path("."))
    problem = ""
    if out.exists() and not out.is_dir():
        problem = "it exists and is not a folder"
    elif not target.is_dir():
        problem = f"{target} is not a folder"
    elif not os.access(target, os.W_OK | os.X_OK):
        problem = f"{target} is not writable"
    if problem:
        raise InputError(
            f"cannot write the results to --out {out}: {problem}",
            expected="a folder that can be created or written into",
            received=str(out),
            fix="pick another --out",
        )


def _write_out(df: Any, summary: dict[str, Any], out: Path) -> None:
    """Write summary.json, repeats.csv and the curve into ``out`` all at once.

    Everything is written into a hidden folder beside ``out`` first and moved
    in only when complete, so a failure leaves ``out`` as it was. The folder
    gets the usual permissions (those of ``mkdir`` under the user's umask).
    """
    _write_atomically(out, lambda tmp: _write_files(df, summary, tmp))


#: the files `run --out` and `compare --out` write: one left by the other command is removed
_OUTPUTS = frozenset(
    {"summary.json", "repeats.csv", "pairs.csv", "curve.csv", "curve.png", "curve.svg"}
)


def _write_atomically(out: Path, write: Callable[[Path], None]) -> None:
    """:func:`evofeat._scratch.write_atomically` into ``--out`` (summary.json last); a failure to
    write is an :class:`InputError` naming ``--out``."""
    from evofeat._scratch import write_atomically

    try:
        write_atomically(out, write, last="summary.json", stale=_OUTPUTS)
    except OSError as exc:
        raise InputError(
            f"cannot write the results to --out {out}: {_what_failed(exc)}",
            expected="a folder with room and permission to write",
            fix="pick another --out",
        ) from None


def _write_files(df: Any, summary: dict[str, Any], tmp: Path) -> None:
    from evofeat.evaluate.repeat import RepeatTally

    (tmp / "summary.json").write_text(
        json.dumps(summary, indent=1, default=float) + "\n", encoding="utf-8"
    )
    title = f"{summary['dataset']} ({summary['scenario']})"
    if isinstance(df, RepeatTally):  # repeats.csv written as the repeats finished
        df.close()
        if df.csv_path is not None and df.csv_path.exists():
            shutil.move(df.csv_path, tmp / "repeats.csv")
        _write_tally_curves(summary["learner"], df, title, tmp)
        return
    scalar = [
        c for c in df.columns if not df[c].map(lambda v: isinstance(v, list | dict | tuple)).any()
    ]
    df[scalar].to_csv(tmp / "repeats.csv", index=False)
    _write_curves({summary["learner"]: df}, title, tmp)


def _write_tally_curves(learner: str, tally: Any, title: str, out: Path) -> None:
    """:func:`_write_curves` from a :class:`~evofeat.evaluate.repeat.RepeatTally`'s running curves."""
    classifier = tally.stat("accuracy") is not None  # as curve_kind: regressors' accuracy is NaN
    column, ylabel = (
        ("curve_mistake_rate", "online mistake rate")
        if classifier
        else ("curve_loss", "online average loss")
    )
    table = tally.curve(column)
    if table is None:
        return
    stages = tally.first.get("curve_stages")
    stages = [int(s) for s in stages] if isinstance(stages, list | tuple) else []
    _draw_curves({learner: table}, column, ylabel, stages, tally.n, title, out)


def _write_curves(frames: dict[str, Any], title: str, out: Path) -> None:
    """``curve.csv`` (rows, then mean and std per learner) and ``curve.png``/``.svg``.

    The curve is the online mistake rate of classifiers, the online average
    loss of regressors, with a ±1 std band over the repeats and the
    scenario's stage boundaries.
    """

    from evofeat._curves import curve_kind, curve_stats, stage_boundaries

    frames = {k: df for k, df in frames.items() if "curve_rows" in df}
    if not frames:
        return
    first = next(iter(frames.values()))
    column, ylabel = curve_kind(first)
    tables = {k: curve_stats(df, column) for k, df in frames.items()}
    _draw_curves(tables, column, ylabel, stage_boundaries(first), len(first), title, out)


def _draw_curves(
    tables: dict[str, Any],
    column: str,
    ylabel: str,
    stages: list[int],
    n: int,
    title: str,
    out: Path,
) -> None:
    """``curve.csv`` and ``curve.png``/``.svg`` of each learner's ``rows, mean, std`` table."""
    import pandas as pd

    from evofeat._curves import plot_curves
    from evofeat.report.figures import new_figure, save_figure

    name = column.removeprefix("curve_")
    csv = pd.DataFrame({"rows": next(iter(tables.values()))["rows"]})
    for k, t in tables.items():
        prefix = "" if len(tables) == 1 else f"{k}_"
        csv[f"{prefix}{name}_mean"] = t["mean"].to_numpy()
        csv[f"{prefix}{name}_std"] = t["std"].to_numpy()
    csv.to_csv(out / "curve.csv", index=False)
    fig, (ax,) = new_figure(1, size=5.0)
    plot_curves(ax, tables, stages, ylabel)
    ax.set_title(f"{title}, {n} repeat{'s' if n > 1 else ''}" + (" (±1 std)" if n > 1 else ""))
    save_figure(fig, out, "curve")


@main.command()
@click.option(
    "--learners",
    "names",
    default="auto,ftrl",
    show_default=True,
    help="Two or more learners, comma-separated, e.g. pa-i,stsd-i,ofs (all of one kind).",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="LEARNER:K=V",
    help="Parameter of one learner, e.g. stsd-i:C=0.1 (repeatable).",
)
@_DATA_OPTIONS
@click.option(
    "--repeats",
    default=10,
    show_default=True,
    type=click.IntRange(2),
    help="Repeats per learner: at least 2, as the paired tests need them (run's default is 1).",
)
@_REPEAT_OPTIONS
@click.option(
    "--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True)
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write summary.json, repeats.csv, pairs.csv and the curves of every learner "
    "(mean and ±1 std band over the repeats) as CSV, PNG and SVG here.",
)
def compare(
    names: str,
    params: tuple[str, ...],
    dataset: str,
    scenario: str | None,
    scenario_params: tuple[str, ...],
    preprocess: str,
    label_column: str | None,
    task: str | None,
    zero_based: bool | None,
    repeats: int,
    seed: int,
    perm_file: str | None,
    jobs: int,
    alpha: float,
    fmt: str,
    out: str | None,
) -> None:
    """Several learners on the same streams (the same row orders), with paired tests.

    Each learner runs through the one repeat runner exactly as `evofeat run`
    runs it, on repeat r's row order (seed + r, or line r of --permutations),
    so the repeats pair up. For each pair: the mean difference of the score
    (mistakes; the cumulative loss for regressors; lower is better), a
    two-sided paired t-test and a Wilcoxon signed-rank test, and the outcome
    (win / tie / loss at level --alpha). Then each learner's win/tie/loss
    against all the others.
    """
    errors: tuple[type[BaseException], ...] = (*_user_errors(), ValueError, OSError)
    try:
        learners, per = _compare_args(names, params, scenario)
        if out:
            _check_writable(Path(out))
        frames: dict[str, Any] = {}
        summaries: dict[str, dict[str, Any]] = {}
        with _progress(repeats * len(learners), f"compare on {dataset}", "run") as step:
            for k, name in enumerate(learners):
                summaries[name], frames[name] = _run(
                    name,
                    per[name],
                    dataset,
                    scenario,
                    scenario_params,
                    preprocess,
                    label_column,
                    repeats,
                    seed,
                    perm_file,
                    jobs,
                    progress=None if step is None else _offset(step, k * repeats),
                    reading=_reading(task, zero_based),
                )
        result = _compare(summaries, frames, alpha)
        if out:
            _write_atomically(Path(out), lambda tmp: _write_compare(result, frames, tmp))
    except errors as exc:
        _fail(exc)
        return
    if fmt == "json":
        click.echo(json.dumps(result, default=float, allow_nan=False))
        return
    _print_compare(result)


def _offset(step: Callable[..., None], base: int) -> Callable[[int, int], None]:
    """``step`` called with ``base + done``: one learner's repeats within all of them."""
    return lambda done, total: step(base + done)


def _compare_args(
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


def _compare(
    summaries: dict[str, dict[str, Any]], frames: dict[str, Any], alpha: float
) -> dict[str, Any]:
    """Scores, the paired tests of every pair and each learner's win/tie/loss (JSON-able)."""
    from itertools import combinations

    from evofeat.evaluate.stats import paired_tests

    first = next(iter(summaries.values()))
    regression = first.get("mistakes") is None and first.get("mean_loss") is not None
    metric = "cumulative_loss" if regression else "mistakes"
    orders = {tuple(df["repeat"]) for df in frames.values()}
    assert len(orders) == 1, "every learner runs the same repeats"
    pairs = []
    tally = {n: {"t": [0, 0, 0], "wilcoxon": [0, 0, 0]} for n in summaries}
    for a, b in combinations(summaries, 2):
        test = paired_tests(
            frames[a][metric].to_numpy(float),
            frames[b][metric].to_numpy(float),
            alpha=alpha,
            higher_is_better=False,
        )
        pairs.append({"a": a, "b": b, **test})
        for key, name in (("t", "t_outcome"), ("wilcoxon", "wilcoxon_outcome")):
            won = ("win", "tie", "loss").index(test[name])
            tally[a][key][won] += 1
            tally[b][key][2 - won] += 1
    keep = ("dataset", "scenario", "scenario_params", "preprocess", "repeats", "seed")
    return _clean(
        {
            **{k: first[k] for k in keep},
            "permutations": first.get("permutations"),
            "metric": metric,
            "higher_is_better": False,
            "alpha": alpha,
            "learners": list(summaries.values()),
            "pairs": pairs,
            "win_tie_loss": tally,
        }
    )


def _print_compare(result: dict[str, Any]) -> None:
    metric, n = result["metric"], result["repeats"]
    click.echo(
        f"{', '.join(s['learner'] for s in result['learners'])} on {result['dataset']} "
        f"({result['scenario']}, {n} repeats, the same row orders for every learner)"
    )
    width = max(len("learner"), *(len(s["learner"]) for s in result["learners"])) + 2
    key = "cumulative_loss" if metric == "cumulative_loss" else "mistakes"
    head = "total loss" if key == "cumulative_loss" else "mistakes"
    click.echo(f"  {'learner':<{width}} {head:<20} {'accuracy':<18} t W/T/L  Wilcoxon W/T/L")
    for s in result["learners"]:
        wtl = result["win_tie_loss"][s["learner"]]
        acc = _fmt_stat(s.get("accuracy"), 4)
        click.echo(
            f"  {s['learner']:<{width}} {_fmt_stat(s.get(key), 1):<20} {acc:<18} "
            f"{'/'.join(map(str, wtl['t'])):<8} {'/'.join(map(str, wtl['wilcoxon']))}"
        )
    click.echo(
        f"\n  paired tests on {head} (lower is better; two-sided, alpha {result['alpha']:g}):"
    )
    click.echo(
        f"  {'A':<{width}} {'B':<{width}} {'mean A-B':>10} {'t-test p':>10} {'Wilcoxon p':>11}"
        "  t-test  Wilcoxon (A against B)"
    )
    for p in result["pairs"]:
        click.echo(
            f"  {p['a']:<{width}} {p['b']:<{width}} {p['mean_diff']:>10.2f} {p['t_pvalue']:>10.2g} "
            f"{p['wilcoxon_pvalue']:>11.2g}  {p['t_outcome']:<7} {p['wilcoxon_outcome']}"
        )


def _write_compare(result: dict[str, Any], frames: dict[str, Any], tmp: Path) -> None:
    import pandas as pd

    (tmp / "summary.json").write_text(
        json.dumps(result, indent=1, default=float) + "\n", encoding="utf-8"
    )
    tables = []
    for name, df in frames.items():
        scalar = [
            c
            for c in df.columns
            if not df[c].map(lambda v: isinstance(v, list | dict | tuple)).any()
        ]
        tables.append(df[scalar].assign(learner=name))
    pd.concat(tables, ignore_index=True).to_csv(tmp / "repeats.csv", index=False)
    pd.DataFrame(result["pairs"]).to_csv(tmp / "pairs.csv", index=False)
    _write_curves(frames, f"{result['dataset']} ({result['scenario']})", tmp)


@main.command()
@click.argument("paper", type=click.Choice(["stsd", "ofs", "fesl", "opid", "ceofs"]))
@click.option("--quick", is_flag=True, help="A small subset of the protocol (minutes, not hours).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Output folder (default: reports/PAPER or reports/PAPER-quick).",
)
@click.option(
    "--jobs",
    default=-1,
    show_default=True,
    type=int,
    help="Parallel cells (-1: all cores; never more workers than cores or cells).",
)
@click.option(
    "--scheduler",
    default=None,
    help="Dask scheduler address (tcp://HOST:PORT) to run the cells on.",
)
@click.option(
    "--render-only",
    is_flag=True,
    help="Run nothing: render the report from the results already in DIR/results.sqlite.",
)
def reproduce(
    paper: str, quick: bool, out: str | None, jobs: int, scheduler: str | None, render_only: bool
) -> None:
    """Rerun a paper's experiments and write DIR/report.md beside DIR/results.sqlite.

    Cells whose data is not on this machine are skipped and listed (stderr
    and the report); a full run that skipped some exits 3 (the reproduction
    is incomplete). Interrupted (Ctrl-C, SIGTERM) or stopped by a worker's
    death or a full disk, the same command resumes from the stored cells.
    """
    import sqlite3

    from evofeat._parallel import WorkerDied, n_workers
    from evofeat._progress import Progress
    from evofeat.experiments.runner import reproduce as run_paper

    folder = Path(out or f"reports/{paper}{'-quick' if quick else ''}")
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # a bar on a terminal, a plain line now and then in a log
            bar = Progress(total, f"{paper} cells", unit="cell")
        bar(done, total)

    cmd = f"evofeat reproduce {paper}{' --quick' if quick else ''} --out {folder}"
    try:
        _check_data_folder()
        _check_writable(folder)  # before any cell runs
        n_workers(jobs)  # a bad --jobs is refused before the results store is made
        report = run_paper(
            paper,
            folder,
            quick=quick,
            jobs=jobs,
            scheduler=scheduler,
            command=cmd,
            progress=progress,
            render_only=render_only,
        )
    except _user_errors() as exc:
        _fail(exc)
        return
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        click.echo(
            f"\ninterrupted{_by_signal()}: the finished cells are stored in "
            f"{folder / 'results.sqlite'}; rerun the same command to resume",
            err=True,
        )
        sys.exit(_interrupted_code())
    except (WorkerDied, OSError, sqlite3.Error) as exc:  # a worker killed, a full disk
        if bar is not None:
            bar.close()
        click.echo(f"error: {_what_failed(exc)}; {_kept_cells(folder)}", err=True)
        sys.exit(1)
    finally:
        if bar is not None:
            bar.close()
    click.echo(f"report: {report}")
    if not render_only and _say_skipped(paper, quick) and not quick:
        sys.exit(3)


def _check_data_folder() -> None:
    """``$EVOFEAT_DATA``, when set, must be a folder (a typo would skip every large data set)."""
    from evofeat.datasets.registry import ENV_VAR

    where = os.environ.get(ENV_VAR)
    if where and not Path(where).expanduser().is_dir():
        raise InputError(
            f"{ENV_VAR}={where} is not a folder",
            expected="the folder that holds the data sets",
            received=where,
            fix=f"point {ENV_VAR} at the data folder, or unset it (`evofeat datasets` says "
            "where each data set is found)",
        )


def _say_skipped(paper: str, quick: bool) -> int:
    """Say on stderr how many of the paper's cells did not run for want of data; return that count."""
    from evofeat.experiments import get_paper
    from evofeat.experiments.finish import available_cells

    chosen = get_paper(paper)
    planned = chosen.cells(quick)
    kept, skipped = available_cells(chosen, planned)
    missing = len(planned) - len(kept)
    if missing:
        click.echo(
            f"warning: {missing} of the {len(planned)} cells of this "
            f"{'quick' if quick else 'full'} run did not run: their data is not here "
            f"({len(skipped)} data set/table groups; the report lists each). "
            f"`evofeat datasets download --paper {paper}` fetches what can be fetched; then "
            "rerun the same command"
            + ("" if quick else " (exit code 3: the reproduction is incomplete)"),
            err=True,
        )
    return missing


def _what_failed(exc: BaseException) -> str:
    """One line for a failure that is not the input's: a worker's death, a full disk, an I/O error.

    >>> import errno
    >>> _what_failed(OSError(errno.ENOSPC, "No space left on device", "x/results.sqlite"))
    'no space left on the disk (writing x/results.sqlite)'
    """
    import errno
    import sqlite3

    full = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
    if isinstance(exc, OSError) and exc.errno in full:
        return "no space left on the disk" + (f" (writing {exc.filename})" if exc.filename else "")
    if isinstance(exc, sqlite3.Error) and "full" in str(exc):
        return f"no space left on the disk (the results store says: {exc})"
    if isinstance(exc, OSError):
        return f"cannot write: {exc.strerror or exc}" + (
            f" ({exc.filename})" if exc.filename else ""
        )
    return str(exc)


def _kept_cells(folder: Path) -> str:
    """Where the finished cells are and how to go on (the store keeps every cell as it finishes)."""
    return (
        f"the cells that finished are stored in {folder / 'results.sqlite'}: "
        "rerun the same command to resume (free some disk space first if it is full)"
    )


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="evofeat-demo", show_default=True)
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1))
def demo(out: str, repeats: int) -> None:
    """A small real experiment on bundled data: a table and a figure.

    The majority-class rate, the recommended learner auto and the papers'
    methods on three bundled data sets as trapezoidal streams, over --repeats
    row orders each (progress on stderr).
    """
    from evofeat.demo import DEMO_DATASETS, DEMO_LEARNERS, run_demo

    errors: tuple[type[BaseException], ...] = (*_user_errors(), OSError)
    try:
        _check_writable(Path(out))
        total = len(DEMO_DATASETS) * len(DEMO_LEARNERS) * repeats
        with _progress(total, "demo", "run") as step:
            text = run_demo(Path(out), repeats=repeats, progress=step)
    except errors as exc:
        _fail(exc)
        return
    click.echo(text)


if __name__ == "__main__":  # pragma: no cover
    main()
