"""Point numba's on-disk cache at a folder keyed by the package's source.

Numba invalidates a cached function only when *its own* file changes, but
our compiled loops (the prequential ``_run_chunk``, the shared row kernels)
inline learners' kernels from other files through overload dispatch. A
learner edit would then run against a stale cached loop. Keying the cache
folder by a hash of every ``.py`` file of the package makes any source
change start a fresh cache, while an unchanged install keeps its compiled
code across processes (joblib workers, reruns).

The folder is ``$NUMBA_CACHE_DIR/evofeat-<hash>`` when the user set
``NUMBA_CACHE_DIR``, else ``<user cache dir>/evofeat/numba/<hash>``.
``EVOFEAT_NUMBA_CACHE=0`` leaves numba's configuration untouched.

Examples
--------
>>> from evofeat._numba_cache import source_hash
>>> len(source_hash())
12
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def source_hash() -> str:
    """Return a short hash of the package's Python sources (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def configure() -> None:
    """Set numba's cache folder for this package (see the module docstring)."""
    if os.environ.get("EVOFEAT_NUMBA_CACHE", "1") == "0":
        return
    import numba

    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    if user_dir:
        folder = Path(user_dir) / f"evofeat-{source_hash()}"
    else:
        from platformdirs import user_cache_dir

        folder = Path(user_cache_dir("evofeat")) / "numba" / source_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # unwritable: numba falls back to its own locators
    numba.config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
