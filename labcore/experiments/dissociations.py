"""Dissociations the data decides (protocol sec. 11): E1 and E2 in variants whose outcome training
decides, beside the ideal observers and the rules that fix the by-design variants.

Run: ``python -m labcore --compute portable study dissociations --out results/dissociations``
(the missing agents train first); a unit is one part ("e1" or "e2") on one seed.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from labcore.config import (
    N_CUE_VALUES,
    SALIENCE_BLOCKS,
    SELF_NOISE_DOSES,
    SILENCED_DOSES,
    Intervention,
    TrainConfig,
    WageringConfig,
)
from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Flag, Interval, StudySummary
from labcore.render import finite

E1_KIND = "b2_routes"
E1_TASK = "post_decision"
E2_KINDS = ("b1_gate", "b1_gate_full")
E2_TASK = "dual"
SLOTS = 4
CAPACITIES = (0, 1, 2, 3, 4)
REGISTERED = "protocol sec. 11 (registered 2026-11-29)"
AT_CHANCE = 0.55
"""Knowing is "abolished" when the silenced agent's AUROC interval ends below this (11.7)."""
DOING_MARGIN = 0.03
"""Doing is "kept" when the accuracy drop's interval lies within +-this (11.7)."""
MIN_DROP = 0.01
"""A seed's recovered fraction is undefined when its AUROC drop is below this (11.7)."""
GUESS = 1.0 / N_CUE_VALUES
KIND_NAMES = {
    "b1_gate": "the learned gate trained with 1-4 slots",
    "b1_gate_full": "the learned gate trained with 4 slots",
}
MEASURE_NAMES = {"accuracy": "accuracy", "auroc": "Type-2 AUROC", "m_ratio": "M-ratio"}


@dataclass(frozen=True)
class DissociationsConfig:
    """The registered design (protocol 11.2-11.8); ``quick()`` runs the pipeline end to end."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    blocks: tuple[float, ...] = SALIENCE_BLOCKS
    """The fixed salience of each evaluation block."""
    trials: int = 300
    """Evaluation trials per block, seed and condition (the same episodes for every condition)."""
    silenced: tuple[float, ...] = SILENCED_DOSES
    """Fractions of z_self's units silenced (the graded lesion; 0 is the intact agent)."""
    noise: tuple[float, ...] = SELF_NOISE_DOSES
    """SDs of the noise added to z_self (0 is the intact agent)."""
    rewire_episodes: int = 2000
    rewire_steps: int = 500
    rewire_lr: float = 0.01
    e2_kinds: tuple[str, ...] = E2_KINDS
    e2_episodes: int = 256
    sweep_seeds: tuple[int, ...] = ()
    """Seeds whose learned-gate agents are retrained under the sweep of 11.11, as one seed batch
    per setting, to tell whether a seed below the criterion failed for the optimiser's settings;
    none by default."""
    sweep_settings: tuple[tuple[float, int], ...] = ((1e-4, 3000), (1e-2, 3000), (1e-3, 12000))
    """(learning rate, updates) of each retraining: 3,000 updates with the early stop of sec. 5.3,
    12,000 without it (the best held-out weights kept); the registered run is lr 1e-3, 3,000."""
    ideal_trials: int = 200_000
    """Simulated trials per block of the ideal observer (its M-ratio on the first 20,000)."""
    ideal_seed: int = 0
    cache: str = "runs/checkpoints"
    """Where agents neither bundled nor cached are trained to (and found next time)."""

    @classmethod
    def quick(cls) -> DissociationsConfig:
        """Two seeds and small budgets: the pipeline end to end (numbers mean little)."""
        return cls(
            seeds=(0, 1),
            trials=40,
            rewire_episodes=200,
            rewire_steps=50,
            e2_episodes=32,
            ideal_trials=20_000,
        )


@dataclass(frozen=True)
class Unit:
    """One part of the study on one agent seed ("e1", "e2"), or a retraining of the sweep (one
    gated kind with a learning rate and an update budget, every sweep seed; ``seed`` -1)."""

    part: str
    seed: int
    kind: str = ""
    lr: float = 0.0
    updates: int = 0

    def __str__(self) -> str:
        if self.part == "sweep":
            return f"sweep {self.kind} lr {self.lr:g} {self.updates} updates"
        return f"{self.part} seed {self.seed}"


def units(config: DissociationsConfig) -> list[Unit]:
    """Every (part, seed), part by part, then the sweep's retrainings."""
    sweep = [
        Unit("sweep", -1, kind, lr, n)
        for kind in config.e2_kinds
        for lr, n in config.sweep_settings
        if config.sweep_seeds
    ]
    return [Unit(part, s) for part in ("e1", "e2") for s in config.seeds] + sweep


