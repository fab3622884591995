"""The error a call raises, for tests that read its record (a kind, a field, a name) rather than
its sentence (issue 32 item 4). Imported as ``from tests.refusals import refused``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def refused(error: type[BaseException], call: Callable[..., Any], *args: Any, **kwargs: Any):
    """The ``error`` that ``call(*args, **kwargs)`` raises (the test fails if it raises none)."""
    with pytest.raises(error) as caught:
        call(*args, **kwargs)
    return caught.value
