"""Streaming-feature selection: CEOFS, COFS and the baselines Alpha-investing, OSFS, Fast-OSFS, SAOLA."""

from evofeat.selection._base import ColumnBuffer, StreamingSelector
from evofeat.selection.alpha_investing import AlphaInvesting
from evofeat.selection.ceofs import CEOFS, COFS
from evofeat.selection.osfs import OSFS, FastOSFS
from evofeat.selection.saola import SAOLA

__all__ = [
    "CEOFS",
    "COFS",
    "OSFS",
    "SAOLA",
    "SELECTORS",
    "AlphaInvesting",
    "ColumnBuffer",
    "FastOSFS",
    "StreamingSelector",
]

#: Registry name -> selector class.
SELECTORS: dict[str, type[StreamingSelector]] = {
    "ceofs": CEOFS,
    "cofs": COFS,
    "alpha-investing": AlphaInvesting,
    "osfs": OSFS,
    "fast-osfs": FastOSFS,
    "saola": SAOLA,
}
