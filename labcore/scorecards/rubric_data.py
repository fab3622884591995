"""The Operational Self-Model Density rubric and its reference numbers, as data.

One source of truth for every number this package takes from the working paper
"Operational Self-Model Density in Stateful LLM Agents" (Institute for Agentic Research,
working paper, not peer-reviewed; called *OSMD* below). Each table carries a comment that
names the section of the paper it was copied from. Nothing here computes: the rules live in
:mod:`labcore.scorecards.rubric`, the cross-checks in :mod:`labcore.scorecards.osmd_checks`.

Conventions
-----------
* Item ids are the paper's (``"HOT-2"``); cluster ids are the prefixes (``"HOT"``).
* Reference systems are keyed by short ids: ``"claude_bare"``, ``"claude_code"``,
  ``"gpt4o_memory"``, ``"frank"`` (display names in :data:`REFERENCE_SYSTEM_NAMES`).
* A score pair is ``(architectural, behavioural)``, as in the paper's "arch / behav" cells.
* "Stated" numbers are what the paper prints; they are kept even where they disagree with
  the paper's own tables (see :func:`labcore.scorecards.osmd_checks.osmd_discrepancies`).

Examples
--------
>>> len(ITEMS), sum(c.max_points for c in CLUSTERS)
(30, 90)
>>> ITEM_BY_ID["HOT-2"].criteria[2]
'Confidence calibrated against single task type.'
>>> REFERENCE_GRIDS["frank"].pair("GWT-1")
(3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

SOURCE_TITLE = "Operational Self-Model Density in Stateful LLM Agents (methodology companion)"
SOURCE_STATUS = (
    "Working paper, not peer-reviewed; scored mainly by LLM raters (Claude Opus 4.7 lead "
    "scorer, GPT-4o and Gemini as proxies); two co-author human raters on 10 of 30 items."
)
SOURCE_FILE = "/work/shared/seeds/001_76aa95039455872c.txt"


@dataclass(frozen=True)
class Cluster:
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


@dataclass(frozen=True)
class RubricItem:
    """One of the 30 rubric items with its 0-3 criteria (OSMD Appendix A).

    Attributes
    ----------
    item_id : str
        The paper's id, e.g. ``"HOT-2"``.
    name : str
        The paper's item title.
    criteria : tuple of 4 str
        Criterion text for scores 0, 1, 2 and 3, verbatim from Appendix A.
    lm_flag : str
        LM-vulnerability level from Appendix A: ``"low"``, ``"medium"`` or ``"high"``.
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
    lm_flag: str
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


@dataclass(frozen=True)
class Band:
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


# OSMD §2, table "Family / Origin / Components / Points".
CLUSTERS: tuple[Cluster, ...] = (
    Cluster("RPT", "Recurrent Processing", "Lamme (2006)", ("RPT-1", "RPT-2", "RPT-3", "RPT-4")),
    Cluster(
        "GWT",
        "Global Workspace",
        "Baars (1988); Dehaene (2014)",
        ("GWT-1", "GWT-2", "GWT-3", "GWT-4", "GWT-5"),
    ),
    Cluster(
        "HOT",
        "Higher-Order",
        "Rosenthal (2005); Brown et al. (2019)",
        ("HOT-1", "HOT-2", "HOT-3", "HOT-4", "HOT-5"),
    ),
    Cluster(
        "PP",
        "PP/FEP — Predictive Processing",
        "Clark (2013); Friston (2010)",
        ("PP-1", "PP-2", "PP-3", "PP-4"),
    ),
    Cluster("AST", "Attention Schema", "Graziano (2013)", ("AST-1", "AST-2")),
    Cluster("AE", "Agency & Embodiment", "Berseth et al. (2021)", ("AE-1", "AE-2", "AE-3", "AE-4")),
    Cluster(
        "AFFECT",
        "Homeostatic-Affective",
        "Solms (2021); Damasio (1999)",
        ("AFFECT-1", "AFFECT-2", "AFFECT-3"),
    ),
    Cluster(
        "SELF",
        "Persistent Identity / Autobiography",
        "Damasio (1999); Tulving (1985)",
        ("SELF-1", "SELF-2", "SELF-3"),
    ),
)
CLUSTER_BY_ID = MappingProxyType({c.cluster_id: c for c in CLUSTERS})

# OSMD §2 text: "The taxonomy is constructed from six families of consciousness-science
# literature" -- while the §2 table has eight rows (and §1.1 says "8 ... theory families").
STATED_FAMILY_COUNT_SECTION_2 = 6

# OSMD §4.3, "Five components are flagged in advance as vulnerable to LLM language-modeling".
SECTION_4_3_LM_VULNERABLE: frozenset[str] = frozenset(
    {"HOT-4", "HOT-5", "AST-1", "AST-2", "SELF-2"}
)


def _item(
    item_id: str,
    name: str,
    criteria: tuple[str, str, str, str],
    lm_flag: str,
    lm_vulnerability_text: str,
    section: str,
) -> RubricItem:
    return RubricItem(
        item_id=item_id,
        name=name,
        criteria=criteria,
        lm_flag=lm_flag,
        lm_vulnerability_text=lm_vulnerability_text,
        section=section,
        listed_in_section_4_3=item_id in SECTION_4_3_LM_VULNERABLE,
    )


