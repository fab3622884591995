"""Workspace (GWT): capacity, access, broadcast and backward masking."""

from functools import partial

import pandas as pd
import streamlit as st

from labcore.config import KINDS_WITHOUT_WORKSPACE, DualTaskConfig
from labcore.figures.dissociations import GATES, capacity_figure
from labcore.figures.episode import workspace_heatmap
from labcore.figures.live import masking_figure
from labcore.figures.paper import dnrs_by_scale
from labcore.interventions import capacity_scale
from labcore.paper_claims import INTACT_CONDITION, claim_for, e2_condition
from labcore.render import chance, chance_text, part
from ui import controls, data, science
from ui.components import (
    change_text,
    explain,
    figure,
    live_scope,
    metric,
    number_text,
    paper_value,
    verdict_box,
)
from ui.predict import CHANGE_CHOICES, change_outcome, predict_then_reveal, predicting
from ui.state import MAX_MASKS, SOA_RANGE, LabState

PAGE = "workspace"
KEYS = ("agent", "seed", "capacity", "episode", "soa", "masks")
INTACT = INTACT_CONDITION["e2"]
# The three E2 accuracies: view field, label, chance level (its name), help. (No bare strings
# here: a page is a script, and Streamlit would print them.)
ACCURACIES = (
    (
        "conjunction",
        "Conjunction accuracy",
        "conjunction",
        f"Both reports correct ({chance_text('conjunction')}).",
    ),
    (
        "decision",
        "Report-window decision accuracy",
        "decision",
        f"Mean over the two reports ({chance_text('decision')}).",
    ),
    (
        "per_step",
        "Per-step accuracy",
        "decision",
        f"Agreement with the expert at every step ({chance_text('decision')}).",
    ),
)
VERDICT_CLAIMS = (
    ("e2.conjunction.k4", "B1's conjunction accuracy with 4 slots"),
    ("e2.conjunction.k2", "B1's conjunction accuracy with 2 slots (the paper: far lower)"),
    ("e2.conjunction.k0", "B1's conjunction accuracy with the workspace off (the paper: collapse)"),
    ("e2.decision.k2", "B1's report-window decision accuracy with 2 slots"),
    ("e2.dnrs.scale_0.25", "no-report decoding with 1 slot (the paper: as high as with 4)"),
    ("e2.dnrs.scale_0", "no-report decoding with the workspace off (the paper: collapse)"),
    ("e2.gbi.k4", "GBI at 4 slots, the paper's equation"),
)

st.title("Workspace — Global Workspace Theory")
measured_summary = data.measured()
if measured_summary is not None and not predicting(PAGE):  # the answer and its curve first
    e2_answer = part(measured_summary, "e2_short")
    st.markdown(f"**{e2_answer}**")
    figure(
        build=lambda: capacity_figure(measured_summary.tables["e2"]["capacity"]),
        cache_key=("e2m-capacity", data.version(measured_summary)),
        key="capacity-measured",
        download="capacity_measured",
        answer=e2_answer,
    )
st.caption(
    "Experiment 2 of the paper: the dual task. Hold a colour and an object through a "
    "delay, report both."
)
explain(
    what="A colour and then an object flash on the agent's cue channel. The cue channel "
    "feeds **only** the "
    "workspace, a board of 4 slots (16 numbers each): the rest of the agent never sees "
    "a cue. During "
    "the delay, distractors (masks) also land in the workspace. At the end the agent "
    "must report the "
    f"colour, then the object (7 possible answers each: {chance_text('decision')}).",
    try_this="Slide **workspace slots** to 2: a mask now overwrites the colour, and colour "
    "reports fail. At 0 "
    "(bus-off) nothing reaches the agent at all. In the heatmap, watch the slots fill and get "
    "overwritten. Below, move the **mask onset** and **count** to see the colour displaced.",
    theory="Global Workspace Theory says information is *accessible* (reportable) when it is in a "
    "capacity-limited global workspace. Fewer slots: less access; no workspace: none.",
)


def capacity_lead(res) -> list[str]:
    """B1's conjunction accuracy by capacity in the result set, in one sentence (empty without
    it)."""
    keys = ("e2.conjunction.k4", "e2.conjunction.k2", "e2.conjunction.k0")
    if not all(k in res.values for k in keys):
        return []
    full, half, off = (res.values[k] for k in keys)
    n = len(res.seeds)
    return [
        f"Over the result set's {n} seeds, B1 gets both reports right in "
        f"{number_text(full, '{:.1%}')} of "
        f"episodes with 4 slots, {number_text(half, '{:.1%}')} with 2 "
        f"({change_text(half, full, '{:.1%}')}) and "
        f"{number_text(off, '{:.1%}')} with the workspace off "
        f"({change_text(off, full, '{:.1%}')}); {chance_text('conjunction')}."
    ]


