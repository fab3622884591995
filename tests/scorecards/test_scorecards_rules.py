"""Rubric data and the OSMD application rules, on hand-made cases and against a brute force."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from labcore.scorecards.documents import ITEM_IDS, OSMD
from labcore.scorecards.rubric import (
    LM_CAPPED,
    NOT_ASSESSED,
    ItemEntry,
    ScoredSystem,
    band_for_total,
    behavioural_cap,
    lm_flag,
    lower_of_two,
    score_item,
    score_system,
)

# ---------------------------------------------------------------------------------------
# The rubric as data
# ---------------------------------------------------------------------------------------


def test_rubric_has_30_items_8_clusters_90_points():
    assert len(ITEM_IDS) == len(set(ITEM_IDS)) == 30
    assert len(OSMD.clusters) == 8
    assert [i for c in OSMD.clusters for i in OSMD.cluster_items(c)] == list(ITEM_IDS)
    assert {c: 3 * len(OSMD.cluster_items(c)) for c in OSMD.clusters} == {
        "RPT": 12,
        "GWT": 15,
        "HOT": 15,
        "PP": 12,
        "AST": 6,
        "AE": 12,
        "AFFECT": 9,
        "SELF": 9,
    }


def test_every_item_has_four_nonempty_criteria_and_a_flag():
    for item_id, item in OSMD.items.items():
        assert len(item["criteria"]) == 4
        assert all(text.strip() for text in item["criteria"])
        assert lm_flag(item_id) in ("low", "medium", "high")
        assert item_id.split("-")[0] in OSMD.clusters


def test_lm_capped_items_are_the_union_of_appendix_a_high_and_section_4_3():
    high = {i for i in ITEM_IDS if lm_flag(i) == "high"}
    assert high == {"HOT-3", "HOT-4", "HOT-5", "AST-2", "SELF-2"}
    section_4_3 = set(OSMD.section_4_3_lm_vulnerable)
    assert section_4_3 == {"HOT-4", "HOT-5", "AST-1", "AST-2", "SELF-2"}
    assert LM_CAPPED == high | section_4_3


def test_criteria_spot_checks_against_appendix_a():
    # The rubric's text is data transcribed from the paper's appendix: its words are the data.
    assert (
        OSMD.items["PP-1"]["criteria"][3],
        OSMD.items["GWT-5"]["criteria"][0],
        OSMD.items["SELF-3"]["name"],
    ) == (
        "Explicit modules + persisted ledger + module recalibrates from ledger.",
        "No selection mechanism.",
        "Autobiographical continuity",
    )


# ---------------------------------------------------------------------------------------
# Lower-of-two
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lower", [0, 1, 2])
def test_lower_of_two_takes_the_lower_adjacent_clause(lower):
    assert lower_of_two((lower, lower + 1)) == lower
    assert lower_of_two(lower) == lower


@pytest.mark.parametrize("pair", [(0, 2), (1, 3), (2, 2), (3, 2), (3, 4), (-1, 0)])
def test_a_pair_must_be_two_adjacent_clauses(pair):
    with pytest.raises(ValueError):
        ItemEntry("PP-3", 2, pair)


def test_between_clauses_entry_is_resolved_and_recorded():
    scored = score_item(ItemEntry("PP-3", 2, (0, 1)))
    assert scored.behavioural == 0
    assert scored.rules_applied == ("lower_of_two",)
    plain = score_item(ItemEntry("PP-3", 2, 1))
    assert plain.behavioural == 1
    assert plain.rules_applied == ()


# ---------------------------------------------------------------------------------------
# Caps
# ---------------------------------------------------------------------------------------


def test_anti_eloquence_caps_behaviour_at_architecture_plus_one():
    scored = score_item(ItemEntry("GWT-5", 1, 3))
    assert (scored.behavioural_entered, scored.behavioural, scored.behavioural_cap) == (3, 2, 2)
    assert scored.rules_applied == ("anti_eloquence",)
    assert scored.was_capped


def test_anti_eloquence_allows_exactly_plus_one():
    scored = score_item(ItemEntry("GWT-5", 1, 2))
    assert scored.behavioural == 2
    assert scored.rules_applied == ()
    assert not scored.was_capped


def test_operational_evidence_lifts_the_anti_eloquence_cap():
    assert score_item(ItemEntry("GWT-5", 0, 3, operational_evidence=True)).behavioural == 3
    assert score_item(ItemEntry("GWT-5", 0, 3)).behavioural == 1


@pytest.mark.parametrize("item_id", ["HOT-3", "HOT-4", "HOT-5", "AST-1", "AST-2", "SELF-2"])
def test_lm_capped_items_are_capped_at_architecture_plus_zero(item_id):
    scored = score_item(ItemEntry(item_id, 1, 2))
    assert scored.behavioural == 1
    assert scored.rules_applied == ("lm_cap",)


def test_operational_evidence_lifts_the_lm_cap_as_in_section_4_3_ast1_example():
    # §4.3: "AST-1 with verified numerical channel gains is allowed to score 3" (arch 2).
    assert score_item(ItemEntry("AST-1", 2, 3)).behavioural == 2
    assert score_item(ItemEntry("AST-1", 2, 3, operational_evidence=True)).behavioural == 3


def test_behaviour_below_architecture_is_never_raised():
    scored = score_item(ItemEntry("GWT-1", 3, 1))  # Frank's downward delta, §8.1
    assert scored.behavioural == 1
    assert scored.rules_applied == ()


@pytest.mark.parametrize(
    ("item_id", "architectural", "operational", "expected"),
    [
        ("RPT-1", 0, False, 1),
        ("RPT-1", 2, False, 3),
        ("RPT-1", 3, False, 3),
        ("HOT-4", 0, False, 0),
        ("HOT-4", 3, False, 3),
        ("HOT-4", 0, True, 3),
    ],
)
def test_behavioural_cap_values(item_id, architectural, operational, expected):
    assert behavioural_cap(item_id, architectural, operational) == expected


# ---------------------------------------------------------------------------------------
# Confidence ranges
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "expected_range"),
    [
        (ItemEntry("RPT-1", 2, 2, confidence=0), (2, 2)),
        (ItemEntry("RPT-1", 2, 2, confidence=1), (1, 3)),
        (ItemEntry("RPT-1", 2, 2, confidence=2), (0, 3)),
        (ItemEntry("RPT-1", 0, 0, confidence=1), (0, 1)),  # clipped at 0
        (ItemEntry("RPT-1", 3, 3, confidence=2), (1, 3)),  # clipped at 3
        (ItemEntry("RPT-1", 1, 2, confidence=2), (0, 2)),  # clipped at the cap (arch + 1)
        (ItemEntry("SELF-2", 1, 1, confidence=1), (0, 1)),  # LM cap: arch + 0
    ],
)
def test_item_range_is_score_plus_minus_confidence_clipped_to_zero_and_cap(entry, expected_range):
    scored = score_item(entry)
    assert (scored.behavioural_low, scored.behavioural_high) == expected_range


def test_total_range_is_the_sum_of_item_ranges():
    card = score_system(
        "toy",
        [
            ItemEntry("RPT-1", 2, 2, confidence=1),
            ItemEntry("GWT-2", 1, 1, confidence=2),
            ItemEntry("HOT-2", 3, 3, confidence=0),
        ],
    )
    assert card.behavioural_total == 6
    assert card.behavioural_range == (1 + 0 + 3, 3 + 2 + 3)


# ---------------------------------------------------------------------------------------
# Bands at their exact edges
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "band_id"),
    [
        (0, "0"),
        (10, "0"),
        (11, "I"),
        (25, "I"),
        (26, "II"),
        (45, "II"),
        (46, "III"),
        (60, "III"),
        (61, "IV"),
        (80, "IV"),
        (81, "V"),
        (90, "V"),
    ],
)
def test_band_edges(total, band_id):
    assert band_for_total(total) == band_id


@pytest.mark.parametrize("bad", [-1, 91, 10.5, True, "20"])
def test_band_rejects_out_of_range_or_non_integer(bad):
    with pytest.raises(ValueError):
        band_for_total(bad)


def test_bands_tile_0_to_90_without_gaps():
    covered = [t for _, _, low, high, _ in OSMD.bands for t in range(low, high + 1)]
    assert covered == list(range(91))


# ---------------------------------------------------------------------------------------
# Systems, N/A, validation
# ---------------------------------------------------------------------------------------


def test_not_applicable_items_count_zero_and_leave_the_applicable_denominator():
    reason = "no real-world effects"
    card = score_system(
        "toy", [ItemEntry("HOT-2", 2, 2), ItemEntry("AE-2", not_applicable_reason=reason)]
    )
    assert card.n_applicable == 1  # the other 28 have no entry -> not assessed
    assert card.applicable_max_points == 3
    assert card.behavioural_fraction_of_applicable == pytest.approx(2 / 3)
    assert card.item("AE-2").not_applicable_reason == reason
    assert card.item("RPT-1").not_applicable_reason == NOT_ASSESSED
    assert not card.item("RPT-1").assessed and card.item("AE-2").assessed
    assert card.behavioural_total == 2
    assert card.band == "0"


def test_fraction_of_applicable_is_nan_when_nothing_applies():
    card = score_system("empty", [])
    assert math.isnan(card.behavioural_fraction_of_applicable)


def test_cluster_subtotals_sum_to_totals():
    entries = [ItemEntry(item_id, 2, 1, confidence=1) for item_id in ITEM_IDS]
    card = score_system("all twos", entries)
    assert card.architectural_total == 60
    assert card.behavioural_total == 30
    assert sum(s.behavioural for s in card.cluster_subtotals) == 30
    by_id = {s.cluster_id: s for s in card.cluster_subtotals}
    assert by_id["GWT"].architectural == 10
    assert by_id["AST"].max_points == 6
    assert card.behavioural_range == (0, 60)


@pytest.mark.parametrize(
    ("fields", "kind"),
    [
        ({"item_id": "XYZ-1", "architectural": 1, "behavioural": 1}, "unknown_item"),
        ({"architectural": 4, "behavioural": 1}, "less_than_equal"),
        ({"architectural": 1, "behavioural": -1}, "greater_than_equal"),
        ({"architectural": 1.0, "behavioural": 1}, "int_type"),
        ({"architectural": True, "behavioural": 1}, "int_type"),
        ({"architectural": 1, "behavioural": 1, "confidence": 3}, "less_than_equal"),
        ({"architectural": 1, "behavioural": 1, "confidence": True}, "int_type"),
        ({"behavioural": 1}, "scores_missing"),
        ({}, "scores_missing"),
        (
            {"architectural": 1, "behavioural": 1, "not_applicable_reason": "n/a"},
            "scored_not_applicable",
        ),
        ({"not_applicable_reason": "   "}, "blank"),
        ({"confidence": 1, "not_applicable_reason": "n/a"}, "scored_not_applicable"),
        ({"operational_evidence": True, "not_applicable_reason": "n/a"}, "scored_not_applicable"),
    ],
)
def test_invalid_entries_cannot_be_made(fields, kind):
    with pytest.raises(ValidationError) as caught:
        ItemEntry(**{"item_id": "HOT-2", **fields})
    assert isinstance(caught.value, ValueError)
    assert caught.value.errors()[0]["type"] == kind


def test_duplicate_entries_raise():
    with pytest.raises(ValueError, match="duplicate"):
        score_system("dup", [ItemEntry("HOT-2", 1, 1), ItemEntry("HOT-2", 2, 2)])


def test_scored_system_requires_all_items_in_order():
    card = score_system("toy", [])
    with pytest.raises(ValueError):
        ScoredSystem("broken", card.items[:-1])


# ---------------------------------------------------------------------------------------
# Against an independent brute force
# ---------------------------------------------------------------------------------------


def _brute_force_behavioural(item_id, architectural, behavioural, operational):
    """Largest score <= the entered one among all scores the A.9 rules allow."""

    def low(v):
        return min(v) if isinstance(v, tuple) else v

    a, b = low(architectural), low(behavioural)
    lm = item_id in {"HOT-3", "HOT-4", "HOT-5", "AST-1", "AST-2", "SELF-2"}
    allowed = [s for s in range(4) if operational or s <= a + (0 if lm else 1)]
    return max(s for s in allowed if s <= b)


clauses = st.one_of(st.integers(0, 3), st.integers(0, 2).map(lambda k: (k, k + 1)))
entries = st.builds(
    ItemEntry,
    item_id=st.sampled_from(ITEM_IDS),
    architectural=clauses,
    behavioural=clauses,
    confidence=st.sampled_from([0, 1, 2]),
    operational_evidence=st.booleans(),
)


@given(entries)
def test_rules_match_brute_force(entry):
    scored = score_item(entry)
    assert scored.behavioural == _brute_force_behavioural(
        entry.item_id, entry.architectural, entry.behavioural, entry.operational_evidence
    )
    assert 0 <= scored.behavioural_low <= scored.behavioural <= scored.behavioural_high <= 3
    assert scored.behavioural_high - scored.behavioural_low <= 2 * entry.confidence


@given(st.lists(entries, unique_by=lambda e: e.item_id))
def test_totals_are_sums_of_items(entry_list):
    card = score_system("random", entry_list)
    assert card.behavioural_total == sum(
        _brute_force_behavioural(e.item_id, e.architectural, e.behavioural, e.operational_evidence)
        for e in entry_list
    )
    assert card.n_applicable == len(entry_list)
    low, high = card.behavioural_range
    assert low <= card.behavioural_total <= high
    assert band_for_total(card.behavioural_total) == card.band
