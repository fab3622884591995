"""One condition measured: rollouts of one agent under one intervention -> marker values.

The pipelines and the pages call the same functions, so the app and the replication agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Agent
from labcore.agents.parts import slot_sources
from labcore.checks import check_choice
from labcore.config import N_CUE_VALUES, AgentConfig, DualTaskConfig, Intervention
from labcore.envs.channels import EVENT_INDEX, KIND_SLICE, CueKind
from labcore.findings import Problem
from labcore.interventions import bus_capacity
from labcore.markers import (
    aurc,
    binarize,
    cue_retention,
    delta_pci,
    expected_calibration_error,
    global_broadcast_index,
    ideal_observer_l75,
    ideal_observer_thresholds,
    ignition_sharpness,
    ignore_undefined,
    lz_complexity_casali,
    lz_complexity_shuffle_normalised,
    meta_d_prime,
    pci_a,
    skip_fraction,
    type2_auroc,
    undefined_as_nan,
    wagering_utility,
)
from labcore.rollout import Trace, rollout
from labcore.seeding import PCI_PULSE_SEED, titration_noise_seed


def on_selected(selected: np.ndarray, fn: Callable[..., float], *arrays: np.ndarray) -> float:
    """``fn`` on the trials in ``selected``; nan when none is selected or it is undefined."""
    if not np.any(selected):
        return float("nan")
    return undefined_as_nan(fn, *(a[selected] for a in arrays))


# ---------------------------------------------------------------- metacognition (E1)
@dataclass(frozen=True)
class MetacognitionView:
    """One agent, one intervention, a batch of wagering trials."""

    correct: np.ndarray
    confidence: np.ndarray
    decided: np.ndarray
    stimulus: np.ndarray
    salience: np.ndarray
    decision: np.ndarray
    wager: np.ndarray
    bet: np.ndarray
    max_softmax: np.ndarray
    accuracy: float
    auroc: float
    meta_d: float
    m_ratio: float
    skip_fraction: float
    utility: float
    aurc: float
    calibration_error: float
    trace: Trace

    @property
    def answered(self) -> np.ndarray:
        """Trials with a decision and a choice-point confidence (Type-2 analyses use these)."""
        return self.decided & np.isfinite(self.confidence)


def metacognition(
    agent: Agent, intervention: Intervention, seeds: Sequence[int]
) -> MetacognitionView:
    """E1 metrics of one condition (paper sec. 5.1): accuracy, Type-2 AUROC, meta-d', wagers."""
    trace = rollout(agent, E.WAGERING, seeds, intervention)
    out = trace.outcome
    correct = out["correct"].astype(bool)
    confidence = out["confidence"].astype(float)
    decided = out["decision"] >= 0
    steps = out["choice_step"]
    b = np.arange(len(seeds))
    max_softmax = np.where(steps >= 0, trace.probs[b, np.clip(steps, 0, None)].max(1), np.nan)
    answered = decided & np.isfinite(confidence)
    wagered = trace.labels["wager"] & answered
    md, ratio = _meta_d(trace.labels["stimulus"], out["decision"], confidence, answered)
    return MetacognitionView(
        correct=correct,
        confidence=confidence,
        decided=decided,
        stimulus=trace.labels["stimulus"],
        salience=trace.labels["salience"],
        decision=out["decision"],
        wager=trace.labels["wager"],
        bet=out["bet"],
        max_softmax=max_softmax,
        accuracy=float(correct.mean()),
        auroc=on_selected(answered, type2_auroc, correct, confidence),
        meta_d=md,
        m_ratio=ratio,
        skip_fraction=on_selected(wagered, skip_fraction, confidence),
        utility=on_selected(wagered, wagering_utility, correct, confidence),
        aurc=on_selected(answered, aurc, correct, confidence),
        calibration_error=on_selected(answered, expected_calibration_error, correct, confidence),
        trace=trace,
    )


def _meta_d(
    stimulus: np.ndarray, decision: np.ndarray, confidence: np.ndarray, answered: np.ndarray
) -> tuple[float, float]:
    """meta-d' and M-ratio of the answered trials; nan with fewer than 20 or constant confidence."""
    keep = answered & (decision >= 0)
    if keep.sum() < 20 or np.ptp(confidence[keep]) == 0:
        return float("nan"), float("nan")
    with ignore_undefined():
        r = meta_d_prime(stimulus[keep], decision[keep], confidence[keep], n_ratings=4)
    return float(r.meta_d_prime), float(r.m_ratio)


