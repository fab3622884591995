"""The NeuroGym study (protocol sec. 8.6): on NeuroGym's post-decision wagering task, does an
agent trained from the task's reward alone take the sure option more often as coherence falls?

Exploratory, no paper number; its details (agent, inputs, actions, budget, measures, reading
rule, ceiling) were fixed in the protocol's change log (2026-11-23) before any agent was trained
on the task. Each seed trains E4 arm (b)'s architecture by actor-critic on NeuroGym's payoff
(:mod:`labcore.training.neurogym_trainer`) and is measured on 6000 held-out NeuroGym trials beside
the Bayesian ideal observer on the same trials. Added post hoc (change log, second entry of
2026-11-23 for sec. 8.6), and labelled so in every file: the same network trained to imitate
the ideal observer, the ceiling of what the architecture can represent. The reading rule, the files
and the findings: :mod:`labcore.experiments.neurogym_findings`.

Run: ``python -m labcore study neurogym --jobs 2`` (about 9 minutes on 2 cores). A unit is one seed
(both networks trained and saved in ``OUT/checkpoints``, task ``neurogym``, then measured).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from labcore.agents.neurogym import (
    agent_decisions,
    draw_trials,
    ideal_actions,
    ideal_posterior_correct,
    outcome_rows,
    payoffs,
)
from labcore.envs.neurogym_wager import sure_choice_by_coherence
from labcore.experiments.neurogym_findings import (
    BY_COHERENCE,
    CURVES,
    OBSERVERS,
    SEEDS,
    TABLES,
    NeuroGymTables,
    summarise,
)
from labcore.experiments.study import Rows, Study
from labcore.markers import type2_auroc
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES
from labcore.seeding import episode_seeds
from labcore.training.neurogym_trainer import IMITATION_UPDATES, NeuroGymRLConfig
from labcore.training.provision import train_network_and_save


@dataclass(frozen=True)
class NeuroGymStudyConfig:
    """Seeds and budgets of the study (the registered values by default)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    eval_trials: int = 6000
    """Held-out NeuroGym trials per seed for the measures (registered: 6000)."""
    rl: NeuroGymRLConfig = field(default_factory=NeuroGymRLConfig)
    imitation_updates: int = IMITATION_UPDATES
    """Budget of the post-hoc imitation ceiling (the rest of ``rl`` applies to it too)."""

    @classmethod
    def quick(cls) -> NeuroGymStudyConfig:
        """Two seeds, tiny budgets: a smoke test of the pipeline (numbers mean nothing)."""
        return cls(
            seeds=(0, 1),
            eval_trials=300,
            imitation_updates=6,
            rl=NeuroGymRLConfig(
                max_updates=6, eval_every=3, train_pool=300, heldout_trials=60, trials_per_update=32
            ),
        )


def units(study: NeuroGymStudyConfig) -> list[int]:
    """One unit per seed."""
    return list(study.seeds)


def unit_of(row: dict) -> int:
    """The unit (seed) a row of any of the study's tables belongs to."""
    return int(row["seed"])


def _sure_gap(table: list[dict[str, Any]]) -> float:
    """Sure rate at the low coherences minus at the high ones (the reading's per-seed value)."""
    rate = {row["coherence"]: row["sure_rate"] for row in table}
    low = [rate[c] for c in LOW_COHERENCES if c in rate]
    high = [rate[c] for c in HIGH_COHERENCES if c in rate]
    return float(np.mean(low) - np.mean(high)) if low and high else math.nan


