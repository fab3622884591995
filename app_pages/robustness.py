"""Robustness (triangulation): latent noise, perturbational complexity and the composite."""

from functools import partial

import pandas as pd
import streamlit as st

from labcore.budgets import LIVE_BUDGETS
from labcore.config import NOISE_MODES
from labcore.figures.explore import design_titration_figure, e3_robustness_verdict
from labcore.figures.live import pci_bars, titration_figure
from labcore.figures.paper import fig3b_marker_correlations, titration_curves, titration_rows
from labcore.figures.style import label_of
from labcore.paper_claims import CLAIMS_BY_ID, l75_key
from labcore.render import answer, chance, chance_text, part
from labcore.storage.formatting import l75_point, l75_summary
from ui import controls, data, science
from ui.components import explain, figure, live_scope, metric, paper_value, verdict_box
from ui.predict import CHANGE_CHOICES, change_outcome, predict_then_reveal
from ui.state import MAX_NOISE, LabState, escape_markdown

PAGE = "robustness"
KEYS = (
    "agent",
    "seed",
    "noise",
    "noise_mode",
    "normalisation",
    "compare",
    "geometry",
    "loop",
    "gain",
    "schedule",
    "design_noise",
)
NOISE_MODE_LABELS = {
    "stored": "stored slots (noise accumulates)",
    "read": "read copy (fresh noise each step)",
}
NORMALISATION_LABELS = science.pci_normalisations()
DESIGN = science.e3_design_levels()  # the study's factors: geometry, loop, gain
SCHEDULES = ("fast", "paper", "paper_weighted")  # the design study's training schedules
VERDICT_CLAIMS = (
    ("e3.l75.b1", "B1's noise tolerance L75 (the paper: fragile)"),
    ("e3.l75.b2", "B2's L75 (the paper: robust)"),
    ("e3.l75.b2_ws", "B2 workspace-read's L75 (the paper: robust, so not the self-model alone)"),
    ("e3.l75.b1.read", "B1's L75 with fresh noise on the read copy"),
    ("e3.l75.b2.read", "B2's L75 with fresh noise on the read copy"),
    ("e3.pci_a.b1", "B1's raw PCI-A (the paper: below both baselines, the inversion)"),
    ("e3.composite.r2_gbi", "share of the OOD gap explained by GBI (R²)"),
)

st.title("Robustness — triangulation")
st.caption(
    "Experiment 3 of the paper: noise inside the agent, perturbational complexity, and "
    "a composite marker."
)
explain(
    what="Gaussian noise (SD sigma) is added **inside** the agent: into the workspace slots "
    "(or, for agents "
    "without a workspace, into the recurrent state). The curve shows how report "
    "accuracy falls as sigma "
    "grows; **L75** is the sigma at which it drops to 75%. Slot contents have SD 1, so "
    "sigma 0.3 is noise "
    "at 30% of the signal.",
    try_this="Slide the noise up for B1 and for B2 and compare. Switch the protocol: does it "
    "matter whether "
    "the noise sits in the memory or only in what is read? Then look at PCI-A: which design has "
    "the most complex echo after a poke, and does the normalisation change the ranking?",
    theory="The paper reports that a workspace alone *amplifies* noise (B1 collapses at sigma "
    f"{paper_value('e3.l75.b1')}) while the self-model family stays robust (L75 "
    f"{paper_value('e3.l75.b2')}), "
    "and that raw PCI-A is *lower* for the workspace agent. The verdict box below says "
    "what happens here.",
)

bundled = data.checked_results()
study = data.explore()


def verdict() -> None:
    """The bundled verdict, below the controls and the live result (about 900 px of it above the
    noise slider would leave a projector with no control on screen)."""
    verdict_box(
        "Verdict: does the paper's robustness hierarchy hold here?",
        bundled,
        VERDICT_CLAIMS,
        lead=data.once(bundled, "e3-robustness-verdict", lambda: e3_robustness_verdict(bundled)),
        why=[]
        if study.summary is None
        else [
            data.once(study, "answer-short", lambda: answer(study.summary, "short")),
            data.once(study, "answer-long", lambda: answer(study.summary, "long")),
        ],
        why_title="Why, from the E3 design study",
        why_shown=1,
    )


seeds = data.seeds_by_kind("dual")
if not seeds:
    st.error("No dual-task agents are available.")
    verdict()  # the bundled results need no agent
    st.stop()
