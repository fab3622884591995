"""The Rollout theatre in AppTest: stepping through an episode, the self-model switch and what a
wager step says it read, an episode beyond the data clamped, and a broken checkpoint that loses
only its agent."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from labcore.figures import episode as episode_figures
from labcore.figures.episode import HEAD, MOVE_NAMES
from tests.ui.apptest_pages import counting, exceptions
from tests.ui.pages.broken_checkpoints import (
    BROKEN,
    agent_options,
    assert_one_error_naming,
    errors,
    flip_byte,
)
from ui import components, data


def caption(at: AppTest) -> str:
    return next(
        m.value for m in at.markdown if m.value.startswith(("The agent", "Wager", "Episode over"))
    )


def step(at: AppTest) -> None:
    next(b for b in at.button if b.label == "step").click().run()


def test_a_steps_figures_are_built_once_for_every_session(open_page, monkeypatch):
    """While an episode plays every step reruns the stage: a step's figures are built once per
    episode and shared by every session (they were most of a rerun, 0.3 s)."""
    data.step_figures.clear()
    components._prepared.clear()
    built = counting(monkeypatch, episode_figures, "step_figures")
    query = {"task": "dual", "agent": "b1", "seed": "0", "episode": "2"}
    first = open_page("rollouts", query)
    step(first)
    step(first)
    assert len(built) == 3  # steps 0, 1 and 2
    second = open_page("rollouts", query)
    step(second)
    step(second)
    assert not exceptions(first) and not exceptions(second)
    assert len(built) == 3, "a step seen before, in this session or another, reuses its figures"
    assert any(c.proto.spec for c in second.get("plotly_chart"))
    components._prepared.clear()


def test_rollout_theatre_steps_through_an_episode(open_page):
    at = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "episode": "3"})
    assert not at.exception
    assert at.session_state["rollouts.t"] == 0
    next(b for b in at.button if b.label == "step").click().run()
    assert at.session_state["rollouts.t"] == 1
    assert any(
        re.search(r"\b1\D+\b32\b", str(p.value) + getattr(p, "text", ""))  # step 1 of 32
        for p in at.get("progress")
    )


def test_deselecting_the_self_model_keeps_the_last_choice_and_the_wager_step_says_what_it_read(
    open_page,
):
    at = open_page(
        "rollouts",
        {
            "task": "wagering",
            "agent": "b2_ws",
            "seed": "0",
            "episode": "1",
            "self_model_mode": "zero",
        },
    )
    assert not exceptions(at)
    at.segmented_control(key="rollouts.self_model_mode").set_value(
        None
    ).run()  # a second click on "zeroed"
    assert not exceptions(at), exceptions(at)
    assert at.segmented_control(key="rollouts.self_model_mode").value == "zero"
    at.segmented_control(key="rollouts.self_model_mode").set_value("on").run()
    texts = []
    for _ in range(6):  # episode 1 of seed 0: walk, junction at step 3, wager at step 6
        step(at)
        texts.append(caption(at))
    assert not exceptions(at)
    assert MOVE_NAMES[2] in texts[0]  # a movement ("move forward"), not "0 = red"
    wager = texts[-1]
    assert "bets:" in wager.split() and HEAD in wager  # it bet, on the confidence head
    assert "3)" in wager.split()  # at the choice point: step 3


def test_an_episode_beyond_the_data_is_clamped_with_a_notice(open_page, monkeypatch):
    at = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "episode": "999"})
    assert (
        not exceptions(at) and at.number_input(key="rollouts.episode").value == 999
    )  # 1000 episodes: in range
    assert not any("episode" in w.value for w in at.warning)
    monkeypatch.setattr(
        data, "THEATRE_EPISODES", 64
    )  # the count comes from the data, not from the URL rules
    at = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "episode": "999"})
    assert not exceptions(at), exceptions(at)
    assert at.number_input(key="rollouts.episode").value == 63
    assert any(  # 64 episodes (0-63): the last one shown
        re.findall(r"\d+", w.value) == ["64", "0", "63", "63"] for w in at.warning
    )
    assert at.query_params["episode"] in (["63"], "63")  # the shared link now says what is shown


@pytest.mark.parametrize(
    "params", [None, {"task": "masking", "agent": "b1", "seed": "0"}], ids=["default", "url"]
)
def test_rollouts_without_its_agent_keeps_the_others(open_page, lab, params):
    flip_byte(lab)
    at = open_page("rollouts", params)
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert {"b2", "b2_ws"} <= agent_options(at, "rollouts")
    at.selectbox(key="rollouts.agent").set_value("b2").run()
    assert not at.exception and not errors(at)
    assert at.get("progress")  # the theatre plays again