def unit_of(row: Mapping[str, Any]) -> Unit:
    """The unit a row of any table belongs to."""
    if "lr" in row:
        return Unit("sweep", -1, row["kind"], float(row["lr"]), int(row["updates"]))
    part = row.get("part") or ("e1" if "block" in row else "e2")
    return Unit(part, int(row["seed"]))


E1_TRIALS = Table(
    "e1_trials",
    (
        "seed",
        "condition",
        "dose",
        "block",
        "trial",
        "stimulus",
        "decision",
        "confidence",
        "evidence_first",
        "evidence_second",
        "reader",
    ),
    text=("condition",),
    optional=("confidence", "reader"),
)
"""Every E1 trial: the condition ("intact", "silenced", "noise", "policy_route_off", "rewired")
and its dose, the block's salience, the stimulus, the decision (-1: none by the time limit), the
wager's confidence (float32 text; empty without a decision), both flashes' evidence for the right
side, and (intact) the policy's top softmax probability at the choice step."""
E2_REPORTS = Table(
    "e2_reports",
    (
        "seed",
        "kind",
        "slots",
        "episode",
        "colour_right",
        "object_right",
        "colour_held",
        "object_held",
        "rule_colour_held",
        "rule_object_held",
    ),
    text=("kind",),
)
"""Every E2 episode at every capacity: each report right, each cue held by the learned gate at its
report, and held by the overwrite rule on the same episode."""
AGENTS = Table(
    "agents",
    ("part", "seed", "kind", "heldout_agreement", "excluded", "source"),
    text=("part", "kind", "source"),
    optional=("heldout_agreement",),
)
"""Each agent's held-out agreement and whether the 95% criterion excluded it (protocol 5.3)."""
SWEEP = Table(
    "sweep",
    ("kind", "seed", "lr", "updates", "heldout_agreement", "conjunction_k4", "conjunction_k2"),
    text=("kind",),
    required=False,
)
"""The registered sweep (11.11): a gated kind's seed retrained with one learning rate and update
budget, its held-out agreement and its conjunction accuracy with 4 and 2 slots."""
TABLES = (E1_TRIALS, E2_REPORTS, AGENTS, SWEEP)


# ------------------------------------------------------------------------------ ideal observers
def ideal_observer(salience: float, trials: int, seed: int) -> dict:
    """The post-decision wager's ideal observer and its trivial readers in one block (11.2).

    Parameters
    ----------
    salience : float
        The block's ``lambda``.
    trials : int
        Simulated trials (M-ratios on the first 20,000 of them).
    seed : int
        The simulation's seed.

    Returns
    -------
    dict
        ``accuracy``, ``auroc_first``, ``auroc_second``, ``auroc_both``, the three ``m_ratio_*``
        and ``change_of_mind`` (the ideal confidence's mean when the second flash agrees with the
        choice minus when it contradicts it).

    Examples
    --------
    The first flash's accuracy is Phi(lambda / (sd sqrt 2)): 0.760 at lambda = 0.25:

    >>> out = ideal_observer(0.25, 100_000, seed=0)
    >>> round(out["accuracy"], 2), out["auroc_first"] < out["auroc_second"] < out["auroc_both"]
    (0.76, True)
    """
    from labcore.markers import ignore_undefined, meta_d_prime, type2_auroc

    sd = WageringConfig().cue_noise_sd  # the flashes' noise SD per entry
    rng = np.random.default_rng(seed)
    stimulus = rng.integers(2, size=trials)
    sign = 2.0 * stimulus - 1.0
    spread = sd * math.sqrt(2.0)
    e1 = sign * salience + rng.normal(0.0, spread, trials)
    e2 = sign * salience + rng.normal(0.0, spread, trials)
    choice = (e1 > 0).astype(int)
    c = 2.0 * choice - 1.0
    correct = choice == stimulus
    readers = {"first": np.abs(e1), "second": c * e2, "both": c * (e1 + e2)}
    out = {"accuracy": float(correct.mean())}
    keep = slice(0, min(trials, 20_000))
    for name, score in readers.items():
        out[f"auroc_{name}"] = float(type2_auroc(correct, score))
        with ignore_undefined():
            fit = meta_d_prime(stimulus[keep], choice[keep], score[keep], n_ratings=4)
        out[f"m_ratio_{name}"] = float(fit.m_ratio)
    confidence = 1.0 / (1.0 + np.exp(-salience * c * (e1 + e2) / sd**2))
    agree = c * e2 > 0
    out["change_of_mind"] = float(confidence[agree].mean() - confidence[~agree].mean())
    return out


