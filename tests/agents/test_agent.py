"""The composable agent: shapes, routing, the workspace rule, and the two execution paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import labcore.envs as E
from labcore.agents import Observation, build_agent
from labcore.agents.parts import slot_sources, write_step
from labcore.checks import ChoiceError, ConfigError
from labcore.config import AGENT_KINDS, AgentConfig, Intervention
from labcore.envs.batch import oracle_demonstrations
from tests.agents.demo_tensors import DemoTensors
from tests.refusals import refused


@pytest.fixture(scope="module")
def dual_demos() -> DemoTensors:
    return DemoTensors.from_demonstrations(oracle_demonstrations(E.DUAL_TASK, range(12)))


def _steps(agent, obs: Observation, iv=None, seed=0):
    rng = torch.Generator().manual_seed(seed)
    iv = iv or Intervention()
    state = agent.initial_state(obs.task.shape[0], iv, rng)
    outs = []
    for t in range(obs.task.shape[1]):
        out, state = agent.step(obs.index((slice(None), t)), state, iv, rng)
        outs.append(out)
    return outs


@pytest.mark.parametrize("kind", list(AGENT_KINDS))
def test_shapes_and_parameter_budget(kind, dual_demos):
    agent = build_agent(kind).eval()
    out = agent.forward_sequence(dual_demos.obs)
    b, t = dual_demos.action.shape
    cfg = AGENT_KINDS[kind]
    assert out.logits.shape == (b, t, E.N_ACTIONS)
    assert out.h.shape == (b, t, 64)
    assert (out.slots is None) == (not cfg.workspace)
    if cfg.workspace:
        assert out.slots.shape == (b, t, 4, 16)
        assert out.broadcast.shape == (b, t, 16)
    assert (out.confidence is None) == (not cfg.self_model)
    if cfg.self_model:
        assert out.z_self.shape == (b, t, 64)
        assert ((out.confidence > 0) & (out.confidence < 1)).all()
    # A bundled checkpoint stays under 400 kB (100k float32 numbers; the largest today is 356 kB):
    # the 105 bundled agents' weights are 32 MB, and the repository must stay quick to clone.
    assert sum(p.numel() for p in agent.parameters() if p.requires_grad) < 100_000


@pytest.mark.parametrize("kind", list(AGENT_KINDS))
@pytest.mark.parametrize(
    "iv",
    [
        Intervention(),
        Intervention(capacity_scale=0.5),
        Intervention(self_model_mode="zero"),
        Intervention(capacity_scale=0.0),
    ],
)
def test_sequence_and_step_paths_agree(kind, iv, dual_demos):
    agent = build_agent(kind, seed=3).eval()
    seq = agent.forward_sequence(dual_demos.obs, iv)
    steps = _steps(agent, dual_demos.obs, iv)
    # Same arithmetic, different float32 summation order (one GRU call vs step by step; it also
    # depends on torch's thread count, which other tests set): agreement to a few ulps of O(1)
    # values, 4e-6, not bit for bit. A wiring difference is orders of magnitude larger.
    torch.testing.assert_close(
        torch.stack([o.logits for o in steps], 1), seq.logits, rtol=0, atol=1e-5
    )
    if agent.config.workspace:
        torch.testing.assert_close(
            torch.stack([o.slots for o in steps], 1), seq.slots, rtol=0, atol=4e-6
        )
    if agent.config.self_model:
        torch.testing.assert_close(
            torch.stack([o.confidence for o in steps], 1), seq.confidence, rtol=0, atol=4e-6
        )


def test_workspace_allocation_rule_matches_step_rule():
    rng = np.random.default_rng(0)
    events = torch.as_tensor(rng.random((50, 20)) < 0.3)
    for active in range(5):
        src = slot_sources(events, active, 4)
        slots = torch.zeros(50, 4, 1)
        occupied = torch.zeros(50, 4, dtype=torch.bool)
        n = torch.zeros(50, dtype=torch.long)
        for t in range(20):
            slots, occupied, n = write_step(
                slots, occupied, n, torch.full((50, 1), float(t)), events[:, t], active
            )
            expected = torch.where(src[:, t] >= 0, src[:, t].float(), 0.0)
            assert torch.equal(slots[..., 0], expected)
            assert torch.equal(occupied, src[:, t] >= 0)
        # Slots beyond capacity are never used; with writes > active, slot 0 is overwritten.
        assert not occupied[:, active:].any()


def test_bus_off_broadcast_is_exactly_zero(dual_demos):
    for kind in ("b1", "b2", "b2_ws", "bc_mlp"):
        agent = build_agent(kind).eval()
        out = agent.forward_sequence(dual_demos.obs, Intervention(capacity_scale=0.0))
        assert torch.count_nonzero(out.slots) == 0
        assert torch.count_nonzero(out.broadcast) == 0
        steps = _steps(agent, dual_demos.obs, Intervention(capacity_scale=0.0, workspace_noise=0.5))
        assert all(torch.count_nonzero(o.broadcast) == 0 for o in steps)


def test_cue_reaches_the_policy_only_through_the_bus(dual_demos):
    agent = build_agent("b1", seed=1).eval()
    other = DemoTensors.from_demonstrations(oracle_demonstrations(E.DUAL_TASK, range(12)))
    swapped = other.obs
    # Same episodes, different cue values: rebuild the cue channel with shifted contents.
    cue = swapped.cue.clone()
    content = cue[..., 4:]
    cue[..., 4:] = torch.roll(content, shifts=3, dims=-1)
    changed = Observation(
        direction=swapped.direction,
        task=swapped.task,
        cue=cue,
        pose=swapped.pose,
        image_table=swapped.image_table,
    )
    off = Intervention(capacity_scale=0.0)
    torch.testing.assert_close(
        agent.forward_sequence(swapped, off).logits,
        agent.forward_sequence(changed, off).logits,
        rtol=0,
        atol=0,
    )
    assert not torch.allclose(
        agent.forward_sequence(swapped).logits, agent.forward_sequence(changed).logits
    )
    # A cue-blind baseline never sees the cue at all.
    a1 = build_agent("a1").eval()
    torch.testing.assert_close(
        a1.forward_sequence(swapped).logits, a1.forward_sequence(changed).logits, rtol=0, atol=0
    )


def test_e1_policy_does_not_read_z_self_and_confidence_reads_only_z_self(dual_demos):
    agent = build_agent("b2_ws", seed=2).eval()
    intact = agent.forward_sequence(dual_demos.obs)
    for mode in ("zero", "noise", "permute"):
        lesioned = agent.forward_sequence(
            dual_demos.obs, Intervention(self_model_mode=mode, seed=5)
        )
        assert torch.equal(lesioned.logits, intact.logits)
        assert not torch.equal(lesioned.confidence, intact.confidence)
    # Confidence is a function of z_self alone: the head applied to z_self reproduces it...
    conf = torch.sigmoid(agent.confidence_head(intact.z_self)).squeeze(-1)
    torch.testing.assert_close(conf, intact.confidence)
    # ...and with z_self zeroed it is one constant whatever the input.
    zeroed = agent.forward_sequence(dual_demos.obs, Intervention(self_model_mode="zero"))
    assert torch.unique(zeroed.confidence).numel() == 1
    # Gradient check: the policy logits do not depend on the self-model's weights.
    agent.zero_grad()
    agent.forward_sequence(dual_demos.obs).logits.sum().backward()
    assert (
        agent.self_model.weight.grad is None
        or torch.count_nonzero(agent.self_model.weight.grad) == 0
    )


def test_e3_b2_policy_reads_z_self(dual_demos):
    agent = build_agent("b2", seed=2).eval()
    intact = agent.forward_sequence(dual_demos.obs)
    lesioned = agent.forward_sequence(dual_demos.obs, Intervention(self_model_mode="zero"))
    assert not torch.equal(lesioned.logits, intact.logits)
    # With z_self zeroed the executed policy is constant: it has no other input.
    assert torch.unique(lesioned.logits.reshape(-1, 7), dim=0).shape[0] == 1


def test_stored_noise_accumulates_and_read_noise_does_not(dual_demos):
    agent = build_agent("b1").eval()
    obs = dual_demos.obs
    clean = agent.forward_sequence(obs).slots
    for path in ("sequence", "step"):
        spread = {}
        for mode in ("stored", "read"):
            iv = Intervention(workspace_noise=0.1, noise_mode=mode, seed=7)
            if path == "sequence":
                noisy = agent.forward_sequence(obs, iv).slots
            else:
                noisy = torch.stack([o.slots for o in _steps(agent, obs, iv, seed=7)], 1)
            diff = (noisy - clean)[:, :, 1]  # slot 1 holds the object cue from step 1 on
            spread[mode] = (diff[:, 2].std().item(), diff[:, 31].std().item())
        # Stored: SD grows like sqrt(steps since the write) (~0.1*sqrt(2) -> ~0.1*sqrt(31)).
        assert spread["stored"][1] / spread["stored"][0] == pytest.approx((31 / 2) ** 0.5, rel=0.25)
        # Read: the same SD at every step.
        assert spread["read"][1] / spread["read"][0] == pytest.approx(1.0, rel=0.25)
        assert spread["read"][0] == pytest.approx(0.1, rel=0.25)


def test_noise_spares_empty_slots_unless_asked(dual_demos):
    agent = build_agent("b1").eval()
    obs = dual_demos.obs.index((slice(None), slice(0, 3)))  # before any mask: slots 2, 3 empty
    for path in ("sequence", "step"):
        for empty in (False, True):
            iv = Intervention(workspace_noise=0.3, noise_empty_slots=empty)
            slots = (
                agent.forward_sequence(obs, iv).slots
                if path == "sequence"
                else torch.stack([o.slots for o in _steps(agent, obs, iv)], 1)
            )
            assert (torch.count_nonzero(slots[:, :, 2:]) > 0) == empty


def test_pulse_and_carrier_noise_need_the_step_path(dual_demos):
    agent = build_agent("a1")
    # Refused, naming the path that takes them (the step path).
    with pytest.raises(ValueError, match=r"Agent\.step"):
        agent.forward_sequence(dual_demos.obs, Intervention(carrier_noise=0.1))
    with pytest.raises(ValueError, match=r"Agent\.step"):
        agent.forward_sequence(dual_demos.obs, Intervention(pulse_step=3))
    obs = dual_demos.obs
    base = _steps(agent.eval(), obs)
    pulsed = _steps(agent, obs, Intervention(pulse_step=5, pulse_sigma=1.0))
    assert all(torch.equal(base[t].h, pulsed[t].h) for t in range(5))
    assert not torch.equal(base[5].h, pulsed[5].h)
    assert not torch.equal(base[9].h, pulsed[9].h)  # stored: the pulse echoes through the GRU


def test_same_seed_same_weights_and_bad_configs():
    a, b = build_agent("b2", seed=4), build_agent("b2", seed=4)
    assert all(
        torch.equal(x, y)
        for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    )
    c = build_agent("b2", seed=5)
    assert not torch.equal(a.policy[0].weight, c.policy[0].weight)
    unknown = refused(ChoiceError, build_agent, "b3")
    assert (unknown.name, unknown.value) == ("kind", "b3")
    bus = refused(ConfigError, AgentConfig, workspace=False, cue_route="bus")
    assert bus.fields == ("cue_route", "workspace")
    assert refused(ConfigError, Intervention, capacity_scale=1.5).fields == ("capacity_scale",)
    mode = refused(ChoiceError, Intervention, self_model_mode="off")
    assert (mode.name, mode.value) == ("self_model_mode", "off")
