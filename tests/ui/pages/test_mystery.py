"""The Mystery agent page in Streamlit's AppTest: a teacher makes a code, a student diagnoses, a bad
code is one sentence; a made puzzle hides its answer, and its link uses the configured address
(teacher mode)."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from labcore.classroom import mystery
from labcore.render import term
from ui import data, share

BASE = "http://192.168.1.20:8501"


@pytest.fixture
def open_mystery(open_page) -> Callable[..., AppTest]:
    """``open_mystery(code)``: the page in a new session, with the puzzle ``code`` in its URL
    (None: none)."""

    def opened(code: str | None = None) -> AppTest:
        return open_page("mystery", None if code is None else {"code": code})

    return opened


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def teacher_form(at: AppTest) -> bool:
    """Is the teacher's "Make a puzzle" form on the page (its task choice, by key)?"""
    return "mystery.task" in [r.key for r in at.radio]


def reveal_of(puzzle: mystery.Puzzle) -> tuple[dict, dict, str]:
    """The puzzle's markers and the intact agent's, measured as the page measures them, and the
    reveal :func:`~labcore.classroom.mystery.explain` writes from them."""

    def measured(p: mystery.Puzzle) -> dict:
        if p.task == "wagering":
            view = data.metacognition(p.kind, p.seed, p.self_model_mode, p.capacity, 0.0, full=True)
        else:
            view = data.workspace(
                p.kind, p.seed, p.capacity, p.noise, mystery.NOISE_MODE, full=True
            )
        return mystery.measured_markers(view)

    values = measured(puzzle)
    intact = measured(mystery.make_puzzle(puzzle.task, "intact", puzzle.seed))
    return values, intact, mystery.explain(puzzle, values, intact)


