"""The records the two documents' tables are made of, and the contract of their data files.

Frozen pydantic models (``extra="forbid"``, strict types): :class:`OSMDTables` is the contract of
``data/osmd_rubric.json`` (the Operational Self-Model Density working paper), :class:`FCSTables`
that of ``data/fcs.json`` (the Functional Consciousness Score page). Each table's field says which
section of its document it was copied from. :mod:`labcore.scorecards.tables` reads the files
through these models; :func:`~labcore.scorecards.contract.contract_error` turns a validation
error into the one sentence that names the field.

Examples
--------
>>> Band(band_id="I", name="Sparse", low=11, high=25, meaning="").label
'I (Sparse)'

Types are strict: a number typed as text is refused, in one sentence naming the field.

>>> from pydantic import ValidationError
>>> from labcore.scorecards.contract import contract_error
>>> try:
...     Band(band_id="I", name="Sparse", low="11", high=25, meaning="")
... except ValidationError as exc:
...     print(contract_error(exc, "bands"))
bands: low: input should be a valid integer, got '11'
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError


def _number(value: object) -> int | float:
    """Take an int or a float as it is (no bool, no text): one error, ``number_type``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "Input should be a number")
    return value


Number = Annotated[int | float, PlainValidator(_number)]
"""A number as the document prints it: ``74`` stays an int, ``3.2`` a float."""
Score = Annotated[int, Field(ge=0, le=3)]
"""A clause of the rubric, 0-3."""
Pair = tuple[Score, Score]
"""``(architectural, behavioural)``, as in the paper's "arch / behav" cells."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


# ----------------------------------------------------------------------------- OSMD records
class Source(_Record):
    """Where a document's numbers come from.

    Attributes
    ----------
    title : str
        The document's title.
    status : str
        What kind of document it is (peer review, raters), where it matters.
    file : str
        The copy the transcription tests read (skipped when absent).
    """

    title: str
    status: str = ""
    file: str


class Cluster(_Record):
    """One of the eight theory-family clusters of the rubric (OSMD §2 table).

    Attributes
    ----------
    cluster_id : str
        Prefix of the cluster's item ids, e.g. ``"HOT"``.
    name : str
        The paper's family name.
    origin : str
        The literature the paper derives the cluster from.
    item_ids : tuple of str
        The cluster's items, in the paper's order.
    """

    cluster_id: str
    name: str
    origin: str
    item_ids: tuple[str, ...]

    @property
    def max_points(self) -> int:
        """Points available in the cluster: 3 per item (§2 "Points" column)."""
        return 3 * len(self.item_ids)


class RubricItem(_Record):
    """One of the 30 rubric items with its 0-3 criteria (OSMD Appendix A).

    Attributes
    ----------
    item_id : str
        The paper's id, e.g. ``"HOT-2"``.
    name : str
        The paper's item title.
    criteria : tuple of 4 str
        Criterion text for scores 0, 1, 2 and 3, verbatim from Appendix A.
    lm_flag : {"low", "medium", "high"}
        LM-vulnerability level from Appendix A.
    lm_vulnerability_text : str
        Appendix A's full "LM-vuln" line (flag plus cross-check note), verbatim.
    section : str
        Where the criteria were copied from.
    listed_in_section_4_3 : bool
        Whether §4.3 ("linguistic-plausibility cap") lists the item.
    """

    item_id: str
    name: str
    criteria: tuple[str, str, str, str]
    lm_flag: Literal["low", "medium", "high"]
    lm_vulnerability_text: str
    section: str
    listed_in_section_4_3: bool = False

    @property
    def cluster_id(self) -> str:
        """The item's cluster id (the part before the dash)."""
        return self.item_id.split("-")[0]

    @property
    def lm_capped(self) -> bool:
        """Whether the LM-cap rule (behavioural <= architectural + 0) applies.

        The paper names the capped items twice and the two lists differ: Appendix A.9
        caps items whose flag is ``"high"`` (HOT-3, HOT-4, HOT-5, AST-2, SELF-2) and §4.3
        lists HOT-4, HOT-5, AST-1 ("when not cross-checked"), AST-2 and SELF-2. We cap the
        union. For AST-1 this reproduces §4.3 exactly, because operational content (the
        cross-check) lifts the cap anyway.
        """
        return self.lm_flag == "high" or self.listed_in_section_4_3


