"""Shared test helpers: where the large data sets are, and how to skip without them."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
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


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No EVOFEAT_DATA, and an empty user cache dir: a user's fresh machine."""
    from evofeat.datasets import registry

    monkeypatch.delenv("EVOFEAT_DATA", raising=False)
    cache = tmp_path / "cache"
    monkeypatch.setattr(registry, "cache_dir", lambda: cache)
    return cache


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """A fake HTTPS server: fill the dict ``{url: bytes}``; no test touches the network."""
    import requests

    from evofeat.datasets import fetch

    files: dict[str, bytes] = {}
    hits: list[str] = []

    def open_url(url: str, timeout: float):  # type: ignore[no-untyped-def]
        hits.append(url)
        if url not in files:
            raise requests.exceptions.HTTPError(f"404 Client Error: Not Found for url: {url}")
        data = files[url]
        size = None if "chunked" in url else len(data)  # a server may not announce the size
        return url, size, iter([data[i : i + 4096] for i in range(0, len(data), 4096)])

    monkeypatch.setattr(fetch, "_open_url", open_url)
    monkeypatch.setattr(fetch, "RETRIES", 0)
    files["hits"] = hits  # type: ignore[assignment]
    return files


@pytest.fixture
def divergence_expected() -> Iterator[list[warnings.WarningMessage]]:
    """For tests that feed rows built to be extreme: a learner may diverge on them.

    Its divergence warning (a RuntimeWarning saying "diverged", which
    ``tests/base/test_divergence_warning.py`` asserts where it must appear) is expected and
    kept out of the test output; any other warning fails the test.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    other = [
        f"{w.category.__name__}: {w.message}"
        for w in caught
        if not (issubclass(w.category, RuntimeWarning) and "diverged" in str(w.message))
    ]
    assert other == [], "unexpected warnings"
