"""The lab's pre-registered mapping of its gridworld agents onto the OSMD rubric: the inputs.

What each agent kind has by construction (:data:`LAB_AGENT_ARCHITECTURES`), the thresholds
from measurements to clauses (:data:`PREREGISTERED_THRESHOLDS`), the evidence keys a caller
may supply (:data:`EVIDENCE_KEYS`) and their validation, the items a gridworld cannot host
(:data:`NOT_APPLICABLE_TO_GRIDWORLD`), the measured items and the notes every scorecard
carries. Fixed in advance for all agents (docs/scorecards.md, "Lab-agent mapping"); the
scoring that reads them is in :mod:`labcore.scorecards.lab_agents`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from labcore.checks import check_choice

LAB_AGENT_KINDS: tuple[str, ...] = ("A0", "A1", "B1", "B2")


@dataclass(frozen=True)
class LabAgentArchitecture:
    """What a lab agent kind has, by construction (Phua 2025, §3).

    Attributes
    ----------
    kind : str
        ``"A0"``, ``"A1"``, ``"B1"`` or ``"B2"``.
    description : str
        One line.
    has_recurrence : bool
        A GRU carrier state.
    has_workspace : bool
        A K-slot global-workspace bus.
    has_self_model : bool
        A Self-Model ``z_self`` with a confidence head reading it.
    """

    kind: str
    description: str
    has_recurrence: bool
    has_workspace: bool
    has_self_model: bool


LAB_AGENT_ARCHITECTURES = MappingProxyType(
    {
        "A0": LabAgentArchitecture(
            "A0", "feedforward (CNN encoder + MLP policy)", False, False, False
        ),
        "A1": LabAgentArchitecture("A1", "recurrent (CNN encoder + GRU)", True, False, False),
        "B1": LabAgentArchitecture("B1", "A1 + global-workspace bus of K slots", True, True, False),
        "B2": LabAgentArchitecture(
            "B2", "B1 + Self-Model z_self + confidence head", True, True, True
        ),
    }
)


@dataclass(frozen=True)
class LabMappingThresholds:
    """Pre-registered thresholds from measurements to rubric clauses (docs/scorecards.md).

    All measurements are seed-level means in [0, 1]. Set once for all agents; never tuned
    per agent.

    Attributes
    ----------
    type2_auroc_calibrated : float
        HOT-2: intact Type-2 AUROC at or above this counts as calibrated confidence.
        Chance is 0.5; Phua (2025) E1 reports 0.92 intact.
    type2_auroc_collapsed : float
        HOT-2: AUROC with ``z_self`` zeroed at or below this counts as collapsed to chance.
        Phua (2025) reports 0.50 (self-removed) and 0.492 ± 0.058 (bus-off control).
    gbi_broadcast : float
        GWT-2: global broadcast index at or above this counts as broadcast across slots.
        Phua (2025) E2: 0.66 at full capacity, 0.03 at half.
    conjunction_held : float
        GWT-3: conjunction accuracy at full capacity at or above this counts as cue content
        held to the report step (chance about (1/7)^2 = 0.02; Phua E2: 0.995 at K = 4).
    bus_lesion_drop : float
        GWT-3: full-capacity minus bus-off conjunction accuracy at or above this attributes
        the holding to the bus (Phua E2: 0.995 -> 0.0).
    margin : float
        A measurement closer than this to a threshold makes the item's confidence ±1.
    """

    type2_auroc_calibrated: float = 0.70
    type2_auroc_collapsed: float = 0.60
    gbi_broadcast: float = 0.30
    conjunction_held: float = 0.50
    bus_lesion_drop: float = 0.25
    margin: float = 0.05


PREREGISTERED_THRESHOLDS = LabMappingThresholds()


@dataclass(frozen=True)
class EvidenceKey:
    """One key ``score_lab_agent`` accepts in its ``evidence`` dict.

    Attributes
    ----------
    key : str
        The key.
    value_kind : str
        ``"flag"`` (bool, must match the kind's architecture), ``"fraction"`` (float in
        [0, 1] or nan), ``"nonnegative"`` (float >= 0 or nan) or ``"slots"`` (int >= 1).
    kinds : tuple of str
        Agent kinds that may supply it.
    required_for : tuple of str
        Agent kinds that must supply it.
    description : str
        What it is and how it is measured.
    """

    key: str
    value_kind: str
    kinds: tuple[str, ...]
    required_for: tuple[str, ...]
    description: str


EVIDENCE_KEYS: tuple[EvidenceKey, ...] = (
    EvidenceKey(
        "has_recurrence",
        "flag",
        LAB_AGENT_KINDS,
        (),
        "Agent has a GRU carrier state. Optional; must match the kind.",
    ),
    EvidenceKey(
        "has_workspace",
        "flag",
        LAB_AGENT_KINDS,
        (),
        "Agent has a workspace bus. Optional; must match the kind.",
    ),
    EvidenceKey(
        "has_self_model",
        "flag",
        LAB_AGENT_KINDS,
        (),
        "Agent has z_self and a confidence head. Optional; must match the kind.",
    ),
    EvidenceKey(
        "workspace_capacity",
        "slots",
        ("B1", "B2"),
        ("B1", "B2"),
        "Full (intact) bus capacity K, in slots, at which the *_k4 measurements and "
        "gbi were taken (lab default 4).",
    ),
    EvidenceKey(
        "gbi",
        "fraction",
        ("B1", "B2"),
        ("B1", "B2"),
        "Global broadcast index at full capacity, seed mean (markers.broadcast).",
    ),
    EvidenceKey(
        "ignition_sharpness",
        "nonnegative",
        ("B1", "B2"),
        (),
        "Ignition sharpness at full capacity, seed mean. Reported in the GWT-2 "
        "evidence text; no rubric clause refers to ignition, so it is not scored.",
    ),
    EvidenceKey(
        "conjunction_accuracy_k4",
        "fraction",
        ("B1", "B2"),
        ("B1", "B2"),
        "Conjunction accuracy (both reports correct) at full capacity, seed mean.",
    ),
    EvidenceKey(
        "conjunction_accuracy_k0",
        "fraction",
        ("B1", "B2"),
        (),
        "Conjunction accuracy at bus-off (K = 0), seed mean. Without it GWT-3 cannot "
        "reach clause 1.",
    ),
    EvidenceKey(
        "type2_auroc",
        "fraction",
        ("B2",),
        ("B2",),
        "Type-2 AUROC of the confidence head, Self-Model intact, seed mean "
        "(markers.metacognition).",
    ),
    EvidenceKey(
        "type2_auroc_lesioned",
        "fraction",
        ("B2",),
        (),
        "Type-2 AUROC with z_self zeroed (no-rewire lesion), seed mean. Without it "
        "HOT-2 cannot reach clause 2.",
    ),
)
EVIDENCE_KEY_BY_NAME = MappingProxyType({k.key: k for k in EVIDENCE_KEYS})

# Items whose construct a single-agent gridworld setting cannot host, with the reason shown.
NOT_APPLICABLE_TO_GRIDWORLD = MappingProxyType(
    {
        "PP-3": "The lab's tasks have no resource (energy, compute, tokens) for an agent to "
        "budget.",
        "AST-2": "Single-agent tasks: there is no other agent whose attention could be modelled.",
        "AE-2": "The clauses grade reach into real computer systems (APIs, files, mail, SSH); a "
        "gridworld agent acts only inside its simulator.",
        "AFFECT-1": "The tasks have no bodily or homeostatic variable to regulate.",
        "SELF-1": "The clauses grade identity toward users across sessions (relationship graph, "
        "commitments); gridworld tasks have no users or sessions.",
        "SELF-2": "Self-other distinction presupposes other agents; the lab's tasks are "
        "single-agent.",
    }
)

MEASURED_ITEMS: tuple[str, ...] = ("GWT-2", "GWT-3", "HOT-2")

LAB_MAPPING_NOTES: tuple[str, ...] = (
    "Lab reading of a rubric written for LLM-orchestrated agents: 'turn' = one environment "
    "step, 'session' = one episode; nothing persists across episodes.",
    "Behavioural scores come from measurements of behaviour (no verbal self-report exists); "
    "a measured number counts as operational content (OSMD §4.2), so the caps lift.",
    "Thresholds are pre-registered in docs/scorecards.md and identical for every agent.",
    "Not a consciousness measure; the lab's agents are reference implementations, not "
    "conscious systems.",
)


# ----------------------------------------------------------------------------------------
# Evidence validation
# ----------------------------------------------------------------------------------------


Evidence = dict[str, float | int | bool]


def _validate_evidence(kind: str, evidence: Mapping[str, object]) -> Evidence:
    check_choice(kind, "lab agent kind", LAB_AGENT_KINDS)
    if not isinstance(evidence, Mapping):
        raise ValueError(f"evidence must be a mapping, got {type(evidence).__name__}")
    architecture = LAB_AGENT_ARCHITECTURES[kind]
    unknown = sorted(str(k) for k in evidence if k not in EVIDENCE_KEY_BY_NAME)
    if unknown:
        raise ValueError(
            f"unknown evidence keys {unknown}; known keys: {[k.key for k in EVIDENCE_KEYS]}"
        )
    clean: Evidence = {}
    for name, value in evidence.items():
        spec = EVIDENCE_KEY_BY_NAME[name]
        if kind not in spec.kinds:
            raise ValueError(
                f"evidence key {name!r} does not apply to kind {kind} ({architecture.description})"
            )
        clean[name] = _validate_value(spec, value)
        if spec.value_kind == "flag" and clean[name] != getattr(architecture, name):
            raise ValueError(
                f"evidence {name}={value} contradicts kind {kind} ({architecture.description})"
            )
    missing = [k.key for k in EVIDENCE_KEYS if kind in k.required_for and k.key not in clean]
    if missing:
        raise ValueError(f"a {kind} agent needs evidence keys {missing}")
    return clean


def _validate_value(spec: EvidenceKey, value: object) -> float | int | bool:
    if spec.value_kind == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"{spec.key} must be True or False, got {value!r}")
        return value
    if spec.value_kind == "slots":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(
                f"{spec.key} must be an integer >= 1 (the intact capacity), got {value!r}"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{spec.key} must be a number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        return number
    if spec.value_kind == "fraction" and not 0.0 <= number <= 1.0:
        raise ValueError(f"{spec.key} must lie in [0, 1] (or be nan), got {number}")
    if spec.value_kind == "nonnegative" and not (number >= 0.0 and math.isfinite(number)):
        raise ValueError(f"{spec.key} must be finite and >= 0 (or nan), got {number}")
    return number
