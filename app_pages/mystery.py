"""Mystery agent: a teacher hides a lesion, a capacity or noise in an agent and shares a code;
students read the markers and one episode, diagnose, and get the reveal
(labcore/classroom/mystery.py). While a class runs, a student's browser has no Reveal of its own
and no teacher's panel: the diagnosis goes to the class, the answer comes with the teacher's
reveal (docs/classroom.md)."""

import math
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from labcore.classroom import mystery
from labcore.classroom.store import ClassError, choice_letters
from labcore.config import PAGE_URLS
from labcore.figures.episode import (
    step_caption,
    step_figures,
)
from ui import classroom, data, share
from ui.components import explain, figure
from ui.state import echo, escape_markdown, query

TASK_LABELS = {
    "wagering": "Wagering task: does the agent know when it is right?",
    "dual": "Dual task: hold a colour and an object through a delay",
}
TASK_BLURBS = {
    "wagering": "A faint flash (blue = go left, red = go right) reaches the agent through its "
    "workspace; it walks "
    "to the side it believes and, on half the trials, bets on its answer or opts out. "
    "Its confidence "
    "comes from its self-model, which the walking never reads.",
    "dual": "A colour and then an object arrive through the agent's workspace (4 slots); "
    "distractors (masks) "
    "land there too during the delay. At the end it reports the colour, then the object.",
}

st.title("Mystery agent")
st.caption(
    "A classroom puzzle: something may have been done to this agent, or nothing. "
    "Diagnose it from its markers."
)
explain(
    what="A teacher picks one of the lab's agents and hides one condition in it: its "
    "self-model removed or "
    "scrambled, its workspace switched off, narrowed or made noisy, or nothing at all. "
    "The link carries a "
    "code that does not show the answer. Students see the agent's markers (with their "
    "chance levels) and "
    "one episode step by step, choose a diagnosis, then press **Reveal**.",
    try_this="Teachers: open **Make a puzzle**, choose a hidden condition (or press **Random "
    "puzzle**) and share "
    "the link or project the code. Students: compare each marker with its chance level first, then "
    "ask which marker would have moved under each diagnosis.",
    theory="Each theory predicts a different signature: remove the self-model and the agent "
    "still *does* but no "
    "longer *knows*; shrink or silence the workspace and information stops being reportable.",
)


def measured(puzzle: mystery.Puzzle) -> mystery.PuzzleView:
    """The puzzle's condition measured live (cached by ui.data)."""
    if puzzle.task == "wagering":  # full: the episode below needs the whole trace
        return data.metacognition(
            puzzle.kind, puzzle.seed, puzzle.self_model_mode, puzzle.capacity, 0.0, full=True
        )
    return data.workspace(
        puzzle.kind, puzzle.seed, puzzle.capacity, puzzle.noise, mystery.NOISE_MODE, full=True
    )


def share_link(code: str, base: str) -> str:
    """The link students open: ``base`` (:func:`ui.share.lab_base_url`) + the page + the code."""
    return f"{base}/{PAGE_URLS['mystery']}?{urlencode(query(code=code))}"


def open_typed() -> None:
    """Open the code typed into the box (an empty box closes the puzzle)."""
    typed = st.session_state.get("mystery.typed", "").strip()
    if len(typed) > mystery.MAX_CODE_TEXT:  # refused here: the URL would keep too little of it
        try:  # to quote its length (the URL's copy would be cut short)
            mystery.decode(typed)
        except ValueError as exc:
            st.session_state["mystery.typed_refused"] = str(exc)
        if "code" in st.query_params:
            del st.query_params["code"]
    elif typed:
        st.query_params.update(query(code=typed))
    elif "code" in st.query_params:
        del st.query_params["code"]


def close_puzzle() -> None:
    """Back to the teacher's panel."""
    st.session_state["mystery.typed"] = ""
    st.session_state.pop("mystery.revealed", None)
    if "code" in st.query_params:
        del st.query_params["code"]


