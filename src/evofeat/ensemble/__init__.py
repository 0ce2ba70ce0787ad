"""Feature-evolvable learners: FESL-c, FESL-s, their baselines NOGD, ROGD-u, ROGD-f, and OGD; ``Auto``, the recommended learner."""

from evofeat.ensemble.auto import Auto
from evofeat.ensemble.fesl import FESL, fesl_reference
from evofeat.ensemble.mapping import recover
from evofeat.ensemble.ogd import OGD, ogd_reference

__all__ = ["FESL", "OGD", "Auto", "fesl_reference", "ogd_reference", "recover"]
