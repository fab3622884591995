"""The report's figures: for each, how to build it from a result set, what it shows, the
claims its caption lists, and which data-driven sentences of "what we found"
(:mod:`labcore.figures.findings`) it carries.

Used by the HTML report (:mod:`labcore.report`) and the Replication page. Every number in the
prose comes from the result files or from the paper's table
(:data:`labcore.paper_claims.CLAIMS_BY_ID`); none is typed here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go

from labcore.experiments.e4 import ARMS
from labcore.experiments.paper_results import ResultSet
from labcore.figures.findings import _masking, _points, finder
from labcore.figures.live import confidence_histogram
from labcore.figures.paper_e1 import (
    fig1a_accuracy_and_auroc,
    fig1b_type2_roc,
    fig1c_calibration,
    fig1d_risk_coverage,
    logits_control,
    trial_curves,
)
from labcore.figures.paper_e2 import (
    dnrs_by_scale,
    fig2a_conjunction_by_capacity,
    fig2b_dual_task_cost,
    fig2c_masking_traces,
    gbi_and_ignition_by_capacity,
)
from labcore.figures.paper_e3 import (
    fig3a_l75,
    fig3b_marker_correlations,
    fig3c_titration,
    fig4_attribution,
    table3_pci,
)
from labcore.figures.paper_e4 import arms_figure, learning_curves
from labcore.paper_claims import CLAIMS_BY_ID

EXPERIMENT_TITLES = {
    "e1": "Experiment 1 (HOT): does metacognition depend on the self-model?",
    "e2": "Experiment 2 (GWT): does workspace capacity determine access?",
    "e3": "Experiment 3: noise robustness, complexity and composite markers",
    "e4": "Experiment 4 (beyond the paper): does metacognition emerge from reward alone?",
}
EXPERIMENT_INTROS = {
    "e1": (
        "One trained agent (B2, policy reading the workspace) walks a T-maze, sees a "
        "brief noisy cue, "
        "chooses a side and says how confident it is. We run the same trials five "
        "ways: intact, with its "
        "self-model (z_self) zeroed, with its workspace switched off, and with z_self "
        "replaced by noise or "
        "shuffled between trials. The question: can we remove the agent's knowledge of "
        "whether it is right "
        "(metacognition) while its choices stay as good as before (paper sec. 5.1)?"
    ),
    "e2": (
        "A workspace agent (B1) must hold a colour and an object through a delay with "
        "distractors and "
        "report both. Cues reach it only through its workspace. We shrink the "
        "workspace from 4 slots to 0 "
        "(bus off) and compare with two agents that have no workspace at all (A0, A1). "
        "The question: does "
        "the amount of workspace decide what the agent can report (paper sec. 5.2)?"
    ),
    "e3": (
        "Eleven agent kinds do the same dual task while we add noise inside them, to "
        "their workspace "
        "slots (or, for agents without one, to their recurrent state). L75 is the "
        "noise level at which "
        "accuracy falls to 75%: higher means more robust. We also measure the "
        "perturbational complexity "
        "PCI-A and ask whether markers (GBI, ΔPCI, Type-2 AUROC) predict how much "
        "accuracy an agent "
        "loses on an unseen, longer delay (the OOD gap) (paper sec. 5.3)."
    ),
    "e4": (
        "The paper leaves open whether calibrated metacognition can be learned from "
        "reward alone, without "
        "labels of right and wrong (its sec. 6.6). Agents of E1's family learn their "
        "actions by imitation "
        "as before, but their confidence learns only from the wager's payoff (+1 for a "
        "right bet, -1 for a "
        "wrong one, 0 for opting out); E1's supervised agent is the reference. "
        "Hypotheses H1-H6 were "
        "registered before any such agent was trained (docs/protocol.md sec. 8); the "
        "paper has no number for "
        "any of them."
    ),
}


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: how to build it and what its caption says."""

    slug: str
    experiment: str
    title: str
    build: Callable[[ResultSet], go.Figure]
    what: str
    """What you are looking at (plain language, no numbers)."""
    claims: tuple[str, ...] = ()
    """Claims whose paper value / ours / verdict the caption lists."""
    paper_note: str = ""
    findings: Callable[[ResultSet], list[str]] | None = None
    """Extra data-driven sentences for "what we found" (numbers from the results)."""
    exploratory: bool = False


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig1a",
        "e1",
        "Fig. 1a: doing vs knowing",
        lambda r: fig1a_accuracy_and_auroc(r.seed_values),
        "Left: how often the agent chose the correct side in each condition (chance is "
        "0.5). Right: Type-2 "
        "AUROC, how well the agent's confidence tells its right choices from its wrong "
        "ones (0.5 means "
        "the confidence says nothing). Bars are our mean over seeds with ± 1 SD, dots "
        "are single seeds, "
        "hollow black diamonds are the paper's numbers.",
        (
            "e1.accuracy.self_on",
            "e1.accuracy.self_off",
            "e1.auroc.self_on",
            "e1.auroc.self_off",
            "e1.auroc.bus_off",
            "e1.auroc.blind_noise",
            "e1.auroc.blind_permute",
        ),
        findings=finder("fig1a"),
    ),
    FigureSpec(
        "fig1b",
        "e1",
        "Fig. 1b: Type-2 ROC curves",
        lambda r: fig1b_type2_roc(r.trials, r.seed_values),
        "Each curve sweeps a confidence threshold: the fraction of right choices above "
        "it (up) against "
        "the fraction of wrong choices above it (right). A curve along the diagonal "
        "means confidence is "
        "useless; a curve hugging the top-left corner means the agent knows when it is right.",
        ("e1.auroc.self_on", "e1.auroc.self_off"),
        findings=finder("fig1b"),
    ),
    FigureSpec(
        "fig1c",
        "e1",
        "Fig. 1c: calibration",
        lambda r: fig1c_calibration(r.trials),
        "Trials are grouped by confidence; each point shows the group's mean "
        "confidence and the fraction "
        "it got right (bigger points = more trials). A calibrated agent lies on the "
        "diagonal. An agent "
        "whose confidence never changes collapses to a single point.",
        ("e1.confidence.self_off",),
        findings=finder("fig1c"),
    ),
    FigureSpec(
        "fig1d",
        "e1",
        "Fig. 1d: wagering utility (risk-coverage)",
        lambda r: fig1d_risk_coverage(r.trials),
        "If the agent answered only when most confident, how often would it be wrong? "
        "Left end: only the "
        "most confident trials; right end: all trials. Lower curves are better; a flat line means "
        "confidence does not help pick the right trials.",
        (),
        paper_note="The paper shows this panel without a number (AURC of self-on lower than "
        "self-removed).",
        findings=finder("fig1d"),
    ),
    FigureSpec(
        "confidence_histogram",
        "e1",
        "Confidence on right and wrong trials",
        lambda r: confidence_histogram(
            trial_curves(r.trials),
            title="Confidence on right (green) and wrong (red) trials",
            paper_marks={"self_off": CLAIMS_BY_ID["e1.confidence.self_off"].paper.value},
        ),
        "For each condition, how often each confidence value occurred, separately for "
        "right and wrong "
        "choices. Good metacognition puts wrong trials at lower confidence than right "
        "ones. Above 0.5 the "
        "agent bets; at or below it opts out.",
        ("e1.confidence.self_off", "e1.skip.self_on", "e1.skip.bus_off"),
        findings=finder("confidence_histogram"),
    ),
    FigureSpec(
        "logits_control",
        "e1",
        "Control: metacognition from the logits alone (not in the paper)",
        lambda r: logits_control(r.seed_values),
        "Does the self-model know anything the policy does not? We compare the AUROC "
        "of its confidence "
        "with two confidences read directly from the intact policy's action "
        "probabilities at the choice "
        "point (the largest probability, and minus the entropy).",
        ("e1.auroc.self_on",),
        paper_note="The paper reports no such control.",
        findings=finder("logits_control"),
    ),
    FigureSpec(
        "fig2a",
        "e2",
        "Fig. 2a: conjunction accuracy by capacity",
        lambda r: fig2a_conjunction_by_capacity(r.capacity),
        "The fraction of episodes in which B1 reported both cues correctly, with 4, 2 "
        "and 0 workspace "
        "slots, and for the two agents without a workspace (A0, A1). The dashed line is chance.",
        ("e2.conjunction.k4", "e2.conjunction.k2", "e2.conjunction.k0", "e2.hedges_g.k4_vs_k2"),
        findings=finder("fig2a"),
    ),
    FigureSpec(
        "fig2b",
        "e2",
        "Fig. 2b: dual-task cost",
        lambda r: fig2b_dual_task_cost(r.capacity),
        "Three ways of scoring the same episodes at every capacity from 4 slots to 0: "
        "agreement with the "
        "expert at every step, accuracy at the two report steps, and both reports right.",
        (
            "e2.per_step.k4",
            "e2.per_step.k2",
            "e2.per_step.k0",
            "e2.per_step.a0",
            "e2.per_step.a1",
            "e2.decision.k4",
            "e2.decision.k2",
            "e2.decision.k0",
        ),
        findings=finder("fig2b"),
    ),
    FigureSpec(
        "fig2c",
        "e2",
        "Fig. 2c: backward masking",
        lambda r: fig2c_masking_traces(_masking(r)),
        "How much of the colour is still in the workspace at every step (1 = all of "
        "it, 0 = none), when a "
        "train of masks follows the cues. Measured by rerunning each episode with "
        "another colour and "
        "comparing the two workspaces (only the colour differs). Blue dashed lines: "
        "the two cues; orange "
        "dotted lines: the masks. Lines are means over seeds, bands ± 1 SD.",
        ("e2.masking.entry",),
        findings=finder("fig2c"),
    ),
    FigureSpec(
        "gbi_ignition",
        "e2",
        "GBI and ignition sharpness by capacity",
        lambda r: gbi_and_ignition_by_capacity(r.seed_values),
        "Left: the Global Broadcast Index computed exactly with the paper's equation. "
        "Middle: the same with "
        "negative slot-to-slot couplings set to 0 (an exploratory variant). Right: "
        "ignition sharpness, the "
        "steepest one-step rise of workspace activation. GBI needs at least two occupied slots.",
        ("e2.gbi.k4", "e2.gbi.k2", "e2.ignition.k4", "e2.ignition.k2", "e2.ignition.k0"),
        findings=finder("gbi_ignition"),
    ),
    FigureSpec(
        "dnrs",
        "e2",
        "ΔNRS by capacity scale",
        lambda r: dnrs_by_scale(r.seed_values),
        "Before any report is asked for, can a simple decoder read the cue from the "
        "agent's internal state? "
        "ΔNRS is the decoder's AUC minus that of the same decoder trained on shuffled "
        "labels: 0 means "
        "nothing decodable.",
        (
            "e2.dnrs.scale_0",
            "e2.dnrs.scale_0.25",
            "e2.dnrs.scale_0.5",
            "e2.dnrs.scale_0.75",
            "e2.dnrs.scale_1",
        ),
        findings=finder("dnrs"),
    ),
    FigureSpec(
        "fig3a",
        "e3",
        "Fig. 3a: noise tolerance L75",
        lambda r: fig3a_l75(r.seed_values),
        "Each point is one seed's L75: the noise level at which its report accuracy "
        "falls to 75%. Higher "
        "is more robust. Triangles pointing up are seeds that never fell to 75% within "
        "the tested range "
        "(their true L75 is above the largest tested noise). Squares: mean ± SD of the "
        "seeds that did "
        "cross. Left: noise stays in the stored workspace slots (our default); right: "
        "fresh noise is "
        "added only to the copy the agent reads.",
        (
            "e3.l75.b1",
            "e3.l75.b1_reg",
            "e3.l75.b1_noise",
            "e3.l75.b2",
            "e3.l75.b2_ws",
            "e3.l75.b1.read",
            "e3.l75.b2.read",
            "e3.accuracy.b1",
        ),
        findings=finder("fig3a"),
    ),
    FigureSpec(
        "fig3b",
        "e3",
        "Fig. 3b: marker correlations with the OOD gap",
        lambda r: fig3b_marker_correlations(_points(r), r.values),
        "Top: how strongly each marker goes along with the OOD gap (the accuracy an "
        "agent loses on an "
        "unseen, longer delay), over all agent kinds and seeds. Blue: the "
        "pre-registered analysis. Orange, "
        "hatched: an exploratory, post hoc analysis against a second shift (more masks "
        "than the workspace "
        "can hold). Bottom: the points behind the blue bars.",
        (
            "e3.composite.r2_gbi",
            "e3.composite.delta_r2_dpci",
            "e3.composite.r2_full",
            "e3.composite.r_loo_full",
            "e3.gbi.b1",
        ),
        findings=finder("fig3b"),
    ),
    FigureSpec(
        "fig3c",
        "e3",
        "Fig. 3c: noise titration curves",
        lambda r: fig3c_titration(r.titration, r.seed_values),
        "Report accuracy as noise inside the agent grows (stored protocol), mean over "
        "seeds with ± 1 SD "
        "band. The dashed line at 0.75 defines L75; markers on it show each agent's "
        "L75 (triangles: "
        "beyond or below the tested range), hollow black marks the paper's.",
        ("e3.l75.b1", "e3.l75.b2", "e3.l75.b2_ws"),
        findings=finder("fig3c"),
    ),
    FigureSpec(
        "fig4",
        "e3",
        "Fig. 4: attribution controls",
        lambda r: fig4_attribution(r.seed_values),
        "Is robustness due to any small bottleneck, or to the self-model? Left: "
        "workspace noise for B1, B2 "
        "and three 'BC-only' bottlenecks placed on the workspace. Right: noise in the "
        "recurrent state for "
        "the workspace agents and for the HOT-only agent (self-model but no workspace).",
        ("e3.l75.bc_mlp", "e3.accuracy.bc_mlp", "e3.l75.hot_only", "e3.accuracy.hot_only"),
        findings=finder("fig4"),
    ),
    FigureSpec(
        "table3",
        "e3",
        "Table 3: raw PCI-A",
        lambda r: table3_pci(r.seed_values),
        "After a brief pulse of noise inside the agent, the following trajectory is binarised and "
        "compressed; PCI-A is its compressed size relative to random data (1 = as "
        "complex as coin flips). "
        "The paper found lower values for the workspace agent than for the baselines "
        "(an 'inversion').",
        ("e3.pci_a.a0", "e3.pci_a.a1", "e3.pci_a.b1"),
        findings=finder("table3"),
    ),
)


