"""NeuroGym's ``PostDecisionWager-v0`` as a one-trial-per-episode gymnasium env (protocol sec. 8.6).

An external task (after Kiani & Shadlen 2009) wrapped so our agents train on it and our markers
measure it. ``neurogym`` is imported only when an env is built; without it one sentence says how
to install it (:class:`NeuroGymMissingError`).

The task, as NeuroGym 2.3.1 defines it (one step = ``dt`` = 100 ms): fixation (1 step), stimulus
(1-8 steps; evidence ``0.5 +- coh/200`` on the two evidence inputs, Gaussian noise of SD 0.1 on
all four), delay (12-17 steps; on sure-offered trials the sure cue from 500-700 ms after the
stimulus to the end), decision (1 step, fixation off). Each trial draws ``ground_truth``, ``coh``
(0, 3.2, 6.4, 12.8, 25.6 or 51.2%) and ``wager`` (sure offered, p = 1/2). Actions: 0 fixate, 1
left, 2 right, 3 sure. Breaking fixation costs ``abort = -0.1``; at the decision a correct choice
earns +1, a wrong one 0, the sure option 0.7 (``abort`` when not offered).

Where this adapter departs from calling NeuroGym:

- **One trial = one episode**: the trial's last step is ``terminated`` and ``reset`` starts a
  fresh trial at its fixation step (NeuroGym's ``reset`` takes a hidden step first).
- **Seeding**: ``reset(seed=s)`` seeds NeuroGym's trial generator and each duration's generator
  with its own stream of ``SeedSequence(s)``; NeuroGym's ``seed(s)`` would give them one state,
  tying the delay's duration to the stimulus's.
- **The correct-choice reward**: NeuroGym 2.3.1 compares the action (1 or 2) with
  ``ground_truth`` (0 or 1); with ``fix_reward=True`` (default) the adapter pays +1 for the
  choice ``gt`` names. NeuroGym's own reward is always in ``info["neurogym_reward"]``.

Observation ``[fixation, evidence_left, evidence_right, sure_cue]``; ``info`` carries the trial
(``coherence``, ``ground_truth``, ``sure_offered``, ``period``...) and, on the last step,
``choice``, ``correct``, ``reward`` and ``neurogym_reward``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import gymnasium
import numpy as np
import pandas as pd
from gymnasium import spaces

NEUROGYM_PIN = "neurogym==2.3.1"
"""The NeuroGym release this adapter was written against (``requirements-neurogym.txt``)."""
INSTALL_COMMAND = "make run"
"""The command that installs the pinned stack, NeuroGym included."""
INSTALL_HINT = (
    f"NeuroGym is not installed: run `{INSTALL_COMMAND}` or "
    "`.venv/bin/python -m pip install --no-deps -r requirements-neurogym.txt` to install it."
)
"""The one sentence shown when the adapter is used without NeuroGym."""

FIXATE, LEFT, RIGHT, SURE = 0, 1, 2, 3
ACTION_NAMES: tuple[str, ...] = ("fixate", "left", "right", "sure")
"""Action ``i``'s name (NeuroGym's action space: fixation 0, choice 1-2, sure 3)."""
PERIODS: tuple[str, ...] = ("fixation", "stimulus", "delay", "decision")
"""The task's periods in order (NeuroGym's ``pre_sure`` overlaps the start of the delay)."""
CHOICES: tuple[str, ...] = ("left", "right", "sure", "none")
"""Values of ``info["choice"]`` on the trial's last step."""


class NeuroGymMissingError(ImportError):
    """NeuroGym is not installed; the message says how to install it (``name``: the module
    missing, NeuroGym's own or a dependency's)."""


def neurogym_available() -> bool:
    """Whether ``neurogym`` can be imported here (without importing it)."""
    return importlib.util.find_spec("neurogym") is not None


def _task_class() -> type:
    """NeuroGym's ``PostDecisionWager`` class, or one clear error if NeuroGym is missing."""
    try:
        module = importlib.import_module("neurogym.envs.native.postdecisionwager")
    except ImportError as err:
        missing = getattr(err, "name", None) or ""
        if missing and missing.split(".")[0] != "neurogym":  # installed, but a dependency is not
            raise NeuroGymMissingError(
                f"NeuroGym could not be imported because `{missing}` is missing: "
                f"run `{INSTALL_COMMAND}` to install the pinned stack.",
                name=missing,
            ) from err
        raise NeuroGymMissingError(INSTALL_HINT, name="neurogym") from err
    return module.PostDecisionWager


