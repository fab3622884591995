"""Behaviour cloning from the oracle (paper sec. 4.3; protocol sec. 5.3).

Two schedules share the losses:

- **fast** (default): batched BPTT over whole episodes sampled from a pool of oracle
  demonstrations, budgeted by optimizer updates and stopped when the held-out loss stops
  improving (the best held-out weights are kept);
- **paper**: the paper's schedule, online, one episode at a time and one optimizer update per
  environment step, with the exact gradient through the episode so far.

Both report held-out oracle-action agreement (per-step argmax match); a seed below 95% is
flagged and excluded from analyses, as in the paper, unless its wiring makes the criterion
unattainable by construction (cue-blind agents), which is flagged instead.
"""

from __future__ import annotations

import copy
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

import labcore
import labcore.envs as E
from labcore.agents import Agent, AgentOutput, Observation, build_agent
from labcore.config import AGENT_KINDS, AgentConfig, TrainConfig
from labcore.envs.batch import Demonstrations, StepKind, oracle_demonstrations, report_mask
from labcore.seeding import episode_seeds, seed_everything

TASK_IDS = {"dual": E.DUAL_TASK, "wagering": E.WAGERING}
"""Training task of each name; E2 and E3 agents are trained on the dual task, E1 agents on wagering."""

@dataclass
class DemoTensors:
    """Oracle demonstrations as torch tensors, with per-step loss weights."""

    obs: Observation
    action: torch.Tensor
    step_kind: torch.Tensor
    valid: torch.Tensor
    stimulus: torch.Tensor | None

    @classmethod
    def from_demonstrations(cls, demos: Demonstrations) -> DemoTensors:
        """Convert the simulator's oracle demonstrations to tensors."""
        pose = torch.as_tensor(np.array(demos.pose))
        obs = Observation(
            direction=torch.as_tensor(np.array(demos.direction_table))[pose],
            task=torch.as_tensor(np.array(demos.task)),
            cue=torch.as_tensor(np.array(demos.cue)),
            pose=pose,
            image_table=torch.as_tensor(np.array(demos.image_table)),
        )
        stimulus = demos.labels.get("stimulus")
        return cls(
            obs=obs,
            action=torch.as_tensor(np.array(demos.action)),
            step_kind=torch.as_tensor(np.array(demos.step_kind)).long(),
            valid=torch.as_tensor(np.array(demos.valid)),
            stimulus=None if stimulus is None else torch.as_tensor(np.array(stimulus)).float(),
        )

    def __len__(self) -> int:
        return self.action.shape[0]

    def index(self, episodes: Any, steps: slice = slice(None)) -> DemoTensors:
        """Select episodes (any index) and a range of steps."""
        item = (episodes, steps)
        return DemoTensors(self.obs.index(item), self.action[item], self.step_kind[item],
                           self.valid[item], None if self.stimulus is None else self.stimulus[episodes])

    def prefix(self, length: int) -> DemoTensors:
        """The first ``length`` steps of every episode."""
        return self.index(slice(None), slice(0, length))


def step_weights(step_kind: torch.Tensor, valid: torch.Tensor, cfg: TrainConfig) -> torch.Tensor:
    """Per-step weight of the imitation loss (paper sec. 4.3.2).

    Ordinary steps 1; report steps ``report_weight`` (3); the primary-cue report additionally
    ``primary_class_weight`` (x20); wager steps 0 (the wager is the confidence head's job,
    and the oracle, always right, would only teach "always bet"); padding 0.
    """
    w = torch.ones(step_kind.shape)
    w[step_kind == StepKind.REPORT_1] = cfg.report_weight
    w[step_kind == StepKind.REPORT_2] = cfg.report_weight * cfg.primary_class_weight
    w[step_kind == StepKind.WAGER] = 0.0
    return w * valid.float()


@dataclass
class Losses:
    """The total training loss and its parts (as numbers, for logs)."""
    total: torch.Tensor
    parts: dict[str, float] = field(default_factory=dict)


def _weighted_ce(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    # KL(oracle || agent) with a one-hot oracle is the cross-entropy of the oracle action.
    ce = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), reduction="none")
    return (ce * weight.reshape(-1)).sum() / weight.sum().clamp(min=1e-8)


