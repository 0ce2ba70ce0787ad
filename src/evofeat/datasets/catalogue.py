"""The data-set catalogue: names, files, checksums, sources, and where the files are.

(Formerly ``evofeat.datasets.registry``, still importable under that name;
``evofeat.registry`` is the other registry, of the learners.) The catalogue is
data, not code: ``data/catalog.json`` holds one record per
file (copied from the shared data folder's ``manifest.json``: shape, label
counts, sha256, source, licence) and one record per registry name (its files
and per-set quirks: separator, header, label column, positive label,
categorical levels). ``data/papers_data.json`` adds the sets the papers used
that the shared folder lacks: those with a public HTTPS source (no checksum
is published for them, so a download is not verified and says so) and those
with no public source at all (each with the reason), every one naming the
paper tables that need it. :func:`status` says whether a set is here, not
downloaded or not public; :func:`how_to_get` says how to get it.

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
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs

from .errors import DataFormatError, DataNotFoundError, UnknownDatasetError

__all__ = [
    "DATA_DIR",
    "DatasetEntry",
    "DatasetInfo",
    "FileRecord",
    "Status",
    "cache_dir",
    "find",
    "fullest",
    "get_entry",
    "how_to_get",
    "list_datasets",
    "names",
    "needs_data",
    "status",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
ENV_VAR = "EVOFEAT_DATA"
_CATALOG = DATA_DIR / "catalog.json"
_PAPERS_DATA = DATA_DIR / "papers_data.json"
_CONVERTED_SUFFIXES = (".mat", ".h5", ".hdf5", ".zip")


def cache_dir() -> Path:
    """The user cache folder where downloads are stored.

    Returns
    -------
    pathlib.Path
        ``platformdirs.user_cache_dir("evofeat")`` (it need not exist yet).

    Examples
    --------
    >>> from evofeat.datasets.catalogue import cache_dir
    >>> cache_dir().name
    'evofeat'
    """
    return Path(platformdirs.user_cache_dir("evofeat"))


@dataclass(frozen=True)
class FileRecord:
    """One file of the registry, as the shared manifest describes it.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import get_entry
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
    sha256_gz: str | None
    sha256_uncompressed: str | None
    source: dict[str, Any]
    licence: str
    notes: str

    @property
    def source_url(self) -> str | None:
        """The URL of the canonical source (GitHub raw or a plain HTTPS address), else None."""
        src = self.source
        if src.get("kind") == "url":
            return str(src["url"])
        if src.get("kind") != "github":
            return None
        return f"https://raw.githubusercontent.com/{src['repo']}/{src['commit']}/{src['path']}"

    @property
    def public(self) -> bool:
        """False for a file with no public source (``source.kind == "unavailable"``)."""
        return self.source.get("kind") != "unavailable"

    @property
    def verifiable(self) -> bool:
        """Whether a sha256 is recorded to check a download of this file against.

        Examples
        --------
        >>> from evofeat.datasets.catalogue import get_entry
        >>> get_entry("a8a").records[0].verifiable, get_entry("codrna").records[0].verifiable
        (True, False)
        """
        return any((self.sha256_gz, self.sha256_uncompressed, self.source_sha256))

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
        if src.get("kind") in ("github", "url"):
            return str(self.source_url)
        if src.get("kind") == "unavailable":
            return f"not public: {src['reason']}"
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
    >>> from evofeat.datasets.catalogue import get_entry
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
    used_by: tuple[str, ...] = ()

    @property
    def public(self) -> bool:
        """False when a file of the set has no public source (see :func:`how_to_get`)."""
        return all(r.public for r in self.records)

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


#: Where a data set stands on this machine: its files are here, they are not
#: (``evofeat datasets download NAME`` or a copy placed by hand gets them), or
#: the set has no public source.
Status = Literal["here", "not downloaded", "not public"]


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`list_datasets` reports about one registry name.

    Examples
    --------
    >>> from evofeat.datasets import list_datasets
    >>> infos = {i.name: i for i in list_datasets()}
    >>> info = infos["german"]
    >>> info.rows, info.features, info.task, info.bundled, info.found_at is not None
    (1000, 24, 'binary', True, True)
    >>> info.status, infos["kddcup08"].status, infos["kddcup08"].used_by
    ('here', 'not public', ('OFS Table 7', 'OFS Table 8'))
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
    status: Status = "here"
    used_by: tuple[str, ...] = ()

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
        out["used_by"] = list(self.used_by)
        return out


