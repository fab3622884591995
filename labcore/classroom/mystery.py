"""Mystery agent: a classroom puzzle with a hidden lesion, capacity or noise.

After PhET's "mystery resistor": a teacher makes a :class:`Puzzle` (one bundled agent under
exactly one hidden condition, so one diagnosis) and shares its code; students see the markers and
one episode, diagnose, and get the reveal (:func:`explain`). Each task offers the four diagnoses
its markers can tell apart. The code is **not cryptography**: 30 bits through a fixed reversible
mix, as 6 Crockford base32 characters plus 2 check characters that refuse any single mistyped
character or swap of neighbours.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

from labcore.checks import check_choice, choice_error
from labcore.classroom.store import Question
from labcore.config import NOISE_MODES, PAGE_URLS, SELF_MODEL_MODES, AgentConfig
from labcore.links import query
from labcore.measures import MetacognitionView, WorkspaceView
from labcore.render import UNDEFINED, chance, finite, fmt, render, term

PuzzleView = MetacognitionView | WorkspaceView
"""What a puzzle's condition measures to: E1's view (wagering) or E2's (dual task)."""

TASKS = ("wagering", "dual")
"""Puzzle tasks (names as in the checkpoint manifest)."""
KIND_OF_TASK = {"wagering": "b2_ws", "dual": "b1"}
"""The agent kind each task's puzzles use."""
FULL_CAPACITY = AgentConfig().n_slots
"""Workspace slots of an intact agent (K)."""
NOISE_LEVELS = (0.0, 0.3, 0.5, 0.75)
"""Workspace noise SDs a puzzle may hide (0 = none); all at least 0.3, so that an intact B1
(conjunction 100% on every bundled seed) and a noisy one (at most 66%) are never confused."""
NOISE_MODE = NOISE_MODES[0]
"""Puzzles add noise to the stored workspace (``"stored"``)."""
MAX_SEED = 31
EPISODES = 64
"""A puzzle shows one of the first ``EPISODES`` episodes of its measured batch."""

_DATA = json.loads((Path(__file__).parent / "mystery.json").read_text(encoding="utf-8"))
DIAGNOSES: dict[str, str] = _DATA["diagnoses"]
"""Every diagnosis a student can choose, by id, with its label."""
_CONDITIONS: dict[str, dict[str, tuple[str, dict]]] = {
    "wagering": {
        "intact": ("Intact (nothing hidden)", {}),
        "zero": ("Self-model zeroed", {"self_model_mode": "zero"}),
        "noise": ("Self-model scrambled: replaced by noise", {"self_model_mode": "noise"}),
        "permute": ("Self-model scrambled: shuffled across trials", {"self_model_mode": "permute"}),
        "bus_off": ("Workspace switched off (0 slots)", {"capacity": 0}),
    },
    "dual": {
        "intact": ("Intact (nothing hidden)", {}),
        "bus_off": ("Workspace switched off (0 slots)", {"capacity": 0}),
        **{
            f"k{k}": (f"Workspace narrowed to {k} slot{'s' * (k > 1)}", {"capacity": k})
            for k in range(1, FULL_CAPACITY)
        },
        **{
            f"sigma{s:g}": (f"Noise in the workspace, sigma {s:g}", {"noise": s})
            for s in NOISE_LEVELS[1:]
        },
    },
}


@dataclass(frozen=True)
class Puzzle:
    """One bundled agent under one hidden condition (at most one field differs from intact).

    ``task`` "wagering" (self-model puzzles, kind ``b2_ws``) or "dual" (workspace, ``b1``);
    ``capacity`` in active slots (0 = bus-off); ``noise`` one of :data:`NOISE_LEVELS`;
    ``episode`` which of the measured batch's episodes the rollout shows.
    """

    task: str = "wagering"
    kind: str = "b2_ws"
    seed: int = 0
    self_model_mode: str = "on"
    capacity: int = FULL_CAPACITY
    noise: float = 0.0
    episode: int = 0

    def __post_init__(self) -> None:
        problems = []
        if wrong := choice_error(self.task, "task", TASKS):
            problems.append(wrong)
        elif self.kind != KIND_OF_TASK[self.task]:
            problems.append(f"{self.task} puzzles use agent {KIND_OF_TASK[self.task]!r}")
        if not (0 <= self.seed <= MAX_SEED and 0 <= self.episode < EPISODES):
            problems.append(f"seed must be in 0-{MAX_SEED} and episode in 0-{EPISODES - 1}")
        if (
            self.self_model_mode not in SELF_MODEL_MODES
            or self.capacity not in range(FULL_CAPACITY + 1)
            or self.noise not in NOISE_LEVELS
        ):
            problems.append("self_model_mode, capacity or noise is out of range")
        hidden = (
            (self.self_model_mode != "on") + (self.capacity != FULL_CAPACITY) + (self.noise > 0)
        )
        allowed = {
            "wagering": self.noise == 0 and self.capacity in (0, FULL_CAPACITY),
            "dual": self.self_model_mode == "on",
        }.get(self.task, True)
        if hidden > 1 or not allowed:
            problems.append("a puzzle hides exactly one condition its task's markers can show")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def diagnosis(self) -> str:
        """The one right answer, a key of :data:`DIAGNOSES`."""
        if self.capacity == 0:
            return "bus_off"
        if self.self_model_mode == "zero":
            return "self_zeroed"
        if self.self_model_mode in ("noise", "permute"):
            return "self_scrambled"
        if self.capacity < FULL_CAPACITY:
            return "narrowed"
        return "noisy" if self.noise > 0 else "intact"


