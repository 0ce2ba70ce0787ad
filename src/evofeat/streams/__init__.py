"""Streams whose visible features change: the array form and the scenario simulators."""

from evofeat.streams.permutations import load_permutations, permutation
from evofeat.streams.scenarios import evolvable, full, haphazard, trapezoidal, trapezoidal_schedule
from evofeat.streams.stream import Chunk, Stream

__all__ = [
    "Chunk",
    "Stream",
    "evolvable",
    "full",
    "haphazard",
    "load_permutations",
    "permutation",
    "trapezoidal",
    "trapezoidal_schedule",
]
