"""E4 again (protocol 8.8): each training option reaches the gradient, the confidence-spread rule on
hand-made cases (against a brute-force count of bets), R1-R4 as registered, and the wager phase on a
tiny budget.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

import labcore.envs as E
from labcore.agents import build_agent
from labcore.agents.sequence import (
    AgentOutput,
    masked_centre,
    sequence_forward,
    stack_parameters,
)
from labcore.checks import ConfigError
from labcore.config import AGENT_KINDS, KIND_BUDGETS, TRAINING_OF_KIND, TrainConfig, train_config_of
from labcore.experiments.common import SeedResult
from labcore.experiments.e4_hypotheses import PAIRED_T, SHARE_OF_SEEDS, evaluate, spread_table
from labcore.experiments.paper_study import claim_flags
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
    save_checkpoint,
)
from labcore.training.behaviour_cloning import _optimizer_step, compute_losses, train_seeds
from labcore.training.seed_batching import MemberParameters, StackedAdam, member_demonstrations
from labcore.training.wager_reward import (
    SPREAD_MIN_BETS,
    WAGER_HEAD,
    behaviour_probability,
    confidence_spread,
    sample_bets,
    wager_choice_mask,
    wager_reward_loss,
    warm_start,
)
from tests.refusals import refused

NEW_KINDS = (
    "reward_late",
    "reward_late_risky",
    "reward_late_uncentred",
    "reward_late_uncentred_sgd",
)
FIRST_REWARD_KINDS = ("reward_wager", "reward_wager_risky", "reward_workspace", "reward_logits")
TINY = TrainConfig(
    max_updates=40,
    min_updates=20,
    eval_every=10,
    patience=1,
    train_episodes=200,
    heldout_episodes=48,
    wager_updates=20,
    curve_every=5,
)


# ---------------------------------------------------------------------------- defaults and kinds
def test_defaults_leave_the_first_kinds_as_they_were():
    cfg = TrainConfig()
    assert (
        cfg.wager_start,
        cfg.wager_optimizer,
        cfg.bet_floor,
        cfg.bet_entropy_coef,
        cfg.curve_every,
    ) == ("joint", "adam", 0.0, 0.0, 0)
    assert cfg.update_budget == cfg.max_updates
    for kind in ("b2_ws", *FIRST_REWARD_KINDS):
        assert (
            AGENT_KINDS[kind].confidence_head_init == "default"
            and not AGENT_KINDS[kind].confidence_centred
        )
        trained_as = train_config_of(kind, cfg)
        assert (trained_as.wager_start, trained_as.bet_floor, trained_as.wager_optimizer) == (
            "joint",
            0.0,
            "adam",
        )
        assert "confidence_centre" not in build_agent(kind).state_dict()
    assert behaviour_probability(torch.tensor([0.3]), 0.0) is not None
    conf = torch.rand(100)
    assert behaviour_probability(conf, 0.0) is conf  # no floor: the confidence itself, not a copy


def test_the_new_cells_are_registered_as_in_protocol_8_8_3():
    for kind in NEW_KINDS:
        cfg = train_config_of(kind, TrainConfig())
        assert (
            cfg.meta_signal,
            cfg.wager_start,
            cfg.wager_updates,
            cfg.bet_floor,
            cfg.curve_every,
        ) == ("reward", "converged", 3000, 0.05, 5)
        assert cfg.update_budget == cfg.max_updates + 3000
        assert AGENT_KINDS[kind].confidence_head_init == "zero_bias"
        assert (
            replace(
                AGENT_KINDS[kind],
                kind="reward_wager",
                confidence_head_init="default",
                confidence_centred=False,
            )
            == AGENT_KINDS["reward_wager"]
        )  # wiring: arm (a)'s
    assert [AGENT_KINDS[k].confidence_centred for k in NEW_KINDS] == [True, True, False, False]
    assert train_config_of("reward_late_risky", TrainConfig()).wrong_bet_payoff == -3.0
    sgd = train_config_of("reward_late_uncentred_sgd", TrainConfig())
    assert (sgd.wager_optimizer, sgd.wager_sgd_lr) == (
        "sgd",
        0.1,
    )  # change log 2026-11-24: measured, 0.096
    assert (
        train_config_of("reward_late", TrainConfig(wager_updates=7, curve_every=2)).wager_updates
        == 7
    )
    assert set(KIND_BUDGETS) == {"wager_updates", "curve_every"}
    assert (
        train_config_of("reward_late", TrainConfig(meta_signal="label")).meta_signal == "reward"
    )  # not a budget
    late = refused(ConfigError, TrainConfig, wager_start="converged", meta_signal="reward")
    assert late.fields == ("wager_start", "meta_signal", "wager_updates")
    with pytest.raises(ValueError, match="bet_floor"):
        TrainConfig(bet_floor=0.5)
    centred = refused(ConfigError, replace, AGENT_KINDS["b1"], confidence_centred=True)
    assert "self_model" in centred.fields


# ---------------------------------------------------------------------------- head initialisation
@pytest.mark.parametrize("init", ["zero_bias", "zero"])
def test_head_init_sets_the_head_and_draws_no_random_number(init):
    plain = build_agent("reward_wager", 4).state_dict()
    mine = build_agent(
        replace(AGENT_KINDS["reward_wager"], confidence_head_init=init), 4
    ).state_dict()
    assert (
        float(mine["confidence_head.bias"]) == 0.0 and float(plain["confidence_head.bias"]) != 0.0
    )
    assert torch.count_nonzero(mine["confidence_head.weight"]) == (0 if init == "zero" else 64)
    for name in plain:  # every other weight as the plain kind's with this seed
        if not name.startswith("confidence_head."):
            assert torch.equal(plain[name], mine[name]), name
    assert build_agent("reward_late", 0).confidence_head.bias.item() == 0.0


# ---------------------------------------------------------------------------- the centred head
@pytest.fixture(scope="module")
def two_members():
    """Two members (seeds 0 and 1) of ``reward_late`` with a random head, on 16 episodes each."""
    agents = [build_agent("reward_late", s) for s in (0, 1)]
    for agent in agents:
        with torch.no_grad():
            agent.confidence_head.weight.normal_(0, 0.5, generator=torch.Generator().manual_seed(7))
            agent.confidence_head.bias.fill_(0.3)
    demos = member_demonstrations(
        E.WAGERING, [np.stack([episode_seeds(s, "train", 16) for s in (0, 1)])]
    )[0]
    return agents, demos


def _centred_pass(agents, demos, mask, centre=None):
    p = {
        k: v.clone().requires_grad_(v.is_floating_point())
        for k, v in stack_parameters(agents).items()
    }
    if centre is not None:
        p["confidence_centre"] = centre.clone()
    out = sequence_forward(p, agents[0].config, demos.inputs, centre_mask=mask)
    return p, out


def test_centred_features_have_zero_batch_mean_and_the_shared_push_moves_only_the_bias(two_members):
    agents, demos = two_members
    mask = wager_choice_mask(demos.step_kind, demos.valid)
    assert mask.any(-1).sum() >= 8 and (mask.sum(-1) <= 1).all()  # one choice step per wager trial
    p, out = _centred_pass(agents, demos, mask)
    logit = torch.logit(out.confidence.double())
    m = mask.double()
    mean_logit = (logit * m).sum((1, 2)) / m.sum((1, 2))
    # w . (z - mean z) averages to 0 over the wager choice steps: the mean logit is the bias
    torch.testing.assert_close(
        mean_logit, torch.full((2,), 0.3, dtype=torch.float64), rtol=0, atol=1e-5
    )
    # A push shared by every wager trial (the sum of their logits) has no gradient but on the bias
    push = (torch.logit(out.confidence) * mask).sum()
    grads = dict(
        zip(
            p,
            torch.autograd.grad(push, [p[k] for k in p if p[k].requires_grad], allow_unused=True),
            strict=False,
        )
    )
    assert grads["confidence_head.bias"].flatten().tolist() == pytest.approx(
        mask.sum((1, 2)).tolist()
    )
    for name in (
        "confidence_head.weight",
        "self_model.weight",
        "self_model.bias",
        "gru.weight_ih_l0",
    ):
        assert grads[name].abs().max() < 1e-3, name
    # Uncentred (the stored centre at 0), the same push moves the head's weight and the self-model
    _, raw = _centred_pass(agents, demos, None, torch.zeros(2, 64))
    p_raw = {
        k: v.clone().requires_grad_(v.is_floating_point())
        for k, v in stack_parameters(agents).items()
    }
    raw = sequence_forward(p_raw, agents[0].config, demos.inputs)
    (g,) = torch.autograd.grad(
        (torch.logit(raw.confidence) * mask).sum(), [p_raw["confidence_head.weight"]]
    )
    assert g.abs().max() > 1.0


def test_the_stored_centre_is_the_batch_centre_held_fixed(two_members):
    agents, demos = two_members
    mask = wager_choice_mask(demos.step_kind, demos.valid)
    _, batch = _centred_pass(agents, demos, mask)
    centre = masked_centre(batch.z_self, mask).detach()
    assert centre.shape == (2, 64) and centre.abs().max() > 0.01
    _, stored = _centred_pass(agents, demos, None, centre)
    torch.testing.assert_close(stored.confidence, batch.confidence, rtol=0, atol=1e-6)
    # and both execution paths of one agent read its buffer
    agent = build_agent("reward_late", 0).eval()
    with torch.no_grad():
        agent.confidence_head.weight.normal_(0, 0.5, generator=torch.Generator().manual_seed(1))
        agent.confidence_centre.copy_(centre[0])
    obs_out = agent.forward_sequence(demos_obs(0))
    assert not torch.allclose(
        obs_out.confidence,
        build_agent("reward_late", 0).eval().forward_sequence(demos_obs(0)).confidence,
    )


def demos_obs(seed: int):
    from labcore.training.seed_batching import cached_demonstrations
    from tests.agents.demo_tensors import DemoTensors

    return DemoTensors.from_demonstrations(
        cached_demonstrations(E.WAGERING, episode_seeds(seed, "train", 8))
    ).obs


def test_the_step_path_subtracts_the_stored_centre():
    from labcore.rollout import rollout

    agent = build_agent("reward_late", 2).eval()
    with torch.no_grad():
        agent.confidence_head.weight.normal_(0, 0.5, generator=torch.Generator().manual_seed(3))
        agent.confidence_centre.normal_(0, 0.3, generator=torch.Generator().manual_seed(4))
    trace = rollout(agent, E.WAGERING, episode_seeds(2, "eval", 16))
    steps = trace.outcome["choice_step"]
    keep = steps >= 0
    z = torch.as_tensor(trace.z_self[np.flatnonzero(keep), steps[keep]])
    expected = (
        torch.sigmoid(agent.confidence_head(z - agent.confidence_centre))
        .squeeze(-1)
        .detach()
        .numpy()
    )
    np.testing.assert_allclose(trace.outcome["confidence"][keep], expected, rtol=0, atol=1e-6)


# ---------------------------------------------------------------------------- warm start
def test_warm_start_loads_the_policy_and_keeps_a_fresh_wager_head():
    source = load_checkpoint(
        checkpoint_file(BUNDLED_DIR, checkpoint_name("wagering", "b2_ws", 0))
    ).agent.state_dict()
    fresh = build_agent("reward_late", 0)
    before = {k: v.clone() for k, v in fresh.state_dict().items()}
    loaded = warm_start(fresh, "wagering", "b2_ws", 0)
    after = fresh.state_dict()
    assert (
        "policy.0.weight" in loaded
        and "gru.weight_hh_l0" in loaded
        and "stimulus_probe.weight" in loaded
    )
    for name, value in after.items():
        if name.startswith((*WAGER_HEAD, "confidence_centre")):
            assert name not in loaded and torch.equal(value, before[name]), (
                name
            )  # as built: not label-trained
        else:
            assert torch.equal(value, source[name]), name


def test_a_warm_wager_phase_starts_from_the_bundled_policy():
    cfg = TrainConfig(
        meta_signal="reward",
        wager_start="warm",
        wager_updates=1,
        eval_every=10,
        train_episodes=64,
        heldout_episodes=48,
        curve_every=1,
    )
    trained = train_seeds(
        "wagering", replace(AGENT_KINDS["reward_late"], kind="warm_test"), [0], cfg
    )[0]
    rec = trained.record
    assert rec["updates"] == 1 and rec["wager_start_update"] == 1 and len(rec["wager_curve"]) == 1
    assert (
        rec["heldout_agreement"] > 0.95
    )  # one update from a converged policy (a fresh one is at chance)
    assert rec["train_config"]["wager_start"] == "warm"


# ---------------------------------------------------------------------------- the optimiser
def test_sgd_steps_the_wager_head_and_adam_everything_else():
    agents = [build_agent("reward_late_uncentred_sgd", s) for s in (0, 1)]
    grad = torch.randn(
        MemberParameters(agents).flat.shape, generator=torch.Generator().manual_seed(0)
    )
    flats = {}
    for optimiser in ("adam", "sgd"):
        params = MemberParameters(agents)
        start = params.flat.detach().clone()
        cfg = TrainConfig(wager_optimizer=optimiser, wager_sgd_lr=0.1)
        _optimizer_step(StackedAdam(params, cfg.lr), params, grad, cfg)
        flats[optimiser] = params.flat.detach().clone()
    head = params.element_mask(WAGER_HEAD)
    assert 0 < int(head.sum()) < head.numel()
    assert int(head.sum()) == 2 * (
        64 * 89 + 64 + 64 + 1
    )  # self-model layer and confidence head, both members
    torch.testing.assert_close(flats["sgd"][head], start[head] - 0.1 * grad[head], rtol=0, atol=0)
    assert torch.equal(flats["sgd"][~head], flats["adam"][~head])  # the rest: the same Adam step
    adam_step = (flats["adam"][head] - start[head]).abs()
    assert torch.allclose(
        adam_step, torch.full_like(adam_step, 1e-3), atol=1e-6
    )  # Adam: lr-sized, sign-like
    assert not torch.equal(flats["sgd"][head], flats["adam"][head])


# ---------------------------------------------------------------------------- the wager loss
@pytest.fixture(scope="module")
def demos():
    return member_demonstrations(E.WAGERING, [episode_seeds(0, "train", 32)[None]])[0]


def _output(demos, confidence: float) -> AgentOutput:
    """The oracle's action as argmax everywhere (every decision right) and one confidence."""
    logits = 5.0 * torch.nn.functional.one_hot(demos.action, E.N_ACTIONS).float()
    conf = torch.full(demos.action.shape, confidence, requires_grad=True)
    return AgentOutput(logits=logits, h=logits, proposal_logits=logits, confidence=conf)


