"""Observation space shared by the tasks: MiniGrid's image/direction/mission plus task and cue."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from labcore.envs.channels import CUE_BOUND, CUE_DIM, TASK_DIM


def task_observation_space(minigrid_space: spaces.Dict) -> spaces.Dict:
    """Extend MiniGrid's observation space with the task vector and the cue channel."""
    return spaces.Dict(
        {
            **minigrid_space.spaces,
            "task": spaces.Box(0.0, 1.0, shape=(TASK_DIM,), dtype=np.float32),
            # Wagering cue content carries Gaussian noise (SD 0.25); it is clipped to
            # +-CUE_BOUND, forty noise SDs away, so the clip never binds in practice.
            "cue": spaces.Box(-CUE_BOUND, CUE_BOUND, shape=(CUE_DIM,), dtype=np.float32),
        }
    )
