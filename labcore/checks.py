"""The lab's checks of a value: among its choices (:func:`check_choice`) and a setting a config
refuses (:class:`ConfigError`); each error carries a record beside its sentence."""

from __future__ import annotations

from collections.abc import Iterable


class ConfigError(ValueError):
    """A setting the lab refuses; ``fields`` names the settings the failed check concerns."""

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = tuple(fields)


def _check(condition: bool, message: str, fields: tuple[str, ...] = ()) -> None:
    """Raise :class:`ConfigError` with ``message`` and ``fields`` unless ``condition``."""
    if not condition:
        raise ConfigError(message, fields)


def choice_error(value: object, name: str, choices: Iterable[object]) -> str | None:
    """The sentence saying ``value`` is not among ``choices``, or None when it is.

    >>> choice_error("fast", "mode", ("fast", "paper")) is None
    True
    >>> choice_error("slow", "mode", ("fast", "paper"))
    "mode must be one of ('fast', 'paper'), got 'slow'"
    """
    choices = tuple(choices)
    return None if value in choices else f"{name} must be one of {choices!r}, got {value!r}"


class ChoiceError(ValueError):
    """A value that is not among its choices; ``str()`` is :func:`choice_error`'s sentence."""

    def __init__(self, value: object, name: str, choices: Iterable[object]) -> None:
        self.value, self.name, self.choices = value, name, tuple(choices)
        super().__init__(choice_error(value, name, self.choices))

    def __reduce__(self) -> tuple:
        """Pickled with its record (worker processes send it back whole)."""
        return (type(self), (self.value, self.name, self.choices))


def check_choice(value: object, name: str, choices: Iterable[object]) -> None:
    """Raise :class:`ChoiceError` (a ``ValueError``) unless ``value`` is one of ``choices``.

    >>> check_choice("zero", "self_model_mode", ("on", "zero"))
    >>> check_choice("off", "self_model_mode", ("on", "zero"))
    Traceback (most recent call last):
    ...
    labcore.checks.ChoiceError: self_model_mode must be one of ('on', 'zero'), got 'off'
    """
    choices = tuple(choices)
    if value not in choices:
        raise ChoiceError(value, name, choices)
