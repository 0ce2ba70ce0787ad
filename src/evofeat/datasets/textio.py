"""Text files read in blocks of whole lines, with stated limits.

Every reader of evofeat (LIBSVM, delimited text, JSON Lines, permutation
files) gets its bytes through :func:`iter_blocks`: gzip (or bzip2) content is
decompressed on the fly, whatever the file's name says (a plain file named
``.gz`` is read as plain text, by every path alike), memory is bounded by the
block size plus the longest line, and two limits are stated:

- :data:`MAX_LINE_BYTES`: the longest line accepted (64 MiB). A file
  without newlines, or a gzip bomb that expands to one huge line, stops there
  with a short error instead of filling the memory.
- Line ends: ``\\n``, ``\\r\\n`` and a lone ``\\r`` all end a line (every
  reader sees ``\\n``); a UTF-8 byte-order mark at the start is dropped, and
  a UTF-16 or UTF-32 one is refused with how to convert the file.
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

__all__ = [
    "MAX_FEATURE_INDEX",
    "MAX_LINE_BYTES",
    "as_text",
    "iter_blocks",
    "open_binary",
    "peek_stdin",
    "read_all",
    "short",
    "stdin_reader",
    "universal_newlines",
]

#: The longest line accepted in a text data file, in bytes (decompressed).
MAX_LINE_BYTES = 64 << 20
#: The largest feature index accepted in a LIBSVM file.
MAX_FEATURE_INDEX = 1 << 25
#: Bytes decompressed per read: a cut-short gzip is reported at the line where it stops, to this grain.
_PIECE = 1 << 16

GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"
UTF8_BOM = b"\xef\xbb\xbf"
#: byte-order marks of encodings evofeat does not read (longest first: UTF-32 LE starts as UTF-16 LE)
_OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


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
        return stdin_reader()
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


def universal_newlines(text: bytes) -> bytes:
    """``text`` with every ``\\r\\n`` and every lone ``\\r`` written as ``\\n`` (the line count kept).

    >>> universal_newlines(b"a\\r\\nb\\rc\\n")
    b'a\\nb\\nc\\n'
    """
    if b"\r" not in text:
        return text
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _check_bom(head: bytes, where: str) -> bytes:
    """``head`` (the start of a file) without a UTF-8 byte-order mark; another one is an error."""
    if head.startswith(UTF8_BOM):
        return head[len(UTF8_BOM) :]
    for bom, encoding in _OTHER_BOMS:
        if head.startswith(bom):
            raise DataFormatError(
                f"{where}, line 1: the text starts with a {encoding} byte-order mark. Expected "
                f"UTF-8 (or ASCII) text: convert it first, e.g. iconv -f {encoding} -t UTF-8 "
                "FILE > FILE.utf8."
            )
    return head


class _Replay:
    """Standard input with what was read ahead put back in front: ``newlines`` blank lines, then
    ``head``, then the rest of ``fh`` (so the line numbers stay those of the input)."""

    def __init__(self, fh: IO[bytes], newlines: int, head: bytes) -> None:
        self.fh, self.newlines, self.head = fh, newlines, head

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(_PIECE), b""))
        if self.newlines:
            n = min(size, self.newlines, _PIECE)
            self.newlines -= n
            return b"\n" * n
        if self.head:
            out = self.head[:size]
            self.head = self.head[len(out) :]
            return out
        return self.fh.read(size)

    def isatty(self) -> bool:
        return False

    def close(self) -> None:  # standard input stays open (as sys.stdin.buffer does)
        pass

    def __enter__(self) -> _Replay:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


#: ``(stream, its replay)`` of the standard input read ahead by :func:`peek_stdin`
_peeked: tuple[object, _Replay] | None = None


def peek_stdin(fh: IO[bytes] | None = None) -> bytes:
    """The first bytes of standard input from its first non-blank byte, after any byte-order mark.

    Reads ahead as far as needed (past any number of blank lines, in
    memory bounded by one piece: the blank lines are counted, not kept)
    and puts what it read back: :func:`stdin_reader` (and
    :func:`open_binary` of ``"-"``) then read the input from its start, its
    line numbers unchanged. Returns ``b""`` for input that is empty or
    blank. ``fh`` stands for ``sys.stdin.buffer`` (tests).

    >>> import io
    >>> data = io.BytesIO(b"\\xef\\xbb\\xbf\\n\\r\\n  {\\"a\\": 1}\\n")
    >>> peek_stdin(data)[:1], stdin_reader(data).read()
    (b'{', b'\\n\\n  {"a": 1}\\n')
    """
    global _peeked
    fh = sys.stdin.buffer if fh is None else fh
    if _peeked is not None and _peeked[0] is fh:
        return _peeked[1].head.lstrip()
    newlines, first, held = 0, True, b""
    while True:
        buf = fh.read(_PIECE)
        if first:
            buf, first = _check_bom(buf, "standard input"), False
        if not buf:
            newlines += len(held)
            head = b""
            break
        buf = held + buf
        stripped = buf.lstrip()
        if stripped:  # the first non-blank byte: keep this piece from its line's start
            start = len(buf) - len(stripped)
            line_start = max(buf.rfind(b"\n", 0, start), buf.rfind(b"\r", 0, start)) + 1
            newlines += universal_newlines(buf[:line_start]).count(b"\n")
            head = buf[line_start:]
            break
        held = b"\r" if buf.endswith(b"\r") else b""  # a \r\n may be cut in two
        newlines += universal_newlines(buf[: len(buf) - len(held)]).count(b"\n")
    _peeked = (fh, _Replay(fh, newlines, head))
    return head.lstrip()


def stdin_reader(fh: IO[bytes] | None = None) -> IO[bytes]:
    """Standard input (``fh`` in tests), with what :func:`peek_stdin` read ahead put back in front."""
    fh = sys.stdin.buffer if fh is None else fh
    if _peeked is not None and _peeked[0] is fh:
        return _peeked[1]  # type: ignore[return-value]
    return fh


def _too_long(where: str, line: int) -> DataFormatError:
    return DataFormatError(
        f"{where}, line {line}: longer than {MAX_LINE_BYTES:,} bytes without a newline (the limit "
        "on one line, evofeat.datasets.textio.MAX_LINE_BYTES). Expected one row per line: the file "
        "may be corrupt, a decompression bomb, or not a text data file. Raise the limit only for "
        "a file you trust."
    )


def iter_blocks(
    fh: IO[bytes], where: str, block_bytes: int = 4 << 20, *, binary: bool = False
) -> Iterator[tuple[bytes, int]]:
    """Yield ``(text, first_line)``: blocks of about ``block_bytes`` of whole lines.

    ``first_line`` is the 1-based number of the block's first line. The last
    line may lack its newline. Every line end is given as ``\\n``
    (:func:`universal_newlines`) and a UTF-8 byte-order mark at the start is
    dropped; ``binary=True`` gives the bytes as they are. Linear in the file size, whatever the line
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

    start = not binary  # at the start of the stream: a byte-order mark is looked for
    held = b""  # a \r that ends a piece: the next one may start with its \n

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
        if start and buf:
            buf, start = _check_bom(buf, where), False
        if not binary:
            eof = not buf
            buf, held = held + buf, b""
            if not eof and buf.endswith(b"\r"):
                buf, held = buf[:-1], b"\r"
                if not buf:
                    continue
            buf = universal_newlines(buf)
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
        blocks = iter_blocks(fh, str(path), block_bytes=16 << 20, binary=True)
        return b"".join(text for text, _ in blocks)


def as_text(data: bytes, where: str) -> bytes:
    """A whole file's bytes as the readers take text: no UTF-8 byte-order mark, ``\\n`` line ends.

    >>> as_text(b"\\xef\\xbb\\xbfa,b\\r\\n1,2\\r", "f.csv")
    b'a,b\\n1,2\\n'
    """
    return universal_newlines(_check_bom(data, where))
