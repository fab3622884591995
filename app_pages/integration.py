"""Integration (IIT): three whole-vs-parts integration measures side by side, each checked on a
known system."""

import pandas as pd
import streamlit as st

from labcore.figures.integration import (
    MEASURE_NAMES,
    integration_bars,
    monotonicity_table,
    signal_name,
    study_values_figure,
)
from labcore.interventions import capacity_scale
from labcore.render import answer, term
from ui import controls, data, science
from ui.components import SELF_MODEL_LABELS, explain, figure, findings_frame
from ui.state import LabState

PAGE = "integration"
KEYS = ("agent", "seed", "capacity", "self_model_mode", "signal", "variant")
VARIANTS = ("intact", "evoked")
SIGNALS, RIDGE, NORMALISATION = science.integration_settings()  # the registered readings
STUDY_COMMAND = "python -m labcore study integration --out results/explore_integration --jobs 2"
TERMS = ("phi_e", "o_information", "tse", "by_construction")  # glossary keys, as they first appear
MEANINGS = {
    "phi": "**Φ_E, whole minus sum** (Barrett & Seth 2011). How much better the whole system "
    "predicts its own "
    "next step than its two halves do separately, each predicting only itself, for the "
    "split that loses "
    "the least. High: the halves cannot be understood apart. 0: two unconnected "
    "halves. Negative: each "
    "half's own memory already says more than the whole adds (redundancy), common in systems whose "
    "parts copy each other.",
    "o_information": "**O-information Ω** (Rosas et al. 2019). Whether the parts' shared "
    "information is "
    "*redundant* (Ω > 0: many parts carry the same thing, as copies do) or *synergistic* "
    "(Ω < 0: the information exists only in several parts together, as a sum says something "
    "about two numbers that neither says alone). 0 for independent parts.",
    "tse": "**TSE neural complexity** (Tononi, Sporns & Edelman 1994). High when small groups "
    "of parts are "
    "fairly independent of each other (specialised) while the whole is strongly "
    "integrated: segregation "
    "and integration at once. 0 for independent parts, and low for parts that all do "
    "the same thing.",
}
SIGNAL_WORDS = {
    "h": "the recurrent state (64 units)",
    "slots": "the workspace (4 slots of 16 numbers)",
    "z_self": "the self-model (64 units)",
}

st.title("Integration — Integrated Information Theory")
study = data.integration_study()
summary = study.summary
if summary is None or study.tables is None:
    st.info(
        "The registered study cannot be shown ("
        + "; ".join(study.problems)
        + f"). `{STUDY_COMMAND}` runs it (about 11 minutes on 2 cores); the known answers and "
        "the live measures below work without it.",
        icon=":material/hourglass_empty:",
    )
else:
    st.markdown(f"**{answer(summary, 'short')}**")
    figure(
        monotonicity_table(study.tables),
        key="study_table",
        download="integration_monotonicities",
        answer=answer(summary, "short"),  # what a screen reader says first
    )
    st.caption(" ".join(f"**{term(k).name}**: {term(k).plain}" for k in TERMS))
    findings_frame((summary.by_id[i] for i in summary.answer.findings), paper=False)
    with st.expander("The long answer: how the tests work, what is set apart, the sensitivity"):
        st.markdown(answer(summary, "long"))
    with st.expander("Every test"):
        findings_frame((summary.by_id[t.id] for t in study.tables.tests), paper=False)
st.caption(
    "Beyond the paper: integration measures that can be checked, on the same agents, lesions "
    "and pulse, and which of them behave as IIT expects."
)
explain(
    what="Integrated Information Theory says a system is conscious to the degree that its "
    "whole carries information "
    "its parts do not. The paper tested one rough proxy (PCI-A, on the Robustness "
    "page) and found it ranks "
    "the agents the wrong way round, because of how they are wired. Here three classic measures of "
    "integration are computed on what the agent records while it does the dual task: "
    "its recurrent state, "
    "its workspace and its self-model, both as they run and as they answer a poke (the "
    "pulse PCI-A uses).",
    try_this="Pick B1 or B2 and set the workspace to 0 slots: does any measure fall? (The "
    "recurrent state never "
    "reads the workspace in these agents, so nothing computed on it can change.) "
    "Compare A0, which has no "
    "memory, with A1. Check the known answers first: each measure gets the right value "
    "on small systems "
    "whose answer is known.",
    theory="An IIT reading predicts four things: a workspace lesion lowers integration; "
    "training raises it above "
    "an untrained copy of the same wiring (else the number comes from the wiring, not "
    "the agent); correct "
    "trials are more integrated than errors; and integration grows A0 < A1 < B1 < B2. "
    "The registered study "
    "above tests each measure on each.",
)

