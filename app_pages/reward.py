"""From reward alone (E4, issue 15): does an agent learn to know when it is right without ever being told?"""

import streamlit as st

from labcore.checkpoints import CheckpointError
from labcore.experiments.e4 import ARMS, ARMS_BY_NAME, REFERENCE
from labcore.experiments.e4_hypotheses import answer, condition_text
from labcore.figures.live import calibration_figure, type2_roc_figure
from labcore.figures.neurogym import sure_curve_figure, sure_propensity_figure
from labcore.figures.paper_e4 import arms_figure, arms_table, history_frame, learning_curves
from labcore.figures.style import CHANCE_E1, label_of
from ui import controls, data
from ui.components import (
    SELF_MODEL_LABELS,
    e1_construction_notes,
    explain,
    figure,
    metric,
    number_text,
)
from ui.state import LabState

PAGE = "reward"
KEYS = ("agent", "seed", "self_model_mode")
SUPERVISED = ARMS_BY_NAME[REFERENCE].kind
OUTCOME_COLOURS = {"supported": "green", "not supported": "red", "undefined": "gray", "not tested": "gray"}
LIVE = "reward.live"

st.title("From reward alone")
st.caption("Experiment 4, beyond the paper: can an agent learn to know when it is right if nobody ever tells it "
           "whether it was right, only what its bets earned?")
explain(
    what="Two agents do the same wagering task: a faint flash says left or right, the agent walks to one side and, "
         "on half the trials, bets on its answer or opts out. Both learned *where to walk* by imitating an expert. "
         "The **supervised** agent learned its confidence from labels (\"that answer was right / wrong\"); the "
         "**reward-only** agent never saw such a label, only the bet's payoff (+1 for a right bet, -1 for a wrong "
         "one, 0 for opting out). **Type-2 AUROC** asks whether confidence is higher on right than on wrong "
         "answers: 0.5 is chance, 1.0 always knows, below 0.5 is backwards.",
    try_this="Compare the two AUROCs and calibration curves, then switch the **self-model** to *zeroed* for both: "
             "accuracy stays, AUROC goes to 0.5 by construction. Look at the learning curves, then train a "
             "reward-only agent yourself and watch its AUROC as it learns.",
    theory="Higher-order theories tie awareness to a model of one's own states. The paper's open question (its "
           "sec. 6.6): can such a model, with calibrated confidence, be learned from reward alone? Our "
           "hypotheses were registered before any reward-trained agent existed (docs/protocol.md sec. 8).",
)

res = data.checked_results(data.E4_RESULTS_DIR, experiment="e4")  # read once: a broken set is one error, the live lab still works


def answer_box() -> None:
    """The result set's answer (about 400 words): drawn below the live comparison's controls (issue 24)."""
    with st.container(border=True):
        st.markdown("**The answer, from the result set**")
        st.markdown(answer(res.summary))
        st.caption(f"Generated from `{res.directory.name}/summary.json` of the result set: no number on this box is "
                   "typed in.")