def rollout(view: mystery.PuzzleView, puzzle: mystery.Puzzle, code: str) -> None:
    """One episode of the measured batch (the same trials as the markers), step by step, drawn with
    the
    Rollout theatre's figures."""
    trace, i = view.trace, puzzle.episode
    n = int(trace.valid[i].sum())
    st.subheader("One episode, step by step")
    st.markdown(mystery.describe_episode(view, i))
    t = min(st.slider("Step", 0, max(n - 1, 1), key=f"mystery.step.{code}"), n - 1)
    st.markdown(step_caption(trace, t, float(trace.reward[i].sum()), episode=i))
    shown = step_figures(trace, t, n, i, self_model_activity=False)  # a flat line named a lesion
    left, right = st.columns(2)
    with left:
        figure(
            shown.action,
            key=f"mystery-wager-{t}" if shown.action_is_wager else f"mystery-probs-{t}",
        )
    with right:
        if shown.timeline is not None:
            figure(shown.timeline, key=f"mystery-timeline-{t}")
        else:
            st.caption("This agent has no self-model, so there is no confidence to show.")
    if shown.slots is not None:
        figure(shown.slots, key=f"mystery-slots-{t}")
    elif shown.slots_note is not None:  # a workspace with nothing in it: said, not drawn empty
        st.info(shown.slots_note, icon=":material/info:")


def send_vote(class_code: str, me: str, question_id: str, n: int) -> None:
    """Send a student's diagnosis to their class (a button callback)."""
    letter = st.session_state.get(f"mystery.vote.{question_id}")
    if letter is None:
        return
    try:
        classroom.store().answer(class_code, question_id, me, letter, choice_letters(n))
    except ClassError as exc:
        st.session_state["_mystery.class_error"] = str(exc)


def wait_for_reveal(class_code: str, question_id: str) -> None:
    """Look for the teacher's reveal every few seconds (as the student view does) and redraw the
    page when it comes."""

    @st.fragment(run_every=classroom.POLL_SECONDS)
    def poll() -> None:
        try:
            now = classroom.store().revealed(class_code, question_id)
        except ClassError:
            return
        if now:
            st.rerun()

    poll()


def class_vote(puzzle: mystery.Puzzle, class_code: str | None, me: str) -> str | None:
    """In a class: the student's diagnosis goes to the class (no Reveal of their own); the
    diagnosis they chose once the teacher has revealed the puzzle, else None (nothing shown).
    Without a known class (a device that opened the lab while a class runs): a link to join."""
    if class_code is None:
        st.info(
            "A class is running on this lab: join it to send your diagnosis; your teacher "
            "reveals the answer.",
            icon=":material/groups:",
        )
        classroom.class_link("Join your class")
        return None
    question = mystery.class_question(puzzle)
    choices = mystery.diagnosis_choices(puzzle.task)
    letters = choice_letters(len(choices))
    if error := st.session_state.pop("_mystery.class_error", None):
        st.error(error, icon=":material/error:")
    try:
        revealed = classroom.store().revealed(class_code, question.id)
        mine = classroom.store().my_answer(class_code, question.id, me)
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
        return None
    st.radio(
        "What was done to this agent?",
        letters,
        format_func=lambda letter: f"{letter}. {question.choices[letters.index(letter)]}",
        index=letters.index(mine) if mine in letters else None,
        key=f"mystery.vote.{question.id}",
        disabled=revealed,
    )
    if not revealed:
        st.button(
            "Send my answer" if mine is None else "Change my answer",
            type="primary",
            key=f"mystery.send.{question.id}",
            on_click=send_vote,
            args=(class_code, me, question.id, len(choices)),
        )
        if mine is not None:
            st.success(
                f"Your answer: {mine}. Your teacher reveals the answer to the class.",
                icon=":material/check_circle:",
            )
        wait_for_reveal(class_code, question.id)
    st.page_link(
        f"app_pages/{PAGE_URLS['join']}.py",
        label="Back to your class",
        icon=":material/groups:",
        query_params={classroom.CODE_PARAM: class_code, classroom.STUDENT_PARAM: me},
    )
    return (
        choices[letters.index(mine)] if revealed and mine in letters else "" if revealed else None
    )


