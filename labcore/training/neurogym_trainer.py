"""Reinforcement learning on NeuroGym's post-decision wager (protocol 8.6-8.7), in CleanRL's shape.

Presets: :data:`REGISTERED_8_6` (the class defaults: A2C with GAE and a shared value head) and
:data:`SONG_2017` (Song, Yang & Wang's training as their ``frsong/pyrl`` does it). One update
draws trials from the seed's pool; the task is open-loop, so one teacher-forced pass gives the
policy at every step and :func:`~labcore.agents.neurogym.payoffs` pays the sampled actions. Every
``eval_every`` updates the policy acts on held-out trials, sampled and greedy;
``stop_rule="behaviour"`` stops at :func:`criterion_met` held ``criterion_streak`` checks in a row.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from labcore.agents import build_agent
from labcore.agents.neurogym import (
    KIND,
    PROBE_UPDATES,
    TASK,
    NeuroGymNet,
    NeuroGymTrials,
    draw_trials,
    ideal_actions,
    ideal_agreement,
    payoffs,
    policy_pass,
    scored_steps,
    sure_propensity,
)
from labcore.agents.plain import BaselineGRU, PlainGRUConfig, PlainGRUPolicy
from labcore.budgets import LIVE_BUDGETS, LiveBudgets
from labcore.checks import check_choice
from labcore.envs.channels import CUE_DIM
from labcore.envs.neurogym_wager import LEFT, RIGHT, SURE
from labcore.seeding import (
    BASELINE_NET_SEED_BASE,
    EVAL_SAMPLING_SEED_BASE,
    episode_seeds,
    seed_everything,
)
from labcore.training.actor_critic import PolicyGradientConfig, a2c_loss, gae, policy_terms
from labcore.training.behaviour_cloning import ProgressFn

AGENTS = ("b2_ws", "plain_gru")
"""The networks trained on NeuroGym's task: the lab's B2 workspace-read family (trained from
reward as the kind ``reward_all``, with a critic; imitating as ``b2_ws``) and Song et al.'s plain
GRU."""
IMITATION_UPDATES = 800
"""The imitation ceiling's budget (post hoc, change log 2026-11-23)."""


