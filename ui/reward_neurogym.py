"""The "From reward alone" page's sections on NeuroGym's post-decision wager: Song et al.'s
reproduction (the two signatures), the reward explorer, the live sure-option run and the older
protocol 8.6 cell.

Drawn by ``app_pages/reward.py``, which owns the page's URL state: each section takes the page's
name and its URL keys. The data come from :mod:`ui.data_reward`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st

from labcore.figures.neurogym import sure_curve_figure, sure_propensity_figure
from labcore.figures.pdw import (
    explorer_figure,
    kiani_shadlen_figure,
    live_curve_figure,
    training_curve_figure,
)
from ui import controls, data_reward, live_run
from ui.components import explain, figure, number_text

if TYPE_CHECKING:
    from labcore.storage.results_pdw import PDWStudy
    from labcore.storage.studies import NeuroGymStudy

PDW_COMMAND = "python -m labcore explore pdw --out results/pdw --jobs 2"
SWEEP_COMMAND = "python -m labcore explore pdw-sweep --out results/pdw_sweep --jobs 2"
SURE_RUN = "reward.sure_run"
"""Session key of the live sure-option run."""


def study_problems(study: PDWStudy, what: str, command: str) -> bool:
    """Show why a protocol 8.7 study cannot be drawn: not run yet (info) or damaged (one error).
    True if shown."""
    if not study.summary:
        st.info(
            f"The {what} has not been run yet: `{command}` writes it.",
            icon=":material/hourglass_empty:",
        )
        return True
    if study.problems:
        st.error(
            f"The {what} in `{study.directory.name}/` cannot be fully drawn: "
            + "; ".join(study.problems)
            + f". Re-run `{command}`."
        )
    return False


@st.fragment
def signatures_section(page: str, keys: Sequence[str]) -> None:
    """Kiani & Shadlen's pair for reward-trained networks beside the ideal observer, and the
    learning curves."""
    st.subheader("The two signatures, from reward alone (Song et al. 2017 reproduced)")
    study = data_reward.pdw_study()
    if study_problems(study, "reproduction of Song et al. (protocol 8.7)", PDW_COMMAND):
        return
    controls.segmented(
        st,
        "Choices drawn",
        list(data_reward.PDW_POLICIES),
        page,
        "pdw_policy",
        fallback="sampled",
        format_func={
            "sampled": "sampled (registered)",
            "greedy": "greedy (most likely action)",
        }.get,
        help="The networks' choices on each seed's evaluation trials: drawn from the policy (as "
        "registered), or its most likely action.",
    )
    controls.publish(page, keys)
    policy = controls.value(page, "pdw_policy")
    figure(
        kiani_shadlen_figure(
            study.frames.get("pdw_by_coherence.csv"), policy=policy, imitation="legendonly"
        ),
        key="reward-pdw-signatures",
        download="pdw_kiani_shadlen",
    )
    st.caption(
        "Thin lines: each reward-trained seed; thick: the mean. The imitation ceiling "
        "(the same network "
        "imitating the ideal observer, post hoc) is listed in the legend: click it to draw it."
    )
    left, right = st.columns(2)
    curves = study.frames.get("pdw_curves.csv")
    with left:
        figure(
            training_curve_figure(curves, "plain_gru"),
            key="reward-pdw-curve-gru",
            download="pdw_curve_plain_gru",
        )
    with right:
        figure(
            training_curve_figure(curves, "b2_ws"),
            key="reward-pdw-curve-b2",
            download="pdw_curve_b2",
        )


def cell_of(side: str, factor: str) -> str:
    """The explorer cell one change from ``side`` ("S" or "O"): ``"S"``, ``"S-entropy"``,
    ``"O+baseline"``..."""
    return side if not factor else f"{side}{'-' if side == 'S' else '+'}{factor}"


def level_text(factor: str, which: int) -> str:
    """A factor's Song (0) or old (1) level in words, from the explorer's registered levels."""
    _, value = next(iter(data_reward.EXPLORER_LEVELS[factor][which].items()))
    return f"{value:g}" if isinstance(value, int | float) else str(value)


@st.fragment
def explorer_section(page: str, keys: Sequence[str]) -> None:
    """The reward explorer: pick a cell (a starting point and one change), see its curves and
    every agent's S1."""
    st.subheader("The reward explorer: which training choice keeps the sure option?")
    study = data_reward.pdw_sweep_study()
    if study_problems(study, "reward explorer (protocol 8.7)", SWEEP_COMMAND):
        return
    summary = study.summary
    cells = summary.get("cells") or {}
    cell = controls.value(page, "explorer_cell")
    side_key, factor_key = (
        controls.key(page, "explorer_side"),
        controls.key(page, "explorer_factor"),
    )
    if (
        st.session_state.get("_reward.explorer_shown") != cell
    ):  # a link (or the first run) chose the cell
        st.session_state[side_key] = cell[0]
        st.session_state[factor_key] = cell[2:]
    left, right = st.columns([2, 3])
    side = controls.segmented(
        left,
        "Start from",
        ["S", "O"],
        page,
        "explorer_side",
        fallback="S",
        format_func={"S": "Song's setting (S)", "O": "our old default (O)"}.get,
        help="Every factor at Song et al.'s level, or at the level of our first NeuroGym "
        "study (protocol 8.6).",
    )
    frm, to = (0, 1) if side == "S" else (1, 0)
    right.selectbox(
        "...and change one training choice",
        ["", *data_reward.EXPLORER_FACTORS],
        key=factor_key,
        format_func=lambda f: (
            "nothing"
            if not f
            else f"{f.replace('_', ' ')}: {level_text(f, frm)} → {level_text(f, to)}"
        ),
    )
    cell = cell_of(side, st.session_state[factor_key] or "")
    st.session_state[controls.key(page, "explorer_cell")] = cell
    st.session_state["_reward.explorer_shown"] = cell
    controls.publish(page, keys)
    outcome = cells.get(cell)
    if outcome is None:
        st.info(
            f"Cell `{cell}` is not in this set yet ({len(cells)} of 16 cells): "
            f"`{SWEEP_COMMAND}` resumes the "
            "explorer.",
            icon=":material/hourglass_empty:",
        )
    else:
        s1 = (outcome.get("s1") or {}).get("mean")
        keeps = {
            True: "**keeps** the sure option",
            False: "**loses** the sure option",
            None: "has no defined outcome",
        }[outcome.get("keeps")]
        st.markdown(
            f"Cell `{cell}` {keeps}: {outcome.get('n_keep')} of {outcome.get('n')} "
            "seeds keep it (S1 at "
            "least "
            f"{summary.get('config', {}).get('keeps_at', data_reward.EXPLORER_KEEPS_AT):g}); "
            "mean S1 "
            f"{number_text(s1, '{:+.3f}')}."
        )
    answer = summary.get("answer")
    if isinstance(answer, dict) and answer.get("text"):
        st.caption(f"The explorer's answer (all 16 cells): {answer['text']}")
    elif not summary.get("complete"):
        st.caption(
            f"The explorer is incomplete ({len(cells)} of 16 cells): which factor "
            "decides it is answered once "
            "every cell has run."
        )
    a, b = st.columns(2)
    with a:
        figure(
            training_curve_figure(
                study.frames.get("pdw_sweep_curves.csv"),
                "plain_gru",
                cell=cell,
                title=f"Cell {cell}: the sure option over training",
            ),
            key="reward-explorer-curve",
            download="explorer_cell_curve",
        )
    with b:
        figure(
            explorer_figure(
                study.frames.get("pdw_sweep.csv"),
                cell,
                data_reward.EXPLORER_CELLS,
                float(summary.get("config", {}).get("keeps_at", data_reward.EXPLORER_KEEPS_AT)),
            ),
            key="reward-explorer-s1",
            download="explorer_s1",
        )


