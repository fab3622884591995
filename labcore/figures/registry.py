"""The report's figures: for each, how to build it from a result set, what it shows, the
claims its caption lists, and the data-driven sentences of "what we found".

Used by the HTML report (:mod:`labcore.report`) and the Replication page. Every number in the
prose comes from the result files or from the paper's table (:data:`labcore.paper.CLAIMS_BY_ID`);
none is typed here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from labcore.experiments.e4 import ARMS
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
    FIG3A_AGENTS,
    fig3a_l75,
    fig3b_marker_correlations,
    fig3c_titration,
    fig4_attribution,
    table3_pci,
)
from labcore.figures.paper_e4 import arms_figure, learning_curves
from labcore.figures.style import E1_CONDITIONS, label_of
from labcore.markers.robustness import L75_THRESHOLD
from labcore.paper import CLAIMS_BY_ID, paper_text
from labcore.storage.formatting import finite, l75_summary, ours_text, seed_raw
from labcore.storage.results import Results

EXPERIMENT_TITLES = {
    "e1": "Experiment 1 (HOT): does metacognition depend on the self-model?",
    "e2": "Experiment 2 (GWT): does workspace capacity determine access?",
    "e3": "Experiment 3: noise robustness, complexity and composite markers",
    "e4": "Experiment 4 (beyond the paper): does metacognition emerge from reward alone?",
}
EXPERIMENT_INTROS = {
    "e1": (
        "One trained agent (B2, policy reading the workspace) walks a T-maze, sees a brief noisy cue, "
        "chooses a side and says how confident it is. We run the same trials five ways: intact, with its "
        "self-model (z_self) zeroed, with its workspace switched off, and with z_self replaced by noise or "
        "shuffled between trials. The question: can we remove the agent's knowledge of whether it is right "
        "(metacognition) while its choices stay as good as before (paper sec. 5.1)?"
    ),
    "e2": (
        "A workspace agent (B1) must hold a colour and an object through a delay with distractors and "
        "report both. Cues reach it only through its workspace. We shrink the workspace from 4 slots to 0 "
        "(bus off) and compare with two agents that have no workspace at all (A0, A1). The question: does "
        "the amount of workspace decide what the agent can report (paper sec. 5.2)?"
    ),
    "e3": (
        "Eleven agent kinds do the same dual task while we add noise inside them, to their workspace "
        "slots (or, for agents without one, to their recurrent state). L75 is the noise level at which "
        "accuracy falls to 75%: higher means more robust. We also measure the perturbational complexity "
        "PCI-A and ask whether markers (GBI, ΔPCI, Type-2 AUROC) predict how much accuracy an agent "
        "loses on an unseen, longer delay (the OOD gap) (paper sec. 5.3)."
    ),
    "e4": (
        "The paper leaves open whether calibrated metacognition can be learned from reward alone, without "
        "labels of right and wrong (its sec. 6.6). Agents of E1's family learn their actions by imitation "
        "as before, but their confidence learns only from the wager's payoff (+1 for a right bet, -1 for a "
        "wrong one, 0 for opting out); E1's supervised agent is the reference. Hypotheses H1-H6 were "
        "registered before any such agent was trained (docs/protocol.md sec. 8); the paper has no number for "
        "any of them."
    ),
}


def caption_number(x: Any, digits: int = 3) -> str:
    """A number for a caption; ``"undefined"`` for None / nan (never the string "nan")."""
    if not finite(x):
        return "undefined"
    x = float(x)
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
        return f"{x:.2e}"
    return f"{x:.{digits}g}"


def claim_paper_text(claim_id: str, res: Results | None = None) -> str:
    """The paper's value of a claim as text (:func:`labcore.paper.paper_text`)."""
    spec = CLAIMS_BY_ID.get(claim_id)
    if spec is not None:
        return paper_text(spec.paper)
    claim = (res.claims if res else {}).get(claim_id)
    return paper_text(claim.get("paper") or {}) if claim else "not reported"


def claim_ours_text(claim_id: str, res: Results) -> str:
    """Our value of a claim as text (:func:`labcore.storage.formatting.ours_text`), or of an auxiliary key."""
    claim = res.claims.get(claim_id)
    if claim is not None:
        return ours_text(claim.get("ours") or {})
    return caption_number(res.values.get(claim_id))


