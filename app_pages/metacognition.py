"""Metacognition (HOT): does the agent know when it knows? Zero its self-model and see."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from labcore.config import SALIENCE_BLOCKS, SELF_NOISE_DOSES, SILENCED_DOSES
from labcore.figures.dissociations import dose_figure
from labcore.figures.live import calibration_figure, confidence_histogram, type2_roc_figure
from labcore.paper_claims import CLAIMS_BY_ID, INTACT_CONDITION, claim_for, e1_condition
from labcore.render import answer, chance, chance_text, part
from ui import controls, data
from ui.components import (
    SELF_MODEL_LABELS,
    change_text,
    explain,
    figure,
    live_scope,
    metric,
    number_text,
    paper_number,
    paper_value,
    verdict_box,
)
from ui.predict import CHANGE_CHOICES, change_outcome, predict_then_reveal, predicting
from ui.science import e1_construction_notes
from ui.state import MAX_SLOTS

PAGE = "metacognition"
PAPER_KEYS = ("agent", "seed", "self_model_mode", "capacity")
MEASURED_KEYS = ("agent", "seed", "silenced", "self_noise", "route_off", "block")
KEYS = (*PAPER_KEYS, *MEASURED_KEYS[2:])  # a view's URL holds the controls its agent has
MEASURED = "b2_routes"  # the measured variant (protocol 11): training, not the wiring, decides
INTACT = INTACT_CONDITION["e1"]
BLOCK_NAMES = dict(zip(SALIENCE_BLOCKS, ("faint", "medium", "clear"), strict=True))
VERDICT_CLAIMS = (
    ("e1.accuracy.self_on", "accuracy, intact"),
    ("e1.accuracy.self_off", "accuracy with the self-model zeroed (the paper: doing is kept)"),
    ("e1.auroc.self_on", "Type-2 AUROC, intact (knowing)"),
    ("e1.auroc.self_off", "Type-2 AUROC with the self-model zeroed (the paper: knowing is lost)"),
    ("e1.auroc.bus_off", "Type-2 AUROC with the workspace off"),
    (
        "e1.skip.bus_off",
        "opt-outs with the workspace off (the paper: more than intact, no uninhibited confidence)",
    ),
)

st.title("Metacognition — Higher-Order Theory")
measured_summary = data.measured()
if measured_summary is not None and not predicting(PAGE):  # the answer and its curve first
    e1_answer = part(measured_summary, "e1_short")
    st.markdown(f"**{e1_answer}**")
    e1_tables = measured_summary.tables["e1"]
    figure(
        build=lambda: dose_figure(
            e1_tables["curves"],
            "silenced",
            ideal_auroc=e1_tables["ideal_mean"]["auroc_both"],
            reader_auroc=measured_summary.value("e1m.auroc.reader"),
        ),
        cache_key=("e1m-dose-top", data.version(measured_summary)),
        key="dose",
        download="dose_response",
        answer=e1_answer,
    )
st.caption(
    "Experiment 1 of the paper: a wagering task. Can the agent tell its right answers "
    "from its wrong ones? Two agents: the paper's wiring, where both halves of the answer are "
    "fixed before training, and a measured variant, where training decides."
)
explain(
    what="The agent sees a faint flash (blue = go left, red = go right), walks to the side "
    "it believes, "
    "and on half the trials bets on its answer or opts out. **Task accuracy** is how "
    "often it goes to the "
    f"right side ({chance_text('wager', 'percent')}). **Type-2 AUROC** asks whether its "
    "*confidence* is higher on correct than on "
    f"wrong trials: {chance('auroc').text} (chance) means its confidence says nothing about "
    "being right, "
    "1.0 means it always "
    "knows. Each number below sits beside the intact agent's and the paper's number "
    "for the same condition.",
    try_this="Switch the **self-model** to *zeroed*. Accuracy does not move (the policy never "
    "reads the "
    "self-model), but the ROC curve falls onto the diagonal: the agent still *does*, but no longer "
    "*knows*. Then turn the **workspace** down to 0 slots with the self-model on.",
    theory="Higher-order theories say awareness needs a representation of one's own state. "
    "Remove it and "
    "first-order performance can survive while metacognition goes: a synthetic **blindsight**.",
)


def mean_confidence(view) -> float:
    """Mean choice-point confidence over the answered trials (nan if none)."""
    answered = view.confidence[view.answered]
    return float(np.mean(answered)) if answered.size else float("nan")


def m_ratio_undefined(view) -> str:
    """Why M-ratio (meta-d'/d', labcore.measures) is undefined for this view."""
    answered = view.confidence[view.answered]
    if answered.size >= 20 and np.ptp(answered) == 0:
        return (
            "the confidence is the same on every trial, so meta-d' (how well it sorts "
            "right from wrong) cannot be fitted"
        )
    if answered.size < 20:
        return "meta-d' needs at least 20 answered trials"
    return (
        "at chance accuracy d' is about 0, and M-ratio divides by it"
        if abs(view.accuracy - 0.5) < 0.05
        else "the meta-d' fit did not converge on these trials"
    )


def dissociation_lead(res) -> list[str]:
    """The result set's intact -> zeroed numbers in one sentence (empty without them)."""
    values = res.values
    keys = ("e1.accuracy.self_on", "e1.accuracy.self_off", "e1.auroc.self_on", "e1.auroc.self_off")
    if not all(k in values for k in keys):
        return []
    a_on, a_off, u_on, u_off = (values[k] for k in keys)
    n = len(res.seeds)
    return [
        f"Over the result set's {n} seeds, zeroing the self-model takes task accuracy from "
        f"{number_text(a_on, '{:.1%}')} to {number_text(a_off, '{:.1%}')} "
        f"({change_text(a_off, a_on, '{:.1%}')}) and Type-2 AUROC from {number_text(u_on)} to "
        f"{number_text(u_off)} ({change_text(u_off, u_on)})."
    ]


