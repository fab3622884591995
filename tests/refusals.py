"""The error a call raises, for tests that read its record (a kind, a field, a name) rather than
its sentence. Imported as ``from tests.refusals import refused``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def refused(error: type[BaseException], call: Callable[..., Any], *args: Any, **kwargs: Any):
    """The ``error`` that ``call(*args, **kwargs)`` raises (the test fails if it raises none)."""
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    return caught.value


def undefined(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[str | None]]:
    """``call``'s value and the ``reason`` of each :class:`~labcore.UndefinedMetricWarning` it
    warned (the test fails if it warned none)."""
    from labcore import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning) as caught:
        value = call(*args, **kwargs)
    return value, [
        w.message.reason for w in caught if isinstance(w.message, UndefinedMetricWarning)
    ]


def reasons_of(caught: Any) -> list[str | None]:
    """The ``reason`` of each :class:`~labcore.UndefinedMetricWarning` a ``pytest.warns`` block
    caught."""
    from labcore import UndefinedMetricWarning

    return [w.message.reason for w in caught if isinstance(w.message, UndefinedMetricWarning)]
