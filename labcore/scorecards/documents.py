"""The two outside documents as data: ``data/osmd_rubric.json`` and ``data/fcs.json``.

Every number taken from the working paper "Operational Self-Model Density in Stateful LLM
Agents" (*OSMD*) and the page "Is AI conscious? Now we can measure it." (*FCS*), each file read
through one pydantic model whose fields name the section they were copied from. "Stated" numbers
are what a document prints, even where its own tables disagree (:mod:`.checks`).

Examples
--------
>>> len(OSMD.items), len(OSMD.clusters), OSMD.items["HOT-2"]["criteria"][2]
(30, 8, 'Confidence calibrated against single task type.')
>>> OSMD.grid("frank")["GWT-1"], [row["system"] for row in FCS.reference_table][:2]
((3, 1), ['Map', 'Stateless LLM'])
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, NamedTuple, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    RootModel,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from labcore.scorecards.contract import contract_error

DATA = Path(__file__).resolve().parent / "data"
"""Where the data files live."""


def _number(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "Input should be a number")
    return value


Number = Annotated[int | float, PlainValidator(_number)]
"""A number as the document prints it: ``74`` stays an int, ``3.2`` a float."""
Score = Annotated[int, Field(ge=0, le=3)]
Pair = tuple[Score, Score]
"""``(architectural, behavioural)``, as in the paper's "arch / behav" cells."""
Points = tuple[int, int]
"""``(architectural, behavioural)`` points, or a ``(low, high)`` range."""
Where = tuple[str, ...]


class Item(TypedDict):
    """A rubric item (OSMD Appendix A.1-A.8): title, criteria of clauses 0-3, "LM-vuln" line."""

    name: str
    criteria: tuple[str, str, str, str]
    lm_vulnerability: Annotated[str, Field(pattern=r"^(low|medium|high)\b")]


class Ablation(TypedDict):
    """A subsystem ablation of Frank (OSMD §17.7-§17.11): its table's rows (item or cluster,
    before, after), the stated totals, the §17.6 predicted drop and whether the paper says the
    drop is inside it (``quote``: where)."""

    name: str
    section: str
    rows: tuple[tuple[str, Points, Points], ...]
    stated_totals: Points
    predicted_delta: Points
    stated_inside_prediction: bool
    quote: str


class FCSRow(TypedDict):
    """A row of the FCS page's "Reasoning vs Capacity Diagram", the FCS as a number and as printed
    (with its significant figures; 0: exact), and whether the row is an AI system."""

    system: str
    description: str
    n_self_model_variables: Number
    bits_per_variable: Number
    reasoning_power: Number
    stated_fcs: Number
    stated_fcs_text: str
    stated_significant_figures: int
    is_artificial_agent: bool


class _Document(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True
    )

    title: str
    source_file: str
    """The copy the transcription tests read (skipped when absent)."""