groups = study.tables.groups if study.tables is not None else []
study_schedules = [s for s in SCHEDULES if s in {g.schedule for g in groups}] or ["fast"]
controls.init_state(
    PAGE,
    KEYS,
    agents=list(seeds),
    seeds=seeds,
    default=LabState(agent="b1"),
    options={"normalisation": list(NORMALISATION_LABELS), **DESIGN, "schedule": study_schedules},
)
c1, c2, c3, c4 = st.columns([2, 1, 2, 2])
kind, _ = controls.agent_seed_picker(PAGE, seeds, c1, c2)
seed = controls.value(PAGE, "seed")
model = data.checked_agent(
    "dual", kind, seed
)  # None: its error is shown, the bundled results still are
target = science.noise_target(model) if model is not None else None
results = bundled
titration = results.titration
summary = results.summary


@st.fragment
def noise_view() -> None:
    """The noise controls and what they change, the live accuracy and the titration chart: a
    switch reruns only this, not the verdicts, complexity and design study below."""
    c3.slider("Noise sigma", 0.0, MAX_NOISE, step=0.01, key=controls.key(PAGE, "noise"))
    c4.radio(
        "Noise protocol",
        NOISE_MODES,
        format_func=NOISE_MODE_LABELS.get,
        key=controls.key(PAGE, "noise_mode"),
    )
    controls.publish(PAGE, [k for k in KEYS if controls.key(PAGE, k) in st.session_state])
    sigma, noise_mode = (controls.value(PAGE, k) for k in ("noise", "noise_mode"))
    live = None
    if model is not None:
        live = data.noisy_accuracy(kind, seed, sigma, noise_mode, target)
        clean = data.noisy_accuracy(kind, seed, 0.0, noise_mode, target)
        revealed = predict_then_reveal(
            PAGE,
            f"{kind}/{seed}/{sigma:g}/{noise_mode}",
            f"With workspace noise of SD **{sigma:g}**, what will this agent's **report "
            "accuracy** do?",
            CHANGE_CHOICES,
            lambda: change_outcome(
                live, clean, chance("decision").value, tolerance=0.03, fmt="{:.1%}"
            ),
            active=sigma > 0,
        )
        controls.rerun_page_when_changed(PAGE, "revealed", revealed)  # the verdicts wait too
        if not revealed:
            # everything below gives the answer away: the live number, L75, the verdict and the
            # four charts, not the live number alone
            st.stop()
        live_scope(
            data.label(kind), seed, f"{data.TITRATION_EPISODES} episodes at this noise", bundled
        )
        m1, m2 = st.columns(2)
        metric(
            m1,
            "Report accuracy with this noise",
            live,
            fmt="{:.1%}",
            intact=clean if sigma > 0 else None,
            chance="decision",
            reference=f"{target} noise, {NOISE_MODE_LABELS[noise_mode]}; intact = no noise",
            help="Report-window decision accuracy of this agent and seed at this noise level "
            "(live).",
        )
        l75_claim = l75_key(kind, noise_mode)
        m2.metric(
            f"L75 of {label_of(kind)} (bundled, all seeds)",
            data.once(
                bundled,
                f"l75-summary/{l75_claim}",
                lambda: l75_summary(bundled.seed_values, l75_claim),
            ),
            help="The noise SD at which report accuracy falls to 75% (higher = more robust).",
        )
        m2.caption(
            " · ".join(
                [
                    f"paper: {paper_value(l75_claim)}"
                    if l75_claim in CLAIMS_BY_ID
                    else f"paper: not reported for {label_of(kind)} in this protocol",
                    f"verdict: {bundled.findings[l75_claim].verdict}"
                    if l75_claim in bundled.findings
                    else "no verdict",
                    f"threshold 75% accuracy; {chance_text('decision')}",
                ]
            )
        )
    if titration is not None:
        st.subheader("Noise titration (bundled results, all seeds)")
        agents_available = sorted(titration["agent"].unique())
        compare_key = controls.key(PAGE, "compare")
        wanted = list(st.session_state.get(compare_key, LabState().compare))
        if left_out := [a for a in wanted if a not in agents_available]:
            st.session_state[compare_key] = [a for a in wanted if a in agents_available]
            st.warning(
                escape_markdown(
                    f"Not in the bundled titration, so left out of the comparison: "
                    f"{', '.join(left_out)}."
                ),
                icon=":material/warning:",
            )
        elif not isinstance(st.session_state.get(compare_key), list):
            st.session_state[compare_key] = wanted
        chosen = st.multiselect(
            "Agents to compare", agents_available, key=compare_key, format_func=label_of
        )
        subset = partial(
            titration_rows,
            titration,
            chosen,
            noise_mode,
            "carrier" if target == "carrier" else None,
        )  # the rows drawn: selected when the figure is first built or the CSV is downloaded

        def titration_chart():
            """The bundled titration of the chosen agents, with the live setting's star."""
            curves = titration_curves(subset(), sorted(chosen))
            seed_values = results.seed_values
            l75, paper_l75 = {}, {}
            for agent_name in chosen:
                point = l75_point(seed_values, l75_key(agent_name, noise_mode))
                if point is not None:
                    l75[agent_name] = point
                claim = CLAIMS_BY_ID.get(l75_key(agent_name, noise_mode))
                if claim is not None:
                    paper_l75[agent_name] = claim.paper
            fig = titration_figure(curves, l75, paper_l75=paper_l75)
            if live is not None:
                fig.add_scatter(
                    x=[sigma],
                    y=[live],
                    mode="markers",
                    marker={"size": 14, "symbol": "star", "color": "black"},
                    name=f"live: {kind} seed {seed}",
                )
            return fig

        star = None if live is None else (kind, seed, sigma, live)
        figure(
            build=titration_chart,
            cache_key=(
                "e3-titration",
                str(results.directory),
                data.version(results),
                tuple(chosen),
                noise_mode,
                target,
                star,
            ),
            key="titration",
            download="titration",
        )
        st.download_button(
            "Download the titration data (CSV)",
            lambda: subset().to_csv(index=False),  # made when clicked
            file_name="titration.csv",
            mime="text/csv",
        )
        st.caption(
            "Points: mean over seeds (bands: SD). L75 marked where accuracy crosses 75%; a "
            "triangle at the "
            "right edge means it never did within the tested range (censored). The star is "
            "your live setting. "
            "Agents without a workspace (HOT-only, A0, A1) get the noise in their "
            "recurrent state instead."
        )


