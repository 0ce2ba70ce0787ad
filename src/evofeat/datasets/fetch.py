"""``download``: fetch a data set from its canonical source, verify it, store it gzipped."""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from . import registry
from .errors import ChecksumError, DataFormatError, DataNotFoundError
from .readers import GZIP_MAGIC, decompress
from .registry import FileRecord, get_entry, how_to_get

__all__ = ["download"]

_CHUNK = 1 << 20


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fetch(url: str, timeout: float) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            parts = []
            while chunk := response.read(_CHUNK):
                parts.append(chunk)
        return b"".join(parts)
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise DataNotFoundError(
            f"could not fetch {url}: {err}. Check the network connection, or pass url=... "
            "pointing at a copy of the file (file:// works)."
        ) from err


def _verified_payload(rec: FileRecord, raw: bytes, url: str) -> bytes:
    """The gzip bytes to store for ``rec``, after checking ``raw``'s sha256."""
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
    if got != rec.sha256_uncompressed:
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
    raw = path.read_bytes()
    if _sha256(raw) == rec.sha256_gz:
        return True
    try:
        return _sha256(decompress(raw, str(path))) == rec.sha256_uncompressed
    except DataFormatError:
        return False


def _write_atomic(target: Path, payload: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def download(
    name: str,
    *,
    dest: str | os.PathLike[str] | None = None,
    url: str | Sequence[str] | None = None,
    timeout: float = 60.0,
) -> Path:
    """Fetch a registered data set's files, verify their sha256 and store them gzipped.

    Each file is stored at ``<dest>/<path in the manifest>`` (e.g.
    ``ijcnn1/ijcnn1_test.libsvm.gz``), the layout that :func:`find` searches.
    Every file is fetched and verified before anything is written, and each
    is written to a temporary file then renamed, so a failed or interrupted
    download leaves nothing behind. A file already present with the right
    checksum is not fetched again.

    Parameters
    ----------
    name : str
        A registry name.
    dest : path-like, optional
        The folder to store into; default the user cache dir
        (``platformdirs.user_cache_dir("evofeat")``), which :func:`find`
        searches after ``$EVOFEAT_DATA``.
    url : str or sequence of str, optional
        Override the canonical source (one URL per file, in the entry's file
        order; ``file://`` URLs work). The URL may serve the source bytes,
        the uncompressed file or the shared folder's ``.gz``: the sha256 is
        checked against the one the manifest records for each.
    timeout : float, default=60
        Seconds to wait for the server.

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
        from a PyPI wheel; some files were converted from MATLAB/HDF5): the
        message says how to obtain it by hand. Also raised when the URL
        cannot be fetched.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> from evofeat.datasets import download, find
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> copy = tmp / "german.numer"                  # stands in for the remote file
    >>> _ = copy.write_bytes(gzip.decompress(find("german")[0].read_bytes()))
    >>> folder = download("german", dest=tmp / "cache", url=copy.as_uri())
    >>> folder.relative_to(tmp).as_posix(), [p.name for p in folder.iterdir()]
    ('cache/german', ['german.numer.gz'])
    """
    entry = get_entry(name)
    root = Path(dest).expanduser() if dest is not None else registry.cache_dir()
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
    if any(u is None for u in urls):
        if entry.bundled and not any(r.downloadable for r in records):
            raise DataNotFoundError(
                f"{entry.name} ships inside the package (evofeat/datasets/data) and has no "
                f"downloadable source ({entry.source}); load it directly with "
                f"evofeat.datasets.load({entry.name!r})."
            )
        raise DataNotFoundError(how_to_get(entry))
    payloads: list[tuple[Path, bytes]] = []
    for rec, u in zip(records, urls, strict=True):
        target = root / rec.path
        if _is_valid(target, rec):
            continue
        assert u is not None
        payloads.append((target, _verified_payload(rec, _fetch(u, timeout), u)))
    for target, payload in payloads:
        _write_atomic(target, payload)
    return root / Path(records[0].path).parent