class OSMDDocument(_Document):
    """``data/osmd_rubric.json``: the rubric and every number of the paper the lab checks; item
    ids are the paper's (``"HOT-2"``), reference systems short ids (``"frank"``)."""

    status: str
    """What kind of document it is (peer review, raters)."""
    clusters: dict[str, tuple[str, str]]
    """§2 table "Family / Origin / Components / Points": cluster -> (family, origin), in order."""
    stated_family_count_section_2: int
    """§2 text: "six families" (the §2 table has eight rows)."""
    items: dict[str, Item]
    """Appendix A.1-A.8, in the rubric's order (each cluster's items together)."""
    section_4_3_lm_vulnerable: tuple[str, ...]
    """§4.3: "Five components are flagged in advance as vulnerable to LLM language-modeling"."""
    rules: dict[str, tuple[str, str, str]]
    """Appendix A.9 "Application rules": id -> (name, sections stating it, the paper's words)."""
    allowed_confidences: tuple[int, ...]
    """§4.4: "Per-item scores carry confidence (±0 / ±1 / ±2)"."""
    bands: tuple[tuple[str, str, int, int, str], ...]
    """§6.4 "Band / Behav range / Operational meaning": (band, name, low, high, meaning)."""
    reference_systems: dict[str, str]
    """The four systems of §6.1 (id -> the paper's name), in the grid's column order."""
    grid_6_1: dict[str, tuple[Pair, ...]]
    """§6.1 "Full score grid (arch / behav per item)": item -> one pair per reference system."""
    operational_evidence_items: dict[str, tuple[str, ...]]
    """Items whose operational content the paper cites (only Frank's: §10.3, §7.3, §4.3/§17.9)."""
    stated_point_totals: dict[str, tuple[int, int, str]]
    """§6.3 "Totals" (repeated in §7.9): system -> (arch points, behav points, band)."""
    stated_section_7_9_gap: Points
    """§7.9: Frank minus the best comparator, "Arch +34", "Behav +36"."""
    stated_cluster_subtotals: dict[str, tuple[str, Points, Points, int]]
    """§7.1-§7.8 "Subtotal" rows: cluster -> (section, Frank, Claude Code, "Δ (behav)")."""
    rater_totals_appendix_d: dict[str, dict[str, int]]
    """Appendix D "Behavioral totals" per LLM rater (Claude / GPT-4o / Gemini columns)."""
    stated_appendix_d_frank_shortfall: Points
    """Appendix D: "GPT-4o and Gemini both score Frank ~3–6 points lower than Claude"."""
    stated_appendix_d_bound_raters: tuple[str, str]
    """Appendix D: the reported range "is the lower bound (Gemini) to upper bound (Claude)"."""
    stated_ranges: tuple[tuple[str, int, int, str, Where], ...]
    """Every behavioural range printed for a system: (system, low, high, band printed, where)."""
    stated_gaps: tuple[tuple[Where, int, int, Points, Points, str], ...]
    """Every Frank-vs-Claude-Code gap range: (where, low, high, the two ranges, the words)."""
    h1_threshold_points: int
    """§1.3: H1 = "Frank's score will exceed the highest-scoring comparator by ≥25 points"."""
    stated_h1_floor: tuple[int, int, bool]
    """§15.12: H1 "holds at the architect-rater floor"."""
    h2_items: tuple[str, ...]
    """§1.3/§6.5/§9.1: the five pre-registered orchestration items of H2."""
    stated_h2_shares: tuple[tuple[Where, int, int, int, str], ...]
    """Every "x of y gap points (z%)" about H2: (where, x, y, z, the paper's words)."""
    human_rater_scores: dict[str, dict[str, Pair]]
    """§15.6 and §15.11 per-item tables, one per rater, on the §15.3 10-item subsample."""
    stated_human_rater_subtotals: dict[str, Points]
    """§15.6 and §15.11 "Subsample totals", out of 30."""
    stated_architect_vs_llm: dict[str, int]
    """ES.4/§15.7: the architect scored Frank lower / equal / higher than the LLM consensus."""
    minorch_stated_total: int
    """§17.5: MinOrch-1 pilot, "48 / 90"."""
    minorch_cluster_scores: dict[str, int]
    """§17.5: MinOrch-1's per-cluster breakdown."""
    minorch_stated_frank_clusters: dict[str, int]
    """§17.5: the breakdown's "vs. Frank" column."""
    minorch_stated_lift_over_claude_code: int
    """§17.5: "+13 over Claude Code's 35"."""
    minorch_stated_frank_lift: int
    """§17.5: "+14 over MinOrch-1's 48"."""
    minorch_predicted_range: Points
    """§17.4 / ES.7: the pre-registered MinOrch-1 prediction, "40–50 / 90"."""
    ablations: dict[str, Ablation]
    """§17.7-§17.11: the five ablation results tables."""
    stated_ablation_sum: int
    """ES.7/§17.12: "Sum of additive ablation drops: −34 points ... ~37 / 90"."""
    stated_all_ablated_score: int
    """ES.7/§17.12: the "~37 / 90" of the same sentence."""
    stated_percentages: tuple[tuple[str, str, Number, int, int], ...]
    """Every percentage printed with its n: (where, quantity, percent, decimals printed, n)."""
    hallucination_rate_percent: dict[str, float]
    """§16.5 hallucination rates."""
    retrieval_accuracy_percent: dict[str, float]
    """§16.3 retrieval accuracies."""
    stated_hallucination_gap_points: int
    """§16.7: "... yields a 24-point hallucination-rate gap vs. GPT-4o+memory"."""

    @model_validator(mode="after")
    def _ids_agree(self) -> OSMDDocument:
        """Every table names the rubric's items, clusters and reference systems."""
        clusters = [item_id.split("-")[0] for item_id in self.items]
        if sorted(set(clusters), key=clusters.index) != list(self.clusters):
            raise ValueError("the items must come cluster by cluster, in the clusters' order")
        if list(self.grid_6_1) != list(self.items):
            raise ValueError("the §6.1 grid must score every item, in order")
        if any(len(row) != len(self.reference_systems) for row in self.grid_6_1.values()):
            raise ValueError("each §6.1 grid row needs one pair per reference system")
        for name in ("stated_point_totals", "rater_totals_appendix_d"):
            if set(getattr(self, name)) != set(self.reference_systems):
                raise ValueError(f"{name} must have one entry per reference system")
        return self

    def grid(self, system_id: str) -> dict[str, tuple[int, int]]:
        """One reference system's column of the §6.1 grid: ``{item_id: (arch, behav)}``."""
        column = list(self.reference_systems).index(system_id)
        return {item_id: row[column] for item_id, row in self.grid_6_1.items()}

    def cluster_items(self, cluster_id: str) -> tuple[str, ...]:
        """The items of one cluster, in order."""
        return tuple(i for i in self.items if i.split("-")[0] == cluster_id)


