"""The NeuroGym study (protocol sec. 8.6): on NeuroGym's post-decision wagering task, does an
agent trained from the task's reward alone take the sure option more often as coherence falls?

Exploratory, no paper number; its details (agent, inputs, actions, budget, measures, reading
rule, ceiling) were fixed in the protocol's change log (2026-11-23) before any agent was trained
on the task. Each seed trains E4 arm (b)'s architecture by actor-critic on NeuroGym's payoff
(:mod:`labcore.training.neurogym_trainer`) and is measured on 6000 held-out NeuroGym trials beside
the
Bayesian ideal observer on the same trials. Added post hoc (change log, second entry of
2026-11-23 for sec. 8.6), and labelled so in every file: the same network trained to imitate
the ideal observer, the ceiling of what the architecture can represent.

Run: ``python -m labcore explore neurogym --out results/explore_neurogym --jobs 2`` (about
9 minutes on 2 cores). Files written to ``out``: ``neurogym_by_coherence.csv`` (one row per
seed, observer and coherence), ``neurogym_curves.csv`` (held-out reward over training),
``summary.json`` (per-seed values, the reading, the answer), ``figure.json`` (the figure) and
``checkpoints/`` (the trained agents, task ``neurogym``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

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
from labcore.seeding import episode_seeds
from labcore.stats import t_interval
from labcore.storage.results import write_csv, write_result_json
from labcore.training.neurogym_trainer import IMITATION_UPDATES, NeuroGymRLConfig
from labcore.training.provision import train_network_and_save

LOW_COHERENCES = (0.0, 3.2)
HIGH_COHERENCES = (25.6, 51.2)
"""The reading rule's two ends (change log 2026-11-23, item 6)."""
OBSERVERS = ("reward", "imitation", "ideal")
"""Agents trained from NeuroGym's reward (registered), the same network imitating the ideal
observer (post hoc: the architecture's ceiling), and the ideal observer itself."""
TABLE_FIELDS = (
    "seed",
    "observer",
    "coherence",
    "n_trials",
    "n_sure_offered",
    "sure_rate",
    "accuracy",
    "accuracy_not_offered",
    "accuracy_waived",
    "no_choice_rate",
)
CURVE_FIELDS = (
    "seed",
    "trainer",
    "update",
    "heldout_reward",
    "heldout_p_sure_offered",
    "heldout_p_sure_not_offered",
    "train_reward",
    "train_entropy",
    "train_imitation_loss",
)
"""``neurogym_curves.csv``: each evaluation, and the early probes of the sure option's probability
(post hoc; ``heldout_reward`` empty on a probe-only row)."""


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


def measure_seed(seed: int, study: NeuroGymStudyConfig, out: Path) -> dict[str, Any]:
    """Train seed ``seed`` from reward (registered) and by imitation (post-hoc ceiling), save both
    checkpoints, and measure them and the ideal observer on the same held-out trials."""
    agents, records = {}, {}
    for name, trainer, cfg in (
        ("reward", "rl", study.rl),
        ("imitation", "imitation", replace(study.rl, max_updates=study.imitation_updates)),
    ):
        agents[name], records[name] = train_network_and_save(
            seed, cfg, out / "checkpoints", trainer=trainer
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
        {"trainer": name, **h}
        for name, r in records.items()
        for h in sorted(r["history"] + r["sure_propensity_early"], key=lambda h: h["update"])
    ]
    return {"values": values, "tables": tables, "history": history}


def _reading(per_seed: list[dict[str, Any]], name: str) -> dict[str, Any]:
    gaps = [v[f"{name}_sure_gap"] for v in per_seed]
    low, high = t_interval(gaps) if len(gaps) >= 2 else (math.nan, math.nan)
    return {
        "mean": float(np.nanmean(gaps)),
        "ci95": [low, high],
        "n": len(gaps),
        "rises": bool(low > 0) if math.isfinite(low) else None,
    }


def summarise(results: list[dict[str, Any]], study: NeuroGymStudyConfig) -> dict[str, Any]:
    """The study's summary: per-seed values, seed means with t intervals, the reading."""
    per_seed = [r["values"] for r in results]
    keys = [k for k in per_seed[0] if k != "seed"]
    means = {}
    for key in keys:
        xs = np.array([v[key] for v in per_seed], dtype=float)
        finite = xs[np.isfinite(xs)]
        ci = t_interval(finite) if finite.size >= 2 else (math.nan, math.nan)
        means[key] = {
            "mean": float(finite.mean()) if finite.size else math.nan,
            "ci95": list(ci),
            "n": int(finite.size),
        }
    agent = _reading(per_seed, "reward")
    who = "agents trained from NeuroGym's reward alone"
    if agent["rises"]:
        answer = f"yes: {who} take the sure option more often as coherence falls"
    elif agent["rises"] is None:
        answer = "not decided (fewer than two seeds)"
    else:
        never = all(v["reward_sure_rate"] == 0 for v in per_seed)
        answer = f"no: {who} do not take the sure option more often as coherence falls" + (
            " (they never take it)" if never else ""
        )
    return {
        "schema_version": 1,
        "study": "neurogym",
        "task": "NeuroGym PostDecisionWager-v0",
        "protocol": "docs/protocol.md sec. 8.6 and change log 2026-11-23",
        "config": asdict(study),
        "seeds": list(study.seeds),
        "low_coherences": list(LOW_COHERENCES),
        "high_coherences": list(HIGH_COHERENCES),
        "reading": {name: _reading(per_seed, name) for name in OBSERVERS},
        "answer": answer,
        "registered": "reward",
        "post_hoc": ["imitation"],
        "means": means,
        "per_seed": per_seed,
    }


