"""The Home page: a class's first page imports nothing it does not draw (else a cold start
takes 5-7 s), and it points to the lesson and the mystery (teacher mode).

Speed is measured in bench/ (``python -m bench.bench_browser --cold``); the first test pins the
behaviour that makes it fast: Home, the page a class opens first, loads no agent, so no torch, scipy
or MiniGrid. It runs Home in a fresh process, so it does not use the ``open_page`` fixture.
"""

from __future__ import annotations

import subprocess
import sys

from tests.ui.apptest_pages import APP, ROOT, exceptions

HEAVY = (
    "torch",
    "scipy",
    "minigrid",
    "gymnasium",
    "labcore.measures",
    "labcore.agents",
    "labcore.stats",
)

PROBE = f"""
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({APP!r}, default_timeout=120)
at.run()
assert not at.exception, [e.value for e in at.exception]
assert at.title[0].value == "Consciousness-Theories Ablation Lab"
print(",".join(m for m in {HEAVY!r} if m in sys.modules))
"""


def test_home_in_a_fresh_process_imports_no_agent_machinery():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    loaded = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    assert loaded == "", f"the first page imported {loaded}"


def page_links(at) -> dict[str, str]:
    return {e.proto.label: e.proto.page for e in at.get("page_link")}


def test_home_points_to_the_lesson_and_the_mystery(open_page):
    at = open_page("home")
    assert not exceptions(at)
    links = page_links(at)
    assert links.get("Start the lesson") == "lesson" and links.get("Make a puzzle") == "mystery"


def test_in_projector_mode_a_card_link_carries_the_switch_its_page_would_add(open_page):
    """Arriving without it, the page would write ``projector=1`` into the URL: a history entry
    that makes Back take two presses."""
    for on in (False, True):
        at = open_page("home", {"projector": "1"} if on else None)
        cards = [e.proto for e in at.get("page_link") if e.proto.query_string]
        assert len(cards) == 5
        assert all(("projector=1" in c.query_string) == on for c in cards), cards
