"""The NeuroGym study (protocol sec. 8.6): on NeuroGym's post-decision wagering task, does an
agent trained from the task's reward alone take the sure option more often as coherence falls?

Run: ``python -m labcore study neurogym --jobs 2`` (about 9 minutes on 2 cores); a unit is one
seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from labcore.experiments.pdw import OUTCOME, above_zero, seed_estimate
from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Flag, StudySummary
from labcore.markers.sure_option import HIGH_COHERENCES, LOW_COHERENCES
from labcore.render import finite
from labcore.seeding import episode_seeds

if TYPE_CHECKING:
    from labcore.training.neurogym_trainer import NeuroGymRLConfig

STUDY_NAME = "neurogym"
OBSERVERS = ("reward", "imitation", "ideal")
"""Agents trained from NeuroGym's reward (registered), the same network imitating the ideal
observer (post hoc: the architecture's ceiling), and the ideal observer itself."""
TRAINED = ("reward", "imitation")
SEED_VALUES = (
    *(
        f"{o}_{m}"
        for o in OBSERVERS
        for m in ("reward", "sure_gap", "sure_rate", "accuracy_not_offered", "accuracy_waived")
    ),
    *(
        f"{o}_{m}"
        for o in TRAINED
        for m in (
            "max_p_sure",
            "auroc_opt_out",
            "side_accuracy",
            "wall_seconds",
            "best_update",
            "p_sure_start",
            "p_sure_at_20",
        )
    ),
    "ideal_auroc",
    "ideal_no_sure_reward",
)
"""Every number of one seed (``neurogym_seeds.csv``), in the order the study computes them."""

BY_COHERENCE = Table(
    "neurogym_by_coherence",
    (
        "seed", "observer", "coherence", "n_trials", "n_sure_offered", "sure_rate", "accuracy",
        "accuracy_not_offered", "accuracy_waived", "no_choice_rate",
    ),
    text=("observer",),
    optional=("sure_rate", "accuracy", "accuracy_not_offered", "accuracy_waived"),
)  # fmt: skip
CURVES = Table(
    "neurogym_curves",
    (
        "seed", "trainer", "update", "heldout_reward", "heldout_p_sure_offered",
        "heldout_p_sure_not_offered", "train_reward", "train_entropy", "train_imitation_loss",
    ),
    text=("trainer",),
    optional=(
        "heldout_reward", "heldout_p_sure_offered", "heldout_p_sure_not_offered",
        "train_reward", "train_entropy", "train_imitation_loss",
    ),
)  # fmt: skip
"""Each evaluation, and the early probes of the sure option's probability (post hoc;
``heldout_reward`` empty on a probe-only row)."""
SEEDS = Table("neurogym_seeds", ("seed", *SEED_VALUES), optional=SEED_VALUES)
TABLES = (BY_COHERENCE, CURVES, SEEDS)


# ----------------------------------------------------------------------- the design
def _trainer() -> Any:
    """:mod:`labcore.training.neurogym_trainer`, imported when a config is made (it loads torch)."""
    from labcore.training import neurogym_trainer

    return neurogym_trainer


@dataclass(frozen=True)
class NeuroGymStudyConfig:
    """Seeds and budgets of the study (the registered values by default)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    eval_trials: int = 6000
    """Held-out NeuroGym trials per seed for the measures (registered: 6000)."""
    rl: NeuroGymRLConfig = field(default_factory=lambda: _trainer().NeuroGymRLConfig())
    imitation_updates: int = field(default_factory=lambda: _trainer().IMITATION_UPDATES)
    """Budget of the post-hoc imitation ceiling (the rest of ``rl`` applies to it too)."""

    @classmethod
    def quick(cls) -> NeuroGymStudyConfig:
        """Two seeds, tiny budgets: a smoke test of the pipeline (numbers mean nothing)."""
        return cls(
            seeds=(0, 1),
            eval_trials=300,
            imitation_updates=6,
            rl=_trainer().NeuroGymRLConfig(
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


# ----------------------------------------------------------------------- running a unit
def run_unit(study: NeuroGymStudyConfig, seed: int, out: str) -> Rows:
    """Train seed ``seed`` from reward (registered) and by imitation (post-hoc ceiling), save both
    checkpoints, and measure them and the ideal observer on the same held-out trials: the seed's
    rows of the three tables."""
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
    from labcore.markers import type2_auroc
    from labcore.training.provision import train_network_and_save

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


# ----------------------------------------------------------------------- the findings
MEASURE_WORDS = {
    "reward": "Reward per trial",
    "sure_gap": "Sure option taken at 0 and 3.2% coherence minus at 25.6 and 51.2%",
    "sure_rate": "Share of the trials offering the sure option on which it is taken",
    "accuracy_not_offered": "Accuracy when the sure option is not offered",
    "accuracy_waived": "Accuracy when the sure option is offered and declined",
    "max_p_sure": "The policy's largest probability of the sure option on a trial offering it",
    "auroc_opt_out": "Type-2 AUROC of the policy's pull away from the sure option",
    "side_accuracy": "Accuracy of the side the policy prefers",
    "wall_seconds": "Training time in seconds",
    "best_update": "The update of the network kept",
    "p_sure_start": "Probability of the sure option before training (trials offering it)",
    "p_sure_at_20": "Probability of the sure option after 20 updates (trials offering it)",
    "auroc": "Type-2 AUROC of its posterior",
    "no_sure_reward": "Reward per trial if it never took the sure option",
}
"""What each seed mean answers (typed once), by measure."""
OBSERVER_WORDS = {
    "reward": "agents trained from NeuroGym's reward",
    "imitation": "the same network imitating the ideal observer",
    "ideal": "the ideal observer, same trials",
}
UNITS = {
    "reward": "number",
    "sure_gap": "difference",
    "max_p_sure": "number",
    "auroc_opt_out": "auroc",
    "auroc": "auroc",
    "wall_seconds": "number",
    "best_update": "count",
    "p_sure_start": "number",
    "p_sure_at_20": "number",
    "no_sure_reward": "number",
}
"""How each measure is written (every other one is a share: percent)."""
POST_HOC = Flag(
    kind="post_hoc",
    note="added after the registered agents: the architecture's ceiling (change log 2026-11-23)",
)


def _finding(key: str, est: dict[str, Any], **extra: Any) -> Finding:
    """The seed mean ``key`` (``<observer>_<measure>``) as a finding; ``extra`` overrides."""
    observer, measure = key.split("_", 1)
    fields = {
        "id": f"{STUDY_NAME}.{key}",
        "question": f"{MEASURE_WORDS[measure]} ({OBSERVER_WORDS[observer]})",
        **est,
        "unit": UNITS.get(measure, "percent"),
        "measure": {"sure_gap": "s1", "auroc": "type2_auroc", "auroc_opt_out": "type2_auroc"}.get(
            measure, ""
        ),
        "flags": (POST_HOC,) if observer == "imitation" else (),
        "study": STUDY_NAME,
        "files": (SEEDS.file,),
        "section": "protocol sec. 8.6",
    }
    return Finding(**(fields | extra))


def early_not_offered(curves: Sequence[Mapping[str, Any]]) -> float | None:
    """Mean P(sure) of the reward-trained agents after 20 updates on trials without the offer
    (None: no such probe in the study)."""
    values = [
        r["heldout_p_sure_not_offered"]
        for r in curves
        if r["trainer"] == "reward"
        and r["update"] == 20
        and finite(r["heldout_p_sure_not_offered"])
    ]
    return float(sum(values) / len(values)) if values else None


def _outcome(rises: bool | None, seeds: Sequence[Mapping[str, Any]]) -> str:
    if rises:
        return "rises"
    if rises is None:
        return "undecided"
    return "never_takes" if all(r["reward_sure_rate"] == 0 for r in seeds) else "does_not_rise"


def summarise(config: Any, rows: Rows) -> StudySummary:
    """The study's findings (every seed mean with its 95% t interval; the reading per observer),
    answer and tables from its rows."""
    seeds = rows[SEEDS.name]
    findings = []
    for key in SEED_VALUES:
        finding = _finding(key, seed_estimate(r[key] for r in seeds))
        if key.endswith("_sure_gap"):  # the reading rule, per observer
            finding = finding.model_copy(
                update={"hypothesis": "S1", "outcome": OUTCOME[above_zero(finding)]}
            )
        findings.append(finding)
    by_id = {f.id: f for f in findings}
    largest = [r["reward_max_p_sure"] for r in seeds if finite(r["reward_max_p_sure"])]
    findings.append(
        _finding(
            "reward_max_p_sure",
            {"value": max(largest) if largest else None, "n": len(largest)},
            id=f"{STUDY_NAME}.reward_max_p_sure.largest",
            question="The largest probability of the sure option on any held-out trial of any "
            "seed (agents trained from NeuroGym's reward)",
        )
    )
    ideal, never = by_id["neurogym.ideal_reward"], by_id["neurogym.ideal_no_sure_reward"]
    worth = None if None in (ideal.value, never.value) else ideal.value - never.value
    findings.append(
        Finding(
            id=f"{STUDY_NAME}.sure_worth",
            question="What the sure option is worth per trial to a perfect player (the ideal "
            "observer's reward minus its reward if it never took it)",
            value=worth,
            n=ideal.n,
            unit="number",
            measure="ideal_observer",
            study=STUDY_NAME,
            files=(SEEDS.file,),
            section="protocol sec. 8.6",
        )
    )
    early = early_not_offered(rows.get(CURVES.name, []))
    findings.append(
        _finding(
            "reward_p_sure_at_20",
            {"value": early, "n": len(seeds) if early is not None else 0},
            id=f"{STUDY_NAME}.reward_p_sure_not_offered_at_20",
            question="Probability of the sure option after 20 updates (trials not offering it; "
            "agents trained from NeuroGym's reward)",
            files=(CURVES.file,),
        )
    )
    gap = by_id["neurogym.reward_sure_gap"]
    answer = Answer(
        outcome=_outcome(above_zero(gap), seeds),
        findings=(
            "neurogym.reward_sure_gap",
            "neurogym.ideal_sure_gap",
            "neurogym.reward_reward",
            "neurogym.ideal_reward",
        ),
    )
    tables = {
        "low_coherences": list(LOW_COHERENCES),
        "high_coherences": list(HIGH_COHERENCES),
        "registered": "reward",
        "post_hoc": ["imitation"],
    }
    return StudySummary(
        study=STUDY_NAME,
        registered="docs/protocol.md sec. 8.6 and change log 2026-11-23",
        seeds=sorted(int(r["seed"]) for r in seeds),
        findings=findings,
        answer=answer,
        tables=tables,
    )


STUDY = Study(
    config=NeuroGymStudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    unit_label=lambda seed: f"seed {seed}",
    unit_of=unit_of,
)
