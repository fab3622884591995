"""Post-decision wagering task of Experiment 1 (paper sec. 4.2; protocol sec. 3), vectorised and
shared by :class:`WageringEnv` (batch of one) and the batched simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from minigrid.core.mission import MissionSpace
from minigrid.minigrid_env import MiniGridEnv

from labcore.config import N_CUE_VALUES, WageringConfig
from labcore.envs.channels import TASK_DIM, CueKind, cue_events
from labcore.envs.labels import (
    PHASE_NAVIGATE,
    PHASE_OVER,
    PHASE_WAGER,
    STIMULUS_CELL,
    WAGERING_LAYOUT,
)
from labcore.envs.render import compose_wagering_frame
from labcore.envs.spaces import split_env_kwargs, task_observation_space
from labcore.envs.tables import LAYOUTS, build_grid, find_cells, pose_tables

LAYOUT = WAGERING_LAYOUT
BET_ACTION = 3
"""``pickup``: take the bet. Any other action at the wager step opts out."""
OPT_OUT_ACTION = 4
"""``drop``: the canonical opt-out action."""
MISSION = "see the flash, walk to its side, then bet or opt out"

RESPONSE_CELLS = (find_cells(LAYOUTS[LAYOUT], "L")[0], find_cells(LAYOUTS[LAYOUT], "R")[0])
"""Response zone of stimulus class 0 (left, blue) and class 1 (right, red)."""
CHOICE_CELL = (STIMULUS_CELL[0], RESPONSE_CELLS[0][1])
"""The junction of the T: where the agent commits to a side."""
START_POSE = (STIMULUS_CELL[0], STIMULUS_CELL[1] + 1, 3)
"""One cell below the stimulus zone, facing up."""
ORACLE_STEPS = (
    1 + (STIMULUS_CELL[1] - CHOICE_CELL[1]) + 1 + abs(RESPONSE_CELLS[0][0] - CHOICE_CELL[0]) + 1
)
"""Longest oracle episode (protocol sec. 3.1): stimulus zone, junction, turn, zone, wager (7)."""


@dataclass(frozen=True)
class WageringTrials:
    """Privileged parameters of ``B`` wagering episodes (never shown to the agent): the class
    (0 left, 1 right), the salience lambda, the flash's noise (B, 2), whether a wager follows, and
    the post-decision flash's noise (protocol 11.2; None without one)."""

    stimulus: np.ndarray
    salience: np.ndarray
    noise: np.ndarray
    wager: np.ndarray
    noise_after: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.stimulus)

    def evidence(self, noise: np.ndarray) -> np.ndarray:
        """(B,) a flash's evidence for the right side, ``x[1] - x[0]``, under ``noise`` (B, 2)."""
        return np.where(self.stimulus == 1, 1.0, -1.0) * self.salience + noise[:, 1] - noise[:, 0]


def sample_wagering_trials(
    config: WageringConfig, rngs: list[np.random.Generator], overrides: dict[str, Any] | None = None
) -> WageringTrials:
    """Draw one trial per generator in a fixed order (stimulus, salience, noise, wager, after)."""
    n = len(rngs)
    stimulus = np.zeros(n, np.int64)
    salience = np.zeros(n)
    noise = np.zeros((n, 2))
    wager = np.zeros(n, bool)
    after = np.zeros((n, 2)) if config.post_decision_sample else None
    lo, hi = config.salience_range
    for i, rng in enumerate(rngs):
        stimulus[i] = rng.integers(2)
        salience[i] = rng.uniform(lo, hi)
        noise[i] = rng.normal(0.0, config.cue_noise_sd, size=2)
        wager[i] = rng.random() < config.wager_probability
        if after is not None:
            after[i] = rng.normal(0.0, config.cue_noise_sd, size=2)
    trials = WageringTrials(stimulus, salience, noise, wager, after)
    overrides = overrides or {}
    unknown = set(overrides) - {f.name for f in fields(WageringTrials)}
    if unknown:
        raise ValueError(f"unknown trial override(s): {sorted(unknown)}")
    changes = {}
    for name, value in overrides.items():
        if name == "noise_after" and trials.noise_after is None:
            raise ValueError("noise_after: this task has no post-decision flash")
        shape = (n, 2) if name in ("noise", "noise_after") else (n,)
        dtype = {"stimulus": np.int64, "wager": bool}.get(name, float)
        changes[name] = np.broadcast_to(np.asarray(value, dtype=dtype), shape).copy()
    if "stimulus" in changes and not np.isin(changes["stimulus"], (0, 1)).all():
        raise ValueError("stimulus must be 0 or 1")
    return replace(trials, **changes)


