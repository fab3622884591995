"""Plain recurrent networks of Song, Yang & Wang (2017): a GRU policy and a GRU baseline, the
reference networks of the reward-trained reproduction on NeuroGym's post-decision wager
(protocol sec. 8.7); not members of the lab's agent family.

References
----------
.. [1] Song, H. F., Yang, G. R., & Wang, X.-J. (2017). Reward-based training of recurrent
   neural networks for cognitive and value-based tasks. eLife, 6, e21492.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class PlainGRUConfig:
    """The plain GRU policy's shape (protocol 8.7: Song et al.'s 100 units)."""

    kind: str = "plain_gru"
    """Name its records and cached files carry."""
    n_inputs: int = 4
    """Observation size (NeuroGym's fixation, evidence left, evidence right, sure cue)."""
    hidden_dim: int = 100
    """GRU units (Song et al.: 100)."""
    n_actions: int = 4
    """Actions of the policy (NeuroGym's fixate, left, right, sure)."""
    value_head: bool = False
    """A linear critic on the hidden state, trained with the policy (the lab's old baseline,
    protocol 8.6); Song et al.'s baseline is the separate :class:`BaselineGRU` instead."""

    def __post_init__(self) -> None:
        if min(self.n_inputs, self.hidden_dim, self.n_actions) < 1:
            raise ValueError("n_inputs, hidden_dim and n_actions must be >= 1")


class PlainGRUPolicy(nn.Module):
    """Inputs ``(B, T, n_inputs)`` -> GRU(hidden_dim) -> linear logits ``(B, T, n_actions)``.

    Initialisation is PyTorch's (uniform in +-1/sqrt(hidden_dim)) for seed ``seed``; the
    trainer may then scale the input weights or zero the readout.
    """

    def __init__(self, config: PlainGRUConfig | None = None, seed: int = 0) -> None:
        super().__init__()
        self.config = config or PlainGRUConfig()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.gru = nn.GRU(self.config.n_inputs, self.config.hidden_dim, batch_first=True)
            self.readout = nn.Linear(self.config.hidden_dim, self.config.n_actions)
            if self.config.value_head:  # built last: the policy's weights do not depend on it
                self.value_head = nn.Linear(self.config.hidden_dim, 1)

    def forward(self, ob: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(B, T, A)`` and hidden states ``(B, T, H)`` of whole trials (zero initial
        state)."""
        h, _ = self.gru(ob)
        return self.readout(h), h

    def value(self, h: torch.Tensor) -> torch.Tensor:
        """The critic's estimate of the return-to-go from hidden states ``(..., H)``
        (``value_head`` only)."""
        if not self.config.value_head:
            raise ValueError("this plain GRU has no value head (PlainGRUConfig.value_head)")
        return self.value_head(h).squeeze(-1)


class BaselineGRU(nn.Module):
    """Song et al.'s baseline: GRU over [policy readout input (``n_features``), previous action
    (one-hot)] -> return-to-go. Its initialisation has its own seeded stream, so the policy's
    weights do not depend on whether a baseline is built."""

    def __init__(
        self, n_features: int, n_actions: int, hidden_dim: int = 100, seed: int = 0
    ) -> None:
        super().__init__()
        self.n_actions = int(n_actions)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.gru = nn.GRU(n_features + n_actions, hidden_dim, batch_first=True)
            self.readout = nn.Linear(hidden_dim, 1)

    def forward(self, features: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Expected return-to-go ``(B, T)`` at each step, from ``features`` ``(B, T, F)`` (detached
        here: the baseline never trains the policy) and the actions taken ``(B, T)``; step ``t``
        sees the action of step ``t - 1``."""
        previous = torch.zeros(*actions.shape, self.n_actions, dtype=features.dtype)
        previous[:, 1:] = nn.functional.one_hot(actions[:, :-1].clamp(min=0), self.n_actions).to(
            features.dtype
        )
        h, _ = self.gru(torch.cat([features.detach(), previous], dim=-1))
        return self.readout(h).squeeze(-1)
