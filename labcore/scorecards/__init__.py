"""Scorecards: two external instruments, their reference numbers, and the lab's agents.

* **OSMD** -- "Operational Self-Model Density" (working paper): a 30-item, 90-point rubric
  in 8 clusters. Rules in :mod:`~labcore.scorecards.rubric`.
* **FCS** -- the "Functional Consciousness Score" page, ``FCS = R · P``. Formulas in
  :mod:`~labcore.scorecards.fcs`.
* Both documents' tables are data (``data/osmd_rubric.json``, ``data/fcs.json``), read and
  validated by :mod:`~labcore.scorecards.tables` through the models of
  :mod:`~labcore.scorecards.records`; :mod:`~labcore.scorecards.contract` words a refusal.
* :mod:`~labcore.scorecards.osmd_recompute` recomputes OSMD's numbers from its own tables;
  :mod:`~labcore.scorecards.osmd_checks` and :mod:`~labcore.scorecards.fcs_checks` list where
  each document's stated numbers disagree (as :mod:`~labcore.scorecards.discrepancy` records),
  and :mod:`~labcore.scorecards.consistency` joins the two lists.
* :mod:`~labcore.scorecards.lab_agents` scores A0/A1/B1/B2 from measurements with the
  pre-registered thresholds of :mod:`~labcore.scorecards.lab_agent_mapping`;
  :mod:`~labcore.scorecards.user_systems` scores a user's own
  system and round-trips it through JSON; :mod:`~labcore.scorecards.caveats` says what
  neither instrument is.

Pure data and pure functions; no Streamlit, no plotting. See docs/scorecards.md.
"""

from labcore.scorecards.caveats import CAVEATS, Caveat, caveats_for
from labcore.scorecards.consistency import all_discrepancies
from labcore.scorecards.discrepancy import Discrepancy
from labcore.scorecards.fcs import (
    FCSEstimate,
    estimate_fcs,
    functional_consciousness_score,
    phi_fcs,
    recompute_fcs_row,
    representational_capacity,
)
from labcore.scorecards.fcs_checks import fcs_discrepancies
from labcore.scorecards.lab_agent_mapping import (
    EVIDENCE_KEYS,
    LAB_AGENT_KINDS,
    PREREGISTERED_THRESHOLDS,
)
from labcore.scorecards.lab_agents import lab_agent_fcs, score_lab_agent
from labcore.scorecards.osmd_checks import osmd_discrepancies
from labcore.scorecards.osmd_recompute import ReferenceSystemSummary, reference_system_summary
from labcore.scorecards.rubric import (
    ItemEntry,
    ScoredItem,
    ScoredSystem,
    band_for_total,
    behavioural_cap,
    lower_of_two_clauses,
    not_applicable,
    score_item,
    score_reference_system,
    score_system,
)
from labcore.scorecards.user_systems import (
    UserSystem,
    score_user_system,
    user_system_from_json,
    user_system_to_json,
)

__all__ = [
    "CAVEATS",
    "EVIDENCE_KEYS",
    "LAB_AGENT_KINDS",
    "PREREGISTERED_THRESHOLDS",
    "Caveat",
    "Discrepancy",
    "FCSEstimate",
    "ItemEntry",
    "ReferenceSystemSummary",
    "ScoredItem",
    "ScoredSystem",
    "UserSystem",
    "all_discrepancies",
    "band_for_total",
    "behavioural_cap",
    "caveats_for",
    "estimate_fcs",
    "fcs_discrepancies",
    "functional_consciousness_score",
    "lab_agent_fcs",
    "lower_of_two_clauses",
    "not_applicable",
    "osmd_discrepancies",
    "phi_fcs",
    "recompute_fcs_row",
    "reference_system_summary",
    "representational_capacity",
    "score_item",
    "score_lab_agent",
    "score_reference_system",
    "score_system",
    "score_user_system",
    "user_system_from_json",
    "user_system_to_json",
]
