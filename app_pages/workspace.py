"""Workspace (GWT): capacity, access, broadcast and backward masking."""

import pandas as pd
import streamlit as st

from labcore import measures
from labcore.config import DualTaskConfig
from labcore.figures.episode import workspace_heatmap
from labcore.figures.live import masking_figure
from labcore.figures.paper_e2 import dnrs_by_scale
from labcore.interventions import capacity_scale
from ui import controls, data
from ui.components import explain, figure, metric
from ui.state import MAX_MASKS, SOA_RANGE, LabState

PAGE = "workspace"
KEYS = ("agent", "seed", "capacity", "episode", "soa", "masks")
PAPER_CAPACITY = {4: "k4", 2: "k2", 0: "k0"}

st.title("Workspace — Global Workspace Theory")
st.caption("Experiment 2 of the paper: the dual task. Hold a colour and an object through a delay, report both.")
explain(
    what="A colour and then an object flash on the agent's cue channel. The cue channel feeds **only** the "
         "workspace, a board of 4 slots (16 numbers each): the rest of the agent never sees a cue. During "
         "the delay, distractors (masks) also land in the workspace. At the end the agent must report the "
         "colour, then the object (7 possible answers each: chance is 1 in 7).",
    try_this="Slide **workspace slots** to 2: a mask now overwrites the colour, and colour reports fail. At 0 "
             "(bus-off) nothing reaches the agent at all. In the heatmap, watch the slots fill and get "
             "overwritten. Below, move the **mask onset** and **count** to see the colour displaced.",
    theory="Global Workspace Theory says information is *accessible* (reportable) when it is in a "
           "capacity-limited global workspace. Fewer slots: less access; no workspace: none.",
)


def bundled_dnrs() -> None:
    """No-report decoding by capacity from the bundled results (needs no agent)."""
    seed_values = data.checked_results().seed_values
    if seed_values is not None:
        st.subheader("No-report decoding (dNRS) by capacity, from the bundled results")
        figure(dnrs_by_scale(seed_values), key="dnrs", download="dnrs")
        st.caption("dNRS: how well a linear decoder reads the object cue from the agent's internal state just "
                   "before the report flag, above a shuffled-label baseline (0 = nothing decodable). With 1 slot the "
                   "masks overwrite the object on most trials, so decoding drops; with the bus off nothing is there.")


seeds = {k: v for k, v in data.seeds_by_kind("dual").items() if k not in ("a0", "a1", "hot_only")}
if not seeds:
    st.error("No dual-task workspace agent is available. Train one on the Agents page.")
    st.stop()
controls.init_state(PAGE, KEYS, agents=list(seeds), seeds=seeds, default=LabState(agent="b1"))
c1, c2, c3 = st.columns([2, 1, 3])
kind, _ = controls.agent_seed_picker(PAGE, seeds, c1, c2)
model = data.checked_agent("dual", kind, controls.value(PAGE, "seed"))
if model is None:  # its error is shown; the other agents and the bundled results still work
    controls.publish(PAGE, KEYS)
    bundled_dnrs()
    st.stop()
n_slots = model.config.n_slots
c3.select_slider("Workspace slots (capacity scale)", options=list(range(n_slots + 1)),
                 key=controls.key(PAGE, "capacity"), format_func=lambda k: f"{k} ({capacity_scale(k, n_slots):g})",
                 help="workspace_capacity_scale 0, 0.25, 0.5, 0.75, 1 = 0-4 usable slots. 0 = bus-off.")
seed, capacity = controls.value(PAGE, "seed"), controls.value(PAGE, "capacity")

view = data.workspace(kind, seed, capacity, 0.0, "stored")
means = view.means
key = PAPER_CAPACITY.get(capacity)
m1, m2, m3 = st.columns(3)
note = None if key else "paper: not reported at this capacity"
ideal = data.closed_forms().get(capacity, {}) if 0 < capacity < n_slots else {}
for column, name, label, chance_help in (
        (m1, "conjunction", "Conjunction accuracy", "Both reports correct (chance 1/49 = 2%)."),
        (m2, "decision", "Report-window decision accuracy", "Mean over the two reports (chance 1/7 = 14%)."),
        (m3, "per_step", "Per-step accuracy", "Agreement with the expert at every step (chance 1/7).")):
    metric(column, label, means[name], claim=f"e2.{name}.{key}" if key else None, reference=note, fmt="{:.1%}",
           help=chance_help)
    if name in ideal:
        column.caption(f"An ideal agent: {ideal[name]:.1%}, by the allocation rule alone (by construction: "
                       "it loses the colour whenever a mask finds no free slot).")

