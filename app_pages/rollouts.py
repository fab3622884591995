"""Rollout theatre: one episode, frame by frame, beside the agent's internal state."""

import streamlit as st

import labcore.envs as E
from labcore.config import MASKING_DEFAULT, NOISE_MODES
from labcore.figures.episode import step_caption
from ui import controls, data
from ui.components import SELF_MODEL_LABELS, explain, figure
from ui.state import MAX_NOISE, MAX_SLOTS, TASK_CHOICES, LabState

PAGE = "rollouts"
KEYS = ("task", "agent", "seed", "episode", "self_model_mode", "capacity", "noise", "noise_mode")
TASKS = {
    "dual": ("Dual task", E.DUAL_TASK, "dual"),
    "masking": ("Backward masking", E.DUAL_TASK_MASKING, "dual"),
    "wagering": ("Wagering (E1)", E.WAGERING, "wagering"),
    "ood": ("Dual task, longer delay", E.DUAL_TASK_OOD, "dual"),
}

st.title("Rollout theatre")
explain(
    what="One episode played step by step. Left: the gridworld as MiniGrid draws it, with "
    "the cue channel "
    "drawn beside it (the agent gets the cue only through its workspace). Right: what the agent is "
    "thinking at that step: which answer it favours, what the expert would do, its confidence, and "
    "its workspace slots over time.",
    try_this="Press play on the dual task and watch the colour arrive at step 0, sit in slot 0, "
    "and come out at "
    "the colour report. Set **workspace slots** to 2 and pick an episode with a mask: "
    "the mask lands "
    "in slot 0 and the colour report goes wrong. On the wagering task the agent bets when its "
    "confidence at the junction (the choice point) is above 0.5; zero the self-model "
    "and watch that "
    "confidence flatten while the walk stays the same.",
    theory="If the workspace is where access happens, what is in the slots at the report step "
    "decides the "
    "report: information that was displaced cannot be reported.",
)

entries = data.manifest()  # read once: its problems are shown once
all_seeds = {task: data.seeds_by_kind(task, entries) for task in ("dual", "wagering")}
agents = sorted(set(all_seeds["dual"]) | set(all_seeds["wagering"]))
if not agents:
    st.error("No agents available.")
    st.stop()
merged = {
    k: sorted(set(all_seeds["dual"].get(k, [])) | set(all_seeds["wagering"].get(k, [])))
    for k in agents
}
controls.init_state(
    PAGE, KEYS, agents=agents, seeds=merged, default=LabState(agent="b1", task="dual")
)
r1 = st.columns([2, 2, 1, 1])
r1[0].selectbox(
    "Task", TASK_CHOICES, format_func=lambda t: TASKS[t][0], key=controls.key(PAGE, "task")
)
task = controls.value(PAGE, "task")
label, task_id, trained_on = TASKS[task]
task_seeds = all_seeds[trained_on]
if not task_seeds:
    st.error(f"No agent trained on the {trained_on} task.")
    st.stop()
if controls.value(PAGE, "agent") not in task_seeds:
    preferred = "b2_ws" if trained_on == "wagering" else None
    st.session_state[controls.key(PAGE, "agent")] = (
        preferred if preferred in task_seeds else next(iter(task_seeds))
    )
kind, _ = controls.agent_seed_picker(PAGE, task_seeds, r1[1], r1[2])
last_episode = data.THEATRE_EPISODES - 1  # the episodes data.theatre can play
if controls.value(PAGE, "episode") > last_episode:  # e.g. a link from a build with more episodes
    st.warning(
        (
            f"There are {data.THEATRE_EPISODES} episodes (0-{last_episode}); showing "
            f"episode {last_episode}."
        ),
        icon=":material/warning:",
    )
    st.session_state[controls.key(PAGE, "episode")] = last_episode