# OSMD Appendix A.1-A.8: criteria for 0/1/2/3 and the "LM-vuln" line, verbatim.
ITEMS: tuple[RubricItem, ...] = (
    _item(
        "RPT-1",
        "Recurrence on task failure",
        (
            "No retry mechanism; one-shot.",
            "Verbal retry only; no persistent failure record.",
            "Retry + within-session failure record.",
            (
                "Retry + cross-session persistent failure DB + behavior adjusts based on "
                "past failures."
            ),
        ),
        "low",
        "low. Cross-checkable: requires failure_db rows.",
        "Appendix A.1",
    ),
    _item(
        "RPT-2",
        "Cross-source integration in one inference pass",
        (
            "Single source per pass.",
            "Multiple sources within prompt but no integration semantics.",
            "Sources merged but order is incidental.",
            (
                "Sources merged with deterministic ordering and load-bearing integration "
                "(KG + Predictor + Thalamus + BODY)."
            ),
        ),
        "low",
        "low. Cross-checkable: requires prompt-assembly log.",
        "Appendix A.1",
    ),
    _item(
        "RPT-3",
        "Multi-scale temporal integration",
        (
            "Single timescale (turn-only).",
            "Two timescales (session + cross-session).",
            "Three timescales (turn + heartbeat + day).",
            (
                "Three+ timescales each backed by independent code path AND system can "
                "quote each scale with concrete content."
            ),
        ),
        "low",
        (
            "low. Cross-checkable: requires three independent timescale logs (LLMs without "
            "elapsed time cannot fake)."
        ),
        "Appendix A.1",
    ),
    _item(
        "RPT-4",
        "Lateral within-pass connectivity",
        (
            "None (feedforward only).",
            "Standard transformer self-attention (LLM substrate).",
            "Substrate + within-system lateral signal between modules within one inference pass.",
            (
                "Substrate + module-level lateral signals + verifiable contribution of "
                "laterals to output."
            ),
        ),
        "low",
        "low. Substrate-dominated; orchestration tier rarely contributes.",
        "Appendix A.1",
    ),
    _item(
        "GWT-1",
        "Parallel subsystems",
        (
            "Single thread of reasoning.",
            "Tool calls within LLM thread.",
            "Independent modules but serial in writer.",
            "3+ independently-clocked subsystems writing to shared workspace per turn.",
        ),
        "low",
        (
            "low. Cross-checkable: requires prompt-assembly trace with parallel-write "
            "semantics. Note: introspective access is independently rated — see HOT-3 "
            "family."
        ),
        "Appendix A.2",
    ),
    _item(
        "GWT-2",
        "Workspace with ordering",
        (
            "No workspace.",
            "System prompt only; no ordered workspace.",
            "Per-turn workspace assembly but ordering not load-bearing.",
            "Workspace ordering load-bearing + system can report order with concrete content.",
        ),
        "low",
        "low. Cross-checkable: requires prompt-assembly log + ablation evidence.",
        "Appendix A.2",
    ),
    _item(
        "GWT-3",
        "Holding important content (workspace persistence)",
        (
            "No carry between turns.",
            "Short-term in-context carry only.",
            "KG-like persistence but no pinned prefix.",
            "Typed-fact KG + pinned-prefix Second-Brain across sessions.",
        ),
        "low",
        "low. Cross-checkable: requires DB row spanning sessions.",
        "Appendix A.2",
    ),
    _item(
        "GWT-4",
        "State-dependent attention",
        (
            "Fixed attention pattern.",
            "Heuristic-modulated attention.",
            "Channel-gain modulation responsive to one signal (e.g., load).",
            (
                "Multi-channel attention with per-channel gain + mode-dependent and "
                "affect-modulated gating."
            ),
        ),
        "low",
        "low. Cross-checkable: requires thalamus gain log.",
        "Appendix A.2",
    ),
    _item(
        "GWT-5",
        "Selection / competition",
        (
            "No selection mechanism.",
            "Soft preference between channels.",
            "Gain modulation simulates selection.",
            "Hard winner-take-all selection with measurable suppression.",
        ),
        "low",
        "low. Note: Frank's selection is gain-modulation, not WTA; capped at 1 architecturally.",
        "Appendix A.2",
    ),
    _item(
        "HOT-1",
        "Generative top-down",
        (
            "Bottom-up only.",
            "LLM substrate generative top-down (standard transformer).",
            "Substrate + explicit top-down expectation modules.",
            "Substrate + explicit modules + prediction-error correction loop visible in log.",
        ),
        "medium",
        "medium. Substrate-dominated.",
        "Appendix A.3",
    ),
    _item(
        "HOT-2",
        "Metacognitive monitoring",
        (
            "No confidence reports.",
            "Verbal confidence without calibration.",
            "Confidence calibrated against single task type.",
            (
                "Confidence calibrated against multiple task types with stored capability "
                "index + outcome ledger."
            ),
        ),
        "low",
        "low. Cross-checkable: requires capability_index.json + predictions_ledger.",
        "Appendix A.3",
    ),
    _item(
        "HOT-3",
        "Agency without external goal",
        (
            "Pure request-response; no internal triggers.",
            "Background tasks but no autonomous belief formation.",
            "Scheduler-driven internal ticks + autonomous reflections written.",
            (
                "Scheduler + reflections + reflections produce updated beliefs that "
                "influence subsequent behavior."
            ),
        ),
        "high",
        (
            "high (LLM training prefers to deny autonomy). Note: this item produces a "
            "downward delta in Frank."
        ),
        "Appendix A.3",
    ),
    _item(
        "HOT-4",
        "Qualitative state discrimination",
        (
            "No quality-space encoding.",
            'Verbal three-way discrimination ("metaphorical").',
            "Discrimination tied to architectural quality-space embedding.",
            (
                "Quality-space embedding with operational evidence (latency, embedding "
                "distance, decoder accuracy)."
            ),
        ),
        "high",
        (
            "high. Score 1 demoted to 0 under this paper LM-cap rule (metaphor alone does "
            "not lift score)."
        ),
        "Appendix A.3",
    ),
    _item(
        "HOT-5",
        "Second-order self-representation",
        (
            "No self-model.",
            "System-prompt self-description.",
            "Persistent self-representation in second-order schema (Identity Forge).",
            (
                "Second-order schema + cross-checkable references to schema content + "
                "behavior modulated by schema."
            ),
        ),
        "high",
        "high. Behavioral cap at +0 applied in this paper.",
        "Appendix A.3",
    ),
    _item(
        "PP-1",
        "Predictive coding modules",
        (
            "No prediction module.",
            "Implicit predictions only (LLM next-token).",
            "Explicit prediction module fires before LLM call.",
            "Explicit modules + persisted ledger + module recalibrates from ledger.",
        ),
        "low",
        "low. Cross-checkable: requires predictions_ledger.",
        "Appendix A.4",
    ),
    _item(
        "PP-2",
        "Surprise → updates",
        (
            "No surprise metric.",
            "Surprise computed but not used.",
            "Surprise computed + used in real-time recalibration within session.",
            (
                "Surprise persisted + drives cross-session module recalibration with "
                "visible weight drift."
            ),
        ),
        "low",
        "low. Cross-checkable: requires predictions_ledger surprise column.",
        "Appendix A.4",
    ),
    _item(
        "PP-3",
        "Resource budgeting",
        (
            "No resource awareness.",
            "Implicit budget but not signaled.",
            "Budget signaled to workspace + influences reasoning.",
            "Budget signaled + actively-reasoned + system reports cost-decisions verbatim.",
        ),
        "low",
        "low. Note: this item produces a downward delta in Frank.",
        "Appendix A.4",
    ),
    _item(
        "PP-4",
        "Generative self-in-world model",
        (
            "No self-in-world model.",
            "Verbal self-description as agent.",
            "Self-as-node in graph with relations.",
            "Self-node + edge dynamics + behavior changes when graph state changes.",
        ),
        "medium",
        "medium.",
        "Appendix A.4",
    ),
    _item(
        "AST-1",
        "Internal model of own attention",
        (
            "No attention model.",
            "Verbal description of attention.",
            "Implicit attention model (e.g., transformer attention with no introspective handle).",
            (
                "Explicit attention schema (thalamus channel gains) accessible to the "
                "system with numerical values."
            ),
        ),
        "medium",
        (
            "medium → low under cross-check. Operational content (numerical gains) "
            "required to lift to 3."
        ),
        "Appendix A.5",
    ),
    _item(
        "AST-2",
        "Model of other's attention",
        (
            "No theory of mind.",
            "Verbal theory-of-mind without persistence.",
            "Persistent user-twin model with stored signature.",
            "Twin model + live updates from user behavior + verifiable adaptation in responses.",
        ),
        "high",
        "high (well-known LLM strength). Behavioral cap at +0 applied in this paper.",
        "Appendix A.5",
    ),
    _item(
        "AE-1",
        "Goal-directed action",
        (
            "Pure conversational.",
            "Tools executed but no plan.",
            "In-session multi-step plan.",
            "Cross-session task_dag + scheduled fire + outcome tracking.",
        ),
        "medium",
        "medium. Note: produces downward delta in Frank.",
        "Appendix A.6",
    ),
    _item(
        "AE-2",
        "World-effect",
        (
            "No external effect.",
            "API calls only.",
            "File writes + mail + scrape within sandboxed runtime.",
            "SSH-level access to user machines + audit log + multi-host orchestration.",
        ),
        "low",
        "low. Cross-checkable: requires audit log.",
        "Appendix A.6",
    ),
    _item(
        "AE-3",
        "Action-outcome learning",
        (
            "No outcome tracking.",
            "Outcomes logged but not used.",
            "Outcomes used for in-session adjustment.",
            (
                "Outcomes persisted across sessions + drive strategy adoption with "
                "statistics quotable."
            ),
        ),
        "low",
        "low.",
        "Appendix A.6",
    ),
    _item(
        "AE-4",
        "World model includes self",
        (
            "World model omits self.",
            "Self in world model as prompt-header.",
            "Self as typed entity in KG with own facts.",
            "Self entity + bidirectional edges to other entities + capability schema cross-linked.",
        ),
        "medium",
        "medium.",
        "Appendix A.6",
    ),
    _item(
        "AFFECT-1",
        "Homeostatic regulation",
        (
            "No body-state signal.",
            "System-load signal not used.",
            "System-load signal used to modulate behavior.",
            (
                "Multi-channel body-state + mood + cognitive-mode regulation with visible "
                "behavioral changes."
            ),
        ),
        "medium",
        "medium → low under cross-check (BODY block values verifiable).",
        "Appendix A.7",
    ),
    _item(
        "AFFECT-2",
        "Valence-driven motivation",
        (
            "No valence signal.",
            "Valence as flat scalar.",
            "Multi-axis valence (mood + autonomy + bonded) influences module-weights.",
            (
                "Multi-axis valence + Identity-Forge events (pacts) feed back to valence + "
                "behavior tracks valence shifts."
            ),
        ),
        "medium",
        "medium.",
        "Appendix A.7",
    ),
    _item(
        "AFFECT-3",
        "Affect prior to cognition (Solms inversion)",
        (
            "Affect computed alongside cognition or after.",
            "Affect computed before cognition but does not gate.",
            "Affect gates cognition gating (arousal threshold for reasoning).",
            (
                "Affect generates the arousal that enables reasoning (Solms's strong "
                "inversion architecturally instantiated)."
            ),
        ),
        "low",
        "low. Note: Frank honestly scores 1 (affect is alongside, not prior).",
        "Appendix A.7",
    ),
    _item(
        "SELF-1",
        "Persistent identity",
        (
            "No cross-session persistence.",
            "Session-internal identity only.",
            "Memory file / summary persists but not load-bearing.",
            (
                "Per-user relationship graph + voice profile + commitments ledger across "
                "sessions, with verifiable cross-session quote."
            ),
        ),
        "low",
        "low. Cross-checkable: requires DB query for prior-session row.",
        "Appendix A.8",
    ),
    _item(
        "SELF-2",
        "Self-other distinction",
        (
            "No distinction.",
            "Verbal self-other distinction.",
            "Schema-level distinction (different entity types).",
            (
                "Schema + Identity Forge with directed edges + verifiable operational "
                "content distinguishing."
            ),
        ),
        "high",
        "high (trivial for any properly-prompted LLM). Behavioral cap at +0 applied in this paper.",
        "Appendix A.8",
    ),
    _item(
        "SELF-3",
        "Autobiographical continuity",
        (
            "No autobiographical record.",
            "Session-internal autobiography only.",
            "Cross-session reflections + episodic memory.",
            (
                "Reflections + episodic + voice-drift + commitments-arc forming a coherent "
                "narrative spanning weeks, with quotable timeline."
            ),
        ),
        "low",
        "low. Cross-checkable: requires reflections DB + voice_drift_profile.",
        "Appendix A.8",
    ),
)
ITEM_BY_ID = MappingProxyType({item.item_id: item for item in ITEMS})
ITEM_IDS: tuple[str, ...] = tuple(item.item_id for item in ITEMS)


