"""Behaviour cloning's seed-batching machinery: a seed trained in a batch of N gets, bit for bit,
the weights it gets alone, because a member's arithmetic never depends on its batch-mates:

- **Its own data and draws**: its own episodes (:class:`MemberDemos`, at lengths fixed by the
  task) and its own generator for minibatches, dropout, noise and bets (:class:`Member`).
- **Its own optimizer**: one flat parameter buffer, parameter-major (:class:`MemberParameters`),
  and an Adam step per member with its own step counter (:class:`StackedAdam`).
- **Never a batch of one**: PyTorch computes a batch of one product with kernels that round
  differently, so a lone seed runs beside a discarded *shadow* copy (:meth:`Member.shadowed`).
- **Whole vectors**: every pass holds a multiple of :data:`ROW_MULTIPLE` episodes per member.
- **Resumable**: the paper schedule's whole state is snapshotted and restored bit for bit.
"""

from __future__ import annotations

import functools
import json
import pickle
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

import labcore.envs as E
from labcore.agents import Agent
from labcore.agents.sequence import SequenceInputs, StepTable, stack_parameters
from labcore.config import AgentConfig, Intervention, TrainConfig
from labcore.envs.batch import Demonstrations, oracle_demonstrations
from labcore.interventions import sequence_workspace_noise
from labcore.io import atomic_write

ROW_MULTIPLE = 16
"""Every pass holds a multiple of this many episodes per member (padding with masked copies).

PyTorch's vectorised kernels handle 16 floats at a time and finish a tensor's remainder with
scalar code, whose ``exp`` (sigmoid, BCE) can round differently. A member's elements must
therefore never fall in that remainder in one batch and in the vector body in another: with
a multiple of 16 episodes per member, every member's share of every tensor is a multiple of
16 floats, whatever N. Masked copies weigh nothing, so they add exact zeros to every sum."""


# ----------------------------------------------------------------------- each member's book
@dataclass
class Member:
    """Book-keeping of one member: its generator, convergence state and history."""

    seed: int
    generator: torch.Generator
    history: list = field(default_factory=list)
    best_loss: float = float("inf")
    best_agreement: float = -1.0
    best_row: dict[str, torch.Tensor] | None = None
    best_update: int = 0
    stale: int = 0
    updates: int = 0
    done: bool = False
    final: dict[str, torch.Tensor] | None = None
    """The weights it keeps, set when it leaves the batch (fast schedule)."""
    row: int = 0
    """Its row of the stacked demonstrations."""
    shadow: bool = False
    """A copy that only keeps the batch at two rows (see the module's docstring); never
    returned."""
    wager_from: int | None = None
    """The first update with the wager loss on (None: not yet; protocol 8.8.2)."""
    wager_done: int = 0
    """Updates made with the wager loss on."""
    curve: list = field(default_factory=list)
    """The wager phase's learning curve (``TrainConfig.curve_every``)."""

    def shadowed(self) -> Member:
        """A shadow of this member: same seed, row and phase, a generator in the same state."""
        generator = torch.Generator()
        generator.set_state(self.generator.get_state())
        return Member(
            self.seed,
            generator,
            row=self.row,
            shadow=True,
            wager_from=self.wager_from,
            wager_done=self.wager_done,
        )


def batch_rows(seeds: Sequence[int]) -> list[int]:
    """The seeds of a batch's rows: the seeds, or a lone seed and its shadow.

    >>> batch_rows([3, 4]), batch_rows([3])
    ([3, 4], [3, 3])
    """
    return list(seeds) if len(seeds) > 1 else list(seeds) * 2


# ----------------------------------------------------------------------- each member's draws
def noise_sds(
    config: AgentConfig, episodes: int, generators: Sequence[torch.Generator]
) -> list[torch.Tensor] | None:
    """Per-episode workspace-noise SDs of noise-augmented training, from each member's generator."""
    if config.train_workspace_noise <= 0:
        return None
    return [torch.rand(episodes, generator=g) * config.train_workspace_noise for g in generators]


def noise_fn(
    config: AgentConfig, sds: list[torch.Tensor] | None, generators: Sequence[torch.Generator]
) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """The workspace-noise callback of :func:`~labcore.agents.sequence.sequence_forward`: each
    member's draws from its generator."""
    if sds is None:
        return None
    iv = Intervention()

    def noise(source: torch.Tensor) -> torch.Tensor:
        return torch.stack(
            [
                sequence_workspace_noise(source[i], iv, sds[i], config.slot_dim, g)
                for i, g in enumerate(generators)
            ]
        )

    return noise