@dataclass
class WageringState:
    """Mutable state of ``B`` wagering episodes, (B,) each, -1 for "not yet": the step the cue is
    shown, the first step at the junction (where confidence is read), the zone entered, the bet."""

    pose: np.ndarray
    t: np.ndarray
    phase: np.ndarray
    cue_step: np.ndarray
    choice_step: np.ndarray
    decision: np.ndarray
    bet: np.ndarray

    @classmethod
    def start(cls, n: int) -> WageringState:
        """The state of fresh episodes for the given trials."""
        tables = pose_tables(LAYOUT)
        start = tables.index(START_POSE[:2], START_POSE[2])
        minus = np.full(n, -1, np.int64)
        return cls(
            np.full(n, start, np.int64),
            np.zeros(n, np.int64),
            np.zeros(n, np.int64),
            minus.copy(),
            minus.copy(),
            minus.copy(),
            minus.copy(),
        )


def wagering_observation(
    trials: WageringTrials, state: WageringState
) -> tuple[np.ndarray, np.ndarray]:
    """Task flags ``[choice point, wager]`` and cue channel of the current observations."""
    tables = pose_tables(LAYOUT)
    n = len(trials)
    task = np.zeros((n, TASK_DIM), np.float32)
    at_choice = tables.cell_mask([CHOICE_CELL])[state.pose]
    task[:, 0] = (state.phase == PHASE_NAVIGATE) & at_choice
    task[:, 1] = state.phase == PHASE_WAGER
    shown = (state.cue_step == state.t) & (state.phase == PHASE_NAVIGATE)
    content = np.zeros((n, N_CUE_VALUES), np.float32)
    content[np.arange(n), trials.stimulus] = trials.salience
    if trials.noise_after is not None:  # the post-decision flash, at the wager step
        again = state.phase == PHASE_WAGER
        content[:, :2] += np.where(again[:, None], trials.noise_after, trials.noise)
        shown |= again
    else:
        content[:, :2] += trials.noise
    kind = np.where(shown, int(CueKind.CUE_A), -1)
    return task, cue_events(kind, content)


def wagering_oracle(
    trials: WageringTrials, state: WageringState, side: str = "truth"
) -> np.ndarray:
    """Expert action from privileged state: reach the stimulus zone, then a zone, then bet.

    ``side`` "truth": the stimulus's zone (protocol 3); "evidence": the zone the first flash
    favours (its evidence ``x[1] - x[0]`` > 0: right), the ideal observer's choice (protocol 11.2).
    """
    tables = pose_tables(LAYOUT)
    _, to_stimulus = tables.navigation([STIMULUS_CELL])
    _, to_left = tables.navigation([RESPONSE_CELLS[0]])
    _, to_right = tables.navigation([RESPONSE_CELLS[1]])
    target = trials.stimulus if side == "truth" else (trials.evidence(trials.noise) > 0)
    to_zone = np.where(target == 0, to_left[state.pose], to_right[state.pose])
    action = np.where(state.cue_step < 0, to_stimulus[state.pose], to_zone)
    return np.where(state.phase == PHASE_WAGER, BET_ACTION, action)


