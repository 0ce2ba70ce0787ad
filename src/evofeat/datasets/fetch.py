"""``download``: fetch a data set from its canonical source, verify it, store it gzipped."""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import tempfile
import urllib.parse
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evofeat.base.errors import InputError

from . import catalogue
from .catalogue import FileRecord, get_entry, how_to_get
from .errors import ChecksumError, DataFormatError, DataNotFoundError, UnverifiedDownloadWarning
from .readers import GZIP_MAGIC, decompress

__all__ = ["MAX_DOWNLOAD_BYTES", "download"]

_CHUNK = 1 << 20


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: The most bytes one download may bring (the largest registered file is far smaller).
MAX_DOWNLOAD_BYTES = 2 << 30
#: Extra tries after a failed download (pooch waits 1 s, then 2 s, ... between them).
RETRIES = 2


class _Abort(Exception):
    """A download refused (over the size cap, redirected off HTTPS): not a ValueError, so pooch does not retry it."""


def check_url(url: str) -> str:
    """``url`` if it is an ``https://`` URL; otherwise a clear error.

    >>> check_url("https://example.org/a.gz")
    'https://example.org/a.gz'
    >>> check_url("file:///etc/passwd")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: cannot download from 'file:///etc/passwd': expected an https:// URL, received a file: URL; fix: ...
    """
    scheme = urllib.parse.urlsplit(str(url)).scheme.lower()
    if scheme != "https" or not urllib.parse.urlsplit(str(url)).netloc:
        raise InputError(
            f"cannot download from {str(url)[:200]!r}",
            expected="an https:// URL",
            received=f"a {scheme}: URL" if scheme else "no URL scheme",
            fix="give the https:// address of the file; for a copy already on this machine, "
            f"place it under {catalogue.cache_dir()} or a folder named by ${catalogue.ENV_VAR}",
        )
    return str(url)


def _open_url(url: str, timeout: float) -> tuple[str, int | None, Iterator[bytes]]:
    """``(final URL after redirects, announced size or None, chunks)`` of an HTTPS GET."""
    import requests

    response = requests.get(url, stream=True, timeout=timeout)
    response.raise_for_status()
    size = response.headers.get("content-length")
    return (
        response.url,
        int(size) if size and size.isdigit() else None,
        response.iter_content(_CHUNK),
    )


def _capped_downloader(timeout: float, max_bytes: int) -> Any:
    """A pooch downloader: HTTPS only (redirects included), at most ``max_bytes``."""

    def download(url: str, output_file: Any, pooch: Any, check_only: bool = False) -> Any:
        final, size, chunks = _open_url(url, timeout)
        if urllib.parse.urlsplit(final).scheme.lower() != "https":
            raise _Abort(
                f"{url} redirects to {final[:200]}, which is not HTTPS; nothing was written."
            )
        if check_only:
            return True
        cap = (
            f"over the size cap of {max_bytes:,} bytes (max_bytes=, evofeat.datasets.fetch."
            "MAX_DOWNLOAD_BYTES); nothing was written. Check the URL; raise the cap only for a "
            "source you trust."
        )
        if size is not None and size > max_bytes:
            raise _Abort(f"{url} announces {size:,} bytes, {cap}")
        got = 0
        with open(output_file, "w+b") if isinstance(output_file, str) else output_file as fh:
            for chunk in chunks:
                got += len(chunk)
                if got > max_bytes:
                    raise _Abort(f"{url} sent more than {max_bytes:,} bytes, {cap}")
                fh.write(chunk)
        return None

    return download


def _fetch(
    url: str,
    timeout: float,
    known_sha256: str | None,
    max_bytes: int,
    target: Path | None = None,
) -> bytes:
    """The bytes at ``url``, through pooch (retries, hash check, atomic temporary file).

    ``target``: where the file is stored, named in the message of a failed download.
    """
    import pooch

    pooch.get_logger().setLevel("WARNING")
    with tempfile.TemporaryDirectory(prefix="evofeat-download-") as tmp:
        fname = "payload"
        store = pooch.create(
            path=tmp,
            base_url="",
            registry={fname: f"sha256:{known_sha256}" if known_sha256 else None},
            urls={fname: url},
            retry_if_failed=RETRIES,
        )
        try:
            path = store.fetch(fname, downloader=_capped_downloader(timeout, max_bytes))
        except _Abort as err:
            raise DataNotFoundError(str(err)) from None
        except ValueError as err:  # pooch: the sha256 differs
            raise ChecksumError(
                f"{url}: {err} The download is corrupt or the file at that URL has changed; "
                "nothing was written. Retry, or check the URL."
            ) from None
        except OSError as err:  # requests' errors (HTTP status, timeouts) are OSErrors
            by_hand = (
                f"place the file there by hand: {target}"
                if target is not None
                else "place the file by hand (see `evofeat datasets`)"
            )
            raise DataNotFoundError(
                f"could not fetch {url}: {_network_failure(err, timeout)} (tried "
                f"{1 + RETRIES} times). Check the network connection and the URL, or fetch the "
                f"file another way and {by_hand} (a folder named by ${catalogue.ENV_VAR} is "
                "searched first)."
            ) from None
        return Path(path).read_bytes()


