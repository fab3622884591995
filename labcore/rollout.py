"""Batched autonomous rollouts of a trained agent -> a :class:`Trace` of numpy arrays.

The oracle's action is only recorded for scoring (paper sec. 4.3: "all evaluations are
autonomous rollouts"); policies act greedily (argmax).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Agent, Observation
from labcore.config import Intervention
from labcore.envs.batch import StepKind, report_mask
from labcore.envs.wagering import BET_ACTION, OPT_OUT_ACTION


@dataclass(frozen=True)
class Trace:
    """Everything recorded in a batch of ``B`` rollouts of up to ``T`` steps.

    Per-step arrays are ``(B, T, ...)`` and meaningful where ``valid``. ``slots`` is what the
    readouts saw (after any noise); ``confidence`` is the confidence head's output (nan for
    agents without one).
    """

    task_id: str
    intervention: Intervention
    seeds: np.ndarray
    valid: np.ndarray
    step_kind: np.ndarray
    action: np.ndarray
    oracle: np.ndarray
    logits: np.ndarray
    probs: np.ndarray
    confidence: np.ndarray
    cue: np.ndarray
    reward: np.ndarray
    h: np.ndarray
    slots: np.ndarray | None
    occupied: np.ndarray | None
    z_self: np.ndarray | None
    labels: dict[str, np.ndarray]
    outcome: dict[str, np.ndarray] = field(default_factory=dict)
    write_slot: np.ndarray | None = None
    """(B, T) a learned gate's slot written (K: none, -1: no event); None: the overwrite rule."""

    @property
    def n_episodes(self) -> int:
        """Number of episodes B."""
        return len(self.seeds)

    def episode(self, i: int) -> Trace:
        """The trace of episode ``i`` alone (a batch of one)."""
        n = self.n_episodes

        def pick(value: object) -> object:
            return (
                value[i : i + 1]
                if isinstance(value, np.ndarray) and value.shape[:1] == (n,)
                else value
            )

        arrays = {
            f.name: pick(getattr(self, f.name))
            for f in fields(self)
            if f.name not in ("labels", "outcome")
        }
        return replace(
            self,
            **arrays,
            labels={k: pick(v) for k, v in self.labels.items()},
            outcome={k: pick(v) for k, v in self.outcome.items()},
        )

    @property
    def agrees(self) -> np.ndarray:
        """(B, T) the agent's action equals the oracle's (scored steps only)."""
        return (self.action == self.oracle) & self.scored

    @property
    def scored(self) -> np.ndarray:
        """(B, T) steps the policy answers (valid, not a wager step)."""
        return self.valid & (self.step_kind != StepKind.WAGER)

    @property
    def report_mask(self) -> np.ndarray:
        """(B, T) the report steps (dual task: the two report flags; wagering: the choice point)."""
        return report_mask(self.step_kind, self.valid)

    def report_steps(self, episode: int = 0) -> np.ndarray:
        """Step indices of one episode's report steps."""
        return np.flatnonzero(self.report_mask[episode])

    def per_step_accuracy(self) -> np.ndarray:
        """(B,) fraction of scored steps on which the agent did what the oracle would do."""
        return self.agrees.sum(1) / np.maximum(self.scored.sum(1), 1)

    def report_correct(self) -> np.ndarray:
        """Dual task: (B, 2) correctness of the secondary and primary reports."""
        out = np.zeros((self.n_episodes, 2), bool)
        for j, kind in enumerate((StepKind.REPORT_1, StepKind.REPORT_2)):
            at = self.valid & (self.step_kind == kind)
            out[:, j] = (self.agrees & at).any(1)
        return out

    def decision_accuracy(self) -> np.ndarray:
        """Dual task: (B,) report-window decision accuracy (mean over the two reports)."""
        return self.report_correct().mean(1)

    def conjunction(self) -> np.ndarray:
        """Dual task: (B,) both reports correct."""
        return self.report_correct().all(1)


def observation_at(obs: E.BatchObs, table_features: torch.Tensor | None = None) -> Observation:
    """Torch view of a batched observation, with the table's features if already computed."""
    pose = torch.as_tensor(obs.pose)
    return Observation(
        direction=torch.as_tensor(np.array(obs.direction)),
        task=torch.as_tensor(obs.task),
        cue=torch.as_tensor(obs.cue),
        pose=pose,
        image_table=torch.as_tensor(np.array(obs.tables.image)),
        table_features=table_features,
    )


@torch.no_grad()
def table_features(agent: Agent, obs: E.BatchObs) -> torch.Tensor | None:
    """``agent``'s encoder features of every view of the simulator's table, once per rollout
    (None for a stand-in without the lab's encoder)."""
    if not isinstance(agent, Agent):
        return None
    return agent.encoder(torch.as_tensor(np.array(obs.tables.image)))


