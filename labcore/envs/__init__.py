"""The paper's tasks as MiniGrid environments, registered with gymnasium in one place.

>>> import gymnasium as gym, labcore.envs
>>> env = gym.make("CTLab-DualTask-v0")
>>> obs, info = env.reset(seed=0)
>>> sorted(obs)
['cue', 'direction', 'image', 'mission', 'task']
>>> obs["image"].shape, obs["cue"].shape
((7, 7, 3), (11,))

Design choices the paper leaves open are pre-registered in ``docs/protocol.md``.
"""

from __future__ import annotations

import gymnasium

from labcore.config import MASKING_DEFAULT
from labcore.envs.batch import BatchObs, BatchWagering, StepKind, make_batch, oracle_demonstrations
from labcore.envs.channels import CUE_DIM, TASK_DIM
from labcore.envs.tables import ACTION_NAMES, N_ACTIONS

WAGERING = "CTLab-Wagering-v0"
POST_DECISION_WAGER = "CTLab-PostDecisionWager-v0"
DUAL_TASK = "CTLab-DualTask-v0"
DUAL_TASK_MASKING = "CTLab-DualTaskMasking-v0"
DUAL_TASK_OOD = "CTLab-DualTaskOOD-v0"

_REGISTRY: dict[str, tuple[str, dict]] = {
    WAGERING: ("labcore.envs.wagering:WageringEnv", {}),
    # E1 measured (protocol 11.2): a second flash after the decision, fixed by the wager's step.
    POST_DECISION_WAGER: (
        "labcore.envs.wagering:WageringEnv",
        {
            "salience_range": (0.0, 0.5),
            "wager_probability": 1.0,
            "post_decision_sample": True,
            "oracle_side": "evidence",
        },
    ),
    DUAL_TASK: ("labcore.envs.dual_task:DualTaskEnv", {}),
    # Backward masking (paper Fig. 2c): masks from `mask_soa` steps after the colour cue.
    DUAL_TASK_MASKING: (
        "labcore.envs.dual_task:DualTaskEnv",
        {"mask_soa": MASKING_DEFAULT[0], "mask_count": MASKING_DEFAULT[1]},
    ),
    # OOD shift for E3's OOD gap (protocol sec. 2.6): a 1.5x longer delay.
    DUAL_TASK_OOD: ("labcore.envs.dual_task:DualTaskEnv", {"n_steps": 48}),
}
TASK_IDS: tuple[str, ...] = tuple(_REGISTRY)


def register_tasks() -> None:
    """Register every lab task with gymnasium (idempotent)."""
    for task_id, (entry_point, kwargs) in _REGISTRY.items():
        if task_id not in gymnasium.registry:
            gymnasium.register(id=task_id, entry_point=entry_point, kwargs=kwargs)


register_tasks()

__all__ = [
    "ACTION_NAMES",
    "CUE_DIM",
    "DUAL_TASK",
    "DUAL_TASK_MASKING",
    "DUAL_TASK_OOD",
    "N_ACTIONS",
    "POST_DECISION_WAGER",
    "TASK_DIM",
    "TASK_IDS",
    "WAGERING",
    "BatchObs",
    "BatchWagering",
    "StepKind",
    "make_batch",
    "oracle_demonstrations",
    "register_tasks",
]
