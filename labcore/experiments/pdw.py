"""Song, Yang & Wang (2017) reproduced on NeuroGym's post-decision wager (protocol sec. 8.7).

Registered 2026-11-24 before any agent of it trained. Each seed trains Song et al.'s plain GRU
and our B2 family (``reward_all``) from NeuroGym's payoff alone under the Song setting
(:data:`labcore.training.neurogym_trainer.SONG_2017`, stopped by the registered behavioural
criterion, cap 12,000 updates), and, as post-hoc context (8.6's architecture ceiling), each network
imitating the ideal observer. Every network and the ideal observer act on the seed's 12,000
evaluation trials; the signatures (:mod:`labcore.markers.sure_option`) are read from the policy's
sampled choices (greedy ones written beside), and the registered reading is S1 and S2 over seeds
(:mod:`labcore.experiments.pdw_findings`).

Run: ``python -m labcore study pdw --jobs 2`` (upper bound about 45 min on 2 cores: every network to
its cap; the criterion usually stops it earlier). A unit is one network (or the ideal observer on
one seed); each trained network is saved through the checkpoint manifest in ``OUT/checkpoints``
(:func:`labcore.training.provision.train_network_and_save`) and measured again from there, so a
stopped run continues with the networks not yet finished; a checkpoint trained with another
configuration stops the run with one sentence. The reward explorer trains and measures its networks
with the same :func:`measured_network` (:mod:`labcore.experiments.pdw_sweep`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from labcore.agents.neurogym import NeuroGymTrials, draw_trials, ideal_actions, outcome_rows
from labcore.experiments.pdw_findings import (
    BY_COHERENCE,
    CURVES,
    IDEAL,
    POLICIES,
    SEEDS,
    TABLES,
    TRAININGS,
    TRIALS,
    TRIALS_GREEDY,
    PDWTables,
    by_coherence_rows,
    curve_rows,
    signature_values,
    summarise,
)
from labcore.experiments.study import Rows, Study
from labcore.seeding import MEASURE_SAMPLING_SEED_BASE, episode_seeds
from labcore.storage.checkpoints import (
    CheckpointError,
    checkpoint_file,
    load_checkpoint,
    read_record,
)
from labcore.training.neurogym_trainer import (
    IMITATION_UPDATES,
    REGISTERED_8_6,
    SONG_2017,
    NeuroGymRLConfig,
    policy_actions,
)
from labcore.training.provision import train_network_and_save

CHECKPOINTS = "checkpoints"
"""Where a study's trained networks are saved (its folder; not bundled)."""


