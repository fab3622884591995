"""Score the lab's gridworld agents on the OSMD rubric and the FCS, from measurements.

The rubric was written for LLM-orchestrated agents; this module is the lab's pre-registered
reading of it for the four gridworld agents (Phua 2025, §3):

========  ==============================================================================
``A0``    feedforward: CNN encoder + MLP policy; no memory.
``A1``    recurrent: CNN encoder + GRU (64 units) + policy.
``B1``    A1 + a global-workspace bus of K slots (capacity lesionable, K = 0 is bus-off).
``B2``    B1 + a Self-Model ``z_self`` and a confidence head reading only ``z_self``.
========  ==============================================================================

Every rubric item gets one of three treatments, fixed in advance for all agents
(docs/scorecards.md, "Lab-agent mapping"):

* **not applicable** -- the construct presupposes something a single-agent gridworld
  setting lacks (other agents, users, real-world systems, a body, a resource budget);
  the item carries a one-line reason and is left out of the "over applicable" total.
* **architecture-forced** -- the agent's architecture settles the clause (mostly clause 0:
  the mechanism is absent); behavioural = architectural, confidence ±0 for a literal
  clause match and ±1 where the clause is read by analogy.
* **measured** -- HOT-2 (Type-2 AUROC and its collapse under the ``z_self`` lesion),
  GWT-2 (global broadcast index), GWT-3 (conjunction accuracy at full capacity and at
  bus-off). The behavioural clause follows from the thresholds in
  :data:`PREREGISTERED_THRESHOLDS`; a measured number is operational content (OSMD §4.2),
  so both caps lift; confidence is ±0 when the clause survives moving every measurement by
  ±``margin`` (and any value of an unsupplied control), else ±1.

The lower-of-two rule (OSMD A.9) is used where a mechanism sits between two clauses and
whenever a control measurement that a higher clause needs is missing or undefined.

The agent kinds, thresholds, evidence keys and N/A items are in
:mod:`labcore.scorecards.lab_agent_mapping`; this module turns evidence into a scorecard.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from labcore.checks import check_choice
from labcore.render import finite, fmt
from labcore.scorecards.fcs import FCSEstimate, estimate_fcs
from labcore.scorecards.lab_agent_mapping import (
    LAB_AGENT_ARCHITECTURES,
    LAB_AGENT_KINDS,
    LAB_MAPPING_NOTES,
    NOT_APPLICABLE_TO_GRIDWORLD,
    PREREGISTERED_THRESHOLDS,
    Evidence,
    LabAgentArchitecture,
    LabMappingThresholds,
    _validate_evidence,
)
from labcore.scorecards.rubric import ItemEntry, ScoredSystem, not_applicable, score_system
from labcore.scorecards.tables import ITEM_IDS

# ----------------------------------------------------------------------------------------
# Measurement -> clause
# ----------------------------------------------------------------------------------------


def _confidence(decide: Callable[..., int], values: Sequence[float | None], margin: float) -> int:
    """±0 if the clause survives every measurement moved by ±margin (and any value of an
    unmeasured one), else ±1."""
    candidates = []
    for value in values:
        if value is None or math.isnan(value):
            candidates.append((0.0, 1.0))
        else:
            candidates.append((max(0.0, value - margin), value, min(1.0, value + margin)))
    point = decide(*values)
    return int(any(decide(*combo) != point for combo in itertools.product(*candidates)))


def _fmt(value: float | None) -> str:
    """A measurement in a clause's reason: the lab's number formatter, or "not measured"."""
    return "not measured" if value is None else fmt(value)


def hot2_behavioural_clause(
    type2_auroc: float,
    type2_auroc_lesioned: float | None,
    thresholds: LabMappingThresholds = PREREGISTERED_THRESHOLDS,
) -> int:
    """HOT-2 behavioural clause of an agent with a confidence head.

    Parameters
    ----------
    type2_auroc : float
        Type-2 AUROC, Self-Model intact (nan if undefined).
    type2_auroc_lesioned : float or None
        Type-2 AUROC with ``z_self`` zeroed; None if not measured.
    thresholds : LabMappingThresholds
        The pre-registered thresholds (the default is the only value used by
        :func:`score_lab_agent`).

    Returns
    -------
    int
        2 ("confidence calibrated against single task type") when the intact AUROC is
        calibrated *and* collapses under the lesion; otherwise 1 ("confidence without
        calibration", or calibration not shown to come from the self-model -- lower of
        two). Clause 3 needs several task types, a capability index and an outcome ledger.

    Examples
    --------
    >>> hot2_behavioural_clause(0.92, 0.50), hot2_behavioural_clause(0.92, None)
    (2, 1)
    >>> hot2_behavioural_clause(0.92, 0.90), hot2_behavioural_clause(0.50, 0.50)
    (1, 1)
    """
    calibrated = type2_auroc >= thresholds.type2_auroc_calibrated
    collapsed = (
        type2_auroc_lesioned is not None
        and type2_auroc_lesioned <= thresholds.type2_auroc_collapsed
    )
    return 2 if calibrated and collapsed else 1


def gwt2_behavioural_clause(
    gbi: float, thresholds: LabMappingThresholds = PREREGISTERED_THRESHOLDS
) -> int:
    """GWT-2 behavioural clause of an agent with a workspace bus.

    Returns 2 ("per-turn workspace assembly but ordering not load-bearing") when the bus
    broadcasts across slots (GBI at or above threshold), else 1 (lower of two). Clause 3
    needs an ordering ablation, which the lab does not run.

    Examples
    --------
    >>> gwt2_behavioural_clause(0.66), gwt2_behavioural_clause(0.03)
    (2, 1)
    """
    return 2 if gbi >= thresholds.gbi_broadcast else 1


def gwt3_behavioural_clause(
    conjunction_accuracy_k4: float,
    conjunction_accuracy_k0: float | None,
    thresholds: LabMappingThresholds = PREREGISTERED_THRESHOLDS,
) -> int:
    """GWT-3 behavioural clause of an agent with a workspace bus.

    Returns 1 ("short-term in-context carry only") when cue content is held to the report
    step at full capacity *and* the bus-off lesion removes it; else 0. Clauses 2-3 need
    persistence across episodes, which no lab agent has.

    Examples
    --------
    >>> gwt3_behavioural_clause(0.995, 0.0), gwt3_behavioural_clause(0.995, None)
    (1, 0)
    >>> gwt3_behavioural_clause(0.28, 0.0)
    0
    """
    held = conjunction_accuracy_k4 >= thresholds.conjunction_held
    attributed = (
        conjunction_accuracy_k0 is not None
        and conjunction_accuracy_k4 - conjunction_accuracy_k0 >= thresholds.bus_lesion_drop
    )
    return 1 if held and attributed else 0


def _nan_to_none(value: object) -> float | None:
    return float(value) if finite(value) else None


def _hot2_entry(evidence: Evidence, t: LabMappingThresholds) -> ItemEntry:
    auroc = float(evidence["type2_auroc"])
    lesioned_raw = evidence.get("type2_auroc_lesioned")
    lesioned = None if lesioned_raw is None else float(lesioned_raw)

    def decide(a: float | None, les: float | None) -> int:
        if a is None or math.isnan(a):
            return 1
        return hot2_behavioural_clause(a, _nan_to_none(les), t)

    clause = decide(auroc, lesioned)
    confidence = _confidence(decide, (auroc, lesioned), t.margin)
    if clause == 2:
        verdict = (
            "calibrated and collapses when z_self is zeroed -> clause 2 (calibrated on "
            "one task type; clause 3 needs several plus a capability index and ledger)"
        )
    elif not finite(auroc) or auroc < t.type2_auroc_calibrated:
        verdict = f"not calibrated (< {t.type2_auroc_calibrated:.2f}) -> clause 1"
    elif not finite(lesioned):
        verdict = "calibrated, but the z_self lesion was not measured -> lower clause 1 (A.9)"
    else:
        verdict = (
            f"calibrated, but does not collapse (> {t.type2_auroc_collapsed:.2f}) when "
            "z_self is zeroed -> clause 1"
        )
    text = f"Type-2 AUROC {_fmt(auroc)} intact, {_fmt(lesioned)} with z_self zeroed: {verdict}."
    return ItemEntry(
        "HOT-2", 2, clause, confidence=confidence, operational_evidence=True, evidence=text
    )


def _gwt2_entry(evidence: Evidence, t: LabMappingThresholds) -> ItemEntry:
    gbi = float(evidence["gbi"])
    capacity = evidence["workspace_capacity"]

    def decide(g: float | None) -> int:
        return 1 if g is None or math.isnan(g) else gwt2_behavioural_clause(g, t)

    clause = decide(gbi)
    confidence = _confidence(decide, (gbi,), t.margin)
    verdict = (
        f"broadcast across slots (≥ {t.gbi_broadcast:.2f}) -> clause 2 (per-step "
        "assembly; slot ordering never ablated, so not clause 3)"
        if clause == 2
        else f"broadcast not shown (< {t.gbi_broadcast:.2f} or undefined) -> lower clause 1"
    )
    text = f"GBI {_fmt(gbi)} at K={capacity}: {verdict}."
    if "ignition_sharpness" in evidence:
        text += (
            f" Ignition sharpness {_fmt(float(evidence['ignition_sharpness']))}"
            " (reported, not scored)."
        )
    return ItemEntry(
        "GWT-2", 2, clause, confidence=confidence, operational_evidence=True, evidence=text
    )


def _gwt3_entry(evidence: Evidence, t: LabMappingThresholds) -> ItemEntry:
    k4 = float(evidence["conjunction_accuracy_k4"])
    k0_raw = evidence.get("conjunction_accuracy_k0")
    k0 = None if k0_raw is None else float(k0_raw)
    capacity = evidence["workspace_capacity"]

    def decide(a: float | None, b: float | None) -> int:
        if a is None or math.isnan(a):
            return 0
        return gwt3_behavioural_clause(a, _nan_to_none(b), t)

    clause = decide(k4, k0)
    confidence = _confidence(decide, (k4, k0), t.margin)
    if clause == 1:
        verdict = (
            "cue content held to the report step and lost at bus-off -> clause 1 "
            "(within-episode carry; nothing survives the episode, clauses 2-3)"
        )
    elif not finite(k4) or k4 < t.conjunction_held:
        verdict = f"cue content not held (< {t.conjunction_held:.2f}) -> clause 0"
    elif not finite(k0):
        verdict = "bus-off lesion not measured, holding not attributed to the bus -> lower clause 0"
    else:
        verdict = (
            f"bus-off lesion drops accuracy by less than {t.bus_lesion_drop:.2f}, "
            "holding not attributed to the bus -> clause 0"
        )
    text = f"conjunction accuracy {_fmt(k4)} at K={capacity}, {_fmt(k0)} at K=0: {verdict}."
    return ItemEntry(
        "GWT-3", 1, clause, confidence=confidence, operational_evidence=True, evidence=text
    )


def _forced(item_id: str, clause: int | tuple[int, int], confidence: int, text: str) -> ItemEntry:
    return ItemEntry(
        item_id, clause, clause, confidence=confidence, evidence=f"architecture: {text}"
    )


def _architecture_entries(arch: LabAgentArchitecture) -> dict[str, ItemEntry]:
    bus = arch.has_workspace
    entries = {
        "RPT-1": _forced(
            "RPT-1",
            0,
            0,
            "no retry mechanism or failure record; weights frozen "
            "at evaluation, one attempt per episode (clause 0).",
        ),
        "RPT-2": _forced(
            "RPT-2", 0, 0, "one sensory source per step, the egocentric 7×7×3 grid view (clause 0)."
        ),
        "RPT-3": (
            _forced(
                "RPT-3",
                (0, 1),
                0,
                "state resets every episode: within-episode "
                "memory but no cross-episode timescale, between clauses 0 and 1 -> "
                "lower clause 0 (A.9).",
            )
            if arch.has_recurrence
            else _forced("RPT-3", 0, 0, "acts on the current frame only (clause 0).")
        ),
        "RPT-4": (
            _forced(
                "RPT-4",
                1,
                1,
                "GRU recurrence is generic substrate-level state "
                "mixing, read as the analogue of clause 1; no module-level lateral "
                "signal within a step (clause 2).",
            )
            if arch.has_recurrence
            else _forced("RPT-4", 0, 0, "feedforward only (clause 0).")
        ),
        "GWT-1": _forced(
            "GWT-1",
            0,
            0,
            "a single pipeline (encoder -> GRU -> write head) "
            "writes the bus; no independently clocked writers (clause 0)."
            if bus
            else "a single processing stream (clause 0).",
        ),
        "GWT-4": _forced(
            "GWT-4",
            0,
            0,
            "fixed write rule (first empty slot, else slot 0); no "
            "attention gain to modulate (clause 0)."
            if bus
            else "no attention mechanism (clause 0).",
        ),
        "GWT-5": _forced(
            "GWT-5",
            0,
            0,
            "deterministic slot allocation, no competition for access (clause 0)."
            if bus
            else "no selection mechanism (clause 0).",
        ),
        "HOT-1": _forced(
            "HOT-1",
            0,
            0,
            "bottom-up policy; no top-down expectation or generative module (clause 0).",
        ),
        "HOT-3": _forced(
            "HOT-3",
            0,
            0,
            "acts only when the environment steps it; no internal triggers (clause 0).",
        ),
        "HOT-4": (
            _forced(
                "HOT-4",
                0,
                1,
                "z_self is trained only to predict the agent's own "
                "correctness; no quality-space encoding or probe (clause 0).",
            )
            if arch.has_self_model
            else _forced("HOT-4", 0, 0, "no representation of its own states (clause 0).")
        ),
        "HOT-5": (
            _forced(
                "HOT-5",
                (1, 2),
                1,
                "z_self represents the agent's own workspace, "
                "recurrent state and action logits (second-order) but is recomputed "
                "each step, not persistent: between clauses 1 and 2 -> lower "
                "clause 1 (A.9).",
            )
            if arch.has_self_model
            else _forced("HOT-5", 0, 0, "no self-model (clause 0).")
        ),
        "PP-1": _forced(
            "PP-1",
            0,
            0,
            "no module predicts upcoming observations (clause 0)"
            + (
                "; the confidence head predicts own correctness and is scored under HOT-2 only."
                if arch.has_self_model
                else "."
            ),
        ),
        "PP-2": _forced(
            "PP-2", 0, 0, "no surprise signal; weights frozen at evaluation (clause 0)."
        ),
        "PP-4": _forced("PP-4", 0, 0, "no world model, so no self-in-world model (clause 0)."),
        "AST-1": _forced(
            "AST-1", 0, 0, "no attention mechanism whose state could be modelled (clause 0)."
        ),
        "AE-1": _forced(
            "AE-1",
            1,
            1,
            "acts in the environment every step toward the task "
            "goal with no explicit plan: analogue of clause 1 ('tools executed but "
            "no plan').",
        ),
        "AE-3": _forced(
            "AE-3", 0, 0, "no outcome tracking at evaluation; weights frozen (clause 0)."
        ),
        "AE-4": _forced("AE-4", 0, 0, "no world model (clause 0)."),
        "AFFECT-2": _forced(
            "AFFECT-2", 0, 0, "no valence signal; behaviour cloning uses no reward (clause 0)."
        ),
        "AFFECT-3": _forced(
            "AFFECT-3", 0, 0, "no affect signal at all; clause 0 is the lowest clause."
        ),
        "SELF-3": _forced("SELF-3", 0, 0, "nothing is recorded across episodes (clause 0)."),
    }
    if not bus:
        entries["GWT-2"] = _forced("GWT-2", 0, 0, "no workspace (clause 0).")
        entries["GWT-3"] = _forced(
            "GWT-3",
            0,
            0,
            "no workspace (clause 0); recurrent carry is credited under RPT-4, not here.",
        )
    if not arch.has_self_model:
        entries["HOT-2"] = _forced("HOT-2", 0, 0, "no confidence head (clause 0).")
    return entries


def score_lab_agent(kind: str, evidence: dict) -> ScoredSystem:
    """Score one of the lab's gridworld agents on the OSMD rubric.

    Parameters
    ----------
    kind : {"A0", "A1", "B1", "B2"}
        Agent kind.
    evidence : dict
        Measurements, keyed as in :data:`EVIDENCE_KEYS` (seed-level means). Required:
        B1 -- ``workspace_capacity``, ``gbi``, ``conjunction_accuracy_k4``;
        B2 -- those plus ``type2_auroc``. Optional controls: ``conjunction_accuracy_k0``,
        ``type2_auroc_lesioned`` (without them the higher clause is not reached),
        ``ignition_sharpness`` (reported only). Architecture flags may be passed and must
        match ``kind``. Undefined markers may be passed as ``nan``.

    Returns
    -------
    ScoredSystem
        All 30 items; 6 are N/A (see :data:`NOT_APPLICABLE_TO_GRIDWORLD`); the totals are
        available out of 90 and over the applicable items.

    Raises
    ------
    ValueError
        Unknown kind or evidence key, a key that does not apply to the kind, a missing
        required key, an out-of-range value, or a flag contradicting the kind.

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
    clean = _validate_evidence(kind, evidence)
    architecture = LAB_AGENT_ARCHITECTURES[kind]
    t = PREREGISTERED_THRESHOLDS
    entries = _architecture_entries(architecture)
    if architecture.has_workspace:
        entries["GWT-2"] = _gwt2_entry(clean, t)
        entries["GWT-3"] = _gwt3_entry(clean, t)
    if architecture.has_self_model:
        entries["HOT-2"] = _hot2_entry(clean, t)
    for item_id, reason in NOT_APPLICABLE_TO_GRIDWORLD.items():
        entries[item_id] = not_applicable(item_id, reason)
    assert set(entries) == set(ITEM_IDS)  # every item has exactly one treatment
    return score_system(
        f"{kind} lab agent ({architecture.description})",
        (entries[item_id] for item_id in ITEM_IDS),
        notes=LAB_MAPPING_NOTES,
    )