def _network_failure(err: OSError, timeout: float) -> str:
    """What went wrong with a download, in one short phrase (not the HTTP library's exception text).

    >>> _network_failure(TimeoutError(), 60.0)
    'no answer within 60 s'
    """
    import requests

    response = getattr(err, "response", None)
    if isinstance(err, requests.HTTPError):
        if response is None:
            return str(err).splitlines()[0][:120] if str(err) else "an HTTP error"
        return f"the server answered {response.status_code} {response.reason or ''}".rstrip()
    if isinstance(err, requests.Timeout | TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(err, requests.ConnectionError):
        host = urllib.parse.urlsplit(getattr(err.request, "url", "") or "").netloc
        return (
            f"cannot connect to {host or 'the server'} (no network, or the name does not resolve)"
        )
    return type(err).__name__


_LIBSVM_LINE = re.compile(rb"^\s*[-+]?[0-9.eE+-]+(?:\s+[0-9]+:\S+)*\s*$")


def _not_the_format(rec: FileRecord, content: bytes) -> str | None:
    """What ``content``'s first lines are instead of ``rec.format`` (None when they fit).

    Only a LIBSVM file is checked this way (label, then index:value pairs).
    """
    if rec.format != "libsvm":
        return None
    head = content[: 1 << 20].splitlines()
    if len(content) > 1 << 20:
        head = head[:-1]  # cut short
    lines = [line for line in head[:10] if line.strip()][:5]
    for line in lines:
        if not _LIBSVM_LINE.match(line):
            return f"a line that is not LIBSVM ({line[:60]!r})"
    return None


def _unverified_payload(rec: FileRecord, raw: bytes, url: str) -> bytes:
    """The gzip bytes to store for ``rec``, whose source publishes no checksum to check."""
    try:
        content = decompress(raw, url)
    except DataFormatError as err:
        raise DataNotFoundError(f"{err} Nothing was written.") from err
    head = content[:512].lstrip().lower()
    page = head.startswith((b"<!doctype", b"<html", b"<?xml"))
    what = "nothing" if not content.strip() else "a web page" if page else None
    what = what or _not_the_format(rec, content)
    if what is not None:
        raise DataNotFoundError(
            f"{url} sent {what}, not the data file {rec.path} ({rec.format}); nothing was "
            "written. The source may have moved: check its page "
            f"({rec.source.get('page') or url}) and pass the file's address with --url."
        )
    if raw[:2] == GZIP_MAGIC:
        return raw
    return gzip.compress(content, compresslevel=9, mtime=0)


def _verified_payload(rec: FileRecord, raw: bytes, url: str) -> bytes:
    """The gzip bytes to store for ``rec``, after checking ``raw``'s sha256."""
    if not rec.verifiable:
        return _unverified_payload(rec, raw, url)
    digest = _sha256(raw)
    if digest == rec.sha256_gz:  # an exact copy of the shared folder's file
        return raw
    source_ok = rec.source_sha256 is not None and digest == rec.source_sha256
    if source_ok and rec.converted:
        raise DataFormatError(
            f"{url} is the unconverted source of {rec.path} ({rec.describe_source()}); "
            "evofeat does not convert it. Pass url= of a copy of the converted file instead."
        )
    if not source_ok and digest != rec.sha256_uncompressed:
        raise ChecksumError(
            f"{url}: sha256 {digest} is not the one recorded for {rec.path} "
            f"(source bytes {rec.source_sha256}, uncompressed {rec.sha256_uncompressed}, "
            f"gzip {rec.sha256_gz}). The download is corrupt or the file at that URL has "
            "changed; nothing was written. Retry, or check the URL."
        )
    try:
        content = decompress(raw, url)
    except DataFormatError as err:
        raise ChecksumError(f"{err} Nothing was written.") from err
    got = _sha256(content)
    if rec.sha256_uncompressed is not None and got != rec.sha256_uncompressed:
        raise ChecksumError(
            f"{url}: the decompressed content has sha256 {got}, not the recorded "
            f"{rec.sha256_uncompressed} of {rec.path}; nothing was written."
        )
    if raw[:2] == GZIP_MAGIC:
        return raw
    return gzip.compress(content, compresslevel=9, mtime=0)


def _is_valid(path: Path, rec: FileRecord) -> bool:
    if not path.is_file():
        return False
    if rec.sha256_gz is None and rec.sha256_uncompressed is None:
        return True  # nothing known of the stored file (no copy of ours): a file in place is kept
    raw = path.read_bytes()
    if _sha256(raw) == rec.sha256_gz:
        return True
    try:
        return _sha256(decompress(raw, str(path))) == rec.sha256_uncompressed
    except DataFormatError:
        return False


def _write_atomic(target: Path, payload: bytes) -> None:
    """``target`` written whole or not at all (synced to the disk before it is moved in)."""
    from evofeat._scratch import write_atomically

    def write(tmp: Path) -> None:
        with (tmp / target.name).open("wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())

    write_atomically(target.parent, write)


def download(
    name: str,
    *,
    dest: str | os.PathLike[str] | None = None,
    url: str | Sequence[str] | None = None,
    timeout: float = 60.0,
    max_bytes: int | None = None,
) -> Path:
    """Fetch a registered data set's files, verify their sha256 and store them gzipped.

    Each file is stored at ``<dest>/<path in the manifest>`` (e.g.
    ``ijcnn1/ijcnn1_test.libsvm.gz``), the layout that :func:`find` searches.
    Every file is fetched and verified before anything is written, and each
    is written to a temporary file then renamed, so a failed or interrupted
    download leaves nothing behind. A file already present with the right
    checksum is not fetched again. Downloads go through :mod:`pooch`
    (retries, hash check, temporary file); only ``https://`` URLs are
    accepted (redirects included), and one file may bring at most
    ``max_bytes``. The command line: ``evofeat datasets download NAME``.

    Some sets the papers used come from a source that publishes no checksum
    (the LIBSVM data page: ``codrna``, ``gisette``, ``sensit-vehicle``,
    ``protein``). Those are fetched with pooch's ``known_hash=None`` and
    stored after a format check (not a web page, not empty, and for a
    LIBSVM file, first lines of the form ``label index:value ...``), and an
    :class:`~evofeat.datasets.errors.UnverifiedDownloadWarning` gives the
    sha256 of the bytes received, never silently. A file of such a set
    already in place is kept (delete it to fetch it again).

    Parameters
    ----------
    name : str
        A registry name.
    dest : path-like, optional
        The folder to store into; default the user cache dir
        (``platformdirs.user_cache_dir("evofeat")``), which :func:`find`
        searches after ``$EVOFEAT_DATA``.
    url : str or sequence of str, optional
        Override the canonical source (one ``https://`` URL per file, in the
        entry's file order). The URL may serve the source bytes,
        the uncompressed file or the shared folder's ``.gz``: the sha256 is
        checked against the one the manifest records for each.
    timeout : float, default=60
        Seconds to wait for the server.
    max_bytes : int, optional
        The most bytes one file may bring; default
        :data:`MAX_DOWNLOAD_BYTES` (2 GiB).

    Returns
    -------
    pathlib.Path
        The folder that holds the data set's files.

    Raises
    ------
    ChecksumError
        The bytes fetched do not have the recorded sha256 (nothing written).
    DataNotFoundError
        The data set has no source evofeat can fetch by itself (covtype comes
        from a PyPI wheel; some files were converted from MATLAB/HDF5), or no
        public source at all (``kddcup08``, ``cifar10-ofs``, ``rfid``): the
        message says why and how to obtain it by hand. Also raised when the
        URL cannot be fetched, brings more than ``max_bytes``, or brings a
        web page instead of an unverifiable data file.
    InputError
        A URL that is not ``https://`` (``http``, ``file``, ``ftp``, ``data``).

    Examples
    --------
    >>> from evofeat.datasets import download
    >>> download("a8a", url="http://www.csie.ntu.edu.tw/a8a")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: cannot download from 'http://www.csie.ntu.edu.tw/a8a': expected an https:// URL, received a http: URL; fix: ...
    """
    entry = get_entry(name)
    root = Path(dest).expanduser() if dest is not None else catalogue.cache_dir()
    records = entry.records
    if url is None:
        urls: list[str | None] = [r.source_url if r.downloadable else None for r in records]
    elif isinstance(url, (str, os.PathLike)):
        if len(records) != 1:
            raise ValueError(
                f"{entry.name} has {len(records)} files ({', '.join(entry.files)}): pass a list "
                "of URLs, one per file, in that order"
            )
        urls = [str(url)]
    else:
        urls = [str(u) for u in url]
        if len(urls) != len(records):
            raise ValueError(
                f"{entry.name} has {len(records)} files ({', '.join(entry.files)}), but "
                f"{len(urls)} URLs were given"
            )
    for u in urls:
        if u is not None:
            check_url(u)
    cap = MAX_DOWNLOAD_BYTES if max_bytes is None else int(max_bytes)
    if any(u is None for u in urls):
        if entry.bundled and not any(r.downloadable for r in records):
            raise DataNotFoundError(
                f"{entry.name} ships inside the package (evofeat/datasets/data) and has no "
                f"downloadable source ({entry.source}); load it directly with "
                f"evofeat.datasets.load({entry.name!r})."
            )
        raise DataNotFoundError(how_to_get(entry))
    payloads: list[tuple[Path, bytes]] = []
    unverified: list[str] = []
    for rec, u in zip(records, urls, strict=True):
        target = root / rec.path
        if _is_valid(target, rec):
            continue
        assert u is not None
        known = rec.source_sha256 if url is None else None  # an override may serve any of 3 forms
        raw = _fetch(u, timeout, known, cap, target)
        payloads.append((target, _verified_payload(rec, raw, u)))
        if not rec.verifiable:
            unverified.append(
                f"{entry.name}: {rec.path} stored from {u} WITHOUT a checksum check (its source "
                f"publishes none); sha256 of the bytes received: {_sha256(raw)}"
            )
    for target, payload in payloads:
        _write_atomic(target, payload)
    for line in unverified:
        warnings.warn(line, UnverifiedDownloadWarning, stacklevel=2)
    return root / Path(records[0].path).parent


def _needed_by(entries: list[catalogue.DatasetEntry], paper: str) -> list[catalogue.DatasetEntry]:
    """The entries whose ``used_by`` names ``paper``'s tables ("OFS Table 8" for "ofs")."""

    def papers(e: catalogue.DatasetEntry) -> set[str]:
        return {t.split()[0].lower() for t in e.used_by}

    known = sorted(set().union(*(papers(e) for e in entries)))
    if paper.lower() not in known:
        raise InputError(
            f"unknown paper {paper!r}",
            expected=f"one of {', '.join(known)}",
            fix="name a paper evofeat reproduces (`evofeat reproduce --help`)",
        )
    return [e for e in entries if paper.lower() in papers(e)]


def download_many(
    names: Sequence[str],
    *,
    all_: bool = False,
    dest: str | os.PathLike[str] | None = None,
    url: str | None = None,
    paper: str | None = None,
) -> Iterator[str]:
    """``evofeat datasets download``: fetch each data set, yielding one line of report per set.

    With ``all_``, every registered set whose files all have a downloadable
    source; with ``paper`` (stsd, ofs, fesl, opid, ceofs), those of them that
    the paper's tables need (``used_by``). The sets that cannot be fetched are
    listed, with how to get them, at the end; a failed download is reported
    and the others go on, then an error sums up. A file stored without a
    checksum check gets a ``warning:`` line with the sha256 of the bytes
    received.

    >>> list(download_many([]))
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: no data set named: expected one or more names, --all or --paper; fix: see `evofeat datasets` for the names
    >>> list(download_many([], paper="nips"))
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown paper 'nips': expected one of ceofs, fesl, ofs, opid, stsd; fix: ...
    """
    choices = (("names", bool(names)), ("--all", all_), ("--paper", paper is not None))
    given = [what for what, on in choices if on]
    if len(given) > 1:
        raise InputError(
            f"both {given[0]} and {given[1]} given",
            expected="names, --all or --paper",
            received=", ".join(given),
            fix=f"drop {given[1]}",
        )
    if not given:
        raise InputError(
            "no data set named",
            expected="one or more names, --all or --paper",
            fix="see `evofeat datasets` for the names",
        )
    if url is not None and (all_ or paper is not None or len(names) != 1):
        raise InputError(
            "--url is the address of one data set's file",
            expected="one name with --url",
            received=f"{'--all' if all_ else '--paper' if paper else len(names)} names",
            fix="download one data set at a time with --url",
        )
    skipped = []
    keep_going = all_ or paper is not None
    if keep_going:
        entries = [catalogue.get_entry(n) for n in catalogue.names()]
        if paper is not None:
            entries = _needed_by(entries, paper)
        chosen = [
            e.name for e in entries if not e.bundled and all(r.downloadable for r in e.records)
        ]
        skipped = [e for e in entries if not e.bundled and e.name not in chosen]
    else:
        chosen = list(names)
    failed = []
    for name in chosen:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UnverifiedDownloadWarning)
                folder = download(name, dest=dest, url=url)
        except (DataNotFoundError, ChecksumError) as err:
            if not keep_going:
                raise
            failed.append(name)
            yield f"{name}: failed: {err}"
            continue
        for w in caught:
            if issubclass(w.category, UnverifiedDownloadWarning):
                yield f"warning: {w.message}"
            else:  # not ours to swallow
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        yield f"{name}: {folder}"
    for entry in skipped:
        yield f"{entry.name}: skipped, no source evofeat can fetch by itself. {how_to_get(entry)}"
    if failed:
        raise DataNotFoundError(
            f"{len(failed)} of {len(chosen)} downloads failed ({', '.join(failed)}): see above. "
            "The others are stored; run the command again to retry the failed ones."
        )
