"""Learner protocol, the feature index, compiled-kernel dispatch and errors."""

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex
from evofeat.base.kernel import register_kernel
from evofeat.base.learner import OnlineLearner

__all__ = ["FeatureIndex", "InputError", "OnlineLearner", "register_kernel"]
