"""Behaviour cloning's fast schedule: batched BPTT, each member stopped by its own held-out loss.

Also the wager phase of E4 again (protocol 8.8.2): the running centre of a centred confidence
head and the optimiser step that may train the wager head with plain SGD.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from labcore.agents.sequence import masked_centre
from labcore.config import TrainConfig
from labcore.training.cloning_losses import _forward, _noise_sds, compute_losses, heldout_metrics
from labcore.training.member_bookkeeping import _Member, _report
from labcore.training.member_parameters import MemberParameters, StackedAdam
from labcore.training.wager_reward import WAGER_HEAD, wager_choice_mask


def _earliest_stop(members: list[_Member], update: int, cfg: TrainConfig, phased: bool) -> int:
    """First update at which every member still training could stop (its patience out, then its
    wager phase): a progress bar's end (issue 24)."""
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


def _train_fast(
    config, params, members, train, heldout, cfg, progress
) -> list[dict[str, torch.Tensor]]:
    """Batched BPTT per member until its held-out loss stops improving (protocol sec. 5.3).

    Convergence: a member stops once neither its held-out imitation loss nor its held-out
    agreement has improved by a set margin for ``patience`` evaluations (after
    ``min_updates``); it keeps the weights with its lowest held-out imitation loss (not the
    total loss: while the policy is still wrong, the meta loss is trivially low). A finished
    member leaves the batch; the others go on.

    With a wager phase (``cfg.wager_start`` "converged" or "warm"; protocol 8.8.2) the wager
    loss is off until a member's behaviour cloning has converged (every member from update 1
    when "warm"); the member then trains ``cfg.wager_updates`` more updates with it on (behaviour
    cloning going on) and keeps its final weights. Everything a member does, including when it
    is evaluated, depends on itself only, never on its batch-mates.
    """
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    phased = cfg.meta_signal == "reward" and cfg.wager_start != "joint"
    total = cfg.update_budget
    n_rows = len(members)
    for row, member in enumerate(members):
        member.row = row  # its row of the demonstrations
        member.wager_from = None if cfg.wager_start == "converged" else 1
    live = list(range(n_rows))
    finished: dict[int, dict[str, torch.Tensor]] = {}
    for update in range(1, total + 1):
        gens = [members[i].generator for i in live]
        idx = torch.stack(
            [torch.randint(train.n_episodes, (cfg.batch_episodes,), generator=g) for g in gens]
        )
        batch = train.select(members=[members[i].row for i in live], episodes=idx)
        wagering = [members[i].wager_from is not None for i in live]
        mask = (
            wager_choice_mask(batch.step_kind, batch.valid) if config.confidence_centred else None
        )
        out = _forward(
            config, params, batch, gens, _noise_sds(config, cfg.batch_episodes, gens), mask
        )
        scale = torch.tensor(wagering, dtype=torch.float32) if phased else None
        losses = compute_losses(config, out, batch, cfg, generators=gens, meta_scale=scale)
        (grad,) = torch.autograd.grad(losses.total.sum(), params.flat)
        _optimizer_step(opt, params, grad, cfg)
        for i, on in zip(live, wagering, strict=True):
            members[i].updates = update
            members[i].wager_done += on
        if mask is not None:
            _update_centres(
                params, masked_centre(out.z_self, mask).detach(), [members[i] for i in live]
            )
        ending = [phased and members[i].wager_done >= cfg.wager_updates for i in live]
        scheduled = [update % cfg.eval_every == 0 or update == total or end for end in ending]
        curve = [
            bool(cfg.curve_every) and on and members[i].wager_done % cfg.curve_every == 0
            for i, on in zip(live, wagering, strict=True)
        ]
        if not any(scheduled) and not any(curve):
            continue
        metrics = heldout_metrics(
            config, params, heldout.select(members=[members[i].row for i in live]), cfg
        )
        leaving = []
        for row, (i, m) in enumerate(zip(live, metrics, strict=True)):
            member = members[i]
            if member.shadow:
                continue
            heldout_values = {k: v for k, v in m.items() if k.startswith("heldout_")}
            if curve[row]:
                member.curve.append(
                    {
                        "update": update,
                        "wager_update": member.wager_done,
                        "agreement": m["agreement"],
                        **heldout_values,
                    }
                )
            if not scheduled[row]:
                continue
            member.history.append(
                {
                    "update": update,
                    "train_loss": float(losses.parts["total"][row]),
                    "heldout_loss": m["loss"],
                    "agreement": m["agreement"],
                    **heldout_values,
                }
            )
            if phased and member.wager_from is not None:
                if ending[row]:  # the wager phase is over: its final weights
                    member.done = True
                    finished[i] = params.member_state(row)
                    leaving.append(row)
                continue
            improved = (
                m["loss"] < member.best_loss - cfg.loss_tolerance
                or m["agreement"] > member.best_agreement + cfg.agreement_tolerance
            )
            member.stale = 0 if improved else member.stale + 1
            member.best_agreement = max(member.best_agreement, m["agreement"])
            if m["loss"] < member.best_loss:
                member.best_loss, member.best_update = m["loss"], update
                member.best_row = params.member_state(row)
            if (
                update >= cfg.min_updates and member.stale >= cfg.patience
            ) or update == cfg.max_updates:
                if phased:  # converged: the wager phase starts with the next update
                    member.wager_from = update + 1
                    continue
                member.done = True
                finished[i] = (
                    member.best_row if member.best_row is not None else params.member_state(row)
                )
                leaving.append(row)
        if any(scheduled):
            _report(
                progress,
                update,
                total,
                members,
                metrics,
                _earliest_stop(members, update, cfg, phased),
            )
        if leaving:
            keep = [r for r in range(len(live)) if r not in leaving and not members[live[r]].shadow]
            if not keep:
                break
            if len(keep) == 1:  # the last member keeps a shadow beside it (see train_seeds)
                shadow = members[live[keep[0]]].shadowed()
                shadow.row = members[live[keep[0]]].row
                members.append(shadow)
                live = [live[keep[0]], len(members) - 1]
                keep = keep * 2
            else:
                live = [live[r] for r in keep]
            params.keep(torch.tensor(keep, dtype=torch.long), opt)
    return [finished.get(i, finished[0]) for i in range(n_rows)]


