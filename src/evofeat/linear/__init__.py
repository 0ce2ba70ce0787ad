"""Linear online learners on evolving features.

The reference learners (``Perceptron``; ``PA`` in the PA, PA-I and PA-II
modes of Crammer et al. 2006), online gradient descent and its adaptive
steps (``OGD``, ``AdaGrad``, ``FTRL``, ``NAG``), the trapezoidal-stream
family of Zhang et al. 2015 (``STSD`` and its variants, ``STSDMulticlass``,
``STSDRegressor``), and online feature selection under a budget (``OFS``,
``PETrun``, ``RAND``, ``OFSP``, Wang et al. 2013/2014). Each module holds one
algorithm: its Python face over its compiled core.
"""

from evofeat.linear.adagrad import AdaGrad
from evofeat.linear.ftrl import FTRL
from evofeat.linear.nag import NAG
from evofeat.linear.ofs import OFS, RAND, PETrun
from evofeat.linear.ofs_partial import OFSP
from evofeat.linear.ogd import OGD
from evofeat.linear.pa import PA
from evofeat.linear.perceptron import Perceptron
from evofeat.linear.stsd import STSD
from evofeat.linear.stsd_multiclass import STSDMulticlass
from evofeat.linear.stsd_regression import STSDRegressor

__all__ = [
    "FTRL",
    "NAG",
    "OFS",
    "OFSP",
    "OGD",
    "PA",
    "RAND",
    "STSD",
    "AdaGrad",
    "PETrun",
    "Perceptron",
    "STSDMulticlass",
    "STSDRegressor",
]