def texts_outside_the_choice(at: AppTest) -> str:
    """Everything the page sent to the browser (labels, help, values, figure JSON), except the
    diagnosis radio's options, which list every choice."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(node, "type", "") != "radio":
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(found)


def test_teacher_makes_a_code_and_a_link(open_mystery):
    at = open_mystery()
    assert not at.exception
    assert teacher_form(at)
    at.radio(key="mystery.task").set_value("dual").run()
    at.selectbox(key="mystery.condition.dual").set_value("k2").run()
    button(at, "Make this puzzle").click().run()
    assert not at.exception
    code = at.session_state["mystery.made"]
    assert mystery.decode(code) == mystery.make_puzzle("dual", "k2", seed=0, episode=0)
    assert any(c.value == f"/mystery?code={code}" for c in at.code)
    assert any(f"{code[:4]} {code[4:]}" in m.value for m in at.markdown), "the code in large text"
    shown = texts_outside_the_choice(at)
    assert mystery.DIAGNOSES["narrowed"] not in shown, "the answer key stays hidden until asked for"
    at.toggle(key="mystery.key").set_value(True).run()
    assert any(mystery.DIAGNOSES["narrowed"] in i.value for i in at.info)


def test_a_random_puzzle_is_the_same_in_every_session(open_mystery):
    codes = []
    for _ in range(2):
        at = open_mystery()
        button(at, "Random puzzle").click().run()
        assert not at.exception
        codes.append(at.session_state["mystery.made"])
    assert codes[0] == codes[1] == mystery.encode(mystery.random_puzzle(np.random.default_rng(1)))


def test_student_sees_markers_not_the_answer_then_diagnoses(open_mystery):
    puzzle = mystery.make_puzzle("wagering", "zero", seed=0, episode=3)
    code = mystery.encode(puzzle)
    at = open_mystery(code)
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert labels == [m.label for m in mystery.MARKERS["wagering"]]
    assert sum("Chance" in c.value for c in at.caption) >= 2, "chance levels are visible"
    assert len(at.get("plotly_chart")) >= 2, "the rollout is drawn"
    shown = texts_outside_the_choice(at)
    assert all(m.label in shown for m in mystery.MARKERS["wagering"]) and "heatmap" in shown, (
        "the scan reads the whole page, figures included"
    )
    for secret in (
        mystery.DIAGNOSES[puzzle.diagnosis],
        mystery.conditions("wagering")["zero"],
        term("by_construction").name,
        "Correct",
    ):
        assert secret not in shown, secret
    choice = at.radio(key=f"mystery.choice.{code}")
    assert list(choice.options) == [
        mystery.DIAGNOSES[d] for d in mystery.diagnosis_choices("wagering")
    ]
    choice.set_value("self_zeroed").run()
    button(at, "Reveal").click().run()
    assert not at.exception
    assert len(at.success) == 1 and at.success[0].value.startswith("Correct")
    reveal = " ".join(m.value for m in at.markdown)
    values, intact, said = reveal_of(puzzle)
    assert said in reveal and term("by_construction").name in said  # explain(), from the markers
    assert values["auroc"] == 0.5 < intact["auroc"] and values["confidence_sd"] == 0  # by design
    assert [m.key for m in mystery.giveaway(puzzle)] == ["auroc", "confidence_sd"]
    assert any(all(m.label in x.value for m in mystery.giveaway(puzzle)) for x in at.markdown)


def test_a_wrong_diagnosis_is_told_the_answer(open_mystery):
    puzzle = mystery.make_puzzle("dual", "sigma0.5", seed=0, episode=1)
    code = mystery.encode(puzzle)
    at = open_mystery(code)
    assert not at.exception
    assert [m.label for m in at.metric] == [m.label for m in mystery.MARKERS["dual"]]
    assert mystery.DIAGNOSES["noisy"] not in texts_outside_the_choice(at)
    at.radio(key=f"mystery.choice.{code}").set_value("narrowed").run()
    button(at, "Reveal").click().run()
    assert not at.exception and not at.success
    (told,) = (e.value for e in at.error)  # the choice and the answer, by their labels
    assert mystery.DIAGNOSES["narrowed"] in told and mystery.DIAGNOSES["noisy"] in told
    values, intact, said = reveal_of(puzzle)
    assert said in " ".join(m.value for m in at.markdown)  # explain(), from the markers
    assert values["slots_used"] == intact["slots_used"] == mystery.FULL_CAPACITY  # not displaced
    assert values["conjunction"] < intact["conjunction"]
    button(at, "Close this puzzle").click().run()
    assert not at.exception and teacher_form(at)


def test_a_bad_code_is_one_sentence_and_the_teacher_panel(open_mystery):
    code = mystery.encode(mystery.make_puzzle("dual", "k1"))
    mistyped = code[:3] + ("A" if code[3] != "A" else "B") + code[4:]
    at = open_mystery(mistyped)
    assert not at.exception
    with pytest.raises(mystery.CodeError) as refused:
        mystery.decode(mistyped)
    assert refused.value.kind == "check"  # a character mistyped; the page says decode's sentence
    assert len(at.error) == 1 and str(refused.value).rstrip(".") in at.error[0].value
    assert at.error[0].value.count(". ") == 0, "one sentence"
    assert teacher_form(at) and not at.metric


def test_a_huge_or_hostile_code_is_clamped_when_echoed(open_mystery):
    value = "![t](http://127.0.0.1:9/track.png)" + "X" * 5000
    at = open_mystery(value)
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert str(len(value)) in message and "X" * 41 not in message and len(message) < 300
    assert "![" not in message and "](" not in message, "URL text is quoted, never rendered"


def test_a_typed_code_opens_the_puzzle(open_mystery):
    code = mystery.encode(mystery.make_puzzle("wagering", "intact", seed=1))
    at = open_mystery()
    at.text_input(key="mystery.typed").set_value(code.lower()).run()
    assert not at.exception
    assert [m.label for m in at.metric] == [m.label for m in mystery.MARKERS["wagering"]]


def test_a_long_typed_code_is_refused_with_its_real_length(open_mystery):
    """The page keeps only the first MAX_CODE_TEXT characters of a typed code in its URL; a
    300-character code is still reported with its 300."""
    at = open_mystery()
    typed = "A" * 300
    at.text_input(key="mystery.typed").set_value(typed).run()
    assert not at.exception
    assert len(at.error) == 1
    assert str(len(typed)) in at.error[0].value
    assert str(mystery.MAX_CODE_TEXT) not in at.error[0].value
    assert "code" not in at.query_params and not at.metric


def test_the_rollout_steps_to_both_ends(open_mystery):
    for puzzle in (
        mystery.make_puzzle("wagering", "bus_off", seed=2, episode=63),
        mystery.make_puzzle("dual", "k1", seed=4, episode=0),
    ):
        code = mystery.encode(puzzle)
        at = open_mystery(code)
        step = at.slider(key=f"mystery.step.{code}")
        first = [m.value for m in at.markdown]
        step.set_value(step.max).run()
        assert not at.exception
        assert [m.value for m in at.markdown] != first, (
            "the step's caption and figures follow the slider"
        )


def test_a_made_puzzle_hides_the_form_that_names_its_answer(open_mystery):
    """After "Make this puzzle" the teacher projects the code; the "Hidden
    condition" box (the answer) is gone, the answer key only behind its toggle."""
    at = open_mystery()
    at.radio(key="mystery.task").set_value("dual").run()
    at.selectbox(key="mystery.condition.dual").set_value("k3").run()
    button(at, "Make this puzzle").click().run()
    assert not at.exception
    code = at.session_state["mystery.made"]
    assert any(f"{code[:4]} {code[4:]}" in m.value for m in at.markdown)
    assert not any(s.key.startswith("mystery.condition.") for s in at.selectbox)
    shown = texts_outside_the_choice(at)
    assert mystery.conditions("dual")["k3"] not in shown
    assert mystery.DIAGNOSES["narrowed"] not in shown
    assert len(at.get("image")) == 1, "the link's QR code"
    button(at, "Make another puzzle").click().run()
    assert any(s.key.startswith("mystery.condition.") for s in at.selectbox), "the form is back"


