"""What the task classes share at construction: the observation space (MiniGrid's
image/direction/mission plus task and cue) and the split of ``gym.make`` keyword arguments."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

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


def split_env_kwargs(
    cls_config: type, kwargs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate config-field keyword arguments (for ``gym.make``) from MiniGrid's own."""
    names = {f.name for f in fields(cls_config)}
    cfg = {k: v for k, v in kwargs.items() if k in names}
    rest = {k: v for k, v in kwargs.items() if k not in names}
    return cfg, rest
