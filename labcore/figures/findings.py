"""What the report says under its figures: the data-driven sentences of "what we found" for
each figure, and the texts its caption is made of (a number, a claim's paper value, our value,
its description).

Used by the figure list (:mod:`labcore.figures.registry`), the HTML report (:mod:`labcore.report`)
and the design study's figure. Every number in the prose comes from the result files or from the
paper's table (:data:`labcore.paper_claims.CLAIMS_BY_ID`); none is typed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labcore.figures.paper_e3 import FIG3A_AGENTS
from labcore.figures.style import E1_CONDITIONS, label_of
from labcore.markers.robustness import L75_THRESHOLD
from labcore.paper import paper_text
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.storage.formatting import finite, l75_summary, ours_text, seed_raw
from labcore.storage.results import Results


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
    """Our value of a claim as text (:func:`labcore.storage.formatting.ours_text`), or of an
    auxiliary key."""
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


def _masking(res: Results) -> dict:
    e2 = res.figures.get("e2") or {}
    return {
        seed: v.get("masking")
        for seed, v in e2.items()
        if isinstance(v, Mapping) and v.get("masking")
    }


def _points(res: Results) -> list:
    return (res.figures.get("e3") or {}).get("points") or []


def _find_e1a(res: Results) -> list[str]:
    out = []
    on, off = value_of(res, "e1.accuracy.self_on"), value_of(res, "e1.accuracy.self_off")
    if finite(on) and finite(off) and abs(on - off) < 1e-12:
        out.append(
            "Accuracy is identical with and without the self-model: the policy reads "
            "the workspace, not "
            "z_self, so the no-rewire lesion cannot change a single choice (by design)."
        )
    acc, conf, sd = (
        value_of(res, f"e1.{k}.bus_off") for k in ("accuracy", "confidence", "confidence_sd")
    )
    if finite(acc) and finite(conf):
        text = (
            f"With the workspace off the agent is at accuracy {caption_number(acc)} "
            "(chance 0.5) while its mean "
            f"confidence is {caption_number(conf)} (SD across trials {caption_number(sd)})."
        )
        if conf > 0.5:
            text += (
                " It therefore bets on every wagered trial (skip fraction "
                f"{caption_number(value_of(res, 'e1.skip.bus_off'))}): confidently "
                "guessing, the outcome the paper "
                "argues against ('nothing contradicts me'). Its AUROC is still 0.5, because the "
                "confidence is constant."
            )
        out.append(text)
    return out


def _find_e1b(res: Results) -> list[str]:
    out = [
        "The curves pool the trials of all seeds; the right panel shows the per-seed "
        "AUROCs, which the "
        "verdicts use (the seed is the unit of analysis)."
    ]
    off = (res.claims.get("e1.auroc.self_off") or {}).get("ours") or {}
    if off.get("sd") == 0 and finite(off.get("mean")) and len(res.summary.get("seeds") or []) > 1:
        out.append(
            "Every seed of the zeroed self-model has AUROC "
            f"{caption_number(off['mean'])} exactly (a constant "
            "confidence), but each seed's constant differs, so the pooled curve can "
            "leave the diagonal "
            "slightly."
        )
    return out


def _find_e1c(res: Results) -> list[str]:
    out = []
    sd = value_of(res, "e1.confidence_sd.self_off")
    if finite(sd):
        out.append(
            "Zeroed self-model: the confidence is "
            f"{caption_number(value_of(res, 'e1.confidence.self_off'))} on "
            f"average, with SD {caption_number(sd)} across the trials of a seed (one "
            "constant per seed)."
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
            (
                "Wagering utility, mean reward per wagered trial (+1 right bet, −1 wrong "
                "bet, 0 opt-out): "
            )
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
        f"Type-2 AUROC of the confidence head {caption_number(z)}; of the policy's own "
        "logits: max softmax "
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
        value_of(res, f"e2.{k}.k4_vs_k2")
        for k in ("hedges_g", "welch_t", "welch_p", "permutation_p")
    )
    out = []
    if finite(g):
        out.append(
            f"4 vs 2 slots (seed level): Welch t = {caption_number(t)}, p = "
            f"{caption_number(p)}, Hedges' g = {caption_number(g)}, "
            f"permutation p = {caption_number(perm)}. With only "
            f"{len(res.summary.get('seeds') or [])} seeds the "
            "smallest possible permutation p is bounded away from 0."
        )
    a0, a1 = value_of(res, "e2.conjunction.a0"), value_of(res, "e2.conjunction.a1")
    if finite(a0) or finite(a1):
        out.append(
            "Conjunctions of the baselines without a workspace: A0 "
            f"{caption_number(a0)}, A1 {caption_number(a1)} "
            "(chance 1/49 ≈ 0.02; the paper gives no number)."
        )
    return out


def _find_e2b(res: Results) -> list[str]:
    k4d, k4c = value_of(res, "e2.decision.k4"), value_of(res, "e2.conjunction.k4")
    out = []
    if finite(k4d) and finite(k4c):
        out.append(
            f"At 4 slots: decision accuracy {caption_number(k4d)}, conjunction "
            f"{caption_number(k4c)}. A conjunction needs both "
            "reports right, so it can never exceed the decision accuracy; the paper's "
            "pair (conjunction "
            f"{claim_paper_text('e2.conjunction.k4')} vs decision "
            f"{claim_paper_text('e2.decision.k4')}) breaks this "
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
                f"With 4 slots the colour's trace falls below half at step {k4}; with "
                "2 slots already at "
                f"step {k2}: with two cues stored first, the third mask finds no empty "
                "slot at 4 slots and "
                "the first mask at 2 slots (protocol sec. 2.5). The paper's single-cue "
                "design lost it at the 4th "
                "and 2nd mask."
            )
    if "0" in finals and not any(finals["0"]):
        out.append(
            "With the bus off nothing is stored, so nothing can be retained: the trace "
            "is 0 by construction."
        )
    return out


def _find_gbi(res: Results) -> list[str]:
    out = []
    signed = value_of(res, "e2.gbi_signed.k4")
    if not finite(value_of(res, "e2.gbi.k4")) and finite(signed):
        out.append(
            "The paper's GBI equation presupposes non-negative couplings. Our slots "
            "are layer-normalised (zero "
            "mean), so their dot products are as often negative as positive, and the "
            "equation is not defined here "
            f"(computed anyway it averages {caption_number(signed)} at 4 slots: "
            "near-cancelling couplings make it "
            "divide by almost 0)."
        )
    a4, a2 = value_of(res, "e2.gbi_abs.k4"), value_of(res, "e2.gbi_abs.k2")
    if finite(a4):
        out.append(
            f"On |cosine| couplings GBI is {caption_number(a4)} at 4 slots (at most 2/3) and "
            f"{caption_number(a2)} at 2 slots, where it is 0 by construction: with two "
            "occupied slots one "
            "partner takes all the coupling."
        )
    levels = [value_of(res, f"e2.ignition.k{k}") for k in (4, 3, 2, 1)]
    if all(finite(x) for x in levels) and max(levels) - min(levels) < 1e-6:
        out.append(
            f"Ignition sharpness is {caption_number(levels[0])} at every capacity from "
            "1 to 4 slots: each write is "
            "layer-normalised to the same size, so the first write always raises the "
            "RMS activation by 1/√K "
            "(0.5 for K = 4). It is fixed by construction, not a property of the "
            "agent; the E3 design study's "
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
        "the copy that is read; in the stored protocol it stays in the slots and "
        "builds up over the delay."
    ]


def _find_e3b(res: Results) -> list[str]:
    out = []
    imputed = [k for k, v in res.values.items() if k.startswith("e3.auroc_imputed.") and finite(v)]
    if imputed and all(float(res.values[k]) == 1.0 for k in imputed):
        out.append(
            f"Type-2 AUROC was undefined for all {len(imputed)} agent kinds (no "
            "confidence head, or no "
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
            "Exploratory (post hoc): against the overflow shift, GBI on |cosine| "
            f"couplings alone gives R² = {caption_number(r2o)}. "
            "This is close to true by construction: overflowing the workspace hurts "
            "exactly the agents "
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
            f"Evoked PCI-A is identical ({caption_number(ws[0])}) for every workspace "
            "agent. This points to the "
            "write gate: stored slots change only when a cue or mask is written, so "
            "the pulse's imprint does "
            "not depend on the agent; the low raw PCI-A of workspace agents "
            "(piecewise-constant slots) is "
            "then largely a property of the bus design rather than of what the agent learned."
        )
    return out


def _find_e4(res: Results) -> list[str]:
    """The outcome of each pre-registered E4 hypothesis (protocol 8.5), as the result set gives
    it."""
    return [str(h.get("reason", "")) for h in res.hypotheses.values() if h.get("reason")]
