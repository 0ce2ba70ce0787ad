"""Plain-NumPy references of evofeat's compiled learners, used only by the tests.

Each module restates one learner's update in NumPy, with the same operations
in the same order as its compiled core (so the two agree to the last bit),
and the Python twins of the compiled helpers it needs (``safe``: the
overflow rules of ``_core/safe.pxd``; ``splitmix``: ``_core/rng.pxd``;
``adagrad_step``: ``_core/adaptive.pxd``); ``copula`` is the imputation of
``preprocessing.Imputed``, run before ``ovfm``'s classifiers and an imputed
learner's own reference. Two check parts that are not online learners:
``cstage`` (OPID's C-stage solved in one batch, equal up to round-off) and
``fisher`` (the Fisher-z search of ``selection.citests`` in NumPy). Unlike the
independent oracle (``tests/oracle``), a reference may import evofeat (a
learner's defaults, its budget rule); it checks the compiled arithmetic, the
oracle checks the paper.

:func:`predictions` runs the reference of a configured learner.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evofeat.ensemble import FESL, Auto
from evofeat.haphazard import OCDS, OLVF, OVFM, DynFo
from evofeat.linear import (
    FTRL,
    NAG,
    OFS,
    OFSP,
    OGD,
    PA,
    RAND,
    STSD,
    AdaGrad,
    Perceptron,
    PETrun,
    STSDMulticlass,
)
from evofeat.preprocessing import Imputed

__all__ = ["predictions"]


def _without_bias(model: Any) -> dict[str, Any]:
    """The learner's parameters for a reference that has no bias (``tests/oracle`` has it)."""
    params = dict(model.get_params())
    if params.pop("fit_intercept", False):
        raise NotImplementedError(
            f"{type(model).__name__}'s NumPy reference has no bias: "
            "compare fit_intercept=True with the oracle in tests/oracle"
        )
    return params


def _rate(model: Any, own: float) -> float | None:
    """The bias's rate of a learner with ``fit_intercept`` (``None``: no bias)."""
    return model._intercept_rate(own) if model.fit_intercept else None


def predictions(model: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The predictions of ``model``'s NumPy reference with its parameters.

    ``X`` is dense with NaN for absent entries, its columns in the order the
    features first appear (the learners' internal columns). A learner
    without a reference here raises :class:`NotImplementedError`.

    >>> predictions(Perceptron(), np.array([[1.0], [1.0]]), np.array([1.0, 1.0]))
    array([-1.,  1.])
    """
    from reference import (
        adagrad,
        auto,
        copula,
        dynfo,
        fesl,
        ftrl,
        nag,
        ocds,
        ofs,
        ogd,
        olvf,
        ovfm,
        pa,
        perceptron,
        stsd,
    )
    from reference import stsd_multiclass as stsdm

    if isinstance(model, Perceptron):
        rate = model._intercept_rate(model.lr)
        return perceptron.perceptron_reference(X, y, model.lr, model.fit_intercept, rate)
    if isinstance(model, PA):
        return pa.pa_reference(X, y, model.mode, model.C, model.fit_intercept)
    if isinstance(model, OGD):
        return ogd.ogd_reference(X, y, model.lr, model.loss, _rate(model, model.lr))
    if isinstance(model, FTRL):
        p = model
        rate = _rate(p, p.alpha)
        return ftrl.ftrl_reference(X, y, p.alpha, p.beta, p.l1, p.l2, p.loss, rate)
    if isinstance(model, AdaGrad):
        rate = _rate(model, model.lr)
        return adagrad.adagrad_reference(X, y, model.lr, model.eps, model.loss, rate)
    if isinstance(model, NAG):
        rate = _rate(model, model.lr)
        return nag.nag_reference(X, y, model.lr, model.loss, rate, model.invariant)
    if isinstance(model, STSDMulticlass):
        K = model.n_classes if model.n_classes is not None else int(np.max(y)) + 1
        _without_bias(model)
        m = model
        return stsdm.stsd_multiclass_reference(X, y, m.mode, m.C, m.radius, m.budget, K)
    if isinstance(model, STSD):
        return stsd.stsd_reference(X, y, **{**_without_bias(model), "task": model.task})
    if isinstance(model, OFS | OFSP | PETrun | RAND):
        return ofs.ofs_reference(X, y, model._algorithm, **_without_bias(model))
    if isinstance(model, FESL):
        out: np.ndarray = fesl.fesl_reference(X, y, **model.get_params())
        return out
    if isinstance(model, DynFo):
        return dynfo.dynfo_reference(X, y, **_without_bias(model))[0]
    if isinstance(model, OLVF):
        return olvf.olvf_reference(X, y, **_without_bias(model))
    if isinstance(model, OCDS):
        params = _without_bias(model)
        params.pop("intercept_lr")
        return ocds.ocds_reference(X, y, **params)
    if isinstance(model, OVFM):
        m = model
        if not m.fit_intercept:  # the reference's classifiers always have their bias
            raise NotImplementedError(
                "OVFM's NumPy reference has its bias: compare fit_intercept=False with the "
                "oracle in tests/oracle"
            )
        learn = m.copula == "online-em"
        rate, window, forget, ridge = m.contribute_error_rate, m.window, m.forget, m.ridge
        args = (int(m.decay_choice), float(rate), int(window), learn, float(forget), float(ridge))
        return ovfm.ovfm_reference(X, y, *args)[0]
    if isinstance(model, Imputed):
        if model.neighbours is not None:
            raise NotImplementedError("Imputed(neighbours=...) has no NumPy reference")
        m = model
        latent = copula.copula_reference(X, int(m.window), float(m.forget), float(m.ridge))
        return predictions(model._inner(), latent, y)
    if isinstance(model, Auto):
        return auto.auto_reference(model, X, y)
    raise NotImplementedError(f"{type(model).__name__} has no NumPy reference")