def _meta_grad(demos, out, cfg, meta_scale=None, seed=0):
    cfg = replace(cfg, meta_signal="reward", self_model_l2=0.0, stimulus_probe_weight=0.0)
    losses = compute_losses(
        AGENT_KINDS["reward_late"],
        out,
        demos,
        cfg,
        generators=[torch.Generator().manual_seed(seed)],
        meta_scale=meta_scale,
    )
    (grad,) = torch.autograd.grad(losses.total.sum(), out.confidence)
    return grad


def test_the_wager_loss_is_off_before_the_wager_phase(demos):
    on = _meta_grad(demos, _output(demos, 0.5), TrainConfig(), torch.ones(1))
    off = _meta_grad(demos, _output(demos, 0.5), TrainConfig(), torch.zeros(1))
    assert torch.count_nonzero(on) > 0 and torch.count_nonzero(off) == 0
    assert torch.equal(
        on, _meta_grad(demos, _output(demos, 0.5), TrainConfig())
    )  # scale 1: as without


def test_the_bet_floor_keeps_opt_outs_in_training(demos):
    conf = torch.ones(1, 40_000)
    for floor in (0.05, 0.2):
        p = behaviour_probability(torch.linspace(0, 1, 101), floor)
        assert p.min() >= floor - 1e-7 and p.max() <= 1 - floor + 1e-7 and (p.diff() > 0).all()
        opt_outs = 1 - sample_bets(conf, [torch.Generator().manual_seed(1)], floor).float().mean()
        assert abs(float(opt_outs) - floor) < 4 * math.sqrt(floor * (1 - floor) / conf.numel())
        bets = (
            sample_bets(torch.zeros(1, 40_000), [torch.Generator().manual_seed(2)], floor)
            .float()
            .mean()
        )
        assert abs(float(bets) - floor) < 4 * math.sqrt(floor * (1 - floor) / conf.numel())
    assert sample_bets(
        conf, [torch.Generator().manual_seed(1)]
    ).all()  # no floor: a sure bettor never opts out
    # At confidence 1 with every decision right, no floor: every bet is paid +1, the baseline is 1,
    # nothing is learned. With the floor, sampled opt-outs (paid 0) teach that betting is better.
    assert torch.count_nonzero(_meta_grad(demos, _output(demos, 1.0), TrainConfig())) == 0
    grad = _meta_grad(demos, _output(demos, 1.0), TrainConfig(bet_floor=0.05))
    assert torch.count_nonzero(grad) > 0 and (grad <= 0).all()