def dropout_mask(
    config: AgentConfig, shape: tuple[int, ...], generators: Sequence[torch.Generator]
) -> torch.Tensor | None:
    """Pre-scaled dropout masks ``(N, B, T, hidden)`` of the policy's hidden layer, per member."""
    if config.dropout <= 0:
        return None
    keep = 1.0 - config.dropout
    return torch.stack(
        [
            torch.empty(*shape, config.readout_hidden).bernoulli_(keep, generator=g) / keep
            for g in generators
        ]
    )


def capacities(
    config: AgentConfig, episodes: int, generators: Sequence[torch.Generator]
) -> torch.Tensor | None:
    """Active slots per training episode ``(N, episodes)`` under a variable load (protocol 11.8),
    drawn uniformly from ``config.train_capacities`` with each member's generator."""
    if not config.train_capacities:
        return None
    choices = torch.tensor(config.train_capacities)
    return torch.stack(
        [choices[torch.randint(len(choices), (episodes,), generator=g)] for g in generators]
    )


# ----------------------------------------------------------------------- the members' parameters
class MemberParameters:
    """The trainable parameters of N members as one flat leaf tensor, parameter-major.

    The flat buffer holds each parameter as a contiguous ``(N, ...)`` block, so the views
    :meth:`tensors` hands to the pass are ordinary contiguous stacks: the matrix kernels
    then treat every member alike whatever N is (a member-major layout gives the weights a
    batch stride of the whole parameter count, and small products then take an N-dependent
    path).
    """

    def __init__(self, agents: Sequence[Agent]):
        stacked = stack_parameters(agents)
        self.names = [name for name, p in agents[0].named_parameters() if p.requires_grad]
        self.shapes = [tuple(stacked[k].shape[1:]) for k in self.names]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.n = len(agents)
        self.flat = torch.cat([stacked[k].reshape(-1) for k in self.names]).requires_grad_(True)
        self.buffers = {k: v for k, v in stacked.items() if k not in self.names}

    def tensors(self) -> dict[str, torch.Tensor]:
        """Named contiguous ``(N, ...)`` views of the flat buffer, plus the buffers."""
        pieces = self.flat.split([self.n * size for size in self.sizes])
        named = {
            k: piece.view(self.n, *shape)
            for k, piece, shape in zip(self.names, pieces, self.shapes, strict=True)
        }
        return {**named, **self.buffers}

    def member_state(self, member: int) -> dict[str, torch.Tensor]:
        """One member's ``Agent.state_dict()`` (a copy)."""
        return {k: v[member].detach().clone() for k, v in self.tensors().items()}

    def element_mask(self, prefixes: tuple[str, ...]) -> torch.Tensor:
        """True on every element of :attr:`flat` (all members) of a parameter whose name starts
        with one of ``prefixes``."""
        return torch.cat(
            [
                torch.full((self.n * size,), name.startswith(prefixes))
                for name, size in zip(self.names, self.sizes, strict=True)
            ]
        )

    def select(self, buffer: torch.Tensor, members: torch.Tensor) -> torch.Tensor:
        """The elements of ``members`` from a buffer laid out like :attr:`flat`."""
        pieces = buffer.split([self.n * size for size in self.sizes])
        return torch.cat([piece.view(self.n, -1)[members].reshape(-1) for piece in pieces])

    def keep(self, members: torch.Tensor, optimizer: StackedAdam) -> None:
        """Keep only ``members`` (rows, repeats allowed), optimizer state too: the others have
        finished."""
        optimizer.keep(members)  # while the layout is still the old one
        self.flat = self.select(self.flat.detach(), members).requires_grad_(True)
        self.buffers = {k: v[members] for k, v in self.buffers.items()}
        self.n = len(members)


