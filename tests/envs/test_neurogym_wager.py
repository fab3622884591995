"""NeuroGym's PostDecisionWager-v0 through our adapter (labcore/envs/neurogym_wager.py).

Skips (with the reason) where NeuroGym is not installed; with ``CTLAB_REQUIRE_NEUROGYM=1``
(set by ``.ci/run``: the README's set-up installs it) a missing NeuroGym is a failure instead.
The tests of the analysis and of the missing-package message run everywhere.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env
from scipy.stats import chi2_contingency

from labcore.envs import neurogym_wager as W

ROOT = Path(__file__).resolve().parents[2]
COHERENCES = [0.0, 3.2, 6.4, 12.8, 25.6, 51.2]


@pytest.fixture
def env(neurogym_installed) -> W.PostDecisionWagerEnv:
    return W.PostDecisionWagerEnv()


def _episode(env, actions, seed):
    """Reset with ``seed``, then play ``actions`` (cycled) until the trial ends."""
    obs, info = env.reset(seed=seed)
    steps = [(obs, None, info)]
    for k in range(1000):
        obs, reward, terminated, truncated, info = env.step(actions[k % len(actions)])
        steps.append((obs, reward, info))
        if terminated or truncated:
            return steps
    raise AssertionError("the trial never ended")


def _play_to_decision(env, seed, decision_action):
    """Fixate until the decision step, then take ``decision_action``; the last info and reward."""
    env.reset(seed=seed)
    while True:
        period = W.PERIODS[[env.task.in_period(p) for p in W.PERIODS].index(True)]
        action = decision_action if period == "decision" else W.FIXATE
        _, reward, terminated, _, info = env.step(action)
        if terminated:
            return reward, info


# --- the adapter itself -------------------------------------------------------------------


def test_passes_gymnasiums_check_env(env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    # Its only remarks: the inputs are unbounded (they carry Gaussian noise), as documented.
    remarks = [str(w.message) for w in caught]
    assert remarks and all("infinity" in r for r in remarks), remarks
    assert env.observation_space.shape == (4,) and env.observation_space.dtype == np.float32
    assert env.action_space.n == len(W.ACTION_NAMES) == 4


def test_same_seed_same_trial_and_observations(neurogym_installed):
    envs = [W.PostDecisionWagerEnv(), W.PostDecisionWagerEnv()]
    actions = np.random.default_rng(0).integers(0, 4, size=40).tolist()
    firsts = []
    for seed in (0, 1, 7):
        a, b = (_episode(e, actions, seed) for e in envs)
        assert len(a) == len(b)
        for (obs_a, r_a, info_a), (obs_b, r_b, info_b) in zip(a, b, strict=True):
            np.testing.assert_array_equal(obs_a, obs_b)
            assert r_a == r_b
            assert {k: v for k, v in info_a.items() if k != "neurogym_trial"} == {
                k: v for k, v in info_b.items() if k != "neurogym_trial"
            }
        again = _episode(envs[0], actions, seed)  # the same env, reseeded: the same trial again
        np.testing.assert_array_equal(np.stack([s[0] for s in again]), np.stack([s[0] for s in a]))
        firsts.append(np.stack([s[0] for s in a]))
    assert not all(f.shape == firsts[0].shape and np.array_equal(f, firsts[0]) for f in firsts[1:])


def _durations(env, seeds, reseed_like_neurogym=False):
    """(stimulus, delay) durations in ms of the trials of ``seeds``."""
    out = []
    for seed in seeds:
        if reseed_like_neurogym:
            env.task.seed(seed)
            env.reset()
        else:
            env.reset(seed=seed)
        task = env.task
        out.append(tuple(task.end_t[p] - task.start_t[p] for p in ("stimulus", "delay")))
    return pd.DataFrame(out, columns=["stimulus", "delay"])


def test_seeding_keeps_the_durations_independent(env):
    """One seed per episode must not tie the delay to the stimulus (NeuroGym's seed(s) does)."""

    def p_value(frame):
        table = pd.crosstab(frame["stimulus"].clip(upper=400), frame["delay"])
        return chi2_contingency(table)[1]

    seeds = range(800)
    assert p_value(_durations(env, seeds)) > 1e-3
    assert p_value(_durations(env, seeds, reseed_like_neurogym=True)) < 1e-6  # the check can fail


def test_info_matches_the_underlying_trial(env):
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        trial, task = env.task.trial, env.task
        assert info["coherence"] == float(trial["coh"]) and info["coherence"] in COHERENCES
        assert info["ground_truth"] == int(trial["ground_truth"])
        assert info["sure_offered"] == bool(trial["wager"])
        assert info["ground_truth_action"] == int(task.gt[-1]) == 1 + info["ground_truth"]
        assert info["period"] == "fixation"
        # The inputs are NeuroGym's, row by row: the sure cue is on at the decision step iff
        # offered.
        assert task.ob[-1][3] == float(info["sure_offered"]) and task.ob[-1][0] == 0.0
        rows = [obs]
        n_steps = task.ob.shape[0]
        ob_table = task.ob.copy()
        for _ in range(n_steps):
            obs, _, terminated, _, step_info = env.step(W.FIXATE)
            rows.append(obs)
            assert {k: step_info[k] for k in ("coherence", "ground_truth", "sure_offered")} == {
                k: info[k] for k in ("coherence", "ground_truth", "sure_offered")
            }
            if terminated:
                break
        assert terminated and len(rows) == n_steps + 1  # one step per row, then the last row again
        np.testing.assert_array_equal(np.stack(rows[:-1]), ob_table)
        assert step_info["period"] == "decision" and step_info["choice"] == "none"
        assert step_info["correct"] is None and step_info["gt"] == info["ground_truth_action"]


def test_payoffs_and_neurogyms_correct_choice_bug(neurogym_installed):
    fixed, raw = W.PostDecisionWagerEnv(), W.PostDecisionWagerEnv(fix_reward=False)
    neurogym_pays = {}
    for seed in range(30):
        _, info = fixed.reset(seed=seed)
        gt_action, offered = info["ground_truth_action"], info["sure_offered"]
        wrong = W.LEFT if gt_action == W.RIGHT else W.RIGHT
        for action, expected, choice, correct in [
            (gt_action, 1.0, W.ACTION_NAMES[gt_action], True),
            (wrong, 0.0, W.ACTION_NAMES[wrong], False),
            (W.SURE, 0.7 if offered else -0.1, "sure", None),
            (W.FIXATE, 0.0, "none", None),
        ]:
            reward, end = _play_to_decision(fixed, seed, action)
            assert (reward, end["choice"], end["correct"]) == (expected, choice, correct)
            raw_reward, raw_end = _play_to_decision(raw, seed, action)
            assert raw_reward == raw_end["neurogym_reward"] == end["neurogym_reward"]
            if action != W.SURE:
                assert raw_reward == reward or action in (W.LEFT, W.RIGHT)
                neurogym_pays.setdefault((info["ground_truth"], action), set()).add(raw_reward)
    # NeuroGym 2.3.1 compares the action with the side's index: the correct choice never earns +1,
    # and "left" earns it on right trials. If this fails NeuroGym has fixed it: fix_reward can go.
    assert neurogym_pays[(0, W.LEFT)] == neurogym_pays[(1, W.RIGHT)] == {0.0}
    assert neurogym_pays[(1, W.LEFT)] == {1.0} and neurogym_pays[(0, W.RIGHT)] == {0.0}


def test_random_policy_runs_to_completion(env):
    env.action_space.seed(3)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        length = env.task.ob.shape[0]
        assert 15 <= length <= 27  # 1 fixation + 1-8 stimulus + 12-17 delay + 1 decision steps
        rewards = []
        for _ in range(length):
            _, reward, terminated, truncated, info = env.step(env.action_space.sample())
            rewards.append(reward)
            if terminated:
                break
        assert terminated and not truncated and len(rewards) == length
        assert info["choice"] in W.CHOICES and info["reward"] == rewards[-1]
        with pytest.raises(RuntimeError, match=r"reset\b"):  # the trial is over: what to call
            env.step(W.FIXATE)


def test_scripted_observer_takes_the_sure_option_more_often_at_low_coherence(env):
    observer = W.ThresholdObserver(noise_sd=env.noise_sd, threshold=1.0)
    table = W.sure_choice_by_coherence(W.run_trials(env, observer.act, range(600), observer.reset))
    assert table["coherence"].tolist() == COHERENCES
    rate = table.set_index("coherence")["sure_rate"]
    low, mid, high = rate[[0.0, 3.2]].mean(), rate[[6.4, 12.8]].mean(), rate[[25.6, 51.2]].mean()
    assert low > mid > high and low > 0.4 and high < 0.15
    accuracy = table.set_index("coherence")["accuracy"]
    assert accuracy[51.2] > 0.95 and abs(accuracy[0.0] - 0.5) < 0.15
    # Kiani & Shadlen's other mark: waiving the sure option, it is more accurate than when it
    # had none (it bets only when its evidence is strong), at the weak coherences.
    assert (table["accuracy_waived"] - table["accuracy_not_offered"])[1:4].mean() > 0.05
    # An observer that never takes the sure option shows no rise: the analysis reads choices.
    never = W.ThresholdObserver(noise_sd=env.noise_sd, threshold=0.0)
    flat = W.sure_choice_by_coherence(W.run_trials(env, never.act, range(240), never.reset))
    assert (flat["sure_rate"] == 0.0).all() and flat["n_sure_offered"].sum() > 80


# --- runs everywhere ------------------------------------------------------------------------


def test_analysis_on_hand_made_trials():
    rows = [
        {"coherence": 0.0, "sure_offered": True, "choice": "sure", "correct": None},
        {"coherence": 0.0, "sure_offered": True, "choice": "left", "correct": True},
        {"coherence": 0.0, "sure_offered": False, "choice": "right", "correct": False},
        {"coherence": 51.2, "sure_offered": False, "choice": "none", "correct": None},
        {"coherence": 51.2, "sure_offered": False, "choice": "left", "correct": True},
    ]
    table = W.sure_choice_by_coherence(pd.DataFrame(rows)).set_index("coherence")
    assert table.loc[0.0, "sure_rate"] == 0.5 and table.loc[0.0, "n_sure_offered"] == 2
    assert table.loc[0.0, "accuracy"] == 0.5
    assert (
        table.loc[0.0, "accuracy_waived"] == 1.0 and table.loc[0.0, "accuracy_not_offered"] == 0.0
    )
    assert np.isnan(table.loc[51.2, "sure_rate"])  # no sure-offered trial: not defined here
    assert np.isnan(table.loc[51.2, "accuracy_waived"])
    assert table.loc[51.2, "accuracy"] == 1.0 and table.loc[51.2, "no_choice_rate"] == 0.5
    with pytest.raises(ValueError, match="choice"):
        W.sure_choice_by_coherence([{"coherence": 0.0, "sure_offered": True, "correct": None}])


def test_missing_neurogym_is_one_clear_sentence(monkeypatch):
    for name in [m for m in sys.modules if m == "neurogym" or m.startswith("neurogym.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "neurogym", None)
    monkeypatch.setitem(sys.modules, "neurogym.envs.native.postdecisionwager", None)
    with pytest.raises(W.NeuroGymMissingError) as caught:
        W.PostDecisionWagerEnv()
    message = str(caught.value)
    assert (
        message.count(". ") == 0
        and message.endswith(".")
        and "requirements-neurogym.txt" in message
    )
    assert isinstance(caught.value, ImportError)


def test_importing_labcore_does_not_import_neurogym():
    code = (
        "import sys, labcore, labcore.envs, labcore.envs.neurogym_wager; print('neurogym' "
        "in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_a_missing_dependency_is_named(monkeypatch):
    def fail(name):
        raise ModuleNotFoundError("No module named 'loguru'", name="loguru")

    monkeypatch.setattr(W.importlib, "import_module", fail)
    with pytest.raises(W.NeuroGymMissingError) as caught:
        W.PostDecisionWagerEnv()
    assert caught.value.name == "loguru" and "`loguru`" in str(caught.value)
    assert str(caught.value).count(". ") == 0 and W.INSTALL_COMMAND in str(caught.value)
