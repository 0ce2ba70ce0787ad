"""State declarations: what a learner, estimator or selector holds, declared once beside it.

Each class that :mod:`evofeat.io` saves carries a :class:`StateSpec` as its
class attribute ``_state_spec``; a model file is read against it, whatever
its checksum says.

- An online learner's fields, their dtypes and shapes are those of its
  compiled state (the ``Core``'s ``_fields``, built fresh from the
  parameters at the saved capacity), so a field added to a core needs no
  declaration; its spec names only the invariants.
- An estimator's or a selector's fitted attributes are named in ``attrs``
  with their kinds (``"int"``, ``"float"``, ``"array:f:1"``...: the kinds
  :mod:`evofeat.io` can encode).

Every float in a saved state must be finite unless named in ``nonfinite`` or
``fixed`` (a fixed field may be ``inf`` when the parameters say so, as an
unconstrained ``radius``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["StateSpec", "spec_of"]


@dataclass(frozen=True)
class StateSpec:
    """The invariants of a saved state (what a model file must satisfy to be loaded).

    Parameters
    ----------
    attrs
        An estimator's or selector's fitted attributes: name -> kind. Empty
        for an online learner (its fields come from its compiled state).
    fixed
        State fields the parameters set and learning never changes: they
        must equal a fresh state's.
    indices
        Integer array fields that hold columns: every entry in
        ``[-1, capacity)`` (``-1``: no column).
    counts
        Integer scalar fields that count columns or slots: ``0 <= value <= capacity``.
    heaps
        ``(heap, pos, size)``: an indexed heap of columns, ``heap[:size]``
        distinct and ``pos[heap[i]] == i``, every other ``pos`` ``-1``.
    support
        ``(weights, heap, size)``: the only non-zero rows of ``weights`` are
        the columns ``heap[:size]`` (a truncated weight vector's support).
    at_most
        ``(a, b)`` pairs: field ``a <= b`` (``b`` a field name or a number).
    nonnegative
        Fields (or fitted attributes) that must be ``>= 0``.
    nonfinite
        Float fields (or fitted attributes) that may hold NaN or inf.
    consistent
        A function of the loaded object returning what is inconsistent
        (``""`` when nothing): checks between fields that the above cannot say.

    Examples
    --------
    >>> spec = StateSpec(fixed=("C",), counts=("hsize",), at_most=(("hsize", "B"),))
    >>> spec.extend(nonnegative=("wealth_",)).nonnegative
    ('wealth_',)
    """

    attrs: Mapping[str, str] = field(default_factory=dict)
    fixed: tuple[str, ...] = ()
    indices: tuple[str, ...] = ()
    counts: tuple[str, ...] = ()
    heaps: tuple[tuple[str, str, str], ...] = ()
    support: tuple[tuple[str, str, str], ...] = ()
    at_most: tuple[tuple[str, str | float], ...] = ()
    nonnegative: tuple[str, ...] = ()
    nonfinite: tuple[str, ...] = ()
    consistent: Callable[[Any], str] | None = None

    def extend(self, **more: Any) -> StateSpec:
        """This spec with more: ``attrs`` merged, tuples appended, ``consistent`` replaced."""
        changes: dict[str, Any] = {}
        for name, value in more.items():
            old = getattr(self, name)
            if name == "attrs":
                changes[name] = {**old, **value}
            elif isinstance(old, tuple):
                changes[name] = old + tuple(value)
            else:
                changes[name] = value
        return replace(self, **changes)


def spec_of(cls: type) -> StateSpec | None:
    """The ``_state_spec`` a class declares (or inherits), ``None`` if it declares none.

    >>> class A:
    ...     _state_spec = StateSpec(fixed=("C",))
    >>> spec_of(type("B", (A,), {})).fixed, spec_of(int)
    (('C',), None)
    """
    spec = getattr(cls, "_state_spec", None)
    return spec if isinstance(spec, StateSpec) else None
