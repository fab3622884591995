"""The Lesson page in Streamlit's AppTest: every step renders and links its view, the URL is
clamped, the answer waits; its step and answer survive the sidebar and each step's link opens its
view without a rewritten URL; links and handout use the configured address (teacher mode)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from labcore.classroom import lesson
from labcore.classroom.lesson import LESSON, expected_answer, step_link
from labcore.experiments.paper_results import load_results
from labcore.findings import load_summary
from tests.ui.apptest_pages import ROOT, exceptions, join_block, navigate, url
from ui import share

BASE = "http://192.168.1.20:8501"


def shown_text(at: AppTest) -> str:
    """Every text the page shows (markdown, headers, alerts, captions, expander labels)."""
    parts = []
    for kind in (
        "title",
        "header",
        "subheader",
        "markdown",
        "caption",
        "success",
        "warning",
        "info",
        "error",
    ):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [e.label for e in at.expander]
    return "\n".join(parts)


def page_link(at: AppTest):
    return next(e.proto for e in at.get("page_link") if e.proto.label == "Open this view")


@pytest.mark.parametrize("n", range(1, len(LESSON) + 1))
def test_every_step_renders_and_links_its_view(open_page, n):
    step = LESSON[n - 1]
    at = open_page("lesson", {"step": str(n)})
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="lesson.step").value == n
    assert at.subheader[0].value == f"{n}. {step.title}"
    text = shown_text(at)
    assert step.question in text and all(c in text for c in step.choices)
    assert not at.warning, "a valid step gives no notice"
    link = page_link(at)
    assert link.page == (step.page or "")  # the link opens the step's page
    query = step_link(step).partition("?")[2]
    assert link.query_string == query
    at.button(key=f"lesson.show.{n}").click().run()
    assert not at.exception
    measured = load_summary(ROOT / "results" / "dissociations", study="dissociations").summary
    bundled = load_results(ROOT / "results" / "bundled")
    assert expected_answer(step, bundled, measured).text in shown_text(at)


def test_out_of_range_step_is_clamped_with_a_notice(open_page):
    at = open_page("lesson", {"step": "99"})
    assert not at.exception
    assert at.selectbox(key="lesson.step").value == len(LESSON)
    assert any("step=99" in w.value.replace("\\", "") for w in at.warning)
    assert at.query_params["step"] in (str(len(LESSON)), [str(len(LESSON))])
    bad = open_page("lesson", {"step": "![x](http://127.0.0.1:9/t.png)"})
    assert not bad.exception and bad.selectbox(key="lesson.step").value == 1
    assert bad.warning and not any(
        "](" in w.value for w in bad.warning
    )  # the URL text is quoted, not rendered


def test_answer_hidden_until_the_button(open_page):
    noise = next(i for i, s in enumerate(LESSON, 1) if s.page == "robustness")
    at = open_page("lesson", {"step": str(noise)})
    answer = expected_answer(LESSON[noise - 1], load_results(ROOT / "results" / "bundled"))
    assert answer.text not in shown_text(at) and LESSON[noise - 1].why not in shown_text(at)
    assert not at.success and not at.warning
    at.button(key=f"lesson.show.{noise}").click().run()
    text = shown_text(at)
    assert answer.text in text and LESSON[noise - 1].why in text
    assert "Paper: " in answer.text and any(answer.text in w.value for w in at.warning), (
        "where the lab differs from the paper the answer says both, as a warning"
    )
    at.button(key=f"lesson.hide.{noise}").click().run()
    assert answer.text not in shown_text(at)


def test_previous_and_next_move_and_update_the_url(open_page):
    at = open_page("lesson")
    assert at.selectbox(key="lesson.step").value == 1
    assert at.button(key="lesson.previous").disabled
    at.button(key="lesson.next").click().run()
    assert at.selectbox(key="lesson.step").value == 2
    assert at.query_params["step"] in ("2", ["2"])
    assert f"lesson.show.{2}" in [b.key for b in at.button], "the next step's answer starts hidden"
    at.button(key="lesson.previous").click().run()
    assert at.selectbox(key="lesson.step").value == 1


def test_handout_download_buttons(open_page):
    at = open_page("lesson")
    buttons = {b.key: b.label for b in at.get("download_button")}
    assert buttons == {
        "lesson.handout": "Handout for students (HTML)",
        "lesson.handout_key": "Handout with teacher key (HTML)",
    }


# --------------------------------------------------------------------------- moving between pages


def test_the_lesson_keeps_its_step_and_answer_across_the_sidebar(open_page):
    at = open_page("lesson", {"step": "3"})
    at.button(key="lesson.show.3").click().run()
    navigate(at, "metacognition", LESSON[2].params)  # "Open this view"
    navigate(at, "lesson")  # back through the sidebar
    assert not exceptions(at)
    assert at.selectbox(key="lesson.step").value == 3
    assert at.button(key="lesson.hide.3")  # the answer is still revealed
    assert url(at)["step"] == "3"


@pytest.mark.parametrize("n", range(1, len(LESSON) + 1))
def test_a_lesson_link_opens_its_view_without_a_rewritten_url(open_page, n):
    """The page leaves the link's URL alone (defaults may be missing from it), so Back is one
    press."""
    step = LESSON[n - 1]
    at = navigate(open_page("lesson", {"step": str(n)}), step.page or "home", step.params)
    assert not exceptions(at)
    assert url(at) == step.params


# --------------------------------------------------------------------------- teacher mode


def test_lesson_links_and_handout_use_the_configured_address(open_page, monkeypatch):
    monkeypatch.setenv(share.BASE_URL_ENV, BASE + "/")
    given = []
    real = lesson.handout_html
    monkeypatch.setattr(
        lesson,
        "handout_html",
        lambda steps, address, *a, **k: (given.append(address), real(steps, address, *a, **k))[1],
    )
    at = open_page("lesson", {"step": "3"})
    assert not exceptions(at)
    # No link to this (the teacher's) page is offered to students; the
    # students' link is the class's student view, once a class is started.
    assert not at.code and not at.get("image") and not join_block(at)
    at.button(key="class.start.lesson").click().run()
    code = at.session_state["_class.code"]
    assert {part: text for part, (text, _) in join_block(at).items()} == {
        "code": code,
        "link": f"{BASE}/join?class={code}",
    }
    assert len(at.get("image")) == 1, "its QR code"
    assert given and set(given) == {BASE}
    assert f'href="{BASE}/metacognition?' in real(lesson.LESSON, given[0], None, with_key=False)
