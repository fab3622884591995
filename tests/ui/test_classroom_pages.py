"""What a classroom walk through every page found (issue 24, defects 3-9), each pinned by a test."""

from __future__ import annotations

import json

import pytest

from tests.ui.apptest_pages import ROOT, exceptions, first_index, open_page

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


def test_from_reward_alone_opens_on_its_controls_with_the_answer_below():
    at = open_page("reward")
    assert not exceptions(at)
    assert (first_index(at, "Self-model (both agents)") < first_index(at, "Type-2 AUROC", "metric")
            < first_index(at, "The answer, from the result set"))


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
