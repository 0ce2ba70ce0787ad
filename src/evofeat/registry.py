"""Every learner, estimator and selector by its command-line name.

Each module named here exposes a dict ``LEARNERS`` (or ``SELECTORS``) from
name to a factory; the factories are imported only when a name is used.
``"online-zscore+NAME"``, ``"online-quantile+NAME"`` and
``"online-quantile-sketch+NAME"`` (normal scores from a bounded sample, with a
stated rank error) name the online learner NAME behind online scaling
(:class:`evofeat.preprocessing.OnlineScaled`, keys of :data:`SCALED`), with
NAME's parameters; ``"impute-copula+NAME"``
behind online copula imputation (:class:`evofeat.preprocessing.Imputed`).
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any

from evofeat._discover import discovered
from evofeat.base.errors import InputError

__all__ = [
    "ONEPASS",
    "ONLINE",
    "SELECTORS",
    "Registered",
    "all_names",
    "canonical",
    "describe",
    "kind_of",
    "make",
    "parameters",
    "resolve",
]

#: online learners (the prequential loop): name -> module with ``LEARNERS``.
ONLINE: dict[str, str] = {
    "auto": "evofeat.ensemble.auto",
    "dynfo": "evofeat.haphazard.dynfo",
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
    "ogd": "evofeat.linear.ogd",
    "fesl-c": "evofeat.ensemble.fesl",
    "fesl-s": "evofeat.ensemble.fesl",
    "nogd": "evofeat.ensemble.fesl",
    "rogd-u": "evofeat.ensemble.fesl",
    "rogd-f": "evofeat.ensemble.fesl",
    "ftrl": "evofeat.linear.ftrl",
    "ovfm": "evofeat.haphazard.ovfm",
    "adagrad": "evofeat.linear.adagrad",
    "nag": "evofeat.linear.nag",
    "stsd-multiclass": "evofeat.linear.stsd_multiclass",
    "pa-multiclass": "evofeat.linear.stsd_multiclass",
    "stsd-regressor": "evofeat.linear.stsd_regression",
    "pa-regressor": "evofeat.linear.pa_regression",
    "olvf": "evofeat.haphazard.olvf",
    "ocds": "evofeat.haphazard.ocds",
}
# a learner module's own LEARNERS display registers it: adding a learner needs no line above
ONLINE.update({k: v for k, v in discovered().items() if k not in ONLINE})
#: one-pass incremental/decremental estimators (the incdec scenario).
ONEPASS: dict[str, str] = {
    name: "evofeat.onepass" for name in ("opid", "opide", "svm", "svm-s", "svm-a")
}
#: streaming feature selectors (the feature-stream scenario).
SELECTORS: dict[str, str] = {
    name: "evofeat.selection"
    for name in ("ceofs", "cofs", "alpha-investing", "osfs", "fast-osfs", "saola")
}


#: online scaling in front of an online learner, as a name prefix ("online-zscore+ftrl"): its method.
SCALED: dict[str, str] = {
    "online-zscore": "zscore",
    "online-quantile": "quantile",
    "online-quantile-sketch": "quantile-sketch",  # bounded sample, stated rank error
    "impute-copula": "copula",  # evofeat.preprocessing.Imputed
}


def _scaled(key: str) -> tuple[str | None, str]:
    """``(prefix, learner)`` of ``"online-zscore+ftrl"``; ``(None, key)`` for a plain name."""
    head, plus, rest = key.partition("+")
    return (head.strip(), rest.strip()) if plus and head.strip() in SCALED else (None, key)


class _ScaledFactory:
    """Builds ``OnlineScaled(spec, method)``; its ``func`` and ``keywords`` are the learner's."""

    def __init__(self, prefix: str, name: str, factory: Any) -> None:
        self.prefix, self.name, self.factory = prefix, name, factory
        self.func = getattr(factory, "func", factory)
        self.keywords = getattr(factory, "keywords", None)

    def __call__(self, **params: Any) -> Any:
        from evofeat.preprocessing import Imputed, OnlineScaled

        args = ", ".join(f"{k}={v!r}" for k, v in params.items())
        method = SCALED[self.prefix]
        wrapper = Imputed if method == "copula" else OnlineScaled
        return wrapper(f"{self.name}({args})" if args else self.name, method)


