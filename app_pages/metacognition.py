"""Metacognition (HOT): does the agent know when it knows? Zero its self-model and see."""

import pandas as pd
import streamlit as st

from labcore.figures.live import calibration_figure, confidence_histogram, type2_roc_figure
from ui import controls, data
from ui.components import SELF_MODEL_LABELS, explain, figure, metric, paper_number
from ui.state import MAX_SLOTS

PAGE = "metacognition"
KEYS = ("agent", "seed", "self_model_mode", "capacity")

st.title("Metacognition — Higher-Order Theory")
st.caption("Experiment 1 of the paper: a wagering task. Can the agent tell its right answers from its wrong ones?")
explain(
    what="The agent sees a faint flash (blue = go left, red = go right), walks to the side it believes, "
         "and on half the trials bets on its answer or opts out. **Task accuracy** is how often it goes to the "
         "right side. **Type-2 AUROC** asks whether its *confidence* is higher on correct than on wrong "
         "trials: 0.5 means its confidence says nothing about being right, 1.0 means it always knows.",
    try_this="Switch the **self-model** to *zeroed*. Accuracy does not move (the policy never reads the "
             "self-model), but the ROC curve falls onto the diagonal: the agent still *does*, but no longer "
             "*knows*. Then turn the **workspace** down to 0 slots with the self-model on.",
    theory="Higher-order theories say awareness needs a representation of one's own state. Remove it and "
           "first-order performance can survive while metacognition goes: a synthetic **blindsight**.",
)

seeds = data.seeds_by_kind("wagering")
if not seeds:
    st.error("No agent trained on the wagering task is available. Train one on the Agents page.")
    st.stop()
controls.init_state(PAGE, KEYS, agents=list(seeds), seeds=seeds)
left, mid, right, far = st.columns([2, 1, 3, 2])
kind, _ = controls.agent_seed_picker(PAGE, seeds, left, mid)
right.segmented_control("Self-model", list(SELF_MODEL_LABELS), format_func=SELF_MODEL_LABELS.get,
                        key=controls.key(PAGE, "self_model_mode"), help="z_self: the agent's compressed model of "
                        "its own state. The confidence head reads only z_self.")
if controls.value(PAGE, "self_model_mode") is None:  # a segmented control can be deselected
    st.session_state[controls.key(PAGE, "self_model_mode")] = "on"
far.slider("Workspace slots", 0, MAX_SLOTS, key=controls.key(PAGE, "capacity"),
           help="How many of the 4 workspace slots may hold information. 0 = workspace off (bus-off).")
controls.publish(PAGE, KEYS)

seed = controls.value(PAGE, "seed")
if data.checked_agent("wagering", kind, seed) is None:  # its error is shown; the other agents still work
    st.stop()
self_model_mode = controls.value(PAGE, "self_model_mode")
capacity = controls.value(PAGE, "capacity")
view = data.metacognition(kind, seed, self_model_mode, capacity, 0.0)
intact = data.metacognition(kind, seed, "on", MAX_SLOTS, 0.0)

m1, m2, m3, m4 = st.columns(4)
metric(m1, "Task accuracy", view.accuracy, claim="e1.accuracy.self_on", fmt="{:.1%}",
       help="Fraction of trials that end in the correct zone (chance 50%).")
metric(m2, "Type-2 AUROC", view.auroc, claim="e1.auroc.self_on",
       help="Probability that a random correct trial got more confidence than a random wrong one (chance 0.5).")
metric(m3, "M-ratio", view.m_ratio, reference="meta-d'/d' (1 = ideal metacognition; the paper does not report it)",
       help="Maniscalco & Lau (2012): metacognitive efficiency, corrected for first-order accuracy.")
metric(m4, "Opt-outs on wager trials", view.skip_fraction, claim="e1.skip.self_on", fmt="{:.1%}",
       help="Wager trials on which confidence was at or below 0.5, so the agent declined to bet.")
if self_model_mode == "zero":
    st.success("Zeroed self-model: the confidence head receives a constant, so its output is the same on every "
               "trial and AUROC is exactly 0.5 **by construction**. Accuracy is unchanged because the policy "
               "never reads z_self.", icon=":material/psychology:")
if capacity == 0:
    st.warning("Workspace off: the flash never reaches the agent (it enters only through the workspace), so "
               "accuracy falls to chance. Watch what the intact self-model does with nothing to monitor.",
               icon=":material/hub:")

label = f"self-model {SELF_MODEL_LABELS[self_model_mode]}, {capacity} slot(s)"
curves = {"intact": (intact.correct[intact.answered], intact.confidence[intact.answered])}
if (self_model_mode, capacity) != ("on", MAX_SLOTS):
    curves[label] = (view.correct[view.answered], view.confidence[view.answered])
figure(type2_roc_figure(curves, paper_auroc=paper_number("e1.auroc.self_on")), key="roc",
       download="type2_roc")
c1, c2 = st.columns(2)
with c1:
    figure(calibration_figure(curves), key="calibration", download="calibration")
with c2:
    figure(confidence_histogram(curves), key="confidence", download="confidence_histogram")

with st.expander("Trial data (download as CSV)"):
    table = pd.DataFrame({"correct": view.correct.astype(int), "confidence": view.confidence,
                          "stimulus": view.stimulus, "salience": view.salience, "decision": view.decision,
                          "wager": view.wager.astype(int), "bet": view.bet})
    st.dataframe(table.head(200), width="stretch", height=240)
    st.download_button("Download all trials (CSV)", table.to_csv(index=False), file_name=f"e1_{kind}_s{seed}_"
                       f"{self_model_mode}_k{capacity}.csv", mime="text/csv")
