"""Errors that say what was expected, what came, and how to fix it."""

from __future__ import annotations

__all__ = ["InputError"]


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
