"""The Scorecards page's "score your own system" glue: an uploaded file in, table rows out and back.

Parsing and every limit live in :mod:`labcore.scorecards.user_systems` (size cap, UTF-8,
nesting depth, format); this module turns its result into the page's one message and into the
rows of the page's editable table, and reads edited rows back into entries (the rubric's own
:class:`~labcore.scorecards.rubric.ItemEntry`, which checks ranges and adjacency). No Streamlit
here, so the logic is tested without a running page.

Table cells: a clause is text, ``"2"`` or ``"2-3"`` for "between clauses 2 and 3" (kept as a
pair, scored as 2 by the lower-of-two rule); an empty row (no clauses, no N/A reason) is *not
assessed* and becomes no entry at all, never a 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from pydantic import ValidationError

from labcore.scorecards.contract import ContractError, contract_error
from labcore.scorecards.documents import ITEM_IDS, OSMD
from labcore.scorecards.rubric import CLAUSE_TAGS, ItemEntry
from labcore.scorecards.user_systems import UserSystem, user_system_from_bytes
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
_CLAUSE_TEXT = re.compile(r"\s*([0-9]{1,3})\s*(?:[-\u2013,/]\s*([0-9]{1,3})\s*)?")
"""A clause as typed in a table: ``2``, or two clauses ``2-3`` (also ``2–3``, ``2,3``)."""


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
    n_na = sum(not entry.applicable for entry in system.items)
    n_scored = len(system.items) - n_na
    n_missing = len(ITEM_IDS) - len(system.items)
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
    >>> rows = editor_rows(UserSystem(name="x", items=(ItemEntry("HOT-2", 2, (2, 3)),)))
    >>> hot2 = next(r for r in rows if r["item"] == "HOT-2")
    >>> hot2["behavioural"], rows[0]["behavioural"], len(rows)
    ('2-3', None, 30)
    """
    by_id = {entry.item_id: entry for entry in (system.items if system else ())}
    rows = []
    for item_id, item in OSMD.items.items():
        entry = by_id.get(item_id)
        rows.append(
            {
                "item": item_id,
                "name": item["name"],
                "architectural": clause_to_text(entry.architectural) if entry else None,
                "behavioural": clause_to_text(entry.behavioural) if entry else None,
                "confidence": entry.confidence if entry else None,
                "operational evidence": bool(entry and entry.operational_evidence),
                "N/A reason": (entry.not_applicable_reason or "") if entry else "",
                "evidence": entry.evidence if entry else "",
            }
        )
    return rows


def clause_to_text(value: int | tuple[int, int] | None) -> str | None:
    """A clause as the table shows it: ``"2"``, ``"2-3"`` for a between-clauses pair, None if unset.

    >>> clause_to_text(2), clause_to_text((2, 3)), clause_to_text(None)
    ('2', '2-3', None)
    """
    if value is None:
        return None
    return f"{value[0]}-{value[1]}" if isinstance(value, tuple) else str(value)


def clause_from_text(text: object, what: str, field: str = "") -> int | tuple[int, int] | None:
    """Read a clause typed in the table: ``"2"``, ``"2-3"`` (between 2 and 3), or empty (None).

    Ranges (0-3, adjacency) are the entry's to check, which names the item.

    Raises
    ------
    ContractError
        Text that is neither a whole number nor two of them (``kind`` ``"not_a_clause"``,
        ``field`` the given ``field``, else ``what``).

    Examples
    --------
    >>> clause_from_text("2-3", "HOT-2 behavioural"), clause_from_text(" ", "x")
    ((2, 3), None)
    >>> clause_from_text("high", "HOT-2 behavioural")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: HOT-2 behavioural: 'high' is not a clause 0-3 or two
    adjacent clauses like 2-3
    """
    if _empty(text) or (isinstance(text, str) and not text.strip()):
        return None
    if isinstance(text, float) and text.is_integer():
        return int(text)
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    match = _CLAUSE_TEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ContractError(
            f"{what}: {echo(text, 30)} is not a clause 0-3 or two adjacent clauses like 2-3",
            field=field or what,
            kind="not_a_clause",
        )
    lower, upper = match.groups()
    return int(lower) if upper is None else (int(lower), int(upper))


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


def _entry(item_id: str, **fields: object) -> ItemEntry:
    """The row's entry; a value the rubric refuses is one sentence naming the item and field."""
    try:
        return ItemEntry(item_id=item_id, **fields)  # type: ignore[arg-type]
    except ValidationError as exc:
        error = contract_error(exc, item_id, skip=CLAUSE_TAGS)
        field = f"{item_id}.{error.field}" if error.field else item_id
        raise ContractError(str(error), field, error.kind) from None


def entries_from_rows(rows: Iterable[Mapping[str, object]]) -> tuple[ItemEntry, ...]:
    """Read edited table rows back into entries; empty rows are left out (not assessed).

    Parameters
    ----------
    rows : iterable of mapping
        Rows with the keys of :data:`COLUMNS` (``DataFrame.to_dict("records")``).

    Returns
    -------
    tuple of ItemEntry

    Raises
    ------
    ContractError
        A ``ValueError``, one sentence naming the item, with ``field`` (the item and column) and
        ``kind``: a clause that is not a number or pair of numbers (``"not_a_clause"``), only
        one of the two clauses given (``"one_clause_missing"``), a confidence that is not a
        whole number (``"int_type"``), or a value the rubric refuses (pydantic's kind, e.g.
        ``"less_than_equal"``).

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
        if item_id not in OSMD.items:
            raise ContractError(
                f"unknown rubric item id {echo(item_id)}", field="item", kind="unknown_item"
            )
        reason, evidence = _text(row.get("N/A reason")), _text(row.get("evidence"))
        if reason:
            entries.append(_entry(item_id, evidence=evidence, not_applicable_reason=reason))
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
            _entry(
                item_id,
                architectural=architectural,
                behavioural=behavioural,
                confidence=_confidence(row.get("confidence"), item_id),
                operational_evidence=not _empty(flag := row.get("operational evidence"))
                and bool(flag),
                evidence=evidence,
            )
        )
    return tuple(entries)