def live_sure_option() -> None:
    """Train Song et al.'s plain GRU from NeuroGym's reward now, choosing three of its training
    choices."""
    st.subheader("Watch it learn: train a plain GRU from reward now")
    budget = data_reward.LIVE_SURE_OPTION
    st.markdown(
        "Song et al.'s network learns NeuroGym's wager from its reward alone, "
        f"{budget.sure_option_updates:,} "
        "updates of 64 trials at most (about 2 minutes on one core); every "
        f"{budget.sure_option_check_every} "
        f"updates it is checked on {budget.sure_option_heldout_trials} held-out "
        "trials. It stops early when "
        "protocol 8.7's criterion holds twice in a row. Choose three training choices "
        "(everything else is "
        "Song's); the run trains in the background, so the rest of the page keeps "
        "working. Nothing is saved."
    )
    c1, c2, c3, c4 = st.columns([3, 2, 2, 1])
    entropy = c1.select_slider(
        "Entropy bonus",
        [0.0, 0.003, 0.01, 0.02, 0.05],
        value=0.02,
        key="reward.sure_entropy",
        help="Song's: 0.02; our old default: 0.003. It keeps the policy exploring, "
        "so an option that pays only on weak evidence can still be found.",
    )
    readout = c2.radio(
        "Readout initialisation",
        ["zero", "default"],
        key="reward.sure_readout",
        format_func={"zero": "zero (Song's)", "default": "PyTorch's (old default)"}.get,
        help="Zero: the first policy is uniform over fixate, left, right and sure.",
    )
    scale = c3.radio(
        "Input scale",
        [10.0, 1.0],
        key="reward.sure_scale",
        format_func={10.0: "x10 (Song's)", 1.0: "x1 (old default)"}.get,
        help="The input weights multiplied at initialisation: how loud the evidence is at first.",
    )
    seed = c4.selectbox("Seed", list(range(5)), key="reward.sure_seed")
    run = st.session_state.get(SURE_RUN)
    busy = run is not None and run.running
    if st.button("Train and watch", type="primary", disabled=busy, icon=":material/play_arrow:"):
        started = live_run.start(int(seed), data_reward.sure_option_config(entropy, readout, scale))
        if started is None:
            st.warning(
                f"{live_run.MAX_RUNS} live runs are training on this server already "
                "(its 2 cores are shared); "
                "try again in a minute."
            )
        else:
            st.session_state[SURE_RUN] = run = started
    sure_run_view(run is not None and run.running)