# ---------------------------------------------------------------- workspace (E2)
@dataclass(frozen=True)
class WorkspaceView:
    """One dual-task agent under one intervention, over a batch of episodes."""

    per_step: np.ndarray
    decision: np.ndarray
    conjunction: np.ndarray
    gbi: float
    """GBI as registered (the paper's equation), nan where negative couplings make it undefined."""
    gbi_signed: float
    """The paper's equation computed anyway (outside [0, 1] when couplings are signed)."""
    ignition: float
    trace: Trace
    gbi_abs: float = float("nan")
    """GBI on |cosine| couplings (non-negative, as the participation formula presupposes)."""
    two_occupied: float = float("nan")
    """Share of report steps with exactly two slots occupied (GBI 0 by construction)."""

    @property
    def means(self) -> dict[str, float]:
        """Mean per-step, decision and conjunction accuracy over the episodes."""
        return {
            "per_step": float(self.per_step.mean()),
            "decision": float(self.decision.mean()),
            "conjunction": float(self.conjunction.mean()),
        }


def gbi_readings(window: np.ndarray) -> dict[str, float]:
    """The GBI readings (fields of :class:`WorkspaceView`) of report-step slots (N, T, K, D)."""
    return {
        "gbi": undefined_as_nan(global_broadcast_index, window, negative="undefined"),
        "gbi_signed": undefined_as_nan(global_broadcast_index, window),
        "gbi_abs": undefined_as_nan(global_broadcast_index, window, coupling="abs_cosine"),
        "two_occupied": float(np.mean((window != 0).any(-1).sum(-1) == 2)),
    }


def ignition_from_empty(slots: np.ndarray) -> float:
    """Ignition sharpness of slots (N, T, K, D) from the empty workspace before step 0."""
    empty = np.zeros_like(slots[:, :1])
    return undefined_as_nan(ignition_sharpness, np.concatenate([empty, slots], axis=1))


def workspace(
    agent: Agent,
    intervention: Intervention,
    seeds: Sequence[int],
    task_id: str = E.DUAL_TASK,
    task_options: dict | None = None,
) -> WorkspaceView:
    """E2 accuracies and broadcast markers of one condition (paper sec. 5.2)."""
    trace = rollout(agent, task_id, seeds, intervention, task_options=task_options)
    readings = dict.fromkeys(("gbi", "gbi_signed", "ignition"), float("nan"))
    if trace.slots is not None:
        readings = gbi_readings(trace.slots[:, trace.report_steps()])
        readings["ignition"] = ignition_from_empty(trace.slots)
    accuracies = trace.per_step_accuracy(), trace.decision_accuracy(), trace.conjunction()
    return WorkspaceView(*accuracies, **readings, trace=trace)


def cue_kinds(trace: Trace, episode: int = 0) -> list[str | None]:
    """What arrived on the cue channel at each step: colour / object / mask / None."""
    names = {CueKind.CUE_A: "colour", CueKind.CUE_B: "object", CueKind.MASK: "mask"}
    return [
        names[CueKind(int(np.argmax(cue[KIND_SLICE])))] if cue[EVENT_INDEX] > 0 else None
        for cue in trace.cue[episode]
    ]


def masking_traces(
    agent: Agent, seeds: Sequence[int], soa: int, count: int, capacities: Sequence[int] = (4, 2, 0)
) -> dict[str, list[float]]:
    """Backward masking: the colour's retention in the workspace, step by step (Fig. 2c).

    Each episode runs twice, the colour shifted by 3 of 7; :func:`cue_retention` of the pair,
    averaged over episodes, per capacity (active slots).
    """
    options = {"mask_soa": soa, "mask_count": count}
    entry = E.make_batch(E.DUAL_TASK_MASKING, **options).config.secondary_cue_step
    n_slots = agent.config.n_slots
    out = {}
    for k in capacities:
        iv = bus_capacity(k, n_slots)
        run = rollout(agent, E.DUAL_TASK_MASKING, seeds, iv, task_options=options)
        other = {"secondary": (run.labels["secondary"] + 3) % 7}
        alt = rollout(
            agent, E.DUAL_TASK_MASKING, seeds, iv, task_options=options, trial_overrides=other
        )
        traces = [cue_retention(run.slots[i], alt.slots[i], entry) for i in range(len(seeds))]
        out[str(k)] = np.mean(traces, axis=0).tolist()
    return out


