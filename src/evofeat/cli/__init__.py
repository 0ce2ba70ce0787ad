"""The ``evofeat`` command: data sets, single runs, paper reproductions, the demo.

The commands here parse their arguments, print messages and choose exit
codes; the work they call lives beside them: :mod:`~evofeat.cli.runs` (run
orchestration), :mod:`~evofeat.cli.summaries` (statistics over repeats and
their text), :mod:`~evofeat.cli.output` (the files of ``--out``) and
:mod:`~evofeat.cli.plots` (the curves).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from evofeat.base.errors import InputError
from evofeat.cli.options import DATA_OPTIONS, REPEAT_OPTIONS, RUN_HELP, jobs_option
from evofeat.cli.output import OUTPUTS, check_writable, write_compare_files, write_run_files
from evofeat.cli.runs import Interrupted, compare_args, mean_loss, reading_options, show_value
from evofeat.cli.runs import run_repeats as _run  # the one name the commands call it by
from evofeat.cli.summaries import clean, compare_runs, fmt_stat, print_compare, print_run

__all__ = ["main"]


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
        click.echo(json.dumps(clean(infos), indent=1, default=str))
        return
    click.echo(f"{'name':<16} {'kind':<9} {'task':<15} parameters (defaults)")
    for i in infos:
        shown = ", ".join(f"{k}={show_value(v)}" for k, v in i["params"].items())
        if i["fixed"]:  # what the name sets, not a parameter (pa-multiclass: budget, radius)
            shown += "; fixed by the name: "
            shown += ", ".join(f"{k}={show_value(v)}" for k, v in i["fixed"].items())
        click.echo(f"{i['name']:<16} {i['kind']:<9} {i['task']:<15} {shown}")


@main.command(help=RUN_HELP)
@click.option(
    "--learner",
    default="auto",
    show_default=True,
    help="Learner name, e.g. auto, pa-i, stsd-i, ofs, fesl-s, opid, ceofs.",
)
@click.option(
    "--param", "params", multiple=True, metavar="K=V", help="Learner parameter (repeatable)."
)
@DATA_OPTIONS
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
@REPEAT_OPTIONS
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write summary.json, repeats.csv and (online learners) the curve here: the "
    "mistake rate (the average loss for regressors), mean and ±1 std band over the repeats, "
    "the scenario's stage boundaries; as CSV, PNG and SVG. Ctrl-C (or SIGTERM, SIGHUP) keeps "
    "the repeats that finished: the folder is written with those (summary.json says "
    '"interrupted": true, repeats_done and repeats_asked), stderr says how to run the rest, '
    "and the command exits 130 (143, 129); a worker process that dies is handled alike (exit 1).",
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
            check_writable(Path(out))  # before the run, not after it
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
                None if scratch is None else scratch / "repeats.csv", derive=mean_loss
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
                reading=reading_options(task, zero_based),
            )
        if out:
            _write_out(tally, summary, Path(out))
    except Interrupted as stop:  # Ctrl-C or a worker's death after some repeats finished
        _keep_interrupted(stop.summary, tally, None if out is None else Path(out), stop.failure)
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
    print_run(summary)


def _keep_interrupted(
    summary: dict[str, Any], tally: Any, out: Path | None, failure: str | None = None
) -> None:
    """Keep the repeats that finished before Ctrl-C (or SIGTERM, SIGHUP, or the ``failure``
    of a worker process that died), say so on stderr, and exit.

    With ``out``, it is written as a finished run's would be (repeats.csv of the finished
    repeats, their curves, summary.json marked ``interrupted`` with ``repeats_done`` and
    ``repeats_asked``; moved in whole, summary last), and the message says how to run the
    repeats that did not finish; without, their summary is one line. The exit code is
    128 + the signal (130 for Ctrl-C), or 1 after a worker's death.
    """
    done, asked = summary["repeats"], summary.pop("repeats_asked")
    summary = {**summary, "interrupted": True, "repeats_done": done, "repeats_asked": asked}
    why = f"interrupted{_by_signal()}" if failure is None else f"error: {failure}"
    stopped = f"\n{why}: {done} of {asked} repeats finished"
    code = _interrupted_code() if failure is None else 1
    if out is not None:
        try:
            _write_out(tally, summary, out)
        except InputError as exc:  # e.g. the disk filled up meanwhile: say so, still exit 130
            click.echo(f"{stopped}; {exc}", err=True)
            sys.exit(code)
        click.echo(f"{stopped}, kept in {out}; {_rest_hint(summary, out)}", err=True)
    else:
        score = (
            f"mean loss {fmt_stat(summary.get('mean_loss'), 6)}"
            if summary.get("mistakes") is None and summary.get("mean_loss") is not None
            else f"mistakes {fmt_stat(summary['mistakes'], 1)}, "
            f"accuracy {fmt_stat(summary['accuracy'], 4)}"
        )
        click.echo(
            f"{stopped}: {summary['learner']} on {summary['dataset']} ({summary['scenario']}): "
            f"{score}",
            err=True,
        )
    sys.exit(code)


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


def _progress(total: int, desc: str, unit: str) -> Any:
    """A progress display on stderr for ``total`` steps (none for a single step)."""
    from contextlib import nullcontext

    from evofeat._progress import Progress

    return Progress(total, desc, unit=unit) if total > 1 else nullcontext(None)


def _write_out(df: Any, summary: dict[str, Any], out: Path) -> None:
    """Write summary.json, repeats.csv and the curve into ``out`` all at once.

    Everything is written into a hidden folder beside ``out`` first and moved
    in only when complete, so a failure leaves ``out`` as it was. The folder
    gets the usual permissions (those of ``mkdir`` under the user's umask).
    """
    _write_atomically(out, lambda tmp: write_run_files(df, summary, tmp))


def _write_atomically(out: Path, write: Callable[[Path], None]) -> None:
    """:func:`evofeat._scratch.write_atomically` into ``--out`` (summary.json last); a failure to
    write is an :class:`InputError` naming ``--out``."""
    from evofeat._scratch import write_atomically

    try:
        write_atomically(out, write, last="summary.json", stale=OUTPUTS)
    except OSError as exc:
        raise InputError(
            f"cannot write the results to --out {out}: {_what_failed(exc)}",
            expected="a folder with room and permission to write",
            fix="pick another --out",
        ) from None


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
@DATA_OPTIONS
@click.option(
    "--repeats",
    default=10,
    show_default=True,
    type=click.IntRange(2),
    help="Repeats per learner: at least 2, as the paired tests need them (run's default is 1).",
)
@REPEAT_OPTIONS
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
        learners, per = compare_args(names, params, scenario)
        if out:
            check_writable(Path(out))
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
                    reading=reading_options(task, zero_based),
                )
        result = compare_runs(summaries, frames, alpha)
        if out:
            _write_atomically(Path(out), lambda tmp: write_compare_files(result, frames, tmp))
    except errors as exc:
        _fail(exc)
        return
    if fmt == "json":
        click.echo(json.dumps(result, default=float, allow_nan=False))
        return
    print_compare(result)


def _offset(step: Callable[..., None], base: int) -> Callable[[int, int], None]:
    """``step`` called with ``base + done``: one learner's repeats within all of them."""
    return lambda done, total: step(base + done)


@main.command()
@click.argument("paper", type=click.Choice(["stsd", "ofs", "fesl", "opid", "ceofs"]))
@click.option("--quick", is_flag=True, help="A small subset of the protocol (minutes, not hours).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Output folder (default: reports/PAPER or reports/PAPER-quick).",
)
@jobs_option(-1, "cells")
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
        check_writable(folder)  # before any cell runs
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
    from evofeat.datasets.catalogue import ENV_VAR

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
        check_writable(Path(out))
        total = len(DEMO_DATASETS) * len(DEMO_LEARNERS) * repeats
        with _progress(total, "demo", "run") as step:
            text = run_demo(Path(out), repeats=repeats, progress=step)
    except errors as exc:
        _fail(exc)
        return
    click.echo(text)


if __name__ == "__main__":  # pragma: no cover
    main()
