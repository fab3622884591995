"""Score "a system of your own": the scorecard file a user imports and exports, and its totals.

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

The format is one pydantic model, :class:`UserSystem`, whose items are the rubric's own
:class:`~labcore.scorecards.rubric.ItemEntry`; ``behavioural: [2, 3]`` ("between", A.9) is kept
as entered. Items left out are *not assessed* (:func:`assessed_total_text`). A refused file is
one :class:`~labcore.scorecards.contract.ContractError` sentence naming the field; size (1 MiB),
UTF-8 and bracket nesting (32 levels) are checked before parsing.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_serializer,
    field_validator,
)
from pydantic_core import PydanticCustomError

from labcore.scorecards.contract import ContractError, contract_error, field_path, shown
from labcore.scorecards.documents import ITEM_IDS
from labcore.scorecards.rubric import (
    CLAUSE_TAGS,
    MAX_TOTAL,
    ItemEntry,
    NonBlank,
    ScoredSystem,
    score_system,
)

JSON_FORMAT = "ctlab.osmd_scorecard"
JSON_VERSION = 1
MAX_IMPORT_BYTES = 1024 * 1024
MAX_NESTING_DEPTH = 32
"""Deepest bracket nesting accepted (the format needs 4): ``json.loads``'s recursion is finite."""
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to skip; an unterminated one runs to the end) or a bracket."""
_ENTRY = TypeAdapter(ItemEntry)


class UserSystem(BaseModel):
    """A user's own system as its scorecard file holds it: a name, at most one entry per item.

    Examples
    --------
    >>> system = UserSystem(name="mine", items=(ItemEntry("HOT-2", 2, (2, 3)),))
    >>> user_system_from_json(user_system_to_json(system)) == system
    True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[JSON_FORMAT] = JSON_FORMAT
    version: Literal[JSON_VERSION] = JSON_VERSION
    name: NonBlank
    items: Annotated[tuple[ItemEntry, ...], Field(max_length=len(ITEM_IDS))] = ()

    @field_validator("items")
    @classmethod
    def _each_item_once(cls, items: tuple[ItemEntry, ...]) -> tuple[ItemEntry, ...]:
        seen: set[str] = set()
        for entry in items:
            if entry.item_id in seen:
                raise PydanticCustomError(
                    "duplicate_item", "{item_id} is entered twice", {"item_id": entry.item_id}
                )
            seen.add(entry.item_id)
        return items

    @field_serializer("items")
    def _items_as_written(self, items: tuple[ItemEntry, ...]) -> list[dict[str, Any]]:
        return [
            _ENTRY.dump_python(
                e, mode="json", exclude_none=e.applicable, exclude_defaults=not e.applicable
            )
            for e in items
        ]


def score_user_system(system: UserSystem) -> ScoredSystem:
    """Apply the rubric's rules to a user's entries (live scoring).

    Examples
    --------
    >>> card = score_user_system(UserSystem(name="mine", items=(
    ...     ItemEntry("SELF-2", 1, 3, confidence=1), ItemEntry("PP-3", 2, (0, 1)))))
    >>> card.item("SELF-2").behavioural, card.item("SELF-2").rules_applied
    (1, ('lm_cap',))
    >>> card.item("PP-3").behavioural, card.behavioural_total, card.behavioural_range
    (0, 1, (0, 1))
    """
    return score_system(system.name, system.items)


def user_system_to_json(system: UserSystem) -> str:
    """The scorecard file of a user system."""
    return system.model_dump_json(indent=2)


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
        item += f" ({item_id if item_id in ITEM_IDS else shown(item_id, 30)})"
    rest = field_path(loc[2:])
    return f"{item} {rest}" if rest else item


def _nesting_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside JSON strings nest deeper than ``limit``."""
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


def user_system_from_json(text: str) -> UserSystem:
    """Parse and validate a user system from JSON text; one ContractError sentence on a refusal.

    Examples
    --------
    >>> user_system_from_json('{"name": "x", "items": [{"item_id": "HOT-2", "architectural": 2,'
    ...     ' "behavioural": [3, 4]}]}')
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: items[0] (HOT-2) behavioural[1]: input should be
    less than or equal to 3, got 4
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
    try:
        return UserSystem.model_validate(data)
    except ValidationError as exc:  # the one place a refusal becomes a sentence
        raise contract_error(exc, skip=CLAUSE_TAGS, where=lambda loc: _where(loc, data)) from None


def user_system_from_bytes(data: bytes) -> UserSystem:
    """Parse and validate an uploaded scorecard file, checking its size before decoding it.

    Examples
    --------
    >>> user_system_from_bytes(b"\\xff\\xfe{}")
    Traceback (most recent call last):
    ...
    labcore.scorecards.contract.ContractError: the file is not UTF-8 text (byte 0 cannot be
    decoded)
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


def assessed_total_text(card: ScoredSystem) -> str:
    """The behavioural total with what it covers: items nobody assessed are not counted as 0.

    Examples
    --------
    >>> assessed_total_text(score_system("x", [ItemEntry("HOT-2", 2, 3), ItemEntry("PP-3", 1, 1)]))
    '4 / 6 over the 2 items scored; 28 not assessed'
    >>> assessed_total_text(score_system("x", []))
    'no item scored; 30 not assessed'
    """
    scored = card.n_applicable
    if card.complete and card.n_not_applicable == 0:
        return f"{card.behavioural_total} / {MAX_TOTAL} over all {len(ITEM_IDS)} items"
    text = (
        f"{card.behavioural_total} / {card.applicable_max_points} over the {scored} "
        f"item{'' if scored == 1 else 's'} scored"
        if scored
        else "no item scored"
    )
    if card.complete:
        text = f"{card.behavioural_total} / {MAX_TOTAL}; {text}"
    if card.n_not_applicable:
        text += f"; {card.n_not_applicable} not applicable"
    if card.n_not_assessed:
        text += f"; {card.n_not_assessed} not assessed"
    return text