# ------------------------------------------------------------------------------ running a unit
def e1_conditions(config: DissociationsConfig, seed: int) -> list[tuple[str, float, Intervention]]:
    """The E1 conditions of one seed (11.4), each ``(name, dose, intervention)``; every draw uses
    the agent seed (one order of silenced units per agent: nested doses)."""
    out = [("intact", 0.0, Intervention(seed=seed))]
    out += [
        ("silenced", f, Intervention(self_model_silenced=f, seed=seed))
        for f in config.silenced
        if f > 0
    ]
    out += [
        ("noise", sd, Intervention(self_model_noise=sd, seed=seed)) for sd in config.noise if sd > 0
    ]
    out.append(("policy_route_off", 0.0, Intervention(policy_route_off=True, seed=seed)))
    return out


def rewire(agent: Any, config: DissociationsConfig, seed: int) -> Any:
    """The rewire control (11.4d): a copy of ``agent`` whose confidence head alone is retrained,
    with z_self fully silenced, on the agent's own rollouts of the training distribution."""
    import torch

    import labcore.envs as E
    from labcore.envs.batch import StepKind
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds

    silenced = Intervention(self_model_silenced=1.0, seed=seed)
    episodes = episode_seeds(seed, "rewire", config.rewire_episodes)
    trace = rollout(agent, E.POST_DECISION_WAGER, episodes, silenced)
    wager = trace.valid & (trace.step_kind == StepKind.WAGER)
    rows, steps = np.nonzero(wager)
    correct = torch.as_tensor(trace.outcome["correct"][rows], dtype=torch.float32)
    h = torch.as_tensor(trace.h[rows, steps])
    slots = torch.as_tensor(trace.slots[rows, steps])
    occupied = torch.as_tensor(trace.occupied[rows, steps])
    with torch.no_grad():
        features = agent.readout(h, slots, occupied, silenced).confidence_input
    rewired = copy.deepcopy(agent)
    head = rewired.confidence_head.requires_grad_(True)  # a loaded agent is frozen
    optimiser = torch.optim.Adam(head.parameters(), lr=config.rewire_lr)
    for _ in range(config.rewire_steps):
        optimiser.zero_grad()
        logit = head(features).squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, correct)
        loss.backward()
        optimiser.step()
    return rewired.eval()


def run_e1(config: DissociationsConfig, seed: int) -> Rows:
    """Every E1 condition of one seed on every block, then the rewire control."""
    import torch

    from labcore.experiments.common import provide_agent
    from labcore.measures import post_decision
    from labcore.seeding import episode_seeds

    torch.set_num_threads(1)
    loaded, how = provide_agent(E1_TASK, E1_KIND, seed, config.cache, train_missing=False)
    agents = [_agent_row("e1", seed, E1_KIND, loaded, how, config.cache)]
    if loaded is None:
        return {AGENTS.name: agents}
    agent = loaded.agent
    episodes = episode_seeds(seed, "eval", config.trials)
    rows: list[dict] = []

    def evaluate(name: str, dose: float, which: Any, iv: Intervention) -> None:
        for block in config.blocks:
            trials, _ = post_decision(which, iv, episodes, block)
            fixed = {"seed": seed, "condition": name, "dose": dose, "block": block}
            for i, trial in enumerate(trials):
                reader = trial["reader"] if name == "intact" else None
                rows.append({**fixed, "trial": i, **trial, "reader": reader})

    for name, dose, iv in e1_conditions(config, seed):
        evaluate(name, dose, agent, iv)
    evaluate(
        "rewired",
        1.0,
        rewire(agent, config, seed),
        Intervention(self_model_silenced=1.0, seed=seed),
    )
    return {E1_TRIALS.name: rows, AGENTS.name: agents}


def run_e2(config: DissociationsConfig, seed: int) -> Rows:
    """Both gated kinds of one seed at every capacity, beside the overwrite rule's holdings."""
    import torch

    import labcore.envs as E
    from labcore.experiments.common import provide_agent
    from labcore.interventions import bus_capacity
    from labcore.measures import held_by_gate, rule_held
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds

    torch.set_num_threads(1)
    episodes = episode_seeds(seed, "eval", config.e2_episodes)
    rule = {k: rule_held(episodes, k) for k in CAPACITIES}
    rows: list[dict] = []
    agents = []
    for kind in config.e2_kinds:
        loaded, how = provide_agent(E2_TASK, kind, seed, config.cache, train_missing=False)
        agents.append(_agent_row("e2", seed, kind, loaded, how, config.cache))
        if loaded is None:
            continue
        for k in CAPACITIES:
            trace = rollout(loaded.agent, E.DUAL_TASK, episodes, bus_capacity(k, SLOTS))
            right = trace.report_correct()
            colour, obj = held_by_gate(trace.write_slot)
            for i in range(len(episodes)):
                rows.append(
                    {
                        "seed": seed,
                        "kind": kind,
                        "slots": k,
                        "episode": i,
                        "colour_right": int(right[i, 0]),
                        "object_right": int(right[i, 1]),
                        "colour_held": int(colour[i]),
                        "object_held": int(obj[i]),
                        "rule_colour_held": int(rule[k][0][i]),
                        "rule_object_held": int(rule[k][1][i]),
                    }
                )
    return {E2_REPORTS.name: rows, AGENTS.name: agents}


