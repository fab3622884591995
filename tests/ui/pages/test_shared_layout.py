"""What several pages share, each test run on every page it holds for: every control in the URL,
the controls and the result before the verdict's prose, one seed's live numbers told apart from
the result set's means, and every undefined number explained.
"""

from __future__ import annotations

import json
import re

import pytest

from labcore.config import AGENT_KINDS
from tests.ui.apptest_pages import (
    ROOT,
    URL_OPTIONS,
    exceptions,
    first_index,
    in_order,
    url,
    visible_words,
)
from ui.state import parse_params

# ------------------------------------------------------------------ every control in the URL

PAGE_PARAMS = {
    "metacognition": {"agent": "b2_ws", "seed": "1", "self_model_mode": "permute", "capacity": "3"},
    "workspace": {
        "agent": "b2",
        "seed": "1",
        "capacity": "1",
        "episode": "5",
        "soa": "4",
        "masks": "2",
    },
    "robustness": {
        "agent": "b2",
        "seed": "1",
        "noise": "0.2",
        "noise_mode": "read",
        "normalisation": "lz76",
        "compare": "b1,b2",
        "geometry": "raw",
        "loop": "closed",
        "gain": "10",
        "schedule": "fast",
        "design_noise": "read",
    },
}


@pytest.mark.parametrize("page", list(PAGE_PARAMS))
def test_every_control_of_the_page_round_trips_through_the_url(open_page, page):
    given = PAGE_PARAMS[page]
    at = open_page(page, given)
    assert not at.exception, [e.value for e in at.exception]
    assert not [w.value for w in at.warning if any(f"{k}=" in w.value for k in given)]  # no notice
    published = url(at)
    assert published == given  # every control is in the URL, with the value it was given
    seeds = {k: [0, 1, 2, 3, 4] for k in AGENT_KINDS}
    state, notices = parse_params(
        published, agents=list(AGENT_KINDS), seeds=seeds, options=URL_OPTIONS
    )
    again, _ = parse_params(
        state.to_params(list(given)), agents=list(AGENT_KINDS), seeds=seeds, options=URL_OPTIONS
    )
    assert notices == [] and again == state
    for name in given:  # the widgets show the linked view
        shown = at.session_state[f"{page}.{name}"]
        expected = getattr(state, name)
        assert (list(shown) if name == "compare" else shown) == (
            list(expected) if name == "compare" else expected
        )


# ------------------------------------------------------------------ controls first


@pytest.mark.parametrize(
    ("page", "params", "control", "result", "prose"),
    [
        (
            "robustness",
            {"agent": "b1", "seed": "0"},
            "Noise sigma",
            "Report accuracy with this noise",
            "Verdict: does the paper's robustness hierarchy hold here?",
        ),
        (
            "metacognition",
            None,
            "Workspace slots",
            "Type-2 AUROC",
            "Verdict: does the paper's blindsight",
        ),
        (
            "workspace",
            None,
            "Workspace slots",
            "Conjunction accuracy",
            "Verdict: does the paper's capacity result",
        ),
    ],
)
def test_a_page_opens_on_its_controls_and_result_with_the_verdict_prose_below(
    open_page, page, params, control, result, prose
):
    at = open_page(page, params)
    assert not exceptions(at)
    assert first_index(at, control) < first_index(at, result, "metric") < first_index(at, prose)


# ------------------------------------------------------------------ one seed beside five


@pytest.mark.parametrize(
    ("page", "params", "first_metric"),
    [
        ("metacognition", {"agent": "b2_ws", "seed": "0"}, "Task accuracy"),
        ("workspace", {"agent": "b1", "seed": "0"}, "Conjunction accuracy"),
        ("robustness", {"agent": "b1", "seed": "0"}, "Report accuracy with this noise"),
    ],
)
def test_one_seeds_live_numbers_and_the_result_sets_means_say_which_they_are(
    open_page, page, params, first_metric
):
    at = open_page(page, params)
    assert not exceptions(at)
    n_seeds = len(json.loads((ROOT / "results" / "bundled" / "summary.json").read_text())["seeds"])
    assert first_index(at, "Live, one agent:") < first_index(at, first_metric, "metric")
    assert any(
        "seed 0" in c.value and re.search(rf"\b{n_seeds}\s+seeds\b", c.value) for c in at.caption
    )  # one seed's numbers, beside the set's means over its seeds
    lines = [line for m in at.markdown for line in m.value.split("\n") if ": here " in line]
    assert lines, "the verdict box lists claims"
    for line in lines:
        if "undefined" not in line and "seeds)" not in line.split(", paper")[0]:
            raise AssertionError(f"a result-set number without its seeds: {line}")


# ------------------------------------------------------------------ nothing unexplained

UNDEFINED = ("undefined", "not defined here", "not defined")


@pytest.mark.parametrize(
    ("page", "params"),
    [
        ("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"}),
        ("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "0"}),
        ("workspace", {"agent": "b1", "seed": "0", "capacity": "1"}),
        ("workspace", {"agent": "b1", "seed": "0", "capacity": "0"}),
        ("scorecards", None),
    ],
)
def test_every_undefined_headline_number_says_why_in_one_line(open_page, page, params):
    at = open_page(page, params)
    assert not exceptions(at)
    nodes = in_order(at)
    seen = 0
    for i, node in enumerate(nodes):
        if node.type != "metric" or str(node.value).lower() not in UNDEFINED:
            continue
        seen += 1
        caption = next((n.value for n in nodes[i + 1 :] if n.type == "caption"), "")
        assert any(word in caption.lower() for word in UNDEFINED), (node.label, caption)
        assert "nan" not in caption.split(), (node.label, caption)
    assert seen, "these conditions show at least one undefined number"


# ------------------------------------------------------------------ words a visitor reads

WORD_LIMIT = 800
"""Visible words of a page with its expanders closed (the details a researcher wants sit in closed
expanders)."""


@pytest.mark.parametrize("page", ["replication", "robustness"])
def test_a_page_shows_fewer_than_800_words_with_its_expanders_closed(open_page, page):
    at = open_page(page)
    assert not exceptions(at), exceptions(at)
    assert 100 < visible_words(at) < WORD_LIMIT
