"""Recompute the two documents' numbers from their own tables and list the disagreements.

Both source documents print headline numbers that their own tables do not reproduce. The
lab keeps both: :func:`labcore.scorecards.osmd_recompute.reference_system_summary` returns
the stated and the recomputed numbers side by side, and
:func:`labcore.scorecards.osmd_checks.osmd_discrepancies` /
:func:`labcore.scorecards.fcs_checks.fcs_discrepancies` list every disagreement found, each
a :class:`labcore.scorecards.discrepancy.Discrepancy` with where the document states the
number, what it states, and what its own table gives. :func:`all_discrepancies` joins the
two lists. A page shows both numbers and says so; nothing here "corrects" the documents.

Every check is mechanical (a sum, a min/max, a difference, a ratio, a rounding) over data in
:mod:`labcore.scorecards.tables` (read from ``labcore/scorecards/data/``).
"""

from __future__ import annotations

from labcore.scorecards.discrepancy import Discrepancy
from labcore.scorecards.fcs_checks import fcs_discrepancies
from labcore.scorecards.osmd_checks import osmd_discrepancies


def all_discrepancies() -> tuple[Discrepancy, ...]:
    """OSMD and FCS discrepancies together."""
    return osmd_discrepancies() + fcs_discrepancies()