r1[3].number_input("Episode", 0, last_episode, key=controls.key(PAGE, "episode"))
r2 = st.columns([2, 2, 2, 2])
model = data.checked_agent(trained_on, kind, controls.value(PAGE, "seed"))
has_self_model = model is not None and model.config.self_model
controls.segmented(
    r2[0],
    "Self-model",
    SELF_MODEL_LABELS,
    PAGE,
    "self_model_mode",
    fallback="on",
    format_func=SELF_MODEL_LABELS.get,
    disabled=not has_self_model,
    help=None if has_self_model else "This agent has no self-model.",
)
r2[1].slider("Workspace slots", 0, MAX_SLOTS, key=controls.key(PAGE, "capacity"))
r2[2].slider("Noise sigma", 0.0, MAX_NOISE, step=0.01, key=controls.key(PAGE, "noise"))
r2[3].radio("Noise protocol", NOISE_MODES, key=controls.key(PAGE, "noise_mode"), horizontal=True)
controls.publish(PAGE, KEYS)
if model is None:  # its error is shown above; the other agents still work
    st.stop()

args = [
    controls.value(PAGE, k)
    for k in ("seed", "episode", "self_model_mode", "capacity", "noise", "noise_mode")
]
masking = MASKING_DEFAULT if task == "masking" else (None, None)
episode_key = data.theatre_key(task_id, kind, *args, *masking)
episode = data.theatre(episode_key)
trace = episode.trace
n = episode.n_steps

if "rollouts.t" not in st.session_state or st.session_state.get("rollouts.episode_id") != (
    task,
    kind,
    *args,
):
    st.session_state["rollouts.t"] = 0
    st.session_state["rollouts.episode_id"] = (task, kind, *args)
    st.session_state["rollouts.playing"] = False

b = st.columns([1.4, 1.4, 1.4, 1.4, 4])
if b[0].button("start", icon=":material/first_page:", width="stretch"):
    st.session_state["rollouts.t"], st.session_state["rollouts.playing"] = 0, False
if b[1].button("back", icon=":material/chevron_left:", width="stretch"):
    st.session_state["rollouts.t"] = max(0, st.session_state["rollouts.t"] - 1)
if b[2].button("step", icon=":material/chevron_right:", width="stretch"):
    st.session_state["rollouts.t"] = min(n, st.session_state["rollouts.t"] + 1)
playing = st.session_state["rollouts.playing"]
if b[3].button(
    "pause" if playing else "play",
    icon=":material/pause:" if playing else ":material/play_arrow:",
    width="stretch",
    type="primary",
):
    st.session_state["rollouts.playing"] = not playing
    if not playing and st.session_state["rollouts.t"] >= n:
        st.session_state["rollouts.t"] = 0
    st.rerun()


@st.fragment(run_every=0.7 if st.session_state["rollouts.playing"] else None)
def stage() -> None:
    if st.session_state["rollouts.playing"]:
        if st.session_state["rollouts.t"] < n:
            st.session_state["rollouts.t"] += 1
        else:
            st.session_state["rollouts.playing"] = False
            st.rerun(scope="app")
    t = st.session_state["rollouts.t"]
    st.progress(t / max(n, 1), text=f"step {t} of {n}")
    left, right = st.columns([5, 6])
    left.image(
        episode.frames[min(t, len(episode.frames) - 1)],
        width="stretch",
        alt=f"The maze as the agent sees it at step {t} of {n}; the caption below says what it did",
    )
    left.markdown(step_caption(trace, t, episode.reward))
    step = min(t, n - 1)
    shown = data.step_figures(episode_key, step)
    at = (*episode_key, step)  # the step's prepared figures are shared, as its figures are
    with right:
        figure(
            key=f"wager-{t}" if shown.action_is_wager else f"probs-{t}",
            build=lambda: shown.action,
            cache_key=(*at, "action"),
        )
        if shown.timeline is not None:
            figure(key=f"timeline-{t}", build=lambda: shown.timeline, cache_key=(*at, "timeline"))
    if shown.slots is not None:
        figure(key=f"slots-{t}", build=lambda: shown.slots, cache_key=(*at, "slots"))
    elif shown.slots_note is not None:  # a workspace with nothing in it: said, not drawn empty
        st.info(shown.slots_note, icon=":material/info:")


stage()
