"""A class that sees itself: the teacher's Lesson posts each step to the
class, students vote from the student view (``/join``), which shows no answer, key, step picker
or handout, and sees the class's votes and the answer only after the teacher reveals them.

Teacher and students are separate AppTest sessions on one class store file (as separate
browsers on one server, or on the processes of ``make class``)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl

from streamlit.testing.v1 import AppTest

from labcore.classroom.lesson import LESSON, class_question, expected_answer
from labcore.classroom.store import ClassStore, choice_letters
from labcore.experiments.paper_results import load_results
from labcore.figures.classroom import LAB
from tests.ui.apptest_pages import ROOT, exceptions, join_block, navigate, url
from ui import classroom


def teacher_with_class(open_page, step: int = 3) -> tuple[AppTest, str, str]:
    at = open_page("lesson", {"step": str(step)})
    at.button(key="class.start.lesson").click().run()
    assert not exceptions(at)
    code, key = at.session_state["_class.code"], at.session_state["_class.key"]
    assert at.query_params["class"] in (code, [code])  # a reload keeps the class in the URL
    return at, code, key


def votes(at: AppTest) -> dict[str, int]:
    """The class-votes chart's counts by letter, as the teacher's page draws them."""
    chart = next(c for c in at.get("plotly_chart") if "votes" in c.proto.id)
    spec = json.loads(chart.proto.spec)
    bar = next(t for t in spec["data"] if t["type"] == "bar")
    return {name.split(" ")[0]: x for name, x in zip(bar["y"], bar["x"], strict=True)}


def student_view(open_page, code: str, me: str) -> AppTest:
    return open_page("join", {"class": code, "me": me})


def test_a_student_sees_the_question_and_nothing_of_the_teachers_page(open_page):
    _, code, key = teacher_with_class(open_page)
    student = student_view(open_page, code, "s1")
    assert not exceptions(student)
    q = class_question(3, None)
    radio = student.radio(key=f"join.choice.{q.id}")
    assert list(radio.options) == [
        f"{letter}. {c}"
        for letter, c in zip(choice_letters(len(LESSON[2].choices)), LESSON[2].choices, strict=True)
    ]
    keys = {w.key for kind in ("button", "selectbox", "download_button") for w in student.get(kind)}
    assert "lesson.step" not in keys and not any(k and k.startswith("lesson.") for k in keys)
    assert not student.get("download_button") and not student.get("image")
    views = [link.proto.page for link in student.get("page_link")]
    assert views == [""], "the lab's view opens only after the reveal (Home is the way back)"
    sealed = ClassStore().current(code, "s1").question
    assert sealed.answer == "" and sealed.lab_choice is None and sealed.view == ""
    shown = [
        str(e.value)
        for kind in ("markdown", "caption", "code", "info", "success", "text", "warning")
        for e in getattr(student, kind)
    ]
    assert shown and not any(key in text for text in shown)  # the teacher key goes nowhere
    assert not any(LESSON[2].why[:40] in text for text in shown)  # nor the step's explanation


def test_votes_reach_the_teacher_and_the_reveal_reaches_the_students(open_page):
    teacher, code, _ = teacher_with_class(open_page)
    students = [student_view(open_page, code, f"s{i}") for i in range(3)]
    qid = "lesson.3"
    for s, letter in zip(students, "AAB", strict=True):
        s.radio(key=f"join.choice.{qid}").set_value(letter).run()
        s.button(key=f"join.send.{qid}").click().run()
        assert not exceptions(s)
    for i, letter in enumerate("AAB"):
        assert ClassStore().my_answer(code, qid, f"s{i}") == letter
    assert ClassStore().current(code, "s0").counts == {}  # nobody sees the class yet
    teacher.run()
    assert votes(teacher) == {"A": 2, "B": 1, "C": 0}
    teacher.button(key="lesson.show.3").click().run()  # the answer, on the projector and out
    assert ClassStore().current(code, "s0").counts == {"A": 2, "B": 1}
    seen = students[2].run()
    assert not exceptions(seen) and seen.radio(key=f"join.choice.{qid}").disabled
    assert seen.get("page_link"), "the lab's view, now open to the class"
    assert votes(seen) == {"A": 2, "B": 1, "C": 0}


def test_the_next_step_becomes_the_class_question(open_page):
    teacher, code, _ = teacher_with_class(open_page, step=2)
    teacher.button(key="lesson.next").click().run()
    assert ClassStore().current(code, "s1").question.id == "lesson.3"
    student = student_view(open_page, code, "s1")
    assert student.radio(key="join.choice.lesson.3")


def test_a_reloaded_teacher_resumes_with_the_key_and_a_wrong_key_is_one_sentence(open_page):
    _, code, key = teacher_with_class(open_page)
    again = open_page("lesson", {"step": "3", "class": code})  # a reload: a new session
    assert "_class.key" not in again.session_state and not exceptions(again)
    again.text_input(key="class.resume_key").set_value("WRONGKEY22").run()
    again.button(key="class.resume.lesson").click().run()
    assert len(again.error) == 1 and "_class.key" not in again.session_state
    again.text_input(key="class.resume_key").set_value(key.lower()).run()
    again.button(key="class.resume.lesson").click().run()
    assert not exceptions(again) and again.session_state["_class.code"] == code


def test_a_bad_class_code_is_one_sentence_and_nothing_else(open_page):
    for bad in ("ZZZZZ", "![x](http://127.0.0.1:9/t.png)", "x" * 300):
        at = open_page("join", {"class": bad})
        assert not exceptions(at) and len(at.error) == 1
        assert "](" not in at.error[0].value
        assert not at.get("radio")


def test_ending_a_class_clears_it(open_page):
    teacher, code, _ = teacher_with_class(open_page)
    teacher.button(key="class.end.lesson").click().run()
    assert not exceptions(teacher) and not ClassStore().exists(code)
    assert "class" not in teacher.query_params


def test_predict_first_goes_to_the_class_and_the_lock_in_reveals_what_the_agent_did(open_page):
    """With a class running, a page's "Predict first" question is the class's
    question; the teacher's lock-in posts the agent's outcome and reveals it."""
    teacher, code, _ = teacher_with_class(open_page)
    step = LESSON[3]  # "Predict: zero the self-model", opened with Predict first on
    assert step.params.get("predict") == "1"
    navigate(teacher, step.page, step.params)
    assert not exceptions(teacher)
    asked = ClassStore().current(code, "s1").question
    assert asked.id.startswith("predict.metacognition.") and asked.answer == ""
    student = student_view(open_page, code, "s1")
    student.radio(key=f"join.choice.{asked.id}").set_value("B").run()
    student.button(key=f"join.send.{asked.id}").click().run()
    teacher.run()
    assert votes(teacher)["B"] == 1
    teacher.radio(key=next(r.key for r in teacher.radio if r.key.startswith("predict."))).set_value(
        1
    ).run()
    teacher.button(key=next(b.key for b in teacher.button if ".lock." in (b.key or ""))).click()
    teacher.run()
    assert not exceptions(teacher)
    seen = ClassStore().current(code, "s1")
    assert seen.revealed and seen.counts == {"B": 1}
    assert seen.question.lab_choice == 1  # zeroed: Type-2 AUROC falls to chance
    assert seen.question.view.startswith("metacognition?")


# --------------------------------------------------------------------------- who sees what
# (docs/classroom.md): a student's browser gets no unrevealed answer from any page or URL; the
# teacher's browser keeps its class through reloads, pages and new tabs by its cookie.
def sent(at: AppTest) -> str:
    """Everything the run sent to the browser: every element's message, widgets included."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found)


