"""The lab's agents: one composable :class:`Agent`, presets in ``labcore.config.AGENT_KINDS``."""

from __future__ import annotations

import torch

from labcore.agents.agent import Agent, AgentOutput, AgentState, Observation
from labcore.checks import check_choice
from labcore.config import AGENT_KINDS, AgentConfig


def build_agent(kind: str | AgentConfig, seed: int = 0) -> Agent:
    """A freshly initialised agent of a preset ``kind`` (e.g. ``"b2_ws"``) or a config.

    Initialisation is seeded (``torch.manual_seed(seed)``), so the same seed gives the same
    weights.
    """
    if isinstance(kind, str):
        check_choice(kind, "kind", AGENT_KINDS)
    config = AGENT_KINDS[kind] if isinstance(kind, str) else kind
    torch.manual_seed(seed)
    return Agent(config, seed=seed)


def count_parameters(agent: Agent) -> int:
    """Trainable parameters (the fixed random projection of ``bc_random`` is not counted)."""
    return sum(p.numel() for p in agent.parameters() if p.requires_grad)


__all__ = [
    "AGENT_KINDS",
    "Agent",
    "AgentConfig",
    "AgentOutput",
    "AgentState",
    "Observation",
    "build_agent",
    "count_parameters",
]
