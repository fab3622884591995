"""The self-contained HTML report: every figure of the paper rebuilt from a result directory.

``write_report(result_dir)`` reads the files of the result contract (``summary.json``,
``e1_trials.csv``, ``e2_capacity.csv``, ``e3_titration.csv``, ``seed_values.csv``,
``figures.json``; see :mod:`labcore.results`), builds the figures with
:mod:`labcore.plots` and writes ``report.html`` atomically. The page works offline: plotly.js
is inlined once, in the page head. Any piece may be missing (an E1-only run, a lost file):
the figure is replaced by a short visible note and the rest of the report is written.

Every number in the captions comes from the result files or from the paper's reference
table (:data:`labcore.paper.CLAIMS_BY_ID`); none is typed here. All text is
HTML-escaped.

Run from the command line::

    python -m labcore.report results/bundled            # -> results/bundled/report.html
    python -m labcore.report results/bundled --out /tmp/r.html
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from labcore import plots
from labcore.io import atomic_write
from labcore.paper import CLAIMS_BY_ID, paper_text
from labcore.results import (
    EXPERIMENTS,
    Results,
    format_l75,
    load_results,
    ours_text,
    parse_l75,
    seed_raw,
)
from labcore.results import finite as _finite

__all__ = ["FIGURES", "Results", "build_report_html", "load_results", "main", "write_report"]

EXPERIMENT_TITLES = {
    "e1": "Experiment 1 (HOT): does metacognition depend on the self-model?",
    "e2": "Experiment 2 (GWT): does workspace capacity determine access?",
    "e3": "Experiment 3: noise robustness, complexity and composite markers",
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
}
SCOPE = (
    "These agents are not conscious. They are small reference implementations of mechanisms that "
    "theories of consciousness propose; we test functional predictions, nothing about experience."
)
VERDICT_MEANING = {
    "reproduced": "the paper's number lies in our 95% CI or within the pre-registered tolerance",
    "partly reproduced": "the number differs, but the paper's qualitative pattern holds",
    "not reproduced": "neither the number nor the pattern holds",
    "not comparable": "the paper's number has no counterpart we can compute, or ours is undefined",
}
# --------------------------------------------------------------------------- text helpers


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _num(x: Any, digits: int = 3) -> str:
    """A number for a caption; ``"undefined"`` for None / nan (never the string "nan")."""
    if not _finite(x):
        return "undefined"
    x = float(x)
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
        return f"{x:.2e}"
    return f"{x:.{digits}g}"


def _paper_text(claim_id: str, res: Results | None = None) -> str:
    spec = CLAIMS_BY_ID.get(claim_id)
    if spec is not None:
        return paper_text(spec.paper)
    claim = (res.claims if res else {}).get(claim_id)
    return paper_text(claim.get("paper") or {}) if claim else "not reported"


def _ours_text(claim_id: str, res: Results) -> str:
    claim = res.claims.get(claim_id)
    if claim is not None:
        return ours_text(claim.get("ours") or {})
    return _num(res.values.get(claim_id))


def _value(res: Results, key: str) -> float:
    v = res.values.get(key)
    return float(v) if _finite(v) else math.nan


def _description(claim_id: str, res: Results) -> str:
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
    on, off = _value(res, "e1.accuracy.self_on"), _value(res, "e1.accuracy.self_off")
    if _finite(on) and _finite(off) and abs(on - off) < 1e-12:
        out.append(
            "Accuracy is identical with and without the self-model: the policy reads the workspace, not "
            "z_self, so the no-rewire lesion cannot change a single choice (by design)."
        )
    acc, conf, sd = (_value(res, f"e1.{k}.bus_off") for k in ("accuracy", "confidence", "confidence_sd"))
    if _finite(acc) and _finite(conf):
        text = (
            f"With the workspace off the agent is at accuracy {_num(acc)} (chance 0.5) while its mean "
            f"confidence is {_num(conf)} (SD across trials {_num(sd)})."
        )
        if conf > 0.5:
            text += (
                " It therefore bets on every wagered trial (skip fraction "
                f"{_num(_value(res, 'e1.skip.bus_off'))}): confidently guessing, the outcome the paper "
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
    if off.get("sd") == 0 and _finite(off.get("mean")) and len(res.summary.get("seeds") or []) > 1:
        out.append(
            f"Every seed of the zeroed self-model has AUROC {_num(off['mean'])} exactly (a constant "
            "confidence), but each seed's constant differs, so the pooled curve can leave the diagonal "
            "slightly."
        )
    return out


def _find_e1c(res: Results) -> list[str]:
    out = []
    sd = _value(res, "e1.confidence_sd.self_off")
    if _finite(sd):
        out.append(
            f"Zeroed self-model: the confidence is {_num(_value(res, 'e1.confidence.self_off'))} on "
            f"average, with SD {_num(sd)} across the trials of a seed (one constant per seed)."
        )
    return out


def _find_e1d(res: Results) -> list[str]:
    parts = [
        f"{plots.label_of(c)} {_num(_value(res, f'e1.aurc.{c}'))}"
        for c in plots.E1_CONDITIONS
        if _finite(_value(res, f"e1.aurc.{c}"))
    ]
    util = [
        f"{plots.label_of(c)} {_num(_value(res, f'e1.utility.{c}'))}"
        for c in plots.E1_CONDITIONS
        if _finite(_value(res, f"e1.utility.{c}"))
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
        f"{plots.label_of(c)} {_num(_value(res, f'e1.skip.{c}'))}"
        for c in plots.E1_CONDITIONS
        if _finite(_value(res, f"e1.skip.{c}"))
    ]
    return ["Opt-out (skip) fraction on wagered trials: " + "; ".join(parts) + "."] if parts else []


def _find_logits(res: Results) -> list[str]:
    z, ms, ne = (
        _value(res, k)
        for k in ("e1.auroc.self_on", "e1.auroc.logits_max_softmax", "e1.auroc.logits_neg_entropy")
    )
    if not any(_finite(x) for x in (z, ms, ne)):
        return []
    text = (
        f"Type-2 AUROC of the confidence head {_num(z)}; of the policy's own logits: max softmax "
        f"{_num(ms)}, negative entropy {_num(ne)}."
    )
    if _finite(z) and _finite(ms) and ms >= z - 0.01:
        text += (
            " The logits alone carry as much metacognitive information as z_self: the self-model "
            "re-reads a signal that is already in the first-order policy."
        )
    return [text]


def _find_e2a(res: Results) -> list[str]:
    g, t, p, perm = (
        _value(res, f"e2.{k}.k4_vs_k2") for k in ("hedges_g", "welch_t", "welch_p", "permutation_p")
    )
    out = []
    if _finite(g):
        out.append(
            f"4 vs 2 slots (seed level): Welch t = {_num(t)}, p = {_num(p)}, Hedges' g = {_num(g)}, "
            f"permutation p = {_num(perm)}. With only {len(res.summary.get('seeds') or [])} seeds the "
            "smallest possible permutation p is bounded away from 0."
        )
    a0, a1 = _value(res, "e2.conjunction.a0"), _value(res, "e2.conjunction.a1")
    if _finite(a0) or _finite(a1):
        out.append(
            f"Conjunctions of the baselines without a workspace: A0 {_num(a0)}, A1 {_num(a1)} "
            "(chance 1/49 ≈ 0.02; the paper gives no number)."
        )
    return out


def _find_e2b(res: Results) -> list[str]:
    k4d, k4c = _value(res, "e2.decision.k4"), _value(res, "e2.conjunction.k4")
    out = []
    if _finite(k4d) and _finite(k4c):
        out.append(
            f"At 4 slots: decision accuracy {_num(k4d)}, conjunction {_num(k4c)}. A conjunction needs both "
            "reports right, so it can never exceed the decision accuracy; the paper's pair (conjunction "
            f"{_paper_text('e2.conjunction.k4')} vs decision {_paper_text('e2.decision.k4')}) breaks this "
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
    k4 = _value(res, "e2.gbi.k4")
    out = []
    if _finite(k4) and k4 < -1:
        out.append(
            f"The paper's signed GBI averages {_num(k4)} at 4 slots. Our slots are layer-normalised "
            "(zero mean), so their dot products are as often negative as positive; when they nearly cancel, "
            "the equation divides by a number close to 0 and single steps produce huge negative values. "
            f"Clipping negative couplings gives {_num(_value(res, 'e2.gbi_clip.k4'))} at 4 slots and "
            f"{_num(_value(res, 'e2.gbi_clip.k2'))} at 2 slots."
        )
    c2, c4 = _value(res, "e2.gbi_clip.k2"), _value(res, "e2.gbi_clip.k4")
    if _finite(c2) and _finite(c4) and c2 > c4:
        out.append(
            "The clipped GBI is higher at 2 slots than at 4: with two slots whose coupling is negative, "
            "clipping leaves a slot with no partner, and the equation then scores it as maximal breadth "
            "(P = 1). Neither variant is a clean measure of broadcast breadth here."
        )
    i4, i2 = _value(res, "e2.ignition.k4"), _value(res, "e2.ignition.k2")
    if _finite(i4) and _finite(i2) and abs(i4 - i2) < 1e-9:
        out.append(
            f"Ignition sharpness is the same at 4 and 2 slots ({_num(i4)}): the steepest step-to-step rise "
            "is the write of the second cue, which finds a free slot whatever the capacity (the first cue "
            "arrives at step 0, before any difference can be taken). Here the measure says whether a second "
            "slot exists, not how abruptly access ignites."
        )
    return out


def _find_dnrs(res: Results) -> list[str]:
    parts = [
        f"scale {s}: {_num(_value(res, f'e2.dnrs_secondary.scale_{s}'))}"
        for s in ("0", "0.25", "0.5", "0.75", "1")
    ]
    return ["Auxiliary (secondary cue, not in the paper): " + "; ".join(parts) + "."]


def _l75_summary(res: Results, key: str) -> str:
    """Seed summary of one L75 key from seed_values.csv (censoring rule of docs/verdicts.md)."""
    raw = seed_raw(res.seed_values, key)
    return format_l75([parse_l75(v) for _, v in raw])[0] if raw else "undefined"


def _find_e3a(res: Results) -> list[str]:
    parts = [
        f"{plots.label_of(a)} {_l75_summary(res, f'e3.l75.{a}.read')}"
        for a in plots.FIG3A_AGENTS
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
    imputed = [k for k, v in res.values.items() if k.startswith("e3.auroc_imputed.") and _finite(v)]
    if imputed and all(float(res.values[k]) == 1.0 for k in imputed):
        out.append(
            f"Type-2 AUROC was undefined for all {len(imputed)} agent kinds (no confidence head, or no "
            "wrong report to rank) and imputed as 0.5, the paper's convention: the AUROC term is a "
            "constant and cannot add anything to the regression."
        )
    sd = _value(res, "e3.composite.gap_sd")
    if _finite(sd):
        out.append(
            f"The registered OOD gap barely varies (SD {_num(sd)} over "
            f"{_num(_value(res, 'e3.composite.n_points'))}"
            " points): most agents solve the longer delay perfectly."
        )
    r2o = _value(res, "e3.explore.composite_overflow.r2_gbi")
    if _finite(r2o):
        out.append(
            f"Exploratory (post hoc): against the overflow shift, clipped GBI alone gives R² = {_num(r2o)}. "
            "This is close to true by construction: overflowing the workspace hurts exactly the agents "
            "that have one, and GBI is 0 for those without."
        )
    return out


def _find_e3c(res: Results) -> list[str]:
    out = ["Agents without a workspace (A0, A1) are perturbed in their recurrent state instead."]
    low = [
        a
        for a in ("a0", "a1")
        if _finite(_value(res, f"e3.accuracy.{a}"))
        and _value(res, f"e3.accuracy.{a}") <= plots.L75_THRESHOLD
    ]
    if low:
        out.append(
            " and ".join(plots.label_of(a) for a in low)
            + " answer at "
            + ", ".join(_num(_value(res, f"e3.accuracy.{a}")) for a in low)
            + " accuracy without any noise (chance 1/7), so their L75 is "
            + ", ".join(_l75_summary(res, f"e3.l75.{a}") for a in low)
            + "."
        )
    return out


def _find_fig4(res: Results) -> list[str]:
    parts = [
        f"{plots.label_of(a)} {_ours_text(f'e3.l75_carrier.{a}', res)}"
        for a in ("b1", "b2", "b2_workspace_read")
        if _finite(res.values.get(f"e3.l75_carrier.{a}"))
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
        f"{plots.label_of(a)} {_num(_value(res, f'e3.pci_a_evoked.{a}'))}"
        for a in agents
        if _finite(_value(res, f"e3.pci_a_evoked.{a}"))
    ]
    out = []
    if parts:
        out.append("Evoked PCI-A (difference from the unperturbed run): " + "; ".join(parts) + ".")
    ws = [
        _value(res, f"e3.pci_a_evoked.{a}")
        for a in (
            "b1",
            "b1_reg",
            "b1_noise",
            "b2",
            "b2_workspace_read",
            "bc_linear",
            "bc_mlp",
            "bc_random",
        )
    ]
    ws = [w for w in ws if _finite(w)]
    if len(ws) > 2 and max(ws) - min(ws) < 1e-12:
        out.append(
            f"Evoked PCI-A is identical ({_num(ws[0])}) for every workspace agent. This points to the "
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
        lambda r: plots.fig1a_accuracy_and_auroc(r.seed_values),
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
        lambda r: plots.fig1b_type2_roc(r.trials, r.seed_values),
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
        lambda r: plots.fig1c_calibration(r.trials),
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
        lambda r: plots.fig1d_risk_coverage(r.trials),
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
        lambda r: plots.confidence_histogram(
            plots.trial_curves(r.trials),
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
        lambda r: plots.logits_control(r.seed_values),
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
        lambda r: plots.fig2a_conjunction_by_capacity(r.capacity),
        "The fraction of episodes in which B1 reported both cues correctly, with 4, 2 and 0 workspace "
        "slots, and for the two agents without a workspace (A0, A1). The dashed line is chance.",
        ("e2.conjunction.k4", "e2.conjunction.k2", "e2.conjunction.k0", "e2.hedges_g.k4_vs_k2"),
        findings=_find_e2a,
    ),
    FigureSpec(
        "fig2b",
        "e2",
        "Fig. 2b: dual-task cost",
        lambda r: plots.fig2b_dual_task_cost(r.capacity),
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
        lambda r: plots.fig2c_masking_traces(_masking(r)),
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
        lambda r: plots.gbi_and_ignition_by_capacity(r.seed_values),
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
        lambda r: plots.dnrs_by_scale(r.seed_values),
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
        lambda r: plots.fig3a_l75(r.seed_values),
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
            "e3.l75.b2_workspace_read",
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
        lambda r: plots.fig3b_marker_correlations(_points(r), r.values),
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
        lambda r: plots.fig3c_titration(r.titration, r.seed_values),
        "Report accuracy as noise inside the agent grows (stored protocol), mean over seeds with ± 1 SD "
        "band. The dashed line at 0.75 defines L75; markers on it show each agent's L75 (triangles: "
        "beyond or below the tested range), hollow black marks the paper's.",
        ("e3.l75.b1", "e3.l75.b2", "e3.l75.b2_workspace_read"),
        findings=_find_e3c,
    ),
    FigureSpec(
        "fig4",
        "e3",
        "Fig. 4: attribution controls",
        lambda r: plots.fig4_attribution(r.seed_values),
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
        lambda r: plots.table3_pci(r.seed_values),
        "After a brief pulse of noise inside the agent, the following trajectory is binarised and "
        "compressed; PCI-A is its compressed size relative to random data (1 = as complex as coin flips). "
        "The paper found lower values for the workspace agent than for the baselines (an 'inversion').",
        ("e3.pci_a.a0", "e3.pci_a.a1", "e3.pci_a.b1"),
        findings=_find_pci,
    ),
)


# --------------------------------------------------------------------------- HTML

CSS = """
.figtitle { font-weight: 600; margin: 0.6em 0 0 0; }
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:0;background:#fafafa;line-height:1.45}
main{max-width:1180px;margin:0 auto;padding:24px 32px 64px;background:#fff}
h1{font-size:1.9em;margin:0.2em 0} h2{border-bottom:2px solid #e8eef7;padding-bottom:4px;margin-top:2.2em}
h3{margin-top:1.8em}
.scope{background:#fff8e1;border-left:5px solid #f0b400;padding:10px 14px;font-weight:bold}
.meta td{padding:2px 12px 2px 0;vertical-align:top} .meta td:first-child{color:#555;white-space:nowrap}
.badge{display:inline-block;border-radius:4px;padding:1px 8px;font-size:0.9em;border:1px solid #ccc}
.v-reproduced{background:#d4edda}.v-partly-reproduced{background:#fff3cd}.v-not-reproduced{background:#f8d7da}
.v-not-comparable{background:#e2e3e5}
.counts{display:flex;gap:12px;flex-wrap:wrap;margin:10px 0}
.count{border-radius:6px;padding:8px 14px;min-width:150px}.count b{font-size:1.6em;display:block}
figure{margin:28px 0;border:1px solid #e5e5e5;border-radius:6px;padding:10px 14px}
figcaption{font-size:0.95em} figcaption p{margin:6px 0} .label{font-weight:bold;color:#34495e}
.claims{font-size:0.9em;margin:6px 0 0 0;padding-left:18px} .claims li{margin:3px 0}
.note{color:#7a4b00;background:#fff4e5;border:1px solid #ffd8a8;border-radius:4px;padding:8px 12px}
table.data{border-collapse:collapse;font-size:0.9em} table.data td,table.data th{border:1px solid #ddd;
padding:3px 8px;text-align:left} table.data th{background:#e8eef7}
code,pre{background:#f3f3f3;border-radius:4px;padding:2px 5px} pre{padding:10px;overflow-x:auto}
nav ul{columns:2} .explore{border-left:5px solid #dd8452;padding-left:12px}
"""


def _badge(verdict: str) -> str:
    cls = "v-" + "-".join(str(verdict).split())
    return f'<span class="badge {_esc(cls)}">{_esc(verdict)}</span>'


def _claim_item(claim_id: str, res: Results) -> str:
    claim = res.claims.get(claim_id)
    desc = _esc(_description(claim_id, res))
    if claim is None:
        return (
            f"<li><code>{_esc(claim_id)}</code> ({desc}): paper {_esc(_paper_text(claim_id, res))}; "
            "not evaluated in this run.</li>"
        )
    by = " <em>(true by construction)</em>" if claim.get("by_construction") else ""
    return (
        f"<li>{_badge(claim.get('verdict', ''))} <code>{_esc(claim_id)}</code> {desc}{by}: "
        f"paper {_esc(_paper_text(claim_id, res))}, ours {_esc(_ours_text(claim_id, res))}. "
        f"{_esc(claim.get('reason', ''))}</li>"
    )


def _figure_html(fig: go.Figure, slug: str) -> str:
    # The title goes above the chart as text: plotly does not wrap titles to the plot width.
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else ""
    if title:
        top = fig.layout.margin.t or 95
        fig = go.Figure(fig)
        fig.update_layout(title_text="", margin_t=40, height=(fig.layout.height or 460) - top + 40)
        title = f'<p class="figtitle">{_esc(title.replace("<br>", " "))}</p>'
    return title + fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"plot-{slug}",
        config={
            "displaylogo": False,
            "responsive": True,
            "toImageButtonOptions": {"filename": slug, "scale": 2},
        },
    )


def _section_figure(spec: FigureSpec, res: Results) -> str:
    try:
        fig = spec.build(res)
        plot = _figure_html(fig, spec.slug)
    except Exception as exc:  # a broken input must not lose the rest of the report
        plot = (
            f'<p class="note">This figure could not be drawn from these files '
            f"({_esc(exc.__class__.__name__)}: {_esc(exc)}).</p>"
        )
    paper_items = [f"{_description(c, res)}: {_paper_text(c, res)}" for c in spec.claims]
    found_items = [
        f"{_description(c, res)}: {_ours_text(c, res)}" for c in spec.claims if c in res.claims
    ]
    try:
        extra = spec.findings(res) if spec.findings else []
    except Exception as exc:
        extra = [f"(summary sentences unavailable: {exc.__class__.__name__})"]
    paper = "; ".join(paper_items) + ("." if paper_items else "")
    if spec.paper_note:
        paper = (paper + " " + spec.paper_note).strip()
    found = "; ".join(found_items) + ("." if found_items else "")
    found = " ".join([found, *extra]).strip() or "No numbers for this figure in this run."
    claims = "".join(_claim_item(c, res) for c in spec.claims)
    return (
        f'<figure id="{_esc(spec.slug)}"><h3>{_esc(spec.title)}</h3>{plot}<figcaption>'
        f'<p><span class="label">What you are looking at.</span> {_esc(spec.what)}</p>'
        f'<p><span class="label">What the paper reported.</span> '
        f"{_esc(paper or 'No number for this panel.')}</p>"
        f'<p><span class="label">What we found.</span> {_esc(found)}</p>'
        + (
            f'<p><span class="label">Verdicts.</span></p><ul class="claims">{claims}</ul>'
            if claims
            else ""
        )
        + "</figcaption></figure>"
    )


def _header(res: Results) -> str:
    s = res.summary
    seeds = s.get("seeds") or []
    cfg = s.get("config") or {}
    date = s.get("date") or s.get("created")
    if not date and (res.directory / "summary.json").exists():
        mtime = (res.directory / "summary.json").stat().st_mtime
        date = (
            dt.datetime.fromtimestamp(mtime, tz=dt.UTC).strftime("%Y-%m-%d %H:%M UTC") + " (file time)"
        )
    budgets = []
    for key, what in (
        ("e1_trials", "E1 trials per seed and condition"),
        ("e2_episodes", "E2 episodes per seed"),
        ("decoding_episodes", "E2 decoding episodes"),
        ("e3_episodes", "E3 episodes per noise level"),
        ("masking_soa", "masking SOA (steps)"),
        ("masking_count", "masks"),
    ):
        if key in cfg:
            budgets.append(f"{what}: {cfg[key]}")
    if cfg.get("sigmas"):
        budgets.append("noise levels σ: " + ", ".join(f"{x:g}" for x in cfg["sigmas"]))
    if "quick" in cfg:
        budgets.append("quick mode" if cfg["quick"] else "full budgets")
    rows = [
        ("Experiments", ", ".join(e.upper() for e in res.experiments) or "none found"),
        ("Seeds", f"{len(seeds)} ({', '.join(map(str, seeds))})" if seeds else "unknown"),
        ("Budgets", "; ".join(budgets) or "unknown"),
        ("Results written", date or "unknown"),
        ("Run time", f"{s['wall_seconds']} s" if s.get("wall_seconds") is not None else "unknown"),
        ("Python", s.get("python") or "unknown"),
        ("Agents excluded (below the 95% criterion)", ", ".join(s.get("excluded") or []) or "none"),
        (
            "Agents trained for this run",
            ", ".join(s.get("trained") or []) or "none (all bundled or cached)",
        ),
        ("Result directory", str(res.directory)),
    ]
    meta = "".join(f"<tr><td>{_esc(k)}</td><td>{_esc(v)}</td></tr>" for k, v in rows)
    return (
        "<header><h1>Consciousness-Theories Ablation Lab: replication report</h1>"
        "<p>This page rebuilds every figure of Phua (2025), <em>Can We Test Consciousness Theories on AI? "
        "Ablations, Markers, and Robustness</em>, from our own runs, and puts the paper's numbers "
        "beside ours. "
        "Each figure says what it shows, what the paper reported, what we found, and the verdict that rules "
        "fixed before any result was computed assign to each claim. Hover over any point for its exact "
        "value; "
        "the camera icon above a figure saves it as a picture.</p>"
        f'<p class="scope">{_esc(SCOPE)}</p><table class="meta">{meta}</table></header>'
    )


def _verdict_counts(res: Results) -> str:
    counts = res.summary.get("verdict_counts") or {}
    if not counts and res.claims:
        for c in res.claims.values():
            counts[c.get("verdict")] = counts.get(c.get("verdict"), 0) + 1
    boxes = "".join(
        f'<div class="count {_esc("v-" + "-".join(str(v).split()))}"><b>{_esc(n)}</b>{_esc(v)}<br>'
        f"<small>{_esc(VERDICT_MEANING.get(v, ''))}</small></div>"
        for v, n in counts.items()
    )
    n_by = sum(bool(c.get("by_construction")) for c in res.claims.values())
    return (
        "<section id='verdicts'><h2>Verdicts at a glance</h2>"
        f"<p>{len(res.claims)} claims of the paper were compared with our numbers by rules written down "
        "before any experiment was run (<code>docs/verdicts.md</code>). "
        f"{n_by} of them are marked <em>true by construction</em>: our design fixes their value in advance, "
        "so they are not evidence either way.</p>"
        f'<div class="counts">{boxes}</div></section>'
    )


def _experiment_section(exp: str, res: Results) -> str:
    specs = [f for f in FIGURES if f.experiment == exp]
    head = f"<section id='{exp}'><h2>{_esc(EXPERIMENT_TITLES[exp])}</h2><p>{_esc(EXPERIMENT_INTROS[exp])}</p>"
    if exp not in res.experiments:
        titles = ", ".join(f.title for f in specs)
        return (
            head
            + f'<p class="note">{_esc(exp.upper())} is not part of this result set, so these figures are '
            f"skipped: {_esc(titles)}.</p></section>"
        )
    body = "".join(_section_figure(f, res) for f in specs)
    used = {c for f in specs for c in f.claims}
    others = [c for c in res.claims if c.startswith(exp + ".") and c not in used]
    if others:
        body += (
            "<h3>Other claims of this experiment</h3><ul class='claims'>"
            + "".join(_claim_item(c, res) for c in others)
            + "</ul>"
        )
    return head + body + "</section>"


EXPLORATORY_PREFIXES = {
    "e2.gbi_clip.": "GBI with negative couplings clipped to 0 (usual participation coefficient), "
    "per capacity",
    "e3.gbi_clip.": "GBI with negative couplings clipped, per E3 agent kind",
    "e3.ood_gap_overflow.": "accuracy lost when more masks arrive than the workspace can hold "
    "(second OOD shift)",
    "e3.explore.composite_clip.": "composite regression on the registered OOD gap, with the clipped GBI",
    "e3.explore.composite_overflow.": "composite regression on the overflow shift, with the clipped GBI",
}


def _exploratory(res: Results) -> str:
    rows = []
    for prefix, meaning in EXPLORATORY_PREFIXES.items():
        keys = sorted(k for k in res.values if k.startswith(prefix))
        if keys:
            cells = ", ".join(f"{k[len(prefix) :]} = {_num(res.values[k])}" for k in keys)
            rows.append(
                f"<tr><td><code>{_esc(prefix)}*</code></td><td>{_esc(meaning)}</td>"
                f"<td>{_esc(cells)}</td></tr>"
            )
    intro = (
        "<p>These analyses were added after the results were seen. They are not pre-registered, carry no "
        "verdict, and should be read as hypotheses for a future, pre-registered run. The orange bars of "
        "Fig. 3b and the middle panel of the GBI figure show some of them.</p>"
    )
    table = (
        (
            "<table class='data'><tr><th>keys</th><th>what</th><th>values (mean over seeds)</th></tr>"
            + "".join(rows)
            + "</table>"
        )
        if rows
        else "<p>No exploratory values in this run.</p>"
    )
    return (
        "<section id='exploratory' class='explore'><h2>Exploratory analyses (post hoc, not pre-registered)"
        f"</h2>{intro}{table}{_gain_table(res)}</section>"
    )


def _gain_table(res: Results) -> str:
    """Training length vs B1's noise tolerance (labcore.experiments.gain), if it was run."""
    rows = res.gain.get("rows") if isinstance(res.gain, dict) else None
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{_esc(r.get('seed'))}</td><td>{_esc(r.get('training'))}</td><td>{_esc(r.get('updates'))}</td>"
        f"<td>{_num(r.get('jacobian'), 2)}</td><td>{_esc(r.get('l75_text'))}</td><td>{_num(r.get('accuracy'), 2)}</td></tr>"
        for r in rows
    )
    return (
        "<h3>Does training length decide B1's fragility?</h3>"
        f"<p>{_esc(res.gain.get('description', ''))} B1 retrained for a fixed number of updates "
        "(no early stopping) beside the bundled agents: the median norm of d(report logits)/d(workspace) "
        "(the paper reports 78-175) and L75 under stored workspace noise "
        "(<code>python -m labcore.experiments.gain</code>).</p>"
        "<table class='data'><tr><th>seed</th><th>training</th><th>updates</th><th>Jacobian norm</th>"
        f"<th>L75</th><th>clean accuracy</th></tr>{body}</table>"
    )


def _inconsistencies(res: Results) -> str:
    items = res.summary.get("paper_inconsistencies") or []
    body = (
        ("<ul>" + "".join(f"<li>{_esc(x)}</li>" for x in items) + "</ul>")
        if items
        else "<p>None listed in this result set.</p>"
    )
    return (
        "<section id='inconsistencies'><h2>Inconsistencies inside the paper</h2><p>Numbers in the paper that "
        f"cannot all be true at once. We compare with them as printed.</p>{body}</section>"
    )


def _reproduce(res: Results) -> str:
    seeds = res.summary.get("seeds") or []
    n = len(seeds) or 5
    exp = res.summary.get("experiment") or ("all" if len(res.experiments) != 1 else res.experiments[0])
    quick = " --quick" if (res.summary.get("config") or {}).get("quick") else ""
    out = res.directory
    cmd = f"python -m labcore reproduce --experiment {exp} --seeds {n}{quick} --out {out}"
    note = ""
    if seeds and list(seeds) != list(range(n)):
        note = f"<p class='note'>This run used seeds {_esc(seeds)}; the command runs seeds 0 to {n - 1}.</p>"
    return (
        "<section id='reproduce'><h2>Reproduce this</h2><p>From the repository root, with the project's "
        "Python environment (agents missing from the bundle are trained on demand and cached):</p>"
        f"<pre>{_esc(cmd)}</pre>{note}<p>To rebuild only this page from existing result files:</p>"
        f"<pre>{_esc(f'python -m labcore.report {out}')}</pre></section>"
    )


def _problems(res: Results) -> str:
    if not res.problems:
        return ""
    return (
        "<p class='note'>Some result files are missing or unreadable; figures that need them are "
        "replaced by a "
        "note. " + _esc("; ".join(res.problems)) + ".</p>"
    )


def _all_values(res: Results) -> str:
    if not res.values:
        return ""
    rows = "".join(
        f"<tr><td><code>{_esc(k)}</code></td><td>{_esc(_num(v, 4))}</td></tr>"
        for k, v in sorted(res.values.items())
    )
    return (
        "<section id='values'><h2>Every aggregated number</h2><details><summary>Show all "
        f"{len(res.values)} values (mean over seeds; censored L75 at its bound)</summary>"
        f"<table class='data'><tr><th>key</th><th>value</th></tr>{rows}</table></details></section>"
    )


def build_report_html(res: Results) -> str:
    """The whole page as one HTML string (plotly.js inlined once, in the head)."""
    from plotly.offline import get_plotlyjs

    nav = [
        "<li><a href='#verdicts'>Verdicts at a glance</a></li>",
        "<li><a href='#claims'>Every claim</a></li>",
    ]
    nav += [f"<li><a href='#{e}'>{_esc(EXPERIMENT_TITLES[e])}</a></li>" for e in EXPERIMENTS]
    nav += [
        "<li><a href='#exploratory'>Exploratory analyses</a></li>",
        "<li><a href='#inconsistencies'>Inconsistencies inside the paper</a></li>",
        "<li><a href='#reproduce'>Reproduce this</a></li>",
    ]
    try:
        claims_fig = _figure_html(plots.claims_table(list(res.claims.values())), "claims")
    except Exception as exc:
        claims_fig = (
            f"<p class='note'>The claims table could not be drawn ({_esc(exc.__class__.__name__)}).</p>"
        )
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>Replication report: Phua (2025), consciousness-theory ablations</title>",
        f"<style>{CSS}</style>",
        f'<script type="text/javascript">{get_plotlyjs()}</script>',
        "</head><body><main>",
        _header(res),
        _problems(res),
        f"<nav><h2>Contents</h2><ul>{''.join(nav)}</ul></nav>",
        _verdict_counts(res),
        f"<section id='claims'><h2>Every claim</h2>{claims_fig}</section>",
        *(_experiment_section(e, res) for e in EXPERIMENTS),
        _exploratory(res),
        _inconsistencies(res),
        _reproduce(res),
        _all_values(res),
        "</main></body></html>",
    ]
    return "\n".join(parts)


def write_report(result_dir: Path | str, out: Path | None = None) -> Path:
    """Read a result directory and write the self-contained ``report.html``.

    Parameters
    ----------
    result_dir : path
        A directory of the result contract (any file may be missing).
    out : path, optional
        Where to write; default ``result_dir / "report.html"``.

    Returns
    -------
    Path
        The written file (written atomically: readers see the old file or the new one).

    Raises
    ------
    FileNotFoundError
        If ``result_dir`` is not a directory.
    """
    res = load_results(result_dir)
    page = build_report_html(res)
    path = Path(out) if out is not None else res.directory / "report.html"
    atomic_write(path, lambda tmp: tmp.write_text(page, encoding="utf-8"))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m labcore.report RESULT_DIR [--out FILE]``."""
    parser = argparse.ArgumentParser(
        prog="python -m labcore.report", description="Write report.html for a result directory."
    )
    parser.add_argument("result_dir", help="directory with summary.json and the result files")
    parser.add_argument("--out", default=None, help="output file (default: RESULT_DIR/report.html)")
    args = parser.parse_args(argv)
    try:
        path = write_report(args.result_dir, Path(args.out) if args.out else None)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
