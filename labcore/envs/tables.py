"""Pose tables read off a real MiniGrid layout: observations, movement and shortest paths.

The grid is static (cues never appear in it), so what the agent sees and where an action takes it
depend only on its pose; every pose is enumerated once in a real ``MiniGridEnv`` and its
``gen_obs()`` and ``step()`` recorded, for the batched simulator's array lookups.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache

import numpy as np
from minigrid.core.grid import Grid
from minigrid.core.mission import MissionSpace
from minigrid.core.world_object import Floor, Wall
from minigrid.minigrid_env import MiniGridEnv

N_ACTIONS = 7
ACTION_NAMES = ("left", "right", "forward", "pickup", "drop", "toggle", "done")
NAV_ACTIONS = (2, 0, 1)
"""Actions the navigating oracle uses, in tie-break order (forward first, then left, right)."""

LAYOUTS: dict[str, tuple[str, ...]] = {
    # Paper sec. 4.2: a MiniGrid-Empty-5x5 variant (3x3 free interior).
    "dual_room": (
        "WWWWW",
        "W...W",
        "W...W",
        "W...W",
        "WWWWW",
    ),
    # Wagering T-maze: start under the stimulus zone S, response zones L and R at the arms.
    "wagering_tmaze": (
        "WWWWWWW",
        "WL...RW",
        "WWW.WWW",
        "WWWSWWW",
        "WWW.WWW",
        "WWWWWWW",
    ),
}
FLOOR_COLOURS = {"L": "blue", "R": "red", "S": "yellow"}
"""Marked floor tiles: left response zone, right response zone, stimulus zone."""


def build_grid(layout: tuple[str, ...]) -> Grid:
    """Build a MiniGrid :class:`Grid` from rows of ``W`` (wall), ``.`` (empty) and zone letters."""
    height, width = len(layout), len(layout[0])
    grid = Grid(width, height)
    for y, row in enumerate(layout):
        if len(row) != width:
            raise ValueError(f"layout row {y} has length {len(row)}, expected {width}")
        for x, ch in enumerate(row):
            if ch == "W":
                grid.set(x, y, Wall())
            elif ch in FLOOR_COLOURS:
                grid.set(x, y, Floor(FLOOR_COLOURS[ch]))
            elif ch != ".":
                raise ValueError(f"unknown layout symbol {ch!r} at ({x}, {y})")
    return grid


def find_cells(layout: tuple[str, ...], symbol: str) -> list[tuple[int, int]]:
    """Cells ``(x, y)`` of a layout holding ``symbol``."""
    return [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch == symbol]


class _LayoutEnv(MiniGridEnv):
    """A bare MiniGrid env on a fixed layout, used only to read MiniGrid's physics and encoding."""

    def __init__(self, layout: tuple[str, ...]):
        self._layout = layout
        super().__init__(
            mission_space=MissionSpace(mission_func=lambda: "probe"),
            width=len(layout[0]),
            height=len(layout),
            max_steps=10**6,
            see_through_walls=True,
        )

    def _gen_grid(self, width: int, height: int) -> None:
        self.grid = build_grid(self._layout)
        x, y = next(
            (x, y)
            for x in range(width)
            for y in range(height)
            if self.grid.get(x, y) is None or self.grid.get(x, y).can_overlap()
        )
        self.agent_pos, self.agent_dir = (x, y), 0
        self.mission = "probe"


