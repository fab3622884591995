"""A class that sees itself (issue 34, after NetLogo HubNet): the Streamlit side of the class store.

The teacher starts a class on the Lesson or Mystery page (:func:`class_panel`); the class's code
goes into the teacher's URL (``class=CODE``) so a reload keeps it, and the teacher key stays in
the teacher's session (after a reload the panel asks for it again: it is short enough to type).
Students open ``/join?class=CODE`` (the link and QR code on the projector): the student view,
``app_pages/join.py``, which shows the class's current question and nothing of the teacher's
page. The teacher's page posts its question (:func:`post`), shows the class's votes live
(:func:`votes_panel`) and reveals them (:func:`reveal`).

Every refusal of the store (:class:`labcore.classroom.store.ClassError`) is one sentence on the
page, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from labcore.classroom.store import (
    CODE_LENGTH,
    KEY_LENGTH,
    ClassError,
    ClassStore,
    Question,
    choice_letters,
    new_student_id,
    normalise_code,
)
from labcore.config import PAGE_URLS
from labcore.figures.classroom import class_votes_figure
from ui import share
from ui.components import figure
from ui.state import echo, escape_markdown

CODE_PARAM = "class"
"""The URL parameter carrying a class code (the teacher's pages and the student view)."""
STUDENT_PARAM = "me"
"""The student view's URL parameter holding the student's anonymous id (a reload keeps it)."""
POLL_SECONDS = 3.0
"""How often a student's view and the teacher's vote chart look for news in the store."""
_CODE, _KEY, _POSTED = "_class.code", "_class.key", "_class.posted"


@dataclass(frozen=True)
class TeacherClass:
    """The class this teacher's session runs: its code and the teacher key."""

    code: str
    key: str


def store() -> ClassStore:
    """The class store every session and server process shares (one SQLite file, found anew on
    every call: ``$CTLAB_CLASS_DB`` or :mod:`labcore.classroom.store`'s default)."""
    return ClassStore()


def running() -> TeacherClass | None:
    """The class this session teaches, or None."""
    code, key = st.session_state.get(_CODE), st.session_state.get(_KEY)
    return TeacherClass(code, key) if code and key else None


def join_link(code: str) -> str:
    """The address students open for class ``code`` (built from :func:`ui.share.lab_base_url`)."""
    base, _ = share.lab_base_url()
    return f"{base}/{PAGE_URLS['join']}?{urlencode({CODE_PARAM: code})}"


def _start() -> None:
    try:
        keys = store().start()
    except ClassError as exc:
        st.session_state["_class.error"] = str(exc)
        return
    st.session_state[_CODE], st.session_state[_KEY] = keys.code, keys.teacher_key
    st.session_state.pop(_POSTED, None)
    st.query_params[CODE_PARAM] = keys.code


def _resume() -> None:
    code = st.session_state.get("class.resume_code", "")
    key = st.session_state.get("class.resume_key", "")
    try:
        code = store().resume(code, key)
    except ClassError as exc:
        st.session_state["_class.error"] = str(exc)
        return
    st.session_state[_CODE], st.session_state[_KEY] = code, normalise_code(key)
    st.session_state.pop(_POSTED, None)
    st.query_params[CODE_PARAM] = code


def _end(clear: bool) -> None:
    taught = running()
    if taught is not None and clear:
        try:
            store().clear(taught.code, taught.key)
        except ClassError as exc:
            st.session_state["_class.error"] = str(exc)
    for k in (_CODE, _KEY, _POSTED):
        st.session_state.pop(k, None)
    if CODE_PARAM in st.query_params:
        del st.query_params[CODE_PARAM]


def class_panel(page: str, *, compact: bool = False) -> TeacherClass | None:
    """The teacher's class controls: start a class, resume one after a reload (code and key),
    or, with a class running, its join link and QR code for the projector, the teacher key
    behind a popover, and ending the class. Returns the running class (None without).

    ``compact`` (the Lesson, where a step must fit one projected screen): the class's code and a
    small QR code, the rest behind a popover."""
    if error := st.session_state.pop("_class.error", None):
        st.error(error, icon=":material/error:")
    taught = running()
    wanted = st.query_params.get(CODE_PARAM)
    if taught is not None and wanted and normalise_code(wanted) != taught.code:
        taught = None  # the URL names another class: this session does not teach it
        for k in (_CODE, _KEY, _POSTED):
            st.session_state.pop(k, None)
    if taught is None:
        if wanted:
            st.markdown(
                f"Class **{escape_markdown(echo(wanted)[: CODE_LENGTH + 4])}** is in this page's "
                "address. Type its teacher key to run it from here (it was shown when the class "
                "started), or start a new class."
            )
        else:
            st.markdown(
                "Start a class to let students vote from their own devices: they open a link "
                "(or scan its code) and see only the question; the class's answers appear "
                "here, and nobody sees them until you reveal them."
            )
        st.button(
            "Start a class", key=f"class.start.{page}", on_click=_start, icon=":material/groups:"
        )
        with st.expander("Resume a class (after a reload, or from another device)"):
            c1, c2 = st.columns(2)
            c1.text_input(
                "Class code", value=wanted or "", max_chars=CODE_LENGTH + 4, key="class.resume_code"
            )
            c2.text_input("Teacher key", max_chars=KEY_LENGTH + 4, key="class.resume_key")
            st.button("Resume", key=f"class.resume.{page}", on_click=_resume)
        return None
    link = join_link(taught.code)
    _, reachable = share.lab_base_url()
    if compact:
        code, qr = st.columns([3, 2], vertical_alignment="center")
        code.markdown(f"**Class `{taught.code}`**: scan to vote, or open")
        code.code(link, language=None)
        qr.image(share.qr_png(link), width=130)
        with st.popover(
            "Class settings" if reachable is not False else "Students cannot reach this link",
            icon=":material/settings:" if reachable is not False else ":material/wifi_off:",
        ):
            if reachable is False:
                st.warning(share.unreachable_note(), icon=":material/wifi_off:")
            _teacher_controls(page, taught)
        return taught
    st.markdown(f"### Class `{taught.code}`")
    share.share_panel(
        link,
        reachable=reachable,
        caption="Students open this link or scan the code: they see the question and vote; the "
        "answer stays here until you reveal it.",
    )
    _teacher_controls(page, taught)
    return taught


def _teacher_controls(page: str, taught: TeacherClass) -> None:
    """The teacher key (behind a popover), leaving the class running, ending it."""
    c1, c2, c3 = st.columns(3)
    with c1.popover("Teacher key", icon=":material/key:"):
        st.markdown(
            f"`{taught.key}`: write it down. With the class code it lets you run this class "
            "again after a reload or from another device. Do not project it."
        )
    c2.button(
        "Leave the class running",
        key=f"class.leave.{page}",
        on_click=_end,
        args=(False,),
        help="This page stops teaching it; students' answers stay (resume with the key).",
    )
    c3.button(
        "End and clear the class",
        key=f"class.end.{page}",
        on_click=_end,
        args=(True,),
        help="Forget every answer of this class and its code.",
    )


def post(question: Question) -> None:
    """Make ``question`` the class's current question (only when this session teaches a class,
    and once per change: reruns of the same view do not write)."""
    taught = running()
    if taught is None:
        return
    body = question.to_json()
    if st.session_state.get(_POSTED) == (taught.code, body):
        return
    try:
        store().post(taught.code, taught.key, question)
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.session_state[_POSTED] = (taught.code, body)


def reveal(question_id: str) -> None:
    """Reveal ``question_id`` to the class (a button callback); nothing without a class."""
    taught = running()
    if taught is None:
        return
    try:
        store().reveal(taught.code, question_id, taught.key)
    except ClassError as exc:
        st.session_state["_class.error"] = str(exc)


def votes_panel(question: Question, *, lab_choice: int | None, revealed: bool) -> None:
    """The class's votes on ``question``, refreshed every :data:`POLL_SECONDS` while the page is
    open; the lab's answer marked once ``revealed``. Nothing without a class."""
    taught = running()
    if taught is None or question.kind != "vote":
        return

    @st.fragment(run_every=POLL_SECONDS)
    def live() -> None:
        try:
            counts = store().counts(taught.code, question.id, taught.key)
        except ClassError as exc:
            st.error(str(exc), icon=":material/error:")
            return
        figure(
            class_votes_figure(
                question.choices,
                counts,
                letters=choice_letters(len(question.choices)),
                lab_choice=lab_choice,
                revealed=revealed,
            ),
            key=f"class-votes-{question.id}",
        )

    live()


def class_results(activity: str) -> list[dict[str, float]] | None:
    """The students' submitted numbers for ``activity`` (None without a class)."""
    taught = running()
    if taught is None:
        return None
    try:
        return store().results(taught.code, activity, taught.key)
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
        return None


# ------------------------------------------------------------------------- a student
def student_id() -> str:
    """This student's anonymous id: kept in the URL (``me=``), so a reload on a phone still
    counts the same student once; a new one for a new device."""
    mine = st.query_params.get(STUDENT_PARAM, "")
    if not mine or len(mine) > 32 or not mine.isalnum():
        mine = st.session_state.get("_class.me") or new_student_id()
        st.query_params[STUDENT_PARAM] = mine
    st.session_state["_class.me"] = mine
    return mine


def student_class() -> str | None:
    """The class code of the student view's URL, checked (None when absent); an unknown or
    malformed code is one sentence on the page."""
    wanted = st.query_params.get(CODE_PARAM)
    if not wanted:
        return None
    try:
        if store().exists(wanted):
            return normalise_code(wanted)
        st.error(
            f"No class has the code {escape_markdown(echo(wanted))}; check it with your teacher.",
            icon=":material/error:",
        )
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
    return None