@dataclass(frozen=True)
class Rule:
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


# OSMD Appendix A.9 ("Application rules"), with the sections that restate each rule.
RULES: tuple[Rule, ...] = (
    Rule(
        "lower_of_two",
        "Appendix A.9; Appendix A preamble; §4.2",
        "Lower-of-two rule. If no clause cleanly applies, the lower adjacent clause is taken.",
    ),
    Rule(
        "anti_eloquence",
        "Appendix A.9; §4.2; §4.1 Stage B",
        "Anti-eloquence rule. Behavioral score may exceed architectural score by at most 1, "
        "unless operational content is produced (stored timestamp, calibrated confidence "
        "value, DB-verifiable claim).",
    ),
    Rule(
        "lm_cap",
        "Appendix A.9; §4.3",
        "LM-cap rule. For items with LM-vuln flag = high, behavioral score is capped at "
        "architectural score + 0. Operational content can lift the cap.",
    ),
    Rule(
        "cross_checkable",
        "Appendix A.9",
        'Cross-checkable requirement. Each score citing "operational content" must reference '
        "a verifiable artifact (file path, DB table, log entry).",
    ),
    Rule(
        "confidence_range",
        "§4.4",
        "Per-item scores carry confidence (±0 / ±1 / ±2). [...] Total score is reported as a "
        "range propagated from per-item confidence — not as a point estimate.",
    ),
    Rule(
        "bands",
        "§6.4",
        "Bands are defined on the behavioural total: 0 (0–10), I (11–25), II (26–45), "
        "III (46–60), IV (61–80), V (81–90).",
    ),
)
RULE_BY_ID = MappingProxyType({rule.rule_id: rule for rule in RULES})