def bundled_dnrs(res) -> None:
    """No-report decoding by capacity from the bundled results (needs no agent)."""
    seed_values = res.seed_values
    if seed_values is not None:
        st.subheader("No-report decoding (dNRS) by capacity, from the bundled results")
        figure(
            build=lambda: dnrs_by_scale(seed_values),
            cache_key=("e2-dnrs", str(res.directory), data.version(res)),
            key="dnrs",
            download="dnrs",
        )
        st.caption(
            "dNRS: how well a linear decoder reads the object cue from the agent's "
            "internal state just "
            "before the report flag, above a shuffled-label baseline (0 = nothing "
            "decodable). With 1 slot the "
            "masks overwrite the object on most trials, so decoding drops; with the "
            "bus off nothing is there."
        )


seeds = {k: v for k, v in data.seeds_by_kind("dual").items() if k not in KINDS_WITHOUT_WORKSPACE}
if not seeds:
    st.error("No dual-task workspace agent is available. Train one on the Agents page.")
    st.stop()
controls.init_state(PAGE, KEYS, agents=list(seeds), seeds=seeds, default=LabState(agent="b1"))
c1, c2, c3 = st.columns([2, 1, 3])
kind, _ = controls.agent_seed_picker(PAGE, seeds, c1, c2)
seed = controls.value(PAGE, "seed")
model = data.checked_agent("dual", kind, seed)
if model is None:  # its error is shown; the other agents and the bundled results still work
    controls.publish(PAGE, KEYS)
    bundled_dnrs(data.checked_results())
    st.stop()
n_slots = model.config.n_slots
cfg = DualTaskConfig()
res = (
    data.checked_results()
)  # read once: a broken result set is one error, the live lab still works


def episodes_csv(view) -> str:
    """The view's episodes as CSV (made when the button is clicked, not on every run)."""
    return pd.DataFrame(
        {
            "episode": range(view.trace.n_episodes),
            "per_step": view.per_step,
            "decision": view.decision,
            "conjunction": view.conjunction.astype(int),
            "secondary_cue": view.trace.labels["secondary"],
            "primary_cue": view.trace.labels["primary"],
            "masks": (view.trace.labels["mask_steps"] >= 0).sum(1),
        }
    ).to_csv(index=False)


def one_episode(view, capacity: int) -> None:
    """One episode's workspace: the slots over time and whether its two reports were right."""
    st.subheader("Inside the workspace, one episode")
    trace = view.trace
    last_episode = trace.n_episodes - 1
    if (
        controls.value(PAGE, "episode") > last_episode
    ):  # a link may name an episode this view does not have
        st.warning(
            f"episode={controls.value(PAGE, 'episode')} is beyond the "
            f"{trace.n_episodes} episodes shown here; "
            f"using {last_episode}.",
            icon=":material/warning:",
        )
        st.session_state[controls.key(PAGE, "episode")] = last_episode
    st.slider("Episode", 0, last_episode, key=controls.key(PAGE, "episode"))
    episode = controls.value(PAGE, "episode")
    if capacity == 0:  # an empty heatmap would explain nothing
        st.info(
            "With the workspace off (0 slots) nothing is written to it: every slot is "
            "empty at every step, so "
            "there is no heatmap to draw. The cues reach this agent only through the workspace.",
            icon=":material/info:",
        )
    else:
        figure(
            build=lambda: workspace_heatmap(
                trace.slots[episode],
                trace.occupied[episode],
                science.cue_kinds(trace, episode),
                [cfg.report_secondary_step, cfg.report_primary_step],
            ),
            cache_key=("e2-heatmap", *data.agent_file("dual", kind, seed), capacity, episode),
            key="heatmap",
            download="workspace_heatmap",
        )
    right = trace.report_correct()[episode]
    st.caption(
        f"Colour reported {'correctly' if right[0] else 'wrongly'}; object reported "
        f"{'correctly' if right[1] else 'wrongly'}."
    )
    controls.publish(PAGE, KEYS)


