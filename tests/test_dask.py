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

HERE = Path(__file__).resolve().parent


def _register_toy() -> int:
    """Run on each worker: make ``toy_paper`` importable and register the toy paper; returns the pid."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    PAPERS["toy"] = "toy_paper:PAPER"
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
