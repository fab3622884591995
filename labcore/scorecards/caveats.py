"""What the two instruments are not, as data a page can show next to every number.

Each caveat applies to the OSMD rubric, the FCS page, or the lab's own mapping of them onto its
agents (``"lab"``), and names where it comes from (a document's sections, or the lab).

Examples
--------
>>> [c.caveat_id for c in caveats_for("FCS")]
['fcs_no_procedure_for_p', 'fcs_headline_claims', 'fcs_phi_unworked',
'neither_measures_consciousness']
"""

from __future__ import annotations

from typing import NamedTuple

from labcore.checks import check_choice

INSTRUMENTS: tuple[str, ...] = ("OSMD", "FCS", "lab")


class Caveat(NamedTuple):
    """One caveat: a stable id, the instruments it applies to, what to show, and its source."""

    caveat_id: str
    applies_to: tuple[str, ...]
    text: str
    source: str


CAVEATS: tuple[Caveat, ...] = (
    Caveat(
        "osmd_working_paper",
        ("OSMD",),
        "The OSMD rubric comes from a working paper that is not peer-reviewed. Its scores "
        "come mainly from LLM raters (Claude Opus 4.7 as lead scorer, GPT-4o and Gemini as "
        "proxies); the only human raters are two co-authors, unblinded, on 10 of 30 items. "
        "The lead author built the system that scores highest.",
        "OSMD title table; §4.7; §5.4; §15; §18",
    ),
    Caveat(
        "osmd_inconsistent_numbers",
        ("OSMD",),
        "OSMD's headline totals and ranges disagree with its own item grid and rater table in "
        "many places; both numbers are shown, with the list of disagreements.",
        "lab: every disagreement is listed on the rubric's tab",
    ),
    Caveat(
        "osmd_not_consciousness",
        ("OSMD",),
        'By its own account the OSMD score is "a comparison metric between architectures, '
        'not a measurement of any natural quantity, and specifically not consciousness".',
        "OSMD ES.10; §1.1; §19.7",
    ),
    Caveat(
        "lab_mapping_is_ours",
        ("lab",),
        "The rubric's criteria are written for LLM-orchestrated agents (prompts, sessions, "
        "users, databases). Scoring gridworld agents with it is the lab's own pre-registered "
        "reading, not the authors'; six items are not applicable and most others are settled "
        "by architecture alone.",
        "lab (docs/scorecards.md)",
    ),
    Caveat(
        "fcs_no_procedure_for_p",
        ("FCS",),
        "The FCS page gives no procedure for P (reasoning power), nor for counting self-model "
        "variables or their bits; every number in its table is asserted. Any P used for the "
        "lab's agents is a labelled stand-in.",
        "FCS page (table and FAQ)",
    ),
    Caveat(
        "fcs_headline_claims",
        ("FCS",),
        "The FCS page's headline (\"Now we can measure it\") is the page's claim, not an "
        "established result; two of its headline ratios (×87, 188×) do not follow from its "
        "own table.",
        "FCS page call-outs; lab: listed on the FCS tab",
    ),
    Caveat(
        "fcs_phi_unworked",
        ("FCS",),
        "Φ_FCS = P(S) − Σⱼ P(moduleⱼ) is defined but never evaluated on the page, and needs "
        "the same undefined P for every module.",
        "FCS page FAQ 'How does FC relate to IIT?'",
    ),
    Caveat(
        "neither_measures_consciousness",
        ("OSMD", "FCS", "lab"),
        "Neither instrument measures consciousness. OSMD counts engineered features; the FCS "
        "multiplies asserted quantities. The lab's agents are reference implementations of "
        "theories, not conscious systems (Phua 2025, Discussion).",
        "OSMD §1.1; FCS page; Phua (2025)",
    ),
)


def caveats_for(instrument: str) -> tuple[Caveat, ...]:
    """Caveats that apply to ``"OSMD"``, ``"FCS"`` or ``"lab"`` (any other name: ValueError)."""
    check_choice(instrument, "instrument", INSTRUMENTS)
    return tuple(c for c in CAVEATS if instrument in c.applies_to)