def diagnosis_choices(task: str) -> tuple[str, ...]:
    """The diagnoses offered for a task's puzzles: its conditions', in order.

    >>> diagnosis_choices("dual")
    ('intact', 'bus_off', 'narrowed', 'noisy')
    """
    return tuple(dict.fromkeys(make_puzzle(task, name).diagnosis for name in _CONDITIONS[task]))


def conditions(task: str) -> dict[str, str]:
    """The hidden conditions a teacher can choose for a task: id -> label.

    >>> list(conditions("wagering"))
    ['intact', 'zero', 'noise', 'permute', 'bus_off']
    """
    return {name: label for name, (label, _) in _CONDITIONS[task].items()}


def make_puzzle(task: str, condition: str, seed: int = 0, episode: int = 0) -> Puzzle:
    """The puzzle of one of :func:`conditions` (raises ValueError on an unknown task or condition).

    >>> make_puzzle("dual", "k2", seed=3).diagnosis
    'narrowed'
    """
    check_choice(task, "task", _CONDITIONS)
    check_choice(condition, f"condition of a {task} puzzle", _CONDITIONS[task])
    return Puzzle(
        task=task,
        kind=KIND_OF_TASK[task],
        seed=seed,
        episode=episode,
        **_CONDITIONS[task][condition][1],
    )


def condition_of(puzzle: Puzzle) -> str:
    """The id of the puzzle's hidden condition (the inverse of :func:`make_puzzle`)."""
    hidden = replace(puzzle, seed=0, episode=0)
    return next(
        name for name in _CONDITIONS[puzzle.task] if make_puzzle(puzzle.task, name) == hidden
    )


def random_puzzle(rng: np.random.Generator, seeds: Sequence[int] = (0, 1, 2, 3, 4)) -> Puzzle:
    """A puzzle drawn with ``rng``: task, then diagnosis (uniform), then details, seed, episode.

    >>> random_puzzle(np.random.default_rng(1)) == random_puzzle(np.random.default_rng(1))
    True
    """
    if not seeds:
        raise ValueError("random_puzzle needs at least one available seed")
    task = TASKS[int(rng.integers(len(TASKS)))]
    diagnosis = diagnosis_choices(task)[int(rng.integers(4))]
    options = [name for name in _CONDITIONS[task] if make_puzzle(task, name).diagnosis == diagnosis]
    condition = options[int(rng.integers(len(options)))]
    return make_puzzle(
        task,
        condition,
        seed=int(seeds[int(rng.integers(len(seeds)))]),
        episode=int(rng.integers(EPISODES)),
    )


