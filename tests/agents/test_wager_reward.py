"""E4's wager learned from reward alone (protocol 8.3) and the self-model input knob.

The payoff rule; the loss sees correctness only through the reward of a sampled bet; same
seed, same bets and weights; reward alone teaches discrimination on a synthetic setting (and
the risky payoff moves the threshold where the ideal observer does); the no-rewire lesion on a
reward-trained agent; ``AgentConfig.self_model_inputs`` (widths, what z_self reads, checkpoints);
the CLI path ``train --experiment e4``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, replace

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import labcore.envs as E
from labcore.agents import AgentOutput, build_agent
from labcore.agents.parts import broadcast, uncertainty
from labcore.checks import ChoiceError, ConfigError
from labcore.cli import main, training_jobs
from labcore.config import AGENT_KINDS, SELF_MODEL_INPUTS, AgentConfig, TrainConfig, train_config_of
from labcore.envs.batch import StepKind
from labcore.interventions import INTACT, SELF_MODEL_LESION
from labcore.markers import learning_curve_auroc, type2_auroc
from labcore.rollout import rollout
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import (
    CheckpointError,
    checkpoint_file,
    load_checkpoint,
    read_record,
    save_checkpoint,
)
from labcore.training.behaviour_cloning import compute_losses, train_seeds
from labcore.training.seed_batching import member_demonstrations
from labcore.training.wager_reward import (
    WagerLog,
    choice_steps,
    payoff,
    sample_bets,
    wager_reward_loss,
)
from tests.refusals import refused

TINY = TrainConfig(
    max_updates=60, min_updates=60, eval_every=30, train_episodes=200, heldout_episodes=48
)


# ---------------------------------------------------------------------------- the rule
@pytest.mark.parametrize(
    ("wrong", "expected"), [(-1.0, [1.0, -1.0, 0.0, 0.0]), (-3.0, [1.0, -3.0, 0.0, 0.0])]
)
def test_payoff_rule(wrong, expected):
    bet = torch.tensor([True, True, False, False])
    correct = torch.tensor([True, False, True, False])
    assert payoff(bet, correct, wrong).tolist() == expected


def test_kinds_carry_their_training_signal():
    assert train_config_of("reward_wager", TrainConfig()).meta_signal == "reward"
    assert train_config_of("reward_wager", TrainConfig()).wrong_bet_payoff == -1.0
    assert train_config_of("reward_wager_risky", TrainConfig()).wrong_bet_payoff == -3.0
    assert train_config_of("b2_ws", TrainConfig()) == TrainConfig()
    for kind in ("reward_wager", "reward_wager_risky", "reward_workspace", "reward_logits"):
        assert (
            replace(AGENT_KINDS[kind], kind="b2_ws", self_model_inputs=SELF_MODEL_INPUTS)
            == AGENT_KINDS["b2_ws"]
        )
    task = refused(ConfigError, train_config_of, "reward_wager", TrainConfig(), "dual")
    assert task.fields == ("meta_signal", "task")
    paper = refused(ConfigError, train_config_of, "reward_wager", TrainConfig(mode="paper"))
    assert paper.fields == ("meta_signal", "mode")
    assert refused(ChoiceError, TrainConfig, meta_signal="oracle").name == "meta_signal"
    payoff = refused(ConfigError, TrainConfig, wrong_bet_payoff=0.5)
    assert payoff.fields == ("wrong_bet_payoff",)


# ---------------------------------------------------------------------------- the loss
@pytest.fixture(scope="module")
def demos():
    """32 wagering demonstrations of one member (about half of them wager trials)."""
    return member_demonstrations(E.WAGERING, [episode_seeds(0, "train", 32)[None]])[0]


def _output(demos, confidence: float, correct: bool | torch.Tensor) -> AgentOutput:
    """Logits whose argmax is the oracle's action (correct) or the next action (wrong); ``correct``
    for every episode or per episode ``(1, B)``."""
    right = torch.as_tensor(correct).expand(demos.action.shape[:2])[..., None]
    chosen = torch.where(right, demos.action, (demos.action + 1) % E.N_ACTIONS)
    logits = 5.0 * torch.nn.functional.one_hot(chosen, E.N_ACTIONS).float()
    conf = torch.full(demos.action.shape, confidence, requires_grad=True)
    return AgentOutput(logits=logits, h=logits, proposal_logits=logits, confidence=conf)


def _meta(demos, out, seed: int = 0):
    cfg = TrainConfig(meta_signal="reward", self_model_l2=0.0, stimulus_probe_weight=0.0)
    losses = compute_losses(
        AGENT_KINDS["reward_wager"],
        out,
        demos,
        cfg,
        generators=[torch.Generator().manual_seed(seed)],
    )
    (grad,) = torch.autograd.grad(losses.total.sum(), out.confidence)
    return losses.parts["meta"], grad


def test_choice_steps_are_the_decisions_and_wagers_the_wager_trials(demos):
    out = _output(demos, 0.5, True)
    steps = choice_steps(out.confidence, out.logits, demos.action, demos.step_kind, demos.valid)
    assert steps.decided.all() and steps.correct.all()
    has_wager = ((demos.step_kind == StepKind.WAGER) & demos.valid).any(-1)
    assert torch.equal(steps.wager, has_wager)
    assert 0 < int(has_wager.sum()) < 32


def test_all_opt_outs_give_exactly_zero_loss_and_gradient(demos):
    # Confidence 0: every sampled bet is an opt-out, which pays 0 whether right or wrong.
    for correct in (True, False):
        meta, grad = _meta(demos, _output(demos, 0.0, correct))
        assert meta.item() == 0.0
        assert torch.count_nonzero(grad) == 0


def test_correctness_reaches_the_gradient_only_through_the_reward_of_a_bet(demos):
    meta_right, grad_right = _meta(demos, _output(demos, 0.5, True))
    meta_wrong, grad_wrong = _meta(demos, _output(demos, 0.5, False))
    # Right decisions: descending the loss raises the confidence (bets paid +1, opt-outs below the
    # baseline); wrong ones lower it. Same bets (same generator): every reward flips sign, so do
    # the baseline and the gradient.
    assert (
        torch.count_nonzero(grad_right) > 0 and (grad_right <= 0).all() and (grad_wrong >= 0).all()
    )
    assert torch.equal(grad_wrong, -grad_right)
    assert meta_wrong.item() == -meta_right.item()
    # Only the choice steps of wager trials receive a gradient.
    steps = choice_steps(
        torch.zeros(demos.action.shape),
        _output(demos, 0.5, True).logits,
        demos.action,
        demos.step_kind,
        demos.valid,
    )
    where = grad_right != 0
    assert not (where & ~(demos.step_kind == StepKind.REPORT_1)).any()
    assert not where.any(-1)[~steps.wager].any()
    # Flipping the correctness of trials the agent opted out of changes nothing at all.
    bets = sample_bets(
        torch.full((1, 32), 0.5), [torch.Generator().manual_seed(0)]
    )  # the bets _meta draws
    assert (bets & steps.wager).any() and (~bets & steps.wager).any()
    meta_mixed, grad_mixed = _meta(
        demos, _output(demos, 0.5, bets)
    )  # right where it bet, wrong elsewhere
    assert torch.equal(grad_mixed, grad_right) and meta_mixed.item() == meta_right.item()


def test_label_mode_is_the_e1_bce_and_reward_mode_has_none(demos):
    out = _output(demos, 0.3, True)
    cfg = TrainConfig(self_model_l2=0.0, stimulus_probe_weight=0.0)
    label = compute_losses(AGENT_KINDS["b2_ws"], out, demos, cfg).parts["meta"]
    assert label.item() == pytest.approx(
        -np.log(0.3), rel=1e-6
    )  # BCE against "correct" at every decision
    held_out = compute_losses(
        AGENT_KINDS["reward_wager"], out, demos, replace(cfg, meta_signal="reward")
    )
    assert held_out.parts["meta"].item() == 0.0  # nothing sampled without generators
    assert held_out.parts["wager_reward"].item() == pytest.approx(
        0.3
    )  # expected: bet 30%, always right


def test_same_seed_same_bets():
    conf = torch.rand(3, 64, generator=torch.Generator().manual_seed(9))
    a = sample_bets(conf, [torch.Generator().manual_seed(s) for s in (0, 1, 2)])
    b = sample_bets(conf, [torch.Generator().manual_seed(s) for s in (0, 1, 2)])
    c = sample_bets(conf, [torch.Generator().manual_seed(s) for s in (5, 1, 2)])
    assert torch.equal(a, b) and not torch.equal(a[0], c[0]) and torch.equal(a[1:], c[1:])


def _train_synthetic(wrong_bet_payoff: float, updates: int = 400) -> torch.Tensor:
    """Confidence sigmoid(w0 x + w1) on trials correct with P = sigmoid(4 x), trained by the
    wager's reward."""
    data, bets = torch.Generator().manual_seed(0), [torch.Generator().manual_seed(1)]
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.05)
    for _ in range(updates):
        x = torch.rand(1, 256, generator=data) * 2 - 1
        correct = torch.rand(1, 256, generator=data) < torch.sigmoid(4 * x)
        conf = torch.sigmoid(w[0] * x + w[1])
        loss, _ = wager_reward_loss(
            conf, correct, torch.ones_like(correct), sample_bets(conf, bets), wrong_bet_payoff
        )
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
    return w.detach()


