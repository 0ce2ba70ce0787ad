"""Every learner, estimator and selector by its command-line name.

Each module named here exposes a dict ``LEARNERS`` (or ``SELECTORS``) from
name to a factory; the factories are imported only when a name is used.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from evofeat.base.errors import InputError

__all__ = ["ONLINE", "ONEPASS", "SELECTORS", "all_names", "kind_of", "make"]

#: online learners (the prequential loop): name -> module with ``LEARNERS``.
ONLINE: dict[str, str] = {
    "perceptron": "evofeat.linear.perceptron",
    "pa": "evofeat.linear.pa",
    "pa-i": "evofeat.linear.pa",
    "pa-ii": "evofeat.linear.pa",
    "stsd": "evofeat.linear.stsd",
    "stsd-i": "evofeat.linear.stsd",
    "stsd-ii": "evofeat.linear.stsd",
    "stsd-i-all": "evofeat.linear.stsd",
    "stsd-i-rand": "evofeat.linear.stsd",
    "stsd-i-per": "evofeat.linear.stsd",
    "ofs": "evofeat.linear.ofs",
    "pe-trun": "evofeat.linear.ofs",
    "rand": "evofeat.linear.ofs",
    "ofs-p": "evofeat.linear.ofs",
    "ogd": "evofeat.ensemble.fesl",
    "fesl-c": "evofeat.ensemble.fesl",
    "fesl-s": "evofeat.ensemble.fesl",
    "nogd": "evofeat.ensemble.fesl",
    "rogd-u": "evofeat.ensemble.fesl",
    "rogd-f": "evofeat.ensemble.fesl",
}
#: one-pass incremental/decremental estimators (the incdec scenario).
ONEPASS: dict[str, str] = {
    name: "evofeat.onepass" for name in ("opid", "opide", "svm", "svm-s", "svm-a")
}
#: streaming feature selectors (the feature-stream scenario).
SELECTORS: dict[str, str] = {
    name: "evofeat.selection"
    for name in ("ceofs", "cofs", "alpha-investing", "osfs", "fast-osfs", "saola")
}


def all_names() -> list[str]:
    """All registered names, sorted."""
    return sorted({**ONLINE, **ONEPASS, **SELECTORS})


def kind_of(name: str) -> str:
    """``"online"``, ``"onepass"`` or ``"selector"``; an unknown name raises :class:`InputError`.

    >>> kind_of("pa-i")
    'online'
    >>> kind_of("stsd-j")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown learner 'stsd-j': expected one of stsd-i, stsd, stsd-ii, ...
    """
    for kind, table in (("online", ONLINE), ("onepass", ONEPASS), ("selector", SELECTORS)):
        if name in table:
            return kind
    names = all_names()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    rest = [n for n in names if n not in close]
    raise InputError(
        f"unknown learner {name!r}",
        expected="one of " + ", ".join(close + rest),
        fix="pick one of the names above (`evofeat.registry.all_names()` lists them)",
    )


def make(name: str, **params: Any) -> Any:
    """Build the learner, estimator or selector registered as ``name`` with ``params``.

    >>> make("pa-i", C=0.5)
    PA(mode='pa-i', C=0.5)
    >>> make("pa-i", c=0.5)
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown parameter 'c' for pa-i: expected one of mode, C; fix: check the spelling (parameters are case-sensitive)
    """
    kind = kind_of(name)
    module_name = {"online": ONLINE, "onepass": ONEPASS, "selector": SELECTORS}[kind][name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise InputError(
            f"learner {name!r} is not available yet",
            expected="an implemented learner",
            received=str(exc),
            fix="pick another learner",
        ) from None
    table = getattr(module, "SELECTORS" if kind == "selector" else "LEARNERS")
    factory = table[name]
    import inspect

    target = getattr(factory, "func", factory)
    valid = [p for p in inspect.signature(target).parameters if p != "self"]
    for key in params:
        if key not in valid:
            raise InputError(
                f"unknown parameter {key!r} for {name}",
                expected="one of " + ", ".join(valid),
                fix="check the spelling (parameters are case-sensitive)",
            )
    obj = factory(**params)
    if hasattr(obj, "_reset") and kind == "online":
        obj._reset()  # validate the parameters now, with a clear error
    return obj
