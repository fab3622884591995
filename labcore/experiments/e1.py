"""Experiment 1 (HOT): metacognition depends on the self-model (paper sec. 5.1).

Per seed, the E1 agent (B2, workspace-read, trained on the wagering task) runs the same
evaluation trials under five conditions: intact, the no-rewire self-model lesion, bus-off
with the self-model on, and two blind ablations (z_self replaced by matched noise, or
shuffled across trials). Confidence is the confidence head's output at the choice point.

Beyond the paper, a control it lacks: the Type-2 AUROC of the policy's own logits (max
softmax and negative entropy at the choice point), i.e. how much of the metacognitive signal
is already in the logits that z_self reads.
"""

from __future__ import annotations

import numpy as np
import torch

import labcore.envs as E
from labcore.agents.parts import broadcast, uncertainty
from labcore.config import Intervention, ReproduceConfig
from labcore.experiments.common import SeedResult, at_step, provide_agent
from labcore.interventions import BUS_OFF, INTACT, SELF_MODEL_LESION
from labcore.markers import (
    aurc,
    decoder_auroc,
    effective_dimensionality,
    meta_d_prime,
    pca_matched_baseline,
    skip_fraction,
    type2_auroc,
    wagering_utility,
)
from labcore.rollout import Trace, rollout
from labcore.training import episode_seeds

CONDITIONS = ("self_on", "self_off", "bus_off", "blind_noise", "blind_permute")
CONDITION_LABELS = {
    "self_on": "self-model on",
    "self_off": "self-model zeroed",
    "bus_off": "workspace off (self-model on)",
    "blind_noise": "z_self replaced by noise",
    "blind_permute": "z_self shuffled across trials",
}


def conditions(seed: int) -> dict[str, Intervention]:
    return {
        "self_on": INTACT,
        "self_off": SELF_MODEL_LESION,
        "bus_off": BUS_OFF,
        "blind_noise": Intervention(self_model="noise", seed=seed),
        "blind_permute": Intervention(self_model="permute", seed=seed),
    }


def trial_table(trace: Trace) -> dict[str, np.ndarray]:
    """Per-trial correctness, confidence and context of an E1 rollout."""
    out = trace.outcome
    return {
        "correct": out["correct"].astype(bool),
        "confidence": out["confidence"].astype(float),
        "decided": out["decision"] >= 0,
        "stimulus": trace.labels["stimulus"],
        "salience": trace.labels["salience"],
        "wager": trace.labels["wager"],
        "bet": out["bet"],
        "decision": out["decision"],
    }


def _safe(fn, *args, **kwargs) -> float:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(fn(*args, **kwargs))
        except ValueError:
            return float("nan")


def self_model_input(trace: Trace, steps: np.ndarray) -> np.ndarray:
    """The 89 numbers z_self compresses (carrier, broadcast, intended logits, uncertainty)."""
    h = torch.as_tensor(at_step(trace.h, steps), dtype=torch.float32)
    slots = torch.as_tensor(at_step(trace.slots, steps), dtype=torch.float32)
    occupied = torch.as_tensor(np.nan_to_num(at_step(trace.occupied, steps)) > 0)
    logits = torch.as_tensor(at_step(trace.logits, steps), dtype=torch.float32)
    parts = [h, broadcast(slots, occupied), logits, uncertainty(logits)]
    return torch.cat(parts, dim=-1).numpy()


def run_seed(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    torch.set_num_threads(1)
    result = SeedResult("e1", seed)
    loaded, how = provide_agent("wagering", "b2_ws", seed, cache_dir)
    if loaded is None:
        result.excluded.append(f"wagering-b2_ws-s{seed} ({how})")
        return result
    if how == "trained":
        result.trained.append(loaded.name)
    agent = loaded.agent
    seeds = episode_seeds(seed, "eval", cfg.e1_trials)
    rows = []
    traces = {}
    for name, iv in conditions(seed).items():
        trace = rollout(agent, E.WAGERING, seeds, iv)
        traces[name] = trace
        t = trial_table(trace)
        answered = t["decided"] & np.isfinite(t["confidence"])
        correct, conf = t["correct"], t["confidence"]
        v = result.values
        v[f"e1.accuracy.{name}"] = float(correct.mean())
        v[f"e1.auroc.{name}"] = _safe(type2_auroc, correct[answered], conf[answered])
        wagered = t["wager"] & answered
        v[f"e1.skip.{name}"] = _safe(skip_fraction, conf[wagered])
        v[f"e1.utility.{name}"] = _safe(wagering_utility, correct[wagered], conf[wagered])
        v[f"e1.aurc.{name}"] = _safe(aurc, correct[answered], conf[answered])
        v[f"e1.confidence.{name}"] = float(np.nanmean(conf))
        v[f"e1.confidence_sd.{name}"] = float(np.nanstd(conf))
        md = _meta_d(t, answered)
        v[f"e1.meta_d.{name}"], v[f"e1.m_ratio.{name}"] = md
        for i in range(len(correct)):
            rows.append({"seed": seed, "condition": name, "trial": i, "correct": int(correct[i]),
                         "confidence": None if not np.isfinite(conf[i]) else round(float(conf[i]), 6),
                         "stimulus": int(t["stimulus"][i]), "salience": round(float(t["salience"][i]), 6),
                         "decision": int(t["decision"][i]), "wager": int(t["wager"][i]), "bet": int(t["bet"][i])})
    result.rows["e1_trials"] = rows

    # The logits control (not in the paper): metacognition readable from the policy alone.
    intact = traces["self_on"]
    steps = intact.outcome["choice_step"]
    t = trial_table(intact)
    ok = t["decided"] & (steps >= 0)
    probs = at_step(intact.probs, steps)[ok]
    result.values["e1.auroc.logits_max_softmax"] = _safe(type2_auroc, t["correct"][ok], probs.max(1))
    entropy = -(probs * np.log(np.clip(probs, 1e-12, 1))).sum(1)
    result.values["e1.auroc.logits_neg_entropy"] = _safe(type2_auroc, t["correct"][ok], -entropy)

    # z_self's effective dimensionality, and a PCA baseline of matched dimension (sec. 5.1.2).
    z = at_step(intact.z_self, steps)[ok]
    eff = _safe(effective_dimensionality, z)
    result.values["e1.zself.effective_dim"] = eff
    y = t["correct"][ok]
    if np.isfinite(eff) and 5 <= y.sum() <= len(y) - 5:
        k = max(1, round(eff))
        pca = _safe(pca_matched_baseline, self_model_input(intact, steps)[ok], y, k, seed=seed)
        zs = _safe(decoder_auroc, z, y, seed=seed)
        result.values["e1.pca.auroc"] = pca
        result.values["e1.zself.decoder_auroc"] = zs
        result.values["e1.pca.advantage"] = zs - pca
    return result


def _meta_d(t: dict[str, np.ndarray], answered: np.ndarray) -> tuple[float, float]:
    """meta-d' and M-ratio from stimulus, decision and confidence (docs/markers.md)."""
    keep = answered & (t["decision"] >= 0)
    if keep.sum() < 20 or np.ptp(t["confidence"][keep]) == 0:
        return float("nan"), float("nan")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = meta_d_prime(t["stimulus"][keep], t["decision"][keep], t["confidence"][keep], n_ratings=4)
        except ValueError:
            return float("nan"), float("nan")
    return float(r.meta_d_prime), float(r.m_ratio)
