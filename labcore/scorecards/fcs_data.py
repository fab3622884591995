"""The Functional Consciousness Score page's numbers, as data.

One source of truth for what this package takes from the web page "Is AI conscious? Now
we can measure it." (AGI-26 research-paper page proposing the Functional Consciousness
Score, *FCS* below). The page has no section numbers; locations name the page's own
headings. Formulas live in :mod:`labcore.scorecards.fcs`, cross-checks in
:mod:`labcore.scorecards.fcs_checks`.

Examples
--------
>>> [row.system for row in FCS_REFERENCE_TABLE][:3]
['Map', 'Stateless LLM', 'LIDA']
>>> len(FCS_DOMAINS)
10
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

SOURCE_TITLE = "Is AI conscious? Now we can measure it. (Functional Consciousness Score page)"
SOURCE_FILE = "/work/shared/seeds/002_b72ed08953e39475.txt"

# Page text: "FCS = R · P, where R (Representational Capacity) measures how richly a system
# models its own states, and P (Reasoning Power) measures how effectively it can reason over
# those models."  The table's columns are "B vars", "bits/var", "P reasoning", "FCS score";
# R is read as B vars x bits/var (the only reading under which FCS = R x P reproduces the
# FCS column, see fcs_checks.fcs_discrepancies).
FORMULA_FCS = "FCS = R · P"
FORMULA_R = "R = (number of self-model variables) × (bits per variable)"
# Page FAQ "How does FC relate to IIT?": "Φ_FCS = P(S) − Σⱼ P(moduleⱼ)".
FORMULA_PHI_FCS = "Φ_FCS = P(S) − Σⱼ P(moduleⱼ)"


@dataclass(frozen=True)
class FCSReferenceRow:
    """One row of the page's "Reasoning vs Capacity Diagram" table.

    Attributes
    ----------
    system : str
        Row name as printed.
    description : str
        The row's subtitle.
    n_self_model_variables : float
        "B vars" column (all approximate, printed with "~" except 0).
    bits_per_variable : float
        "bits/var" column.
    reasoning_power : float
        "P reasoning" column.
    stated_fcs : float
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
    n_self_model_variables: float
    bits_per_variable: float
    reasoning_power: float
    stated_fcs: float
    stated_fcs_text: str
    stated_significant_figures: int
    is_artificial_agent: bool


# FCS page, section "How conscious is your AI system?", table "Reasoning vs Capacity
# Diagram" (columns: System, B vars, bits/var, P reasoning, FCS score), all nine rows.
FCS_REFERENCE_TABLE: tuple[FCSReferenceRow, ...] = (
    FCSReferenceRow("Map", "Static data · no reasoning", 1_000, 40, 0, 0, "0", 0, False),
    FCSReferenceRow(
        "Stateless LLM", "Transformer · no persistent state", 0, 0, 3_300, 0, "0", 0, True
    ),
    FCSReferenceRow(
        "LIDA", "Cognitive architecture · symbolic", 20, 4, 33, 2_600, "~2,600", 2, True
    ),
    FCSReferenceRow(
        "Roomba + SLAM",
        "Spatial self-model · limited reasoning",
        18,
        8,
        39,
        5_600,
        "~5,600",
        2,
        True,
    ),
    FCSReferenceRow(
        "ACT-R", "Production system · bottlenecked", 20, 8, 50, 8_000, "~8,000", 1, True
    ),
    FCSReferenceRow(
        "Waymo L4", "Autonomous vehicle · kinematic domain", 40, 14, 133, 74_500, "~74,500", 3, True
    ),
    FCSReferenceRow(
        "Generative Agents",
        "LLM + memory + reflection · episodic",
        130,
        100,
        497,
        6_500_000,
        "~6.5M",
        2,
        True,
    ),
    FCSReferenceRow(
        "Human (kinematic)",
        "Biological · cerebellar forward model",
        550,
        10,
        1_826,
        10_000_000,
        "~10M",
        2,
        False,
    ),
    FCSReferenceRow(
        "Human (working mem.)",
        "Biological · reflective reasoning",
        330,
        14,
        3_000,
        13_900_000,
        "~13.9M",
        3,
        False,
    ),
)
FCS_ROW_BY_SYSTEM = MappingProxyType({row.system: row for row in FCS_REFERENCE_TABLE})


@dataclass(frozen=True)
class StatedRatio:
    """A headline ratio the page prints, and which two rows it claims to compare.

    Attributes
    ----------
    ratio_id : str
        Short id.
    stated_ratio : float
        The printed factor.
    numerator_system, denominator_system : str
        The rows the page's sentence names (or implies).
    quote : str
        The page's sentence.
    """

    ratio_id: str
    stated_ratio: float
    numerator_system: str
    denominator_system: str
    quote: str


# FCS page, the three call-outs under the table ("0", "×87", "188×").
STATED_RATIOS: tuple[StatedRatio, ...] = (
    StatedRatio(
        "agentic_leap",
        87,
        "Generative Agents",
        "Stateless LLM",
        "×87 The agentic leap. Adding memory, reflection, and persistent state to a stateless "
        "LLM — as in Stanford's Generative Agents — multiplies the FCS by 87×.",
    ),
    StatedRatio(
        "human_gap",
        188,
        "Human (working mem.)",
        "most capable AI agent",
        "188× The human gap. The most capable current AI agent scores roughly 188 times "
        "lower than the human working memory baseline.",
    ),
)

# FCS page, section "Where does a system know itself?": the ten functional domains (radar
# axes), in the page's order, and "We identified 46 distinct self-models across ten
# functional domains".
FCS_DOMAINS: tuple[str, ...] = (
    "Body",
    "Spatial",
    "Action",
    "Goal",
    "Cognitive",
    "Information",
    "Emotional",
    "Social",
    "Meta",
    "Ethics",
)
STATED_SELF_MODEL_COUNT = 46

# The radar cards repeat P and FCS for six systems ("Human" card = the working-memory row).
RADAR_CARDS = MappingProxyType(
    {
        "Stateless LLM": (3_300, "0"),
        "Roomba + SLAM": (39, "~5,600"),
        "LIDA": (33, "~2,600"),
        "Waymo L4": (133, "74,500"),
        "Generative Agents": (497, "~6.5M"),
        "Human (working mem.)": (3_000, "~13.9M"),
    }
)