def test_reward_alone_teaches_confidence_to_track_correctness():
    # Betting pays when P(correct) > 1/(1 + 1) = 0.5 (x > 0), or > 0.75 under the risky payoff
    # (x > ln 3 / 4 = 0.27): the learned confidence must rise with x and cross 0.5 there.
    w = _train_synthetic(-1.0)
    x = torch.linspace(-1, 1, 2001)
    correct = torch.rand(2001, generator=torch.Generator().manual_seed(2)) < torch.sigmoid(4 * x)
    conf = torch.sigmoid(w[0] * x + w[1])
    assert w[0] > 2.0
    assert conf[correct].mean() > conf[~correct].mean() + 0.2
    assert type2_auroc(correct.numpy(), conf.numpy()) > 0.75
    threshold, risky = -w[1] / w[0], _train_synthetic(-3.0)
    assert abs(threshold) < 0.15
    assert -risky[1] / risky[0] > threshold + 0.1


def test_heldout_auroc_is_the_type2_auroc():
    rng = np.random.default_rng(0)
    correct = rng.random(300) < 0.8
    conf = np.round(rng.random(300) + 0.3 * correct, 2)  # ties included
    assert learning_curve_auroc(correct, conf) == pytest.approx(
        type2_auroc(correct, conf), abs=1e-12
    )
    assert np.isnan(learning_curve_auroc(np.ones(5, bool), conf[:5]))
    log = WagerLog(-1.0)
    assert log.wrong_bet_payoff == -1.0 and log.chunks == []


