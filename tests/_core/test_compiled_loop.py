"""The compiled loop reading a Stream in place equals the same loop over the stream's converted chunks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from evofeat.evaluate import prequential
from evofeat.registry import make
from evofeat.streams import Stream, haphazard, trapezoidal

LEARNERS = [
    "pa-i",
    "perceptron",
    "stsd-i",
    "stsd-i-rand",
    "ofs",
    "pe-trun",
    "rand",
    "fesl-c",
    "ogd",
]


class _Chunked:
    """The same stream seen only through ``internal_columns`` and ``chunks`` (as a file stream is)."""

    def __init__(self, stream: Stream, size: int) -> None:
        self._s, self._size = stream, size
        self.n_rows, self.y, self.info, self.task = (
            stream.n_rows,
            stream.y,
            stream.info,
            stream.task,
        )

    def internal_columns(self, fi: Any) -> Any:
        return self._s.internal_columns(fi)

    def chunks(self, col_map: np.ndarray, seg_dim: np.ndarray, size: int = 65536) -> Any:
        return self._s.chunks(col_map, seg_dim, size=self._size)


def _sparse(
    n: int = 300, d: int = 40, seed: int = 0
) -> tuple[sp.csr_matrix, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.data.size)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    return (
        X,
        y,
        [f"x{j}" for j in range(d)],
    )  # names sort as strings: x10 < x2, internal order != stream order


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("scenario", ["trapezoidal", "haphazard", "dense-nan"])
def test_in_place_equals_chunks(name: str, scenario: str) -> None:
    X, y, names = _sparse()
    if scenario == "trapezoidal":
        stream = trapezoidal(X, y, names)
    elif scenario == "haphazard":
        stream = haphazard(X, y, names, p=0.5, seed=3)
    else:
        D = X.toarray()
        D[np.random.default_rng(1).random(D.shape) < 0.3] = np.nan
        stream = Stream.from_dense(D, y)
    a = prequential(make(name), stream, keep_predictions=True, chunk_rows=64)
    b = prequential(make(name), _Chunked(stream, 64), keep_predictions=True)  # type: ignore[arg-type]
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert (a.mistakes, a.cumulative_loss) == (b.mistakes, b.cumulative_loss)
    np.testing.assert_array_equal(a.curve_mistake_rate, b.curve_mistake_rate)