def test_no_marker_reads_the_hidden_capacity_off(open_mystery):
    """A marker "Slots in use: 3 of 4" would all but name a narrowed workspace."""
    code = mystery.encode(mystery.make_puzzle("dual", "k3", seed=0))
    at = open_mystery(code)
    assert not at.exception
    labels = [m.label for m in at.metric]
    values = [m.value for m in at.metric]
    assert labels and not any("slot" in label.lower() for label in labels)
    assert not any("of 4" in v for v in values)


def test_a_puzzle_link_uses_the_configured_address(open_page, monkeypatch):
    """Teacher mode."""
    monkeypatch.setenv(share.BASE_URL_ENV, BASE)
    at = open_page("mystery")
    next(b for b in at.button if b.label == "Random puzzle").click().run()
    code = at.session_state["mystery.made"]
    assert any(c.value == f"{BASE}/mystery?code={code}" for c in at.code)
    assert mystery.decode(code)


# ---------------------------------------------------------------------- what a teacher projects
def _made(at: AppTest, condition: str = "zero") -> str:
    at.radio(key="mystery.task").set_value("wagering").run()
    at.selectbox(key="mystery.condition.wagering").set_value(condition).run()
    button(at, "Make this puzzle").click().run()
    assert not at.exception
    return at.session_state["mystery.made"]


def _path_of(at: AppTest, key: str) -> list[str]:
    """The element types from the page's root down to the widget ``key``."""

    def walk(node, path):
        proto = getattr(node, "proto", None)
        if getattr(proto, "id", None) and key in getattr(proto, "id", ""):
            return path
        for child in getattr(node, "children", {}).values():
            found = walk(child, [*path, getattr(child, "type", "")])
            if found is not None:
                return found
        return None

    return walk(at._tree, []) or []


def test_a_reload_keeps_the_teachers_puzzle_and_the_key_is_away_from_the_qr_code(open_page):
    at = open_page("mystery")
    code = _made(at)
    assert at.query_params["made"] in (code, [code])
    again = open_page("mystery", {"made": code})  # a reload: a new session, the same URL
    assert not again.exception and again.session_state["mystery.made"] == code
    path = _path_of(again, "mystery.key")
    assert "popover" in path and "expander" not in path, path  # not in the projected panel
    assert not again.info, "the key stays closed until the teacher opens it"
    bad = open_page("mystery", {"made": "NOTACODE"})
    assert not bad.exception and len(bad.error) == 1 and "mystery.made" not in bad.session_state


def test_no_episode_chart_shows_the_self_models_activity(open_mystery):
    """A flat norm of z_self named the 'self-model zeroed' puzzle at a glance."""
    for condition in ("zero", "intact"):
        at = open_mystery(mystery.encode(mystery.make_puzzle("wagering", condition)))
        assert not at.exception
        names = [
            t.get("name") for c in at.get("plotly_chart") for t in json.loads(c.proto.spec)["data"]
        ]
        assert names and not any(n and "z_self" in n for n in names), names


