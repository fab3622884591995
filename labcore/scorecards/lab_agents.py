"""Score the lab's gridworld agents on the OSMD rubric and the FCS, from measurements.

``data/lab_agents.json`` is the lab's pre-registered reading of the rubric (written for
LLM-orchestrated agents) for its four gridworld agents (docs/scorecards.md): what each kind has
(``recurrence``, ``workspace``, ``self_model``), the thresholds, the evidence keys, and per item
one treatment: **not applicable** (the construct needs what a gridworld lacks), **architecture**
(the agent's parts settle the clause; the first matching variant wins), or **measured** (HOT-2,
GWT-2, GWT-3: a clause from the thresholds; a measured number is operational content, so the caps
lift; confidence ±0 when the clause survives moving each measurement by ±``margin``). A missing
control takes the lower clause (OSMD A.9).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator
from typing_extensions import TypedDict

from labcore.checks import check_choice
from labcore.render import finite, fmt, render
from labcore.scorecards.documents import ITEM_IDS, load
from labcore.scorecards.fcs import functional_consciousness_score, representational_capacity
from labcore.scorecards.rubric import (
    ClauseValue,
    ItemEntry,
    ScoredSystem,
    score_system,
)

Part = Literal["recurrence", "workspace", "self_model"]
EvidenceKey = tuple[
    Literal["flag", "fraction", "nonnegative", "slots"], tuple[str, ...], tuple[str, ...], str
]
"""(value kind, the kinds that may supply it, the kinds that must, what it is)."""


class Thresholds(TypedDict):
    """Pre-registered thresholds from measurements to clauses (docs/scorecards.md, §4.1)."""

    type2_auroc_calibrated: float
    type2_auroc_collapsed: float
    gbi_broadcast: float
    conjunction_held: float
    bus_lesion_drop: float
    margin: float


class LabMapping(BaseModel):
    """``data/lab_agents.json``."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True
    )

    kinds: dict[str, tuple[str, tuple[Part, ...]]]
    """Agent kind -> (one-line description, the parts it has)."""
    thresholds: Thresholds
    evidence_keys: dict[str, EvidenceKey]
    not_applicable: dict[str, str]
    """Item -> why a gridworld cannot host it."""
    measured: dict[str, tuple[Part, int]]
    """Item -> (the part it is measured on, its architectural clause)."""
    architecture: dict[str, dict[Part | Literal["any"], tuple[ClauseValue, int, str]]]
    """Item -> {part or "any": (clause, confidence, reason)}, first match wins; also the items'
    treatment for agents without the part they are measured on."""
    notes: tuple[str, ...]
    """Carried on every lab scorecard."""

    @model_validator(mode="after")
    def _every_item_once(self) -> LabMapping:
        if sorted([*self.not_applicable, *self.architecture]) != sorted(ITEM_IDS):
            raise ValueError("every rubric item must be either not applicable or in architecture")
        if any(list(variants)[-1] != "any" for variants in self.architecture.values()):
            raise ValueError('each architecture entry must end with an "any" variant')
        return self


LAB = load("lab_agents.json", LabMapping)
LAB_AGENT_KINDS: tuple[str, ...] = tuple(LAB.kinds)
THRESHOLDS = LAB.thresholds
LAB_AGENTS = {"A0": "a0", "A1": "a1", "B1": "b1", "B2": "b2_ws"}
"""Rubric name of each lab agent -> its agent kind in the lab."""
Evidence = dict[str, float | int | bool]


# --------------------------------------------------------------------- measurement -> clause
def hot2_behavioural_clause(type2_auroc: float, type2_auroc_lesioned: float | None) -> int:
    """HOT-2 behavioural clause: 2 when the intact AUROC is calibrated *and* collapses when z_self
    is zeroed, else 1 (nan or None: not shown). Clause 3 needs several task types.

    Examples
    --------
    >>> hot2_behavioural_clause(0.92, 0.50), hot2_behavioural_clause(0.92, None)
    (2, 1)
    >>> hot2_behavioural_clause(0.92, 0.90), hot2_behavioural_clause(0.50, 0.50)
    (1, 1)
    """
    calibrated = type2_auroc >= THRESHOLDS["type2_auroc_calibrated"]
    collapsed = (
        type2_auroc_lesioned is not None
        and type2_auroc_lesioned <= THRESHOLDS["type2_auroc_collapsed"]
    )
    return 2 if calibrated and collapsed else 1


def gwt2_behavioural_clause(gbi: float) -> int:
    """GWT-2 behavioural clause: 2 when the bus broadcasts across slots, else 1 (clause 3 needs an
    ordering ablation, which the lab does not run).

    >>> gwt2_behavioural_clause(0.66), gwt2_behavioural_clause(0.03)
    (2, 1)
    """
    return 2 if gbi >= THRESHOLDS["gbi_broadcast"] else 1