# ---------------------------------------------------------------- the code
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford base32: no I, L, O or U (typed I and L are read as 1, O as 0)."""
CODE_LENGTH = 8
MAX_CODE_TEXT = 100
"""The longest text read as a code: longer text is refused before it is normalised."""
_DATA_CHARS, _BITS, _VERSION = 6, 30, 1
_MASK = (1 << _BITS) - 1
_ALIASES = str.maketrans({"I": "1", "L": "1", "O": "0"})
_ROUNDS = (
    (0x2C1B3C6D, 0x1F0A3B29, 13),
    (0x297A2D39, 0x0BADC0DE & _MASK, 11),
    (0x3C6EF373, 0x2545F491, 17),
)
"""(odd multiplier, addend, xor-shift) of each mixing round: fixed, so a code means the same
puzzle forever (changing them invalidates every shared link)."""
_FIELDS = (
    ("version", 2),
    ("task", 1),
    ("kind", 2),
    ("seed", 5),
    ("mode", 2),
    ("capacity", 3),
    ("noise", 2),
    ("episode", 6),
)
_KINDS = ("b2_ws", "b1")


def _pack(puzzle: Puzzle) -> int:
    values = {
        "version": _VERSION,
        "task": TASKS.index(puzzle.task),
        "kind": _KINDS.index(puzzle.kind),
        "seed": puzzle.seed,
        "mode": SELF_MODEL_MODES.index(puzzle.self_model_mode),
        "capacity": puzzle.capacity,
        "noise": NOISE_LEVELS.index(puzzle.noise),
        "episode": puzzle.episode,
    }
    x = 0
    for name, bits in _FIELDS:
        x = (x << bits) | values[name]
    return x


def _unpack(x: int) -> Puzzle:
    values = {}
    for name, bits in reversed(_FIELDS):
        values[name], x = x & ((1 << bits) - 1), x >> bits
    if x or values["version"] != _VERSION or values["kind"] >= len(_KINDS):
        raise ValueError("bad header")
    return Puzzle(
        task=TASKS[values["task"]],
        kind=_KINDS[values["kind"]],
        seed=values["seed"],
        self_model_mode=SELF_MODEL_MODES[values["mode"]],
        capacity=values["capacity"],
        noise=NOISE_LEVELS[values["noise"]],
        episode=values["episode"],
    )


def _mix(x: int) -> int:
    for mul, add, shift in _ROUNDS:
        x = (x * mul + add) & _MASK
        x ^= x >> shift
    return x


def _unmix(x: int) -> int:
    for mul, add, shift in reversed(_ROUNDS):
        y = x
        for _ in range(_BITS // shift + 1):  # invert x ^= x >> shift by fixed-point iteration
            y = x ^ (y >> shift)
        x = ((y - add) * pow(mul, -1, 1 << _BITS)) & _MASK
    return x


def _checks(digits: Sequence[int]) -> tuple[int, int]:
    # The plain sum catches every single substitution; the weighted one every swap of neighbours.
    return sum(digits) % 32, sum((i + 1) * d for i, d in enumerate(digits)) % 32


def encode(puzzle: Puzzle) -> str:
    """The puzzle as an 8-character code (6 data + 2 check characters, Crockford base32).

    >>> code = encode(Puzzle(task="dual", kind="b1", capacity=2))
    >>> len(code), decode(code).capacity
    (8, 2)
    """
    x = _mix(_pack(puzzle))
    digits = [(x >> (5 * (_DATA_CHARS - 1 - i))) & 31 for i in range(_DATA_CHARS)]
    return "".join(ALPHABET[d] for d in [*digits, *_checks(digits)])


class CodeError(ValueError):
    """A puzzle code refused, in one sentence for the student; ``kind`` says why: ``"length"``,
    ``"alphabet"``, ``"check"`` (a character probably mistyped) or ``"unknown"`` (no puzzle of
    this version of the lab)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind

    def __reduce__(self) -> tuple:
        """Pickled with its record."""
        return (type(self), (str(self), self.kind))


def decode(code: str) -> Puzzle:
    """The puzzle of a code (case, spaces and dashes ignored; I and L read as 1, O as 0).

    >>> decode(encode(Puzzle(seed=3))).seed
    3
    >>> decode("ABCDEFGH")
    Traceback (most recent call last):
    ...
    labcore.classroom.mystery.CodeError: This puzzle code does not check out: a character is
    probably mistyped.
    """
    text = str(code)
    if len(text) <= MAX_CODE_TEXT:  # a longer text is refused before it is normalised
        text = text.strip().upper().replace("-", "").replace(" ", "").translate(_ALIASES)
    if len(text) != CODE_LENGTH:
        raise CodeError(
            f"A puzzle code has {CODE_LENGTH} characters; this one has {len(text)}.", "length"
        )
    if any(c not in ALPHABET for c in text):
        raise CodeError(
            "A puzzle code has only digits and the letters A to Z except U.", "alphabet"
        )
    digits = [ALPHABET.index(c) for c in text]
    if tuple(digits[_DATA_CHARS:]) != _checks(digits[:_DATA_CHARS]):
        raise CodeError(
            "This puzzle code does not check out: a character is probably mistyped.", "check"
        )
    x = 0
    for d in digits[:_DATA_CHARS]:
        x = (x << 5) | d
    try:
        return _unpack(_unmix(x))
    except ValueError:
        raise CodeError(
            "This code is not a puzzle this version of the lab can open.", "unknown"
        ) from None


# ---------------------------------------------------------------- markers and the reveal
@dataclass(frozen=True)
class Marker:
    """A marker shown on a puzzle: its label, format and the caption that gives its chance level."""

    key: str
    label: str
    fmt: str
    caption: str
    undefined: str
    """Why the marker can be undefined on some data (shown as "not defined here")."""

    def shown(self, value: float) -> str:
        """The value as the page shows it ("not defined here" for nan)."""
        return UNDEFINED if not finite(value) else self.fmt.format(value)


