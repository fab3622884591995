"""A lesson: the paper's three dissociations as a guided sequence a teacher can project.

Each :class:`LessonStep` is a configured view (a page and its URL controls), a question, the
paper's answer and a rule that reads this lab's answer off the bundled result set; where the two
differ the answer says both ("Paper: X; here: Y."). No number is typed here.
:func:`handout_html` writes the printable handout.

Examples
--------
>>> step_link(LESSON[3], "http://localhost:8501")
'http://localhost:8501/metacognition?agent=b2_ws&seed=0&self_model_mode=zero&capacity=4&predict=1'
>>> parse_step("99", len(LESSON))
(10, 'step=99 is out of range (1-10); showing step 10.')
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from labcore.classroom.store import CHOICE_LETTERS, Question
from labcore.config import PAGE_URLS
from labcore.experiments.paper_results import ResultSet
from labcore.findings import Problem, StudySummary
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import chance, note_text, render, value_text, verdict_text

Rule = Callable[[Mapping[str, Any], Mapping[str, str]], "int | None"]
"""Picks the choice our results support from (values by key, verdicts by claim id); None when
a value it needs is missing."""


@dataclass(frozen=True)
class LessonStep:
    """One step of the lesson: a configured view, a question and where its answer comes from.

    ``page`` is a ``url_path`` (``""`` home) and ``params`` its URL controls (``predict=1`` holds
    the answer back until the class commits); ``paper_answer`` the index of the paper's (or the
    design's) choice; ``why`` the mechanism, never the outcome, which ``rule`` reads off the
    result set (None: the answer is the design); ``claims`` and ``measured`` the paper's claims and
    the measured dissociations' findings it rests on; ``activity`` what students do first
    (``"be_the_agent"``), a view they may open at once since it holds no answer.
    """

    title: str
    page: str
    params: dict[str, str]
    question: str
    choices: tuple[str, ...]
    paper_answer: int
    why: str
    claims: tuple[str, ...] = ()
    measured: tuple[str, ...] = ()
    rule: Rule | None = field(default=None, compare=False)
    activity: str | None = None


@dataclass(frozen=True)
class Answer:
    """A step's expected answer: ``choice`` ours (None: not checkable), ``agrees`` with the
    paper's, ``evidence`` one line per claim (its verdict and reason)."""

    text: str
    choice: int | None
    agrees: bool | None
    evidence: tuple[str, ...] = ()


# --------------------------------------------------------------------------- rules


def _num(values: Mapping[str, Any], key: str) -> float:
    value = values.get(key)
    if value is None:
        raise KeyError(key)
    x = float(value)
    if math.isnan(x):
        raise KeyError(key)
    return x


RULES: dict[str, Rule] = {}
"""Each rule by the name ``lesson.json`` gives it."""


def _rule(rule: Callable[[Mapping[str, Any], Mapping[str, str]], int]) -> Rule:
    """Register a rule; it answers None when a value it needs is missing."""

    def safe(values: Mapping[str, Any], verdicts: Mapping[str, str]) -> int | None:
        try:
            return rule(values, verdicts)
        except (KeyError, TypeError, ValueError):
            return None

    RULES[rule.__name__.lstrip("_")] = safe
    return safe