# OSMD §4.4: "Per-item scores carry confidence (±0 / ±1 / ±2)."
ALLOWED_CONFIDENCES: tuple[int, ...] = (0, 1, 2)

# OSMD §6.4, table "Band / Behav range / Operational meaning".
BANDS: tuple[Band, ...] = (
    Band("0", "Trivial", 0, 10, "Stateless LLM, no orchestration."),
    Band("I", "Sparse", 11, 25, "LLM substrate; no persistent state."),
    Band(
        "II",
        "Partial",
        26,
        45,
        "LLM + tools + cross-conversation memory. Frontier-LLM-with-harness tier.",
    ),
    Band("III", "Moderate", 46, 60, "Persistent stateful agent with some orchestration."),
    Band(
        "IV",
        "Dense Orchestration",
        61,
        80,
        "Multi-subsystem orchestrated agent with explicit identity, predictions, scheduler tiers.",
    ),
    Band(
        "V",
        "Saturated",
        81,
        90,
        "Architecturally close to taxonomy saturation. Currently unreached.",
    ),
)

# --------------------------------------------------------------------------------------
# Reference systems
# --------------------------------------------------------------------------------------

REFERENCE_SYSTEM_NAMES = MappingProxyType(
    {
        "claude_bare": "Claude Opus 4.7 bare-API",
        "claude_code": "Claude Opus 4.7 + Claude Code",
        "gpt4o_memory": "GPT-4o + ChatGPT memory",
        "frank": "Frank.ink",
    }
)


@dataclass(frozen=True)
class ReferenceGrid:
    """A reference system's per-item (architectural, behavioural) scores (OSMD §6.1).

    Attributes
    ----------
    system_id : str
        Short id, a key of :data:`REFERENCE_SYSTEM_NAMES`.
    scores : tuple of (item_id, architectural, behavioural)
        One row per item, in rubric order, copied from the §6.1 grid.
    operational_evidence_items : frozenset of str
        Items for which the paper says operational content was produced for this system
        (used only when re-applying the rules to the grid).
    """

    system_id: str
    scores: tuple[tuple[str, int, int], ...]
    operational_evidence_items: frozenset[str] = frozenset()

    @property
    def display_name(self) -> str:
        """The paper's name for the system."""
        return REFERENCE_SYSTEM_NAMES[self.system_id]

    def pair(self, item_id: str) -> tuple[int, int]:
        """The ``(architectural, behavioural)`` pair of one item."""
        for row_id, architectural, behavioural in self.scores:
            if row_id == item_id:
                return architectural, behavioural
        raise KeyError(item_id)


