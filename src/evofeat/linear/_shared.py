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
    _state: Any
    _weights: Any

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
