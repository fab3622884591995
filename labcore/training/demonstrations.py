"""The oracle's demonstrations as tensors, one stack per member (behaviour cloning's data).

A member of a seed-batched model imitates its own episodes (those of its seed): they are
stacked ``(N, episodes, T)`` on one step table, at lengths fixed by the task, and a process
remembers the last episode sets it built (:func:`cached_demonstrations`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Observation
from labcore.agents.sequence import SequenceInputs, StepTable
from labcore.envs.batch import Demonstrations, oracle_demonstrations

ROW_MULTIPLE = 16
"""Every pass holds a multiple of this many episodes per member (padding with masked copies).

PyTorch's vectorised kernels handle 16 floats at a time and finish a tensor's remainder with
scalar code, whose ``exp`` (sigmoid, BCE) can round differently. A member's elements must
therefore never fall in that remainder in one batch and in the vector body in another: with
a multiple of 16 episodes per member, every member's share of every tensor is a multiple of
16 floats, whatever N. Masked copies weigh nothing, so they add exact zeros to every sum."""


# ----------------------------------------------------------------------- demonstrations
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


@dataclass
class MemberDemos:
    """Demonstrations of N members, stacked: ``(N, episodes, T)`` per field.

    Member ``i`` holds its own episodes (those of its seed); all share one
    :class:`~labcore.agents.sequence.StepTable`.
    """

    inputs: SequenceInputs
    action: torch.Tensor
    step_kind: torch.Tensor
    valid: torch.Tensor
    stimulus: torch.Tensor | None
    decision_correct: torch.Tensor | None = None
    """(N, episodes) 1 where the demonstration's decision was right: the post-decision wager's
    confidence target (protocol 11.3); None on the other tasks."""

    @property
    def n_episodes(self) -> int:
        """Episodes per member."""
        return self.action.shape[1]

    def padded(self, episodes: int) -> MemberDemos:
        """These episodes followed by masked copies (not valid, so they weigh nothing), to
        ``episodes`` per member; see :data:`ROW_MULTIPLE`."""
        extra = episodes - self.n_episodes
        if extra <= 0:
            return self
        rows = torch.cat([torch.arange(self.n_episodes), torch.arange(extra) % self.n_episodes])
        out = self.select(episodes=rows)
        out.valid = out.valid.clone()
        out.valid[:, self.n_episodes :] = False
        return out

    def select(
        self, members: Any = slice(None), episodes: Any = slice(None), steps: Any = slice(None)
    ) -> MemberDemos:
        """Members (index), episodes (index or per-member ``(N, B)`` tensor) and steps."""
        if torch.is_tensor(episodes) and episodes.dim() == 2:
            # One gather per field: (member, episode) pairs, never a copy of a member's pool.
            rows = torch.arange(self.action.shape[0])[members]
            rows = torch.as_tensor(rows).reshape(-1, 1)
            pick = lambda x: x[rows, episodes][:, :, steps]  # noqa: E731
            stim = None if self.stimulus is None else self.stimulus[rows, episodes]
            right = None if self.decision_correct is None else self.decision_correct[rows, episodes]
        else:
            pick = lambda x: x[members][:, episodes][:, :, steps]  # noqa: E731
            stim = None if self.stimulus is None else self.stimulus[members][:, episodes]
            right = (
                None
                if self.decision_correct is None
                else self.decision_correct[members][:, episodes]
            )
        inputs = SequenceInputs(
            pick(self.inputs.combo),
            pick(self.inputs.cue),
            self.inputs.table,
            self.inputs.max_events,
        )
        return MemberDemos(
            inputs, pick(self.action), pick(self.step_kind), pick(self.valid), stim, right
        )


DEMO_CACHE_SIZE = 48
"""Episode sets whose oracle demonstrations a process keeps (about 10 MB each): the kinds of a
run train on the same seeds' demonstrations, and a shadow member on its twin's."""


@functools.lru_cache(maxsize=DEMO_CACHE_SIZE)
def _demonstrations(task_id: str, seeds: bytes) -> Demonstrations:
    return oracle_demonstrations(task_id, np.frombuffer(seeds, np.int64).copy())


def cached_demonstrations(task_id: str, seeds: np.ndarray) -> Demonstrations:
    """:func:`~labcore.envs.batch.oracle_demonstrations`, remembered per (task, episode seeds):
    the last :data:`DEMO_CACHE_SIZE` episode sets used (``functools.lru_cache`` keyed by the
    seeds' int64 bytes; ``_demonstrations.cache_info()`` reports it)."""
    return _demonstrations(task_id, np.asarray(seeds, np.int64).tobytes())


def member_demonstrations(task_id: str, episode_sets: Sequence[np.ndarray]) -> list[MemberDemos]:
    """Stack the oracle demonstrations of several episode sets per member.

    ``episode_sets[k]`` is an ``(N, n_k)`` array of environment seeds (e.g. each member's
    training pool, then its held-out set). Returns one :class:`MemberDemos` per set, all on
    one step table.
    """
    demos = [[cached_demonstrations(task_id, row) for row in seeds] for seeds in episode_sets]
    first = demos[0][0]
    # Lengths fixed by the task, not by the data: sums over steps then add the same terms in
    # the same order, and products have the same shapes, whichever members share the batch.
    sim = E.make_batch(task_id)
    length = sim.oracle_steps
    if any(d.n_steps > length for rows in demos for d in rows):
        raise RuntimeError(
            f"an oracle episode of {task_id} is longer than its oracle_steps ({length})"
        )

    def stack(rows: list[Demonstrations], name: str, fill=0) -> torch.Tensor:
        arrays = []
        for d in rows:
            a = np.asarray(getattr(d, name))
            pad = [(0, 0), (0, length - a.shape[1])] + [(0, 0)] * (a.ndim - 2)
            arrays.append(np.pad(a, pad, constant_values=fill))
        return torch.as_tensor(np.stack(arrays))

    table = StepTable.of_task(
        torch.as_tensor(np.array(first.image_table)),
        torch.as_tensor(np.array(first.direction_table)),
    )
    post_decision = isinstance(sim, E.BatchWagering) and sim.config.post_decision_sample
    out = []
    for rows in demos:
        stimulus = [d.labels.get("stimulus") for d in rows]
        right = (
            [d.labels["decision"] == d.labels["stimulus"] for d in rows] if post_decision else None
        )
        combo = StepTable.rows_of(stack(rows, "pose"), stack(rows, "task"))
        out.append(
            MemberDemos(
                inputs=SequenceInputs(combo, stack(rows, "cue"), table, sim.max_events),
                action=stack(rows, "action"),
                step_kind=stack(rows, "step_kind").long(),
                valid=stack(rows, "valid", False),
                stimulus=None
                if stimulus[0] is None
                else torch.as_tensor(np.stack(stimulus)).float(),
                decision_correct=None
                if right is None
                else torch.as_tensor(np.stack(right)).float(),
            )
        )
    return out