_TABLES: dict[str, dict[str, str]] = {"online": ONLINE, "onepass": ONEPASS, "selector": SELECTORS}
_KIND_WORDS = {"online": "online learner", "onepass": "one-pass estimator", "selector": "selector"}


def all_names(kind: str | None = None) -> list[str]:
    """All registered names (of one ``kind`` if given), sorted."""
    if kind is not None:
        return sorted(_TABLES[kind])
    return sorted({**ONLINE, **ONEPASS, **SELECTORS})


def canonical(name: str, kind: str | None = None) -> str:
    """The registered spelling of ``name`` (names are case-insensitive).

    An unknown name raises :class:`InputError` with the closest names of
    ``kind`` (all kinds when None) as "did you mean".

    >>> canonical("PA-I")
    'pa-i'
    >>> canonical("stsd-j", kind="online")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown online learner 'stsd-j' (did you mean stsd-i, stsd or stsd-ii?); fix: `evofeat learners` lists every learner with its kind, task and parameters
    >>> canonical("opid", kind="online")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: opid is a one-pass estimator, not an online learner: expected an online learner, e.g. perceptron, pa-i, stsd-i, ofs; fix: `evofeat learners` lists every learner with its kind, task and parameters
    """
    key = str(name).strip().lower()
    fix = "`evofeat learners` lists every learner with its kind, task and parameters"
    prefix, base = _scaled(key)
    if prefix is not None:  # scaling in front of an online learner
        if kind not in (None, "online"):
            raise InputError(f"{key} is an online learner, not a {_KIND_WORDS[kind]}", fix=fix)
        return f"{prefix}+{canonical(base, 'online')}"
    names = all_names(kind)
    if key in names:
        return key
    word = _KIND_WORDS[kind] if kind else "learner"
    if kind is not None and key in all_names():
        examples = [
            n for n in ("perceptron", "pa-i", "stsd-i", "ofs", "opid", "ceofs") if n in names
        ]
        raise InputError(
            f"{key} is a {_KIND_WORDS[kind_of(key)]}, not an {word}"
            if word[0] in "aeiou"
            else f"{key} is a {_KIND_WORDS[kind_of(key)]}, not a {word}",
            expected=f"{'an' if word[0] in 'aeiou' else 'a'} {word}, e.g. "
            + ", ".join(examples or names[:4]),
            fix=fix,
        )
    raise InputError(f"unknown {word} {name!r}{_did_you_mean(key, names, 3)}", fix=fix)


def _did_you_mean(key: str, names: list[str], n: int) -> str:
    """`` (did you mean a, b or c?)`` with the closest of ``names``, or ``""``."""
    close = difflib.get_close_matches(key, names, n=n, cutoff=0.5)
    close += [v for v in names if v.lower() == key.lower() and v not in close]
    if not close:
        return ""
    said = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
    return f" (did you mean {said}?)"


def kind_of(name: str) -> str:
    """``"online"``, ``"onepass"`` or ``"selector"``; an unknown name raises :class:`InputError`.

    >>> kind_of("pa-i"), kind_of("OPID")
    ('online', 'onepass')
    >>> kind_of("stsd-j")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown learner 'stsd-j' (did you mean stsd-i, stsd or stsd-ii?); fix: `evofeat learners` lists every learner with its kind, task and parameters
    """
    key = _scaled(canonical(name))[1]
    return next(kind for kind, table in _TABLES.items() if key in table)


def _factory(name: str) -> tuple[str, Any]:
    """The kind and the factory registered as ``name`` (its module imported now)."""
    key = canonical(name)
    prefix, base = _scaled(key)
    if prefix is not None:
        return "online", _ScaledFactory(prefix, base, _factory(base)[1])
    kind = kind_of(key)
    try:
        module = importlib.import_module(_TABLES[kind][key])
    except ModuleNotFoundError as exc:
        raise InputError(
            f"learner {key!r} is not available yet",
            expected="an implemented learner",
            received=str(exc),
            fix="pick another learner",
        ) from None
    return kind, getattr(module, "SELECTORS" if kind == "selector" else "LEARNERS")[key]


def parameters(name: str) -> dict[str, Any]:
    """The parameters a user may set on ``name``, with their defaults (fixed ones left out).

    >>> parameters("pa-i")
    {'C': 1.0, 'fit_intercept': False}
    """
    return resolve(name).parameters()