def _papers_records(raw: dict[str, Any]) -> tuple[dict[str, FileRecord], list[dict[str, Any]]]:
    """The file records of ``papers_data.json``, and its data-set records with file paths."""
    records: dict[str, FileRecord] = {}
    datasets = []
    for d in raw["datasets"]:
        paths = []
        for f in d["files"]:
            if isinstance(f, str):  # a file another entry of this list describes
                paths.append(f)
                continue
            src = dict(f["source"])
            records[f["path"]] = FileRecord(
                path=f["path"],
                role="data",
                format=str(d["format"]),
                n_rows=f.get("n_rows"),
                n_features=f.get("n_features"),
                label_counts=None,
                rows_with_missing=0,
                sha256_gz=None,  # no copy of ours: nothing known of the stored .gz
                sha256_uncompressed=None,
                source=src,
                licence=str(f.get("licence", "")),
                notes=str(f.get("notes", "")),
            )
            paths.append(f["path"])
        datasets.append({**d, "files": paths})
    return records, datasets


def _squash(name: str) -> str:
    """A name without case, spaces, hyphens and underscores ("SensIT Vehicle" -> "sensitvehicle")."""
    return re.sub(r"[\s_-]+", "", name).lower()


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    """The names the papers print (``aliases`` of a data-set record), squashed -> registry name.

    E.g. OFS's "svmguid3", OPID's "Mnist 0vs5" (a subset of ``mnist``), "SensIT Vehicle".
    """
    out = {}
    for path in (_CATALOG, _PAPERS_DATA):
        for d in json.loads(path.read_text(encoding="utf-8"))["datasets"]:
            out.update({_squash(a): d["name"] for a in d.get("aliases", ())})
    return out


@lru_cache(maxsize=1)
def _catalog() -> tuple[dict[str, DatasetEntry], dict[str, FileRecord]]:
    raw = json.loads(_CATALOG.read_text(encoding="utf-8"))
    papers_records, papers_sets = _papers_records(
        json.loads(_PAPERS_DATA.read_text(encoding="utf-8"))
    )
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
    clash = set(records) & set(papers_records)
    if clash:  # pragma: no cover - a broken package
        raise DataFormatError(f"{_PAPERS_DATA.name} repeats files of {_CATALOG.name}: {clash}")
    records.update(papers_records)
    entries: dict[str, DatasetEntry] = {}
    reserved = {"name", "files", "format", "task", "bundled", "description", "positive"}
    reserved |= {"used_by", "aliases"}
    for d in [*raw["datasets"], *papers_sets]:
        if d["name"] in entries:  # pragma: no cover - a broken package
            raise DataFormatError(f"the data-set name {d['name']!r} is registered twice")
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
            used_by=tuple(d.get("used_by", ())),
        )
    return entries, records


def names() -> list[str]:
    """All registry names, sorted.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import names
    >>> "covtype-binary" in names() and "german" in names()
    True
    """
    return sorted(_catalog()[0])


def file_record(path: str) -> FileRecord:
    """The record of one file, by its manifest path.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import file_record
    >>> file_record("permutations/german_stsd_id_all.csv.gz").n_rows
    20
    """
    return _catalog()[1][path]


def _normalise(name: str) -> str:
    return name.strip().lower()


def get_entry(name: str) -> DatasetEntry:
    """The registry entry of ``name`` (or of a name a paper prints, e.g. "SensIT Vehicle").

    Raises
    ------
    UnknownDatasetError
        (a :class:`KeyError`) when ``name`` is not registered; the message
        lists the closest names first, then all of them.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import get_entry
    >>> get_entry("covtype-binary").positive
    2
    >>> get_entry("SensIT Vehicle").name, get_entry("CIFAR-10").name
    ('sensit-vehicle', 'cifar10-ofs')
    """
    entries = _catalog()[0]
    key = _normalise(name)
    if key in entries:
        return entries[key]
    alias = _aliases().get(_squash(name))
    if alias is not None:
        return entries[alias]
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
    >>> from evofeat.datasets.catalogue import resolve
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
    if _squash(name_or_path) in _aliases():
        return get_entry(name_or_path)
    path = Path(name_or_path).expanduser()
    lowered = name_or_path.lower().removesuffix(".gz")
    if path.exists() or os.sep in name_or_path or "/" in name_or_path:
        return path
    if lowered.endswith(_FILE_SUFFIXES):
        return path
    raise UnknownDatasetError(_unknown_message(name_or_path))


def _entry(name: str | DatasetEntry) -> DatasetEntry:
    return name if isinstance(name, DatasetEntry) else get_entry(name)


