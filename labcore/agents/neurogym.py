"""Our agents on NeuroGym's ``PostDecisionWager-v0``: trials, inputs, payoff, decisions, ideal
observer.

Protocol sec. 8.6-8.7: does an agent trained from NeuroGym's reward alone choose the sure option
more often as coherence falls, as monkeys do (Kiani & Shadlen 2009) and as reward-trained
networks do (Song, Yang & Wang 2017)? Training lives in :mod:`labcore.training.neurogym_trainer`.

- **Trials** come from NeuroGym's own code through the adapter
  (:class:`~labcore.envs.neurogym_wager.PostDecisionWagerEnv`). The task is open-loop (neither
  observations nor length depend on the actions), so one teacher-forced pass computes every
  step's policy, and :func:`payoffs` scores actions exactly as stepping the adapter does.
- **Inputs** (:func:`agent_observation`): the evidence pair arrives on the cue channel as a
  stimulus event (it reaches the agent only through its workspace); the task flags are the go
  cue and the sure cue; the view is blank. The plain GRU reads NeuroGym's four inputs as they are.
- **Actions**: NeuroGym's fixate / left / right / sure are our ``done`` / ``left`` / ``right`` /
  ``drop`` (:data:`ACTION_COLUMNS`).
- **Ideal observer** (:func:`ideal_posterior_correct`): the posterior that the side the summed
  evidence favours is right; it takes the sure option when that pays more. The ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from scipy.special import logsumexp

from labcore.agents import Agent, Observation
from labcore.agents.plain import PlainGRUPolicy
from labcore.envs.channels import CONTENT_SLICE, CUE_DIM, EVENT_INDEX, KIND_SLICE, CueKind
from labcore.envs.neurogym_wager import FIXATE, LEFT, RIGHT, SURE, PostDecisionWagerEnv
from labcore.envs.tables import ACTION_NAMES as OUR_ACTIONS

ACTION_COLUMNS: tuple[int, ...] = tuple(
    OUR_ACTIONS.index(a) for a in ("done", "left", "right", "drop")
)
"""Our action index for NeuroGym's fixate (0), left (1), right (2) and sure (3)."""
KIND = "reward_all"
"""The agent trained here: E4 arm (b)'s architecture (B2 workspace-read, z_self, critic)."""
TASK = "neurogym"
"""The task name its checkpoints carry."""


@dataclass(frozen=True)
class NeuroGymTrials:
    """A batch of NeuroGym trials, padded to the longest; ``(B, T, 4)`` and ``(B,)`` arrays."""

    ob: np.ndarray
    """Observations ``[fixation, evidence_left, evidence_right, sure_cue]``, zero after a trial's
    end."""
    length: np.ndarray
    """Steps of each trial (its last step is the decision)."""
    coherence: np.ndarray
    ground_truth: np.ndarray
    """0 = left, 1 = right."""
    sure_offered: np.ndarray
    rewards: dict[str, float]
    """NeuroGym's payoff table (abort, correct, fail, sure)."""
    noise_sd: float
    """SD of the noise on each input at each stimulus step."""
    cohs: tuple[float, ...]
    """The coherences NeuroGym draws from (the ideal observer's prior)."""

    def __len__(self) -> int:
        return len(self.length)

    @property
    def valid(self) -> np.ndarray:
        """``(B, T)``: the step belongs to its trial."""
        return np.arange(self.ob.shape[1])[None, :] < self.length[:, None]

    @property
    def stimulus(self) -> np.ndarray:
        """``(B, T)``: evidence arrives (the evidence inputs are non-zero: NeuroGym's stimulus
        period)."""
        return (self.ob[..., 1] != 0) | (self.ob[..., 2] != 0)

    def select(self, index: Any) -> NeuroGymTrials:
        """A sub-batch (trimmed to its longest trial)."""
        length = self.length[index]
        t = int(length.max())
        return replace(
            self,
            ob=self.ob[index][:, :t],
            length=length,
            coherence=self.coherence[index],
            ground_truth=self.ground_truth[index],
            sure_offered=self.sure_offered[index],
        )


