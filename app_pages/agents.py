"""Agents: the bundled agents, what each is made of, and training a new seed live."""

import time

import pandas as pd
import streamlit as st

from labcore.checkpoints import CheckpointError, save_checkpoint
from labcore.config import AGENT_KINDS, Intervention, TrainConfig
from labcore.diagram import architecture_dot
from labcore.training import train_agent
from ui import data
from ui.components import explain

st.title("Agents")
explain(
    what="The lab's agents share a body (a CNN that reads the grid and a recurrent memory) and differ in "
         "the parts three theories care about: a **workspace** (GWT), a **self-model** (HOT), or neither. "
         "Every agent is trained by imitating an expert; the table shows how well each seed learned "
         "(held-out agreement with the expert).",
    try_this="Pick an agent and a lesion to see which part it removes. Then train a new seed: it takes about "
             "half a minute and is saved next to the bundled ones, ready on every page.",
    theory="The agents are not conscious; they are reference implementations. A0 and A1 never see the cues "
           "at all in the dual task (the cues go only to the workspace), so they cannot beat chance there "
           "by construction.",
)

listed = data.manifest()  # read once: its problems are shown once
entries = pd.DataFrame(listed.values())
if entries.empty:
    st.warning("No checkpoints found.")
else:
    grouped = entries.groupby(["task", "kind"]).agg(
        seeds=("seed", lambda s: ", ".join(str(x) for x in sorted(s))),
        agreement=("heldout_agreement", "mean"), worst=("heldout_agreement", "min"),
        excluded=("excluded", "sum")).reset_index()
    grouped["description"] = grouped["kind"].map(data.label)
    st.dataframe(grouped[["task", "kind", "description", "seeds", "agreement", "worst", "excluded"]],
                 width="stretch", hide_index=True,
                 column_config={"agreement": st.column_config.ProgressColumn("held-out agreement (mean)",
                                                                             min_value=0, max_value=1, format="%.3f"),
                                "worst": st.column_config.NumberColumn("worst seed", format="%.3f"),
                                "excluded": st.column_config.NumberColumn("seeds below 95%")})
    st.caption("Agreement: fraction of held-out steps on which the agent does what the expert does. Seeds below "
               "95% are excluded from analyses, as in the paper; A0/A1 are kept (at chance by construction). "
               "E1 agents cap near 97.6%: the flash is noisy, so even an ideal observer errs 14% of the time at the "
               "decision.")

st.subheader("Architecture")
a, b = st.columns([1, 1])
kind = a.selectbox("Agent", list(AGENT_KINDS), index=list(AGENT_KINDS).index("b2_ws"), format_func=data.label)
lesion = b.radio("Show a lesion", ["none", "self-model zeroed", "workspace off"], horizontal=True)
iv = {"none": Intervention(), "self-model zeroed": Intervention(self_model_mode="zero"),
      "workspace off": Intervention(capacity_scale=0.0)}[lesion]
st.graphviz_chart(architecture_dot(AGENT_KINDS[kind], iv), width="stretch")

st.subheader("Train a new seed")
c1, c2, c3 = st.columns(3)
task = c1.selectbox("Task", ["dual", "wagering"], format_func={"dual": "dual task (E2, E3)",
                                                               "wagering": "wagering (E1)"}.get)
train_kind = c2.selectbox("Kind", list(AGENT_KINDS), index=list(AGENT_KINDS).index("b2_ws" if task == "wagering" else "b1"),
                          format_func=data.label, key="train_kind")
listed_seeds = {int(e["seed"]) for e in listed.values() if e["task"] == task and e["kind"] == train_kind}


def taken(s: int) -> bool:
    """A listed seed, or a file already there (e.g. one whose manifest entry is malformed)."""
    return s in listed_seeds or data.checkpoint_path(task, train_kind, s).exists()


free = next(s for s in range(5, 10_000) if not taken(s))
seed = c3.number_input("Seed", min_value=0, max_value=9999, value=free, step=1)
if taken(int(seed)):
    st.info(f"Seed {seed} of this agent already exists; pick another seed (next free: {free}).")
elif st.button(f"Train {train_kind} seed {seed} on the {task} task", type="primary"):
    bar = st.progress(0.0, text="generating expert demonstrations...")
    chart = st.empty()
    history = []
    start = time.perf_counter()

    def progress(done: int, total: int, metrics: dict) -> None:
        history.append({"update": done, "held-out loss": metrics["loss"], "agreement": metrics["agreement"]})
        bar.progress(min(done / total, 1.0), text=f"update {done}: held-out agreement {metrics['agreement']:.3f} "
                                                  f"({time.perf_counter() - start:.0f} s)")
        chart.line_chart(pd.DataFrame(history).set_index("update"))

    trained = train_agent(task, train_kind, int(seed), TrainConfig(), progress=progress)
    try:
        path = save_checkpoint(trained.agent, trained.record, data.CHECKPOINTS_DIR)
    except CheckpointError as exc:  # e.g. a run that diverged to non-finite weights
        st.error(str(exc))
        st.stop()
    data.read_checkpoint_manifest.clear()
    rec = trained.record
    bar.progress(1.0, text="done")
    verdict = ("meets the 95% criterion" if rec["meets_criterion"] else
               "is cue-blind by design (criterion unattainable)" if not rec["criterion_attainable"] else
               "is below 95%: it will be excluded from analyses")
    st.success(f"Trained in {rec['wall_seconds']:.0f} s ({rec['updates']} updates): held-out agreement "
               f"{rec['heldout_agreement']:.3f}, {verdict}. Saved as {path.name}.")
