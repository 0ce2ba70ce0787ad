"""The ``evofeat`` command: data sets, single runs, paper reproductions, the demo."""

from __future__ import annotations

import json
import math
import os
import sys
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
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


_USER_ERRORS: tuple[type[BaseException], ...] = (InputError, KeyError, FileNotFoundError)


def _user_errors() -> tuple[type[BaseException], ...]:
    try:
        from evofeat.datasets import DataFormatError, DataNotFoundError

        return (*_USER_ERRORS, DataFormatError, DataNotFoundError)
    except ImportError:  # pragma: no cover
        return _USER_ERRORS


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="evofeat")
def main() -> None:
    """Online learning on streams whose feature space changes (STSD, OFS, FESL, OPID, CEOFS)."""


@main.command()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def datasets(fmt: str) -> None:
    """List the known data sets and where each was found."""
    from evofeat.datasets import list_datasets

    infos = list_datasets()
    if fmt == "json":
        click.echo(json.dumps([_info_dict(i) for i in infos], indent=1, default=str))
        return
    click.echo(f"{'name':<22} {'rows':>8} {'features':>9} {'task':<11} where")
    for i in infos:
        d = _info_dict(i)
        where = (
            "bundled"
            if d.get("bundled")
            else (d.get("found_at") or "not found (evofeat.datasets.download)")
        )
        click.echo(
            f"{d['name']:<22} {d.get('rows', ''):>8} {d.get('features', ''):>9} {d.get('task', ''):<11} {where}"
        )


def _info_dict(info: Any) -> dict[str, Any]:
    if isinstance(info, dict):
        return info
    if hasattr(info, "_asdict"):
        return dict(info._asdict())
    from dataclasses import asdict, is_dataclass

    return asdict(info) if is_dataclass(info) and not isinstance(info, type) else dict(vars(info))


_RUN_HELP = """Run one learner on one data set and scenario, over repeats.

\b
Online learners (perceptron, pa-i, stsd-i, ofs, fesl-s, ...) run test-then-train
over permutations of the rows; scenarios full (default), trapezoidal,
evolvable, haphazard. A LIBSVM file (--dataset path.libsvm[.gz], .svm, .txt)
with the full scenario, --repeats 1, no --permutations and --preprocess none
is streamed from disk in chunks, in bounded memory, in file order; the other
scenarios, row permutations and preprocessing need the rows in memory, so
the file is then loaded whole.

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
historical_fraction (0.8), folds (10), classifier (svm: RBF, C=1; or knn3),
seed. Selection runs inside each training fold; accuracy and mistakes are
pooled over the test folds; n_selected is the mean over the folds.
"""


@main.command(help=_RUN_HELP)
@click.option(
    "--learner", required=True, help="Learner name, e.g. pa-i, stsd-i, ofs, fesl-s, opid, ceofs."
)
@click.option(
    "--param", "params", multiple=True, metavar="K=V", help="Learner parameter (repeatable)."
)
@click.option(
    "--dataset", required=True, help="Data set name or a path to a .libsvm/.csv/.arff file."
)
@click.option(
    "--scenario",
    default=None,
    help="full, trapezoidal, evolvable, haphazard (online learners; default full), "
    "incdec (opid, opide, svm, svm-s, svm-a; their default) or "
    "feature-stream (selectors; their default).",
)
@click.option(
    "--scenario-param",
    "scenario_params",
    multiple=True,
    metavar="K=V",
    help="Scenario parameter (repeatable), e.g. n_stages=10.",
)
@click.option(
    "--preprocess",
    default="none",
    show_default=True,
    help="none, zscore, unit-norm, minmax (or a registered name).",
)
@click.option(
    "--label-column", default=None, help="Label column of a CSV file (default: the last)."
)
@click.option(
    "--protocol",
    default=None,
    help="A paper's settings for this data set and learner (stsd-authors, stsd-paper, ofs, "
    "ofs-unit-norm; see evofeat.experiments.protocols); the other flags override them.",
)
@click.option("--repeats", default=1, show_default=True, type=click.IntRange(1))
@click.option(
    "--seed", default=0, show_default=True, type=int, help="Base seed; repeat r uses seed + r."
)
@click.option(
    "--permutations",
    "perm_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="File of row orders (one per line) used instead of seeded permutations (online learners).",
)
@click.option(
    "--jobs", default=1, show_default=True, type=int, help="Parallel repeats (-1: all cores)."
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write summary.json, repeats.csv and (online learners) the mistake-rate curve "
    "as CSV, PNG and SVG here.",
)
def run(
    learner: str,
    params: tuple[str, ...],
    dataset: str,
    scenario: str | None,
    scenario_params: tuple[str, ...],
    preprocess: str,
    label_column: str | None,
    protocol: str | None,
    repeats: int,
    seed: int,
    perm_file: str | None,
    jobs: int,
    fmt: str,
    out: str | None,
) -> None:
    errors: tuple[type[BaseException], ...] = (*_user_errors(), ValueError, OSError)
    try:
        summary, df = _run(
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
        )
        if out:
            _write_out(df, summary, Path(out))
    except errors as exc:
        # bad input: a message, exit 2, no traceback (and no --out folder: it is written last)
        _fail(exc)
        return
    if fmt == "json":
        click.echo(json.dumps(summary, default=float, allow_nan=False))
        return
    _print_text(summary)


