"""Be the agent: a visitor plays the wagering task of Experiment 1 on the agent's own trials.

Trial set ``k`` is the first :data:`SESSION_TRIALS` evaluation episodes of agent seed ``k``,
drawn by the task's own sampler, so a bundled agent of seed ``k`` saw exactly these trials first.
The flash is shown still, as a grey swatch tinted blue and red in proportion to the agent's two
evidence entries (clipped to [0, 1]). The visitor picks a side, then opts out (50%) or bets
(65/80/95% sure), a probability of being right as the agent's confidence (paper sec. 4.2); their
trials are a lab-format table read back by :mod:`labcore.humans.trials`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from labcore.config import WageringConfig
from labcore.envs.batch import episode_rngs
from labcore.envs.channels import CONTENT_SLICE
from labcore.envs.render import CUE_RGB
from labcore.envs.wagering import WageringState, sample_wagering_trials, wagering_observation
from labcore.humans.markers import SubjectMarkers
from labcore.humans.reference import trial_band
from labcore.humans.trials import lab_csv
from labcore.render import render
from labcore.seeding import episode_seeds

SESSION_TRIALS = 50
"""Trials of one session: about three minutes at two clicks a trial."""
VISITOR = "you"
"""The subject name of a visitor's trials."""


@dataclass(frozen=True)
class Wager:
    """One answer to "bet or opt out?": the stated probability of being right and its words."""

    confidence: float
    label: str
    shortcut: str

    @property
    def bet(self) -> bool:
        """A bet (confidence above 0.5, paper sec. 4.2), else an opt-out."""
        return self.confidence > 0.5


WAGERS: tuple[Wager, ...] = (
    Wager(0.5, "Opt out: a guess (50%)", "1"),
    Wager(0.65, "Bet: 65% sure", "2"),
    Wager(0.8, "Bet: 80% sure", "3"),
    Wager(0.95, "Bet: 95% sure", "4"),
)
"""The visitor's four answers after choosing a side (keys 1-4)."""
SIDES = ("Left (blue)", "Right (red)")
"""The two choices: class 0 goes left (blue), class 1 right (red), as in the task."""
SIDE_KEYS = ("ArrowLeft", "ArrowRight")
"""The keys of the two sides (a browser's ``KeyboardEvent.key``)."""
ANSWER_KEYS = (*SIDE_KEYS, *(w.shortcut for w in WAGERS))
"""Every key that answers a trial."""


def key_answer(key: str) -> tuple[str, int | float] | None:
    """What a key press answers: ``("side", 0 or 1)``, ``("wager", confidence)`` or None.

    >>> key_answer("ArrowLeft"), key_answer("3"), key_answer("q")
    (('side', 0), ('wager', 0.8), None)
    """
    if key in SIDE_KEYS:
        return "side", SIDE_KEYS.index(key)
    return next((("wager", w.confidence) for w in WAGERS if key == w.shortcut), None)


@dataclass(frozen=True, eq=False)
class SessionTrials:
    """The trials of one session: ``stimulus`` the right side (0 left, blue), ``salience`` the
    flash's strength lambda (higher is easier), ``evidence`` (n, 2) what the agent receives."""

    trial_set: int
    stimulus: NDArray[np.int64]
    salience: NDArray[np.float64]
    evidence: NDArray[np.float32]

    def __len__(self) -> int:
        return len(self.stimulus)


def session_trials(trial_set: int, n: int = SESSION_TRIALS) -> SessionTrials:
    """The ``n`` trials of set ``trial_set``: agent seed ``trial_set``'s first evaluation trials.

    >>> a, b = session_trials(0), session_trials(0)
    >>> len(a), bool((a.stimulus == b.stimulus).all()), a.evidence.shape
    (50, True, (50, 2))
    """
    trials = sample_wagering_trials(
        WageringConfig(), episode_rngs(episode_seeds(trial_set, "eval", n))
    )
    state = WageringState.start(n)
    state.cue_step = state.t.copy()  # the observation at the flash
    _, cue = wagering_observation(trials, state)
    return SessionTrials(
        trial_set=trial_set,
        stimulus=trials.stimulus,
        salience=trials.salience,
        evidence=cue[:, CONTENT_SLICE][:, :2],
    )


SWATCH_GREY = (150, 150, 150)
"""The swatch's colour with no evidence on either side."""
MIX = 0.6
"""Share of a side's colour in the swatch at evidence 1 (so full evidence both ways stays mixed)."""


def flash_image(evidence: Any, size: int = 220) -> NDArray[np.uint8]:
    """The flash as a still image: grey tinted blue by the left evidence, red by the right.

    >>> img = flash_image([1.0, 0.0], size=20)
    >>> img.shape, img[10, 10].tolist()
    ((20, 20, 3), [60, 60, 213])
    """
    left, right = np.clip(np.asarray(evidence, dtype=float), 0.0, 1.0)
    grey = np.asarray(SWATCH_GREY, float)
    colour = (
        grey
        + MIX * left * (np.asarray(CUE_RGB["blue"], float) - grey)
        + MIX * right * (np.asarray(CUE_RGB["red"], float) - grey)
    )
    img = np.empty((size, size, 3), np.uint8)
    img[:] = np.clip(np.round(colour), 0, 255).astype(np.uint8)
    edge = max(1, size // 60)
    img[:edge], img[-edge:], img[:, :edge], img[:, -edge:] = 40, 40, 40, 40
    return img


def visitor_csv(trials: SessionTrials, responses: Any, confidences: Any) -> bytes:
    """The visitor's trials in the lab format (salience as ``difficulty``, set as ``condition``)."""
    n = len(responses)
    return lab_csv(
        trials.stimulus[:n],
        responses,
        confidences,
        subject=VISITOR,
        difficulty=trials.salience[:n],
        condition=f"be the agent, trial set {trials.trial_set}",
    )


def answer_text(
    you: SubjectMarkers, intact: SubjectMarkers | None, zeroed: SubjectMarkers | None
) -> str:
    """The page's answer in words: the visitor beside the agent, intact and self-model zeroed."""
    return render(
        "be_the_agent.j2", you=you, intact=intact, zeroed=zeroed, recommended=trial_band()[0]
    ).strip()
