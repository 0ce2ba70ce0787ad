"""The one prequential loop, the repeat runner, metrics and statistical tests."""

from evofeat.evaluate.prequential import PrequentialResult, log_ticks, prequential

__all__ = ["PrequentialResult", "log_ticks", "prequential"]