@st.fragment  # a control here reruns only this part: the rest of the page does not depend on it
def live_comparison() -> None:
    """The supervised and a reward-trained agent side by side, under the same self-model setting."""
    available = data.seeds_by_kind("wagering")
    supervised_seeds = set(available.get(SUPERVISED, []))
    seeds = {a.kind: sorted(set(available.get(a.kind, [])) & supervised_seeds) for a in ARMS if a.name != REFERENCE}
    seeds = {k: v for k, v in seeds.items() if v}
    if not seeds:
        st.warning("No reward-trained agent with a supervised agent of the same seed is available, so the live "
                   "comparison is left out; train them with `python -m labcore train --experiment e4 --agent "
                   "reward_wager --seeds 0-4`.")
        return
    first = "reward_wager" if "reward_wager" in seeds else next(iter(seeds))
    controls.init_state(PAGE, KEYS, agents=list(seeds), seeds=seeds, default=LabState(agent=first))
    left, mid, right = st.columns([3, 1, 3])
    kind, seed = controls.agent_seed_picker(PAGE, seeds, left, mid)
    controls.segmented(right, "Self-model (both agents)", list(SELF_MODEL_LABELS), PAGE, "self_model_mode",
                       fallback="on", format_func=SELF_MODEL_LABELS.get,
                       help="z_self, the agent's compressed model of its own state; the confidence reads only z_self.")
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
        metric(m1, f"Task accuracy · {names[k]}", view.accuracy, fmt="{:.1%}", intact=base and base.accuracy,
               chance="50%", reference=new, help="Trials that end in the correct zone (two sides: chance 50%).")
        metric(m2, f"Type-2 AUROC · {names[k]}", view.auroc, intact=base and base.auroc, chance="0.5",
               reference="below 0.5: more confident when wrong",
               help="The chance that a random right answer got more confidence than a random wrong one.")
        metric(m3, f"Calibration error · {names[k]}", view.calibration_error, intact=base and base.calibration_error,
               reference="0 = calibrated (ECE, 10 bins)",
               help="How far the confidence is from the share of right answers at that confidence.")
        metric(m4, f"Opt-outs · {names[k]}", view.skip_fraction, fmt="{:.1%}", intact=base and base.skip_fraction,
               reference="wager trials with confidence at or below 0.5",
               help="On wager trials the agent bets when its confidence is above 0.5, else opts out.")
        for note in e1_construction_notes(models[k].config, mode, slots[k]):
            column.success(note, icon=":material/construction:")
    condition = f"self-model {SELF_MODEL_LABELS[mode]}"
    curves = {(REFERENCE if k == SUPERVISED else k): (v.correct[v.answered], v.confidence[v.answered])
              for k, v in views.items()}
    figure(type2_roc_figure(curves, title=f"Type-2 ROC, {condition}: does confidence separate right from wrong?"),
           key="reward-roc", download="e4_type2_roc")
    figure(calibration_figure(curves, chance=CHANCE_E1, title=f"Calibration, {condition}: is confidence the "
                              "probability of being right?"), key="reward-calibration", download="e4_calibration")


def untested(h: dict) -> str:
    """What part of a hypothesis this result set cannot test (an arm it does not hold), or nothing."""
    arms = sorted({str(c.get("arm")) for c in h.get("conditions") or [] if not c.get("tested")})
    return f" *Not tested here (not in this result set):* {', '.join(label_of(a) for a in arms)}." if arms else ""


def hypotheses_box() -> None:
    """The pre-registered hypotheses and their outcomes, as the result set states them."""
    found = list(res.hypotheses.values())
    with st.container(border=True):
        st.markdown("**The pre-registered hypotheses (docs/protocol.md sec. 8.5) and what the result set says**")
        if not found:
            st.info("The result set holds no tested hypotheses.", icon=":material/info:")
            return
        line = lambda h: (f":{OUTCOME_COLOURS.get(h['outcome'], 'gray')}[**{h['outcome']}**] **{h['id']}**"  # noqa: E731
                          f"{' (primary)' if h.get('primary') else ''}: {h['statement']}")
        st.markdown("\n".join(f"- {line(h)}{untested(h)}" for h in found if not h.get("by_construction")))
        built = [h for h in found if h.get("by_construction")]
        if built:
            st.markdown("Reported, not counted (the wiring fixes these values **by construction**):\n"
                        + "\n".join(f"- {line(h)} *Why:* {h['by_construction']}.{untested(h)}" for h in built))
        with st.expander("The numbers behind each outcome (95% t intervals over seeds)"):
            for h in found:
                st.markdown(f"**{h['id']}**: " + "; ".join(condition_text(c) for c in h.get("conditions") or []) + ".")
        n = len(res.summary.get("seeds") or [])
        st.caption(f"Outcomes from the result set `{res.directory.name}` ({n} seeds): tested on seed means with 95% t "
                   "intervals, paired by seed where registered. The paper has no number for any of them.")


def interval_text(value: dict, fmt: str = "{:+.3f}") -> str:
    """``mean (95% t interval low to high, n = N)`` of a study's seed mean ("undefined" for a missing mean)."""
    show = lambda x: "undefined" if x is None else fmt.format(x)  # noqa: E731
    low, high = (value.get("ci95") or [None, None])[:2]
    if low is None or high is None:
        return f"{show(value.get('mean'))} (n = {value.get('n')})"
    return f"{show(value.get('mean'))} (95% t interval {show(low)} to {show(high)}, n = {value.get('n')})"