def test_the_bet_entropy_bonus_changes_the_gradient_toward_one_half():
    conf = torch.full((1, 64), 0.9, requires_grad=True)
    correct, wager = torch.ones(1, 64, dtype=torch.bool), torch.ones(1, 64, dtype=torch.bool)
    bets = torch.ones(
        1, 64, dtype=torch.bool
    )  # every bet paid +1: the baseline cancels the reward term
    plain, _ = wager_reward_loss(conf, correct, wager, bets, -1.0)
    (g0,) = torch.autograd.grad(plain.sum(), conf)
    bonus, _ = wager_reward_loss(conf, correct, wager, bets, -1.0, entropy_coef=0.1)
    (g1,) = torch.autograd.grad(bonus.sum(), conf)
    assert (
        torch.count_nonzero(g0) == 0 and (g1 > 0).all()
    )  # descending lowers a confidence of 0.9 toward 0.5
    # d/dc of -0.1 H(c) / 64 at c = 0.9: 0.1 ln(c / (1 - c)) / 64
    torch.testing.assert_close(g1, torch.full_like(g1, 0.1 * math.log(9) / 64), rtol=1e-5, atol=0)


# ---------------------------------------------------------------------------- the spread rule
# (8.8.4)
def brute_force_bets(confidence: np.ndarray, repeats: int = 4000, seed: int = 0) -> float:
    """The mean number of trials whose bet differs between betting with c_i and with mean(c), same
    draws."""
    rng = np.random.default_rng(seed)
    u = rng.random((repeats, confidence.size))
    return float(((u < confidence) != (u < confidence.mean())).sum(1).mean())


