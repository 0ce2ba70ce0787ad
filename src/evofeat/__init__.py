"""evofeat: online learning on data streams whose feature space changes."""

from evofeat._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()

__version__ = "0.1.0"

__all__ = ["__version__"]