class Rule(_Record):
    """One application rule, quoted from the paper.

    Attributes
    ----------
    rule_id : str
        Short name used in :class:`labcore.scorecards.rubric.ScoredItem.rules_applied`.
    sections : str
        Where the paper states it.
    text : str
        The paper's wording (Appendix A.9 where it exists).
    """

    rule_id: str
    sections: str
    text: str


class Band(_Record):
    """A band of the behavioural total (OSMD §6.4).

    Attributes
    ----------
    band_id : str
        ``"0"``, ``"I"``, ..., ``"V"``.
    name : str
        The band's label, e.g. ``"Sparse"``.
    low, high : int
        Inclusive edges of the band on the 0-90 scale.
    meaning : str
        The paper's "operational meaning" column.
    """

    band_id: str
    name: str
    low: int
    high: int
    meaning: str

    @property
    def label(self) -> str:
        """``"I (Sparse)"``-style label, as the paper prints it."""
        return f"{self.band_id} ({self.name})"


class ReferenceGrid(_Record):
    """A reference system's per-item (architectural, behavioural) scores (OSMD §6.1).

    Attributes
    ----------
    system_id : str
        Short id: ``"claude_bare"``, ``"claude_code"``, ``"gpt4o_memory"`` or ``"frank"``.
    display_name : str
        The paper's name for the system.
    scores : tuple of (item_id, architectural, behavioural)
        One row per item, in rubric order, copied from the §6.1 grid.
    operational_evidence_items : frozenset of str
        Items for which the paper says operational content was produced for this system
        (used only when re-applying the rules to the grid). For Frank: §10.3 "Items most
        resistant" (RPT-3, PP-1, PP-2, SELF-1, SELF-3, AFFECT-1), §7.3 (HOT-2: quoted confidence
        values) and §4.3/§17.9 (AST-1: verified numerical channel gains). The comparators'
        behavioural scores never exceed the rule caps, so none is needed for them.
    """

    system_id: str
    display_name: str
    scores: tuple[tuple[str, Score, Score], ...]
    operational_evidence_items: frozenset[str] = frozenset()

    def pair(self, item_id: str) -> tuple[int, int]:
        """The ``(architectural, behavioural)`` pair of one item."""
        for row_id, architectural, behavioural in self.scores:
            if row_id == item_id:
                return architectural, behavioural
        raise KeyError(item_id)


class StatedPointTotals(_Record):
    """A system's point totals and band as printed in OSMD §6.3 (repeated in §7.9).

    Attributes
    ----------
    architectural, behavioural : int
        "Arch (point)" and "Behav (point)" rows, out of 90.
    band_id : str
        "Band (behav)" row.
    """

    architectural: int
    behavioural: int
    band_id: str


class StatedClusterSubtotal(_Record):
    """One cluster-subtotal row of OSMD §7.1-§7.8.

    Attributes
    ----------
    frank, best_comparator : (architectural, behavioural)
        The "Subtotal" row's Frank and "Best comp." cells; §7 compares against Claude Code.
    behavioural_delta : int
        The row's "Δ (behav)" cell.
    section : str
        Which subsection.
    """

    frank: tuple[int, int]
    best_comparator: tuple[int, int]
    behavioural_delta: int
    section: str


class StatedRange(_Record):
    """A behavioural score range the paper prints for a system.

    Attributes
    ----------
    system_id : str
        Which reference system.
    low, high : int
        The printed range.
    where : tuple of str
        Every place the same range is printed.
    band_id : str or None
        The band printed next to it, if any.
    """

    system_id: str
    low: int
    high: int
    where: tuple[str, ...]
    band_id: str | None


class StatedGap(_Record):
    """A Frank-vs-Claude-Code gap range and the two ranges it was printed next to.

    Attributes
    ----------
    where : tuple of str
        Where the gap is printed.
    low, high : int
        The printed gap range.
    frank_range, comparator_range : (int, int)
        The Frank and Claude Code ranges in force in that section.
    quote : str
        The paper's words.
    """

    where: tuple[str, ...]
    low: int
    high: int
    frank_range: tuple[int, int]
    comparator_range: tuple[int, int]
    quote: str = ""