class PostDecisionWagerEnv(gymnasium.Env):
    """NeuroGym's ``PostDecisionWager-v0``, one trial per episode; ``task_kwargs`` go to
    NeuroGym's ``PostDecisionWager`` (``dt``, ``rewards``, ``timing``, ``sigma``)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - gymnasium's convention

    def __init__(self, fix_reward: bool = True, **task_kwargs: Any) -> None:
        self.task = _task_class()(**task_kwargs)
        """The wrapped NeuroGym env (its ``trial``, ``ob``, ``gt`` and ``rewards`` are public)."""
        self.fix_reward = bool(fix_reward)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)
        self.action_space = spaces.Discrete(4)
        self.noise_sd = float(self.task.sigma)
        """SD of the Gaussian noise on each input at each stimulus step (``sigma / sqrt(dt)``)."""
        self._trial: dict[str, Any] = {}
        self._over = True

    @property
    def rewards(self) -> dict[str, float]:
        """The payoff table (NeuroGym's: abort, correct, fail, sure)."""
        return dict(self.task.rewards)

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """Start a new trial at its fixation step; ``seed`` seeds every NeuroGym generator."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed_task(seed)
        self.task.new_trial()
        self.task.t = self.task.t_ind = 0
        self._trial = dict(self.task.trial)
        self._over = False
        return self._observation(self.task.ob[0]), self._trial_info(self._period(0))

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """One 100 ms step; the trial's last step (the decision) ends the episode."""
        if self._over:
            raise RuntimeError("The trial is over: call reset() to start the next one.")
        action = int(action)
        period = self._period(self.task.t)
        last_ob = self.task.ob[-1]
        ob, ng_reward, _, _, ng_info = self.task.step(action)
        info = self._trial_info(period)
        info["gt"] = int(ng_info["gt"])
        reward = float(ng_reward)
        if period == "decision":
            reward = self._decision_reward(action, float(ng_reward))
        if not ng_info["new_trial"]:
            return self._observation(ob), reward, False, False, info
        # NeuroGym has already drawn the next trial: this episode ends on this trial's last input.
        self._over = True
        choice = "none"
        if period == "decision":
            choice = {LEFT: "left", RIGHT: "right", SURE: "sure"}.get(action, "none")
        correct = None if choice not in ("left", "right") else action == self._gt_action()
        info.update(choice=choice, correct=correct, reward=reward, neurogym_reward=float(ng_reward))
        return self._observation(last_ob), reward, True, False, info

    def _seed_task(self, seed: int) -> None:
        """Seed NeuroGym's trial generator and each duration's generator with its own stream."""
        timings = [v for v in self.task.timing.values() if hasattr(v, "seed")]
        states = np.random.SeedSequence(seed).generate_state(2 + len(timings))
        self.task.seed(int(states[0]))  # the trial draws, the noise and ``pre_sure``
        self.task.action_space.seed(int(states[1]))
        for timing, state in zip(timings, states[2:], strict=True):
            timing.seed(int(state))

    def _decision_reward(self, action: int, ng_reward: float) -> float:
        """The decision step's payoff: NeuroGym's, with the correct choice fixed if asked."""
        if not self.fix_reward or action not in (LEFT, RIGHT):
            return ng_reward
        rewards = self.task.rewards
        return float(rewards["correct"] if action == self._gt_action() else rewards["fail"])

    def _gt_action(self) -> int:
        return 1 + int(self._trial["ground_truth"])

    def _period(self, t: float) -> str:
        for name in PERIODS:
            if self.task.start_t[name] <= t < self.task.end_t[name]:
                return name
        return "decision"

    def _trial_info(self, period: str) -> dict[str, Any]:
        trial = self._trial
        return {
            "coherence": float(trial["coh"]),
            "ground_truth": int(trial["ground_truth"]),
            "ground_truth_action": self._gt_action(),
            "sure_offered": bool(trial["wager"]),
            "period": period,
            "neurogym_trial": dict(trial),
        }

    @staticmethod
    def _observation(ob: np.ndarray) -> np.ndarray:
        return np.asarray(ob, dtype=np.float32).copy()


class ThresholdObserver:
    """A scripted observer: sums the evidence; at the decision takes the sure option when offered
    and ``|sum| / (noise_sd sqrt(2 n)) < threshold``, else the side the sum favours."""

    def __init__(self, noise_sd: float = 0.1, threshold: float = 1.0) -> None:
        self.noise_sd = float(noise_sd)
        self.threshold = float(threshold)
        self.reset()

    def reset(self) -> None:
        """Forget the evidence (call at the start of every trial)."""
        self.evidence = 0.0
        self.n_stimulus_steps = 0

    def act(self, obs: np.ndarray) -> int:
        """The action for this observation (0 fixate, 1 left, 2 right, 3 sure)."""
        fixation, left, right, sure_cue = (float(x) for x in obs)
        if left != 0.0 or right != 0.0:
            self.evidence += right - left
            self.n_stimulus_steps += 1
        if fixation > 0.5:
            return FIXATE
        spread = self.noise_sd * np.sqrt(2.0 * max(self.n_stimulus_steps, 1))
        if sure_cue > 0.5 and abs(self.evidence) / spread < self.threshold:
            return SURE
        return RIGHT if self.evidence > 0 else LEFT


def run_trials(
    env: PostDecisionWagerEnv,
    policy: Callable[[np.ndarray], int],
    seeds: Iterable[int],
    reset_policy: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """Run one trial per seed and return each trial's last ``info`` (the rows of the analysis)."""
    rows = []
    for seed in seeds:
        obs, info = env.reset(seed=int(seed))
        if reset_policy is not None:
            reset_policy()
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(policy(obs))
            done = terminated or truncated
        rows.append({**info, "seed": int(seed)})
    return rows


def sure_choice_by_coherence(trials: Iterable[Mapping[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    """Sure-option rate and accuracy at each coherence (the Kiani & Shadlen 2009 markers).

    ``trials``: each episode's last ``info``. One row per coherence: ``sure_rate`` (of
    sure-offered trials), ``accuracy`` (among left/right choices), the same on trials without the
    sure option and where it was declined, ``no_choice_rate``; NaN where no trial counts.

    Examples
    --------
    >>> rows = [
    ...     {"coherence": 0.0, "sure_offered": True, "choice": "sure", "correct": None},
    ...     {"coherence": 0.0, "sure_offered": False, "choice": "left", "correct": False},
    ...     {"coherence": 51.2, "sure_offered": True, "choice": "right", "correct": True},
    ... ]
    >>> table = sure_choice_by_coherence(rows)
    >>> table["coherence"].tolist(), table["sure_rate"].tolist(), table["accuracy"].tolist()
    ([0.0, 51.2], [1.0, 0.0], [0.0, 1.0])
    """
    frame = pd.DataFrame(trials if isinstance(trials, pd.DataFrame) else list(trials))
    missing = {"coherence", "sure_offered", "choice", "correct"} - set(frame.columns)
    if missing:
        raise ValueError(f"Each trial needs the fields {sorted(missing)}.")
    out = []
    for coherence, group in frame.groupby("coherence", sort=True):
        offered = group["sure_offered"].astype(bool)
        chose_side = group["choice"].isin(["left", "right"])
        correct = group["correct"].where(chose_side).astype(float)
        out.append(
            {
                "coherence": float(coherence),
                "n_trials": len(group),
                "n_sure_offered": int(offered.sum()),
                "sure_rate": _mean(group.loc[offered, "choice"].eq("sure")),
                "accuracy": _mean(correct[chose_side]),
                "accuracy_not_offered": _mean(correct[chose_side & ~offered]),
                "accuracy_waived": _mean(correct[chose_side & offered]),
                "no_choice_rate": _mean(group["choice"].eq("none")),
            }
        )
    columns = "coherence n_trials n_sure_offered sure_rate accuracy accuracy_not_offered"
    columns += " accuracy_waived no_choice_rate"
    return pd.DataFrame(out, columns=columns.split())


def _mean(values: pd.Series) -> float:
    """Mean of a boolean or 0/1 series; NaN (not defined) when it is empty."""
    return float(values.astype(float).mean()) if len(values) else float("nan")
