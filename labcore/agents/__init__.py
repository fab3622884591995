"""The lab's agents: one composable :class:`Agent`, presets in ``labcore.config.AGENT_KINDS``."""

from __future__ import annotations

import torch

from labcore.agents.agent import Agent, AgentOutput, Observation
from labcore.checks import check_choice
from labcore.config import AGENT_KINDS, AgentConfig


def agent_config(kind: str | AgentConfig) -> AgentConfig:
    """The config of a preset ``kind`` (e.g. ``"b2_ws"``), or ``kind`` itself if a config."""
    if isinstance(kind, str):
        check_choice(kind, "kind", AGENT_KINDS)
        return AGENT_KINDS[kind]
    if not isinstance(kind, AgentConfig):
        raise TypeError(f"kind must be an agent kind's name or an AgentConfig, got {kind!r}")
    return kind


def build_agent(kind: str | AgentConfig, seed: int = 0) -> Agent:
    """A freshly initialised agent of a preset ``kind`` or a config; the same seed gives the same
    weights (``torch.manual_seed(seed)``)."""
    config = agent_config(kind)
    torch.manual_seed(seed)
    return Agent(config, seed=seed)


__all__ = [
    "Agent",
    "AgentOutput",
    "Observation",
    "agent_config",
    "build_agent",
]
