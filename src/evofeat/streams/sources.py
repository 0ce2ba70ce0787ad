"""Which ``--dataset`` the command line streams from disk, and as what stream."""

from __future__ import annotations

from typing import Any

from evofeat.base.errors import InputError

__all__ = ["streamed_source"]


def streamed_source(
    dataset: str,
    *,
    kind: str,
    scenario: str,
    repeats: int,
    perm_file: str | None,
    preprocess: str,
    scenario_params: dict[str, Any],
    label_column: str | None = None,
    task: str | None = None,
    zero_based: bool | str = "auto",
) -> Any:
    """The stream to read ``dataset`` from disk in chunks, or None when the run needs the rows in memory.

    JSON Lines (``.jsonl``, ``.ndjson``, optionally ``.gz``) and standard
    input (``-``: JSON Lines if its first non-blank character is ``{``, else
    LIBSVM; see :func:`~evofeat.streams.libsvm_stream.stdin_format`) are
    always streamed, so they need the full scenario (the file's own keys
    decide what each row sees), one repeat, no permutations and no
    preprocessing; a LIBSVM or delimited-text file (``.csv``, ``.tsv``,
    ``.data``, ``.dat``) is streamed when the run allows it and loaded whole
    otherwise. A streamed CSV reads a missing value (``?`` or an empty field)
    as an absent feature (:class:`~evofeat.streams.CsvStream`). ``task`` and ``zero_based``
    are those of the streams (``zero_based``: LIBSVM only).

    >>> streamed_source("german", kind="online", scenario="full", repeats=1, perm_file=None,
    ...                 preprocess="none", scenario_params={}) is None
    True
    """
    from evofeat.streams.csv_stream import CsvStream, csv_path
    from evofeat.streams.jsonl import JsonlStream, jsonl_path
    from evofeat.streams.libsvm_stream import LibsvmStream, libsvm_path, stdin_format

    jsonl = jsonl_path(dataset)
    stdin_libsvm = jsonl == "-" and stdin_format() == "libsvm"  # JSON Lines starts with '{'
    if stdin_libsvm:
        jsonl = None
    plain = kind == "online" and scenario == "full" and repeats == 1 and not perm_file
    plain = plain and preprocess == "none"
    if (jsonl is not None or stdin_libsvm) and not plain:
        asked = [
            f"{flag} {value}"
            for flag, value, ok in (
                ("--scenario", scenario, scenario == "full"),
                ("--repeats", repeats, repeats == 1),
                ("--permutations", perm_file, not perm_file),
                ("--preprocess", preprocess, preprocess == "none"),
            )
            if not ok
        ]
        raise InputError(
            f"{'standard input' if stdin_libsvm else 'a JSON Lines data set'} is read as a "
            "stream, in file order, by an online learner",
            expected="an online learner with the full scenario, --repeats 1, no --permutations "
            "and --preprocess none (the keys of each line say which features it has)",
            received=", ".join(asked) or f"a {kind} learner",
            fix="drop those options, or "
            + (
                "save the input to a .libsvm file"
                if stdin_libsvm
                else "convert the file to CSV or LIBSVM"
            )
            + " to simulate scenarios",
        )
    if not plain:
        return None
    path = libsvm_path(dataset)
    table = csv_path(dataset)
    if (
        jsonl is not None or path is not None or table is not None or stdin_libsvm
    ) and scenario_params:
        raise InputError(
            "the full scenario takes no parameters",
            expected="no --scenario-param",
            received=", ".join(scenario_params),
            fix="drop --scenario-param",
        )
    if stdin_libsvm:
        return LibsvmStream("-", task=task, zero_based=zero_based)
    if jsonl is not None:
        return JsonlStream(jsonl, label=label_column, task=task)
    if table is not None:
        return CsvStream(table, label_column=label_column, task=task)
    return None if path is None else LibsvmStream(path, task=task, zero_based=zero_based)
