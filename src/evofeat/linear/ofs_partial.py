"""OFS_P: online feature selection when the learner may look at only B attributes of a row.

OFS_P (Wang et al., TKDE 2014, Algorithm 3, "learning with partial inputs")
may request only B attributes of each row: with probability ``epsilon`` B
attributes drawn uniformly from the visible ones (exploration), otherwise
the attributes of its current support (exploitation). Its prediction and
its update use only the observed attributes; the update divides each
observed value by the probability that it was observed,
``epsilon * min(1, B / d) + (1 - epsilon) * [w_i != 0]`` (``d`` the number
of visible features), which makes the observed row an unbiased estimate of
the full row. The draw of row ``t`` (SplitMix64, ``draw_uniform`` of ``evofeat/_core/rng.pxd``)
depends on the seed and ``t`` only, so predicting a row advances no state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evofeat.linear._ofs import OFSPCore
from evofeat.linear._ofs_base import _COMMON_DOC, _STEP_DOC, _Step
from evofeat.linear._shared import check_fraction

__all__ = ["OFSP"]


@dataclass(eq=False, repr=False)
class OFSP(_Step):
    __doc__ = f"""OFS with partial inputs (OFS_P): the learner looks at only B attributes of a row.

    With probability ``epsilon`` it requests B attributes drawn uniformly from the
    visible features (exploration), otherwise the attributes of its support
    (exploitation); (the module docstring states the draw). It predicts
    with ``w`` on the observed attributes, and when the margin is ``<= 1`` takes OFS's
    step on the importance-weighted row, each observed value divided by the
    probability it had to be observed, ``epsilon min(1, B/d) + (1 - epsilon) [w_i != 0]``
    (``d``: the number of visible features). The rest is as :class:`OFS`: the decay
    ``1 - l2 lr`` (also on rows with margin > 1), the L2 ball, truncation to B.

    The journal writes OFS_P with a ball of radius R and no decay; ``l2=0,
    radius=R`` gives that form. The draws of row t depend only on ``seed`` and t, so
    a prediction, the update that follows it and a clone all see the same attributes.
    On the first row of a new visible set the prediction drew from the previous set;
    the update draws from the new one.

    Parameters
    ----------
    lr
        eta, the step size (0.2).
    l2
        lambda, the regularisation (0.01).{_COMMON_DOC}
    radius
        Radius of the L2 ball (``None``: ``1 / sqrt(l2)``).
    epsilon
        Probability of an exploration row (0.2).
    seed
        Seed of the draws.{_STEP_DOC}

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.streams import full
    >>> from evofeat.evaluate import prequential
    >>> ds = load("german", preprocess="unit-norm")
    >>> prequential(OFSP(seed=1), full(ds.X, ds.y, ds.feature_names)).mistakes
    495

    References
    ----------
    Wang, Zhao, Hoi, Jin. Online Feature Selection and Its Applications. IEEE TKDE 26(3),
    2014 (Algorithm 3, learning with partial inputs).
    """

    _core = OFSPCore
    _algorithm = "ofs-p"
    per_feature = (*_Step.per_feature, "flag", "vis", "pick")
    #: What a model file must satisfy (evofeat.io): OFS's, and the drawn attributes' columns.
    _state_spec = _Step._state_spec.extend(
        fixed=("seed", "epsilon"),
        indices=("vis", "pick"),
        counts=("n_visible", "n_marked"),
        nonnegative=("t",),
    )

    lr: float = 0.2
    l2: float = 0.01
    budget: float = 0.1
    budget_count: int | None = None
    radius: float | None = None
    epsilon: float = 0.2
    seed: int = 0
    zero_score: str = "mistake"
    step: str = "paper"
    eps: float = 1e-8
    truncate_by: str = "weight"
    fit_intercept: bool = False

    def _check_params(self) -> None:
        super()._check_params()
        check_fraction(self.epsilon, "epsilon must be a probability", "pass epsilon=0.2")

    def _extra_fields(self, capacity: int) -> dict[str, Any]:
        return {
            "flag": np.zeros(capacity, np.int8),
            "vis": np.zeros(capacity, np.int64),
            "pick": np.zeros(capacity, np.int64),
            "n_visible": 0,
            "t": 0,
            "seed": int(self.seed),
            "epsilon": float(self.epsilon),
            "marked": -1,
            "n_marked": 0,
        }