episodes = pd.DataFrame({"episode": range(view.trace.n_episodes), "per_step": view.per_step,
                         "decision": view.decision, "conjunction": view.conjunction.astype(int),
                         "secondary_cue": view.trace.labels["secondary"], "primary_cue": view.trace.labels["primary"],
                         "masks": (view.trace.labels["mask_steps"] >= 0).sum(1)})
st.download_button("Download these episodes (CSV)", episodes.to_csv(index=False),
                   file_name=f"dual_{kind}_s{seed}_k{capacity}.csv", mime="text/csv")

st.subheader("Inside the workspace, one episode")
trace = view.trace
st.slider("Episode", 0, trace.n_episodes - 1, key=controls.key(PAGE, "episode"))
episode = controls.value(PAGE, "episode")
cfg = DualTaskConfig()
figure(workspace_heatmap(trace.slots[episode], trace.occupied[episode], measures.cue_kinds(trace, episode),
                               [cfg.report_secondary_step, cfg.report_primary_step]),
       key="heatmap", download="workspace_heatmap")
right = trace.report_correct()[episode]
st.caption(f"Colour reported {'correctly' if right[0] else 'wrongly'}; object reported "
           f"{'correctly' if right[1] else 'wrongly'}.")

g1, g2, g3 = st.columns(3)
gbi_help = ("Global Broadcast Index: how evenly each slot's couplings spread over the other slots, at the report "
            "steps (0 to 2/3 with 4 slots).")
if capacity == 0:
    g1.metric("GBI (paper's equation)", "not defined here", help=gbi_help)
    g1.caption("No slot holds anything with the workspace off.")
elif view.gbi == view.gbi:  # defined (not nan)
    metric(g1, "GBI (paper's equation)", view.gbi, claim="e2.gbi.k4" if capacity == 4 else None, help=gbi_help)
else:
    g1.metric("GBI (paper's equation)", "not defined here", help=gbi_help)
    g1.caption("Its formula assumes non-negative couplings; these zero-mean slots have signed ones (computed "
               f"anyway it gives {view.gbi_signed:,.3g}). Paper: 0.66 at 4 slots.")
metric(g2, "GBI on |cosine| couplings", view.gbi_abs, help=gbi_help + " Here on the size of each coupling, "
       "which is never negative.", reference="the lab's reading of GBI (docs/markers.md)")
if capacity and view.two_occupied == view.two_occupied:
    g2.caption(f"{view.two_occupied:.0%} of report steps hold exactly two slots, where GBI is 0 by construction "
               "(one partner takes all the coupling).")
metric(g3, "Ignition sharpness", view.ignition, help="Largest one-step rise of the workspace activation (RMS per unit).")
if capacity and model.config.write_geometry == "layernorm":
    g3.caption("Fixed by construction: every write is layer-normalised to the same size, so the first write "
               f"always raises the activation by 1/√K = {1 / n_slots ** 0.5:.2f}, whatever the agent learned.")

st.subheader("Backward masking: how long does the colour last?")
b1, b2 = st.columns(2)
b1.slider("Mask onset (steps after the colour, SOA)", SOA_RANGE[0], SOA_RANGE[1], key=controls.key(PAGE, "soa"))
b2.slider("Number of masks", 0, MAX_MASKS, key=controls.key(PAGE, "masks"))
soa, masks = controls.value(PAGE, "soa"), controls.value(PAGE, "masks")
if soa + max(masks, 1) - 1 >= cfg.report_secondary_step:
    st.warning("That many masks would run into the report phase; showing fewer.")
    masks = max(0, cfg.report_secondary_step - soa)
controls.publish(PAGE, KEYS)
if masks == 0:
    st.info("With no masks nothing displaces the colour; add masks to see displacement.")
else:
    traces = data.masking(kind, seed, soa, masks)
    figure(masking_figure({f"k{k}": v for k, v in traces.items()}, soa, masks), key="masking",
           download="masking")
    st.caption("Colour retained: the colour's own share of the workspace (each episode is rerun with another "
               "colour and the two workspaces compared). 1 = fully held, 0 = gone. With 4 slots the colour "
               "survives two masks and the third overwrites it; with 2 slots the first mask does (protocol sec. 2.5).")

bundled_dnrs()
