"""Lesson: the three dissociations as a guided sequence a teacher can project, with a handout."""

import streamlit as st

from labcore.classroom.lesson import (
    CHOICE_LETTERS,
    LESSON,
    expected_answer,
    handout_html,
    parse_step,
)
from ui import data, share
from ui.components import SCOPE_LINE, explain
from ui.state import escape_markdown

PAGE = "lesson"
STEP = "lesson.step"
KEPT = "_lesson.step"
N = len(LESSON)


def move(delta: int) -> None:
    """Go to the previous or next step (a button callback)."""
    st.session_state[STEP] = min(max(st.session_state[STEP] + delta, 1), N)


def reveal(step: int, shown: bool) -> None:
    """Show or hide a step's answer (a button callback)."""
    st.session_state[f"_lesson.shown.{step}"] = shown


# The URL is read on arrival only (a new session, or a link followed); on reruns the widget holds
# the step.
# Streamlit drops a widget's state when another page runs, so the step is also kept under a key no
# widget
# owns (KEPT): coming back through the sidebar (a bare URL) returns to the step the class was on.
if (st.session_state.get("_arrived", True) and "step" in st.query_params) or (
    STEP not in st.session_state and KEPT not in st.session_state
):
    st.session_state[STEP], notice = parse_step(st.query_params.get_all("step") or None, N)
    st.session_state["_notices.lesson"] = [notice] if notice else []
elif STEP not in st.session_state:
    st.session_state[STEP] = st.session_state[KEPT]

st.html(
    "<style>.st-key-lesson-body p, .st-key-lesson-body li { font-size: 1.3rem; "
    "line-height: 1.5; }</style>"
)
st.title("Lesson: three dissociations")
st.caption(SCOPE_LINE)
explain(
    what="A guided tour of the paper's three experiments, one step per screen, for a class "
    "and a projector. Each "
    "step asks a question, then opens the lab at exactly the view that answers it.",
    try_this="Read the question aloud and let the class vote. Open the view, look together, "
    "then press **Show "
    "answer**. Hand out the printable sheet below (the teacher's copy has the key on "
    "its own page).",
    theory="The answers come from this lab's own result set. Where the lab does not reproduce "
    "the paper, the "
    "answer says both: what the paper reports and what happens here.",
)
for notice in st.session_state.get("_notices.lesson", []):
    st.warning(escape_markdown(notice), icon=":material/warning:")

st.selectbox(
    "Step",
    list(range(1, N + 1)),
    key=STEP,
    format_func=lambda i: f"{i} of {N}: {LESSON[i - 1].title}",
)
n = st.session_state[KEPT] = st.session_state[STEP]
if st.query_params.get("step") != str(n):
    st.query_params["step"] = str(n)
step = LESSON[n - 1]

results = (
    data.checked_results()
)  # the answers' source; its problems are one error, the lesson still runs
with st.container(key="lesson-body"):
    st.header(f"{n}. {step.title}")
    st.markdown(f"**{step.question}**")
    st.markdown(
        "\n".join(f"- **{CHOICE_LETTERS[i]}.** {choice}" for i, choice in enumerate(step.choices))
    )
    target = f"app_pages/{step.page or 'home'}.py"
    st.page_link(
        target, label="Open this view", icon=":material/open_in_new:", query_params=step.params
    )

    if st.session_state.get(f"_lesson.shown.{n}"):
        answer = expected_answer(step, results if results.summary is not None else None)
        shown = f"**Answer** — {answer.text}"
        if answer.agrees is None:
            st.info(shown, icon=":material/help:")
        elif answer.agrees:
            st.success(shown, icon=":material/check_circle:")
        else:
            st.warning(shown, icon=":material/compare_arrows:")
        st.markdown(step.why)
        if answer.evidence:
            with st.expander("The claims behind this answer (from the bundled result set)"):
                st.markdown("\n".join(f"- {escape_markdown(line)}" for line in answer.evidence))
        st.button("Hide answer", key=f"lesson.hide.{n}", on_click=reveal, args=(n, False))
    else:
        st.button(
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

address, reachable = share.lab_base_url()  # the address students use, never 127.0.0.1 (ui/share.py)
st.subheader("On the students' devices")
share.share_panel(
    f"{address}/{PAGE}?step={n}",
    reachable=reachable,
    caption="This step of the lesson: students scan the code or type the link.",
)

st.subheader("Printable handout")
st.write(
    "One page per student: each step's question, a line for the answer and the link to "
    "the view. The "
    "teacher's copy adds the key on a second page. Open the file in a browser and "
    "print it (or save as PDF)."
)
key_results = results if results.summary is not None else None
d1, d2 = st.columns(2)
d1.download_button(
    "Handout for students (HTML)",
    handout_html(LESSON, address, key_results, with_key=False),
    file_name="lesson_handout.html",
    mime="text/html",
    key="lesson.handout",
    width="stretch",
)
d2.download_button(
    "Handout with teacher key (HTML)",
    handout_html(LESSON, address, key_results, with_key=True),
    file_name="lesson_handout_teacher.html",
    mime="text/html",
    key="lesson.handout_key",
    width="stretch",
)