class H1Floor(_Record):
    """OSMD §15.12: "H1 (Frank ≥ best comparator + 25 points) holds at the architect-rater floor".

    Attributes
    ----------
    frank_floor : int
        The floor of Frank's range (§15.12).
    comparator_high : int
        The top of the best comparator's (Claude Code's) range.
    holds : bool
        What the paper says.
    """

    frank_floor: int
    comparator_high: int
    holds: bool


class StatedShare(_Record):
    """A printed "x of y gap points (z%)" statement about H2.

    Attributes
    ----------
    where : tuple of str
        Where it is printed.
    numerator, denominator : int
        Gap points in the five H2 items, total gap points.
    percent : int
        The printed percentage.
    quote : str
        The paper's words.
    """

    where: tuple[str, ...]
    numerator: int
    denominator: int
    percent: int
    quote: str = ""


class AblationRow(_Record):
    """One row of an ablation table: an item (or a cluster) before and after.

    Attributes
    ----------
    label : str
        Item id (``"HOT-5"``) or cluster id (``"SELF"``).
    before, after : (architectural, behavioural)
        The row's cells. Where the paper prints one number for a cluster, it is used for
        both entries.
    """

    label: str
    before: tuple[int, int]
    after: tuple[int, int]

    @property
    def is_cluster(self) -> bool:
        """Whether the row is a cluster subtotal rather than an item."""
        return "-" not in self.label

    @property
    def behavioural_delta(self) -> int:
        """After minus before, behavioural."""
        return self.after[1] - self.before[1]


class Ablation(_Record):
    """A subsystem ablation of Frank (OSMD §17.6-§17.12).

    Attributes
    ----------
    ablation_id : str
        Short id.
    name : str
        The disabled subsystem.
    section : str
        Results section.
    rows : tuple of AblationRow
        The item/cluster rows of the results table.
    stated_total_before, stated_total_after : int
        "Total 30-item score" row.
    predicted_delta : (int, int)
        §17.6 pre-registered score drop, as (most negative, least negative).
    stated_inside_prediction : bool
        Whether the paper says the observed drop is inside the prediction.
    quote : str
        Where and how the paper says so.
    """

    ablation_id: str
    name: str
    section: str
    rows: tuple[AblationRow, ...]
    stated_total_before: int
    stated_total_after: int
    predicted_delta: tuple[int, int]
    stated_inside_prediction: bool
    quote: str = ""

    @property
    def stated_delta(self) -> int:
        """Stated total after minus stated total before."""
        return self.stated_total_after - self.stated_total_before


class StatedPercentage(_Record):
    """A percentage printed together with its sample size.

    Attributes
    ----------
    where : str
        Section.
    quantity : str
        What was measured.
    percent : int or float
        The printed percentage.
    decimals : int
        Decimals printed (a 0-decimal percentage is taken as rounded to the integer).
    n : int
        The printed sample size.
    """

    where: str
    quantity: str
    percent: Number
    decimals: int
    n: int


