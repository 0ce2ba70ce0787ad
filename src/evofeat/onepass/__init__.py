"""One-pass learning with incremental and decremental features: OPID, OPIDe and baselines."""

from evofeat.onepass.baselines import SVM, SVMa, SVMs
from evofeat.onepass.cstage import CStage
from evofeat.onepass.opid import OPID, OPIDe
from evofeat.onepass.stream import LEARNERS, make_learner, run_incdec

__all__ = [
    "LEARNERS",
    "OPID",
    "SVM",
    "CStage",
    "OPIDe",
    "SVMa",
    "SVMs",
    "make_learner",
    "run_incdec",
]