def _fmt_stat(stat: dict[str, Any] | None, digits: int) -> str:
    if stat is None:
        return "n/a"
    return f"{stat['mean']:.{digits}f} ± {stat['std']:.{digits}f}"


def _print_text(summary: dict[str, Any]) -> None:
    n = summary["repeats"]
    streamed = ", streamed from disk" if summary.get("streamed") else ""
    click.echo(
        f"{summary['learner']} on {summary['dataset']} ({summary['scenario']}, {n} repeat"
        f"{'s' if n > 1 else ''}{streamed})"
    )
    scored = (
        f"   ({summary['n_scored']} rows scored)" if summary.get("n_scored") is not None else ""
    )
    click.echo(f"  mistakes    {_fmt_stat(summary['mistakes'], 1)}{scored}")
    click.echo(f"  accuracy    {_fmt_stat(summary['accuracy'], 4)}")
    if "n_selected" in summary:
        click.echo(f"  n_selected  {_fmt_stat(summary['n_selected'], 1)}")
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

    if column not in df:
        return None
    vals = df[column].tolist()
    if all(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals):
        return None
    stat = summarize(vals)
    if not values:
        stat.pop("values")
    return stat


def _streamable(
    dataset: str,
    kind: str,
    scenario: str,
    repeats: int,
    perm_file: str | None,
    preprocess: str,
    scenario_params: dict[str, Any],
) -> Path | None:
    """The LIBSVM file to stream from disk, or None when the run needs the rows in memory."""
    from evofeat.streams import libsvm_path

    if kind != "online" or scenario != "full" or repeats != 1 or perm_file or preprocess != "none":
        return None
    path = libsvm_path(dataset)
    if path is not None and scenario_params:
        raise InputError(
            "the full scenario takes no parameters",
            expected="no --scenario-param",
            received=", ".join(scenario_params),
            fix="drop --scenario-param",
        )
    return path


def _warm_up(learner: str, params: dict[str, Any]) -> None:
    """Compile a binary online learner's prequential loop on two rows, before the timed repeats.

    So ``seconds`` times the runs, not numba's compiler (or its cache load) in
    the first repeat. Other learners are not warmed up.
    """
    import numpy as np

    from evofeat.evaluate import prequential
    from evofeat.registry import make
    from evofeat.streams import Stream

    model = make(learner, **params)
    if model.task == "binary":
        prequential(model, Stream.full(np.eye(2), np.array([1, -1])))


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
) -> tuple[dict[str, Any], Any]:
    from evofeat.evaluate import repeat
    from evofeat.evaluate.batch import check_scenario
    from evofeat.registry import kind_of, make
    from evofeat.streams import load_permutations

    lp = _parse_params(params, "--param")
    sp_ = _parse_params(scenario_params, "--scenario-param")
    kind = kind_of(learner)
    proto = None
    if protocol:  # a paper's settings, the flags given on top
        from evofeat.experiments.protocols import cli_setting

        proto = cli_setting(protocol, learner, dataset, lp, sp_, scenario, preprocess, perm_file)
        lp, sp_, scenario = dict(proto.params), dict(proto.scenario_params), proto.scenario
        preprocess = proto.preprocess
    scenario = check_scenario(learner, scenario)  # online learners: the given one or full
    make(learner, **lp)  # validate the name and the parameters before any work
    if kind != "online" and perm_file:
        raise InputError(
            f"--permutations applies to the online learners, not to {learner}",
            expected="no --permutations",
            received=perm_file,
            fix=f"drop --permutations; the {scenario} scenario draws its rows from --seed",
        )
    stream_path = _streamable(dataset, kind, scenario, repeats, perm_file, preprocess, sp_)
    if kind == "online":
        _warm_up(learner, lp)
    if stream_path is not None:
        from evofeat.streams import LibsvmStream

        stream = LibsvmStream(stream_path)
        df = repeat(learner, stream, scenario, repeats=1, n_jobs=1, params=lp, seed=seed)
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
        )
    else:
        from evofeat.datasets import load

        kw: dict[str, Any] = {"preprocess": preprocess}
        if label_column is not None:
            kw["label_column"] = label_column
        data = load(dataset, **kw)
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
                learner, lp, data, scenario, sp_, repeats=repeats, seed=seed, n_jobs=jobs
            )
            if "scenario_params" in df:  # the parameters used, defaults filled in
                used = dict(df["scenario_params"].iloc[0])
                if "seed" not in sp_:
                    used.pop("seed", None)
                sp_ = used
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
            )
    summary: dict[str, Any] = {
        "learner": learner,
        "kind": kind,
        "params": lp,
        "dataset": dataset,
        "protocol": protocol,
        "scenario": scenario,
        "scenario_params": sp_,
        "preprocess": preprocess,
        "repeats": repeats,
        "seed": seed,
        "permutations": perm_file,
        "streamed": stream_path is not None,
        "mistakes": _stat(df, "mistakes"),
        "accuracy": _stat(df, "accuracy"),
        "seconds": _stat(df, "seconds", values=False),
    }
    if summary["accuracy"] is None:  # regression: no mistakes to count
        summary["mistakes"] = None
    if kind == "selector":
        summary["n_selected"] = _stat(df, "n_selected")
    if "cumulative_loss" in df:
        summary["cumulative_loss"] = _stat(df, "cumulative_loss", values=False)
    if "n_scored" in df:
        summary["n_scored"] = int(df["n_scored"].iloc[0])
    return _clean(summary), df