def run(
    out: Path | str,
    study: NeuroGymStudyConfig | None = None,
    workers: int = 1,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the study into ``out`` (module docstring: the files) and return its summary."""
    study = study or NeuroGymStudyConfig()
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(measure_seed, s, study, out) for s in study.seeds]
            results = [f.result() for f in futures]
    else:
        results = [measure_seed(s, study, out) for s in study.seeds]
    for r in results:
        if say is not None:
            v = r["values"]
            say(
                f"seed {v['seed']}: reward per trial {v['reward_reward']:.3f} "
                f"(imitation {v['imitation_reward']:.3f}, "
                f"ideal {v['ideal_reward']:.3f}); sure gap {v['reward_sure_gap']:+.3f} (imitation "
                f"{v['imitation_sure_gap']:+.3f}, ideal {v['ideal_sure_gap']:+.3f}); "
                f"{v['reward_wall_seconds']:.0f} s "
                f"+ {v['imitation_wall_seconds']:.0f} s"
            )
    table = [
        {"seed": r["values"]["seed"], "observer": name, **row}
        for r in results
        for name in OBSERVERS
        for row in r["tables"][name]
    ]
    write_csv(out / "neurogym_by_coherence.csv", TABLE_FIELDS, table)
    curves = [{"seed": r["values"]["seed"], **h} for r in results for h in r["history"]]
    write_csv(out / "neurogym_curves.csv", CURVE_FIELDS, curves)
    summary = summarise(results, study)
    write_result_json(out / "summary.json", summary, indent=1)
    return summary


def answer_paragraph(summary: dict[str, Any]) -> str:
    """The study's answer in one paragraph, every number read from ``summary`` (README and page).

    Raises ``KeyError`` on a summary without the study's fields (check it with
    :func:`labcore.storage.studies.load_neurogym` first).
    """
    means, reading = summary["means"], summary["reading"]

    def m(key: str) -> float:
        return means[key]["mean"]

    def interval(value: dict[str, Any], fmt: str) -> str:
        low, high = value.get("ci95") or (None, None)
        shown = fmt.format(value["mean"])
        if low is None or high is None:
            return f"{shown} (n = {value['n']})"
        return f"{shown} (95% t interval {fmt.format(low)} to {fmt.format(high)}, n = {value['n']})"

    rises = reading["reward"].get("rises")
    verdict = (
        "Yes"
        if rises
        else ("Not decided" if rises is None else "No, not on NeuroGym's task either")
    )
    finding = summary["answer"].split(": ", 1)[-1]
    at_20 = means["reward_p_sure_at_20"]["mean"]
    collapse = ""
    if at_20 is not None:
        largest = max(v["reward_max_p_sure"] for v in summary["per_seed"])
        collapse = (
            f" Its probability falls from {m('reward_p_sure_start'):.2f} before "
            f"training to {at_20:.3f} after "
            "20 updates (seed means, trials offering it); after training it is at "
            f"most {largest:.1e} on any "
            "held-out trial of any seed."
        )
    return (
        f"**{verdict}.** {finding[0].upper()}{finding[1:]}. On NeuroGym's "
        "`PostDecisionWager-v0` (a side pays 1 if right, the sure option 0.7 on the "
        "half of the trials that offer "
        f"it), the sure option at 0 and 3.2% coherence minus at 25.6 and 51.2% is "
        f"{interval(reading['reward'], '{:+.3f}')} for agents of arm (b)'s "
        "architecture trained from the payoff "
        f"alone, against {reading['ideal']['mean']:+.3f} for a Bayesian ideal observer "
        "on the same trials. They "
        "choose sides almost as well as it does (reward per trial "
        f"{m('reward_reward'):.3f}; the ideal observer "
        f"{m('ideal_reward'):.3f}, or {m('ideal_no_sure_reward'):.3f} without the sure "
        "option: the option is worth "
        f"only {m('ideal_reward') - m('ideal_no_sure_reward'):.3f} per trial to a "
        "perfect player). Post hoc, the same "
        "network trained to imitate the ideal observer takes the sure option on "
        f"{m('imitation_sure_rate'):.1%} of "
        "the trials offering it, more at low coherence (difference "
        f"{reading['imitation']['mean']:+.3f}), so the "
        "architecture can represent the behaviour; learning from reward gives it up "
        "early: before the agent reads "
        "the sure cue the option is worth 0.3 on average (0.7 or -0.1), less than a "
        f"guessed side (0.5).{collapse} "
        "Reproduce: `python -m labcore explore neurogym --out results/explore_neurogym --jobs 2`."
    )