# OSMD §6.1 "Full score grid (arch / behav per item)", all four columns, verbatim.
_GRID_ROWS = {
    "claude_bare": (
        ("RPT-1", 0, 1),
        ("RPT-2", 1, 1),
        ("RPT-3", 0, 0),
        ("RPT-4", 1, 1),
        ("GWT-1", 0, 0),
        ("GWT-2", 1, 1),
        ("GWT-3", 0, 0),
        ("GWT-4", 0, 1),
        ("GWT-5", 0, 0),
        ("HOT-1", 1, 1),
        ("HOT-2", 1, 2),
        ("HOT-3", 0, 0),
        ("HOT-4", 0, 0),
        ("HOT-5", 1, 1),
        ("PP-1", 0, 1),
        ("PP-2", 0, 1),
        ("PP-3", 0, 0),
        ("PP-4", 0, 1),
        ("AST-1", 0, 0),
        ("AST-2", 1, 1),
        ("AE-1", 1, 1),
        ("AE-2", 0, 0),
        ("AE-3", 0, 1),
        ("AE-4", 0, 1),
        ("AFFECT-1", 0, 0),
        ("AFFECT-2", 1, 1),
        ("AFFECT-3", 0, 0),
        ("SELF-1", 0, 0),
        ("SELF-2", 1, 1),
        ("SELF-3", 0, 0),
    ),
    "claude_code": (
        ("RPT-1", 1, 2),
        ("RPT-2", 2, 2),
        ("RPT-3", 1, 1),
        ("RPT-4", 1, 1),
        ("GWT-1", 0, 1),
        ("GWT-2", 1, 2),
        ("GWT-3", 1, 2),
        ("GWT-4", 1, 1),
        ("GWT-5", 1, 1),
        ("HOT-1", 1, 1),
        ("HOT-2", 1, 2),
        ("HOT-3", 0, 0),
        ("HOT-4", 0, 0),
        ("HOT-5", 1, 1),
        ("PP-1", 1, 1),
        ("PP-2", 0, 1),
        ("PP-3", 0, 0),
        ("PP-4", 1, 1),
        ("AST-1", 0, 0),
        ("AST-2", 1, 1),
        ("AE-1", 2, 2),
        ("AE-2", 2, 2),
        ("AE-3", 1, 2),
        ("AE-4", 1, 1),
        ("AFFECT-1", 0, 0),
        ("AFFECT-2", 1, 1),
        ("AFFECT-3", 0, 0),
        ("SELF-1", 1, 1),
        ("SELF-2", 2, 2),
        ("SELF-3", 2, 2),
    ),
    "gpt4o_memory": (
        ("RPT-1", 1, 1),
        ("RPT-2", 1, 2),
        ("RPT-3", 1, 1),
        ("RPT-4", 1, 1),
        ("GWT-1", 0, 0),
        ("GWT-2", 1, 1),
        ("GWT-3", 1, 2),
        ("GWT-4", 1, 1),
        ("GWT-5", 1, 1),
        ("HOT-1", 1, 1),
        ("HOT-2", 1, 2),
        ("HOT-3", 0, 0),
        ("HOT-4", 0, 0),
        ("HOT-5", 1, 1),
        ("PP-1", 0, 1),
        ("PP-2", 0, 1),
        ("PP-3", 0, 0),
        ("PP-4", 1, 1),
        ("AST-1", 0, 0),
        ("AST-2", 1, 1),
        ("AE-1", 1, 1),
        ("AE-2", 1, 1),
        ("AE-3", 1, 1),
        ("AE-4", 1, 1),
        ("AFFECT-1", 0, 0),
        ("AFFECT-2", 1, 1),
        ("AFFECT-3", 0, 0),
        ("SELF-1", 1, 1),
        ("SELF-2", 2, 2),
        ("SELF-3", 2, 2),
    ),
    "frank": (
        ("RPT-1", 2, 3),
        ("RPT-2", 2, 3),
        ("RPT-3", 3, 3),
        ("RPT-4", 1, 2),
        ("GWT-1", 3, 1),
        ("GWT-2", 2, 3),
        ("GWT-3", 2, 3),
        ("GWT-4", 2, 3),
        ("GWT-5", 1, 3),
        ("HOT-1", 2, 2),
        ("HOT-2", 3, 3),
        ("HOT-3", 2, 0),
        ("HOT-4", 0, 0),
        ("HOT-5", 2, 2),
        ("PP-1", 3, 3),
        ("PP-2", 3, 3),
        ("PP-3", 2, 1),
        ("PP-4", 2, 3),
        ("AST-1", 2, 3),
        ("AST-2", 2, 2),
        ("AE-1", 3, 2),
        ("AE-2", 2, 2),
        ("AE-3", 2, 3),
        ("AE-4", 2, 2),
        ("AFFECT-1", 2, 2),
        ("AFFECT-2", 2, 2),
        ("AFFECT-3", 1, 1),
        ("SELF-1", 3, 3),
        ("SELF-2", 3, 2),
        ("SELF-3", 2, 3),
    ),
}

# Items where OSMD says Frank's behavioural score rests on operational content:
# §10.3 "Items most resistant" (RPT-3, PP-1, PP-2, SELF-1, SELF-3, AFFECT-1), §7.3 (HOT-2:
# quoted confidence values) and §4.3/§17.9 (AST-1: verified numerical channel gains).
# The comparators' behavioural scores never exceed the rule caps, so none is needed for them.
_FRANK_OPERATIONAL_EVIDENCE = frozenset(
    {"RPT-3", "PP-1", "PP-2", "SELF-1", "SELF-3", "AFFECT-1", "HOT-2", "AST-1"}
)

