"""Online preprocessing in front of any online learner, learned from the rows seen so far.

:class:`OnlineScaled` scales each feature with running statistics of its own
values (``"zscore"``: Welford's mean and standard deviation; ``"quantile"``:
normal scores of the value's rank in a window, OVFM's marginal step), in the
compiled loop and on the dict path alike. :class:`Imputed` also hands the learner each absent feature's conditional mean in an online
Gaussian copula (OVFM's step). Whole-file preprocessing (which
looks ahead) is :func:`evofeat.datasets.preprocess`.
"""

from evofeat.preprocessing.imputed import Imputed
from evofeat.preprocessing.scaled import METHODS, OnlineScaled, learner_from_spec, learner_spec

__all__ = ["METHODS", "Imputed", "OnlineScaled", "learner_from_spec", "learner_spec"]
