"""The Lesson page in Streamlit's AppTest: every step renders, the URL is clamped, the answer waits."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from labcore.classroom.lesson import LESSON, expected_answer, step_link
from labcore.storage.results import load_results
from tests.ui.apptest_pages import APP, ROOT


def open_lesson(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page("app_pages/lesson.py")
    return at.run()


def shown_text(at: AppTest) -> str:
    """Every text the page shows (markdown, headers, alerts, captions, expander labels)."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "success", "warning", "info", "error"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [e.label for e in at.expander]
    return "\n".join(parts)


def page_link(at: AppTest):
    return next(e.proto for e in at.get("page_link") if e.proto.label == "Open this view")


@pytest.mark.parametrize("n", range(1, len(LESSON) + 1))
def test_every_step_renders_and_links_its_view(n):
    step = LESSON[n - 1]
    at = open_lesson({"step": str(n)})
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="lesson.step").value == n
    assert at.header[0].value == f"{n}. {step.title}"
    text = shown_text(at)
    assert step.question in text and all(c in text for c in step.choices)
    assert not at.warning, "a valid step gives no notice"
    link = page_link(at)
    assert link.page == (step.page or "")  # the link opens the step's page
    query = step_link(step).partition("?")[2]
    assert link.query_string == query
    at.button(key=f"lesson.show.{n}").click().run()
    assert not at.exception
    assert expected_answer(step, load_results(ROOT / "results" / "bundled")).text in shown_text(at)


def test_out_of_range_step_is_clamped_with_a_notice():
    at = open_lesson({"step": "99"})
    assert not at.exception
    assert at.selectbox(key="lesson.step").value == len(LESSON)
    assert any("step=99 is out of range" in w.value.replace("\\", "") for w in at.warning)
    assert at.query_params["step"] in ("7", ["7"])
    bad = open_lesson({"step": "![x](http://127.0.0.1:9/t.png)"})
    assert not bad.exception and bad.selectbox(key="lesson.step").value == 1
    assert bad.warning and not any("](" in w.value for w in bad.warning)  # the URL text is quoted, not rendered


def test_answer_hidden_until_the_button():
    noise = next(i for i, s in enumerate(LESSON, 1) if s.page == "robustness")
    at = open_lesson({"step": str(noise)})
    answer = expected_answer(LESSON[noise - 1], load_results(ROOT / "results" / "bundled"))
    assert answer.text not in shown_text(at) and LESSON[noise - 1].why not in shown_text(at)
    assert not at.success and not at.warning
    at.button(key=f"lesson.show.{noise}").click().run()
    text = shown_text(at)
    assert answer.text in text and LESSON[noise - 1].why in text
    assert "Paper: " in answer.text and any(answer.text in w.value for w in at.warning), \
        "where the lab differs from the paper the answer says both, as a warning"
    at.button(key=f"lesson.hide.{noise}").click().run()
    assert answer.text not in shown_text(at)


def test_previous_and_next_move_and_update_the_url():
    at = open_lesson()
    assert at.selectbox(key="lesson.step").value == 1
    assert at.button(key="lesson.previous").disabled
    at.button(key="lesson.next").click().run()
    assert at.selectbox(key="lesson.step").value == 2
    assert at.query_params["step"] in ("2", ["2"])
    assert f"lesson.show.{2}" in [b.key for b in at.button], "the next step's answer starts hidden"
    at.button(key="lesson.previous").click().run()
    assert at.selectbox(key="lesson.step").value == 1


def test_handout_download_buttons():
    at = open_lesson()
    buttons = {b.key: b.label for b in at.get("download_button")}
    assert buttons == {"lesson.handout": "Handout for students (HTML)",
                       "lesson.handout_key": "Handout with teacher key (HTML)"}