class OSMDTables(_Record):
    """Everything ``data/osmd_rubric.json`` holds: the rubric and every number of the paper we
    check, one field per table (each documented with the section it was copied from).

    Conventions: item ids are the paper's (``"HOT-2"``), cluster ids their prefixes; reference
    systems are keyed by short ids (``"claude_bare"``, ``"claude_code"``, ``"gpt4o_memory"``,
    ``"frank"``); "stated" numbers are what the paper prints, kept even where they disagree with
    its own tables (see :func:`labcore.scorecards.osmd_checks.osmd_discrepancies`).
    """

    model_config = ConfigDict(use_attribute_docstrings=True)

    source: Source
    clusters: tuple[Cluster, ...]
    """§2, table "Family / Origin / Components / Points"."""
    stated_family_count_section_2: int
    """§2 text: "The taxonomy is constructed from six families of consciousness-science
    literature" -- while the §2 table has eight rows (and §1.1 says "8 ... theory families")."""
    items: tuple[RubricItem, ...]
    """Appendix A.1-A.8: criteria for 0/1/2/3 and the "LM-vuln" line, verbatim; the items §4.3
    lists ("Five components are flagged in advance as vulnerable to LLM language-modeling")."""
    rules: tuple[Rule, ...]
    """Appendix A.9 ("Application rules"), with the sections that restate each rule."""
    allowed_confidences: tuple[int, ...]
    """§4.4: "Per-item scores carry confidence (±0 / ±1 / ±2)"."""
    bands: tuple[Band, ...]
    """§6.4, table "Band / Behav range / Operational meaning"."""
    reference_systems: tuple[ReferenceGrid, ...]
    """§6.1 "Full score grid (arch / behav per item)", all four columns, verbatim."""
    stated_point_totals: dict[str, StatedPointTotals]
    """§6.3 "Totals" (Frank and the best comparator, Claude Code, repeated in §7.9)."""
    stated_section_7_9_gap: dict[str, int]
    """§7.9: Frank-vs-best-comparator gap, "Arch +34", "Behav +36"."""
    stated_cluster_subtotals: dict[str, StatedClusterSubtotal]
    """§7.1-§7.8, "Subtotal" rows ("best comparator" is Claude Code, §7.1 header)."""
    rater_totals_appendix_d: dict[str, dict[str, int]]
    """Appendix D, "Behavioral totals" per LLM rater (Claude / GPT-4o / Gemini columns)."""
    stated_appendix_d_frank_shortfall: tuple[int, int]
    """Appendix D text: "GPT-4o and Gemini both score Frank ~3–6 points lower than Claude"."""
    stated_appendix_d_bound_raters: tuple[str, str]
    """Appendix D text: "The this paper reported range is the lower bound (Gemini) to upper bound
    (Claude) of the three." (Appendix A.9: "lower-to-upper bound across raters".)"""
    stated_ranges: tuple[StatedRange, ...]
    """The headline ranges; they differ between sections, each distinct value is listed once."""
    stated_gaps: tuple[StatedGap, ...]
    """Every printed Frank-vs-Claude-Code gap range (Abstract, §1, ES.3, §6.5, §7.9, §19.1)."""
    h1_threshold_points: int
    """§1.3: H1 = "Frank's score will exceed the highest-scoring comparator by ≥25 points"."""
    stated_h1_floor: H1Floor
    """§15.12: H1 "holds at the architect-rater floor of the score range" -- floor 62 (§15.12),
    best comparator Claude Code 32–38."""
    h2_items: tuple[str, ...]
    """§1.3/§6.5/§9.1: the five pre-registered orchestration items of H2."""
    stated_h2_shares: tuple[StatedShare, ...]
    """Every printed share of the gap in the H2 items."""
    human_rater_items: tuple[str, ...]
    """§15.3: the 10-item human-rater subsample, in the paper's order."""
    human_rater_scores: dict[str, dict[str, Pair]]
    """§15.6 and §15.11 per-item tables (arch, behav), one mapping per rater."""
    stated_human_rater_subtotals: dict[str, tuple[int, int]]
    """§15.6 and §15.11 "Subsample totals" (arch, behav), out of 30."""
    stated_architect_vs_llm: dict[str, int]
    """ES.4/§15.7: the architect "scored Frank lower than the LLM consensus on 3 of 10 items,
    equal on 7, higher on 0"."""
    minorch_stated_total: int
    """§17.5: MinOrch-1 pilot, "48 / 90"."""
    minorch_cluster_scores: dict[str, int]
    """§17.5: MinOrch-1's per-cluster breakdown."""
    minorch_stated_frank_clusters: dict[str, int]
    """§17.5: the breakdown's "vs. Frank" column."""
    minorch_stated_lift_over_claude_code: int
    """§17.5: "+13 over Claude Code's 35"."""
    minorch_stated_frank_lift: int
    """§17.5: "Frank's specific subsystems lift further (+14 over MinOrch-1's 48 — and these +14
    are concentrated in PP, AFFECT, and AST ...)"."""
    minorch_predicted_range: tuple[int, int]
    """§17.4 / ES.7: pre-registered MinOrch-1 prediction, "40–50 / 90"."""
    ablations: tuple[Ablation, ...]
    """§17.7-§17.11: the five ablation results tables."""
    stated_ablation_sum: int
    """ES.7/§17.12: "Sum of additive ablation drops: −34 points ... ~37 / 90"."""
    stated_all_ablated_score: int
    """ES.7/§17.12: the "~37 / 90" of the same sentence."""
    stated_percentages: tuple[StatedPercentage, ...]
    """§16.2-§16.5 and §17.7-§17.10: every percentage printed with its n."""
    hallucination_rate_percent: dict[str, float]
    """§16.5 hallucination rates (percent)."""
    retrieval_accuracy_percent: dict[str, float]
    """§16.3 retrieval accuracies (percent)."""
    stated_hallucination_gap_points: int
    """§16.7: "Persistent typed state ... yields a 24-point hallucination-rate gap vs.
    GPT-4o+memory"."""

    @model_validator(mode="after")
    def _ids_agree(self) -> OSMDTables:
        """Every table names the rubric's items, clusters and reference systems."""
        item_ids = [item.item_id for item in self.items]
        if [i for c in self.clusters for i in c.item_ids] != item_ids:
            raise ValueError("the clusters' item_ids must list the items, in order")
        for grid in self.reference_systems:
            if [row[0] for row in grid.scores] != item_ids:
                raise ValueError(f"the {grid.system_id} grid must score every item, in order")
        systems = {grid.system_id for grid in self.reference_systems}
        for name in ("stated_point_totals", "rater_totals_appendix_d"):
            if set(getattr(self, name)) != systems:
                raise ValueError(f"{name} must have one entry per reference system")
        return self