def compute_losses(agent: Agent, out: AgentOutput, batch: DemoTensors, cfg: TrainConfig,
                   step_mask: torch.Tensor | None = None) -> Losses:
    """Imitation, metacognition, stimulus-probe and z_self activity losses.

    ``step_mask`` restricts every term to some steps (the paper schedule uses one step).
    """
    c = agent.config
    valid = batch.valid if step_mask is None else batch.valid & step_mask
    weight = step_weights(batch.step_kind, valid, cfg)
    target = torch.where(batch.valid, batch.action, torch.zeros_like(batch.action))
    parts = {}
    total = _weighted_ce(out.logits, target, weight)
    parts["imitation"] = total.item()
    if c.self_model and c.policy_reads == "self_model":
        # The proposal is the agent's intended action (protocol 5.2): it imitates too.
        proposal = _weighted_ce(out.proposal_logits, target, weight)
        total = total + proposal
        parts["proposal"] = proposal.item()
    report = report_mask(batch.step_kind, valid)
    if c.self_model and cfg.meta_weight > 0 and report.any():
        # Target: is the agent's own argmax decision correct? (paper sec. 4.3.2)
        correct = (out.logits.argmax(-1) == batch.action).float().detach()
        meta = nn.functional.binary_cross_entropy(out.confidence[report], correct[report])
        total = total + cfg.meta_weight * meta
        parts["meta"] = meta.item()
    if c.self_model and cfg.self_model_l2 > 0:
        l2 = (out.z_self.pow(2).mean(-1) * valid.float()).sum() / valid.float().sum().clamp(min=1)
        total = total + cfg.self_model_l2 * l2
        parts["z_self_l2"] = l2.item()
    if c.workspace and batch.stimulus is not None and cfg.stimulus_probe_weight > 0:
        # E1: a linear probe on the workspace predicts the stimulus at every step once the
        # cue has been written (paper sec. 4.3.2, "Stimulus Auxiliary Loss").
        written = valid & out.occupied.any(-1)
        if written.any():
            label = batch.stimulus[:, None].expand_as(out.stimulus_logit)
            probe = nn.functional.binary_cross_entropy_with_logits(out.stimulus_logit[written], label[written])
            total = total + cfg.stimulus_probe_weight * probe
            parts["stimulus_probe"] = probe.item()
    parts["total"] = total.item()
    return Losses(total, parts)


@torch.no_grad()
def heldout_metrics(agent: Agent, data: DemoTensors, cfg: TrainConfig) -> dict[str, float]:
    """Teacher-forced held-out agreement with the oracle (per-step argmax, paper sec. 4.3.3).

    ``loss`` is the weighted imitation loss (the behaviour-cloning objective, used for the
    convergence rule); ``total_loss`` adds the auxiliary terms. ``agreement`` counts every valid step the policy answers (wager steps excluded: the
    confidence head answers those); ``report_agreement`` only the report/decision steps.
    """
    was_training = agent.training
    agent.eval()
    out = agent.forward_sequence(data.obs)
    losses = compute_losses(agent, out, data, cfg)
    agent.train(was_training)
    match = out.logits.argmax(-1) == data.action
    scored = data.valid & (data.step_kind != StepKind.WAGER)
    report = report_mask(data.step_kind, data.valid)
    return {
        "loss": losses.parts["imitation"],
        "total_loss": losses.parts["total"],
        "agreement": float(match[scored].float().mean()),
        "report_agreement": float(match[report].float().mean()),
    }


def make_optimizer(agent: Agent, cfg: TrainConfig) -> torch.optim.Optimizer:
    """Adam (AdamW when the kind uses weight decay) over the agent's trainable parameters."""
    params = [p for p in agent.parameters() if p.requires_grad]
    if agent.config.weight_decay > 0:
        return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=agent.config.weight_decay, fused=True)
    return torch.optim.Adam(params, lr=cfg.lr, fused=True)


def _train_noise(agent: Agent, n: int, gen: torch.Generator) -> torch.Tensor | None:
    upper = agent.config.train_workspace_noise
    if upper <= 0:
        return None
    return torch.rand(n, generator=gen) * upper


ProgressFn = Callable[[int, int, dict[str, float]], None]


@dataclass
class TrainedAgent:
    """A trained agent and the record of how it was made (written beside its checkpoint)."""

    agent: Agent
    record: dict


def library_versions() -> dict[str, str]:
    """Versions of the libraries a checkpoint was made with (written into its record)."""
    import gymnasium
    import minigrid

    return {"labcore": labcore.__version__, "torch": torch.__version__, "numpy": np.__version__,
            "gymnasium": gymnasium.__version__, "minigrid": minigrid.__version__,
            "python": platform.python_version()}