def _agent_row(part: str, seed: int, kind: str, loaded: Any, how: str, cache: str) -> dict:
    from labcore.storage.checkpoints import BUNDLED_DIR, checkpoint_name, read_manifest

    entry = None if loaded is None else loaded.entry
    if entry is None:  # an excluded agent is not loaded: its listing says how far it got
        task = E1_TASK if part == "e1" else E2_TASK
        name = checkpoint_name(task, kind, seed)
        for directory in (BUNDLED_DIR, Path(cache)):
            entry = entry or read_manifest(directory)["checkpoints"].get(name)
    agreement = None if entry is None else entry.get("heldout_agreement")
    return {
        "part": part,
        "seed": seed,
        "kind": kind,
        "heldout_agreement": agreement,
        "excluded": int(how == "excluded"),
        "source": how,
    }


def run_sweep(config: DissociationsConfig, unit: Unit) -> Rows:
    """One setting of the sweep (11.11): the sweep seeds of one gated kind retrained as one seed
    batch, each evaluated on its evaluation episodes with 4 and 2 slots."""
    import torch

    import labcore.envs as E
    from labcore.interventions import bus_capacity
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds
    from labcore.training.behaviour_cloning import train_seeds

    torch.set_num_threads(1)
    early = unit.updates <= TrainConfig().max_updates
    cfg = replace(
        TrainConfig(),
        lr=unit.lr,
        max_updates=unit.updates,
        min_updates=TrainConfig().min_updates if early else unit.updates,
    )
    rows = []
    for trained in train_seeds(E2_TASK, unit.kind, list(config.sweep_seeds), cfg):
        seed = trained.record["seed"]
        episodes = episode_seeds(seed, "eval", config.e2_episodes)
        conj = {
            k: float(
                rollout(trained.agent, E.DUAL_TASK, episodes, bus_capacity(k, SLOTS))
                .conjunction()
                .mean()
            )
            for k in (SLOTS, 2)
        }
        rows.append(
            {
                "kind": unit.kind,
                "seed": seed,
                "lr": unit.lr,
                "updates": unit.updates,
                "heldout_agreement": trained.record["heldout_agreement"],
                "conjunction_k4": conj[SLOTS],
                "conjunction_k2": conj[2],
            }
        )
    return {SWEEP.name: rows}


def run_unit(config: DissociationsConfig, unit: Unit, out: str) -> Rows:
    """One part on one seed (:func:`run_e1`, :func:`run_e2`, :func:`run_sweep`)."""
    if unit.part == "sweep":
        return run_sweep(config, unit)
    return run_e1(config, unit.seed) if unit.part == "e1" else run_e2(config, unit.seed)


def prepare(config: DissociationsConfig, out: Path, jobs: int, todo: Sequence[Unit] = ()) -> None:
    """Train the agents the units to run need and lack (neither bundled nor cached), as seed
    batches, into ``config.cache``."""
    from labcore.storage.checkpoints import BUNDLED_DIR
    from labcore.training.provision import missing_seeds, plan_batches, progress_bar, run_batches

    cfg = TrainConfig()
    requests = []
    for part, task, kinds in (("e1", E1_TASK, (E1_KIND,)), ("e2", E2_TASK, config.e2_kinds)):
        seeds = sorted({u.seed for u in todo if u.part == part})
        for kind in kinds:
            missing = missing_seeds(task, kind, seeds, [BUNDLED_DIR, config.cache], cfg)
            requests.append((task, kind, missing, cfg))
    batches = plan_batches(requests, config.cache, workers=jobs)
    if not batches:
        return
    bar, render = progress_bar("training missing agents", paper=False)
    try:
        run_batches(batches, workers=jobs, on_progress=render)
    finally:
        bar.close()


