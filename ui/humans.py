"""The "Your data" and "Be the agent" pages' glue: uploads, the agents beside people, a session.

Nothing a visitor gives is written anywhere: an upload is read from memory into markers kept in
this browser session's ``st.session_state`` (never ``st.cache_data``, which every session
shares), and a "Be the agent" session lives there too. The agents' values come from the cached
measurements of :mod:`ui.data` (``data.metacognition``: the shipped view cache of the bundled
agents); people's markers from :mod:`labcore.humans`, the one home of that computation.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from labcore.config import AGENT_KINDS
from labcore.figures.style import PALETTE
from labcore.humans import datasets
from labcore.humans.datasets import DataSet, GroupLine
from labcore.humans.markers import SubjectMarkers, agent_markers, subject_markers
from labcore.humans.session import (
    SESSION_TRIALS,
    VISITOR,
    SessionTrials,
    key_answer,
    session_trials,
    visitor_csv,
)
from labcore.humans.trials import MAX_FILE_BYTES, Format, read_trials
from labcore.scorecards.contract import ContractError
from ui import data

if TYPE_CHECKING:
    from labcore.measures import MetacognitionView

B2 = "b2_ws"
"""The E1 agent a visitor is compared with (B2, workspace-read)."""
REWARD = "reward_late"
"""The reward-trained agent shown beside people (E4 again, arm a')."""
REWARD_LABEL = "agent trained from reward alone"
"""How the pages name it (its arm is in the Reward page's words, never its kind code)."""
AGENTS: tuple[tuple[str, str, str], ...] = (
    (B2, "on", "B2 agent"),
    (B2, "zero", "B2, self-model zeroed"),
    (REWARD, "on", REWARD_LABEL),
)
"""The bundled agents beside people: (kind, self-model mode, label)."""
YOU = VISITOR
"""How the pages name a visitor (the subject of their trial table)."""
COLOURS = {
    YOU: PALETTE["logits_max_softmax"],
    "B2 agent": PALETTE["self_on"],
    "B2, self-model zeroed": PALETTE["self_off"],
    REWARD_LABEL: PALETTE["reward_late"],
}
"""The pages' colours: the Metacognition page's self-on green and zeroed red, reward_late's blue,
and an amber for the visitor."""


# ----------------------------------------------------------------------------- uploads
MAX_FILES = 10
"""Most files the page measures at once (each up to 200 meta-d' fits; the command line takes any
number)."""
UPLOAD_LIMIT_MB = 10 * MAX_FILE_BYTES // 2**20
"""Streamlit's own limit on a Your data upload, in MB: ten times the lab's, so that a file over the
lab's limit reaches the lab's check and gets its sentence on the page (a file over Streamlit's
limit never reaches the server: the uploader marks it, and the page's caption states the limit).
``server.maxUploadSize`` in ``.streamlit/config.toml`` is this number, the server's own cap."""
GROUP_SEED = 0
"""The seed of the page's group-line bootstrap (the command line's ``--seed`` default)."""


def measure_files(
    files: Sequence[tuple[str, bytes]],
    fmt: Format | None,
    *,
    by: str | None = None,
    pool: bool = False,
    task: str | None = None,
) -> list[DataSet]:
    """Each file measured (or refused in one sentence), kept in this session only: a rerun reads
    a file measured with the same choices back instead of fitting meta-d' again, and only the
    files on the page now are kept."""
    kept = st.session_state.get("your_data.measured", {})
    now: dict[tuple, DataSet] = {}
    for name, content in files:
        key = (name, hashlib.sha256(content).hexdigest(), fmt, by, pool, task)
        now[key] = kept.get(key) or datasets.measure(
            content, name, fmt, by=by, pool=pool, task=task
        )
    st.session_state["your_data.measured"] = now
    return list(now.values())


def group_lines(measured: Sequence[DataSet]) -> list[GroupLine]:
    """The measured files' group lines (:func:`labcore.humans.datasets.group_lines`, seed
    :data:`GROUP_SEED`), kept in this session while the files and choices stay the same."""
    key = tuple((ds.name, ds.rows) for ds in measured)
    kept = st.session_state.get("your_data.groups")
    if kept is not None and kept[0] == key:
        return kept[1]
    lines = datasets.group_lines(measured, seed=GROUP_SEED)
    st.session_state["your_data.groups"] = (key, lines)
    return lines


def _view(kind: str, seed: int, mode: str) -> MetacognitionView | None:
    """An agent's cached Metacognition view; None, after the one error ``data.checked_agent``
    shows for an unusable checkpoint (once per file and run), when it cannot be read."""
    try:
        return data.metacognition(kind, seed, mode, AGENT_KINDS[kind].n_slots, 0.0)
    except (OSError, ValueError):  # a CheckpointError is a ValueError
        reported = st.session_state.setdefault("_humans.reported", set())
        if (kind, seed) not in reported:
            reported.add((kind, seed))
            data.checked_agent("wagering", kind, seed)  # its st.error names the file and the fix
        return None


def bundled_agents() -> dict[str, list[SubjectMarkers]]:
    """The bundled agents' markers, one record per seed, from their cached Metacognition views
    (300 evaluation trials each; an agent whose checkpoint cannot be used is left out, with one
    error)."""
    st.session_state["_humans.reported"] = set()
    seeds = data.seeds_by_kind("wagering")
    out: dict[str, list[SubjectMarkers]] = {}
    for kind, mode, label in AGENTS:
        for seed in seeds.get(kind, []):
            view = _view(kind, seed, mode)
            if view is None:
                continue
            out.setdefault(label, []).append(
                SubjectMarkers(
                    subject=f"{label}, seed {seed}",
                    n_trials=int(view.answered.sum()),
                    accuracy=view.accuracy,
                    type2_auroc=view.auroc,
                    meta_d=view.meta_d,
                    m_ratio=view.m_ratio,
                    calibration_error=view.calibration_error,
                )
            )
    return out


# ----------------------------------------------------------------------------- be the agent
@dataclass
class Game:
    """A visitor's session: the trial set, their answers so far, the side of the current trial."""

    trial_set: int
    trials: SessionTrials
    responses: list[int] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    side: int | None = None
    name: str = field(default_factory=lambda: uuid.uuid4().hex)
    keys_seen: int = 0

    @property
    def done(self) -> bool:
        """Has the visitor answered every trial?"""
        return len(self.responses) == len(self.trials)

    @property
    def trial(self) -> int:
        """The index of the trial being played."""
        return len(self.responses)


GAME = "be_the_agent.game"


def game() -> Game | None:
    """This session's game, if one was started."""
    return st.session_state.get(GAME)


def start_game(trial_set: int, n: int = SESSION_TRIALS) -> Game:
    """Start (or restart) a session on trial set ``trial_set``."""
    st.session_state[GAME] = Game(trial_set, session_trials(trial_set, n))
    return st.session_state[GAME]


def choose_side(side: int) -> None:
    """The visitor's side on the current trial (0 left, 1 right)."""
    g = game()
    if g is not None and not g.done:
        g.side = side


def wager(confidence: float) -> None:
    """The visitor's wager on the current trial: record the trial and move on."""
    g = game()
    if g is not None and not g.done and g.side is not None:
        g.responses.append(g.side)
        g.confidences.append(confidence)
        g.side = None


def press_keys(name: str, keys: Sequence[str]) -> None:
    """Answer with the key presses of game ``name`` not answered yet, in the order they were
    pressed (:func:`ui.key_queue.key_queue` sends them all, so a press between two reruns is
    never lost): a side, then a wager, as the buttons would."""
    g = game()
    if g is None or g.name != name:
        return
    for key in keys[g.keys_seen :]:
        g.keys_seen += 1
        answer = key_answer(key)
        if answer is None:
            continue
        kind, value = answer
        if kind == "side" and g.side is None:
            choose_side(int(value))
        elif kind == "wager":
            wager(float(value))


def trial_sets() -> list[int]:
    """The trial sets offered: the seeds of the bundled B2 agents (so the agent played the same
    trials), or set 0 alone when none is available."""
    return data.seeds_by_kind("wagering").get(B2) or [0]


@dataclass(frozen=True)
class Played:
    """One player's trials and markers on a session's trials (the visitor, or an agent)."""

    markers: SubjectMarkers
    correct: np.ndarray
    confidence: np.ndarray


def visitor_table(g: Game) -> bytes:
    """The visitor's trials so far in the lab format (what they download)."""
    return visitor_csv(g.trials, g.responses, g.confidences)


def visitor_played(g: Game) -> Played | str:
    """The visitor's markers, read back from their own table exactly as an upload is read (the
    download gives the same numbers); or the sentence that says why they cannot be measured."""
    try:
        trials = read_trials(visitor_table(g), "your trials", "lab")
    except ContractError as err:
        return str(err)
    (markers,) = subject_markers(trials)
    st.session_state["be_the_agent.result"] = markers  # the typed record a class store can take
    return Played(markers, trials.stimulus == trials.response, trials.confidence)


def agents_on_trials(g: Game) -> dict[str, Played]:
    """B2, intact and with its self-model zeroed, on the visitor's very trials: the first trials
    of its seed's cached evaluation (:mod:`labcore.humans.session` explains why they are the same),
    measured as the visitor is. Empty when no B2 agent of that seed is available."""
    if g.trial_set not in data.seeds_by_kind("wagering").get(B2, []):
        return {}
    st.session_state["_humans.reported"] = set()
    out = {}
    n = len(g.trials)
    for kind, mode, label in AGENTS[:2]:
        view = _view(kind, g.trial_set, mode)
        if view is None:
            continue
        if not np.array_equal(view.stimulus[:n], g.trials.stimulus):
            continue  # not the same trials (a view of another recipe): never compare those
        markers = agent_markers(
            view.stimulus[:n], view.decision[:n], view.confidence[:n], subject=label
        )
        answered = (view.decision[:n] >= 0) & np.isfinite(view.confidence[:n])
        out[label] = Played(
            markers, view.correct[:n][answered].astype(bool), view.confidence[:n][answered]
        )
    return out


# ----------------------------------------------------------------------------- a class
ACTIVITY = "be_the_agent"
"""The class store's activity name of a finished Be the agent session."""
CLASS_VALUES = ("n_trials", "accuracy", "type2_auroc", "meta_d", "m_ratio", "calibration_error")
"""What a student's finished session sends to the class: numbers only, no trial and no name."""
CLASS_LABEL = "your class"
"""How the teacher's figure names the class's points."""


def class_values(markers: SubjectMarkers) -> dict[str, float | None]:
    """The numbers a finished session submits to the class store (anonymous)."""
    return {k: getattr(markers, k) for k in CLASS_VALUES}


def class_markers(rows: list[dict]) -> list[SubjectMarkers]:
    """The class's submitted numbers as records the figure draws (one per student, numbered in
    the order they arrived; rows that do not fit the record are left out)."""
    out = []
    for i, row in enumerate(rows, 1):
        try:
            out.append(
                SubjectMarkers(
                    subject=f"student {i}",
                    n_trials=int(row.get("n_trials") or 0),
                    **{k: row.get(k) for k in CLASS_VALUES if k != "n_trials"},
                )
            )
        except (TypeError, ValueError):
            continue
    return out


def class_beside_agents(key: str) -> None:
    """The class's finished sessions beside the bundled agents, refreshed as they arrive (the
    teacher's projector; nothing without a class)."""
    from labcore.figures.humans import beside_agents_figure
    from ui import classroom
    from ui.components import figure

    if classroom.running() is None:
        return

    @st.fragment(run_every=classroom.POLL_SECONDS)
    def live() -> None:
        people = class_markers(classroom.class_results(ACTIVITY) or [])
        st.caption(f"{len(people)} student(s) have finished.")
        figure(
            beside_agents_figure(
                {CLASS_LABEL: people, **bundled_agents()},
                colours={**COLOURS, CLASS_LABEL: COLOURS[YOU]},
                title="Your class beside the agents",
            ),
            key=key,
        )

    live()
