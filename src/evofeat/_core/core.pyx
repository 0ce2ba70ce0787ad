# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The base of every compiled learner: named state, built and copied by name.

A learner's math is a ``cdef class`` deriving from :class:`Core`. Its state
is typed attributes with the paper's names (``cdef public double[::1] w``,
``cdef public double C``), declared once: the ``cdef public`` attributes are
the fields, in declaration order, a subclass's after its parent's (see
:func:`fields_of`); a plain ``cdef`` attribute is scratch, not state. The
one prequential loop and the dict path call its three ``cdef`` methods:

``predict(idx, val, n, &label) -> score``
    The score of the row (``idx`` its internal columns, increasing; ``val``
    their values) and, through ``label``, the predicted label (binary: -1.0
    or +1.0, or 0.0 for "no decision"; regression: the prediction;
    multiclass: the class code). Columns the learner has not been told
    about may appear, with zero state.
``learn(idx, val, n, y, score) -> loss``
    Update on the row (``score`` is what ``predict`` returned) and return
    the learner's loss on it.
``visible(cols, n, dim)``
    Called before ``learn`` whenever the set of visible features changes:
    ``cols`` are all visible columns (sorted), ``dim`` the number of
    features seen so far.

The state behaves like a ``NamedTuple`` for the Python side (growing,
model files, pickling): ``state._fields``, ``getattr(state, name)`` and
``type(state)(**fields)``.
"""

from types import GetSetDescriptorType

import numpy as np

_FIELDS = {}


def fields_of(cls):
    """The state fields of a core class: its ``cdef public`` attributes in declaration order.

    Cython exposes each ``cdef public`` attribute as a descriptor in the type's
    dictionary, in the order of the declarations; a subclass's come after its
    parent's. Left out: names starting with ``_`` and the composed cores a
    class names in ``_parts`` (a scaler's ``inner``: its fields are the
    scaler's, prefixed). Computed once per class. A class whose fields are
    not all descriptors (FESL's, served from its step rule's struct) lists
    ``_fields`` itself; it then wins.

    >>> from evofeat.linear._pa import PACore
    >>> fields_of(PACore)
    ('w', 'mode', 'C', 'fit_intercept', 'intercept')
    """
    out = _FIELDS.get(cls)
    if out is None:
        names = []
        parts = set(getattr(cls, "_parts", ()))
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if (isinstance(value, GetSetDescriptorType) and name[:1] != "_"
                        and name not in parts and name not in names):
                    names.append(name)
        out = _FIELDS[cls] = tuple(names)
    return out


class _DeclaredFields:
    """``_fields`` of a core class or instance: :func:`fields_of` its class."""

    def __get__(self, obj, owner):
        return fields_of(owner)


def _rebuild(cls, fields):
    return cls(**fields)


cdef class Core:
    """A learner's compiled state and math (the base does nothing: it predicts 0 and learns nothing).

    >>> core = Core()
    >>> core._fields, core._asdict()
    ((), {})
    """

    _fields = _DeclaredFields()

    def __init__(self, **fields):
        names = type(self)._fields
        unknown = sorted(set(fields) - set(names))
        missing = [n for n in names if n not in fields]
        if unknown or missing:
            raise TypeError(
                f"{type(self).__name__} takes the fields {list(names)}: "
                f"missing {missing}, unknown {unknown}"
            )
        for name in names:
            value = fields[name]
            if isinstance(value, np.ndarray) and not value.flags.writeable:
                value = value.copy()  # e.g. unpickled from a read-only memory map: state is written
            setattr(self, name, value)

    def _asdict(self):
        """The fields by name: arrays as NumPy arrays (sharing memory), scalars as they are."""
        out = {}
        for name in type(self)._fields:
            v = getattr(self, name)
            out[name] = v if isinstance(v, (int, float, bool)) else np.asarray(v)
        return out

    def __iter__(self):
        """The fields' values as NumPy arrays (scalars 0-d), in ``_fields`` order, as a ``NamedTuple`` iterates."""
        return iter([np.asarray(v) for v in self._asdict().values()])

    def __reduce__(self):
        return (_rebuild, (type(self), self._asdict()))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(type(self)._fields)})"

    cdef double predict(self, const int64_t* idx, const double* val, Py_ssize_t n,
                        double* label) noexcept:
        label[0] = 0.0
        return 0.0

    cdef double learn(self, const int64_t* idx, const double* val, Py_ssize_t n,
                      double y, double score) noexcept:
        return 0.0

    cdef int visible(self, const int64_t* cols, Py_ssize_t n, Py_ssize_t dim) except -1:
        return 0