@_rule
def _intact_auroc(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the thresholds of the claim's pre-registered pattern ("clear metacognition (>= 0.70)")
    auroc = _num(v, "e1.auroc.self_on")
    return 0 if auroc >= 0.70 else 1 if auroc > 0.55 else 2


@_rule
def _zeroed(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # pattern of e1.accuracy.self_off (within 2 points) and of e1.auroc.self_off (<= 0.55)
    kept = abs(_num(v, "e1.accuracy.self_off") - _num(v, "e1.accuracy.self_on")) <= 0.02
    blind = _num(v, "e1.auroc.self_off") <= 0.55
    if kept:
        return 0 if blind else 3
    return 1 if blind else 2


@_rule
def _you_beside_zeroed(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the zeroed agent's confidence is blind when its AUROC is at chance (e1.auroc.self_off's 0.55)
    return 0 if _num(v, "e1.auroc.self_off") <= 0.55 else 1


@_rule
def _bus_off(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # chance is 1/49 by construction; "at chance" is the claim's pattern (<= 0.05)
    full, off = _num(v, "e2.conjunction.k4"), _num(v, "e2.conjunction.k0")
    return 0 if off <= 0.05 else 1 if full - off > 0.05 else 2


@_rule
def _half(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the claim's pattern: well below 4 slots (by > 0.2) and above bus-off
    full, half, off = (_num(v, f"e2.conjunction.{k}") for k in ("k4", "k2", "k0"))
    return 0 if half >= full - 0.2 else 1 if half > off else 2


@_rule
def _noise(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # "by far" = a factor of two, the pattern of the paper's claim ("at least twice B1's")
    b1, b2 = _num(v, "e3.l75.b1"), _num(v, "e3.l75.b2")
    return 0 if 2 * b1 <= b2 else 1 if 2 * b2 <= b1 else 2


@_rule
def _two_routes(_: Mapping[str, Any], verdicts: Mapping[str, str]) -> int:
    # the measured variant's registered verdicts (protocol 11.7)
    if verdicts["measured.e1.doing"] != "kept":
        return 3
    return {"abolished": 0, "reduced": 1, "kept": 2}[verdicts["measured.e1.knowing"]]


@_rule
def _learned_gate(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # as the paper's step: within 0.05 of 4 slots, else above the bus-off level, else at it
    full, half, off = (_num(v, f"measured.e2m.conjunction.b1_gate.k{k}") for k in (4, 2, 0))
    return 0 if half >= full - 0.05 else 1 if half > off + 0.05 else 2


@_rule
def _held_here(_: Mapping[str, Any], verdicts: Mapping[str, str]) -> int:
    return int(verdicts["lab.held"])


def _step(entry: dict[str, Any]) -> LessonStep:
    """A step of ``lesson.json``: its page by name, its rule by name."""
    conjunction = chance("conjunction").text
    return LessonStep(
        **{
            **entry,
            "page": PAGE_URLS[entry["page"]],
            "choices": tuple(
                c.replace("{conjunction_chance}", conjunction) for c in entry["choices"]
            ),
            "claims": tuple(entry.get("claims", ())),
            "measured": tuple(entry.get("measured", ())),
            "rule": RULES[entry["rule"]] if "rule" in entry else None,
        }
    )


LESSON: tuple[LessonStep, ...] = tuple(
    _step(entry)
    for entry in json.loads((Path(__file__).parent / "lesson.json").read_text(encoding="utf-8"))
)
"""The lesson, in order: each step's words in ``lesson.json``."""


# --------------------------------------------------------------------------- links and answers


def step_link(step: LessonStep, base_url: str = "") -> str:
    """The URL of a step's view.

    >>> step_link(LESSON[0]), step_link(LESSON[5], "http://lab:8501/")
    ('/', 'http://lab:8501/workspace?agent=b1&seed=0&capacity=0&predict=1')
    """
    query = urlencode(step.params)
    return f"{base_url.rstrip('/')}/{step.page}" + (f"?{query}" if query else "")


def parse_step(raw: str | Sequence[str] | None, n_steps: int) -> tuple[int, str | None]:
    """The step of a ``?step=`` URL value, clamped to 1..``n_steps``, with a notice if corrected.

    >>> parse_step(None, 7), parse_step("3", 7), parse_step("x", 7)
    ((1, None), (3, None), (1, "step='x' is not a number; showing step 1."))
    >>> parse_step("0", 7), parse_step("2.6", 7)
    ((1, 'step=0 is out of range (1-7); showing step 1.'), (3, 'step=2.6 is not a whole number;
    showing step 3.'))
    """
    if not isinstance(raw, str) and raw is not None:
        raw = raw[-1] if raw else None
    if raw is None or not raw.strip():
        return 1, None
    text = raw.strip()
    try:
        x = float(text)
        if not math.isfinite(x):
            raise ValueError
    except ValueError:
        shown = repr(text) if len(text) <= 20 else repr(text[:18]) + "…"
        return 1, Problem(f"step={shown} is not a number; showing step 1.", "step", "not_a_number")
    clamped = min(max(x, 1), n_steps)
    step = round(clamped)
    if clamped != x:
        return step, Problem(
            f"step={text[:20]} is out of range (1-{n_steps}); showing step {step}.",
            "step",
            "out_of_range",
        )
    if step != x:
        return step, f"step={text[:20]} is not a whole number; showing step {step}."
    return step, None


def _evidence(claim_ids: Sequence[str], results: ResultSet | None) -> tuple[str, ...]:
    lines = []
    for cid in claim_ids:
        found = results.finding(cid) if results is not None else None
        description = CLAIMS_BY_ID[cid].description if cid in CLAIMS_BY_ID else cid
        if found is None:
            lines.append(f"{description}: not in this result set.")
        else:
            why = "; ".join(x for x in (verdict_text(found), note_text(found)) if x)
            lines.append(f"{description} — {found.verdict or 'no verdict'}: {why}.")
    return tuple(lines)


def _measured_evidence(ids: Sequence[str], measured: StudySummary | None) -> tuple[str, ...]:
    lines = []
    for fid in ids:
        found = measured.finding(fid) if measured is not None else None
        if found is None:
            lines.append(f"{fid}: not in the measured result set.")
        else:
            flags = note_text(found)
            lines.append(
                f"{found.question}: {value_text(found)} (n = {found.n})"
                + (f"; {flags}" if flags else "")
                + "."
            )
    return tuple(lines)


def measured_inputs(
    results: ResultSet | None, measured: StudySummary | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """What the measured steps' rules read (protocol 11): the study "dissociations"' values and
    verdicts, and ``lab.held``, how many of the three dissociations hold as evidence."""
    if measured is None:
        return {}, {}
    values = {f"measured.{f.id}": f.value for f in measured.findings if f.value is not None}
    e1 = measured.tables["e1"]["verdicts"]
    e2 = measured.tables["e2"]["verdicts"]["dissociation"].get("b1_gate", "fails")
    e3 = None
    if results is not None and results.summary is not None and results.summary.answer:
        e3 = results.summary.answer.params.get("dissociations", {}).get("e3")
    verdicts = {"measured.e1.knowing": e1["knowing"], "measured.e1.doing": e1["doing"]}
    if e3 is not None:
        verdicts["lab.held"] = str([e1["dissociation"], e2, e3].count("evidence"))
    return values, verdicts


def expected_answer(
    step: LessonStep, results: ResultSet | None, measured: StudySummary | None = None
) -> Answer:
    """The answer of a step: the paper's, and the one the result sets support (None: unreadable).

    Examples
    --------
    >>> expected_answer(LESSON[0], None).text
    'A. Its self-model: the part that represents its own state (by the design of the lab).'
    >>> expected_answer(LESSON[2], None).text.startswith("Paper: A, “Yes, clearly")
    True
    """

    def named(i: int) -> str:
        return f"{CHOICE_LETTERS[i]}, “{step.choices[i]}”"

    paper = step.choices[step.paper_answer]
    if step.rule is None:
        text = f"{CHOICE_LETTERS[step.paper_answer]}. {paper} (by the design of the lab)."
        return Answer(text, step.paper_answer, True)
    evidence = _evidence(step.claims, results) + _measured_evidence(step.measured, measured)
    values = dict(results.values) if results is not None else {}
    verdicts = {f.id: f.verdict or "" for f in (results.claims if results is not None else [])}
    more_values, more_verdicts = measured_inputs(results, measured)
    ours = step.rule(values | more_values, verdicts | more_verdicts)
    if ours is None:
        text = (
            f"Paper: {named(step.paper_answer)}; here: not checked, as the result set lacks the "
            "numbers (open the view and read it off)."
        )
    elif ours == step.paper_answer:
        text = f"{CHOICE_LETTERS[ours]}. {paper} — the paper and this lab agree."
    else:
        text = f"Paper: {named(step.paper_answer)}; here: {named(ours)}."
    agrees = None if ours is None else ours == step.paper_answer
    return Answer(text, ours, agrees, evidence)


# --------------------------------------------------------------------------- the handout

_CSS = (Path(__file__).parent / "handout.css").read_text(encoding="utf-8")
"""The handout's stylesheet, inlined in its ``<style>`` (no external request)."""


def _sentence(title: str) -> str:
    return title if title[-1:] in ".?!" else title + "."


def handout_html(
    lesson: Sequence[LessonStep],
    base_url: str,
    results: ResultSet | None,
    *,
    with_key: bool = False,
    measured: StudySummary | None = None,
) -> str:
    """A printable handout: self-contained HTML (no external resource), one A4 page for the
    students; ``base_url`` prefixes the step links, ``with_key`` adds the teacher key on its own
    page."""
    source = ""
    if results is not None and results.summary is not None:
        created = str(results.summary.created or "")[:10]
        source = (
            f"Answers are read from the result set “{html.escape(results.directory.name)}”"
            + (f" (created {html.escape(created)})" if created else "")
            + "."
        )
    return render(
        "handout.html.j2",
        e=html.escape,
        sentence=_sentence,
        letters=CHOICE_LETTERS,
        css=_CSS,
        base_url=base_url,
        steps=[(step, step_link(step, base_url)) for step in lesson],
        keys=[(s, expected_answer(s, results, measured)) for s in lesson] if with_key else None,
        source=source,
    )


def class_question(
    number: int, results: ResultSet | None, measured: StudySummary | None = None
) -> Question:
    """Step ``number`` (1-based) as a question posted to a class; the answer, our choice and the
    view's link sealed until the teacher reveals them.

    >>> q = class_question(4, None)
    >>> q.id, len(q.choices), q.view_first
    ('lesson.4', 4, False)
    >>> q.view
    'metacognition?agent=b2_ws&seed=0&self_model_mode=zero&capacity=4&predict=1'
    >>> class_question(2, None).view_first  # students play first: the game holds no answer
    True
    """
    step = LESSON[number - 1]
    answer = expected_answer(step, results, measured)
    return Question(
        id=f"lesson.{number}",
        text=step.question,
        choices=step.choices,
        answer=f"**Answer**: {answer.text}\n\n{step.why}",
        view=step_link(step).lstrip("/"),
        view_first=step.activity is not None,
        lab_choice=answer.choice,
    )
