"""The Metacognition page (E1, Higher-Order Theory) in AppTest: zeroing the self-model keeps doing
and removes knowing, each number beside the intact value, the paper's number for the condition
shown and chance; predict, then reveal; its URL (clamped, quoted, never undoing a widget, kept
across pages); a figure built once per view; a broken or retrained checkpoint.
"""

from __future__ import annotations

import torch

from labcore import view_cache
from labcore.classroom.lesson import LESSON
from labcore.config import AGENT_KINDS
from labcore.experiments import paper_results
from labcore.experiments.paper_results import load_results
from labcore.figures import live
from labcore.paper_claims import CLAIMS_BY_ID, claim_for
from labcore.render import chance, term
from labcore.storage.checkpoints import (
    checkpoint_file,
    load_checkpoint,
    read_record,
    save_checkpoint,
)
from tests.ui.apptest_pages import (
    ROOT,
    caption_with,
    counting,
    exceptions,
    metric,
    metric_value,
    navigate,
    paper,
    shown_metric,
    url,
)
from tests.ui.pages.broken_checkpoints import assert_one_error_naming, errors, flip_byte
from ui import components, data
from ui.components import INTACT, NOT_REPORTED, THIS_CONDITION, change_text

BUNDLED = ROOT / "results" / "bundled"


# ----------------------------------------------------------------------- the lesion, and the
# numbers beside it


def test_zeroing_the_self_model_keeps_doing_and_removes_knowing(open_page):
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    accuracy, auroc = metric_value(at, "Task accuracy"), metric_value(at, "Type-2 AUROC")
    assert auroc != "0.50"
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert not at.exception
    assert metric_value(at, "Type-2 AUROC") == "0.50"
    assert metric_value(at, "Task accuracy") == accuracy  # doing is preserved
    assert (
        at.query_params["self_model_mode"] == ["zero"]
        or at.query_params["self_model_mode"] == "zero"
    )


def test_zeroing_shows_intact_and_current_auroc_with_the_zeroed_conditions_paper_number(open_page):
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    intact_auroc = metric(at, "Type-2 AUROC").value
    assert not metric(at, "Type-2 AUROC").proto.delta  # the intact agent: nothing to compare with
    assert f"paper: {paper('e1.auroc.self_on')}" in caption_with(
        at, f"chance: {chance('auroc').text}"
    )
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert not at.exception
    auroc = metric(at, "Type-2 AUROC")
    assert auroc.value == "0.50"
    expected = change_text(0.5, float(intact_auroc))
    assert auroc.proto.delta == expected and expected.startswith("-")
    caption = caption_with(at, f"chance: {chance('auroc').text}")
    assert f"intact: {intact_auroc}" in caption
    assert f"paper, {THIS_CONDITION}: {paper('e1.auroc.self_off')}" in caption
    assert (
        paper("e1.auroc.self_on") not in caption
    )  # never the intact number as if it were this one's
    accuracy = metric(at, "Task accuracy")
    assert (
        accuracy.proto.delta.split()[0] == "+0.0"
    )  # doing is preserved, and shown as a change of 0
    assert f"paper, {THIS_CONDITION}: {paper('e1.accuracy.self_off', '{:.1%}')}" in caption_with(
        at, f"chance: {chance('wager', 'percent').text}"
    )
    assert any(
        f"{chance('auroc').text} **{term('by_construction').name}**" in s.value for s in at.success
    )  # the zeroed AUROC is 0.5, and fixed by the wiring


def test_a_zeroed_self_models_opt_outs_are_said_to_be_fixed_by_construction(open_page):
    """A zeroed self-model's constant confidence fixes its opt-out rate: the page says so."""
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    opt_outs = next(m.value for m in at.metric if m.label == "Opt-outs on wager trials")
    assert opt_outs in ("100.0%", "0.0%")
    note = " ".join(s.value for s in at.success)
    constant = metric_value(at, "Mean confidence")  # the one confidence, whose side fixes them
    assert "opt-out" in note and term("by_construction").name in note and constant in note


