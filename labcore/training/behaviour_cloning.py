"""Behaviour cloning from the oracle, N seeds at once (paper sec. 4.3; protocol sec. 5.3).

N agents of one kind train as one seed-batched model (:mod:`labcore.agents.sequence`): every
member keeps its own initialisation, its own demonstrations (the episode seeds it gets when
trained alone), its own minibatches, noise and dropout draws (its own generator), its own
Adam state and its own convergence decision. Training one seed is a batch of one, through
the same code, so a member trained in a batch and the same seed trained alone compute the
same numbers (``tests/agents/test_training.py`` checks it).

Two schedules share the losses:

- **fast** (default): batched BPTT over whole episodes sampled from a pool of oracle
  demonstrations, stopped per member when its held-out loss stops improving (its best
  held-out weights are kept and it is frozen while the others go on);
- **paper**: the paper's schedule, online, one episode at a time and one optimizer update per
  environment step, with the exact gradient through the episode so far; the report weights
  (x3, x20) scale each step's loss (protocol change log, 2026-11-23).

Both report held-out oracle-action agreement (per-step argmax match); a seed below 95% is
flagged and excluded from analyses, as in the paper, unless its wiring makes the criterion
unattainable by construction (cue-blind agents), which is flagged instead.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium
import minigrid
import numpy as np
import torch

import labcore
import labcore.envs as E
from labcore import compute
from labcore.agents import Agent, build_agent
from labcore.checks import check_choice
from labcore.config import AGENT_KINDS, AgentConfig, TrainConfig, train_config_of
from labcore.seeding import episode_seeds, seed_everything
from labcore.training.cloning_losses import heldout_metrics
from labcore.training.demonstrations import member_demonstrations
from labcore.training.fast_schedule import _train_fast
from labcore.training.member_bookkeeping import ProgressFn, _Member
from labcore.training.member_parameters import MemberParameters
from labcore.training.paper_schedule import _train_paper
from labcore.training.wager_reward import warm_start

TASK_IDS = {"dual": E.DUAL_TASK, "wagering": E.WAGERING, "post_decision": E.POST_DECISION_WAGER}
"""Training task of each name; E2 and E3 agents are trained on the dual task, E1 agents on
wagering, E1's measured variant on the post-decision wager (protocol 11.2)."""


# ----------------------------------------------------------------------- the trainers
@dataclass
class TrainedAgent:
    """A trained agent and the record of how it was made (written beside its checkpoint)."""

    agent: Agent
    record: dict


def library_versions() -> dict[str, str]:
    """Versions of the libraries a training record was made with."""
    return {
        "labcore": labcore.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "gymnasium": gymnasium.__version__,
        "minigrid": minigrid.__version__,
        "python": platform.python_version(),
    }


def _resolve(task: str, kind: str | AgentConfig) -> AgentConfig:
    check_choice(task, "task", sorted(TASK_IDS))
    if isinstance(kind, str):
        check_choice(kind, "kind", AGENT_KINDS)
    config = AGENT_KINDS[kind] if isinstance(kind, str) else kind
    if not isinstance(config, AgentConfig):
        raise TypeError(f"kind must be an agent kind's name or an AgentConfig, got {kind!r}")
    return config


