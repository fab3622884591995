"""Every test of ``tests/ui`` (the page tests of ``pages/`` among them) sees the real exception text
and trains in the test process, into a folder of its own; ``pages/conftest.py`` adds the page
fixtures.

The app hides error details from its users (``client.showErrorDetails = "none"`` in
.streamlit/config.toml, a backstop); a failing page test needs the message to be useful.
"""

from __future__ import annotations

import pytest
from streamlit import config


@pytest.fixture(autouse=True)
def _full_error_details():
    before = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    yield
    config.set_option("client.showErrorDetails", before)


@pytest.fixture(autouse=True)
def _training_in_this_process(monkeypatch, tmp_path):
    """Page tests train in the test process (a monkeypatched trainer applies), one job at a time,
    and keep visitors' agents and seed reservations in a folder of their own (never runs/user)."""
    from ui import data, jobs

    queue = jobs.TrainingQueue(workers=1, in_process=True)
    monkeypatch.setattr(data, "training_queue", lambda: queue)
    monkeypatch.setattr(data, "USER_RUNS_DIR", tmp_path / "user-runs")
    yield queue
    queue.wait_idle(30)


@pytest.fixture(autouse=True)
def _class_store_of_its_own(monkeypatch, tmp_path):
    """Every UI test's classes live in a file of its own (never runs/class)."""
    path = tmp_path / "class.sqlite"
    monkeypatch.setenv("CTLAB_CLASS_DB", str(path))
    return path