def draw_trials(seed: int, n: int, env: PostDecisionWagerEnv | None = None) -> NeuroGymTrials:
    """``n`` consecutive trials of NeuroGym's stream seeded with ``seed`` (same seed, same
    trials)."""
    env = env or PostDecisionWagerEnv()
    obs, rows = [], []
    for k in range(n):
        _, info = env.reset(seed=int(seed) if k == 0 else None)
        obs.append(np.asarray(env.task.ob, dtype=np.float32))
        rows.append(info)
    t_max = max(len(o) for o in obs)
    ob = np.zeros((n, t_max, 4), np.float32)
    for k, o in enumerate(obs):
        ob[k, : len(o)] = o
    return NeuroGymTrials(
        ob=ob,
        length=np.array([len(o) for o in obs]),
        coherence=np.array([r["coherence"] for r in rows]),
        ground_truth=np.array([r["ground_truth"] for r in rows]),
        sure_offered=np.array([r["sure_offered"] for r in rows]),
        rewards=env.rewards,
        noise_sd=env.noise_sd,
        cohs=tuple(float(c) for c in env.task.cohs),
    )


def agent_observation(trials: NeuroGymTrials) -> Observation:
    """The trials as our agents' observation (module docstring, "Inputs"), ``(B, T)``."""
    ob = torch.as_tensor(trials.ob)
    valid = torch.as_tensor(trials.valid)
    event = torch.as_tensor(trials.stimulus) & valid
    b, t = valid.shape
    cue = torch.zeros(b, t, CUE_DIM)
    cue[..., EVENT_INDEX] = event.float()
    cue[..., KIND_SLICE.start + CueKind.CUE_A] = event.float()
    cue[..., CONTENT_SLICE.start] = ob[..., 1] * event
    cue[..., CONTENT_SLICE.start + 1] = ob[..., 2] * event
    task = torch.stack([1.0 - ob[..., 0], ob[..., 3]], dim=-1) * valid[..., None]
    zeros = torch.zeros(b, t, dtype=torch.long)
    return Observation(
        direction=zeros,
        task=task,
        cue=cue,
        pose=zeros,
        image_table=torch.zeros(1, 7, 7, 3, dtype=torch.long),
    )


def payoffs(trials: NeuroGymTrials, actions: np.ndarray) -> np.ndarray:
    """The reward of each step ``(B, T)`` for NeuroGym actions ``(B, T)``, as the adapter pays it.

    Breaking fixation at the first step costs ``abort``; at the decision step (each trial's
    last) the side ``1 + ground_truth`` earns ``correct``, the other ``fail``, the sure option
    ``sure`` if offered and ``abort`` if not, fixating 0. Every other step pays 0.
    """
    actions = np.asarray(actions)
    r = trials.rewards
    out = np.zeros(actions.shape, np.float32)
    out[:, 0] = np.where(actions[:, 0] != FIXATE, r["abort"], 0.0)
    rows = np.arange(len(trials))
    last = actions[rows, trials.length - 1]
    decision = np.select(
        [
            last == 1 + trials.ground_truth,
            np.isin(last, (LEFT, RIGHT)),
            (last == SURE) & trials.sure_offered,
            last == SURE,
        ],
        [r["correct"], r["fail"], r["sure"], r["abort"]],
        0.0,
    )
    out[rows, trials.length - 1] += decision
    return out


# ----------------------------------------------------------------------- the ideal observer
def ideal_posterior_correct(trials: NeuroGymTrials) -> tuple[np.ndarray, np.ndarray]:
    """The ideal observer's side (1 left, 2 right) and its posterior P(correct) for each trial.

    The sufficient statistic is ``S``, the sum of ``evidence_right - evidence_left`` over the
    ``n`` stimulus steps: ``S ~ N(+-n c / 100, 2 n sd^2)`` for coherence ``c`` (percent; + when
    right is correct). With a uniform prior over NeuroGym's coherences and sides,
    ``P(right | S) = sum_c N(S; n c/100) / sum_c [N(S; n c/100) + N(S; -n c/100)]``.

    A trial without a stimulus step (none in NeuroGym's timing) gets the posterior 0.5. Tested
    against the closed form of a single coherence (a logistic in ``S``) in
    ``tests/agents/test_neurogym_agents.py``.
    """
    stim = trials.stimulus & trials.valid
    s = ((trials.ob[..., 2] - trials.ob[..., 1]) * stim).sum(1).astype(np.float64)
    n = stim.sum(1).astype(np.float64)
    mean = n[:, None] * np.asarray(trials.cohs)[None, :] / 100.0
    var = np.maximum(2.0 * n * trials.noise_sd**2, 1e-12)[:, None]
    log_right = logsumexp(-((s[:, None] - mean) ** 2) / (2 * var), axis=1)
    log_left = logsumexp(-((s[:, None] + mean) ** 2) / (2 * var), axis=1)
    p_right = 1.0 / (1.0 + np.exp(np.clip(log_left - log_right, -700, 700)))
    p_right = np.where(n > 0, p_right, 0.5)
    side = np.where(p_right >= 0.5, RIGHT, LEFT)
    return side, np.maximum(p_right, 1.0 - p_right)