def train_seeds(
    task: str,
    kind: str | AgentConfig,
    seeds: Sequence[int],
    cfg: TrainConfig | None = None,
    progress: ProgressFn | None = None,
    resume: Path | str | None = None,
) -> list[TrainedAgent]:
    """Train one agent per seed, all seeds at once as one seed-batched model.

    Behaviour cloning's one entry (:func:`labcore.training.provision.train_and_save` picks it for
    the kinds
    it makes; a seed alone is a batch of one).

    Parameters
    ----------
    task : {"dual", "wagering"}
    kind : a preset name in ``AGENT_KINDS`` or an :class:`AgentConfig`
    seeds : agent seeds (weights, minibatches and their own disjoint episode seeds)
    cfg : training settings (fast mode by default)
    progress : called as ``progress(done, total, metrics)``
    resume : paper schedule only: a snapshot file. Every :data:`SNAPSHOT_EVERY` episodes the whole
        training state (weights, Adam's moments and steps, every generator, the members'
        book-keeping) is written there atomically; a run started with the snapshot of the same
        batch continues from it and ends with the numbers an uninterrupted run gives, bit for bit
        (``tests/agents/test_training.py``). A snapshot of another batch or config is ignored.
        The caller deletes it once the checkpoints are saved.

    Returns
    -------
    One :class:`TrainedAgent` per seed, in the order given.

    Notes
    -----
    A batch never has one row: PyTorch computes a batch of one matrix product as a plain
    matrix product, with kernels whose rounding differs from the batched ones. A seed trained
    alone therefore runs beside a *shadow* (an exact copy of itself, discarded at the end),
    and so does the last member still training in a batch. With two or more rows every
    member's arithmetic is independent of the others, so a seed gets the same weights,
    bit for bit, alone or in any batch (``tests/agents/test_training.py``).
    """
    config = _resolve(task, kind)
    cfg = train_config_of(
        config.kind, cfg or TrainConfig(), task
    )  # a kind's own training signal (E4)
    seeds = [int(s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct and at least one")
    torch.set_num_threads(cfg.threads)
    start = time.perf_counter()
    task_id = TASK_IDS[task]
    rows = seeds if len(seeds) > 1 else seeds * 2  # the second row of a solo run is its shadow
    train, heldout = member_demonstrations(
        task_id,
        [
            np.stack([episode_seeds(s, "train", cfg.train_episodes) for s in rows]),
            np.stack([episode_seeds(s, "heldout", cfg.heldout_episodes) for s in rows]),
        ],
    )
    agents = []
    for s in rows:
        seed_everything(s)  # each member's initialisation is what it gets when trained alone
        agents.append(build_agent(config, s))
        if cfg.meta_signal == "reward" and cfg.wager_start == "warm":  # protocol 8.8.2
            warm_start(agents[-1], task, cfg.warm_start_kind, s)
    members = [
        _Member(s, torch.Generator().manual_seed(s), shadow=k >= len(seeds))
        for k, s in enumerate(rows)
    ]
    params = MemberParameters(agents)
    if cfg.mode == "fast":
        states = _train_fast(config, params, members, train, heldout, cfg, progress)
    else:
        states = _train_paper(config, params, members, train, heldout, cfg, progress, resume)
    for agent, state in zip(agents, states, strict=True):
        agent.load_state_dict(state)
    finals = heldout_metrics(config, MemberParameters(agents), heldout, cfg)
    wall = round(time.perf_counter() - start, 3)
    attainable = config.cue_route != "none"
    out = []
    for member, agent, final in zip(members[: len(seeds)], agents, finals, strict=False):
        record = {
            "task": task,
            "task_id": task_id,
            "kind": config.kind,
            "seed": member.seed,
            "mode": cfg.mode,
            "meta_signal": cfg.meta_signal if config.self_model else None,
            "wrong_bet_payoff": cfg.wrong_bet_payoff
            if config.self_model and cfg.meta_signal == "reward"
            else None,
            "config": asdict(config),
            "train_config": asdict(cfg),
            "heldout_agreement": final["agreement"],
            "heldout_report_agreement": final["report_agreement"],
            "heldout_loss": final["loss"],
            "criterion_attainable": attainable,
            "meets_criterion": final["agreement"] >= cfg.agreement_threshold,
            "excluded": attainable and final["agreement"] < cfg.agreement_threshold,
            "updates": member.updates,
            "final_update": member.updates,
            "best_update": member.best_update,
            "episodes_seen": member.updates * cfg.batch_episodes
            if cfg.mode == "fast"
            else cfg.train_episodes,
            "batch_seeds": seeds,
            "wall_seconds": wall,
            "history": member.history,
            **(
                {"wager_start_update": member.wager_from, "wager_curve": member.curve}
                if config.self_model and cfg.meta_signal == "reward"
                else {}
            ),
            "versions": library_versions(),
            "compute": compute.fingerprint(cfg.threads),
        }
        agent.eval()
        out.append(TrainedAgent(agent, record))
    return out
