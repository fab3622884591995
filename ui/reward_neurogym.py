"""The "From reward alone" page's sections on NeuroGym's post-decision wager, each in a tab of the
page: Song et al.'s reproduction (the two signatures), the reward explorer, the live sure-option
run and the older protocol 8.6 cell.

Drawn by ``app_pages/reward.py``, which owns the page's URL state: each section takes the page's
name and its URL keys. The data come from :mod:`ui.data_reward`; every sentence stating a study's
result is rendered from its findings (:mod:`labcore.render`, the studies' templates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st

from labcore import render
from labcore.figures.pdw import (
    explorer_figure,
    kiani_shadlen_figure,
    live_curve_figure,
    sure_curve_figure,
    sure_propensity_figure,
    training_curve_figure,
)
from ui import controls, data, data_reward, live_run
from ui.components import explain, figure, findings_frame

if TYPE_CHECKING:
    from labcore.experiments.study import LoadedStudy

PDW_COMMAND = "python -m labcore study pdw --jobs 2"
SWEEP_COMMAND = "python -m labcore study pdw_sweep --jobs 2"
SURE_RUN = "reward.sure_run"
"""Session key of the live sure-option run."""


def study_problems(study: LoadedStudy, what: str, command: str) -> bool:
    """Show why a protocol 8.7 study cannot be drawn: not run yet (info) or damaged (one error).
    True if nothing can be drawn."""
    if study.summary is None and study.problems[:1] == ["summary.json is missing"]:
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
    return study.summary is None


def answer_lines(study: LoadedStudy) -> None:
    """A study's answer in at most 30 words, and its long form and findings one click away."""
    st.markdown(render.answer(study.summary, "short"))
    with st.expander("The answer in full, and every finding behind it"):
        st.markdown(render.answer(study.summary, "long"))
        findings_frame(study.summary.findings, paper=False)


HEADLINE = "Trained from reward alone: do networks take the sure option when unsure, as monkeys do?"
"""The page's headline plot's title."""
IMITATION_NOTE = (
    "Thin lines: each reward-trained seed; thick: the mean. The imitation ceiling (the same "
    "network imitating the ideal observer, post hoc) is listed in the legend: click it to draw it."
)


def headline() -> None:
    """The page's one headline plot: Kiani & Shadlen's pair for the networks Song et al.'s
    training taught from reward, their sampled choices (as registered), beside the ideal
    observer; nothing when the reproduction has not run (its tab says so)."""
    study = data_reward.pdw_study()
    if study.summary is None:
        return
    figure(
        build=lambda: kiani_shadlen_figure(
            study.frame("pdw_by_coherence"), imitation="legendonly", title=HEADLINE
        ),
        cache_key=("reward-headline", str(study.directory), data.version(study)),
        key="reward-headline",
        download="pdw_kiani_shadlen",
    )


