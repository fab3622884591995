"""Agents: the bundled agents, what each is made of, and training a new seed live."""

import math
import time

import pandas as pd
import streamlit as st

from labcore.config import (
    AGENT_KINDS,
    KINDS_OF_EXPERIMENT,
    TASK_OF_EXPERIMENT,
    Intervention,
    TrainConfig,
)
from labcore.diagram import architecture_dot
from labcore.storage.checkpoints import CheckpointError
from ui import data, jobs
from ui.components import explain
from ui.jobs import QueueFull

st.title("Agents")
explain(
    what="The lab's agents share a body (a CNN that reads the grid and a recurrent memory) "
    "and differ in "
    "the parts three theories care about: a **workspace** (GWT), a **self-model** "
    "(HOT), or neither. "
    "Every agent is trained by imitating an expert; the table shows how well each seed learned "
    "(held-out agreement with the expert).",
    try_this="Pick an agent and a lesion to see which part it removes. Then train a new seed: "
    "it takes about "
    "half a minute once its turn comes (a class shares the server's training queue; "
    "the lab stays usable "
    "meanwhile). It is saved for **this browser session only** (under `runs/user/`): "
    "it appears on every "
    "page for you, never for other visitors, and the shipped agents are never changed.",
    theory="The agents are not conscious; they are reference implementations. A0 and A1 never "
    "see the cues "
    "at all in the dual task (the cues go only to the workspace), so they cannot beat chance there "
    "by construction.",
)

TASK_LABELS = {"dual": "dual task (E2, E3)", "wagering": "wagering (E1)"}


def agreement_table(rows: pd.DataFrame) -> None:
    """One row per (task, kind): seeds, mean and worst held-out agreement, seeds below 95%."""
    grouped = (
        rows.groupby(["task", "kind"])
        .agg(
            seeds=("seed", lambda s: ", ".join(str(x) for x in sorted(s))),
            agreement=("heldout_agreement", "mean"),
            worst=("heldout_agreement", "min"),
            excluded=("excluded", "sum"),
        )
        .reset_index()
    )
    grouped["agent"] = grouped["kind"].map(data.label)  # its name, never its code
    grouped["task"] = grouped["task"].map(lambda t: TASK_LABELS.get(t, t))
    # The name and the numbers first: a phone shows the first three columns.
    st.dataframe(
        grouped[["agent", "agreement", "worst", "excluded", "seeds", "task"]],
        width="stretch",
        hide_index=True,
        column_config={
            "agent": st.column_config.TextColumn("agent", width="medium"),
            "agreement": st.column_config.ProgressColumn(
                "held-out agreement (mean)", width="small", min_value=0, max_value=1, format="%.3f"
            ),
            "worst": st.column_config.NumberColumn("worst seed", format="%.3f"),
            "excluded": st.column_config.NumberColumn("seeds below 95%"),
        },
    )


def kinds_for(task: str) -> list[str]:
    """The agent kinds the paper's experiments use on ``task`` (config.KINDS_OF_EXPERIMENT), in
    preset order."""
    used = {
        k for exp, t in TASK_OF_EXPERIMENT.items() if t == task for k in KINDS_OF_EXPERIMENT[exp]
    }
    return [k for k in AGENT_KINDS if k in used]


listed = data.manifest()  # read once: its problems are shown once
entries = pd.DataFrame(listed.values())
mine = entries["user"].eq(True) if "user" in entries else pd.Series(False, index=entries.index)
bundled, yours = entries[~mine], entries[mine]
if bundled.empty:
    st.warning("No checkpoints found.")
else:
    agreement_table(bundled)
    st.caption(
        "Agreement: fraction of held-out steps on which the agent does what the expert "
        "does. Seeds below "
        "95% are excluded from analyses, as in the paper; A0/A1 are kept (at chance by "
        "construction). "
        "E1 agents cap near 97.6%: the flash is noisy, so even an ideal observer errs "
        "14% of the time at the "
        "decision."
    )
if not yours.empty:
    st.markdown(
        "**Your agents** (trained in this browser session; the other pages list them for you only)"
    )
    agreement_table(yours)

st.subheader("Architecture")
a, b = st.columns([1, 1])
kind = a.selectbox(
    "Agent", list(AGENT_KINDS), index=list(AGENT_KINDS).index("b2_ws"), format_func=data.label
)
lesion = b.radio("Show a lesion", ["none", "self-model zeroed", "workspace off"], horizontal=True)
iv = {
    "none": Intervention(),
    "self-model zeroed": Intervention(self_model_mode="zero"),
    "workspace off": Intervention(capacity_scale=0.0),
}[lesion]
st.graphviz_chart(
    architecture_dot(AGENT_KINDS[kind], iv), width="content"
)  # natural size: readable type

st.subheader("Train a new seed")
c1, c2, c3 = st.columns(3)
task = c1.selectbox("Task", list(TASK_LABELS), format_func=TASK_LABELS.get, key="train_task")
fit = kinds_for(task)
if st.session_state.get("train_kind") not in fit:  # switching the task must not keep an unfit kind
    st.session_state["train_kind"] = (
        "b2_ws" if "b2_ws" in fit and task == "wagering" else ("b1" if "b1" in fit else fit[0])
    )
