"""The bounds-checked build of the compiled core (``EVOFEAT_CYTHON_CHECKS=1``; CI's ``.ci/checked-build``).

Built with Cython's ``boundscheck`` and ``wraparound`` on, an index out of an
array's range raises ``IndexError`` instead of reading or writing past it.
These tests run only against that build (the ordinary build would read past
the array: undefined behaviour), and check that it is the one imported.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("EVOFEAT_CYTHON_CHECKS", "") in ("", "0"),
    reason="needs the bounds-checked build: EVOFEAT_CYTHON_CHECKS=1 (see .ci/checked-build)",
)


def test_an_out_of_range_index_raises_index_error() -> None:
    from evofeat._core.core import Core

    from evofeat._core import loop

    empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0)
    with pytest.raises(IndexError, match="(?i)out of bounds"):  # tick_pos[0] of an empty tick_pos
        loop.run_chunk(
            Core(), np.zeros(1, dtype=np.int64), empty_i, empty_f, empty_f, empty_i,
            np.zeros(1, dtype=np.int64), empty_i, empty_i, 0, True, empty_i, empty_i,
            empty_f, empty_f, 0.0, 0.0, empty_f, empty_f,
        )  # fmt: skip


def test_the_checked_build_is_the_one_imported() -> None:
    import evofeat

    where = os.environ.get("EVOFEAT_CHECKED_SRC")
    if where:
        assert os.path.realpath(evofeat.__file__).startswith(os.path.realpath(where))