noise_view()

verdict()  # below the controls and the live result


@st.fragment
def complexity() -> None:
    """Perturbational complexity of every agent of this seed, in the chosen normalisation (its
    own fragment: the normalisation reruns only it)."""
    st.subheader("Perturbational complexity (PCI-A)")
    normalisation = st.selectbox(
        "Normalisation",
        list(NORMALISATION_LABELS),
        format_func=NORMALISATION_LABELS.get,
        key=controls.key(PAGE, "normalisation"),
        help="How the compressed size of the binarised trajectory is turned into a number. "
        "The paper's raw PCI-A uses the first.",
    )
    normalisation_label = NORMALISATION_LABELS[normalisation]
    kinds = [k for k in LIVE_BUDGETS.pci_kinds if k in seeds and seed in seeds[k]]
    usable = {
        k: model if k == kind else data.checked_agent("dual", k, seed) for k in kinds
    }  # one error per bad file
    with st.spinner("Poking every agent and compressing its echo..."):
        rows = [
            {
                "agent": k,
                **dict(zip(("pci", "dpci"), data.pci(k, seed, normalisation), strict=True)),
            }
            for k in kinds
            if usable[k] is not None
        ]
    table = pd.DataFrame(rows)
    if left_out := [label_of(k) for k in kinds if usable[k] is None]:
        st.warning(
            f"Left out of this comparison (seed {seed}), as their checkpoints cannot be loaded: "
            f"{', '.join(left_out)}.",
            icon=":material/warning:",
        )
    figure(
        build=lambda: pci_bars(
            table, normalisation_label, paper_normalisation=normalisation == "zlib", seed=seed
        ),
        cache_key=(
            "e3-pci",
            seed,
            normalisation,
            *(data.agent_file("dual", row["agent"], seed) for row in rows),
        ),
        key="pci",
        download="pci",
    )
    st.caption(
        f"One seed ({seed}) per agent, computed live: no spread is shown (the bundled "
        "results give the mean "
        "over seeds). A pulse (SD 1) is injected into the workspace (the recurrent "
        "state for agents without one) after "
        "both cues; the following trajectory is binarised and compressed. dPCI = mean "
        "complexity on correct "
        "minus wrong trials. A slot memory is constant between writes, so its "
        "trajectory compresses well: "
        "this alone makes the workspace agents' raw PCI-A low."
    )
    controls.publish(PAGE, [k for k in KEYS if controls.key(PAGE, k) in st.session_state])


complexity()

if summary is not None:
    st.subheader("Composite markers and the OOD gap (bundled results)")
    points = (data.once(results, "figures", lambda: results.figures).get("e3") or {}).get(
        "points", []
    )
    if points:
        figure(
            build=lambda: fig3b_marker_correlations(points, results.values),
            cache_key=("e3-composite", str(results.directory), data.version(results)),
            key="composite",
            download="composite",
        )
        # What each shift costs each kind, and what the overflow shift's R^2 reflects: the
        # result set's own numbers, in the paper template's words.
        with st.expander("What the shifts cost each agent, and what the R² reflects"):
            st.write(part(summary, "composite_shift", labels={k: label_of(k) for k in seeds}))


