"""Building blocks of the lab's agents (paper sec. 4.1): encoder, workspace bus, self-model.

Workspace allocation is the paper's deterministic rule (first empty slot, else slot 0) and
depends only on *when* cue-channel events happen, never on learned values. That lets the
whole workspace trajectory of a teacher-forced episode be computed with one gather
(:func:`slot_sources`), which is what makes batched behaviour cloning fast on a CPU; the
step-wise path (:func:`write_step`) applies the same rule one step at a time, and the tests
check the two agree.
"""

from __future__ import annotations

import math

import torch
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX, STATE_TO_IDX
from torch import nn

from labcore.config import AgentConfig
from labcore.envs.tables import N_ACTIONS

N_OBJECT, N_COLOUR, N_STATE = len(OBJECT_TO_IDX), len(COLOR_TO_IDX), len(STATE_TO_IDX)


def one_hot_planes(image: torch.Tensor) -> torch.Tensor:
    """MiniGrid symbolic views ``(..., 7, 7, 3)`` -> one-hot ``(..., 7, 7, channels)``, float."""
    image = image.long()
    return torch.cat(
        [
            nn.functional.one_hot(image[..., 0], N_OBJECT),
            nn.functional.one_hot(image[..., 1], N_COLOUR),
            nn.functional.one_hot(image[..., 2], N_STATE),
        ],
        dim=-1,
    ).float()


class GridEncoder(nn.Module):
    """Three conv layers on MiniGrid's one-hot symbolic 7x7 view -> 64 features.

    The layer shapes follow the MiniGrid baselines (conv 2x2, max-pool, conv 2x2, conv 2x2).
    """

    out_dim = 64

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(N_OBJECT + N_COLOUR + N_STATE, 16, 2),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 2),
            nn.ReLU(),
            nn.Conv2d(32, 64, 2),
            nn.ReLU(),
            nn.Flatten(),
        )

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        """``image``: integer tensor ``(..., 7, 7, 3)`` -> features ``(..., 64)``."""
        lead = image.shape[:-3]
        one_hot = one_hot_planes(image.reshape(-1, *image.shape[-3:]))
        return self.conv(one_hot.permute(0, 3, 1, 2)).reshape(*lead, self.out_dim)


def mlp(in_dim: int, hidden: int, out_dim: int, dropout: float = 0.0) -> nn.Sequential:
    """A two-layer perceptron ``d_in -> hidden (ReLU, dropout) -> d_out``."""
    layers: list[nn.Module] = [nn.Linear(in_dim, hidden), nn.ReLU()]
    if dropout > 0:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(hidden, out_dim))
    return nn.Sequential(*layers)


def slot_sources(events: torch.Tensor, active: int, n_slots: int) -> torch.Tensor:
    """Which step's write each slot holds, for every step of a batch of episodes.

    Parameters
    ----------
    events : bool tensor (B, T)
        Cue-channel events (the write gate).
    active : int
        Usable slots (``round(capacity_scale * K)``); 0 is bus-off.
    n_slots : int
        K.

    Returns
    -------
    source : long tensor (B, T, K)
        Step whose write vector slot ``j`` holds at step ``t`` (after that step's write), or
        -1 while the slot is empty. The k-th event (0-based) goes to slot k if k < active,
        else it overwrites slot 0 (paper sec. 4.1).

    Examples
    --------
    >>> ev = torch.tensor([[True, True, False, True, True]])
    >>> slot_sources(ev, active=2, n_slots=3)[0].tolist()
    [[0, -1, -1], [0, 1, -1], [0, 1, -1], [3, 1, -1], [4, 1, -1]]
    """
    b, t = events.shape
    source = torch.full((b, t, n_slots), -1, dtype=torch.long)
    if active == 0:
        return source
    ordinal = torch.cumsum(events.long(), dim=1) - 1
    target = torch.where(ordinal < active, ordinal, torch.zeros_like(ordinal))
    steps = torch.arange(t).expand(b, t)
    for j in range(active):
        writes = events & (target == j)
        source[:, :, j] = torch.cummax(torch.where(writes, steps, -1), dim=1).values
    return source


