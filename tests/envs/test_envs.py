"""The lab's MiniGrid tasks: registry, determinism, oracles, wiring, masking, rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import labcore.envs as E
from labcore.checks import ConfigError
from labcore.config import DualTaskConfig, WageringConfig
from labcore.envs.channels import CONTENT_SLICE, EVENT_INDEX, KIND_SLICE, CueKind
from labcore.envs.labels import PRIMARY_CUE_NAMES, SECONDARY_CUE_NAMES, STIMULUS_CELL
from labcore.envs.render import CUE_RGB, PANEL_WIDTH, SWATCH, SWATCH_ORIGIN
from labcore.envs.wagering import BET_ACTION
from tests.refusals import refused

DUAL_IDS = [E.DUAL_TASK, E.DUAL_TASK_MASKING, E.DUAL_TASK_OOD]
TRUNK_KEYS = ("image", "direction", "task", "mission")


def _make(task_id: str, **kwargs):
    return gym.make(task_id, **kwargs).unwrapped


def _random_actions(rng: np.random.Generator, n: int, task_id: str) -> np.ndarray:
    # In the T-maze, mostly "forward" so that random walks reach the zones and wagers.
    wagering = task_id in (E.WAGERING, E.POST_DECISION_WAGER)
    p = [0.2, 0.2, 0.45, 0.05, 0.04, 0.03, 0.03] if wagering else None
    return rng.choice(7, size=n, p=p)


def test_registry_lists_every_task_once():
    assert len(set(E.TASK_IDS)) == len(E.TASK_IDS) == 5
    for task_id in E.TASK_IDS:
        assert task_id in gym.registry
    E.register_tasks()  # idempotent: no duplicate-registration error


@pytest.mark.parametrize("task_id", E.TASK_IDS)
def test_check_env(task_id):
    # Human rendering needs a display; rgb_array rendering is tested below.
    check_env(_make(task_id), skip_render_check=True)


@pytest.mark.parametrize("task_id", E.TASK_IDS)
def test_same_seed_same_rollout(task_id):
    # Minigrid's determinism pattern: two envs, one seed, the same actions -> identical data.
    envs = [_make(task_id), _make(task_id)]
    actions = _random_actions(np.random.default_rng(0), 60, task_id)
    for seed in range(5):
        obs = [env.reset(seed=seed)[0] for env in envs]
        for action in actions:
            for key in ("image", "direction", "task", "cue"):
                np.testing.assert_array_equal(obs[0][key], obs[1][key])
            results = [env.step(action) for env in envs]
            obs = [r[0] for r in results]
            assert results[0][1:4] == results[1][1:4]
            if results[0][2] or results[0][3]:
                break


@pytest.mark.parametrize("task_id", [t for t in E.TASK_IDS if t != E.POST_DECISION_WAGER])
def test_oracle_solves_every_episode(task_id):
    env = _make(task_id)
    for seed in range(60):
        env.reset(seed=seed)
        total, done, steps = 0.0, False, 0
        while not done:
            _, reward, terminated, truncated, info = env.step(env.oracle_action())
            total += reward
            done = terminated or truncated
            steps += 1
            assert not truncated
        assert total == pytest.approx(1.0)
        if task_id == E.WAGERING:
            assert info["correct"] is True
            assert steps == (7 if env.trials.wager[0] else 6)
            assert info["choice_step"] == 3
            if env.trials.wager[0]:
                assert info["bet"] == 1


def test_post_decision_oracle_chooses_by_its_first_flash_and_always_bets():
    # Protocol 11.2: the ideal observer's choice, so its reward is +1 exactly when the first
    # flash's evidence points to the stimulus's side, else -1 (it always bets).
    env = _make(E.POST_DECISION_WAGER)
    right = 0
    for seed in range(200):
        env.reset(seed=seed)
        trials, total, done = env.trials, 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(env.oracle_action())
            total += reward
            done = terminated or truncated
        favoured = int(trials.evidence(trials.noise)[0] > 0)
        assert info["decision"] == favoured and info["bet"] == 1
        assert total == (1.0 if favoured == trials.stimulus[0] else -1.0)
        right += total > 0
    assert 0.6 < right / 200 < 0.95  # salience in [0, 0.5]: the first flash errs often


def test_post_decision_flash_arrives_at_the_wager_step():
    demos = E.oracle_demonstrations(E.POST_DECISION_WAGER, range(500))
    shown = demos.cue[..., EVENT_INDEX] > 0
    assert (shown.sum(axis=1) == 2).all()  # the flash, then the post-decision flash
    wager = demos.step_kind == E.StepKind.WAGER
    assert (shown & wager).sum(axis=1).tolist() == [1] * 500
    content = demos.cue[shown & wager][:, CONTENT_SLICE][:, :2]
    s, lam, after = demos.labels["stimulus"], demos.labels["salience"], demos.labels["noise_after"]
    expected = np.eye(2)[s] * lam[:, None] + after
    np.testing.assert_allclose(content, expected, rtol=0, atol=1e-6)
    assert lam.max() <= 0.5 and demos.labels["wager"].all()
    # the first flash's draws are the plain task's: only the extra noise is drawn after them
    plain = E.oracle_demonstrations(E.WAGERING, range(500))
    np.testing.assert_array_equal(plain.labels["stimulus"], s)
    np.testing.assert_array_equal(plain.labels["noise"], demos.labels["noise"])
    assert "noise_after" not in plain.labels


def test_stepping_a_finished_episode_is_an_error():
    for task_id in (E.DUAL_TASK, E.WAGERING):
        env = _make(task_id)
        env.reset(seed=0)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(env.oracle_action())
            done = terminated or truncated
        with pytest.raises(RuntimeError, match=r"reset\(\)"):  # over: says what to call
            env.step(0)
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            env.oracle_action()


@pytest.mark.parametrize("task_id", DUAL_IDS)
def test_strong_lesion_trunk_never_sees_the_cues(task_id):
    # Same seed, different cues: everything the trunk sees is identical, even when each env
    # is driven by its own (cue-dependent) expert; only the cue channel differs (paper
    # sec. 4.2, "strong-lesion" wiring; protocol sec. 2.3 for why the body follows a walk).
    env_a, env_b = _make(task_id), _make(task_id)
    rng = np.random.default_rng(1)
    for seed in range(8):
        cues_a, cues_b = rng.choice(7, 2, replace=False), rng.choice(7, 2, replace=False)
        obs_a, _ = env_a.reset(seed=seed, options={"secondary": cues_a[0], "primary": cues_a[1]})
        obs_b, _ = env_b.reset(seed=seed, options={"secondary": cues_b[0], "primary": cues_b[1]})
        cue_differs = actions_differ = False
        for _ in range(env_a.config.n_steps):
            for key in TRUNK_KEYS:
                np.testing.assert_array_equal(obs_a[key], obs_b[key])
            cue_differs |= not np.array_equal(obs_a["cue"], obs_b["cue"])
            action_a, action_b = env_a.oracle_action(), env_b.oracle_action()
            actions_differ |= action_a != action_b
            (obs_a, *_), (obs_b, *_) = env_a.step(action_a), env_b.step(action_b)
        assert cue_differs and actions_differ


def test_dual_task_answers_do_not_move_the_body():
    # A body steered by cue-dependent answers would be a memory outside the workspace.
    env_a, env_b = _make(E.DUAL_TASK), _make(E.DUAL_TASK)
    rng = np.random.default_rng(2)
    for seed in range(5):
        obs_a, _ = env_a.reset(seed=seed)
        obs_b, _ = env_b.reset(seed=seed)
        for a, b in zip(rng.integers(7, size=32), rng.integers(7, size=32), strict=True):
            np.testing.assert_array_equal(obs_a["image"], obs_b["image"])
            assert obs_a["direction"] == obs_b["direction"]
            (obs_a, *_), (obs_b, *_) = env_a.step(a), env_b.step(b)
    with pytest.raises(ValueError, match=r"\b7$"):  # the action refused
        env_a.reset(seed=0)
        env_a.step(7)


def test_strong_lesion_wagering_trunk_never_sees_the_stimulus():
    env_a, env_b = _make(E.WAGERING), _make(E.WAGERING)
    for seed in range(8):
        obs_a, _ = env_a.reset(seed=seed, options={"stimulus": 0, "salience": 1.0})
        obs_b, _ = env_b.reset(seed=seed, options={"stimulus": 1, "salience": 1.0})
        cue_differs = False
        for action in (2, 2, 2, 0, 1, 2, 2, 2, 3):  # walks to the right zone either way
            for key in TRUNK_KEYS:
                np.testing.assert_array_equal(obs_a[key], obs_b[key])
            cue_differs |= not np.array_equal(obs_a["cue"], obs_b["cue"])
            (obs_a, *ra), (obs_b, *_) = env_a.step(action), env_b.step(action)
            if ra[1] or ra[2]:
                break
        assert cue_differs


def test_image_depends_only_on_pose():
    # The static layout is what makes the trunk cue-blind: the same pose gives the same image.
    for layout in ("dual_room", "wagering_tmaze"):
        tables = E.tables.pose_tables(layout)
        env = _make(E.DUAL_TASK if layout == "dual_room" else E.WAGERING)
        env.reset(seed=0)
        for i in range(0, tables.n_poses, 3):
            x, y, d = tables.poses[i]
            env.agent_pos, env.agent_dir = (int(x), int(y)), int(d)
            np.testing.assert_array_equal(env.gen_obs()["image"], tables.image[i])


@pytest.mark.parametrize(
    ("soa", "count", "interval"), [(2, 4, 1), (3, 6, 2), (5, 0, 1), (10, 8, 1)]
)
def test_backward_masking_timing(soa, count, interval):
    env = _make(E.DUAL_TASK_MASKING, mask_soa=soa, mask_count=count, mask_interval=interval)
    obs, _ = env.reset(seed=4)
    expected_masks = {soa + interval * k for k in range(count)}
    kinds = {}
    for t in range(env.config.n_steps):
        if obs["cue"][EVENT_INDEX]:
            kinds[t] = int(np.argmax(obs["cue"][KIND_SLICE]))
        obs, *_ = env.step(env.oracle_action())
    assert kinds.pop(0) == CueKind.CUE_A
    assert kinds.pop(1) == CueKind.CUE_B
    assert set(kinds) == expected_masks
    assert set(kinds.values()) <= {CueKind.MASK}


def test_training_distribution_masks():
    sim = E.make_batch(E.DUAL_TASK)
    sim.reset(range(3000))
    counts = sim.trials.n_masks
    assert set(np.unique(counts)) == {0, 1, 2}
    assert np.all(np.abs(np.bincount(counts) / 3000 - 1 / 3) < 0.04)
    steps = sim.trials.mask_steps[sim.trials.mask_steps >= 0]
    cfg = sim.config
    assert steps.min() >= cfg.first_mask_step and steps.max() < cfg.last_mask_step_exclusive


def test_ood_variant_is_a_longer_delay():
    env = _make(E.DUAL_TASK_OOD)
    assert env.config.n_steps == 48
    assert (env.config.report_secondary_step, env.config.report_primary_step) == (46, 47)
    base = DualTaskConfig()
    assert env.config.mask_counts == base.mask_counts


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"mask_soa": 1, "mask_count": 2}, ("mask_soa",)),  # a mask on a cue step
        ({"mask_soa": 2, "mask_count": 40}, ("mask_soa", "mask_count", "mask_interval", "n_steps")),
        ({"n_steps": 4}, ("n_steps",)),
        ({"mask_counts": (0, 99)}, ("mask_counts",)),
    ],
)
def test_bad_dual_config_is_a_clear_error(kwargs, fields):
    assert refused(ConfigError, DualTaskConfig, **kwargs).fields == fields


def test_bad_overrides_are_clear_errors():
    env = _make(E.DUAL_TASK)
    with pytest.raises(ValueError, match="'colour'"):  # the override refused
        env.reset(seed=0, options={"colour": 3})
    with pytest.raises(ValueError, match=r"^secondary\b.*\b0\.\.6"):  # the cue and its range
        env.reset(seed=0, options={"secondary": 7})
    with pytest.raises(ValueError, match=r"^stimulus"):
        _make(E.WAGERING).reset(seed=0, options={"stimulus": 2})
    with pytest.raises(ValueError, match="salience_range"):
        WageringConfig(salience_range=(0.5, 0.1))
    with pytest.raises(ValueError, match="'colour'"):  # the option refused
        E.make_batch(E.DUAL_TASK, colour=3)


def _swatch_centre(frame: np.ndarray, grid_width: int) -> np.ndarray:
    x0, y0 = SWATCH_ORIGIN
    return frame[y0 + SWATCH // 2, grid_width + x0 + SWATCH // 2]


def test_dual_frames_show_cues_masks_and_flags():
    env = _make(E.DUAL_TASK_MASKING, render_mode="rgb_array", mask_soa=2, mask_count=2)
    env.reset(seed=0, options={"secondary": 1, "primary": 3})
    grid_width = 5 * env.tile_size
    frames = []
    for _ in range(env.config.n_steps):
        frames.append(env.render())
        env.step(env.oracle_action())
    frames.append(env.render())
    assert all(
        f.shape == (320, grid_width + PANEL_WIDTH, 3) and f.dtype == np.uint8 for f in frames
    )
    # Step 0: the colour cue (green) fills the swatch.
    assert tuple(_swatch_centre(frames[0], grid_width)) == CUE_RGB[SECONDARY_CUE_NAMES[1]]
    # Step 1: the object cue (a door) is drawn; steps 2-3: grey masks; step 10: nothing.
    assert not np.array_equal(frames[1], frames[10])
    mask_px = _swatch_centre(frames[2], grid_width)
    assert mask_px[0] == mask_px[1] == mask_px[2]
    assert tuple(_swatch_centre(frames[10], grid_width)) == (245, 245, 245)
    # Report flags light up (panel differs from a delay frame at the flag rows).
    assert not np.array_equal(frames[30][176:234, grid_width:], frames[10][176:234, grid_width:])
    assert PRIMARY_CUE_NAMES[3] == "door"


def test_wagering_frame_shows_the_flash_on_the_stimulus_zone():
    env = _make(E.WAGERING, render_mode="rgb_array")
    env.reset(seed=0, options={"stimulus": 0, "salience": 1.0, "wager": True})
    before = env.render()
    env.step(env.oracle_action())  # onto the stimulus zone: the flash
    during = env.render()
    env.step(env.oracle_action())
    after = env.render()
    ts = env.tile_size
    x, y = STIMULUS_CELL
    top = (during.shape[0] - 6 * ts) // 2  # the grid is centred vertically beside the panel
    ring = (
        during[top + y * ts : top + y * ts + 3, x * ts : (x + 1) * ts].reshape(-1, 3).mean(axis=0)
    )
    assert ring[2] > 150 and ring[0] < 100  # blue for the left class
    quiet = (
        after[top + y * ts : top + y * ts + 3, x * ts : (x + 1) * ts].reshape(-1, 3).mean(axis=0)
    )
    assert quiet[2] < 150  # no ring once the flash is over
    assert before.shape == during.shape == after.shape
    assert tuple(_swatch_centre(during, 7 * ts)) == CUE_RGB["blue"]
    assert tuple(_swatch_centre(after, 7 * ts)) == (245, 245, 245)


@pytest.mark.parametrize(
    "task_id", [E.WAGERING, E.POST_DECISION_WAGER, E.DUAL_TASK, E.DUAL_TASK_OOD]
)
def test_batched_simulator_equals_minigrid(task_id):
    seeds = range(100, 130)
    sim = E.make_batch(task_id)
    actions = np.stack(
        [_random_actions(np.random.default_rng(s), sim.max_steps, task_id) for s in seeds]
    )
    # Lockstep comparison of every episode against its MiniGrid twin.
    obs_b = sim.reset(seeds)
    twins = []
    for seed in seeds:
        twin = _make(task_id)
        twins.append((twin, twin.reset(seed=seed)[0]))
    outcomes = 0
    for t in range(sim.max_steps):
        expert = sim.oracle_action()
        alive = sim.alive.copy()
        for i, (twin, obs) in enumerate(twins):
            if not alive[i]:
                continue
            np.testing.assert_array_equal(obs["image"], obs_b.image[i])
            assert obs["direction"] == obs_b.direction[i]
            np.testing.assert_array_equal(obs["task"], obs_b.task[i])
            np.testing.assert_allclose(obs["cue"], obs_b.cue[i], rtol=0, atol=1e-6)
            assert twin.oracle_action() == expert[i]
        obs_b, reward_b, term_b, trunc_b = sim.step(actions[:, t])
        for i, (twin, _) in enumerate(twins):
            if not alive[i]:
                continue
            obs, reward, terminated, truncated, _ = twin.step(actions[i, t])
            twins[i] = (twin, obs)
            assert (reward, terminated, truncated) == (reward_b[i], term_b[i], trunc_b[i])
            outcomes += terminated or truncated
        if not sim.alive.any():
            break
    assert outcomes == len(seeds)


def test_demonstrations_follow_the_oracle():
    for task_id in (E.DUAL_TASK, E.WAGERING):
        demos = E.oracle_demonstrations(task_id, range(50))
        env = _make(task_id)
        for i in (0, 7, 49):
            env.reset(seed=i)
            for t in range(demos.n_steps):
                if not demos.valid[i, t]:
                    break
                assert env.oracle_action() == demos.action[i, t]
                env.step(demos.action[i, t])
        kinds = np.bincount(demos.step_kind[demos.valid], minlength=4)
        if task_id == E.DUAL_TASK:
            assert kinds[E.StepKind.REPORT_1] == kinds[E.StepKind.REPORT_2] == 50
            assert demos.valid.all()
        else:
            assert kinds[E.StepKind.REPORT_1] == 50  # one decision per episode
            assert kinds[E.StepKind.WAGER] == demos.labels["wager"].sum()


def test_cue_blind_context_predicts_the_oracle_at_chance():
    # Pre-registered design property (protocol sec. 2.3): without the cue channel, the best
    # predictor of the expert's action from (pose, flags, step) is at chance, 1/7, so cue-blind
    # agents (A0, A1, bus-off B1) cannot exceed chance per step by exploiting the delay.
    demos = E.oracle_demonstrations(E.DUAL_TASK, range(20000))
    t_index = np.broadcast_to(np.arange(demos.n_steps), demos.pose.shape)
    context = demos.pose * 1000 + t_index * 4 + demos.task @ np.array([1, 2])
    ctx, action = context.ravel(), demos.action.ravel()
    half = len(ctx) // 2
    # Fit the majority action per context on one half, score it on the other.
    table: dict[int, np.ndarray] = {}
    for c, a in zip(ctx[:half], action[:half], strict=True):
        table.setdefault(int(c), np.zeros(7))[a] += 1
    guess = np.array([np.argmax(table.get(int(c), np.ones(7))) for c in ctx[half:]])
    accuracy = (guess == action[half:]).mean()
    assert abs(accuracy - 1 / 7) < 0.02


def test_wagering_cue_content_follows_salience_and_noise():
    sim = E.make_batch(E.WAGERING)
    sim.reset(range(4000))
    demos = E.oracle_demonstrations(E.WAGERING, range(4000))
    shown = demos.cue[..., EVENT_INDEX] > 0
    assert (shown.sum(axis=1) == 1).all()  # exactly one transient flash per episode
    content = demos.cue[shown][:, CONTENT_SLICE][:, :2]
    s, lam = demos.labels["stimulus"], demos.labels["salience"]
    signal = content[np.arange(len(s)), s] - content[np.arange(len(s)), 1 - s]
    # signal = lambda + N(0, 2 sigma^2)
    residual = signal - lam
    assert abs(residual.mean()) < 0.02
    assert abs(residual.std() - np.sqrt(2) * 0.25) < 0.02
    assert abs(demos.labels["wager"].mean() - 0.5) < 0.03
    assert BET_ACTION == 3


def test_a_dual_frame_names_only_a_report_and_whose_step_it_was(monkeypatch):
    """The frame must not say "answered 4 (yellow)" in the delay or beside the object report while
    the caption names the object. A frame shows the room before step t's action, so
    what it says the agent answered is the previous step's report, named as such."""
    from PIL import ImageDraw

    drawn: list[str] = []
    original = ImageDraw.ImageDraw.text
    monkeypatch.setattr(
        ImageDraw.ImageDraw,
        "text",
        lambda self, xy, text, *a, **k: (
            drawn.append(str(text)),
            original(self, xy, text, *a, **k),
        )[1],
    )
    env = _make(E.DUAL_TASK, render_mode="rgb_array")
    env.reset(seed=0, options={"secondary": 4, "primary": 6})
    cfg = env.config
    said: dict[int, list[str]] = {}
    for t in range(cfg.n_steps + 1):
        drawn.clear()
        env.render()
        said[t] = [line for line in drawn if "answered" in line or "reported" in line]
        if t < cfg.n_steps:
            env.step(
                env.oracle_action() if t >= cfg.report_secondary_step else 4
            )  # rehearses "yellow"
    delay = range(3, cfg.report_secondary_step + 1)
    assert all(not said[t] for t in delay), {t: said[t] for t in delay if said[t]}
    (colour,) = said[cfg.report_primary_step]  # one line, one step after the report
    assert colour.startswith(f"step {cfg.report_secondary_step}:") and colour.endswith(": yellow")
    (obj,) = said[cfg.n_steps]
    assert obj.startswith(f"step {cfg.report_primary_step}:")
    assert obj.endswith(f": {PRIMARY_CUE_NAMES[6]}")  # the cue's name
