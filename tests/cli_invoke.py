"""Run the ``evofeat`` command in this process, with its standard error kept apart."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner

from evofeat.cli import main


def invoke(*args: str, stdin: bytes | None = None) -> Any:
    """``evofeat ARGS`` through click's runner: ``exit_code``, ``stdout``, ``stderr``."""
    try:  # click < 8.2 mixes stderr into the output unless told not to
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, list(args), input=stdin)