# ---------------------------------------------------------------- robustness (E3)
def decision_accuracy(agent: Agent, intervention: Intervention, seeds: Sequence[int]) -> float:
    """Report-window decision accuracy on the dual task (the quantity L75 titrates)."""
    return float(rollout(agent, E.DUAL_TASK, seeds, intervention).decision_accuracy().mean())


def evaluation_intervention(kind: str) -> dict[str, str]:
    """How a kind is evaluated on the dual task: ``b2_ws`` with its self-model off (sec. 5.3.2).

    >>> evaluation_intervention("b2_ws"), evaluation_intervention("b1")
    ({'self_model_mode': 'zero'}, {})
    """
    return {"self_model_mode": "zero"} if kind == "b2_ws" else {}


def noise_target(agent: Agent) -> str:
    """Which latent state a titration perturbs: the workspace, else the carrier."""
    return "workspace" if agent.config.workspace else "carrier"


def titration(
    agent: Agent,
    seeds: Sequence[int],
    sigmas: Sequence[float],
    *,
    noise_mode: str = "stored",
    target: str | None = None,
    fixed: Mapping[str, Any] | None = None,
    noise_seeds: Sequence[int] | None = None,
) -> list[float]:
    """Decision accuracy at each noise SD ``sigmas``: the curve L75 reads (paper sec. 5.3).

    The same episodes at every level; ``fixed``: further Intervention fields; ``noise_seeds``:
    each level's intervention seed (default :func:`titration_noise_seed` of its index).
    """
    target = target or noise_target(agent)
    check_choice(target, "target", ("workspace", "carrier"))
    if noise_seeds is None:
        noise_seeds = [titration_noise_seed(i) for i in range(len(sigmas))]
    noise = "workspace_noise" if target == "workspace" else "carrier_noise"
    return [
        decision_accuracy(
            agent,
            Intervention(noise_mode=noise_mode, seed=s, **dict(fixed or {}), **{noise: sigma}),
            seeds,
        )
        for sigma, s in zip(sigmas, noise_seeds, strict=True)
    ]


@dataclass(frozen=True)
class ReportCodes:
    """What the workspace holds at the two report steps, for an ideal observer (the L75 ceiling).

    Per report ``r`` (colour, object): ``codes[r]`` (E, 7, K*D) the slots had the cue been each
    value; ``labels[r]`` the true values; ``age[r]`` (E, K*D) noise draws taken (stored mode).
    """

    codes: tuple[np.ndarray, np.ndarray]
    labels: tuple[np.ndarray, np.ndarray]
    age: tuple[np.ndarray, np.ndarray]

    def noise_scale(self, noise_mode: str) -> list[np.ndarray]:
        """Noise SD per dimension in units of sigma: stored sqrt(age), read 1 (0 where empty)."""
        check_choice(noise_mode, "noise_mode", ("stored", "read"))
        return [np.sqrt(a) if noise_mode == "stored" else (a > 0).astype(float) for a in self.age]

    def ceiling(self, noise_mode: str, *, n_samples: int = 256, seed: int = 0) -> float:
        """L75 of an ideal observer reading these slots (decision accuracy: both reports)."""
        thresholds = [
            ideal_observer_thresholds(c, y, s, n_samples=n_samples, seed=seed + r)
            for r, (c, y, s) in enumerate(
                zip(self.codes, self.labels, self.noise_scale(noise_mode), strict=True)
            )
        ]
        return ideal_observer_l75(thresholds)