def test_bus_off_says_what_the_paper_reports_for_it_and_whether_confidence_is_inhibited(open_page):
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "0"})
    assert not at.exception
    accuracy = caption_with(at, f"chance: {chance('wager', 'percent').text}")
    # the paper reports no E1 accuracy with the bus off: its intact number is labelled as such
    assert claim_for("e1.accuracy", "bus_off") is None
    assert f"paper: {NOT_REPORTED}" in accuracy
    assert f"paper, {INTACT}: {paper('e1.accuracy.self_on', '{:.1%}')}" in accuracy
    assert f"paper, {THIS_CONDITION}" not in accuracy
    assert f"paper, {THIS_CONDITION}: {paper('e1.auroc.bus_off')}" in caption_with(
        at, f"chance: {chance('auroc').text}"
    )
    assert f"paper, {THIS_CONDITION}: {paper('e1.skip.bus_off', '{:.1%}')}" in caption_with(
        at, "no chance level"
    )
    skip = float(metric(at, "Opt-outs on wager trials").value.rstrip("%")) / 100
    intact_skip = (
        float(caption_with(at, "no chance level").split("intact: ")[1].split("%")[0]) / 100
    )
    confidence = metric(at, "Mean confidence").value
    panel = next(w.value for w in [*at.warning, *at.info] if "uninhibited" in w.value)
    assert confidence in panel and f"opt-outs {skip:.1%}" in panel  # the live numbers, quoted
    reproduces = CLAIMS_BY_ID["e1.skip.bus_off"].check(
        {"e1.skip.self_on": intact_skip, "e1.skip.bus_off": skip}
    )
    assert ("**not**" in panel.split()) == (not reproduces)  # the rule's reading, said
    verdict = load_results(BUNDLED).finding("e1.skip.bus_off").verdict
    assert verdict in panel


# ----------------------------------------------------------------------- predict, then reveal


def test_metacognition_holds_the_zeroed_auroc_until_a_prediction_is_locked_in(open_page):
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    assert shown_metric(at, "Type-2 AUROC")  # the toggle is off by default: the page is as before
    at.toggle(key="predict.metacognition.on").set_value(True).run()
    assert not at.exception
    assert shown_metric(at, "Type-2 AUROC") is None and not at.get("plotly_chart")
    condition = "b2_ws/0/zero/4"
    assert at.radio(key=f"predict.metacognition.choice.{condition}").options  # the question
    at.radio(key=f"predict.metacognition.choice.{condition}").set_value(
        1
    ).run()  # "falls to chance"
    at.button(key=f"predict.metacognition.lock.{condition}").click().run()
    assert not at.exception
    assert at.success and not at.warning, [w.value for w in at.warning]  # a right prediction
    assert shown_metric(at, "Type-2 AUROC")


def test_the_lesson_link_opens_with_predict_first_on_and_keeps_it_in_the_url(open_page):
    """The lesson's "Predict: zero the self-model" must not show AUROC 0.50 at once."""
    step = next(s for s in LESSON if s.params.get("self_model_mode") == "zero")
    at = open_page("metacognition", step.params)
    assert not at.exception
    assert at.toggle(key="predict.metacognition.on").value is True
    assert shown_metric(at, "Type-2 AUROC") is None and not at.get("plotly_chart")
    assert url(at)["predict"] == "1"  # the view's link keeps it
    at.toggle(key="predict.metacognition.on").set_value(False).run()
    assert shown_metric(at, "Type-2 AUROC") and "predict" not in url(at)


# ----------------------------------------------------------------------- the URL


def test_bad_query_params_are_clamped_with_a_notice(open_page):
    at = open_page(
        "metacognition",
        {"agent": "b2_ws", "seed": "99", "self_model_mode": "off", "capacity": "12"},
    )
    assert not at.exception
    notices = " ".join(w.value for w in at.warning).replace("\\", "").split()
    assert {"seed=99", "self_model_mode='off'", "capacity=12"} <= set(notices)  # each clamped
    assert at.selectbox(key="metacognition.seed").value == 4
    assert at.slider(key="metacognition.capacity").value == 4
    at2 = open_page("robustness", {"noise": "banana", "protocol": "read"})
    assert not at2.exception and any("noise='banana'" in w.value for w in at2.warning)
    assert at2.radio(key="robustness.noise_mode").value == "read"
    # an old link (protocol= before it was renamed noise_mode=) still works, with a visible notice
    read = [w.value.replace("\\", "") for w in at2.warning]
    assert any("protocol=read" in w and "noise_mode=read" in w for w in read)


def test_url_text_is_quoted_never_rendered_as_markdown(open_page):
    # An image (fetched by the browser) or a link in a URL value must reach the page escaped.
    at = open_page(
        "metacognition",
        {
            "agent": "![t](http://127.0.0.1:9/track.png)",
            "self_model_mode": "**URGENT** [sign in](http://x)" + "y" * 5000,
        },
    )
    assert not at.exception
    shown = [w.value for w in at.warning]
    assert shown and not any("![" in v or "](" in v or "**" in v for v in shown)
    assert max(len(v) for v in shown) < 400  # a 5,000-character value is not echoed back