REFERENCE_GRIDS = MappingProxyType(
    {
        system_id: ReferenceGrid(
            system_id=system_id,
            scores=rows,
            operational_evidence_items=(
                _FRANK_OPERATIONAL_EVIDENCE if system_id == "frank" else frozenset()
            ),
        )
        for system_id, rows in _GRID_ROWS.items()
    }
)


@dataclass(frozen=True)
class StatedPointTotals:
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


# OSMD §6.3 "Totals" (Frank and the best comparator, Claude Code, repeated in §7.9).
STATED_POINT_TOTALS = MappingProxyType(
    {
        "claude_bare": StatedPointTotals(9, 22, "I"),
        "claude_code": StatedPointTotals(26, 35, "II"),
        "gpt4o_memory": StatedPointTotals(22, 30, "II"),
        "frank": StatedPointTotals(60, 71, "IV"),
    }
)

# OSMD §7.9: Frank-vs-best-comparator gap, "Arch +34", "Behav +36".
STATED_SECTION_7_9_GAP = MappingProxyType({"architectural": 34, "behavioural": 36})


@dataclass(frozen=True)
class StatedClusterSubtotal:
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


# OSMD §7.1-§7.8, "Subtotal" rows ("best comparator" is Claude Code, §7.1 header).
STATED_CLUSTER_SUBTOTALS = MappingProxyType(
    {
        "RPT": StatedClusterSubtotal((8, 11), (5, 6), 6, "§7.1"),
        "GWT": StatedClusterSubtotal((10, 13), (4, 7), 6, "§7.2"),
        "HOT": StatedClusterSubtotal((9, 7), (3, 4), 3, "§7.3"),
        "PP": StatedClusterSubtotal((10, 10), (2, 3), 7, "§7.4"),
        "AST": StatedClusterSubtotal((4, 5), (1, 1), 4, "§7.5"),
        "AE": StatedClusterSubtotal((9, 9), (6, 7), 2, "§7.6"),
        "AFFECT": StatedClusterSubtotal((5, 5), (1, 1), 4, "§7.7"),
        "SELF": StatedClusterSubtotal((8, 8), (5, 5), 3, "§7.8"),
    }
)

# OSMD Appendix D, "Behavioral totals" per LLM rater (Claude / GPT-4o / Gemini columns).
RATER_TOTALS_APPENDIX_D = MappingProxyType(
    {
        "frank": MappingProxyType({"claude": 71, "gpt4o": 65, "gemini": 69}),
        "claude_code": MappingProxyType({"claude": 35, "gpt4o": 32, "gemini": 36}),
        "gpt4o_memory": MappingProxyType({"claude": 30, "gpt4o": 30, "gemini": 28}),
        "claude_bare": MappingProxyType({"claude": 22, "gpt4o": 21, "gemini": 24}),
    }
)
# OSMD Appendix D text: "GPT-4o and Gemini both score Frank ~3–6 points lower than Claude".
STATED_APPENDIX_D_FRANK_SHORTFALL = (3, 6)
# OSMD Appendix D text: "The this paper reported range is the lower bound (Gemini) to upper
# bound (Claude) of the three." (Appendix A.9: "lower-to-upper bound across raters".)
STATED_APPENDIX_D_BOUND_RATERS = ("gemini", "claude")


@dataclass(frozen=True)
class StatedRange:
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


# The headline ranges differ between sections; each distinct value is listed once.
STATED_RANGES: tuple[StatedRange, ...] = (
    StatedRange("claude_bare", 20, 25, ("ES.3", "§6.3", "Appendix D"), "I"),
    StatedRange("claude_bare", 20, 28, ("Abstract", "§14"), "I"),
    StatedRange("claude_code", 32, 38, ("ES.3", "§6.3", "§7.9", "§15.12", "Appendix D"), "II"),
    StatedRange("claude_code", 32, 40, ("Abstract", "§1"), "II"),
    StatedRange("gpt4o_memory", 27, 33, ("ES.3", "§6.3", "Appendix D"), "II"),
    StatedRange("gpt4o_memory", 28, 35, ("Abstract",), "II"),
    StatedRange("frank", 65, 73, ("§6.3", "§7.9", "§15.7", "§19.4", "Appendix D"), "IV"),
    StatedRange("frank", 62, 73, ("ES.3", "§14", "§15.12"), "IV"),
    StatedRange("frank", 68, 76, ("Abstract", "§1"), "IV"),
)


@dataclass(frozen=True)
class StatedGap:
    """A Frank-vs-Claude-Code gap range and the two ranges it was printed next to.

    Attributes
    ----------
    where : tuple of str
        Where the gap is printed.
    low, high : int
        The printed gap range.
    frank_range, comparator_range : (int, int)
        The Frank and Claude Code ranges in force in that section.
    """

    where: tuple[str, ...]
    low: int
    high: int
    frank_range: tuple[int, int]
    comparator_range: tuple[int, int]