# ------------------------------------------------------------------------------ the findings
def e1_seed_values(rows: Sequence[Mapping[str, Any]]) -> dict[tuple, dict[str, float]]:
    """Per (condition, dose, seed): each measure's mean over the blocks, and per block under
    ``(condition, dose, seed, block)`` (:func:`labcore.measures.post_decision_values`)."""
    from labcore.measures import post_decision_values

    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault(
            (r["condition"], float(r["dose"]), r["seed"], float(r["block"])), []
        ).append(r)
    per_block = {key: post_decision_values(items) for key, items in groups.items()}
    pooled: dict[tuple, dict[str, float]] = {}
    for (cond, dose, seed, _block), values in per_block.items():
        pooled.setdefault((cond, dose, seed), {})
        for name, x in values.items():
            pooled[(cond, dose, seed)].setdefault(name, []).append(x)
    out: dict[tuple, dict[str, float]] = {
        key: {name: _mean(xs) for name, xs in values.items()} for key, values in pooled.items()
    }
    out.update(per_block)
    return out


def _mean(xs: Sequence[float]) -> float:
    """The mean of values that are all defined, else nan (a block without a value leaves the
    seed's pooled value undefined rather than resting on fewer blocks)."""
    return float(np.mean(xs)) if all(finite(x) for x in xs) else float("nan")


def slope(doses: Sequence[float], values: Sequence[float]) -> float:
    """The least-squares slope of ``values`` on ``doses`` (nan if a value is undefined).

    >>> slope([0, 1, 2], [1.0, 0.8, 0.6])
    -0.2
    """
    if not all(finite(v) for v in values) or len(values) < 2:
        return float("nan")
    return round(float(np.polyfit(np.asarray(doses, float), np.asarray(values, float), 1)[0]), 12)


def _finding(
    fid: str,
    question: str,
    summary: Any,
    unit: str = "number",
    measure: str = "",
    flags: Sequence[Flag] = (),
) -> Finding:
    interval = (
        Interval(low=summary.low, high=summary.high, method=summary.method)
        if summary.ci95 is not None
        else None
    )
    return Finding(
        id=fid,
        question=question,
        value=summary.mean,
        sd=summary.sd,
        n=summary.n,
        interval=interval,
        unit=unit,
        measure=measure,
        verdict="new (no paper number)",
        verdict_rule="new",
        flags=tuple(flags),
        study="dissociations",
        section=REGISTERED,
    )


def _above(s: Any, x: float = 0.0) -> bool:
    return s.ci95 is not None and s.low > x


def _within(s: Any, lo: float, hi: float) -> bool:
    return s.ci95 is not None and s.low >= lo and s.high <= hi