def report_codes(
    agent: Agent, seeds: Sequence[int], fixed: Intervention | None = None
) -> ReportCodes:
    """Counterfactual report-step workspace codes of a dual-task agent (:class:`ReportCodes`),
    each episode rerun without noise with each of the 7 colours, then each of the 7 objects."""
    fixed = fixed or Intervention()
    if not agent.config.workspace:
        raise ValueError("report codes need an agent with a workspace")
    base = rollout(agent, E.DUAL_TASK, seeds, fixed)
    n = len(seeds)
    active = fixed.active_slots(agent.config.n_slots)
    events = torch.as_tensor(base.cue[..., EVENT_INDEX] > 0)
    source = slot_sources(events, active, agent.config.n_slots).numpy()  # the allocation rule
    out: dict[str, list[np.ndarray]] = {"codes": [], "labels": [], "age": []}
    for field, step in zip(("secondary", "primary"), base.report_steps(0).tolist(), strict=True):
        runs = [
            rollout(agent, E.DUAL_TASK, seeds, fixed, trial_overrides={field: np.full(n, value)})
            for value in range(N_CUE_VALUES)
        ]
        out["codes"].append(
            np.stack([run.slots[:, step].reshape(n, -1) for run in runs], axis=1).astype(float)
        )
        out["labels"].append(np.asarray(base.labels[field]))
        written = source[:, step]  # (E, K) the step each slot was last written, -1 if empty
        age = np.where(written >= 0, step - written + 1, 0)
        out["age"].append(np.repeat(age, agent.config.slot_dim, axis=1).astype(float))
    return ReportCodes(tuple(out["codes"]), tuple(out["labels"]), tuple(out["age"]))


PCI_NORMALISATIONS = {
    "paper (zlib, fair-coin reference)": "zlib",
    "Lempel-Ziv 76, c log2(L) / L": "lz76",
    "Casali 2013 (source entropy)": "casali",
    "shuffle-normalised LZ": "shuffle",
}


