"""evofeat.datasets."""
