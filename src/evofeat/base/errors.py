"""Errors that say what was expected, what came, and how to fix it."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["InputError", "check_bool", "check_choice", "check_number"]


class InputError(ValueError):
    """Bad input: the message names what was expected, what was received and the fix.

    >>> str(InputError("bad budget", expected="a fraction in (0, 1]", received="2.0",
    ...                fix="pass budget=0.5"))
    'bad budget: expected a fraction in (0, 1], received 2.0; fix: pass budget=0.5'
    """

    def __init__(
        self, message: str, *, expected: str = "", received: str = "", fix: str = ""
    ) -> None:
        parts = [message]
        if expected:
            parts.append(f": expected {expected}")
        if received:
            parts.append(f", received {received}")
        if fix:
            parts.append(f"; fix: {fix}")
        super().__init__("".join(parts))
        self.expected = expected
        self.received = received
        self.fix = fix


def check_bool(value: Any, name: str, expected: str, fix: str) -> None:
    """Raise :class:`InputError` unless ``value`` (the parameter ``name``) is a bool.

    >>> check_bool(1, "invariant", "True or False", "pass invariant=False")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: invariant must be a bool: expected True or False, received 1; fix: pass invariant=False
    """
    if not isinstance(value, bool):
        raise InputError(f"{name} must be a bool", expected=expected, received=repr(value), fix=fix)


def check_choice(value: Any, options: Any, what: str, fix: str) -> None:
    """Raise :class:`InputError` unless ``value`` is one of ``options``."""
    if value not in options:
        raise InputError(
            f"unknown {what}",
            expected=" or ".join(repr(k) for k in options),
            received=repr(value),
            fix=fix,
        )


def check_number(value: Any, name: str, *, positive: bool, fix: str) -> None:
    """Raise :class:`InputError` unless ``value`` is a finite number ``> 0`` (``positive``) or ``>= 0``.

    >>> check_number(0.0, "l1", positive=False, fix="pass l1=1.0")
    >>> check_number(-1, "l1", positive=False, fix="pass l1=1.0")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: l1 must be non-negative: expected a finite number >= 0, received -1; fix: pass l1=1.0
    """
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > 0 if positive else value >= 0)
    if not ok:
        raise InputError(
            f"{name} must be {'positive' if positive else 'non-negative'}",
            expected=f"a finite number {'>' if positive else '>='} 0",
            received=repr(value),
            fix=fix,
        )
