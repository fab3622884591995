"""Lesson: the three dissociations as a guided sequence a teacher projects (the teacher's view).

Outside a class it is a self-study page with its answers. While a class runs, a student's browser
gets none of it (:func:`ui.classroom.answers_held_back`; the rule: docs/classroom.md): the student
view (``app_pages/join.py``) shows each step's question and their vote, and the answer only once
the teacher reveals it here.
"""

import streamlit as st

from labcore.classroom.lesson import (
    CHOICE_LETTERS,
    LESSON,
    class_question,
    expected_answer,
    handout_html,
    parse_step,
)
from ui import classroom, controls, data, humans, projector, share
from ui.components import SCOPE_LINE, explain
from ui.state import escape_markdown, query

PAGE = "lesson"
STEP = "lesson.step"
KEPT = "_lesson.step"
N = len(LESSON)


def move(delta: int) -> None:
    """Go to the previous or next step (a button callback)."""
    st.session_state[STEP] = min(max(st.session_state[STEP] + delta, 1), N)


def reveal(step: int, shown: bool) -> None:
    """Show or hide a step's answer (a button callback); showing it reveals it to the class."""
    st.session_state[f"_lesson.shown.{step}"] = shown
    if shown:
        classroom.reveal(f"lesson.{step}")


st.title("Lesson: three dissociations")
if classroom.role().student:  # nothing of the steps' answers, the key or the handouts is sent
    classroom.answers_held_back(PAGE)
    st.stop()

# The URL is read on arrival only (a new session, or a link followed); on reruns the widget holds
# the step. Streamlit drops a widget's state when another page runs, so the step is also kept
# under a key no widget owns (KEPT): coming back through the sidebar (a bare URL) returns to the
# step the class was on.
if (controls.arrived() and "step" in st.query_params) or (
    STEP not in st.session_state and KEPT not in st.session_state
):
    st.session_state[STEP], notice = parse_step(st.query_params.get_all("step") or None, N)
    st.session_state["_notices.lesson"] = [notice] if notice else []
elif STEP not in st.session_state:
    st.session_state[STEP] = st.session_state[KEPT]

st.html(  # a step fits one projected screen: larger type, less space above the title
    "<style>.st-key-lesson-body p, .st-key-lesson-body li { font-size: 1.3rem; "
    "line-height: 1.45; } [data-testid='stMainBlockContainer'] { padding-top: 1.5rem; }</style>"
)
for notice in st.session_state.get("_notices.lesson", []):
    st.warning(escape_markdown(notice), icon=":material/warning:")

# The teacher's controls sit in the sidebar, so a projected step fits one screen.
st.sidebar.selectbox(
    "Lesson step",
    list(range(1, N + 1)),
    key=STEP,
    format_func=lambda i: f"{i} of {N}: {LESSON[i - 1].title}",
)
n = st.session_state[KEPT] = st.session_state[STEP]
if st.query_params.get("step") != str(n):
    st.query_params.update(query(step=n))
step = LESSON[n - 1]
results = data.checked_results()  # the answers' source; its problems are one error, the lesson runs
results = results if results.summary is not None else None
measured = data.measured()  # the measured dissociations' answers (None: not checked)
question = class_question(n, results, measured)
# Shown on the projector: as the teacher last chose in this session, else as the class sees it
# (after a reload, a revealed step stays revealed and its bars keep their highlight).
shown = bool(st.session_state.get(f"_lesson.shown.{n}", classroom.revealed(question.id)))

body, side = st.columns([3, 2], gap="large")
with body, st.container(key="lesson-body"):
    st.subheader(f"{n}. {step.title}")
    st.markdown(f"**{step.question}**")
    st.markdown(
        "\n".join(f"- **{CHOICE_LETTERS[i]}.** {choice}" for i, choice in enumerate(step.choices))
    )
    view, toggle = st.columns(2, vertical_alignment="center")
    view.page_link(
        f"app_pages/{step.page or 'home'}.py",
        label="Open this view",
        icon=":material/open_in_new:",
        query_params=projector.carried(step.params),
    )
    if shown:
        toggle.button("Hide answer", key=f"lesson.hide.{n}", on_click=reveal, args=(n, False))
    else:
        toggle.button(
            "Show answer", key=f"lesson.show.{n}", on_click=reveal, args=(n, True), type="primary"
        )
    back, forward = st.columns(2)
    back.button(
        "Previous step",
        key="lesson.previous",
        on_click=move,
        args=(-1,),
        disabled=n == 1,
        icon=":material/arrow_back:",
        width="stretch",
    )
    forward.button(
        "Next step",
        key="lesson.next",
        on_click=move,
        args=(1,),
        disabled=n == N,
        icon=":material/arrow_forward:",
        width="stretch",
    )
    if shown:
        answer = expected_answer(step, results, measured)
        text = f"**Answer** — {answer.text}"
        if answer.agrees is None:
            st.info(text, icon=":material/help:")
        elif answer.agrees:
            st.success(text, icon=":material/check_circle:")
        else:
            st.warning(text, icon=":material/compare_arrows:")
        if answer.evidence:
            with st.expander("The claims behind this answer (from the bundled result sets)"):
                st.markdown("\n".join(f"- {escape_markdown(line)}" for line in answer.evidence))

with side:
    classroom.class_panel(PAGE, compact=True)
    classroom.post(question)  # the class's current question follows the projected step
    classroom.votes_panel(question, lab_choice=question.lab_choice, revealed=shown)
    if step.activity == humans.ACTIVITY:  # the class played first: its results, live
        humans.class_beside_agents("lesson-class-results")
    if shown:
        st.markdown(step.why)

st.divider()
explain(
    what="A guided tour of the paper's three experiments, one step per screen, for a class "
    "and a projector. Each step asks a question, then opens the lab at exactly the view that "
    "answers it.",
    try_this="Start a class: students vote from their own devices and their votes appear beside "
    "the question as they come in, hidden from them until you press **Show answer**. Without a "
    "class, read the question aloud and take a show of hands. Open the view, look together, "
    "then show the answer. The step picker is in the sidebar; the projector switch too.",
    theory="The answers come from this lab's own result set. Where the lab does not reproduce "
    "the paper, the answer says both: what the paper reports and what happens here.",
)
st.caption(SCOPE_LINE)
with st.expander("Printable handouts", icon=":material/print:"):
    address, _ = share.lab_base_url()
    st.write(
        "One page per student: each step's question, a line for the answer and the link to "
        "the view. The teacher's copy adds the key on a second page. Open the file in a browser "
        "and print it (or save as PDF)."
    )
    for column, with_key, label, name, key in zip(
        st.columns(2),
        (False, True),
        ("Handout for students (HTML)", "Handout with teacher key (HTML)"),
        ("lesson_handout.html", "lesson_handout_teacher.html"),
        ("lesson.handout", "lesson.handout_key"),
        strict=True,
    ):
        column.download_button(
            label,
            handout_html(LESSON, address, results, with_key=with_key, measured=measured),
            file_name=name,
            mime="text/html",
            key=key,
            width="stretch",
        )
