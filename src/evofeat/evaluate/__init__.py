"""The one prequential loop, the repeat runner, metrics and statistical tests."""

from evofeat.evaluate.batch import repeat_batch, run_batch_once
from evofeat.evaluate.prequential import PrequentialResult, log_ticks, prequential
from evofeat.evaluate.repeat import (
    SCENARIOS,
    check_online_scenario,
    load_cached,
    make_stream,
    repeat,
    run_once,
    summarize,
)
from evofeat.evaluate.stats import paired_outcome

__all__ = [
    "SCENARIOS",
    "PrequentialResult",
    "check_online_scenario",
    "load_cached",
    "log_ticks",
    "make_stream",
    "paired_outcome",
    "prequential",
    "repeat",
    "repeat_batch",
    "run_batch_once",
    "run_once",
    "summarize",
]
