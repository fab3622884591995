"""Issue 14, comparisons at a glance: each number beside the intact value, the paper's number for the
condition shown, chance; a verdict box read from the result set; every control in the URL."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from labcore.config import AGENT_KINDS
from labcore.figures.explore import B1_FRAGILITY
from labcore.figures.live import pci_bars
from labcore.figures.paper_e3 import fig3b_marker_correlations
from labcore.paper import paper_text
from labcore.paper_claims import CLAIMS_BY_ID, claim_for, e1_condition, e2_condition
from labcore.storage.results import load_results
from tests.ui.apptest_pages import ROOT, open_page
from ui import data
from ui.components import VERDICT_MARKDOWN_COLOURS, change_text, e1_construction_notes
from ui.state import LabState, parse_params

BUNDLED = ROOT / "results" / "bundled"


def metric(at: AppTest, label: str):
    return next(m for m in at.metric if m.label == label)


def caption_with(at: AppTest, *fragments: str) -> str:
    """The one caption holding every fragment (a metric's caption is found by its chance level)."""
    found = [c.value for c in at.caption if all(f in c.value for f in fragments)]
    assert len(found) == 1, (fragments, [c.value for c in at.caption])
    return found[0]


def paper(claim_id: str, fmt: str | None = None) -> str:
    return paper_text(CLAIMS_BY_ID[claim_id].paper, number=fmt.format if fmt else None)


def params_of(at: AppTest) -> dict[str, str]:
    return {k: at.query_params[k] if isinstance(at.query_params[k], str) else at.query_params[k][-1]
            for k in at.query_params}


# ----------------------------------------------------------------------- one place for the paper's conditions


def test_claim_for_gives_the_claim_of_the_condition_shown_or_none():
    assert claim_for("e1.auroc", e1_condition("zero", 4, 4)) == "e1.auroc.self_off"
    assert claim_for("e1.auroc", e1_condition("on", 0, 4)) == "e1.auroc.bus_off"
    assert claim_for("e1.accuracy", e1_condition("on", 0, 4)) is None  # the paper gives no bus-off accuracy
    assert claim_for("e1.auroc", e1_condition("on", 2, 4)) is None  # not a condition of the paper
    assert claim_for("e2.conjunction", e2_condition(2, 4)) == "e2.conjunction.k2"
    assert claim_for("e2.conjunction", e2_condition(3, 4)) is None


def test_the_by_construction_note_is_given_only_where_the_wiring_makes_it_true():
    zeroed = e1_construction_notes(AGENT_KINDS["b2_ws"], "zero", 4)
    assert len(zeroed) == 1 and "exactly 0.5 **by construction**" in zeroed[0]
    no_self_model = e1_construction_notes(AGENT_KINDS["b1"], "zero", 4)
    assert no_self_model and not any("exactly 0.5" in n for n in no_self_model)
    assert "policy reads z_self too" in e1_construction_notes(AGENT_KINDS["b2"], "zero", 4)[0]
    assert e1_construction_notes(AGENT_KINDS["b2_ws"], "on", 4) == []
    assert any("exactly 0.5" in n for n in e1_construction_notes(AGENT_KINDS["b2_ws"], "on", 0))
    assert e1_construction_notes(AGENT_KINDS["hot_only"], "on", 0) == []  # cues visible: nothing fixed


def test_change_is_in_the_metrics_unit():
    assert change_text(0.483, 0.87, "{:.1%}") == "-38.7 pts vs intact"
    assert change_text(0.5, 0.846) == "-0.35 vs intact"
    assert change_text(None, 0.5) is None


# ----------------------------------------------------------------------- Metacognition


def test_zeroing_shows_intact_and_current_auroc_with_the_zeroed_conditions_paper_number():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    intact_auroc = metric(at, "Type-2 AUROC").value
    assert not metric(at, "Type-2 AUROC").proto.delta  # the intact agent: nothing to compare with
    assert f"paper: {paper('e1.auroc.self_on')}" in caption_with(at, "chance: 0.5")
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert not at.exception
    auroc = metric(at, "Type-2 AUROC")
    assert auroc.value == "0.50"
    expected = change_text(0.5, float(intact_auroc))
    assert auroc.proto.delta == expected and expected.startswith("-")
    caption = caption_with(at, "chance: 0.5")
    assert f"intact: {intact_auroc}" in caption
    assert f"paper, this condition: {paper('e1.auroc.self_off')}" in caption
    assert paper("e1.auroc.self_on") not in caption  # never the intact number as if it were this one's
    accuracy = metric(at, "Task accuracy")
    assert accuracy.proto.delta == "+0.0 pts vs intact"  # doing is preserved, and shown as a change of 0
    assert f"paper, this condition: {paper('e1.accuracy.self_off', '{:.1%}')}" in caption_with(at, "chance: 50%")
    assert any("exactly 0.5 **by construction**" in s.value for s in at.success)


def test_bus_off_says_what_the_paper_reports_for_it_and_whether_confidence_is_inhibited():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "0"})
    assert not at.exception
    accuracy = caption_with(at, "chance: 50%")
    # the paper reports no E1 accuracy with the bus off: its intact number is labelled as such
    assert claim_for("e1.accuracy", "bus_off") is None
    assert "paper: not reported for this condition" in accuracy
    assert f"paper, intact: {paper('e1.accuracy.self_on', '{:.1%}')}" in accuracy
    assert "paper, this condition" not in accuracy
    assert f"paper, this condition: {paper('e1.auroc.bus_off')}" in caption_with(at, "chance: 0.5")
    assert f"paper, this condition: {paper('e1.skip.bus_off', '{:.1%}')}" in caption_with(at, "no chance level")
    skip = float(metric(at, "Opt-outs on wager trials").value.rstrip("%")) / 100
    intact_skip = float(caption_with(at, "no chance level").split("intact: ")[1].split("%")[0]) / 100
    confidence = metric(at, "Mean confidence").value
    panel = next(w.value for w in [*at.warning, *at.info] if "uninhibited" in w.value)
    assert f"mean confidence {confidence}" in panel and f"opt-outs {skip:.1%}" in panel
    reproduces = CLAIMS_BY_ID["e1.skip.bus_off"].check({"e1.skip.self_on": intact_skip, "e1.skip.bus_off": skip})
    assert ("does **not** reproduce" in panel) == (not reproduces)
    verdict = load_results(BUNDLED).claims["e1.skip.bus_off"]["verdict"]
    assert f"the verdict is: {verdict}" in panel


