"""What the two instruments are not (``data/caveats.json``), shown next to every number.

Each caveat applies to the OSMD rubric, the FCS page, or the lab's own mapping of them onto its
agents (``"lab"``), and names where it comes from.

Examples
--------
>>> [c.caveat_id for c in caveats_for("FCS")]
['fcs_no_procedure_for_p', 'fcs_headline_claims', 'fcs_phi_unworked',
'neither_measures_consciousness']
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import RootModel

from labcore.checks import check_choice
from labcore.scorecards.documents import load

INSTRUMENTS: tuple[str, ...] = ("OSMD", "FCS", "lab")


class Caveat(NamedTuple):
    """One caveat: a stable id, the instruments it applies to, what to show, and its source."""

    caveat_id: str
    applies_to: tuple[Literal["OSMD", "FCS", "lab"], ...]
    text: str
    source: str


CAVEATS: tuple[Caveat, ...] = load("caveats.json", RootModel[tuple[Caveat, ...]]).root


def caveats_for(instrument: str) -> tuple[Caveat, ...]:
    """Caveats that apply to ``"OSMD"``, ``"FCS"`` or ``"lab"`` (any other name: ValueError)."""
    check_choice(instrument, "instrument", INSTRUMENTS)
    return tuple(c for c in CAVEATS if instrument in c.applies_to)
