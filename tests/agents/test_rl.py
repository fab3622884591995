"""E4 arm (b), ``reward_all``: actor-critic on the task's reward alone
(``labcore.training.actor_critic``, protocol 8.3).

The A2C loss on two-armed bandits (immediate and delayed reward: it must find the better arm,
whichever it is); GAE against hand-computed values; the wager rule in sampled rollouts (the
executed wager action is the sampled bet, the environment pays its payoff, and the loss sees
exactly those rewards); the value head leaves every other kind's weights alone; same seed, same
weights; the no-rewire lesion on a reward-trained agent; the command line ``--trainer rl``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import labcore.envs as E
from labcore.agents import build_agent
from labcore.checks import ConfigError
from labcore.cli import main, training_jobs
from labcore.config import AGENT_KINDS, Intervention, TrainConfig, trainer_of
from labcore.envs.batch import StepKind
from labcore.envs.channels import CONTENT_SLICE, EVENT_INDEX
from labcore.envs.labels import STIMULUS_CELL
from labcore.envs.tables import pose_tables
from labcore.envs.wagering import BET_ACTION, LAYOUT, OPT_OUT_ACTION, RESPONSE_CELLS
from labcore.rollout import rollout
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint, read_record
from labcore.training.actor_critic import (
    RLConfig,
    a2c_loss,
    collect,
    episode_losses,
    gae,
    policy_terms,
    train_seeds,
)
from labcore.training.behaviour_cloning import train_seeds as bc_train_seeds
from labcore.training.wager_reward import payoff
from tests.refusals import refused

TINY = RLConfig(
    episodes_per_update=32, max_updates=30, min_updates=30, eval_every=15, heldout_episodes=50
)


# ---------------------------------------------------------------------------- the A2C pieces
def test_gae_matches_hand_computed_values():
    rewards = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    values = torch.tensor([[0.5, 0.6, 0.7], [0.2, 0.3, 9.0]])  # 9.0: a padded step, never read
    valid = torch.tensor([[True, True, True], [True, True, False]])
    adv, ret = gae(rewards, values, valid, gamma=1.0, lam=0.95)
    # episode 1: deltas 0.1, 0.1, 0.3; A2 = 0.3, A1 = 0.1 + 0.95 * 0.3, A0 = 0.1 + 0.95 * A1
    # episode 2 ends after step 1: deltas 1.1 (1 + 0.3 - 0.2), -0.3; A0 = 1.1 + 0.95 * -0.3
    expected = torch.tensor([[0.1 + 0.95 * 0.385, 0.385, 0.3], [0.815, -0.3, 0.0]])
    torch.testing.assert_close(adv, expected)
    torch.testing.assert_close(ret, (expected + values) * valid)
    # lambda = 1: Monte Carlo (the return minus the value); lambda = 0: one-step TD errors
    mc, _ = gae(rewards, values, valid, 1.0, 1.0)
    torch.testing.assert_close(mc[:, 0], torch.tensor([1.0 - 0.5, 1.0 - 0.2]))
    td, _ = gae(rewards, values, valid, 1.0, 0.0)
    torch.testing.assert_close(td, torch.tensor([[0.1, 0.1, 0.3], [1.1, -0.3, 0.0]]))


def _bandit(means: tuple[float, float], delayed: bool, updates: int = 120, seed: int = 0) -> float:
    """P(arm 1) after A2C on a two-armed bandit with Gaussian rewards (SD 0.5) of these means.

    ``delayed``: the reward of the arm comes one step later (an episode is the choice, then a
    step whose action is ignored), so the choice's advantage reaches it only through GAE's
    recursion (without it the normalised advantage of the choice would be 0: no learning).
    """
    gen = torch.Generator().manual_seed(seed)
    logits = torch.zeros(2, requires_grad=True)
    value = torch.zeros(2 if delayed else 1, requires_grad=True)  # one value per step
    opt = torch.optim.Adam([logits, value], lr=0.05)
    cfg = RLConfig(entropy_coef=0.001)
    batch, steps = 64, 2 if delayed else 1
    for _ in range(updates):
        arm = torch.multinomial(
            torch.softmax(logits, -1).detach().expand(batch, 2), 1, generator=gen
        )[:, 0]
        reward = torch.tensor(means)[arm] + 0.5 * torch.randn(batch, generator=gen)
        rewards = torch.zeros(batch, steps)
        rewards[:, -1] = reward
        actions = torch.stack([arm] + [torch.zeros_like(arm)] * (steps - 1), 1)
        log_prob, entropy = policy_terms(logits.expand(batch, steps, 2), actions)
        values = value.expand(batch, steps)
        valid = torch.ones(batch, steps, dtype=torch.bool)
        adv, ret = gae(rewards, values, valid, 1.0, 0.95)
        policy_mask = torch.zeros_like(valid)
        policy_mask[:, 0] = True  # only the choice is the policy's
        loss, _ = a2c_loss(log_prob, entropy, values, adv, ret, policy_mask, valid, cfg)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(torch.softmax(logits.detach(), -1)[1])


@pytest.mark.parametrize("delayed", [False, True])
def test_a2c_on_a_two_armed_bandit_picks_the_better_arm(delayed):
    assert _bandit((0.2, 0.6), delayed) > 0.95
    assert (
        _bandit((0.6, 0.2), delayed) < 0.05
    )  # whichever arm it is (a wrong sign fails one of them)


# ---------------------------------------------------------------------------- rollouts and the
# wager
class ScriptedObserver:
    """Reads the flash like the ideal observer, walks to its side, and reports a fixed
    confidence."""

    def __init__(self, confidence: float):
        tables = pose_tables(LAYOUT)
        self.to_stimulus = tables.navigation([STIMULUS_CELL])[1]
        self.to_zone = [tables.navigation([cell])[1] for cell in RESPONSE_CELLS]
        self.confidence = confidence

    def initial_state(self, n):
        return np.full(n, -1)

    def step(self, obs, belief):
        cue = obs.cue.numpy()
        content = cue[:, CONTENT_SLICE][:, :2]
        belief = np.where(cue[:, EVENT_INDEX] > 0, content.argmax(1), belief)
        pose = obs.pose.numpy()
        action = np.where(
            belief < 0,
            self.to_stimulus[pose],
            np.where(belief == 0, self.to_zone[0][pose], self.to_zone[1][pose]),
        )
        logits = 20.0 * torch.nn.functional.one_hot(torch.as_tensor(action), E.N_ACTIONS).float()
        return SimpleNamespace(
            logits=logits, confidence=torch.full((len(pose),), self.confidence)
        ), belief


def test_the_wager_step_executes_the_sampled_bet_and_the_environment_pays_its_payoff():
    episodes = collect(
        ScriptedObserver(0.7), episode_seeds(0, "train", 600), torch.Generator().manual_seed(0)
    )
    at_wager = episodes.valid & (episodes.step_kind == StepKind.WAGER)
    wager = at_wager.any(1)
    assert (wager == episodes.wager).all() and 200 < wager.sum() < 400  # about half the trials
    executed = episodes.action[at_wager]  # one wager step per wager trial, in trial order
    bet = episodes.bet[wager]
    assert ((executed == BET_ACTION) == bet).all() and ((executed == OPT_OUT_ACTION) == ~bet).all()
    assert 0.6 < bet.mean() < 0.8  # Bernoulli(0.7)
    paid = payoff(torch.as_tensor(bet), torch.as_tensor(episodes.correct[wager]), -1.0).numpy()
    np.testing.assert_array_equal(episodes.reward[at_wager], paid)
    assert set(np.unique(paid)) == {-1.0, 0.0, 1.0}
    # Trials without a wager: +1 for the correct zone, 0 otherwise; every trial was decided.
    np.testing.assert_array_equal(
        episodes.reward[~wager].sum(1), episodes.correct[~wager].astype(float)
    )
    assert 0.8 < episodes.correct.mean() < 0.92  # the ideal observer: 85.9% in expectation
    # The update's wager term sees exactly these rewards (the sampled bets, no other label).
    agent = build_agent("reward_all", 0)
    loss, parts = episode_losses(agent, episodes, RLConfig())
    assert torch.isfinite(loss)
    assert parts["wager_reward"] == pytest.approx(float(paid.mean()), abs=1e-6)
    assert parts["reward"] == pytest.approx(float(episodes.reward.sum(1).mean()), abs=1e-6)


def test_the_same_seed_samples_the_same_episodes_and_the_confidence_sets_the_bets():
    seeds = episode_seeds(1, "train", 300)
    a, b = (
        collect(ScriptedObserver(0.7), seeds, torch.Generator().manual_seed(5)) for _ in range(2)
    )
    np.testing.assert_array_equal(a.action, b.action)
    never = collect(ScriptedObserver(0.0), seeds, torch.Generator().manual_seed(5))
    always = collect(ScriptedObserver(1.0), seeds, torch.Generator().manual_seed(5))
    assert not never.bet[never.wager].any() and always.bet[always.wager].all()


# ---------------------------------------------------------------------------- the agent
def test_the_value_head_leaves_every_other_weight_as_in_b2_ws():
    assert trainer_of("reward_all") == "rl" and AGENT_KINDS["reward_all"].value_head
    assert not any(c.value_head for k, c in AGENT_KINDS.items() if k != "reward_all")
    b2, rl = build_agent("b2_ws", 4).state_dict(), build_agent("reward_all", 4).state_dict()
    assert {k for k in rl if not k.startswith("value_head.")} == set(b2)
    assert all(torch.equal(b2[k], rl[k]) for k in b2)  # the same initial agent, plus a critic
    with pytest.raises(ValueError, match=r"AgentConfig\.value_head"):  # names what it lacks
        build_agent("b2_ws").value(None)


def test_same_seed_same_weights():
    cfg = replace(
        TINY,
        max_updates=6,
        min_updates=6,
        eval_every=3,
        episodes_per_update=16,
        heldout_episodes=20,
    )
    first, again, other = (train_seeds("wagering", "reward_all", [s], cfg)[0] for s in (3, 3, 4))
    a, b, c = (t.agent.state_dict() for t in (first, again, other))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert first.record["history"] == again.record["history"]


@pytest.fixture(scope="module")
def trained():
    """A briefly reward-trained agent (30 updates) and its initial weights."""
    return train_seeds("wagering", "reward_all", [0], TINY)[0], build_agent("reward_all", 0)


def test_zeroing_z_self_on_a_reward_trained_agent_leaves_the_policy_unchanged(trained):
    done, initial = trained
    agent = done.agent
    moved = [
        k for k, v in initial.state_dict().items() if not torch.equal(v, agent.state_dict()[k])
    ]
    assert {
        "self_model.weight",
        "confidence_head.weight",
        "policy.0.weight",
        "value_head.0.weight",
    } <= set(moved)
    seeds = episode_seeds(0, "eval", 200)
    intact = rollout(agent, E.WAGERING, seeds)
    lesioned = rollout(agent, E.WAGERING, seeds, Intervention(self_model_mode="zero"))
    # Workspace-read routing: the policy never reads z_self, so every logit and every action the
    # policy takes is the same bit for bit; only the confidence (and so the bets) changes.
    np.testing.assert_array_equal(intact.valid, lesioned.valid)
    np.testing.assert_array_equal(intact.logits, lesioned.logits)
    np.testing.assert_array_equal(
        np.where(intact.scored, intact.action, -1), np.where(lesioned.scored, lesioned.action, -1)
    )
    assert np.abs(lesioned.z_self).max() == 0 < np.abs(intact.z_self[intact.valid]).max()
    valid = intact.valid
    assert np.ptp(lesioned.confidence[valid]) == 0 < np.ptp(intact.confidence[valid])


def test_the_record_has_the_learning_curve(trained):
    record = trained[0].record
    assert [h["update"] for h in record["history"]] == [15, 30]
    for h in record["history"]:
        assert {
            "heldout_accuracy",
            "heldout_auroc",
            "heldout_reward",
            "heldout_confidence",
            "heldout_opt_out",
            "heldout_wager_reward",
            "agreement",
            "train_reward",
            "train_entropy",
        } <= set(h)
    assert record["trainer"] == "rl" and record["criterion"] == 0.80
    assert record["excluded"] == (record["heldout_accuracy"] < 0.80)
    json.dumps(record, allow_nan=False)  # None, not nan, where a value is undefined


# ---------------------------------------------------------------------------- the command line
def test_only_the_rl_trainer_makes_reward_all():
    assert training_jobs("e4", "all", "fast", "rl") == [("wagering", "reward_all", None)]
    assert ("wagering", "reward_all", None) not in training_jobs("e4", "all", "fast", "bc")
    assert ("wagering", "reward_all", None) in training_jobs("e4", "all", "fast")
    for args, named in [
        (("e4", "reward_all", "fast", "bc"), "rl"),  # made by the other trainer: the right one
        (("e4", "b2_ws", "fast", "rl"), "bc"),
        (("e4", "reward_all", "paper"), "--mode"),  # fast mode only
        (
            ("e2", "reward_all", "fast"),
            "E4",
        ),  # the wagering task only: the experiments that have it
    ]:
        assert named in str(refused(SystemExit, training_jobs, *args))
    tiny = TrainConfig(max_updates=1, min_updates=1)
    bc = refused(ConfigError, bc_train_seeds, "wagering", "reward_all", [0], tiny)
    assert bc.fields == ("kind", "trainer")
    assert refused(ConfigError, train_seeds, "wagering", "b2_ws", [0], TINY).fields == (
        "kind",
        "trainer",
    )


def test_cli_trains_reward_all_with_rl_and_writes_a_loadable_checkpoint(tmp_path, capsys):
    main(
        [
            "train",
            "--experiment",
            "e4",
            "--agent",
            "reward_all",
            "--seeds",
            "0",
            "--trainer",
            "rl",
            "--out",
            str(tmp_path),
            "--max-updates",
            "10",
        ]
    )
    assert "accuracy" in capsys.readouterr().out
    record = read_record(tmp_path, "wagering-reward_all-s0")
    assert (
        record["trainer"] == "rl"
        and record["updates"] == 10
        and record["train_config"]["max_updates"] == 10
    )
    assert record["history"][-1]["update"] == 10 and "heldout_auroc" in record["history"][-1]
    loaded = load_checkpoint(checkpoint_file(tmp_path, "wagering-reward_all-s0"))
    assert loaded.agent.config == AGENT_KINDS["reward_all"] and loaded.entry["kind"] == "reward_all"
