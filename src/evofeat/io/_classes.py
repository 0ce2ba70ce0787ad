"""Which class a model file names, its parameters, and whether it is the one the caller expects."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evofeat.base.errors import InputError
from evofeat.base.learner import OnlineLearner
from evofeat.io import _estimators, _online
from evofeat.io._format import bad, from_json

COMMON_KEYS = frozenset(
    {"kind", "format_version", "evofeat_version", "class", "name", "params", "arrays", "sha256"}
)


def class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _names() -> list[str]:
    """Every registry name, online learners first, then one-pass estimators, then selectors."""
    from evofeat import registry

    return [*registry.ONLINE, *registry.ONEPASS, *registry.SELECTORS]


def _factory(name: str) -> tuple[type, dict[str, Any]] | None:
    """The class a registry name builds and the parameters the name fixes (None: not available)."""
    from evofeat.registry import resolve

    try:
        found = resolve(name)
    except InputError:
        return None
    return found.cls, found.fixed


def registry_name(obj: Any) -> str | None:
    """The first registry name whose factory builds this class with these fixed parameters."""
    params = obj.get_params()
    for name in _names():
        found = _factory(name)
        if found is not None and found[0] is type(obj):
            if all(params.get(k) == v for k, v in found[1].items()):
                return name
    return None


def resolve_class(path_text: str) -> type:
    """The evofeat class ``module:Class`` names (only evofeat's own modules are imported)."""
    module_name, _, qualname = path_text.partition(":")
    if not (module_name == "evofeat" or module_name.startswith("evofeat.")) or not qualname:
        raise InputError(
            "the model file names a learner class outside evofeat",
            expected="a class in an evofeat module ('evofeat.xxx:Class')",
            received=repr(path_text),
            fix="load only model files written by evofeat.io.save",
        )
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise InputError(
            "the model file's learner class does not exist in this evofeat",
            expected="an importable evofeat learner",
            received=repr(path_text),
            fix="install the evofeat version that wrote the file",
        ) from None
    if not (
        isinstance(obj, type)
        and (issubclass(obj, OnlineLearner) or _estimators.schema_of(obj) is not None)
    ):
        raise InputError(
            "the model file names something that is not an online learner, estimator or selector",
            expected="an OnlineLearner subclass, a one-pass estimator or a streaming selector",
            received=repr(path_text),
            fix="load only model files written by evofeat.io.save",
        )
    return obj


def check_expected(
    expected: str | type, meta: Mapping[str, Any], cls: type, params: Mapping[str, Any]
) -> None:
    saved = f"{meta['class']}" + (f" ({meta['name']})" if meta.get("name") else "")
    fixed: dict[str, Any] = {}
    if isinstance(expected, type):
        want: type = expected
        label = class_path(expected)
    elif ":" in expected:
        want, label = resolve_class(expected), expected
    else:
        found = _factory(expected) if expected in _names() else None
        if found is None:
            raise InputError(
                f"unknown learner {expected!r} for expected=",
                expected="a registry name, 'module:Class' or a class",
                received=repr(expected),
                fix="check the spelling",
            )
        want, fixed = found
        label = expected
    if not issubclass(cls, want) or any(params.get(k) != v for k, v in fixed.items()):
        raise InputError(
            "the model file holds another learner",
            expected=label,
            received=saved,
            fix="load the right file, or call load() without expected=",
        )


def check_keys(path: Path, meta: Mapping[str, Any], cls: type) -> None:
    """The metadata has exactly the entries of its kind of class (nothing extra is ever set)."""
    if issubclass(cls, OnlineLearner):
        want = COMMON_KEYS | _online.KEYS
    else:
        want = COMMON_KEYS | _estimators.KEYS
        want |= {"support"} if _estimators.is_selector(cls) else set()
    if set(meta) != want:
        extra, missing = sorted(set(meta) - want), sorted(want - set(meta))
        raise bad(
            path,
            f"the metadata does not fit {cls.__name__}",
            f"exactly the entries {', '.join(sorted(want))}",
            f"extra {extra}, missing {missing}",
            "load files written by this evofeat's io.save only",
        )


def params(path: Path, meta: Mapping[str, Any], cls: type) -> dict[str, Any]:
    """The saved parameters: the class's ``get_params`` names, plain values.

    A parameter the file lacks (added to the class after the file was
    written) takes its default, which keeps the behaviour of before; a name
    the class does not have is refused.
    """
    raw = meta.get("params")
    defaults = cls().get_params()
    if not isinstance(raw, dict):
        raise bad(
            path,
            "the model file has no parameters",
            f"params for {cls.__name__}: {', '.join(sorted(defaults))}",
            "no params" if raw is None else repr(raw)[:200],
            "save the learner again",
        )
    unknown = sorted(set(map(str, raw)) - set(defaults))
    if unknown:
        raise bad(
            path,
            f"the parameters do not fit {cls.__name__}",
            f"among {', '.join(sorted(defaults))}",
            ", ".join(unknown)[:200],
            "the file names another class than it was written for: save it again",
        )
    try:
        out = {k: from_json(v) for k, v in raw.items()}
    except ValueError as err:
        raise bad(
            path,
            "a parameter is not a plain value",
            "numbers, strings, bools, lists",
            str(err),
            "save the learner again",
        ) from None
    signature = inspect.signature(cls)
    for name in set(defaults) - set(out):
        param = signature.parameters.get(name)
        if param is None or param.default is param.empty:
            raise bad(
                path,
                f"the parameters do not fit {cls.__name__}",
                f"a value for {name!r}",
                "none",
                "save the learner again",
            )
        out[name] = param.default
    return out
