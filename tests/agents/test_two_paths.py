"""The agent's two execution paths, module by module.

``Agent.step`` (autonomous rollouts, one step at a time) and the seed-batched sequence pass
(``labcore.agents.sequence``, training and ``Agent.forward_sequence``) implement one agent twice.
These tests enumerate every parameter and buffer of every kind and every design option and require
that each one moves the outputs of *both* paths, and that both paths expose the same fields with the
same values: an agent change made on one path only fails here.
"""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
import torch

import labcore.envs as E
from labcore.agents import Agent, Observation, build_agent
from labcore.agents.agent import AgentOutput
from labcore.config import AGENT_KINDS, AgentConfig
from labcore.envs.batch import oracle_demonstrations
from tests.agents.demo_tensors import DemoTensors

DESIGN_OPTIONS = {
    "b1-offset": replace(AGENT_KINDS["b1"], kind="b1-offset", write_geometry="offset"),
    "b1-raw-gain": replace(
        AGENT_KINDS["b1"], kind="b1-raw-gain", write_geometry="raw", readout_gain=10.0
    ),
    "b2_ws-closed": replace(AGENT_KINDS["b2_ws"], kind="b2_ws-closed", closed_loop=True),
    "b2_ws-centred": replace(AGENT_KINDS["b2_ws"], kind="b2_ws-centred", confidence_centred=True),
    "b2_ws-value": replace(AGENT_KINDS["b2_ws"], kind="b2_ws-value", value_head=True),
}
"""Options no preset kind switches on (design-study geometries and loop, "E4 again" centring, a
critic)."""
CONFIGS: dict[str, AgentConfig] = {**AGENT_KINDS, **DESIGN_OPTIONS}


STEPS = 12
"""Steps of each episode run: both cues, the first masks, the delay (every layer works at every
step)."""


@pytest.fixture(scope="module")
def demos() -> DemoTensors:
    whole = DemoTensors.from_demonstrations(oracle_demonstrations(E.DUAL_TASK, range(4)))
    return replace(whole, obs=whole.obs.index((slice(None), slice(0, STEPS))))


def step_path(agent: Agent, obs: Observation) -> dict[str, torch.Tensor]:
    """Every output of ``Agent.step`` over the episodes, stacked over time (and the critic's
    value)."""
    state = agent.initial_state(obs.task.shape[0])
    outs = []
    for t in range(obs.task.shape[1]):
        out, state = agent.step(obs.index((slice(None), t)), state)
        outs.append(out)
    found = {
        f.name: torch.stack([getattr(o, f.name) for o in outs], 1)
        for f in fields(AgentOutput)
        if getattr(outs[0], f.name) is not None
    }
    if agent.config.value_head:
        found["value"] = torch.stack([agent.value(o) for o in outs], 1)
    return found


def sequence_path(agent: Agent, obs: Observation) -> dict[str, torch.Tensor]:
    """Every output of the sequence pass (``Agent.forward_sequence``: ``sequence_forward`` with N
    = 1)."""
    out = agent.forward_sequence(obs)
    found = {
        f.name: getattr(out, f.name)
        for f in fields(AgentOutput)
        if getattr(out, f.name) is not None
    }
    if agent.config.value_head:
        found["value"] = agent.value(out)
    return found


@pytest.mark.parametrize("name", list(CONFIGS))
def test_both_paths_give_every_output_alike(name, demos):
    agent = build_agent(CONFIGS[name], seed=3).eval()
    steps, sequence = step_path(agent, demos.obs), sequence_path(agent, demos.obs)
    assert steps.keys() == sequence.keys()
    for key in steps:  # a few float32 ulps apart (summation order), not a wiring difference
        torch.testing.assert_close(
            steps[key].float(), sequence[key].float(), rtol=0, atol=2e-5, msg=key
        )


def unused_tensors(agent: Agent, path, obs: Observation) -> list[str]:
    """The parameters and buffers no output of ``path`` depends on: the gradient of a random
    weighting of every output (and the critic's value) is zero for them."""
    tensors = agent.state_dict(keep_vars=True)
    floats = {k: v for k, v in tensors.items() if v.is_floating_point()}
    for v in floats.values():
        v.requires_grad_(True)
        v.grad = None
    gen = torch.Generator().manual_seed(0)
    outputs = [o for o in path(agent, obs).values() if o.is_floating_point()]
    total = sum((o * torch.randn(o.shape, generator=gen)).sum() for o in outputs)
    total.backward()
    unused = [k for k, v in floats.items() if v.grad is None or not v.grad.abs().sum() > 0]
    for k, v in floats.items():
        v.grad = None
        if k not in dict(agent.named_parameters()):
            v.requires_grad_(False)
    return unused


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_parameter_and_buffer_serves_both_paths(name, demos):
    """Every tensor of the agent moves some output of the step path and of the sequence path."""
    agent = build_agent(CONFIGS[name], seed=3).eval()
    unused = {
        "step": unused_tensors(agent, step_path, demos.obs),
        "sequence": unused_tensors(agent, sequence_path, demos.obs),
    }
    assert unused == {"step": [], "sequence": []}, f"tensors one path ignores: {unused}"


def test_the_enumeration_catches_a_module_on_one_path_only(demos, monkeypatch):
    """A layer the step path reads and the sequence path ignores is found (the check can fail)."""
    agent = build_agent("b2_ws", seed=3).eval()
    heads = Agent._heads

    def step_only(self, h, *args):  # an extra layer on the step path alone
        return heads(self, h + self.extra(h), *args)

    agent.extra = torch.nn.Linear(agent.config.hidden_dim, agent.config.hidden_dim)
    monkeypatch.setattr(Agent, "_heads", step_only)
    assert unused_tensors(agent, step_path, demos.obs) == []
    assert unused_tensors(agent, sequence_path, demos.obs) == ["extra.weight", "extra.bias"]
