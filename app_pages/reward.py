"""From reward alone: does an agent learn to know when it is right without ever
being told?

The lab's answer first (at most 30 words, composed from five studies by ``reward.j2``), its
headline plot (Kiani & Shadlen's two signatures for networks trained from reward), the findings it
cites and, one click away, the long form; then one tab per study: Song et al.'s reproduction, the
reward explorer, a live run, our own wagering task (E4) and our first NeuroGym training.
"""

import streamlit as st

from labcore.figures.live import calibration_figure, type2_roc_figure
from labcore.figures.paper import arms_figure, arms_table, history_frame, learning_curves
from labcore.figures.style import label_of
from labcore.render import answer, part, term
from labcore.storage.checkpoints import CheckpointError
from ui import controls, data, data_reward, reward_neurogym
from ui.components import (
    SELF_MODEL_LABELS,
    explain,
    figure,
    findings_frame,
    metric,
    number_text,
)
from ui.science import e1_construction_notes
from ui.state import LabState

PAGE = "reward"
KEYS = ("agent", "seed", "self_model_mode", "explorer_cell", "pdw_policy")
REFERENCE, SUPERVISED = data_reward.e4_reference()
OUTCOME_COLOURS = {
    "supported": "green",
    "not supported": "red",
    "undefined": "gray",
    "not tested": "gray",
}
LIVE = "reward.live"
# Glossary keys, as they first appear: the answer, the plot, the findings table.
TERMS = ("sure_option", "coherence", "ideal_observer", "s1", "s2", "type2_auroc")
TABS = (
    "Song et al. reproduced",
    "Which training choice matters",
    "Train a network yourself",
    "Our wagering task",
    "Our first NeuroGym training",
)

st.title("From reward alone")
st.caption(
    "Beyond the paper: can an agent learn to know when it is right if nobody ever tells it "
    "whether it was right, only what its choices earned?"
)

# Every control of the page lives in the URL (the E4 comparison's agent and seed, the explorer's
# cell, ...).
comparison_seeds = data_reward.e4_comparison_seeds(data.seeds_by_kind("wagering"))
first_agent = (
    "reward_wager"
    if "reward_wager" in comparison_seeds
    else next(iter(comparison_seeds), "reward_wager")
)
controls.init_state(
    PAGE,
    KEYS,
    agents=list(comparison_seeds) or [first_agent],
    seeds=comparison_seeds or {first_agent: [0]},
    default=LabState(agent=first_agent),
    options={"explorer_cell": data_reward.EXPLORER_CELLS, "pdw_policy": data_reward.PDW_POLICIES},
)

res = data.checked_results(
    data_reward.E4_RESULTS_DIR, experiment="e4"
)  # read once: a broken set is one error, the live lab still works
studies = data_reward.reward_summaries(res.summary)
st.markdown(f"**{data_reward.reward_answer(studies, 'short')}**")
reward_neurogym.headline()
st.caption(" ".join(f"**{term(k).name}**: {term(k).plain}" for k in TERMS))
findings_frame(data_reward.reward_findings(studies), paper=False)
with st.expander("The answer in full: Song et al. (2017), each study, the older cells labelled"):
    st.markdown(data_reward.reward_answer(studies, "long"))
    st.caption(
        "Generated from the studies' `summary.json` by the rewrite rules registered in "
        "docs/protocol.md sec. 8.7 and 8.8.6: no number here is typed in. The README states the "
        "same answer."
    )
explain(
    what="Kiani & Shadlen (2009) gave monkeys a **post-decision wager**: a cloud of dots drifts "
    "left or right at one of six strengths (*coherence*); on half the trials a **sure option** "
    "pays a small certain reward instead. Monkeys take it more often the weaker the evidence "
    "(**S1**), and when they decline it they are more accurate than when it was never offered "
    "(**S2**). Song, Yang & Wang (2017) trained recurrent networks on this task from **reward "
    "alone** and found both. We retrained their network (a plain GRU) and our own B2 agent under "
    "their training on NeuroGym's version of the task, with one correction: NeuroGym 2.3.1 pays "
    "the wrong side (a correct choice on a left trial earns nothing, and choosing left on a right "
    "trial earns +1), so our adapter pays the +1 to the correct side, as in Kiani & Shadlen's "
    "task, and every network here learned from that corrected reward. The tabs below hold each "
    "study, our own wagering task and our first NeuroGym training.",
    try_this="Read the plot: does the sure option fall with coherence, as the ideal observer's "
    "does? In *Which training choice matters*, start from Song's setting and change one training "
    "choice at a time: which change loses the sure option? Then train a plain GRU yourself and "
    "watch the sure option rise, fall when the sides are learned, and (with Song's settings) "
    "come back.",
    theory="Higher-order theories tie awareness to a model of one's own states. The paper's "
    "open question (its sec. 6.6): can such a model, with calibrated confidence, be learned from "
    "reward alone? Every study here was registered before its agents trained.",
)


