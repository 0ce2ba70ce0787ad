"""Streams whose visible features change: the array form and the scenario simulators."""

from evofeat.base.stream import Chunk, Stream
from evofeat.streams.csv_stream import CsvStream, csv_path
from evofeat.streams.feature_stream import FeatureStream, Selection, feature_stream, run_selector
from evofeat.streams.incdec import IncDec, incdec, split_sizes
from evofeat.streams.jsonl import JsonlStream, jsonl_path
from evofeat.streams.libsvm_stream import LibsvmStream, libsvm_path
from evofeat.streams.permutations import load_permutations, permutation
from evofeat.streams.scenarios import evolvable, full, haphazard, trapezoidal, trapezoidal_schedule

__all__ = [
    "Chunk",
    "CsvStream",
    "FeatureStream",
    "IncDec",
    "JsonlStream",
    "LibsvmStream",
    "Selection",
    "Stream",
    "csv_path",
    "evolvable",
    "feature_stream",
    "full",
    "haphazard",
    "incdec",
    "jsonl_path",
    "libsvm_path",
    "load_permutations",
    "permutation",
    "run_selector",
    "split_sizes",
    "trapezoidal",
    "trapezoidal_schedule",
]