def neurogym_section() -> None:
    """The external task: NeuroGym's post-decision wager, agents trained from its reward alone."""
    st.subheader("On a task nobody here wrote: NeuroGym's post-decision wager")
    explain(
        what="NeuroGym's `PostDecisionWager-v0` (after Kiani & Shadlen 2009): a noisy display drifts left or right "
             "at one of six strengths (*coherence*, 0 to 51.2%); after a delay the agent chooses a side (+1 if right, "
             "0 if wrong). On half the trials a **sure option** is offered that always pays 0.7. Monkeys, and "
             "networks trained from reward (Song, Yang & Wang 2017), take it more often the weaker the evidence. Our "
             "agents (E4's reward-trained architecture) learned this task from its payoff alone.",
        try_this="Compare the agents' sure-option curve (left) with the ideal observer's on the same trials, and "
                 "read how much the sure option is worth to a perfect player.",
        theory="Choosing the sure option when the evidence is weak is a behavioural sign of knowing that one might "
               "be wrong. The question registered in docs/protocol.md sec. 8.6: does it emerge here from reward?",
    )
    study = data.neurogym_study()
    if study.problems:
        st.error("The NeuroGym study cannot be shown: " + " ".join(study.problems) + " Restore the shipped copy "
                 "with `git checkout results/explore_neurogym`.")
        return
    summary, means = study.summary, study.summary["means"]
    reading = summary["reading"]
    mean = lambda key: means[key]["mean"]  # noqa: E731 - validated numbers (results.load_neurogym)
    with st.container(border=True):
        st.markdown(f"**Answer (exploratory, {reading['reward']['n']} seeds):** {summary['answer']}.")
        st.markdown(
            f"- Sure option at 0 and 3.2% coherence minus at 25.6 and 51.2% (the registered reading): trained from "
            f"reward {interval_text(reading['reward'])}; the ideal observer {interval_text(reading['ideal'])}.\n"
            f"- Reward per trial: trained from reward {interval_text(means['reward_reward'], '{:.3f}')}; the ideal "
            f"observer {mean('ideal_reward'):.3f}, or {mean('ideal_no_sure_reward'):.3f} if it never took the sure "
            f"option. The sure option is worth only {mean('ideal_reward') - mean('ideal_no_sure_reward'):.3f} per "
            "trial even to a perfect player.\n"
            f"- The policy's probability of the sure option never exceeds {mean('reward_max_p_sure'):.1e} (mean over "
            "seeds of each agent's largest value), so its Type-2 AUROC "
            f"({interval_text(means['reward_auroc_opt_out'], '{:.2f}')}) ranks numbers too small ever to be acted "
            "on: not a usable sign of knowing.")
    if reading["reward"].get("rises") is False:  # the diagnosis explains a failure; shown only with one
        why_box(study)
    figure(sure_curve_figure(study.table), key="reward-neurogym", download="neurogym_sure_option")
    figure(sure_propensity_figure(study.curves), key="reward-neurogym-early", download="neurogym_sure_probability")


def early_not_offered(curves) -> float | None:
    """Mean P(sure) of the reward-trained agents after 20 updates on trials without the offer (or None)."""
    try:
        rows = curves[(curves["trainer"] == "reward") & (curves["update"] == 20)]
        value = float(rows["heldout_p_sure_not_offered"].astype(float).mean())
    except (KeyError, TypeError, ValueError):
        return None
    return value if value == value else None  # NaN: no such probe in this study