def live_comparison() -> None:
    """The supervised and a reward-trained agent side by side, under the same self-model setting."""
    seeds = comparison_seeds
    if not seeds:
        st.warning(
            "No reward-trained agent with a supervised agent of the same seed is available, so "
            "the live comparison is left out; train them with `python -m labcore train "
            "--experiment e4 --agent reward_wager --seeds 0-4`."
        )
        return
    left, mid, right = st.columns([3, 1, 3])
    kind, seed = controls.agent_seed_picker(PAGE, seeds, left, mid)
    controls.segmented(
        right,
        "Self-model (both agents)",
        list(SELF_MODEL_LABELS),
        PAGE,
        "self_model_mode",
        fallback="on",
        format_func=SELF_MODEL_LABELS.get,
        help=f"{term('z_self').plain} The confidence reads only it.",
    )
    controls.publish(PAGE, KEYS)
    mode = controls.value(PAGE, "self_model_mode")
    models = {k: data.checked_agent("wagering", k, seed) for k in (SUPERVISED, kind)}
    if any(m is None for m in models.values()):  # its error is shown; the rest of the page works
        return
    slots = {k: m.config.n_slots for k, m in models.items()}
    views = {k: data.metacognition(k, seed, mode, slots[k], 0.0) for k in models}
    intact = {k: data.metacognition(k, seed, "on", slots[k], 0.0) for k in models}
    names = {SUPERVISED: "supervised", kind: "reward only"}
    columns = st.columns(2)
    for column, k in zip(columns, models, strict=True):
        view, base = views[k], (None if mode == "on" else intact[k])
        column.markdown(f"**{label_of(REFERENCE if k == SUPERVISED else k)}** · seed {seed}")
        m1, m2 = column.columns(2)
        m3, m4 = column.columns(2)
        new = "no paper number (the paper never trained from reward)"
        metric(
            m1,
            f"Task accuracy · {names[k]}",
            view.accuracy,
            fmt="{:.1%}",
            intact=base and base.accuracy,
            chance="wager",
            reference=new,
            help=term("accuracy").plain,
        )
        metric(
            m2,
            f"Type-2 AUROC · {names[k]}",
            view.auroc,
            intact=base and base.auroc,
            chance="auroc",
            reference="below 0.5: more confident when wrong",
            help=term("type2_auroc").plain,
        )
        metric(
            m3,
            f"Calibration error · {names[k]}",
            view.calibration_error,
            intact=base and base.calibration_error,
            reference="0 = calibrated (ECE, 10 bins)",
            help=term("ece").plain,
        )
        metric(
            m4,
            f"Opt-outs · {names[k]}",
            view.skip_fraction,
            fmt="{:.1%}",
            intact=base and base.skip_fraction,
            reference="wager trials with confidence at or below 0.5",
            help=term("opt_out").plain,
        )
        for note in e1_construction_notes(models[k].config, mode, slots[k]):
            column.success(note, icon=":material/construction:")
    condition = f"self-model {SELF_MODEL_LABELS[mode]}"
    curves = {
        (REFERENCE if k == SUPERVISED else k): (v.correct[v.answered], v.confidence[v.answered])
        for k, v in views.items()
    }
    shown = (mode, *(part for k in models for part in data.agent_file("wagering", k, seed)))
    figure(
        build=lambda: type2_roc_figure(
            curves, title=f"Type-2 ROC, {condition}: does confidence separate right from wrong?"
        ),
        cache_key=("e4-roc", *shown),
        key="reward-roc",
        download="e4_type2_roc",
    )
    figure(
        build=lambda: calibration_figure(
            curves,
            chance="wager",
            title=f"Calibration, {condition}: is confidence the probability of being right?",
        ),
        cache_key=("e4-calibration", *shown),
        key="reward-calibration",
        download="e4_calibration",
    )


def untested(h: dict) -> str:
    """What part of a hypothesis this result set cannot test (an arm it does not hold), or
    nothing."""
    arms = sorted({str(c.get("arm")) for c in h.get("conditions") or [] if not c.get("tested")})
    return (
        f" *Not tested here (not in this result set):* {', '.join(label_of(a) for a in arms)}."
        if arms
        else ""
    )


def hypotheses_box() -> None:
    """The registered hypotheses and their outcomes, as the result set states them."""
    found = list(res.hypotheses.values())
    with st.container(border=True):
        st.markdown("**The hypotheses registered before the agents trained, and their outcomes**")
        if not found:
            st.info("The result set holds no tested hypotheses.", icon=":material/info:")
            return

        def line(h: dict) -> str:
            colour = OUTCOME_COLOURS.get(h["outcome"], "gray")
            primary = " (primary)" if h.get("primary") else ""
            return f":{colour}[**{h['outcome']}**] **{h['id']}**{primary}: {h['statement']}"

        st.markdown(
            "\n".join(f"- {line(h)}{untested(h)}" for h in found if not h.get("by_construction"))
        )
        built = [h for h in found if h.get("by_construction")]
        if built:
            st.markdown(
                f"Reported, not counted (**{term('by_construction').name}**: "
                f"{term('by_construction').plain}):\n"
                + "\n".join(
                    f"- {line(h)} *Why:* {h['by_construction']}.{untested(h)}" for h in built
                )
            )
        with st.expander("The numbers behind each outcome (95% t intervals over seeds)"):
            for h in found:
                st.markdown(f"**{h['id']}**: {part(res.summary, 'conditions', h=h)}")
        st.caption(
            f"Outcomes from the result set `{res.directory.name}` ({len(res.seeds)} seeds): "
            "tested on seed means with 95% t intervals, paired by seed where registered. The "
            "paper has no number for any of them."
        )


