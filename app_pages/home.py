"""Home: what the lab is, the three theories in plain words, the dissociations to see."""

import streamlit as st

from labcore.findings import VERDICTS, evidence_split
from labcore.render import macro
from ui import classroom, data, projector
from ui.components import SCOPE_LINE
from ui.state import query

st.title("Consciousness-Theories Ablation Lab")
st.markdown(
    "Small agents built from the parts three theories of consciousness say matter. **Switch a "
    "part off, narrow it or add noise** and watch which abilities survive; the lab checks the "
    "paper *Can We Test Consciousness Theories on AI?* (Phua, 2025)."
)
classroom.join_entry()  # students: in the page, not under a phone's folded menu
# The verdicts (labcore.findings.VERDICTS) in words a visitor reads (a comment: a bare string in a
# page is drawn on the page by Streamlit's magic).
PLAIN_VERDICTS = {
    "reproduced": "As the paper says",
    "partly reproduced": "Only in part",
    "not reproduced": "Not as the paper says",
    "not comparable": "Cannot be compared",
}

st.subheader("Does the paper reproduce?")
res = data.checked_results()
if res.summary is not None:
    st.markdown(macro(res.summary, "plain"))
    split = evidence_split(res.claims)
    cols = st.columns(5)
    for col, verdict in zip(cols, VERDICTS[:4], strict=False):
        col.metric(PLAIN_VERDICTS[verdict], split["evidence"][verdict])
    cols[4].metric(
        "Fixed in advance (not counted)",
        sum(split["apart"].values()),
        help="Values the agents' design fixes before any run (an untrained agent of the same "
        "wiring gives the same number), or with nothing in the lab to set beside the paper's: "
        "they cannot test the paper either way.",
    )
    st.page_link(
        "app_pages/replication.py",
        label=f"See all {len(res.claims)} claims, the paper beside ours ({len(res.seeds)} seeds "
        "per agent; every rule dated, before or after the results)",
        icon=":material/fact_check:",
    )
else:
    st.info(
        "The verdict counts appear here once the bundled result set can be read (see "
        "the message above)."
    )

st.subheader("See the dissociations")
measured = data.measured()
statuses = data.lab_dissociations()  # what held here once training decides, in words
if statuses:
    st.markdown(statuses["short"])
cards = st.columns(3)
with cards[0], st.container(border=True):
    st.markdown("#### 1. Doing without knowing")
    st.write(
        "Silence an agent's self-model: does it still choose well but lose its sense of when it "
        "is right (*blindsight*)? In this agent its confidence can also read the workspace "
        "directly, so training, not the wiring, decides."
        + (f" **Here:** {statuses['e1']}." if statuses else "")
    )
    st.page_link(
        "app_pages/metacognition.py",
        label="Predict, then silence the self-model",
        icon=":material/psychology:",
        query_params=projector.carried(
            query(agent="b2_routes", seed=1, silenced=1.0, predict=True)
        ),
    )
    st.page_link(
        "app_pages/metacognition.py",
        label="The paper's wiring (fixed in advance)",
        icon=":material/construction:",
        query_params=projector.carried(query(agent="b2_ws", seed=0, self_model_mode="zero")),
    )
with cards[1], st.container(border=True):
    st.markdown("#### 2. No workspace, no access")
    st.write(
        "Narrow the workspace: do the cues still get through? Here the agent's write gate "
        "learned what to keep, so what 2 slots hold is decided by training, not by a rule."
        + (f" **Here:** {statuses['e2']}." if statuses else "")
    )
    st.page_link(
        "app_pages/workspace.py",
        label="Predict, then narrow a learned workspace",
        icon=":material/hub:",
        query_params=projector.carried(query(agent="b1_gate", seed=1, capacity=2, predict=True)),
    )
    st.page_link(
        "app_pages/workspace.py",
        label="The paper's overwrite rule (fixed in advance)",
        icon=":material/construction:",
        query_params=projector.carried(query(agent="b1", seed=0, capacity=2)),
    )
with cards[2], st.container(border=True):
    st.markdown("#### 3. Noise inside the mind")
    st.write(
        "Add noise to the workspace: how much can each design take before its answers fall to "
        "75%? The paper says the self-model protects; check whether it does here."
        + (f" **Here:** {statuses['e3']}." if statuses else "")
    )
    st.page_link(
        "app_pages/robustness.py",
        label="Open the noise titration",
        icon=":material/cyclone:",
        query_params=projector.carried(query(agent="b1", seed=0, noise=0.3, noise_mode="stored")),
    )

st.subheader("Three theories, in plain words")
gwt, hot, iit = st.columns(3)
gwt.markdown(
    "**Global Workspace (GWT)** — information becomes *available* when it enters a small shared "
    "board that everything else can read. Our agents have such a board: **4 slots**. "
    "Cues are written "
    "there; distractors can push them out."
)
hot.markdown(
    "**Higher-Order (HOT)** — you are aware of something when you also *represent "
    "yourself* having it. "
    "Our B2 agents have a **self-model** that watches their own state and says how "
    "confident they are."
)
iit.markdown(
    "**Integrated information (IIT)** — a conscious system's response to a poke is *rich and "
    "differentiated*. We poke the agents' internal state and measure how **complex** the echo is."
)

st.info(SCOPE_LINE, icon=":material/info:")

st.subheader("Teaching with the lab")
lesson, puzzle = st.columns(2)
with lesson, st.container(border=True):
    st.markdown("#### A lesson for a class")
    st.write(
        "The three dissociations as a guided sequence for a projector: a question per step, the "
        "class's votes from their own devices (a QR code), the view that answers it, then the "
        "answer. First, each student plays the agent's task. A printable handout too."
    )
    st.page_link("app_pages/lesson.py", label="Start the lesson", icon=":material/school:")
with puzzle, st.container(border=True):
    st.markdown("#### A mystery agent")
    st.write(
        "Hide a lesion, a narrowed workspace or noise in an agent and give the class "
        "its code: students "
        "diagnose it from the markers, then reveal the answer."
    )
    st.page_link("app_pages/mystery.py", label="Make a puzzle", icon=":material/help:")

st.subheader("How to use the lab")
st.markdown(
    "- Every control is in the page; every view is a **link** (the URL updates as you "
    "move a control), so "
    "you can share exactly what you see.\n"
    "- **Rollout theatre** plays one episode step by step beside the agent's internal state.\n"
    "- **Agents** shows the architectures and lets you train a new seed in about half a minute.\n"
    "- Everything runs on a laptop CPU; the pre-trained agents load instantly."
)
