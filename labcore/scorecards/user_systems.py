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

``behavioural: [2, 3]`` means "between clauses 2 and 3" (the lower is taken, OSMD A.9).
Items left out are scored as N/A with the reason "no entry".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labcore.scorecards.rubric import (
    ClauseValue,
    ItemEntry,
    ScoredSystem,
    score_item,
    score_system,
)
from labcore.scorecards.rubric_data import ITEM_BY_ID

JSON_FORMAT = "ctlab.osmd_scorecard"
JSON_VERSION = 1
_TOP_LEVEL_KEYS = frozenset({"format", "version", "name", "items"})
_ITEM_KEYS = frozenset({"item_id", "architectural", "behavioural", "confidence",
                        "operational_evidence", "evidence", "not_applicable_reason"})


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
            record: dict = {"item_id": entry.item_id,
                            "not_applicable_reason": entry.not_applicable_reason}
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
    return {"format": JSON_FORMAT, "version": JSON_VERSION, "name": system.name,
            "items": items}


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
        if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                      for v in value):
            raise ValueError(f"{where} must be an integer 0-3 or a pair of adjacent integers, "
                             f"got {value!r}")
        return (value[0], value[1])
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where} must be an integer 0-3 or a pair of adjacent integers, "
                         f"got {value!r}")
    return value


def _entry_from_dict(record: object, index: int) -> ItemEntry:
    where = f"items[{index}]"
    if not isinstance(record, Mapping):
        raise ValueError(f"{where} must be an object, got {record!r}")
    unknown = sorted(set(record) - _ITEM_KEYS)
    if unknown:
        raise ValueError(f"{where} has unknown keys {unknown}")
    item_id = record.get("item_id")
    if not isinstance(item_id, str):
        raise ValueError(f"{where} needs a string item_id")
    if item_id not in ITEM_BY_ID:
        raise ValueError(f"{where}: unknown rubric item id {item_id!r}")
    where = f"{where} ({item_id})"
    evidence = record.get("evidence", "")
    if not isinstance(evidence, str):
        raise ValueError(f"{where}: evidence must be a string")
    reason = record.get("not_applicable_reason")
    if reason is not None:
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{where}: not_applicable_reason must be a non-empty string")
        scored_keys = sorted({"architectural", "behavioural", "confidence",
                              "operational_evidence"} & set(record))
        if scored_keys:
            raise ValueError(f"{where}: a not-applicable item cannot carry {scored_keys}")
        return ItemEntry(item_id, None, None, evidence=evidence, not_applicable_reason=reason)
    for key in ("architectural", "behavioural"):
        if key not in record:
            raise ValueError(f"{where}: missing {key!r} (or give a not_applicable_reason)")
    confidence = record.get("confidence", 0)
    if isinstance(confidence, bool) or not isinstance(confidence, int):
        raise ValueError(f"{where}: confidence must be 0, 1 or 2, got {confidence!r}")
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
        raise ValueError(f"unknown top-level keys {unknown}")
    if data.get("format") != JSON_FORMAT:
        raise ValueError(f"not a {JSON_FORMAT!r} document (format={data.get('format')!r})")
    if data.get("version") != JSON_VERSION:
        raise ValueError(f"unsupported version {data.get('version')!r}; expected {JSON_VERSION}")
    name = data.get("name")
    if not isinstance(name, str):
        raise ValueError("name must be a string")
    items = data.get("items")
    if not isinstance(items, list):
        raise ValueError("items must be a list")
    entries = tuple(_entry_from_dict(record, i) for i, record in enumerate(items))
    return UserSystem(name, entries)


def user_system_from_json(text: str) -> UserSystem:
    """Parse and validate a user system from JSON text.

    Raises
    ------
    ValueError
        Malformed JSON, or anything :func:`user_system_from_dict` rejects.

    Examples
    --------
    >>> user_system_from_json("{not json")
    Traceback (most recent call last):
    ...
    ValueError: malformed JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
    """
    if not isinstance(text, str):
        raise ValueError(f"expected JSON text, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"malformed JSON: {error}") from None
    return user_system_from_dict(data)


def make_user_system(name: str, entries: Iterable[ItemEntry]) -> UserSystem:
    """Convenience constructor from any iterable of entries."""
    return UserSystem(name, tuple(entries))
