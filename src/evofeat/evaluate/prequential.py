"""The one prequential loop, :func:`prequential`: defined in :mod:`evofeat.base.prequential`.

It lives in ``base`` because :meth:`~evofeat.base.OnlineLearner.learn_many`
runs it; this module keeps its public path (``evofeat.evaluate.prequential``)
and the one of results pickled before the move. To replace its clock or wrap
the function, patch :mod:`evofeat.base.prequential`: names set here are not
seen by the loop.

``evofeat.evaluate`` imports its names from here, not from ``base``: had it
not loaded this module first, a later ``import evofeat.evaluate.prequential``
would rebind ``evofeat.evaluate.prequential`` from the function to the module.
"""

from evofeat.base.prequential import PrequentialResult, check_task, log_ticks, prequential

__all__ = ["PrequentialResult", "check_task", "log_ticks", "prequential"]
