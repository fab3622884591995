"""Experiment 1 (HOT): metacognition depends on the self-model (paper sec. 5.1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from scipy import stats as sps

from labcore.agents.parts import broadcast, uncertainty
from labcore.budgets import ReproduceConfig
from labcore.config import Intervention, WageringConfig
from labcore.envs.batch import StepKind
from labcore.experiments.common import SeedResult, at_step, provide_agents
from labcore.interventions import BUS_OFF, INTACT, SELF_MODEL_LESION
from labcore.markers import (
    decoded_information_bits,
    decoder_auroc,
    effective_dimensionality,
    pca_matched_baseline,
    type2_auroc,
    undefined_as_nan,
)
from labcore.measures import MetacognitionView, metacognition
from labcore.rollout import Trace
from labcore.seeding import CLOSED_FORM_SEED_BASE, episode_seeds
from labcore.stats import seed_summary
from labcore.training.wager_reward import CORRECT_BET_PAYOFF

DECODER_SPLITS = 5
"""Stratified folds of the E1 decoders (the markers' default)."""


def conditions(seed: int) -> dict[str, Intervention]:
    """The five E1 interventions of one seed, in display order (the blind ablations draw with the
    seed)."""
    return {
        "self_on": INTACT,
        "self_off": SELF_MODEL_LESION,
        "bus_off": BUS_OFF,
        "blind_noise": Intervention(self_model_mode="noise", seed=seed),
        "blind_permute": Intervention(self_model_mode="permute", seed=seed),
    }


def self_model_input(trace: Trace, steps: np.ndarray) -> np.ndarray:
    """The 89 numbers z_self compresses (carrier, broadcast, intended logits, uncertainty)."""
    h = torch.as_tensor(at_step(trace.h, steps), dtype=torch.float32)
    slots = torch.as_tensor(at_step(trace.slots, steps), dtype=torch.float32)
    occupied = torch.as_tensor(np.nan_to_num(at_step(trace.occupied, steps)) > 0)
    logits = torch.as_tensor(at_step(trace.logits, steps), dtype=torch.float32)
    parts = [h, broadcast(slots, occupied), logits, uncertainty(logits)]
    return torch.cat(parts, dim=-1).numpy()


def view_values(view: MetacognitionView) -> dict[str, float]:
    """The E1 numbers of one condition by metric name (keyed ``<exp>.<metric>.<...>``)."""
    finite = view.confidence[np.isfinite(view.confidence)]  # nan where no confidence was read out
    return {
        "accuracy": view.accuracy,
        "auroc": view.auroc,
        "skip": view.skip_fraction,
        "utility": view.utility,
        "aurc": view.aurc,
        "ece": view.calibration_error,
        "confidence": float(finite.mean()) if finite.size else float("nan"),
        "confidence_sd": float(finite.std()) if finite.size else float("nan"),
        "meta_d": view.meta_d,
        "m_ratio": view.m_ratio,
    }


REASSIGNED_TOLERANCE = 1e-6
"""Confidences count as the same values to this (a few float32 units at 0.5): matrix kernels may
round a row differently at another position of a large batch (seen: 3e-8 to 1.2e-7 at 600 rows)."""


def relative_checks(
    views: dict[str, MetacognitionView], reference: str = "self_on"
) -> dict[str, float]:
    """The records the relative by-construction rule reads (``experiments.construction``)."""
    ref = views[reference].trace
    out: dict[str, float] = {}
    for name, view in views.items():
        if name == reference:
            continue
        tr = view.trace
        # the confidence answers the wager step (bet or opt out), the policy every other step
        acting = ref.valid & (ref.step_kind != StepKind.WAGER)
        same_actions = (
            tr.valid.shape == ref.valid.shape
            and np.array_equal(tr.valid, ref.valid)
            and np.array_equal(np.where(acting, tr.action, -1), np.where(acting, ref.action, -1))
        )
        out[f"check.actions_equal.{name}"] = float(same_actions)
        reassigned = same_actions and ref.confidence.shape == tr.confidence.shape
        steps = 0
        for t in range(ref.confidence.shape[1]) if reassigned else ():
            # every episode's row, ended ones included: a shuffle draws z_self from all of them
            a, b = ref.confidence[:, t], tr.confidence[:, t]
            if not ref.valid[:, t].any() or not np.isfinite(a).all():
                continue
            if np.unique(a).size > 1:
                steps += 1
                # to float32 rounding: a row's product can round differently at another place in a
                # large batch
                same_values = np.abs(np.sort(a) - np.sort(b)).max() <= REASSIGNED_TOLERANCE
                reassigned = (
                    reassigned
                    and same_values
                    and not np.allclose(a, b, rtol=0, atol=REASSIGNED_TOLERANCE)
                )
        out[f"check.confidence_reassigned.{name}"] = float(reassigned and steps > 0)
    return out


def float32_text(x: float) -> str:
    """A confidence as written in the trial files: its float32 value in the shortest text that
    reads back to it exactly (read as float32: the agent's value bit for bit; as float64: the same
    order and ties, so every AUROC of the summary is recomputed from the file exactly).

    >>> float32_text(0.99999994), float32_text(0.5)
    ('0.99999994', '0.5')
    """
    return np.format_float_positional(np.float32(x), unique=True, trim="-")


def trial_rows(view: MetacognitionView, fixed: dict) -> list[dict]:
    """One ``e1_trials``-style row per trial of a condition, each starting with the ``fixed``
    cells."""
    conf = view.confidence
    return [
        {
            **fixed,
            "trial": i,
            "correct": int(view.correct[i]),
            "confidence": None if not np.isfinite(conf[i]) else float32_text(conf[i]),
            "stimulus": int(view.stimulus[i]),
            "salience": round(float(view.salience[i]), 6),
            "decision": int(view.decision[i]),
            "wager": int(view.wager[i]),
            "bet": int(view.bet[i]),
        }
        for i in range(len(conf))
    ]


def run_seed(seed: int, cfg: ReproduceConfig, cache_dir: str) -> SeedResult:
    """Experiment 1 for one agent seed: the five conditions, the logits control, z_self's
    dimensionality.

    Returns the seed's values keyed by claim id (``e1.*``) and its ``e1_trials`` rows; agents
    trained on demand are cached in ``cache_dir``.
    """
    torch.set_num_threads(1)
    result = SeedResult("e1", seed)
    agent = provide_agents(
        result, "wagering", ["b2_ws"], seed, cache_dir, untrained=cfg.untrained
    ).get("b2_ws")
    if agent is None:
        return result
    seeds = episode_seeds(seed, "eval", cfg.e1_trials)
    rows = []
    views = {}
    v = result.values
    for name, iv in conditions(seed).items():
        view = metacognition(agent, iv, seeds)
        views[name] = view
        v.update({f"e1.{metric}.{name}": x for metric, x in view_values(view).items()})
        rows += trial_rows(view, {"seed": seed, "condition": name})
    result.rows["e1_trials"] = rows
    v.update({f"e1.{k}": x for k, x in relative_checks(views).items()})

    # The logits control (not in the paper): metacognition readable from the policy alone.
    view = views["self_on"]
    intact = view.trace
    steps = intact.outcome["choice_step"]
    ok = view.decided & (steps >= 0)
    probs = at_step(intact.probs, steps)[ok]
    y = view.correct[ok]
    nan = float("nan")
    entropy = -(probs * np.log(np.clip(probs, 1e-12, 1))).sum(1)
    # No decided trial (a broken agent): every marker below is undefined, not an input bug.
    for name, score in (("max_softmax", probs.max(1)), ("neg_entropy", -entropy)):
        v[f"e1.auroc.logits_{name}"] = undefined_as_nan(type2_auroc, y, score) if ok.any() else nan

    # z_self's effective dimensionality, and a PCA baseline of matched dimension (sec. 5.1.2).
    z = at_step(intact.z_self, steps)[ok]
    eff = undefined_as_nan(effective_dimensionality, z) if len(z) >= 2 else nan
    v["e1.zself.effective_dim"] = eff
    # The decoders cross-validate with DECODER_SPLITS stratified folds: each class (right,
    # wrong) needs that many trials, else the decoded quantities are undefined for these data.
    both_classes = DECODER_SPLITS <= y.sum() <= len(y) - DECODER_SPLITS
    # What z_self knows about the agent's own correctness, in bits (the scorecards' FCS uses it).
    v["e1.zself.information_bits"] = (
        undefined_as_nan(decoded_information_bits, z, y, n_splits=DECODER_SPLITS, seed=seed)
        if both_classes
        else nan
    )
    if np.isfinite(eff) and both_classes:
        k = max(1, round(eff))
        pca = undefined_as_nan(
            pca_matched_baseline,
            self_model_input(intact, steps)[ok],
            y,
            k,
            n_splits=DECODER_SPLITS,
            seed=seed,
        )
        zs = undefined_as_nan(decoder_auroc, z, y, n_splits=DECODER_SPLITS, seed=seed)
        v["e1.pca.auroc"] = pca
        v["e1.zself.decoder_auroc"] = zs
        v["e1.pca.advantage"] = zs - pca
    return result


# ------------------------------------------------------------------------------ the ideal observer
IDEAL_REPLICATES = 5000
"""Simulated seeds of the ideal observer (its Type-2 AUROC's spread over a seed's trials)."""


def ideal_wager(
    trials: int,
    replicates: int = IDEAL_REPLICATES,
    wrong_bet_payoff: float = -CORRECT_BET_PAYOFF,
) -> dict[str, float]:
    """The wagering task's ideal observer on ``trials`` trials, over ``replicates`` simulated seeds
    (from ``CLOSED_FORM_SEED_BASE``; protocol sec. 10.7): its Type-2 AUROC (:func:`type2_auroc`,
    over the seeds with a right and a wrong trial, as ours) and its opt-out fraction, each a mean
    over seeds and the variance of one seed's value.

    >>> out = ideal_wager(600, replicates=400)
    >>> round(out["auroc"], 2), 0.015 < out["auroc_var"] ** 0.5 < 0.025, out["opt_out"]
    (0.85, True, 0.0)
    >>> ideal_wager(600, replicates=50, wrong_bet_payoff=-3.0)["opt_out"] > 0.1  # break-even 0.75
    True
    """
    cfg = WageringConfig()
    lo, hi = cfg.salience_range
    sd = cfg.cue_noise_sd
    rng = np.random.default_rng(CLOSED_FORM_SEED_BASE)
    salience = rng.uniform(lo, hi, (replicates, trials))
    noise = rng.normal(0.0, sd, (replicates, trials, 2))
    cue, other = salience + noise[..., 0], noise[..., 1]  # the observer is symmetric in the side

    def log_g(x: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(sps.norm.cdf((x - lo) / sd) - sps.norm.cdf((x - hi) / sd), 1e-300))

    log_odds = log_g(cue) - log_g(other) + 0.5 * ((cue / sd) ** 2 - (other / sd) ** 2)
    correct = log_odds > 0
    confidence = 1.0 / (1.0 + np.exp(-np.abs(log_odds)))  # P(correct | what it saw)
    # a seed without a wrong trial has no AUROC (nan, left out of the summary), as ours
    aurocs = [undefined_as_nan(type2_auroc, c, x) for c, x in zip(correct, confidence, strict=True)]
    auroc = seed_summary(aurocs, "none")
    if auroc.n < 2:
        raise ValueError(f"{trials} trials rarely hold a wrong choice: the AUROC is undefined")
    break_even = -wrong_bet_payoff / (CORRECT_BET_PAYOFF - wrong_bet_payoff)
    opt_out = seed_summary((confidence < break_even).mean(axis=1), "none")
    return {
        "auroc": auroc.mean,
        "auroc_var": auroc.sd**2,
        "opt_out": opt_out.mean,
        "opt_out_var": opt_out.sd**2,
    }


def ideal_values(
    agent_seeds: Sequence[int], cfg: ReproduceConfig
) -> dict[str, tuple[float, float]]:
    """E1's ideal observer over the seeds, keyed like our claims: ``{key: (mean of the seed means,
    variance of that mean)}`` for the intact agent's Type-2 AUROC and opt-out fraction
    (:func:`ideal_wager` on ``cfg.e1_trials`` trials per seed, the +-1 payoff: it never opts out).
    The ceiling rule (protocol sec. 10.7, :mod:`labcore.experiments.construction`) compares our
    seed means with it, as E2's with ``e2.ideal_values``."""
    ideal = ideal_wager(cfg.e1_trials)
    n = max(1, len(agent_seeds))
    return {
        "e1.auroc.self_on": (ideal["auroc"], ideal["auroc_var"] / n),
        "e1.skip.self_on": (ideal["opt_out"], ideal["opt_out_var"] / n),
    }
