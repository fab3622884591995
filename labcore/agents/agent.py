"""The composable agent: A0, A1, B1, B2 and the controls are one class configured by
:class:`~labcore.config.AgentConfig` (paper sec. 4.1; protocol sec. 5).

:meth:`Agent.step` advances ``B`` episodes by one step (autonomous rollouts, and the
interventions that feed back through time); :meth:`Agent.forward_sequence` runs whole
teacher-forced episodes at once (:mod:`labcore.agents.sequence`). Interventions
(:class:`~labcore.config.Intervention`) are applied inside these calls; weights are never edited.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import nn

from labcore.agents.parts import (
    GridEncoder,
    broadcast,
    gated_write_step,
    mlp,
    self_model_parts,
    self_model_width,
    shape_write,
    write_step,
)
from labcore.agents.sequence import (
    N_DIRECTIONS,
    AgentOutput,
    SequenceInputs,
    StepTable,
    build_step_table,
    one_hot_grid,
    sequence_forward,
)
from labcore.config import WRITE_OFFSET_RMS, AgentConfig, Intervention
from labcore.envs.channels import CUE_DIM, EVENT_INDEX, TASK_DIM
from labcore.envs.tables import N_ACTIONS
from labcore.interventions import (
    perturb_carrier,
    perturb_self_model,
    perturb_workspace,
    pulse_carrier,
    pulse_workspace,
    sequence_workspace_noise,
)
from labcore.seeding import RANDOM_PROJECTION_SEED_BASE, WRITE_OFFSET_SEED_BASE


@dataclass
class Observation:
    """What the agent receives, as tensors with leading dims ``(B,)`` or ``(B, T)``.

    Images are given either directly (``image``: ``(..., 7, 7, 3)``) or, as the batched
    simulator stores them, as ``pose`` indices into a small ``image_table``; the encoder then
    runs once per distinct view (mathematically the same, much cheaper).
    """

    direction: torch.Tensor
    task: torch.Tensor
    cue: torch.Tensor
    image: torch.Tensor | None = None
    pose: torch.Tensor | None = None
    image_table: torch.Tensor | None = None
    table_features: torch.Tensor | None = None
    """The encoder's features of ``image_table``, when the caller computed them once: a rollout
    does (its agent does not change between steps; the same numbers, without the encoder's
    pass over every view at every step)."""

    def __post_init__(self) -> None:
        if self.image is None and (self.pose is None or self.image_table is None):
            raise ValueError("an Observation needs `image`, or `pose` with `image_table`")

    def index(self, item: Any) -> Observation:
        """Select episodes/steps (applied to every per-step field)."""
        return replace(
            self,
            direction=self.direction[item],
            task=self.task[item],
            cue=self.cue[item],
            image=None if self.image is None else self.image[item],
            pose=None if self.pose is None else self.pose[item],
        )


def observation_inputs(obs: Observation) -> SequenceInputs:
    """One agent's teacher-forced episodes (an ``Observation`` with leading dims (B, T)) as
    :class:`SequenceInputs` with N = 1."""
    if obs.pose is not None:
        table, combo = build_step_table(obs.image_table, obs.pose, obs.direction, obs.task)
    else:
        lead = obs.image.shape[:-3]
        rows = int(torch.tensor(lead).prod())
        table = StepTable(
            grid=one_hot_grid(obs.image.reshape(-1, *obs.image.shape[-3:])),
            view=torch.arange(rows),
            direction=nn.functional.one_hot(obs.direction.reshape(-1).long(), N_DIRECTIONS).float(),
            task=obs.task.reshape(-1, obs.task.shape[-1]).float(),
        )
        combo = torch.arange(rows).reshape(lead)
    return SequenceInputs(combo[None], obs.cue[None], table)


@dataclass
class AgentState:
    """Recurrent state of ``B`` episodes between :meth:`Agent.step` calls."""

    h: torch.Tensor
    slots: torch.Tensor
    occupied: torch.Tensor
    n_writes: torch.Tensor
    t: int
    permutation: torch.Tensor | None = None
    read: torch.Tensor | None = None
    """The broadcast the readouts saw at the previous step (fed back in a closed loop)."""


class Agent(nn.Module):
    """One agent of the family, built from its parts by ``config``."""

    def __init__(self, config: AgentConfig, seed: int = 0):
        super().__init__()
        self.config = config
        c = config
        self.encoder = GridEncoder()
        trunk_in = (
            GridEncoder.out_dim
            + N_DIRECTIONS
            + TASK_DIM
            + (CUE_DIM if c.cue_route == "trunk" else 0)
        )
        self.embed = nn.Sequential(nn.Linear(trunk_in, c.embed_dim), nn.ReLU())
        if c.recurrent:
            self.gru = nn.GRU(c.embed_dim, c.hidden_dim, batch_first=True)
        else:
            self.carrier = nn.Sequential(nn.Linear(c.embed_dim, c.hidden_dim), nn.ReLU())
        ws_feat = 0
        if c.workspace:
            self.write = nn.Linear(CUE_DIM + c.hidden_dim, c.slot_dim)
            self.stimulus_probe = nn.Linear(c.workspace_size, 1)
            ws_feat = c.workspace_size
            if c.bottleneck == "linear":
                self.bottleneck = nn.Linear(c.workspace_size, c.bottleneck_dim)
            elif c.bottleneck == "mlp":
                self.bottleneck = mlp(c.workspace_size, c.bottleneck_dim, c.bottleneck_dim)
            elif c.bottleneck == "random":
                gen = torch.Generator().manual_seed(RANDOM_PROJECTION_SEED_BASE + seed)
                proj = (
                    torch.randn(c.workspace_size, c.bottleneck_dim, generator=gen)
                    / c.workspace_size**0.5
                )
                self.register_buffer("random_projection", proj)
            if c.bottleneck is not None:
                ws_feat = c.bottleneck_dim
        reads_self = c.policy_reads == "workspace_and_self_model"
        self.policy = mlp(
            c.hidden_dim + ws_feat + (c.self_model_dim if reads_self else 0),
            c.readout_hidden,
            N_ACTIONS,
            c.dropout,
        )
        if c.self_model:
            self.self_model = nn.Linear(self_model_width(c), c.self_model_dim)
            routes = c.self_model_dim + (c.readout_hidden if "policy" in c.confidence_reads else 0)
            self.confidence_head = nn.Linear(routes, 1)
            # protocol 8.8.2; draws no random numbers, so every other weight is unchanged
            with torch.no_grad():
                if c.confidence_head_init in ("zero_bias", "zero"):
                    self.confidence_head.bias.zero_()
                if c.confidence_head_init == "zero":
                    self.confidence_head.weight.zero_()
            if c.confidence_centred:
                self.register_buffer("confidence_centre", torch.zeros(c.self_model_dim))
            if c.policy_reads == "self_model":
                self.self_policy = mlp(c.self_model_dim, c.readout_hidden, N_ACTIONS)
        # Design-study parts come last, so every other weight starts as in the plain kind.
        if c.write_geometry == "offset":
            gen = torch.Generator().manual_seed(WRITE_OFFSET_SEED_BASE + seed)
            offset = torch.randn(c.slot_dim, generator=gen)
            self.register_buffer(
                "write_offset", offset / offset.pow(2).mean().sqrt() * WRITE_OFFSET_RMS
            )
        if c.closed_loop:
            self.feedback = nn.Linear(c.slot_dim, c.embed_dim, bias=False)
        if c.write_rule == "learned":  # protocol 11.8: the K slots and "do not write"
            self.write_gate = nn.Linear(CUE_DIM + c.hidden_dim, c.n_slots + 1)
        if c.value_head:  # the critic of reinforcement learning (labcore.training.actor_critic),
            # built last: nothing else moves
            self.value_head = mlp(c.hidden_dim + ws_feat, c.readout_hidden, 1)

    # ----------------------------------------------------------------- shared layers
    def _embed(self, obs: Observation) -> torch.Tensor:
        if obs.image is not None:
            feats = self.encoder(obs.image)
        elif obs.table_features is not None:
            feats = obs.table_features[obs.pose]
        else:
            feats = self.encoder(obs.image_table)[obs.pose]
        parts = [feats, nn.functional.one_hot(obs.direction.long(), N_DIRECTIONS).float(), obs.task]
        if self.config.cue_route == "trunk":
            parts.append(obs.cue)
        return self.embed(torch.cat(parts, dim=-1))

    def _write_vector(self, cue: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        raw = self.write(torch.cat([cue, h], dim=-1))
        return shape_write(raw, self.config.write_geometry, getattr(self, "write_offset", None))

    def _readout_features(self, slots: torch.Tensor) -> torch.Tensor:
        flat = slots.flatten(-2) * self.config.readout_gain
        if self.config.bottleneck == "random":
            return flat @ self.random_projection
        if self.config.bottleneck is not None:
            return self.bottleneck(flat)
        return flat

    def _heads(
        self,
        h: torch.Tensor,
        slots: torch.Tensor | None,
        occupied: torch.Tensor | None,
        intervention: Intervention,
        rng: torch.Generator | None,
        permutation: torch.Tensor | None,
    ) -> AgentOutput:
        c = self.config
        bcast = (
            broadcast(slots, occupied) if c.workspace else h.new_zeros(*h.shape[:-1], c.slot_dim)
        )
        reads = [h, self._readout_features(slots)] if c.workspace else [h]
        z = None
        if c.policy_reads == "workspace_and_self_model":  # z_self first: the policy reads it
            z = self._self_model(h, bcast, None, intervention, rng, permutation)
            reads.append(z)
        hidden = self.policy[:-1](torch.cat(reads, dim=-1))
        proposal = self.policy[-1](hidden)
        out = AgentOutput(
            logits=proposal,
            h=h,
            proposal_logits=proposal,
            slots=slots,
            occupied=occupied,
            broadcast=bcast if c.workspace else None,
            stimulus_logit=self.stimulus_probe(slots.flatten(-2)).squeeze(-1)
            if c.workspace
            else None,
        )
        if c.self_model:
            if z is None:
                z = self._self_model(h, bcast, proposal, intervention, rng, permutation)
            out.z_self = z
            centre = self.confidence_centre if c.confidence_centred else None
            features = [z if centre is None else z - centre]
            if "policy" in c.confidence_reads:
                features.append(
                    torch.zeros_like(hidden) if intervention.policy_route_off else hidden
                )
            out.confidence_input = torch.cat(features, dim=-1)
            out.confidence = torch.sigmoid(self.confidence_head(out.confidence_input)).squeeze(-1)
            if c.policy_reads == "self_model":
                out.logits = self.self_policy(z)
        return out

    def _self_model(
        self,
        h: torch.Tensor,
        bcast: torch.Tensor,
        logits: torch.Tensor | None,
        intervention: Intervention,
        rng: torch.Generator | None,
        permutation: torch.Tensor | None,
    ) -> torch.Tensor:
        """z_self from what it reads (``config.self_model_inputs``), after the intervention."""
        z = torch.tanh(
            self.self_model(torch.cat(self_model_parts(self.config, h, bcast, logits), dim=-1))
        )
        return perturb_self_model(z, intervention, rng, permutation)

    def readout_input(self, out: AgentOutput) -> torch.Tensor:
        """What the policy readout reads in a pass's output ``out``: the carrier, and the
        workspace features if there is a bus (leading dims kept). The critic reads it too."""
        feats = [out.h] if not self.config.workspace else [out.h, self._readout_features(out.slots)]
        return torch.cat(feats, dim=-1)

    def value(self, out: AgentOutput) -> torch.Tensor:
        """The critic's estimate of the return, from the policy readout's input of a pass's
        output ``out`` (leading dims kept); only agents with ``AgentConfig.value_head``."""
        if not self.config.value_head:
            raise ValueError(f"{self.config.kind} has no value head (AgentConfig.value_head)")
        return self.value_head(self.readout_input(out)).squeeze(-1)

    def readout(
        self,
        h: torch.Tensor,
        slots: torch.Tensor | None = None,
        occupied: torch.Tensor | None = None,
        intervention: Intervention | None = None,
    ) -> AgentOutput:
        """Re-run the readouts (policy, self-model, confidence) on given internal states.

        For audits that swap or differentiate internal states, e.g. the bus audit's trunk
        isolation (another episode's carrier with this episode's workspace).
        """
        iv = intervention or Intervention()
        if self.config.workspace and (slots is None or occupied is None):
            raise ValueError("this agent has a workspace: pass slots and occupied")
        return self._heads(h, slots, occupied, iv, None, None)

    # ----------------------------------------------------------------- sequence path
    def forward_sequence(
        self,
        obs: Observation,
        intervention: Intervention | None = None,
        *,
        workspace_noise_sd: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> AgentOutput:
        """Teacher-forced episodes ``(B, T)`` in one pass (the seed-batched pass with N = 1).

        Supports the interventions that do not feed back through the carrier: capacity,
        self-model lesions and workspace noise (``workspace_noise_sd``, shape ``(B,)``,
        overrides the intervention's SD per episode). Carrier noise and pulses need :meth:`step`.
        """
        iv = intervention or Intervention()
        if iv.carrier_noise > 0 or iv.pulse_step is not None:
            raise ValueError("carrier noise and pulses feed back through time: use Agent.step")
        c = self.config
        rng = generator
        sd = workspace_noise_sd if workspace_noise_sd is not None else iv.workspace_noise
        noisy = c.workspace and (torch.is_tensor(sd) or sd > 0)
        lesioned = (
            iv.self_model_mode != "on" or iv.self_model_silenced > 0 or iv.self_model_noise > 0
        )
        if rng is None and (noisy or lesioned):
            rng = torch.Generator().manual_seed(iv.seed)
        noise = lesion = dropout = None
        if noisy:

            def noise(source: torch.Tensor) -> torch.Tensor:
                return sequence_workspace_noise(source[0], iv, sd, c.slot_dim, rng)[None]

        if lesioned:

            def lesion(z: torch.Tensor) -> torch.Tensor:
                # Drawn after the workspace noise, as on the step path.
                perm = (
                    torch.randperm(z.shape[1], generator=rng)
                    if iv.self_model_mode == "permute"
                    else None
                )
                return perturb_self_model(z[0], iv, rng, perm)[None]

        inputs = observation_inputs(obs)
        if self.training and c.dropout > 0:
            keep = 1.0 - c.dropout
            dropout = torch.empty(*inputs.shape, c.readout_hidden).bernoulli_(keep) / keep
        params = {k: v.unsqueeze(0) for k, v in self.state_dict(keep_vars=True).items()}
        out = sequence_forward(
            params,
            c,
            inputs,
            active_slots=iv.active_slots(c.n_slots),
            workspace_noise=noise,
            dropout=dropout,
            self_model_lesion=lesion,
            policy_route_off=iv.policy_route_off,
        )
        return AgentOutput(**{k: None if v is None else v[0] for k, v in vars(out).items()})

    # ----------------------------------------------------------------- step path
    def initial_state(
        self,
        batch: int,
        intervention: Intervention | None = None,
        rng: torch.Generator | None = None,
    ) -> AgentState:
        """Zero recurrent state of ``batch`` episodes (and, for a "permute" self-model lesion, the
        episode shuffle drawn from ``rng``)."""
        c = self.config
        iv = intervention or Intervention()
        permutation = (
            torch.randperm(batch, generator=rng) if iv.self_model_mode == "permute" else None
        )
        return AgentState(
            h=torch.zeros(batch, c.hidden_dim),
            slots=torch.zeros(batch, c.n_slots, c.slot_dim),
            occupied=torch.zeros(batch, c.n_slots, dtype=torch.bool),
            n_writes=torch.zeros(batch, dtype=torch.long),
            t=0,
            permutation=permutation,
        )

    def step(
        self,
        obs: Observation,
        state: AgentState,
        intervention: Intervention | None = None,
        rng: torch.Generator | None = None,
    ) -> tuple[AgentOutput, AgentState]:
        """Advance ``B`` episodes by one step. Random draws come from ``rng`` in a fixed order
        (carrier noise, workspace noise, pulse, self-model noise) so a seed fixes a rollout."""
        iv = intervention or Intervention()
        c = self.config
        embedded = self._embed(obs)
        if c.closed_loop:
            previous = (
                state.read
                if state.read is not None
                else embedded.new_zeros(embedded.shape[0], c.slot_dim)
            )
            embedded = embedded + self.feedback(previous)
        if c.recurrent:
            h = self.gru(embedded[:, None], state.h[None])[0][:, 0]
        else:
            h = self.carrier(embedded)
        h, h_read = perturb_carrier(h, iv, rng)
        slots = occupied = read = choice = None
        n_writes = state.n_writes
        if c.workspace:
            active = iv.active_slots(c.n_slots)
            event = obs.cue[:, EVENT_INDEX] > 0
            if c.write_rule == "learned":
                slots, occupied, choice = gated_write_step(
                    state.slots,
                    state.occupied,
                    self._write_vector(obs.cue, h),
                    self.write_gate(torch.cat([obs.cue, h], dim=-1)),
                    event,
                    active,
                )
                n_writes = n_writes + event.long()
            else:
                slots, occupied, n_writes = write_step(
                    state.slots,
                    state.occupied,
                    state.n_writes,
                    self._write_vector(obs.cue, h),
                    event,
                    active,
                )
            slots, read = perturb_workspace(slots, occupied, active, iv, rng)
            slots, read = pulse_workspace(state.t, slots, read, occupied, active, iv, rng)
        else:
            h, h_read = pulse_carrier(state.t, h, h_read, iv, rng)
        out = self._heads(h_read, read, occupied, iv, rng, state.permutation)
        out.write_slot = choice
        new_state = AgentState(
            h=h,
            slots=slots if slots is not None else state.slots,
            occupied=occupied if occupied is not None else state.occupied,
            n_writes=n_writes,
            t=state.t + 1,
            permutation=state.permutation,
            read=out.broadcast if c.closed_loop else None,
        )
        return out, new_state
