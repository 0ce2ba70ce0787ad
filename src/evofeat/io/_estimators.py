"""One-pass estimators and streaming selectors in a model file: their declared fitted attributes.

The attributes and their kinds are each class's ``_state_spec.attrs``
(:class:`evofeat.base.state.StateSpec`); a kind names how a value is written
(JSON, or arrays referenced from the JSON) and read back, with its checks.
After the attributes are read, the class's declaration is checked (finite
floats, ``>= 0``, its consistency check), then the estimator is asked to
predict (the selector to select) one row of zeros, so inconsistent shapes are
refused at load rather than at first use; a selector must give its saved
selection.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from evofeat.base.errors import InputError
from evofeat.base.state import spec_of
from evofeat.io._format import DTYPE_KINDS, bad, from_json, json_value
from evofeat.io._validate import check_estimator

ATTR = "attr."
KEYS = frozenset({"attrs", "feature_names_in"})
_MODIFIED = "the file was modified: save it again"


def schema_of(cls: type) -> dict[str, str] | None:
    """The fitted attributes (name -> kind) an estimator or selector class declares."""
    spec = spec_of(cls)
    return dict(spec.attrs) if spec is not None and spec.attrs else None


def is_selector(cls: type) -> bool:
    from evofeat.selection import StreamingSelector

    return issubclass(cls, StreamingSelector)


# ---------------------------------------------------------------------------- writing
class _Parts:
    """Encodes the fitted attributes of estimators and selectors as JSON plus arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, value: Any) -> dict[str, str]:
        arr = np.asarray(value)
        if arr.dtype.kind not in DTYPE_KINDS:
            raise InputError(
                "cannot save an array of objects",
                expected="numbers, bools or strings",
                received=f"dtype {arr.dtype}",
                fix="use numeric or string labels",
            )
        key = f"{ATTR}{len(self.arrays)}"
        self.arrays[key] = arr
        return {"__array__": key}

    def encode(self, value: Any) -> Any:
        from sklearn.linear_model import LogisticRegression
        from sklearn.multiclass import OneVsRestClassifier

        from evofeat.onepass.opid import JointSolution
        from evofeat.selection import ColumnBuffer
        from evofeat.selection.citests import ConditionalTester

        if isinstance(value, np.ndarray):
            return self.array(value)
        if isinstance(value, ColumnBuffer):  # one row per column, as it holds them
            return {"__columns__": self.array(value.view.T)}
        if isinstance(value, ConditionalTester):  # the columns it tests, by feature
            keys = list(value.columns)
            cols = [value.columns[k] for k in keys]
            data = np.array(cols) if cols else np.zeros((0, value.n), dtype=np.float64)
            return {"__tester__": {"keys": [int(k) for k in keys], "columns": self.array(data)}}
        if isinstance(value, LogisticRegression):
            return {
                "__logistic__": {
                    "params": {
                        k: json_value(v, "a parameter") for k, v in value.get_params().items()
                    },
                    "coef": self.array(value.coef_),
                    "intercept": self.array(value.intercept_),
                    "classes": self.array(value.classes_),
                    "n_iter": self.array(value.n_iter_),
                }
            }
        if isinstance(value, OneVsRestClassifier):
            return {
                "__ovr__": {
                    "estimators": [self.encode(e) for e in value.estimators_],
                    "classes": self.array(value.classes_),
                }
            }
        if isinstance(value, JointSolution):
            fit = value.fit
            return {
                "__joint__": {
                    "coef": self.array(fit.coef),
                    "w": json_value(tuple(fit.w), "w"),
                    "scale": json_value(tuple(fit.scale), "scale"),
                    "objective": json_value(list(fit.objective), "objective"),
                    "Z": None if value.Z is None else self.array(value.Z),
                    "Zbar": None if value.Zbar is None else self.array(value.Zbar),
                    "widths": json_value(tuple(value.widths), "widths"),
                }
            }
        return json_value(value, "a fitted attribute")