def _e4_arms() -> list[str]:
    return [a.name for a in ARMS]


E4_FIGURES: tuple[FigureSpec, ...] = (  # E4 is beyond the paper: kept apart from its FIGURES
    FigureSpec(
        "e4_arms",
        "e4",
        "E4: supervised and reward-trained confidence, every arm",
        lambda r: arms_figure(r.seed_values, _e4_arms()),
        "Left: Type-2 AUROC, the chance that a right answer got more confidence than a "
        "wrong one (0.5: the "
        "confidence says nothing). Right: calibration error, how far confidence is "
        "from the share of right "
        "answers (0: calibrated). One bar per arm, mean over seeds, dots for the seeds.",
        (
            "e4.auroc.reward_wager.self_on",
            "e4.auroc.supervised.self_on",
            "e4.auroc_gap.reward_wager",
            "e4.ece.reward_wager.self_on",
            "e4.ece.supervised.self_on",
            "e4.auroc.reward_logits.self_on",
            "e4.auroc.reward_workspace.self_on",
            "e4.auroc.reward_late.self_on",
            "e4.auroc_meaningful.reward_late.self_on",
            "e4.auroc.reward_late_uncentred.self_on",
            "e4.auroc.reward_late_uncentred_sgd.self_on",
        ),
        findings=finder("e4_arms"),
    ),
    FigureSpec(
        "e4_curves",
        "e4",
        "E4: learning curves of the reward-trained confidence",
        lambda r: learning_curves(r.e4_curves),
        "Held-out Type-2 AUROC and wager reward at every evaluation during training "
        "(thick: mean over seeds; "
        'thin: each seed); the cells of "E4 again" every 5 updates of their wager '
        "phase. Seeds stop at "
        "different updates (the registered convergence rule). An AUROC whose "
        "confidence barely varies is not "
        "meaningful (protocol 8.8.4): the spread beside each point is in e4_curves.csv.",
        (
            "e4.skip.reward_wager.self_on",
            "e4.skip.supervised.self_on",
            "e4.skip_salience.reward_wager_risky",
            "e4.skip_salience.reward_late_risky",
        ),
    ),
)


# ----------------------------------------------------------------------- E3: the design study's
# answer