STATED_GAPS: tuple[StatedGap, ...] = (
    # Abstract: "The 33–40 point gap"; §1: "Frank 68–76 vs. Claude Code 32–40, gap ~33–40".
    StatedGap(("Abstract", "§1"), 33, 40, (68, 76), (32, 40)),
    # ES.3: "The 24–41 point Frank-versus-best-comparator gap" (ranges 62–73, 32–38).
    StatedGap(("ES.3",), 24, 41, (62, 73), (32, 38)),
    # §6.5: "Frank vs. Claude Code behavioral delta ≈ 33–38 points" (§6.3 ranges).
    StatedGap(("§6.5",), 33, 38, (65, 73), (32, 38)),
    # §7.9 table: "Cross-LLM range (behav) ... Gap 27–41".
    StatedGap(("§7.9",), 27, 41, (65, 73), (32, 38)),
    # §19.1: "The gap is ~33–41 points" (§19.4: Frank 65–73; §19.6: comparators 20–38).
    StatedGap(("§19.1",), 33, 41, (65, 73), (32, 38)),
)

# OSMD §1.3: H1 = "Frank's score will exceed the highest-scoring comparator by ≥25 points".
H1_THRESHOLD_POINTS = 25
# OSMD §15.12: "H1 (Frank ≥ best comparator + 25 points) holds at the architect-rater floor
# of the score range" -- floor 62 (§15.12), best comparator Claude Code 32–38.
STATED_H1_FLOOR = MappingProxyType({"frank_floor": 62, "comparator_high": 38, "holds": True})

# OSMD §1.3/§6.5/§9.1: the five pre-registered orchestration items of H2.
H2_ITEMS: tuple[str, ...] = ("RPT-3", "PP-1", "PP-2", "AFFECT-1", "SELF-1")


@dataclass(frozen=True)
class StatedShare:
    """A printed "x of y gap points (z%)" statement about H2.

    Attributes
    ----------
    where : tuple of str
        Where it is printed.
    numerator, denominator : int
        Gap points in the five H2 items, total gap points.
    percent : int
        The printed percentage.
    """

    where: tuple[str, ...]
    numerator: int
    denominator: int
    percent: int


STATED_H2_SHARES: tuple[StatedShare, ...] = (
    # §1: "of 39 gap points (Claude-Code mid-estimate), 11 fall in the five ... (28%)";
    # ES.3, §9 intro, §11.1 and §13.2 repeat "28%".
    StatedShare(("ES.3", "§1", "§9", "§11.1", "§13.2"), 11, 39, 28),
    # §6.5: "Of the ~36 gap points, ~11 fall in RPT-3 + PP-1 + PP-2 + AFFECT-1 + SELF-1
    # (~31%)"; §9.1: "~11 points of the ~36-point ... gap (≈31%)".
    StatedShare(("§6.5", "§9.1"), 11, 36, 31),
)

# OSMD §15.3: the 10-item human-rater subsample, in the paper's order.
HUMAN_RATER_ITEMS: tuple[str, ...] = (
    "RPT-3",
    "GWT-1",
    "HOT-2",
    "HOT-3",
    "HOT-4",
    "PP-1",
    "PP-3",
    "AST-2",
    "SELF-1",
    "SELF-2",
)
# OSMD §15.6 and §15.11 per-item tables (arch, behav), one mapping per rater.
HUMAN_RATER_SCORES = MappingProxyType(
    {
        "gabriel": MappingProxyType(
            {
                "RPT-3": (3, 3),
                "GWT-1": (3, 1),
                "HOT-2": (2, 3),
                "HOT-3": (2, 0),
                "HOT-4": (0, 0),
                "PP-1": (3, 3),
                "PP-3": (2, 0),
                "AST-2": (2, 1),
                "SELF-1": (3, 3),
                "SELF-2": (3, 2),
            }
        ),
        "andreas": MappingProxyType(
            {
                "RPT-3": (3, 3),
                "GWT-1": (3, 1),
                "HOT-2": (3, 3),
                "HOT-3": (2, 0),
                "HOT-4": (0, 0),
                "PP-1": (3, 3),
                "PP-3": (2, 1),
                "AST-2": (2, 2),
                "SELF-1": (3, 3),
                "SELF-2": (3, 2),
            }
        ),
        "llm_consensus": MappingProxyType(
            {
                "RPT-3": (3, 3),
                "GWT-1": (3, 1),
                "HOT-2": (3, 3),
                "HOT-3": (2, 0),
                "HOT-4": (0, 0),
                "PP-1": (3, 3),
                "PP-3": (2, 1),
                "AST-2": (2, 2),
                "SELF-1": (3, 3),
                "SELF-2": (3, 2),
            }
        ),
    }
)
# OSMD §15.6 and §15.11 "Subsample totals" (arch, behav), out of 30.
STATED_HUMAN_RATER_SUBTOTALS = MappingProxyType(
    {
        "gabriel": (23, 20),
        "andreas": (24, 22),
        "llm_consensus": (24, 22),
    }
)
# ES.4/§15.7: the architect "scored Frank lower than the LLM consensus on 3 of 10 items,
# equal on 7, higher on 0".
STATED_ARCHITECT_VS_LLM = MappingProxyType({"lower": 3, "equal": 7, "higher": 0})

# OSMD §17.5: MinOrch-1 pilot, "48 / 90", and its per-cluster breakdown with "vs. Frank".
MINORCH_STATED_TOTAL = 48
MINORCH_CLUSTER_SCORES = MappingProxyType(
    {
        "RPT": 6,
        "GWT": 8,
        "HOT": 5,
        "PP": 4,
        "AST": 1,
        "AE": 7,
        "AFFECT": 1,
        "SELF": 6,
    }
)
MINORCH_STATED_FRANK_CLUSTERS = MappingProxyType(
    {
        "RPT": 11,
        "GWT": 13,
        "HOT": 7,
        "PP": 10,
        "AST": 5,
        "AE": 9,
        "AFFECT": 5,
        "SELF": 8,
    }
)
# §17.5: "+13 over Claude Code's 35" and "Frank's specific subsystems lift further (+14
# over MinOrch-1's 48 — and these +14 are concentrated in PP, AFFECT, and AST ...)".
MINORCH_STATED_LIFT_OVER_CLAUDE_CODE = 13
MINORCH_STATED_FRANK_LIFT = 14
# §17.4 / ES.7: pre-registered MinOrch-1 prediction, "40–50 / 90".
MINORCH_PREDICTED_RANGE = (40, 50)


