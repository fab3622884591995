"""Scorecard import (issue 13): hostile files give one sentence, pairs survive, missing items are N/A.

The import glue (`ui/scorecard_import.py`) is tested directly, and the Scorecards page is
driven in AppTest with the same files through its real uploader.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from labcore.scorecards.rubric import ItemEntry
from labcore.scorecards.rubric_data import ITEM_IDS
from labcore.scorecards.user_systems import MAX_IMPORT_BYTES, UserSystem, user_system_to_json
from tests.ui.apptest_pages import APP, metric_value
from ui.scorecard_import import editor_rows, entries_from_rows, load_scorecard

PAIR_DOC = {"format": "ctlab.osmd_scorecard", "version": 1, "name": "**mine** ![x](http://127.0.0.1:9/x.png)",
            "items": [{"item_id": "HOT-2", "architectural": 2, "behavioural": [2, 3], "evidence": "Brier 0.14"},
                      {"item_id": "AE-2", "not_applicable_reason": "simulator only"}]}
HOSTILE = {
    "deep nesting": (b"[" * 100_000, "nested more than 32 levels deep"),
    "not UTF-8": (b"\xff\xfe\x00{", "not UTF-8 text"),
    "over the size cap": (b" " * (MAX_IMPORT_BYTES + 1), "at most 1,048,576 bytes (1 MiB)"),
    "out-of-range pair": (json.dumps({**PAIR_DOC, "items": [{"item_id": "HOT-2", "architectural": 2,
                                                             "behavioural": [3, 4]}]}).encode(),
                          "HOT-2 behavioural score"),
}


def one_sentence(message: str) -> bool:
    return message.endswith(".") and "\n" not in message and "Traceback" not in message and len(message) < 300


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_files_give_one_sentence_and_no_system(case):
    data, expected = HOSTILE[case]
    system, message = load_scorecard(data)
    assert system is None
    assert message.startswith("That file is not a usable scorecard: ") and expected in message
    assert one_sentence(message)


def test_a_loaded_file_says_how_many_items_were_not_assessed():
    system, message = load_scorecard(json.dumps(PAIR_DOC).encode())
    assert system is not None and system.entries[0].behavioural == (2, 3)
    assert "1 item scored, 1 not applicable, 28 not assessed" in message
    assert one_sentence(message)


def test_table_rows_keep_pairs_na_and_evidence_and_leave_missing_items_empty():
    system, _ = load_scorecard(json.dumps(PAIR_DOC).encode())
    rows = {row["item"]: row for row in editor_rows(system)}
    assert len(rows) == 30
    assert (rows["HOT-2"]["architectural"], rows["HOT-2"]["behavioural"]) == ("2", "2-3")
    assert rows["AE-2"]["N/A reason"] == "simulator only"
    assert rows["RPT-1"]["architectural"] is None and rows["RPT-1"]["behavioural"] is None
    # table -> entries -> JSON -> entries: the page's export keeps what was imported
    back = UserSystem(system.name, entries_from_rows(rows.values()))
    assert back == system
    assert load_scorecard(user_system_to_json(back).encode())[0] == system


def test_edited_rows_are_read_with_one_sentence_per_problem():
    rows = editor_rows(None)
    assert entries_from_rows(rows) == ()  # an empty table is 30 items not assessed, not 30 zeros
    rows[0].update(architectural="2", behavioural="2-3", confidence=1.0, **{"operational evidence": True})
    assert entries_from_rows(rows) == (ItemEntry("RPT-1", 2, (2, 3), 1, True),)
    rows[1].update(architectural="2")
    with pytest.raises(ValueError, match="RPT-2 needs both an architectural and a behavioural clause"):
        entries_from_rows(rows)
    rows[1].update(behavioural="lots")
    with pytest.raises(ValueError, match="RPT-2 behavioural: 'lots' is not a clause"):
        entries_from_rows(rows)
    rows[1].update(behavioural="9")
    with pytest.raises(ValueError, match="RPT-2 behavioural score must be between 0 and 3"):
        UserSystem("x", entries_from_rows(rows))
    rows[1].update(behavioural=None, architectural=None, **{"N/A reason": " not in a simulator "})
    assert entries_from_rows(rows)[1] == ItemEntry("RPT-2", None, None, not_applicable_reason="not in a simulator")


def own_items(at: AppTest):
    """The page's "Item by item, after the rules" table of the own-system tab."""
    return next(d.value for d in at.dataframe if "status" in d.value.columns).set_index("item")


def editor(at: AppTest):
    return next(d.value for d in at.dataframe if "N/A reason" in d.value.columns).set_index("item")


def upload(at: AppTest, filename: str, data: bytes) -> None:
    """Upload through the page's own uploader and rerun (the element is looked up afresh each run)."""
    at.file_uploader(key="scorecards.import").set_value((filename, data, "application/json")).run()


def test_scorecards_page_import_in_apptest():
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page("app_pages/scorecards.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert metric_value(at, "Behavioural total") == "no item scored"  # a fresh table is not 30 zeros
    assert (own_items(at)["status"] == "not assessed").all()

    # a pair import keeps its scores; missing items are N/A, and the total says what it covers
    upload(at, "mine.json", json.dumps(PAIR_DOC).encode())
    assert not at.exception and not at.error
    shown = at.success[0].value
    assert "28 not assessed" in shown and "![" not in shown and "**" not in shown  # quoted, not rendered
    assert editor(at).loc["HOT-2", "behavioural"] == "2-3"
    assert pd.isna(editor(at).loc["RPT-1", "behavioural"])
    items = own_items(at)
    assert items.loc["HOT-2", "behavioural entered"] == "2-3"
    assert items.loc["HOT-2", "behavioural after the rules"] == 2
    assert items.loc["RPT-1", "status"] == "not assessed" and items.loc["AE-2", "status"] == "not applicable"
    assert metric_value(at, "Behavioural total") == "2 / 3"
    assert metric_value(at, "Band") == "not defined"
    assert any("2 / 3 over the 1 item scored; 1 not applicable; 28 not assessed" in c.value for c in at.caption)

    # a complete card gets the 90-point total and a band
    full = UserSystem("full", tuple(ItemEntry(i, 2, 2) for i in ITEM_IDS))
    upload(at, "full.json", user_system_to_json(full).encode())
    assert not at.exception
    assert metric_value(at, "Behavioural total") == "60 / 90" and metric_value(at, "Band") != "not defined"

    # hostile files: one sentence each, no exception, the page keeps working
    for data, expected in HOSTILE.values():
        upload(at, "bad.json", data)
        assert not at.exception, [e.value for e in at.exception]
        errors = [e.value.replace("\\", "") for e in at.error]
        assert len(errors) == 1 and expected in errors[0] and one_sentence(errors[0]), errors
        assert metric_value(at, "Behavioural total") == "no item scored"  # back to an empty table
