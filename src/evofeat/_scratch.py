"""Hidden scratch folders for atomic writes, named after the process that made them.

A folder ``.PREFIX<pid>-XXXX`` is removed by whoever made it; one left by a
process that was killed (``kill -9``) is removed by the next run that writes
to the same place.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["make_scratch", "remove_stale"]


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
