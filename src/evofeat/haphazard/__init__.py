"""The haphazard-input field's methods (OLVF, OCDS, OVFM, DynFo), each as written in its paper."""

from evofeat.haphazard.dynfo import DynFo
from evofeat.haphazard.ocds import OCDS
from evofeat.haphazard.olvf import OLVF
from evofeat.haphazard.ovfm import OVFM

__all__ = ["OCDS", "OLVF", "OVFM", "DynFo"]
