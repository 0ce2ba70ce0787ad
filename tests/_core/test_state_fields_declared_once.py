"""A compiled core's state is declared once: its ``cdef public`` attributes are its fields.

:func:`evofeat._core.core.fields_of` reads them from the type (Cython makes each
``cdef public`` attribute a descriptor, in declaration order). Only FESL's core
lists ``_fields`` by hand (its step rule's fields are served from a struct).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import numpy as np
import pytest
from evofeat._core.core import Core, fields_of
from evofeat._core.scaling import PREFIX, QuantileCore, ZScoreCore, scaled_type

import evofeat
from evofeat.registry import ONLINE, make


def _core_classes() -> list[type]:
    """Every ``Core`` subclass defined in a compiled module of the package."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(evofeat.__path__, "evofeat."):
        name = info.name.rpartition(".")[2]
        if not name.startswith("_") or name.startswith("__"):
            continue
        module = importlib.import_module(info.name)
        if not getattr(module, "__file__", "").endswith((".so", ".pyd")):
            continue
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Core) and obj.__module__ == info.name:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


CORES = _core_classes()
#: The one core that lists ``_fields`` by hand: FESL's step-rule fields live in the rule's
#: struct and are served by name, so no descriptor declares them; the tuple keeps the model
#: files' order. Every other core's fields are its declarations.
SERVED = {"evofeat.ensemble._fesl.FESLCore": ("evofeat.ensemble._fesl", "RULE_FIELDS")}


def _explicit(cls: type) -> Any:
    """The ``_fields`` a class (or a parent below ``Core``) lists by hand, ``None`` if none."""
    for klass in cls.__mro__:
        if klass is Core:
            return None
        if "_fields" in vars(klass):
            return vars(klass)["_fields"]
    return None


def test_the_scan_finds_the_cores() -> None:
    names = {c.__name__ for c in CORES}
    assert {"PACore", "PerceptronCore", "OVFMCore", "DynFoCore", "AutoCore"} <= names


@pytest.mark.parametrize("cls", CORES, ids=lambda c: c.__name__)
def test_a_hand_written_fields_tuple_equals_the_declared_fields(cls: type) -> None:
    explicit = _explicit(cls)
    if not isinstance(explicit, tuple):  # none, or per instance (AutoCore's members' fields)
        assert explicit is None or cls.__name__ == "AutoCore"
        return
    derived = fields_of(cls)
    where = SERVED.get(f"{cls.__module__}.{cls.__qualname__}")
    assert where is not None, f"{cls.__name__} lists _fields by hand: delete it (declared once)"
    served = set(getattr(importlib.import_module(where[0]), where[1]))
    assert set(explicit) == set(derived) | served, set(explicit) ^ (set(derived) | served)
    assert not served & set(derived)


@pytest.mark.parametrize("name", list(ONLINE))
def test_every_registered_learner_state_has_its_declared_fields(name: str) -> None:
    model = make(name)
    if model.task == "multiclass" and getattr(model, "n_classes", 0) is None:
        model.set_params(n_classes=3)
    model._reset()
    model._ensure_capacity(3)
    state = model._state
    fields = state._fields
    assert len(set(fields)) == len(fields) > 0
    assert list(state._asdict()) == list(fields)
    rebuilt = type(state)(**state._asdict())
    for field in fields:
        assert np.array_equal(
            np.asarray(getattr(rebuilt, field)), np.asarray(getattr(state, field))
        )


def test_fields_come_in_declaration_order_parent_first_scratch_left_out() -> None:
    from evofeat._core.copula import CopulaCore
    from evofeat.haphazard._dynfo import DynFoCore
    from evofeat.haphazard._ovfm import OVFMCore
    from evofeat.linear._pa import PACore

    assert fields_of(PACore) == ("w", "mode", "C", "fit_intercept", "intercept")
    assert fields_of(QuantileCore) == ("window", "seen", "recent")  # no "inner": a part
    assert fields_of(CopulaCore)[:3] == fields_of(QuantileCore)
    assert fields_of(OVFMCore)[: len(fields_of(CopulaCore))] == fields_of(CopulaCore)
    assert "scratch" not in fields_of(DynFoCore) and "entries" not in fields_of(DynFoCore)
    assert PACore._fields is fields_of(PACore)  # computed once per class
    assert PACore(**{f: 0 if f != "w" else np.zeros(2) for f in PACore._fields})._fields == (
        fields_of(PACore)
    )


def test_a_scaled_core_lists_its_own_fields_then_the_inner_core_prefixed() -> None:
    from evofeat.linear._pa import PACore

    cls = scaled_type(ZScoreCore, PACore)
    assert cls._fields == ("count", "mean", "m2") + tuple(PREFIX + f for f in PACore._fields)


def test_a_core_declaring_nothing_has_no_fields() -> None:
    with pytest.raises(TypeError, match="unknown"):
        Core(w=1)


def test_the_core_module_examples_run() -> None:
    import doctest

    import evofeat._core.core as module

    result = doctest.testmod(module)
    assert result.attempted >= 3 and result.failed == 0
