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
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from labcore.classroom.store import Question
from labcore.config import PAGE_URLS
from labcore.experiments.paper_results import ResultSet
from labcore.findings import Problem, StudySummary
from labcore.links import MAX_SLOTS, query
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import chance, note_text, value_text, verdict_text

CHOICE_LETTERS = "ABCDEFGH"
"""How choices are labelled, on the projected page and on the handout."""
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
    paper_choice: int
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


def _checked(rule: Callable[[Mapping[str, Any], Mapping[str, str]], int]) -> Rule:
    """A rule that answers None when a value it needs is missing."""

    def safe(values: Mapping[str, Any], verdicts: Mapping[str, str]) -> int | None:
        try:
            return rule(values, verdicts)
        except (KeyError, TypeError, ValueError):
            return None

    return safe


@_checked
def _intact_auroc(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the thresholds of the claim's pre-registered pattern ("clear metacognition (>= 0.70)")
    auroc = _num(v, "e1.auroc.self_on")
    return 0 if auroc >= 0.70 else 1 if auroc > 0.55 else 2


@_checked
def _zeroed(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # pattern of e1.accuracy.self_off (within 2 points) and of e1.auroc.self_off (<= 0.55)
    kept = abs(_num(v, "e1.accuracy.self_off") - _num(v, "e1.accuracy.self_on")) <= 0.02
    blind = _num(v, "e1.auroc.self_off") <= 0.55
    if kept:
        return 0 if blind else 3
    return 1 if blind else 2


@_checked
def _you_beside_zeroed(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the zeroed agent's confidence is blind when its AUROC is at chance (e1.auroc.self_off's 0.55)
    return 0 if _num(v, "e1.auroc.self_off") <= 0.55 else 1


@_checked
def _bus_off(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # chance is 1/49 by construction; "at chance" is the claim's pattern (<= 0.05)
    full, off = _num(v, "e2.conjunction.k4"), _num(v, "e2.conjunction.k0")
    return 0 if off <= 0.05 else 1 if full - off > 0.05 else 2


@_checked
def _half(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # the claim's pattern: well below 4 slots (by > 0.2) and above bus-off
    full, half, off = (_num(v, f"e2.conjunction.{k}") for k in ("k4", "k2", "k0"))
    return 0 if half >= full - 0.2 else 1 if half > off else 2


@_checked
def _noise(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # "by far" = a factor of two, the pattern of the paper's claim ("at least twice B1's")
    b1, b2 = _num(v, "e3.l75.b1"), _num(v, "e3.l75.b2")
    return 0 if 2 * b1 <= b2 else 1 if 2 * b2 <= b1 else 2


@_checked
def _two_routes(_: Mapping[str, Any], verdicts: Mapping[str, str]) -> int:
    # the measured variant's registered verdicts (protocol 11.7)
    if verdicts["measured.e1.doing"] != "kept":
        return 3
    return {"abolished": 0, "reduced": 1, "kept": 2}[verdicts["measured.e1.knowing"]]


@_checked
def _learned_gate(v: Mapping[str, Any], _: Mapping[str, str]) -> int:
    # as the paper's step: within 0.05 of 4 slots, else above the bus-off level, else at it
    full, half, off = (_num(v, f"measured.e2m.conjunction.b1_gate.k{k}") for k in (4, 2, 0))
    return 0 if half >= full - 0.05 else 1 if half > off + 0.05 else 2


@_checked
def _held_here(_: Mapping[str, Any], verdicts: Mapping[str, str]) -> int:
    return int(verdicts["lab.held"])


FINDINGS = {
    "E1": ("e1.accuracy.self_off", "e1.auroc.self_off"),
    "E2": ("e2.conjunction.k4", "e2.conjunction.k0"),
    "E3": ("e3.l75.b1", "e3.l75.b2"),
}
"""The claims behind each of the three headline findings (the wrap-up step)."""


# --------------------------------------------------------------------------- the lesson

LESSON: tuple[LessonStep, ...] = (
    LessonStep(
        title="Three theories, three switches",
        page=PAGE_URLS["home"],
        params={},
        question="Higher-Order Theory says you are aware of something only if you also represent "
        "yourself having it. To test it in an agent, which part do we switch off?",
        choices=(
            "Its self-model: the part that represents its own state",
            "Its global workspace: the small shared board the rest of the agent reads",
            "Its eyes: what it sees of the grid",
        ),
        paper_answer=0,
        why="Each theory names a mechanism, and the lab builds small agents out of those "
        "mechanisms: a global workspace of 4 slots (Global Workspace Theory) and a self-model that "
        "summarises the agent's own state (Higher-Order Theory). Because the agents are software, "
        "we can switch one part off, shrink it or add noise inside it, and measure which abilities "
        "survive. These agents are not conscious: they are reference implementations of the "
        "mechanisms, built to test what the mechanisms do.",
    ),
    LessonStep(
        title="First you: do you know when you know?",
        page=PAGE_URLS["be_the_agent"],
        params={},
        question="Play the agent's task (about three minutes): a faint flash, a side, then a bet "
        "or an opt-out. Whose confidence tells right answers from wrong ones: yours, or the "
        "agent's once its self-model is zeroed?",
        choices=(
            "Yours: with its self-model zeroed the agent's confidence is blind (Type-2 AUROC 0.5)",
            "The zeroed agent's: without a self-model it is still surer when it is right",
            "Nobody's: confidence never tells right from wrong",
        ),
        paper_answer=0,
        why="Knowing that you know shows as confidence that is higher on the trials you get "
        "right. The lab measures it the same way for you and for the agent: Type-2 AUROC, 0.5 "
        "when confidence says nothing about being right. Most people score well above 0.5 on "
        "this task. The agent's confidence comes from its self-model; zero it and the agent "
        "still chooses sides as well as before, but its confidence no longer moves: doing "
        "without knowing, the synthetic blindsight of the next steps.",
        claims=("e1.auroc.self_off", "e1.accuracy.self_off"),
        rule=_you_beside_zeroed,
        activity="be_the_agent",
    ),
    LessonStep(
        title="Does the agent know when it knows?",
        page=PAGE_URLS["metacognition"],
        params=query(agent="b2_ws", seed=0, self_model_mode="on", capacity=MAX_SLOTS),
        question="A faint flash says 'go left' or 'go right'; the agent walks to a side and "
        "says how confident it "
        "is. With its self-model intact, is its confidence higher on the trials it gets right?",
        choices=(
            "Yes, clearly: Type-2 AUROC well above 0.5",
            "Barely: Type-2 AUROC only a little above 0.5",
            "No: Type-2 AUROC about 0.5, its confidence says nothing",
        ),
        paper_answer=0,
        why="Type-2 AUROC is the probability that a randomly picked correct trial got more "
        "confidence than a randomly picked wrong one: 0.5 means the confidence carries no "
        "information about being right, 1 means it always separates them. The confidence head "
        "reads only the self-model, a compressed summary of the agent's own state, so a high AUROC "
        "means that summary has learned when the agent is likely to be wrong. Look at the ROC "
        "curve: the further it bows above the diagonal, the better the agent knows.",
        claims=("e1.auroc.self_on", "e1.accuracy.self_on"),
        rule=_intact_auroc,
    ),
    LessonStep(
        title="Predict: zero the self-model (the paper's wiring)",
        page=PAGE_URLS["metacognition"],
        params=query(
            agent="b2_ws", seed=0, self_model_mode="zero", capacity=MAX_SLOTS, predict=True
        ),
        question="Now the self-model's output is replaced by zeros; nothing else changes. What "
        "happens to task accuracy and to Type-2 AUROC?",
        choices=(
            "Accuracy stays; AUROC falls to 0.5 (doing without knowing)",
            "Both fall to chance",
            "Accuracy falls; AUROC stays",
            "Nothing changes",
        ),
        paper_answer=0,
        why="This is the paper's synthetic blindsight: acting correctly without knowing "
        "it. In this wiring both halves are fixed before any training, and the page labels "
        "them so: the policy never reads the self-model, so accuracy cannot move, and a "
        "confidence head fed a constant gives the same confidence on every trial, whose AUROC "
        "is 0.5 exactly. Even the intact agent's AUROC is what an ideal observer of the flash "
        "reaches, and the policy's own top probability reaches it too. So this view shows the "
        "design, not what training found: the next step lets training decide.",
        claims=("e1.accuracy.self_off", "e1.auroc.self_off"),
        rule=_zeroed,
    ),
    LessonStep(
        title="Predict: silence a self-model that has a rival",
        page=PAGE_URLS["metacognition"],
        params=query(agent="b2_routes", seed=1, silenced=1.0, predict=True),
        question="A second agent: a second flash arrives after its choice, and its confidence can "
        "read its self-model and also, through its policy, the workspace itself. Silence every "
        "unit of its self-model. What happens to doing (accuracy) and knowing (Type-2 AUROC)?",
        choices=(
            "Doing stays; knowing falls to chance (blindsight)",
            "Doing stays; knowing falls part of the way",
            "Doing stays; knowing stays: the other route carries it",
            "Doing falls too",
        ),
        paper_answer=0,
        why="Here the wiring decides nothing: the policy and the confidence each read both the "
        "workspace and the self-model, so what a lesion removes depends on what training put "
        "on each route. Higher-Order Theory predicts blindsight (knowing lost, doing kept). On "
        "the page, the curve shows Type-2 AUROC as 0, 25, 50, 75 and 100% of the self-model's "
        "units are silenced, seed by seed: nobody drew it in advance. A rewire control retrains "
        "only the confidence's read-out after the lesion: if knowing comes back, the "
        "information was not the self-model's alone.",
        measured=("e1m.knowing", "e1m.doing", "e1m.auroc.rewired"),
        rule=_two_routes,
    ),
    LessonStep(
        title="No workspace, no access",
        page=PAGE_URLS["workspace"],
        params=query(agent="b1", seed=0, capacity=0, predict=True),
        question="Agent B1 must hold a colour and an object through a delay and then report both "
        "(7 possible answers each). Its cues reach it only through the 4-slot workspace. Switch "
        "the workspace off: what happens to conjunction accuracy (both reports right)?",
        choices=(
            f"Falls to chance (about {chance('conjunction').text})",
            "Drops a little but stays well above chance",
            "Stays the same",
        ),
        paper_answer=0,
        why="Global Workspace Theory says information is available for report when it enters a "
        "capacity-limited workspace that the rest of the system reads. In B1 the cue channel feeds "
        "only the workspace, so with the bus off no cue reaches the agent and its reports are "
        "guesses: the collapse is fixed by construction. The informative half is the other one: "
        "with the workspace on, the same agent reports both cues, so the workspace is the route by "
        "which the cues become reportable. Slide the capacity back to 4 to compare.",
        claims=("e2.conjunction.k4", "e2.conjunction.k0"),
        rule=_bus_off,
    ),
    LessonStep(
        title="Narrow the workspace",
        page=PAGE_URLS["workspace"],
        params=query(agent="b1", seed=0, capacity=2, predict=True),
        question="Give B1 only 2 of its 4 slots. Distractors (masks) land in the workspace during "
        "the delay. Conjunction accuracy will be...",
        choices=(
            "About as high as with 4 slots",
            "In between: well below 4 slots, above the bus-off level",
            "At chance, as with the workspace off",
        ),
        paper_answer=1,
        why="With fewer slots a mask has nowhere to go but over a cue, so the colour is often lost "
        "before the report. How often is largely set by the workspace's allocation rule, not by "
        "learning: the page shows what an ideal agent that reports whatever survives in the slots "
        "scores by that rule alone; compare the agent with it. In the heatmap, watch a mask "
        "overwrite the colour's slot; below it, move the mask onset and count.",
        claims=("e2.conjunction.k2",),
        rule=_half,
    ),
    LessonStep(
        title="Predict: a workspace that learns what to keep",
        page=PAGE_URLS["workspace"],
        params=query(agent="b1_gate", seed=1, capacity=2, predict=True),
        question="In this agent a learned gate decides where each item is written, or whether "
        "to write it at all (it was trained with 1 to 4 slots). Give it 2 of its 4 slots: "
        "conjunction accuracy will be...",
        choices=(
            "About as high as with 4 slots: it keeps both cues",
            "In between: well below 4 slots, above the bus-off level",
            "At chance, as with the workspace off",
        ),
        paper_answer=1,
        why="In the previous step a fixed rule decided which item a narrowed workspace loses. "
        "Here learning decides. Two items must be held (the colour and the object); an ideal "
        "allocator that never writes a distractor keeps both with 2 slots and loses one with "
        "1, so a loss below 2 slots is the information limit, not a mechanism. The page draws "
        "the agent beside both ideals, the overwrite rule and the best allocation, on the same "
        "episodes, from 4 slots down to 0.",
        measured=("e2m.conjunction.b1_gate.k4", "e2m.conjunction.b1_gate.k2"),
        rule=_learned_gate,
    ),
    LessonStep(
        title="Noise inside the agent",
        page=PAGE_URLS["robustness"],
        params=query(agent="b1", seed=0, noise=0.1, noise_mode="stored", predict=True),
        question="Add Gaussian noise inside the workspace and raise it until report accuracy falls "
        "to 75%: that noise level is L75. Which design breaks at the lower noise?",
        choices=(
            "B1 (workspace only), by far (its L75 at most half of B2's)",
            "B2 (workspace + self-model), by far (its L75 at most half of B1's)",
            "Neither (their L75 values are within a factor of two)",
        ),
        paper_answer=0,
        why="The paper reports that a workspace alone amplifies noise (broadcast amplification) "
        "while the agents with a self-model stay robust, and reads this as the self-model acting "
        "as quality control. The titration curves show accuracy against the noise's standard "
        "deviation (slot contents have SD 1, so 0.1 is noise at 10% of the signal); L75 is marked "
        "on each curve. The design study further down the page asks what decides robustness in "
        "these agents: how the slots are written and how strongly the readout amplifies them.",
        claims=("e3.l75.b1", "e3.l75.b2"),
        rule=_noise,
    ),
    LessonStep(
        title="Wrap-up: what held here?",
        page=PAGE_URLS["replication"],
        params={},
        question="The lab tests three dissociations: doing without knowing, no workspace no "
        "access, and the self-model's protection against noise. Once training decides rather "
        "than the wiring, how many hold as evidence here?",
        choices=("None", "One", "Two", "All three"),
        paper_answer=3,
        why="A value that the design fixes in advance (a zeroed input, the bus off, an ideal "
        "agent's ceiling) cannot confirm or refute anything, so it is counted apart; the "
        "measured variants leave the outcome to training, with the rules written down before "
        "any agent was trained. A dissociation that does not hold is a result too: it says the "
        "effect depends on choices the paper does not pin down. The Replication page lists "
        "every claim, the paper beside ours.",
        claims=FINDINGS["E3"],
        measured=("e1m.knowing", "e1m.doing", "e2m.conjunction.b1_gate.k2"),
        rule=_held_here,
    ),
)
"""The lesson, in order."""


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
        return Answer(
            f"{CHOICE_LETTERS[step.paper_answer]}. {paper} (by the design of the lab).",
            step.paper_answer,
            step.paper_answer,
            True,
        )
    evidence = _evidence(step.claims, results) + _measured_evidence(step.measured, measured)
    values = dict(results.values) if results is not None else {}
    verdicts = {f.id: f.verdict or "" for f in (results.claims if results is not None else [])}
    more_values, more_verdicts = measured_inputs(results, measured)
    ours = step.rule(values | more_values, verdicts | more_verdicts)
    if ours is None:
        return Answer(
            f"Paper: {named(step.paper_answer)}; here: not checked, as the result set lacks the "
            "numbers (open the view and read it off).",
            None,
            step.paper_answer,
            None,
            evidence,
        )
    if ours == step.paper_answer:
        return Answer(
            f"{CHOICE_LETTERS[ours]}. {paper} — the paper and this lab agree.",
            ours,
            step.paper_answer,
            True,
            evidence,
        )
    return Answer(
        f"Paper: {named(step.paper_answer)}; here: {named(ours)}.",
        ours,
        step.paper_answer,
        False,
        evidence,
    )


# --------------------------------------------------------------------------- the handout

_CSS = """
@page { size: A4; margin: 12mm 14mm; }
body { font-family: Georgia, 'Times New Roman', serif; font-size: 10.5pt; line-height: 1.3;
       color: #111;
       max-width: 180mm; margin: 0 auto; }
h1 { font-size: 15pt; margin: 0 0 2pt; }
h2 { font-size: 12pt; margin: 0 0 4pt; }
.lead { font-size: 9.5pt; color: #333; margin: 0 0 6pt; }
ol.steps { padding-left: 16pt; margin: 0; }
ol.steps > li { margin: 0 0 5pt; page-break-inside: avoid; }
.title { font-weight: bold; }
.choices { margin: 1pt 0 0; padding: 0; list-style: none; font-size: 9.5pt; }
.choices li { display: inline; margin-right: 10pt; }
.choices li::before { content: "\\2610\\00a0"; }
.blank { border-bottom: 1px solid #777; height: 14pt; margin: 2pt 0; }
.link { font-family: 'Courier New', monospace; font-size: 8pt; word-break: break-all; color: #124; }
.key { page-break-before: always; break-before: page; }
.answer { font-weight: bold; margin: 1pt 0; }
.why, .evidence { font-size: 9pt; color: #222; }
.evidence { margin: 1pt 0 0 12pt; padding: 0; }
.evidence li { margin: 0; }
.foot { font-size: 8pt; color: #555; margin-top: 6pt; }
@media print { a { color: #000; text-decoration: none; } }
"""


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
    e = html.escape
    items = []
    for step in lesson:
        link = step_link(step, base_url)
        choices = "".join(
            f"<li>{CHOICE_LETTERS[i]}. {e(c)}</li>" for i, c in enumerate(step.choices)
        )
        items.append(
            f'<li><span class="title">{e(_sentence(step.title))}</span> {e(step.question)}'
            f'<ul class="choices">{choices}</ul><div class="blank"></div>'
            f'<a class="link" href="{e(link)}">{e(link)}</a></li>'
        )
    source = ""
    if results is not None and results.summary is not None:
        created = str(results.summary.created or "")[:10]
        source = (
            f"Answers are read from the result set “{e(results.directory.name)}”"
            + (f" (created {e(created)})" if created else "")
            + "."
        )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Lesson: three dissociations</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Doing, knowing and reporting: three dissociations</h1>",
        '<p class="lead">Name: ______________________ &nbsp; For each step, predict '
        "the answer before you open "
        "the view, then check it in the lab. These agents are not conscious: they are "
        "small reference "
        "implementations of mechanisms that theories of consciousness propose.</p>",
        f'<ol class="steps">{"".join(items)}</ol>',
    ]
    if not base_url:
        parts.append(
            '<p class="foot">The links start from the lab\'s address (for example '
            "localhost:8501).</p>"
        )
    if with_key:
        keys = []
        for step in lesson:
            answer = expected_answer(step, results, measured)
            evidence = "".join(f"<li>{e(line)}</li>" for line in answer.evidence)
            keys.append(
                f'<li><span class="title">{e(_sentence(step.title))}</span>'
                f'<div class="answer">{e(answer.text)}</div>'
                f'<div class="why">{e(step.why)}</div>'
                + (f'<ul class="evidence">{evidence}</ul>' if evidence else "")
                + "</li>"
            )
        parts += [
            '<section class="key"><h2>Teacher key</h2>',
            '<p class="lead">Where the paper and this lab differ, the key says both: '
            "the lesson teaches "
            "what the lab shows.</p>",
            f'<ol class="steps">{"".join(keys)}</ol>',
            f'<p class="foot">{source}</p>' if source else "",
            "</section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)


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
