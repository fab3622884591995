"""One agent's oracle demonstrations as torch tensors (an :class:`Observation` per step), for
tests that run an agent's two paths on teacher-forced episodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from labcore.agents import Observation
from labcore.envs.batch import Demonstrations


@dataclass
class DemoTensors:
    """Oracle demonstrations of one agent as torch tensors (an :class:`Observation` per step)."""

    obs: Observation
    action: torch.Tensor
    step_kind: torch.Tensor
    valid: torch.Tensor
    stimulus: torch.Tensor | None

    @classmethod
    def from_demonstrations(cls, demos: Demonstrations) -> DemoTensors:
        """Tensors of a :class:`~labcore.envs.batch.Demonstrations`."""
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
        return DemoTensors(
            self.obs.index(item),
            self.action[item],
            self.step_kind[item],
            self.valid[item],
            None if self.stimulus is None else self.stimulus[episodes],
        )
