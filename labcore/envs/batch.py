"""Batched simulators: thousands of episodes stepped at once with MiniGrid's own tables.

A MiniGrid step costs ~120 us; behaviour cloning needs hundreds of thousands. The layouts are
static, so MiniGrid's physics and observations reduce to :class:`~labcore.envs.tables.PoseTables`,
and the task logic is the envs' own vectorised code; each episode is seeded as
``env.reset(seed=seed)`` seeds a MiniGrid env (``tests/envs`` checks they agree step by step).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from labcore.config import DualTaskConfig, WageringConfig
from labcore.envs import dual_task, wagering
from labcore.envs.channels import CUE_DIM, TASK_DIM
from labcore.envs.labels import PHASE_OVER, PHASE_WAGER
from labcore.envs.spaces import split_env_kwargs
from labcore.envs.tables import N_ACTIONS, PoseTables, pose_tables


class StepKind(IntEnum):
    """What a step asks of the agent (used for loss weights and report-level scores)."""

    ORDINARY = 0
    """Encoding, delay or navigation."""
    REPORT_1 = 1
    """Dual task: report the secondary cue. Wagering: the choice point (the decision)."""
    REPORT_2 = 2
    """Dual task: report the primary cue."""
    WAGER = 3
    """Wagering: the wager step (answered by the confidence head, not the policy)."""


def report_mask(step_kind: Any, valid: Any = None) -> Any:
    """Where the report steps are: ``valid & (step_kind is REPORT_1 or REPORT_2)``, on numpy
    arrays and torch tensors alike (the one definition of a report step).

    Examples
    --------
    >>> report_mask(np.array([0, 1, 2]), np.array([True, True, False])).tolist()
    [False, True, False]
    """
    mask = (step_kind == StepKind.REPORT_1) | (step_kind == StepKind.REPORT_2)
    return mask if valid is None else valid & mask


@dataclass(frozen=True)
class BatchObs:
    """Observations of ``B`` episodes. ``image`` is looked up from the pose on demand."""

    pose: np.ndarray
    task: np.ndarray
    cue: np.ndarray
    tables: PoseTables

    @property
    def image(self) -> np.ndarray:
        """(B, 7, 7, 3) MiniGrid's egocentric view, from the pose table."""
        return self.tables.image[self.pose]

    @property
    def direction(self) -> np.ndarray:
        """(B,) the agent's facing direction, from its pose."""
        return self.tables.direction[self.pose]


def episode_rngs(seeds: Sequence[int]) -> list[np.random.Generator]:
    """One generator per episode, seeded as ``env.reset(seed=seed)`` seeds a MiniGrid env."""
    return [seeding.np_random(int(s))[0] for s in seeds]


def _check_actions(actions: np.ndarray, n: int) -> np.ndarray:
    actions = np.asarray(actions)
    if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"actions must be an integer array of shape ({n},), got {actions.dtype} {actions.shape}"
        )
    if actions.min(initial=0) < 0 or actions.max(initial=0) >= N_ACTIONS:
        raise ValueError(f"actions must be in 0..{N_ACTIONS - 1}")
    return actions.astype(np.int64)


