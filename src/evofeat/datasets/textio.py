"""Text files read in blocks of whole lines, with stated limits.

Every reader of evofeat (LIBSVM, delimited text, JSON Lines, permutation
files) gets its bytes through :func:`iter_blocks`: gzip (or bzip2) content is
decompressed on the fly, whatever the file's name says (a plain file named
``.gz`` is read as plain text, by every path alike), memory is bounded by the
block size plus the longest line, and two limits are stated:

- :data:`MAX_LINE_BYTES`: the longest line accepted (64 MiB). A file
  without newlines, or a gzip bomb that expands to one huge line, stops there
  with a short error instead of filling the memory.
- :data:`MAX_FEATURE_INDEX`: the largest LIBSVM feature index (2**25 =
  33,554,432, above the 29.9 million features of kddb); one weight and one
  name per feature up to the largest index are built, so a larger index is
  refused with a clear error.

Both are module attributes read at each call, so they can be raised
(``evofeat.datasets.textio.MAX_LINE_BYTES = 1 << 30``) for an unusual file.
"""

from __future__ import annotations

import bz2
import gzip
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .errors import DataFormatError

__all__ = ["MAX_FEATURE_INDEX", "MAX_LINE_BYTES", "iter_blocks", "open_binary", "read_all", "short"]

#: The longest line accepted in a text data file, in bytes (decompressed).
MAX_LINE_BYTES = 64 << 20
#: The largest feature index accepted in a LIBSVM file.
MAX_FEATURE_INDEX = 1 << 25
#: Bytes decompressed per read: a cut-short gzip is reported at the line where it stops, to this grain.
_PIECE = 1 << 16

GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"


def short(text: bytes | str, limit: int = 40) -> str:
    """``repr`` of ``text`` cut to about ``limit`` characters, for error messages.

    >>> short(b"1:" + b"9" * 100)
    "'1:99999999999999999999999999999999999999...' (102 bytes)"
    >>> short("3:x")
    "'3:x'"
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}"[:-1] + f"...' ({len(text)} bytes)"


def open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    """The file's bytes as a stream, decompressed when its content is gzip or bzip2.

    ``"-"`` is standard input. The content decides, not the name.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "plain.txt.gz"
    >>> _ = p.write_bytes(b"1 1:2\\n")
    >>> open_binary(p).read()
    b'1 1:2\\n'
    """
    if str(path) == "-":
        return sys.stdin.buffer
    path = Path(path)
    if path.is_dir():
        raise DataFormatError(f"{path} is a folder; expected a data file.")
    if path.exists() and not path.is_file():
        raise DataFormatError(
            f"{path} exists but is not a regular file (a device, socket or pipe?); expected "
            "a data file. Copy the data to a file, or pipe it in with --dataset - (standard input)."
        )
    fh = open(path, "rb")  # noqa: SIM115 (returned open)
    magic = fh.read(3)
    fh.seek(0)
    if magic[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[return-value]
    if magic == BZ2_MAGIC:
        return bz2.BZ2File(fh, "rb")  # type: ignore[return-value]
    return fh


def _too_long(where: str, line: int) -> DataFormatError:
    return DataFormatError(
        f"{where}, line {line}: longer than {MAX_LINE_BYTES:,} bytes without a newline (the limit "
        "on one line, evofeat.datasets.textio.MAX_LINE_BYTES). Expected one row per line: the file "
        "may be corrupt, a decompression bomb, or not a text data file. Raise the limit only for "
        "a file you trust."
    )


def iter_blocks(
    fh: IO[bytes], where: str, block_bytes: int = 4 << 20
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(text, first_line)``: blocks of about ``block_bytes`` of whole lines.

    ``first_line`` is the 1-based number of the block's first line. The last
    line may lack its newline. Linear in the file size, whatever the line
    lengths; a line longer than :data:`MAX_LINE_BYTES` raises
    :class:`DataFormatError` naming it, and so does a cut-short or corrupt
    compressed stream (naming the last complete line).

    >>> import io
    >>> list(iter_blocks(io.BytesIO(b"a\\nb\\nc"), "f", block_bytes=2))
    [(b'a\\n', 1), (b'b\\n', 2), (b'c', 3)]
    """
    first_line = 1  # of the pending text
    parts: list[bytes] = []  # pending text: whole lines plus a partial one
    pending = 0
    tail = 0  # bytes since the last newline
    limit = MAX_LINE_BYTES
    piece = max(1, min(block_bytes, _PIECE, limit))  # a line inside one piece is within the limit

    def lines_done(extra: bytes = b"") -> int:
        return first_line - 1 + sum(p.count(b"\n") for p in parts) + extra.count(b"\n")

    while True:
        try:
            buf = fh.read(piece)
        except (EOFError, OSError, zlib.error) as err:
            raise DataFormatError(
                f"{where}: the compressed stream is cut short or corrupt; it stops after line "
                f"{lines_done()} (or a few lines later) ({err}). The file is incomplete: fetch or "
                "copy it again."
            ) from None
        if not buf:
            text = b"".join(parts)
            if text.strip():
                yield text, first_line
            return
        first_nl = buf.find(b"\n")
        if tail + (len(buf) if first_nl < 0 else first_nl) > limit:
            raise _too_long(where, lines_done() + 1)
        tail = tail + len(buf) if first_nl < 0 else len(buf) - buf.rfind(b"\n") - 1
        parts.append(buf)
        pending += len(buf)
        if pending >= block_bytes and first_nl >= 0:
            text = b"".join(parts)
            cut = len(text) - tail
            out, rest = text[:cut], text[cut:]
            parts = [rest] if rest else []
            pending = len(rest)
            yield out, first_line
            first_line += out.count(b"\n")


def read_all(path: str | os.PathLike[str]) -> bytes:
    """The whole (decompressed) file, read through :func:`iter_blocks` and its limits.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv.gz"
    >>> _ = p.write_bytes(gzip.compress(b"a,b\\n1,2\\n"))
    >>> read_all(p)
    b'a,b\\n1,2\\n'
    """
    with open_binary(path) as fh:
        return b"".join(text for text, _ in iter_blocks(fh, str(path), block_bytes=16 << 20))
