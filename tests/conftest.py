"""Shared test helpers: where the large data sets are, and how to skip without them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
_DEFAULT_SHARED = _HERE.parent.parent / "shared" / "datasets"


def shared_data_dir() -> Path | None:
    """The directory of the shared data sets, or None when this machine has none.

    ``EVOFEAT_DATA`` wins (CI sets it to ``../shared/datasets``); otherwise a
    ``shared/datasets`` folder beside the checkout is used if present.
    """
    env = os.environ.get("EVOFEAT_DATA")
    if env and Path(env).is_dir():
        return Path(env)
    if _DEFAULT_SHARED.is_dir():
        return _DEFAULT_SHARED
    return None


def requires_data(*names: str) -> pytest.MarkDecorator:
    """Skip a test unless the shared data folder holds the named data sets' folders."""
    root = shared_data_dir()
    missing = [n for n in names if root is None or not (root / n.split("-binary")[0]).exists()]
    return pytest.mark.skipif(
        bool(missing),
        reason=(
            f"needs the data set(s) {', '.join(missing)}: set EVOFEAT_DATA to a folder that holds "
            "them (CI uses ../shared/datasets)"
        ),
    )


@pytest.fixture(autouse=True, scope="session")
def _data_env() -> None:
    root = shared_data_dir()
    if root is not None and "EVOFEAT_DATA" not in os.environ:
        os.environ["EVOFEAT_DATA"] = str(root)