class BatchDualTask:
    """``B`` dual-task episodes in lockstep (same semantics as :class:`DualTaskEnv`)."""

    def __init__(self, config: DualTaskConfig | None = None):
        self.config = config or DualTaskConfig()
        self.tables = pose_tables(dual_task.LAYOUT)
        self.max_steps = self.config.n_steps
        self.oracle_steps = self.config.n_steps
        self.max_events = 2 + self.config.max_masks
        """Most cue-channel events (workspace writes) an episode can hold."""

    def reset(self, seeds: Sequence[int], overrides: dict[str, Any] | None = None) -> BatchObs:
        """Start one episode per seed (``overrides`` fix trial variables); the first observation."""
        self.trials = dual_task.sample_dual_trials(self.config, episode_rngs(seeds), overrides)
        self.schedule = dual_task.dual_schedule(self.config, self.trials)
        self.pose = self.trials.start_pose.copy()
        self.t = np.zeros(len(self.trials), np.int64)
        return self._obs()

    @property
    def alive(self) -> np.ndarray:
        """(B,) episodes still running."""
        return self.t < self.config.n_steps

    def _obs(self) -> BatchObs:
        n = len(self.trials)
        task = np.zeros((n, TASK_DIM), np.float32)
        cue = np.zeros((n, CUE_DIM), np.float32)
        live = np.flatnonzero(self.alive)
        task[live] = self.schedule.task[live, self.t[live]]
        cue[live] = self.schedule.cue[live, self.t[live]]
        return BatchObs(self.pose.copy(), task, cue, self.tables)

    def _at_t(self, table: np.ndarray, fill: int) -> np.ndarray:
        out = np.full(len(self.trials), fill, table.dtype)
        live = np.flatnonzero(self.alive)
        out[live] = table[live, self.t[live]]
        return out

    def oracle_action(self) -> np.ndarray:
        """The expert's action per episode (``-1`` for finished episodes)."""
        return self._at_t(self.schedule.oracle, -1)

    def step_kind(self) -> np.ndarray:
        """:class:`StepKind` of the current step per episode."""
        return self._at_t(self.schedule.report.astype(np.int64), StepKind.ORDINARY)

    def step(self, actions: np.ndarray) -> tuple[BatchObs, np.ndarray, np.ndarray, np.ndarray]:
        """Advance live episodes; actions of finished episodes are ignored."""
        actions = _check_actions(actions, len(self.trials))
        live = self.alive
        report = self.step_kind()
        correct = actions == self.oracle_action()
        reward = np.where(live & (report > 0) & correct, dual_task.REPORT_REWARD, 0.0)
        self.t = np.where(live, self.t + 1, self.t)
        self.pose = self.schedule.pose[np.arange(len(self.t)), self.t]  # the walk, not the actions
        terminated = live & (self.t >= self.config.n_steps)
        return self._obs(), reward, terminated, np.zeros_like(terminated)


