"""Moving between pages as a class does (issue 24, defect 1): the sidebar and links.

Streamlit drops a widget's state when another page runs; a page must come back as the user left
it (never a KeyError), and a link must open its view without the page rewriting the URL (every
rewrite is a browser history entry, so Back then needs two presses).
"""

from __future__ import annotations

import pytest

from labcore.classroom.lesson import LESSON
from tests.ui.apptest_pages import exceptions, navigate, open_page, url


def test_a_changed_control_survives_a_visit_to_another_page():
    at = open_page("metacognition")
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    at.slider(key="metacognition.capacity").set_value(2).run()
    navigate(at, "home")
    navigate(at, "metacognition")  # the sidebar: a bare URL
    assert not exceptions(at)
    assert at.segmented_control(key="metacognition.self_model_mode").value == "zero"
    assert at.slider(key="metacognition.capacity").value == 2
    assert url(at)["self_model_mode"] == "zero"


def test_the_lesson_keeps_its_step_and_answer_across_the_sidebar():
    at = open_page("lesson", {"step": "3"})
    at.button(key="lesson.show.3").click().run()
    navigate(at, "metacognition", LESSON[2].params)  # "Open this view"
    navigate(at, "lesson")  # back through the sidebar
    assert not exceptions(at)
    assert at.selectbox(key="lesson.step").value == 3
    assert at.button(key="lesson.hide.3")  # the answer is still revealed
    assert url(at)["step"] == "3"


def test_a_replication_choice_survives_a_visit_to_another_page():
    at = open_page("replication")
    options = at.selectbox(key="replication.results").options
    if len(options) < 2:
        pytest.skip("one result set only")
    at.selectbox(key="replication.results").set_value(options[1]).run()
    navigate(at, "home")
    navigate(at, "replication")
    assert at.selectbox(key="replication.results").value == options[1]


@pytest.mark.parametrize("n", range(1, len(LESSON) + 1))
def test_a_lesson_link_opens_its_view_without_a_rewritten_url(n):
    """The page leaves the link's URL alone (defaults may be missing from it), so Back is one press."""
    step = LESSON[n - 1]
    at = navigate(open_page("lesson", {"step": str(n)}), step.page or "home", step.params)
    assert not exceptions(at)
    assert url(at) == step.params