def e1_findings(
    config: DissociationsConfig, rows: Sequence[Mapping[str, Any]], ideal: dict
) -> tuple[list[Finding], dict[str, Any]]:
    """E1's findings and verdicts (11.7) from its trial rows; ``ideal``: the ideal observer per
    block (:func:`ideal_observer`)."""
    from labcore.stats import paired_summary, seed_summary

    values = e1_seed_values(rows)
    seeds = sorted({r["seed"] for r in rows})

    def per_seed(cond: str, dose: float, name: str) -> dict[int, float]:
        return {s: values[(cond, dose, s)][name] for s in seeds if (cond, dose, s) in values}

    intact = {m: per_seed("intact", 0.0, m) for m in ("accuracy", "auroc", "m_ratio")}
    full = max(config.silenced)
    silenced = {m: per_seed("silenced", full, m) for m in ("accuracy", "auroc", "m_ratio")}
    reader = per_seed("intact", 0.0, "reader_auroc")
    rewired = per_seed("rewired", 1.0, "auroc")
    ideal_both = float(np.mean([ideal[b]["auroc_both"] for b in config.blocks]))
    ideal_first = float(np.mean([ideal[b]["auroc_first"] for b in config.blocks]))
    findings: list[Finding] = []
    t = lambda d: seed_summary(list(d.values()), "t")  # noqa: E731

    room = paired_summary(intact["auroc"], reader)
    to_ideal = paired_summary(intact["auroc"], dict.fromkeys(intact["auroc"], ideal_both))
    ceiling = to_ideal.ci95 is not None and to_ideal.high >= 0
    ceiling_flag = Flag(kind="by_construction", rule="ceiling", params={"ideal": ideal_both})
    findings += [
        _finding(
            "e1m.accuracy.intact", "Accuracy of the intact agent", t(intact["accuracy"]), "percent"
        ),
        _finding(
            "e1m.auroc.intact",
            "Type-2 AUROC of the intact agent's wager",
            t(intact["auroc"]),
            "auroc",
            "type2_auroc",
            [ceiling_flag] if ceiling else [],
        ),
        _finding(
            "e1m.auroc.reader",
            "Type-2 AUROC of the policy's own top probability at the choice (what the choice had)",
            t(reader),
            "auroc",
            "type2_auroc",
        ),
        _finding(
            "e1m.room",
            "Does the wager use the post-decision flash? Intact AUROC minus the choice's reader",
            room,
            "difference",
        ),
    ]
    knowing = paired_summary(intact["auroc"], silenced["auroc"])
    doing = paired_summary(intact["accuracy"], silenced["accuracy"])
    silenced_auroc = t(silenced["auroc"])
    ranges = [
        values[("silenced", full, s)]["confidence_range"]
        for s in seeds
        if ("silenced", full, s) in values
    ]
    constant = sum(1 for x in ranges if x == 0)
    wiring = (
        [Flag(kind="by_construction", rule="constant", params={"seeds": constant})]
        if constant
        else []
    )
    findings += [
        _finding(
            "e1m.auroc.silenced",
            "Type-2 AUROC with every self-model unit silenced",
            silenced_auroc,
            "auroc",
            "type2_auroc",
            wiring,
        ),
        _finding(
            "e1m.accuracy.silenced",
            "Accuracy with every self-model unit silenced",
            t(silenced["accuracy"]),
            "percent",
        ),
        _finding(
            "e1m.knowing",
            "Knowing lost: AUROC drop when the self-model is silenced",
            knowing,
            "difference",
        ),
        _finding(
            "e1m.doing",
            "Doing lost: accuracy drop when the self-model is silenced",
            doing,
            "difference",
        ),
        _finding(
            "e1m.auroc.policy_route_off",
            "Type-2 AUROC with the confidence's policy route off (self-model intact)",
            t(per_seed("policy_route_off", 0.0, "auroc")),
            "auroc",
            "type2_auroc",
        ),
        _finding(
            "e1m.auroc.rewired",
            "Type-2 AUROC after retraining only the confidence read-out, self-model silenced",
            t(rewired),
            "auroc",
            "type2_auroc",
        ),
    ]
    recovered = {}
    for s in seeds:
        if s in intact["auroc"] and s in silenced["auroc"] and s in rewired:
            drop = intact["auroc"][s] - silenced["auroc"][s]
            if finite(drop) and drop >= MIN_DROP and finite(rewired[s]):
                recovered[s] = (rewired[s] - silenced["auroc"][s]) / drop
    recovered_summary = t(recovered)
    regain = paired_summary(rewired, silenced["auroc"])
    findings += [
        _finding(
            "e1m.rewire.recovered",
            "Share of the lost AUROC the rewire control recovers",
            recovered_summary,
            "ratio",
        ),
        _finding(
            "e1m.rewire.gain", "Rewired AUROC minus the silenced agent's", regain, "difference"
        ),
    ]
    # dose-response curves
    curves = []
    slopes = {}
    for cond, doses in (("silenced", config.silenced), ("noise", config.noise)):
        for m in ("accuracy", "auroc", "m_ratio"):
            keys = [("intact", 0.0) if d == 0 else (cond, float(d)) for d in doses]
            per = {
                s: slope(
                    doses, [values[(*k, s)][m] if (*k, s) in values else math.nan for k in keys]
                )
                for s in seeds
            }
            slopes[(cond, m)] = t(per)
            findings.append(
                _finding(
                    f"e1m.slope.{cond}.{m}",
                    f"Slope of {MEASURE_NAMES[m]} over the "
                    + ("silenced fraction" if cond == "silenced" else "self-model noise SD"),
                    slopes[(cond, m)],
                    "difference",
                )
            )
            curves += [
                {"condition": cond, "dose": float(d), "measure": m, **t(per_seed(*k, m)).as_dict()}
                for d, k in zip(doses, keys, strict=True)
            ]
    com = t(per_seed("intact", 0.0, "change_of_mind"))
    findings.append(
        _finding(
            "e1m.change_of_mind",
            "Confidence when the second flash agrees with the choice minus when it contradicts it",
            com,
            "difference",
        )
    )
    blocks = []
    for b in config.blocks:
        for cond, dose in (("intact", 0.0), ("silenced", full), ("rewired", 1.0)):
            for m in ("accuracy", "auroc", "m_ratio"):
                vals = {
                    s: values[(cond, dose, s, b)][m] for s in seeds if (cond, dose, s, b) in values
                }
                blocks.append({"block": b, "condition": cond, "measure": m, **t(vals).as_dict()})
    verdicts = {
        "room": "uses the post-decision evidence"
        if _above(room)
        else "reads only what the choice had",
        "ceiling": ceiling,
        "knowing": "abolished"
        if _above(knowing) and silenced_auroc.ci95 is not None and silenced_auroc.high < AT_CHANCE
        else ("reduced" if _above(knowing) else "kept"),
        "doing": "kept"
        if _within(doing, -DOING_MARGIN, DOING_MARGIN)
        else ("lost" if _above(doing, DOING_MARGIN) else "unclear"),
        "rewire": "restored"
        if recovered_summary.n and recovered_summary.mean >= 0.5 and _above(regain)
        else "not restored",
        "graded": _below(slopes[("silenced", "auroc")]),
        "graded_noise": _below(slopes[("noise", "auroc")]),
        "change_of_mind": _above(com),
        "constant_seeds": constant,
    }
    verdicts["dissociation"] = dissociation_e1(verdicts)
    tables = {
        "ideal": [{"block": b, **ideal[b]} for b in config.blocks],
        "ideal_mean": {"auroc_both": ideal_both, "auroc_first": ideal_first},
        "curves": curves,
        "blocks": blocks,
        "verdicts": verdicts,
    }
    return findings, tables


