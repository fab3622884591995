"""The Robustness page (E3, triangulation) in AppTest: the noise slider changes the live accuracy,
the verdict follows the result set, a prediction is asked for only when there is noise, and a
broken checkpoint is left out of the PCI table with its name; and two of the page's figures, built
directly: the PCI bars say they are one seed, the composite scatter names its agents.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from labcore.classroom.lesson import LESSON
from labcore.experiments import paper_results
from labcore.experiments import study as study_module
from labcore.experiments.paper_results import load_results
from labcore.experiments.study import load_study
from labcore.figures import explore, live
from labcore.figures import paper as paper_figs
from labcore.figures.explore import e3_robustness_verdict
from labcore.figures.live import pci_bars
from labcore.figures.paper import fig3b_marker_correlations
from labcore.render import answer, chance
from tests.ui.apptest_pages import (
    ROOT,
    caption_with,
    charts,
    counting,
    metric_labels,
    metric_value,
    shown_metric,
)
from tests.ui.pages.broken_checkpoints import (
    BROKEN,
    assert_one_error_naming,
    chart_agents,
    flip_byte,
)
from ui import components, data
from ui.components import VERDICT_MARKDOWN_COLOURS

BUNDLED = ROOT / "results" / "bundled"


def test_noise_slider_changes_the_live_accuracy(open_page):
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0"})
    clean = metric_value(at, "Report accuracy with this noise")
    at.slider(key="robustness.noise").set_value(0.9).run()
    assert not at.exception
    assert metric_value(at, "Report accuracy with this noise") != clean


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
def b1_claim(at: AppTest) -> str:
    """The verdict box's first claim line (it lists its claims in order, e3.l75.b1 first)."""
    return next(x for m in at.markdown for x in m.value.splitlines() if x.startswith("- :"))


def test_the_robustness_verdict_follows_the_result_set(open_page, tmp_path, monkeypatch):
    def verdict_text(at: AppTest) -> str:
        return " ".join(m.value for m in at.markdown)

    at = open_page("robustness", {"agent": "b1", "seed": "0"})
    actual = load_results(BUNDLED).finding("e3.l75.b1").verdict
    text = verdict_text(at)
    assert b1_claim(at).startswith(f"- :{VERDICT_MARKDOWN_COLOURS[actual]}[**{actual}**]")
    assert e3_robustness_verdict(load_results(BUNDLED))[0] in text  # the template's words
    design = load_study("e3_design", ROOT / "results" / "explore_e3").summary
    assert answer(design, "long").split("\n\n")[0][:60] in text  # why, from the design study
    assert (
        "stored" in caption_with(at, f"chance: {chance('decision').text}").split()
    )  # the live accuracy's chance, and its noise protocol

    copy = tmp_path / "bundled"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns("report.html"))
    summary = json.loads((copy / "summary.json").read_text())
    changed = "partly reproduced" if actual != "partly reproduced" else "reproduced"
    note = "a note written by this test"
    for claim in summary["findings"]:
        if claim["id"] == "e3.l75.b1":
            claim["verdict"], claim["verdict_rule"] = changed, "pattern"
            claim["flags"] = [{"kind": "undefined", "note": note}]
    (copy / "summary.json").write_text(json.dumps(summary))
    monkeypatch.setattr(data, "RESULTS_DIR", copy)
    at = open_page("robustness", {"agent": "b1", "seed": "0"})
    assert not at.exception and not at.error
    text = verdict_text(at)
    assert f"[**{changed}**]" in b1_claim(at) and f"[**{actual}**]" not in b1_claim(at)
    assert note in text
    assert e3_robustness_verdict(load_results(copy))[0] in text


def test_robustness_asks_only_when_there_is_noise(open_page):
    """Predict, then reveal."""
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0"})
    at.toggle(key="predict.robustness.on").set_value(True).run()
    assert shown_metric(at, "Report accuracy with this noise")  # no lesion, nothing to predict
    at.slider(key="robustness.noise").set_value(0.3).run()
    assert not at.exception
    assert shown_metric(at, "Report accuracy with this noise") is None


def test_the_lesson_step_holds_back_everything_that_gives_the_answer_away(open_page):
    """The lesson's noise step opens with Predict first on, and while the prediction is
    pending neither the live number, nor L75, the verdict or any of the four charts shows."""
    step = next(s for s in LESSON if s.page == "robustness")
    at = open_page("robustness", step.params)
    assert not at.exception
    assert at.toggle(key="predict.robustness.on").value is True
    assert not at.metric and not at.get("plotly_chart"), metric_labels(at)
    assert not any("Verdict" in m.value for m in at.markdown)
    condition = f"b1/0/{float(step.params['noise']):g}/stored"
    at.radio(key=f"predict.robustness.choice.{condition}").set_value(0).run()
    at.button(key=f"predict.robustness.lock.{condition}").click().run()
    assert not at.exception
    assert shown_metric(at, "Report accuracy with this noise")
    assert any(label.startswith("L75") for label in metric_labels(at))
    assert len(charts(at)) == 4  # titration, PCI, composite, design study


