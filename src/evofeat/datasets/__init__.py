"""Data sets: a registry of bundled and cached benchmark sets, loaders, preprocessing.

Examples
--------
>>> from evofeat.datasets import load
>>> load("german")
Dataset('german', 1000 rows x 24 features, binary, sparse)
"""

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
from .registry import DatasetInfo, cache_dir, find, list_datasets

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
