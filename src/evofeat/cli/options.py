"""The options that several commands share, and the help of ``run``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

__all__ = ["DATA_OPTIONS", "JOBS_RULE", "REPEAT_OPTIONS", "RUN_HELP", "jobs_option", "options"]

#: The one rule of ``--jobs`` for every command that runs work in parallel.
JOBS_RULE = (
    "-1: all cores, -2 all but one, ...; never more workers than cores or {units}. The default "
    "is the number that pays: one process for run and compare (a repeat of most data sets takes "
    "less time than starting a worker), all cores for reproduce (its cells are long)."
)


def jobs_option(default: int, units: str) -> Callable[[Any], Any]:
    """``--jobs N``: parallel ``units`` under :data:`JOBS_RULE`, with the command's default."""
    return click.option(
        "--jobs",
        default=default,
        show_default=True,
        type=int,
        help=f"Parallel {units} ({JOBS_RULE.format(units=units)})",
    )


def options(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator that adds several click options (in this order), for commands that share them."""

    def apply(fn: Any) -> Any:
        for decorate in reversed(decorators):
            fn = decorate(fn)
        return fn

    return apply


DATA_OPTIONS = options(
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
        "they look ahead in the stream; or online-zscore, online-quantile, online-quantile-sketch: learned by the "
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


REPEAT_OPTIONS = options(
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
    jobs_option(1, "repeats"),
    click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
    ),
)


RUN_HELP = """Run one learner on one data set and scenario, over repeats.

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