def train_agent(
    task: str,
    kind: str | AgentConfig,
    seed: int,
    cfg: TrainConfig | None = None,
    progress: ProgressFn | None = None,
) -> TrainedAgent:
    """Train one agent on one task from oracle demonstrations.

    Parameters
    ----------
    task : {"dual", "wagering"}
    kind : a preset name in ``AGENT_KINDS`` or an :class:`AgentConfig`
    seed : the agent seed (weights, minibatches and its own disjoint episode seeds)
    cfg : training settings (fast mode by default)
    progress : called as ``progress(done, total, metrics)``
    """
    cfg = cfg or TrainConfig()
    if task not in TASK_IDS:
        raise ValueError(f"task must be one of {sorted(TASK_IDS)}, got {task!r}")
    config = AGENT_KINDS[kind] if isinstance(kind, str) and kind in AGENT_KINDS else kind
    if not isinstance(config, AgentConfig):
        raise ValueError(f"unknown agent kind {kind!r}; choose from {sorted(AGENT_KINDS)}")
    torch.set_num_threads(cfg.threads)
    seed_everything(seed)
    start = time.perf_counter()
    task_id = TASK_IDS[task]
    heldout = DemoTensors.from_demonstrations(
        oracle_demonstrations(task_id, episode_seeds(seed, "heldout", cfg.heldout_episodes)))
    train = DemoTensors.from_demonstrations(
        oracle_demonstrations(task_id, episode_seeds(seed, "train", cfg.train_episodes)))
    agent = build_agent(config, seed)
    gen = torch.Generator().manual_seed(seed)
    if cfg.mode == "fast":
        history, updates, best_update = _train_fast(agent, train, heldout, cfg, gen, progress)
    else:
        history, updates, best_update = _train_paper(agent, train, heldout, cfg, gen, progress)
    final = heldout_metrics(agent, heldout, cfg)
    attainable = config.cue_route != "none"
    record = {
        "task": task,
        "task_id": task_id,
        "kind": config.kind,
        "seed": seed,
        "mode": cfg.mode,
        "config": asdict(config),
        "train_config": asdict(cfg),
        "heldout_agreement": final["agreement"],
        "heldout_report_agreement": final["report_agreement"],
        "heldout_loss": final["loss"],
        "criterion_attainable": attainable,
        "meets_criterion": final["agreement"] >= cfg.agreement_threshold,
        "excluded": attainable and final["agreement"] < cfg.agreement_threshold,
        "updates": updates,
        "best_update": best_update,
        "episodes_seen": updates * cfg.batch_episodes if cfg.mode == "fast" else cfg.train_episodes,
        "wall_seconds": round(time.perf_counter() - start, 3),
        "history": history,
        "versions": library_versions(),
    }
    agent.eval()
    return TrainedAgent(agent, record)


def _train_fast(agent, train, heldout, cfg, gen, progress):
    opt = make_optimizer(agent, cfg)
    agent.train()
    # Convergence (protocol sec. 5.3): stop once neither the held-out imitation loss nor the
    # held-out agreement has improved by a set margin for `patience` evaluations; keep the
    # weights with the lowest held-out imitation loss. (Not the total loss: while the policy is
    # still wrong, the meta loss is trivially low.)
    best_loss, best_agreement, best_state, best_update, stale = float("inf"), -1.0, None, 0, 0
    history = []
    update = 0
    for update in range(1, cfg.max_updates + 1):
        idx = torch.randint(len(train), (cfg.batch_episodes,), generator=gen)
        batch = train.index(idx)
        out = agent.forward_sequence(batch.obs, workspace_noise_sd=_train_noise(agent, len(idx), gen),
                                     generator=gen if agent.config.train_workspace_noise > 0 else None)
        losses = compute_losses(agent, out, batch, cfg)
        opt.zero_grad(set_to_none=True)
        losses.total.backward()
        opt.step()
        if update % cfg.eval_every == 0 or update == cfg.max_updates:
            metrics = heldout_metrics(agent, heldout, cfg)
            history.append({"update": update, "train_loss": losses.parts["total"],
                            "heldout_loss": metrics["loss"], "agreement": metrics["agreement"]})
            improved = (metrics["loss"] < best_loss - cfg.loss_tolerance
                        or metrics["agreement"] > best_agreement + cfg.agreement_tolerance)
            stale = 0 if improved else stale + 1
            best_agreement = max(best_agreement, metrics["agreement"])
            if metrics["loss"] < best_loss:
                best_loss, best_update = metrics["loss"], update
                best_state = copy.deepcopy(agent.state_dict())
            if progress:
                progress(update, cfg.max_updates, metrics)
            if update >= cfg.min_updates and stale >= cfg.patience:
                break
    if best_state is not None:
        agent.load_state_dict(best_state)
    return history, update, best_update


def _train_paper(agent, train, heldout, cfg, gen, progress):
    """Online: one episode at a time, one update per environment step (paper sec. 4.3.1).

    The paper does not say how gradients cross steps; each update recomputes the episode
    prefix with the current weights, so it gets the exact gradient through the episode so far.
    Steps whose loss is zero (wager steps) make no update.
    """
    opt = make_optimizer(agent, cfg)
    agent.train()
    history, updates = [], 0
    n = len(train)
    eval_every = max(1, n // 8)
    for episode in range(n):
        ep = train.index(slice(episode, episode + 1))
        length = int(ep.valid[0].sum())
        noise = _train_noise(agent, 1, gen)
        for t in range(length):
            step_mask = torch.zeros_like(ep.valid)
            step_mask[0, t] = True
            if step_weights(ep.step_kind, ep.valid & step_mask, cfg).sum() == 0:
                continue
            prefix = ep.prefix(t + 1)
            out = agent.forward_sequence(prefix.obs, workspace_noise_sd=noise,
                                         generator=gen if noise is not None else None)
            losses = compute_losses(agent, out, prefix, cfg, step_mask[:, : t + 1])
            opt.zero_grad(set_to_none=True)
            losses.total.backward()
            opt.step()
            updates += 1
        if (episode + 1) % eval_every == 0 or episode + 1 == n:
            metrics = heldout_metrics(agent, heldout, cfg)
            history.append({"episode": episode + 1, "update": updates, "heldout_loss": metrics["loss"],
                            "agreement": metrics["agreement"]})
            if progress:
                progress(episode + 1, n, metrics)
    return history, updates, updates
