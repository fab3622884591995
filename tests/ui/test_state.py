"""URL state: every control round-trips; bad values are clamped with a notice, never a crash."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ui.apptest_pages import URL_OPTIONS
from ui.state import LabState, parse_params

AGENTS = ["b1", "b2_ws"]
SEEDS = {"b1": [0, 1, 2, 3, 4], "b2_ws": [0, 1, 2, 3, 4, 7]}


def test_round_trip():
    state = LabState(
        agent="b2_ws",
        seed=7,
        self_model_mode="zero",
        capacity=2,
        noise=0.35,
        noise_mode="read",
        episode=12,
        soa=5,
        masks=3,
        task="wagering",
    )
    keys = (
        "agent",
        "seed",
        "self_model_mode",
        "capacity",
        "noise",
        "noise_mode",
        "episode",
        "soa",
        "masks",
        "task",
    )
    parsed, notices = parse_params(state.to_params(keys), agents=AGENTS, seeds=SEEDS)
    assert parsed == state and notices == []


def test_clamping_with_notices():
    raw = {
        "agent": "b9",
        "seed": "99",
        "self_model_mode": "off",
        "capacity": "-3",
        "noise": "7.5",
        "noise_mode": "x",
        "episode": "12.6",
        "soa": "1",
        "masks": "inf",
        "junk": "1",
    }
    state, notices = parse_params(raw, agents=AGENTS, seeds=SEEDS, default=LabState(agent="b1"))
    assert state == LabState(
        agent="b1",
        seed=4,
        self_model_mode="on",
        capacity=0,
        noise=1.0,
        noise_mode="stored",
        episode=13,
        soa=2,
        masks=4,
    )
    text = " ".join(notices)
    for fragment in (
        "'b9' is not one of",
        "seed=99 is not available for b1; using 4",
        "capacity=-3 is out of range",
        "noise=7.5 is out of range",
        "episode=12.6 is not a whole number",
        "'inf' is not a number",
        "unknown URL parameter 'junk'",
    ):
        assert fragment in text
    assert len(notices) == 10


def test_repeated_keys_use_the_last_value():
    state, _ = parse_params({"capacity": ["1", "3"]}, agents=AGENTS, seeds=SEEDS)
    assert state.capacity == 3


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "agent",
                "seed",
                "self_model_mode",
                "capacity",
                "noise",
                "noise_mode",
                "episode",
                "soa",
                "masks",
                "task",
                "zzz",
            ]
        ),
        st.text(max_size=8) | st.floats(allow_nan=True).map(str),
    )
)
def test_any_url_gives_a_valid_state(raw):
    state, notices = parse_params(raw, agents=AGENTS, seeds=SEEDS)
    assert state.agent in AGENTS and state.seed in SEEDS[state.agent]
    assert 0 <= state.capacity <= 4 and 0.0 <= state.noise <= 1.0 and 2 <= state.soa <= 20
    assert state.self_model_mode in ("on", "zero", "noise", "permute") and state.noise_mode in (
        "stored",
        "read",
    )
    assert isinstance(notices, list)


def test_old_links_keep_working_with_a_notice():
    """Links shared before the renaming (self_model= and protocol=) give the same view, and say
    so."""
    state, notices = parse_params(
        {"agent": "b2_ws", "self_model": "zero", "protocol": "read"}, agents=AGENTS, seeds=SEEDS
    )
    assert state.self_model_mode == "zero" and state.noise_mode == "read"
    assert [(n.name, n.kind, n.field) for n in notices] == [
        ("self_model", "renamed", "self_model_mode"),
        ("protocol", "renamed", "noise_mode"),
    ]
    state, notices = parse_params(
        {"self_model": "zero", "self_model_mode": "noise"}, agents=AGENTS, seeds=SEEDS
    )
    assert state.self_model_mode == "noise"
    assert [(n.name, n.kind) for n in notices] == [("self_model", "ignored")]


def test_notices_quote_long_or_markdown_values_safely():
    from ui.state import ECHO_LIMIT, escape_markdown

    _, notices = parse_params(
        {"agent": "![t](http://x/a.png)" + "z" * 5000, "zz" * 3000: "1"},
        agents=["b1"],
        seeds={"b1": [0]},
    )
    assert len(notices) == 2 and all(len(n) < 200 for n in notices)
    assert all(f"{'z' * ECHO_LIMIT}" not in n for n in notices)
    for n in notices:
        escaped = escape_markdown(n)
        assert (
            "![" not in escaped and "](" not in escaped and "://" not in escaped
        )  # no image, link, autolink
        assert (
            escaped.replace("\\", "").replace("\u200b", "") == n
        )  # adds only backslashes and zero-width spaces


def test_new_url_fields_are_clamped_with_a_notice():
    raw = {
        "normalisation": "gzip",
        "gain": "3",
        "compare": "b1,zz",
        "design_noise": "both",
        "loop": "open",
    }
    state, notices = parse_params(raw, agents=["b1"], seeds={"b1": [0]}, options=URL_OPTIONS)
    assert (state.normalisation, state.gain, state.compare, state.design_noise, state.loop) == (
        "zlib",
        1.0,
        ("b1",),
        "stored",
        "open",
    )
    said = {(n.name, n.kind) for n in notices}
    assert {("normalisation", "not_an_option"), ("gain", "not_an_option")} <= said
    assert ("design_noise", "not_an_option") in said
    assert [n.field for n in notices if n.name == "compare"] == ["zz"]  # left out, named
    gain = next(n for n in notices if n.name == "gain")
    assert gain.split()[0] == "gain='3'" and re.search(r"\b1\D+\b10\b", gain)  # the options
    assert LabState(compare=()).to_params(["compare"]) == {"compare": ""}
    assert parse_params({"compare": ""}, agents=["b1"], seeds={"b1": [0]})[0].compare == ()
