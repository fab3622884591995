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

The format is a pydantic model, :class:`ScorecardFile`: field types, ranges and allowed values
are declared there (and an N/A item is its own record, :class:`NotApplicableRecord`), and
:func:`user_system_from_dict` turns its first complaint into one sentence naming the field
(a :class:`~labcore.scorecards.contract.ContractError`, a ``ValueError``, with ``field`` and
``kind``). Limits checked before anything is decoded or parsed, each also one sentence: at most
:data:`MAX_IMPORT_BYTES` (1 MiB; a full 30-item scorecard with evidence text is a few kB), UTF-8
text (a byte-order mark is allowed), brackets nested at most :data:`MAX_NESTING_DEPTH` (32)
levels deep (the format needs 4).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from labcore.scorecards.contract import ContractError, contract_error, field_path
from labcore.scorecards.rubric import (
    MAX_ITEM_SCORE,
    MAX_TOTAL,
    ClauseValue,
    ItemEntry,
    ScoredSystem,
    score_item,
    score_system,
)
from labcore.scorecards.tables import ALLOWED_CONFIDENCES, ITEM_BY_ID, ITEM_IDS

JSON_FORMAT = "ctlab.osmd_scorecard"
JSON_VERSION = 1
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


# ----------------------------------------------------------------------------- the contract
def _known_item(item_id: str) -> str:
    if item_id not in ITEM_BY_ID:
        raise PydanticCustomError("unknown_item", "should be a rubric item id such as 'HOT-2'")
    return item_id


def _not_blank(text: str) -> str:
    if not text.strip():
        raise PydanticCustomError("blank", "should not be blank")
    return text


def _adjacent(pair: tuple[int, int]) -> tuple[int, int]:
    if pair[1] != pair[0] + 1:
        raise PydanticCustomError(
            "not_adjacent",
            "clauses {lower} and {upper} are not adjacent (a pair is k, k + 1, like [2, 3])",
            {"lower": pair[0], "upper": pair[1]},
        )
    return pair


def _clause_form(value: Any) -> str:
    return "pair" if isinstance(value, list | tuple) else "one"


