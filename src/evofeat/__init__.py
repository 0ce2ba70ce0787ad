"""evofeat: online learning on data streams whose feature space changes."""

__version__ = "0.1.0"

__all__ = ["__version__"]
