"""The field's methods for haphazard inputs (features each present or absent at random)."""

from evofeat.haphazard.ovfm import OVFM

__all__ = ["OVFM"]
