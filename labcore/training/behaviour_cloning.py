"""Behaviour cloning from the oracle (paper sec. 4.3; protocol sec. 5.3), in one file.

Read it top to bottom: the hyperparameters, the losses, the held-out evaluation, then
:func:`train_seeds` (seeding in one block, the data, the schedule, the record) and its two
schedules:

- **fast** (default): batched BPTT over whole episodes sampled from a pool of oracle
  demonstrations, each seed stopped early when its held-out loss stops improving;
- **paper**: online, one episode at a time and one optimizer update per environment step.

A seed below 95% held-out agreement is flagged and excluded, as in the paper, unless its wiring
makes the criterion unattainable (cue-blind agents). N seeds of one kind train as one
seed-batched model, bit for bit as each alone; the machinery is in its own corner,
:mod:`labcore.training.seed_batching`, and the wager's reward (E4) in
:mod:`labcore.training.wager_reward`.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium
import minigrid
import numpy as np
import torch
from torch import nn

import labcore
import labcore.envs as E
from labcore import compute
from labcore.agents import Agent, agent_config, build_agent
from labcore.agents.sequence import (
    AgentOutput,
    masked_centre,
    sequence_forward,
    sequence_heads,
    sequence_states,
)
from labcore.checks import check_choice
from labcore.config import AgentConfig, TrainConfig, train_config_of
from labcore.envs.batch import StepKind, report_mask
from labcore.seeding import episode_seeds, seed_everything
from labcore.training.seed_batching import (
    ROW_MULTIPLE,
    Member,
    MemberDemos,
    MemberParameters,
    StackedAdam,
    batch_rows,
    capacities,
    dropout_mask,
    last_step_rows,
    leave,
    member_demonstrations,
    noise_fn,
    noise_sds,
    read_snapshot,
    snapshot_identity,
    write_snapshot,
)
from labcore.training.wager_reward import (
    WAGER_HEAD,
    WagerLog,
    reward_meta_loss,
    wager_choice_mask,
    warm_start,
)

# ======================================================================= 1. hyperparameters
# Every hyperparameter is a documented field of the frozen dataclass labcore.config.TrainConfig
# (learning rate, minibatch, budgets, the early-stop rule, the loss weights, E4's wager options);
# a kind's own training signal (E4's arms) is applied by labcore.config.train_config_of.

TASK_IDS = {"dual": E.DUAL_TASK, "wagering": E.WAGERING, "post_decision": E.POST_DECISION_WAGER}
"""Training task of each name; E2 and E3 agents are trained on the dual task, E1 agents on
wagering, E1's measured variant on the post-decision wager (protocol 11.2)."""
HELDOUT_CHUNK = 128
"""Held-out episodes evaluated per pass (bounds memory for large seed batches)."""
CENTRE_MOMENTUM = 0.05
"""Weight of each wager update's batch centre in the running centre of a centred confidence head
(protocol 8.8.2); the running centre starts at the first batch centre."""
SNAPSHOT_EVERY = 200
"""Paper schedule: episodes between resume snapshots (about a minute and a half of E3 training)."""

ProgressFn = Callable[[int, int, dict[str, float]], None]
"""``progress(done, total, metrics)``: updates (fast) or episodes (paper) done of the budget;
``metrics`` has ``members_done``/``members``, the live members' mean held-out agreement and
loss, in fast mode ``earliest_stop`` (the first update at which the stopping rule could end the
run: a progress bar's end), for E4's reward-trained kinds their mean ``heldout_auroc``,
``heldout_confidence``, ``heldout_wager_reward`` (None where undefined)."""