def cookies_set(at: AppTest) -> dict[str, str]:
    """The class cookies the run told the browser to keep (an empty value: deleted)."""
    found = {}
    for element in at.get("html"):
        for name, value in re.findall(
            r"document\.cookie='(ctlab_\w+)=([^;]*);", element.proto.body
        ):
            found[name] = value
    return found


def as_browser(monkeypatch, cookies: dict[str, str]) -> None:
    """The next sessions load their pages from a browser holding ``cookies``."""
    monkeypatch.setattr(classroom, "_cookies", lambda: cookies)


def unrevealed(revealed_steps: set[int]) -> list[str]:
    """Every answer text of the Lesson the teacher has not revealed: each step's answer and its
    explanation, as ``class_question`` seals them."""
    results = load_results(ROOT / "results" / "bundled")
    texts = []
    for n, step in enumerate(LESSON, 1):
        if n not in revealed_steps:
            texts += [expected_answer(step, results).text, step.why[:60]]
    return texts


def assert_nothing_held_back_is_sent(at: AppTest, secrets: list[str]) -> None:
    assert not exceptions(at)
    shown = sent(at)
    leaked = [s[:40] for s in secrets if s in shown]
    assert not leaked, leaked
    keys = {w.key or "" for kind in ("button", "download_button", "toggle") for w in at.get(kind)}
    assert not any(k.startswith(("lesson.", "class.start", "mystery.key")) for k in keys), keys
    assert not at.get("download_button")


