"""Dual task of Experiments 2 and 3, with its backward-masking and out-of-distribution variants.

The task logic is vectorised over a batch and shared by :class:`DualTaskEnv` (batch of one) and
:mod:`labcore.envs.batch`; open choices are pre-registered in ``docs/protocol.md`` sec. 2.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from minigrid.core.mission import MissionSpace
from minigrid.minigrid_env import MiniGridEnv

from labcore.config import N_CUE_VALUES, DualTaskConfig
from labcore.envs.channels import CUE_DIM, TASK_DIM, CueKind, cue_events
from labcore.envs.render import compose_dual_frame
from labcore.envs.spaces import split_env_kwargs, task_observation_space
from labcore.envs.tables import LAYOUTS, build_grid, pose_tables

LAYOUT = "dual_room"
REPORT_REWARD = 0.5
"""Reward per correct report; both reports correct (a conjunction) earn 1."""
WAIT_ACTION = 6
"""``done``: what the oracle does before the first cue (only if ``secondary_cue_step > 0``)."""
WALK_MOVES = (0, 1, 2)
WALK_PROBABILITIES = (0.25, 0.25, 0.5)
"""The room walks the agent: turn left, turn right or step forward (blocked by walls)."""

REPORT_SECONDARY, REPORT_PRIMARY = 1, 2
MISSION = "hold the colour and the object; report each when its flag appears"


@dataclass(frozen=True)
class DualTrials:
    """Privileged parameters of ``B`` dual-task episodes (never shown to the agent): the start
    pose, the colour (``secondary``) and object (``primary``) cues, the masks (``-1`` padded) and
    the room's ``walk`` (B, T), applied whatever the agent does (protocol sec. 2.3)."""

    start_pose: np.ndarray
    secondary: np.ndarray
    primary: np.ndarray
    mask_steps: np.ndarray
    mask_values: np.ndarray
    walk: np.ndarray

    def __len__(self) -> int:
        return len(self.secondary)

    @property
    def n_masks(self) -> np.ndarray:
        """(B,) number of distractor events per episode."""
        return (self.mask_steps >= 0).sum(axis=1)


def sample_dual_trials(
    config: DualTaskConfig, rngs: list[np.random.Generator], overrides: dict[str, Any] | None = None
) -> DualTrials:
    """Draw one trial per generator, in a fixed order (start pose, secondary, primary, masks,
    walk) so the MiniGrid env and the batched simulator agree; ``overrides`` replace fields after
    drawing, e.g. ``{"secondary": 3}``."""
    tables = pose_tables(LAYOUT)
    m = max(config.max_masks, 1)
    n = len(rngs)
    start = np.zeros(n, np.int64)
    secondary = np.zeros(n, np.int64)
    primary = np.zeros(n, np.int64)
    mask_steps = np.full((n, m), -1, np.int64)
    mask_values = np.full((n, m), -1, np.int64)
    walk = np.zeros((n, config.n_steps), np.int64)
    window = np.arange(config.first_mask_step, config.last_mask_step_exclusive)
    for i, rng in enumerate(rngs):
        start[i] = rng.integers(tables.n_poses)
        secondary[i] = rng.integers(N_CUE_VALUES)
        primary[i] = rng.integers(N_CUE_VALUES)
        if config.mask_soa is None:
            count = int(rng.choice(config.mask_counts))
            steps = np.sort(rng.choice(window, size=count, replace=False))
        else:
            first = config.secondary_cue_step + config.mask_soa
            steps = first + config.mask_interval * np.arange(config.mask_count)
        mask_steps[i, : len(steps)] = steps
        mask_values[i, : len(steps)] = rng.integers(N_CUE_VALUES, size=len(steps))
        walk[i] = rng.choice(WALK_MOVES, size=config.n_steps, p=WALK_PROBABILITIES)
    trials = DualTrials(start, secondary, primary, mask_steps, mask_values, walk)
    return _apply_overrides(trials, overrides or {}, m)