def why_box(study) -> None:
    """The post-hoc diagnosis of why reward training does not produce the sure-option curve."""
    means, reading = study.summary["means"], study.summary["reading"]
    mean = lambda key: means[key]["mean"]  # noqa: E731 - validated numbers (results.load_neurogym)
    with st.container(border=True):
        st.markdown("**Why, as far as we found (post hoc, labelled so in the result files)**")
        early, others = means["reward_p_sure_at_20"]["mean"], early_not_offered(study.curves)
        fall = "" if early is None else (
            f"Its probability fell from {mean('reward_p_sure_start'):.2f} to {early:.3f} within 20 updates on trials "
            "offering it" + ("" if others is None else f" and to {others:.3f} on the others") + " (seed means; figure "
            "below). ")
        st.markdown(
            "- *Not the architecture.* The same network trained to **imitate** the ideal observer takes the sure "
            f"option on {interval_text(means['imitation_sure_rate'], '{:.1%}')} of the trials offering it, and its "
            f"curve falls with coherence like the ideal observer's (low minus high: "
            f"{interval_text(reading['imitation'])}), earning {mean('imitation_reward'):.3f} per trial.\n"
            "- *Learning gives it up before it can pay.* Early on, before the agent reads the sure cue, the sure "
            "option earns 0.7 on half the trials and costs 0.1 on the other half, an average of 0.3, less than a "
            f"guessed side (0.5). {fall}"
            + ("Once it is gone it is not tried again, so its worth on weak-evidence trials is never discovered. "
               if mean("reward_max_p_sure") < 0.01 else "")
            + "A far larger entropy bonus did not keep it alive in a one-seed check (the protocol's change log).")
        st.caption(f"Generated from `{study.directory.name}/summary.json`; every agent measured on "
                   f"{study.summary['config']['eval_trials']:,} held-out NeuroGym trials; `python -m labcore explore "
                   "neurogym` regenerates it. The paper has no number here.")


def live_training() -> None:
    """Train one reward-only seed with a small budget, its held-out AUROC drawn as it learns."""
    st.subheader("Train a reward-only agent live")
    budget = data.LIVE_TRAIN
    st.markdown(f"A short run of {budget.max_updates} updates (the registered schedule runs until the held-out "
                "loss stops improving): the agent imitates the expert's walking and learns its confidence from the "
                f"bets' payoff alone. Every {budget.eval_every} updates its confidence is checked on "
                f"{budget.heldout_episodes} held-out trials. It is saved for **this browser session only**; the "
                "shipped agents never change.")
    free = data.offered_seed("wagering", data.LIVE_KIND)  # reserved for this session alone (issue 24)
    if st.button(f"Train {data.LIVE_KIND} seed {free} live", type="primary"):
        bar = st.progress(0.0, text="generating expert demonstrations...")
        chart = st.empty()
        history: list[dict] = []

        def progress(done: int, total: int, metrics: dict) -> None:
            history.append({"update": done, **{k: metrics.get(k) for k in ("heldout_auroc", "heldout_wager_reward")}})
            bar.progress(min(done / total, 1.0), text=f"update {done} of {total}: held-out Type-2 AUROC "
                         f"{number_text(metrics.get('heldout_auroc'))}")
            chart.line_chart(history_frame(history).set_index("update")[["heldout_auroc", "heldout_wager_reward"]])

        try:
            record, path = data.train_live(free, progress)
        except (CheckpointError, OSError) as exc:
            st.error(f"The live run was not saved: {str(exc).rstrip('.')}.")
            return
        st.session_state[LIVE] = {"seed": free, "history": record.get("history") or history,
                                  "text": f"Trained in {record['wall_seconds']:.0f} s ({record['updates']} updates), "
                                          f"saved as {path.name} for this session only."}
        st.rerun()
    done = st.session_state.get(LIVE)
    if done:
        st.success(done["text"])
        figure(learning_curves(history_frame(done["history"], data.LIVE_KIND, done["seed"]),
                               title=f"Your live run (seed {done['seed']}): held-out AUROC and wager reward"),
               key="reward-live", download="e4_live_run")


live_comparison()
answer_box()
hypotheses_box()
arms = [a.name for a in ARMS]
st.subheader("Every arm over all seeds")
st.dataframe(arms_table(res.seed_values, arms), hide_index=True, width="stretch")
figure(arms_figure(res.seed_values, arms), key="reward-arms", download="e4_arms")
figure(learning_curves(res.e4_curves, arms=arms), key="reward-curves", download="e4_learning_curves")
st.caption("Measured during training on held-out demonstrations (the agent follows the expert's path; the AUROC above "
           "is measured afterwards on the agent's own runs). Thick lines: the mean over the seeds still training at "
           "that update; each seed stops by the registered convergence rule, so the right end rests on fewer seeds.")
neurogym_section()
live_training()
