"""Defaults shared by the commands: one ``--jobs`` rule, stated once and shown by each command."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from evofeat.cli import main
from evofeat.cli.options import JOBS_RULE


@pytest.mark.parametrize(
    ("command", "units", "default"),
    [("run", "repeats", "1"), ("compare", "repeats", "1"), ("reproduce", "cells", "-1")],
)
def test_every_command_states_the_one_jobs_rule(command: str, units: str, default: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=10_000)
    assert result.exit_code == 0, result.output
    shown = re.sub(r"\s+", " ", result.output)
    rule = re.sub(r"\s+", " ", JOBS_RULE.format(units=units))
    assert f"--jobs INTEGER Parallel {units} ({rule}) [default: {default}]" in shown