def student(
    puzzle: mystery.Puzzle, code: str, in_class: tuple[str | None, str] | None = None
) -> bool:
    """Markers, one episode, the choice and (after Reveal) the answer; False if the agent is
    missing. ``in_class`` (class code or None, student id): the choice goes to the class and the
    answer waits for the teacher's reveal."""
    if puzzle.seed not in data.seeds_by_kind(puzzle.task).get(puzzle.kind, []):
        st.error(
            f"This puzzle needs agent {data.label(puzzle.kind)}, seed {puzzle.seed}, "
            "which this lab does not "
            "have; make a puzzle on another seed below."
        )
        return False
    if data.checked_agent(puzzle.task, puzzle.kind, puzzle.seed) is None:  # its error is shown
        return False
    st.subheader(f"Puzzle {code}")
    st.markdown(
        f"**The agent:** {data.label(puzzle.kind)}, seed {puzzle.seed}. "
        f"**{TASK_LABELS[puzzle.task]}** "
        f"{TASK_BLURBS[puzzle.task]}"
    )
    view = measured(puzzle)
    values = mystery.measured_markers(view)
    shown = mystery.MARKERS[puzzle.task]
    for column, marker in zip(st.columns(len(shown)), shown, strict=True):
        value = values[marker.key]
        column.metric(marker.label, marker.shown(value))
        undefined = value is None or math.isnan(value)
        column.caption(
            marker.caption + (f" Not defined here: {marker.undefined}." if undefined else "")
        )
    rollout(view, puzzle, code)

    st.subheader("Your diagnosis")
    if in_class is not None:
        chosen = class_vote(puzzle, *in_class)
        if chosen is None:
            return True
        reveal_answer(puzzle, values, chosen or None)
        return True
    revealed = st.session_state.get("mystery.revealed") == code
    choices = mystery.diagnosis_choices(puzzle.task)
    choice = st.radio(
        "What was done to this agent?",
        choices,
        format_func=mystery.DIAGNOSES.get,
        index=None,
        key=f"mystery.choice.{code}",
        disabled=revealed,
    )
    c1, c2 = st.columns([1, 4])
    c1.button(
        "Reveal",
        type="primary",
        disabled=revealed,
        icon=":material/visibility:",
        on_click=st.session_state.update,
        args=({"mystery.revealed": code},),
    )
    c2.button("Close this puzzle", on_click=close_puzzle)
    if revealed:
        reveal_answer(puzzle, values, choice)
    return True


def reveal_answer(puzzle: mystery.Puzzle, values: dict, choice: str | None) -> None:
    """The answer beside the student's choice, what gave it away and the numbers' story."""
    answer = mystery.DIAGNOSES[puzzle.diagnosis]
    if choice is None:
        st.info(
            f"You revealed without choosing. The answer: **{answer}**.",
            icon=":material/visibility:",
        )
    elif choice == puzzle.diagnosis:
        st.success(f"Correct: **{answer}**.", icon=":material/check_circle:")
    else:
        st.error(
            f"Not this time: you chose *{mystery.DIAGNOSES[choice]}*; the answer is **{answer}**.",
            icon=":material/cancel:",
        )
    intact = mystery.measured_markers(
        measured(mystery.make_puzzle(puzzle.task, "intact", puzzle.seed))
    )
    st.markdown(
        f"**What gave it away:** {' and '.join(m.label for m in mystery.giveaway(puzzle))}."
    )
    st.markdown(mystery.explain(puzzle, values, intact))
    st.caption(
        "Hidden condition: "
        f"{mystery.conditions(puzzle.task)[mystery.condition_of(puzzle)]}. Every "
        "number "
        "above was measured live on this agent; none is taken from the paper."
    )


MADE = "made"  # the teacher's URL keeps the puzzle made (its code): a reload does not lose it