train_kind = c2.selectbox(
    "Kind",
    fit,
    format_func=data.label,
    key="train_kind",
    help="Only the kinds the paper's experiments use on this task: E1 (wagering) needs the "
    "self-model's confidence, so only B2 (workspace-read) is trained on it.",
)
offered = data.offered_seed(task, train_kind)  # reserved only when its run starts
seed = int(
    c3.number_input(
        "Seed",
        min_value=0,
        max_value=9999,
        value=offered,
        step=1,
        help="Your session's next free seed. It is reserved for you when your run starts; if "
        "another student starts it first, your run takes the next free seed.",
    )
)


def start(task: str, kind: str, seed: int, offered: int) -> None:
    """Queue the run (a button callback): the page returns at once and shows the queue. The
    offered seed, if another session started it meanwhile, gives way to the next free one."""
    for shown in ("agents.trained", "agents.refused"):
        st.session_state.pop(shown, None)
    try:
        data.submit_training(task, kind, seed, TrainConfig(), or_next=seed == offered)
    except (CheckpointError, QueueFull) as exc:
        st.session_state["agents.refused"] = f"Not started: {str(exc).rstrip('.')}."


if done := st.session_state.get(
    "agents.trained"
):  # kept until the next run starts: a rerun must not lose it
    st.success(done)
if refused := st.session_state.get("agents.refused"):
    st.warning(refused)
if seed != offered and data.seed_taken(task, train_kind, seed):
    st.info(
        f"Seed {seed} of this agent already exists or is another session's; pick "
        f"another seed (yours: {offered})."
    )
else:
    st.button(
        f"Train seed {seed} of this agent on the {TASK_LABELS[task]}",
        type="primary",
        on_click=start,
        args=(task, train_kind, seed, offered),
        disabled=any(j.active for j in data.my_jobs()),
    )


# What a trainer reports of a run: behaviour cloning the agreement with the expert, reinforcement
# learning (the reward-trained kinds) the accuracy; a report may carry either. (A comment: a bare
# string in a page is drawn on the page by Streamlit's magic.)
SCORES = {"agreement": "held-out agreement", "accuracy": "held-out accuracy"}
CURVES = {"loss": "held-out loss", **SCORES}


def scores_text(values: dict, prefix: str = "") -> str:
    """The scores among ``values`` (keys ``prefix`` + a key of SCORES), as text; missing or
    undefined ones left out."""
    return ", ".join(
        f"{name} {values[prefix + k]:.3f}"
        for k, name in SCORES.items()
        if isinstance(values.get(prefix + k), int | float) and math.isfinite(values[prefix + k])
    )


def finished_message(job) -> str:
    """What a finished run says (the tables above list the new agent)."""
    rec = job.result["record"]
    verdict = (
        "meets the 95% criterion"
        if rec["meets_criterion"]
        else "is cue-blind by design (criterion unattainable)"
        if not rec["criterion_attainable"]
        else "is below 95%: it will be excluded from analyses"
    )
    score = scores_text(rec, "heldout_")
    return (
        f"Trained in {rec['wall_seconds']:.0f} s ({rec['updates']} updates): "
        f"{score + ', ' if score else ''}"
        f"{verdict}. Saved for this session only (your agent: {data.label(job.spec.kind)}, "
        f"seed {job.spec.seed}, listed under *Your agents*)."
    )


active = any(j.active for j in data.my_jobs())


@st.fragment(
    run_every=1.0 if active else None
)  # polls this session's jobs; the rest of the page stays idle
def training_panel() -> None:
    """This session's training jobs: queue position, progress, then the result."""
    queue = data.training_queue()
    for job in data.my_jobs():
        spec = job.spec
        if job.state == "queued":
            running, _ = queue.counts()
            ahead = queue.position(job)
            st.info(
                f"{data.label(spec.kind)}, seed {spec.seed}, is queued: {ahead} job(s) ahead of "
                f"yours, {running} training now "
                f"({queue.workers} at a time on this server). The lab stays usable meanwhile.",
                icon=":material/hourglass_top:",
            )
            st.progress(0.0, text=f"position {ahead + 1} in the queue")
        elif job.state == "running":
            p = job.progress
            score = scores_text(p)
            text = (
                f"update {int(p.get('done', 0))}{': ' + score if score else ''} "
                f"({time.time() - (job.started or time.time()):.0f} s; stops when it "
                "no longer improves)"
                if p
                else "generating expert demonstrations..."
            )
            st.progress(jobs.progress_fraction(job), text=text)
            curve = pd.DataFrame(
                [
                    {
                        "update": h["done"],
                        **{name: h[k] for k, name in CURVES.items() if h.get(k) is not None},
                    }
                    for h in job.history
                    if "done" in h
                ]
            )
            if len(curve.columns) > 1:  # a curve of what this trainer reports (RL reports no loss)
                st.line_chart(curve.set_index("update"))
        else:
            queue.forget(job)
            data.read_checkpoint_manifest.clear()
            if job.state == "done":
                st.session_state["agents.trained"] = finished_message(job)
            else:
                st.session_state["agents.refused"] = (
                    f"The run failed and nothing was saved: {job.error}."
                )
            st.rerun(scope="app")  # the tables above list the new agent


training_panel()
