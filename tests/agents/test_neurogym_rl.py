"""The NeuroGym trainer's options reach the gradient (labcore/training/neurogym_trainer.py): zero
readout,
input scale, the GRU baseline, the entropy term and its schedule, policy steps, the behavioural
stopping rule, and same seed same numbers. Tiny budgets throughout (a few seconds each)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

import labcore.training.neurogym_trainer as R
from labcore.agents.neurogym import draw_trials, policy_pass
from labcore.agents.plain import PlainGRUPolicy
from labcore.envs.channels import CUE_DIM

pytestmark = pytest.mark.usefixtures("neurogym_installed")
TINY = replace(
    R.SONG_2017,
    max_updates=6,
    eval_every=3,
    train_pool=300,
    heldout_trials=60,
    trials_per_update=16,
)


@pytest.fixture(autouse=True)
def one_thread():
    """Small GRU passes on a shared 2-core machine: one thread is 50x faster than oversubscribed
    two."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def batch():
    return draw_trials(11, 24)


def grads(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: p.grad.clone() for k, p in module.named_parameters() if p.grad is not None}


def loss_and_grads(net, batch, cfg, baseline=None, seed=0, update=1):
    for module in (net, baseline):
        if module is not None:
            module.zero_grad(set_to_none=True)
    loss, parts = R.update_loss(
        net, batch, cfg, torch.Generator().manual_seed(seed), baseline=baseline, update=update
    )
    loss.backward()
    return parts, grads(net), (grads(baseline) if baseline is not None else {})


@pytest.mark.parametrize("agent", R.AGENTS)
def test_zero_readout_gives_a_uniform_policy_and_default_does_not(agent, batch):
    uniform = policy_pass(R.build_network(agent, "rl", 0, TINY), batch)
    probs = torch.softmax(uniform.logits, -1)
    assert torch.allclose(probs, torch.full_like(probs, 0.25))
    default = policy_pass(
        R.build_network(agent, "rl", 0, replace(TINY, readout_init="default")), batch
    )
    assert not torch.allclose(torch.softmax(default.logits, -1), probs)


@pytest.mark.parametrize("agent", R.AGENTS)
def test_input_scale_multiplies_the_input_weights_only(agent):
    one = R.build_network(agent, "rl", 3, replace(TINY, input_scale=1.0, readout_init="default"))
    ten = R.build_network(agent, "rl", 3, replace(TINY, input_scale=10.0, readout_init="default"))
    for a, b in zip(R.input_weights(one), R.input_weights(ten), strict=True):
        torch.testing.assert_close(b, 10 * a)
    scaled = {w.data_ptr() for w in R.input_weights(ten)}
    n_other = 0
    for (name, a), (_, b) in zip(one.state_dict().items(), ten.state_dict().items(), strict=True):
        if b.data_ptr() in scaled or (agent == "b2_ws" and name == "write.weight"):
            continue
        torch.testing.assert_close(a, b, msg=name)
        n_other += 1
    assert n_other > 3
    if (
        agent == "b2_ws"
    ):  # the write's columns reading the carrier are not scaled, its cue columns are
        torch.testing.assert_close(ten.write.weight[:, CUE_DIM:], one.write.weight[:, CUE_DIM:])
        torch.testing.assert_close(
            ten.write.weight[:, :CUE_DIM], 10 * one.write.weight[:, :CUE_DIM]
        )


def test_gru_baseline_is_trained_on_its_error_and_its_values_reach_the_policy_gradient(batch):
    net = R.build_network("plain_gru", "rl", 0, TINY)
    baseline = R.build_baseline(net, batch, 0, TINY)
    _, policy_grads, baseline_grads = loss_and_grads(net, batch, TINY, baseline)
    assert baseline_grads and all(g.abs().sum() > 0 for g in baseline_grads.values())
    with torch.no_grad():
        baseline.readout.bias += 1.0  # other baseline values, same batch and actions
    _, shifted, _ = loss_and_grads(net, batch, TINY, baseline)
    assert any(not torch.allclose(policy_grads[k], shifted[k]) for k in policy_grads)
    # the baseline never trains the policy: its input is detached
    before = {k: p.detach().clone() for k, p in baseline.named_parameters()}
    optimizer = torch.optim.Adam(baseline.parameters(), lr=1e-2)
    loss_and_grads(net, batch, TINY, baseline)
    optimizer.step()
    assert any(not torch.equal(before[k], p) for k, p in baseline.named_parameters())


def test_baseline_gradient_is_only_its_squared_error(batch):
    net = R.build_network("b2_ws", "rl", 0, TINY)
    baseline = R.build_baseline(net, batch, 0, TINY)
    _, _, full = loss_and_grads(net, batch, TINY, baseline)
    # recompute the baseline's squared error alone on the same sampled actions
    out = policy_pass(net, batch)
    actions = R._sample(out.logits, torch.Generator().manual_seed(0))
    from labcore.agents.neurogym import payoffs
    from labcore.training.actor_critic import gae

    values = baseline(out.features, actions)
    valid = torch.as_tensor(batch.valid)
    _, returns = gae(torch.as_tensor(payoffs(batch, actions.numpy())), values, valid, 1.0, 1.0)
    baseline.zero_grad(set_to_none=True)
    (((values - returns) ** 2 * valid).sum() / valid.sum()).backward()
    for k, g in grads(baseline).items():
        torch.testing.assert_close(full[k], g)


def test_value_head_baseline_trains_the_critic(batch):
    cfg = replace(TINY, baseline="value_head")
    net = R.build_network("plain_gru", "rl", 0, cfg)
    assert isinstance(net, PlainGRUPolicy) and net.config.value_head
    _, g, _ = loss_and_grads(net, batch, cfg)
    assert g["value_head.weight"].abs().sum() > 0