def set_made(code: str | None) -> None:
    """Keep (or forget, with None) the teacher's puzzle in the session and the URL."""
    if code is None:
        st.session_state.pop("mystery.made", None)
        if MADE in st.query_params:
            del st.query_params[MADE]
        return
    st.session_state["mystery.made"] = code
    st.query_params[MADE] = code


def make(task: str, condition: str, seed: int, episode: int) -> None:
    """Make the chosen puzzle (a button callback: the form is gone before the page is drawn)."""
    set_made(mystery.encode(mystery.make_puzzle(task, condition, seed, episode)))


def make_random(seeds: list[int]) -> None:
    """Draw random puzzle n of this session (a button callback); puzzle n is the same in every
    session."""
    number = st.session_state.get("mystery.random_count", 0) + 1
    st.session_state["mystery.random_count"] = number
    set_made(mystery.encode(mystery.random_puzzle(np.random.default_rng(number), seeds)))


def reveal_to_class(question_id: str) -> None:
    """Reveal the puzzle's answer to the class (a button callback)."""
    st.session_state[f"_mystery.class_revealed.{question_id}"] = True
    classroom.reveal(question_id)


def made_panel(made: str) -> None:
    """The code, its link and QR code for the projector (with a class: the class's link, its
    votes and the reveal). The answer key is not here but in its own popover further down, away
    from what the class sees."""
    st.markdown(f"# `{made[:4]} {made[4:]}`")
    puzzle = mystery.decode(made)
    question = mystery.class_question(puzzle)
    taught = classroom.running()
    if taught is None:
        base, reachable = share.lab_base_url()
        share.share_panel(
            share_link(made, base),
            reachable=reachable,
            caption="Project the code, the link or its QR code. The code does not show the "
            "answer, but it is not encryption: treat it like a quiz sheet, not a password. "
            "Start a class (below) to collect the students' diagnoses here instead.",
        )
    else:
        classroom.post(question)
        revealed = bool(st.session_state.get(f"_mystery.class_revealed.{question.id}")) or (
            classroom.revealed(question.id)  # after a reload: as the class sees it
        )
        st.caption(
            f"The puzzle is the question of class {taught.code}: students see it in their "
            "class view, diagnose it, and see the answer when you reveal it."
        )
        classroom.votes_panel(question, lab_choice=question.lab_choice, revealed=revealed)
        st.button(
            "Reveal the answer to the class",
            type="primary",
            icon=":material/visibility:",
            key=f"mystery.class_reveal.{made}",
            on_click=reveal_to_class,
            args=(question.id,),
            disabled=revealed,
        )
    c1, c2 = st.columns(2)
    c1.button(
        "Try it as a student",
        icon=":material/person:",
        on_click=st.query_params.__setitem__,
        args=("code", made),
    )
    c2.button("Make another puzzle", icon=":material/add:", on_click=set_made, args=(None,))


def answer_key(made: str) -> None:
    """The made puzzle's answer, behind a popover at the foot of the page (never under the QR
    code the class looks at)."""
    p = mystery.decode(made)
    with st.popover("Answer key (teacher only)", icon=":material/key:"):
        # the answer is drawn (and sent to the browser) only while this toggle is on
        if st.toggle("Show the answer key", key="mystery.key"):
            st.info(
                f"{mystery.conditions(p.task)[mystery.condition_of(p)]}: the answer is "
                f"**{mystery.DIAGNOSES[p.diagnosis]}** (agent seed {p.seed}, episode {p.episode})."
            )


def teacher(expanded: bool) -> None:
    """The class's join block first while a class runs (what the room looks at), then the puzzle:
    a random one, or one chosen behind a popover (its hidden condition names the answer, so it
    never sits on the projected page); once made, only its code and link show."""
    made = st.session_state.get("mystery.made")
    teaching = classroom.running() is not None
    if teaching:
        with st.expander("Your class", icon=":material/groups:", expanded=True):
            classroom.class_panel("mystery")
    with st.expander("Make a puzzle", expanded=expanded, icon=":material/school:"):
        if made:
            made_panel(made)
        else:
            puzzle_form()
    if not teaching:
        with st.expander("Your class", icon=":material/groups:"):
            classroom.class_panel("mystery")
    if made:
        answer_key(made)


