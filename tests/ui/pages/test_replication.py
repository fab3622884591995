"""The Replication page in AppTest: the claims and their verdicts, the result set in the URL and
kept across pages, and the post-hoc text in its own tab."""

from __future__ import annotations

import pytest

from labcore.experiments.paper_results import load_results
from tests.ui.apptest_pages import ROOT, exceptions, navigate


def test_replication_lists_the_claims_and_verdicts(open_page):
    at = open_page("replication")
    assert not at.exception
    table = at.dataframe[0].value
    assert {"paper", "ours", "verdict", "why"} <= set(table.columns)
    assert "claim" not in table.columns  # an id is for the CSV download, not a visitor
    assert len(table) == len(load_results(ROOT / "results" / "bundled").claims)


def test_the_result_set_is_in_the_url(open_page):
    at = open_page("replication", {"results": "seeds20"})
    assert not at.exception
    assert at.selectbox(key="replication.results").value == "seeds20"
    assert "20 seeds" in " ".join(m.value for m in at.markdown)
    at.selectbox(key="replication.results").set_value("bundled").run()
    assert at.query_params["results"] in ("bundled", ["bundled"])
    bad = open_page("replication", {"results": "../../etc"})
    assert not bad.exception and bad.selectbox(key="replication.results").value == "bundled"
    assert any("results=" in w.value for w in bad.warning)


def test_a_replication_choice_survives_a_visit_to_another_page(open_page):
    at = open_page("replication")
    options = at.selectbox(key="replication.results").options
    if len(options) < 2:
        pytest.skip("one result set only")
    at.selectbox(key="replication.results").set_value(options[1]).run()
    navigate(at, "home")
    navigate(at, "replication")
    assert at.selectbox(key="replication.results").value == options[1]


def test_only_the_exploratory_tab_says_it_was_added_after_the_results(open_page):
    at = open_page("replication")
    assert not exceptions(at)
    tabs = {tab.label: tab for tab in at.tabs}
    exploratory = tabs.pop("Exploratory (post hoc)")
    posthoc, gain = (m.value for m in exploratory.markdown[:2])  # the notice, the gain study
    assert "pre-registered" in posthoc
    for label, tab in tabs.items():
        text = " ".join(m.value for m in tab.markdown)
        assert posthoc not in text and gain not in text, label
        assert not tab.dataframe, label
    assert exploratory.dataframe, "the bundled set's training-length table"
    for frame in exploratory.dataframe:
        assert not any("_" in str(c) for c in frame.value.columns), list(frame.value.columns)