@pytest.mark.parametrize(
    "confidence",
    [
        np.full(600, 0.998),
        np.array([0.2, 0.8] * 2),
        np.random.default_rng(3).uniform(0.6, 1.0, 50),
        0.998 + np.random.default_rng(4).normal(0, 2e-5, 600),
    ],
)
def test_spread_in_bets_is_the_expected_number_of_bets_the_variation_changes(confidence):
    spread = confidence_spread(confidence)
    assert spread["spread_bets"] == pytest.approx(
        brute_force_bets(confidence), abs=0.05 + 0.03 * spread["spread_bets"]
    )
    assert spread["confidence_sd"] == pytest.approx(confidence.std(), abs=1e-12)
    assert spread["auroc_meaningful"] == float(spread["spread_bets"] >= SPREAD_MIN_BETS)


def test_the_spread_rule_on_hand_made_cases():
    constant = confidence_spread(np.full(600, 0.998))
    assert constant == {
        "confidence_sd": 0.0,
        "confidence_distinct": 1.0,
        "spread_bets": 0.0,
        "auroc_meaningful": 0.0,
        "bets_flipped": 0.0,
    }
    spread = confidence_spread([0.1, 0.9] * 50)  # |c - 0.5| = 0.4 on 100 trials: 40 bets
    assert spread["spread_bets"] == pytest.approx(40.0) and spread["auroc_meaningful"] == 1.0
    assert spread["bets_flipped"] == 50.0  # mean 0.5 bets on none; every trial at 0.9 bets
    # Spread without a flip: every confidence above 0.5 bets as its mean does.
    assert confidence_spread([0.6, 0.99] * 50)["bets_flipped"] == 0.0
    assert confidence_spread([0.0, 1.0])["auroc_meaningful"] == 1.0  # 0.5 + 0.5: exactly one bet
    assert confidence_spread([0.25, 0.75])["auroc_meaningful"] == 0.0  # half a bet
    # The bundled arm (a)'s case: SD 2e-5 near 0.998 has hundreds of distinct float32 values, no bet
    tiny = confidence_spread(0.998 + np.random.default_rng(0).normal(0, 2e-5, 600))
    assert (
        tiny["confidence_distinct"] > 200
        and tiny["spread_bets"] < 0.02
        and tiny["auroc_meaningful"] == 0.0
    )
    with pytest.warns(UserWarning, match="undefined"):
        assert math.isnan(confidence_spread([])["spread_bets"])


