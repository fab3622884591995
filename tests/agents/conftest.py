"""Shared fixtures: small trained agents (trained once per test session, a few seconds each)."""

from __future__ import annotations

import pytest

from labcore.config import TrainConfig
from labcore.training.behaviour_cloning import train_seeds

TINY = TrainConfig(
    max_updates=120, min_updates=120, eval_every=40, train_episodes=600, heldout_episodes=100
)


@pytest.fixture(scope="session")
def e1_agent():
    """A briefly trained E1 B2 (workspace-read) agent and its record."""
    return train_seeds("wagering", "b2_ws", [0], TINY)[0]


@pytest.fixture(scope="session")
def dual_b2():
    """A briefly trained dual-task B2 (z_self-read) agent (accuracy irrelevant: structure tests)."""
    return train_seeds(
        "dual",
        "b2",
        [1],
        TrainConfig(
            max_updates=40, min_updates=40, eval_every=40, train_episodes=200, heldout_episodes=50
        ),
    )[0]
