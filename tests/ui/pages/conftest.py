"""What every page test gets: the ``open_page`` fixture (one way to open a page of the real app in
AppTest), and ``lab``, a copy of the bundled checkpoints for the tests that break one.

The autouse fixtures of ``tests/ui/conftest.py`` (full error details, training in this process into
a
folder of the test's own) apply here too.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui import apptest_pages
from tests.ui.pages.broken_checkpoints import BUNDLED_CHECKPOINTS
from ui import data


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """``open_page(page, params)``: run ``app_pages/<page>.py`` through the app (navigation, URL
    state)
    in a new AppTest session with URL ``params``; ``at=``: continue that session instead
    (:func:`tests.ui.apptest_pages.open_page`)."""
    return apptest_pages.open_page


@pytest.fixture
def lab(tmp_path, monkeypatch) -> Path:
    """A copy of the bundled checkpoints the pages read instead (the tracked folder is never
    touched)."""
    copy = tmp_path / "checkpoints"
    shutil.copytree(BUNDLED_CHECKPOINTS, copy)
    monkeypatch.setattr(data, "CHECKPOINTS_DIR", copy)
    monkeypatch.setattr(data, "ROOT", tmp_path)  # so the copy reads as the shipped `checkpoints/`
    return copy