@st.fragment
def design_study() -> None:
    """The E3 design study: one design's titration beside its ideal observer's ceiling (its own
    fragment: the design's controls rerun only it)."""
    st.subheader("What decides robustness? The E3 design study")
    if study.tables is None:
        st.info(
            "The design study cannot be shown ("
            + "; ".join(study.problems)
            + "). Run `python -m labcore study e3_design --out results/explore_e3 --jobs 2 "
            "--set schedules=fast` to create it (about an hour on 2 cores)."
        )
    else:
        available = sorted({(g.cell, g.schedule) for g in groups})
        paper_cells = sorted({c for c, s in available if s == "paper"})
        st.caption(
            "B1, B2 and B2 workspace-read trained in 12 designs (write geometry x loop "
            "x readout gain), 5 seeds "
            "each; each agent's L75 beside the ceiling an ideal observer of its own "
            "workspace reaches "
            "(docs/protocol.md sec. 7). "
            + (
                f"On the paper's full online schedule: {', '.join(paper_cells)}. "
                if paper_cells
                else "The registered paper-schedule part (2 designs x 3 seeds, hours of "
                "training) has not been run yet: "
                "every agent here is trained on the fast schedule. "
            )
            + "Pick a design:"
        )
        f1, f2, f3, f4, f5 = st.columns(5)
        f1.selectbox(
            "Write geometry",
            DESIGN["geometry"],
            key=controls.key(PAGE, "geometry"),
            help="layernorm: slots normalised (as registered); raw: unnormalised; offset: "
            "normalised plus a shared cue-independent vector.",
        )
        f2.selectbox(
            "Loop",
            DESIGN["loop"],
            key=controls.key(PAGE, "loop"),
            help="closed: the workspace read feeds back into the recurrent state.",
        )
        f3.selectbox(
            "Readout gain",
            DESIGN["gain"],
            key=controls.key(PAGE, "gain"),
            format_func="{:g}".format,
            help="The readouts see the slots times this.",
        )
        geometry, loop, gain = (controls.value(PAGE, k) for k in ("geometry", "loop", "gain"))
        cell = f"{geometry}-{loop}-g{gain:g}"
        schedules = [s for s in SCHEDULES if (cell, s) in available] or ["fast"]
        schedule_key = controls.key(PAGE, "schedule")
        if st.session_state.get(schedule_key) not in schedules:
            if st.session_state.get(schedule_key) is not None:
                st.warning(
                    f"Design {cell} has no {st.session_state[schedule_key]}-schedule "
                    "agents; showing "
                    f"{schedules[0]}.",
                    icon=":material/warning:",
                )
            st.session_state[schedule_key] = schedules[0]
        schedule = f4.selectbox(
            "Training schedule",
            schedules,
            key=schedule_key,
            help=(
                "fast: the lab's convergence rule; paper: 8,000 episodes online, one "
                "update per step."
            ),
        )
        protocol = f5.selectbox(
            "Noise protocol",
            list(NOISE_MODES),
            format_func=NOISE_MODE_LABELS.get,
            key=controls.key(PAGE, "design_noise"),
        )
        figure(
            build=lambda: design_titration_figure(study, cell, schedule, protocol),
            cache_key=(
                "e3-design",
                str(study.directory),
                data.version(study),
                cell,
                schedule,
                protocol,
            ),
            key="study",
            download="design_study",
        )
        table = pd.DataFrame(
            [
                {
                    "agent": label_of(k),
                    **{
                        col: getattr(g, col)
                        for col in (
                            "l75",
                            "ceiling",
                            "efficiency",
                            "jacobian",
                            "gbi_abs",
                            "accuracy",
                            "n",
                        )
                    },
                }
                for k in ("b1", "b2", "b2_ws")
                if (g := study.tables.group(cell, schedule, protocol, k))
            ]
        )
        if not table.empty:
            st.dataframe(
                table.rename(
                    columns={
                        "l75": "median L75",
                        "ceiling": "ceiling (ideal observer)",
                        "efficiency": "L75 / ceiling",
                        "jacobian": "bus Jacobian",
                        "gbi_abs": "GBI (|cos|)",
                        "accuracy": "clean accuracy",
                        "n": "seeds",
                    }
                ),
                hide_index=True,
                width="stretch",
            )
        st.caption(
            "L75 values at the largest tested sigma (1.0) mean accuracy never fell to "
            "75%. An efficiency near 1 "
            "means the code, not the readout, limits robustness; far below 1, the "
            "readout amplifies the noise."
        )
    controls.publish(PAGE, [k for k in KEYS if controls.key(PAGE, k) in st.session_state])


design_study()
