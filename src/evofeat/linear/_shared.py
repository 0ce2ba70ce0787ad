"""What the linear learners' Python faces share: their parameter checks and the truncated weight vector.

STSD (all its variants, multiclass and regression) and the OFS family keep
their weights as ``w = scale * v`` with the support in an indexed heap
(``evofeat/_core/weight_vector.pxd``); :class:`Truncated` is that state's
Python face, written once.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from evofeat.base import InputError
from evofeat.base.state import StateSpec

__all__ = ["Truncated", "check_fraction", "check_option", "check_seed", "real", "require"]


def require(ok: object, message: str, expected: str, received: Any, fix: str) -> None:
    """Raise :class:`InputError` (``received`` shown by its ``repr``) unless ``ok``.

    >>> require(False, "unknown mode", "pa or pa-i", "x", "pass mode='pa-i'")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown mode: expected pa or pa-i, received 'x'; fix: pass mode='pa-i'
    """
    if not ok:
        raise InputError(message, expected=expected, received=repr(received), fix=fix)


def check_option(value: Any, options: Any, what: str, fix: str) -> None:
    """Raise :class:`InputError` (``unknown what``, the options joined by "or") unless ``value`` is one of ``options``."""
    require(value in options, f"unknown {what}", " or ".join(options), value, fix)


def real(value: Any) -> bool:
    """Whether ``value`` is a finite real number (an int or a float, not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def check_fraction(value: Any, message: str, fix: str) -> None:
    """Raise :class:`InputError` with ``message`` unless ``value`` is a number in ``(0, 1]``."""
    require(real(value) and 0 < value <= 1, message, "a number in (0, 1]", value, fix)


def check_seed(value: Any, below: int | None = None) -> None:
    """Raise :class:`InputError` unless ``value`` is an integer ``>= 0`` (and ``< below``)."""
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= 0
    ok = ok and (below is None or value < below)
    require(ok, "seed must be a non-negative integer", "an int >= 0", value, "pass seed=0")


class Truncated:
    """The face of a truncated weight vector ``w = scale * v``, its support an indexed heap.

    The support fields of an empty state, the heap positions of new features
    (``-1``: not in the heap) and the weights as the model uses them.
    """

    #: The state field that holds ``v`` (features on its first axis).
    _support_of: ClassVar[str] = "v"
    #: What a model file must satisfy (evofeat.io) for the heap: its columns, its size and the
    #: dimension at most the capacity, ``pos`` inverting ``heap[:hsize]``, a scale >= 0.
    _heap_spec: ClassVar[StateSpec] = StateSpec(
        indices=("heap", "pos"),
        counts=("hsize", "dim"),
        heaps=(("heap", "pos", "hsize"),),
        nonnegative=("scale",),
    )
    _state: Any
    _weights: Any
    feature_index_: Any

    @staticmethod
    def _support_fields(capacity: int) -> dict[str, Any]:
        """The empty heap of an empty state with room for ``capacity`` features, at scale 1."""
        heap, pos = np.zeros(capacity, np.int64), np.full(capacity, -1, np.int64)
        return {"heap": heap, "pos": pos, "hsize": 0, "scale": 1.0}

    def _init_grown(self, name: str, grown: np.ndarray, start: int) -> None:
        if name == "pos":
            grown[start:] = -1

    def _effective_weights(self) -> np.ndarray:
        w: np.ndarray = self._weights(self._support_of)
        return w * self._state.scale if w.size else w

    @property
    def selected_features_(self) -> list[Any]:
        """The features with a non-zero weight (for some class), in order of first appearance."""
        W = self._effective_weights()
        nonzero = W != 0 if W.ndim == 1 else np.any(W != 0, axis=1)
        return [self.feature_index_.names[j] for j in np.flatnonzero(nonzero)]