def test_a_lagging_url_never_undoes_the_last_widget_change(open_page):
    """During fast changes the browser's URL lags a rerun; it must not win over a
    widget."""
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "capacity": "2"})
    at.slider(key="metacognition.capacity").set_value(3).run()
    at.segmented_control(key="metacognition.self_model_mode").set_value("permute").run()
    stale = {
        "agent": "b2_ws",
        "seed": "0",
        "self_model_mode": "on",
        "capacity": "3",
    }  # one rerun behind
    at.query_params.clear()
    at.query_params.update(stale)
    at.slider(key="metacognition.capacity").set_value(4).run()
    assert not at.exception
    assert at.slider(key="metacognition.capacity").value == 4
    assert at.segmented_control(key="metacognition.self_model_mode").value == "permute"
    assert at.query_params["self_model_mode"] in ("permute", ["permute"])


def test_a_changed_control_survives_a_visit_to_another_page(open_page):
    """Streamlit drops a widget's state when another page runs; the page comes back as the user
    left it (never a KeyError)."""
    at = open_page("metacognition")
    at.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    at.slider(key="metacognition.capacity").set_value(2).run()
    navigate(at, "home")
    navigate(at, "metacognition")  # the sidebar: a bare URL
    assert not exceptions(at)
    assert at.segmented_control(key="metacognition.self_model_mode").value == "zero"
    assert at.slider(key="metacognition.capacity").value == 2
    assert url(at)["self_model_mode"] == "zero"


# ----------------------------------------------------------------------- cheap reruns


def test_a_figure_is_built_once_per_view_for_every_session(open_page, monkeypatch):
    """A figure is built once per distinct view for every session, not on every rerun."""
    components._prepared.clear()
    built = counting(monkeypatch, live, "type2_roc_figure")
    first = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "on"})
    first.segmented_control(key="metacognition.self_model_mode").set_value("zero").run()
    assert len(built) == 2
    first.segmented_control(key="metacognition.self_model_mode").set_value("on").run()
    second = open_page("metacognition", {"agent": "b2_ws", "seed": "0", "self_model_mode": "zero"})
    assert not exceptions(first) and not exceptions(second)
    assert len(built) == 2, "a view seen before, in this session or another, reuses its figure"
    assert any(c.proto.spec for c in second.get("plotly_chart"))
    components._prepared.clear()


def test_a_switch_among_bundled_views_computes_nothing_and_reads_the_results_once(
    open_page, monkeypatch
):
    """A bundled agent's self-model switch is a lookup in the shipped views."""
    data.results.clear()
    computed = counting(monkeypatch, view_cache, "metacognition_view")
    reads = counting(monkeypatch, paper_results, "load_results")
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "1", "self_model_mode": "on"})
    for mode in ("zero", "noise", "permute", "on", "zero"):
        at.segmented_control(key="metacognition.self_model_mode").set_value(mode).run()
    assert not exceptions(at) and metric_value(at, "Type-2 AUROC") == "0.50"
    assert computed == [] and len(reads) == 1


# ----------------------------------------------------------------------- broken or retrained
# checkpoints


def test_metacognition_without_its_agent_keeps_the_others(open_page, lab):
    flip_byte(lab, "wagering-b2_ws-s0")
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    assert_one_error_naming(at, "wagering-b2_ws-s0.safetensors")
    assert "1" in at.selectbox(key="metacognition.seed").options
    at.selectbox(key="metacognition.seed").set_value(1).run()
    assert not at.exception and not errors(at)
    assert shown_metric(at, "Type-2 AUROC")


def test_a_checkpoint_retrained_in_place_is_loaded_and_measured_afresh(open_page, lab):
    name, slots = "wagering-b2_ws-s0", AGENT_KINDS["b2_ws"].n_slots
    before, old = (
        data.metacognition("b2_ws", 0, "on", slots, 0.0),
        data.agent("wagering", "b2_ws", 0),
    )
    replaced = load_checkpoint(checkpoint_file(lab, name)).agent
    with torch.no_grad():
        replaced.confidence_head.bias.fill_(-30.0)  # confidence ~0: opts out on every wager trial
    save_checkpoint(replaced, read_record(lab, name), lab)  # atomic, as `train` does
    after = data.metacognition("b2_ws", 0, "on", slots, 0.0)
    assert data.agent("wagering", "b2_ws", 0) is not old
    assert before.skip_fraction < 0.1 and after.skip_fraction == 1.0
    at = open_page("metacognition", {"agent": "b2_ws", "seed": "0"})
    assert not at.exception and metric_value(at, "Opt-outs on wager trials") == "100.0%"
