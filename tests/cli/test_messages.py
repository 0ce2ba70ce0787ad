"""What the command line says when an option is wrong, ignored or cannot be honoured."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import evofeat.experiments.runner as runner
from cli_invoke import invoke
from evofeat._curves import plot_curves
from evofeat.datasets import fetch
from evofeat.report.figures import new_figure

RUN = ("run", "--learner", "pa-i", "--dataset", "german")


def refused(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "a bug in evofeat" not in result.stderr
    return str(result.stderr)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--param", "C=abc"), "received 'abc', which is not a number"),
        (("--param", "C=True"), "received true, a boolean"),
        (("--param", "fit_intercept=3"), "expected true or false"),
        (("--scenario-param", "p=0.5"), "the full scenario takes no parameters"),
        (("--label-column", "3"), "not the registered data set german"),
        (("--protocol", "ofs"), "--protocol ofs does not fit pa-i"),
    ],
)
def test_silent_or_misleading_options_are_refused_plainly(args: tuple[str, ...], said: str) -> None:
    message = refused(*RUN, *args)
    assert said in message
    assert "expected one of ;" not in message and "must be positive" not in message


def test_out_may_be_a_folder_to_create(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "c"
    result = invoke(*RUN, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert (out / "summary.json").exists()


def test_run_after_compare_leaves_no_stale_pairs(tmp_path: Path) -> None:
    out = tmp_path / "o"
    both = ("--learners", "pa-i,perceptron", "--dataset", "german", "--repeats", "2")
    assert invoke("compare", *both, "--out", str(out)).exit_code == 0
    assert (out / "pairs.csv").exists()
    assert invoke(*RUN, "--out", str(out)).exit_code == 0
    assert not (out / "pairs.csv").exists()


def test_reproduce_refuses_a_data_folder_that_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVOFEAT_DATA", str(tmp_path / "no-such-folder"))
    message = refused("reproduce", "ofs", "--quick", "--out", str(tmp_path / "r"))
    assert "EVOFEAT_DATA" in message and "is not a folder" in message
    assert not (tmp_path / "r").exists()


def test_reproduce_says_when_cells_were_skipped_and_a_full_run_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "data"
    empty.mkdir()
    monkeypatch.setenv("EVOFEAT_DATA", str(empty))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no user cache either
    monkeypatch.setattr(runner, "reproduce", lambda *a, **k: tmp_path / "report.md")
    result = invoke("reproduce", "ofs", "--out", str(tmp_path / "r"))
    assert result.exit_code == 3, result.stderr
    assert "cells of this full run did not run: their data is not here" in result.stderr
    assert "evofeat datasets download --paper ofs" in result.stderr


def test_a_failed_download_says_what_and_where_to_put_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import requests

    def refuse(url: str, **kwargs: object) -> None:
        raise requests.ConnectionError(
            "HTTPSConnectionPool(host='x', port=443): Max retries exceeded (Caused by "
            "NameResolutionError(...))",
            request=requests.Request("GET", url).prepare(),
        )

    monkeypatch.setattr(requests, "get", refuse)
    monkeypatch.setattr(fetch, "RETRIES", 0)
    result = invoke(
        "datasets", "download", "a8a", "--dest", str(tmp_path), "--url", "https://example.invalid/a"
    )
    assert result.exit_code == 2
    assert "cannot connect to example.invalid" in result.stderr
    assert "HTTPSConnectionPool" not in result.stderr and "NameResolution" not in result.stderr
    assert f"place the file there by hand: {tmp_path}" in result.stderr


def test_curves_have_a_linear_time_axis_with_the_stage_marks() -> None:
    fig, (ax,) = new_figure(1)
    t = pd.DataFrame({"rows": [1, 500, 1000], "mean": [0.5, 0.3, 0.2], "std": [0.0] * 3})
    plot_curves(ax, {"pa-i": t}, [250, 750], "online mistake rate")
    assert ax.get_xscale() == "linear"
    assert [line.get_xdata()[0] for line in ax.lines[:2]] == [250, 750]