def test_in_a_class_the_diagnosis_goes_to_the_class_and_the_reveal_is_the_teachers(open_page):
    from labcore.classroom.store import ClassStore

    teacher = open_page("mystery")
    code = _made(teacher, "zero")
    teacher.button(key="class.start.mystery").click().run()
    teacher.run()
    klass = teacher.session_state["_class.code"]
    question = mystery.class_question(mystery.decode(code))
    assert ClassStore().current(klass, "s1").question.id == question.id
    student = open_page("mystery", {"code": code, "class": klass, "me": "s1"})
    assert not student.exception
    assert [b.key for b in student.button] == [f"mystery.send.{question.id}"]  # no Reveal, no Close
    student.radio(key=f"mystery.vote.{question.id}").set_value("B").run()
    student.button(key=f"mystery.send.{question.id}").click().run()
    assert ClassStore().my_answer(klass, question.id, "s1") == "B"
    assert mystery.DIAGNOSES["self_zeroed"] not in texts_outside_the_choice(student)
    teacher.button(key=f"mystery.class_reveal.{code}").click().run()
    assert ClassStore().revealed(klass, question.id)
    student.run()
    assert student.radio(key=f"mystery.vote.{question.id}").disabled
    assert question.choices[question.lab_choice] == mystery.DIAGNOSES["self_zeroed"]
    assert student.success  # B is the right diagnosis of a zeroed self-model


# --------------------------------------------------------------------------- who sees what
def test_started_class_first_the_hidden_condition_never_sits_on_the_page(open_page):
    """The natural order: start the class, then make the puzzle. The class's join block comes
    first; the hidden condition is chosen behind a popover and gone once the puzzle is made."""
    at = open_page("mystery")
    at.button(key="class.start.mystery").click().run()
    assert not at.exception
    order = [_path_of(at, "class-join"), _path_of(at, "mystery.condition.wagering")]
    assert order[0] and "popover" not in order[0], order  # the join block: on the page
    assert "popover" in order[1], order  # the hidden condition: only behind the popover
    _made(at, "zero")
    shown = texts_outside_the_choice(at)  # the votes chart lists every diagnosis, unmarked
    assert mystery.conditions("wagering")["zero"] not in shown


def _students_puzzle(open_page, monkeypatch, cookies: dict[str, str]) -> tuple[AppTest, str]:
    """A class running a zeroed-self-model puzzle, and the puzzle opened by a browser holding
    ``cookies`` from its link without ``class=``."""
    from ui import classroom

    teacher = open_page("mystery")
    code = _made(teacher, "zero")
    teacher.button(key="class.start.mystery").click().run()
    klass = teacher.session_state["_class.code"]
    monkeypatch.setattr(
        classroom, "_cookies", lambda: {k: v.replace("CLASS", klass) for k, v in cookies.items()}
    )
    return open_page("mystery", {"code": code}), klass


def test_a_joined_student_without_class_in_the_url_votes_and_has_no_reveal(open_page, monkeypatch):
    from ui import classroom

    student, _ = _students_puzzle(open_page, monkeypatch, {classroom.STUDENT_COOKIE: "CLASS.s9"})
    assert not student.exception
    question = mystery.class_question(mystery.make_puzzle("wagering", "zero"))
    assert [b.key for b in student.button] == [f"mystery.send.{question.id}"]  # no Reveal
    assert mystery.conditions("wagering")["zero"] not in texts_outside_the_choice(student)
    assert student.query_params["me"] in ("s9", ["s9"])  # counted as the same student


def test_any_other_browser_while_a_class_runs_gets_no_reveal_nor_the_teachers_panel(
    open_page, monkeypatch
):
    student, _ = _students_puzzle(open_page, monkeypatch, {})
    assert not student.exception and not student.button  # no Reveal, nothing to send
    assert any(link.proto.page == "join" for link in student.get("page_link")), "join the class"
    made = open_page("mystery", {"made": mystery.encode(mystery.make_puzzle("dual", "k2"))})
    assert not made.exception and not teacher_form(made)
    assert "mystery.made" not in made.session_state  # its answer key is not drawn
    assert "mystery.key" not in [t.key for t in made.toggle]
    assert "class.start.mystery" not in [b.key for b in made.button]