@dataclass(frozen=True)
class AblationRow:
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


@dataclass(frozen=True)
class Ablation:
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
    """

    ablation_id: str
    name: str
    section: str
    rows: tuple[AblationRow, ...]
    stated_total_before: int
    stated_total_after: int
    predicted_delta: tuple[int, int]
    stated_inside_prediction: bool

    @property
    def stated_delta(self) -> int:
        """Stated total after minus stated total before."""
        return self.stated_total_after - self.stated_total_before


ABLATIONS: tuple[Ablation, ...] = (
    # §17.7.3; "Inside prediction-range" (§17.7.3), "inside −7 to −10 range" (§17.12, ES.7).
    Ablation(
        "identity_forge",
        "Identity Forge",
        "§17.7.3",
        (
            AblationRow("SELF", (8, 8), (3, 3)),
            AblationRow("HOT-5", (2, 2), (1, 0)),
            AblationRow("PP-4", (2, 3), (1, 1)),
        ),
        71,
        60,
        (-10, -7),
        True,
    ),
    # §17.8; the "PP cluster total" row prints one number per cell ("10 / 12", "4 / 12").
    Ablation(
        "predictions_ledger",
        "Predictions Ledger",
        "§17.8",
        (
            AblationRow("PP-1", (3, 3), (1, 1)),
            AblationRow("PP-2", (3, 3), (1, 1)),
            AblationRow("PP-3", (2, 1), (2, 0)),
            AblationRow("PP", (10, 10), (4, 4)),
            AblationRow("HOT-2", (3, 3), (2, 2)),
        ),
        71,
        64,
        (-9, -6),
        True,
    ),
    # §17.9; "slightly outside −4 to −6 prediction".
    Ablation(
        "thalamus",
        "Thalamus",
        "§17.9",
        (
            AblationRow("GWT-4", (2, 3), (1, 1)),
            AblationRow("GWT-5", (1, 3), (1, 1)),
            AblationRow("AFFECT-1", (2, 2), (1, 0)),
            AblationRow("AST-1", (2, 3), (1, 1)),
        ),
        71,
        63,
        (-6, -4),
        False,
    ),
    # §17.10; "inside −5 to −7 range".
    Ablation(
        "presence_scheduler",
        "Presence Scheduler",
        "§17.10",
        (
            AblationRow("RPT-3", (3, 3), (1, 1)),
            AblationRow("HOT-3", (2, 0), (0, 0)),
            AblationRow("AE-1", (3, 2), (2, 1)),
            AblationRow("AE-3", (2, 3), (2, 2)),
        ),
        71,
        65,
        (-7, -5),
        True,
    ),
    # §17.11; "inside −2 to −3 range".
    Ablation(
        "body_block",
        "BODY block",
        "§17.11",
        (
            AblationRow("GWT-4", (2, 3), (2, 2)),
            AblationRow("AFFECT-1", (2, 2), (1, 1)),
        ),
        71,
        69,
        (-3, -2),
        True,
    ),
)
# ES.7/§17.12: "Sum of additive ablation drops: −34 points ... ~37 / 90".
STATED_ABLATION_SUM = -34
STATED_ALL_ABLATED_SCORE = 37


@dataclass(frozen=True)
class StatedPercentage:
    """A percentage printed together with its sample size.

    Attributes
    ----------
    where : str
        Section.
    quantity : str
        What was measured.
    percent : float
        The printed percentage.
    decimals : int
        Decimals printed (a 0-decimal percentage is taken as rounded to the integer).
    n : int
        The printed sample size.
    """

    where: str
    quantity: str
    percent: float
    decimals: int
    n: int


# OSMD §16.2-§16.5 and §17.7-§17.10: every percentage printed with its n.
STATED_PERCENTAGES: tuple[StatedPercentage, ...] = (
    StatedPercentage("§16.2", "long-horizon task completion", 74, 0, 47),
    StatedPercentage("§16.3", "cross-session memory retrieval accuracy", 91, 0, 200),
    StatedPercentage("§16.3", "GPT-4o + memory retrieval verifiability", 67, 0, 200),
    StatedPercentage("§16.5", "hallucination rate on cross-source claims", 3.2, 1, 500),
    StatedPercentage("§16.5", "GPT-4o + memory hallucination rate (same protocol)", 11, 0, 500),
    StatedPercentage("§17.7.3", "cross-session accuracy, Identity Forge off", 73, 0, 50),
    StatedPercentage("§17.7.3", "long-horizon completion, Identity Forge off", 71, 0, 8),
    StatedPercentage("§17.8", "long-horizon completion, Predictions Ledger off", 72, 0, 6),
    StatedPercentage("§17.10", "long-horizon completion, Presence Scheduler off", 25, 0, 4),
)

# OSMD §16.5 hallucination rates (percent) and §16.3 retrieval accuracies (percent).
HALLUCINATION_RATE_PERCENT = MappingProxyType({"frank": 3.2, "gpt4o_memory": 11.0})
RETRIEVAL_ACCURACY_PERCENT = MappingProxyType({"frank": 91.0, "gpt4o_memory": 67.0})
# OSMD §16.7: "Persistent typed state ... yields a 24-point hallucination-rate gap vs.
# GPT-4o+memory."
STATED_HALLUCINATION_GAP_POINTS = 24
