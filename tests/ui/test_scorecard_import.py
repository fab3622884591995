"""Scorecard import: hostile files give one sentence, pairs survive, missing items are not
assessed, table cells are read as typed.

The import glue (`ui/scorecard_import.py`) is tested directly here; the Scorecards page is driven in
AppTest with the same files (``scorecard_files.py``) through its real uploader in
``pages/test_scorecards.py``.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.scorecards.contract import ContractError
from labcore.scorecards.rubric import ItemEntry
from labcore.scorecards.user_systems import UserSystem, user_system_from_bytes, user_system_to_json
from tests.ui.scorecard_files import HOSTILE, PAIR_DOC, one_sentence
from ui.scorecard_import import (
    clause_from_text,
    clause_to_text,
    editor_rows,
    entries_from_rows,
    load_scorecard,
)


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_files_give_one_sentence_and_no_system(case):
    data, kind, named = HOSTILE[case]
    with pytest.raises(ContractError) as caught:
        user_system_from_bytes(data)
    assert caught.value.kind == kind
    system, message = load_scorecard(data)
    assert system is None
    assert message.endswith(f"{caught.value}.") and named in message  # the refusal, as said
    assert one_sentence(message)


def test_a_loaded_file_says_how_many_items_were_not_assessed():
    system, message = load_scorecard(json.dumps(PAIR_DOC).encode())
    assert system is not None and system.items[0].behavioural == (2, 3)
    scored, not_applicable, not_assessed = re.findall(r"\d+", message)[-3:]  # after the name
    assert (scored, not_applicable, not_assessed) == ("1", "1", "28")
    assert one_sentence(message)


def test_table_rows_keep_pairs_na_and_evidence_and_leave_missing_items_empty():
    system, _ = load_scorecard(json.dumps(PAIR_DOC).encode())
    rows = {row["item"]: row for row in editor_rows(system)}
    assert len(rows) == 30
    assert (rows["HOT-2"]["architectural"], rows["HOT-2"]["behavioural"]) == ("2", "2-3")
    assert rows["AE-2"]["N/A reason"] == PAIR_DOC["items"][1]["not_applicable_reason"]
    assert rows["RPT-1"]["architectural"] is None and rows["RPT-1"]["behavioural"] is None
    # table -> entries -> JSON -> entries: the page's export keeps what was imported
    back = UserSystem(name=system.name, items=entries_from_rows(rows.values()))
    assert back == system
    assert load_scorecard(user_system_to_json(back).encode())[0] == system


def test_edited_rows_are_read_with_one_sentence_per_problem():
    rows = editor_rows(None)
    assert entries_from_rows(rows) == ()  # an empty table is 30 items not assessed, not 30 zeros
    rows[0].update(
        architectural="2", behavioural="2-3", confidence=1.0, **{"operational evidence": True}
    )
    assert entries_from_rows(rows) == (ItemEntry("RPT-1", 2, (2, 3), 1, True),)
    rows[1].update(architectural="2")
    with pytest.raises(ContractError) as caught:
        entries_from_rows(rows)
    assert (caught.value.field, caught.value.kind) == ("RPT-2", "one_clause_missing")
    rows[1].update(behavioural="lots")
    with pytest.raises(ContractError) as caught:
        entries_from_rows(rows)
    assert (caught.value.field, caught.value.kind) == ("RPT-2.behavioural", "not_a_clause")
    rows[1].update(confidence="high", behavioural="2")
    with pytest.raises(ContractError) as caught:
        entries_from_rows(rows)
    assert (caught.value.field, caught.value.kind) == ("RPT-2.confidence", "int_type")
    rows[1].update(behavioural="9", confidence=None)
    with pytest.raises(ContractError) as caught:  # the rubric's range check, naming the item
        entries_from_rows(rows)
    assert (caught.value.field, caught.value.kind) == ("RPT-2.behavioural", "less_than_equal")
    assert one_sentence(f"{caught.value}.") and str(caught.value).startswith("RPT-2")
    rows[1].update(behavioural="1-3")
    with pytest.raises(ContractError) as caught:
        entries_from_rows(rows)
    assert (caught.value.field, caught.value.kind) == ("RPT-2.behavioural", "not_adjacent")
    rows[1].update(behavioural=None, architectural=None, **{"N/A reason": " not in a simulator "})
    assert entries_from_rows(rows)[1] == ItemEntry(
        "RPT-2", not_applicable_reason="not in a simulator"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", 2),
        (" 3 ", 3),
        ("2-3", (2, 3)),
        ("0 \u2013 1", (0, 1)),
        ("1,2", (1, 2)),
        ("", None),
        ("  ", None),
        (None, None),
        (float("nan"), None),
        (2.0, 2),
        (1, 1),
    ],
)
def test_clause_text_is_read_as_typed(text, value):
    assert clause_from_text(text, "HOT-2 behavioural") == value


@pytest.mark.parametrize("text", ["high", "2.5", "2-", "-1", "1-2-3", "9" * 50, True])
def test_unreadable_clause_text_names_the_cell(text):
    cell = "HOT-2 behavioural"
    with pytest.raises(ContractError) as caught:
        clause_from_text(text, cell)
    assert (caught.value.field, caught.value.kind) == (cell, "not_a_clause")
    assert str(caught.value).startswith(cell)


@given(st.one_of(st.integers(0, 3), st.integers(0, 2).map(lambda k: (k, k + 1))))
def test_clause_text_round_trips(value):
    assert clause_from_text(clause_to_text(value), "x") == value
