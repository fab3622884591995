"""Score "a system of your own": user-entered items, the rules applied live, JSON round trip.

A :class:`UserSystem` is a name plus one :class:`~labcore.scorecards.rubric.ItemEntry` per
item the user filled in (scores 0-3 or two adjacent clauses, confidence ±0/1/2, the
operational-evidence flag, free evidence text, or a not-applicable reason). It validates on
construction, so an invalid system cannot exist; :func:`score_user_system` applies the
rubric's rules; :func:`user_system_to_json` / :func:`user_system_from_json` round-trip it.

JSON format (version 1)::

    {
      "format": "ctlab.osmd_scorecard",
      "version": 1,
      "name": "My agent",
      "items": [
        {"item_id": "HOT-2", "architectural": 2, "behavioural": [2, 3],
         "confidence": 1, "operational_evidence": true, "evidence": "Brier 0.14"},
        {"item_id": "AE-2", "not_applicable_reason": "simulator only"}
      ]
    }

``behavioural: [2, 3]`` means "between clauses 2 and 3" (OSMD A.9: "if no clause cleanly
applies, the lower adjacent clause is taken"). The pair is kept as entered, so it round-trips
and the page shows it as ``2-3``; the rules take clause 2 when scoring. Items left out are
*not assessed* (:attr:`~labcore.scorecards.rubric.ScoredItem.assessed` is False): they count
in no total, and :func:`assessed_total_text` says how many items a total covers.

Limits on an import (checked before anything is decoded or parsed, each refusal one sentence
in a ``ValueError``): at most :data:`MAX_IMPORT_BYTES` (1 MiB; a full 30-item scorecard with
evidence text is a few kB), UTF-8 text (a byte-order mark is allowed), brackets nested at most
:data:`MAX_NESTING_DEPTH` (32) levels deep (the format needs 4), at most 30 items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labcore.scorecards.rubric import (
    MAX_TOTAL,
    ClauseValue,
    ItemEntry,
    ScoredSystem,
    score_item,
    score_system,
)
from labcore.scorecards.tables import ITEM_BY_ID, ITEM_IDS

JSON_FORMAT = "ctlab.osmd_scorecard"
JSON_VERSION = 1
_TOP_LEVEL_KEYS = frozenset({"format", "version", "name", "items"})
_ITEM_KEYS = frozenset(
    {
        "item_id",
        "architectural",
        "behavioural",
        "confidence",
        "operational_evidence",
        "evidence",
        "not_applicable_reason",
    }
)
MAX_IMPORT_BYTES = 1024 * 1024
"""Largest scorecard file accepted, in bytes (1 MiB), checked before decoding."""
MAX_NESTING_DEPTH = 32
"""Deepest bracket nesting accepted (the format needs 4), checked before ``json.loads``,
whose recursion a few thousand ``[`` would otherwise exhaust."""
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to skip; an unterminated one runs to the end) or a bracket."""
_CLAUSE_TEXT = re.compile(r"\s*([0-9]{1,3})\s*(?:[-\u2013,/]\s*([0-9]{1,3})\s*)?")
"""A clause as typed in a table: ``2``, or two clauses ``2-3`` (also ``2–3``, ``2,3``)."""


def _shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters, for error messages quoting user input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _nesting_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside JSON strings nest deeper than ``limit`` (one linear scan)."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        bracket = match.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif bracket in ("]", "}"):
            depth -= 1
    return False


