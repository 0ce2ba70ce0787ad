"""Summaries of runs: statistics over repeats, paired comparisons, and their text."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from evofeat.registry import Registered

__all__ = ["clean", "compare_runs", "fmt_stat", "print_compare", "print_run", "summarize_run"]


def fmt_stat(stat: dict[str, Any] | None, digits: int) -> str:
    """``mean ± std`` over repeats; the value alone for one repeat (no spread to show).

    >>> fmt_stat({"mean": 3.0, "std": 0.0, "values": [3]}, 1), fmt_stat({"mean": 3.0, "std": 1.0, "values": [2, 4]}, 1)
    ('3.0', '3.0 ± 1.0')
    """
    if stat is None:
        return "n/a"
    if len(stat.get("values", ())) == 1 or (stat["std"] == 0 and "values" not in stat):
        return f"{stat['mean']:.{digits}f}"
    return f"{stat['mean']:.{digits}f} ± {stat['std']:.{digits}f}"


def print_run(summary: dict[str, Any]) -> None:
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
        click.echo(f"  mean loss   {fmt_stat(summary['mean_loss'], 6)}{scored}")
        click.echo(f"  total loss  {fmt_stat(summary['cumulative_loss'], 4)}")
    else:
        click.echo(f"  mistakes    {fmt_stat(summary['mistakes'], 1)}{scored}")
        click.echo(f"  accuracy    {fmt_stat(summary['accuracy'], 4)}")
    if "n_selected" in summary:
        click.echo(f"  n_selected  {fmt_stat(summary['n_selected'], 1)}")
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
    click.echo(f"  seconds     {fmt_stat(summary['seconds'], 3)}")


def clean(value: Any) -> Any:
    """JSON-safe: NaN and inf become None (null), numpy scalars plain numbers, containers recursed."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
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


def summarize_run(
    df: Any,
    done: int,
    *,
    entry: Registered,
    params: Mapping[str, Any],
    dataset: str,
    protocol: str | None,
    scenario: str,
    scenario_params: Mapping[str, Any],
    preprocess: str,
    seed: int,
    permutations: str | None,
    streamed: bool,
) -> dict[str, Any]:
    """The summary of the ``done`` repeats in ``df`` (a DataFrame or a
    :class:`~evofeat.evaluate.repeat.RepeatTally`) of a run with these settings
    (``entry`` the learner's resolved name; ``params`` and ``scenario_params`` as given,
    before the defaults are filled in)."""
    from evofeat.evaluate.repeat import RepeatTally, scenario_params_used

    kind = entry.kind
    used = scenario_params
    first = df.first if isinstance(df, RepeatTally) else df.iloc[0]
    if kind == "online":  # the parameters used, defaults filled in
        used = scenario_params_used(scenario, scenario_params)
    elif "scenario_params" in first:  # the batch runs report theirs, defaults filled in
        used = {
            k: v
            for k, v in dict(first["scenario_params"]).items()
            if k != "seed" or "seed" in scenario_params
        }
    run_params = {**entry.parameters(), **params}
    if kind != "online" and "seed" in run_params and "seed" not in params:
        run_params["seed"] = f"{seed} + repeat"  # a batch learner's seed is the repeat's
    summary: dict[str, Any] = {
        "learner": entry.name,
        "kind": kind,
        "params": run_params,
        "dataset": dataset,
        "protocol": protocol,
        "scenario": scenario,
        "scenario_params": used,
        "preprocess": preprocess,
        "repeats": done,
        "seed": seed,
        "permutations": permutations,
        "streamed": streamed,
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
    return clean(summary)


def compare_runs(
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
    return clean(
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


def print_compare(result: dict[str, Any]) -> None:
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
        acc = fmt_stat(s.get("accuracy"), 4)
        click.echo(
            f"  {s['learner']:<{width}} {fmt_stat(s.get(key), 1):<20} {acc:<18} "
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