@dataclass(frozen=True)
class NeuroGymRLConfig(PolicyGradientConfig):
    """Policy-gradient training on NeuroGym's payoff: the defaults are protocol 8.6's study, the
    options 8.7's; the shared fields are
    :class:`~labcore.training.actor_critic.PolicyGradientConfig`'s."""

    trials_per_update: int = 256
    """Trials sampled from the training pool for each update (8.6: 256; Song: 64)."""
    max_updates: int = 1500
    """Update cap (8.6: 1,500, run in full; 8.7: 12,000, stopped earlier by the criterion)."""
    train_pool: int = 40_000
    """NeuroGym trials drawn once per seed for training (drawing afresh at every update would
    cost about 45 s per 1,500 updates of 256 trials in NeuroGym's Python)."""
    heldout_trials: int = 1200
    """Held-out trials of each check (registered: 1,200)."""
    eval_every: int = 100
    """Updates between held-out checks (registered: 100)."""
    optimizer: str = "adam"
    """"adam" or "sgd" (plain, no momentum), for the policy and the baseline network alike."""
    readout_init: str = "default"
    """"default" (PyTorch's) or "zero": the policy's last layer starts at zero, so the first
    policy is uniform over NeuroGym's four actions (pyrl's initialisation)."""
    input_scale: float = 1.0
    """Multiplies, at initialisation, the weights that read the observation: the plain GRU's
    input-to-hidden matrix; for the B2 family the trunk's first layer and the cue columns of the
    workspace write (the evidence's way in; the write's layer norm removes a common scale, not
    this relative one)."""
    baseline: str = "value_head"
    """"value_head" (the network's own critic on its readout input, trained jointly with
    ``value_coef``) or "gru" (Song et al.'s separate GRU network, :class:`BaselineGRU`)."""
    baseline_hidden: int = 100
    """Units of the GRU baseline (Song et al.: 100)."""
    policy_steps: str = "scored"
    """Steps the policy gradient (and entropy bonus) counts: "scored" (the two NeuroGym pays for:
    fixation and decision; 8.6) or "all" (every step of the trial, as pyrl's gradient)."""
    entropy_final: float | None = None
    """None: the entropy coefficient stays ``entropy_coef``. Else it moves linearly from
    ``entropy_coef`` to this value over ``entropy_anneal_updates`` and stays there (a floor)."""
    entropy_anneal_updates: int = 0
    """Length of that schedule in updates."""
    stop_rule: str = "none"
    """"none" (train to ``max_updates``; 8.6) or "behaviour" (stop at the registered criterion)."""
    criterion_answered: float = 0.99
    """Criterion (a): share of checked trials answered (a side, or the sure option when offered)."""
    criterion_accuracy: float = 0.80
    """Criterion (b): accuracy of the side choices."""
    criterion_sure_halfwidth: float = 0.10
    """Criterion (c): P(sure | offered) within this of the ideal observer's on the same trials
    (pyrl's band 0.4-0.6 has half-width 0.1; protocol 8.7 centres it on the ideal observer)."""
    criterion_streak: int = 2
    """Checks in a row at which the criterion must hold before training stops."""
    keep: str = "best_reward"
    """The network returned: "best_reward" (best greedy held-out reward; 8.6) or "final" (at the
    stop)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if (
            min(
                self.trials_per_update,
                self.max_updates,
                self.train_pool,
                self.heldout_trials,
                self.eval_every,
                self.baseline_hidden,
                self.criterion_streak,
            )
            < 1
        ):
            raise ValueError("every count of NeuroGymRLConfig must be >= 1")
        for value, name, choices in (
            (self.optimizer, "optimizer", ("adam", "sgd")),
            (self.readout_init, "readout_init", ("default", "zero")),
            (self.baseline, "baseline", ("value_head", "gru")),
            (self.policy_steps, "policy_steps", ("scored", "all")),
            (self.stop_rule, "stop_rule", ("none", "behaviour")),
            (self.keep, "keep", ("best_reward", "final")),
        ):
            check_choice(value, name, choices)
        if self.input_scale <= 0 or min(self.entropy_anneal_updates, self.entropy_final or 0) < 0:
            raise ValueError(
                "input_scale must be > 0, entropy_final and entropy_anneal_updates >= 0"
            )

    def entropy_at(self, update: int) -> float:
        """The entropy bonus's coefficient at ``update`` (1-based).

        >>> NeuroGymRLConfig(entropy_coef=0.1, entropy_final=0.0,
        ...                  entropy_anneal_updates=10).entropy_at(5)
        0.05
        """
        if self.entropy_final is None or self.entropy_anneal_updates == 0:
            return self.entropy_coef if self.entropy_final is None else self.entropy_final
        done = min(1.0, update / self.entropy_anneal_updates)
        return self.entropy_coef + (self.entropy_final - self.entropy_coef) * done


REGISTERED_8_6 = NeuroGymRLConfig()
"""The NeuroGym study of protocol 8.6 as registered (its bundled result set)."""
SONG_2017 = NeuroGymRLConfig(
    trials_per_update=64,
    max_updates=12_000,
    train_pool=100_000,
    lr=1e-3,
    gae_lambda=1.0,
    normalize_advantages=False,
    entropy_coef=0.02,
    max_grad_norm=1.0,
    readout_init="zero",
    input_scale=10.0,
    baseline="gru",
    policy_steps="all",
    stop_rule="behaviour",
    keep="final",
)
"""Protocol 8.7's Song setting: REINFORCE on the full return with a separate GRU baseline, zero
readout, input weights x10, 64 trials per update, Adam 1e-3, entropy 0.02, stopped by the
behavioural criterion (cap 12,000 updates)."""


def live_config(
    entropy_coef: float = SONG_2017.entropy_coef,
    readout_init: str = SONG_2017.readout_init,
    input_scale: float = SONG_2017.input_scale,
    budgets: LiveBudgets = LIVE_BUDGETS,
) -> NeuroGymRLConfig:
    """The lab's live sure-option run: :data:`SONG_2017` with a visitor's entropy bonus, readout
    initialisation and input scale, on the live budget (:class:`labcore.budgets.LiveBudgets`: its
    update cap, checks, held-out trials and training pool; the behavioural stopping rule kept).

    >>> cfg = live_config(0.003, "default", 1.0)
    >>> cfg.entropy_coef, cfg.readout_init, cfg.max_updates, cfg.trials_per_update, cfg.stop_rule
    (0.003, 'default', 4000, 64, 'behaviour')
    """
    return replace(
        SONG_2017,
        entropy_coef=float(entropy_coef),
        readout_init=readout_init,
        input_scale=float(input_scale),
        max_updates=budgets.sure_option_updates,
        eval_every=budgets.sure_option_check_every,
        heldout_trials=budgets.sure_option_heldout_trials,
        train_pool=budgets.sure_option_train_pool,
    )


# ----------------------------------------------------------------------- networks
def build_network(agent: str, trainer: str, seed: int, cfg: NeuroGymRLConfig) -> NeuroGymNet:
    """A freshly initialised network (seeded) with ``cfg``'s initialisation options applied.

    ``agent`` is ``"b2_ws"`` (the kind ``reward_all`` from reward, with its critic; ``b2_ws``
    imitating) or ``"plain_gru"`` (with a value head only when reward-trained with
    ``baseline="value_head"``).
    """
    check_choice(agent, "agent", AGENTS)
    if agent == "plain_gru":
        critic = trainer == "rl" and cfg.baseline == "value_head"
        net: NeuroGymNet = PlainGRUPolicy(PlainGRUConfig(value_head=critic), seed)
    else:
        net = build_agent(KIND if trainer == "rl" else "b2_ws", seed)
    with torch.no_grad():
        for weight in input_weights(net):
            weight.mul_(cfg.input_scale)
        if cfg.readout_init == "zero":
            readout = policy_readout(net)
            readout.weight.zero_()
            readout.bias.zero_()
    return net


def input_weights(net: NeuroGymNet) -> list[torch.Tensor]:
    """The weights that read the observation (``NeuroGymRLConfig.input_scale``), as views."""
    if isinstance(net, PlainGRUPolicy):
        return [net.gru.weight_ih_l0]
    return [net.embed[0].weight, net.write.weight[:, :CUE_DIM]]


def policy_readout(net: NeuroGymNet) -> nn.Linear:
    """The policy's last layer (``NeuroGymRLConfig.readout_init``)."""
    if isinstance(net, PlainGRUPolicy):
        return net.readout
    if net.config.policy_reads == "self_model":
        return net.self_policy[-1]
    return net.policy[-1]


