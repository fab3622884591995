"""What a classroom walk through every page found (issue 24, defects 3-9), each pinned by a test."""

from __future__ import annotations

import json

import pytest

from tests.ui.apptest_pages import ROOT, exceptions, first_index, in_order, open_page

# ------------------------------------------------------------------ defect 3: controls first


@pytest.mark.parametrize(("page", "params", "control", "result", "prose"), [
    ("robustness", {"agent": "b1", "seed": "0"}, "Noise sigma", "Report accuracy with this noise",
     "Verdict: does the paper's robustness hierarchy hold here?"),
    ("metacognition", None, "Workspace slots", "Type-2 AUROC", "Verdict: does the paper's blindsight"),
    ("workspace", None, "Workspace slots", "Conjunction accuracy", "Verdict: does the paper's capacity result"),
])
def test_a_page_opens_on_its_controls_and_result_with_the_verdict_prose_below(page, params, control, result, prose):
    at = open_page(page, params)
    assert not exceptions(at)
    assert first_index(at, control) < first_index(at, result, "metric") < first_index(at, prose)


# ------------------------------------------------------------------ defect 4: post-hoc text in its own tab


def test_only_the_exploratory_tab_says_it_was_added_after_the_results():
    at = open_page("replication")
    assert not exceptions(at)
    posthoc = "Added after the results were seen"
    tabs = {tab.label: tab for tab in at.tabs}
    exploratory = tabs.pop("Exploratory (post hoc)")
    for label, tab in tabs.items():
        text = " ".join(m.value for m in tab.markdown)
        assert posthoc not in text and "training length" not in text, label
        assert not tab.dataframe, label
    assert posthoc in " ".join(m.value for m in exploratory.markdown)
    assert exploratory.dataframe, "the bundled set's training-length table"
    for frame in exploratory.dataframe:
        assert not any("_" in str(c) for c in frame.value.columns), list(frame.value.columns)


# ------------------------------------------------------------------ defect 5: From reward alone


def test_from_reward_alone_opens_on_a_short_answer_and_each_section_on_its_controls():
    # The answer box holds the verdict alone (the lead and the parts sit in an expander), so the first plots and
    # controls are on the first screen; the E4 section still opens on its controls, its numbers below.
    at = open_page("reward")
    assert not exceptions(at)
    box = first_index(at, "The answer, generated from the bundled studies")
    lead = in_order(at)[box + 1]
    assert len(lead.value.split()) <= 40, len(lead.value.split())
    assert any(e.label.startswith("The answer in full") for e in at.expander)
    assert box < first_index(at, "Self-model (both agents)") < first_index(at, "Type-2 AUROC", "metric")


# ------------------------------------------------------------------ defect 7: one seed beside five


@pytest.mark.parametrize(("page", "params", "first_metric"), [
    ("metacognition", {"agent": "b2_ws", "seed": "0"}, "Task accuracy"),
    ("workspace", {"agent": "b1", "seed": "0"}, "Conjunction accuracy"),
    ("robustness", {"agent": "b1", "seed": "0"}, "Report accuracy with this noise"),
])
def test_one_seeds_live_numbers_and_the_result_sets_means_say_which_they_are(page, params, first_metric):
    at = open_page(page, params)
    assert not exceptions(at)
    n_seeds = len(json.loads((ROOT / "results" / "bundled" / "summary.json").read_text())["seeds"])
    assert first_index(at, "Live, one agent:") < first_index(at, first_metric, "metric")
    assert any("seed 0" in c.value and f"means over the result set's {n_seeds} seeds" in c.value for c in at.caption)
    lines = [line for m in at.markdown for line in m.value.split("\n") if ": here " in line]
    assert lines, "the verdict box lists claims"
    for line in lines:
        if "undefined" not in line and "seeds)" not in line.split(", paper")[0]:
            raise AssertionError(f"a result-set number without its seeds: {line}")


# ------------------------------------------------------------------ defect 9: nothing unexplained

UNDEFINED = ("undefined", "not defined here", "not defined")


@pytest.mark.parametrize(("page", "params"), [
    ("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"}),
    ("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "0"}),
    ("workspace", {"agent": "b1", "seed": "0", "capacity": "1"}),
    ("workspace", {"agent": "b1", "seed": "0", "capacity": "0"}),
    ("scorecards", None),
])
def test_every_undefined_headline_number_says_why_in_one_line(page, params):
    at = open_page(page, params)
    assert not exceptions(at)
    nodes = in_order(at)
    seen = 0
    for i, node in enumerate(nodes):
        if node.type != "metric" or str(node.value).lower() not in UNDEFINED:
            continue
        seen += 1
        caption = next((n.value for n in nodes[i + 1:] if n.type == "caption"), "")
        assert any(word in caption.lower() for word in UNDEFINED), (node.label, caption)
        assert "nan" not in caption.split(), (node.label, caption)
    assert seen, "these conditions show at least one undefined number"


def test_no_empty_heatmap_at_zero_slots():
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "0"})
    assert not exceptions(at)
    assert not any("what each slot holds" in c.proto.spec for c in at.get("plotly_chart"))
    assert any("no heatmap to draw" in i.value for i in at.info)
    theatre = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "capacity": "0"})
    assert not exceptions(theatre)
    assert not any("what each slot holds" in c.proto.spec for c in theatre.get("plotly_chart"))
    assert any("no heatmap" in i.value for i in theatre.info)


def test_a_zeroed_self_models_opt_outs_are_said_to_be_fixed_by_construction():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    opt_outs = next(m.value for m in at.metric if m.label == "Opt-outs on wager trials")
    assert opt_outs in ("100.0%", "0.0%")
    note = " ".join(s.value for s in at.success)
    assert "opt-out" in note and "by construction" in note and "That constant is 0." in note


def test_the_capacity_brackets_say_what_they_are():
    at = open_page("workspace", {"agent": "b1", "seed": "0"})
    slider = at.select_slider(key="workspace.capacity")
    assert "4 (scale 1)" in slider.options and "2 (scale 0.5)" in slider.options
