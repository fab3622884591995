"""Behaviour cloning's paper schedule: online, one update per environment step (paper sec. 4.3.1).

A batch on this schedule can be resumed from a snapshot (issue 26): every
:data:`SNAPSHOT_EVERY` episodes its whole training state is written atomically.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from labcore.agents.sequence import sequence_heads, sequence_states
from labcore.training.cloning_losses import (
    _dropout_mask,
    _noise_fn,
    _noise_sds,
    compute_losses,
    heldout_metrics,
    step_weights,
)
from labcore.training.demonstrations import ROW_MULTIPLE
from labcore.training.member_bookkeeping import _report
from labcore.training.member_parameters import (
    StackedAdam,
    read_snapshot,
    snapshot_identity,
    write_snapshot,
)


def _last_step(x: torch.Tensor | None) -> torch.Tensor | None:
    """Step T-1 of ``x`` (N, B=1, T, ...) repeated into ROW_MULTIPLE rows: (N, ROW_MULTIPLE, 1,
    ...)."""
    if x is None:
        return None
    return x[:, :, -1:].repeat(1, ROW_MULTIPLE, *([1] * (x.dim() - 2)))


SNAPSHOT_EVERY = 200
"""Paper schedule: episodes between resume snapshots (about a minute and a half of E3 training)."""


def _train_paper(
    config, params, members, train, heldout, cfg, progress, resume=None
) -> list[dict[str, torch.Tensor]]:
    """Online: one episode at a time, one update per environment step (paper sec. 4.3.1).

    The paper does not say how gradients cross steps; each update recomputes the episode
    prefix with the current weights, so it gets the exact gradient through the episode so far.
    Each step's loss is its weighted loss divided by its episode's mean weight (so the x3 and
    x20 report weights scale the step's gradient, as the paper's loss does). A member whose
    step scores nothing (a wager step, or after its episode ended) makes no update then.
    Training runs the fixed schedule; ``best_update`` records where the held-out loss was
    lowest, and the final weights are kept (the paper uses no early stopping).
    """
    n = len(members)
    opt = StackedAdam(params, cfg.lr, config.weight_decay)
    gens = [m.generator for m in members]
    total = train.n_episodes
    eval_every = cfg.history_every or max(1, total // 8)
    identity = snapshot_identity(config, members, cfg)
    first = read_snapshot(Path(resume), identity, params, opt, members) if resume else 0
    for episode in range(first, total):
        ep = train.select(episodes=slice(episode, episode + 1))
        full = step_weights(ep.step_kind, ep.valid, cfg)
        normaliser = full.flatten(1).sum(1) / (full > 0).flatten(1).sum(1).clamp(min=1)
        sds = _noise_sds(config, 1, gens)  # one noise level per episode
        for t in range(ep.valid.shape[2]):
            active = full[:, 0, t] > 0
            if not active.any():
                continue
            prefix = ep.select(steps=slice(0, t + 1))
            prefix.inputs = prefix.inputs.own_rows()
            # Only step t is scored: the readouts run on it alone, in ROW_MULTIPLE rows (the
            # step and masked copies of it), so a member's arithmetic does not depend on N.
            h, slots, occupied = sequence_states(
                params.tensors(),
                config,
                prefix.inputs,
                workspace_noise=_noise_fn(config, sds, gens),
            )
            at_t = ep.select(steps=slice(t, t + 1)).padded(ROW_MULTIPLE)
            out = sequence_heads(
                params.tensors(),
                config,
                *(_last_step(x) for x in (h, slots, occupied)),
                dropout=_dropout_mask(config, (ROW_MULTIPLE, 1), gens),
            )
            losses = compute_losses(config, out, at_t, cfg, None, normaliser)
            (grad,) = torch.autograd.grad((losses.total * active).sum(), params.flat)
            opt.step(params.flat, grad, active)
            for i in np.flatnonzero(active.numpy()):
                members[i].updates += 1
        if (episode + 1) % eval_every == 0 or episode + 1 == total:
            metrics = heldout_metrics(config, params, heldout, cfg)
            for member, m in zip(members, metrics, strict=True):
                member.history.append(
                    {
                        "episode": episode + 1,
                        "update": member.updates,
                        "heldout_loss": m["loss"],
                        "agreement": m["agreement"],
                        "report_agreement": m["report_agreement"],
                    }
                )
                if m["loss"] < member.best_loss:
                    member.best_loss, member.best_update = m["loss"], member.updates
            if episode + 1 == total:
                for member in members:
                    member.done = True
            _report(progress, episode + 1, total, members, metrics)
        if resume and (episode + 1) % SNAPSHOT_EVERY == 0 and episode + 1 < total:
            write_snapshot(Path(resume), identity, episode + 1, params, opt, members)
    return [params.member_state(i) for i in range(n)]