def live_training() -> None:
    """Train one reward-only seed with a small budget, its held-out AUROC drawn as it learns."""
    st.subheader("Train a reward-only agent live (the first training)")
    budget = data_reward.LIVE_TRAIN
    st.markdown(
        f"A short run of {budget.max_updates} updates (the registered training runs until the "
        "held-out loss stops improving): the agent imitates the expert's walking and learns its "
        f"confidence from the bets' payoff alone. Every {budget.eval_every} updates its "
        f"confidence is checked on {budget.heldout_episodes} held-out trials. It is saved for "
        "**this browser session only**; the shipped agents never change."
    )
    # reserved when the run starts, never on a visit; taken meanwhile: the next free one
    free = data.offered_seed("wagering", data_reward.LIVE_KIND)
    if st.button(f"Train {data_reward.LIVE_KIND} seed {free} live", type="primary"):
        bar = st.progress(0.0, text="generating expert demonstrations...")
        chart = st.empty()
        history: list[dict] = []

        def progress(done: int, total: int, metrics: dict) -> None:
            history.append(
                {
                    "update": done,
                    **{k: metrics.get(k) for k in ("heldout_auroc", "heldout_wager_reward")},
                }
            )
            bar.progress(
                min(done / total, 1.0),
                text=f"update {done} of {total}: held-out Type-2 AUROC "
                f"{number_text(metrics.get('heldout_auroc'))}",
            )
            chart.line_chart(
                history_frame(history).set_index("update")[
                    ["heldout_auroc", "heldout_wager_reward"]
                ]
            )

        try:
            record, path = data_reward.train_live(free, progress)
        except (CheckpointError, OSError) as exc:
            st.error(f"The live run was not saved: {str(exc).rstrip('.')}.")
            return
        st.session_state[LIVE] = {
            "seed": record.get("seed", free),
            "history": record.get("history") or history,
            "text": f"Trained in {record['wall_seconds']:.0f} s ({record['updates']} updates), "
            f"saved as {path.name} for this session only.",
        }
        st.rerun()
    done = st.session_state.get(LIVE)
    if done:
        st.success(done["text"])
        figure(
            learning_curves(
                history_frame(done["history"], data_reward.LIVE_KIND, done["seed"]),
                title=f"Your live run (seed {done['seed']}): held-out AUROC and wager reward",
            ),
            key="reward-live",
            download="e4_live_run",
        )


def wagering_section() -> None:
    """Our own wagering task (E4, and the cells that learn the wager after the policy)."""
    st.subheader("On our own wagering task")
    if res.summary is not None:
        st.markdown(answer(res.summary, "short"))
    st.markdown(
        "Two agents do the same wagering task: a faint flash says left or right, the agent walks "
        "to one side and, on half the trials, bets on its answer or opts out. Both learned *where "
        "to walk* by imitating an expert. The **supervised** agent learned its confidence from "
        "labels; the **reward-only** agents never saw such a label, only the bet's payoff (+1 "
        f"right, -1 wrong, 0 opted out). **{term('type2_auroc').name}**: "
        f"{term('type2_auroc').plain} Our first training learned the wager from the first "
        "update; the second learned it once the policy had converged."
    )
    live_comparison()
    hypotheses_box()
    arms = data_reward.e4_arm_names()
    st.markdown("**Every arm over all seeds**")
    arm_rows = arms_table(res.seed_values, arms)
    # Narrow columns, so a phone shows at least three of them; the arm's name
    # wraps on hover.
    st.dataframe(
        arm_rows,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.TextColumn(c, width=100 if c == "arm" else 90)
            for c in arm_rows.columns
        },
    )
    version = (str(res.directory), data.version(res))
    figure(
        build=lambda: arms_figure(res.seed_values, arms),
        cache_key=("reward-arms", tuple(arms), *version),
        key="reward-arms",
        download="e4_arms",
    )
    figure(
        build=lambda: learning_curves(res.e4_curves, arms=arms),
        cache_key=("reward-curves", tuple(arms), *version),
        key="reward-curves",
        download="e4_learning_curves",
    )
    st.caption(
        "Measured during training on held-out demonstrations (the agent follows the expert's "
        "path; the AUROC above is measured afterwards on the agent's own runs). Thick lines: the "
        "mean over the seeds still training at that update; each seed stops by the registered "
        "convergence rule, so the right end rests on fewer seeds."
    )
    live_training()


song, explorer, yourself, wagering, first = st.tabs(TABS)
with song:
    reward_neurogym.signatures_section(PAGE, KEYS)
with explorer:
    reward_neurogym.explorer_section(PAGE, KEYS)
with yourself:
    reward_neurogym.live_sure_option()
with wagering:
    wagering_section()
with first:
    reward_neurogym.neurogym_section()
