"""evofeat.linear."""
