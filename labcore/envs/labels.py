"""Names the tasks and their displays share: cue names, phases, the wagering maze's cells.

It sits below the task modules and the renderer, so both import it.
"""

from __future__ import annotations

from labcore.config import DualTaskConfig
from labcore.envs.tables import LAYOUTS, find_cells

SECONDARY_CUE_NAMES = ("red", "green", "blue", "purple", "yellow", "grey", "orange")
"""Colour of each secondary cue value of the dual task (value k is reported with action k)."""
PRIMARY_CUE_NAMES = ("key", "ball", "box", "door", "goal", "lava", "wall")
"""MiniGrid object type of each primary cue value of the dual task."""

WAGERING_LAYOUT = "wagering_tmaze"
"""The wagering task's maze (a key of :data:`labcore.envs.tables.LAYOUTS`)."""
PHASE_NAVIGATE, PHASE_WAGER, PHASE_OVER = 0, 1, 2
"""Phases of a wagering episode: walk and decide, wager, over."""
STIMULUS_CELL = find_cells(LAYOUTS[WAGERING_LAYOUT], "S")[0]
"""The wagering maze's stimulus zone, where the flash appears."""


def phase_name(config: DualTaskConfig, t: int) -> str:
    """Plain-language phase of step ``t`` of the dual task (for displays).

    >>> phase_name(DualTaskConfig(), 0), phase_name(DualTaskConfig(), 30)
    ('encoding', 'report colour')
    """
    if t <= config.primary_cue_step:
        return "encoding"
    if t < config.report_secondary_step:
        return "delay"
    if t == config.report_secondary_step:
        return "report colour"
    if t == config.report_primary_step:
        return "report object"
    return "over"
