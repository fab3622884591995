"""Every page in Streamlit's AppTest: no exceptions, controls change outputs, URLs are clamped."""

from __future__ import annotations

import pytest

from tests.ui.apptest_pages import metric_value, open_page

PAGES = ["home", "agents", "metacognition", "workspace", "robustness", "integration", "rollouts", "replication",
         "scorecards", "mystery", "lesson", "reward"]


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_without_exceptions(page):
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, "every page has a title"
    assert any("look" in e.label.lower() or "verdict" in e.label.lower() for e in at.expander) or page in (
        "home", "scorecards"), "plain-language help on the page"


def test_zeroing_the_self_model_keeps_doing_and_removes_knowing():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    accuracy, auroc = metric_value(at, "Task accuracy"), metric_value(at, "Type-2 AUROC")
    assert auroc != "0.50"
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert not at.exception
    assert metric_value(at, "Type-2 AUROC") == "0.50"
    assert metric_value(at, "Task accuracy") == accuracy  # doing is preserved
    assert at.query_params["self_model_mode"] == ["zero"] or at.query_params["self_model_mode"] == "zero"


def test_workspace_capacity_controls_access():
    at = open_page("workspace", {"agent": "b1", "seed": "0", "capacity": "4"})
    full = float(metric_value(at, "Conjunction accuracy").rstrip("%"))
    at.select_slider(key="workspace.capacity").set_value(0).run()
    off = float(metric_value(at, "Conjunction accuracy").rstrip("%"))
    assert full > 90 and off < 20
    assert not at.exception


def test_bad_query_params_are_clamped_with_a_notice():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "99", "self_model_mode": "off", "capacity": "12"})
    assert not at.exception
    notices = " ".join(w.value for w in at.warning)
    assert "seed=99 is not available" in notices and "'off' is not one of" in notices
    assert "capacity=12 is out of range" in notices
    assert at.selectbox(key="metacognition.seed").value == 4
    assert at.slider(key="metacognition.capacity").value == 4
    at2 = open_page("robustness", {"noise": "banana", "protocol": "read"})
    assert not at2.exception and any("noise='banana' is not a number" in w.value for w in at2.warning)
    assert at2.radio(key="robustness.noise_mode").value == "read"
    # an old link (protocol= before it was renamed noise_mode=) still works, with a visible notice
    assert any("'protocol' is now called 'noise_mode'" in w.value.replace("\\", "") for w in at2.warning)


def test_url_text_is_quoted_never_rendered_as_markdown():
    # An image (fetched by the browser) or a link in a URL value must reach the page escaped.
    at = open_page("metacognition", {"agent": "![t](http://127.0.0.1:9/track.png)",
                                     "self_model_mode": "**URGENT** [sign in](http://x)" + "y" * 5000})
    assert not at.exception
    shown = [w.value for w in at.warning]
    assert shown and not any("![" in v or "](" in v or "**" in v for v in shown)
    assert max(len(v) for v in shown) < 400  # a 5,000-character value is not echoed back


def test_noise_slider_changes_the_live_accuracy():
    at = open_page("robustness", {"agent": "b1", "seed": "0", "noise": "0"})
    clean = metric_value(at, "Report accuracy with this noise")
    at.slider(key="robustness.noise").set_value(0.9).run()
    assert not at.exception
    assert metric_value(at, "Report accuracy with this noise") != clean


def test_rollout_theatre_steps_through_an_episode():
    at = open_page("rollouts", {"task": "dual", "agent": "b1", "seed": "0", "episode": "3"})
    assert not at.exception
    assert at.session_state["rollouts.t"] == 0
    next(b for b in at.button if b.label == "step").click().run()
    assert at.session_state["rollouts.t"] == 1
    assert any("step 1 of 32" in str(p.value) or "step 1 of 32" in getattr(p, "text", "") for p in at.get("progress"))


def test_replication_lists_the_claims_and_verdicts():
    at = open_page("replication")
    assert not at.exception
    table = at.dataframe[0].value
    assert {"claim", "paper", "ours", "verdict", "why"} <= set(table.columns)
    assert {"e1.auroc.self_on", "e2.conjunction.k2", "e3.l75.b1"} <= set(table["claim"])


def test_scorecards_hot2_follows_the_self_model_lesion():
    at = open_page("scorecards")
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    assert "HOT-2" in info
    intact = info.split("behavioural ")[1].split(" intact")[0]
    lesioned = info.split("intact, ")[1].split(" with the self-model zeroed")[0]
    assert intact != lesioned


def test_a_lagging_url_never_undoes_the_last_widget_change():
    """Issue 13: during fast changes the browser's URL lags a rerun; it must not win over a widget."""
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "2"})
    at.slider(key="metacognition.capacity").set_value(3).run()
    at.segmented_control(key="metacognition.self_model_mode").set_value("permute").run()
    stale = {"agent": "b2_ws", "seed": "0", "self_model_mode": "on", "capacity": "3"}  # one rerun behind
    at.query_params.clear()
    at.query_params.update(stale)
    at.slider(key="metacognition.capacity").set_value(4).run()
    assert not at.exception
    assert at.slider(key="metacognition.capacity").value == 4
    assert at.segmented_control(key="metacognition.self_model_mode").value == "permute"
    assert at.query_params["self_model_mode"] in ("permute", ["permute"])


def test_arriving_by_a_link_reads_the_link():
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "2"})
    at.query_params.clear()
    at.query_params.update({"agent": "b1", "seed": "0", "capacity": "1"})
    at.switch_page("app_pages/workspace.py").run()
    assert not at.exception
    assert at.select_slider(key="workspace.capacity").value == 1


def test_the_result_set_is_in_the_url():
    at = open_page("replication", {"results": "seeds20"})
    assert not at.exception
    assert at.selectbox(key="replication.results").value == "seeds20"
    assert "20 seeds" in " ".join(m.value for m in at.markdown)
    at.selectbox(key="replication.results").set_value("bundled").run()
    assert at.query_params["results"] in ("bundled", ["bundled"])
    bad = open_page("replication", {"results": "../../etc"})
    assert not bad.exception and bad.selectbox(key="replication.results").value == "bundled"
    assert any("results=" in w.value for w in bad.warning)
