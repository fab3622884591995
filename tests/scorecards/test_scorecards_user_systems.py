"""A system of your own: live rules, JSON round trip, and bad-input errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.scorecards.rubric import ItemEntry
from labcore.scorecards.rubric_data import ITEM_IDS
from labcore.scorecards.user_systems import (
    JSON_FORMAT,
    UserSystem,
    make_user_system,
    score_user_system,
    user_system_from_dict,
    user_system_from_json,
    user_system_to_dict,
    user_system_to_json,
)

EXAMPLE = UserSystem("my agent", (
    ItemEntry("HOT-2", 2, (2, 3), confidence=1, operational_evidence=True,
              evidence="Brier 0.14 on 1,000 logged predictions"),
    ItemEntry("SELF-2", 1, 3, confidence=2, evidence="verbal only"),
    ItemEntry("AE-2", None, None, evidence="sim", not_applicable_reason="simulator only"),
))


def test_rules_apply_live_to_user_entries():
    card = score_user_system(EXAMPLE)
    assert card.item("HOT-2").behavioural == 2 and card.item("HOT-2").rules_applied == (
        "lower_of_two",)
    assert card.item("SELF-2").behavioural == 1 and card.item("SELF-2").rules_applied == (
        "lm_cap",)
    assert not card.item("AE-2").applicable
    assert card.behavioural_total == 3
    assert card.n_applicable == 2


def test_editing_an_entry_changes_the_score():
    lifted = UserSystem("my agent", (ItemEntry("SELF-2", 1, 3, operational_evidence=True),))
    assert score_user_system(lifted).item("SELF-2").behavioural == 3


def test_json_round_trip_example():
    text = user_system_to_json(EXAMPLE)
    data = json.loads(text)
    assert data["format"] == JSON_FORMAT and data["version"] == 1
    assert data["items"][0]["behavioural"] == [2, 3]
    assert user_system_from_json(text) == EXAMPLE
    assert score_user_system(user_system_from_json(text)) == score_user_system(EXAMPLE)


safe_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
clauses = st.one_of(st.integers(0, 3), st.integers(0, 2).map(lambda k: (k, k + 1)))


@st.composite
def user_systems(draw):
    ids = draw(st.lists(st.sampled_from(ITEM_IDS), unique=True, max_size=30))
    entries = []
    for item_id in ids:
        if draw(st.booleans()):
            reason = draw(safe_text.filter(lambda s: s.strip()))
            entries.append(ItemEntry(item_id, None, None, evidence=draw(safe_text),
                                     not_applicable_reason=reason))
        else:
            entries.append(ItemEntry(
                item_id, draw(clauses), draw(clauses),
                confidence=draw(st.sampled_from([0, 1, 2])),
                operational_evidence=draw(st.booleans()), evidence=draw(safe_text)))
    name = draw(safe_text.filter(lambda s: s.strip()))
    return UserSystem(name, tuple(entries))


@given(user_systems())
def test_json_round_trip_property(system):
    assert user_system_from_json(user_system_to_json(system)) == system
    assert user_system_from_dict(user_system_to_dict(system)) == system


def _doc(**overrides):
    data = user_system_to_dict(EXAMPLE)
    data.update(overrides)
    return json.dumps(data)


def _with_item(**fields):
    return _doc(items=[{"item_id": "HOT-2", "architectural": 2, "behavioural": 2, **fields}])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "malformed JSON"),
        ("", "malformed JSON"),
        ("[1, 2]", "must be a JSON object"),
        (_doc(format="something-else"), "not a 'ctlab.osmd_scorecard' document"),
        (_doc(version=2), "unsupported version"),
        (_doc(extra=1), "unknown top-level keys"),
        (_doc(name=3), "name must be a string"),
        (_doc(name="  "), "non-empty name"),
        (_doc(items={}), "items must be a list"),
        (_doc(items=[3]), r"items\[0\] must be an object"),
        (_doc(items=[{"item_id": "HOT-9", "architectural": 1, "behavioural": 1}]),
         "unknown rubric item id 'HOT-9'"),
        (_doc(items=[{"architectural": 1, "behavioural": 1}]), "string item_id"),
        (_with_item(architectural=4), "between 0 and 3"),
        (_with_item(behavioural=-1), "between 0 and 3"),
        (_with_item(behavioural=2.0), "integer 0-3"),
        (_with_item(behavioural=True), "integer 0-3"),
        (_with_item(behavioural=[1, 3]), "adjacent"),
        (_with_item(behavioural=[1, 2, 3]), "pair of adjacent integers"),
        (_with_item(behavioural=[3, 4]), "between 0 and 3"),
        (_with_item(confidence=3), "confidence must be one of"),
        (_with_item(confidence="1"), "confidence must be 0, 1 or 2"),
        (_with_item(operational_evidence="yes"), "operational_evidence must be true or false"),
        (_with_item(evidence=5), "evidence must be a string"),
        (_with_item(colour="red"), "unknown keys"),
        (_doc(items=[{"item_id": "HOT-2", "architectural": 2}]), "missing 'behavioural'"),
        (_doc(items=[{"item_id": "AE-2", "not_applicable_reason": "x", "architectural": 1}]),
         "cannot carry"),
        (_doc(items=[{"item_id": "AE-2", "not_applicable_reason": " "}]), "non-empty string"),
        (_doc(items=[{"item_id": "HOT-2", "architectural": 1, "behavioural": 1},
                     {"item_id": "HOT-2", "architectural": 2, "behavioural": 2}]),
         "duplicate entry for item HOT-2"),
    ],
)
def test_bad_json_raises_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        user_system_from_json(text)


def test_non_string_input_raises():
    with pytest.raises(ValueError, match="expected JSON text"):
        user_system_from_json(b"{}")


def test_invalid_systems_cannot_be_constructed():
    with pytest.raises(ValueError, match="unknown rubric item id"):
        make_user_system("x", [ItemEntry("NOPE-1", 1, 1)])
    with pytest.raises(ValueError, match="between 0 and 3"):
        make_user_system("x", [ItemEntry("HOT-2", 1, 5)])
    with pytest.raises(ValueError, match="ItemEntry"):
        UserSystem("x", ({"item_id": "HOT-2"},))