def test_a_bad_predict_value_is_clamped_with_a_notice(open_page):
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0.2", "predict": "2"})
    assert not at.exception
    assert any("predict=" in w.value and "using 0" in w.value for w in at.warning)
    assert at.toggle(key="predict.robustness.on").value is False
    assert shown_metric(at, "Report accuracy with this noise")  # off: nothing held back
    assert "predict" not in at.query_params


# ----------------------------------------------------------------------- a switch is a lookup


def test_a_noise_switch_redraws_only_the_titration_and_derives_nothing_again(
    open_page, monkeypatch
):
    """Noise levels seen before: the result set and the design study are read once, the verdict's
    sentences worked out once, the PCI, composite and design figures built once; only the
    titration chart (its live star moves) is built once per noise level."""
    components._prepared.clear()
    data.results.clear()
    data.read_study.clear()
    data._once.clear()
    reads = counting(monkeypatch, paper_results, "load_results")
    studies = counting(monkeypatch, study_module, "load_study")
    verdicts = counting(monkeypatch, explore, "e3_robustness_verdict")
    titrations = counting(monkeypatch, live, "titration_figure")
    others = [
        counting(monkeypatch, live, "pci_bars"),
        counting(monkeypatch, paper_figs, "fig3b_marker_correlations"),
        counting(monkeypatch, explore, "design_titration_figure"),
    ]
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0"})
    for sigma in (0.2, 0.0, 0.2, 0.0):
        at.slider(key="robustness.noise").set_value(sigma).run()
    assert not at.exception
    assert (len(reads), len(studies), len(verdicts)) == (1, 1, 1)
    assert len(titrations) == 2  # noise 0 and 0.2
    assert [len(built) for built in others] == [1, 1, 1]
    components._prepared.clear()


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
def test_a_result_set_rewritten_in_place_is_read_on_the_next_run(open_page, tmp_path, monkeypatch):
    """The result set is shared between runs and sessions, keyed by its files' versions: a study
    written again into the same folder shows at once, its verdicts and sentences too."""
    copy = tmp_path / "bundled"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns("report.html"))
    monkeypatch.setattr(data, "RESULTS_DIR", copy)
    at = open_page("robustness", {"agent": "b1", "seed": "0"})
    actual = load_results(copy).finding("e3.l75.b1").verdict
    assert f"[**{actual}**]" in b1_claim(at)
    summary = json.loads((copy / "summary.json").read_text())
    changed = "partly reproduced" if actual != "partly reproduced" else "reproduced"
    for claim in summary["findings"]:
        if claim["id"] == "e3.l75.b1":
            claim["verdict"], claim["verdict_rule"] = changed, "pattern"
    (copy / "summary.json").write_text(json.dumps(summary))
    at.run()
    assert f"[**{changed}**]" in b1_claim(at)
    text = " ".join(m.value for m in at.markdown)
    assert e3_robustness_verdict(load_results(copy))[0] in text  # the lead, worked out afresh


# ----------------------------------------------------------------------- a broken checkpoint


def test_robustness_leaves_the_broken_agent_out_of_the_pci_table(open_page, lab):
    flip_byte(lab)
    at = open_page("robustness")  # default view: the broken agent is the one selected
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert shown_metric(at, "Report accuracy with this noise") is None
    assert any("titration" in s.value.lower() for s in at.subheader)  # bundled results still show
    shown = chart_agents(at, "pci")
    assert shown and "B1" not in " ".join(shown)
    assert any("B2" in x for x in shown)
    assert any(w.value.startswith("Left") and "B1" in w.value for w in at.warning)  # left out


def test_robustness_with_another_agent_selected_names_the_broken_one(open_page, lab):
    flip_byte(lab)
    at = open_page("robustness", {"agent": "b2", "seed": "0"})
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    assert shown_metric(at, "Report accuracy with this noise")  # the selected agent works
    assert any(w.value.startswith("Left") and "B1" in w.value for w in at.warning)  # left out
    assert len(chart_agents(at, "pci")) >= 4


# ----------------------------------------------------------------------- the page's figures (built
# directly)


def test_pci_bars_say_they_are_one_seed():
    fig = pci_bars(
        pd.DataFrame({"agent": ["b1", "a0"], "pci": [0.1, 0.4], "dpci": [0.0, 0.01]}),
        "zlib",
        seed=3,
    )
    names = [t.name for t in fig.data]
    assert any("3," in (n or "").split() for n in names)  # ours, from seed 3 (no SD)
    assert not any("over" in (n or "").split() for n in names)  # never "SD over seeds"
    assert all(getattr(t, "error_y", None) is None or t.error_y.array is None for t in fig.data)


def test_the_composite_scatter_names_its_agents_in_a_legend():
    points = [
        {
            "agent": a,
            "seed": s,
            "ood_gap": 0.1 * s,
            "ood_gap_overflow": 0.2,
            "gbi": 0.5,
            "gbi_abs": 0.4,
            "dpci": 0.01 * s,
            "auroc": 0.5,
        }
        for a in ("b1", "b2", "a0")
        for s in range(3)
    ]
    fig = fig3b_marker_correlations(points)
    scatter = [t for t in fig.data if t.legendgroup in ("b1", "b2", "a0")]
    assert len(scatter) == 9  # three panels x three agents
    shown = [t.name for t in scatter if t.showlegend]
    assert (
        sorted(shown) == sorted({t.name for t in scatter}) and len(shown) == 3
    )  # one entry per agent
