"""Teacher mode (issue 24, defect 10): links a class can open, Home pointing to the lesson and the
mystery, and a training progress bar that moves."""

from __future__ import annotations

import pytest

from labcore.classroom import lesson, mystery
from labcore.config import TrainConfig
from tests.ui.apptest_pages import exceptions, open_page
from ui import jobs, share

BASE = "http://192.168.1.20:8501"


def page_links(at) -> dict[str, str]:
    return {e.proto.label: e.proto.page for e in at.get("page_link")}


def test_home_points_to_the_lesson_and_the_mystery():
    at = open_page("home")
    assert not exceptions(at)
    links = page_links(at)
    assert links.get("Start the lesson") == "lesson" and links.get("Make a puzzle") == "mystery"


def test_lesson_links_and_handout_use_the_configured_address(monkeypatch):
    monkeypatch.setenv(share.BASE_URL_ENV, BASE + "/")
    given = []
    real = lesson.handout_html
    monkeypatch.setattr(lesson, "handout_html", lambda steps, address, *a, **k: (given.append(address),
                                                                                 real(steps, address, *a, **k))[1])
    at = open_page("lesson", {"step": "3"})
    assert not exceptions(at)
    assert any(c.value == f"{BASE}/lesson?step=3" for c in at.code), [c.value for c in at.code]
    assert len(at.get("image")) == 1, "its QR code"
    assert given and set(given) == {BASE}
    assert f'href="{BASE}/metacognition?' in real(lesson.LESSON, given[0], None, with_key=False)


def test_a_puzzle_link_uses_the_configured_address(monkeypatch):
    monkeypatch.setenv(share.BASE_URL_ENV, BASE)
    at = open_page("mystery")
    next(b for b in at.button if b.label == "Random puzzle").click().run()
    code = at.session_state["mystery.made"]
    assert any(c.value == f"{BASE}/mystery?code={code}" for c in at.code)
    assert mystery.decode(code)


@pytest.mark.parametrize(("url", "lan", "expected"), [
    ("http://127.0.0.1:8501/lesson?step=2", "10.1.2.3", ("http://10.1.2.3:8501", True)),
    ("http://[::1]:8501/mystery", "10.1.2.3", ("http://10.1.2.3:8501", True)),
    ("http://127.0.0.1:8501/mystery", None, ("http://127.0.0.1:8501", False)),
    ("http://lab.school:8080/ctlab/lesson", None, ("http://lab.school:8080/ctlab", True)),
])
def test_a_loopback_address_is_never_handed_to_students(url, lan, expected):
    assert share.base_url(url, lan=lan) == expected


def test_the_training_progress_ends_where_the_convergence_rule_can_stop():
    """The bar sat at 20% of the 3,000-update budget, then jumped to done: it now runs to the first
    update at which the rule could stop the run (``earliest_stop``), which the trainer reports."""
    from labcore.training.behaviour_cloning import train_seeds

    reports = []
    cfg = TrainConfig(max_updates=60, min_updates=4, eval_every=2, patience=2, heldout_episodes=32,
                      train_episodes=64, batch_episodes=8)
    train_seeds("wagering", "b2_ws", [5], cfg, progress=lambda d, t, m: reports.append((d, t, m)))
    for done, total, metrics in reports:
        assert done <= metrics["earliest_stop"] <= total
    done, total, last = reports[-1]
    assert last["earliest_stop"] == done  # the run ends where the bar does
    job = jobs.Job("j", "s", jobs.JobSpec("wagering", "b2_ws", 5, cfg, "."), state="running")
    job.progress = {"done": reports[0][0], "total": reports[0][1], **reports[0][2]}
    assert jobs.progress_fraction(job) == pytest.approx(reports[0][0] / reports[0][2]["earliest_stop"])


def test_the_training_progress_counts_a_wager_phase_after_convergence():
    """E4 again's phased kinds (protocol 8.8.2) train ``wager_updates`` more updates once behaviour
    cloning has converged: the bar's end includes them, before and during the phase."""
    from labcore.training.behaviour_cloning import train_seeds

    reports = []
    cfg = TrainConfig(max_updates=8, min_updates=4, eval_every=2, patience=1, heldout_episodes=32,
                      train_episodes=64, batch_episodes=8, wager_updates=20, curve_every=0)
    train_seeds("wagering", "reward_late", [5], cfg, progress=lambda d, t, m: reports.append((d, t, m)))
    assert reports[-1][1] == cfg.max_updates + cfg.wager_updates  # the budget counts the phase
    for done, total, metrics in reports:
        assert cfg.min_updates + cfg.wager_updates <= metrics["earliest_stop"] <= total
        assert done <= metrics["earliest_stop"] <= reports[-1][0]  # never past the run's real end
    assert reports[-1][2]["earliest_stop"] == reports[-1][0]