entries = data.manifest()  # read once: a file that cannot be listed is one error
seeds = {**data.seeds_by_kind("wagering", entries), **data.seeds_by_kind("post_decision", entries)}
if not seeds:
    st.error("No agent trained on the wagering task is available. Train one on the Agents page.")
    st.stop()
controls.init_state(PAGE, KEYS, agents=list(seeds), seeds=seeds)
res = (
    data.checked_results()
)  # read once: a broken result set is one error, the live lab still works
left, mid, right, far = st.columns([2, 1, 3, 2])
kind, _ = controls.agent_seed_picker(PAGE, seeds, left, mid)


@st.fragment
def measured_view() -> None:
    """The measured variant: a graded self-model lesion, self-model noise, the confidence's other
    route, the flash's salience; the dose-response over seeds first, then this seed's view."""
    right.select_slider(
        "Self-model units silenced",
        SILENCED_DOSES,
        key=controls.key(PAGE, "silenced"),
        format_func=lambda x: f"{x:.0%}",
        help="The share of the self-model's 64 units set to 0 wherever they are read (the "
        "policy and the confidence both read them). 100% is the full lesion.",
    )
    far.select_slider(
        "Flash strength",
        SALIENCE_BLOCKS,
        key=controls.key(PAGE, "block"),
        format_func=lambda x: BLOCK_NAMES.get(x, f"{x:g}"),
        help="Every trial of a view has the same salience, so M-ratio can be read.",
    )
    a, b = st.columns([3, 2])
    a.select_slider(
        "Noise added to the self-model (SD)",
        SELF_NOISE_DOSES,
        key=controls.key(PAGE, "self_noise"),
        format_func=lambda x: f"{x:g}",
    )
    b.toggle(
        "Switch off the confidence's other route",
        key=controls.key(PAGE, "route_off"),
        help="The confidence reads the self-model and the policy's own reading of the workspace. "
        "Off: only the self-model is left to it.",
    )
    controls.publish(PAGE, MEASURED_KEYS)
    seed = controls.value(PAGE, "seed")
    if data.checked_agent("post_decision", kind, seed) is None:
        st.stop()
    silenced = controls.value(PAGE, "silenced")
    self_noise = controls.value(PAGE, "self_noise")
    route_off = controls.value(PAGE, "route_off")
    block = controls.value(PAGE, "block")
    view = data.post_decision(kind, seed, silenced, self_noise, route_off, block)
    intact = data.post_decision(kind, seed, 0.0, 0.0, False, block)
    is_intact = (silenced, self_noise, route_off) == (0.0, 0.0, False)
    ideal = None
    if measured_summary is not None:
        ideal = next(
            (r for r in measured_summary.tables["e1"]["ideal"] if r["block"] == block), None
        )
    revealed = predict_then_reveal(
        PAGE,
        f"{kind}/{seed}/{silenced}/{self_noise}/{route_off}/{block}",
        "With this lesion, what will **Type-2 AUROC** (does the wager's confidence tell right "
        "from wrong?) do?",
        CHANGE_CHOICES,
        partial(change_outcome, view["auroc"], intact["auroc"], 0.5, tolerance=0.05),
        active=not is_intact,
    )
    if not revealed:
        st.stop()
    st.success(
        "**Measured:** this agent's policy and confidence read both the workspace and the "
        "self-model, so what a lesion takes is decided by training, not by the wiring.",
        icon=":material/science:",
    )
    # the curve over seeds: at the top, or here once a prediction is in (it answers the question)
    condition = "noise" if self_noise > 0 else "silenced"
    if measured_summary is not None and (condition == "noise" or predicting(PAGE)):
        tables = measured_summary.tables["e1"]
        dose = self_noise if condition == "noise" else silenced
        here = None
        if not route_off and (silenced == 0 or self_noise == 0):
            here = {"dose": dose, "auroc": view["auroc"], "accuracy": view["accuracy"]}
        figure(
            build=lambda: dose_figure(
                tables["curves"],
                condition,
                ideal_auroc=tables["ideal_mean"]["auroc_both"],
                reader_auroc=measured_summary.value("e1m.auroc.reader"),
                here=here,
            ),
            cache_key=("e1m-dose", condition, str(here), data.version(measured_summary)),
            key="dose-here",
            download="dose_response_here",
        )
    m1, m2, m3, m4 = st.columns(4)
    base = None if is_intact else intact
    metric(
        m1,
        "Task accuracy",
        view["accuracy"],
        fmt="{:.1%}",
        intact=base and base["accuracy"],
        chance="wager",
        reference=f"ideal observer {ideal['accuracy']:.1%}" if ideal else None,
    )
    metric(
        m2,
        "Type-2 AUROC",
        view["auroc"],
        intact=base and base["auroc"],
        chance="auroc",
        reference=f"ideal observer of both flashes {ideal['auroc_both']:.2f}; the choice alone "
        f"{ideal['auroc_first']:.2f}"
        if ideal
        else None,
    )
    metric(
        m3,
        "M-ratio",
        view["m_ratio"],
        intact=base and base["m_ratio"],
        chance="m_ratio",
        reference=f"ideal observer {ideal['m_ratio_both']:.2f} (above 1: the second flash)"
        if ideal
        else None,
    )
    metric(
        m4,
        "Change of mind",
        view["change_of_mind"],
        intact=base and base["change_of_mind"],
        reference="confidence when the second flash agrees with the choice, minus when it "
        "contradicts it",
    )
    curves = {"intact": (intact["correct"], intact["confidence"])}
    if not is_intact:
        curves["this lesion"] = (view["correct"], view["confidence"])
    figure(
        build=lambda: type2_roc_figure(curves),
        cache_key=(
            "e1m-roc",
            *data.agent_file("post_decision", kind, seed),
            silenced,
            self_noise,
            route_off,
            block,
        ),
        key="roc-measured",
        download="type2_roc_measured",
    )
    if measured_summary is not None:
        with st.expander("What the study found, seed by seed, and how it was decided"):
            st.markdown(answer(measured_summary, "long"))


