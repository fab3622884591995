"""Behaviour cloning: losses, convergence on an easy setting, determinism, the paper schedule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import labcore.envs as E
from labcore.agents import AgentOutput
from labcore.checks import ChoiceError
from labcore.config import AGENT_KINDS, TrainConfig
from labcore.envs.batch import StepKind, oracle_demonstrations
from labcore.seeding import episode_seeds
from labcore.training.behaviour_cloning import compute_losses, step_weights, train_seeds
from labcore.training.seed_batching import member_demonstrations
from tests.agents.demo_tensors import DemoTensors
from tests.refusals import refused

SMALL = TrainConfig(
    max_updates=40,
    min_updates=20,
    eval_every=10,
    patience=1,
    train_episodes=120,
    heldout_episodes=30,
)


def test_episode_seed_splits_are_disjoint():
    for s in (0, 1, 19, 9999):
        sets = [
            set(episode_seeds(s, split, 100_000).tolist()) for split in ("train", "heldout", "eval")
        ]
        assert not (sets[0] & sets[1]) and not (sets[0] & sets[2]) and not (sets[1] & sets[2])
    assert not set(episode_seeds(0, "train", 100_000)) & set(episode_seeds(1, "train", 100_000))
    assert refused(ChoiceError, episode_seeds, 0, "test", 1).name == "split"


def test_step_weights_follow_the_paper():
    demos = DemoTensors.from_demonstrations(oracle_demonstrations(E.DUAL_TASK, range(3)))
    w = step_weights(demos.step_kind, demos.valid, TrainConfig())
    assert torch.all(w[demos.step_kind == StepKind.ORDINARY] == 1.0)
    assert torch.all(w[demos.step_kind == StepKind.REPORT_1] == 3.0)
    assert torch.all(w[demos.step_kind == StepKind.REPORT_2] == 60.0)
    wager = DemoTensors.from_demonstrations(oracle_demonstrations(E.WAGERING, range(20)))
    w = step_weights(wager.step_kind, wager.valid, TrainConfig())
    assert torch.all(w[wager.step_kind == StepKind.WAGER] == 0.0)
    assert torch.all(w[~wager.valid] == 0.0)


def test_tiny_training_run_converges_on_the_easy_steps(e1_agent):
    # E1 with 120 updates: navigation is learned, and the decision tracks the noisy cue well
    # above chance (the ideal observer is at 85.9%).
    rec = e1_agent.record
    assert rec["heldout_agreement"] > 0.95
    assert rec["heldout_report_agreement"] > 0.70
    assert rec["history"][-1]["agreement"] >= rec["history"][0]["agreement"] - 0.01
    assert rec["criterion_attainable"] and not rec["excluded"]
    assert set(rec["versions"]) >= {"torch", "numpy", "minigrid", "gymnasium"}


def test_training_is_deterministic_by_seed():
    cfg = TrainConfig(
        max_updates=20, min_updates=20, eval_every=10, train_episodes=100, heldout_episodes=20
    )
    a = train_seeds("wagering", "b2_ws", [7], cfg)[0]
    b = train_seeds("wagering", "b2_ws", [7], cfg)[0]
    c = train_seeds("wagering", "b2_ws", [8], cfg)[0]
    for x, y in zip(a.agent.state_dict().values(), b.agent.state_dict().values(), strict=True):
        assert torch.equal(x, y)
    assert a.record["history"] == b.record["history"]
    assert not torch.equal(a.agent.policy[0].weight, c.agent.policy[0].weight)


def test_cue_blind_agents_are_flagged_not_excluded():
    cfg = TrainConfig(
        max_updates=20, min_updates=20, eval_every=10, train_episodes=100, heldout_episodes=30
    )
    rec = train_seeds("dual", "a1", [0], cfg)[0].record
    assert rec["criterion_attainable"] is False
    assert rec["excluded"] is False
    assert rec["heldout_agreement"] < 0.3


def test_paper_mode_makes_one_update_per_step():
    cfg = TrainConfig(mode="paper", train_episodes=3, heldout_episodes=10)
    rec = train_seeds("wagering", "b2_ws", [0], cfg)[0].record
    demos = oracle_demonstrations(E.WAGERING, episode_seeds(0, "train", 3))
    kinds = demos.step_kind[demos.valid]
    # Every valid step except the wager steps (zero loss) is one optimizer update.
    assert rec["updates"] == int((kinds != StepKind.WAGER).sum())
    assert rec["mode"] == "paper" and rec["episodes_seen"] == 3


def test_bad_training_arguments():
    assert refused(ChoiceError, train_seeds, "maze", "b1", [0]).name == "task"
    assert refused(ChoiceError, train_seeds, "dual", "b9", [0]).name == "kind"
    assert refused(ChoiceError, TrainConfig, mode="slow").name == "mode"
    assert np.isfinite(TrainConfig().lr)


def _same_weights(a, b) -> bool:
    return all(
        torch.equal(x, y)
        for x, y in zip(a.agent.state_dict().values(), b.agent.state_dict().values(), strict=True)
    )


@pytest.mark.parametrize(
    ("task", "kind"),
    [
        ("wagering", "b2_ws"),
        ("dual", "b2"),
        ("dual", "b1_reg"),
        ("dual", "hot_only"),
        ("wagering", "reward_wager"),
    ],
)
def test_a_member_trained_in_a_batch_is_the_seed_trained_alone(task, kind):
    # Tolerance zero: the same seed gets the same weights, bit for bit, alone or in any batch
    # (MKL's reproducible mode, a task-fixed step table and padding, batches of >= 2 rows).
    solo = train_seeds(task, kind, [5], SMALL)[0]
    for seeds in ([5, 6], [3, 5, 7]):
        batch = train_seeds(task, kind, seeds, SMALL)
        member = batch[seeds.index(5)]
        assert _same_weights(member, solo)
        assert member.record["history"] == solo.record["history"]
        for key in ("heldout_agreement", "heldout_loss", "updates", "best_update", "final_update"):
            assert member.record[key] == solo.record[key]
        assert member.record["batch_seeds"] == seeds


def test_members_converge_independently():
    # A member that stops early is frozen with its best weights; the others go on, and each
    # stops exactly where it stops when trained alone.
    batch = train_seeds("dual", "hot_only", [3, 5, 7], SMALL)
    stops = [b.record["updates"] for b in batch]
    assert len(set(stops)) > 1
    for seed, member in zip([3, 5, 7], batch, strict=True):
        assert (
            member.record["updates"]
            == train_seeds("dual", "hot_only", [seed], SMALL)[0].record["updates"]
        )
        assert member.record["best_update"] <= member.record["final_update"]


def test_paper_mode_batch_equals_solo():
    cfg = TrainConfig(mode="paper", train_episodes=4, heldout_episodes=10)
    batch = train_seeds("wagering", "b2_ws", [3, 5], cfg)
    solo = train_seeds("wagering", "b2_ws", [5], cfg)[0]
    assert _same_weights(batch[1], solo)
    assert batch[1].record["updates"] == solo.record["updates"]


def test_paper_mode_resumes_a_killed_run_bit_for_bit(tmp_path, monkeypatch):
    # A paper-schedule batch killed mid-run continues from its snapshot and ends with the
    # numbers of an uninterrupted run. Snapshots every episode here; the kill comes after episode 3.
    import labcore.training.behaviour_cloning as T

    monkeypatch.setattr(T, "SNAPSHOT_EVERY", 1)
    cfg = TrainConfig(mode="paper", train_episodes=6, heldout_episodes=10)
    whole = train_seeds("dual", "b1", [3, 5], cfg)
    snapshot = tmp_path / "batch.resume.pt"

    class Killed(Exception):
        pass

    def kill_after_three(done, total, metrics):
        if done == 3:
            raise Killed

    with pytest.raises(Killed):
        train_seeds("dual", "b1", [3, 5], cfg, progress=kill_after_three, resume=snapshot)
    assert snapshot.exists()
    episodes_run = []
    resumed = train_seeds(
        "dual", "b1", [3, 5], cfg, progress=lambda d, t, m: episodes_run.append(d), resume=snapshot
    )
    assert episodes_run == [
        3,
        4,
        5,
        6,
    ]  # from the last snapshot (after episode 2), not from the start
    for a, b in zip(whole, resumed, strict=True):
        assert _same_weights(a, b)
        assert (
            a.record["updates"] == b.record["updates"]
            and a.record["history"] == b.record["history"]
        )
    # a snapshot of another batch (other seeds) is ignored, not loaded into the wrong agents
    other = train_seeds("dual", "b1", [4, 6], cfg, resume=snapshot)
    assert _same_weights(other[0], train_seeds("dual", "b1", [4, 6], cfg)[0])


def _uniform_output(batch) -> AgentOutput:
    # Uniform logits: every step's cross-entropy is log 7, so a step's loss is its coefficient.
    logits = torch.zeros(*batch.action.shape, E.N_ACTIONS, requires_grad=True)
    return AgentOutput(logits=logits, h=logits, proposal_logits=logits)


def test_paper_mode_step_losses_carry_the_report_weights():
    (demos,) = member_demonstrations(E.DUAL_TASK, [np.stack([episode_seeds(0, "train", 1)] * 2)])
    cfg = TrainConfig(mode="paper")
    full = step_weights(demos.step_kind, demos.valid, cfg)
    normaliser = full.flatten(1).sum(1) / (full > 0).flatten(1).sum(1)

    def step_loss(t: int) -> float:
        mask = torch.zeros_like(demos.valid)
        mask[:, :, t] = True
        out = _uniform_output(demos)
        return float(
            compute_losses(AGENT_KINDS["b1"], out, demos, cfg, mask, normaliser).total[0].detach()
        )

    ordinary = step_loss(5)
    # Under the old per-step normalisation the weight divided itself away (all ratios 1).
    assert step_loss(30) / ordinary == pytest.approx(3.0)
    assert step_loss(31) / ordinary == pytest.approx(60.0)
    assert ordinary == pytest.approx(np.log(7) / float(normaliser[0]))


def test_fast_mode_gradient_carries_the_report_weights():
    (demos,) = member_demonstrations(E.DUAL_TASK, [np.stack([episode_seeds(0, "train", 3)] * 2)])
    for primary, expected in ((20.0, 60.0), (1.0, 3.0)):
        out = _uniform_output(demos)
        losses = compute_losses(
            AGENT_KINDS["b1"], out, demos, TrainConfig(primary_class_weight=primary)
        )
        (grad,) = torch.autograd.grad(losses.total.sum(), out.logits)
        norms = grad[0].norm(dim=-1)  # (episodes, steps): the same norm per unit of weight
        assert torch.allclose(norms[:, 31] / norms[:, 5], torch.tensor(expected))
        assert torch.allclose(norms[:, 30] / norms[:, 5], torch.tensor(3.0))


def test_demonstrations_are_remembered_per_task_and_seeds():
    from labcore.training import seed_batching as D

    D._demonstrations.cache_clear()
    seeds = episode_seeds(0, "train", 3)
    first = D.cached_demonstrations(E.WAGERING, seeds)
    fresh = oracle_demonstrations(E.WAGERING, seeds)
    assert first.seeds.dtype == np.int64 and np.array_equal(first.seeds, fresh.seeds)
    assert np.array_equal(first.action, fresh.action)
    assert D.cached_demonstrations(E.WAGERING, list(seeds)) is first  # same int64 seeds: a hit
    assert D.cached_demonstrations(E.DUAL_TASK, seeds) is not first
    info = D._demonstrations.cache_info()
    assert (info.hits, info.misses, info.maxsize) == (1, 2, D.DEMO_CACHE_SIZE)