CENTRE_MOMENTUM = 0.05
"""Weight of each wager update's batch centre in the running centre of a centred confidence head
(protocol 8.8.2); the running centre starts at the first batch centre."""


def _update_centres(
    params: MemberParameters, batch_centre: torch.Tensor, live: Sequence[_Member]
) -> None:
    """Move each wagering member's stored centre toward this update's batch centre (in place)."""
    stored = params.buffers["confidence_centre"]
    for row, member in enumerate(live):
        if member.wager_from is None:
            continue
        if member.wager_done == 1:
            stored[row] = batch_centre[row]
        else:
            stored[row] += CENTRE_MOMENTUM * (batch_centre[row] - stored[row])


def _optimizer_step(
    opt: StackedAdam, params: MemberParameters, grad: torch.Tensor, cfg: TrainConfig
) -> None:
    """One update: Adam on every weight, or (``wager_optimizer="sgd"``) Adam on every weight but the
    wager head (:data:`~labcore.training.wager_reward.WAGER_HEAD`) and plain SGD on it. A head
    weight whose
    gradient Adam always sees as 0 keeps zero moments, so Adam leaves it exactly as it is."""
    if cfg.wager_optimizer == "adam":
        opt.step(params.flat, grad)
        return
    head = params.element_mask(WAGER_HEAD)
    opt.step(params.flat, grad.masked_fill(head, 0.0))
    with torch.no_grad():
        params.flat[head] -= cfg.wager_sgd_lr * grad[head]