def body(estimator: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata entries of a fitted estimator or selector."""
    schema = schema_of(type(estimator))
    assert schema is not None
    missing = [name for name in schema if not hasattr(estimator, name)]
    if missing:
        raise InputError(
            f"{type(estimator).__name__} is not fitted",
            expected="a fitted estimator or selector",
            received=f"no {', '.join(missing)}",
            fix="call fit first",
        )
    parts = _Parts()
    attrs = {name: parts.encode(getattr(estimator, name)) for name in schema}
    names = getattr(estimator, "feature_names_in_", None)
    out: dict[str, Any] = {
        "attrs": attrs,
        "feature_names_in": None if names is None else [str(n) for n in names],
    }
    if is_selector(type(estimator)):
        out["support"] = [int(j) for j in np.flatnonzero(estimator.get_support())]
    return parts.arrays, out


# ---------------------------------------------------------------------------- reading one part
class _Reader:
    """Rebuilds fitted attributes from their JSON (``ValueError`` when one does not fit its kind)."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.arrays = arrays

    @staticmethod
    def tagged(value: Any, tag: str, what: str) -> Any:
        if not (isinstance(value, dict) and set(value) == {tag}):
            raise ValueError(f"expected {what}")
        return value[tag]

    def arr(self, item: Any, dtype_kinds: str, ndim: int) -> np.ndarray:
        a = self.arrays[self.tagged(item, "__array__", "an array")]
        if a.dtype.kind not in dtype_kinds or a.ndim != ndim:
            raise ValueError(
                f"expected a {ndim}-D array of kind {dtype_kinds!r}, got {a.dtype} {a.shape}"
            )
        return a

    @staticmethod
    def floats(item: Any, n: int | None = None) -> tuple[float, ...]:
        out = from_json(item)
        if not isinstance(out, tuple | list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in out
        ):
            raise ValueError("expected numbers")
        if n is not None and len(out) != n:
            raise ValueError(f"expected {n} numbers")
        return tuple(float(v) for v in out)

    def read(self, value: Any, kind: str) -> Any:
        if kind.startswith("array:"):
            _, kinds, ndim = kind.split(":")
            return self.arr(value, kinds, int(ndim))
        reader: Callable[[Any], Any] | None = getattr(self, f"read_{kind}", None)
        if reader is None:
            raise ValueError(f"unknown kind {kind!r}")
        return reader(value)

    @staticmethod
    def read_int(value: Any) -> int:
        if type(value) is not int or value < 0:
            raise ValueError("expected an int >= 0")
        return value

    @staticmethod
    def read_float(value: Any) -> float:
        out = from_json(value)
        if not isinstance(out, int | float) or isinstance(out, bool):
            raise ValueError("expected a number")
        return float(out)

    @staticmethod
    def read_ints(value: Any) -> list[int]:
        if not isinstance(value, list) or not all(type(v) is int and v >= 0 for v in value):
            raise ValueError("expected a list of ints >= 0")
        return list(value)

    def read_floats2(self, value: Any) -> tuple[float, ...]:
        return self.floats(value, 2)

    def read_floats(self, value: Any) -> list[float]:
        return list(self.floats(value))

    @staticmethod
    def read_bool(value: Any) -> bool:
        if type(value) is not bool:
            raise ValueError("expected a bool")
        return value

    @staticmethod
    def read_names(value: Any) -> np.ndarray:
        if not isinstance(value, list) or not all(type(v) is str for v in value):
            raise ValueError("expected a list of strings")
        return np.asarray(value, dtype=object)

    def binary_logistic(self, item: Any) -> Any:
        from sklearn.linear_model import LogisticRegression

        body = self.tagged(item, "__logistic__", "a logistic regression")
        params = {k: from_json(v) for k, v in body["params"].items()}
        if set(params) != set(LogisticRegression().get_params()):
            raise ValueError("the logistic regression's parameters differ from scikit-learn's")
        model = LogisticRegression(**params)
        coef, intercept = self.arr(body["coef"], "f", 2), self.arr(body["intercept"], "f", 1)
        classes = self.arr(body["classes"], DTYPE_KINDS, 1)
        if coef.shape[0] != 1 or intercept.shape != (1,) or classes.shape != (2,):
            raise ValueError("a binary logistic regression has one row of coefficients")
        model.coef_, model.intercept_, model.classes_ = coef, intercept, classes
        model.n_iter_ = self.arr(body["n_iter"], "iu", 1)
        model.n_features_in_ = coef.shape[1]
        return model

    def read_logistic(self, value: Any) -> Any:
        from sklearn.linear_model import LogisticRegression
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.preprocessing import LabelBinarizer

        if not (isinstance(value, dict) and set(value) == {"__ovr__"}):
            return self.binary_logistic(value)
        body = value["__ovr__"]
        estimators = [self.binary_logistic(e) for e in body["estimators"]]
        classes = self.arr(body["classes"], DTYPE_KINDS, 1)
        if len(estimators) != classes.size or classes.size < 3:
            raise ValueError("one-vs-rest needs one logistic regression per class (3 or more)")
        ovr = OneVsRestClassifier(LogisticRegression(**estimators[0].get_params()))
        ovr.estimators_ = estimators
        ovr.label_binarizer_ = LabelBinarizer(sparse_output=True).fit(classes)
        if not isinstance(getattr(OneVsRestClassifier, "classes_", None), property):
            ovr.classes_ = ovr.label_binarizer_.classes_
        ovr.n_features_in_ = estimators[0].n_features_in_
        if any(e.n_features_in_ != ovr.n_features_in_ for e in estimators):
            raise ValueError("the one-vs-rest models see different numbers of columns")
        return ovr

    def read_columns(self, value: Any) -> Any:
        from evofeat.selection import ColumnBuffer

        data = self.arr(self.tagged(value, "__columns__", "the columns of a buffer"), "if", 2)
        buf = ColumnBuffer(data.shape[1], data.dtype)
        for column in data:
            buf.append(column)
        return buf

    def read_tester(self, value: Any) -> dict[int, np.ndarray]:
        body = self.tagged(value, "__tester__", "the columns of a conditional-independence tester")
        keys = self.read_ints(body["keys"])
        data = self.arr(body["columns"], "if", 2)
        if len(keys) != data.shape[0] or len(set(keys)) != len(keys):
            raise ValueError("expected one column per distinct feature")
        return dict(zip(keys, data, strict=True))

    def read_joint(self, value: Any) -> Any:
        from evofeat.onepass.estage import JointFit
        from evofeat.onepass.opid import JointSolution

        body = self.tagged(value, "__joint__", "the E-stage solution")
        fit = JointFit(
            self.arr(body["coef"], "f", 2),
            self.floats(body["w"], 2),  # type: ignore[arg-type]
            self.floats(body["scale"], 2),  # type: ignore[arg-type]
            list(self.floats(body["objective"])),
        )
        Z = None if body["Z"] is None else self.arr(body["Z"], "f", 2)
        Zbar = None if body["Zbar"] is None else self.arr(body["Zbar"], "f", 2)
        if (Z is None) != (Zbar is None):
            raise ValueError("the kernel solution needs both Z and Zbar")
        return JointSolution(fit, Z, Zbar, self.floats(body["widths"]))


# ---------------------------------------------------------------------------- restoring
def restore(
    path: Path, estimator: Any, meta: Mapping[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    """Set the declared fitted attributes, check them, and probe the result."""
    cls = type(estimator)
    schema = schema_of(cls)
    assert schema is not None
    attrs = meta.get("attrs")
    private = {name for name in schema if name.startswith("_")}  # a selector's column state
    if private and isinstance(attrs, dict) and set(attrs) == set(schema) - private:
        raise bad(
            path,
            f"the file holds no column state of {cls.__name__}",
            f"the state a {cls.__name__} needs to read further columns: "
            + ", ".join(sorted(private)),
            "a file written by an older evofeat (it saved the selection only)",
            "fit the selector again and save it",
        )
    if not isinstance(attrs, dict) or set(attrs) != set(schema):
        got = "none" if not isinstance(attrs, dict) else ", ".join(sorted(attrs))
        raise bad(
            path,
            f"the fitted attributes do not fit {cls.__name__}",
            ", ".join(sorted(schema)),
            got,
            "the file names another class than it was written for: save it again",
        )
    reader = _Reader(arrays)
    values = {}
    for name, kind in schema.items():
        try:
            values[name] = reader.read(attrs[name], kind)
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            raise bad(
                path,
                f"the fitted attribute {name!r} does not fit {cls.__name__}",
                kind,
                str(err)[:200],
                _MODIFIED,
            ) from None
    if is_selector(cls):  # the empty state of its labels (a tester, buffers), then the file's
        estimator.y_, estimator.n_rows_ = values["y_"], values["n_rows_"]
        estimator._init_state()
    for name, value in values.items():
        if schema[name] == "tester":
            getattr(estimator, name).columns = value
        else:
            setattr(estimator, name, value)
    names = meta.get("feature_names_in")
    if names is not None:
        try:
            estimator.feature_names_in_ = reader.read_names(names)
        except ValueError as err:
            raise bad(
                path, "the feature names are malformed", "strings", str(err), _MODIFIED
            ) from None
        if estimator.feature_names_in_.size != estimator.n_features_in_:
            raise bad(
                path,
                "the feature names do not fit",
                f"{estimator.n_features_in_} names",
                f"{estimator.feature_names_in_.size}",
                "save it again",
            )
    bound = sum(a.size for a in arrays.values()) + 1
    if estimator.n_features_in_ > bound:
        raise bad(
            path,
            "n_features_in_ does not fit the arrays",
            f"at most {bound}",
            str(estimator.n_features_in_),
            "save it again",
        )
    _check_sizes(path, estimator)
    check_estimator(path, estimator, attrs, arrays)
    spec = spec_of(cls)
    problem = spec.consistent(estimator) if spec is not None and spec.consistent else ""
    if problem:
        raise bad(
            path,
            "the column state does not fit the selector"
            if is_selector(cls)
            else f"the fitted state of {cls.__name__} is inconsistent",
            "a state that agrees with itself (buffers that hold the columns its selection names)",
            problem,
            _MODIFIED,
        )
    if is_selector(cls):
        check_support(path, estimator, meta.get("support"))
    _probe(path, estimator)


def _check_sizes(path: Path, selector: Any) -> None:
    """A selector's selection and column buffers fit its features and rows."""
    from evofeat.selection import ColumnBuffer
    from evofeat.selection.citests import ConditionalTester

    if not is_selector(type(selector)):
        return
    n, rows = selector.n_features_in_, selector.n_rows_
    if not (selector.relevance_.size == n and selector.y_.size == rows):
        raise bad(
            path,
            "the selection does not fit the selector",
            f"{n} relevances and {rows} labels",
            f"{selector.relevance_.size} and {selector.y_.size}",
            _MODIFIED,
        )
    for name, value in vars(selector).items():
        if isinstance(value, ColumnBuffer):
            sizes = {value.view.shape[0]}
        elif isinstance(value, ConditionalTester):
            sizes = {np.shape(c)[0] for c in value.columns.values()} | {rows}
            sizes |= {rows + 1 for k in value.columns if not 0 <= k < n}  # a feature never seen
        else:
            continue
        if sizes != {rows}:
            raise bad(
                path,
                f"the column state {name!r} does not fit the selector",
                f"columns of {rows} rows, of features below {n}",
                f"sizes {sorted(sizes)}",
                _MODIFIED,
            )


def _probe(path: Path, estimator: Any) -> None:
    """Predict (select) one row of zeros; a selector must give its saved selection."""
    probe: Callable[[np.ndarray], Any] = (
        estimator.transform if is_selector(type(estimator)) else estimator.predict
    )
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an unnamed row of zeros, a probe only
            probe(np.zeros((1, estimator.n_features_in_)))
    except (ValueError, IndexError, TypeError, np.linalg.LinAlgError) as err:
        raise bad(
            path,
            f"the fitted state of {type(estimator).__name__} is inconsistent",
            "arrays whose shapes agree",
            f"{type(err).__name__}: {str(err)[:200]}",
            _MODIFIED,
        ) from None


def check_support(path: Path, selector: Any, support: Any) -> None:
    """The saved selection names columns of the selector, and its state gives exactly it."""
    n = selector.n_features_in_
    if not (isinstance(support, list) and all(type(j) is int and 0 <= j < n for j in support)):
        raise bad(
            path,
            "the selection does not fit the selector",
            f"columns below n_features_in_={n}",
            repr(support)[:200],
            _MODIFIED,
        )
    try:
        with np.errstate(all="ignore"):
            now: list[Any] = [int(j) for j in np.flatnonzero(selector.get_support())]
    except (ValueError, IndexError, TypeError) as err:
        now = [f"{type(err).__name__}: {str(err)[:100]}"]
    if now != sorted(support):
        raise bad(
            path,
            "the selector's state does not give the saved selection",
            f"columns {sorted(support)[:20]}",
            f"{now[:20]}",
            _MODIFIED,
        )
