"""MNIST's training split: registered with its checksums, and loaded with the test split when here.

``mnist`` is the official 10,000-image test split (the shared folder's files);
``mnist-full`` (``datasets/data/papers_data.json``) adds the 60,000-image
training split from TensorFlow Datasets' mirror with the sha256 that project
lists, and ``load(NAME, fullest=True)`` takes it when all its files are here.
No test touches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
from pathlib import Path

import numpy as np
import pytest

from conftest import requires_data
from evofeat.datasets import ChecksumError, fetch, load, registry
from evofeat.datasets.catalogue import fullest, get_entry, needs_data, status

TRAIN = ("mnist/train-images-idx3-ubyte.gz", "mnist/train-labels-idx1-ubyte.gz")
TEST = ("mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz")


def _idx(array: np.ndarray) -> bytes:
    """``array`` (uint8) in LeCun's IDX format, gzipped."""
    head = bytes([0, 0, 0x08, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return gzip.compress(head + array.astype(np.uint8).tobytes())


def _place(root: Path, path: str, array: np.ndarray) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_idx(array))


def _split(root: Path, paths: tuple[str, str], labels: list[int], ink: int) -> None:
    images = np.full((len(labels), 2, 3), ink)
    _place(root, paths[0], images)
    _place(root, paths[1], np.asarray(labels))


# --------------------------------------------------------------------------- the entry


def test_mnist_full_is_the_training_split_then_the_test_split_with_published_sha256() -> None:
    entry = get_entry("mnist-full")
    assert entry.files == TRAIN + TEST and entry.options["extends"] == "mnist"
    assert (entry.n_rows, entry.n_features, entry.format) == (70000, 784, "idx")
    assert {"OPID Table 1", "OPID Table 2"} <= set(entry.used_by)
    train = entry.records[:2]
    for rec in train:
        assert rec.source_url is not None and rec.source_url.startswith(
            "https://storage.googleapis.com/cvdf-datasets/mnist/"
        )
        assert rec.verifiable and rec.downloadable  # a published sha256: the download is checked
        assert len(rec.source_sha256 or "") == 64 and len(rec.source["md5_of_source_bytes"]) == 32
    assert entry.records[2:] == get_entry("mnist").records  # the test split: the shared files


def test_the_listings_checksums_of_the_test_split_are_our_files() -> None:
    """The listing that gives the training split's sha256 / MD5 gives our test files' exactly."""
    src = get_entry("mnist-full").records[0].source
    for path in TEST:
        assert src["listed_test_split_sha256"][path] == registry.file_record(path).sha256_gz


@requires_data("mnist")
def test_the_listed_md5_of_the_test_split_is_the_shared_files() -> None:
    src = get_entry("mnist-full").records[0].source
    for path, rec in zip(TEST, get_entry("mnist").records, strict=True):
        found = next(p for p in get_entry("mnist").candidates(rec) if p.is_file())
        assert hashlib.md5(found.read_bytes()).hexdigest() == src["listed_test_split_md5"][path]


def test_needs_data_names_the_one_command(isolated: Path) -> None:
    line = needs_data("mnist-full")
    assert line.startswith("needs data mnist-full: run `evofeat datasets download mnist-full`")
    assert "not verified" not in line and status("mnist-full") == "not downloaded"
    opid = fetch._needed_by([get_entry(n) for n in registry.names()], "opid")
    assert "mnist-full" in {e.name for e in opid}  # `evofeat datasets download --paper opid`


def test_download_checks_the_published_sha256(isolated: Path, served: dict[str, bytes]) -> None:
    entry = get_entry("mnist-full")
    for rec in entry.records:
        assert rec.source_url is not None
        served[rec.source_url] = b"not the file"
    with pytest.raises(ChecksumError):
        fetch.download("mnist-full")
    assert not (isolated / TRAIN[0]).exists()  # nothing written


# --------------------------------------------------------------------------- the loader


def test_fullest_loads_train_then_test_when_the_training_split_is_here(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVOFEAT_DATA", str(isolated))
    _split(isolated, TEST, [0, 5, 3], ink=7)
    alone = load("mnist", fullest=True)  # no training split: the test split alone
    assert (alone.name, alone.n_rows, alone.n_features) == ("mnist", 3, 6)
    assert fullest("mnist").name == "mnist"
    _split(isolated, TRAIN, [5, 0, 0, 3, 5], ink=200)
    both = load("mnist", fullest=True)
    assert (both.name, both.n_rows) == ("mnist-full", 8)
    labels = np.asarray(both.classes)[both.y]
    assert labels.tolist() == [5, 0, 0, 3, 5, 0, 5, 3]  # training rows first, in file order
    assert both.X[:, 0].tolist() == [200.0] * 5 + [7.0] * 3
    assert load("mnist").n_rows == 3  # without the option: the named set


def test_a_mismatched_pair_is_named(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVOFEAT_DATA", str(isolated))
    _split(isolated, TEST, [0, 5, 3], ink=7)
    _place(isolated, TRAIN[0], np.zeros((4, 2, 3)))
    _place(isolated, TRAIN[1], np.zeros(3))
    with pytest.raises(Exception, match="holds 4 images but .*train-labels.* holds 3 labels"):
        load("mnist", fullest=True)
