"""The wager learned from reward alone: E4 arm (a) and its controls (protocol 8.3).

With ``TrainConfig.meta_signal == "reward"`` the confidence head gets no correctness label: on
every wager trial the agent samples a bet from Bernoulli(its confidence at the choice step),
with its member's own generator, and the bet is paid (+1 correct, ``wrong_bet_payoff`` wrong,
0 for opting out). The loss is REINFORCE with the batch's mean reward as baseline,
``-(r - b) log pi(bet)``; correctness enters only through ``r``, built from booleans, so it
carries no gradient of its own. Held-out evaluation samples no bets: it reports the expected
wager reward, a teacher-forced Type-2 AUROC and the confidence's spread (protocol 8.4, 8.8.4).
"E4 again" (protocol 8.8.2) adds exploration (``bet_floor``, ``bet_entropy_coef``), the wager
head (:data:`WAGER_HEAD`), a centred head's steps (:func:`wager_choice_mask`) and a warm start.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from labcore import LabWarning
from labcore.agents import Agent
from labcore.config import TrainConfig
from labcore.envs.batch import StepKind
from labcore.markers import learning_curve_auroc
from labcore.markers.metacognition import WAGER_THRESHOLD
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
)

CORRECT_BET_PAYOFF = 1.0
"""Reward of a bet on a correct decision (protocol 3.4)."""
OPT_OUT_PAYOFF = 0.0
"""Reward of opting out, whatever the decision (protocol 3.4)."""


def payoff(bet: torch.Tensor, correct: torch.Tensor, wrong_bet_payoff: float) -> torch.Tensor:
    """The wager's reward per trial: bet and correct +1, bet and wrong ``wrong_bet_payoff``, opt-out
    0.

    >>> payoff(torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False]),
    ...        -3.0).tolist()
    [1.0, -3.0, 0.0, 0.0]
    """
    paid = torch.where(
        correct, torch.tensor(CORRECT_BET_PAYOFF), torch.tensor(float(wrong_bet_payoff))
    )
    return torch.where(bet, paid, torch.tensor(OPT_OUT_PAYOFF))


@dataclass
class ChoiceSteps:
    """Each trial's choice step, ``(N, B)`` per field: the confidence there (with its gradient),
    whether the decision was correct, and whether the trial is a wager trial (with a choice
    step)."""

    confidence: torch.Tensor
    correct: torch.Tensor
    wager: torch.Tensor
    decided: torch.Tensor


def choice_steps(
    confidence: torch.Tensor,
    logits: torch.Tensor,
    action: torch.Tensor,
    step_kind: torch.Tensor,
    valid: torch.Tensor,
) -> ChoiceSteps:
    """The choice step of every episode (``StepKind.REPORT_1``; protocol 3.3), from ``(N, B, T)``
    tensors: ``correct`` is the executed policy's argmax against the oracle's action there."""
    choice = valid & (step_kind == StepKind.REPORT_1)
    decided = choice.any(-1)
    index = choice.long().argmax(-1, keepdim=True)  # the first (only) choice step; 0 if none
    conf = confidence.gather(-1, index).squeeze(-1)
    correct = (logits.argmax(-1) == action).gather(-1, index).squeeze(-1)
    wager = decided & (valid & (step_kind == StepKind.WAGER)).any(-1)
    return ChoiceSteps(conf, correct & decided, wager, decided)


def behaviour_probability(confidence: torch.Tensor, floor: float = 0.0) -> torch.Tensor:
    """The probability of a bet in training: ``floor + (1 - 2 floor) confidence`` (protocol 8.8.2).

    >>> [round(p, 4) for p in behaviour_probability(torch.tensor([0.0, 0.5, 0.998]), 0.05).tolist()]
    [0.05, 0.5, 0.9482]
    """
    return confidence if floor == 0 else floor + (1.0 - 2.0 * floor) * confidence


def sample_bets(
    confidence: torch.Tensor, generators: Sequence[torch.Generator], floor: float = 0.0
) -> torch.Tensor:
    """Bets ``(N, B)`` with probability :func:`behaviour_probability`: one uniform draw per trial
    from each member's own generator."""
    draws = torch.stack([torch.rand(confidence.shape[1], generator=g) for g in generators])
    return draws < behaviour_probability(confidence.detach(), floor)


