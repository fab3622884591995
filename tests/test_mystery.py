"""Mystery agent puzzles (labcore/classroom/mystery.py): codes, random puzzles, the reveal, and
whether every diagnosis can be told from the markers a student is shown."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest

from labcore.classroom import mystery
from labcore.classroom.mystery import (
    ALPHABET,
    CODE_LENGTH,
    DIAGNOSES,
    MARKERS,
    TASKS,
    CodeError,
    Puzzle,
    conditions,
    decode,
    diagnosis_choices,
    encode,
    explain,
    giveaway,
    make_puzzle,
    random_puzzle,
)
from labcore.render import UNDEFINED, term

BY_CONSTRUCTION = term("by_construction").name

ALL_PUZZLES = [
    make_puzzle(task, name, seed, episode)
    for task in TASKS
    for name in conditions(task)
    for seed in range(mystery.MAX_SEED + 1)
    for episode in range(mystery.EPISODES)
]


def one_sentence(message: str) -> bool:
    return (
        message[:1].isupper()
        and message.endswith(".")
        and "\n" not in message
        and message.count(". ") == 0
    )


# ---------------------------------------------------------------- the puzzles and their codes
def test_every_condition_has_one_diagnosis_among_its_tasks_choices():
    seen = defaultdict(set)
    for task in TASKS:
        for name in conditions(task):
            puzzle = make_puzzle(task, name)
            assert puzzle.diagnosis in diagnosis_choices(task)
            assert mystery.condition_of(puzzle) == name
            seen[task].add(puzzle.diagnosis)
    assert seen == {task: set(diagnosis_choices(task)) for task in TASKS}, (
        "every offered choice can be the answer"
    )
    assert set().union(*(diagnosis_choices(t) for t in TASKS)) == set(DIAGNOSES)


@pytest.mark.parametrize(
    "fields",
    [
        {"task": "wagering", "kind": "b1"},  # wrong agent for the task
        {"task": "dual", "kind": "b1", "self_model_mode": "zero"},  # b1 has no self-model
        {"task": "wagering", "capacity": 2},  # invisible on the wagering task
        {"task": "dual", "kind": "b1", "capacity": 2, "noise": 0.5},  # two hidden conditions
        {"noise": 0.2},
        {"seed": 32},
        {"episode": 64},
        {"self_model_mode": "off"},
    ],
)
def test_puzzles_outside_the_design_are_refused(fields):
    with pytest.raises(ValueError):
        Puzzle(**fields)


def test_every_puzzle_round_trips_through_its_code():
    codes = [encode(p) for p in ALL_PUZZLES]
    assert len(set(codes)) == len(ALL_PUZZLES), "two puzzles share a code"
    assert all(len(c) == CODE_LENGTH and set(c) <= set(ALPHABET) for c in codes)
    assert all(decode(c) == p for c, p in zip(codes, ALL_PUZZLES, strict=True))
    # what a student types: lower case, a space or dash in the middle, O for 0 and I or L for 1
    code = encode(make_puzzle("dual", "k2", seed=3, episode=5))
    typed = f" {code[:4].lower()}-{code[4:]} ".replace("0", "o").replace("1", "l")
    assert decode(typed) == decode(code)


def test_codes_do_not_show_the_answer_in_plain_sight():
    codes = {p: encode(p) for p in ALL_PUZZLES}
    words = ("ZERO", "NOISE", "PERMUTE", "OFF", "INTACT", "SIGMA", "SLOT", "SCRAMBLE", "NARROW")
    assert not any(w in c for c in codes.values() for w in words)
    # No character at any position tells the diagnosis: every character seen there also occurs with
    # other diagnoses (a plain packing of the fields fails this: its capacity digit would say
    # "bus-off").
    for position in range(CODE_LENGTH):
        diagnoses_of_char = defaultdict(set)
        for p, c in codes.items():
            diagnoses_of_char[c[position]].add(p.diagnosis)
        assert min(len(d) for d in diagnoses_of_char.values()) >= 3, position
    # Changing only the hidden condition changes at least three of the six data characters.
    for task, seed, episode in itertools.product(TASKS, (0, 4, 31), (0, 17, 63)):
        same_agent = [codes[make_puzzle(task, name, seed, episode)] for name in conditions(task)]
        for a, b in itertools.combinations(same_agent, 2):
            assert sum(x != y for x, y in zip(a[:6], b[:6], strict=True)) >= 3, (a, b)


def test_a_corrupted_code_is_refused_with_one_sentence():
    rng = np.random.default_rng(0)
    sample = [encode(ALL_PUZZLES[i]) for i in rng.choice(len(ALL_PUZZLES), 60, replace=False)]
    for code in sample:
        for i in range(CODE_LENGTH):
            for c in ALPHABET.replace(code[i], ""):  # every single mistyped character
                with pytest.raises(CodeError) as info:
                    decode(code[:i] + c + code[i + 1 :])
                assert info.value.kind == "check" and one_sentence(str(info.value))
        for i in range(CODE_LENGTH - 1):  # every swap of neighbours
            swapped = code[:i] + code[i + 1] + code[i] + code[i + 2 :]
            if swapped != code:
                with pytest.raises(ValueError):
                    decode(swapped)
    for bad, reason in (
        ("", "has 8 characters"),
        ("ABC", "this one has 3"),
        ("x" * 5000, "this one has 5000"),
        ("ABCDEFGU", "letters A to Z except U"),
        ("ABCD!FGH", "letters A to Z except U"),
    ):
        with pytest.raises(ValueError, match=reason) as info:
            decode(bad)
        assert one_sentence(str(info.value)) and len(str(info.value)) < 120


def test_a_well_formed_code_of_no_puzzle_is_refused():
    # passes the check characters, but its payload (all zero bits: version 0) is no puzzle
    x = mystery._mix(0)
    digits = [(x >> (5 * (5 - i))) & 31 for i in range(6)]
    code = "".join(ALPHABET[d] for d in [*digits, *mystery._checks(digits)])
    with pytest.raises(CodeError) as info:
        decode(code)
    assert info.value.kind == "unknown"


def test_random_puzzles_are_fixed_by_their_seed_and_cover_every_diagnosis():
    draw = [random_puzzle(np.random.default_rng(7)) for _ in range(3)]
    assert draw[0] == draw[1] == draw[2]
    first = [random_puzzle(np.random.default_rng(s)) for s in range(300)]
    again = [random_puzzle(np.random.default_rng(s)) for s in range(300)]
    assert first == again
    assert len(set(first)) > 200, "different seeds give different puzzles"
    assert {(p.task, p.diagnosis) for p in first} == {
        (t, d) for t in TASKS for d in diagnosis_choices(t)
    }
    assert {p.seed for p in first} == {0, 1, 2, 3, 4}
    rng = np.random.default_rng(1)
    assert {random_puzzle(rng, seeds=[3]).seed for _ in range(20)} == {3}
    with pytest.raises(ValueError):
        random_puzzle(rng, seeds=[])


# ---------------------------------------------------------------- markers measured on seed 0
@pytest.fixture(scope="module")
def measured() -> dict[tuple[str, str], dict[str, float]]:
    """Every condition's markers on seed 0, through the pages' own cached views."""
    from ui import data

    out = {}
    for task in TASKS:
        for name in conditions(task):
            p = make_puzzle(task, name, seed=0)
            view = (
                data.metacognition(p.kind, 0, p.self_model_mode, p.capacity, 0.0)
                if task == "wagering"
                else data.workspace(p.kind, 0, p.capacity, p.noise, mystery.NOISE_MODE)
            )
            out[task, name] = mystery.measured_markers(view)
    return out


def shown_number(marker: mystery.Marker, value: float) -> float:
    """What a student reads off the page, as a number (a percentage as a fraction)."""
    text = marker.shown(value)
    number = float(text.split(" ")[0].rstrip("%"))
    return number / 100 if text.endswith("%") else number


def ideal_student(task: str, shown: dict[str, float]) -> str:
    """A diagnosis from the displayed values alone, reasoning from chance levels and
    construction."""
    if task == "wagering":
        if shown["accuracy"] < 0.5 + 0.1:  # guessing: the flash never arrived
            return "bus_off"
        if shown["auroc"] >= 0.65:  # confidence tells right from wrong
            return "intact"
        return "self_zeroed" if shown["confidence_sd"] == 0 else "self_scrambled"
    if max(shown["colour"], shown["object"]) < 0.25:  # both reports at guessing level (chance 1/7)
        return "bus_off"
    if shown["object"] - shown["colour"] >= 0.1:  # the colour, first in, is the cue displaced
        return "narrowed"
    return "intact" if shown["conjunction"] >= 0.9 else "noisy"


def test_every_diagnosis_can_be_told_from_the_displayed_markers(measured):
    for (task, name), values in measured.items():
        shown = {m.key: shown_number(m, values[m.key]) for m in MARKERS[task]}
        assert ideal_student(task, shown) == make_puzzle(task, name).diagnosis, (task, name, shown)


def test_markers_are_measured_not_constants(measured):
    wager = {name: measured["wagering", name] for name in conditions("wagering")}
    assert wager["zero"]["accuracy"] == wager["intact"]["accuracy"]  # the policy never reads z_self
    assert wager["zero"]["auroc"] == 0.5 and wager["zero"]["confidence_sd"] == 0  # by construction
    assert wager["permute"]["confidence_sd"] == pytest.approx(
        wager["intact"]["confidence_sd"]
    )  # same values, shuffled
    assert wager["intact"]["auroc"] > 0.7 > wager["noise"]["auroc"]
    dual = {name: measured["dual", name] for name in conditions("dual")}
    assert [dual[f"k{k}"]["slots_used"] for k in (1, 2, 3)] == [1, 2, 3]
    assert dual["bus_off"]["slots_used"] == 0 and dual["intact"]["slots_used"] == 4
    assert (
        dual["sigma0.3"]["conjunction"]
        > dual["sigma0.5"]["conjunction"]
        > dual["sigma0.75"]["conjunction"]
    )


def test_the_reveal_names_the_giveaway_marker_and_its_measured_values(measured):
    for (task, name), values in measured.items():
        puzzle = make_puzzle(task, name, seed=0)
        intact = measured[task, "intact"]
        text = explain(puzzle, values, intact)
        assert "\n" not in text and len(text) < 900, "one paragraph"
        for marker in giveaway(puzzle):
            assert marker.label.lower() in text.lower(), (name, marker.label)
            assert marker.shown(values[marker.key]) in text, (name, marker.key)
        if puzzle.diagnosis in ("self_zeroed", "bus_off", "narrowed"):
            assert BY_CONSTRUCTION in text or (task, puzzle.diagnosis) == ("wagering", "bus_off")
    zeroed = explain(
        make_puzzle("wagering", "zero"),
        measured["wagering", "zero"],
        measured["wagering", "intact"],
    )
    accuracy, auroc = MARKERS["wagering"][:2]
    zero = measured["wagering", "zero"]
    assert zeroed.startswith(accuracy.label)  # the marker that held, first: it stayed
    assert zeroed[len(accuracy.label) :].split()[:3] == [
        "stayed",
        "at",
        accuracy.shown(zero["accuracy"]),
    ]
    after = zeroed.split(auroc.label, 1)[1].split()
    assert after[:3] == ["fell", "to", auroc.shown(zero["auroc"])] and BY_CONSTRUCTION in zeroed


def test_an_undefined_marker_is_said_so():
    marker = MARKERS["wagering"][1]
    assert marker.shown(float("nan")) == UNDEFINED
    text = explain(
        make_puzzle("wagering", "zero"),
        {"accuracy": 0.8, "auroc": float("nan"), "skip_fraction": 0.0, "confidence_sd": 0.0},
    )
    assert UNDEFINED in text and "nan" not in text
