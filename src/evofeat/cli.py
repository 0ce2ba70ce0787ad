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
            raise InputError(f"bad {option} {item!r}", expected="NAME=VALUE", received=item,
                             fix=f"write e.g. {option} C=0.1")
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
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
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
        where = "bundled" if d.get("bundled") else (d.get("found_at") or "not found (evofeat.datasets.download)")
        click.echo(f"{d['name']:<22} {d.get('rows', ''):>8} {d.get('features', ''):>9} {d.get('task', ''):<11} {where}")


def _info_dict(info: Any) -> dict[str, Any]:
    if isinstance(info, dict):
        return info
    if hasattr(info, "_asdict"):
        return dict(info._asdict())
    from dataclasses import asdict, is_dataclass

    return asdict(info) if is_dataclass(info) else dict(vars(info))


@main.command()
@click.option("--learner", required=True, help="Learner name, e.g. pa-i, stsd-i, ofs, fesl-s.")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Learner parameter (repeatable).")
@click.option("--dataset", required=True, help="Data set name or a path to a .libsvm/.csv/.arff file.")
@click.option("--scenario", default="full", show_default=True,
              help="full, trapezoidal, evolvable, haphazard, incdec or feature-stream.")
@click.option("--scenario-param", "scenario_params", multiple=True, metavar="K=V",
              help="Scenario parameter (repeatable), e.g. n_stages=10.")
@click.option("--preprocess", default="none", show_default=True,
              help="none, zscore, unit-norm, minmax (or a registered name).")
@click.option("--label-column", default=None, help="Label column of a CSV file (default: the last).")
@click.option("--repeats", default=1, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=0, show_default=True, type=int, help="Base seed; repeat r uses seed + r.")
@click.option("--permutations", "perm_file", type=click.Path(dir_okay=False), default=None,
              help="File of row orders (one per line) used instead of seeded permutations.")
@click.option("--jobs", default=1, show_default=True, type=int, help="Parallel repeats (-1: all cores).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write the mistake-rate curve as CSV and PNG here.")
def run(learner: str, params: tuple[str, ...], dataset: str, scenario: str, scenario_params: tuple[str, ...],
        preprocess: str, label_column: str | None, repeats: int, seed: int, perm_file: str | None,
        jobs: int, fmt: str, out: str | None) -> None:
    """Run one learner on one data set and scenario, over permutations of the rows."""
    try:
        summary, df = _run(learner, params, dataset, scenario, scenario_params, preprocess, label_column,
                           repeats, seed, perm_file, jobs)
    except _user_errors() as exc:
        _fail(exc)
        return
    if out:
        _write_curves(df, summary, Path(out))
    if fmt == "json":
        click.echo(json.dumps(summary, default=float))
        return
    m, a, s = summary["mistakes"], summary["accuracy"], summary["seconds"]
    click.echo(f"{learner} on {dataset} ({scenario}, {repeats} repeat{'s' if repeats > 1 else ''})")
    click.echo(f"  mistakes  {m['mean']:.1f} ± {m['std']:.1f}")
    click.echo(f"  accuracy  {a['mean']:.4f} ± {a['std']:.4f}")
    click.echo(f"  seconds   {s['mean']:.3f} ± {s['std']:.3f}")


def _run(learner: str, params: tuple[str, ...], dataset: str, scenario: str, scenario_params: tuple[str, ...],
         preprocess: str, label_column: str | None, repeats: int, seed: int, perm_file: str | None,
         jobs: int) -> tuple[dict[str, Any], Any]:
    from evofeat.evaluate import repeat, summarize
    from evofeat.registry import kind_of, make
    from evofeat.streams import load_permutations

    lp = _parse_params(params, "--param")
    sp_ = _parse_params(scenario_params, "--scenario-param")
    kind = kind_of(learner)
    make(learner, **lp)  # validate the name and the parameters before any work
    from evofeat.datasets import load

    kw: dict[str, Any] = {"preprocess": preprocess}
    if label_column is not None:
        kw["label_column"] = label_column
    data = load(dataset, **kw)
    perms = load_permutations(perm_file, data.X.shape[0]) if perm_file else None
    if perms is not None and len(perms) < repeats:
        raise InputError("not enough permutations in the file", expected=f"at least {repeats} lines",
                         received=f"{len(perms)}", fix="use fewer --repeats")
    if kind != "online":
        from evofeat.evaluate.batch import repeat_batch

        df = repeat_batch(learner, lp, data, scenario, sp_, repeats=repeats, seed=seed, n_jobs=jobs)
    else:
        df = repeat(learner, data, scenario, repeats=repeats, n_jobs=jobs, params=lp, scenario_params=sp_,
                    seed=seed, permutations=perms)
    summary = {
        "learner": learner, "params": lp, "dataset": dataset, "scenario": scenario, "scenario_params": sp_,
        "preprocess": preprocess, "repeats": repeats, "seed": seed,
        "permutations": perm_file,
        "mistakes": summarize(df["mistakes"].tolist()),
        "accuracy": {k: v for k, v in summarize(df["accuracy"].tolist()).items() if k != "values"},
        "seconds": {k: v for k, v in summarize(df["seconds"].tolist()).items() if k != "values"},
    }
    if "cumulative_loss" in df:
        summary["cumulative_loss"] = {k: v for k, v in summarize(df["cumulative_loss"].tolist()).items()
                                      if k != "values"}
    if "n_scored" in df:
        summary["n_scored"] = int(df["n_scored"].iloc[0])
    return summary, df


def _write_curves(df: Any, summary: dict[str, Any], out: Path) -> None:
    import numpy as np
    import pandas as pd

    from evofeat.report.figures import new_figure, save_figure

    if "curve_rows" not in df:
        return
    out.mkdir(parents=True, exist_ok=True)
    rows = np.asarray(df["curve_rows"].iloc[0])
    rates = np.array([np.asarray(r) for r in df["curve_mistake_rate"]])
    table = pd.DataFrame({"rows": rows, "mistake_rate_mean": rates.mean(axis=0),
                          "mistake_rate_std": rates.std(axis=0, ddof=1) if len(rates) > 1 else 0.0})
    tmp = out / ".curve.csv.tmp"
    table.to_csv(tmp, index=False)
    os.replace(tmp, out / "curve.csv")
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
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder (default: reports/PAPER or reports/PAPER-quick).")
@click.option("--jobs", default=-1, show_default=True, type=int, help="Parallel cells (-1: all cores).")
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://HOST:PORT) to run the cells on.")
def reproduce(paper: str, quick: bool, out: str | None, jobs: int, scheduler: str | None) -> None:
    """Rerun a paper's experiments and write DIR/report.md beside DIR/results.sqlite."""
    from tqdm import tqdm

    from evofeat.experiments.runner import reproduce as run_paper

    folder = Path(out or f"reports/{paper}{'-quick' if quick else ''}")
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, initial=done, desc=f"{paper} cells", unit="cell", file=sys.stderr)
        else:
            bar.update(done - bar.n)

    cmd = f"evofeat reproduce {paper}{' --quick' if quick else ''} --out {folder}"
    try:
        report = run_paper(paper, folder, quick=quick, jobs=jobs, scheduler=scheduler, command=cmd,
                           progress=progress)
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
