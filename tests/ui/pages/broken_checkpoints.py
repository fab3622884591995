"""What the page tests on broken checkpoints share (the ``lab`` fixture of ``conftest.py`` is the
copy
they break): one broken file, and the one error a page must then show while the other agents stay.

Imported by the page files (``from tests.ui.pages.broken_checkpoints import flip_byte``).
"""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from labcore.config import AGENT_KINDS
from labcore.storage.checkpoints import checkpoint_file
from tests.agents.checkpoint_files import flip_weight_byte
from tests.ui.apptest_pages import ROOT
from ui import data

BUNDLED_CHECKPOINTS = ROOT / "checkpoints"
BROKEN = "dual-b1-s0"


def flip_byte(d: Path, name: str = BROKEN) -> None:
    """One flipped bit in the tensor data: the file parses, its content hash no longer matches."""
    f = checkpoint_file(d, name)
    flip_weight_byte(f, f.stat().st_size // 2)


def errors(at: AppTest) -> list[str]:
    """The error boxes of the page."""
    return [e.value for e in at.error]


def assert_one_error_naming(at: AppTest, *names: str) -> None:
    """No exception, one error naming every one of ``names`` and saying what to do, the page still
    there."""
    assert not at.exception, [e.value for e in at.exception]
    naming = [e for e in errors(at) if all(n in e for n in names)]
    assert len(naming) == 1, errors(at)
    assert (
        "restore" in naming[0] and "`git checkout checkpoints/" in naming[0]
    )  # and says what to do
    assert "Traceback" not in " ".join(errors(at))
    assert at.title  # the page itself is still there


def agent_options(at: AppTest, page: str) -> set[str]:
    """The agent kinds the page's agent selector offers."""
    shown = at.selectbox(key=f"{page}.agent").options
    return {k for k in AGENT_KINDS if data.label(k) in shown}


def chart_agents(at: AppTest, key: str) -> set[str]:
    """The x labels of a plotly chart (the agents a bar chart shows)."""
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
    return {x for trace in json.loads(chart.proto.spec)["data"] for x in trace.get("x", [])}