def puzzle_form() -> None:
    """A random puzzle, or one chosen in a popover: the hidden condition is the answer, so it
    shows only while the teacher holds the popover open, and is gone once the puzzle is made."""
    entries = data.manifest()  # read once: its problems are shown once
    both = sorted(
        set.intersection(
            *(
                set(data.seeds_by_kind(t, entries).get(mystery.KIND_OF_TASK[t], []))
                for t in mystery.TASKS
            )
        )
    )
    b1, b2 = st.columns(2)
    b1.button(
        "Random puzzle",
        icon=":material/casino:",
        on_click=make_random,
        args=(both,),
        disabled=not both,
        help=None if both else "A random puzzle needs agents of both tasks on a common seed.",
        width="stretch",
    )
    with b2.popover("Choose the hidden condition", icon=":material/lock:", width="stretch"):
        st.caption("The hidden condition is the answer: choose it where the class cannot see.")
        chosen_form(entries)


def chosen_form(entries: dict) -> None:
    """Task, hidden condition, agent seed and episode, and the button that makes the puzzle."""
    task = st.radio(
        "Task", mystery.TASKS, format_func=TASK_LABELS.get, key="mystery.task", horizontal=True
    )
    kind = mystery.KIND_OF_TASK[task]
    seeds = data.seeds_by_kind(task, entries).get(kind, [])
    if not seeds:
        st.error(
            f"No {data.label(kind)} agent trained on the {task} task is available; "
            "train one on the "
            "Agents page."
        )
        return
    names = mystery.conditions(task)
    condition = st.selectbox(
        "Hidden condition", list(names), format_func=names.get, key=f"mystery.condition.{task}"
    )
    c1, c2 = st.columns(2)
    seed = c1.selectbox("Agent seed", seeds, key=f"mystery.seed.{task}")
    episode = c2.number_input(
        "Episode shown",
        0,
        mystery.EPISODES - 1,
        key="mystery.episode",
        help="Which episode students can step through (the markers use all of them).",
    )
    st.button(
        "Make this puzzle",
        type="primary",
        icon=":material/lock:",
        on_click=make,
        args=(task, condition, seed, int(episode)),
    )


seat = classroom.role()
if not seat.student and MADE in st.query_params and "mystery.made" not in st.session_state:
    try:  # a reload of the teacher's page keeps its puzzle
        set_made(mystery.encode(mystery.decode(st.query_params[MADE])))
    except ValueError as exc:
        st.error(f"{exc} (the puzzle in this page's address)", icon=":material/error:")
        del st.query_params[MADE]
raw = st.query_params.get("code")
puzzle = None
if refused := st.session_state.pop("mystery.typed_refused", None):
    st.error(f"{refused.rstrip('.')}; check the code and type it again.", icon=":material/error:")
elif raw:
    try:
        puzzle = mystery.decode(raw)
    except ValueError as exc:
        st.error(
            (
                f"{str(exc).rstrip('.')} (code {escape_markdown(echo(raw))}); make a "
                "puzzle below or check the link."
            ),
            icon=":material/error:",
        )
in_class = None
if seat.student and puzzle is not None:  # the class's, or (no class known) the way to join it
    in_class = (seat.code, classroom.student_id() if seat.code else "")
elif classroom.CODE_PARAM in st.query_params and puzzle is not None and seat.kind == "visitor":
    classroom.student_class()  # a class code of no class: one sentence; the puzzle stays open
if puzzle is None or not student(puzzle, mystery.encode(puzzle), in_class):
    st.text_input(
        "Have a puzzle code? Type it here",
        key="mystery.typed",
        on_change=open_typed,
        placeholder="8 letters and digits, e.g. from the projector",
    )
    if seat.student:  # no puzzle making, no answer key: only a teacher's other device's form
        classroom.class_panel("mystery")
    else:
        teacher(expanded=True)
