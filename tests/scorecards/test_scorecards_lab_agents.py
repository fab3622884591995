"""Scoring the lab's agents: pre-registered thresholds, evidence strings, N/A, FCS."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from labcore.render import UNDEFINED
from labcore.scorecards.documents import ITEM_IDS
from labcore.scorecards.lab_agents import (
    LAB,
    LAB_AGENT_KINDS,
    THRESHOLDS,
    gwt2_behavioural_clause,
    gwt3_behavioural_clause,
    hot2_behavioural_clause,
    lab_agent_fcs,
    score_lab_agent,
)

# Phua (2025)-like measurements.
WORKSPACE = {
    "workspace_capacity": 4,
    "gbi": 0.66,
    "conjunction_accuracy_k4": 0.995,
    "conjunction_accuracy_k0": 0.0,
    "ignition_sharpness": 0.15,
}
SELF_MODEL = {"type2_auroc": 0.92, "type2_auroc_lesioned": 0.50}
EVIDENCE = {"A0": {}, "A1": {}, "B1": dict(WORKSPACE), "B2": {**WORKSPACE, **SELF_MODEL}}


def b2(**overrides):
    evidence = {**EVIDENCE["B2"], **overrides}
    return score_lab_agent("B2", {k: v for k, v in evidence.items() if v is not None})


# ---------------------------------------------------------------------------------------
# HOT-2 follows the measured AUROC and its collapse under the z_self lesion
# ---------------------------------------------------------------------------------------


def test_hot2_differs_between_auroc_09_and_05():
    good = b2(type2_auroc=0.9, type2_auroc_lesioned=0.5).item("HOT-2")
    chance = b2(type2_auroc=0.5, type2_auroc_lesioned=0.5).item("HOT-2")
    assert (good.behavioural, chance.behavioural) == (2, 1)
    assert "0.9" in good.evidence and "0.5" in good.evidence
    assert "0.5" in chance.evidence
    assert good.evidence != chance.evidence


def test_hot2_needs_the_lesion_to_reach_clause_2():
    without = b2(type2_auroc=0.9, type2_auroc_lesioned=None).item("HOT-2")
    with_lesion = b2(type2_auroc=0.9, type2_auroc_lesioned=0.5).item("HOT-2")
    no_collapse = b2(type2_auroc=0.9, type2_auroc_lesioned=0.88).item("HOT-2")
    assert (without.behavioural, with_lesion.behavioural, no_collapse.behavioural) == (1, 2, 1)
    assert "0.5" not in without.evidence  # no lesioned value to quote
    assert "0.88" in no_collapse.evidence  # the lesioned value that did not collapse
    assert without.confidence == 1 and with_lesion.confidence == 0


def test_hot2_architecture_and_rules():
    item = b2().item("HOT-2")
    assert item.architectural == 2
    assert item.operational_evidence
    assert item.rules_applied == ()
    for kind in ("A0", "A1", "B1"):
        other = score_lab_agent(kind, EVIDENCE[kind]).item("HOT-2")
        assert (other.architectural, other.behavioural) == (0, 0)
        assert not other.operational_evidence and other.evidence.startswith("architecture:")


def test_hot2_undefined_auroc_takes_the_lower_clause():
    item = b2(type2_auroc=float("nan")).item("HOT-2")
    assert item.behavioural == 1
    assert UNDEFINED in item.evidence  # the lab's one way of writing an undefined value
    assert item.confidence == 1


# ---------------------------------------------------------------------------------------
# Thresholds at their exact edges
# ---------------------------------------------------------------------------------------

T = THRESHOLDS


def test_hot2_threshold_edges():
    assert hot2_behavioural_clause(T["type2_auroc_calibrated"], 0.5) == 2
    assert hot2_behavioural_clause(T["type2_auroc_calibrated"] - 1e-9, 0.5) == 1
    assert hot2_behavioural_clause(0.9, T["type2_auroc_collapsed"]) == 2
    assert hot2_behavioural_clause(0.9, T["type2_auroc_collapsed"] + 1e-9) == 1


def test_gwt2_threshold_edges():
    assert gwt2_behavioural_clause(T["gbi_broadcast"]) == 2
    assert gwt2_behavioural_clause(T["gbi_broadcast"] - 1e-9) == 1


def test_gwt3_threshold_edges():
    assert gwt3_behavioural_clause(T["conjunction_held"], 0.0) == 1
    assert gwt3_behavioural_clause(T["conjunction_held"] - 1e-9, 0.0) == 0
    assert gwt3_behavioural_clause(0.75, 0.75 - T["bus_lesion_drop"]) == 1
    assert gwt3_behavioural_clause(0.75, 0.75 - T["bus_lesion_drop"] + 1e-9) == 0
    assert gwt3_behavioural_clause(0.995, None) == 0


def test_confidence_is_one_near_a_threshold():
    near = b2(gbi=T["gbi_broadcast"] + 0.01).item("GWT-2")
    far = b2(gbi=0.66).item("GWT-2")
    assert (near.behavioural, near.confidence) == (2, 1)
    assert (far.behavioural, far.confidence) == (2, 0)
    assert (near.behavioural_low, near.behavioural_high) == (1, 3)


def test_workspace_items_follow_the_bus_results():
    half = b2(gbi=0.03, conjunction_accuracy_k4=0.281).item
    assert half("GWT-2").behavioural == 1
    assert half("GWT-3").behavioural == 0
    assert "0.281" in half("GWT-3").evidence
    no_control = b2(conjunction_accuracy_k0=None).item("GWT-3")
    assert no_control.behavioural == 0
    assert "0.995" in no_control.evidence  # the holding is quoted, not credited to the bus
    intact = b2().item
    assert (intact("GWT-2").behavioural, intact("GWT-3").behavioural) == (2, 1)
    assert "K=4" in intact("GWT-2").evidence
    assert "0.15" in intact("GWT-2").evidence  # reported; not scored (next test)


def test_ignition_sharpness_does_not_change_scores():
    a = b2(ignition_sharpness=0.0)
    b = b2(ignition_sharpness=0.9)
    assert [i.behavioural for i in a.items] == [i.behavioural for i in b.items]


def test_thresholds_are_preregistered_in_docs():
    docs = Path(__file__).resolve().parents[2] / "docs" / "scorecards.md"
    text = docs.read_text(encoding="utf-8")
    for name, value in T.items():
        assert f"| `{name}` | {value:.2f} |" in text, name


# ---------------------------------------------------------------------------------------
# N/A, totals, evidence strings
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAB_AGENT_KINDS)
def test_same_items_are_not_applicable_for_every_kind(kind):
    card = score_lab_agent(kind, EVIDENCE[kind])
    na = {item.item_id for item in card.items if not item.applicable}
    assert na == set(LAB.not_applicable)
    assert all(card.item(i).not_applicable_reason for i in na)
    assert card.n_applicable == 24
    assert card.applicable_max_points == 72


@pytest.mark.parametrize("kind", LAB_AGENT_KINDS)
def test_every_applied_item_carries_evidence(kind):
    card = score_lab_agent(kind, EVIDENCE[kind])
    for item in card.items:
        if item.applicable:
            assert item.evidence.strip()
            if item.item_id in LAB.measured and item.architectural > 0:
                assert any(ch.isdigit() for ch in item.evidence)
                assert item.operational_evidence
            else:
                assert item.evidence.startswith("architecture:")


@pytest.mark.parametrize(
    ("kind", "total", "behavioural_range"),
    [("A0", 1, (0, 2)), ("A1", 2, (0, 4)), ("B1", 5, (3, 7)), ("B2", 8, (5, 10))],
)
def test_totals_out_of_90_and_over_applicable(kind, total, behavioural_range):
    card = score_lab_agent(kind, EVIDENCE[kind])
    assert card.behavioural_total == total
    assert card.behavioural_range == behavioural_range
    assert card.behavioural_fraction_of_applicable == pytest.approx(total / 72)
    assert card.band == "0"
    assert card.notes


def test_b1_and_b2_share_the_workspace_scores():
    b1_card = score_lab_agent("B1", EVIDENCE["B1"])
    b2_card = score_lab_agent("B2", EVIDENCE["B2"])
    for item_id in ("GWT-2", "GWT-3"):
        assert b1_card.item(item_id) == b2_card.item(item_id)
    differing = {i for i in ITEM_IDS if b1_card.item(i) != b2_card.item(i)}
    assert differing == {"HOT-2", "HOT-4", "HOT-5", "PP-1"}


def test_hot5_uses_the_lower_of_two_rule_for_b2():
    item = b2().item("HOT-5")
    assert (item.architectural, item.behavioural) == (1, 1)
    assert item.rules_applied == ("lower_of_two",)


# ---------------------------------------------------------------------------------------
# Evidence validation
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "evidence", "named"),
    [
        ("C3", {}, "C3"),  # unknown kind
        ("A0", {"type2_aurc": 0.9}, "type2_aurc"),  # unknown key
        ("B1", {**WORKSPACE, "type2_auroc": 0.9}, "type2_auroc"),  # not for this kind
        ("A1", {"gbi": 0.5}, "gbi"),
        ("B2", dict(WORKSPACE), "type2_auroc"),  # required and missing
        ("B1", {"gbi": 0.5, "conjunction_accuracy_k4": 0.9}, "workspace_capacity"),
        ("B2", {**WORKSPACE, "type2_auroc": 1.2}, "type2_auroc"),  # out of [0, 1]
        ("B2", {**WORKSPACE, "type2_auroc": True}, "type2_auroc"),  # not a number
        ("B2", {**WORKSPACE, "type2_auroc": "0.9"}, "type2_auroc"),
        ("B1", {**WORKSPACE, "workspace_capacity": 0}, "workspace_capacity"),  # not >= 1
        ("B1", {**WORKSPACE, "ignition_sharpness": -0.1}, "ignition_sharpness"),  # negative
        ("A1", {"has_recurrence": False}, "has_recurrence"),  # contradicts the kind
        ("B2", {**WORKSPACE, **SELF_MODEL, "has_self_model": 1}, "has_self_model"),  # not a bool
    ],
)
def test_bad_evidence_raises_a_value_error_naming_the_key(kind, evidence, named):
    with pytest.raises(ValueError, match=named):
        score_lab_agent(kind, evidence)


def test_matching_architecture_flags_are_accepted():
    card = score_lab_agent(
        "A1", {"has_recurrence": True, "has_workspace": False, "has_self_model": False}
    )
    assert card.item("RPT-4").behavioural == 1


def test_evidence_keys_are_documented():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "scorecards.md").read_text(
        encoding="utf-8"
    )
    for key in LAB.evidence_keys:
        assert f"`{key}`" in docs


# ---------------------------------------------------------------------------------------
# FCS for lab agents
# ---------------------------------------------------------------------------------------


def test_lab_agent_fcs_uses_measured_bits_and_a_standin_p():
    assert lab_agent_fcs("B2", n_self_model_variables=2.0, bits_per_variable=0.35) == (
        pytest.approx(0.7),
        pytest.approx(0.7),  # P = 1 by default: FCS = R
    )
    assert lab_agent_fcs("B2", 2.0, 0.35, reasoning_power_standin=10.0)[1] == pytest.approx(7.0)


def test_lab_agent_fcs_is_zero_without_a_self_model():
    for kind in ("A0", "A1", "B1"):
        assert lab_agent_fcs(kind, 0, 0.0) == (0, 0)
        with pytest.raises(ValueError, match="n_self_model_variables"):
            lab_agent_fcs(kind, 2, 0.3)


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_lab_agent_fcs_rejects_bad_numbers(bad):
    with pytest.raises(ValueError):
        lab_agent_fcs("B2", 2.0, bad)
    with pytest.raises(ValueError):
        lab_agent_fcs("B2", bad, 0.3)
