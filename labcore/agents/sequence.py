"""The agent's teacher-forced sequence pass for N seeds at once, on stacked parameters.

Every parameter gets a leading seed dimension ``N`` (:func:`stack_parameters`) and each layer
runs as one grouped product (``bmm``), so N agents of one kind train as one model;
:meth:`Agent.forward_sequence` is the same pass with ``N = 1``. It is cheap on a CPU because
the trunk's input (view, compass, task flags) takes a few dozen distinct values per task, run
once each and gathered per step (a :class:`StepTable`), and because workspace allocation
depends only on when cue events happen (:func:`~labcore.agents.parts.slot_sources`).

Why the pass is written for N rather than derived from the module by ``torch.vmap``: vmap's
rules add a bias after the product (linear) or after the grouped convolution, where
``baddbmm`` and ``conv2d`` add it inside; in portable mode (MKL's COMPATIBLE branch, in which
the bundle was trained) the two round differently once a layer has 128 inputs (4.8e-7 on a GRU
gate), and vmap's per-operation cost makes an update 6-15% slower even with these layers kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from labcore.agents.parts import (
    broadcast,
    gate_allowed,
    gate_choice,
    one_hot_planes,
    self_model_parts,
    shape_write,
    slot_sources,
)
from labcore.config import AgentConfig
from labcore.envs.channels import EVENT_INDEX, TASK_DIM

N_DIRECTIONS = 4
F = nn.functional

Params = Mapping[str, torch.Tensor]
"""Parameter (and buffer) tensors by ``Agent.state_dict()`` name, each with a leading seed dim."""


@dataclass(frozen=True)
class StepTable:
    """The trunk inputs episodes refer to by row: a view (``view``, index into ``grid``, the
    one-hot views ``(V, channels, 7, 7)``), a one-hot compass ``direction`` ``(C, 4)`` and
    ``task`` flags ``(C, TASK_DIM)``; shared by every member, or with a leading member dim."""

    grid: torch.Tensor
    view: torch.Tensor
    direction: torch.Tensor
    task: torch.Tensor

    @property
    def shared(self) -> bool:
        """One table for every member (rather than one per member)."""
        return self.view.dim() == 1

    @classmethod
    def of_task(cls, image_table: torch.Tensor, direction_table: torch.Tensor) -> StepTable:
        """Every (pose, task flags) combination of a task, in a fixed order: built from the
        task's tables, not from data, so no sum's order depends on a member's batch-mates."""
        codes = 2**TASK_DIM
        flags = torch.tensor(
            [[(code >> j) & 1 for j in range(TASK_DIM)] for code in range(codes)],
            dtype=torch.float32,
        )
        poses = torch.arange(image_table.shape[0]).repeat_interleave(codes)
        return cls(
            grid=one_hot_grid(image_table),
            view=poses,
            direction=F.one_hot(direction_table[poses].long(), N_DIRECTIONS).float(),
            task=flags.repeat(image_table.shape[0], 1),
        )

    @staticmethod
    def rows_of(pose: torch.Tensor, task: torch.Tensor) -> torch.Tensor:
        """Row of :meth:`of_task`'s table for each step: ``pose * 2**TASK_DIM + flag code``."""
        weights = 2 ** torch.arange(TASK_DIM)
        return pose.long() * 2**TASK_DIM + (task.round().long() * weights).sum(-1)


