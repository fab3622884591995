"""The real parts the browser tests drive (Debian's chromium, Playwright, nginx): one check of what
is missing, and one rule for it. Imported by those tests (``from tests.ui.real_parts import ...``).

Without a part a test skips with the reason; with ``CTLAB_REQUIRE_BROWSER=1`` (``.ci/run`` sets
it) a missing part is a failure, so CI cannot pass by skipping.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from ui.serve import CHROMIUM, NGINX


def missing(*, nginx: bool = False) -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    if nginx and not Path(NGINX).exists():
        return f"no nginx at {NGINX} (install Debian's nginx package: apt-get install nginx)"
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM} (install Debian's chromium package)"
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed"
    return None


def require_real_parts(*, nginx: bool = False) -> None:
    """Skip (or, under ``CTLAB_REQUIRE_BROWSER=1``, fail) when a real part is missing."""
    reason = missing(nginx=nginx)
    if reason:
        if os.environ.get("CTLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CTLAB_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
