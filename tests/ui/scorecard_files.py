"""The scorecard files the import glue's tests (``test_scorecard_import.py``) and the Scorecards
page's
test (``pages/test_scorecards.py``) both use: a card with a pair and an N/A item, hostile files with
the refusal each must give, and what a one-sentence message is.
"""

from __future__ import annotations

import json

from labcore.scorecards.user_systems import MAX_IMPORT_BYTES, MAX_NESTING_DEPTH

PAIR_DOC = {
    "format": "ctlab.osmd_scorecard",
    "version": 1,
    "name": "**mine** ![x](http://127.0.0.1:9/x.png)",
    "items": [
        {"item_id": "HOT-2", "architectural": 2, "behavioural": [2, 3], "evidence": "Brier 0.14"},
        {"item_id": "AE-2", "not_applicable_reason": "simulator only"},
    ],
}
HOSTILE = {
    "deep nesting": (b"[" * 100_000, "too_deep", str(MAX_NESTING_DEPTH)),
    "not UTF-8": (b"\xff\xfe\x00{", "not_utf8", "UTF-8"),
    "over the size cap": (b" " * (MAX_IMPORT_BYTES + 1), "too_large", f"{MAX_IMPORT_BYTES:,}"),
    "out-of-range pair": (
        json.dumps(
            {**PAIR_DOC, "items": [{"item_id": "HOT-2", "architectural": 2, "behavioural": [3, 4]}]}
        ).encode(),
        "less_than_equal",
        "behavioural[1]",
    ),
}
"""Hostile files: the bytes, the kind of refusal, and the value the sentence must name (the
limit, the encoding, the field)."""


def one_sentence(message: str) -> bool:
    """Is ``message`` one short sentence (no line break, no traceback)?"""
    return (
        message.endswith(".")
        and "\n" not in message
        and "Traceback" not in message
        and len(message) < 300
    )
