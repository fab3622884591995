"""A class that sees itself (issue 34, items 5-6): the teacher's Lesson posts each step to the
class, students vote from the student view (``/join``), which shows no answer, key, step picker
or handout, and sees the class's votes and the answer only after the teacher reveals them.

Teacher and students are separate AppTest sessions on one class store file (as separate
browsers on one server, or on the processes of ``make class``)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from labcore.classroom.lesson import LESSON, class_question
from labcore.classroom.store import ClassStore, choice_letters
from tests.ui.apptest_pages import exceptions


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
    assert not student.get("page_link"), "the lab's view opens only after the reveal"
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
    """Issue 34 item 6: with a class running, a page's "Predict first" question is the class's
    question; the teacher's lock-in posts the agent's outcome and reveals it."""
    from tests.ui.apptest_pages import navigate

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