def _signature(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Accuracy on trials without the offer and on offered trials where it was declined."""
    side = [r for r in rows if r["correct"] is not None]
    waived = [r["correct"] for r in side if r["sure_offered"]]
    plain = [r["correct"] for r in side if not r["sure_offered"]]
    return {
        "accuracy_not_offered": float(np.mean(plain)) if plain else math.nan,
        "accuracy_waived": float(np.mean(waived)) if waived else math.nan,
    }


def run_unit(study: NeuroGymStudyConfig, seed: int, out: str) -> Rows:
    """Train seed ``seed`` from reward (registered) and by imitation (post-hoc ceiling), save both
    checkpoints, and measure them and the ideal observer on the same held-out trials: the seed's
    rows of the three tables."""
    torch.set_num_threads(1)
    agents, records = {}, {}
    for name, trainer, cfg in (
        ("reward", "rl", study.rl),
        ("imitation", "imitation", replace(study.rl, max_updates=study.imitation_updates)),
    ):
        agents[name], records[name] = train_network_and_save(
            seed, cfg, Path(out) / "checkpoints", trainer=trainer
        )
    trials = draw_trials(int(episode_seeds(seed, "eval", 1)[0]), study.eval_trials)
    offered, truth = trials.sure_offered, 1 + trials.ground_truth
    ideal, p_correct = ideal_actions(trials)
    ideal_side, _ = ideal_posterior_correct(trials)
    decided = {name: agent_decisions(agent, trials) for name, agent in agents.items()}
    rows = {
        **{
            name: outcome_rows(trials, d["actions"], d["side_confidence"], d["p_sure"])
            for name, d in decided.items()
        },
        "ideal": outcome_rows(trials, ideal, p_correct),
    }
    tables = {name: sure_choice_by_coherence(r).to_dict("records") for name, r in rows.items()}
    values: dict[str, Any] = {"seed": seed}
    for name in OBSERVERS:
        values[f"{name}_reward"] = float(np.mean([r["reward"] for r in rows[name]]))
        values[f"{name}_sure_gap"] = _sure_gap(tables[name])
        values[f"{name}_sure_rate"] = float(
            np.mean([r["choice"] == "sure" for r, o in zip(rows[name], offered, strict=True) if o])
        )
        values.update({f"{name}_{k}": v for k, v in _signature(rows[name]).items()})
    for name, d in decided.items():
        # The policy's own pull towards the sure option (sampled, not greedy): its largest value
        # and whether it ranks errors above right answers (protocol 8.4's AUROC).
        right = d["side"] == truth
        values[f"{name}_max_p_sure"] = float(d["p_sure"][offered].max())
        values[f"{name}_auroc_opt_out"] = type2_auroc(right[offered], 1.0 - d["p_sure"][offered])
        values[f"{name}_side_accuracy"] = float(right.mean())
        values[f"{name}_wall_seconds"] = records[name]["wall_seconds"]
        values[f"{name}_best_update"] = records[name]["best_update"]
        early = {
            p["update"]: p["heldout_p_sure_offered"] for p in records[name]["sure_propensity_early"]
        }
        values[f"{name}_p_sure_start"] = early[0]
        values[f"{name}_p_sure_at_20"] = early.get(20, math.nan)
    values["ideal_auroc"] = type2_auroc(ideal_side == truth, p_correct)
    # What the sure option is worth: the ideal observer's reward if it never took it.
    never_sure = ideal.copy()
    never_sure[np.arange(len(trials)), trials.length - 1] = ideal_side
    values["ideal_no_sure_reward"] = float(payoffs(trials, never_sure).sum(1).mean())
    history = [
        {"seed": seed, "trainer": name, **h}
        for name, r in records.items()
        for h in sorted(r["history"] + r["sure_propensity_early"], key=lambda h: h["update"])
    ]
    table = [{"seed": seed, "observer": name, **row} for name in OBSERVERS for row in tables[name]]
    return {BY_COHERENCE.name: table, CURVES.name: history, SEEDS.name: [values]}


STUDY = Study(
    name="neurogym",
    title="NeuroGym's post-decision wager, our first training (protocol 8.6)",
    folder="explore_neurogym",
    config=NeuroGymStudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    tables_model=NeuroGymTables,
    unit_label=lambda seed: f"seed {seed}",
    unit_of=unit_of,
)