def broadcast_metrics(view, intact, capacity: int, condition, paper_label: str) -> None:
    """GBI (the paper's equation and on |cosine| couplings) and ignition sharpness, with why each
    is undefined or fixed by construction where it is."""
    missing = "not reported at this capacity"
    g1, g2, g3 = st.columns(3)
    gbi_help = (
        "Global Broadcast Index: how evenly each slot's couplings spread over the other "
        "slots, at the report "
        "steps (0 = one partner takes all the coupling, 2/3 = spread evenly over the other 3 "
        "slots)."
    )
    gbi_claim = claim_for("e2.gbi", condition)
    if capacity == 0:
        g1.metric("GBI (paper's equation)", "not defined here", help=gbi_help)
        g1.caption("Not defined here: no slot holds anything with the workspace off.")
    elif view.gbi == view.gbi:  # defined (not nan)
        metric(
            g1,
            "GBI (paper's equation)",
            view.gbi,
            claim=gbi_claim,
            help=gbi_help,
            paper_label=paper_label,
            intact=None if intact is None else intact.gbi,
            intact_claim=claim_for("e2.gbi", INTACT),
            paper_missing=missing,
        )
    else:
        g1.metric("GBI (paper's equation)", "not defined here", help=gbi_help)
        shown = gbi_claim or claim_for("e2.gbi", INTACT)
        where = "at this capacity" if gbi_claim else "at 4 slots"
        why = (
            "Not defined here: its formula assumes non-negative couplings; these "
            "zero-mean slots have signed ones "
            f"(computed anyway it gives {view.gbi_signed:,.3g})."
            if view.gbi_signed == view.gbi_signed
            else "Not defined here: with one slot there is no other slot to couple with."
        )
        g1.caption(f"{why} {paper_label.capitalize()} {where}: {paper_value(shown)}.")
    abs_help = gbi_help + " Here on the size of each coupling, which is never negative."
    if capacity == 0:
        g2.metric("GBI on |cosine| couplings", "not defined here", help=abs_help)
        g2.caption("Not defined here: no slot holds anything with the workspace off.")
    else:
        metric(
            g2,
            "GBI on |cosine| couplings",
            view.gbi_abs,
            help=abs_help,
            intact=None if intact is None else intact.gbi_abs,
            reference="range 0 to 2/3; the lab's reading of GBI (docs/markers.md), not in the "
            "paper",
            undefined="with one slot there is no other slot to couple with"
            if capacity == 1
            else "no report step holds two or more slots",
        )
    if capacity and view.two_occupied == view.two_occupied:
        g2.caption(
            f"{view.two_occupied:.0%} of report steps hold exactly two slots, where GBI is "
            "0 by construction "
            "(one partner takes all the coupling)."
        )
    metric(
        g3,
        "Ignition sharpness",
        view.ignition,
        intact=None if intact is None else intact.ignition,
        reference="0 = no rise (an empty workspace); the paper's values are in units it does not "
        "give, so not "
        "comparable",
        help="Largest one-step rise of the workspace activation (RMS per unit).",
    )
    if capacity == 0:
        g3.caption("0 by construction: an empty workspace has activation 0 at every step.")
    elif model.config.write_geometry == "layernorm":
        g3.caption(
            "Fixed by construction: every write is layer-normalised to the same size, so "
            "the first write "
            f"always raises the activation by 1/√K = {1 / n_slots**0.5:.2f}, whatever the "
            "agent learned."
        )


