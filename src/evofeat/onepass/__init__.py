"""evofeat.onepass."""
