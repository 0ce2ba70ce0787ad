"""The haphazard-input field's methods (OLVF, OCDS, ...), each as written in its paper."""

from evofeat.haphazard.ocds import OCDS
from evofeat.haphazard.olvf import OLVF

__all__ = ["OCDS", "OLVF"]