def _seeds(values: dict[str, list[float]]) -> list[SeedResult]:
    n = len(next(iter(values.values())))
    return [SeedResult("e4", s, values={k: v[s] for k, v in values.items()}) for s in range(n)]


def test_an_arm_is_not_meaningful_when_half_its_seeds_fail_and_its_claims_say_so():
    key = "e4.auroc.reward_late.self_on"
    results = _seeds(
        {
            key: [0.7, 0.72, 0.69, 0.71],
            "e4.auroc_meaningful.reward_late.self_on": [1, 1, 0, 0],
            "e4.spread_bets.reward_late.self_on": [3.0, 2.0, 0.5, 0.2],
            "e4.confidence_distinct.reward_late.self_on": [600, 600, 590, 600],
            "e4.confidence_sd.reward_late.self_on": [0.01, 0.01, 0.001, 0.001],
            "e4.auroc.supervised.self_on": [0.84] * 4,
        }
    )
    table = spread_table(results)
    assert (
        table[key]["meaningful"] is False
        and table[key]["seeds_meaningful"] == 2
        and table[key]["seeds"] == 4
    )
    assert table[key]["spread_bets"] == [0.2, 3.0] and table[key]["confidence_distinct"] == [
        590.0,
        600.0,
    ]
    assert (
        table["e4.auroc.supervised.self_on"]["meaningful"] is None
    )  # no spread recorded: a set before the rule
    flag = claim_flags(CLAIMS_BY_ID[key], "new", None, table[key])[-1]
    assert flag.kind == "not_meaningful" and flag.params == {
        "seeds": 4,
        "failing": 2,
        "bets_low": 0.2,
        "bets_high": 3.0,
        "flips_low": None,
        "flips_high": None,
        "confidence_sd": pytest.approx(0.0055),
    }
    results[2].values["e4.auroc_meaningful.reward_late.self_on"] = 1
    assert spread_table(results)[key]["meaningful"] is True  # 3 of 4: more than half
    # A seed whose bets never flip under the evaluation's own rule is not meaningful (sec. 10.5).
    for seed, flips in enumerate([5.0, 0.0, 0.0, 7.0]):
        results[seed].values["e4.bets_flipped.reward_late.self_on"] = flips
    table = spread_table(results)  # seed 0 alone has both: seeds 1-2 flip none, seed 3 is flat
    assert table[key]["seeds_meaningful"] == 1 and table[key]["meaningful"] is False
    assert table[key]["bets_flipped"] == [0.0, 7.0]