def build_baseline(
    net: NeuroGymNet, trials: NeuroGymTrials, seed: int, cfg: NeuroGymRLConfig
) -> BaselineGRU:
    """Song et al.'s baseline network for ``net``, sized from one pass over ``trials``."""
    with torch.no_grad():
        width = policy_pass(net, trials.select(np.arange(1))).features.shape[-1]
    return BaselineGRU(width, 4, cfg.baseline_hidden, seed=BASELINE_NET_SEED_BASE + seed)


def _optimizer(params: Any, cfg: NeuroGymRLConfig) -> torch.optim.Optimizer:
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(params, lr=cfg.lr)
    return torch.optim.Adam(params, lr=cfg.lr)


# ----------------------------------------------------------------------- losses
def _sample(logits: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    probs = torch.softmax(logits.detach(), -1).reshape(-1, logits.shape[-1])
    return torch.multinomial(probs, 1, generator=generator).reshape(logits.shape[:-1])


def update_loss(
    net: NeuroGymNet,
    trials: NeuroGymTrials,
    cfg: NeuroGymRLConfig,
    generator: torch.Generator,
    baseline: BaselineGRU | None = None,
    update: int = 1,
) -> tuple[torch.Tensor, dict[str, float]]:
    """One batch's loss from NeuroGym's payoff alone (the module docstring) and its parts.

    With a ``baseline`` network its squared error to the return-to-go is added (its own
    parameters only: the policy's advantages and the baseline's inputs are detached).
    """
    out = policy_pass(net, trials)
    with torch.no_grad():
        actions = _sample(out.logits, generator)
    reward = torch.as_tensor(payoffs(trials, actions.numpy()))
    valid = torch.as_tensor(trials.valid)
    scored = torch.zeros_like(valid)
    scored[scored_steps(trials)] = True
    values = baseline(out.features, actions) if baseline is not None else out.values
    if values is None:
        raise ValueError(
            "a value-head baseline needs a network with a critic (build_network with trainer='rl')"
        )
    advantages, returns = gae(reward, values, valid, cfg.gamma, cfg.gae_lambda)
    log_prob, entropy = policy_terms(out.logits, actions)
    policy_mask = scored if cfg.policy_steps == "scored" else valid
    beta = cfg.entropy_at(update)
    if baseline is None:
        loss, parts = a2c_loss(
            log_prob, entropy, values, advantages, returns, policy_mask, valid, cfg, beta
        )
    else:  # the critic term is the baseline network's own squared error (pyrl's), not value_coef's
        loss, parts = a2c_loss(
            log_prob,
            entropy,
            values.detach(),
            advantages,
            returns,
            policy_mask,
            torch.zeros_like(valid),
            cfg,
            beta,
        )
        baseline_loss = ((values - returns) ** 2 * valid).sum() / valid.sum()
        loss = loss + baseline_loss
        parts["value_loss"] = float(baseline_loss.detach())
    if out.z_self is not None:
        loss = loss + cfg.self_model_l2 * (out.z_self.pow(2).mean(-1) * valid).sum() / valid.sum()
    parts["reward"] = float(reward.sum(1).mean())
    return loss, parts


def imitation_loss(
    net: NeuroGymNet,
    trials: NeuroGymTrials,
    cfg: NeuroGymRLConfig,
    generator: torch.Generator,
    baseline: BaselineGRU | None = None,
    update: int = 1,
) -> tuple[torch.Tensor, dict[str, float]]:
    """One batch's loss for the architecture ceiling (post hoc, change log 2026-11-23): the
    cross-entropy of the policy to the ideal observer's actions at the two scored steps."""
    logits = policy_pass(net, trials).logits
    target, _ = ideal_actions(trials)
    rows, steps = scored_steps(trials)
    loss = nn.functional.cross_entropy(logits[rows, steps], torch.as_tensor(target)[rows, steps])
    return loss, {"imitation_loss": float(loss.detach())}


TRAINERS: dict[str, Callable[..., tuple[torch.Tensor, dict[str, float]]]] = {
    "rl": update_loss,
    "imitation": imitation_loss,
}
"""How a network learns the task -> its batch loss: ``rl`` from NeuroGym's payoff alone,
``imitation`` of the ideal observer's actions (the post-hoc architecture ceiling)."""


# ----------------------------------------------------------------------- checks
@torch.no_grad()
def _decide(
    net: NeuroGymNet, trials: NeuroGymTrials, generator: torch.Generator
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    was_training = net.training
    net.eval()
    logits = policy_pass(net, trials).logits
    net.train(was_training)
    at = logits[torch.arange(len(trials)), torch.as_tensor(trials.length - 1)]
    p_sure = torch.softmax(at, -1).numpy()[:, SURE]
    return {
        "greedy": logits.argmax(-1).numpy(),
        "sampled": _sample(logits, generator).numpy(),
    }, p_sure


def policy_actions(
    net: NeuroGymNet, trials: NeuroGymTrials, generator: torch.Generator
) -> dict[str, np.ndarray]:
    """The network's actions ``(B, T)`` on ``trials``: ``"greedy"`` (argmax) and ``"sampled"``
    (drawn from the policy at every step with ``generator``), from one pass."""
    return _decide(net, trials, generator)[0]


CHOICE_OF_ACTION = np.array(["none", "left", "right", "sure"])
"""The choice a NeuroGym action at the decision step makes (fixating through it: none)."""


def outcome_counts(trials: NeuroGymTrials, actions: np.ndarray) -> list[dict[str, Any]]:
    """How many trials fell in each (coherence, sure offered, choice, correct) cell: the outcome
    of one check, from which every signature of :mod:`labcore.markers.sure_option` follows.
    ``correct`` is None unless a side was chosen; cells are sorted by coherence, offer, choice."""
    last = np.asarray(actions)[np.arange(len(trials)), trials.length - 1]
    side = (last == LEFT) | (last == RIGHT)
    frame = pd.DataFrame(
        {
            "coherence": trials.coherence.astype(float),
            "sure_offered": trials.sure_offered.astype(int),
            "choice": CHOICE_OF_ACTION[last],
            "correct": np.where(side, (last == 1 + trials.ground_truth).astype(int), -1),
        }
    )
    sizes = frame.groupby(["coherence", "sure_offered", "choice", "correct"], sort=True).size()
    return [
        {
            "coherence": float(c),
            "sure_offered": int(o),
            "choice": str(ch),
            "correct": None if k < 0 else int(k),
            "n": int(n),
        }
        for (c, o, ch, k), n in sizes.items()
    ]


def check_rates(counts: list[dict[str, Any]]) -> dict[str, float]:
    """The stopping rule's three rates from :func:`outcome_counts` (protocol 8.7): ``answered``
    (a side, or the sure option when offered), ``accuracy`` (of side choices) and
    ``p_sure_offered``; nan where nothing is counted."""

    def total(keep: Callable[[dict[str, Any]], bool]) -> int:
        return sum(c["n"] for c in counts if keep(c))

    n = total(lambda c: True)
    sides = total(lambda c: c["choice"] in ("left", "right"))
    offered = total(lambda c: c["sure_offered"] == 1)
    sure = total(lambda c: c["sure_offered"] == 1 and c["choice"] == "sure")
    right = total(lambda c: c["correct"] == 1)
    return {
        "answered": (sides + sure) / n if n else np.nan,
        "accuracy": right / sides if sides else np.nan,
        "p_sure_offered": sure / offered if offered else np.nan,
    }


def criterion_met(rates: dict[str, float], ideal_p_sure: float, cfg: NeuroGymRLConfig) -> bool:
    """Protocol 8.7's behavioural criterion on one check's :func:`check_rates`: answered,
    accurate, and P(sure | offered) near the ideal observer's (the config's ``criterion_*``)."""

    return bool(
        rates["answered"] >= cfg.criterion_answered
        and rates["accuracy"] >= cfg.criterion_accuracy
        and abs(rates["p_sure_offered"] - ideal_p_sure) < cfg.criterion_sure_halfwidth
    )


def check(net: NeuroGymNet, trials: NeuroGymTrials, generator: torch.Generator) -> dict[str, Any]:
    """One held-out check: for the sampled and the greedy policy, the reward per trial, the
    stopping rule's rates and the outcome counts (keys ``sampled_*`` and ``greedy_*``), and the
    policy's mean probability of the sure option with and without the offer (as
    :func:`~labcore.agents.neurogym.sure_propensity`), from one pass."""
    decided, p_sure = _decide(net, trials, generator)
    offered = trials.sure_offered
    found: dict[str, Any] = {
        "heldout_p_sure_offered": float(p_sure[offered].mean()),
        "heldout_p_sure_not_offered": float(p_sure[~offered].mean()),
    }
    for mode, actions in decided.items():
        counts = outcome_counts(trials, actions)
        found[f"{mode}_reward"] = float(payoffs(trials, actions).sum(1).mean())
        found.update({f"{mode}_{k}": v for k, v in check_rates(counts).items()})
        found[f"{mode}_counts"] = counts
    return found


@functools.lru_cache(maxsize=4)
def training_pool(seed: int, n: int) -> NeuroGymTrials:
    """The seed's training pool (its training block's stream), kept for the next agent of the same
    seed in this process: drawing 100,000 trials takes about 12 s in NeuroGym's Python."""
    return draw_trials(int(episode_seeds(seed, "train", 1)[0]), n)


# ----------------------------------------------------------------------- training
def _step(params: list[torch.Tensor], optimizer: torch.optim.Optimizer, max_norm: float) -> None:
    nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()


def train_network(
    seed: int,
    cfg: NeuroGymRLConfig | None = None,
    progress: ProgressFn | None = None,
    trainer: str = "rl",
    agent: str = "b2_ws",
) -> tuple[NeuroGymNet, dict[str, Any]]:
    """Train one network on NeuroGym's task; returns it (``cfg.keep``) and its record.

    Parameters
    ----------
    seed : agent seed (weights, batch draws, actions; its trial blocks)
    cfg : the hyperparameters (default :data:`REGISTERED_8_6`; :data:`SONG_2017` for protocol 8.7)
    progress : called as ``progress(update, max_updates, metrics)`` after each check
    trainer : "rl" (from the payoff) or "imitation" (the ideal observer's actions)
    agent : "b2_ws" (the B2 family; ``reward_all`` from reward) or "plain_gru"

    Returns
    -------
    The network (eval mode) and its record: ``history`` (every check: sampled and greedy
    reward, rates and outcome counts, P(sure), the training loss parts), ``sure_propensity_early``,
    ``stopped`` ("criterion" or "cap"), ``updates`` done, ``best_update``, the ideal observer's
    held-out P(sure | offered), wall time.
    """
    cfg = cfg or REGISTERED_8_6
    check_choice(trainer, "trainer", tuple(TRAINERS))
    batch_loss = TRAINERS[trainer]
    start = time.perf_counter()
    # -- seeding: everything random below comes from these
    torch.set_num_threads(cfg.threads)
    seed_everything(seed)
    net = build_network(agent, trainer, seed, cfg)
    generator = torch.Generator().manual_seed(seed)  # batch draws and actions
    check_generator = torch.Generator().manual_seed(EVAL_SAMPLING_SEED_BASE + seed)
    pool = training_pool(seed, cfg.train_pool)
    heldout = draw_trials(int(episode_seeds(seed, "heldout", 1)[0]), cfg.heldout_trials)
    baseline = (
        build_baseline(net, heldout, seed, cfg)
        if trainer == "rl" and cfg.baseline == "gru"
        else None
    )
    # --
    optimizer = _optimizer(net.parameters(), cfg)
    baseline_optimizer = _optimizer(baseline.parameters(), cfg) if baseline is not None else None
    ideal_p_sure = check_rates(outcome_counts(heldout, ideal_actions(heldout)[0]))["p_sure_offered"]
    history: list[dict[str, Any]] = []
    best, best_state, best_update, parts_log, streak, stopped = -np.inf, None, 0, [], 0, "cap"
    probes = [sure_propensity(net, heldout, 0)]
    update = 0
    for update in range(1, cfg.max_updates + 1):
        draw = torch.randint(len(pool), (cfg.trials_per_update,), generator=generator).numpy()
        net.train()
        loss, parts = batch_loss(
            net, pool.select(draw), cfg, generator, baseline=baseline, update=update
        )
        optimizer.zero_grad(set_to_none=True)
        if baseline_optimizer is not None:
            baseline_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        _step(list(net.parameters()), optimizer, cfg.max_grad_norm)
        if baseline_optimizer is not None:
            _step(list(baseline.parameters()), baseline_optimizer, cfg.max_grad_norm)
        parts_log.append(parts)
        if update in PROBE_UPDATES:
            probes.append(sure_propensity(net, heldout, update))
        if update % cfg.eval_every and update != cfg.max_updates:
            continue
        net.eval()
        found = check(net, heldout, check_generator)
        sampled = {k: found[f"sampled_{k}"] for k in ("answered", "accuracy", "p_sure_offered")}
        met = criterion_met(sampled, ideal_p_sure, cfg)
        streak = streak + 1 if met else 0
        reward = found["greedy_reward"]
        history.append(
            {
                "update": update,
                "heldout_reward": reward,
                **found,
                "criterion_met": met,
                "entropy_coef": cfg.entropy_at(update),
                **{f"train_{k}": float(np.mean([p[k] for p in parts_log])) for k in parts_log[0]},
            }
        )
        parts_log = []
        if reward > best:
            best, best_update, best_state = reward, update, copy.deepcopy(net.state_dict())
        if progress is not None:
            progress(
                update,
                cfg.max_updates,
                {
                    "heldout_reward": reward,
                    "p_sure_offered": sampled["p_sure_offered"],
                    "accuracy": sampled["accuracy"],
                    "criterion_met": float(met),
                },
            )
        if cfg.stop_rule == "behaviour" and streak >= cfg.criterion_streak:
            stopped = "criterion"
            break
    if cfg.keep == "best_reward":
        net.load_state_dict(best_state)
    net.eval()
    kind = net.config.kind
    record = {
        "task": TASK,
        "kind": kind,
        "agent": agent,
        "seed": int(seed),
        "mode": "fast",
        "trainer": trainer,
        "payoff": dict(pool.rewards),
        "config": asdict(net.config),
        "train_config": asdict(cfg),
        "heldout_reward": best if cfg.keep == "best_reward" else history[-1]["heldout_reward"],
        "heldout_agreement": ideal_agreement(net, heldout),
        "ideal_heldout_p_sure_offered": ideal_p_sure,
        "criterion": None,
        "criterion_attainable": True,
        "excluded": False,  # no exclusion rule (8.6, 8.7)
        "stopped": stopped,
        "best_update": best_update,
        "updates": update,
        "wall_seconds": round(time.perf_counter() - start, 3),
        "history": history,
        "sure_propensity_early": probes,
    }
    return net, record