@dataclass
class SequenceInputs:
    """Teacher-forced episodes of ``N`` members: ``combo`` ``(N, B, T)`` rows of ``table``, the
    ``cue`` ``(N, B, T, CUE_DIM)``, and ``max_events``, the most cue events the task puts in an
    episode (fixed, so a member's shapes do not depend on its batch-mates; None: counted)."""

    combo: torch.Tensor
    cue: torch.Tensor
    table: StepTable
    max_events: int | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(N, B, T)``."""
        n, b, t = self.combo.shape
        return n, b, t

    def own_rows(self) -> SequenceInputs:
        """The same episodes with a per-member table of exactly their steps (cheaper for the
        paper schedule's one-episode prefixes than every view of the task)."""
        n, b, t = self.shape
        rows = self.combo.reshape(n, b * t)
        table = self.table
        views = table.view[rows]
        own = StepTable(
            grid=table.grid[views],
            view=torch.arange(b * t).expand(n, b * t),
            direction=table.direction[rows],
            task=table.task[rows],
        )
        return SequenceInputs(
            torch.arange(b * t).reshape(1, b, t).expand(n, b, t), self.cue, own, self.max_events
        )


def one_hot_grid(image: torch.Tensor) -> torch.Tensor:
    """MiniGrid symbolic views ``(..., 7, 7, 3)`` -> one-hot planes ``(..., channels, 7, 7)``."""
    return one_hot_planes(image).movedim(-1, -3).contiguous()


def build_step_table(
    image_table: torch.Tensor, pose: torch.Tensor, direction: torch.Tensor, task: torch.Tensor
) -> tuple[StepTable, torch.Tensor]:
    """The distinct (view, compass, task flags) combinations of some steps (``pose``,
    ``direction`` ``(...,)``, ``task`` ``(..., TASK_DIM)``; views ``image_table``
    ``(V, 7, 7, 3)``): the :class:`StepTable` and each step's row, with ``pose``'s shape."""
    keys = torch.cat(
        [pose[..., None].to(task.dtype), direction[..., None].to(task.dtype), task], dim=-1
    )
    unique, combo = torch.unique(keys.reshape(-1, keys.shape[-1]), dim=0, return_inverse=True)
    table = StepTable(
        grid=one_hot_grid(image_table),
        view=unique[:, 0].long(),
        direction=F.one_hot(unique[:, 1].long(), N_DIRECTIONS).float(),
        task=unique[:, 2:].contiguous(),
    )
    return table, combo.reshape(pose.shape)


def stack_parameters(agents: Sequence[nn.Module]) -> dict[str, torch.Tensor]:
    """Every tensor of ``Agent.state_dict()`` stacked along a new leading seed dimension."""
    states = [a.state_dict() for a in agents]
    return {k: torch.stack([s[k].detach() for s in states]) for k in states[0]}


# ----------------------------------------------------------------------- grouped layers
def grouped_linear(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """``x @ weight.T + bias`` per member: ``x`` (N, ..., in), ``weight`` (N, out, in). A
    member's product does not depend on the others for N >= 2 (a batch of one is a plain
    matrix product, with other kernels: ``labcore.training.seed_batching``)."""
    n = weight.shape[0]
    flat = x.reshape(n, -1, x.shape[-1])
    if bias is None:
        y = torch.bmm(flat, weight.transpose(1, 2))
    else:
        y = torch.baddbmm(bias[:, None, :], flat, weight.transpose(1, 2))
    return y.reshape(*x.shape[:-1], weight.shape[1])


def grouped_linear_parts(
    parts: Sequence[torch.Tensor], weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """:func:`grouped_linear` of the concatenation of ``parts``, one product per part, summed
    (no copy of the whole input: the policy's is 2,048 rows x 128 per member and update)."""
    y = None
    start = 0
    for x in parts:
        width = x.shape[-1]
        # contiguous: a strided weight slice takes another kernel path in small products
        term = grouped_linear(
            x, weight[..., start : start + width].contiguous(), bias if y is None else None
        )
        y = term if y is None else y + term
        start += width
    return y


def _grouped_conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """A convolution per member: ``x`` (M, N*C, H, W) with member ``i``'s channels in block
    ``i``, ``weight`` (N, O, C, kh, kw) -> (M, N*O, H', W') (one grouped convolution)."""
    n = weight.shape[0]
    return F.conv2d(x, weight.reshape(-1, *weight.shape[2:]), bias.reshape(-1), groups=n)


def encode_grid(p: Params, grid: torch.Tensor) -> torch.Tensor:
    """The GridEncoder (conv 2x2, max-pool, conv 2x2, conv 2x2) per member: (N, V, 64).

    ``grid`` is (V, channels, 7, 7) shared by all members or (N, V, channels, 7, 7).
    """
    n = p["encoder.conv.0.weight"].shape[0]
    if grid.dim() == 4:
        x = grid.repeat(1, n, 1, 1)
    else:
        x = grid.transpose(0, 1).reshape(grid.shape[1], -1, *grid.shape[-2:])
    views = x.shape[0]
    x = torch.relu(_grouped_conv(x, p["encoder.conv.0.weight"], p["encoder.conv.0.bias"]))
    x = F.max_pool2d(x, 2)
    x = torch.relu(_grouped_conv(x, p["encoder.conv.3.weight"], p["encoder.conv.3.bias"]))
    x = torch.relu(_grouped_conv(x, p["encoder.conv.5.weight"], p["encoder.conv.5.bias"]))
    return x.reshape(views, n, -1).transpose(0, 1)


def gather_rows(values: torch.Tensor, combo: torch.Tensor) -> torch.Tensor:
    """``values[i, combo[i]]`` for each member: (N, C, F) x (N, B, T) -> (N, B, T, F)."""
    n = values.shape[0]
    return values[torch.arange(n)[:, None, None], combo]


def gru_scan(gi: torch.Tensor, w_hh: torch.Tensor, b_hh: torch.Tensor) -> torch.Tensor:
    """``torch.nn.GRU`` over time from a zero state for N members: ``gi`` (N, B, T, 3H) the
    input projections (gate order r, z, n), ``w_hh`` (N, 3H, H), ``b_hh`` (N, 3H) -> every
    hidden state (N, B, T, H). Plain autograd: a hand-written backward was measured slower."""
    n, b, _, three_h = gi.shape
    hidden = three_h // 3
    h = gi.new_zeros(n, b, hidden)
    w_t = w_hh.transpose(1, 2)
    bias = b_hh[:, None, :]
    out = []
    # unbind/split (not indexing): their backward is one stack/cat, where slicing would make
    # autograd zero-fill a full-size gradient buffer at every step.
    for g in gi.unbind(2):
        gh = torch.baddbmm(bias, h, w_t)
        g_rz, g_n = g.split((2 * hidden, hidden), dim=-1)
        gh_rz, gh_n = gh.split((2 * hidden, hidden), dim=-1)
        r, z = torch.sigmoid(g_rz + gh_rz).split(hidden, dim=-1)
        cand = torch.tanh(torch.addcmul(g_n, r, gh_n))
        h = torch.lerp(cand, h, z)  # (1 - z) * cand + z * h
        out.append(h)
    return torch.stack(out, dim=2)


def _mlp(
    p: Params,
    prefix: str,
    x: torch.Tensor | Sequence[torch.Tensor],
    dropout: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``labcore.agents.parts.mlp`` per member on ``x`` or the concatenation of its parts: its
    hidden layer (after the pre-drawn, pre-scaled ``dropout`` mask) and its output."""
    parts = [x] if torch.is_tensor(x) else list(x)
    hidden = torch.relu(grouped_linear_parts(parts, p[f"{prefix}.0.weight"], p[f"{prefix}.0.bias"]))
    if dropout is not None:
        hidden = hidden * dropout
    last = max(
        int(k.split(".")[1]) for k in p if k.startswith(prefix + ".") and k.endswith(".weight")
    )
    return hidden, grouped_linear(hidden, p[f"{prefix}.{last}.weight"], p[f"{prefix}.{last}.bias"])


def _offset(p: Params, dims: int) -> torch.Tensor | None:
    """The "offset" geometry's shared vector, (N, D) -> broadcastable to (N, ..., D)."""
    if "write_offset" not in p:
        return None
    offset = p["write_offset"]
    return offset.reshape(offset.shape[0], *([1] * (dims - 2)), offset.shape[-1])


def _workspace_slots(
    p: Params, config: AgentConfig, inputs: SequenceInputs, h: torch.Tensor, source: torch.Tensor
) -> torch.Tensor:
    """Slot contents (N, B, T, K, D): a gather of the writes, computed at event steps only."""
    n, b, t, k = source.shape
    events = inputs.cue[..., EVENT_INDEX] > 0
    counted = int(events.sum(-1).max())
    n_events = counted if inputs.max_events is None else min(inputs.max_events, t)
    if counted > n_events:
        raise ValueError(f"an episode holds {counted} events, more than the task's {n_events}")
    if n_events == 0:
        return h.new_zeros(n, b, t, k, config.slot_dim)
    # The event steps of each episode in order (a stable sort puts them first), padded.
    steps = torch.argsort((~events).to(torch.int8), dim=-1, stable=True)[..., :n_events]
    cue = torch.gather(inputs.cue, 2, steps[..., None].expand(-1, -1, -1, inputs.cue.shape[-1]))
    h_at = torch.gather(h, 2, steps[..., None].expand(-1, -1, -1, h.shape[-1]))
    raw = grouped_linear_parts([cue, h_at], p["write.weight"], p["write.bias"])
    writes = shape_write(raw, config.write_geometry, _offset(p, raw.dim()))
    writes = torch.cat([writes, writes.new_zeros(n, b, 1, config.slot_dim)], dim=2)  # last: empty
    ordinal = torch.cumsum(events.long(), dim=-1) - 1  # the event ordinal of each event step
    which = torch.gather(ordinal, 2, source.clamp(min=0).reshape(n, b, t * k)).reshape(n, b, t, k)
    which = torch.where(source < 0, n_events, which)
    index = which.reshape(n, b, t * k, 1).expand(-1, -1, -1, config.slot_dim)
    return torch.gather(writes, 2, index).reshape(n, b, t, k, config.slot_dim)


def _gated_slots(
    p: Params,
    config: AgentConfig,
    inputs: SequenceInputs,
    h: torch.Tensor,
    active: int | torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Slots (N, B, T, K, D), occupancy (N, B, T, K) and each step's choice (N, B, T: the slot
    written, K for "do not write", -1 without an event) under a learned write gate (protocol
    11.8), ``active`` usable slots (int or (N, B)); straight-through, as on the step path."""
    n, b, t = inputs.shape
    k, d = config.n_slots, config.slot_dim
    events = inputs.cue[..., EVENT_INDEX] > 0
    n_events = inputs.max_events if inputs.max_events is not None else int(events.sum(-1).max())
    if int(events.sum(-1).max()) > n_events:
        raise ValueError(f"an episode holds more events than the task's {n_events}")
    steps = torch.argsort((~events).to(torch.int8), dim=-1, stable=True)[..., :n_events]
    real = torch.arange(n_events) < events.sum(-1, keepdim=True)  # (N, B, E)
    cue = torch.gather(inputs.cue, 2, steps[..., None].expand(-1, -1, -1, inputs.cue.shape[-1]))
    h_at = torch.gather(h, 2, steps[..., None].expand(-1, -1, -1, h.shape[-1]))
    raw = grouped_linear_parts([cue, h_at], p["write.weight"], p["write.bias"])
    writes = shape_write(raw, config.write_geometry, _offset(p, raw.dim()))
    logits = grouped_linear_parts([cue, h_at], p["write_gate.weight"], p["write_gate.bias"])
    limit = active[..., None] if torch.is_tensor(active) else active  # (N, B, 1) or int
    allowed = gate_allowed(logits, limit)
    soft = torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1)
    hard = F.one_hot(gate_choice(logits, limit), k + 1).to(soft.dtype)
    pick = (hard + soft - soft.detach())[..., :k] * real[..., None]  # (N, B, E, K)
    state = h.new_zeros(n, b, k, d)
    held = torch.zeros(n, b, k, dtype=torch.bool)
    states, helds = [state], [held]
    for e in range(n_events):
        a = pick[:, :, e, :, None]
        state = state * (1 - a) + a * writes[:, :, e, None, :]
        held = held | (hard[:, :, e, :k].bool() & real[:, :, e, None])
        states.append(state)
        helds.append(held)
    ordinal = torch.cumsum(events.long(), dim=-1)  # events so far: 0 before the first
    index = ordinal.reshape(n, b, t, 1, 1)
    slots = torch.gather(torch.stack(states, dim=2), 2, index.expand(-1, -1, -1, k, d))
    occupied = torch.gather(torch.stack(helds, dim=2), 2, index[..., 0].expand(-1, -1, -1, k))
    choice = torch.full((n, b, t), -1, dtype=torch.long)
    choice.scatter_(2, steps, torch.where(real, hard.argmax(-1), -1))
    choice = torch.where(events, choice, -1)
    return slots, occupied, choice


# ----------------------------------------------------------------------- the pass
@dataclass
class AgentOutput:
    """Everything a forward pass exposes, leading dims ``(B,)``, ``(B, T)`` or ``(N, B, T)``.

    ``slots`` is what the readouts saw (after noise); ``proposal_logits`` are the
    workspace's intended action that the self-model monitors (equal to ``logits`` when the
    policy reads the workspace).
    """

    logits: torch.Tensor
    h: torch.Tensor
    proposal_logits: torch.Tensor
    slots: torch.Tensor | None = None
    occupied: torch.Tensor | None = None
    broadcast: torch.Tensor | None = None
    z_self: torch.Tensor | None = None
    confidence: torch.Tensor | None = None
    stimulus_logit: torch.Tensor | None = None
    confidence_input: torch.Tensor | None = None
    """What the confidence head read (z_self, and the policy's hidden layer where it has that
    route), after any intervention."""
    write_slot: torch.Tensor | None = None
    """A learned write gate's choice this step (B,): the slot written, K for "do not write", -1
    without an event."""


def _input_gates(p: Params, config: AgentConfig, inputs: SequenceInputs) -> torch.Tensor:
    """The GRU's input projections (N, B, T, 3H), or A0's carrier (N, B, T, H)."""
    table = inputs.table
    n = inputs.shape[0]
    views = encode_grid(p, table.grid)  # the encoder sees only the view
    if table.shared:
        feats = views[:, table.view]
        direction, task = table.direction.expand(n, -1, -1), table.task.expand(n, -1, -1)
    else:
        feats = gather_rows(views, table.view[:, None, :])[:, 0]
        direction, task = table.direction, table.task
    static = torch.cat([feats, direction, task], dim=-1)
    w, b = p["embed.0.weight"], p["embed.0.bias"]
    width = static.shape[-1]
    out = "gru.weight_ih_l0" if config.recurrent else "carrier.0.weight"
    bias = "gru.bias_ih_l0" if config.recurrent else "carrier.0.bias"
    if config.cue_route == "trunk":
        pre = gather_rows(grouped_linear(static, w[..., :width], b), inputs.combo)
        embedded = torch.relu(pre + grouped_linear(inputs.cue, w[..., width:]))
        projected = grouped_linear(embedded, p[out], p[bias])
    else:
        embedded = torch.relu(grouped_linear(static, w, b))  # (N, C, embed)
        projected = gather_rows(grouped_linear(embedded, p[out], p[bias]), inputs.combo)
    return projected if config.recurrent else torch.relu(projected)


def _trunk(p: Params, config: AgentConfig, inputs: SequenceInputs) -> torch.Tensor:
    """Carrier states (N, B, T, hidden) of the open loop."""
    gates = _input_gates(p, config, inputs)
    if not config.recurrent:
        return gates
    return gru_scan(gates, p["gru.weight_hh_l0"], p["gru.bias_hh_l0"])


def _closed_loop_states(
    p: Params,
    config: AgentConfig,
    inputs: SequenceInputs,
    source: torch.Tensor,
    noise: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Carrier and read slots (N, B, T, K, D) of a closed loop, step by step: the broadcast
    read at t-1 enters the GRU's input at t through the feedback projection."""
    gates = _input_gates(p, config, inputs)
    n, b, t = inputs.shape
    hidden = config.hidden_dim
    feedback = torch.bmm(p["gru.weight_ih_l0"], p["feedback.weight"])  # W_ih W_fb: (N, 3H, D)
    w_t, bias = p["gru.weight_hh_l0"].transpose(1, 2), p["gru.bias_hh_l0"][:, None, :]
    offset = _offset(p, 3)
    h = gates.new_zeros(n, b, hidden)
    clean = gates.new_zeros(n, b, config.n_slots, config.slot_dim)
    read = gates.new_zeros(n, b, config.slot_dim)
    hs, reads = [], []
    for step in range(t):
        g = gates[:, :, step] + grouped_linear(read, feedback)
        gh = torch.baddbmm(bias, h, w_t)
        r, z = torch.sigmoid(g[..., : 2 * hidden] + gh[..., : 2 * hidden]).split(hidden, dim=-1)
        cand = torch.tanh(torch.addcmul(g[..., 2 * hidden :], r, gh[..., 2 * hidden :]))
        h = torch.lerp(cand, h, z)
        raw = grouped_linear_parts([inputs.cue[:, :, step], h], p["write.weight"], p["write.bias"])
        written = source[:, :, step] == step  # (N, B, K): the slot this step's event writes
        clean = torch.where(
            written[..., None], shape_write(raw, config.write_geometry, offset)[:, :, None], clean
        )
        slots = clean if noise is None else clean + noise[:, :, step]
        read = broadcast(slots, source[:, :, step] >= 0)
        hs.append(h)
        reads.append(slots)
    return torch.stack(hs, dim=2), torch.stack(reads, dim=2)


def sequence_states(
    p: Params,
    config: AgentConfig,
    inputs: SequenceInputs,
    *,
    active_slots: int | torch.Tensor | None = None,
    workspace_noise: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
    """The carrier ``h`` (N, B, T, H), the workspace's ``slots`` (N, B, T, K, D) and
    ``occupied`` (N, B, T, K), and a learned gate's choices (N, B, T) (None where the agent has
    none); see :func:`sequence_forward`."""
    c = config
    n, b, t = inputs.shape
    if not c.workspace:
        return _trunk(p, c, inputs), None, None, None
    active = c.n_slots if active_slots is None else active_slots
    if c.write_rule == "learned":
        if workspace_noise is not None:
            raise ValueError("a learned write gate's sequence pass takes no workspace noise")
        h = _trunk(p, c, inputs)
        return (h, *_gated_slots(p, c, inputs, h, active))
    if torch.is_tensor(active):
        raise ValueError("active slots per episode need a learned write gate")
    events = inputs.cue[..., EVENT_INDEX] > 0
    source = slot_sources(events.reshape(n * b, t), active, c.n_slots).reshape(n, b, t, c.n_slots)
    noise = None if workspace_noise is None else workspace_noise(source)
    if c.closed_loop:
        h, slots = _closed_loop_states(p, c, inputs, source, noise)
        return h, slots, source >= 0, None
    h = _trunk(p, c, inputs)
    slots = _workspace_slots(p, c, inputs, h, source)
    if noise is not None:
        slots = slots + noise
    return h, slots, source >= 0, None


def sequence_heads(
    p: Params,
    config: AgentConfig,
    h: torch.Tensor,
    slots: torch.Tensor | None,
    occupied: torch.Tensor | None,
    *,
    dropout: torch.Tensor | None = None,
    self_model_lesion: Callable[[torch.Tensor], torch.Tensor] | None = None,
    centre_mask: torch.Tensor | None = None,
    policy_route_off: bool = False,
) -> AgentOutput:
    """The readouts (policy, broadcast, self-model, confidence, stimulus probe) on given states;
    see :func:`sequence_forward`."""
    c = config
    out = AgentOutput(logits=h, h=h, proposal_logits=h)
    z = None

    def self_model(bcast: torch.Tensor, logits: torch.Tensor | None) -> torch.Tensor:
        z = torch.tanh(
            grouped_linear_parts(
                self_model_parts(c, h, bcast, logits),
                p["self_model.weight"],
                p["self_model.bias"],
            )
        )
        return z if self_model_lesion is None else self_model_lesion(z)

    if c.workspace:
        n = h.shape[0]
        flat = slots.flatten(-2)
        seen = flat * c.readout_gain if c.readout_gain != 1.0 else flat
        if c.bottleneck == "random":
            feats = torch.bmm(seen.reshape(n, -1, seen.shape[-1]), p["random_projection"]).reshape(
                *seen.shape[:-1], -1
            )
        elif c.bottleneck == "linear":
            feats = grouped_linear(seen, p["bottleneck.weight"], p["bottleneck.bias"])
        elif c.bottleneck == "mlp":
            feats = _mlp(p, "bottleneck", seen)[1]
        else:
            feats = seen
        bcast = broadcast(slots, occupied)
        reads = [h, feats]
        if c.policy_reads == "workspace_and_self_model":  # z_self first: the policy reads it
            z = self_model(bcast, None)
            reads.append(z)
        hidden, proposal = _mlp(p, "policy", reads, dropout)
        out.slots, out.occupied, out.broadcast = slots, occupied, bcast
        out.stimulus_logit = grouped_linear(
            flat, p["stimulus_probe.weight"], p["stimulus_probe.bias"]
        ).squeeze(-1)
    else:
        hidden, proposal = _mlp(p, "policy", h, dropout)

        bcast = h.new_zeros(*h.shape[:-1], c.slot_dim)
    out.logits = out.proposal_logits = proposal
    if c.self_model:
        if z is None:
            z = self_model(bcast, proposal)
        out.z_self = z
        # protocol 8.8.2: the batch's centre in a wager update, else the stored one
        if c.confidence_centred:
            centre = (
                p["confidence_centre"] if centre_mask is None else masked_centre(z, centre_mask)
            )
            z = z - centre.reshape(centre.shape[0], *([1] * (z.dim() - 2)), -1)
        weight, bias = p["confidence_head.weight"], p["confidence_head.bias"]
        if "policy" in c.confidence_reads:
            route = torch.zeros_like(hidden) if policy_route_off else hidden
            logit = grouped_linear_parts([z, route], weight, bias)
            out.confidence_input = torch.cat([z, route], dim=-1)
        else:
            logit = grouped_linear(z, weight, bias)
            out.confidence_input = z
        out.confidence = torch.sigmoid(logit).squeeze(-1)
        if c.policy_reads == "self_model":
            out.logits = _mlp(p, "self_policy", z)[1]
    return out


def sequence_forward(
    p: Params,
    config: AgentConfig,
    inputs: SequenceInputs,
    *,
    active_slots: int | torch.Tensor | None = None,
    workspace_noise: Callable[[torch.Tensor], torch.Tensor] | None = None,
    dropout: torch.Tensor | None = None,
    self_model_lesion: Callable[[torch.Tensor], torch.Tensor] | None = None,
    centre_mask: torch.Tensor | None = None,
    policy_route_off: bool = False,
) -> AgentOutput:
    """Teacher-forced episodes of ``N`` members in one pass (paper sec. 4.1 architecture).

    Parameters
    ----------
    p : stacked parameters and buffers (:func:`stack_parameters` names), leading dim N
    config : the members' common :class:`~labcore.config.AgentConfig`
    inputs : the episodes, :class:`SequenceInputs`
    active_slots : usable workspace slots (default all; 0 is bus-off), or per episode ``(N, B)``
        (learned write gates only)
    workspace_noise : called with the slot sources ``(N, B, T, K)``, returns the noise to add
        to the slots ``(N, B, T, K, D)`` (see ``labcore.interventions``)
    dropout : pre-drawn, pre-scaled dropout mask of the policy's hidden layer ``(N, B, T, H)``
    self_model_lesion : applied to z_self ``(N, B, T, dim)`` (run-time lesions)
    centre_mask : with ``config.confidence_centred``, the steps ``(N, B, T)`` whose mean z_self the
        confidence head subtracts (:func:`masked_centre`; a wager update); None: the stored centre
    policy_route_off : the confidence head's policy route zeroed (protocol 11.4)
    """
    h, slots, occupied, choice = sequence_states(
        p, config, inputs, active_slots=active_slots, workspace_noise=workspace_noise
    )
    out = sequence_heads(
        p,
        config,
        h,
        slots,
        occupied,
        dropout=dropout,
        self_model_lesion=self_model_lesion,
        centre_mask=centre_mask,
        policy_route_off=policy_route_off,
    )
    out.write_slot = choice
    return out


def masked_centre(z: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Each member's mean ``(N, dim)`` of ``z`` ``(N, B, T, dim)`` over the steps of ``mask``
    ``(N, B, T)`` (0 without any): a centred confidence head's centre in a wager update. The
    gradient flows through the mean, as in batch normalisation (protocol 8.8.2)."""

    m = mask.to(z.dtype)[..., None]
    return (z * m).flatten(1, 2).sum(1) / m.flatten(1, 2).sum(1).clamp(min=1.0)