@st.fragment
def signatures_section(page: str, keys: Sequence[str]) -> None:
    """The reproduction's answer, its networks' greedy choices on request, and the learning
    curves (their sampled choices are the page's headline plot)."""
    st.subheader("The two signatures, from reward alone (Song et al. 2017 reproduced)")
    st.caption(
        "Song et al.'s network (a plain GRU) and our B2 agent, each trained from NeuroGym's "
        "reward under Song et al.'s training."
    )
    study = data_reward.pdw_study()
    if study_problems(study, "reproduction of Song et al.", PDW_COMMAND):
        return
    answer_lines(study)
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
    if policy == "sampled":
        st.caption("The plot at the top of the page draws these sampled choices. " + IMITATION_NOTE)
    else:
        figure(
            build=lambda: kiani_shadlen_figure(
                study.frame("pdw_by_coherence"), policy=policy, imitation="legendonly"
            ),
            cache_key=(
                "reward-pdw-signatures",
                policy,
                str(study.directory),
                data.version(study),
            ),
            key="reward-pdw-signatures",
            download="pdw_kiani_shadlen_greedy",
        )
        st.caption(IMITATION_NOTE)
    left, right = st.columns(2)
    curves = study.frame("pdw_curves")
    with left:
        figure(
            build=lambda: training_curve_figure(curves, "plain_gru"),
            cache_key=(
                "reward-pdw-curve-gru",
                str(study.directory),
                data.version(study),
            ),
            key="reward-pdw-curve-gru",
            download="pdw_curve_plain_gru",
        )
    with right:
        figure(
            build=lambda: training_curve_figure(curves, "b2_ws"),
            cache_key=(
                "reward-pdw-curve-b2",
                str(study.directory),
                data.version(study),
            ),
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
    if study_problems(study, "reward explorer", SWEEP_COMMAND):
        return
    summary, tables = study.summary, study.tables
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
    answer_lines(study)
    left, right = st.columns([2, 3])
    side = controls.segmented(
        left,
        "Start from",
        ["S", "O"],
        page,
        "explorer_side",
        fallback="S",
        format_func={"S": "Song's setting (S)", "O": "our old default (O)"}.get,
        help="Every factor at Song et al.'s level, or at the level of our first NeuroGym training.",
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
    if tables is None or tables.cell(cell) is None:
        st.info(
            f"Cell `{cell}` is not in this set yet ({len(tables.cells) if tables else 0} of "
            f"{len(data_reward.EXPLORER_CELLS)} cells): `{SWEEP_COMMAND}` resumes the explorer.",
            icon=":material/hourglass_empty:",
        )
    else:
        st.markdown(render.part(summary, "cell", name=cell))
    a, b = st.columns(2)
    with a:
        figure(
            build=lambda: training_curve_figure(
                study.frame("pdw_sweep_curves"),
                "plain_gru",
                cell=cell,
                title=f"Cell {cell}: the sure option over training",
            ),
            cache_key=(
                "reward-explorer-curve",
                cell,
                str(study.directory),
                data.version(study),
            ),
            key="reward-explorer-curve",
            download="explorer_cell_curve",
        )
    with b:
        figure(
            build=lambda: explorer_figure(
                study.frame("pdw_sweep"),
                cell,
                data_reward.EXPLORER_CELLS,
                tables.keeps_at if tables is not None else data_reward.EXPLORER_KEEPS_AT,
            ),
            cache_key=(
                "reward-explorer-s1",
                cell,
                tables.keeps_at if tables is not None else None,
                str(study.directory),
                data.version(study),
            ),
            key="reward-explorer-s1",
            download="explorer_s1",
        )
    held_longer()


def held_longer() -> None:
    """The follow-up's held choices trained to Song's length (post hoc): whether and when the sure
    option came back, and each long cell's curves; nothing before those cells have run."""
    held = data_reward.pdw_held_study()
    longer = held.tables.long if held.tables is not None else []
    if not longer:
        return
    st.markdown("**Trained longer (post hoc).** " + render.part(held.summary, "trained_longer"))
    curves = held.frame(data_reward.SWEEP_CURVES.name)
    for column, cell in zip(st.columns(len(longer)), longer, strict=True):
        with column:
            figure(
                build=lambda name=cell.name: training_curve_figure(
                    curves,
                    "plain_gru",
                    cell=name,
                    title=f"Cell {name}: the sure option over training",
                ),
                cache_key=("reward-held", cell.name, str(held.directory), data.version(held)),
                key=f"reward-held-{cell.name}",
                download=f"held_{cell.choice}_long_curve",
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
        "the registered criterion holds twice in a row. Choose three training choices "
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


def neurogym_section() -> None:
    """The external task: NeuroGym's post-decision wager, agents trained from its reward alone."""
    st.subheader("Our first training on NeuroGym's task, kept as registered")
    st.caption(
        "The older cell, labelled by its training: A2C with a value head, PyTorch's default "
        "initialisation, 1,500 updates of 256 trials. Song et al.'s training of the same task is "
        "in the first tab."
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
        "be wrong. The question registered before this training ran: does it emerge here "
        "from reward?",
    )
    study = data_reward.neurogym_study()
    if study.summary is None or study.problems:
        st.error(
            "The NeuroGym study cannot be shown: "
            + "; ".join(study.problems)
            + ". Restore the shipped copy with `git checkout results/explore_neurogym`."
        )
        return
    summary = study.summary
    with st.container(border=True):
        st.markdown("**Answer (exploratory)**")
        answer_lines(study)
    if summary.answer.outcome != "rises":  # the diagnosis explains a failure; shown only with one
        with st.container(border=True):
            st.markdown("**Why, as far as we found (post hoc, labelled so in the result files)**")
            st.markdown(render.part(summary, "why"))
    figure(
        build=lambda: sure_curve_figure(study.frame("neurogym_by_coherence")),
        cache_key=("reward-neurogym", str(study.directory), data.version(study)),
        key="reward-neurogym",
        download="neurogym_sure_option",
    )
    figure(
        build=lambda: sure_propensity_figure(study.frame("neurogym_curves")),
        cache_key=(
            "reward-neurogym-early",
            str(study.directory),
            data.version(study),
        ),
        key="reward-neurogym-early",
        download="neurogym_sure_probability",
    )
