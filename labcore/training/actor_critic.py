"""Reinforcement learning from the task's reward alone: E4 arm (b), ``reward_all`` (protocol 8.3).

One file in CleanRL's style: every hyperparameter is a documented field of :class:`RLConfig`,
and :func:`_train_seed` seeds everything in one block at its top. The method is advantage
actor-critic (A2C) with generalised advantage estimation (GAE):

1. **Rollout.** ``episodes_per_update`` wagering episodes run at once in the batched simulator,
   the agent *sampling* its actions with its own generator. The wager is arm (a)'s: a bet drawn
   from Bernoulli(confidence at the choice step), executed as ``pickup`` (bet) or ``drop`` (opt
   out), so the environment pays exactly the sampled bet (protocol 3.4).
2. **Update.** One teacher-forced pass (:meth:`~labcore.agents.Agent.forward_sequence`) on the
   recorded observations; GAE (``gamma = 1``, ``lambda = 0.95``) gives advantages and value
   targets; the loss is the policy gradient on the steps the policy answers, the critic's squared
   error, the entropy bonus, arm (a)'s REINFORCE loss on the bets and E1's z_self penalty. No
   demonstration or label enters any loss. Gradients are clipped; Adam.
3. **Convergence** (protocol 8.3): every ``eval_every`` updates the greedy agent runs 500
   held-out episodes (:func:`labcore.rollout.rollout`); training stops when held-out accuracy
   has not improved by 0.5 point over 6 evaluations, keeping the best weights. Criterion: 0.80.

An episode that reaches the time limit without a decision is an error (protocol 3.3) and ends
there. Seeds train one after another.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

import labcore.envs as E
from labcore import compute
from labcore.agents import Agent, Observation, agent_config, build_agent
from labcore.checks import ConfigError, check_choice
from labcore.config import AGENT_KINDS, AgentConfig, TrainConfig, trainer_of
from labcore.envs.batch import StepKind
from labcore.envs.wagering import BET_ACTION, OPT_OUT_ACTION
from labcore.markers import learning_curve_auroc
from labcore.rollout import observation_at, rollout, table_features
from labcore.seeding import EPISODE_SEED_STRIDE, episode_seeds, seed_everything
from labcore.training.behaviour_cloning import ProgressFn, TrainedAgent, library_versions
from labcore.training.wager_reward import wager_reward_loss

WRONG_BET_PAYOFF = -1.0
"""What the environment pays for a wrong bet (protocol 3.4; ``labcore.envs.wagering``): arm (b)
runs the standard payoff only."""


@dataclass(frozen=True)
class PolicyGradientConfig:
    """The hyperparameters every policy-gradient trainer shares (:class:`RLConfig`, E4 arm (b);
    ``NeuroGymRLConfig``, protocol 8.6-8.7), read by :func:`a2c_loss`; defaults are arm (b)'s
    (protocol 8.3)."""

    lr: float = 2e-3
    """Learning rate of the policy's optimiser (Adam unless a subclass says otherwise)."""
    gamma: float = 1.0
    """Discount factor (registered: 1, the episode's total reward)."""
    gae_lambda: float = 0.95
    """GAE's lambda (registered for arm (b): 0.95); 1 gives the full return minus the baseline
    (REINFORCE)."""
    normalize_advantages: bool = True
    """Scale the advantages of each batch to zero mean and unit SD over the policy's steps."""
    value_coef: float = 0.5
    """Coefficient of the critic's loss (half the mean squared error to the return)."""
    entropy_coef: float = 0.003
    """Coefficient of the entropy bonus on the policy (exploration)."""
    self_model_l2: float = 1e-3
    """Activity penalty on z_self, as E1 (protocol 5.1)."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    threads: int = 1
    """Torch CPU threads."""

    def __post_init__(self) -> None:
        if not (0 < self.gamma <= 1 and 0 <= self.gae_lambda <= 1 and self.lr > 0):
            raise ValueError("gamma must be in (0, 1], gae_lambda in [0, 1] and lr > 0")
        if (
            min(self.entropy_coef, self.value_coef) < 0
            or self.max_grad_norm <= 0
            or self.threads < 1
        ):
            raise ValueError(
                "entropy_coef and value_coef must be >= 0, max_grad_norm > 0 and threads >= 1"
            )


@dataclass(frozen=True)
class RLConfig(PolicyGradientConfig):
    """Actor-critic training on the wagering task's reward (E4 arm (b); protocol 8.3).

    Fields marked "registered" are fixed by protocol 8.3; the shared ones (learning rate,
    discount, GAE, entropy, critic, clipping) are :class:`PolicyGradientConfig`'s.
    """

    episodes_per_update: int = 128
    """Episodes rolled out (in parallel, in the batched simulator) for each update."""
    wager_coef: float = 1.0
    """Coefficient of the wager's REINFORCE loss (arm (a)'s, ``labcore.training.wager_reward``)."""
    train_pool: int = EPISODE_SEED_STRIDE
    """Training episodes are drawn (with the agent's generator) from this many environment seeds of
    its training block (protocol 5.3; the whole block)."""
    heldout_episodes: int = 500
    """Held-out episodes of each evaluation (registered: 500)."""
    eval_every: int = 50
    """Updates between held-out evaluations (registered: 50)."""
    patience: int = 6
    """Stop after this many evaluations without improvement (registered: 6)."""
    accuracy_tolerance: float = 0.005
    """An improvement of held-out accuracy must exceed this (registered: 0.5 point) to count."""
    min_updates: int = 300
    """No convergence check before this many updates (registered: 300)."""
    max_updates: int = 3000
    """Update budget (the E4 configuration's; the run stops there whatever the accuracy)."""
    criterion: float = 0.80
    """Held-out accuracy a seed must reach (registered: the ideal observer's 0.859 minus 6
    points)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if (
            self.episodes_per_update < 2
            or self.heldout_episodes < 10
            or min(self.eval_every, self.patience) < 1
        ):
            raise ValueError(
                "episodes_per_update >= 2, heldout_episodes >= 10, eval_every and "
                "patience >= 1 needed"
            )
        if not 1 <= self.min_updates <= self.max_updates:
            raise ValueError("min_updates must be in 1..max_updates")
        if not 1 <= self.train_pool <= EPISODE_SEED_STRIDE:
            raise ValueError(f"train_pool must be in 1..{EPISODE_SEED_STRIDE}")

    @property
    def mode(self) -> str:
        """The schedule name checkpoints record: "fast" (trained to a convergence rule)."""
        return "fast"

    @classmethod
    def of(cls, cfg: RLConfig | TrainConfig | None) -> RLConfig:
        """``cfg`` itself, the defaults (None), or the defaults with a behaviour-cloning config's
        budget and convergence settings (``max_updates``, ``min_updates``, ``eval_every``,
        ``patience``, ``heldout_episodes``, ``threads``: equal by default), so the command line's
        ``--max-updates`` and the pipelines' small budgets reach this trainer too.

        >>> RLConfig.of(TrainConfig(max_updates=10, min_updates=10)).max_updates
        10
        """
        if cfg is None or isinstance(cfg, RLConfig):
            return cfg or cls()
        if cfg.mode != "fast":
            raise ValueError("reinforcement learning has no paper schedule: use mode 'fast'")
        return cls(
            max_updates=cfg.max_updates,
            min_updates=cfg.min_updates,
            eval_every=cfg.eval_every,
            patience=cfg.patience,
            heldout_episodes=cfg.heldout_episodes,
            threads=cfg.threads,
        )


# ----------------------------------------------------------------------- the A2C pieces
def gae(
    rewards: torch.Tensor, values: torch.Tensor, valid: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates and value targets of episodes ``(B, T)``.

    ``valid`` marks each episode's steps (a prefix); an episode ends after its last valid step
    (nothing follows it: value 0). ``delta_t = r_t + gamma V_{t+1} - V_t`` and
    ``A_t = delta_t + gamma lambda A_{t+1}`` within an episode; the targets are ``A + V``.
    Both are 0 on invalid steps. ``values`` carries no gradient here.

    Examples
    --------
    >>> rewards, values = torch.tensor([[0.0, 1.0]]), torch.tensor([[0.5, 0.5]])
    >>> a, r = gae(rewards, values, torch.tensor([[True, True]]), 1.0, 1.0)
    >>> a.tolist(), r.tolist()
    ([[0.5, 0.5]], [[1.0, 1.0]])
    """
    values = values.detach() * valid
    rewards = rewards * valid
    t_max = rewards.shape[-1]
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(rewards[..., 0])
    for t in reversed(range(t_max)):
        if t + 1 < t_max:
            follows = valid[..., t + 1].to(rewards.dtype)
            next_value = values[..., t + 1]
        else:
            follows = next_value = torch.zeros_like(running)
        delta = rewards[..., t] + gamma * next_value * follows - values[..., t]
        running = delta + gamma * lam * follows * running
        advantages[..., t] = running * valid[..., t]
    return advantages, (advantages + values) * valid


def a2c_loss(
    log_prob: torch.Tensor,
    entropy: torch.Tensor,
    values: torch.Tensor,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    policy_mask: torch.Tensor,
    value_mask: torch.Tensor,
    cfg: PolicyGradientConfig,
    entropy_coef: float | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The actor-critic loss and its parts (detached floats).

    ``log_prob`` of the taken actions, ``entropy`` of the policy and ``values`` carry gradients;
    ``advantages`` and ``returns`` (from :func:`gae`) do not. The policy terms are means over
    ``policy_mask``, the critic's over ``value_mask``; advantages are normalised over the
    policy's steps if ``cfg.normalize_advantages``. ``entropy_coef`` (default
    ``cfg.entropy_coef``) is the entropy bonus's coefficient at this update (a schedule's value).

    ``loss = -mean(log pi(a) A) + value_coef * 0.5 mean((V - R)^2) - entropy_coef * mean(H)``
    """
    pm, vm = policy_mask.float(), value_mask.float()
    n_policy, n_value = pm.sum().clamp(min=1.0), vm.sum().clamp(min=1.0)
    adv = advantages.detach()
    if cfg.normalize_advantages:
        mean = (adv * pm).sum() / n_policy
        sd = (((adv - mean) * pm).pow(2).sum() / n_policy).sqrt()
        adv = (adv - mean) / (sd + 1e-8)
    policy = -(log_prob * adv * pm).sum() / n_policy
    value = 0.5 * ((values - returns.detach()).pow(2) * vm).sum() / n_value
    ent = (entropy * pm).sum() / n_policy
    beta = cfg.entropy_coef if entropy_coef is None else entropy_coef
    loss = policy + cfg.value_coef * value - beta * ent
    return loss, {
        "policy_loss": float(policy.detach()),
        "value_loss": float(value.detach()),
        "entropy": float(ent.detach()),
    }


def policy_terms(logits: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and entropy of the categorical policy of ``logits`` (...,
    A)."""
    log_p = torch.log_softmax(logits, -1)
    taken = log_p.gather(-1, actions.clamp(min=0)[..., None]).squeeze(-1)
    return taken, -(log_p.exp() * log_p).sum(-1)


# ----------------------------------------------------------------------- rollouts
@dataclass
class Episodes:
    """A batch of sampled episodes, ``(B, T)`` per step and ``(B,)`` per trial."""

    pose: np.ndarray
    task: np.ndarray
    cue: np.ndarray
    action: np.ndarray
    reward: np.ndarray
    valid: np.ndarray
    step_kind: np.ndarray
    image_table: np.ndarray
    direction_table: np.ndarray
    bet: np.ndarray
    """The sampled bet of each trial (meaningful on wager trials)."""
    correct: np.ndarray
    """The zone entered was the stimulus's (no decision: False)."""
    wager: np.ndarray
    """The trial reached its wager step."""

    def observation(self) -> Observation:
        """The recorded observations, for a teacher-forced pass."""
        pose = torch.as_tensor(self.pose)
        return Observation(
            direction=torch.as_tensor(self.direction_table)[pose],
            task=torch.as_tensor(self.task),
            cue=torch.as_tensor(self.cue),
            pose=pose,
            image_table=torch.as_tensor(self.image_table),
        )


@torch.no_grad()
def collect(agent: Agent, seeds: Sequence[int], generator: torch.Generator) -> Episodes:
    """Roll ``agent`` out on one wagering episode per seed, sampling actions and bets.

    Random draws, in this order, from ``generator``: one uniform per trial for its bet, then at
    every step one categorical draw per episode (finished episodes included, so the stream does
    not depend on when episodes end). At the wager step the executed action is ``pickup`` for a
    sampled bet and ``drop`` for an opt-out, so the reward recorded there is the bet's payoff.
    """
    sim = E.make_batch(E.WAGERING)
    obs = sim.reset(seeds)
    n, t_max = len(seeds), sim.max_steps
    state = agent.initial_state(n)
    uniforms = torch.rand(n, generator=generator).numpy()
    confidence = np.full(n, np.nan)
    rec = {
        "pose": np.zeros((n, t_max), np.int64),
        "task": np.zeros((n, t_max, E.TASK_DIM), np.float32),
        "cue": np.zeros((n, t_max, E.CUE_DIM), np.float32),
        "action": np.zeros((n, t_max), np.int64),
        "reward": np.zeros((n, t_max), np.float32),
        "valid": np.zeros((n, t_max), bool),
        "step_kind": np.zeros((n, t_max), np.int64),
    }
    features = table_features(agent, obs)
    length = 0
    for t in range(t_max):
        alive = sim.alive.copy()
        if not alive.any():
            break
        out, state = agent.step(observation_at(obs, features), state)
        drawn = torch.multinomial(torch.softmax(out.logits, -1), 1, generator=generator)[
            :, 0
        ].numpy()
        kind = sim.step_kind()
        choice = alive & (kind == StepKind.REPORT_1)
        confidence[choice] = out.confidence.numpy()[choice]
        bet = uniforms < confidence  # nan (no choice step yet) compares False
        action = np.where(kind == StepKind.WAGER, np.where(bet, BET_ACTION, OPT_OUT_ACTION), drawn)
        action = np.where(alive, action, 0)
        rec["pose"][:, t], rec["task"][:, t], rec["cue"][:, t] = obs.pose, obs.task, obs.cue
        rec["action"][:, t], rec["valid"][:, t], rec["step_kind"][:, t] = action, alive, kind
        obs, reward, _, _ = sim.step(action)
        rec["reward"][:, t] = np.where(alive, reward, 0.0)
        length = t + 1
    st = sim.state
    trimmed = {k: v[:, :length] for k, v in rec.items()}
    return Episodes(
        **trimmed,
        image_table=np.array(sim.tables.image),
        direction_table=np.array(sim.tables.direction),
        bet=st.bet == 1,
        correct=st.decision == sim.trials.stimulus,
        wager=(trimmed["valid"] & (trimmed["step_kind"] == StepKind.WAGER)).any(1),
    )


# ----------------------------------------------------------------------- one update
def episode_losses(
    agent: Agent, episodes: Episodes, cfg: RLConfig
) -> tuple[torch.Tensor, dict[str, float]]:
    """The total loss of one batch of sampled episodes and its parts (module docstring, step 2)."""
    out = agent.forward_sequence(episodes.observation())
    valid = torch.as_tensor(episodes.valid)
    kind = torch.as_tensor(episodes.step_kind)
    action = torch.as_tensor(episodes.action)
    reward = torch.as_tensor(episodes.reward)
    values = agent.value(out)
    advantages, returns = gae(reward, values, valid, cfg.gamma, cfg.gae_lambda)
    log_prob, entropy = policy_terms(out.logits, action)
    policy_mask = valid & (kind != StepKind.WAGER)
    loss, parts = a2c_loss(log_prob, entropy, values, advantages, returns, policy_mask, valid, cfg)
    if agent.config.self_model:
        choice = valid & (kind == StepKind.REPORT_1)
        at = choice.long().argmax(-1, keepdim=True)
        conf = out.confidence.gather(-1, at).squeeze(-1)
        wager = torch.as_tensor(episodes.wager) & choice.any(-1)
        bets, correct = torch.as_tensor(episodes.bet) & wager, torch.as_tensor(episodes.correct)
        wager_loss, wager_reward = wager_reward_loss(
            conf[None], correct[None], wager[None], bets[None], WRONG_BET_PAYOFF
        )
        l2 = (out.z_self.pow(2).mean(-1) * valid).sum() / valid.sum().clamp(min=1)
        loss = loss + cfg.wager_coef * wager_loss[0] + cfg.self_model_l2 * l2
        parts.update(wager_loss=float(wager_loss[0].detach()), wager_reward=float(wager_reward[0]))
    parts["reward"] = float(reward.sum(1).mean())
    return loss, parts


# ----------------------------------------------------------------------- evaluation
@torch.no_grad()
def evaluate(agent: Agent, seeds: Sequence[int]) -> dict[str, float | None]:
    """Greedy held-out metrics (autonomous rollouts): ``accuracy``, ``auroc`` (choice-step
    confidence against correctness), ``confidence``, ``reward`` (per episode), ``opt_out``,
    ``wager_reward`` (expected payoff of betting with probability confidence) and ``agreement``
    (per step, with the oracle); None where undefined, so records stay valid JSON."""

    trace = rollout(agent, E.WAGERING, seeds)
    out = trace.outcome
    decided = out["decision"] >= 0
    correct = out["correct"].astype(bool) & decided
    conf = out["confidence"].astype(np.float64)
    wagered = trace.labels["wager"] & decided
    values = {
        "accuracy": float(correct.mean()),
        "auroc": learning_curve_auroc(correct[decided], conf[decided]),
        "confidence": float(conf[decided].mean()) if decided.any() else float("nan"),
        "reward": float(trace.reward.sum(1).mean()),
        "opt_out": float((out["bet"][wagered] == 0).mean()) if wagered.any() else float("nan"),
        "wager_reward": float((conf * np.where(correct, 1.0, WRONG_BET_PAYOFF))[wagered].mean())
        if wagered.any()
        else float("nan"),
        "agreement": float(trace.per_step_accuracy().mean()),
    }
    return {k: v if np.isfinite(v) else None for k, v in values.items()}


# ----------------------------------------------------------------------- training
def _resolve(task: str, kind: str | AgentConfig) -> AgentConfig:
    config = agent_config(kind)
    check_choice(task, "task", ("wagering",))  # reinforcement learning: the wagering task only
    if trainer_of(config.kind) != "rl" or not config.value_head:
        raise ConfigError(
            f"{config.kind} is made by behaviour cloning; the reinforcement-learning kinds are "
            f"{sorted(k for k in AGENT_KINDS if trainer_of(k) == 'rl')}",
            ("kind", "trainer"),
        )
    return config


def _train_seed(
    task: str,
    kind: str | AgentConfig,
    seed: int,
    cfg: RLConfig | TrainConfig | None = None,
    progress: ProgressFn | None = None,
) -> TrainedAgent:
    """Train one seed from the task's reward to the registered convergence rule (see
    :func:`train_seeds`)."""
    config = _resolve(task, kind)
    cfg = RLConfig.of(cfg)
    start = time.perf_counter()
    # -- seeding: everything random below comes from these
    torch.set_num_threads(cfg.threads)
    seed_everything(seed)
    agent = build_agent(config, seed)  # b2_ws's initial weights for this seed, plus the critic
    generator = torch.Generator().manual_seed(seed)  # episode draws, actions, bets
    train_seeds = episode_seeds(seed, "train", cfg.train_pool)
    heldout = episode_seeds(seed, "heldout", cfg.heldout_episodes)
    # --
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr)
    history: list[dict[str, Any]] = []
    best_accuracy, best_state, best_update, stale, update = -1.0, None, 0, 0, 0
    train_parts: list[dict[str, float]] = []
    for update in range(1, cfg.max_updates + 1):
        draw = torch.randint(
            len(train_seeds), (cfg.episodes_per_update,), generator=generator
        ).numpy()
        agent.train()
        episodes = collect(agent, train_seeds[draw], generator)
        loss, parts = episode_losses(agent, episodes, cfg)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
        optimizer.step()
        train_parts.append(parts)
        if update % cfg.eval_every and update != cfg.max_updates:
            continue
        agent.eval()
        metrics = evaluate(agent, heldout)
        mean_train = {
            f"train_{k}": float(np.mean([p[k] for p in train_parts])) for k in train_parts[0]
        }
        train_parts = []
        history.append(
            {
                "update": update,
                "agreement": metrics["agreement"],  # the key BC's curves use
                **{f"heldout_{k}": v for k, v in metrics.items()},
                **mean_train,
            }
        )
        improved = metrics["accuracy"] > best_accuracy + cfg.accuracy_tolerance
        stale = 0 if improved else stale + 1
        if metrics["accuracy"] > best_accuracy:
            best_accuracy, best_update = metrics["accuracy"], update
            best_state = copy.deepcopy(agent.state_dict())
        if progress is not None:
            progress(
                update,
                cfg.max_updates,
                {"members_done": 0.0, "members": 1.0, "accuracy": metrics["accuracy"]},
            )
        if update >= cfg.min_updates and stale >= cfg.patience:
            break
    agent.load_state_dict(best_state)
    agent.eval()
    final = evaluate(agent, heldout)
    record = {
        "task": task,
        "task_id": E.WAGERING,
        "kind": config.kind,
        "seed": int(seed),
        "mode": cfg.mode,
        "trainer": "rl",
        "meta_signal": "reward",
        "wrong_bet_payoff": WRONG_BET_PAYOFF,
        "config": asdict(config),
        "train_config": asdict(cfg),
        **{f"heldout_{k}": v for k, v in final.items()},
        "criterion": cfg.criterion,
        "criterion_text": f"held-out accuracy >= {cfg.criterion:.2f}",
        "criterion_attainable": True,
        "meets_criterion": final["accuracy"] >= cfg.criterion,
        "excluded": final["accuracy"] < cfg.criterion,
        "updates": update,
        "final_update": update,
        "best_update": best_update,
        "episodes_seen": update * cfg.episodes_per_update,
        "batch_seeds": [int(seed)],
        "wall_seconds": round(time.perf_counter() - start, 3),
        "history": history,
        "versions": library_versions(),
        "compute": compute.fingerprint(cfg.threads),
    }
    return TrainedAgent(agent, record)