@dataclass(frozen=True)
class UserSystem:
    """A user's own system: a name and per-item entries, validated on construction.

    Attributes
    ----------
    name : str
        Display name (non-empty).
    entries : tuple of ItemEntry
        At most one per item; order is kept for export.

    Raises
    ------
    ValueError
        Empty name, duplicate items, or any entry :func:`~labcore.scorecards.rubric.score_item`
        rejects (unknown item id, out-of-range score, bad confidence, ...).

    Examples
    --------
    >>> UserSystem("mine", (ItemEntry("HOT-2", 2, 3),)).entries[0].item_id
    'HOT-2'
    >>> UserSystem("mine", (ItemEntry("HOT-9", 2, 3),))
    Traceback (most recent call last):
    ...
    ValueError: unknown rubric item id 'HOT-9'
    """

    name: str
    entries: tuple[ItemEntry, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a user system needs a non-empty name")
        if not isinstance(self.entries, tuple):
            raise ValueError("entries must be a tuple of ItemEntry")
        seen: set[str] = set()
        for entry in self.entries:
            if not isinstance(entry, ItemEntry):
                raise ValueError(f"entries must be ItemEntry objects, got {entry!r}")
            score_item(entry)
            if entry.item_id in seen:
                raise ValueError(f"duplicate entry for item {entry.item_id}")
            seen.add(entry.item_id)


def score_user_system(system: UserSystem) -> ScoredSystem:
    """Apply the rubric's rules to a user's entries (live scoring).

    Examples
    --------
    >>> card = score_user_system(UserSystem("mine", (
    ...     ItemEntry("SELF-2", 1, 3, confidence=1),
    ...     ItemEntry("PP-3", 2, (0, 1)))))
    >>> card.item("SELF-2").behavioural, card.item("SELF-2").rules_applied
    (1, ('lm_cap',))
    >>> card.item("PP-3").behavioural, card.behavioural_total, card.behavioural_range
    (0, 1, (0, 1))
    """
    return score_system(system.name, system.entries)


def _clause_to_json(value: ClauseValue | None) -> int | list[int] | None:
    return list(value) if isinstance(value, tuple) else value


def user_system_to_dict(system: UserSystem) -> dict:
    """The JSON-ready dict of a user system (see the module docstring for the format)."""
    items = []
    for entry in system.entries:
        if not entry.applicable:
            record: dict = {
                "item_id": entry.item_id,
                "not_applicable_reason": entry.not_applicable_reason,
            }
            if entry.evidence:
                record["evidence"] = entry.evidence
        else:
            record = {
                "item_id": entry.item_id,
                "architectural": _clause_to_json(entry.architectural),
                "behavioural": _clause_to_json(entry.behavioural),
                "confidence": entry.confidence,
                "operational_evidence": entry.operational_evidence,
                "evidence": entry.evidence,
            }
        items.append(record)
    return {"format": JSON_FORMAT, "version": JSON_VERSION, "name": system.name, "items": items}


def user_system_to_json(system: UserSystem) -> str:
    """Serialise a user system to JSON.

    Examples
    --------
    >>> text = user_system_to_json(UserSystem("mine", (ItemEntry("HOT-2", 2, (2, 3)),)))
    >>> user_system_from_json(text) == UserSystem("mine", (ItemEntry("HOT-2", 2, (2, 3)),))
    True
    """
    return json.dumps(user_system_to_dict(system), ensure_ascii=False, indent=2)


def _clause_from_json(value: object, where: str) -> ClauseValue:
    if isinstance(value, list):
        if len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise ValueError(
                f"{where} must be an integer 0-3 or a pair of adjacent integers, "
                f"got {_shown(value)}"
            )
        return (value[0], value[1])
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"{where} must be an integer 0-3 or a pair of adjacent integers, got {_shown(value)}"
        )
    return value


def _entry_from_dict(record: object, index: int) -> ItemEntry:
    where = f"items[{index}]"
    if not isinstance(record, Mapping):
        raise ValueError(f"{where} must be an object, got {_shown(record)}")
    unknown = sorted(set(record) - _ITEM_KEYS)
    if unknown:
        raise ValueError(f"{where} has unknown keys {_shown(unknown)}")
    item_id = record.get("item_id")
    if not isinstance(item_id, str):
        raise ValueError(f"{where} needs a string item_id")
    if item_id not in ITEM_BY_ID:
        raise ValueError(f"{where}: unknown rubric item id {_shown(item_id)}")
    where = f"{where} ({item_id})"
    evidence = record.get("evidence", "")
    if not isinstance(evidence, str):
        raise ValueError(f"{where}: evidence must be a string")
    reason = record.get("not_applicable_reason")
    if reason is not None:
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{where}: not_applicable_reason must be a non-empty string")
        scored_keys = sorted(
            {"architectural", "behavioural", "confidence", "operational_evidence"} & set(record)
        )
        if scored_keys:
            raise ValueError(f"{where}: a not-applicable item cannot carry {scored_keys}")
        return ItemEntry(item_id, None, None, evidence=evidence, not_applicable_reason=reason)
    for key in ("architectural", "behavioural"):
        if key not in record:
            raise ValueError(f"{where}: missing {key!r} (or give a not_applicable_reason)")
    confidence = record.get("confidence", 0)
    if isinstance(confidence, bool) or not isinstance(confidence, int):
        raise ValueError(f"{where}: confidence must be 0, 1 or 2, got {_shown(confidence)}")
    operational = record.get("operational_evidence", False)
    if not isinstance(operational, bool):
        raise ValueError(f"{where}: operational_evidence must be true or false")
    return ItemEntry(
        item_id,
        _clause_from_json(record["architectural"], f"{where} architectural"),
        _clause_from_json(record["behavioural"], f"{where} behavioural"),
        confidence=confidence,
        operational_evidence=operational,
        evidence=evidence,
    )