class StackedAdam:
    """Adam (AdamW with ``weight_decay``) for N members sharing one flat buffer.

    Each update hands PyTorch's fused Adam kernel (the one behind ``Adam(fused=True)``) the
    contiguous slice of every parameter block that belongs to each active member, with that
    member's own step counter: per member it is exactly ``torch.optim.Adam``, and a member
    that is not active (its step scores nothing) is left exactly as it is. The slices are
    views made once (parameters, moments and gradients all live in persistent buffers that
    are updated in place) and remade only when members leave.
    """

    def __init__(
        self,
        params: MemberParameters,
        lr: float,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ):
        self.lr, self.weight_decay, self.betas, self.eps = lr, weight_decay, betas, eps
        self.params = params
        self.m = torch.zeros_like(params.flat, requires_grad=False)
        self.v = torch.zeros_like(self.m)
        self.grad = torch.zeros_like(self.m)
        self.steps = [torch.zeros(()) for _ in range(params.n)]
        self._views: dict[str, list[list[torch.Tensor]]] = {}

    def _member_views(self, buffer: torch.Tensor) -> list[list[torch.Tensor]]:
        """``views[member]``: that member's slice of every parameter block of ``buffer``."""
        n = self.params.n
        rows = [
            block.view(n, -1) for block in buffer.split([n * size for size in self.params.sizes])
        ]
        return [[row[i] for row in rows] for i in range(n)]

    def keep(self, members: torch.Tensor) -> None:
        """Keep only ``members``, as :meth:`MemberParameters.keep` does."""
        self.m, self.v = self.params.select(self.m, members), self.params.select(self.v, members)
        self.grad = torch.zeros_like(self.m)
        self.steps = [self.steps[i].clone() for i in members.tolist()]
        self._views = {}

    @torch.no_grad()
    def step(
        self, flat: torch.Tensor, grad: torch.Tensor, active: torch.Tensor | None = None
    ) -> None:
        """One update of the members selected by ``active`` (all if None)."""
        members = (
            list(range(len(self.steps)))
            if active is None
            else np.flatnonzero(active.numpy()).tolist()
        )
        if not members:
            return
        if not self._views or self._views["flat"][0][0].data_ptr() != flat.data_ptr():
            self._views = {
                "flat": self._member_views(flat),
                "grad": self._member_views(self.grad),
                "m": self._member_views(self.m),
                "v": self._member_views(self.v),
            }
        self.grad.copy_(grad)
        pick = {k: [t for i in members for t in views[i]] for k, views in self._views.items()}
        steps = [self.steps[i] for i in members]
        torch._foreach_add_(steps, 1)
        fused = torch._fused_adamw_ if self.weight_decay > 0 else torch._fused_adam_
        fused(
            pick["flat"],
            pick["grad"],
            pick["m"],
            pick["v"],
            [],
            [s for s in steps for _ in self.params.sizes],
            lr=self.lr,
            beta1=self.betas[0],
            beta2=self.betas[1],
            weight_decay=self.weight_decay,
            eps=self.eps,
            amsgrad=False,
            maximize=False,
        )


def leave(
    params: MemberParameters,
    opt: StackedAdam,
    members: list[Member],
    live: list[int],
    leaving: Sequence[int],
) -> list[int]:
    """Drop the rows ``leaving`` (and every shadow) from the batch; the members still training.

    ``live[row]`` is the index in ``members`` of each row of ``params``. The last member still
    training gets a new shadow (appended to ``members``), so the batch keeps two rows. Returns the
    new ``live`` (empty: nobody is left).
    """
    keep = [r for r in range(len(live)) if r not in leaving and not members[live[r]].shadow]
    if not keep:
        return []
    if len(keep) == 1:
        members.append(members[live[keep[0]]].shadowed())
        live, keep = [live[keep[0]], len(members) - 1], keep * 2
    else:
        live = [live[r] for r in keep]
    params.keep(torch.tensor(keep, dtype=torch.long), opt)
    return live


