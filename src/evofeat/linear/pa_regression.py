"""The PA regressor on a growing feature space: STSD's regression round without truncation or ball."""

from __future__ import annotations

from functools import partial

from evofeat.linear.stsd_regression import STSDRegressor

__all__ = ["LEARNERS"]

#: PA-I regression (Crammer et al., 2006, Sec. 6) on the features seen so far: STSDRegressor with
#: ``budget=1.0`` (no truncation) and ``radius=inf`` (no L1 ball), the natural baseline.
LEARNERS = {
    "pa-regressor": partial(STSDRegressor, mode="stsd-i", budget=1.0, radius=float("inf")),
}
