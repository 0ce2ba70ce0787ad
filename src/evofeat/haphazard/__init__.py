"""The haphazard-input methods of the field (features each present or absent in every row)."""

from evofeat.haphazard.dynfo import DynFo

__all__ = ["DynFo"]