class FCSDocument(_Document):
    """``data/fcs.json`` (each field names the page's heading). R is read as B vars × bits/var,
    the only reading under which FCS = R × P gives the FCS column."""

    formula_fcs: str
    formula_r: str
    formula_phi_fcs: str
    """FAQ "How does FC relate to IIT?"."""
    reference_table: tuple[FCSRow, ...]
    """"How conscious is your AI system?", table "Reasoning vs Capacity Diagram", all nine rows."""
    stated_ratios: tuple[tuple[str, Number, str, str, str], ...]
    """The call-outs under the table: (id, factor, the two rows compared, the sentence)."""
    domains: tuple[str, ...]
    """"Where does a system know itself?": the ten functional domains, in the page's order."""
    stated_self_model_count: int
    """Same section: "We identified 46 distinct self-models across ten functional domains"."""
    radar_cards: dict[str, tuple[Number, str]]
    """The radar cards repeat P and FCS for six systems ("Human" = the working-memory row)."""


M = TypeVar("M", bound=BaseModel)


def load(name: str, model: type[M], folder: Path = DATA) -> M:
    """Read one data file through its model; a broken file is one ContractError sentence."""
    try:
        return model.model_validate_json((folder / name).read_bytes())
    except ValidationError as exc:
        raise contract_error(exc, name) from None


OSMD = load("osmd_rubric.json", OSMDDocument)
FCS = load("fcs.json", FCSDocument)
ITEM_IDS: tuple[str, ...] = tuple(OSMD.items)


class Caveat(NamedTuple):
    """What an instrument is not, shown next to every number (``data/caveats.json``): a stable
    id, the instruments it applies to (``"lab"``: the lab's mapping), the text and its source."""

    caveat_id: str
    applies_to: tuple[Literal["OSMD", "FCS", "lab"], ...]
    text: str
    source: str


CAVEATS: tuple[Caveat, ...] = load("caveats.json", RootModel[tuple[Caveat, ...]]).root