# ----------------------------------------------------------------------------------------
# FCS for lab agents
# ----------------------------------------------------------------------------------------

UNIT_REASONING_POWER_STANDIN = 1.0
"""Stand-in P = 1, under which the FCS equals R in bits. The FCS page gives no procedure
for P; any other value is equally arbitrary."""


def lab_agent_fcs(
    kind: str,
    n_self_model_variables: float,
    bits_per_variable: float,
    reasoning_power_standin: float = UNIT_REASONING_POWER_STANDIN,
) -> FCSEstimate:
    """FCS of a lab agent: R from measured mutual information, P a labelled stand-in.

    Parameters
    ----------
    kind : {"A0", "A1", "B1", "B2"}
        Agent kind.
    n_self_model_variables : float
        Effective number of self-model variables: for B2, the effective dimensionality of
        ``z_self`` (participation ratio of its covariance on held-out trials; Phua 2025
        reports about 2). Must be 0 for A0, A1 and B1, which have no self-model.
    bits_per_variable : float
        Mean mutual information, in bits, between one ``z_self`` coordinate (after
        whitening to the effective dimensions) and the internal state it models -- the
        agent's own first-order correctness. Lab estimate: held-out probe lower bound
        ``H(correct) - CE(probe)`` in bits, seed median (docs/scorecards.md).
    reasoning_power_standin : float
        P. A stand-in: the FCS page gives no procedure for P.

    Returns
    -------
    FCSEstimate
        With ``reasoning_power_is_standin=True``.

    Examples
    --------
    >>> est = lab_agent_fcs("B2", 2.0, 0.4)
    >>> est.representational_capacity, est.fcs, est.label
    (0.8, 0.8, 'FCS with stand-in P = 1 (no procedure for P exists)')
    >>> lab_agent_fcs("A1", 0, 0).fcs
    0.0
    """
    check_choice(kind, "lab agent kind", LAB_AGENT_KINDS)
    architecture = LAB_AGENT_ARCHITECTURES[kind]
    if not architecture.has_self_model and n_self_model_variables != 0:
        raise ValueError(
            f"a {kind} agent has no self-model (FCS Definition 2: a self-model variable "
            f"represents an internal state); n_self_model_variables must be 0, "
            f"got {n_self_model_variables!r}"
        )
    return estimate_fcs(
        system=f"{kind} lab agent",
        n_self_model_variables=n_self_model_variables,
        bits_per_variable=bits_per_variable,
        reasoning_power=reasoning_power_standin,
        reasoning_power_is_standin=True,
        notes=(
            "R = effective z_self dimensions × measured bits per dimension (mutual "
            "information with own correctness); summing assumes the dimensions carry "
            "non-overlapping information.",
            "P is a stand-in: the FCS page gives no procedure for P.",
            "Not a consciousness measure.",
        ),
    )
