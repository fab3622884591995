"""The two documents' tables: read from ``data/*.json``, validated, and named once.

One source of truth for every number this package takes from the working paper "Operational
Self-Model Density in Stateful LLM Agents" (*OSMD*; ``data/osmd_rubric.json``) and the web page
"Is AI conscious? Now we can measure it." (the Functional Consciousness Score, *FCS*;
``data/fcs.json``). The files are read through the models of :mod:`labcore.scorecards.records`,
which say which section each table was copied from; a file that breaks them stops the import with
one sentence naming the field (:func:`load_tables`). Nothing here computes: the rules live in
:mod:`labcore.scorecards.rubric` and :mod:`labcore.scorecards.fcs`, the cross-checks in
:mod:`labcore.scorecards.osmd_checks` and :mod:`labcore.scorecards.fcs_checks`.

Examples
--------
>>> len(ITEMS), sum(c.max_points for c in CLUSTERS)
(30, 90)
>>> ITEM_BY_ID["HOT-2"].criteria[2]
'Confidence calibrated against single task type.'
>>> REFERENCE_GRIDS["frank"].pair("GWT-1")
(3, 1)
>>> [row.system for row in FCS_REFERENCE_TABLE][:3]
['Map', 'Stateless LLM', 'LIDA']
>>> len(FCS_DOMAINS)
10
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from labcore.scorecards.contract import contract_error
from labcore.scorecards.records import FCSTables, OSMDTables

DATA = Path(__file__).resolve().parent / "data"
"""Where the data files live."""
T = TypeVar("T", bound=BaseModel)


def load_tables(path: Path, model: type[T]) -> T:
    """Read one data file through its model.

    Raises
    ------
    ContractError
        The file breaks the model, in one sentence naming the file and the field, e.g.
        ``"osmd_rubric.json: items[3].criteria: field required"``.
    """
    try:
        return model.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise contract_error(exc, path.name) from None


def _frozen(table: Mapping) -> MappingProxyType:
    """A read-only view of a table, nested mappings included."""
    return MappingProxyType(
        {k: _frozen(v) if isinstance(v, Mapping) else v for k, v in table.items()}
    )


OSMD = load_tables(DATA / "osmd_rubric.json", OSMDTables)
"""The whole OSMD file; the names below are its tables."""
FCS = load_tables(DATA / "fcs.json", FCSTables)
"""The whole FCS file; the names below are its tables."""

# ----------------------------------------------------------------------------- OSMD: the rubric
OSMD_SOURCE = OSMD.source
CLUSTERS = OSMD.clusters
CLUSTER_BY_ID = MappingProxyType({c.cluster_id: c for c in CLUSTERS})
STATED_FAMILY_COUNT_SECTION_2 = OSMD.stated_family_count_section_2
ITEMS = OSMD.items
ITEM_BY_ID = MappingProxyType({item.item_id: item for item in ITEMS})
ITEM_IDS: tuple[str, ...] = tuple(item.item_id for item in ITEMS)
SECTION_4_3_LM_VULNERABLE = frozenset(i.item_id for i in ITEMS if i.listed_in_section_4_3)
RULES = OSMD.rules
RULE_BY_ID = MappingProxyType({rule.rule_id: rule for rule in RULES})
ALLOWED_CONFIDENCES = OSMD.allowed_confidences
BANDS = OSMD.bands

# ----------------------------------------------------------------------------- OSMD: its numbers
REFERENCE_GRIDS = MappingProxyType({grid.system_id: grid for grid in OSMD.reference_systems})
REFERENCE_SYSTEM_NAMES = MappingProxyType(
    {grid.system_id: grid.display_name for grid in OSMD.reference_systems}
)
STATED_POINT_TOTALS = _frozen(OSMD.stated_point_totals)
STATED_SECTION_7_9_GAP = _frozen(OSMD.stated_section_7_9_gap)
STATED_CLUSTER_SUBTOTALS = _frozen(OSMD.stated_cluster_subtotals)
RATER_TOTALS_APPENDIX_D = _frozen(OSMD.rater_totals_appendix_d)
STATED_APPENDIX_D_FRANK_SHORTFALL = OSMD.stated_appendix_d_frank_shortfall
STATED_APPENDIX_D_BOUND_RATERS = OSMD.stated_appendix_d_bound_raters
STATED_RANGES = OSMD.stated_ranges
STATED_GAPS = OSMD.stated_gaps
H1_THRESHOLD_POINTS = OSMD.h1_threshold_points
STATED_H1_FLOOR = _frozen(OSMD.stated_h1_floor.model_dump())
H2_ITEMS = OSMD.h2_items
STATED_H2_SHARES = OSMD.stated_h2_shares
HUMAN_RATER_ITEMS = OSMD.human_rater_items
HUMAN_RATER_SCORES = _frozen(OSMD.human_rater_scores)
STATED_HUMAN_RATER_SUBTOTALS = _frozen(OSMD.stated_human_rater_subtotals)
STATED_ARCHITECT_VS_LLM = _frozen(OSMD.stated_architect_vs_llm)
MINORCH_STATED_TOTAL = OSMD.minorch_stated_total
MINORCH_CLUSTER_SCORES = _frozen(OSMD.minorch_cluster_scores)
MINORCH_STATED_FRANK_CLUSTERS = _frozen(OSMD.minorch_stated_frank_clusters)
MINORCH_STATED_LIFT_OVER_CLAUDE_CODE = OSMD.minorch_stated_lift_over_claude_code
MINORCH_STATED_FRANK_LIFT = OSMD.minorch_stated_frank_lift
MINORCH_PREDICTED_RANGE = OSMD.minorch_predicted_range
ABLATIONS = OSMD.ablations
STATED_ABLATION_SUM = OSMD.stated_ablation_sum
STATED_ALL_ABLATED_SCORE = OSMD.stated_all_ablated_score
STATED_PERCENTAGES = OSMD.stated_percentages
HALLUCINATION_RATE_PERCENT = _frozen(OSMD.hallucination_rate_percent)
RETRIEVAL_ACCURACY_PERCENT = _frozen(OSMD.retrieval_accuracy_percent)
STATED_HALLUCINATION_GAP_POINTS = OSMD.stated_hallucination_gap_points

# ----------------------------------------------------------------------------- FCS
FCS_SOURCE = FCS.source
FORMULA_FCS = FCS.formula_fcs
FORMULA_R = FCS.formula_r
FORMULA_PHI_FCS = FCS.formula_phi_fcs
FCS_REFERENCE_TABLE = FCS.reference_table
FCS_ROW_BY_SYSTEM = MappingProxyType({row.system: row for row in FCS_REFERENCE_TABLE})
STATED_RATIOS = FCS.stated_ratios
FCS_DOMAINS = FCS.domains
STATED_SELF_MODEL_COUNT = FCS.stated_self_model_count
RADAR_CARDS = _frozen(FCS.radar_cards)