def ideal_actions(trials: NeuroGymTrials) -> tuple[np.ndarray, np.ndarray]:
    """The ideal observer's actions ``(B, T)`` (fixate, then its decision) and its P(correct)
    ``(B,)``.

    It takes the sure option when it is offered and ``sure > P(correct) * correct + (1 -
    P(correct)) * fail`` (the choice's expected payoff), otherwise the likelier side.
    """
    side, p = ideal_posterior_correct(trials)
    r = trials.rewards
    sure = trials.sure_offered & (r["sure"] > p * r["correct"] + (1 - p) * r["fail"])
    actions = np.full(trials.ob.shape[:2], FIXATE, np.int64)
    actions[np.arange(len(trials)), trials.length - 1] = np.where(sure, SURE, side)
    return actions, p


def outcome_rows(
    trials: NeuroGymTrials,
    actions: np.ndarray,
    confidence: np.ndarray | None = None,
    p_sure: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """One row per trial for :func:`~labcore.envs.neurogym_wager.sure_choice_by_coherence`:
    ``coherence``, ``sure_offered``, ``choice``, ``correct`` (None unless a side was chosen),
    ``reward``, and if given ``confidence`` and ``p_sure`` (``nan`` otherwise)."""
    rows_idx = np.arange(len(trials))
    last = np.asarray(actions)[rows_idx, trials.length - 1]
    reward = payoffs(trials, actions).sum(1)
    names = {LEFT: "left", RIGHT: "right", SURE: "sure"}
    conf = np.full(len(trials), np.nan) if confidence is None else np.asarray(confidence, float)
    sure = np.full(len(trials), np.nan) if p_sure is None else np.asarray(p_sure, float)
    return [
        {
            "coherence": float(trials.coherence[i]),
            "sure_offered": bool(trials.sure_offered[i]),
            "choice": names.get(int(last[i]), "none"),
            "correct": bool(last[i] == 1 + trials.ground_truth[i])
            if last[i] in (LEFT, RIGHT)
            else None,
            "reward": float(reward[i]),
            "confidence": float(conf[i]),
            "p_sure": float(sure[i]),
        }
        for i in rows_idx
    ]


# ----------------------------------------------------------------------- the agent
NeuroGymNet = Agent | PlainGRUPolicy
"""A network that acts on NeuroGym's task: one of the lab's agents (through
:func:`agent_observation`)
or Song et al.'s plain GRU (on NeuroGym's four inputs as they are)."""


@dataclass(frozen=True)
class PolicyPass:
    """One teacher-forced pass over a batch of trials, ``(B, T, ...)``."""

    logits: torch.Tensor
    """The policy's logits over NeuroGym's actions (fixate, left, right, sure)."""
    features: torch.Tensor
    """What the policy's readout reads (the baseline network reads it too)."""
    values: torch.Tensor | None
    """The network's own critic (value head), if it has one."""
    z_self: torch.Tensor | None
    """The self-model's activity (B2 family), else None."""


def policy_pass(net: NeuroGymNet, trials: NeuroGymTrials) -> PolicyPass:
    """Run ``net`` over whole trials in one pass (the task is open-loop: module docstring)."""
    if isinstance(net, PlainGRUPolicy):
        logits, h = net(torch.as_tensor(trials.ob))
        return PolicyPass(logits, h, net.value(h) if net.config.value_head else None, None)
    out = net.forward_sequence(agent_observation(trials))
    values = net.value(out) if net.config.value_head else None
    logits = out.logits[..., list(ACTION_COLUMNS)]  # NeuroGym's actions, in its order
    return PolicyPass(logits, net.readout_input(out), values, out.z_self)


@torch.no_grad()
def agent_decisions(agent: NeuroGymNet, trials: NeuroGymTrials) -> dict[str, np.ndarray]:
    """Greedy actions ``(B, T)`` and, at each decision step, the policy's probabilities.

    ``p_sure``: the probability of the sure option; ``side_confidence``: the larger of the
    two sides' probabilities renormalised over left and right (a confidence read from the
    policy alone); ``side``: the side the policy prefers, chosen or not.
    """
    logits = policy_pass(agent, trials).logits
    actions = logits.argmax(-1).numpy()
    at = logits[torch.arange(len(trials)), torch.as_tensor(trials.length - 1)]
    p = torch.softmax(at, -1).numpy()
    sides = p[:, [LEFT, RIGHT]]
    return {
        "actions": actions,
        "p_sure": p[:, SURE],
        "side": np.where(sides[:, 1] > sides[:, 0], RIGHT, LEFT),
        "side_confidence": sides.max(1) / np.maximum(sides.sum(1), 1e-12),
    }


PROBE_UPDATES = (5, 10, 20, 30, 50)
"""Updates after which training also records the sure option's probability
(:func:`sure_propensity`):
the post-hoc diagnosis of how early the option is given up (change log 2026-11-23)."""


@torch.no_grad()
def sure_propensity(agent: NeuroGymNet, trials: NeuroGymTrials, update: int) -> dict[str, float]:
    """The policy's mean probability of the sure option at the decision step, on trials with and
    without the offer (``heldout_p_sure_offered`` / ``_not_offered``), at ``update``."""
    was_training = agent.training
    agent.eval()
    p = agent_decisions(agent, trials)["p_sure"]
    agent.train(was_training)
    offered = trials.sure_offered
    return {
        "update": update,
        "heldout_p_sure_offered": float(p[offered].mean()),
        "heldout_p_sure_not_offered": float(p[~offered].mean()),
    }


@torch.no_grad()
def ideal_agreement(agent: NeuroGymNet, trials: NeuroGymTrials) -> float:
    """Share of trials on which the greedy agent acts as the ideal observer does at both scored
    steps (fixation and decision): the ``heldout_agreement`` its checkpoint's manifest entry
    keeps."""
    ours = agent_decisions(agent, trials)["actions"]
    ideal, _ = ideal_actions(trials)
    rows, last = np.arange(len(trials)), trials.length - 1
    return float(((ours[:, 0] == ideal[:, 0]) & (ours[rows, last] == ideal[rows, last])).mean())


def scored_steps(trials: NeuroGymTrials) -> tuple[torch.Tensor, torch.Tensor]:
    """Row and step index of the two steps NeuroGym scores in each trial: fixation, then
    decision."""
    rows = torch.arange(len(trials))
    return torch.cat([rows, rows]), torch.cat(
        [torch.zeros_like(rows), torch.as_tensor(trials.length - 1)]
    )


def run_in_env(
    agent: NeuroGymNet, seeds: list[int], env: PostDecisionWagerEnv | None = None
) -> list[dict[str, Any]]:
    """Step ``agent`` through the adapter, one trial per seed, greedy (the adapter's last ``info``
    per trial): the path a user of NeuroGym's task would take, for checking
    :func:`agent_decisions`."""
    env = env or PostDecisionWagerEnv()
    rows = []
    for seed in seeds:
        ob, info = env.reset(seed=int(seed))
        seen, done = [ob], False
        while not done:
            trials = NeuroGymTrials(
                ob=np.asarray(seen, np.float32)[None],
                length=np.array([len(seen)]),
                coherence=np.array([info["coherence"]]),
                ground_truth=np.array([0]),
                sure_offered=np.array([False]),
                rewards=env.rewards,
                noise_sd=env.noise_sd,
                cohs=(0.0,),
            )
            action = int(agent_decisions(agent, trials)["actions"][0, -1])
            ob, _, done, _, info = env.step(action)
            seen.append(ob)
        rows.append({**info, "seed": int(seed)})
    return rows
