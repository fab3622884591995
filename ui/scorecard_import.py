"""The Scorecards page's "score your own system" glue: an uploaded file in, table rows out and back.

Parsing and every limit live in :mod:`labcore.scorecards.user_systems` (size cap, UTF-8,
nesting depth, format); this module turns its result into the page's one message and into the
rows of the page's editable table, and reads edited rows back into entries. No Streamlit here,
so the logic is tested without a running page.

Table cells: a clause is text, ``"2"`` or ``"2-3"`` for "between clauses 2 and 3" (kept as a
pair, scored as 2 by the lower-of-two rule); an empty row (no clauses, no N/A reason) is *not
assessed* and becomes no entry at all, never a 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from labcore.scorecards.contract import ContractError
from labcore.scorecards.rubric import ItemEntry
from labcore.scorecards.tables import ITEM_BY_ID, ITEMS
from labcore.scorecards.user_systems import (
    UserSystem,
    clause_from_text,
    clause_to_text,
    user_system_from_bytes,
)
from ui.state import echo

COLUMNS = (
    "item",
    "name",
    "architectural",
    "behavioural",
    "confidence",
    "operational evidence",
    "N/A reason",
    "evidence",
)
"""Columns of the editable table, in order."""


def load_scorecard(data: bytes) -> tuple[UserSystem | None, str]:
    """Read an uploaded scorecard file into a user system and the one message the page shows.

    Parameters
    ----------
    data : bytes
        The raw upload (checked against the size cap before it is decoded).

    Returns
    -------
    system : UserSystem or None
        None when the file is refused.
    message : str
        One plain sentence: what was loaded (with how many items were not assessed), or why
        the file was refused. Not Markdown-escaped: the page escapes it before showing it.

    Examples
    --------
    >>> load_scorecard(b"[" * 100_000)
    (None, 'That file is not a usable scorecard: brackets are nested more than 32 levels deep (a
    scorecard needs 4).')
    """
    try:
        system = user_system_from_bytes(data)
    except ValueError as error:
        return None, f"That file is not a usable scorecard: {error}."
    n_na = sum(not entry.applicable for entry in system.entries)
    n_scored = len(system.entries) - n_na
    n_missing = len(ITEMS) - len(system.entries)
    return system, (
        f"Loaded {echo(system.name)}: {_count(n_scored, 'item')} scored, {n_na} not "
        f"applicable, {n_missing} not assessed (left empty in the table)."
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def editor_rows(system: UserSystem | None) -> list[dict[str, object]]:
    """One table row per rubric item, filled from ``system`` (empty rows for items it lacks).

    Parameters
    ----------
    system : UserSystem or None
        None gives a table with every item empty (not assessed).

    Returns
    -------
    list of dict
        Keys :data:`COLUMNS`. Clauses are text (``"2"``, ``"2-3"``) or None; confidence is None
        on rows not assessed.

    Examples
    --------
    >>> from labcore.scorecards.rubric import ItemEntry
    >>> rows = editor_rows(UserSystem("x", (ItemEntry("HOT-2", 2, (2, 3)),)))
    >>> hot2 = next(r for r in rows if r["item"] == "HOT-2")
    >>> hot2["behavioural"], rows[0]["behavioural"], len(rows)
    ('2-3', None, 30)
    """
    by_id = {entry.item_id: entry for entry in (system.entries if system else ())}
    rows = []
    for item in ITEMS:
        entry = by_id.get(item.item_id)
        rows.append(
            {
                "item": item.item_id,
                "name": item.name,
                "architectural": clause_to_text(entry.architectural) if entry else None,
                "behavioural": clause_to_text(entry.behavioural) if entry else None,
                "confidence": entry.confidence if entry else None,
                "operational evidence": bool(entry and entry.operational_evidence),
                "N/A reason": (entry.not_applicable_reason or "") if entry else "",
                "evidence": entry.evidence if entry else "",
            }
        )
    return rows


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _text(value: object) -> str:
    return "" if _empty(value) else str(value).strip()


def _confidence(value: object, item_id: str) -> int:
    if _empty(value):
        return 0
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ContractError(
        f"{item_id}: confidence must be 0, 1 or 2, got {echo(value)}",
        field=f"{item_id}.confidence",
        kind="int_type",
    )


def entries_from_rows(rows: Iterable[Mapping[str, object]]) -> tuple[ItemEntry, ...]:
    """Read edited table rows back into entries; empty rows are left out (not assessed).

    Parameters
    ----------
    rows : iterable of mapping
        Rows with the keys of :data:`COLUMNS` (``DataFrame.to_dict("records")``).

    Returns
    -------
    tuple of ItemEntry
        Ranges are checked when a :class:`UserSystem` is built from them.

    Raises
    ------
    ContractError
        A ``ValueError``, one sentence naming the item, with ``field`` (the item and column) and
        ``kind``: a clause that is not a number or pair of numbers (``"not_a_clause"``), only
        one of the two clauses given (``"one_clause_missing"``), or a confidence that is not a
        whole number (``"int_type"``).

    Examples
    --------
    >>> rows = editor_rows(None)
    >>> rows[0].update(architectural="2", behavioural="2-3")
    >>> entries_from_rows(rows)
    (ItemEntry(item_id='RPT-1', architectural=2, behavioural=(2, 3), confidence=0,
    operational_evidence=False, evidence='', not_applicable_reason=None),)
    """
    entries = []
    for row in rows:
        item_id = str(row["item"])
        if item_id not in ITEM_BY_ID:
            raise ContractError(
                f"unknown rubric item id {echo(item_id)}", field="item", kind="unknown_item"
            )
        reason, evidence = _text(row.get("N/A reason")), _text(row.get("evidence"))
        if reason:
            entries.append(
                ItemEntry(item_id, None, None, evidence=evidence, not_applicable_reason=reason)
            )
            continue
        architectural = clause_from_text(
            row.get("architectural"), f"{item_id} architectural", f"{item_id}.architectural"
        )
        behavioural = clause_from_text(
            row.get("behavioural"), f"{item_id} behavioural", f"{item_id}.behavioural"
        )
        if architectural is None and behavioural is None:
            continue  # not assessed: no entry, never a 0
        if architectural is None or behavioural is None:
            raise ContractError(
                f"{item_id} needs both an architectural and a behavioural clause, "
                "or neither (not assessed)",
                field=item_id,
                kind="one_clause_missing",
            )
        entries.append(
            ItemEntry(
                item_id,
                architectural,
                behavioural,
                _confidence(row.get("confidence"), item_id),
                not _empty(flag := row.get("operational evidence")) and bool(flag),
                evidence,
            )
        )
    return tuple(entries)