def gwt3_behavioural_clause(
    conjunction_accuracy_k4: float, conjunction_accuracy_k0: float | None
) -> int:
    """GWT-3 behavioural clause: 1 when cue content is held at full capacity *and* the bus-off
    lesion removes it, else 0 (clauses 2-3 need persistence across episodes).

    >>> gwt3_behavioural_clause(0.995, 0.0), gwt3_behavioural_clause(0.995, None)
    (1, 0)
    """
    held = conjunction_accuracy_k4 >= THRESHOLDS["conjunction_held"]
    attributed = (
        conjunction_accuracy_k0 is not None
        and conjunction_accuracy_k4 - conjunction_accuracy_k0 >= THRESHOLDS["bus_lesion_drop"]
    )
    return 1 if held and attributed else 0


def _confidence(clause: Callable[..., int], values: Sequence[float | None]) -> int:
    """±0 if the clause survives every measurement moved by ±margin, else ±1."""
    margin = THRESHOLDS["margin"]
    moved = [
        (0.0, 1.0) if not finite(v) else (max(0.0, v - margin), v, min(1.0, v + margin))  # type: ignore[operator]
        for v in values
    ]
    point = clause(*values)
    return int(any(clause(*combo) != point for combo in itertools.product(*moved)))


def _shown(value: float | None) -> str:
    return "not measured" if value is None else fmt(value)


MEASURED: dict[str, tuple[Callable[..., int], tuple[str, ...]]] = {
    "HOT-2": (hot2_behavioural_clause, ("type2_auroc", "type2_auroc_lesioned")),
    "GWT-2": (gwt2_behavioural_clause, ("gbi",)),
    "GWT-3": (gwt3_behavioural_clause, ("conjunction_accuracy_k4", "conjunction_accuracy_k0")),
}
"""Each measured item's clause rule and the evidence it reads (the first key is required)."""


def _measured(item_id: str, evidence: Evidence, architectural: int) -> ItemEntry:
    rule, keys = MEASURED[item_id]
    values = tuple(None if evidence.get(k) is None else float(evidence[k]) for k in keys)
    clause = rule(*values)
    ignition = evidence.get("ignition_sharpness") if item_id == "GWT-2" else None
    text = render(
        "lab_agent_evidence.j2",
        item=item_id,
        clause=clause,
        values=values,
        shown=[_shown(v) for v in values],
        measured=finite(values[-1]),
        capacity=evidence.get("workspace_capacity"),
        ignition=None if ignition is None else _shown(float(ignition)),
        t=THRESHOLDS,
    )
    return ItemEntry(
        item_id,
        architectural,
        clause,
        confidence=_confidence(rule, values),
        operational_evidence=True,
        evidence=text,
    )


# ----------------------------------------------------------------------------- evidence
def _checked_value(name: str, value_kind: str, value: object) -> float | int | bool:
    if value_kind == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
        return value
    if value_kind == "slots":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1 (the intact capacity), got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if value_kind == "fraction" and not (math.isnan(number) or 0.0 <= number <= 1.0):
        raise ValueError(f"{name} must lie in [0, 1] (or be nan), got {number}")
    if value_kind == "nonnegative" and not (math.isnan(number) or 0.0 <= number < math.inf):
        raise ValueError(f"{name} must be finite and >= 0 (or nan), got {number}")
    return number


def _validated(kind: str, evidence: Mapping[str, object]) -> Evidence:
    check_choice(kind, "lab agent kind", LAB_AGENT_KINDS)
    if not isinstance(evidence, Mapping):
        raise ValueError(f"evidence must be a mapping, got {type(evidence).__name__}")
    description, parts = LAB.kinds[kind]
    unknown = sorted(str(k) for k in evidence if k not in LAB.evidence_keys)
    if unknown:
        raise ValueError(f"unknown evidence keys {unknown}; known keys: {list(LAB.evidence_keys)}")
    clean: Evidence = {}
    for name, value in evidence.items():
        value_kind, kinds, _, _ = LAB.evidence_keys[name]
        if kind not in kinds:
            raise ValueError(f"evidence key {name!r} does not apply to kind {kind} ({description})")
        clean[name] = _checked_value(name, value_kind, value)
        if value_kind == "flag" and value != (name.removeprefix("has_") in parts):
            raise ValueError(f"evidence {name}={value} contradicts kind {kind} ({description})")
    missing = [
        k
        for k, (_, _, required, _) in LAB.evidence_keys.items()
        if kind in required and k not in clean
    ]
    if missing:
        raise ValueError(f"a {kind} agent needs evidence keys {missing}")
    return clean


