"""Learner protocol, the feature index and errors."""

from evofeat.base.errors import InputError
from evofeat.base.feature_index import FeatureIndex
from evofeat.base.learner import OnlineLearner

__all__ = ["FeatureIndex", "InputError", "OnlineLearner"]
