"""What a page shows beside a number (ui/components.py, issue 14), without a page: the paper's claim
for the condition shown (``labcore.paper.claim_for``, which the components read), the note on what a
condition fixes by construction, and a change in the metric's own unit."""

from __future__ import annotations

from labcore.config import AGENT_KINDS
from labcore.paper_claims import claim_for, e1_condition, e2_condition
from ui.components import change_text, e1_construction_notes


def test_claim_for_gives_the_claim_of_the_condition_shown_or_none():
    assert claim_for("e1.auroc", e1_condition("zero", 4, 4)) == "e1.auroc.self_off"
    assert claim_for("e1.auroc", e1_condition("on", 0, 4)) == "e1.auroc.bus_off"
    assert (
        claim_for("e1.accuracy", e1_condition("on", 0, 4)) is None
    )  # the paper gives no bus-off accuracy
    assert claim_for("e1.auroc", e1_condition("on", 2, 4)) is None  # not a condition of the paper
    assert claim_for("e2.conjunction", e2_condition(2, 4)) == "e2.conjunction.k2"
    assert claim_for("e2.conjunction", e2_condition(3, 4)) is None


def test_the_by_construction_note_is_given_only_where_the_wiring_makes_it_true():
    zeroed = e1_construction_notes(AGENT_KINDS["b2_ws"], "zero", 4)
    assert len(zeroed) == 1 and "exactly 0.5 **by construction**" in zeroed[0]
    no_self_model = e1_construction_notes(AGENT_KINDS["b1"], "zero", 4)
    assert no_self_model and not any("exactly 0.5" in n for n in no_self_model)
    assert "policy reads z_self too" in e1_construction_notes(AGENT_KINDS["b2"], "zero", 4)[0]
    assert e1_construction_notes(AGENT_KINDS["b2_ws"], "on", 4) == []
    assert any("exactly 0.5" in n for n in e1_construction_notes(AGENT_KINDS["b2_ws"], "on", 0))
    assert (
        e1_construction_notes(AGENT_KINDS["hot_only"], "on", 0) == []
    )  # cues visible: nothing fixed


def test_change_is_in_the_metrics_unit():
    assert change_text(0.483, 0.87, "{:.1%}") == "-38.7 pts vs intact"
    assert change_text(0.5, 0.846) == "-0.35 vs intact"
    assert change_text(None, 0.5) is None