def test_entropy_term_changes_the_policy_gradient(batch):
    net = R.build_network("plain_gru", "rl", 0, replace(TINY, readout_init="default"))
    baseline = R.build_baseline(net, batch, 0, TINY)
    _, with_bonus, _ = loss_and_grads(net, batch, replace(TINY, entropy_coef=0.5), baseline)
    _, without, _ = loss_and_grads(net, batch, replace(TINY, entropy_coef=0.0), baseline)
    assert not torch.allclose(with_bonus["readout.weight"], without["readout.weight"])
    # the schedule's coefficient at the update is the one used
    sched = replace(TINY, entropy_coef=0.5, entropy_final=0.0, entropy_anneal_updates=10)
    _, at_end, _ = loss_and_grads(net, batch, sched, baseline, update=10)
    torch.testing.assert_close(at_end["readout.weight"], without["readout.weight"])


def test_entropy_schedule_and_floor():
    cfg = replace(TINY, entropy_coef=0.02, entropy_final=0.005, entropy_anneal_updates=100)
    assert cfg.entropy_at(1) == pytest.approx(0.02 - 0.015 / 100)
    assert cfg.entropy_at(50) == pytest.approx(0.0125)
    assert cfg.entropy_at(100) == cfg.entropy_at(10_000) == pytest.approx(0.005)
    assert TINY.entropy_at(7) == TINY.entropy_coef


def test_policy_steps_all_or_scored_change_the_loss(batch):
    net = R.build_network("plain_gru", "rl", 0, replace(TINY, readout_init="default"))
    baseline = R.build_baseline(net, batch, 0, TINY)
    _, every, _ = loss_and_grads(net, batch, TINY, baseline)
    _, scored, _ = loss_and_grads(net, batch, replace(TINY, policy_steps="scored"), baseline)
    assert not torch.allclose(every["readout.weight"], scored["readout.weight"])


def test_check_rates_and_criterion_by_hand():
    counts = [
        {"coherence": 0.0, "sure_offered": 1, "choice": "sure", "correct": None, "n": 4},
        {"coherence": 0.0, "sure_offered": 1, "choice": "left", "correct": 1, "n": 6},
        {"coherence": 51.2, "sure_offered": 0, "choice": "right", "correct": 1, "n": 7},
        {"coherence": 51.2, "sure_offered": 0, "choice": "left", "correct": 0, "n": 2},
        {"coherence": 51.2, "sure_offered": 0, "choice": "sure", "correct": None, "n": 1},
    ]
    rates = R.check_rates(counts)
    assert rates["answered"] == pytest.approx(19 / 20)  # the not-offered sure choice is no answer
    assert rates["accuracy"] == pytest.approx(13 / 15)
    assert rates["p_sure_offered"] == pytest.approx(4 / 10)
    cfg = replace(TINY, criterion_answered=0.9)
    assert R.criterion_met(rates, 0.35, cfg) and not R.criterion_met(rates, 0.25, cfg)
    assert not R.criterion_met(rates, 0.35, TINY)  # answered 0.95 < 0.99


def test_the_stopping_rule_stops_after_the_streak(monkeypatch):
    monkeypatch.setattr(R, "criterion_met", lambda rates, ideal, cfg: True)
    _, record = R.train_network(
        0, replace(TINY, max_updates=20, eval_every=2, criterion_streak=2), agent="plain_gru"
    )
    assert record["stopped"] == "criterion" and record["updates"] == 4
    _, capped = R.train_network(
        0, replace(TINY, max_updates=4, eval_every=2, stop_rule="none"), agent="plain_gru"
    )
    assert capped["stopped"] == "cap" and capped["updates"] == 4


def test_record_has_sampled_and_greedy_checks():
    _, record = R.train_network(1, TINY, agent="plain_gru")
    last = record["history"][-1]
    for mode in ("sampled", "greedy"):
        assert {
            f"{mode}_{k}" for k in ("reward", "answered", "accuracy", "p_sure_offered", "counts")
        } <= set(last)
        assert sum(c["n"] for c in last[f"{mode}_counts"]) == TINY.heldout_trials
    assert [p["update"] for p in record["sure_propensity_early"]] == [0, 5]
    assert 0 < record["ideal_heldout_p_sure_offered"] < 1


def test_same_seed_same_numbers_and_checks_never_change_training():
    first, rec1 = R.train_network(2, TINY, agent="b2_ws")
    again, rec2 = R.train_network(2, TINY, agent="b2_ws")
    for (k, a), (_, b) in zip(first.state_dict().items(), again.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    assert rec1["history"] == rec2["history"]
    rarely, _ = R.train_network(2, replace(TINY, eval_every=6), agent="b2_ws")
    for (k, a), (_, b) in zip(first.state_dict().items(), rarely.state_dict().items(), strict=True):
        assert torch.equal(a, b), k


def test_sgd_and_imitation_run():
    _, record = R.train_network(
        0, replace(TINY, optimizer="sgd", max_updates=2, eval_every=2), agent="plain_gru"
    )
    assert np.isfinite(record["history"][-1]["train_reward"])
    _, record = R.train_network(
        0, replace(TINY, max_updates=2, eval_every=2), trainer="imitation", agent="plain_gru"
    )
    assert record["kind"] == "plain_gru" and "train_imitation_loss" in record["history"][-1]


@pytest.mark.parametrize(
    "bad",
    [
        dict(optimizer="rmsprop"),
        dict(baseline="critic"),
        dict(input_scale=0.0),
        dict(policy_steps="some"),
        dict(stop_rule="early"),
        dict(criterion_streak=0),
    ],
)
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):
        replace(TINY, **bad)
