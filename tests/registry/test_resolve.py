"""A learner name is resolved once, by ``registry.resolve``, and io, compat and the CLI share it."""

from __future__ import annotations

from pathlib import Path

import pytest

import evofeat
from evofeat import io, registry
from evofeat.base.errors import InputError
from evofeat.compat import learner_defaults

PACKAGE = Path(evofeat.__file__).parent


@pytest.mark.parametrize("name", registry.all_names())
def test_resolve_agrees_with_the_registry_functions(name: str) -> None:
    found = registry.resolve(name.upper())
    assert (found.name, found.kind) == (name, registry.kind_of(name))
    assert found.parameters() == registry.parameters(name)
    built = found.make()
    assert isinstance(built, found.cls)
    assert all(built.get_params()[k] == v for k, v in found.fixed.items())
    if found.kind == "online":
        defaults = learner_defaults(name, ["binary"])
        assert {k: defaults[k] for k in found.parameters() if k in defaults} == {
            k: v for k, v in found.parameters().items() if k in defaults
        }


def test_io_names_a_learner_by_its_resolved_name() -> None:
    for name in ("pa-i", "stsd-i", "opid", "ceofs"):
        assert io._classes.registry_name(registry.make(name)) == name


def test_an_unknown_name_or_kind_is_refused_by_resolve() -> None:
    with pytest.raises(InputError, match="did you mean stsd-i"):
        registry.resolve("stsd-j")
    with pytest.raises(InputError, match="not an online learner"):
        registry.resolve("opid", "online")


def test_no_other_module_imports_the_registry_tables_modules_itself() -> None:
    """Only the registry turns a name into a module (io, compat and the CLI call resolve)."""
    for folder in ("io", "compat", "cli"):
        for path in (PACKAGE / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert (
                "import_module(ONLINE" not in text
                and "import_module(module_name), attr" not in text
            ), path