# ---------------------------------------------------------------------------- a trained agent
@pytest.fixture(scope="module")
def reward_agent():
    return train_seeds("wagering", "reward_wager", [0], TINY)[0]


def test_reward_training_is_recorded_and_deterministic(reward_agent):
    rec = reward_agent.record
    assert rec["meta_signal"] == "reward" and rec["wrong_bet_payoff"] == -1.0
    assert rec["train_config"]["meta_signal"] == "reward" and rec["kind"] == "reward_wager"
    for h in rec["history"]:
        assert {"heldout_auroc", "heldout_confidence", "heldout_wager_reward"} <= set(h)
    again = train_seeds("wagering", "reward_wager", [0], TINY)[0]
    for x, y in zip(
        reward_agent.agent.state_dict().values(), again.agent.state_dict().values(), strict=True
    ):
        assert torch.equal(x, y)
    assert again.record["history"] == rec["history"]
    # The kind's signal is applied whatever the caller passes; E1's label never reaches it.
    short = replace(TINY, max_updates=30, min_updates=30)
    assert (
        train_seeds("wagering", "reward_wager", [0], replace(short, meta_signal="label"))[0].record[
            "meta_signal"
        ]
        == "reward"
    )
    supervised = train_seeds("wagering", "b2_ws", [0], short)[0]
    assert (
        supervised.record["meta_signal"] == "label"
        and supervised.record["wrong_bet_payoff"] is None
    )
    assert not torch.equal(
        supervised.agent.confidence_head.weight, reward_agent.agent.confidence_head.weight
    )