def how_to_get(name: str | DatasetEntry) -> str:
    """How to get a data set's files, for a message or a report's list of skipped cells.

    The first line is one sentence (what a report prints after "needs data
    NAME: "); a set that must be fetched by hand gets more lines, one per file.

    Parameters
    ----------
    name : str or DatasetEntry
        A registry name (or its entry).

    Raises
    ------
    UnknownDatasetError
        When ``name`` is not registered.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import how_to_get
    >>> "download('a8a')" in how_to_get("a8a")
    True
    >>> how_to_get("codrna").splitlines()[0][:44]
    'run `evofeat datasets download codrna` (from'
    >>> how_to_get("kddcup08")[:30]
    'kddcup08 is not public: the KD'
    """
    entry = _entry(name)
    if entry.bundled:
        return f"{entry.name} ships inside evofeat (reinstall evofeat if its files are missing)."
    env_hint = (
        f"set {ENV_VAR} to a folder laid out like the shared data folder "
        f"(holding {', '.join(entry.files)})"
    )
    if not entry.public:
        return (
            f"{entry.name} is not public: {_why_not_public(entry)}. The cells that need it cannot "
            "be run; a user who "
            f"holds a copy places it ({entry.format}) at {', '.join(entry.files)} under "
            f"{cache_dir()} or ${ENV_VAR}."
        )
    if all(r.downloadable for r in entry.records):
        plain = [r for r in entry.records if r.source.get("kind") == "url"]
        where = f" (from {' + '.join(r.describe_source() for r in plain)})" if plain else ""
        unverified = (
            "; no checksum is published for it, so the download is not verified: evofeat prints "
            "the sha256 it computed"
            if any(not r.verifiable for r in entry.records)
            else ""
        )
        return (
            f"run `evofeat datasets download {entry.name}`{where} (in Python: "
            f"evofeat.datasets.download({entry.name!r})), or {env_hint}{unverified}."
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


def _why_not_public(entry: DatasetEntry) -> str:
    return "; ".join(dict.fromkeys(str(r.source["reason"]) for r in entry.records if not r.public))


def needs_data(name: str | DatasetEntry) -> str:
    """The line a report prints for a cell skipped for want of ``name``'s files.

    "needs data NAME: not public (why)" for a set with no public source, else
    "needs data NAME: " and the first line of :func:`how_to_get`. The names
    the papers print are resolved ("SensIT Vehicle" gives sensit-vehicle).

    Examples
    --------
    >>> from evofeat.datasets.catalogue import needs_data
    >>> needs_data("KDDCUP08")[:54]
    'needs data kddcup08: not public (the KDD Cup 2008 data'
    >>> needs_data("gisette-train").split(" (from")[0]
    'needs data gisette-train: run `evofeat datasets download gisette-train`'
    >>> needs_data("covtype")
    'needs data covtype: covtype has no source ... says how to get its files by hand.'
    """
    entry = _entry(name)
    if not entry.public:
        return f"needs data {entry.name}: not public ({_why_not_public(entry)})"
    first = how_to_get(entry).splitlines()[0]
    if first.endswith(":"):  # the by-hand steps follow on more lines: say where they are
        first = (
            f"{first[:-1]}; `evofeat datasets download {entry.name}` says how to get its "
            "files by hand."
        )
    return f"needs data {entry.name}: {first}"


def fullest(name: str | DatasetEntry) -> DatasetEntry:
    """The registered set that extends ``name`` with more rows when all its files are here, else ``name``'s.

    A set declares ``"extends": NAME`` (``papers_data.json``) when its files
    are NAME's rows plus more: ``mnist-full`` (MNIST's training split, then
    the test split that ``mnist`` holds) extends ``mnist``. Used by
    ``load(NAME, fullest=True)``.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import fullest, get_entry
    >>> get_entry("mnist-full").options["extends"], fullest("german").name
    ('mnist', 'german')
    """
    entry = _entry(name)
    for other in _catalog()[0].values():
        if other.options.get("extends") == entry.name and None not in other.locate():
            return other
    return entry


def status(name: str | DatasetEntry) -> Status:
    """Where a registered data set stands here: "here", "not downloaded" or "not public".

    A set with no public source is "here" once a user has placed a copy of its
    files where :func:`find` looks.

    Examples
    --------
    >>> from evofeat.datasets.catalogue import status
    >>> status("german"), status("rfid")
    ('here', 'not public')
    """
    entry = _entry(name)
    if None not in entry.locate():
        return "here"
    return "not downloaded" if entry.public else "not public"


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
        machine, or None when they are absent; ``status`` is "here", "not
        downloaded" or "not public" (:func:`status`); ``used_by`` names the
        paper tables that need the set (for the sets the shared folder
        lacks); ``rows`` and ``features``
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
        state: Status = "here" if found_at is not None else status(entry)
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
                status=state,
                used_by=entry.used_by,
            )
        )
    return out