@dataclass(frozen=True)
class PoseTables:
    """Everything that depends only on the agent's pose in a static layout: ``poses`` (P, 3)
    ``(x, y, direction)``, ``image`` (P, 7, 7, 3) MiniGrid's observation in each, ``transition``
    (P, 7) the pose after each action."""

    layout_name: str
    poses: np.ndarray
    image: np.ndarray
    transition: np.ndarray

    @property
    def n_poses(self) -> int:
        """Number of distinct poses P."""
        return len(self.poses)

    @property
    def direction(self) -> np.ndarray:
        """(P,) facing direction of each pose."""
        return self.poses[:, 2]

    def index(self, pos: tuple[int, int], direction: int) -> int:
        """Pose index of ``(pos, direction)``; raises ``KeyError`` for an unwalkable cell."""
        return _pose_lookup(self.layout_name)[(int(pos[0]), int(pos[1]), int(direction))]

    def cell_mask(self, cells: list[tuple[int, int]]) -> np.ndarray:
        """Boolean mask over poses whose cell is in ``cells`` (read-only, cached)."""
        return _cell_mask(self.layout_name, tuple(sorted((int(x), int(y)) for x, y in cells)))

    def navigation(self, target_cells: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Shortest-path distance to ``target_cells`` and the oracle's next action, per pose
        (``NAV_ACTIONS`` only, ties to the earlier one; ``forward`` on a target)."""
        return _navigation(self.layout_name, tuple(sorted(tuple(c) for c in target_cells)))


@cache
def pose_tables(layout_name: str) -> PoseTables:
    """Read the :class:`PoseTables` of a named layout off a real MiniGrid environment (cached)."""
    layout = LAYOUTS[layout_name]
    env = _LayoutEnv(layout)
    env.reset(seed=0)
    poses = [
        (x, y, d)
        for y in range(env.height)
        for x in range(env.width)
        if env.grid.get(x, y) is None or env.grid.get(x, y).can_overlap()
        for d in range(4)
    ]
    lookup = {p: i for i, p in enumerate(poses)}
    image = np.zeros((len(poses), 7, 7, 3), dtype=np.uint8)
    transition = np.zeros((len(poses), N_ACTIONS), dtype=np.int64)
    for i, (x, y, d) in enumerate(poses):
        env.agent_pos, env.agent_dir = (x, y), d
        image[i] = env.gen_obs()["image"]
        for a in range(N_ACTIONS):
            env.agent_pos, env.agent_dir, env.step_count = (x, y), d, 0
            MiniGridEnv.step(env, a)
            transition[i, a] = lookup[
                (int(env.agent_pos[0]), int(env.agent_pos[1]), int(env.agent_dir))
            ]
    env.close()
    for arr in (image, transition):
        arr.setflags(write=False)
    return PoseTables(layout_name, np.array(poses, dtype=np.int64), image, transition)


@cache
def _pose_lookup(layout_name: str) -> dict[tuple[int, int, int], int]:
    return {tuple(int(v) for v in p): i for i, p in enumerate(pose_tables(layout_name).poses)}


@cache
def _cell_mask(layout_name: str, cells: tuple[tuple[int, int], ...]) -> np.ndarray:
    mask = np.array([(x, y) in cells for x, y, _ in pose_tables(layout_name).poses])
    mask.setflags(write=False)
    return mask


@cache
def _navigation(
    layout_name: str, targets: tuple[tuple[int, int], ...]
) -> tuple[np.ndarray, np.ndarray]:
    tables = pose_tables(layout_name)
    n = tables.n_poses
    on_target = tables.cell_mask(list(targets))
    # Reverse BFS from the target poses over the navigation actions.
    predecessors: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for a in NAV_ACTIONS:
            predecessors[tables.transition[i, a]].append(i)
    dist = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    queue = deque(np.flatnonzero(on_target).tolist())
    dist[on_target] = 0
    while queue:
        j = queue.popleft()
        for i in predecessors[j]:
            if dist[i] > dist[j] + 1:
                dist[i] = dist[j] + 1
                queue.append(i)
    action = np.full(n, NAV_ACTIONS[0], dtype=np.int64)
    for i in np.flatnonzero(~on_target):
        action[i] = next(a for a in NAV_ACTIONS if dist[tables.transition[i, a]] == dist[i] - 1)
    for arr in (dist, action):
        arr.setflags(write=False)
    return dist, action