class BatchWagering:
    """``B`` wagering episodes (same semantics as :class:`WageringEnv`)."""

    def __init__(self, config: WageringConfig | None = None):
        self.config = config or WageringConfig()
        self.tables = pose_tables(wagering.LAYOUT)
        self.max_steps = self.config.max_steps
        self.oracle_steps = wagering.ORACLE_STEPS
        self.max_events = 2 if self.config.post_decision_sample else 1
        """Most cue-channel events an episode can hold."""

    def reset(self, seeds: Sequence[int], overrides: dict[str, Any] | None = None) -> BatchObs:
        """Start one episode per seed (``overrides`` fix trial variables); the first observation."""
        self.trials = wagering.sample_wagering_trials(self.config, episode_rngs(seeds), overrides)
        self.state = wagering.WageringState.start(len(self.trials))
        return self._obs()

    @property
    def alive(self) -> np.ndarray:
        """(B,) episodes still running."""
        return self.state.phase != PHASE_OVER

    @property
    def t(self) -> np.ndarray:
        """(B,) step index of each episode."""
        return self.state.t

    def _obs(self) -> BatchObs:
        task, cue = wagering.wagering_observation(self.trials, self.state)
        return BatchObs(self.state.pose.copy(), task, cue, self.tables)

    def oracle_action(self) -> np.ndarray:
        """(B,) what the oracle would do now (-1 for finished episodes)."""
        action = wagering.wagering_oracle(self.trials, self.state, self.config.oracle_side)
        return np.where(self.alive, action, -1)

    def step_kind(self) -> np.ndarray:
        """(B,) :class:`StepKind` of the current step."""
        kind = np.full(len(self.trials), int(StepKind.ORDINARY), np.int64)
        kind[self.state.choice_step == self.state.t] = StepKind.REPORT_1
        kind[self.state.phase == PHASE_WAGER] = StepKind.WAGER
        kind[~self.alive] = StepKind.ORDINARY
        return kind

    def step(self, actions: np.ndarray) -> tuple[BatchObs, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per episode; returns ``(obs, reward, terminated, truncated)``."""
        actions = _check_actions(actions, len(self.trials))
        moved = self.tables.transition[self.state.pose, actions]
        reward, terminated, truncated = wagering.wagering_advance(
            self.config, self.trials, self.state, actions, moved
        )
        return self._obs(), reward, terminated, truncated


BatchTask = BatchDualTask | BatchWagering

_BATCH_CLASSES = {
    "labcore.envs.dual_task:DualTaskEnv": (BatchDualTask, DualTaskConfig),
    "labcore.envs.wagering:WageringEnv": (BatchWagering, WageringConfig),
}


def make_batch(task_id: str, **overrides: Any) -> BatchTask:
    """Batched simulator of a registered task; ``overrides`` are config fields, as for
    ``gymnasium.make``."""
    spec = gymnasium.spec(task_id)
    try:
        cls, config_cls = _BATCH_CLASSES[spec.entry_point]
    except KeyError:
        raise ValueError(f"{task_id!r} is not a lab task") from None
    kwargs = {**spec.kwargs, **overrides}
    config = kwargs.pop("config", None) or config_cls()
    cfg_kwargs, rest = split_env_kwargs(config_cls, kwargs)
    if rest:
        raise ValueError(f"unknown task option(s) for {task_id}: {sorted(rest)}")
    return cls(replace(config, **cfg_kwargs))


@dataclass(frozen=True)
class Demonstrations:
    """Oracle episodes for behaviour cloning, padded to a common length ``T``.

    Arrays are ``(N, T, ...)``; ``valid`` marks real steps. Images are stored as pose
    indices into ``image_table`` (a few dozen distinct views), see :attr:`image`.
    """

    task_id: str
    seeds: np.ndarray
    pose: np.ndarray
    task: np.ndarray
    cue: np.ndarray
    action: np.ndarray
    step_kind: np.ndarray
    valid: np.ndarray
    image_table: np.ndarray
    direction_table: np.ndarray
    labels: dict[str, np.ndarray]

    @property
    def image(self) -> np.ndarray:
        """(B, T, 7, 7, 3) egocentric views, from the pose table."""
        return self.image_table[self.pose]

    @property
    def n_episodes(self) -> int:
        """Number of episodes B."""
        return len(self.seeds)

    @property
    def n_steps(self) -> int:
        """Padded episode length T."""
        return self.pose.shape[1]


def oracle_demonstrations(task_id: str, seeds: Sequence[int], **overrides: Any) -> Demonstrations:
    """Roll the oracle through one episode per seed (paper sec. 4.3.1, "Dataset Generation")."""
    sim = make_batch(task_id, **overrides)
    obs = sim.reset(seeds)
    n, t_max = len(seeds), sim.max_steps
    pose = np.zeros((n, t_max), np.int64)
    task = np.zeros((n, t_max, TASK_DIM), np.float32)
    cue = np.zeros((n, t_max, CUE_DIM), np.float32)
    action = np.zeros((n, t_max), np.int64)
    step_kind = np.zeros((n, t_max), np.int8)
    valid = np.zeros((n, t_max), bool)
    t = 0
    while sim.alive.any():
        live = sim.alive
        pose[:, t], task[:, t], cue[:, t] = obs.pose, obs.task, obs.cue
        expert = sim.oracle_action()
        action[:, t] = np.where(live, expert, 0)
        step_kind[:, t] = sim.step_kind()
        valid[:, t] = live
        obs, *_ = sim.step(np.where(live, expert, 0))
        t += 1
    length = t
    labels = {k: np.asarray(v) for k, v in vars(sim.trials).items() if v is not None}
    if isinstance(sim, BatchWagering):  # the side each demonstration took
        labels["decision"] = sim.state.decision.copy()
    return Demonstrations(
        task_id,
        np.asarray(seeds),
        pose[:, :length],
        task[:, :length],
        cue[:, :length],
        action[:, :length],
        step_kind[:, :length],
        valid[:, :length],
        sim.tables.image,
        sim.tables.direction,
        labels,
    )