def sure_run_view(polling: bool) -> None:
    """The live run's progress and curves, redrawn every second while it trains (a fragment)."""

    @st.fragment(run_every=1.0 if polling else None)
    def view() -> None:
        run = st.session_state.get(SURE_RUN)
        if run is None:
            return
        total, done = run.cfg.max_updates, run.done_updates
        if run.running:
            st.progress(
                min(done / total, 1.0),
                text=f"update {done:,} of at most {total:,} · {run.elapsed:.0f} s"
                + ("" if run.history else " · drawing its training trials"),
            )
            if st.button("Stop the run", key="reward.sure_stop"):
                run.stop_requested.set()
        elif run.error:
            st.warning(f"The run ended early: {run.error}.")
        else:
            how = (
                "the criterion held twice in a row"
                if run.record["stopped"] == "criterion"
                else "it reached its budget"
            )
            st.success(f"Done in {run.elapsed:.0f} s: {run.record['updates']:,} updates ({how}).")
        reference, name, met = data_reward.reference_curves(run.cfg)
        figure(
            live_curve_figure(
                run.history, reference, budget=total, reference_name=name or "bundled runs"
            ),
            key="reward-sure-live",
        )
        if met and max(met) > total:
            st.caption(
                f"In the bundled runs of {name.split(' (')[0]} the criterion (the sure "
                "option back near the "
                "ideal observer's rate, accuracy at least 0.80) held after "
                f"{min(met):,}-{max(met):,} updates, "
                f"more than this run's budget of {total:,} for some seeds: where your "
                "curve ends, the dashed "
                "one shows where the sure option came back."
            )
        elif reference is None:
            st.caption("No bundled curve to compare with: the reproduction has not been run yet.")
        if polling and not run.running:
            st.rerun()  # the whole page once more, so the timer stops

    view()


def interval_text(value: dict, fmt: str = "{:+.3f}") -> str:
    """``mean (95% t interval low to high, n = N)`` of a study's seed mean ("undefined" for a
    missing mean)."""
    show = lambda x: "undefined" if x is None else fmt.format(x)  # noqa: E731
    low, high = (value.get("ci95") or [None, None])[:2]
    if low is None or high is None:
        return f"{show(value.get('mean'))} (n = {value.get('n')})"
    return (
        f"{show(value.get('mean'))} (95% t interval {show(low)} to {show(high)}, n = "
        f"{value.get('n')})"
    )