def _write_out(df: Any, summary: dict[str, Any], out: Path) -> None:
    """Write summary.json, repeats.csv and the curve into ``out`` all at once.

    Everything is written into a hidden folder beside ``out`` first and moved
    in only when complete, so a failure leaves ``out`` as it was.
    """
    import shutil
    import tempfile

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (tmp / "summary.json").write_text(
            json.dumps(summary, indent=1, default=float) + "\n", encoding="utf-8"
        )
        scalar = [
            c
            for c in df.columns
            if not df[c].map(lambda v: isinstance(v, list | dict | tuple)).any()
        ]
        df[scalar].to_csv(tmp / "repeats.csv", index=False)
        _write_curves(df, summary, tmp)
        if not out.exists():
            os.replace(tmp, out)
            return
        for f in tmp.iterdir():
            os.replace(f, out / f.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_curves(df: Any, summary: dict[str, Any], out: Path) -> None:
    import numpy as np
    import pandas as pd

    from evofeat.report.figures import new_figure, save_figure

    if "curve_rows" not in df:
        return
    rows = np.asarray(df["curve_rows"].iloc[0])
    rates = np.array([np.asarray(r) for r in df["curve_mistake_rate"]])
    table = pd.DataFrame(
        {
            "rows": rows,
            "mistake_rate_mean": rates.mean(axis=0),
            "mistake_rate_std": rates.std(axis=0, ddof=1) if len(rates) > 1 else 0.0,
        }
    )
    table.to_csv(out / "curve.csv", index=False)
    fig, (ax,) = new_figure(1)
    ax.plot(rows, table["mistake_rate_mean"], label=summary["learner"])
    ax.set_xscale("log")
    ax.set_xlabel("rows seen")
    ax.set_ylabel("online mistake rate")
    ax.set_title(f"{summary['dataset']} ({summary['scenario']})")
    ax.legend()
    save_figure(fig, out, "curve")


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
    "--jobs", default=-1, show_default=True, type=int, help="Parallel cells (-1: all cores)."
)
@click.option(
    "--scheduler",
    default=None,
    help="Dask scheduler address (tcp://HOST:PORT) to run the cells on.",
)
def reproduce(paper: str, quick: bool, out: str | None, jobs: int, scheduler: str | None) -> None:
    """Rerun a paper's experiments and write DIR/report.md beside DIR/results.sqlite."""
    from tqdm import tqdm

    from evofeat.experiments.runner import reproduce as run_paper

    folder = Path(out or f"reports/{paper}{'-quick' if quick else ''}")
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(
                total=total, initial=done, desc=f"{paper} cells", unit="cell", file=sys.stderr
            )
        else:
            bar.update(done - bar.n)

    cmd = f"evofeat reproduce {paper}{' --quick' if quick else ''} --out {folder}"
    try:
        report = run_paper(
            paper,
            folder,
            quick=quick,
            jobs=jobs,
            scheduler=scheduler,
            command=cmd,
            progress=progress,
        )
    except _user_errors() as exc:
        _fail(exc)
        return
    finally:
        if bar is not None:
            bar.close()
    click.echo(f"report: {report}")


@main.command()
@click.option("--out", type=click.Path(file_okay=False), default="evofeat-demo", show_default=True)
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1))
def demo(out: str, repeats: int) -> None:
    """A small real experiment on bundled data: a table and a figure, in under a minute."""
    from evofeat.demo import run_demo

    try:
        text = run_demo(Path(out), repeats=repeats)
    except _user_errors() as exc:
        _fail(exc)
        return
    click.echo(text)


if __name__ == "__main__":  # pragma: no cover
    main()