def _apply_overrides(trials: DualTrials, overrides: dict[str, Any], width: int) -> DualTrials:
    unknown = set(overrides) - {f.name for f in fields(DualTrials)}
    if unknown:
        raise ValueError(f"unknown trial override(s): {sorted(unknown)}")
    n = len(trials)
    changes: dict[str, np.ndarray] = {}
    for name, value in overrides.items():
        arr = np.asarray(value, dtype=np.int64)
        if name == "walk":
            arr = np.broadcast_to(arr, trials.walk.shape).copy()
            if not np.isin(arr, WALK_MOVES).all():
                raise ValueError("walk moves must be left (0), right (1) or forward (2)")
        elif name in ("mask_steps", "mask_values"):
            arr = np.atleast_2d(arr)
            padded = np.full((n, max(width, arr.shape[1])), -1, np.int64)
            padded[:, : arr.shape[1]] = arr
            arr = padded
        else:
            arr = np.broadcast_to(arr, (n,)).copy()
        changes[name] = arr
    if "secondary" in changes or "primary" in changes:
        for name in ("secondary", "primary"):
            values = changes.get(name, getattr(trials, name))
            if values.min() < 0 or values.max() >= N_CUE_VALUES:
                raise ValueError(f"{name} cue must be in 0..{N_CUE_VALUES - 1}")
    if "start_pose" in changes:
        n_poses = pose_tables(LAYOUT).n_poses
        if changes["start_pose"].min() < 0 or changes["start_pose"].max() >= n_poses:
            raise ValueError(f"start_pose must be a pose index in 0..{n_poses - 1}")
    if changes.keys() & {"mask_steps", "mask_values"}:
        steps = changes.get("mask_steps", trials.mask_steps)
        values = changes.get("mask_values", trials.mask_values)
        if steps.shape != values.shape or not np.array_equal(steps >= 0, values >= 0):
            raise ValueError("mask_steps and mask_values must describe the same masks")
        changes["mask_steps"], changes["mask_values"] = steps, values
    return replace(trials, **changes)


@dataclass(frozen=True)
class DualSchedule:
    """What every step of ``B`` episodes shows and asks, over ``(B, T)``, whatever the agent does:
    the cue channel, the report flags, the expert's action, the report (0 none, 1 secondary, 2
    primary) and the pose at every observation, (B, T + 1)."""

    cue: np.ndarray
    task: np.ndarray
    oracle: np.ndarray
    report: np.ndarray
    pose: np.ndarray


def dual_schedule(config: DualTaskConfig, trials: DualTrials) -> DualSchedule:
    """Build the per-step schedule of a batch of trials (protocol sec. 2.2)."""
    n, t_max = len(trials), config.n_steps
    kind = np.full((n, t_max), -1, np.int64)
    value = np.zeros((n, t_max), np.int64)
    kind[:, config.secondary_cue_step] = CueKind.CUE_A
    value[:, config.secondary_cue_step] = trials.secondary
    kind[:, config.primary_cue_step] = CueKind.CUE_B
    value[:, config.primary_cue_step] = trials.primary
    rows, cols = np.nonzero(trials.mask_steps >= 0)
    kind[rows, trials.mask_steps[rows, cols]] = CueKind.MASK
    value[rows, trials.mask_steps[rows, cols]] = trials.mask_values[rows, cols]
    content = np.eye(N_CUE_VALUES, dtype=np.float32)[value]
    cue = cue_events(kind.reshape(-1), content.reshape(-1, N_CUE_VALUES)).reshape(n, t_max, CUE_DIM)

    report = np.zeros((n, t_max), np.int8)
    report[:, config.report_secondary_step] = REPORT_SECONDARY
    report[:, config.report_primary_step] = REPORT_PRIMARY
    task = np.zeros((n, t_max, TASK_DIM), np.float32)
    task[:, config.report_secondary_step, 0] = 1.0
    task[:, config.report_primary_step, 1] = 1.0

    # The expert rehearses the secondary cue overtly: from its arrival until the first report
    # it answers with the action whose index is the colour (protocol sec. 2.3 says why).
    oracle = np.repeat(trials.secondary[:, None], t_max, axis=1)
    oracle[:, : config.secondary_cue_step] = WAIT_ACTION
    oracle[:, config.report_primary_step] = trials.primary

    transition = pose_tables(LAYOUT).transition
    pose = np.zeros((n, t_max + 1), np.int64)
    pose[:, 0] = trials.start_pose
    for t in range(t_max):
        pose[:, t + 1] = transition[pose[:, t], trials.walk[:, t]]
    return DualSchedule(cue, task, oracle, report, pose)