@st.fragment
def capacity_view() -> None:
    """The capacity slider and everything it changes: a switch reruns only this, not
    the page's explanations, verdicts, masking and bundled figures."""
    c3.select_slider(
        "Workspace slots (capacity scale)",
        options=list(range(n_slots + 1)),
        key=controls.key(PAGE, "capacity"),
        format_func=lambda k: f"{k} (scale {capacity_scale(k, n_slots):g})",
        help="Usable slots, with the paper's workspace_capacity_scale in brackets: 0, 0.25, "
        "0.5, 0.75, 1 = "
        "0-4 slots. 0 = bus-off.",
    )
    capacity = controls.value(PAGE, "capacity")
    view = data.workspace(kind, seed, capacity, 0.0, "stored")
    means = view.means
    condition = e2_condition(capacity, n_slots)
    intact = None if capacity == n_slots else data.workspace(kind, seed, n_slots, 0.0, "stored")
    paper_label = "paper" if kind == "b1" else "paper (B1)"  # the paper's E2 numbers are B1's
    revealed = predict_then_reveal(
        PAGE,
        f"{kind}/{seed}/{capacity}",
        f"With **{capacity} of {n_slots}** workspace slots, what will **conjunction "
        "accuracy** (both reports "
        "right) do?",
        CHANGE_CHOICES,
        lambda: change_outcome(
            means["conjunction"],
            intact.means["conjunction"],
            chance("conjunction").value,
            tolerance=0.03,
            fmt="{:.1%}",
        ),
        active=intact is not None,
    )
    controls.rerun_page_when_changed(PAGE, "revealed", revealed)  # the verdicts wait too
    if not revealed:
        controls.publish(PAGE, KEYS)
        st.stop()  # the lesion's numbers and figures wait for the prediction
    if kind in GATES and measured_summary is not None and predicting(PAGE):
        rows = measured_summary.tables["e2"]["capacity"]  # held back until the prediction
        here = {"slots": capacity, "conjunction": means["conjunction"]}
        figure(
            build=lambda: capacity_figure(rows, here),
            cache_key=("e2m-capacity-here", kind, seed, capacity, data.version(measured_summary)),
            key="capacity-here",
            download="capacity_measured_here",
        )
    if kind in GATES:
        st.success(
            "**Measured:** this agent's write gate learned which slot each item goes to, or "
            "whether to write it at all; what a narrowed workspace keeps is decided by training, "
            "not by a rule. Beside it, what the paper's overwrite rule and the best allocation "
            "keep on the same episodes.",
            icon=":material/science:",
        )
    elif kind == "b1" and 0 < capacity < n_slots:
        st.info(
            "**Fixed by the wiring:** in this agent the overwrite rule (first empty slot, else "
            "slot 0) decides which cue a narrowed workspace loses; the number below sits on what "
            "an ideal agent scores by that rule alone. Pick the learned gate to let training "
            "decide.",
            icon=":material/construction:",
        )
    live_scope(data.label(kind), seed, f"{data.DUAL_EPISODES} episodes", res)
    m1, m2, m3 = st.columns(3)
    ideal = data.ideal_on_view(seed, capacity, n_slots) if 0 < capacity < n_slots else {}
    for column, (name, label, level, chance_help) in zip((m1, m2, m3), ACCURACIES, strict=True):
        metric(
            column,
            label,
            means[name],
            claim=claim_for(f"e2.{name}", condition),
            fmt="{:.1%}",
            help=chance_help,
            intact=None if intact is None else intact.means[name],
            intact_claim=claim_for(f"e2.{name}", INTACT),
            chance=level,
            paper_label=paper_label,
            paper_missing="not reported at this capacity",
        )
        if name in ideal:
            mean, low, high = ideal[name]
            column.caption(
                f"An ideal agent on these episodes: {mean:.1%} (95% range {low:.1%} to "
                f"{high:.1%}), by the allocation rule alone: it answers right while the cue is in "
                "a slot and guesses once a mask has overwritten it."
            )
    st.download_button(
        "Download these episodes (CSV)",
        partial(episodes_csv, view),
        file_name=f"dual_{kind}_s{seed}_k{capacity}.csv",
        mime="text/csv",
    )
    one_episode(view, capacity)
    broadcast_metrics(view, intact, capacity, condition, paper_label)


capacity_view()
verdict_box(
    "Verdict: does the paper's capacity result hold here?",
    res,
    VERDICT_CLAIMS,
    lead=capacity_lead(res),
)


@st.fragment
def masking_section() -> None:
    """Backward masking: the colour's share of the workspace after a mask, by capacity (its own
    fragment: its sliders rerun only it)."""
    st.subheader("Backward masking: how long does the colour last?")
    b1, b2 = st.columns(2)
    b1.slider(
        "Mask onset (steps after the colour, SOA)",
        SOA_RANGE[0],
        SOA_RANGE[1],
        key=controls.key(PAGE, "soa"),
    )
    b2.slider("Number of masks", 0, MAX_MASKS, key=controls.key(PAGE, "masks"))
    soa, masks = controls.value(PAGE, "soa"), controls.value(PAGE, "masks")
    if soa + max(masks, 1) - 1 >= cfg.report_secondary_step:
        st.warning("That many masks would run into the report phase; showing fewer.")
        masks = max(0, cfg.report_secondary_step - soa)
    controls.publish(PAGE, KEYS)
    if masks == 0:
        st.info("With no masks nothing displaces the colour; add masks to see displacement.")
    else:
        figure(
            build=lambda: masking_figure(
                {f"k{k}": v for k, v in data.masking(kind, seed, soa, masks).items()}, soa, masks
            ),
            cache_key=("e2-masking", *data.agent_file("dual", kind, seed), soa, masks),
            key="masking",
            download="masking",
        )
        st.caption(
            "Colour retained: the colour's own share of the workspace (each episode is "
            "rerun with another "
            "colour and the two workspaces compared). 1 = fully held, 0 = gone. With 4 "
            "slots the colour "
            "survives two masks and the third overwrites it; with 2 slots the first "
            "mask does (protocol sec. 2.5)."
        )


masking_section()
bundled_dnrs(res)