def write_step(
    slots: torch.Tensor,
    occupied: torch.Tensor,
    n_writes: torch.Tensor,
    write: torch.Tensor,
    event: torch.Tensor,
    active: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One step of the allocation rule for ``B`` episodes (same rule as :func:`slot_sources`)."""
    if active == 0:
        return slots, occupied, n_writes
    target = torch.where(n_writes < active, n_writes, torch.zeros_like(n_writes))
    hit = nn.functional.one_hot(target, slots.shape[1]).bool() & event[:, None]
    slots = torch.where(hit[..., None], write[:, None, :], slots)
    return slots, occupied | hit, n_writes + event.long()


def gate_choice(gate_logits: torch.Tensor, active: int | torch.Tensor) -> torch.Tensor:
    """A learned write gate's hard choice (protocol 11.8): the highest-scoring of the active
    slots and "do not write" (the last of the K + 1 logits ``(..., K + 1)``); ``active`` usable
    slots, an int or a tensor broadcastable to the leading dims. Ties go to the lower index.

    >>> gate_choice(torch.tensor([[0.0, 3.0, 1.0, 2.0]]), 1).tolist()
    [3]
    >>> gate_choice(torch.tensor([[0.0, 3.0, 1.0, 2.0]]), 3).tolist()
    [1]
    """
    return gate_logits.masked_fill(~gate_allowed(gate_logits, active), float("-inf")).argmax(-1)


def gate_allowed(gate_logits: torch.Tensor, active: int | torch.Tensor) -> torch.Tensor:
    """Which of the K + 1 choices of ``gate_logits`` (..., K + 1) the gate may take: the
    ``active`` first slots and "do not write" (always)."""
    k = gate_logits.shape[-1] - 1
    index = torch.arange(k + 1)
    limit = torch.as_tensor(active)[..., None] if torch.is_tensor(active) else active
    return (index < limit) | (index == k)


def gated_write_step(
    slots: torch.Tensor,
    occupied: torch.Tensor,
    write: torch.Tensor,
    gate_logits: torch.Tensor,
    event: torch.Tensor,
    active: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One step of a learned write gate for ``B`` episodes: at an event, the write goes to the
    slot :func:`gate_choice` picks (or nowhere). Returns the slots, their occupancy and the
    choice per episode (-1 without an event, K for "do not write").

    The choice is straight-through, as in training (``labcore.agents.sequence``): its one-hot
    carries the gradient of the gate's softmax over the allowed choices, and its value is exactly
    the hard choice."""
    k = slots.shape[1]
    allowed = gate_allowed(gate_logits, active)
    soft = torch.softmax(gate_logits.masked_fill(~allowed, float("-inf")), dim=-1)
    choice = gate_choice(gate_logits, active)
    hard = nn.functional.one_hot(choice, k + 1).to(soft.dtype)
    pick = (hard + soft - soft.detach())[:, :k] * event[:, None]
    slots = slots * (1 - pick[..., None]) + pick[..., None] * write[:, None, :]
    hit = hard[:, :k].bool() & event[:, None]
    return slots, occupied | hit, torch.where(event, choice, -1)


def shape_write(
    raw: torch.Tensor, geometry: str, offset: torch.Tensor | None = None
) -> torch.Tensor:
    """A write vector from the write layer's output ``raw`` (..., D), per ``geometry``.

    "layernorm": zero mean and unit variance over the D numbers (protocol sec. 5.1: noise SDs
    are then relative to the signal); "raw": unchanged; "offset": layernorm plus ``offset``,
    a fixed vector shared by every slot (broadcast over the leading dims).
    """
    if geometry == "raw":
        return raw
    normed = nn.functional.layer_norm(raw, (raw.shape[-1],))
    return normed if geometry == "layernorm" else normed + offset


def broadcast(slots: torch.Tensor, occupied: torch.Tensor) -> torch.Tensor:
    """The D-dim workspace broadcast: mean of the occupied slots (zeros when none)."""
    weight = occupied.float()[..., None]
    return (slots * weight).sum(-2) / weight.sum(-2).clamp(min=1.0)


def uncertainty(logits: torch.Tensor) -> torch.Tensor:
    """The two uncertainty scalars the self-model reads: normalised entropy and top-2 margin."""
    probs = torch.softmax(logits, dim=-1)
    entropy = -(probs * torch.log_softmax(logits, dim=-1)).sum(-1) / math.log(logits.shape[-1])
    top = torch.topk(probs, 2, dim=-1).values
    return torch.stack([entropy, top[..., 0] - top[..., 1]], dim=-1)


def self_model_width(config: AgentConfig) -> int:
    """Input width of the self-model's Linear: what ``config.self_model_inputs`` names (89 by
    default)."""
    widths = {
        "h": config.hidden_dim,
        "broadcast": config.slot_dim,
        "logits": N_ACTIONS,
        "uncertainty": 2,
    }
    return sum(widths[name] for name in config.self_model_inputs)


def self_model_parts(
    config: AgentConfig, h: torch.Tensor, bcast: torch.Tensor, logits: torch.Tensor
) -> list[torch.Tensor]:
    """The pieces z_self reads, in order (``config.self_model_inputs``; protocol 5.1): the carrier
    ``h``, the broadcast ``bcast``, the intended action's ``logits`` and their :func:`uncertainty`.
    Both execution paths assemble z_self's input here."""
    pieces = {
        "h": lambda: h,
        "broadcast": lambda: bcast,
        "logits": lambda: logits,
        "uncertainty": lambda: uncertainty(logits),
    }
    return [pieces[name]() for name in config.self_model_inputs]
