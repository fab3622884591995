"""The scorecard files the import glue's tests (``test_scorecard_import.py``) and the Scorecards
page's
test (``pages/test_scorecards.py``) both use: a card with a pair and an N/A item, hostile files with
the sentence each must give, and what a one-sentence message is.
"""

from __future__ import annotations

import json

from labcore.scorecards.user_systems import MAX_IMPORT_BYTES

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
    "deep nesting": (b"[" * 100_000, "nested more than 32 levels deep"),
    "not UTF-8": (b"\xff\xfe\x00{", "not UTF-8 text"),
    "over the size cap": (b" " * (MAX_IMPORT_BYTES + 1), "at most 1,048,576 bytes (1 MiB)"),
    "out-of-range pair": (
        json.dumps(
            {**PAIR_DOC, "items": [{"item_id": "HOT-2", "architectural": 2, "behavioural": [3, 4]}]}
        ).encode(),
        "HOT-2 behavioural score",
    ),
}


def one_sentence(message: str) -> bool:
    """Is ``message`` one short sentence (no line break, no traceback)?"""
    return (
        message.endswith(".")
        and "\n" not in message
        and "Traceback" not in message
        and len(message) < 300
    )