# ----------------------------------------------------------------------- the members' data
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

    def whole_vectors(self) -> MemberDemos:
        """:meth:`padded` to the next multiple of :data:`ROW_MULTIPLE` episodes."""
        return self.padded(-(-self.n_episodes // ROW_MULTIPLE) * ROW_MULTIPLE)

    def select(
        self, members: Any = slice(None), episodes: Any = slice(None), steps: Any = slice(None)
    ) -> MemberDemos:
        """Members (index), episodes (index or per-member ``(N, B)`` tensor) and steps."""
        if torch.is_tensor(episodes) and episodes.dim() == 2:
            # One gather per field: (member, episode) pairs, never a copy of a member's pool.
            rows = torch.as_tensor(torch.arange(self.action.shape[0])[members]).reshape(-1, 1)
            trials = lambda x: x[rows, episodes]  # noqa: E731
        else:
            trials = lambda x: x[members][:, episodes]  # noqa: E731
        pick = lambda x: trials(x)[:, :, steps]  # noqa: E731
        label = lambda x: None if x is None else trials(x)  # noqa: E731
        inputs = SequenceInputs(
            pick(self.inputs.combo),
            pick(self.inputs.cue),
            self.inputs.table,
            self.inputs.max_events,
        )
        return MemberDemos(
            inputs,
            pick(self.action),
            pick(self.step_kind),
            pick(self.valid),
            label(self.stimulus),
            label(self.decision_correct),
        )


def last_step_rows(x: torch.Tensor | None) -> torch.Tensor | None:
    """Step T-1 of ``x`` (N, B=1, T, ...) repeated into :data:`ROW_MULTIPLE` rows: (N,
    ROW_MULTIPLE, 1, ...)."""
    if x is None:
        return None
    return x[:, :, -1:].repeat(1, ROW_MULTIPLE, *([1] * (x.dim() - 2)))


DEMO_CACHE_SIZE = 48
"""Episode sets whose oracle demonstrations a process keeps (about 10 MB each): the kinds of a
run train on the same seeds' demonstrations, and a shadow member on its twin's."""


@functools.lru_cache(maxsize=DEMO_CACHE_SIZE)
def _demonstrations(task_id: str, seeds: bytes) -> Demonstrations:
    return oracle_demonstrations(task_id, np.frombuffer(seeds, np.int64).copy())


def cached_demonstrations(task_id: str, seeds: np.ndarray) -> Demonstrations:
    """:func:`~labcore.envs.batch.oracle_demonstrations`, remembered per (task, episode seeds) in
    ``_demonstrations``'s ``lru_cache`` (keyed by the seeds' int64 bytes)."""
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

    def stack(rows: list[Demonstrations], name: str, fill: int | bool = 0) -> torch.Tensor:
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


# ----------------------------------------------------------------------- resume snapshots
def snapshot_identity(config: AgentConfig, members: Sequence[Member], cfg: TrainConfig) -> str:
    """What a snapshot must match to be resumed: the agent, the members' seeds, the training
    config."""
    return json.dumps(
        {
            "config": asdict(config),
            "seeds": [m.seed for m in members],
            "shadows": [m.shadow for m in members],
            "train_config": asdict(cfg),
        },
        sort_keys=True,
        default=str,
    )


def write_snapshot(
    path: Path,
    identity: str,
    episode: int,
    params: MemberParameters,
    opt: StackedAdam,
    members: Sequence[Member],
) -> None:
    """Write the whole training state of a batch, atomically."""
    state = {
        "identity": identity,
        "episode": episode,
        "flat": params.flat.detach().clone(),
        "m": opt.m.clone(),
        "v": opt.v.clone(),
        "steps": [s.clone() for s in opt.steps],
        "generators": [m.generator.get_state() for m in members],
        "members": [
            {
                "history": m.history,
                "best_loss": m.best_loss,
                "best_update": m.best_update,
                "updates": m.updates,
            }
            for m in members
        ],
    }
    atomic_write(path, lambda tmp: torch.save(state, tmp))


def read_snapshot(
    path: Path,
    identity: str,
    params: MemberParameters,
    opt: StackedAdam,
    members: Sequence[Member],
) -> int:
    """Restore a snapshot of this very batch into ``params``, ``opt`` and ``members``; the episode
    to start from (0 when there is no usable snapshot: missing, unreadable or of another batch)."""
    try:
        state = torch.load(path, weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError):
        return 0
    if (
        not isinstance(state, dict)
        or state.get("identity") != identity
        or state["flat"].shape != params.flat.shape
    ):
        return 0
    with torch.no_grad():
        params.flat.copy_(state["flat"])
    opt.m.copy_(state["m"])
    opt.v.copy_(state["v"])
    opt.steps = [s.clone() for s in state["steps"]]
    for member, generator, book in zip(members, state["generators"], state["members"], strict=True):
        member.generator.set_state(generator)
        member.history, member.best_loss = book["history"], book["best_loss"]
        member.best_update, member.updates = book["best_update"], book["updates"]
    return int(state["episode"])