def _below(s: Any, x: float = 0.0) -> bool:
    return s.ci95 is not None and s.high < x


def dissociation_e1(verdicts: Mapping[str, Any]) -> str:
    """ "Doing without knowing" (11.7): "evidence" (doing kept, knowing abolished), "in part"
    (knowing reduced), "fails" (otherwise); never evidence of monitoring without room.

    >>> room = "uses the post-decision evidence"
    >>> dissociation_e1({"doing": "kept", "knowing": "abolished", "room": room})
    'evidence'
    >>> dissociation_e1({"doing": "kept", "knowing": "kept", "room": room})
    'fails'
    """
    if verdicts["doing"] != "kept" or verdicts["knowing"] == "kept":
        return "fails"
    if verdicts["room"] != "uses the post-decision evidence":
        return "no room"
    return "evidence" if verdicts["knowing"] == "abolished" else "in part"


def ideal_range(p: np.ndarray) -> tuple[float, float, float]:
    """An ideal agent's expected score over episodes with per-episode success probabilities ``p``
    and its 95% normal range (10.1): ``(mean, low, high)``."""
    p = np.asarray(p, float)
    mean = float(p.mean())
    half = 1.96 * math.sqrt(float((p * (1 - p)).sum())) / len(p)
    return mean, mean - half, mean + half


def e2_findings(
    config: DissociationsConfig, rows: Sequence[Mapping[str, Any]]
) -> tuple[list[Finding], dict[str, Any]]:
    """E2's findings and verdicts (11.10) from the report rows."""
    from labcore.measures import best_held
    from labcore.stats import paired_summary, seed_summary

    findings: list[Finding] = []
    capacity_rows = []
    verdicts: dict[str, Any] = {"learning_decides": {}, "flags": {}}
    dissociation = {}
    for kind in config.e2_kinds:
        mine = [r for r in rows if r["kind"] == kind]
        seeds = sorted({r["seed"] for r in mine})
        per: dict[int, dict[int, dict[str, float]]] = {k: {} for k in CAPACITIES}
        for k in CAPACITIES:
            for s in seeds:
                ep = [r for r in mine if r["slots"] == k and r["seed"] == s]
                if not ep:
                    continue
                c1 = np.array([r["colour_right"] for r in ep], bool)
                c2 = np.array([r["object_right"] for r in ep], bool)
                rc = np.array([r["rule_colour_held"] for r in ep], bool)
                ro = np.array([r["rule_object_held"] for r in ep], bool)
                bc, bo = best_held(k, len(ep))
                p_rule = np.where(rc, 1.0, GUESS) * np.where(ro, 1.0, GUESS)
                p_best = np.where(bc, 1.0, GUESS) * np.where(bo, 1.0, GUESS)
                per[k][s] = {
                    "conjunction": float((c1 & c2).mean()),
                    "decision": float((c1.mean() + c2.mean()) / 2),
                    "colour_held": float(np.mean([r["colour_held"] for r in ep])),
                    "object_held": float(np.mean([r["object_held"] for r in ep])),
                    "rule": ideal_range(p_rule),
                    "best": ideal_range(p_best),
                }
        full = {s: v["conjunction"] for s, v in per[SLOTS].items()}
        holds_here = False
        for k in CAPACITIES:
            conj = {s: v["conjunction"] for s, v in per[k].items()}
            summary = seed_summary(list(conj.values()), "t")
            rule = _pooled_range([v["rule"] for v in per[k].values()])
            best = _pooled_range([v["best"] for v in per[k].values()])
            flags = []
            if k == 0:
                flags.append(Flag(kind="by_construction", rule="empty bus"))
            elif finite(summary.mean) and best[1] <= summary.mean <= best[2]:
                flags.append(
                    Flag(kind="by_construction", rule="ceiling", params={"ideal": best[0]})
                )
            elif finite(summary.mean) and rule[1] <= summary.mean <= rule[2] and rule != best:
                flags.append(
                    Flag(kind="by_construction", rule="overwrite_rule", params={"ideal": rule[0]})
                )
            findings.append(
                _finding(
                    f"e2m.conjunction.{kind}.k{k}",
                    f"Conjunction accuracy of {KIND_NAMES.get(kind, kind)} with {k} slots",
                    summary,
                    "percent",
                    flags=flags,
                )
            )
            decides = None
            if 1 <= k < SLOTS:
                diff = paired_summary(conj, {s: v["rule"][0] for s, v in per[k].items()})
                decides = diff.ci95 is not None and not diff.low <= 0 <= diff.high
                drop = paired_summary(full, conj)
                if _above(drop) and not flags:
                    holds_here = True
            verdicts["learning_decides"][f"{kind}.k{k}"] = decides
            verdicts["flags"][f"{kind}.k{k}"] = flags[0].rule if flags else ""
            capacity_rows.append(
                {
                    "kind": kind,
                    "slots": k,
                    **summary.as_dict(),
                    **{
                        x: seed_summary([v[x] for v in per[k].values()], "t").mean
                        for x in ("decision", "colour_held", "object_held")
                    },
                    **dict(zip(("rule", "rule_low", "rule_high"), rule, strict=True)),
                    **dict(zip(("best", "best_low", "best_high"), best, strict=True)),
                }
            )
        any_loss = any(
            _above(paired_summary(full, {s: v["conjunction"] for s, v in per[k].items()}))
            for k in range(1, SLOTS)
        )
        dissociation[kind] = "evidence" if holds_here else ("design" if any_loss else "fails")
    verdicts["dissociation"] = dissociation
    return findings, {"capacity": capacity_rows, "verdicts": verdicts}


