"""Feature-evolvable learners: FESL-c, FESL-s and their baselines NOGD, ROGD-u, ROGD-f; ``Auto``, the recommended learner.

Their base learner, OGD, is a linear learner: :class:`evofeat.linear.ogd.OGD`.
"""

from evofeat.ensemble.auto import Auto
from evofeat.ensemble.fesl import FESL

__all__ = ["FESL", "Auto"]