def user_system_from_dict(data: object) -> UserSystem:
    """Build and validate a user system from its JSON-ready dict.

    Raises
    ------
    ValueError
        Wrong format or version, unknown keys, unknown item ids, out-of-range scores,
        duplicates, or a malformed item.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"a scorecard must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _TOP_LEVEL_KEYS)
    if unknown:
        raise ValueError(f"unknown top-level keys {_shown(unknown)}")
    if data.get("format") != JSON_FORMAT:
        raise ValueError(f"not a {JSON_FORMAT!r} document (format={_shown(data.get('format'))})")
    if data.get("version") != JSON_VERSION:
        raise ValueError(
            f"unsupported version {_shown(data.get('version'))}; expected {JSON_VERSION}"
        )
    name = data.get("name")
    if not isinstance(name, str):
        raise ValueError("name must be a string")
    items = data.get("items")
    if not isinstance(items, list):
        raise ValueError("items must be a list")
    if len(items) > len(ITEM_IDS):
        raise ValueError(
            f"items has {len(items)} entries but the rubric has only {len(ITEM_IDS)} items"
        )
    entries = tuple(_entry_from_dict(record, i) for i, record in enumerate(items))
    return UserSystem(name, entries)


def user_system_from_json(text: str) -> UserSystem:
    """Parse and validate a user system from JSON text.

    Parameters
    ----------
    text : str
        The document (see the module docstring for the format).

    Returns
    -------
    UserSystem

    Raises
    ------
    ValueError
        Text longer than :data:`MAX_IMPORT_BYTES` characters, brackets nested deeper than
        :data:`MAX_NESTING_DEPTH` (checked before parsing), malformed JSON, or anything
        :func:`user_system_from_dict` rejects. The message is one sentence.

    Examples
    --------
    >>> user_system_from_json("{not json")
    Traceback (most recent call last):
    ...
    ValueError: malformed JSON: Expecting property name enclosed in double quotes: line 1 column 2
    (char 1)
    >>> user_system_from_json("[" * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: brackets are nested more than 32 levels deep (a scorecard needs 4)
    """
    if not isinstance(text, str):
        raise ValueError(f"expected JSON text, got {type(text).__name__}")
    if len(text) > MAX_IMPORT_BYTES:
        raise ValueError(
            f"the text is {len(text):,} characters long; a scorecard may be at "
            f"most {MAX_IMPORT_BYTES:,}"
        )
    if _nesting_exceeds(text, MAX_NESTING_DEPTH):
        raise ValueError(
            f"brackets are nested more than {MAX_NESTING_DEPTH} levels deep (a scorecard needs 4)"
        )
    try:
        data = json.loads(text)
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise ValueError(f"malformed JSON: {error}") from None
    return user_system_from_dict(data)


def user_system_from_bytes(data: bytes) -> UserSystem:
    """Parse and validate an uploaded scorecard file, checking its size before decoding it.

    Parameters
    ----------
    data : bytes
        The raw file. At most :data:`MAX_IMPORT_BYTES`; UTF-8 (a byte-order mark is allowed).

    Returns
    -------
    UserSystem

    Raises
    ------
    ValueError
        A file over the size cap (checked first, on the raw bytes), bytes that are not UTF-8,
        or anything :func:`user_system_from_json` rejects. The message is one sentence.

    Examples
    --------
    >>> user_system_from_bytes(b"\\xff\\xfe{}")
    Traceback (most recent call last):
    ...
    ValueError: the file is not UTF-8 text (byte 0 cannot be decoded)
    >>> user_system_from_bytes(b" " * (MAX_IMPORT_BYTES + 1))
    Traceback (most recent call last):
    ...
    ValueError: the file is 1,048,577 bytes; a scorecard may be at most 1,048,576 bytes (1 MiB)
    """
    if not isinstance(data, bytes | bytearray):
        raise ValueError(f"expected the file's bytes, got {type(data).__name__}")
    if len(data) > MAX_IMPORT_BYTES:
        raise ValueError(
            f"the file is {len(data):,} bytes; a scorecard may be at most "
            f"{MAX_IMPORT_BYTES:,} bytes (1 MiB)"
        )
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the file is not UTF-8 text (byte {error.start} cannot be decoded)"
        ) from None
    return user_system_from_json(text)


def clause_to_text(value: ClauseValue | None) -> str | None:
    """A clause as a table shows it: ``"2"``, ``"2-3"`` for a between-clauses pair, None if unset.

    Examples
    --------
    >>> clause_to_text(2), clause_to_text((2, 3)), clause_to_text(None)
    ('2', '2-3', None)
    """
    if value is None:
        return None
    if isinstance(value, tuple):
        return f"{value[0]}-{value[1]}"
    return str(value)


def clause_from_text(text: object, what: str) -> ClauseValue | None:
    """Read a clause typed in a table: ``"2"``, ``"2-3"`` (between 2 and 3), or empty.

    Parameters
    ----------
    text : str or number or None
        The cell. Empty (None, NaN or blank) means "not given".
    what : str
        Names the cell in the error, e.g. ``"HOT-2 behavioural"``.

    Returns
    -------
    int or (int, int) or None
        Ranges (0-3, adjacency) are checked later by the rubric's rules, which name the item.

    Raises
    ------
    ValueError
        Text that is neither a whole number nor two of them.

    Examples
    --------
    >>> clause_from_text("2-3", "HOT-2 behavioural"), clause_from_text(" ", "x")
    ((2, 3), None)
    >>> clause_from_text("high", "HOT-2 behavioural")
    Traceback (most recent call last):
    ...
    ValueError: HOT-2 behavioural: 'high' is not a clause 0-3 or two adjacent clauses like 2-3
    """
    if text is None or (isinstance(text, float) and text != text):
        return None
    if isinstance(text, float) and text.is_integer():
        return int(text)
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if isinstance(text, str) and not text.strip():
        return None
    match = _CLAUSE_TEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"{what}: {_shown(text, 30)} is not a clause 0-3 or two adjacent clauses like 2-3"
        )
    lower, upper = match.groups()
    return int(lower) if upper is None else (int(lower), int(upper))


def assessed_total_text(card: ScoredSystem) -> str:
    """The behavioural total with what it covers, e.g. ``"42 / 60 over the 20 items scored; 10
    not assessed"``.

    Items nobody assessed are not counted as 0: the denominator is 3 points per scored item.
    When every item was assessed the rubric's 90-point total is given first.

    Parameters
    ----------
    card : ScoredSystem

    Returns
    -------
    str

    Examples
    --------
    >>> assessed_total_text(score_system("x", [ItemEntry("HOT-2", 2, 3), ItemEntry("PP-3", 1, 1)]))
    '4 / 6 over the 2 items scored; 28 not assessed'
    >>> assessed_total_text(score_system("x", []))
    'no item scored; 30 not assessed'
    """
    scored = card.n_applicable
    plural = "" if scored == 1 else "s"
    text = (
        f"{card.behavioural_total} / {card.applicable_max_points} over the {scored} "
        f"item{plural} scored"
    )
    if scored == 0:
        text = "no item scored"
    if card.complete and card.n_not_applicable == 0:
        return f"{card.behavioural_total} / {MAX_TOTAL} over all {len(ITEM_IDS)} items"
    if card.complete:
        text = f"{card.behavioural_total} / {MAX_TOTAL}; {text}"
    if card.n_not_applicable:
        text += f"; {card.n_not_applicable} not applicable"
    if card.n_not_assessed:
        text += f"; {card.n_not_assessed} not assessed"
    return text


def make_user_system(name: str, entries: Iterable[ItemEntry]) -> UserSystem:
    """Convenience constructor from any iterable of entries."""
    return UserSystem(name, tuple(entries))