def test_zeroing_z_self_leaves_the_reward_trained_policy_unchanged(reward_agent):
    agent, seeds = reward_agent.agent, episode_seeds(0, "eval", 48)
    intact, lesioned = (
        rollout(agent, E.WAGERING, seeds, INTACT),
        rollout(agent, E.WAGERING, seeds, SELF_MODEL_LESION),
    )
    scored = intact.scored
    assert np.array_equal(scored, lesioned.scored)
    assert np.array_equal(intact.logits[scored], lesioned.logits[scored])
    assert np.array_equal(intact.outcome["decision"], lesioned.outcome["decision"])
    conf = lesioned.outcome["confidence"]
    assert np.ptp(conf[np.isfinite(conf)]) == 0  # a constant: by construction
    assert np.ptp(intact.outcome["confidence"][np.isfinite(intact.outcome["confidence"])]) > 0


# ---------------------------------------------------------------------------- the knob
def test_self_model_inputs_set_the_width_and_what_z_self_reads():
    widths = {"b2_ws": 89, "reward_workspace": 16, "reward_logits": 9}
    g = torch.Generator().manual_seed(0)
    h, slots = torch.randn(8, 64, generator=g), torch.randn(8, 4, 16, generator=g)
    occupied = torch.rand(8, 4, generator=g) < 0.6
    for kind, width in widths.items():
        agent = build_agent(kind, seed=1).eval()
        assert agent.self_model.weight.shape == (64, width)
        out = agent.readout(h, slots, occupied)
        bcast, p = broadcast(slots, occupied), out.proposal_logits
        parts = {"h": h, "broadcast": bcast, "logits": p, "uncertainty": uncertainty(p)}
        manual = torch.tanh(
            agent.self_model(torch.cat([parts[n] for n in agent.config.self_model_inputs], -1))
        )
        assert torch.equal(
            out.z_self, manual
        )  # the default: the registered 89-number input, bit for bit
    # A restricted self-model does not see what it does not name.
    ws = build_agent("reward_workspace", seed=1).eval()
    assert torch.equal(
        ws.readout(h, slots, occupied).z_self, ws.readout(h * 3 + 1, slots, occupied).z_self
    )
    default = build_agent("b2_ws", seed=1).eval()
    assert not torch.equal(
        default.readout(h, slots, occupied).z_self,
        default.readout(h * 3 + 1, slots, occupied).z_self,
    )


@pytest.mark.parametrize(
    "bad", [(), ("h", "h"), ("logits", "h"), ("x",), "broadcast", ["broadcast"]]
)
def test_self_model_inputs_are_validated(bad):
    inputs = refused(ConfigError, AgentConfig, self_model=True, self_model_inputs=bad)
    assert inputs.fields == ("self_model_inputs",)


def test_restricted_inputs_need_a_self_model():
    restricted = refused(ConfigError, AgentConfig, self_model_inputs=("broadcast",))
    assert restricted.fields == ("self_model_inputs", "self_model")


def _record(agent) -> dict:
    return {
        "task": "wagering",
        "kind": agent.config.kind,
        "seed": 0,
        "mode": "fast",
        "heldout_agreement": 0.5,
        "criterion_attainable": True,
        "excluded": False,
        "train_config": {"train_episodes": 10},
    }


