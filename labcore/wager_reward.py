"""The wager learned from reward alone: E4 arm (a) and its controls (protocol 8.3).

With ``TrainConfig.meta_signal == "reward"`` the confidence head gets no correctness label.
On every wager trial of a training batch the agent *samples* a bet from Bernoulli(its
confidence at the choice step), with its member's own generator (same seed, same bets), and
the bet is paid: +1 if the decision is correct, ``wrong_bet_payoff`` if it is wrong (-1, or -3
under the risky payoff); opting out pays 0 and says nothing about the decision. The loss is
REINFORCE with a baseline, ``-(r - b) log pi(bet)``, ``b`` the mean reward of the member's wager
trials in the batch. Correctness (the argmax of the executed policy at the choice step against
the oracle's action, the quantity E1's label uses) enters only through ``r``, built from
booleans, so it carries no gradient of its own: with every bet an opt-out the loss is exactly 0.

Held-out evaluation samples no bets: it reports the *expected* wager reward of the confidence
(bet probability times the payoff of the decision) and a teacher-forced Type-2 AUROC of the
choice-step confidence, for the learning curves of protocol 8.4 (the registered AUROC is
``labcore.markers.type2_auroc`` on autonomous rollouts, computed by the experiment).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from labcore.config import TrainConfig
from labcore.envs.batch import StepKind

CORRECT_BET_PAYOFF = 1.0
"""Reward of a bet on a correct decision (protocol 3.4)."""
OPT_OUT_PAYOFF = 0.0
"""Reward of opting out, whatever the decision (protocol 3.4)."""


def payoff(bet: torch.Tensor, correct: torch.Tensor, wrong_bet_payoff: float) -> torch.Tensor:
    """The wager's reward per trial: bet and correct +1, bet and wrong ``wrong_bet_payoff``, opt-out 0.

    >>> payoff(torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False]), -3.0).tolist()
    [1.0, -3.0, 0.0, 0.0]
    """
    paid = torch.where(correct, torch.tensor(CORRECT_BET_PAYOFF), torch.tensor(float(wrong_bet_payoff)))
    return torch.where(bet, paid, torch.tensor(OPT_OUT_PAYOFF))


@dataclass
class ChoiceSteps:
    """Each trial's choice step, ``(N, B)`` per field: the confidence there (with its gradient),
    whether the decision was correct, and whether the trial is a wager trial (with a choice step)."""

    confidence: torch.Tensor
    correct: torch.Tensor
    wager: torch.Tensor
    decided: torch.Tensor


def choice_steps(confidence: torch.Tensor, logits: torch.Tensor, action: torch.Tensor,
                 step_kind: torch.Tensor, valid: torch.Tensor) -> ChoiceSteps:
    """The choice step of every episode (the decision, ``StepKind.REPORT_1``; protocol 3.3).

    ``confidence`` (N, B, T); ``logits`` (N, B, T, actions) of the executed policy; ``action``,
    ``step_kind``, ``valid`` (N, B, T) from the demonstrations. ``correct`` is the argmax of the
    executed policy against the oracle's action there (no gradient); ``decided`` says the episode
    has a choice step among its valid steps; ``wager`` that it also has a wager step.
    """
    choice = valid & (step_kind == StepKind.REPORT_1)
    decided = choice.any(-1)
    index = choice.long().argmax(-1, keepdim=True)  # the first (only) choice step; 0 if none
    conf = confidence.gather(-1, index).squeeze(-1)
    correct = (logits.argmax(-1) == action).gather(-1, index).squeeze(-1)
    wager = decided & (valid & (step_kind == StepKind.WAGER)).any(-1)
    return ChoiceSteps(conf, correct & decided, wager, decided)


def sample_bets(confidence: torch.Tensor, generators: Sequence[torch.Generator]) -> torch.Tensor:
    """Bets ``(N, B)``: member ``i`` bets on trial ``j`` with probability ``confidence[i, j]``.

    One uniform draw per trial from each member's own generator, so a member's bets depend on
    its seed and history only, never on its batch-mates.
    """
    draws = torch.stack([torch.rand(confidence.shape[1], generator=g) for g in generators])
    return draws < confidence.detach()


def wager_reward_loss(confidence: torch.Tensor, correct: torch.Tensor, wager: torch.Tensor, bets: torch.Tensor,
                      wrong_bet_payoff: float) -> tuple[torch.Tensor, torch.Tensor]:
    """REINFORCE on the wager, per member: ``(loss (N,), mean reward (N,))``.

    ``loss = mean over wager trials of -(r - b) log pi(bet)``, with ``pi(bet) = confidence`` for a
    bet and ``1 - confidence`` for an opt-out, ``r`` the :func:`payoff` and ``b`` the member's mean
    reward over its wager trials (a constant: rewards are built from booleans). 0 for a member
    without wager trials. ``-log pi(bet)`` is the binary cross-entropy of the confidence against
    the *sampled bet* (the same kernel as E1's loss, whose target is correctness instead).
    """
    mask = wager.float()
    count = mask.sum(1).clamp(min=1.0)
    reward = payoff(bets, correct, wrong_bet_payoff) * mask
    baseline = reward.sum(1) / count
    neg_log_pi = nn.functional.binary_cross_entropy(confidence, bets.float(), reduction="none")
    loss = ((reward - baseline[:, None]) * neg_log_pi * mask).sum(1) / count
    return loss, baseline


def expected_reward(confidence: torch.Tensor, correct: torch.Tensor, wager: torch.Tensor,
                    wrong_bet_payoff: float) -> torch.Tensor:
    """Mean expected reward ``(N,)`` of betting with probability ``confidence`` on the wager trials."""
    mask = wager.float()
    per_trial = confidence.detach() * payoff(torch.ones_like(correct), correct, wrong_bet_payoff)
    return (per_trial * mask).sum(1) / mask.sum(1).clamp(min=1.0)


def reward_meta_loss(out: Any, batch: Any, valid: torch.Tensor, cfg: TrainConfig,
                     generators: Sequence[torch.Generator] | None) -> tuple[torch.Tensor, torch.Tensor]:
    """The meta loss of ``meta_signal="reward"`` and the wager reward, per member ``(N,)`` each.

    ``out`` is the pass's output (``confidence``, ``logits``), ``batch`` the demonstrations
    (``action``, ``step_kind``), ``valid`` the scored steps. With ``generators`` (training) bets
    are sampled and the loss is :func:`wager_reward_loss` with the sampled mean reward; without
    (held-out evaluation) nothing is sampled: the loss is 0 and the reward the expected one.
    """
    steps = choice_steps(out.confidence, out.logits, batch.action, batch.step_kind, valid)
    if generators is None:
        zero = steps.confidence.new_zeros(steps.confidence.shape[0])
        return zero, expected_reward(steps.confidence, steps.correct, steps.wager, cfg.wrong_bet_payoff)
    bets = sample_bets(steps.confidence, generators)
    loss, reward = wager_reward_loss(steps.confidence, steps.correct, steps.wager, bets, cfg.wrong_bet_payoff)
    return loss, reward.detach()


def _pairwise_auroc(correct: np.ndarray, confidence: np.ndarray) -> float:
    """P(a correct trial's confidence > an error's) + half the ties; nan without both classes."""
    pos, neg = confidence[correct], confidence[~correct]
    if not len(pos) or not len(neg):
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


@dataclass
class WagerLog:
    """Choice steps of a held-out evaluation, gathered chunk by chunk, for the learning curves."""

    wrong_bet_payoff: float
    chunks: list[ChoiceSteps] = field(default_factory=list)

    def add(self, out: Any, batch: Any) -> None:
        """Record one chunk's choice steps (``out``: the pass's output; ``batch``: its demonstrations)."""
        steps = choice_steps(out.confidence, out.logits, batch.action, batch.step_kind, batch.valid)
        self.chunks.append(ChoiceSteps(*(x.detach() for x in (steps.confidence, steps.correct, steps.wager,
                                                                steps.decided))))

    def metrics(self, member: int) -> dict[str, float | None]:
        """Member ``member``'s held-out Type-2 AUROC (teacher-forced, every decided trial), mean
        confidence there, and expected wager reward on the wager trials; None where undefined
        (e.g. the AUROC while every decision is right, or wrong), so records stay valid JSON."""
        cat = {k: torch.cat([getattr(c, k)[member] for c in self.chunks]).numpy()
               for k in ("confidence", "correct", "wager", "decided")}
        decided, wager = cat["decided"], cat["wager"]
        conf = cat["confidence"].astype(np.float64)
        paid = np.where(cat["correct"], CORRECT_BET_PAYOFF, self.wrong_bet_payoff)
        values = {"heldout_auroc": _pairwise_auroc(cat["correct"][decided], conf[decided]),
                  "heldout_confidence": float(conf[decided].mean()) if decided.any() else float("nan"),
                  "heldout_wager_reward": float((conf * paid)[wager].mean()) if wager.any() else float("nan")}
        return {k: v if np.isfinite(v) else None for k, v in values.items()}
