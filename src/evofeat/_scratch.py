"""Atomic writes through hidden scratch folders named after the process that made them.

:func:`write_atomically` is the one way evofeat writes its output (``run``
and ``compare --out``, reproduction reports, downloaded data files): the files
are written into a scratch folder beside their destination and moved in only
when complete. A folder ``.PREFIX<pid>-XXXX`` is removed by whoever made it;
one left by a process that was killed (``kill -9``) is removed by the next run
that writes to the same place.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection
from pathlib import Path

__all__ = ["make_scratch", "remove_stale", "write_atomically"]


def write_atomically(
    folder: Path,
    write: Callable[[Path], None],
    *,
    last: str | None = None,
    stale: Collection[str] = (),
    inside: str | None = None,
) -> None:
    """Write files into ``folder`` all at once, or not at all.

    ``write(tmp)`` fills a scratch folder made beside ``folder`` (on the
    same file system); then a new ``folder`` is that scratch folder renamed,
    and an existing one gets each file moved in (subfolders kept), ``last``
    last (the file that says the rest is there). The names in ``stale`` that
    this write did not produce are removed from ``folder`` (an earlier
    command's output). With ``inside``, the scratch folder is
    ``folder/.{inside}<pid>-XXXX`` instead (``folder`` is made first: a
    report beside its results store). On an error nothing is moved in and the scratch folder
    is removed; the error (an :class:`OSError`, a full disk...) goes on.
    The folder gets the usual permissions (``mkdir`` under the user's umask).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> write_atomically(root, lambda tmp: (tmp / "a.txt").write_text("1"))
    >>> write_atomically(root, lambda tmp: (tmp / "b.txt").write_text("2"), stale={"a.txt"})
    >>> sorted(p.name for p in root.iterdir()), sorted(p.name for p in root.parent.iterdir())
    (['b.txt'], ['out'])
    """
    if inside is None:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = make_scratch(folder.parent, f"{folder.name}.")  # a killed run's leftover goes here
    else:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = make_scratch(folder, inside)
    try:
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it 0700
        write(tmp)
        if not folder.exists():
            os.replace(tmp, folder)
            return
        files = [f for f in tmp.rglob("*") if f.is_file()]
        for name in sorted(set(stale) - {f.name for f in files}):
            (folder / name).unlink(missing_ok=True)
        for f in sorted(files, key=lambda f: f.name == last):
            dest = folder / f.relative_to(tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def make_scratch(parent: Path, prefix: str) -> Path:
    """A new folder ``parent/.{prefix}{pid}-XXXX`` (stale ones of dead processes removed first).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / ".out.999999999-old").mkdir()  # left by a process that is gone
    >>> tmp = make_scratch(root, "out.")
    >>> sorted(p.name.startswith(f".out.{os.getpid()}-") for p in root.iterdir())
    [True]
    """
    remove_stale(parent, prefix)
    return Path(tempfile.mkdtemp(prefix=f".{prefix}{os.getpid()}-", dir=parent))


def remove_stale(parent: Path, prefix: str) -> None:
    """Remove the scratch folders under ``parent`` whose process is no longer running.

    A folder without a process id in its name (made by an older version) is
    removed once it is an hour old.
    """
    for tmp in parent.glob(f".{prefix}*"):
        if not tmp.is_dir():
            continue
        pid = tmp.name[len(prefix) + 1 :].split("-", 1)[0]
        if pid.isdigit() and "-" in tmp.name[len(prefix) + 1 :]:
            stale = not _alive(int(pid))
        else:
            stale = time.time() - tmp.stat().st_mtime > 3600
        if stale:
            shutil.rmtree(tmp, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except (OverflowError, ValueError):
        return False
    return True
