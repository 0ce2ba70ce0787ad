"""The LIBSVM stream: same results as the in-memory stream, bounded memory, clear errors."""

from __future__ import annotations

import gzip
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from evofeat.base import FeatureIndex, InputError
from evofeat.datasets import DataFormatError, load
from evofeat.evaluate import prequential
from evofeat.linear.pa import PA
from evofeat.streams import full
from evofeat.streams.libsvm_stream import LibsvmStream


def write_libsvm(
    path: Path, n: int, d: int = 40, nnz: int = 8, seed: int = 0, labels: tuple = (-1, 1)
) -> Path:
    """A synthetic LIBSVM file (1-based indices, ``nnz`` entries per row), written block by block."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as fh:  # type: ignore[operator]
        for start in range(0, n, 50_000):
            m = min(50_000, n - start)
            cols = np.sort(np.argsort(rng.random((m, d)), axis=1)[:, :nnz], axis=1)
            vals = np.round(rng.standard_normal((m, nnz)), 3)
            score = (w[cols] * vals).sum(axis=1)
            ys = np.where(score > 0, labels[1], labels[0])
            lines = [
                f"{ys[i]} "
                + " ".join(f"{c + 1}:{v:g}" for c, v in zip(cols[i], vals[i], strict=True))
                for i in range(m)
            ]
            fh.write("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("suffix", [".libsvm", ".libsvm.gz"])
def test_same_predictions_as_the_in_memory_stream(tmp_path: Path, suffix: str) -> None:
    path = write_libsvm(tmp_path / f"s{suffix}", 3000, labels=(0, 1))
    stream = LibsvmStream(path)
    assert (stream.n_rows, stream.task, stream.classes.tolist()) == (3000, "binary", [0.0, 1.0])
    ds = load(path)
    ref = prequential(PA(), full(ds.X, ds.y, ds.feature_names), keep_predictions=True)
    got = prequential(PA(), stream, keep_predictions=True, chunk_rows=700)
    assert ref.labels is not None and got.labels is not None
    np.testing.assert_array_equal(got.labels, ref.labels)
    np.testing.assert_array_equal(got.scores, ref.scores)
    assert got.mistakes == ref.mistakes and got.n_rows == 3000


def test_max_rows_reads_the_head(tmp_path: Path) -> None:
    path = write_libsvm(tmp_path / "s.libsvm", 1000)
    head = LibsvmStream(path, max_rows=250)
    assert head.n_rows == 250
    rows = sum(c.y.size for c in head.chunks(*head.internal_columns(FeatureIndex()), size=100))
    assert rows == 250
    ds = load(path)
    ref = prequential(PA(), full(ds.X[:250], ds.y[:250], ds.feature_names), keep_predictions=True)
    got = prequential(PA(), head, keep_predictions=True, chunk_rows=64)
    np.testing.assert_array_equal(got.labels, ref.labels)  # type: ignore[arg-type]


def test_tasks_and_index_base(tmp_path: Path) -> None:
    p = tmp_path / "m.libsvm"
    p.write_text("3 0:1 2:1\n1 1:2\n2 2:1\n")
    s = LibsvmStream(p)
    assert (s.task, s.zero_based, s.n_features, s.feature_names) == (
        "multiclass",
        True,
        3,
        ["f0", "f1", "f2"],
    )
    assert s.y.tolist() == [0.0, 1.0, 2.0]
    r = tmp_path / "r.libsvm"
    r.write_text("0.5 1:1\n1.25 2:1\n-3.5 1:2\n")
    assert LibsvmStream(r).task == "regression"
    with pytest.raises(InputError, match="binary task needs two label values"):
        LibsvmStream(p, task="binary")
    with pytest.raises(DataFormatError, match="index 0 appears, but zero_based=False"):
        LibsvmStream(p, zero_based=False)
    assert LibsvmStream(p, zero_based=True).n_features == 3


def test_memory_does_not_grow_with_rows(tmp_path: Path) -> None:
    """Peak traced memory of a whole run (both passes) is the same for 60k and 180k rows (both many blocks long).

    Holding anything per row (8 bytes a row: 1 MB more for the longer file)
    would break the margin of 256 KiB. Short lines keep tracemalloc's
    overhead on scikit-learn's parser small.
    """
    warm = write_libsvm(tmp_path / "warm.libsvm", 100, d=20, nnz=3)
    prequential(PA(), LibsvmStream(warm))  # compile outside the trace
    peaks = {}
    for n in (60_000, 180_000):
        path = write_libsvm(tmp_path / f"s{n}.libsvm", n, d=20, nnz=3, seed=n)
        tracemalloc.start()
        result = prequential(PA(), LibsvmStream(path, block_bytes=1 << 18), chunk_rows=4096)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert result.n_rows == n
    assert peaks[180_000] < peaks[60_000] + 256 * 1024, (
        f"peak memory grew with the rows: {peaks[60_000] / 2**20:.2f} MiB for 60k rows, "
        f"{peaks[180_000] / 2**20:.2f} MiB for 180k"
    )
    assert peaks[180_000] < 32 * 2**20, "blocks of 256 KiB of text should need far less than 32 MiB"


# ---------------------------------------------------------------------------- bad files
def test_bad_line_is_named_with_its_line_number(tmp_path: Path) -> None:
    path = write_libsvm(tmp_path / "s.libsvm", 500)
    lines = path.read_text().splitlines()
    lines[420] = "1 3:0.5 2:1.0"  # non-increasing indices, several blocks of 2 KiB earlier
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"s.libsvm, line 421: indices must increase"):
        LibsvmStream(path, block_bytes=2048)
    lines[420] = "1 3:abc"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"line 421: the value in '3:abc' is not a number"):
        LibsvmStream(path, block_bytes=2048)
    lines[420] = "1 3:nan"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"line 421: '3:nan' holds a NaN"):
        LibsvmStream(path)


def test_cut_gzip_and_empty_file(tmp_path: Path) -> None:
    path = write_libsvm(tmp_path / "s.libsvm.gz", 2000)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFormatError, match="cut short or corrupt.*fetch or copy it again"):
        LibsvmStream(path)
    empty = tmp_path / "e.libsvm"
    empty.write_bytes(b"")
    with pytest.raises(DataFormatError, match="holds no rows"):
        LibsvmStream(empty)
    with pytest.raises(FileNotFoundError):
        LibsvmStream(tmp_path / "missing.libsvm")


def test_bad_arguments(tmp_path: Path) -> None:
    path = write_libsvm(tmp_path / "s.libsvm", 10)
    with pytest.raises(InputError, match="unknown task"):
        LibsvmStream(path, task="ranking")
    with pytest.raises(InputError, match="max_rows must be a positive integer"):
        LibsvmStream(path, max_rows=0)
    with pytest.raises(DataFormatError, match="exceeds the 3 features"):
        LibsvmStream(path, n_features=3)