# ----------------------------------------------------------------------------- FCS records
class FCSReferenceRow(_Record):
    """One row of the page's "Reasoning vs Capacity Diagram" table.

    Attributes
    ----------
    system : str
        Row name as printed.
    description : str
        The row's subtitle.
    n_self_model_variables : int or float
        "B vars" column (all approximate, printed with "~" except 0).
    bits_per_variable : int or float
        "bits/var" column.
    reasoning_power : int or float
        "P reasoning" column.
    stated_fcs : int or float
        "FCS score" column as a number.
    stated_fcs_text : str
        The FCS cell as printed.
    stated_significant_figures : int
        Significant figures of the printed FCS (the recomputed value is compared after
        rounding to this many figures; 0 means "printed exactly as 0").
    is_artificial_agent : bool
        Whether the row is an AI system (not the map, not a human), for the page's claim
        about "the most capable current AI agent".
    """

    system: str
    description: str
    n_self_model_variables: Number
    bits_per_variable: Number
    reasoning_power: Number
    stated_fcs: Number
    stated_fcs_text: str
    stated_significant_figures: int
    is_artificial_agent: bool


class StatedRatio(_Record):
    """A headline ratio the page prints, and which two rows it claims to compare.

    Attributes
    ----------
    ratio_id : str
        Short id.
    stated_ratio : int or float
        The printed factor.
    numerator_system, denominator_system : str
        The rows the page's sentence names (or implies).
    quote : str
        The page's sentence.
    """

    ratio_id: str
    stated_ratio: Number
    numerator_system: str
    denominator_system: str
    quote: str


class FCSTables(_Record):
    """Everything ``data/fcs.json`` holds. The page has no section numbers; each field names the
    page's own heading. We read R as B vars × bits/var, the only reading under which FCS = R × P
    reproduces the FCS column (see :func:`labcore.scorecards.fcs_checks.fcs_discrepancies`)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    source: Source
    formula_fcs: str
    """Page text: "FCS = R · P, where R (Representational Capacity) measures how richly a system
    models its own states, and P (Reasoning Power) measures how effectively it can reason over
    those models"."""
    formula_r: str
    """The table's columns "B vars", "bits/var": R = B vars × bits/var."""
    formula_phi_fcs: str
    """FAQ "How does FC relate to IIT?"."""
    reference_table: tuple[FCSReferenceRow, ...]
    """Section "How conscious is your AI system?", table "Reasoning vs Capacity Diagram"
    (columns: System, B vars, bits/var, P reasoning, FCS score), all nine rows."""
    stated_ratios: tuple[StatedRatio, ...]
    """The call-outs under the table ("0", "×87", "188×")."""
    domains: tuple[str, ...]
    """Section "Where does a system know itself?": the ten functional domains (radar axes), in
    the page's order."""
    stated_self_model_count: int
    """Same section: "We identified 46 distinct self-models across ten functional domains"."""
    radar_cards: dict[str, tuple[Number, str]]
    """The radar cards repeat P and FCS for six systems ("Human" card = the working-memory
    row)."""
