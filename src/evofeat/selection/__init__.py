"""evofeat.selection."""