@torch.no_grad()
def rollout(
    agent: Agent,
    task_id: str,
    seeds: Sequence[int],
    intervention: Intervention | None = None,
    *,
    task_options: dict[str, Any] | None = None,
    trial_overrides: dict[str, Any] | None = None,
) -> Trace:
    """Run ``agent`` autonomously on one episode per seed, all at once, under ``intervention``.

    ``task_options`` override the task's config, ``trial_overrides`` a trial's draws. A wager
    bets when the confidence at the choice point (post-decision wager: at the wager step)
    exceeds 0.5 (paper sec. 4.2); without a confidence head, the policy's top probability.
    """
    iv = intervention or Intervention()
    sim = E.make_batch(task_id, **(task_options or {}))
    obs = sim.reset(seeds, trial_overrides)
    n, t_max = len(seeds), sim.max_steps
    c = agent.config
    rng = torch.Generator().manual_seed(iv.seed)
    state = agent.initial_state(n, iv, rng)
    wagering = isinstance(sim, E.BatchWagering)
    read_at = StepKind.WAGER if wagering and sim.config.post_decision_sample else StepKind.REPORT_1

    rec: dict[str, np.ndarray] = {
        "valid": np.zeros((n, t_max), bool),
        "step_kind": np.zeros((n, t_max), np.int8),
        "action": np.full((n, t_max), -1, np.int64),
        "oracle": np.full((n, t_max), -1, np.int64),
        "logits": np.zeros((n, t_max, E.N_ACTIONS), np.float32),
        "probs": np.zeros((n, t_max, E.N_ACTIONS), np.float32),
        "confidence": np.full((n, t_max), np.nan, np.float32),
        "cue": np.zeros((n, t_max, E.CUE_DIM), np.float32),
        "reward": np.zeros((n, t_max), np.float32),
        "h": np.zeros((n, t_max, c.hidden_dim), np.float32),
    }
    if c.workspace:
        rec["slots"] = np.zeros((n, t_max, c.n_slots, c.slot_dim), np.float32)
        rec["occupied"] = np.zeros((n, t_max, c.n_slots), bool)
    if c.self_model:
        rec["z_self"] = np.zeros((n, t_max, c.self_model_dim), np.float32)
    if c.workspace and c.write_rule == "learned":
        rec["write_slot"] = np.full((n, t_max), -1, np.int64)
    trial_confidence = np.full(n, np.nan, np.float32)

    features = table_features(agent, obs)
    length = 0
    for t in range(t_max):
        alive = sim.alive.copy()
        if not alive.any():
            break
        out, state = agent.step(observation_at(obs, features), state, iv, rng)
        probs = torch.softmax(out.logits, -1).numpy()
        kind = sim.step_kind()
        action = probs.argmax(1)
        confidence = out.confidence.numpy() if out.confidence is not None else probs.max(1)
        if wagering:
            at_choice = alive & (kind == read_at)
            trial_confidence[at_choice] = confidence[at_choice]
            bet = np.where(trial_confidence > 0.5, BET_ACTION, OPT_OUT_ACTION)
            action = np.where(kind == StepKind.WAGER, bet, action)
        rec["valid"][:, t] = alive
        rec["step_kind"][:, t] = kind
        rec["action"][:, t] = np.where(alive, action, -1)
        rec["oracle"][:, t] = sim.oracle_action()
        rec["logits"][:, t] = out.logits.numpy()
        rec["probs"][:, t] = probs
        if out.confidence is not None:
            rec["confidence"][:, t] = out.confidence.numpy()
        rec["cue"][:, t] = obs.cue
        rec["h"][:, t] = out.h.numpy()
        if c.workspace:
            rec["slots"][:, t] = out.slots.numpy()
            rec["occupied"][:, t] = out.occupied.numpy()
        if c.self_model:
            rec["z_self"][:, t] = out.z_self.numpy()
        if out.write_slot is not None:
            rec["write_slot"][:, t] = np.where(alive, out.write_slot.numpy(), -1)
        obs, reward, _, _ = sim.step(np.where(alive, action, 0).astype(np.int64))
        rec["reward"][:, t] = reward
        length = t + 1

    labels = {k: np.asarray(v) for k, v in vars(sim.trials).items() if v is not None}
    outcome: dict[str, np.ndarray] = {}
    if wagering:
        st = sim.state
        outcome = {
            "decision": st.decision.copy(),
            "correct": st.decision == sim.trials.stimulus,
            "choice_step": st.choice_step.copy(),
            "confidence": trial_confidence,
            "bet": st.bet.copy(),
        }
    trimmed = {k: v[:, :length] for k, v in rec.items()}
    return Trace(
        task_id=task_id,
        intervention=iv,
        seeds=np.asarray(seeds),
        slots=trimmed.pop("slots", None),
        occupied=trimmed.pop("occupied", None),
        z_self=trimmed.pop("z_self", None),
        write_slot=trimmed.pop("write_slot", None),
        labels=labels,
        outcome=outcome,
        **trimmed,
    )