def _item_form(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        return "not_applicable" if isinstance(value, NotApplicableRecord) else "scored"
    if not isinstance(value, Mapping):
        return None  # reported as "should be an object"
    return "scored" if value.get("not_applicable_reason") is None else "not_applicable"


ItemId = Annotated[StrictStr, AfterValidator(_known_item)]
NonBlank = Annotated[StrictStr, AfterValidator(_not_blank)]
Clause = Annotated[StrictInt, Field(ge=0, le=MAX_ITEM_SCORE)]
"""One clause, 0-3 (a bool or 2.0 is not one)."""
ClauseEntry = Annotated[
    Annotated[Clause, Tag("one")]
    | Annotated[tuple[Clause, Clause], AfterValidator(_adjacent), Tag("pair")],
    Discriminator(_clause_form),
]
"""A clause, or two adjacent clauses ``[k, k + 1]`` ("between", OSMD A.9 lower-of-two)."""
Confidence = Annotated[StrictInt, Field(ge=min(ALLOWED_CONFIDENCES), le=max(ALLOWED_CONFIDENCES))]
"""±0, ±1 or ±2 (OSMD §4.4)."""
_SCORED_KEYS = ("architectural", "behavioural", "confidence", "operational_evidence")
_TAGS = frozenset({"one", "pair", "scored", "not_applicable"})
"""Location parts pydantic adds for the tagged unions above; they name no field."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ScoredRecord(_Record):
    """A scored item of a scorecard file (``not_applicable_reason`` absent or null)."""

    item_id: ItemId
    architectural: ClauseEntry
    behavioural: ClauseEntry
    confidence: Confidence = 0
    operational_evidence: StrictBool = False
    evidence: StrictStr = ""
    not_applicable_reason: None = None

    def entry(self) -> ItemEntry:
        """The item as an :class:`~labcore.scorecards.rubric.ItemEntry`."""
        return ItemEntry(
            self.item_id,
            self.architectural,
            self.behavioural,
            confidence=self.confidence,
            operational_evidence=self.operational_evidence,
            evidence=self.evidence,
        )


class NotApplicableRecord(_Record):
    """An item a scorecard file marks not applicable: a reason, no scores."""

    item_id: ItemId
    not_applicable_reason: NonBlank
    evidence: StrictStr = ""

    @model_validator(mode="before")
    @classmethod
    def _no_scores(cls, data: Any) -> Any:
        carried = [key for key in _SCORED_KEYS if isinstance(data, Mapping) and key in data]
        if carried:
            raise PydanticCustomError(
                "scored_not_applicable",
                "a not-applicable item cannot carry {keys}",
                {"keys": ", ".join(carried)},
            )
        return data

    def entry(self) -> ItemEntry:
        """The item as an :class:`~labcore.scorecards.rubric.ItemEntry`."""
        return ItemEntry(
            self.item_id,
            None,
            None,
            evidence=self.evidence,
            not_applicable_reason=self.not_applicable_reason,
        )


ItemRecord = Annotated[
    Annotated[ScoredRecord, Tag("scored")] | Annotated[NotApplicableRecord, Tag("not_applicable")],
    Discriminator(
        _item_form, custom_error_type="item_type", custom_error_message="Input should be an object"
    ),
]


class ScorecardFile(_Record):
    """The import contract: a scorecard file, format version 1 (see the module docstring).

    Examples
    --------
    >>> card = ScorecardFile.model_validate({"format": JSON_FORMAT, "version": 1, "name": "x",
    ...     "items": [{"item_id": "HOT-2", "architectural": 2, "behavioural": [2, 3]}]})
    >>> card.items[0].entry().behavioural
    (2, 3)
    """

    format: Literal[JSON_FORMAT]
    version: Literal[JSON_VERSION]
    name: NonBlank
    items: Annotated[list[ItemRecord], Field(max_length=len(ITEM_IDS))]

    @field_validator("items")
    @classmethod
    def _each_item_once(cls, items: list) -> list:
        seen: set[str] = set()
        for record in items:
            if record.item_id in seen:
                raise PydanticCustomError(
                    "duplicate_item", "{item_id} is entered twice", {"item_id": record.item_id}
                )
            seen.add(record.item_id)
        return items


def _where(loc: tuple[Any, ...], data: object) -> str:
    """A location as the page shows it: an item's index and id, then its field."""
    if len(loc) < 2 or loc[0] != "items" or not isinstance(loc[1], int) or loc[2:3] == ("item_id",):
        return field_path(loc)
    try:
        item_id = data["items"][loc[1]]["item_id"]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        item_id = None
    item = f"items[{loc[1]}]"
    if isinstance(item_id, str):
        item += f" ({item_id if item_id in ITEM_BY_ID else _shown(item_id, 30)})"
    rest = field_path(loc[2:])
    return f"{item} {rest}" if rest else item


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


def user_system_from_dict(data: object) -> UserSystem:
    """Build and validate a user system from its JSON-ready dict, through :class:`ScorecardFile`.

    Raises
    ------
    ContractError
        A ``ValueError``: the first thing the file gets wrong (format or version, an unknown
        field or item id, a score out of range, a duplicate item, ...) in one sentence naming
        the field, with :attr:`~ContractError.field` and :attr:`~ContractError.kind` (pydantic's
        error type).

    Examples
    --------
    >>> user_system_from_dict({"format": JSON_FORMAT, "version": 1, "name": "x",
    ...     "items": [{"item_id": "HOT-2", "architectural": 2, "behavioural": [3, 4]}]})
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: items[0] (HOT-2) behavioural[1]: input should be
    less than or equal to 3, got 4
    """
    try:
        card = ScorecardFile.model_validate(data)
    except ValidationError as exc:  # the one place a refusal becomes a sentence
        raise contract_error(exc, skip=_TAGS, where=lambda loc: _where(loc, data)) from None
    return UserSystem(card.name, tuple(record.entry() for record in card.items))


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
    ContractError
        A ``ValueError``: text longer than :data:`MAX_IMPORT_BYTES` characters, brackets nested
        deeper than :data:`MAX_NESTING_DEPTH` (checked before parsing), malformed JSON, or
        anything :func:`user_system_from_dict` rejects. The message is one sentence.

    Examples
    --------
    >>> user_system_from_json("{not json")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: malformed JSON: Expecting property name enclosed in
    double quotes: line 1 column 2 (char 1)
    >>> user_system_from_json("[" * 100_000)
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: brackets are nested more than 32 levels deep (a
    scorecard needs 4)
    """
    if not isinstance(text, str):
        raise ContractError(f"expected JSON text, got {type(text).__name__}", kind="not_text")
    if len(text) > MAX_IMPORT_BYTES:
        raise ContractError(
            f"the text is {len(text):,} characters long; a scorecard may be at "
            f"most {MAX_IMPORT_BYTES:,}",
            kind="too_long",
        )
    if _nesting_exceeds(text, MAX_NESTING_DEPTH):
        raise ContractError(
            f"brackets are nested more than {MAX_NESTING_DEPTH} levels deep (a scorecard needs 4)",
            kind="too_deep",
        )
    try:
        data = json.loads(text)
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise ContractError(f"malformed JSON: {error}", kind="json_invalid") from None
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
    ContractError
        A ``ValueError``: a file over the size cap (checked first, on the raw bytes), bytes
        that are not UTF-8, or anything :func:`user_system_from_json` rejects. The message is
        one sentence.

    Examples
    --------
    >>> user_system_from_bytes(b"\\xff\\xfe{}")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: the file is not UTF-8 text (byte 0 cannot be
    decoded)
    >>> user_system_from_bytes(b" " * (MAX_IMPORT_BYTES + 1))
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: the file is 1,048,577 bytes; a scorecard may be at
    most 1,048,576 bytes (1 MiB)
    """
    if not isinstance(data, bytes | bytearray):
        raise ContractError(
            f"expected the file's bytes, got {type(data).__name__}", kind="not_bytes"
        )
    if len(data) > MAX_IMPORT_BYTES:
        raise ContractError(
            f"the file is {len(data):,} bytes; a scorecard may be at most "
            f"{MAX_IMPORT_BYTES:,} bytes (1 MiB)",
            kind="too_large",
        )
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ContractError(
            f"the file is not UTF-8 text (byte {error.start} cannot be decoded)", kind="not_utf8"
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


def clause_from_text(text: object, what: str, field: str = "") -> ClauseValue | None:
    """Read a clause typed in a table: ``"2"``, ``"2-3"`` (between 2 and 3), or empty.

    Parameters
    ----------
    text : str or number or None
        The cell. Empty (None, NaN or blank) means "not given".
    what : str
        Names the cell in the error, e.g. ``"HOT-2 behavioural"``.
    field : str
        The error's ``field`` (default ``what``), e.g. ``"HOT-2.behavioural"``.

    Returns
    -------
    int or (int, int) or None
        Ranges (0-3, adjacency) are checked later by the rubric's rules, which name the item.

    Raises
    ------
    ContractError
        A ``ValueError`` (``field``, ``kind`` = ``"not_a_clause"``): text that is
        neither a whole number nor two of them.

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
        raise ContractError(
            f"{what}: {_shown(text, 30)} is not a clause 0-3 or two adjacent clauses like 2-3",
            field=field or what,
            kind="not_a_clause",
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