def pci_values(
    agent: Agent,
    seeds: Sequence[int],
    normalisations: Sequence[str] = ("zlib",),
    *,
    pulse_step: int = 3,
    pulse_sigma: float = 1.0,
    fixed: Intervention | None = None,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per-trial perturbational complexity after a pulse (paper sec. 4.4), and conjunction
    correctness; "evoked" binarises against the unperturbed run of the same episode."""
    unknown = set(normalisations) - {*PCI_NORMALISATIONS.values(), "evoked"}
    if unknown:
        raise ValueError(f"unknown normalisation(s) {sorted(unknown)}")
    fixed = fixed or Intervention()

    def states(tr: Trace) -> np.ndarray:
        x = tr.slots.reshape(*tr.slots.shape[:2], -1) if agent.config.workspace else tr.h
        return x[:, pulse_step:]

    pulsed = rollout(
        agent,
        E.DUAL_TASK,
        seeds,
        replace(fixed, pulse_step=pulse_step, pulse_sigma=pulse_sigma, seed=PCI_PULSE_SEED),
    )
    after = states(pulsed)
    before = (
        states(rollout(agent, E.DUAL_TASK, seeds, fixed)) if "evoked" in normalisations else None
    )
    scorers = {
        "zlib": lambda x, b: pci_a(x, method="zlib"),
        "lz76": lambda x, b: pci_a(x, method="lz76"),
        "casali": lambda x, b: lz_complexity_casali(binarize(x)),
        "shuffle": lambda x, b: lz_complexity_shuffle_normalised(binarize(x), seed=0),
        "evoked": lambda x, b: pci_a(x, baseline=b),
    }
    values = {
        n: np.array(
            [
                undefined_as_nan(scorers[n], after[i], None if before is None else before[i])
                for i in range(len(seeds))
            ]
        )
        for n in normalisations
    }
    return values, pulsed.conjunction()


def e1_construction_notes(
    config: AgentConfig, self_model_mode: str, capacity: int, confidence: float | None = None
) -> list[str]:
    """What a wagering agent's wiring fixes "by construction" in this setting, as
    :class:`~labcore.findings.Problem` notes of kind "zeroed", "absent" or "workspace_off".

    >>> from labcore.config import AGENT_KINDS
    >>> (len(e1_construction_notes(AGENT_KINDS["b2_ws"], "zero", 4)),
    ...  len(e1_construction_notes(AGENT_KINDS["b1"], "on", 4)))
    (1, 0)
    >>> "exactly 0.5" in e1_construction_notes(AGENT_KINDS["b1"], "zero", 4)[0]
    False
    >>> "(100% opt-outs)" in e1_construction_notes(AGENT_KINDS["b2_ws"], "zero", 4,
    ...                                            confidence=0.0)[0]
    True
    """
    notes = []
    if self_model_mode == "zero" and config.self_model:
        if confidence is not None and np.isfinite(confidence):  # it bets above 0.5 (rollout)
            side = (
                "at or below 0.5, so the agent opts out on every wager trial (100% opt-outs)"
                if confidence <= 0.5
                else "above 0.5, so the agent bets on every wager trial (0% opt-outs)"
            )
            bets = (
                f"That constant is {confidence:.2f}, {side}, also by construction: a reproduced "
                "opt-out rate here says nothing about knowing. "
            )
        else:
            bets = (
                "Its one confidence is either above the 0.5 betting threshold or not, so the agent "
                "bets on every wager trial or on none, also by construction. "
            )
        reads = config.policy_reads == "self_model"
        policy = (
            "This agent's policy reads the self-model too, so its accuracy can change as well."
            if reads
            else "Accuracy is unchanged because the policy never reads z_self."
        )
        text = (
            "Zeroed self-model: the confidence head receives a constant, so its output is the "
            "same on every trial and Type-2 AUROC is exactly 0.5 **by construction**. "
        )
        notes.append(
            Problem(text + bets + policy, "self_model", "zeroed", "policy" if reads else "")
        )
    elif self_model_mode != "on" and not config.self_model:
        text = (
            "This agent has no self-model, so the self-model setting changes nothing; its "
            "confidence is the policy's own probability of its choice, which zeroing does not "
            "touch."
        )
        notes.append(Problem(text, "self_model", "absent"))
    if capacity == 0 and config.workspace and config.cue_route == "bus":
        text = (
            "Workspace off: the flash enters only through the workspace, so nothing in the agent "
            "depends on it. Accuracy is at chance and the confidence is one constant, so Type-2 "
            "AUROC is exactly 0.5, both **by construction**."
        )
        notes.append(Problem(text, "capacity", "workspace_off"))
    return notes


def pci_and_dpci(
    agent: Agent,
    seeds: Sequence[int],
    normalisation: str = "zlib",
    *,
    fixed: Intervention | None = None,
) -> tuple[float, float]:
    """Mean perturbational complexity where defined, and dPCI (correct minus wrong trials)."""
    by, correct = pci_values(agent, seeds, (normalisation,), fixed=fixed)
    values = by[normalisation]
    ok = ~np.isnan(values)
    return float(values[ok].mean()), undefined_as_nan(
        delta_pci, values[ok & correct], values[ok & ~correct]
    )


# ---------------------------------------------------------------- rollout theatre
@dataclass(frozen=True)
class TheatreEpisode:
    """One episode, frame by frame, with the agent's internal state at every step."""

    frames: list[np.ndarray]
    trace: Trace
    task_id: str
    reward: float

    @property
    def n_steps(self) -> int:
        """Number of steps the episode ran."""
        return int(self.trace.valid[0].sum())


def theatre(
    agent: Agent,
    task_id: str,
    episode_seed: int,
    intervention: Intervention,
    task_options: dict | None = None,
    tile_size: int = 40,
    companions: Sequence[int] | None = None,
) -> TheatreEpisode:
    """Run one episode (batched simulator) and replay its actions in the real MiniGrid env.

    ``companions``: the batch the episode runs in, containing ``episode_seed`` (the self-model's
    batch-wise noise and shuffle need the evaluation batch).
    """
    batch = [int(s) for s in (companions if companions is not None else [episode_seed])]
    if int(episode_seed) not in batch:
        raise ValueError(f"episode seed {episode_seed} is not among the companions")
    trace = rollout(agent, task_id, batch, intervention, task_options=task_options)
    trace = trace.episode(batch.index(int(episode_seed)))
    env = gym.make(
        task_id, render_mode="rgb_array", tile_size=tile_size, **(task_options or {})
    ).unwrapped
    env.reset(seed=int(episode_seed))
    frames = [env.render()]
    total = 0.0
    for t in range(int(trace.valid[0].sum())):
        _, reward, terminated, truncated, _ = env.step(int(trace.action[0, t]))
        total += reward
        frames.append(env.render())
        if terminated or truncated:
            break
    env.close()
    return TheatreEpisode(frames, trace, task_id, total)


# ---------------------------------------------------------------- the measured variants (11)
def post_decision_trials(trace: Trace) -> list[dict[str, Any]]:
    """One record per trial of a post-decision wager rollout (protocol 11.5)."""
    labels, out = trace.labels, trace.outcome
    stimulus = labels["stimulus"]
    sign = np.where(stimulus == 1, 1.0, -1.0)
    first = sign * labels["salience"] + labels["noise"][:, 1] - labels["noise"][:, 0]
    second = sign * labels["salience"] + labels["noise_after"][:, 1] - labels["noise_after"][:, 0]
    choice = out["choice_step"]
    b = np.arange(len(stimulus))
    seen = (choice >= 0) & (choice < trace.probs.shape[1])  # reached before the time limit
    at = np.clip(choice, 0, trace.probs.shape[1] - 1)
    reader = np.where(seen, trace.probs[b, at].max(1), np.nan)
    text = lambda x: np.format_float_positional(np.float32(x), unique=True, trim="-")  # noqa: E731
    return [
        {
            "stimulus": int(stimulus[i]),
            "decision": int(out["decision"][i]),
            "confidence": text(out["confidence"][i]) if np.isfinite(out["confidence"][i]) else None,
            "evidence_first": round(float(first[i]), 6),
            "evidence_second": round(float(second[i]), 6),
            "reader": text(reader[i]) if np.isfinite(reader[i]) else None,
        }
        for i in range(len(stimulus))
    ]


def post_decision_values(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The measured E1's values of one condition and block from its trial records (protocol
    11.5)."""
    stimulus = np.array([r["stimulus"] for r in rows])
    decision = np.array([r["decision"] for r in rows])
    conf = np.array([np.nan if r["confidence"] is None else r["confidence"] for r in rows], float)
    reader = np.array([np.nan if r["reader"] is None else r["reader"] for r in rows], float)
    second = np.array([r["evidence_second"] for r in rows], float)
    correct = decision == stimulus
    answered = (decision >= 0) & np.isfinite(conf)
    nan = float("nan")
    out = {"accuracy": float(correct.mean()), "auroc": nan, "m_ratio": nan, "meta_d": nan}
    out["confidence_sd"] = float(conf[answered].std()) if answered.any() else nan
    out["confidence_range"] = float(np.ptp(conf[answered])) if answered.any() else nan
    if answered.sum() >= 2:
        out["auroc"] = undefined_as_nan(type2_auroc, correct[answered], conf[answered])
    out["meta_d"], out["m_ratio"] = _meta_d(stimulus, decision, conf, answered)
    read = (decision >= 0) & np.isfinite(reader)
    out["reader_auroc"] = (
        undefined_as_nan(type2_auroc, correct[read], reader[read]) if read.sum() >= 2 else nan
    )
    c = np.where(decision == 1, 1.0, -1.0)
    agree, against = answered & (c * second > 0), answered & (c * second < 0)
    out["change_of_mind"] = (
        float(conf[agree].mean() - conf[against].mean()) if agree.any() and against.any() else nan
    )
    return out


def post_decision(
    agent: Agent, intervention: Intervention, seeds: Sequence[int], salience: float
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """The measured E1 of one condition in one fixed-difficulty block: trials and values."""
    trace = rollout(
        agent, E.POST_DECISION_WAGER, seeds, intervention, trial_overrides={"salience": salience}
    )
    trials = post_decision_trials(trace)
    return trials, post_decision_values(trials)


def rule_held(seeds: np.ndarray, active: int, n_slots: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Whether the overwrite rule (protocol 2.4) holds the colour and object at their reports."""
    demos = E.oracle_demonstrations(E.DUAL_TASK, np.asarray(seeds))
    events = torch.as_tensor(demos.cue[..., EVENT_INDEX] > 0)
    source = slot_sources(events, active, n_slots).numpy()
    task = DualTaskConfig()
    colour = (source[:, task.report_secondary_step] == task.secondary_cue_step).any(-1)
    obj = (source[:, task.report_primary_step] == task.primary_cue_step).any(-1)
    return colour, obj


def best_held(active: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """What the best allocation holds (protocol 11.8): the colour with 1 slot, both with 2+."""
    return np.full(n, active >= 1), np.full(n, active >= 2)


def held_by_gate(
    write_slot: np.ndarray, n_slots: int = 4, task: DualTaskConfig | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Whether a learned gate (choices ``write_slot`` (B, T)) holds the colour and the object at
    their reports: written, and not overwritten since."""
    task = task or DualTaskConfig()

    def held(cue_step: int, report: int) -> np.ndarray:
        slot = write_slot[:, cue_step]
        written = (slot >= 0) & (slot < n_slots)
        later = write_slot[:, cue_step + 1 : report + 1]
        overwritten = (later == slot[:, None]).any(1)
        return written & ~overwritten

    return (
        held(task.secondary_cue_step, task.report_secondary_step),
        held(task.primary_cue_step, task.report_primary_step),
    )
