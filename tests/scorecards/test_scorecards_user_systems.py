"""A system of your own: live rules, JSON round trip, and bad-input errors."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.figures.scorecards import osmd_radar
from labcore.scorecards.contract import ContractError
from labcore.scorecards.documents import ITEM_IDS
from labcore.scorecards.rubric import NOT_ASSESSED, ItemEntry
from labcore.scorecards.user_systems import (
    JSON_FORMAT,
    MAX_IMPORT_BYTES,
    MAX_NESTING_DEPTH,
    UserSystem,
    assessed_total_text,
    score_user_system,
    user_system_from_bytes,
    user_system_from_json,
    user_system_to_json,
)

EXAMPLE = UserSystem(
    name="my agent",
    items=(
        ItemEntry(
            "HOT-2",
            2,
            (2, 3),
            confidence=1,
            operational_evidence=True,
            evidence="Brier 0.14 on 1,000 logged predictions",
        ),
        ItemEntry("SELF-2", 1, 3, confidence=2, evidence="verbal only"),
        ItemEntry("AE-2", None, None, evidence="sim", not_applicable_reason="simulator only"),
    ),
)


def test_rules_apply_live_to_user_entries():
    card = score_user_system(EXAMPLE)
    assert card.item("HOT-2").behavioural == 2 and card.item("HOT-2").rules_applied == (
        "lower_of_two",
    )
    assert card.item("SELF-2").behavioural == 1 and card.item("SELF-2").rules_applied == ("lm_cap",)
    assert not card.item("AE-2").applicable
    assert card.behavioural_total == 3
    assert card.n_applicable == 2


def test_editing_an_entry_changes_the_score():
    lifted = UserSystem(
        name="my agent", items=(ItemEntry("SELF-2", 1, 3, operational_evidence=True),)
    )
    assert score_user_system(lifted).item("SELF-2").behavioural == 3


def test_json_round_trip_example():
    text = user_system_to_json(EXAMPLE)
    data = json.loads(text)
    assert data["format"] == JSON_FORMAT and data["version"] == 1
    assert data["items"][0]["behavioural"] == [2, 3]
    assert set(data["items"][2]) == {"item_id", "not_applicable_reason", "evidence"}  # no scores
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
            entries.append(
                ItemEntry(
                    item_id, None, None, evidence=draw(safe_text), not_applicable_reason=reason
                )
            )
        else:
            entries.append(
                ItemEntry(
                    item_id,
                    draw(clauses),
                    draw(clauses),
                    confidence=draw(st.sampled_from([0, 1, 2])),
                    operational_evidence=draw(st.booleans()),
                    evidence=draw(safe_text),
                )
            )
    name = draw(safe_text.filter(lambda s: s.strip()))
    return UserSystem(name=name, items=tuple(entries))


@given(user_systems())
def test_json_round_trip_property(system):
    assert user_system_from_json(user_system_to_json(system)) == system


def _doc(**overrides):
    data = json.loads(user_system_to_json(EXAMPLE))
    data.update(overrides)
    return json.dumps(data)


def _with_item(**fields):
    return _doc(items=[{"item_id": "HOT-2", "architectural": 2, "behavioural": 2, **fields}])


def _one_sentence(message: str) -> bool:
    return "\n" not in message and "Traceback" not in message and len(message) < 300


def _refusal(text: str) -> ContractError:
    """The error a scorecard file is refused with (a ValueError naming the field)."""
    with pytest.raises(ContractError) as caught:
        user_system_from_json(text)
    assert isinstance(caught.value, ValueError) and _one_sentence(str(caught.value))
    return caught.value


def _names(field: str) -> list[str]:
    """The field names of a path: ``"items[0].behavioural[1]"`` -> ``["items", "behavioural"]``."""
    return re.findall(r"[a-z_]+", field)


@pytest.mark.parametrize(
    ("text", "field", "kind"),
    [
        ("{not json", "", "json_invalid"),
        ("", "", "json_invalid"),
        ("[1, 2]", "", "model_type"),
        (_doc(format="something-else"), "format", "literal_error"),
        (_doc(version=2), "version", "literal_error"),
        (_doc(extra=1), "extra", "extra_forbidden"),
        (_doc(name=3), "name", "string_type"),
        (_doc(name="  "), "name", "blank"),
        (_doc(items={}), "items", "tuple_type"),
        (_doc(items=[3]), "items[0]", "dataclass_type"),
        (
            _doc(items=[{"item_id": "HOT-9", "architectural": 1, "behavioural": 1}]),
            "items[0].item_id",
            "unknown_item",
        ),
        (_doc(items=[{"architectural": 1, "behavioural": 1}]), "items[0].item_id", "missing"),
        (_with_item(architectural=4), "items[0].architectural", "less_than_equal"),
        (_with_item(behavioural=-1), "items[0].behavioural", "greater_than_equal"),
        (_with_item(behavioural=2.0), "items[0].behavioural", "int_type"),
        (_with_item(behavioural=True), "items[0].behavioural", "int_type"),
        (_with_item(behavioural=[1, 3]), "items[0].behavioural", "not_adjacent"),
        (_with_item(behavioural=[1, 2, 3]), "items[0].behavioural", "too_long"),
        (_with_item(behavioural=[3, 4]), "items[0].behavioural[1]", "less_than_equal"),
        (_with_item(confidence=3), "items[0].confidence", "less_than_equal"),
        (_with_item(confidence="1"), "items[0].confidence", "int_type"),
        (_with_item(operational_evidence="yes"), "items[0].operational_evidence", "bool_type"),
        (_with_item(evidence=5), "items[0].evidence", "string_type"),
        (_with_item(colour="red"), "items[0].colour", "unexpected_keyword_argument"),
        (_doc(items=[{"item_id": "HOT-2", "architectural": 2}]), "items[0]", "scores_missing"),
        (
            _doc(items=[{"item_id": "AE-2", "not_applicable_reason": "x", "architectural": 1}]),
            "items[0]",
            "scored_not_applicable",
        ),
        (
            _doc(items=[{"item_id": "AE-2", "not_applicable_reason": " "}]),
            "items[0].not_applicable_reason",
            "blank",
        ),
        (
            _doc(
                items=[
                    {"item_id": "HOT-2", "architectural": 1, "behavioural": 1},
                    {"item_id": "HOT-2", "architectural": 2, "behavioural": 2},
                ]
            ),
            "items",
            "duplicate_item",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_the_field(text, field, kind):
    error = _refusal(text)
    assert (error.field, error.kind) == (field, kind)
    for name in _names(field):  # the sentence names the field
        assert name in str(error)


def test_a_refusal_is_one_sentence_naming_the_item_and_the_field():
    error = _refusal(_with_item(behavioural=[1, 3]))
    assert str(error).split()[:3] == ["items[0]", "(HOT-2)", "behavioural:"]  # item, then field
    said = str(error).split(maxsplit=3)[3]  # after the item and the field
    assert [int(n) for n in re.findall(r"\d", said)][:2] == [1, 3]  # the clauses refused


def test_non_string_input_raises():
    with pytest.raises(ContractError) as caught:
        user_system_from_json(b"{}")
    assert caught.value.kind == "not_text"


def test_invalid_systems_cannot_be_constructed():
    with pytest.raises(ValueError):
        UserSystem(name=" ", items=())
    with pytest.raises(ValueError):
        UserSystem(name="x", items=(ItemEntry("HOT-2", 1, 1), ItemEntry("HOT-2", 2, 2)))
    with pytest.raises(ValueError):
        UserSystem(name="x", items=({"item_id": "HOT-2"},))


# ---------------------------------------------------------------------------------------
# Hostile imports: nesting, pairs, missing items, size, encoding
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "{" * 100_000,
        '{"a":' * 50_000,
        "[" * (MAX_NESTING_DEPTH + 1) + "]" * (MAX_NESTING_DEPTH + 1),
    ],
)
def test_deep_nesting_is_refused_before_parsing(text):
    assert _refusal(text).kind == "too_deep"
    with pytest.raises(ContractError) as caught:
        user_system_from_bytes(text.encode())
    assert caught.value.kind == "too_deep"
    assert str(MAX_NESTING_DEPTH) in str(caught.value)  # the sentence gives the limit


def test_nesting_at_the_limit_reaches_the_parser():
    at_limit = "[" * MAX_NESTING_DEPTH + "]" * MAX_NESTING_DEPTH
    assert _refusal(at_limit).kind == "model_type"  # parsed, then refused as not an object


def test_brackets_inside_strings_do_not_count_as_nesting():
    deep_name = "[{" * 5_000 + '\\"' + "]}" * 10
    text = _doc(name=deep_name)
    assert user_system_from_json(text).name == deep_name
    unterminated = '{"name": "' + "[" * 10_000  # malformed, but not "too deep"
    assert _refusal(unterminated).kind == "json_invalid"


def test_a_pair_score_is_kept_scored_by_the_lower_clause_and_round_trips():
    system = user_system_from_json(_with_item(behavioural=[2, 3]))
    assert system.items[0].behavioural == (2, 3)
    card = score_user_system(system)
    assert card.item("HOT-2").behavioural == 2  # lower of two, not 0
    assert card.behavioural_total == 2
    assert card.item("HOT-2").rules_applied == ("lower_of_two",)
    text = user_system_to_json(system)
    assert json.loads(text)["items"][0]["behavioural"] == [2, 3]
    assert user_system_from_json(text) == system


@pytest.mark.parametrize("pair", [[3, 4], [5, 6], [-1, 0], [1, 3], [3, 2]])
@pytest.mark.parametrize("field", ["architectural", "behavioural"])
def test_out_of_range_pairs_are_refused_naming_the_item(pair, field):
    error = _refusal(_with_item(**{field: pair}))
    assert error.field.startswith(f"items[0].{field}")
    assert error.kind in ("less_than_equal", "greater_than_equal", "not_adjacent")
    assert "HOT-2" in str(error) and field in str(error)


def test_missing_items_are_not_assessed_not_zero():
    system = user_system_from_json(
        _doc(
            items=[
                {
                    "item_id": "HOT-2",
                    "architectural": 3,
                    "behavioural": 3,
                    "operational_evidence": True,
                },
                {"item_id": "AE-2", "not_applicable_reason": "simulator only"},
            ]
        )
    )
    card = score_user_system(system)
    missing = card.item("RPT-1")
    assert not missing.assessed and not missing.applicable
    assert missing.not_applicable_reason == NOT_ASSESSED
    assert card.item("AE-2").assessed and not card.item("AE-2").applicable
    assert (card.n_applicable, card.n_not_applicable, card.n_not_assessed) == (1, 1, 28)
    assert not card.complete
    assert card.applicable_max_points == 3  # missing items are not in the denominator
    assert _numbers(assessed_total_text(card)) == [3, 3, 1, 1, 28]
    (hot,) = [s for s in card.cluster_subtotals if s.cluster_id == "HOT"]
    assert (hot.assessed_max_points, hot.max_points) == (3, 15)


def _numbers(text: str) -> list[int]:
    """The whole numbers a sentence states, in order."""
    return [int(n) for n in re.findall(r"\d+", text)]


def test_total_text_on_complete_cards_gives_the_90_point_total():
    full = UserSystem(name="full", items=tuple(ItemEntry(i, 2, 2) for i in ITEM_IDS))
    card = score_user_system(full)
    assert card.complete and card.n_not_assessed == 0
    assert _numbers(assessed_total_text(card)) == [60, 90, 30]
    with_na = UserSystem(
        name="na",
        items=(
            *(ItemEntry(i, 2, 2) for i in ITEM_IDS[1:]),
            ItemEntry(ITEM_IDS[0], not_applicable_reason="n/a"),
        ),
    )
    assert _numbers(assessed_total_text(score_user_system(with_na))) == [58, 90, 58, 87, 29, 1]
    assert _numbers(assessed_total_text(score_user_system(UserSystem(name="none")))) == [30]


def test_radar_draws_missing_items_as_gaps_not_zeros():
    card = score_user_system(
        UserSystem(name="mine", items=(ItemEntry("HOT-2", 3, 3, operational_evidence=True),))
    )
    fig = osmd_radar({"<b>mine</b>": card.cluster_subtotals})
    behavioural = next(t for t in fig.data if t.name.endswith("behavioural"))
    r = dict(zip(behavioural.theta, behavioural.r, strict=False))
    assert r["HOT"] == 1.0  # 3 of the 3 assessed points, not 3 of 15
    assert r["RPT"] is None  # no RPT item assessed: a gap
    assert "&lt;b&gt;mine" in behavioural.name  # the user's name is shown literally
    complete = score_user_system(
        UserSystem(name="all", items=tuple(ItemEntry(i, 1, 1) for i in ITEM_IDS))
    )
    full = next(
        t
        for t in osmd_radar({"all": complete.cluster_subtotals}).data
        if t.name.endswith("behavioural")
    )
    assert all(abs(v - 1 / 3) < 1e-9 for v in full.r)


def test_size_cap_is_checked_on_the_raw_bytes_before_decoding():
    padded = _doc().encode()
    padded += b" " * (MAX_IMPORT_BYTES - len(padded))
    assert len(padded) == MAX_IMPORT_BYTES
    assert user_system_from_bytes(padded) == EXAMPLE  # exactly at the cap: accepted
    with pytest.raises(ContractError) as caught:
        user_system_from_bytes(padded + b" ")
    assert caught.value.kind == "too_large" and _one_sentence(str(caught.value))
    assert f"{MAX_IMPORT_BYTES:,}" in str(caught.value)  # the sentence gives the cap
    # an oversized file of invalid UTF-8 is refused for its size: nothing was decoded
    with pytest.raises(ContractError) as caught:
        user_system_from_bytes(b"\xff" * (MAX_IMPORT_BYTES + 1))
    assert caught.value.kind == "too_large"
    assert _refusal(padded.decode() + " ").kind == "too_long"


@pytest.mark.parametrize("data", [b"\xff\xfe{}", _doc().encode("utf-16"), b'{"name": "\xe9"}'])
def test_non_utf8_bytes_give_one_sentence(data):
    with pytest.raises(ContractError) as caught:
        user_system_from_bytes(data)
    assert caught.value.kind == "not_utf8" and _one_sentence(str(caught.value))


def test_utf8_with_a_byte_order_mark_is_accepted():
    assert user_system_from_bytes(b"\xef\xbb\xbf" + _doc().encode()) == EXAMPLE


def test_more_items_than_the_rubric_has_are_refused():
    items = [{"item_id": "HOT-2", "architectural": 1, "behavioural": 1}] * 31
    error = _refusal(_doc(items=items))
    assert (error.field, error.kind) == ("items", "too_long")
    assert "30" in str(error)  # the sentence gives the limit


def test_long_user_values_are_cut_in_error_messages():
    error = _refusal(_doc(items=[{"item_id": "X" * 100_000, "architectural": 1, "behavioural": 1}]))
    assert (error.field, error.kind) == ("items[0].item_id", "unknown_item")


def test_integers_too_long_to_convert_are_malformed_json():
    assert _refusal('{"version": ' + "9" * 5_000 + "}").kind == "json_invalid"