def describe(name: str) -> dict[str, Any]:
    """Name, kind, task, parameters (with defaults) and the parameters fixed by the name.

    >>> describe("ofs")["kind"], describe("ofs")["task"], describe("ofs")["params"]["budget"]
    ('online', 'binary', 0.1)
    >>> describe("pa-multiclass")["fixed"], describe("pa-multiclass")["params"]["mode"]
    ({'budget': 1.0, 'radius': inf}, 'stsd-i')
    """
    found = resolve(name)
    obj = found.factory()
    task = getattr(obj, "task", None) or "classification"
    if not isinstance(task, str):
        task = "classification"
    params = _applicable(obj, found.parameters())
    return {
        "name": found.name,
        "kind": found.kind,
        "task": task,
        "params": params,
        "fixed": found.fixed,
    }


def _applicable(obj: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` less those the defaults do not read (a learner's ``param_applies``:
    name -> (the parameter that decides, the values under which it is read)).

    >>> class L:
    ...     base = "ogd"
    ...     param_applies = {"beta": ("base", ("ftrl",))}
    >>> _applicable(L(), {"base": "ogd", "beta": 1.0})
    {'base': 'ogd'}
    """
    rules = getattr(obj, "param_applies", {})
    return {
        k: v
        for k, v in params.items()
        if k not in rules or getattr(obj, rules[k][0], None) in rules[k][1]
    }


def make(name: str, **params: Any) -> Any:
    """Build the learner, estimator or selector registered as ``name`` with ``params``.

    >>> make("pa-i", C=0.5)
    PA(mode='pa-i', C=0.5)
    >>> make("pa-i", c=0.5)
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: unknown parameter 'c' for pa-i (did you mean C?): expected one of C, fit_intercept; fix: check the spelling (parameters are case-sensitive); `evofeat learners` lists pa-i's parameters
    """
    return resolve(name).make(**params)


@dataclass(frozen=True)
class Registered:
    """A learner name resolved once: what the command line, :mod:`evofeat.io` and
    :mod:`evofeat.compat` share (built by :func:`resolve`).

    ``name`` is the registered spelling, ``kind`` ``"online"``, ``"onepass"`` or
    ``"selector"``, ``factory`` what the name builds (a class, or a
    ``functools.partial`` of one that fixes some parameters).

    >>> pa = resolve("PA-I")
    >>> pa.name, pa.kind, pa.cls.__name__, pa.fixed
    ('pa-i', 'online', 'PA', {'mode': 'pa-i'})
    >>> pa.make(C=0.5)
    PA(mode='pa-i', C=0.5)
    """

    name: str
    kind: str
    factory: Any

    @property
    def cls(self) -> type:
        """The class the name builds (for ``online-zscore+NAME``, NAME's, which the scaler wraps)."""
        return getattr(self.factory, "func", self.factory)  # type: ignore[no-any-return]

    @property
    def fixed(self) -> dict[str, Any]:
        """The parameters the name fixes (``mode="pa-i"`` for ``pa-i``)."""
        return dict(getattr(self.factory, "keywords", None) or {})

    def parameters(self) -> dict[str, Any]:
        """The parameters a user may set, with their defaults (the fixed ones left out)."""
        import inspect

        fixed = self.fixed
        return {
            p.name: (None if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(self.cls).parameters.values()
            if p.name != "self" and p.name not in fixed and p.kind is not p.VAR_KEYWORD
        }

    def make(self, **params: Any) -> Any:
        """A new learner with ``params``; an unknown parameter raises :class:`InputError`."""
        valid = list(self.parameters())
        for k in params:
            if k not in valid:
                raise InputError(
                    f"unknown parameter {k!r} for {self.name}{_did_you_mean(k, valid, 1)}",
                    expected="one of " + ", ".join(valid),
                    fix="check the spelling (parameters are case-sensitive); "
                    f"`evofeat learners` lists {self.name}'s parameters",
                )
        obj = self.factory(**params)
        if hasattr(obj, "_reset") and self.kind == "online":
            obj._reset()  # validate the parameters now, with a clear error
        return obj


def resolve(name: str, kind: str | None = None) -> Registered:
    """``name`` (case-insensitive; of ``kind`` when given) resolved once into a :class:`Registered`.

    An unknown name raises :class:`InputError` as :func:`canonical` does.
    """
    key = canonical(name, kind)
    found_kind, factory = _factory(key)
    return Registered(key, found_kind, factory)