# ----------------------------------------------------------------------- Workspace


def test_workspace_shows_chance_and_the_paper_number_of_the_capacity_shown():
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "2"})
    assert not at.exception
    conjunction = caption_with(at, "chance: 1/49 = 2.0%")
    assert f"paper, this condition: {paper('e2.conjunction.k2', '{:.1%}')}" in conjunction
    assert "intact: " in conjunction and metric(at, "Conjunction accuracy").proto.delta.endswith("pts vs intact")
    assert len([c for c in at.caption if "chance: 1/7 = 14.3%" in c.value]) == 2  # decision, per step
    at.select_slider(key="workspace.capacity").set_value(3).run()
    conjunction = caption_with(at, "chance: 1/49 = 2.0%")
    assert "paper: not reported at this capacity" in conjunction
    assert f"paper, intact: {paper('e2.conjunction.k4', '{:.1%}')}" in conjunction


# ----------------------------------------------------------------------- Robustness


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
def test_the_robustness_verdict_follows_the_result_set(tmp_path, monkeypatch):
    def verdict_text(at: AppTest) -> str:
        return " ".join(m.value for m in at.markdown)

    at = open_page("robustness", {"agent": "b1", "seed": "0"})
    actual = load_results(BUNDLED).claims["e3.l75.b1"]["verdict"]
    text = verdict_text(at)
    assert f":{VERDICT_MARKDOWN_COLOURS[actual]}[**{actual}**]: B1's noise tolerance L75" in text
    assert f"Here B1 is {B1_FRAGILITY[actual]}" in text
    assert "Why, from the E3 design study" in text
    assert "noise, stored slots" in caption_with(at, "chance: 1/7 = 14.3%")  # the live accuracy's chance

    copy = tmp_path / "bundled"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns("report.html"))
    summary = json.loads((copy / "summary.json").read_text())
    changed = "partly reproduced" if actual != "partly reproduced" else "reproduced"
    for claim in summary["claims"]:
        if claim["id"] == "e3.l75.b1":
            claim["verdict"], claim["reason"] = changed, "A reason written by this test."
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data, "RESULTS_DIR", copy)
    at = open_page("robustness", {"agent": "b1", "seed": "0"})
    assert not at.exception and not at.error
    text = verdict_text(at)
    assert f"[**{changed}**]: B1's noise tolerance L75" in text
    assert "A reason written by this test." in text
    assert f"[**{actual}**]: B1's noise tolerance L75" not in text
    assert f"Here B1 is {B1_FRAGILITY[changed]}" in text and f"Here B1 is {B1_FRAGILITY[actual]}:" not in text