# ---------------------------------------------------------------------------- R1-R4 as registered
def _again_values(auroc_late: list[float], meaningful: list[float]) -> dict[str, list[float]]:
    n = len(auroc_late)
    out = {
        f"e4.accuracy.{arm}.self_on": [0.85] * n
        for arm in (*NEW_KINDS, "supervised", "reward_wager")
    }
    out |= {
        "e4.auroc.reward_late.self_on": auroc_late,
        "e4.auroc_meaningful.reward_late.self_on": meaningful,
        "e4.auroc.reward_late_uncentred.self_on": [
            a - 0.2 + 0.01 * i for i, a in enumerate(auroc_late)
        ],
        "e4.auroc.reward_late_uncentred_sgd.self_on": [a - 0.25 for a in auroc_late],
        "e4.head_mean_cosine.reward_late_uncentred": [0.93, 0.94, 0.92, 0.95, 0.93][:n],
        "e4.head_mean_cosine.reward_late_uncentred_sgd": [0.60, 0.70, 0.65, 0.62, 0.66][:n],
        "e4.skip_salience.reward_late_risky": [0.2, 0.25, 0.15, 0.3, 0.22][:n],
    }
    return out


def _outcome(results, hid):
    return next(h for h in evaluate(results) if h["id"] == hid)