class DualTaskEnv(MiniGridEnv):
    """Dual task: hold two transient cues through a delay, then report each.

    ## Description

    A 5x5 MiniGrid room (paper sec. 4.2). A colour cue (*secondary*) then an object cue
    (*primary*), one of 7 each, flash on the cue channel; through the delay the room walks the
    agent (MiniGrid physics), the agent rehearses the colour and 0-2 masks arrive; flags then ask
    for the colour and the object. The body follows the walk, never the answers, so the view
    carries no cue. Choices and reasons: ``docs/protocol.md`` sec. 2.

    ## Mission Space

    "hold the colour and the object; report each when its flag appears"

    ## Action Space

    The 7 MiniGrid actions, read as responses: action ``k`` means cue value ``k`` (chance 1/7).

    ## Observation Encoding

    ``image``, ``direction``, ``mission`` as MiniGrid (no cue information); ``task``: ``[report
    secondary, report primary]``; ``cue``: the cue channel, the only path for cue information.

    ## Rewards

    0.5 for each correct report (a correct conjunction earns 1).

    ## Termination

    After ``n_steps`` steps (default 32), the primary report. No truncation.

    ## Registered Configurations

    - ``CTLab-DualTask-v0``: training distribution (0, 1 or 2 random masks).
    - ``CTLab-DualTaskMasking-v0``: backward masking (``mask_soa``, ``mask_count``).
    - ``CTLab-DualTaskOOD-v0``: 1.5x longer delay (48 steps).

    ``reset(options=...)`` accepts trial overrides, e.g. ``{"secondary": 3, "primary": 5}``.
    """

    def __init__(self, config: DualTaskConfig | None = None, **kwargs: Any):
        cfg_kwargs, env_kwargs = split_env_kwargs(DualTaskConfig, kwargs)
        self.config = replace(config or DualTaskConfig(), **cfg_kwargs)
        self.tables = pose_tables(LAYOUT)
        super().__init__(
            mission_space=MissionSpace(mission_func=lambda: MISSION),
            width=5,
            height=5,
            max_steps=self.config.n_steps,
            see_through_walls=True,
            **env_kwargs,
        )
        self.observation_space = task_observation_space(self.observation_space)
        self.trials: DualTrials | None = None
        self.schedule: DualSchedule | None = None
        self.last_action: int | None = None
        self.last_report_correct: bool | None = None

    def _gen_grid(self, width: int, height: int) -> None:
        self.grid = build_grid(LAYOUTS[LAYOUT])
        options = getattr(self, "_reset_options", None) or {}
        self.trials = sample_dual_trials(self.config, [self.np_random], options)
        self.schedule = dual_schedule(self.config, self.trials)
        x, y, d = self.tables.poses[self.trials.start_pose[0]]
        self.agent_pos, self.agent_dir = (int(x), int(y)), int(d)
        self.mission = MISSION
        self.last_action = None
        self.last_report_correct = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode (gymnasium API); ``options`` may fix trial variables."""
        self._reset_options = options
        _, info = super().reset(seed=seed)
        self._reset_options = None
        return self._observation(), info

    def _observation(self) -> dict[str, Any]:
        obs = self.gen_obs()
        t = self.step_count
        if t < self.config.n_steps:
            obs["task"] = self.schedule.task[0, t].copy()
            obs["cue"] = self.schedule.cue[0, t].copy()
        else:
            obs["task"] = np.zeros(TASK_DIM, np.float32)
            obs["cue"] = np.zeros(CUE_DIM, np.float32)
        return obs

    def oracle_action(self) -> int:
        """The expert's action now, from privileged state (the trial); never shown to the agent."""
        if self.step_count >= self.config.n_steps:
            raise RuntimeError("the episode is over; call reset()")
        return int(self.schedule.oracle[0, self.step_count])

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply one action (gymnasium API): ``(obs, reward, terminated, truncated, info)``."""
        t = self.step_count
        if t >= self.config.n_steps:
            raise RuntimeError("the episode is over; call reset()")
        action = int(action)
        if not 0 <= action < self.action_space.n:
            raise ValueError(f"Unknown action: {action}")
        report = int(self.schedule.report[0, t])
        expected = int(self.schedule.oracle[0, t])
        # The agent's action is a response; the room moves the body along the trial's walk
        # with MiniGrid's physics, so the agent's view never depends on what it answered.
        super().step(int(self.trials.walk[0, t]))
        correct = action == expected
        reward = REPORT_REWARD if report and correct else 0.0
        terminated = self.step_count >= self.config.n_steps
        self.last_action = action
        self.last_report_correct = correct if report else None
        info = {
            "t": t,
            "report": ("none", "secondary", "primary")[report],
            "oracle_action": expected,
            "agrees_with_oracle": correct,
        }
        return self._observation(), reward, terminated, False, info

    def get_frame(
        self, highlight: bool = True, tile_size: int = 32, agent_pov: bool = False
    ) -> np.ndarray:
        """The human-readable frame: MiniGrid's view beside the cue-channel panel."""
        grid_img = super().get_frame(highlight, tile_size, agent_pov)
        return compose_dual_frame(self, grid_img)
