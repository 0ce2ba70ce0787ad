"""The data-set registry: names, files, checksums, sources, and where the files are.

The registry is data, not code: ``data/catalog.json`` holds one record per
file (copied from the shared data folder's ``manifest.json``: shape, label
counts, sha256, source, licence) and one record per registry name (its files
and per-set quirks: separator, header, label column, positive label,
categorical levels).

Files are looked up as follows. Bundled files ship in the package
(``evofeat/datasets/data``). The others are looked for at
``$EVOFEAT_DATA/<path>``, then at ``<user cache dir>/<path>``, where
``<path>`` is the file's path in the manifest (e.g. ``ijcnn1/ijcnn1_test.libsvm.gz``)
and the cache dir is ``platformdirs.user_cache_dir("evofeat")``, where
:func:`evofeat.datasets.download` stores files.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import platformdirs

from .errors import DataFormatError, DataNotFoundError, UnknownDatasetError

__all__ = [
    "DATA_DIR",
    "DatasetEntry",
    "DatasetInfo",
    "FileRecord",
    "cache_dir",
    "find",
    "get_entry",
    "list_datasets",
    "names",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
ENV_VAR = "EVOFEAT_DATA"
_CATALOG = DATA_DIR / "catalog.json"
_CONVERTED_SUFFIXES = (".mat", ".h5", ".hdf5", ".zip")


def cache_dir() -> Path:
    """The user cache folder where downloads are stored.

    Returns
    -------
    pathlib.Path
        ``platformdirs.user_cache_dir("evofeat")`` (it need not exist yet).

    Examples
    --------
    >>> from evofeat.datasets.registry import cache_dir
    >>> cache_dir().name
    'evofeat'
    """
    return Path(platformdirs.user_cache_dir("evofeat"))


@dataclass(frozen=True)
class FileRecord:
    """One file of the registry, as the shared manifest describes it.

    Examples
    --------
    >>> from evofeat.datasets.registry import get_entry
    >>> rec = get_entry("german").records[0]
    >>> rec.path, rec.n_rows, rec.source_url[:34]
    ('german/german.numer.gz', 1000, 'https://raw.githubusercontent.com/')
    """

    path: str
    role: str
    format: str
    n_rows: int | None
    n_features: int | None
    label_counts: dict[str, int] | None
    rows_with_missing: int
    sha256_gz: str
    sha256_uncompressed: str
    source: dict[str, Any]
    licence: str
    notes: str

    @property
    def source_url(self) -> str | None:
        """The raw URL of the canonical source, for GitHub sources; else None."""
        src = self.source
        if src.get("kind") != "github":
            return None
        return f"https://raw.githubusercontent.com/{src['repo']}/{src['commit']}/{src['path']}"

    @property
    def source_sha256(self) -> str | None:
        """sha256 of the bytes at the canonical source (may be gzip or bzip2)."""
        value = self.source.get("sha256_of_source_bytes")
        return str(value) if value else None

    @property
    def converted(self) -> bool:
        """Whether our file was converted from another format (e.g. MATLAB .mat)."""
        return str(self.source.get("path", "")).lower().endswith(_CONVERTED_SUFFIXES)

    @property
    def downloadable(self) -> bool:
        """Whether :func:`~evofeat.datasets.download` can fetch it from its source."""
        return self.source_url is not None and not self.converted

    def describe_source(self) -> str:
        """One line naming the canonical source."""
        src = self.source
        if src.get("kind") == "github":
            return str(self.source_url)
        if src.get("kind") == "pypi":
            return (
                f"PyPI {src['package']}=={src['version']} wheel {src['file']}: "
                f"{src['path_in_wheel']}"
            )
        member = f" -> {src['member']}" if "member" in src else ""
        return f"github {src.get('repo')}@{str(src.get('commit'))[:12]}: {src.get('path')}{member}"


@dataclass(frozen=True)
class DatasetEntry:
    """One registry name: its files and how to read them.

    ``options`` holds the per-set quirks from ``catalog.json`` (``sep``,
    ``header``, ``label_column``, ``id_columns``, ``feature_names``,
    ``categorical``, ``n_features``).

    Examples
    --------
    >>> from evofeat.datasets.registry import get_entry
    >>> e = get_entry("ijcnn1")
    >>> e.n_rows, e.n_features, e.task, e.bundled
    (141691, 22, 'binary', False)
    """

    name: str
    files: tuple[str, ...]
    records: tuple[FileRecord, ...]
    format: str
    task: str
    bundled: bool
    description: str
    positive: Any = None
    positive_note: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        """Rows in the files (before rows with missing values are dropped)."""
        return sum(r.n_rows or 0 for r in self.records if r.n_features is not None)

    @property
    def n_features(self) -> int:
        """Attributes in the files (before one-hot encoding)."""
        if "n_features" in self.options:
            return int(self.options["n_features"])
        return int(next(r.n_features for r in self.records if r.n_features is not None))

    @property
    def rows_with_missing(self) -> int:
        """Rows holding at least one missing ('?') value."""
        return sum(r.rows_with_missing for r in self.records)

    @property
    def licence(self) -> str:
        """The licence(s) the manifest states."""
        return " | ".join(dict.fromkeys(r.licence for r in self.records))

    @property
    def source(self) -> str:
        """The canonical source(s), one per file, joined by ``" + "``."""
        return " + ".join(dict.fromkeys(r.describe_source() for r in self.records))

    def candidates(self, record: FileRecord) -> list[Path]:
        """The places a file is looked for, in order."""
        if self.bundled:
            return [DATA_DIR / Path(record.path).name]
        places = []
        env = os.environ.get(ENV_VAR)
        if env:
            places.append(Path(env).expanduser() / record.path)
        places.append(cache_dir() / record.path)
        return places

    def locate(self) -> list[Path | None]:
        """For each file, the first place it exists, or None."""
        out: list[Path | None] = []
        for rec in self.records:
            out.append(next((p for p in self.candidates(rec) if p.is_file()), None))
        return out


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`list_datasets` reports about one registry name.

    Examples
    --------
    >>> from evofeat.datasets import list_datasets
    >>> info = {i.name: i for i in list_datasets()}["german"]
    >>> info.rows, info.features, info.task, info.bundled, info.found_at is not None
    (1000, 24, 'binary', True, True)
    """

    name: str
    rows: int
    features: int
    task: str
    bundled: bool
    found_at: Path | None
    source: str
    licence: str
    description: str
    files: tuple[str, ...]
    positive: str

    @property
    def n_rows(self) -> int:
        """Same as ``rows`` (the name :class:`Dataset` uses)."""
        return self.rows

    @property
    def n_features(self) -> int:
        """Same as ``features`` (the name :class:`Dataset` uses)."""
        return self.features

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (``found_at`` as a string or None)."""
        out = dict(self.__dict__)
        out["found_at"] = None if self.found_at is None else str(self.found_at)
        out["files"] = list(self.files)
        return out


@lru_cache(maxsize=1)
def _catalog() -> tuple[dict[str, DatasetEntry], dict[str, FileRecord]]:
    raw = json.loads(_CATALOG.read_text(encoding="utf-8"))
    records = {
        path: FileRecord(
            path=path,
            role=str(r.get("role", "data")),
            format=str(r.get("format", "")),
            n_rows=r.get("n_rows"),
            n_features=r.get("n_features"),
            label_counts=r.get("label_counts"),
            rows_with_missing=int(r.get("rows_with_missing") or 0),
            sha256_gz=r["sha256_gz"],
            sha256_uncompressed=r["sha256_uncompressed"],
            source=r["source"],
            licence=str(r.get("licence", "")),
            notes=str(r.get("notes", "")),
        )
        for path, r in raw["files"].items()
    }
    entries: dict[str, DatasetEntry] = {}
    reserved = {"name", "files", "format", "task", "bundled", "description", "positive"}
    for d in raw["datasets"]:
        recs = tuple(records[f] for f in d["files"])
        task = str(d["task"])
        entries[d["name"]] = DatasetEntry(
            name=d["name"],
            files=tuple(d["files"]),
            records=recs,
            format=d["format"],
            task=task,
            bundled=bool(d.get("bundled", False)),
            description=d.get("description", ""),
            positive=d.get("positive"),
            positive_note=d.get("positive_note", ""),
            options={k: v for k, v in d.items() if k not in reserved | {"positive_note"}},
        )
    return entries, records


def names() -> list[str]:
    """All registry names, sorted.

    Examples
    --------
    >>> from evofeat.datasets.registry import names
    >>> "covtype-binary" in names() and "german" in names()
    True
    """
    return sorted(_catalog()[0])


def file_record(path: str) -> FileRecord:
    """The record of one file, by its manifest path.

    Examples
    --------
    >>> from evofeat.datasets.registry import file_record
    >>> file_record("permutations/german_stsd_id_all.csv.gz").n_rows
    20
    """
    return _catalog()[1][path]


def _normalise(name: str) -> str:
    return name.strip().lower()


def get_entry(name: str) -> DatasetEntry:
    """The registry entry of ``name``.

    Raises
    ------
    UnknownDatasetError
        (a :class:`KeyError`) when ``name`` is not registered; the message
        lists the closest names first, then all of them.

    Examples
    --------
    >>> from evofeat.datasets.registry import get_entry
    >>> get_entry("covtype-binary").positive
    2
    """
    entries = _catalog()[0]
    key = _normalise(name)
    if key in entries:
        return entries[key]
    raise UnknownDatasetError(_unknown_message(name))


def _unknown_message(name: str) -> str:
    valid = names()
    close = difflib.get_close_matches(_normalise(name), valid, n=5, cutoff=0.5)
    hint = f"; did you mean: {', '.join(close)}?" if close else ""
    return (
        f"unknown data set {name!r}{hint}\n"
        f"Registered names: {', '.join(close + [v for v in valid if v not in close])}.\n"
        "To load your own file, pass its path (a pathlib.Path, or a string with a known "
        "suffix: .libsvm .svm .txt .csv .tsv .data .dat .arff, optionally .gz)."
    )


_FILE_SUFFIXES = (".libsvm", ".svm", ".txt", ".csv", ".tsv", ".data", ".dat", ".arff")


def resolve(name_or_path: str | os.PathLike[str]) -> DatasetEntry | Path:
    """A registry entry for a registered name, else a :class:`~pathlib.Path`.

    A :class:`os.PathLike` is always a path. A string is a registry name when
    registered (case-insensitive); otherwise it is a path when the file exists,
    contains a path separator or ends in a known suffix.

    Examples
    --------
    >>> from evofeat.datasets.registry import resolve
    >>> resolve("German").name
    'german'
    >>> resolve("my_data.csv.gz")
    PosixPath('my_data.csv.gz')
    """
    if isinstance(name_or_path, os.PathLike):
        return Path(name_or_path)
    if not isinstance(name_or_path, str):
        raise TypeError(f"expected a data-set name or a path, got {type(name_or_path).__name__}")
    key = _normalise(name_or_path)
    entries = _catalog()[0]
    if key in entries:
        return entries[key]
    path = Path(name_or_path).expanduser()
    lowered = name_or_path.lower().removesuffix(".gz")
    if path.exists() or os.sep in name_or_path or "/" in name_or_path:
        return path
    if lowered.endswith(_FILE_SUFFIXES):
        return path
    raise UnknownDatasetError(_unknown_message(name_or_path))


def how_to_get(entry: DatasetEntry) -> str:
    """Instructions for getting a non-bundled data set's files.

    Examples
    --------
    >>> from evofeat.datasets.registry import get_entry, how_to_get
    >>> "download('a8a')" in how_to_get(get_entry("a8a"))
    True
    """
    env_hint = (
        f"set {ENV_VAR} to a folder laid out like the shared data folder "
        f"(holding {', '.join(entry.files)})"
    )
    if all(r.downloadable for r in entry.records):
        return (
            f"run `evofeat datasets download {entry.name}` (in Python: "
            f"evofeat.datasets.download({entry.name!r})), or {env_hint}."
        )
    lines = [f"{entry.name} has no source that evofeat can download and verify by itself:"]
    for rec in entry.records:
        if rec.downloadable:
            continue
        if rec.source.get("kind") == "pypi":
            src = rec.source
            lines.append(
                f"  {rec.path}: comes from the PyPI wheel {src['file']} "
                f"({src['package']}=={src['version']}, sha256 {src['wheel_sha256']}). By hand: "
                f"`pip download {src['package']}=={src['version']} --no-deps --only-binary=:all: "
                f"--platform manylinux1_x86_64 --python-version 37`, unzip "
                f"{src['path_in_wheel']} from the wheel, gzip it to <folder>/{rec.path}."
            )
        else:
            lines.append(
                f"  {rec.path}: was converted from {rec.describe_source()} to {rec.format}; "
                "copy it from a machine that has the shared data folder (or convert the "
                "source the same way)."
            )
    lines.append(
        f"Then place the files under {cache_dir()}, or {env_hint}, or run "
        f"`evofeat datasets download {entry.name} --url https://...` with the address of a "
        "copy of the file; its sha256 is checked either way."
    )
    return "\n".join(lines)


def not_found_message(entry: DatasetEntry, missing: list[FileRecord]) -> str:
    """The message of the :class:`DataNotFoundError` for ``entry``."""
    lines = [f"data set {entry.name!r} is not on this machine."]
    for rec in missing:
        lines.append(f"{rec.path} was looked for at:")
        if not entry.bundled and not os.environ.get(ENV_VAR):
            lines.append(f"  ${ENV_VAR}/{rec.path} ({ENV_VAR} is not set)")
        lines.extend(f"  {p}" for p in entry.candidates(rec))
    if entry.bundled:
        lines.append(
            "It should ship inside the package: reinstall evofeat (the package data is missing)."
        )
    elif all(r.downloadable for r in entry.records):
        lines.append("To get it, " + how_to_get(entry))
    else:
        lines.append(how_to_get(entry))
    return "\n".join(lines)


def find(name: str | os.PathLike[str]) -> list[Path]:
    """The paths of a data set's files, in row order.

    Parameters
    ----------
    name : str or path-like
        A registry name, or the path of a user's own file.

    Returns
    -------
    list of pathlib.Path
        One path per file (e.g. two for ``ijcnn1``: train then test).

    Raises
    ------
    DataNotFoundError
        When a file is absent; the message says where it looked and how to
        get it.
    UnknownDatasetError
        When ``name`` is neither registered nor a path.

    Examples
    --------
    >>> from evofeat.datasets import find
    >>> [p.name for p in find("german")]
    ['german.numer.gz']
    """
    target = resolve(name)
    if isinstance(target, Path):
        if target.exists() and not target.is_file():
            raise DataFormatError(
                f"{target} exists but is not a regular file (a folder, device, socket or pipe); "
                "expected a data file. Copy the data into a file (JSON Lines can also be piped "
                "in: --dataset -)."
            )
        if not target.is_file():
            raise DataNotFoundError(
                f"no such file: {target} (resolved to {target.resolve()}). Pass the path of an "
                "existing file, or a registry name (see evofeat.datasets.list_datasets())."
            )
        return [target]
    found = target.locate()
    missing = [rec for rec, p in zip(target.records, found, strict=True) if p is None]
    if missing:
        raise DataNotFoundError(not_found_message(target, missing))
    return [p for p in found if p is not None]


def list_datasets() -> list[DatasetInfo]:
    """Every registered data set, with its shape, task, source and whereabouts.

    Returns
    -------
    list of DatasetInfo
        Sorted by name. ``found_at`` is the folder holding the files on this
        machine, or None when they are absent; ``rows`` and ``features``
        count the files' rows and attributes (before rows with missing
        values are dropped and before one-hot encoding).

    Examples
    --------
    >>> from evofeat.datasets import list_datasets
    >>> infos = list_datasets()
    >>> [i.name for i in infos if i.bundled][:3]
    ['australian', 'credit-a', 'credit-g']
    """
    out = []
    for name in names():
        entry = get_entry(name)
        found = entry.locate()
        first = found[0]
        found_at = first.parent if first is not None and None not in found else None
        out.append(
            DatasetInfo(
                name=entry.name,
                rows=entry.n_rows,
                features=entry.n_features,
                task=entry.task,
                bundled=entry.bundled,
                found_at=found_at,
                source=entry.source,
                licence=entry.licence,
                description=entry.description,
                files=entry.files,
                positive=entry.positive_note,
            )
        )
    return out