# ======================================================================= 2. the losses
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
    out: AgentOutput,
    batch: MemberDemos,
    cfg: TrainConfig,
    step_mask: torch.Tensor | None = None,
    normaliser: torch.Tensor | None = None,
    generators: Sequence[torch.Generator] | None = None,
    meta_scale: torch.Tensor | None = None,
) -> Losses:
    """Imitation, metacognition, stimulus-probe and z_self activity losses, per member.

    The imitation loss is the oracle action's weighted cross-entropy, normalised by the summed
    weights of the scored steps, or by ``normaliser`` ``(N,)`` (the paper schedule scores one
    step, divided by its episode's mean weight, so the weights reach the gradient).
    ``step_mask`` restricts every term to some steps. With ``cfg.meta_signal == "reward"`` the
    meta loss is the wager's policy gradient on bets drawn from ``generators`` (none: held out);
    ``meta_scale`` ``(N,)`` multiplies each member's meta loss (0 before its wager phase).
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
    if c.self_model and cfg.meta_weight > 0:
        meta = _meta_loss(out, batch, valid, cfg, generators, parts)
        total = total + cfg.meta_weight * (meta if meta_scale is None else meta * meta_scale)
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


def _meta_loss(
    out: AgentOutput,
    batch: MemberDemos,
    valid: torch.Tensor,
    cfg: TrainConfig,
    generators: Sequence[torch.Generator] | None,
    parts: dict[str, torch.Tensor],
) -> torch.Tensor:
    """What teaches the confidence, per member ``(N,)`` (``parts`` gets the wager's reward)."""
    if cfg.meta_signal == "reward":
        # E4: no correctness label; the confidence learns from the reward of the bets it samples.
        meta, parts["wager_reward"] = reward_meta_loss(out, batch, valid, cfg, generators)
        return meta
    if batch.decision_correct is not None:
        # The post-decision wager (protocol 11.3): at the wager step, after the second flash, is
        # the decision taken right?
        correct = batch.decision_correct[:, :, None].expand_as(out.confidence)
        scored = valid & (batch.step_kind == StepKind.WAGER)
    else:
        # Target: is the agent's own argmax decision correct? (paper sec. 4.3.2)
        correct = (out.logits.argmax(-1) == batch.action).float().detach()
        scored = report_mask(batch.step_kind, valid)
    bce = nn.functional.binary_cross_entropy(out.confidence, correct, reduction="none")
    return _masked_mean(bce, scored)


def _forward(
    config: AgentConfig,
    params: MemberParameters,
    batch: MemberDemos,
    generators: Sequence[torch.Generator] | None = None,
    sds: list[torch.Tensor] | None = None,
    centre_mask: torch.Tensor | None = None,
) -> AgentOutput:
    """The training pass of every member; with ``generators``, dropout, the load and noise are
    drawn per member; a centred confidence head takes its centre over ``centre_mask`` (else the
    stored one)."""
    noise = dropout = active = None
    if generators is not None:
        dropout = dropout_mask(config, batch.inputs.shape[1:], generators)
        active = capacities(config, batch.inputs.shape[1], generators)
        noise = noise_fn(config, sds, generators)  # its draws happen inside the pass, last
    return sequence_forward(
        params.tensors(),
        config,
        batch.inputs,
        active_slots=active,
        workspace_noise=noise,
        dropout=dropout,
        centre_mask=centre_mask,
    )


# ======================================================================= 3. evaluation
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
        chunk = data.select(episodes=slice(start, start + HELDOUT_CHUNK)).whole_vectors()
        out = _forward(config, params, chunk)
        weight = step_weights(chunk.step_kind, chunk.valid, cfg).flatten(1).sum(1).double()
        losses = compute_losses(config, out, chunk, cfg)
        if wagers is not None:
            wagers.add(out, chunk)
        # chunks weighted like the imitation loss
        sums["imitation"] += losses.parts["imitation"].double() * weight
        sums["total"] += losses.parts["total"].double() * weight
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


# ======================================================================= 4. training
@dataclass
class TrainedAgent:
    """A trained agent and the record of how it was made (written beside its checkpoint)."""

    agent: Agent
    record: dict


def train_seeds(
    task: str,
    kind: str | AgentConfig,
    seeds: Sequence[int],
    cfg: TrainConfig | None = None,
    progress: ProgressFn | None = None,
    resume: Path | str | None = None,
) -> list[TrainedAgent]:
    """Train one agent per seed, all seeds at once as one seed-batched model.

    Parameters
    ----------
    task : {"dual", "wagering", "post_decision"}
    kind : a preset name in ``AGENT_KINDS`` or an :class:`AgentConfig`
    seeds : agent seeds (weights, minibatches and their own disjoint episode seeds), distinct
    cfg : training settings (fast mode by default)
    progress : called as ``progress(done, total, metrics)`` (:data:`ProgressFn`)
    resume : paper schedule only: a snapshot file, written every :data:`SNAPSHOT_EVERY` episodes;
        a run started with the snapshot of the same batch continues from it, bit for bit (the
        snapshot of another batch is ignored; the caller deletes it)

    Returns
    -------
    One :class:`TrainedAgent` per seed, in the order given.
    """
    check_choice(task, "task", sorted(TASK_IDS))
    config = agent_config(kind)
    cfg = train_config_of(config.kind, cfg or TrainConfig(), task)  # a kind's own signal (E4)
    seeds = [int(s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct and at least one")
    start = time.perf_counter()
    task_id = TASK_IDS[task]

    # -- seeding: everything random below comes from the members' seeds
    torch.set_num_threads(cfg.threads)
    rows = batch_rows(seeds)  # a lone seed trains beside its shadow
    train, heldout = member_demonstrations(
        task_id,
        [
            np.stack([episode_seeds(s, "train", cfg.train_episodes) for s in rows]),
            np.stack([episode_seeds(s, "heldout", cfg.heldout_episodes) for s in rows]),
        ],
    )
    agents = []
    for s in rows:
        seed_everything(s)  # each member's initialisation is what it gets when trained alone
        agents.append(build_agent(config, s))
        if cfg.meta_signal == "reward" and cfg.wager_start == "warm":  # protocol 8.8.2
            warm_start(agents[-1], task, cfg.warm_start_kind, s)
    # minibatches, dropout, noise and bets: each member's own generator
    members = [
        Member(s, torch.Generator().manual_seed(s), row=k, shadow=k >= len(seeds))
        for k, s in enumerate(rows)
    ]
    # --

    params = MemberParameters(agents)
    if cfg.mode == "fast":
        _train_fast(config, params, members, train, heldout, cfg, progress)
    else:
        _train_paper(config, params, members, train, heldout, cfg, progress, resume)
    for agent, member in zip(agents, members, strict=False):  # a lone seed's shadow: its copy
        agent.load_state_dict(member.final if member.final is not None else members[0].final)
    finals = heldout_metrics(config, MemberParameters(agents), heldout, cfg)
    wall = round(time.perf_counter() - start, 3)
    out = []
    for member, agent, final in zip(members[: len(seeds)], agents, finals, strict=False):
        agent.eval()
        out.append(TrainedAgent(agent, _record(task, config, cfg, member, final, seeds, wall)))
    return out


# ======================================================================= 5. the fast schedule
def _train_fast(
    config: AgentConfig,
    params: MemberParameters,
    members: list[Member],
    train: MemberDemos,
    heldout: MemberDemos,
    cfg: TrainConfig,
    progress: ProgressFn | None,
) -> None:
    """Batched BPTT per member until its held-out loss stops improving (protocol sec. 5.3).

    Every ``eval_every`` updates each member is judged by the early stop (:func:`_stops`); one
    that stops leaves the batch with the weights it keeps. With a wager phase (protocol 8.8.2)
    the wager loss is off until a member has converged ("converged"; from update 1 if "warm"),
    then it trains ``cfg.wager_updates`` more updates and keeps its final weights.
    """
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    phased = cfg.meta_signal == "reward" and cfg.wager_start != "joint"
    total = cfg.update_budget
    for member in members:
        member.wager_from = None if cfg.wager_start == "converged" else 1
    live = list(range(len(members)))  # row r of params trains members[live[r]]
    for update in range(1, total + 1):
        team = [members[i] for i in live]
        losses = _fast_update(config, params, opt, team, train, cfg, phased, update)

        # -- held-out evaluation: on schedule, at the end of a wager phase, on the wager curve
        ending = [phased and m.wager_done >= cfg.wager_updates for m in team]
        scheduled = [update % cfg.eval_every == 0 or update == total or end for end in ending]
        every = cfg.curve_every  # the wager-phase learning curve's points
        curve = [
            bool(every) and m.wager_from is not None and m.wager_done % every == 0 for m in team
        ]
        if not any(scheduled) and not any(curve):
            continue
        metrics = heldout_metrics(
            config, params, heldout.select(members=[m.row for m in team]), cfg
        )
        leaving = []
        for row, (member, values) in enumerate(zip(team, metrics, strict=True)):
            if member.shadow:
                continue
            _log_evaluation(member, values, update, losses, row, scheduled[row], curve[row])
            if scheduled[row] and _stops(member, values, update, params, row, cfg, ending[row]):
                member.done = True
                leaving.append(row)
        if any(scheduled):
            stop = _earliest_stop(members, update, cfg, phased)
            _report(progress, update, total, members, metrics, stop)

        # -- the members that stopped leave the batch
        if leaving:
            live = leave(params, opt, members, live, leaving)
            if not live:
                break


def _fast_update(
    config: AgentConfig,
    params: MemberParameters,
    opt: StackedAdam,
    team: list[Member],
    train: MemberDemos,
    cfg: TrainConfig,
    phased: bool,
    update: int,
) -> Losses:
    """One update of the members in ``team``: each draws its minibatch, then the pass, the losses,
    the gradient and the optimizer step."""
    gens = [m.generator for m in team]
    episodes = torch.stack(
        [torch.randint(train.n_episodes, (cfg.batch_episodes,), generator=g) for g in gens]
    )
    batch = train.select(members=[m.row for m in team], episodes=episodes)
    wagering = [m.wager_from is not None for m in team]
    centred = config.confidence_centred
    centre_mask = wager_choice_mask(batch.step_kind, batch.valid) if centred else None
    sds = noise_sds(config, cfg.batch_episodes, gens)
    out = _forward(config, params, batch, gens, sds, centre_mask)
    scale = torch.tensor(wagering, dtype=torch.float32) if phased else None
    losses = compute_losses(config, out, batch, cfg, generators=gens, meta_scale=scale)
    (grad,) = torch.autograd.grad(losses.total.sum(), params.flat)
    _optimizer_step(opt, params, grad, cfg)
    for member, on in zip(team, wagering, strict=True):
        member.updates = update
        member.wager_done += on
    if centre_mask is not None:
        _update_centres(params, masked_centre(out.z_self, centre_mask).detach(), team)
    return losses


def _optimizer_step(
    opt: StackedAdam, params: MemberParameters, grad: torch.Tensor, cfg: TrainConfig
) -> None:
    """One update: Adam on every weight, or (``wager_optimizer="sgd"``) Adam on every weight but
    the wager head (:data:`~labcore.training.wager_reward.WAGER_HEAD`) and plain SGD on it. A head
    weight whose gradient Adam always sees as 0 keeps zero moments, so Adam leaves it exactly as
    it is."""
    if cfg.wager_optimizer == "adam":
        opt.step(params.flat, grad)
        return
    head = params.element_mask(WAGER_HEAD)
    opt.step(params.flat, grad.masked_fill(head, 0.0))
    with torch.no_grad():
        params.flat[head] -= cfg.wager_sgd_lr * grad[head]


def _update_centres(
    params: MemberParameters, batch_centre: torch.Tensor, team: Sequence[Member]
) -> None:
    """Move each wagering member's stored confidence centre toward this update's batch centre (in
    place; protocol 8.8.2)."""
    stored = params.buffers["confidence_centre"]
    for row, member in enumerate(team):
        if member.wager_from is None:
            continue
        if member.wager_done == 1:
            stored[row] = batch_centre[row]
        else:
            stored[row] += CENTRE_MOMENTUM * (batch_centre[row] - stored[row])


def _log_evaluation(
    member: Member,
    values: dict[str, float],
    update: int,
    losses: Losses,
    row: int,
    scheduled: bool,
    curve: bool,
) -> None:
    """Append a held-out evaluation to the member's wager curve and/or history."""
    heldout_values = {k: v for k, v in values.items() if k.startswith("heldout_")}
    if curve:
        member.curve.append(
            {
                "update": update,
                "wager_update": member.wager_done,
                "agreement": values["agreement"],
                **heldout_values,
            }
        )
    if scheduled:
        member.history.append(
            {
                "update": update,
                "train_loss": float(losses.parts["total"][row]),
                "heldout_loss": values["loss"],
                "agreement": values["agreement"],
                **heldout_values,
            }
        )


def _stops(
    member: Member,
    values: dict[str, float],
    update: int,
    params: MemberParameters,
    row: int,
    cfg: TrainConfig,
    ending: bool,
) -> bool:
    """The early stop: does the member leave the batch after this evaluation (its ``final``
    weights then set)? It stops once neither held-out imitation loss nor agreement has improved
    for ``patience`` evaluations, keeping its lowest-loss weights (the imitation loss: the meta
    loss is trivially low while the policy is wrong); with a wager phase, converging starts it.
    """
    phased = cfg.meta_signal == "reward" and cfg.wager_start != "joint"
    if phased and member.wager_from is not None:  # in its wager phase
        if ending:
            member.final = params.member_state(row)
        return ending
    improved = (
        values["loss"] < member.best_loss - cfg.loss_tolerance
        or values["agreement"] > member.best_agreement + cfg.agreement_tolerance
    )
    member.stale = 0 if improved else member.stale + 1
    member.best_agreement = max(member.best_agreement, values["agreement"])
    if values["loss"] < member.best_loss:
        member.best_loss, member.best_update = values["loss"], update
        member.best_row = params.member_state(row)
    patience_out = update >= cfg.min_updates and member.stale >= cfg.patience
    if not (patience_out or update == cfg.max_updates):
        return False
    if phased:  # converged: the wager phase starts with the next update
        member.wager_from = update + 1
        return False
    member.final = member.best_row if member.best_row is not None else params.member_state(row)
    return True


def _earliest_stop(members: list[Member], update: int, cfg: TrainConfig, phased: bool) -> int:
    """First update at which every member still training could stop (its patience out, then its
    wager phase): a progress bar's end."""
    return max(
        [
            update + cfg.wager_updates - m.wager_done
            if phased and m.wager_from is not None
            else min(
                cfg.max_updates,
                max(cfg.min_updates, update + (cfg.patience - m.stale) * cfg.eval_every),
            )
            + cfg.wager_updates * phased
            for m in members
            if not m.shadow and not m.done
        ],
        default=update,
    )


# ======================================================================= 6. the paper's schedule
def _train_paper(
    config: AgentConfig,
    params: MemberParameters,
    members: list[Member],
    train: MemberDemos,
    heldout: MemberDemos,
    cfg: TrainConfig,
    progress: ProgressFn | None,
    resume: Path | str | None = None,
) -> None:
    """Online: one episode at a time, one update per environment step (paper sec. 4.3.1); the
    final weights are kept (no early stop), ``best_update`` records the lowest held-out loss."""
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    total = train.n_episodes
    eval_every = cfg.history_every or max(1, total // 8)
    identity = snapshot_identity(config, members, cfg)
    first = read_snapshot(Path(resume), identity, params, opt, members) if resume else 0
    for episode in range(first, total):
        _paper_episode(config, params, opt, members, train, episode, cfg)
        done = episode + 1
        if done % eval_every == 0 or done == total:
            metrics = heldout_metrics(config, params, heldout, cfg)
            for member, values in zip(members, metrics, strict=True):
                member.history.append(
                    {
                        "episode": done,
                        "update": member.updates,
                        "heldout_loss": values["loss"],
                        "agreement": values["agreement"],
                        "report_agreement": values["report_agreement"],
                    }
                )
                if values["loss"] < member.best_loss:
                    member.best_loss, member.best_update = values["loss"], member.updates
                member.done = done == total
            _report(progress, done, total, members, metrics)
        if resume and done % SNAPSHOT_EVERY == 0 and done < total:
            write_snapshot(Path(resume), identity, done, params, opt, members)
    for row, member in enumerate(members):
        member.final = params.member_state(row)


def _paper_episode(
    config: AgentConfig,
    params: MemberParameters,
    opt: StackedAdam,
    members: list[Member],
    train: MemberDemos,
    episode: int,
    cfg: TrainConfig,
) -> None:
    """One episode of every member, one update per step: each update recomputes the episode
    prefix with the current weights (the exact gradient through the episode so far), its loss
    divided by the episode's mean weight; a member whose step scores nothing makes no update."""

    gens = [m.generator for m in members]
    ep = train.select(episodes=slice(episode, episode + 1))
    full = step_weights(ep.step_kind, ep.valid, cfg)
    normaliser = full.flatten(1).sum(1) / (full > 0).flatten(1).sum(1).clamp(min=1)
    sds = noise_sds(config, 1, gens)  # one noise level per episode
    for t in range(ep.valid.shape[2]):
        active = full[:, 0, t] > 0
        if not active.any():
            continue
        prefix = ep.select(steps=slice(0, t + 1))
        prefix.inputs = prefix.inputs.own_rows()
        # Only step t is scored: the readouts run on it alone, in ROW_MULTIPLE rows (the step
        # and masked copies of it), so a member's arithmetic does not depend on N.
        h, slots, occupied, _ = sequence_states(
            params.tensors(), config, prefix.inputs, workspace_noise=noise_fn(config, sds, gens)
        )
        out = sequence_heads(
            params.tensors(),
            config,
            *(last_step_rows(x) for x in (h, slots, occupied)),
            dropout=dropout_mask(config, (ROW_MULTIPLE, 1), gens),
        )
        at_t = ep.select(steps=slice(t, t + 1)).padded(ROW_MULTIPLE)
        losses = compute_losses(config, out, at_t, cfg, None, normaliser)
        (grad,) = torch.autograd.grad((losses.total * active).sum(), params.flat)
        opt.step(params.flat, grad, active)
        for i in np.flatnonzero(active.numpy()):
            members[i].updates += 1


# ======================================================================= 7. records and progress
def library_versions() -> dict[str, str]:
    """Versions of the libraries a training record was made with."""
    return {
        "labcore": labcore.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "gymnasium": gymnasium.__version__,
        "minigrid": minigrid.__version__,
        "python": platform.python_version(),
    }


def _record(
    task: str,
    config: AgentConfig,
    cfg: TrainConfig,
    member: Member,
    final: dict[str, float],
    seeds: list[int],
    wall: float,
) -> dict:
    """The training record of one member (written beside its checkpoint)."""
    attainable = config.cue_route != "none"
    rewarded = config.self_model and cfg.meta_signal == "reward"
    return {
        "task": task,
        "task_id": TASK_IDS[task],
        "kind": config.kind,
        "seed": member.seed,
        "mode": cfg.mode,
        "meta_signal": cfg.meta_signal if config.self_model else None,
        "wrong_bet_payoff": cfg.wrong_bet_payoff if rewarded else None,
        "config": asdict(config),
        "train_config": asdict(cfg),
        "heldout_agreement": final["agreement"],
        "heldout_report_agreement": final["report_agreement"],
        "heldout_loss": final["loss"],
        "criterion_attainable": attainable,
        "meets_criterion": final["agreement"] >= cfg.agreement_threshold,
        "excluded": attainable and final["agreement"] < cfg.agreement_threshold,
        "updates": member.updates,
        "final_update": member.updates,
        "best_update": member.best_update,
        "episodes_seen": member.updates * cfg.batch_episodes
        if cfg.mode == "fast"
        else cfg.train_episodes,
        "batch_seeds": seeds,
        "wall_seconds": wall,
        "history": member.history,
        **(
            {"wager_start_update": member.wager_from, "wager_curve": member.curve}
            if rewarded
            else {}
        ),
        "versions": library_versions(),
        "compute": compute.fingerprint(cfg.threads),
    }


def _report(
    progress: ProgressFn | None,
    done: int,
    total: int,
    members: list[Member],
    metrics: list[dict[str, float]],
    earliest_stop: int | None = None,
) -> None:
    """Call ``progress`` with the batch's state (:data:`ProgressFn`)."""
    if progress is None:
        return
    real = [m for m in members if not m.shadow]
    # E4's learning-curve values (heldout_auroc, heldout_wager_reward, ...), for a live curve
    wager = {
        k: [m[k] for m in metrics if m.get(k) is not None]
        for k in metrics[0]
        if k.startswith("heldout_")
    }
    progress(
        done,
        total,
        {
            "members_done": float(sum(m.done for m in real)),
            "members": float(len(real)),
            "agreement": float(np.mean([m["agreement"] for m in metrics])),
            "loss": float(np.mean([m["loss"] for m in metrics])),
            **({"earliest_stop": float(earliest_stop)} if earliest_stop is not None else {}),
            **{k: float(np.mean(v)) if v else None for k, v in wager.items()},
        },
    )
