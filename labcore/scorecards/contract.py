"""A broken contract as one sentence naming the field: the one conversion of pydantic's errors.

The lab's data files, a user's scorecard file and people's trial files are read through pydantic;
a refusal is a :class:`ContractError`, a ``ValueError`` whose message is one sentence and which
carries the field and the kind of problem.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from labcore.findings import field_path


class ContractError(ValueError):
    """A value that breaks a data contract, as one sentence naming the field; ``field`` says
    where (``"items[0].behavioural"``), ``kind`` what is wrong (pydantic's error type or ours)."""

    def __init__(self, message: str, field: str = "", kind: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.kind = kind


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters, for messages quoting what was given."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_MESSAGES = {
    "model_type": "should be an object",
    "model_attributes_type": "should be an object",
    "dataclass_type": "should be an object",
    "extra_forbidden": "unknown field",
    "unexpected_keyword_argument": "unknown field",
    "tuple_type": "should be a list",
    "too_long": "should have at most {max_length} entries, not {actual_length}",
    "too_short": "should have at least {min_length} entries, not {actual_length}",
}
"""Clearer words for pydantic errors that would otherwise name a class (filled from ``ctx``)."""
_NO_INPUT = frozenset(
    {"missing", "extra_forbidden", "unexpected_keyword_argument", "too_long", "too_short"}
)
"""Errors whose sentence already says what was given (or that nothing was)."""


def contract_error(
    exc: ValidationError,
    what: str = "",
    skip: frozenset[str] = frozenset(),
    where: Callable[[tuple[Any, ...]], str] = field_path,
) -> ContractError:
    """The first problem of a pydantic error as one sentence naming the field (and how many more).

    ``what`` prefixes the sentence (a file's name); ``skip`` are location parts that name no
    field (a tagged union's tags); ``where`` shows a location to a reader.

    Examples
    --------
    >>> from pydantic import BaseModel
    >>> class Band(BaseModel):
    ...     low: int
    ...     meaning: str
    >>> try:
    ...     Band.model_validate({"low": 11})
    ... except ValidationError as exc:
    ...     error = contract_error(exc, "bands.json")
    >>> str(error), error.field, error.kind
    ('bands.json: meaning: field required', 'meaning', 'missing')
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = tuple(part for part in first["loc"] if part not in skip)
    message = first["msg"]
    if first["type"] in _MESSAGES:
        message = _MESSAGES[first["type"]].format(**first.get("ctx", {}))
    elif message[:1].isupper() and message[1:2].islower():  # pydantic's "Input should be ..."
        message = message[0].lower() + message[1:]
    given = first.get("input")
    container = isinstance(given, Mapping | list | tuple)  # quoted only when its type is wrong
    if first["type"] not in _NO_INPUT and "input" in first:
        if not container or first["type"].endswith("_type"):
            message += f", got {shown(given)}"
    if len(errors) > 1:
        message += f" ({len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    prefix = ": ".join(part for part in (what, where(loc)) if part)
    return ContractError(
        f"{prefix}: {message}" if prefix else message, field_path(loc), first["type"]
    )