def test_r1_needs_an_auroc_above_chance_and_a_meaningful_spread():
    above = [0.70, 0.72, 0.68, 0.74, 0.71]
    assert _outcome(_seeds(_again_values(above, [1, 1, 1, 1, 0])), "R1")["outcome"] == "supported"
    flat = _outcome(_seeds(_again_values(above, [1, 1, 0, 0, 0])), "R1")  # 2 of 5 meaningful
    assert flat["outcome"] == "not supported"
    assert [r["holds"] for r in flat["conditions"]] == [True, False] and flat["conditions"][1][
        "estimate"
    ] == 0.4
    assert flat["conditions"][1]["interval"] == SHARE_OF_SEEDS
    low = _outcome(_seeds(_again_values([0.45, 0.55, 0.5, 0.52, 0.48], [1] * 5)), "R1")
    assert low["outcome"] == "not supported" and low["conditions"][0]["holds"] is False


def test_r2_to_r4_are_paired_by_seed_and_need_their_arms():
    values = _again_values([0.70, 0.72, 0.68, 0.74, 0.71], [1] * 5)
    results = _seeds(values)
    assert _outcome(results, "R2")["outcome"] == "supported"
    r3 = _outcome(results, "R3")
    # centred minus raw: 0.2 - 0.01 i per seed, paired: the t interval of those five differences
    d = np.array([0.2 - 0.01 * i for i in range(5)])
    assert r3["outcome"] == "supported" and r3["conditions"][0]["interval"] == PAIRED_T
    assert r3["conditions"][0]["estimate"] == pytest.approx(d.mean())
    r4 = _outcome(results, "R4")
    assert (
        r4["outcome"] == "not supported"
    )  # the head turned away from the mean, but SGD's AUROC is lower
    assert [r["holds"] for r in r4["conditions"]] == [True, False]
    del values["e4.accuracy.reward_late_uncentred.self_on"]
    assert (
        _outcome(_seeds(values), "R3")["outcome"] == "not tested"
    )  # the raw-feature cell is missing
    untested = _outcome(_seeds(values), "R3")["conditions"][0]
    assert not untested["tested"] and untested["arms"] == ["reward_late", "reward_late_uncentred"]


# ---------------------------------------------------------------------------- the wager phase, tiny
# budget
@pytest.mark.slow
def test_the_wager_phase_follows_convergence_and_keeps_its_final_weights(tmp_path):
    trained = train_seeds("wagering", "reward_late", [0, 1], TINY)
    for t in trained:
        rec = t.record
        start = rec["wager_start_update"]
        assert (
            start > TINY.min_updates and (start - 1) % TINY.eval_every == 0
        )  # after a convergence check
        assert rec["updates"] == start - 1 + TINY.wager_updates == rec["final_update"]
        curve = rec["wager_curve"]
        assert [c["update"] for c in curve] == [
            start - 1 + k for k in range(5, TINY.wager_updates + 1, 5)
        ]
        assert [c["wager_update"] for c in curve] == [5, 10, 15, 20]
        for c in curve:
            assert {
                "heldout_auroc",
                "heldout_confidence_sd",
                "heldout_confidence_distinct",
                "heldout_spread_bets",
                "heldout_auroc_meaningful",
            } <= set(c)
        centre = t.agent.state_dict()["confidence_centre"]
        assert centre.abs().max() > 0  # the running centre of the wager phase
        path = save_checkpoint(t.agent, rec, tmp_path)
        assert torch.equal(load_checkpoint(path).agent.state_dict()["confidence_centre"], centre)
    # a member trained in a batch is the seed trained alone, wager phase included
    alone = train_seeds("wagering", "reward_late", [1], TINY)[0]
    assert alone.record["wager_start_update"] == trained[1].record["wager_start_update"]
    for name, value in alone.agent.state_dict().items():
        assert torch.equal(value, trained[1].agent.state_dict()[name]), name


@pytest.mark.slow
def test_sgd_cell_trains_its_head_by_sgd_in_the_wager_phase():
    cfg = replace(TINY, wager_updates=5)
    sgd = train_seeds("wagering", "reward_late_uncentred_sgd", [0], cfg)[0]
    adam = train_seeds("wagering", "reward_late_uncentred", [0], cfg)[0]
    assert (
        sgd.record["train_config"]["wager_optimizer"] == "sgd"
        and len(sgd.record["wager_curve"]) == 1
    )
    assert sgd.record["wager_start_update"] == adam.record["wager_start_update"]
    head = "confidence_head.weight"
    assert not torch.equal(sgd.agent.state_dict()[head], adam.agent.state_dict()[head])
    assert TRAINING_OF_KIND["reward_late_uncentred_sgd"]["wager_optimizer"] == "sgd"