if kind == MEASURED:
    measured_view()
    st.stop()


@st.fragment
def live_view() -> None:
    """The self-model and workspace controls and everything they change: a switch reruns only
    this, not the page's explanations and verdicts."""
    controls.segmented(
        right,
        "Self-model",
        list(SELF_MODEL_LABELS),
        PAGE,
        "self_model_mode",
        fallback="on",
        format_func=SELF_MODEL_LABELS.get,
        help="z_self: the agent's compressed model of its own state. "
        "The confidence head reads only z_self.",
    )
    far.slider(
        "Workspace slots",
        0,
        MAX_SLOTS,
        key=controls.key(PAGE, "capacity"),
        help="How many of the 4 workspace slots may hold information. 0 = workspace off (bus-off).",
    )
    controls.publish(PAGE, PAPER_KEYS)

    seed = controls.value(PAGE, "seed")
    model = data.checked_agent("wagering", kind, seed)
    if model is None:  # its error is shown; the other agents still work
        st.stop()
    self_model_mode = controls.value(PAGE, "self_model_mode")
    capacity = controls.value(PAGE, "capacity")
    n_slots = model.config.n_slots
    # the paper tested only its own wiring (b2_ws): another agent is shown without its numbers
    tested = kind == "b2_ws"
    condition = e1_condition(self_model_mode, capacity, n_slots) if tested else None
    intact_condition = INTACT if tested else None
    is_intact = (self_model_mode, capacity) == ("on", n_slots)
    view = data.metacognition(kind, seed, self_model_mode, capacity, 0.0)
    intact = data.metacognition(kind, seed, "on", n_slots, 0.0)
    # the intact values beside a lesion (none beside the intact agent)
    base = None if is_intact else intact
    missing = (
        ("not reported for this condition" if condition else "does not test this setting")
        if tested
        else "never tested this agent"
    )

    if self_model_mode != "on":
        question = (
            f"The self-model is now **{SELF_MODEL_LABELS[self_model_mode]}**. What will "
            "**Type-2 AUROC** "
            "(does confidence tell right from wrong?) do?"
        )
        predicted = partial(change_outcome, view.auroc, intact.auroc, 0.5, tolerance=0.05)
    else:
        question = (
            f"With **{capacity} of {n_slots}** workspace slots, what will **task accuracy** do?"
        )
        predicted = partial(
            change_outcome, view.accuracy, intact.accuracy, 0.5, tolerance=0.03, fmt="{:.1%}"
        )
    revealed = predict_then_reveal(
        PAGE,
        f"{kind}/{seed}/{self_model_mode}/{capacity}",
        question,
        CHANGE_CHOICES,
        predicted,
        active=not is_intact,
    )
    controls.rerun_page_when_changed(PAGE, "revealed", revealed)  # the verdicts wait too
    if not revealed:
        st.stop()  # the lesion's numbers and figures wait for the prediction

    live_scope(data.label(kind), seed, f"{data.E1_TRIALS} trials", res)
    m1, m2, m3, m4, m5 = st.columns(5)
    metric(
        m1,
        "Task accuracy",
        view.accuracy,
        claim=claim_for("e1.accuracy", condition),
        fmt="{:.1%}",
        intact=base and base.accuracy,
        intact_claim=claim_for("e1.accuracy", intact_condition),
        chance="wager",
        paper_missing=missing,
        help=(
            "Fraction of trials that end in the correct zone "
            f"(two sides: {chance_text('wager', 'percent')})."
        ),
    )
    metric(
        m2,
        "Type-2 AUROC",
        view.auroc,
        claim=claim_for("e1.auroc", condition),
        intact=base and base.auroc,
        intact_claim=claim_for("e1.auroc", intact_condition),
        chance="auroc",
        paper_missing=missing,
        help=(
            "Probability that a random correct trial got more confidence than a random wrong "
            f"one ({chance_text('auroc')})."
        ),
    )
    metric(
        m3,
        "M-ratio",
        view.m_ratio,
        intact=base and base.m_ratio,
        chance="m_ratio",
        reference="1 = ideal; meta-d'/d'; the paper does not report it",
        undefined=m_ratio_undefined(view),
        help="Maniscalco & Lau (2012): metacognitive efficiency, corrected for first-order "
        "accuracy.",
    )
    metric(
        m4,
        "Opt-outs on wager trials",
        view.skip_fraction,
        claim=claim_for("e1.skip", condition),
        fmt="{:.1%}",
        intact=base and base.skip_fraction,
        intact_claim=claim_for("e1.skip", intact_condition),
        paper_missing=missing,
        reference="no chance level: a choice, not a score",
        help="Wager trials on which confidence was at or below 0.5, so the agent declined to bet.",
    )
    confidence_claim = claim_for("e1.confidence", condition)
    metric(
        m5,
        "Mean confidence",
        mean_confidence(view),
        claim=confidence_claim,
        intact=base and mean_confidence(base),
        reference="bets above 0.5"
        + (
            ""
            if confidence_claim
            else "; the paper reports it only with the self-model zeroed "
            f"({paper_value('e1.confidence.self_off')})"
        ),
        help="The confidence head's output at the choice point, averaged over the answered trials.",
    )

    if view.auroc == view.auroc and view.auroc < 0.45:  # defined and clearly below chance
        st.warning(
            f"Type-2 AUROC {view.auroc:.2f} is below 0.5: this agent is *more* confident on its "
            "wrong answers than on its right ones, so its confidence points the wrong way "
            "(a negative M-ratio says the same). "
            + (
                ""
                if tested
                else "The paper never tested this agent: it learned its confidence another "
                "way (see the From reward alone page), so no paper number sits beside it."
            ),
            icon=":material/swap_vert:",
        )
    for note in e1_construction_notes(
        model.config, self_model_mode, capacity, mean_confidence(view)
    ):
        st.success(note, icon=":material/construction:")
    if condition == "bus_off":
        rule = CLAIMS_BY_ID["e1.skip.bus_off"]
        holds = rule.check(
            {"e1.skip.self_on": intact.skip_fraction, "e1.skip.bus_off": view.skip_fraction}
        )
        verdict = getattr(res.finding("e1.skip.bus_off"), "verdict", None)
        text = (
            "**The paper:** with the workspace off, the intact self-model does not give "
            '"uninhibited" high '
            "confidence: the agent opts out more often "
            f"({paper_value('e1.skip.bus_off', '{:.1%}')} of wager trials, "
            f"against {paper_value('e1.skip.self_on', '{:.1%}')} intact).\n\n"
            f"**Here (seed {seed}):** accuracy {view.accuracy:.1%} "
            f"({chance_text('wager', 'percent')}), mean confidence "
            f"{mean_confidence(view):.2f} (it bets above 0.5), opt-outs "
            f"{view.skip_fraction:.1%} against "
            f"{intact.skip_fraction:.1%} intact. "
        )
        text += (
            "This reproduces: more opt-outs than intact, the paper's own test ("
            + rule.pattern
            + ")."
            if holds
            else "This does **not** reproduce here: at chance the agent opts out no more often "
            "than intact, so its "
            "confidence is not inhibited, which is what the paper says does not happen."
        )
        if verdict:
            text += f" Over all seeds of the result set the verdict is: {verdict}."
        (st.info if holds else st.warning)(text, icon=":material/hub:")

    label = f"self-model {SELF_MODEL_LABELS[self_model_mode]}, {capacity} slot(s)"
    curves = {"intact": (intact.correct[intact.answered], intact.confidence[intact.answered])}
    paper_auroc = {"intact": paper_number("e1.auroc.self_on")} if tested else {}
    if not is_intact:
        curves[label] = (view.correct[view.answered], view.confidence[view.answered])
        if auroc_claim := claim_for("e1.auroc", condition):
            paper_auroc[label] = paper_number(auroc_claim)
    shown = (
        *data.agent_file("wagering", kind, seed),
        self_model_mode,
        capacity,
    )  # all a figure depends on
    figure(
        build=lambda: type2_roc_figure(curves, paper_auroc=paper_auroc),
        cache_key=("e1-roc", *shown),
        key="roc",
        download="type2_roc",
    )
    paper_points, paper_marks = {}, {}
    if condition == "self_off":  # the paper's constant confidence of the zeroed self-model
        paper_points[label] = (
            paper_number("e1.confidence.self_off"),
            paper_number("e1.accuracy.self_off"),
        )
        paper_marks[label] = paper_number("e1.confidence.self_off")
    c1, c2 = st.columns(2)
    with c1:
        figure(
            build=lambda: calibration_figure(curves, paper_points=paper_points, chance="wager"),
            cache_key=("e1-calibration", *shown),
            key="calibration",
            download="calibration",
        )
    with c2:
        figure(
            build=lambda: confidence_histogram(curves, paper_marks=paper_marks),
            cache_key=("e1-confidence", *shown),
            key="confidence",
            download="confidence_histogram",
        )

    with st.expander("Trial data (download as CSV)"):
        table = pd.DataFrame(
            {
                "correct": view.correct.astype(int),
                "confidence": view.confidence,
                "stimulus": view.stimulus,
                "salience": view.salience,
                "decision": view.decision,
                "wager": view.wager.astype(int),
                "bet": view.bet,
            }
        )
        st.dataframe(table.head(200), width="stretch", height=240)
        st.download_button(
            "Download all trials (CSV)",
            partial(table.to_csv, index=False),  # made when clicked, not on every run
            file_name=f"e1_{kind}_s{seed}_{self_model_mode}_k{capacity}.csv",
            mime="text/csv",
        )


live_view()


verdict_box(
    "Verdict: does the paper's blindsight dissociation hold here?",
    res,
    VERDICT_CLAIMS,
    lead=dissociation_lead(res),
)