def bet_entropy(p: torch.Tensor) -> torch.Tensor:
    """Entropy (nats) of a bet drawn with probability ``p``, elementwise.

    >>> round(float(bet_entropy(torch.tensor(0.5))), 4), float(bet_entropy(torch.tensor(1.0)))
    (0.6931, 0.0)
    """
    q = 1.0 - p
    return -(p * p.clamp(min=1e-12).log() + q * q.clamp(min=1e-12).log())


def wager_reward_loss(
    confidence: torch.Tensor,
    correct: torch.Tensor,
    wager: torch.Tensor,
    bets: torch.Tensor,
    wrong_bet_payoff: float,
    floor: float = 0.0,
    entropy_coef: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """REINFORCE on the wager, per member: ``(loss (N,), mean reward (N,))``.

    ``loss = mean over wager trials of -(r - b) log pi(bet) - entropy_coef H(pi)``, ``pi(bet)``
    from :func:`behaviour_probability`, ``r`` the :func:`payoff`, ``b`` the member's mean reward;
    ``-log pi(bet)`` is the binary cross-entropy of ``p`` against the sampled bet.
    """
    mask = wager.float()
    count = mask.sum(1).clamp(min=1.0)
    reward = payoff(bets, correct, wrong_bet_payoff) * mask
    baseline = reward.sum(1) / count
    p = behaviour_probability(confidence, floor)
    neg_log_pi = nn.functional.binary_cross_entropy(p, bets.float(), reduction="none")
    per_trial = (reward - baseline[:, None]) * neg_log_pi
    if entropy_coef > 0:
        per_trial = per_trial - entropy_coef * bet_entropy(p)
    loss = (per_trial * mask).sum(1) / count
    return loss, baseline


def reward_meta_loss(
    out: Any,
    batch: Any,
    valid: torch.Tensor,
    cfg: TrainConfig,
    generators: Sequence[torch.Generator] | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The meta loss of ``meta_signal="reward"`` and the wager reward, per member ``(N,)`` each:
    with ``generators`` (training) bets are sampled (:func:`wager_reward_loss`); without
    (held out) the loss is 0 and the reward the mean expected one of betting with probability
    the confidence on the wager trials."""
    steps = choice_steps(out.confidence, out.logits, batch.action, batch.step_kind, valid)
    if generators is None:
        mask = steps.wager.float()
        paid = payoff(torch.ones_like(steps.correct), steps.correct, cfg.wrong_bet_payoff)
        expected = (steps.confidence.detach() * paid * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return steps.confidence.new_zeros(steps.confidence.shape[0]), expected
    bets = sample_bets(steps.confidence, generators, cfg.bet_floor)
    loss, reward = wager_reward_loss(
        steps.confidence,
        steps.correct,
        steps.wager,
        bets,
        cfg.wrong_bet_payoff,
        cfg.bet_floor,
        cfg.bet_entropy_coef,
    )
    return loss, reward.detach()


def wager_choice_mask(step_kind: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """The choice steps ``(N, B, T)`` of the wager trials, over which a centred confidence head
    takes its centre in a wager update (protocol 8.8.2)."""
    choice = valid & (step_kind == StepKind.REPORT_1)
    wager = (valid & (step_kind == StepKind.WAGER)).any(-1, keepdim=True)
    return choice & wager


WAGER_HEAD = ("self_model.", "confidence_head.")
"""Name prefixes of the wager head's parameters: the self-model layer and the confidence head, which
only the meta loss and the z_self penalty train in the workspace-read wiring
(``wager_optimizer``)."""


def warm_start(
    agent: Agent, task: str, kind: str, seed: int, directory: Path | str | None = None
) -> list[str]:
    """Load the bundled ``kind`` agent of ``seed`` into ``agent`` (``wager_start="warm"``), but
    for the wager head and a centred head's centre; the names loaded. Raises
    :class:`~labcore.storage.checkpoints.CheckpointError` without the file."""
    name = checkpoint_name(task, kind, seed)
    source = load_checkpoint(checkpoint_file(directory or BUNDLED_DIR, name)).agent.state_dict()
    own = agent.state_dict()
    loaded = {
        k: v
        for k, v in source.items()
        if k in own
        and own[k].shape == v.shape
        and not k.startswith((*WAGER_HEAD, "confidence_centre"))
    }
    agent.load_state_dict({**own, **loaded})
    return sorted(loaded)


SPREAD_MIN_BETS = 1.0
"""The confidence-spread rule (protocol 8.8.4): a Type-2 AUROC is meaningful only if the
confidence's variation changes at least this many bets, in expectation."""


def confidence_spread(confidence: Any) -> dict[str, float]:
    """How much a confidence varies over trials, and whether an AUROC on it means anything.

    Returns ``confidence_sd`` (population SD), ``confidence_distinct`` (distinct float32 values),
    ``spread_bets``, ``auroc_meaningful`` (1.0 or 0.0) and ``bets_flipped``: the trials whose bet
    under the evaluation's own rule (bet when c > 0.5) differs from the bet at the mean confidence
    (protocol sec. 10.5: with none, the confidence's variation changes no bet the evaluation makes).
    ``spread_bets = sum_i |c_i - mean(c)|``
    is the expected number of trials on which an agent betting with probability ``c_i`` and one
    betting with its mean confidence on every trial place different bets when both use the same
    uniform draw (they differ when the draw falls between the two probabilities). The AUROC is
    meaningful when ``spread_bets >= SPREAD_MIN_BETS``: below it, no bet of the evaluation is
    expected to depend on the ranking the AUROC measures (protocol 8.8.4). The distinct count is
    reported, not used: float32 resolves 6e-8 near 1, so a spread of 2e-5 has hundreds of values.
    Without trials every value is nan, with a warning.

    Examples
    --------
    >>> flat = confidence_spread([0.998] * 600)
    >>> flat["spread_bets"], flat["bets_flipped"]
    (0.0, 0.0)
    >>> spread = confidence_spread([0.2, 0.8, 0.2, 0.8])  # |c - 0.5| = 0.3 on 4 trials: 1.2 bets
    >>> spread["confidence_sd"], spread["spread_bets"], spread["auroc_meaningful"]
    (0.3, 1.2, 1.0)
    >>> spread["bets_flipped"]  # mean 0.5 is not a bet; the two trials at 0.8 are
    2.0
    """
    c = np.asarray(confidence, dtype=np.float64).ravel()
    if c.size == 0:
        warnings.warn("confidence_spread of no trials is undefined (nan)", LabWarning, stacklevel=2)
        keys = "confidence_sd confidence_distinct spread_bets auroc_meaningful bets_flipped"
        return dict.fromkeys(keys.split(), float("nan"))
    bets = float(np.abs(c - c.mean()).sum())
    return {
        "confidence_sd": round(float(c.std()), 12),
        "confidence_distinct": float(np.unique(c.astype(np.float32)).size),
        "spread_bets": round(bets, 12),
        "auroc_meaningful": float(bets >= SPREAD_MIN_BETS),
        "bets_flipped": float(np.sum((c > WAGER_THRESHOLD) != (c.mean() > WAGER_THRESHOLD))),
    }


@dataclass
class WagerLog:
    """Choice steps of a held-out evaluation, gathered chunk by chunk, for the learning curves."""

    wrong_bet_payoff: float
    chunks: list[ChoiceSteps] = field(default_factory=list)

    def add(self, out: Any, batch: Any) -> None:
        """Record one chunk's choice steps (``out``: the pass's output; ``batch``: its
        demonstrations)."""
        steps = choice_steps(out.confidence, out.logits, batch.action, batch.step_kind, batch.valid)
        self.chunks.append(ChoiceSteps(*(x.detach() for x in vars(steps).values())))

    def metrics(self, member: int) -> dict[str, float | None]:
        """Member ``member``'s held-out Type-2 AUROC, mean confidence, expected wager reward and
        the confidence's spread (``heldout_``-prefixed); None where undefined."""

        cat = {
            k: torch.cat([getattr(c, k)[member] for c in self.chunks]).numpy()
            for k in ("confidence", "correct", "wager", "decided")
        }
        decided, wager = cat["decided"], cat["wager"]
        conf = cat["confidence"].astype(np.float64)
        paid = np.where(cat["correct"], CORRECT_BET_PAYOFF, self.wrong_bet_payoff)
        values = {
            "heldout_auroc": learning_curve_auroc(cat["correct"][decided], conf[decided]),
            "heldout_confidence": float(conf[decided].mean()) if decided.any() else float("nan"),
            "heldout_wager_reward": float((conf * paid)[wager].mean())
            if wager.any()
            else float("nan"),
        }
        if decided.any():
            values.update({f"heldout_{k}": v for k, v in confidence_spread(conf[decided]).items()})
        return {k: v if np.isfinite(v) else None for k, v in values.items()}