# ----------------------------------------------------------------------- every control in the URL

PAGE_PARAMS = {
    "metacognition": {"agent": "b2_ws", "seed": "1", "self_model_mode": "permute", "capacity": "3"},
    "workspace": {"agent": "b2", "seed": "1", "capacity": "1", "episode": "5", "soa": "4", "masks": "2"},
    "robustness": {"agent": "b2", "seed": "1", "noise": "0.2", "noise_mode": "read", "normalisation": "lz76",
                   "compare": "b1,b2", "geometry": "raw", "loop": "closed", "gain": "10", "schedule": "fast",
                   "design_noise": "read"},
}
OPTIONS = {"normalisation": ["zlib", "lz76", "casali", "shuffle"], "geometry": ["layernorm", "raw", "offset"],
           "loop": ["open", "closed"], "gain": [1.0, 10.0], "schedule": ["fast", "paper"]}


@pytest.mark.parametrize("page", list(PAGE_PARAMS))
def test_every_control_of_the_page_round_trips_through_the_url(page):
    given = PAGE_PARAMS[page]
    at = open_page(page, given)
    assert not at.exception, [e.value for e in at.exception]
    assert not [w.value for w in at.warning if "URL" in w.value or "is not one of" in w.value]
    published = params_of(at)
    assert published == given  # every control is in the URL, with the value it was given
    seeds = {k: [0, 1, 2, 3, 4] for k in AGENT_KINDS}
    state, notices = parse_params(published, agents=list(AGENT_KINDS), seeds=seeds, options=OPTIONS)
    again, _ = parse_params(state.to_params(list(given)), agents=list(AGENT_KINDS), seeds=seeds, options=OPTIONS)
    assert notices == [] and again == state
    for name in given:  # the widgets show the linked view
        shown = at.session_state[f"{page}.{name}"]
        expected = getattr(state, name)
        assert (list(shown) if name == "compare" else shown) == (list(expected) if name == "compare" else expected)


def test_new_url_fields_are_clamped_with_a_notice():
    raw = {"normalisation": "gzip", "gain": "3", "compare": "b1,zz", "design_noise": "both", "loop": "open"}
    state, notices = parse_params(raw, agents=["b1"], seeds={"b1": [0]}, options=OPTIONS)
    assert (state.normalisation, state.gain, state.compare, state.design_noise, state.loop) == \
        ("zlib", 1.0, ("b1",), "stored", "open")
    text = " ".join(notices)
    assert "normalisation='gzip' is not one of" in text and "gain='3' is not one of 1, 10" in text
    assert "'zz' is not an agent here" in text and "design_noise='both'" in text
    assert LabState(compare=()).to_params(["compare"]) == {"compare": ""}
    assert parse_params({"compare": ""}, agents=["b1"], seeds={"b1": [0]})[0].compare == ()


# ----------------------------------------------------------------------- figures


def test_pci_bars_say_they_are_one_seed():
    fig = pci_bars(pd.DataFrame({"agent": ["b1", "a0"], "pci": [0.1, 0.4], "dpci": [0.0, 0.01]}), "zlib", seed=3)
    names = [t.name for t in fig.data]
    assert "ours (seed 3, no SD)" in names and not any("SD over seeds" in (n or "") for n in names)
    assert all(getattr(t, "error_y", None) is None or t.error_y.array is None for t in fig.data)


def test_the_composite_scatter_names_its_agents_in_a_legend():
    points = [{"agent": a, "seed": s, "ood_gap": 0.1 * s, "ood_gap_overflow": 0.2, "gbi": 0.5, "gbi_abs": 0.4,
               "dpci": 0.01 * s, "auroc": 0.5} for a in ("b1", "b2", "a0") for s in range(3)]
    fig = fig3b_marker_correlations(points)
    scatter = [t for t in fig.data if t.legendgroup in ("b1", "b2", "a0")]
    assert len(scatter) == 9  # three panels x three agents
    shown = [t.name for t in scatter if t.showlegend]
    assert sorted(shown) == sorted({t.name for t in scatter}) and len(shown) == 3  # one entry per agent


def test_an_episode_beyond_the_view_is_clamped_with_a_notice():
    at = open_page("workspace", {"agent": "b1", "seed": "0", "episode": "999"})
    assert not at.exception, [e.value for e in at.exception]
    last = int(at.slider(key="workspace.episode").max)
    assert at.slider(key="workspace.episode").value == last < 999
    assert any(f"episode=999 is beyond the {last + 1} episodes" in w.value for w in at.warning)
