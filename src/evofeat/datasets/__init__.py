"""Data sets: a registry of bundled and cached benchmark sets, loaders, preprocessing.

Examples
--------
>>> from evofeat.datasets import load
>>> load("german")
Dataset('german', 1000 rows x 24 features, binary, sparse)
"""

import sys

from . import catalogue
from .catalogue import DatasetInfo, cache_dir, find, list_datasets
from .dataset import Dataset
from .errors import (
    ChecksumError,
    DataFormatError,
    DataNotFoundError,
    UnknownDatasetError,
    UnverifiedDownloadWarning,
)
from .fetch import download
from .loaders import load, stsd_german_permutations
from .preprocessing import PREPROCESSORS, preprocess, register_preprocessor

#: ``evofeat.datasets.registry``: the catalogue's former name, an alias of the same module (so
#: existing imports, and monkeypatches of it, keep working); ``evofeat.registry`` is the learners'.
registry = catalogue
sys.modules[f"{__name__}.registry"] = catalogue

__all__ = [
    "PREPROCESSORS",
    "ChecksumError",
    "DataFormatError",
    "DataNotFoundError",
    "Dataset",
    "DatasetInfo",
    "UnknownDatasetError",
    "UnverifiedDownloadWarning",
    "cache_dir",
    "download",
    "find",
    "list_datasets",
    "load",
    "preprocess",
    "register_preprocessor",
    "stsd_german_permutations",
]
