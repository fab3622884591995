"""Join a class: the student's view. The class's current question and the student's vote; the
answer, the class's votes and the lab's view only once the teacher reveals them. The page has no
menu (the question alone); a link at its foot leads back to the lab's Home."""

from urllib.parse import parse_qsl

import streamlit as st

from labcore.classroom.store import CODE_LENGTH, ClassError, choice_letters
from labcore.config import PAGE_URLS
from labcore.figures.classroom import class_votes_figure
from ui import classroom
from ui.components import figure

PAGES = {url: name for name, url in PAGE_URLS.items()}


def open_typed() -> None:
    """Join the class whose code was typed (a text-input callback)."""
    typed = st.session_state.get("join.typed", "").strip()
    if typed:
        st.query_params[classroom.CODE_PARAM] = typed[: CODE_LENGTH + 4]


def view_link(view: str, code: str, me: str, label: str) -> None:
    """A link to the lab's view of the question (``page?params``), carrying the class."""
    page, _, params = view.partition("?")
    name = PAGES.get(page)
    if name is None:
        return
    query = dict(parse_qsl(params))
    query.update({classroom.CODE_PARAM: code, classroom.STUDENT_PARAM: me})
    st.page_link(
        f"app_pages/{name}.py", label=label, icon=":material/open_in_new:", query_params=query
    )


def send(code: str, me: str, question_id: str) -> None:
    """Send the chosen letter (a button callback); the store's refusal is one sentence."""
    letter = st.session_state.get(f"join.choice.{question_id}")
    if letter is None:
        return
    try:
        classroom.store().answer_current(code, me, letter)
    except ClassError as exc:
        st.session_state["_join.error"] = str(exc)


st.title("Your class")
code = classroom.student_class()
seat = classroom.role()
if code is None and classroom.CODE_PARAM not in st.query_params and seat.student and seat.code:
    code = seat.code  # the class this browser joined (its cookie): /join alone finds it again
    st.query_params[classroom.CODE_PARAM] = code
if code is None:
    st.markdown(
        "Type the class code your teacher shows (5 letters and digits), or scan the QR code "
        "on the projector."
    )
    st.text_input("Class code", key="join.typed", on_change=open_typed, max_chars=CODE_LENGTH + 4)
else:
    me = classroom.student_id()
    st.caption(
        f"Class {code}. Your answers are anonymous: the class sees only how many chose each "
        "answer, and only after your teacher reveals it."
    )

    @st.fragment(run_every=classroom.POLL_SECONDS)
    def current_question() -> None:
        # The class's current question, refreshed while the page is open.
        if error := st.session_state.pop("_join.error", None):
            st.error(error, icon=":material/error:")
        try:
            seen = classroom.store().current(code, me)
        except ClassError as exc:
            st.error(str(exc), icon=":material/error:")
            return
        if seen is None:
            st.info("Waiting for your teacher's first question.", icon=":material/hourglass:")
            return
        q = seen.question
        with st.container(border=True):
            st.markdown(f"**{q.text}**")
            if q.view and q.view_first:
                view_link(q.view, code, me, "Open what you are asked about")
            if q.kind != "vote":
                return
            letters = choice_letters(len(q.choices))
            st.radio(
                "Your answer",
                letters,
                format_func=lambda letter: f"{letter}. {q.choices[letters.index(letter)]}",
                index=letters.index(seen.mine) if seen.mine in letters else None,
                key=f"join.choice.{q.id}",
                disabled=seen.revealed,
            )
            if not seen.revealed:
                st.button(
                    "Send my answer" if seen.mine is None else "Change my answer",
                    type="primary",
                    key=f"join.send.{q.id}",
                    on_click=send,
                    args=(code, me, q.id),
                )
        if seen.mine is not None and not seen.revealed:
            st.success(
                f"Your answer: {seen.mine}. Waiting for your teacher to reveal the class's "
                "answers.",
                icon=":material/check_circle:",
            )
        if not seen.revealed:
            return
        figure(
            class_votes_figure(
                q.choices, seen.counts, letters=letters, lab_choice=q.lab_choice, revealed=True
            ),
            key=f"join-votes-{q.id}",
        )
        if q.answer:
            st.markdown(q.answer)
        if q.view and not q.view_first:
            view_link(q.view, code, me, "Open the lab's view")

    current_question()

st.divider()
st.page_link(
    "app_pages/home.py",
    label="The lab's home page",
    icon=":material/home:",
)