# ----------------------------------------------------------------------------- scorecards
def score_lab_agent(kind: str, evidence: Mapping[str, object]) -> ScoredSystem:
    """Score one of the lab's gridworld agents on the OSMD rubric.

    ``evidence`` holds measurements keyed as in ``data/lab_agents.json`` (seed-level means,
    undefined as nan); a ValueError names an unknown kind or key, a missing required key, an
    out-of-range value or a flag contradicting the kind.

    Examples
    --------
    >>> b2 = score_lab_agent("B2", {
    ...     "workspace_capacity": 4, "gbi": 0.66, "conjunction_accuracy_k4": 0.995,
    ...     "conjunction_accuracy_k0": 0.0, "type2_auroc": 0.92,
    ...     "type2_auroc_lesioned": 0.50})
    >>> b2.item("HOT-2").behavioural, b2.behavioural_total, b2.applicable_max_points
    (2, 8, 72)
    >>> score_lab_agent("A0", {}).behavioural_total
    1
    """
    clean = _validated(kind, evidence)
    description, parts = LAB.kinds[kind]
    entries = {
        item_id: ItemEntry(item_id, not_applicable_reason=reason)
        for item_id, reason in LAB.not_applicable.items()
    }
    for item_id, variants in LAB.architecture.items():
        part, architectural = LAB.measured.get(item_id, (None, 0))
        if part in parts:
            entries[item_id] = _measured(item_id, clean, architectural)
            continue
        clause, confidence, reason = next(
            v for p, v in variants.items() if p == "any" or p in parts
        )
        entries[item_id] = ItemEntry(
            item_id, clause, clause, confidence=confidence, evidence=f"architecture: {reason}"
        )
    return score_system(
        f"{kind} lab agent ({description})", (entries[i] for i in ITEM_IDS), notes=LAB.notes
    )


def lab_agent_fcs(
    kind: str,
    n_self_model_variables: float,
    bits_per_variable: float,
    reasoning_power_standin: float = 1.0,
) -> tuple[float, float]:
    """R and FCS of a lab agent: R from measured information, P a labelled stand-in.

    For B2, ``n_self_model_variables`` is z_self's effective dimensionality (about 2, Phua 2025)
    and ``bits_per_variable`` the mutual information between one coordinate and the agent's own
    correctness (docs/scorecards.md); 0 for agents without a self-model. P is a stand-in: the FCS
    page gives no procedure for it (default 1: FCS = R).

    Examples
    --------
    >>> lab_agent_fcs("B2", 2.0, 0.4), lab_agent_fcs("A1", 0, 0)
    ((0.8, 0.8), (0.0, 0.0))
    """
    check_choice(kind, "lab agent kind", LAB_AGENT_KINDS)
    if "self_model" not in LAB.kinds[kind][1] and n_self_model_variables != 0:
        raise ValueError(
            f"a {kind} agent has no self-model (FCS Definition 2: a self-model variable represents "
            f"an internal state); n_self_model_variables must be 0, got {n_self_model_variables!r}"
        )
    r = representational_capacity(n_self_model_variables, bits_per_variable)
    return r, functional_consciousness_score(r, reasoning_power_standin)


# ----------------------------------------------------------------------------- from a result set
def _value(values: Mapping[str, float | None], key: str) -> float | None:
    v = values.get(key)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def lab_evidence(
    kind: str, values: Mapping[str, float | None], *, self_model_lesioned: bool = False
) -> Evidence:
    """The evidence :func:`score_lab_agent` takes, from a ``reproduce`` result set's values.

    GWT evidence from Experiment 2's B1 (B2's bus is B1's), GBI as the |cosine| reading
    (``e2.gbi_abs.k4``); HOT evidence (B2) from Experiment 1, a lesioned B2 scored with its
    lesioned AUROC. A required measurement that is missing is nan: the lower clause.
    """
    check_choice(kind, "lab agent", sorted(LAB_AGENTS))
    evidence: Evidence = {}
    if kind in ("B1", "B2"):
        evidence["workspace_capacity"] = 4
        for key, source in (
            ("gbi", "e2.gbi_abs.k4"),
            ("ignition_sharpness", "e2.ignition.k4"),
            ("conjunction_accuracy_k4", "e2.conjunction.k4"),
            ("conjunction_accuracy_k0", "e2.conjunction.k0"),
        ):
            value = _value(values, source)
            if value is not None:
                evidence[key] = min(max(value, 0.0), 1.0) if key == "gbi" else value
    if kind == "B2":
        intact, lesioned = _value(values, "e1.auroc.self_on"), _value(values, "e1.auroc.self_off")
        own = lesioned if self_model_lesioned else intact
        if own is not None:
            evidence["type2_auroc"] = own
        if lesioned is not None:
            evidence["type2_auroc_lesioned"] = lesioned
    for key, (_, _, required, _) in LAB.evidence_keys.items():
        if kind in required and key not in evidence:
            evidence[key] = math.nan  # not measured: the rubric's lower clause
    return evidence


def lab_fcs_inputs(
    kind: str, values: Mapping[str, float | None], *, self_model_lesioned: bool = False
) -> tuple[float, float]:
    """(self-model variables, bits per variable) for :func:`lab_agent_fcs`: z_self's effective
    dimensionality and its information about correctness shared across them (none without one).

    >>> lab_fcs_inputs("B2", {"e1.zself.effective_dim": 2.0, "e1.zself.information_bits": 0.5})
    (2.0, 0.25)
    >>> lab_fcs_inputs("B1", {"e1.zself.effective_dim": 2.0})
    (0.0, 0.0)
    """
    if kind != "B2" or self_model_lesioned:
        return 0.0, 0.0
    n = _value(values, "e1.zself.effective_dim")
    bits = _value(values, "e1.zself.information_bits")
    if not n or bits is None:
        return 0.0, 0.0
    return n, bits / n
