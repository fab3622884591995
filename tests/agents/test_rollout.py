"""Autonomous rollouts: purity of interventions, determinism, agreement with teacher forcing."""

from __future__ import annotations

import numpy as np
import torch

import labcore.envs as E
from labcore.config import Intervention
from labcore.envs.batch import oracle_demonstrations
from labcore.interventions import BUS_OFF, SELF_MODEL_LESION, describe
from labcore.rollout import observation_at, rollout, table_features
from labcore.seeding import episode_seeds
from tests.agents.demo_tensors import DemoTensors

SEEDS = episode_seeds(0, "eval", 64)


def _weights(agent):
    return {k: v.clone() for k, v in agent.state_dict().items()}


def test_interventions_are_pure(e1_agent):
    agent = e1_agent.agent
    before = _weights(agent)
    first = rollout(agent, E.WAGERING, SEEDS)
    for iv in (
        SELF_MODEL_LESION,
        BUS_OFF,
        Intervention(workspace_noise=0.5),
        Intervention(self_model_mode="permute"),
        Intervention(pulse_step=2, pulse_sigma=2.0),
    ):
        rollout(agent, E.WAGERING, SEEDS, iv)
    after = _weights(agent)
    assert all(torch.equal(before[k], after[k]) for k in before)
    again = rollout(agent, E.WAGERING, SEEDS)
    np.testing.assert_array_equal(first.action, again.action)
    np.testing.assert_array_equal(first.confidence, again.confidence)
    np.testing.assert_array_equal(first.outcome["correct"], again.outcome["correct"])


def test_same_intervention_seed_same_numbers(e1_agent):
    iv = Intervention(workspace_noise=0.3, self_model_mode="noise", seed=11)
    a = rollout(e1_agent.agent, E.WAGERING, SEEDS, iv)
    b = rollout(e1_agent.agent, E.WAGERING, SEEDS, iv)
    c = rollout(
        e1_agent.agent,
        E.WAGERING,
        SEEDS,
        Intervention(workspace_noise=0.3, self_model_mode="noise", seed=12),
    )
    np.testing.assert_array_equal(a.confidence, b.confidence)
    assert not np.array_equal(np.nan_to_num(a.confidence), np.nan_to_num(c.confidence))


def test_self_model_lesion_keeps_actions_and_flattens_confidence(e1_agent):
    intact = rollout(e1_agent.agent, E.WAGERING, SEEDS)
    lesioned = rollout(e1_agent.agent, E.WAGERING, SEEDS, SELF_MODEL_LESION)
    # Workspace-read policy: first-order behaviour is bit-identical (except the wager itself).
    policy_steps = intact.step_kind != E.StepKind.WAGER
    np.testing.assert_array_equal(intact.action[policy_steps], lesioned.action[policy_steps])
    np.testing.assert_array_equal(intact.outcome["correct"], lesioned.outcome["correct"])
    conf = lesioned.outcome["confidence"]
    assert np.unique(conf[np.isfinite(conf)]).size == 1
    assert np.unique(intact.outcome["confidence"]).size > 10


def test_wager_follows_confidence(e1_agent):
    tr = rollout(e1_agent.agent, E.WAGERING, SEEDS)
    wagered = tr.outcome["bet"] >= 0
    assert wagered.any()
    bets = tr.outcome["bet"][wagered] == 1
    np.testing.assert_array_equal(bets, tr.outcome["confidence"][wagered] > 0.5)


def test_dual_rollout_equals_teacher_forcing_because_answers_do_not_move_the_body(dual_b2):
    agent = dual_b2.agent
    seeds = episode_seeds(1, "eval", 16)
    tr = rollout(agent, E.DUAL_TASK, seeds)
    demos = DemoTensors.from_demonstrations(oracle_demonstrations(E.DUAL_TASK, seeds))
    with torch.no_grad():
        logits = agent.forward_sequence(demos.obs).logits
    np.testing.assert_allclose(tr.probs, torch.softmax(logits, -1).numpy(), atol=1e-5)
    assert tr.valid.all() and tr.per_step_accuracy().shape == (16,)
    assert tr.report_correct().shape == (16, 2)
    np.testing.assert_array_equal(tr.conjunction(), tr.report_correct().all(1))


def test_bus_off_dual_rollout_is_cue_blind(dual_b2):
    a = rollout(
        dual_b2.agent,
        E.DUAL_TASK,
        SEEDS[:20],
        BUS_OFF,
        trial_overrides={"secondary": 1, "primary": 2},
    )
    b = rollout(
        dual_b2.agent,
        E.DUAL_TASK,
        SEEDS[:20],
        BUS_OFF,
        trial_overrides={"secondary": 5, "primary": 0},
    )
    np.testing.assert_array_equal(a.action, b.action)
    assert np.count_nonzero(a.slots) == 0


def test_a_rollouts_table_features_are_the_encoders_of_each_step_bit_for_bit(dual_b2):
    """A rollout encodes the simulator's views once; an agent given those features steps exactly
    as one that encodes them at every step (same bits, under noise and a lesion too)."""
    agent = dual_b2.agent
    sim = E.make_batch(E.DUAL_TASK)
    obs = sim.reset(SEEDS[:16])
    features = table_features(agent, obs)
    iv = Intervention(workspace_noise=0.2, self_model_mode="zero", seed=3)
    states = [agent.initial_state(16, iv, torch.Generator().manual_seed(1)) for _ in range(2)]
    rngs = [torch.Generator().manual_seed(2) for _ in range(2)]
    for _ in range(5):
        plain, states[0] = agent.step(observation_at(obs), states[0], iv, rngs[0])
        cached, states[1] = agent.step(observation_at(obs, features), states[1], iv, rngs[1])
        for name in ("logits", "h", "slots", "z_self", "confidence"):
            assert torch.equal(getattr(plain, name), getattr(cached, name)), name
        obs, *_ = sim.step(plain.logits.argmax(1).numpy())


def test_describe_is_plain_language():
    assert describe(Intervention()) == "intact"
    assert "bus-off" in describe(BUS_OFF).split()[-1]
    noisy = describe(Intervention(workspace_noise=0.2, noise_mode="read")).split()
    assert "sigma=0.2" in noisy and "(read)" in noisy  # filled from the intervention's values