_CHANCE = {
    "wager": chance("wager", "percent").text,
    "auroc": chance("auroc").text,
    "report": chance("decision").text,
    "both": chance("conjunction").text,
}
"""The chance levels the markers' captions and the reveal quote."""
MARKERS: dict[str, tuple[Marker, ...]] = {
    task: tuple(Marker(**{**m, "caption": m["caption"].format(**_CHANCE)}) for m in rows)
    for task, rows in _DATA["markers"].items()
}
"""The markers each task's puzzles show (``mystery.json``), behaviour only: a count of the slots in
use would read the hidden capacity off directly."""
GIVEAWAY: dict[tuple[str, str], tuple[str, ...]] = {
    (task, diagnosis): tuple(keys)
    for task, by_diagnosis in _DATA["giveaway"].items()
    for diagnosis, keys in by_diagnosis.items()
}
"""The markers that give each diagnosis away (keys of :data:`MARKERS`), most telling first."""


def giveaway(puzzle: Puzzle) -> tuple[Marker, ...]:
    """The markers that give the puzzle's diagnosis away."""
    by_key = {m.key: m for m in MARKERS[puzzle.task]}
    return tuple(by_key[k] for k in GIVEAWAY[puzzle.task, puzzle.diagnosis])


def measured_markers(view: PuzzleView) -> dict[str, float]:
    """The puzzle markers of one measured condition (a wagering or a dual-task view)."""
    if isinstance(view, MetacognitionView):
        answered = view.confidence[view.answered]
        return {
            "accuracy": view.accuracy,
            "auroc": view.auroc,
            "skip_fraction": view.skip_fraction,
            "confidence_sd": float(answered.std()) if answered.size else float("nan"),
        }
    trace = view.trace
    correct = trace.report_correct()
    used = trace.occupied[trace.valid].sum(-1) if trace.occupied is not None else np.zeros(1)
    return {
        "colour": float(correct[:, 0].mean()),
        "object": float(correct[:, 1].mean()),
        "conjunction": float(view.conjunction.mean()),
        "slots_used": float(used.max(initial=0)),
    }


def explain(
    puzzle: Puzzle, markers: Mapping[str, float], intact: Mapping[str, float] | None = None
) -> str:
    """The one-paragraph reveal: the diagnosis and which marker gave it away, from measured values
    (``markers`` from :func:`measured_markers`; ``intact``, the same agent's with nothing hidden,
    for "stayed at" / "fell from" wording)."""
    shown = {m.key: m.shown(markers.get(m.key, float("nan"))) for m in MARKERS[puzzle.task]}
    used = markers.get("slots_used", float("nan"))
    return render(
        "mystery_reveal.j2",
        task=puzzle.task,
        d=puzzle.diagnosis,
        s=shown,
        ref={m.key: m.shown(intact[m.key]) for m in MARKERS[puzzle.task]} if intact else {},
        mode=puzzle.self_model_mode,
        capacity=puzzle.capacity,
        noise=f"{puzzle.noise:g}",
        slots=f"{fmt(used, 'count')} of {FULL_CAPACITY}" if finite(used) else "not measured",
        by_construction=term("by_construction").name,  # the glossary's word
        **_CHANCE,
    )


def describe_episode(view: PuzzleView, episode: int) -> str:
    """One sentence on what the agent did in one episode of a measured batch."""
    if isinstance(view, MetacognitionView):
        if view.decision[episode] < 0:
            return "In this trial the agent never reached a decision."
        confidence = float(view.confidence[episode])
        wager = (
            (" It was asked to wager and " + ("bet." if confidence > 0.5 else "opted out."))
            if view.wager[episode]
            else " No wager was asked on this trial."
        )
        side = "the correct" if view.correct[episode] else "the wrong"
        return (
            f"In this trial the agent went to {side} side, with confidence {confidence:.2f}.{wager}"
        )
    right = view.trace.report_correct()[episode]
    mark = {True: "right", False: "wrong"}
    return (
        f"In this episode the colour report was {mark[bool(right[0])]} and the object "
        f"report {mark[bool(right[1])]}."
    )


def class_question(puzzle: Puzzle) -> Question:
    """The puzzle as a question posted to a class, its view (no answer) open at once.

    >>> q = class_question(make_puzzle("dual", "bus_off", seed=1))
    >>> q.id.startswith("mystery."), q.view_first, q.choices[q.lab_choice]
    (True, True, 'Workspace switched off (bus-off)')
    """
    code = encode(puzzle)
    choices = diagnosis_choices(puzzle.task)
    clues = " and ".join(m.label for m in giveaway(puzzle))
    return Question(
        id=f"mystery.{code}",
        text="What was done to this agent? Read its markers and its episode, then choose.",
        choices=tuple(DIAGNOSES[c] for c in choices),
        answer=f"**Answer**: {DIAGNOSES[puzzle.diagnosis]}. What gives it away: {clues}.",
        view=f"{PAGE_URLS['mystery']}?{urlencode(query(code=code))}",
        view_first=True,
        lab_choice=choices.index(puzzle.diagnosis),
    )