def test_a_students_browser_gets_no_unrevealed_answer_from_any_lesson_url(open_page, monkeypatch):
    teacher, code, key = teacher_with_class(open_page, step=3)
    teacher.button(key="lesson.show.3").click().run()
    secrets = [*unrevealed({3}), key]
    student = student_view(open_page, code, "s1")  # joined: its own browser
    assert cookies_set(student) == {classroom.STUDENT_COOKIE: f"{code}.s1"}
    steps = (1, 4, len(LESSON))  # every step: the browser test (tests/ui/test_browser.py)
    for n in steps:  # in the joined session (its URL has no class)
        navigate(student, "lesson", {"step": str(n)})
        assert_nothing_held_back_is_sent(student, secrets)
        assert student.session_state[classroom._ROLE] == classroom.Role("student", code)
    navigate(student, "lesson")  # the sidebar
    assert_nothing_held_back_is_sent(student, secrets)
    as_browser(monkeypatch, cookies_set(student))  # new tabs, reloads of the joined browser
    for n in steps:
        assert_nothing_held_back_is_sent(open_page("lesson", {"step": str(n)}), secrets)
    as_browser(monkeypatch, {})  # another browser, a private window: the room's rule
    for n in steps:
        fresh = open_page("lesson", {"step": str(n)})
        assert_nothing_held_back_is_sent(fresh, secrets)
        assert fresh.session_state[classroom._ROLE] == classroom.Role("student")
    teacher.button(key="class.end.lesson").click().run()  # the class ends: self-study again
    after = open_page("lesson", {"step": "4"})
    assert after.session_state[classroom._ROLE] == classroom.VISITOR
    after.button(key="lesson.show.4").click().run()
    assert unrevealed(set())[6] in sent(after) and len(after.get("download_button")) == 2


def test_a_student_cannot_start_a_class_to_become_its_teacher(open_page):
    _, code, _ = teacher_with_class(open_page)
    student = open_page("lesson", {"class": code})
    assert not exceptions(student)
    keys = [b.key for b in student.button]
    assert "class.start.lesson" not in keys and "class.resume.lesson" in keys


def test_the_teachers_reload_resumes_from_its_cookie_with_revealed_steps(open_page, monkeypatch):
    teacher, code, key = teacher_with_class(open_page, step=3)
    teacher.button(key="lesson.show.3").click().run()
    cookies = cookies_set(teacher)
    assert cookies == {classroom.TEACHER_COOKIE: f"{code}.{key}"}
    assert key not in sent(teacher).replace(f"={code}.{key};", ""), "only in the cookie"
    as_browser(monkeypatch, cookies)
    again = open_page("lesson", {"step": "3", "class": code, "projector": "1"})  # a reload
    assert not exceptions(again)
    assert again.session_state["_class.code"] == code and not again.text_input
    assert again.button(key="lesson.hide.3"), "the revealed step stays revealed"
    assert LAB in votes_colours(again), "and its bars keep the lab's answer marked"
    assert key not in sent(again).replace(f"={code}.{key};", "")
    again.toggle(key="class.show_key.lesson").set_value(True).run()  # asked for: shown
    assert any(key in m.value for m in again.markdown)
    navigate(again, LESSON[2].page, LESSON[2].params)  # "Open this view"
    navigate(again, "lesson")  # back through the sidebar
    assert not exceptions(again) and url(again)["class"] == code
    other = open_page("lesson", {"class": code})  # another tab of the same browser
    assert other.session_state["_class.code"] == code
    as_browser(monkeypatch, {classroom.TEACHER_COOKIE: f"{code}.WRONGKEY22"})
    forged = open_page("lesson", {"class": code})
    assert forged.session_state[classroom._ROLE].student
    assert cookies_set(forged)[classroom.TEACHER_COOKIE] == "", "a key not its own is dropped"


def votes_colours(at: AppTest) -> list[str]:
    chart = next(c for c in at.get("plotly_chart") if "votes" in c.proto.id)
    bar = next(t for t in json.loads(chart.proto.spec)["data"] if t["type"] == "bar")
    return bar["marker"]["color"]


def test_the_join_block_shows_the_whole_link_and_doubles_in_projector_mode(open_page):
    teacher, code, _ = teacher_with_class(open_page)
    normal = join_block(teacher)
    assert normal["code"] == (code, classroom.JOIN_CODE_REM)
    assert normal["link"][0].endswith(f"/join?class={code}")
    big = join_block(teacher.toggle(key="projector.on").set_value(True).run())
    assert big == {part: (text, 2 * size) for part, (text, size) in normal.items()}


def test_home_has_a_way_into_the_class_and_join_a_way_back(open_page, monkeypatch):
    home = open_page("home")
    entry = next(link.proto for link in home.get("page_link") if link.proto.page == "join")
    assert entry.query_string == ""
    _, code, _ = teacher_with_class(open_page)
    as_browser(monkeypatch, {classroom.STUDENT_COOKIE: f"{code}.s7"})
    home = open_page("home")
    entry = next(link.proto for link in home.get("page_link") if link.proto.page == "join")
    assert dict(parse_qsl(entry.query_string)) == {"class": code, "me": "s7"}
    join = open_page("join")  # /join alone finds the class this browser joined
    assert not exceptions(join) and join.query_params["class"] in (code, [code])
    assert "" in [link.proto.page for link in join.get("page_link")], "a way back to Home"