def _pooled_range(ranges: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Seeds' ideal ranges pooled into the range of their mean (independent seeds)."""
    if not ranges:
        return (float("nan"),) * 3
    means = np.array([r[0] for r in ranges])
    halves = np.array([(r[2] - r[1]) / 2 for r in ranges])
    mean = float(means.mean())
    half = float(np.sqrt((halves**2).sum()) / len(ranges))
    return mean, mean - half, mean + half


def summarise(config: DissociationsConfig, rows: Rows) -> StudySummary:
    """The study's findings, verdicts and answer from its rows (a pure function of them and the
    design: the ideal observer is simulated from the config's seed)."""
    ideal = {
        b: ideal_observer(b, config.ideal_trials, config.ideal_seed + i)
        for i, b in enumerate(config.blocks)
    }
    e1, e1_tables = e1_findings(config, rows.get(E1_TRIALS.name, []), ideal)
    e2, e2_tables = e2_findings(config, rows.get(E2_REPORTS.name, []))
    agents = rows.get(AGENTS.name, [])
    excluded = [f"{r['kind']} s{r['seed']}" for r in agents if r["excluded"]]
    sweep = rows.get(SWEEP.name, [])
    settings = sorted({(r["lr"], r["updates"]) for r in sweep})
    sweep_met = []
    for lr, n in settings:
        runs = [r for r in sweep if (r["lr"], r["updates"]) == (lr, n)]
        met = sum(r["heldout_agreement"] >= TrainConfig().agreement_threshold for r in runs)
        sweep_met.append({"lr": lr, "updates": n, "met": met, "of": len(runs)})
    e2_main = e2_tables["verdicts"]["dissociation"].get(config.e2_kinds[0], "fails")
    held = [e1_tables["verdicts"]["dissociation"] == "evidence", e2_main == "evidence"]
    answer = Answer(
        outcome={0: "none", 1: "one", 2: "both"}[sum(held)],
        findings=("e1m.knowing", "e1m.doing", "e1m.auroc.rewired", "e1m.room"),
        params={
            "e1": e1_tables["verdicts"]["dissociation"],
            "e2": e2_main,
            "excluded": excluded,
        },
    )
    return StudySummary(
        study="dissociations",
        registered=REGISTERED,
        seeds=list(config.seeds),
        findings=e1 + e2,
        answer=answer,
        tables={
            "e1": e1_tables,
            "e2": e2_tables,
            "agents": agents,
            "sweep": sweep,
            "sweep_met": sweep_met,
        },
    )


STUDY = Study(
    config=DissociationsConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    prepare=prepare,
    unit_of=unit_of,
)
