"""A selector loaded from a model file reads further columns exactly as the saved one would (issue 16).

Saved after k columns, loaded, and fed the remaining columns (one at a time
and in blocks), it must select what the selector that was never saved
selects, after every column, for every registered selector.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evofeat import io
from evofeat.base import InputError
from evofeat.registry import SELECTORS, make
from tests.io.test_schema import (
    _content,
    _forge,
    _write,
)  # a file's parts; rewrite members and the checksum

CASES = [(name, {}) for name in SELECTORS] + [
    ("osfs", {"test": "g2"}),  # the G^2 tester keeps codes, not values
    ("fast-osfs", {"test": "g2", "variant": "lofs"}),
    ("ceofs", {"test": "mi"}),  # representatives as codes, with their levels
    ("saola", {"test": "mi"}),
    ("alpha-investing", {"variant": "lofs"}),
]


def _data(discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    base = rng.normal(size=(160, 6))
    X = np.hstack([base, base[:, :4] + 0.3 * rng.normal(size=(160, 4)), rng.normal(size=(160, 8))])
    y = np.where(base[:, 0] + base[:, 2] - base[:, 4] > 0, 1, -1)
    if discrete:
        X = np.digitize(X, [-0.5, 0.5]).astype(float)
    return X, y


def _state(sel: Any) -> tuple[Any, ...]:
    return (
        np.flatnonzero(sel.get_support()).tolist(),
        sel.relevance_.tolist(),
        list(getattr(sel, "selected_", [])),
        np.asarray(getattr(sel, "group_of_", [])).tolist(),
        getattr(sel, "wealth_", None),
    )


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_a_loaded_selector_continues_as_the_saved_one(
    name: str, params: dict[str, Any], tmp_path: Path
) -> None:
    X, y = _data(discrete=params.get("test") in ("g2", "mi", "su"))
    saved = make(name, **params).fit(X[:, :5], y)
    for j in range(5, 9):
        saved.add_feature(X[:, j])
    loaded = io.load(io.save(saved, tmp_path / "s.npz"), expected=name)
    assert _state(loaded) == _state(saved)
    for j in range(9, 14):  # one column at a time
        saved.add_feature(X[:, j])
        loaded.add_feature(X[:, j])
        assert _state(loaded) == _state(saved), f"after column {j}"
    saved.partial_fit(X[:, 14:])  # and a block
    loaded.partial_fit(X[:, 14:])
    assert _state(loaded) == _state(saved)
    assert loaded.n_features_in_ == X.shape[1]
    # and the loaded one saved again continues the same way
    again = io.load(io.save(loaded, tmp_path / "t.npz"), expected=name)
    extra = X[:, :3] * -1.0
    saved.partial_fit(extra)
    again.partial_fit(extra)
    assert _state(again) == _state(saved)


def test_a_forged_column_state_is_refused(tmp_path: Path) -> None:
    X, y = _data(discrete=False)
    path = io.save(make("saola").fit(X[:, :8], y), tmp_path / "s.npz")
    meta, content = _content(path)
    key = meta["attrs"]["_cols"]["__columns__"]["__array__"]
    assert content[key].shape[0] == len(meta["attrs"]["selected_"])
    _forge(path, **{key: content[key][:, :-1]})  # columns one row short
    with pytest.raises(InputError, match="column state '_cols' does not fit"):
        io.load(path)
    _forge(path, **{key: content[key][:-1]})  # one selected feature's column missing
    with pytest.raises(InputError, match="column state does not fit the selector"):
        io.load(path)
    meta["attrs"]["selected_"] = meta["attrs"]["selected_"][::-1][:1] * len(content[key])
    _forge(path, meta, **{key: content[key]})  # a selection the state does not give
    with pytest.raises(InputError, match="does not give the saved selection"):
        io.load(path)


def test_a_file_without_the_column_state_is_refused_with_how_to_fix(tmp_path: Path) -> None:
    X, y = _data(discrete=False)
    path = io.save(make("osfs").fit(X[:, :8], y), tmp_path / "s.npz")
    meta, content = _content(path)
    key = meta["attrs"].pop("_tester")["__tester__"]["columns"]["__array__"]
    del content[key]  # as an older evofeat wrote it: the selection only
    _write(path, meta, content)
    with pytest.raises(InputError, match="holds no column state of OSFS.*fit the selector again"):
        io.load(path)
