"""Linear online learners on evolving features.

The reference learners (``Perceptron``; ``PA`` in the PA, PA-I and PA-II
modes of Crammer et al. 2006), the trapezoidal-stream family of Zhang et al.
2015 (``STSD`` and its variants, ``STSDMulticlass``, ``STSDRegressor``), and
online feature selection under a budget (``OFS``, ``PETrun``, ``RAND``,
``OFSP``, Wang et al. 2013/2014). Each module holds one algorithm's math:
a NamedTuple state, the compiled kernels and a plain-NumPy reference.
"""

from evofeat.linear.ofs import OFS, RAND, PETrun
from evofeat.linear.ofs_partial import OFSP
from evofeat.linear.pa import PA
from evofeat.linear.perceptron import Perceptron
from evofeat.linear.stsd import STSD
from evofeat.linear.stsd_multiclass import STSDMulticlass
from evofeat.linear.stsd_regression import STSDRegressor

__all__ = [
    "OFS",
    "OFSP",
    "PA",
    "RAND",
    "STSD",
    "PETrun",
    "Perceptron",
    "STSDMulticlass",
    "STSDRegressor",
]