st.subheader("Known answers, computed live")
checks = data.integration_known_answers()
st.dataframe(
    pd.DataFrame(
        [
            {
                "system": k.system,
                "measure": MEASURE_NAMES[k.measure],
                "exact": f"{k.expected:.3f}",
                "computed": f"{k.computed:.3f}",
                "check": "✓ within " + f"{k.tolerance:.3f}"
                if k.ok
                else "✗ off by " + f"{abs(k.computed - k.expected):.3f}",
            }
            for k in checks
        ]
    ),
    hide_index=True,
    width="stretch",  # narrow columns: a phone shows at least three
    column_config={
        c: st.column_config.TextColumn(c, width=w)
        for c, w in (("system", 100), ("measure", 80), ("exact", 60), ("computed", 70))
    },
)
st.caption(
    "Each measure on a simulated sample (20,000 steps) of a system whose value is "
    "known exactly from its "
    "covariance; the same systems are the unit tests' known answers."
)

seeds = data.seeds_by_kind("dual")
if not seeds:
    st.error("No dual-task agents are available.")
    st.stop()
st.subheader("One agent, live")
controls.init_state(
    PAGE,
    KEYS,
    agents=list(seeds),
    seeds=seeds,
    default=LabState(agent="b2", signal=SIGNALS[0]),
    options={"signal": SIGNALS, "variant": VARIANTS},
)
c1, c2, c3, c4 = st.columns([2, 1, 2, 2])
kind, seed = controls.agent_seed_picker(PAGE, seeds, c1, c2)
model = data.checked_agent("dual", kind, seed)
if model is None:  # its error is shown; the known answers and the study still are
    controls.publish(PAGE, [k for k in KEYS if controls.key(PAGE, k) in st.session_state])
    st.stop()
n_slots = model.config.n_slots
capacity, mode = n_slots, "on"
if model.config.workspace:
    c3.select_slider(
        "Workspace slots",
        options=list(range(n_slots + 1)),
        key=controls.key(PAGE, "capacity"),
        format_func=lambda k: f"{k} ({capacity_scale(k, n_slots):g})",
        help="0 = bus-off.",
    )
    capacity = controls.value(PAGE, "capacity")
else:
    c3.caption("This agent has no workspace.")
if model.config.self_model:
    mode = controls.segmented(
        c4,
        "Self-model",
        list(SELF_MODEL_LABELS),
        PAGE,
        "self_model_mode",
        fallback="on",
        format_func=SELF_MODEL_LABELS.get,
    )
else:
    c4.caption("This agent has no self-model.")
controls.publish(
    PAGE, [k for k in KEYS if controls.key(PAGE, k) in st.session_state]
)  # only the controls drawn

lesioned = capacity != n_slots or mode != "on"
with st.spinner("Running 32 episodes with and without a pulse, and measuring..."):
    readings = data.integration(kind, seed, capacity, mode)
    intact = data.integration(kind, seed, n_slots, "on") if lesioned else None
figure(
    build=lambda: integration_bars(
        readings,
        intact_readings=intact,
        title=f"{kind}, seed {seed}: integration of each signal"
        + (" (open bars: intact)" if lesioned else ""),
    ),
    cache_key=("integration-live", *data.agent_file("dual", kind, seed), capacity, mode),
    key="live",
    download="integration",
)
st.caption(
    "32 episodes. *intact*: the trajectory as the agent runs; *evoked*: the same "
    "episodes with a pulse "
    "(SD 1 at step 3 into the workspace, or the recurrent state of agents without "
    "one) minus without it. "
    f"Φ_E with the {NORMALISATION.replace('_', ' ')} normalisation; every covariance with "
    f"observation noise of {RIDGE:g} times its mean variance (the registered ridge). Signals: "
    + "; ".join(f"{s}: {SIGNAL_WORDS[s]}" for s in SIGNALS)
    + "."
)
table = pd.DataFrame(
    [
        {
            "signal": signal_name(r.signal),
            "variant": r.variant,
            "measure": MEASURE_NAMES[r.measure],
            "value (bits)": None if r.reason else round(r.value, 3),
            "not defined because": r.reason or "",
        }
        for r in readings
    ]
)
st.dataframe(table, hide_index=True, width="stretch")
if any(r.reason and "no activity" in r.reason and r.variant == "evoked" for r in readings):
    st.caption(
        "No activity in an *evoked* signal means the pulse never reaches it: in these "
        "agents the recurrent "
        "state never reads the workspace the pulse goes into (open loop), and with the "
        "workspace off the "
        "pulse has no slot to go into."
    )

st.subheader("What each measure means")
for measure in MEASURE_NAMES:
    st.markdown(MEANINGS[measure])
st.markdown(
    "All three are computed as if the recorded activity were Gaussian, from its "
    "covariance, in bits. "
    "With few samples they are biased (a shuffled copy of the data, with the parts' "
    "dependence destroyed, "
    "would not give exactly 0); the study reports that bias beside every value."
)

rows = study.frame("integration")
if study.tables is not None and rows is not None:
    st.subheader("The study's values")
    signal = st.selectbox(
        "Signal", SIGNALS, format_func=SIGNAL_WORDS.get, key=controls.key(PAGE, "signal")
    )
    variant = st.radio("Variant", VARIANTS, horizontal=True, key=controls.key(PAGE, "variant"))
    figure(
        build=lambda: study_values_figure(rows, signal, variant, ridge=study.tables.ridge),
        cache_key=("integration-study", signal, variant, str(study.directory), data.version(study)),
        key="study_values",
        download="integration_values",
    )
