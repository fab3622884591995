"""Our agents on NeuroGym's PostDecisionWager-v0 (labcore/agents/neurogym.py) and the study
study (labcore/experiments/neurogym.py): the payoff against the adapter step by step,
the inputs, the ideal observer against hand-computed posteriors, learning from reward, and the
study's files on a tiny budget through the one runner."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from labcore.agents import build_agent
from labcore.agents.neurogym import (
    ACTION_COLUMNS,
    FIXATE,
    LEFT,
    RIGHT,
    SURE,
    agent_decisions,
    agent_observation,
    draw_trials,
    ideal_actions,
    ideal_agreement,
    ideal_posterior_correct,
    outcome_rows,
    payoffs,
    run_in_env,
)
from labcore.checks import ChoiceError
from labcore.envs.channels import CONTENT_SLICE, EVENT_INDEX
from labcore.envs.neurogym_wager import PostDecisionWagerEnv, sure_choice_by_coherence
from labcore.experiments.study import load_study, run_study
from labcore.figures.pdw import sure_curve_figure
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint
from labcore.training.neurogym_trainer import NeuroGymRLConfig, train_network
from tests.refusals import refused

pytestmark = pytest.mark.usefixtures("neurogym_installed")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trials():
    return draw_trials(7, 3000)


def test_actions_map_to_done_left_right_drop():
    from labcore.envs.tables import ACTION_NAMES

    assert [ACTION_NAMES[c] for c in ACTION_COLUMNS] == ["done", "left", "right", "drop"]


def test_payoff_equals_stepping_the_adapter_with_random_actions():
    env, rng = PostDecisionWagerEnv(), np.random.default_rng(0)
    for seed in range(200):
        one = draw_trials(seed, 1)
        actions = rng.integers(0, 4, size=one.ob.shape[:2])
        _, _ = env.reset(seed=seed)
        paid, done, t = [], False, 0
        while not done:
            _, reward, done, _, _ = env.step(int(actions[0, t]))
            paid.append(reward)
            t += 1
        assert t == one.length[0]
        np.testing.assert_allclose(payoffs(one, actions)[0, :t], paid)


def test_same_seed_same_trials_and_the_evidence_model(trials):
    again = draw_trials(7, 3000)
    np.testing.assert_array_equal(again.ob, trials.ob)
    assert not np.array_equal(draw_trials(8, 50).ob, trials.ob[:50])
    # The ideal observer's model: per stimulus step, right - left = +-coherence/100 + noise.
    stim = trials.stimulus
    mean_diff = ((trials.ob[..., 2] - trials.ob[..., 1]) * stim).sum(1) / stim.sum(1)
    sign = np.where(trials.ground_truth == 1, 1.0, -1.0)
    for c in trials.cohs:
        at = trials.coherence == c
        assert abs(np.mean(sign[at] * mean_diff[at]) - c / 100) < 0.02


def test_agent_inputs_carry_the_evidence_on_the_cue_channel_only(trials):
    few = trials.select(np.arange(20))
    obs = agent_observation(few)
    stim = torch.as_tensor(few.stimulus & few.valid)
    assert torch.equal(obs.cue[..., EVENT_INDEX] > 0, stim)
    content = obs.cue[..., CONTENT_SLICE]
    np.testing.assert_allclose(content[..., 0][stim].numpy(), few.ob[..., 1][stim.numpy()])
    np.testing.assert_allclose(content[..., 1][stim].numpy(), few.ob[..., 2][stim.numpy()])
    assert float(content[~stim].abs().sum()) == 0.0
    # task flags: the go cue and the sure cue (no evidence), zero after each trial's end
    last = torch.as_tensor(few.length - 1)
    assert torch.all(obs.task[torch.arange(20), last, 0] == 1.0)
    np.testing.assert_allclose(obs.task[..., 1].numpy(), few.ob[..., 3] * few.valid)


def test_ideal_posterior_hand_computed():
    # One coherence (10%), one stimulus step, noise SD 0.1: S ~ N(+-0.1, 0.02), so the
    # log-likelihood ratio is ((S + 0.1)^2 - (S - 0.1)^2) / 0.04 = 10 S; at S = 0.1, P = 1/(1 +
    # e^-1).
    base = draw_trials(3, 1)
    ob = np.zeros((2, 3, 4), np.float32)
    ob[:, :, 0] = [1, 1, 0]
    ob[0, 1, 1:3] = [0.45, 0.55]  # S = +0.1
    ob[1, 1, 1:3] = [0.55, 0.45]  # S = -0.1: mirrored
    from dataclasses import replace

    t = replace(
        base,
        ob=ob,
        length=np.array([3, 3]),
        coherence=np.array([10.0, 10.0]),
        ground_truth=np.array([1, 0]),
        sure_offered=np.array([True, True]),
        noise_sd=0.1,
        cohs=(10.0,),
    )
    side, p = ideal_posterior_correct(t)
    assert side.tolist() == [RIGHT, LEFT]
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-1.0)), rtol=1e-6)
    actions, _ = ideal_actions(
        t
    )  # P(correct) 0.731 > 0.7: it chooses rather than take the sure 0.7
    assert actions[:, -1].tolist() == [RIGHT, LEFT] and (actions[:, :-1] == FIXATE).all()
    t_none = replace(t, ob=np.zeros_like(ob))
    assert ideal_posterior_correct(t_none)[1].tolist() == [0.5, 0.5]


def test_ideal_observer_takes_the_sure_option_when_evidence_is_weak(trials):
    actions, p = ideal_actions(trials)
    table = sure_choice_by_coherence(outcome_rows(trials, actions, p))
    rates = table["sure_rate"].to_numpy()
    assert rates[0] > 0.5 > 0.05 > rates[-1]
    assert np.all(np.diff(rates) <= 0.02)
    never_sure = actions.copy()
    never_sure[np.arange(len(trials)), trials.length - 1] = ideal_posterior_correct(trials)[0]
    assert payoffs(trials, actions).sum(1).mean() > payoffs(trials, never_sure).sum(1).mean()


def test_reward_alone_teaches_fixation_and_choice_and_same_seed_same_weights():
    cfg = NeuroGymRLConfig(
        max_updates=120, eval_every=40, train_pool=2000, heldout_trials=300, trials_per_update=64
    )
    untrained = build_agent("reward_all", 0)
    untrained.eval()
    heldout = draw_trials(99, 300)

    def reward(net):  # the greedy agent's mean reward per trial
        return float(payoffs(heldout, agent_decisions(net, heldout)["actions"]).sum(1).mean())

    before = reward(untrained)
    agent, record = train_network(0, cfg)
    after = reward(agent)
    assert before < 0.45 and after > 0.65, (before, after)
    assert record["task"] == "neurogym" and record["best_update"] in (40, 80, 120)
    again, _ = train_network(
        0,
        NeuroGymRLConfig(
            max_updates=40, eval_every=40, train_pool=2000, heldout_trials=300, trials_per_update=64
        ),
    )
    first, _ = train_network(
        0,
        NeuroGymRLConfig(
            max_updates=40, eval_every=40, train_pool=2000, heldout_trials=300, trials_per_update=64
        ),
    )
    for key, value in first.state_dict().items():
        assert torch.equal(value, again.state_dict()[key]), key


def test_imitation_learns_the_ideal_observers_actions():
    cfg = NeuroGymRLConfig(
        max_updates=150, eval_every=75, train_pool=3000, heldout_trials=400, trials_per_update=128
    )
    heldout = draw_trials(98, 400)
    untrained = build_agent("b2_ws", 0)
    untrained.eval()
    agent, record = train_network(0, cfg, trainer="imitation")
    assert record["kind"] == "b2_ws" and record["trainer"] == "imitation"
    assert ideal_agreement(untrained, heldout) < 0.1 < 0.6 < ideal_agreement(agent, heldout)
    assert refused(ChoiceError, train_network, 0, cfg, trainer="oracle").name == "trainer"


def test_stepping_the_adapter_gives_the_batched_decisions():
    agent = build_agent("reward_all", 3)
    agent.eval()
    seeds = list(range(40, 52))
    stepped = run_in_env(agent, seeds)
    batched = [draw_trials(s, 1) for s in seeds]
    for row, one in zip(stepped, batched, strict=True):
        action = int(agent_decisions(agent, one)["actions"][0, -1])
        expected = {LEFT: "left", RIGHT: "right", SURE: "sure"}.get(action, "none")
        assert row["choice"] == expected


def test_pipeline_on_a_tiny_budget(tmp_path):
    from labcore.experiments import neurogym as N

    study = N.NeuroGymStudyConfig.quick()
    summary = run_study("neurogym", tmp_path, study, progress=False, say=lambda _: None)
    loaded = load_study("neurogym", tmp_path)
    assert loaded.problems == [] and loaded.summary == summary
    table = loaded.frame(N.BY_COHERENCE.name)
    assert set(table["observer"]) == {"reward", "imitation", "ideal"} and set(table["seed"]) == {
        0,
        1,
    }
    assert sorted(table["coherence"].unique()) == [0.0, 3.2, 6.4, 12.8, 25.6, 51.2]
    seeds = loaded.frame(N.SEEDS.name)
    assert list(seeds.columns) == ["seed", *N.SEED_VALUES] and len(seeds) == 2
    gap = summary.finding("neurogym.reward_sure_gap")
    assert gap.n == 2 and gap.outcome in ("supported", "not supported", "undefined")
    assert summary.finding("neurogym.imitation_sure_gap").flag("post_hoc") is not None
    assert set(loaded.frame(N.CURVES.name)["trainer"]) == {"reward", "imitation"}
    for kind in ("reward_all", "b2_ws"):
        assert (
            load_checkpoint(
                checkpoint_file(tmp_path / "checkpoints", f"neurogym-{kind}-s1")
            ).agent.config.kind
            == kind
        )
    fig = sure_curve_figure(table)
    assert (
        len(fig.data) == 5 + 5 + 3
    )  # per agent: 2 seeds, mean, 2 accuracies; ideal: mean, 2 accuracies


def test_a_damaged_study_is_one_problem_never_an_exception(tmp_path):
    from labcore.experiments import neurogym as N

    bundled = ROOT / "results" / "explore_neurogym"
    for table in N.TABLES:
        (tmp_path / table.file).write_bytes((bundled / table.file).read_bytes())
    summary = json.loads((bundled / "summary.json").read_text())
    summary["findings"][0]["value"] = "high"
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    study = load_study("neurogym", tmp_path)
    assert study.summary is None and "findings[0].value" in study.problems[0]
    (tmp_path / "summary.json").write_bytes((bundled / "summary.json").read_bytes())
    (tmp_path / N.BY_COHERENCE.file).write_text("not,a\ncsv")
    assert load_study("neurogym", tmp_path).problems


def test_figure_without_data_says_so():
    fig = sure_curve_figure(pd.DataFrame())
    assert not fig.data and len(fig.layout.annotations) == 1  # no curve, one note saying why
