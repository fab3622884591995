"""Behaviour cloning's losses, its training pass with each member's own draws, held-out agreement.

Every term is computed per member (leading dim N) so a member's numbers never depend on its
batch-mates; dropout masks and workspace noise come from each member's own generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from labcore.agents.sequence import SequenceOutput, sequence_forward
from labcore.config import AgentConfig, Intervention, TrainConfig
from labcore.envs.batch import StepKind, report_mask
from labcore.interventions import sequence_workspace_noise
from labcore.training.demonstrations import ROW_MULTIPLE, MemberDemos
from labcore.training.member_parameters import MemberParameters
from labcore.training.wager_reward import WagerLog, reward_meta_loss

HELDOUT_CHUNK = 128
"""Held-out episodes evaluated per pass (bounds memory for large seed batches)."""


# ----------------------------------------------------------------------- losses
def step_weights(step_kind: torch.Tensor, valid: torch.Tensor, cfg: TrainConfig) -> torch.Tensor:
    """Per-step weight of the imitation loss (paper sec. 4.3.2).

    Ordinary steps 1; report steps ``report_weight`` (3); the primary-cue report
    ``report_weight x primary_class_weight`` (60) under ``primary_weight_rule="stacked"``, or
    ``primary_class_weight`` alone (20) under ``"class"`` (protocol sec. 7.7); wager steps 0 (the
    wager is the confidence head's job, and the oracle, always right, would only teach "always
    bet"); padding 0.
    """
    primary = cfg.primary_class_weight * (
        cfg.report_weight if cfg.primary_weight_rule == "stacked" else 1.0
    )
    w = torch.ones(step_kind.shape)
    w[step_kind == StepKind.REPORT_1] = cfg.report_weight
    w[step_kind == StepKind.REPORT_2] = primary
    w[step_kind == StepKind.WAGER] = 0.0
    return w * valid.float()


@dataclass
class Losses:
    """Each member's total loss ``(N,)`` (to differentiate) and its parts ``(N,)`` (detached)."""

    total: torch.Tensor
    parts: dict[str, torch.Tensor] = field(default_factory=dict)


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-member mean of ``values`` over ``mask`` (leading dim N); 0 where a member has none."""
    m = mask.float()
    return (values * m).flatten(1).sum(1) / m.flatten(1).sum(1).clamp(min=1.0)


def compute_losses(
    config: AgentConfig,
    out: SequenceOutput,
    batch: MemberDemos,
    cfg: TrainConfig,
    step_mask: torch.Tensor | None = None,
    normaliser: torch.Tensor | None = None,
    generators: Sequence[torch.Generator] | None = None,
    meta_scale: torch.Tensor | None = None,
) -> Losses:
    """Imitation, metacognition, stimulus-probe and z_self activity losses, per member.

    The imitation loss is the weighted cross-entropy of the oracle action (KL with a one-hot
    oracle). By default it is normalised by the summed weights of the scored steps (fast
    mode: a weighted mean, so the x3 and x20 weights set the *relative* importance of steps).
    ``step_mask`` restricts every term to some steps and ``normaliser`` ``(N,)`` replaces the
    normalisation (the paper schedule scores one step, divided by its episode's mean weight,
    so the weights reach the gradient; dividing by the step's own weight would cancel them).
    With ``cfg.meta_signal == "reward"`` the meta loss is the wager's policy gradient on bets
    drawn from ``generators`` (one per member; :mod:`labcore.training.wager_reward`; none: held
    out).
    ``meta_scale`` ``(N,)`` multiplies each member's meta loss (0 before its wager phase starts).
    """
    c = config
    valid = batch.valid if step_mask is None else batch.valid & step_mask
    weight = step_weights(batch.step_kind, valid, cfg)
    target = torch.where(batch.valid, batch.action, torch.zeros_like(batch.action))
    norm = weight.flatten(1).sum(1).clamp(min=1e-8) if normaliser is None else normaliser
    n_actions = out.logits.shape[-1]

    def imitation(logits: torch.Tensor) -> torch.Tensor:
        ce = nn.functional.cross_entropy(
            logits.reshape(-1, n_actions), target.reshape(-1), reduction="none"
        )
        return (ce.reshape(weight.shape) * weight).flatten(1).sum(1) / norm

    total = imitation(out.logits)
    parts = {"imitation": total.detach()}
    if c.self_model and c.policy_reads == "self_model":
        # The proposal is the agent's intended action (protocol 5.2): it imitates too.
        proposal = imitation(out.proposal_logits)
        total = total + proposal
        parts["proposal"] = proposal.detach()
    report = report_mask(batch.step_kind, valid)
    if c.self_model and cfg.meta_weight > 0 and cfg.meta_signal == "reward":
        # E4: no correctness label; the confidence learns from the reward of the bets it samples.
        meta, parts["wager_reward"] = reward_meta_loss(out, batch, valid, cfg, generators)
        total = total + cfg.meta_weight * (meta if meta_scale is None else meta * meta_scale)
        parts["meta"] = meta.detach()
    elif c.self_model and cfg.meta_weight > 0 and batch.decision_correct is not None:
        # The post-decision wager (protocol 11.3): at the wager step, after the second flash, is
        # the decision taken right?
        correct = batch.decision_correct[:, :, None].expand_as(out.confidence)
        bce = nn.functional.binary_cross_entropy(out.confidence, correct, reduction="none")
        meta = _masked_mean(bce, valid & (batch.step_kind == StepKind.WAGER))
        total = total + cfg.meta_weight * meta
        parts["meta"] = meta.detach()
    elif c.self_model and cfg.meta_weight > 0:
        # Target: is the agent's own argmax decision correct? (paper sec. 4.3.2)
        correct = (out.logits.argmax(-1) == batch.action).float().detach()
        bce = nn.functional.binary_cross_entropy(out.confidence, correct, reduction="none")
        meta = _masked_mean(bce, report)
        total = total + cfg.meta_weight * meta
        parts["meta"] = meta.detach()
    if c.self_model and cfg.self_model_l2 > 0:
        l2 = _masked_mean(out.z_self.pow(2).mean(-1), valid)
        total = total + cfg.self_model_l2 * l2
        parts["z_self_l2"] = l2.detach()
    if c.workspace and batch.stimulus is not None and cfg.stimulus_probe_weight > 0:
        # E1: a linear probe on the workspace predicts the stimulus at every step once the
        # cue has been written (paper sec. 4.3.2, "Stimulus Auxiliary Loss").
        written = valid & out.occupied.any(-1)
        label = batch.stimulus[:, :, None].expand_as(out.stimulus_logit)
        bce = nn.functional.binary_cross_entropy_with_logits(
            out.stimulus_logit, label, reduction="none"
        )
        probe = _masked_mean(bce, written)
        total = total + cfg.stimulus_probe_weight * probe
        parts["stimulus_probe"] = probe.detach()
    parts["total"] = total.detach()
    return Losses(total, parts)


# ----------------------------------------------------------------------- randomness per member
def _noise_sds(
    config: AgentConfig, episodes: int, generators: Sequence[torch.Generator]
) -> list | None:
    """Per-episode workspace-noise SDs of noise-augmented training, from each member's generator."""
    if config.train_workspace_noise <= 0:
        return None
    return [torch.rand(episodes, generator=g) * config.train_workspace_noise for g in generators]


def _noise_fn(
    config: AgentConfig, sds: list | None, generators: Sequence[torch.Generator]
) -> Callable | None:
    """The workspace-noise callback of :func:`sequence_forward`: each member's draws from its
    generator."""
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


def _dropout_mask(
    config: AgentConfig, shape: tuple[int, int], generators: Sequence[torch.Generator]
):
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


def _capacities(
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


def _forward(
    config: AgentConfig,
    params: MemberParameters,
    batch: MemberDemos,
    generators: Sequence[torch.Generator] | None = None,
    sds: list | None = None,
    centre_mask: torch.Tensor | None = None,
) -> SequenceOutput:
    """The training pass; with ``generators``, dropout, the load and noise are drawn per member;
    a centred confidence head takes its centre over ``centre_mask`` (else the stored one)."""
    noise = dropout = active = None
    if generators is not None:
        dropout = _dropout_mask(config, batch.inputs.shape[1:], generators)
        active = _capacities(config, batch.inputs.shape[1], generators)
        noise = _noise_fn(
            config, sds, generators
        )  # its draws happen inside the pass, after the masks
    return sequence_forward(
        params.tensors(),
        config,
        batch.inputs,
        active_slots=active,
        workspace_noise=noise,
        dropout=dropout,
        centre_mask=centre_mask,
    )


@torch.no_grad()
def heldout_metrics(
    config: AgentConfig, params: MemberParameters, data: MemberDemos, cfg: TrainConfig
) -> list[dict[str, float]]:
    """Teacher-forced held-out agreement with the oracle per member (paper sec. 4.3.3).

    ``loss`` is the weighted imitation loss (the behaviour-cloning objective, used for the
    convergence rule); ``total_loss`` adds the auxiliary terms. ``agreement`` counts every
    valid step the policy answers (wager steps excluded: the confidence head answers those);
    ``report_agreement`` only the report/decision steps.
    """
    n = data.inputs.shape[0]
    wagers = (
        WagerLog(cfg.wrong_bet_payoff)
        if config.self_model and cfg.meta_signal == "reward"
        else None
    )
    sums = {
        k: torch.zeros(n, dtype=torch.float64)
        for k in ("imitation", "total", "weight", "match", "scored", "report_match", "report")
    }
    for start in range(0, data.n_episodes, HELDOUT_CHUNK):
        chunk = data.select(episodes=slice(start, start + HELDOUT_CHUNK))
        chunk = chunk.padded(-(-chunk.n_episodes // ROW_MULTIPLE) * ROW_MULTIPLE)
        out = _forward(config, params, chunk)
        weight = step_weights(chunk.step_kind, chunk.valid, cfg).flatten(1).sum(1).double()
        losses = compute_losses(config, out, chunk, cfg)
        if wagers is not None:
            wagers.add(out, chunk)
        sums["imitation"] += losses.parts["imitation"].double() * weight
        sums["total"] += (
            losses.parts["total"].double() * weight
        )  # chunks weighted like the imitation loss
        sums["weight"] += weight
        match = out.logits.argmax(-1) == chunk.action
        scored = chunk.valid & (chunk.step_kind != StepKind.WAGER)
        report = report_mask(chunk.step_kind, chunk.valid)
        sums["match"] += (match & scored).flatten(1).sum(1).double()
        sums["scored"] += scored.flatten(1).sum(1).double()
        sums["report_match"] += (match & report).flatten(1).sum(1).double()
        sums["report"] += report.flatten(1).sum(1).double()
    out = []
    for i in range(n):
        w = float(sums["weight"][i])
        out.append(
            {
                "loss": float(sums["imitation"][i]) / w,
                "total_loss": float(sums["total"][i]) / w,
                "agreement": float(sums["match"][i] / sums["scored"][i]),
                "report_agreement": float(
                    sums["report_match"][i] / max(float(sums["report"][i]), 1.0)
                ),
                **(wagers.metrics(i) if wagers is not None else {}),
            }
        )
    return out
