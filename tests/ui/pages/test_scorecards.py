"""The Scorecards page in AppTest: HOT-2 follows the self-model lesion, and a scorecard imported
through the page's own uploader (the import glue itself: ``tests/ui/test_scorecard_import.py``)."""

from __future__ import annotations

import json
import re

import pandas as pd
from streamlit.testing.v1 import AppTest

from labcore.scorecards.documents import ITEM_IDS, OSMD
from labcore.scorecards.rubric import ItemEntry, band_for_total, band_label
from labcore.scorecards.user_systems import (
    UserSystem,
    assessed_total_text,
    score_user_system,
    user_system_to_json,
)
from tests.ui.apptest_pages import metric_value
from tests.ui.scorecard_files import HOSTILE, PAIR_DOC, one_sentence

IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
"""A code identifier in shown text: ``osmd_discrepancies``, ``b2_ws``, ``lower_of_two``."""
SYMBOLS = {"z_self", "osmd_scorecard"}
"""Words a visitor is meant to read: the self-model's symbol and the scorecard file's format."""


def shown_text(at: AppTest) -> list[str]:
    """Every text the page shows: words, tables, and the labels and options of its widgets."""
    texts = [
        str(e.value) for kind in ("markdown", "caption", "info", "success") for e in at.get(kind)
    ]
    texts += [df.value.to_csv() for df in at.dataframe]
    for widget in [*at.multiselect, *at.selectbox]:
        texts += [widget.label, *map(str, widget.options)]
    return texts


def test_scorecards_hot2_follows_the_self_model_lesion_and_names_no_code(open_page):
    at = open_page("scorecards")
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    assert "HOT-2" in info
    intact = info.split("behavioural ")[1].split(" intact")[0]
    lesioned = info.split("intact, ")[1].split(" with the self-model zeroed")[0]
    assert intact != lesioned
    named = {m for text in shown_text(at) for m in IDENTIFIER.findall(text)}
    assert named <= SYMBOLS, named - SYMBOLS  # no module, function, rule or agent-kind id


def own_items(at: AppTest):
    """The page's "Item by item, after the rules" table of the own-system tab."""
    return next(d.value for d in at.dataframe if "status" in d.value.columns).set_index("item")


def editor(at: AppTest):
    return next(d.value for d in at.dataframe if "N/A reason" in d.value.columns).set_index("item")


BAND_LABELS = {band_label(band_id) for band_id, *_ in OSMD.bands}


def numbers(text: str) -> list[str]:
    """The numbers a shown value states ("no item scored" states none)."""
    return re.findall(r"\d+", text)


def upload(at: AppTest, filename: str, data: bytes) -> None:
    """Upload through the page's own uploader and rerun (the element is looked up afresh each
    run)."""
    at.file_uploader(key="scorecards.import").set_value((filename, data, "application/json")).run()


def test_scorecards_page_import_in_apptest(open_page):
    at = open_page("scorecards")
    assert not at.exception, [e.value for e in at.exception]
    assert numbers(metric_value(at, "Behavioural total")) == []  # a fresh table is not 30 zeros
    fresh = own_items(at)["status"]
    assert fresh.nunique() == 1  # every item in the one status of an item nobody assessed

    # a pair import keeps its scores; missing items are N/A, and the total says what it covers
    upload(at, "mine.json", json.dumps(PAIR_DOC).encode())
    assert not at.exception and not at.error
    shown = at.success[0].value
    assert numbers(shown)[-1] == "28"  # items not assessed, last in the sentence
    assert "![" not in shown and "**" not in shown  # the name is quoted, not rendered
    assert editor(at).loc["HOT-2", "behavioural"] == "2-3"
    assert pd.isna(editor(at).loc["RPT-1", "behavioural"])
    items = own_items(at)
    assert items.loc["HOT-2", "behavioural entered"] == "2-3"
    assert items.loc["HOT-2", "behavioural after the rules"] == 2
    statuses = items["status"]
    assert statuses["RPT-1"] == fresh.iloc[0]  # a missing item: not assessed, as in a fresh table
    assert len({statuses["RPT-1"], statuses["AE-2"], statuses["HOT-2"]}) == 3  # N/A is apart
    assert metric_value(at, "Behavioural total") == "2 / 3"
    assert metric_value(at, "Band") not in BAND_LABELS  # no band for part of the items
    total = assessed_total_text(score_user_system(UserSystem.model_validate(PAIR_DOC)))
    assert any(total in c.value for c in at.caption)

    # a complete card gets the 90-point total and a band
    full = UserSystem(name="full", items=tuple(ItemEntry(i, 2, 2) for i in ITEM_IDS))
    upload(at, "full.json", user_system_to_json(full).encode())
    assert not at.exception
    assert metric_value(at, "Behavioural total") == "60 / 90"
    assert metric_value(at, "Band") == band_label(band_for_total(60))

    # hostile files: one sentence each, no exception, the page keeps working
    for data, _, named in HOSTILE.values():
        upload(at, "bad.json", data)
        assert not at.exception, [e.value for e in at.exception]
        errors = [e.value.replace("\\", "") for e in at.error]
        assert len(errors) == 1 and named in errors[0] and one_sentence(errors[0]), errors
        assert numbers(metric_value(at, "Behavioural total")) == []  # back to an empty table