def train_seeds(
    task: str,
    kind: str | AgentConfig,
    seeds: Sequence[int],
    cfg: RLConfig | TrainConfig | None = None,
    progress: ProgressFn | None = None,
) -> list[TrainedAgent]:
    """Train one agent per seed from the task's reward to the registered convergence rule, the
    seeds in turn.

    Parameters
    ----------
    task : "wagering" (the only task with the wager)
    kind : an RL kind in ``AGENT_KINDS`` (``TRAINER_OF_KIND``), e.g. "reward_all", or its config
    seeds : agent seeds (weights, episode draws, actions and bets), distinct
    cfg : the hyperparameters (:class:`RLConfig`; a ``TrainConfig`` lends its budget,
    :meth:`RLConfig.of`)
    progress : called as ``progress(done, total, metrics)`` after each evaluation, the updates of
        all seeds against their summed budget, as behaviour cloning reports it

    Returns
    -------
    One ``TrainedAgent`` per seed, in order: the best held-out weights and the record.
    """
    seeds = [int(s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct and at least one")
    cfg = RLConfig.of(cfg)
    out: list[TrainedAgent] = []
    total = len(seeds) * cfg.max_updates

    def report(k: int, done: int, metrics: dict[str, float]) -> None:
        if progress is not None:
            metrics = {**metrics, "members_done": float(k), "members": float(len(seeds))}
            progress(k * cfg.max_updates + done, total, metrics)

    for k, seed in enumerate(seeds):
        forward = None if progress is None else lambda done, _, m, k=k: report(k, done, m)
        out.append(_train_seed(task, kind, seed, cfg, forward))
        report(k + 1, 0, {"accuracy": out[-1].record["heldout_accuracy"]})
    for trained in out:
        trained.record["batch_seeds"] = seeds
    return out
