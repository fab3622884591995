"""N members' parameters as one flat buffer, and Adam for them
(:mod:`labcore.training.behaviour_cloning`).

A seed-batched model (:mod:`labcore.agents.sequence`) keeps the trainable weights of its N
members in one leaf tensor, parameter-major, and steps each member with its own Adam state, so
a member's numbers do not depend on its batch-mates. A batch's whole training state can be
written to and restored from a resume snapshot (the paper schedule keeps one: issue 26).
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from labcore.agents import Agent
from labcore.agents.sequence import stack_parameters
from labcore.config import AgentConfig, TrainConfig
from labcore.io import atomic_write


class MemberParameters:
    """The trainable parameters of N members as one flat leaf tensor, parameter-major.

    The flat buffer holds each parameter as a contiguous ``(N, ...)`` block, so the views
    :meth:`tensors` hands to the pass are ordinary contiguous stacks: the matrix kernels
    then treat every member alike whatever N is (a member-major layout gives the weights a
    batch stride of the whole parameter count, and small products then take an N-dependent
    path). ``member_of`` maps every element to its member, for per-member optimizer steps.
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

    def member_state(
        self, member: int, flat: torch.Tensor | None = None
    ) -> dict[str, torch.Tensor]:
        """One member's ``Agent.state_dict()`` (from :attr:`flat`, or another buffer of its
        layout)."""
        pieces = (
            (self.flat if flat is None else flat)
            .detach()
            .split([self.n * size for size in self.sizes])
        )
        state = {
            k: piece.view(self.n, *shape)[member].clone()
            for k, piece, shape in zip(self.names, pieces, self.shapes, strict=True)
        }
        state.update({k: v[member].clone() for k, v in self.buffers.items()})
        return state

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
        """Drop every member not in ``members`` (those that have finished), optimizer state too."""
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
        """Keep only ``members`` (the parameters were reduced the same way)."""
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


# ----------------------------------------------------------------------- resume snapshots
def snapshot_identity(config: AgentConfig, members: Sequence[Any], cfg: TrainConfig) -> str:
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
    members: Sequence[Any],
) -> None:
    """Write the whole training state of a batch, atomically
    (``labcore.training.behaviour_cloning.train_seeds``, ``resume``)."""
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
    path: Path, identity: str, params: MemberParameters, opt: StackedAdam, members: Sequence[Any]
) -> int:
    """Restore a snapshot of this very batch into ``params``, ``opt`` and ``members``; the episode
    to
    start from (0 when there is no usable snapshot: missing, unreadable or of another batch)."""
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