def neurogym_section() -> None:
    """The external task: NeuroGym's post-decision wager, agents trained from its reward alone."""
    st.subheader(
        "Older cell: NeuroGym's post-decision wager, default initialisation, 1,500 "
        "updates (protocol 8.6)"
    )
    st.caption(
        "Our first training on NeuroGym's task (A2C with a value head, PyTorch's "
        "initialisation, 1,500 updates "
        "of 256 trials), kept as registered. Song et al.'s training of the same task is above."
    )
    explain(
        what="NeuroGym's `PostDecisionWager-v0` (after Kiani & Shadlen 2009): a noisy "
        "display drifts left or right "
        "at one of six strengths (*coherence*, 0 to 51.2%); after a delay the agent "
        "chooses a side (+1 if right, "
        "0 if wrong). On half the trials a **sure option** is offered that always pays "
        "0.7. Monkeys, and "
        "networks trained from reward (Song, Yang & Wang 2017), take it more often the "
        "weaker the evidence. Our "
        "agents (E4's reward-trained architecture) learned this task from its payoff alone.",
        try_this="Compare the agents' sure-option curve (left) with the ideal observer's on the "
        "same trials, and "
        "read how much the sure option is worth to a perfect player.",
        theory="Choosing the sure option when the evidence is weak is a behavioural sign of "
        "knowing that one might "
        "be wrong. The question registered in docs/protocol.md sec. 8.6: does it "
        "emerge here from reward?",
    )
    study = data_reward.neurogym_study()
    if study.problems:
        st.error(
            "The NeuroGym study cannot be shown: "
            + " ".join(study.problems)
            + " Restore the shipped copy "
            "with `git checkout results/explore_neurogym`."
        )
        return
    summary, means = study.summary, study.summary["means"]
    reading = summary["reading"]
    mean = lambda key: means[key]["mean"]  # noqa: E731 - validated numbers (results.load_neurogym)
    with st.container(border=True):
        st.markdown(
            f"**Answer (exploratory, {reading['reward']['n']} seeds):** {summary['answer']}."
        )
        st.markdown(
            "- Sure option at 0 and 3.2% coherence minus at 25.6 and 51.2% (the "
            "registered reading): trained from "
            f"reward {interval_text(reading['reward'])}; the ideal observer "
            f"{interval_text(reading['ideal'])}.\n"
            "- Reward per trial: trained from reward "
            f"{interval_text(means['reward_reward'], '{:.3f}')}; the ideal "
            f"observer {mean('ideal_reward'):.3f}, or "
            f"{mean('ideal_no_sure_reward'):.3f} if it never took the sure "
            "option. The sure option is worth only "
            f"{mean('ideal_reward') - mean('ideal_no_sure_reward'):.3f} per "
            "trial even to a perfect player.\n"
            "- The policy's probability of the sure option never exceeds "
            f"{mean('reward_max_p_sure'):.1e} (mean over "
            "seeds of each agent's largest value), so its Type-2 AUROC "
            f"({interval_text(means['reward_auroc_opt_out'], '{:.2f}')}) ranks numbers "
            "too small ever to be acted "
            "on: not a usable sign of knowing."
        )
    if (
        reading["reward"].get("rises") is False
    ):  # the diagnosis explains a failure; shown only with one
        why_box(study)
    figure(sure_curve_figure(study.table), key="reward-neurogym", download="neurogym_sure_option")
    figure(
        sure_propensity_figure(study.curves),
        key="reward-neurogym-early",
        download="neurogym_sure_probability",
    )


def why_box(study: NeuroGymStudy) -> None:
    """The post-hoc diagnosis of why reward training does not produce the sure-option curve."""
    means, reading = study.summary["means"], study.summary["reading"]
    mean = lambda key: means[key]["mean"]  # noqa: E731 - validated numbers (results.load_neurogym)
    with st.container(border=True):
        st.markdown("**Why, as far as we found (post hoc, labelled so in the result files)**")
        early, others = (
            means["reward_p_sure_at_20"]["mean"],
            data_reward.early_not_offered(study.curves),
        )
        fall = (
            ""
            if early is None
            else (
                f"Its probability fell from {mean('reward_p_sure_start'):.2f} to "
                f"{early:.3f} within 20 updates on trials "
                "offering it"
                + ("" if others is None else f" and to {others:.3f} on the others")
                + " (seed means; figure "
                "below). "
            )
        )
        st.markdown(
            "- *Not the architecture.* The same network trained to **imitate** the "
            "ideal observer takes the sure "
            f"option on {interval_text(means['imitation_sure_rate'], '{:.1%}')} of the "
            "trials offering it, and its "
            f"curve falls with coherence like the ideal observer's (low minus high: "
            f"{interval_text(reading['imitation'])}), earning "
            f"{mean('imitation_reward'):.3f} per trial.\n"
            "- *Learning gives it up before it can pay.* Early on, before the agent "
            "reads the sure cue, the sure "
            "option earns 0.7 on half the trials and costs 0.1 on the other half, an "
            "average of 0.3, less than a "
            f"guessed side (0.5). {fall}"
            + (
                (
                    "Once it is gone it is not tried again, so its worth on weak-evidence "
                    "trials is never discovered. "
                )
                if mean("reward_max_p_sure") < 0.01
                else ""
            )
            + (
                "A far larger entropy bonus did not keep it alive in a one-seed check (the "
                "protocol's change log)."
            )
        )
        st.caption(
            f"Generated from `{study.directory.name}/summary.json`; every agent measured on "
            f"{study.summary['config']['eval_trials']:,} held-out NeuroGym trials; "
            "`python -m labcore explore "
            "neurogym` regenerates it. The paper has no number here."
        )