def test_restricted_self_models_round_trip_and_old_checkpoints_load_as_default(tmp_path):
    agent = build_agent("reward_logits", seed=2)
    loaded = load_checkpoint(save_checkpoint(agent, _record(agent), tmp_path)).agent
    assert loaded.config == agent.config and loaded.config.self_model_inputs == (
        "logits",
        "uncertainty",
    )
    for x, y in zip(agent.state_dict().values(), loaded.state_dict().values(), strict=True):
        assert torch.equal(x, y)
    # A config written before the field existed is the registered input (the bundled agents).
    old = build_agent("b2_ws", seed=2)
    config = {k: v for k, v in asdict(old.config).items() if k != "self_model_inputs"}
    tensors = {k: v.detach().contiguous().clone() for k, v in old.state_dict().items()}
    path = tmp_path / "old.safetensors"
    save_file(
        tensors,
        str(path),
        metadata={
            "format": "ctlab-agent",
            "format_version": "1",
            "seed": "2",
            "task": "wagering",
            "mode": "fast",
            "config": json.dumps(config),
        },
    )
    assert load_checkpoint(path, verify=False).agent.config.self_model_inputs == SELF_MODEL_INPUTS
    # Stored values are checked like every other field, before anything is built.
    for bad, why in [
        (["h", "h"], "invalid agent config"),
        (["nope"], "invalid agent config"),
        ([], "invalid agent config"),
        ("h", "invalid agent config"),
        ([["h"]], "invalid agent config"),
        (list(SELF_MODEL_INPUTS) * 3, "invalid agent config"),
        (["broadcast"], "do not fit its own config"),
    ]:  # valid, but 89 columns stored, not 16
        forged = tmp_path / "bad.safetensors"
        save_file(
            tensors,
            str(forged),
            metadata={
                "format": "ctlab-agent",
                "format_version": "1",
                "seed": "2",
                "task": "wagering",
                "mode": "fast",
                "config": json.dumps({**config, "self_model_inputs": bad}),
            },
        )
        with pytest.raises(CheckpointError, match=why):
            load_checkpoint(forged, verify=False)


# ---------------------------------------------------------------------------- the command line
def test_cli_trains_e4_arms_with_their_signal(tmp_path):
    assert training_jobs("e4", "reward_wager_risky", "fast") == [
        ("wagering", "reward_wager_risky", None)
    ]
    assert ("wagering", "reward_logits", None) in training_jobs("e4", "all", "fast")
    assert all(kind in AGENT_KINDS for _, kind, _ in training_jobs("all", "all", "fast"))
    assert not any(kind.startswith("reward_") for _, kind, _ in training_jobs("all", "all", "fast"))
    # Ended with one sentence, the config's own refusal (its record is the exit's cause).
    dual = refused(SystemExit, training_jobs, "e2", "reward_wager", "fast")
    assert dual.__cause__.fields == ("meta_signal", "task")
    paper = refused(SystemExit, training_jobs, "e4", "reward_wager", "paper")
    assert paper.__cause__.fields == ("meta_signal", "mode")
    main(
        [
            "train",
            "--experiment",
            "e4",
            "--agent",
            "reward_wager_risky",
            "--seeds",
            "0-1",
            "--out",
            str(tmp_path),
            "--max-updates",
            "10",
            "--episodes",
            "64",
        ]
    )
    for seed in (0, 1):
        record = read_record(tmp_path, f"wagering-reward_wager_risky-s{seed}")
        assert (record["meta_signal"], record["wrong_bet_payoff"]) == ("reward", -3.0)
        assert record["batch_seeds"] == [0, 1]
        loaded = load_checkpoint(checkpoint_file(tmp_path, f"wagering-reward_wager_risky-s{seed}"))
        assert loaded.agent.config == AGENT_KINDS["reward_wager_risky"]


def test_the_architecture_diagram_draws_what_z_self_reads():
    from labcore.diagram import architecture_dot

    default, ws, logits = (
        architecture_dot(AGENT_KINDS[k]) for k in ("b2_ws", "reward_workspace", "reward_logits")
    )

    def into_zself(dot: str) -> set[str]:
        return {a for a, b in re.findall(r"^\s*(\w+) -> (\w+)", dot, re.MULTILINE) if b == "zself"}

    assert "89 -> 64" in default and {"carrier", "policy"} <= into_zself(default)
    assert "16 -> 64" in ws and into_zself(ws) == {"bus"}
    assert "9 -> 64" in logits and into_zself(logits) == {"policy"}