def wagering_advance(
    config: WageringConfig,
    trials: WageringTrials,
    state: WageringState,
    action: np.ndarray,
    moved_pose: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance every live episode by one step, in place: ``(reward, terminated, truncated)``.

    ``moved_pose`` is where each action takes the body; the wager step does not move it.
    """
    tables = pose_tables(LAYOUT)
    n = len(trials)
    reward = np.zeros(n)
    terminated = np.zeros(n, bool)
    live = state.phase != PHASE_OVER
    navigating = state.phase == PHASE_NAVIGATE
    wagering = state.phase == PHASE_WAGER

    # Wager step: the rule of paper sec. 4.2 (bet: +1 / -1, opt out: 0).
    correct = state.decision == trials.stimulus
    bet = action == BET_ACTION
    state.bet = np.where(wagering, bet.astype(np.int64), state.bet)
    reward = np.where(wagering & bet, np.where(correct, 1.0, -1.0), reward)
    terminated |= wagering

    state.pose = np.where(navigating, moved_pose, state.pose)
    state.t = np.where(live, state.t + 1, state.t)
    on_stimulus = tables.cell_mask([STIMULUS_CELL])[state.pose]
    state.cue_step = np.where(
        navigating & on_stimulus & (state.cue_step < 0), state.t, state.cue_step
    )
    at_choice = tables.cell_mask([CHOICE_CELL])[state.pose]
    state.choice_step = np.where(
        navigating & at_choice & (state.choice_step < 0), state.t, state.choice_step
    )
    zone = np.full(n, -1, np.int64)
    for k, cell in enumerate(RESPONSE_CELLS):
        zone[tables.cell_mask([cell])[state.pose]] = k
    decided = navigating & (zone >= 0)
    state.decision = np.where(decided, zone, state.decision)
    decided_correct = decided & (zone == trials.stimulus)
    # A decision without a wager earns +1 if correct; with a wager the reward comes at the bet.
    reward = np.where(decided & ~trials.wager, decided_correct.astype(float), reward)
    terminated |= decided & ~trials.wager
    state.phase = np.where(decided & trials.wager, PHASE_WAGER, state.phase)

    truncated = live & ~terminated & (state.t >= config.max_steps)
    state.phase = np.where(terminated | truncated, PHASE_OVER, state.phase)
    return reward, terminated, truncated


class WageringEnv(MiniGridEnv):
    """Post-decision wagering: classify a faint flash, walk to its side, then bet or opt out.

    ## Description

    A MiniGrid T-maze (paper sec. 4.2, Experiment 1). Stepping onto the yellow stimulus zone
    flashes a cue for one observation: class ``s`` (0 left/blue, 1 right/red), salience
    ``lambda ~ U(0, 1)``, Gaussian noise (SD 0.25). The agent walks to the response zone of its
    choice; on 50% of trials a wager flag follows. Choices: ``docs/protocol.md`` sec. 3.

    ## Mission Space

    "see the flash, walk to its side, then bet or opt out"

    ## Action Space

    The 7 MiniGrid actions. At the wager step ``pickup`` (3) bets and any other action opts
    out (``drop``, 4, canonically); a learning agent bets if its confidence > 0.5.

    ## Observation Encoding

    ``image``, ``direction``, ``mission`` as MiniGrid (no cue information); ``task``: ``[at the
    choice point, wager flag]``; ``cue``: at the flash ``content[:2] = lambda * onehot(s) + noise``.

    ## Rewards

    No wager: +1 for the correct zone, else 0. Wager: bet +1 if correct, -1 if not; opt out 0.

    ## Termination

    At the decision (no wager) or after the wager step; truncated after ``max_steps`` (32).

    ## Registered Configurations

    - ``CTLab-Wagering-v0``
    - ``CTLab-PostDecisionWager-v0``: salience in [0, 0.5], a wager after every decision, a second
      flash at the wager step, the oracle choosing by its first flash (protocol 11.2)

    ``reset(options=...)`` accepts trial overrides, e.g. ``{"stimulus": 1, "salience": 0.2}``.
    """

    def __init__(self, config: WageringConfig | None = None, **kwargs: Any):
        cfg_kwargs, env_kwargs = split_env_kwargs(WageringConfig, kwargs)
        self.config = replace(config or WageringConfig(), **cfg_kwargs)
        self.tables = pose_tables(LAYOUT)
        layout = LAYOUTS[LAYOUT]
        super().__init__(
            mission_space=MissionSpace(mission_func=lambda: MISSION),
            width=len(layout[0]),
            height=len(layout),
            max_steps=self.config.max_steps,
            see_through_walls=True,
            **env_kwargs,
        )
        self.observation_space = task_observation_space(self.observation_space)
        self.trials: WageringTrials | None = None
        self.state: WageringState | None = None
        self.last_action: int | None = None

    def _gen_grid(self, width: int, height: int) -> None:
        self.grid = build_grid(LAYOUTS[LAYOUT])
        options = getattr(self, "_reset_options", None) or {}
        self.trials = sample_wagering_trials(self.config, [self.np_random], options)
        self.state = WageringState.start(1)
        self.agent_pos, self.agent_dir = START_POSE[:2], START_POSE[2]
        self.mission = MISSION
        self.last_action = None

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
        task, cue = wagering_observation(self.trials, self.state)
        obs["task"], obs["cue"] = task[0], cue[0]
        return obs

    @property
    def phase(self) -> str:
        """Phase of the episode (labels.PHASE_NAVIGATE / PHASE_WAGER / PHASE_OVER)."""
        return ("navigate", "wager", "over")[int(self.state.phase[0])]

    def oracle_action(self) -> int:
        """The expert's action now, from privileged state (the trial); never shown to the agent."""
        if self.state.phase[0] == PHASE_OVER:
            raise RuntimeError("the episode is over; call reset()")
        return int(wagering_oracle(self.trials, self.state, self.config.oracle_side)[0])

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply one action (gymnasium API): ``(obs, reward, terminated, truncated, info)``."""
        if self.state.phase[0] == PHASE_OVER:
            raise RuntimeError("the episode is over; call reset()")
        action = int(action)
        t = int(self.state.t[0])
        if self.state.phase[0] == PHASE_NAVIGATE:
            super().step(action)  # MiniGrid's physics
        else:
            if not 0 <= action < self.action_space.n:
                raise ValueError(f"Unknown action: {action}")
            self.step_count += 1  # the wager is a response, not a movement
        moved = np.array([self.tables.index(self.agent_pos, self.agent_dir)])
        reward, terminated, truncated = wagering_advance(
            self.config, self.trials, self.state, np.array([action]), moved
        )
        self.last_action = action
        decision = int(self.state.decision[0])
        info = {
            "t": t,
            "decision": decision,
            "correct": bool(decision == self.trials.stimulus[0]) if decision >= 0 else None,
            "bet": int(self.state.bet[0]),
            "choice_step": int(self.state.choice_step[0]),
        }
        return self._observation(), float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

    def get_frame(
        self, highlight: bool = True, tile_size: int = 32, agent_pov: bool = False
    ) -> np.ndarray:
        """The human-readable frame: MiniGrid's view with the flash and the wager drawn in."""
        grid_img = super().get_frame(highlight, tile_size, agent_pov)
        return compose_wagering_frame(self, grid_img, tile_size)