def value_of(res: Results, key: str) -> float:
    """An aggregated value of the result set as a float (nan if absent or undefined)."""
    v = res.values.get(key)
    return float(v) if finite(v) else math.nan


def claim_description(claim_id: str, res: Results) -> str:
    """A claim's description: from the result set, else from the paper's table, else its id."""
    claim = res.claims.get(claim_id)
    if claim and claim.get("description"):
        return str(claim["description"])
    spec = CLAIMS_BY_ID.get(claim_id)
    return spec.description if spec else claim_id


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the report: how to build it and what its caption says."""

    slug: str
    experiment: str
    title: str
    build: Callable[[Results], go.Figure]
    what: str
    """What you are looking at (plain language, no numbers)."""
    claims: tuple[str, ...] = ()
    """Claims whose paper value / ours / verdict the caption lists."""
    paper_note: str = ""
    findings: Callable[[Results], list[str]] | None = None
    """Extra data-driven sentences for "what we found" (numbers from the results)."""
    exploratory: bool = False


def _masking(res: Results) -> dict:
    e2 = res.figures.get("e2") or {}
    return {
        seed: v.get("masking") for seed, v in e2.items() if isinstance(v, Mapping) and v.get("masking")
    }


def _points(res: Results) -> list:
    return (res.figures.get("e3") or {}).get("points") or []


def _find_e1a(res: Results) -> list[str]:
    out = []
    on, off = value_of(res, "e1.accuracy.self_on"), value_of(res, "e1.accuracy.self_off")
    if finite(on) and finite(off) and abs(on - off) < 1e-12:
        out.append(
            "Accuracy is identical with and without the self-model: the policy reads the workspace, not "
            "z_self, so the no-rewire lesion cannot change a single choice (by design)."
        )
    acc, conf, sd = (value_of(res, f"e1.{k}.bus_off") for k in ("accuracy", "confidence", "confidence_sd"))
    if finite(acc) and finite(conf):
        text = (
            f"With the workspace off the agent is at accuracy {caption_number(acc)} (chance 0.5) while its mean "
            f"confidence is {caption_number(conf)} (SD across trials {caption_number(sd)})."
        )
        if conf > 0.5:
            text += (
                " It therefore bets on every wagered trial (skip fraction "
                f"{caption_number(value_of(res, 'e1.skip.bus_off'))}): confidently guessing, the outcome the paper "
                "argues against ('nothing contradicts me'). Its AUROC is still 0.5, because the "
                "confidence is constant."
            )
        out.append(text)
    return out


def _find_e1b(res: Results) -> list[str]:
    out = [
        "The curves pool the trials of all seeds; the right panel shows the per-seed AUROCs, which the "
        "verdicts use (the seed is the unit of analysis)."
    ]
    off = (res.claims.get("e1.auroc.self_off") or {}).get("ours") or {}
    if off.get("sd") == 0 and finite(off.get("mean")) and len(res.summary.get("seeds") or []) > 1:
        out.append(
            f"Every seed of the zeroed self-model has AUROC {caption_number(off['mean'])} exactly (a constant "
            "confidence), but each seed's constant differs, so the pooled curve can leave the diagonal "
            "slightly."
        )
    return out


def _find_e1c(res: Results) -> list[str]:
    out = []
    sd = value_of(res, "e1.confidence_sd.self_off")
    if finite(sd):
        out.append(
            f"Zeroed self-model: the confidence is {caption_number(value_of(res, 'e1.confidence.self_off'))} on "
            f"average, with SD {caption_number(sd)} across the trials of a seed (one constant per seed)."
        )
    return out


def _find_e1d(res: Results) -> list[str]:
    parts = [
        f"{label_of(c)} {caption_number(value_of(res, f'e1.aurc.{c}'))}"
        for c in E1_CONDITIONS
        if finite(value_of(res, f"e1.aurc.{c}"))
    ]
    util = [
        f"{label_of(c)} {caption_number(value_of(res, f'e1.utility.{c}'))}"
        for c in E1_CONDITIONS
        if finite(value_of(res, f"e1.utility.{c}"))
    ]
    out = []
    if parts:
        out.append("AURC, mean of per-seed values (lower is better): " + "; ".join(parts) + ".")
    if util:
        out.append(
            "Wagering utility, mean reward per wagered trial (+1 right bet, −1 wrong bet, 0 opt-out): "
            + "; ".join(util)
            + "."
        )
    return out


def _find_hist(res: Results) -> list[str]:
    parts = [
        f"{label_of(c)} {caption_number(value_of(res, f'e1.skip.{c}'))}"
        for c in E1_CONDITIONS
        if finite(value_of(res, f"e1.skip.{c}"))
    ]
    return ["Opt-out (skip) fraction on wagered trials: " + "; ".join(parts) + "."] if parts else []


def _find_logits(res: Results) -> list[str]:
    z, ms, ne = (
        value_of(res, k)
        for k in ("e1.auroc.self_on", "e1.auroc.logits_max_softmax", "e1.auroc.logits_neg_entropy")
    )
    if not any(finite(x) for x in (z, ms, ne)):
        return []
    text = (
        f"Type-2 AUROC of the confidence head {caption_number(z)}; of the policy's own logits: max softmax "
        f"{caption_number(ms)}, negative entropy {caption_number(ne)}."
    )
    if finite(z) and finite(ms) and ms >= z - 0.01:
        text += (
            " The logits alone carry as much metacognitive information as z_self: the self-model "
            "re-reads a signal that is already in the first-order policy."
        )
    return [text]


def _find_e2a(res: Results) -> list[str]:
    g, t, p, perm = (
        value_of(res, f"e2.{k}.k4_vs_k2") for k in ("hedges_g", "welch_t", "welch_p", "permutation_p")
    )
    out = []
    if finite(g):
        out.append(
            f"4 vs 2 slots (seed level): Welch t = {caption_number(t)}, p = {caption_number(p)}, Hedges' g = {caption_number(g)}, "
            f"permutation p = {caption_number(perm)}. With only {len(res.summary.get('seeds') or [])} seeds the "
            "smallest possible permutation p is bounded away from 0."
        )
    a0, a1 = value_of(res, "e2.conjunction.a0"), value_of(res, "e2.conjunction.a1")
    if finite(a0) or finite(a1):
        out.append(
            f"Conjunctions of the baselines without a workspace: A0 {caption_number(a0)}, A1 {caption_number(a1)} "
            "(chance 1/49 ≈ 0.02; the paper gives no number)."
        )
    return out


def _find_e2b(res: Results) -> list[str]:
    k4d, k4c = value_of(res, "e2.decision.k4"), value_of(res, "e2.conjunction.k4")
    out = []
    if finite(k4d) and finite(k4c):
        out.append(
            f"At 4 slots: decision accuracy {caption_number(k4d)}, conjunction {caption_number(k4c)}. A conjunction needs both "
            "reports right, so it can never exceed the decision accuracy; the paper's pair (conjunction "
            f"{claim_paper_text('e2.conjunction.k4')} vs decision {claim_paper_text('e2.decision.k4')}) breaks this "
            "(see 'Inconsistencies inside the paper')."
        )
    return out


def _find_masking(res: Results) -> list[str]:
    runs = list(_masking(res).values())
    if not runs:
        return []
    soa, count = runs[0].get("soa"), runs[0].get("count")
    out = [
        f"In this run the masks start {soa} steps after the colour cue and {count} of them follow, "
        "one per step "
        "(the task's default interval)."
    ]
    finals = {}
    for k in ("4", "2", "0"):
        traces = [r["traces"][k] for r in runs if r.get("traces", {}).get(k)]
        if traces:
            finals[k] = [sum(t[i] for t in traces) / len(traces) for i in range(len(traces[0]))]
    if "4" in finals and "2" in finals:
        first_mask = 0 + int(soa)
        def kept_until(trace):
            gone = [i for i, x in enumerate(trace) if i > first_mask - 1 and x < 0.5]
            return gone[0] if gone else None
        k4, k2 = kept_until(finals["4"]), kept_until(finals["2"])
        if k4 is not None and k2 is not None:
            out.append(
                f"With 4 slots the colour's trace falls below half at step {k4}; with 2 slots already at "
                f"step {k2}: with two cues stored first, the third mask finds no empty slot at 4 slots and "
                "the first mask at 2 slots (protocol sec. 2.5). The paper's single-cue design lost it at the 4th "
                "and 2nd mask.")
    if "0" in finals and not any(finals["0"]):
        out.append("With the bus off nothing is stored, so nothing can be retained: the trace is 0 by construction.")
    return out


def _find_gbi(res: Results) -> list[str]:
    out = []
    signed = value_of(res, "e2.gbi_signed.k4")
    if not finite(value_of(res, "e2.gbi.k4")) and finite(signed):
        out.append(
            "The paper's GBI equation presupposes non-negative couplings. Our slots are layer-normalised (zero "
            "mean), so their dot products are as often negative as positive, and the equation is not defined here "
            f"(computed anyway it averages {caption_number(signed)} at 4 slots: near-cancelling couplings make it "
            "divide by almost 0)."
        )
    a4, a2 = value_of(res, "e2.gbi_abs.k4"), value_of(res, "e2.gbi_abs.k2")
    if finite(a4):
        out.append(
            f"On |cosine| couplings GBI is {caption_number(a4)} at 4 slots (at most 2/3) and "
            f"{caption_number(a2)} at 2 slots, where it is 0 by construction: with two occupied slots one "
            "partner takes all the coupling."
        )
    levels = [value_of(res, f"e2.ignition.k{k}") for k in (4, 3, 2, 1)]
    if all(finite(x) for x in levels) and max(levels) - min(levels) < 1e-6:
        out.append(
            f"Ignition sharpness is {caption_number(levels[0])} at every capacity from 1 to 4 slots: each write is "
            "layer-normalised to the same size, so the first write always raises the RMS activation by 1/√K "
            "(0.5 for K = 4). It is fixed by construction, not a property of the agent; the E3 design study's "
            "agents with unnormalised writes are where it can vary."
        )
    return out


def _find_dnrs(res: Results) -> list[str]:
    parts = [
        f"scale {s}: {caption_number(value_of(res, f'e2.dnrs_secondary.scale_{s}'))}"
        for s in ("0", "0.25", "0.5", "0.75", "1")
    ]
    return ["Auxiliary (secondary cue, not in the paper): " + "; ".join(parts) + "."]


def _find_e3a(res: Results) -> list[str]:
    parts = [
        f"{label_of(a)} {l75_summary(res.seed_values, f'e3.l75.{a}.read')}"
        for a in FIG3A_AGENTS
        if seed_raw(res.seed_values, f"e3.l75.{a}.read")
    ]
    if not parts:
        return []
    return [
        "Read protocol, all five kinds: "
        + "; ".join(parts)
        + ". In the read protocol fresh noise hits only "
        "the copy that is read; in the stored protocol it stays in the slots and builds up over the delay."
    ]


def _find_e3b(res: Results) -> list[str]:
    out = []
    imputed = [k for k, v in res.values.items() if k.startswith("e3.auroc_imputed.") and finite(v)]
    if imputed and all(float(res.values[k]) == 1.0 for k in imputed):
        out.append(
            f"Type-2 AUROC was undefined for all {len(imputed)} agent kinds (no confidence head, or no "
            "wrong report to rank) and imputed as 0.5, the paper's convention: the AUROC term is a "
            "constant and cannot add anything to the regression."
        )
    sd = value_of(res, "e3.composite.gap_sd")
    if finite(sd):
        out.append(
            f"The registered OOD gap barely varies (SD {caption_number(sd)} over "
            f"{caption_number(value_of(res, 'e3.composite.n_points'))}"
            " points): most agents solve the longer delay perfectly."
        )
    r2o = value_of(res, "e3.explore.composite_overflow.r2_gbi")
    if finite(r2o):
        out.append(
            f"Exploratory (post hoc): against the overflow shift, GBI on |cosine| couplings alone gives R² = {caption_number(r2o)}. "
            "This is close to true by construction: overflowing the workspace hurts exactly the agents "
            "that have one, and GBI is 0 for those without."
        )
    return out


def _find_e3c(res: Results) -> list[str]:
    out = ["Agents without a workspace (A0, A1) are perturbed in their recurrent state instead."]
    low = [
        a
        for a in ("a0", "a1")
        if finite(value_of(res, f"e3.accuracy.{a}"))
        and value_of(res, f"e3.accuracy.{a}") <= L75_THRESHOLD
    ]
    if low:
        out.append(
            " and ".join(label_of(a) for a in low)
            + " answer at "
            + ", ".join(caption_number(value_of(res, f"e3.accuracy.{a}")) for a in low)
            + " accuracy without any noise (chance 1/7), so their L75 is "
            + ", ".join(l75_summary(res.seed_values, f"e3.l75.{a}") for a in low)
            + "."
        )
    return out


def _find_fig4(res: Results) -> list[str]:
    parts = [
        f"{label_of(a)} {claim_ours_text(f'e3.l75_carrier.{a}', res)}"
        for a in ("b1", "b2", "b2_ws")
        if finite(res.values.get(f"e3.l75_carrier.{a}"))
    ]
    return (
        [
            "Carrier noise, workspace agents (mean of seeds; censored seeds use the bound): "
            + "; ".join(parts)
            + "."
        ]
        if parts
        else []
    )


def _find_pci(res: Results) -> list[str]:
    agents = ("a0", "a1", "b1", "b2", "hot_only")
    parts = [
        f"{label_of(a)} {caption_number(value_of(res, f'e3.pci_a_evoked.{a}'))}"
        for a in agents
        if finite(value_of(res, f"e3.pci_a_evoked.{a}"))
    ]
    out = []
    if parts:
        out.append("Evoked PCI-A (difference from the unperturbed run): " + "; ".join(parts) + ".")
    ws = [
        value_of(res, f"e3.pci_a_evoked.{a}")
        for a in (
            "b1",
            "b1_reg",
            "b1_noise",
            "b2",
            "b2_ws",
            "bc_linear",
            "bc_mlp",
            "bc_random",
        )
    ]
    ws = [w for w in ws if finite(w)]
    if len(ws) > 2 and max(ws) - min(ws) < 1e-12:
        out.append(
            f"Evoked PCI-A is identical ({caption_number(ws[0])}) for every workspace agent. This points to the "
            "write gate: stored slots change only when a cue or mask is written, so the pulse's imprint does "
            "not depend on the agent; the low raw PCI-A of workspace agents (piecewise-constant slots) is "
            "then largely a property of the bus design rather than of what the agent learned."
        )
    return out


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig1a",
        "e1",
        "Fig. 1a: doing vs knowing",
        lambda r: fig1a_accuracy_and_auroc(r.seed_values),
        "Left: how often the agent chose the correct side in each condition (chance is 0.5). Right: Type-2 "
        "AUROC, how well the agent's confidence tells its right choices from its wrong ones (0.5 means "
        "the confidence says nothing). Bars are our mean over seeds with ± 1 SD, dots are single seeds, "
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
        findings=_find_e1a,
    ),
    FigureSpec(
        "fig1b",
        "e1",
        "Fig. 1b: Type-2 ROC curves",
        lambda r: fig1b_type2_roc(r.trials, r.seed_values),
        "Each curve sweeps a confidence threshold: the fraction of right choices above it (up) against "
        "the fraction of wrong choices above it (right). A curve along the diagonal means confidence is "
        "useless; a curve hugging the top-left corner means the agent knows when it is right.",
        ("e1.auroc.self_on", "e1.auroc.self_off"),
        findings=_find_e1b,
    ),
    FigureSpec(
        "fig1c",
        "e1",
        "Fig. 1c: calibration",
        lambda r: fig1c_calibration(r.trials),
        "Trials are grouped by confidence; each point shows the group's mean confidence and the fraction "
        "it got right (bigger points = more trials). A calibrated agent lies on the diagonal. An agent "
        "whose confidence never changes collapses to a single point.",
        ("e1.confidence.self_off",),
        findings=_find_e1c,
    ),
    FigureSpec(
        "fig1d",
        "e1",
        "Fig. 1d: wagering utility (risk-coverage)",
        lambda r: fig1d_risk_coverage(r.trials),
        "If the agent answered only when most confident, how often would it be wrong? Left end: only the "
        "most confident trials; right end: all trials. Lower curves are better; a flat line means "
        "confidence does not help pick the right trials.",
        (),
        paper_note="The paper shows this panel without a number (AURC of self-on lower than "
        "self-removed).",
        findings=_find_e1d,
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
        "For each condition, how often each confidence value occurred, separately for right and wrong "
        "choices. Good metacognition puts wrong trials at lower confidence than right ones. Above 0.5 the "
        "agent bets; at or below it opts out.",
        ("e1.confidence.self_off", "e1.skip.self_on", "e1.skip.bus_off"),
        findings=_find_hist,
    ),
    FigureSpec(
        "logits_control",
        "e1",
        "Control: metacognition from the logits alone (not in the paper)",
        lambda r: logits_control(r.seed_values),
        "Does the self-model know anything the policy does not? We compare the AUROC of its confidence "
        "with two confidences read directly from the intact policy's action probabilities at the choice "
        "point (the largest probability, and minus the entropy).",
        ("e1.auroc.self_on",),
        paper_note="The paper reports no such control.",
        findings=_find_logits,
    ),
    FigureSpec(
        "fig2a",
        "e2",
        "Fig. 2a: conjunction accuracy by capacity",
        lambda r: fig2a_conjunction_by_capacity(r.capacity),
        "The fraction of episodes in which B1 reported both cues correctly, with 4, 2 and 0 workspace "
        "slots, and for the two agents without a workspace (A0, A1). The dashed line is chance.",
        ("e2.conjunction.k4", "e2.conjunction.k2", "e2.conjunction.k0", "e2.hedges_g.k4_vs_k2"),
        findings=_find_e2a,
    ),
    FigureSpec(
        "fig2b",
        "e2",
        "Fig. 2b: dual-task cost",
        lambda r: fig2b_dual_task_cost(r.capacity),
        "Three ways of scoring the same episodes at every capacity from 4 slots to 0: agreement with the "
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
        findings=_find_e2b,
    ),
    FigureSpec(
        "fig2c",
        "e2",
        "Fig. 2c: backward masking",
        lambda r: fig2c_masking_traces(_masking(r)),
        "How much of the colour is still in the workspace at every step (1 = all of it, 0 = none), when a "
        "train of masks follows the cues. Measured by rerunning each episode with another colour and "
        "comparing the two workspaces (only the colour differs). Blue dashed lines: the two cues; orange "
        "dotted lines: the masks. Lines are means over seeds, bands ± 1 SD.",
        ("e2.masking.entry",),
        findings=_find_masking,
    ),
    FigureSpec(
        "gbi_ignition",
        "e2",
        "GBI and ignition sharpness by capacity",
        lambda r: gbi_and_ignition_by_capacity(r.seed_values),
        "Left: the Global Broadcast Index computed exactly with the paper's equation. Middle: the same with "
        "negative slot-to-slot couplings set to 0 (an exploratory variant). Right: ignition sharpness, the "
        "steepest one-step rise of workspace activation. GBI needs at least two occupied slots.",
        ("e2.gbi.k4", "e2.gbi.k2", "e2.ignition.k4", "e2.ignition.k2", "e2.ignition.k0"),
        findings=_find_gbi,
    ),
    FigureSpec(
        "dnrs",
        "e2",
        "ΔNRS by capacity scale",
        lambda r: dnrs_by_scale(r.seed_values),
        "Before any report is asked for, can a simple decoder read the cue from the agent's internal state? "
        "ΔNRS is the decoder's AUC minus that of the same decoder trained on shuffled labels: 0 means "
        "nothing decodable.",
        (
            "e2.dnrs.scale_0",
            "e2.dnrs.scale_0.25",
            "e2.dnrs.scale_0.5",
            "e2.dnrs.scale_0.75",
            "e2.dnrs.scale_1",
        ),
        findings=_find_dnrs,
    ),
    FigureSpec(
        "fig3a",
        "e3",
        "Fig. 3a: noise tolerance L75",
        lambda r: fig3a_l75(r.seed_values),
        "Each point is one seed's L75: the noise level at which its report accuracy falls to 75%. Higher "
        "is more robust. Triangles pointing up are seeds that never fell to 75% within the tested range "
        "(their true L75 is above the largest tested noise). Squares: mean ± SD of the seeds that did "
        "cross. Left: noise stays in the stored workspace slots (our default); right: fresh noise is "
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
        findings=_find_e3a,
    ),
    FigureSpec(
        "fig3b",
        "e3",
        "Fig. 3b: marker correlations with the OOD gap",
        lambda r: fig3b_marker_correlations(_points(r), r.values),
        "Top: how strongly each marker goes along with the OOD gap (the accuracy an agent loses on an "
        "unseen, longer delay), over all agent kinds and seeds. Blue: the pre-registered analysis. Orange, "
        "hatched: an exploratory, post hoc analysis against a second shift (more masks than the workspace "
        "can hold). Bottom: the points behind the blue bars.",
        (
            "e3.composite.r2_gbi",
            "e3.composite.delta_r2_dpci",
            "e3.composite.r2_full",
            "e3.composite.r_loo_full",
            "e3.gbi.b1",
        ),
        findings=_find_e3b,
    ),
    FigureSpec(
        "fig3c",
        "e3",
        "Fig. 3c: noise titration curves",
        lambda r: fig3c_titration(r.titration, r.seed_values),
        "Report accuracy as noise inside the agent grows (stored protocol), mean over seeds with ± 1 SD "
        "band. The dashed line at 0.75 defines L75; markers on it show each agent's L75 (triangles: "
        "beyond or below the tested range), hollow black marks the paper's.",
        ("e3.l75.b1", "e3.l75.b2", "e3.l75.b2_ws"),
        findings=_find_e3c,
    ),
    FigureSpec(
        "fig4",
        "e3",
        "Fig. 4: attribution controls",
        lambda r: fig4_attribution(r.seed_values),
        "Is robustness due to any small bottleneck, or to the self-model? Left: workspace noise for B1, B2 "
        "and three 'BC-only' bottlenecks placed on the workspace. Right: noise in the recurrent state for "
        "the workspace agents and for the HOT-only agent (self-model but no workspace).",
        ("e3.l75.bc_mlp", "e3.accuracy.bc_mlp", "e3.l75.hot_only", "e3.accuracy.hot_only"),
        findings=_find_fig4,
    ),
    FigureSpec(
        "table3",
        "e3",
        "Table 3: raw PCI-A",
        lambda r: table3_pci(r.seed_values),
        "After a brief pulse of noise inside the agent, the following trajectory is binarised and "
        "compressed; PCI-A is its compressed size relative to random data (1 = as complex as coin flips). "
        "The paper found lower values for the workspace agent than for the baselines (an 'inversion').",
        ("e3.pci_a.a0", "e3.pci_a.a1", "e3.pci_a.b1"),
        findings=_find_pci,
    ),
)




def _find_e4(res: Results) -> list[str]:
    """The outcome of each pre-registered E4 hypothesis (protocol 8.5), as the result set gives it."""
    return [str(h.get("reason", "")) for h in res.hypotheses.values() if h.get("reason")]


def _e4_arms() -> list[str]:
    return [a.name for a in ARMS]


E4_FIGURES: tuple[FigureSpec, ...] = (  # E4 is beyond the paper: kept apart from its FIGURES
    FigureSpec(
        "e4_arms",
        "e4",
        "E4: supervised and reward-trained confidence, every arm",
        lambda r: arms_figure(r.seed_values, _e4_arms()),
        "Left: Type-2 AUROC, the chance that a right answer got more confidence than a wrong one (0.5: the "
        "confidence says nothing). Right: calibration error, how far confidence is from the share of right "
        "answers (0: calibrated). One bar per arm, mean over seeds, dots for the seeds.",
        ("e4.auroc.reward_wager.self_on", "e4.auroc.supervised.self_on", "e4.auroc_gap.reward_wager",
         "e4.ece.reward_wager.self_on", "e4.ece.supervised.self_on", "e4.auroc.reward_logits.self_on",
         "e4.auroc.reward_workspace.self_on", "e4.auroc.reward_late.self_on",
         "e4.auroc_meaningful.reward_late.self_on", "e4.auroc.reward_late_uncentred.self_on",
         "e4.auroc.reward_late_uncentred_sgd.self_on"),
        findings=_find_e4,
    ),
    FigureSpec(
        "e4_curves",
        "e4",
        "E4: learning curves of the reward-trained confidence",
        lambda r: learning_curves(r.e4_curves),
        "Held-out Type-2 AUROC and wager reward at every evaluation during training (thick: mean over seeds; "
        "thin: each seed); the cells of \"E4 again\" every 5 updates of their wager phase. Seeds stop at "
        "different updates (the registered convergence rule). An AUROC whose confidence barely varies is not "
        "meaningful (protocol 8.8.4): the spread beside each point is in e4_curves.csv.",
        ("e4.skip.reward_wager.self_on", "e4.skip.supervised.self_on", "e4.skip_salience.reward_wager_risky",
         "e4.skip_salience.reward_late_risky"),
    ),
)


# ----------------------------------------------------------------------- E3: the design study's answer
