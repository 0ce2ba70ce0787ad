"""The runner's Dask path: a local two-process cluster stores what a local run stores."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "dask.distributed",
    reason="Dask is not installed: pip install 'evofeat[dask]' (dask[distributed])",
)

from evofeat.experiments import PAPERS  # noqa: E402
from evofeat.experiments.runner import reproduce  # noqa: E402
from evofeat.experiments.store import ResultStore  # noqa: E402

HERE = Path(__file__).resolve().parents[1]  # tests/, beside toy_paper.py and sleepy_paper.py


def _register_toy() -> int:
    """Run on each worker: make the test papers importable and register them; returns the pid."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    PAPERS["toy"] = "toy_paper:PAPER"
    PAPERS["sleepy"] = "sleepy_paper:PAPER"
    return os.getpid()


def _stored(out: Path) -> dict[str, int]:
    df = ResultStore(out / "results.sqlite").results("toy")
    return {f"{r.method}|{r.repeat}|{r.params}": int(r.mistakes) for r in df.itertuples()}


def test_dask_cluster_stores_the_same_results_as_a_local_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setitem(PAPERS, "toy", "toy_paper:PAPER")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("TOY_SLEEP", "0")
    local_log, dask_log = tmp_path / "local.log", tmp_path / "dask.log"
    monkeypatch.setenv("TOY_LOG", str(local_log))
    reproduce("toy", tmp_path / "local", jobs=1)
    reference = _stored(tmp_path / "local")
    assert len(reference) == 12

    monkeypatch.setenv("TOY_LOG", str(dask_log))  # the workers inherit the environment when spawned
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids = client.run(_register_toy)
        assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
        report = reproduce("toy", tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert _stored(tmp_path / "dask") == reference, (
        "a Dask run must store exactly what a local run stores"
    )
    assert len(dask_log.read_text().splitlines()) == 12, (
        "every cell must have run once, on the workers"
    )
    assert report.read_text().startswith("# toy") and "12 cells" in report.read_text()


def test_dask_results_are_bit_identical_to_local_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long dot product adds in another order with more BLAS threads: every cell uses one."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setitem(PAPERS, "sleepy", "sleepy_paper:PAPER")
    monkeypatch.delenv("SLEEPY_LOG", raising=False)
    reproduce("sleepy", tmp_path / "local", jobs=1)
    local = ResultStore(tmp_path / "local" / "results.sqlite").results("sleepy")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(_register_toy)
        reproduce("sleepy", tmp_path / "dask", scheduler=cluster.scheduler_address)
    remote = ResultStore(tmp_path / "dask" / "results.sqlite").results("sleepy")
    assert os.getpid() not in set(remote["pid"])
    ours = dict(zip(local["repeat"], local["value"], strict=True))
    theirs = dict(zip(remote["repeat"], remote["value"], strict=True))
    assert ours == theirs  # equal floats, not close ones


def test_unreachable_scheduler_is_one_clean_error_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from evofeat.base.errors import InputError
    from evofeat.experiments import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT", 2)
    t0 = time.monotonic()
    with pytest.raises(InputError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"):
        reproduce("ofs", tmp_path / "out", scheduler="tcp://127.0.0.1:9")
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "out").exists()  # no results.sqlite left behind


def test_missing_data_on_a_worker_blames_the_worker_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evofeat.datasets import DataNotFoundError
    from evofeat.experiments.base import Cell
    from evofeat.experiments.runner import _dask_work

    class NoData:
        name = "nodata"

        def run_cell(self, cell: Cell) -> dict[str, int]:
            raise DataNotFoundError("data set 'rcv1' not found")

    monkeypatch.delenv("EVOFEAT_DATA", raising=False)
    with pytest.raises(DataNotFoundError) as err:
        _dask_work(NoData(), Cell("t", "rcv1", "pa-i", {}, repeat=0))  # type: ignore[arg-type]
    msg = str(err.value)
    assert "Dask worker" in msg and "no EVOFEAT_DATA" in msg and "worker's environment" in msg
    assert "rcv1" in msg
