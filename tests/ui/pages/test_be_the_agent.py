"""The Be the agent page in AppTest: a full session played with the page's own buttons; its
download reads back through the trial reader (item 1) with the numbers the page shows."""

from __future__ import annotations

import re

import numpy as np
import pytest
import streamlit as st

from labcore.humans.markers import subject_markers
from labcore.humans.session import SESSION_TRIALS, WAGERS
from labcore.humans.trials import read_trials
from labcore.render import UNDEFINED, fmt
from tests.ui.apptest_pages import exceptions, markdown_text
from ui import humans

PAGE = "be_the_agent"


@pytest.fixture
def offered(monkeypatch) -> dict[str, bytes]:
    """What the page's download buttons offer, by key (the bytes a visitor would save)."""
    seen: dict[str, bytes] = {}
    original = st.download_button

    def recording(label, data, *args, **kwargs):
        seen[kwargs.get("key")] = data
        return original(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    return seen


def answers(evidence: np.ndarray) -> list[tuple[int, str]]:
    """A careful player: the side with more evidence, surer the clearer the flash."""
    out = []
    for left, right in evidence:
        margin = abs(right - left)
        wager = 0 if margin < 0.15 else 1 if margin < 0.35 else 2 if margin < 0.6 else 3
        out.append((int(right > left), WAGERS[wager].shortcut))
    return out


def test_a_full_session_reads_back_with_the_numbers_the_page_shows(open_page, offered):
    at = open_page(PAGE)
    assert not at.exception and "Start" in [b.label for b in at.button]
    at.button(key=f"{PAGE}.start").click().run()
    game = at.session_state[f"{PAGE}.game"]
    assert len(game.trials) == SESSION_TRIALS
    for i, (side, key) in enumerate(answers(game.trials.evidence)):
        shown = at.get("progress")[0].proto.text
        assert re.findall(r"\d+", shown) == [str(i + 1), str(SESSION_TRIALS)]  # trial i+1 of N
        assert len(at.get("image")) == 1
        at.button(key=f"{PAGE}.side{side}").click().run()
        at.button(key=f"{PAGE}.wager{key}").click().run()
        assert not at.exception, exceptions(at)
    done = at.get("progress")[0].proto.text
    assert re.findall(r"\d+", done) == [str(SESSION_TRIALS)] and done != shown  # all N done

    (back,) = subject_markers(read_trials(offered[f"{PAGE}.download"], "download.csv"))
    assert back == at.session_state[f"{PAGE}.result"]  # the typed record a class store takes
    assert back.n_trials == SESSION_TRIALS and back.calibration_error is not None

    table = next(d.value for d in at.dataframe if "Type-2 AUROC" in d.value.columns)
    table = table.set_index("")
    assert table.loc["you", "Type-2 AUROC"] == fmt(back.type2_auroc)
    assert table.loc["you", "M-ratio"] == fmt(back.m_ratio)
    assert table.loc["you", "accuracy"] == fmt(back.accuracy, "percent")
    intact, zeroed = (label for _, _, label in humans.AGENTS[:2])  # B2, and B2 zeroed
    assert list(table.index) == [humans.YOU, intact, zeroed]
    assert table.loc[zeroed, "Type-2 AUROC"] == "0.5"
    assert table.loc[zeroed, "M-ratio"] == UNDEFINED

    text = markdown_text(at)  # the answer, filled from the table's numbers, each in bold
    for value in (fmt(back.type2_auroc), table.loc[intact, "Type-2 AUROC"], "0.5"):
        assert f"**{value}**" in text


def test_the_agent_is_on_the_visitors_very_trials(open_page):
    at = open_page(PAGE)
    at.button(key=f"{PAGE}.start").click().run()
    game = at.session_state[f"{PAGE}.game"]
    from ui import data

    view = data.metacognition("b2_ws", game.trial_set, "on", 4, 0.0)
    assert np.array_equal(view.stimulus[:SESSION_TRIALS], game.trials.stimulus)


def test_a_wager_before_a_side_and_start_over_change_nothing_wrong(open_page):
    at = open_page(PAGE)
    at.button(key=f"{PAGE}.start").click().run()
    at.button(key=f"{PAGE}.side0").click().run()
    at.button(key=f"{PAGE}.wager1").click().run()
    assert at.session_state[f"{PAGE}.game"].responses == [0]
    at.button(key=f"{PAGE}.start").click().run()
    assert at.session_state[f"{PAGE}.game"].responses == []
    assert not at.exception


def test_with_its_b2_agent_broken_the_visitor_plays_alone_with_one_error(open_page, lab):
    from tests.ui.pages.broken_checkpoints import assert_one_error_naming, flip_byte

    flip_byte(lab, "wagering-b2_ws-s0")
    at = open_page(PAGE)
    at.button(key=f"{PAGE}.start").click().run()
    game = at.session_state[f"{PAGE}.game"]
    assert game.trial_set == 0
    for side, key in answers(game.trials.evidence):
        at.button(key=f"{PAGE}.side{side}").click().run()
        at.button(key=f"{PAGE}.wager{key}").click().run()
    assert_one_error_naming(at, "wagering-b2_ws-s0")
    table = next(d.value for d in at.dataframe if "Type-2 AUROC" in d.value.columns)
    assert list(table[""]) == [humans.YOU]  # the visitor alone


def test_a_class_plays_and_the_teacher_sees_it_beside_the_agents(open_page):
    """With a class code, a finished session's numbers (no name, no trial) go to
    the class, once; the teacher's projector draws them beside the agents."""
    import json

    from labcore.classroom.store import ClassStore

    teacher = open_page(PAGE)
    teacher.button(key=f"class.start.{PAGE}").click().run()
    teacher.button(key=f"{PAGE}.ask_class").click().run()
    code = teacher.session_state["_class.code"]
    assert ClassStore().current(code, "s1").question.kind == "activity"
    student = open_page(PAGE, {"class": code, "me": "s1"})
    assert not [e for e in student.expander if "teachers" in e.label]  # no class panel here
    student.button(key=f"{PAGE}.start").click().run()
    game = student.session_state[f"{PAGE}.game"]
    for side, key in answers(game.trials.evidence):
        student.button(key=f"{PAGE}.side{side}").click().run()
        student.button(key=f"{PAGE}.wager{key}").click().run()
    assert not exceptions(student)
    mine = student.session_state[f"{PAGE}.result"]
    student.run()  # a rerun sends nothing more
    rows = ClassStore().results(code, "be_the_agent", teacher.session_state["_class.key"])
    assert len(rows) == 1 and rows[0]["type2_auroc"] == pytest.approx(mine.type2_auroc)
    assert set(rows[0]) == {
        "n_trials",
        "accuracy",
        "type2_auroc",
        "meta_d",
        "m_ratio",
        "calibration_error",
    }
    teacher.run()
    chart = next(c for c in teacher.get("plotly_chart") if f"{PAGE}.class" in c.proto.id)
    traces = json.loads(chart.proto.spec)["data"]
    ours = [t for t in traces if t.get("name") == "your class"]
    assert ours and ours[0]["y"][0] == pytest.approx(mine.type2_auroc)
