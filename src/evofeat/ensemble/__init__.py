"""evofeat.ensemble."""