@dataclass(frozen=True)
class PDWConfig:
    """Seeds, agents and budgets of the reproduction (the registered values by default)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    agents: tuple[str, ...] = ("plain_gru", "b2_ws")
    rl: NeuroGymRLConfig = SONG_2017
    """The reward training (registered: the Song setting)."""
    imitation: NeuroGymRLConfig = field(
        default_factory=lambda: replace(REGISTERED_8_6, max_updates=IMITATION_UPDATES)
    )
    """The post-hoc imitation ceiling (8.6's: 800 updates of 256 trials)."""
    eval_trials: int = 12_000
    """Evaluation trials per seed (registered: 12,000)."""

    @classmethod
    def quick(cls) -> PDWConfig:
        """Two seeds, tiny budgets: a smoke test of the pipeline (its numbers mean nothing)."""
        tiny = {"train_pool": 300, "heldout_trials": 60, "trials_per_update": 16}
        return cls(
            seeds=(0, 1),
            eval_trials=300,
            rl=replace(SONG_2017, max_updates=6, eval_every=3, **tiny),
            imitation=replace(REGISTERED_8_6, max_updates=4, eval_every=2, **tiny),
        )


@dataclass(frozen=True)
class Network:
    """One unit: a network to train and measure (or the ideal observer on one seed's trials)."""

    agent: str
    training: str
    seed: int
    cell: str = "repro"

    def __str__(self) -> str:
        return f"{self.cell} {self.agent} {self.training} seed{self.seed}"

    @property
    def checkpoint(self) -> str:
        """Its checkpoint's file stem (derived from the unit, never a timestamp)."""
        cell = self.cell.replace("+", "-plus-").replace("~", "-held-")
        return f"pdw-{cell}-{self.agent}-{self.training}-s{self.seed}"


def units(config: PDWConfig) -> list[Network]:
    """Every network of the reproduction, the longest first (B2 from reward), then the ideal
    observer on each seed."""
    order = [
        ("reward", "b2_ws"),
        ("reward", "plain_gru"),
        ("imitation", "b2_ws"),
        ("imitation", "plain_gru"),
    ]
    networks = [
        Network(agent, training, seed)
        for training, agent in order
        if agent in config.agents
        for seed in config.seeds
    ]
    return networks + [Network(IDEAL, "ideal", seed) for seed in config.seeds]


def unit_of(row: dict) -> Network:
    """The unit a row of any of the reproduction's tables belongs to."""
    return Network(row["agent"], row["training"], int(row["seed"]))


@functools.lru_cache(maxsize=2)
def evaluation_trials(seed: int, n: int) -> NeuroGymTrials:
    """The seed's evaluation trials (its eval block), shared by every network and the ideal
    observer."""
    return draw_trials(int(episode_seeds(seed, "eval", 1)[0]), n)


def levels_of(trials: NeuroGymTrials) -> list[float]:
    """The task's coherence levels, ascending."""
    return sorted(float(c) for c in trials.cohs)


def trained_network(unit: Network, cfg: NeuroGymRLConfig, out: Path | str) -> tuple[Any, dict]:
    """``unit``'s network and its training record: loaded from ``OUT/checkpoints`` (through the
    manifest) if it was trained there, else trained and saved there. A checkpoint trained with
    another configuration raises :class:`CheckpointError` (one sentence; kind ``other_config``)."""
    folder = Path(out) / CHECKPOINTS
    path = checkpoint_file(folder, unit.checkpoint)
    wanted = json.loads(json.dumps(asdict(cfg)))
    if path.exists():
        record = read_record(folder, unit.checkpoint)
        if record.get("train_config") != wanted:
            raise CheckpointError(
                f"{path} holds a network trained with another configuration; use a fresh --out "
                "(or delete that file) to train this one.",
                "other_config",
            )
        return load_checkpoint(path).agent, record
    folder.mkdir(parents=True, exist_ok=True)
    return train_network_and_save(
        unit.seed,
        cfg,
        folder,
        trainer=TRAININGS[unit.training],
        agent=unit.agent,
        name=unit.checkpoint,
    )


def trial_rows(trials: NeuroGymTrials, actions: np.ndarray, unit: Network) -> dict[str, list]:
    """The columns of ``pdw_trials.csv`` for one observer's actions, with each trial's reward."""
    rows = outcome_rows(trials, actions)
    return {
        "coherence": [r["coherence"] for r in rows],
        "sure_offered": [int(r["sure_offered"]) for r in rows],
        "choice": [r["choice"] for r in rows],
        "correct": [None if r["correct"] is None else int(r["correct"]) for r in rows],
        "reward": [r["reward"] for r in rows],
    }


def measured_network(
    unit: Network, cfg: NeuroGymRLConfig, eval_trials: int, out: Path | str
) -> dict[str, Any]:
    """Train (or load) ``unit``'s network and act on its seed's evaluation trials: its record,
    the task's coherence levels, and per policy the trials' columns and the numbers of
    :func:`~labcore.experiments.pdw_findings.signature_values`."""
    torch.set_num_threads(1)
    net, record = trained_network(unit, cfg, out)
    trials = evaluation_trials(unit.seed, eval_trials)
    generator = torch.Generator().manual_seed(MEASURE_SAMPLING_SEED_BASE + unit.seed)
    actions = policy_actions(net, trials, generator)
    levels = levels_of(trials)
    columns = {p: trial_rows(trials, actions[p], unit) for p in POLICIES}
    values = {p: signature_values(**columns[p], levels=levels) for p in POLICIES}
    return {
        "record": {**record, "training": unit.training},
        "levels": levels,
        "trials": columns,
        "values": values,
    }


def _trial_table(columns: dict[str, list], unit: Network) -> list[dict[str, Any]]:
    ident = {"agent": unit.agent, "seed": unit.seed, "training": unit.training}
    keys = ("coherence", "sure_offered", "choice", "correct")
    return [
        {**ident, **dict(zip(keys, row, strict=True))}
        for row in zip(*(columns[k] for k in keys), strict=True)
    ]


def run_unit(config: PDWConfig, unit: Network, out: str) -> Rows:
    """One network trained (or loaded) and measured, or the ideal observer on one seed: its rows
    of every table of the reproduction."""
    if unit.training == "ideal":
        trials = evaluation_trials(unit.seed, config.eval_trials)
        columns = trial_rows(trials, ideal_actions(trials)[0], unit)
        ident = {"agent": unit.agent, "training": "ideal", "seed": unit.seed, "policy": "ideal"}
        levels = levels_of(trials)
        table = _trial_table(columns, unit)
        return {
            TRIALS.name: table,
            TRIALS_GREEDY.name: table,
            BY_COHERENCE.name: by_coherence_rows(columns, ident, levels),
            SEEDS.name: [{**ident, **signature_values(**columns, levels=levels)}],
        }
    cfg = config.rl if unit.training == "reward" else config.imitation
    found = measured_network(unit, cfg, config.eval_trials, out)
    record = found["record"]
    training = {k: record[k] for k in ("updates", "stopped", "wall_seconds")}
    rows: Rows = {
        TRIALS.name: _trial_table(found["trials"]["sampled"], unit),
        TRIALS_GREEDY.name: _trial_table(found["trials"]["greedy"], unit),
        BY_COHERENCE.name: [],
        CURVES.name: curve_rows(record, unit.cell, found["levels"]),
        SEEDS.name: [],
    }
    for policy in POLICIES:
        ident = {
            "agent": unit.agent,
            "training": unit.training,
            "seed": unit.seed,
            "policy": policy,
        }
        rows[BY_COHERENCE.name] += by_coherence_rows(
            found["trials"][policy], ident, found["levels"]
        )
        rows[SEEDS.name].append({**ident, **training, **found["values"][policy]})
    return rows


STUDY = Study(
    name="pdw",
    title="Song et al. 2017 reproduced on NeuroGym's post-decision wager (protocol 8.7)",
    folder="pdw",
    config=PDWConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    tables_model=PDWTables,
    unit_label=str,
    unit_of=unit_of,
)
