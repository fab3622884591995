"""A class that sees itself (after NetLogo HubNet): the Streamlit side of the class store.

Who a browser is to the lab's classes is settled once per run (:func:`settle_role`, called by
``app.py`` before the page), and every page asks :func:`role` (the rule: docs/classroom.md):

- the **teacher**: the browser that started a class, or resumed it with its code and key. Its
  right survives a reload, a navigation and a new tab: the browser keeps it in a cookie
  (:data:`TEACHER_COOKIE`) the server reads on the next page load (``st.context.cookies``);
- a **student**: a browser that joined a class (a class code in its URL or its session, or its
  :data:`STUDENT_COOKIE`), or *any* other browser while a class is live on this lab
  (:meth:`labcore.classroom.store.ClassStore.live`): a private window is no way round;
- a **visitor** otherwise: the lab's self-study pages, answers included.

A student's pages never draw an answer the teacher has not revealed (the Lesson, the Mystery
reveal, the teacher key, the handouts): the server does not send it. The teacher's page posts its
question (:func:`post`), shows the class's votes live (:func:`votes_panel`), reveals them
(:func:`reveal`), and projects the join block (:func:`class_panel`): the class code and the full
link, large, and a QR code. Students open ``/join?class=CODE``, the student view
(``app_pages/join.py``).

Every refusal of the store (:class:`labcore.classroom.store.ClassError`) is one sentence on the
page, never a traceback.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
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
from ui import projector, share
from ui.components import figure
from ui.state import echo, escape_markdown

CODE_PARAM = "class"
"""The URL parameter carrying a class code (the teacher's pages and the student view)."""
STUDENT_PARAM = "me"
"""The student view's URL parameter holding the student's anonymous id (a reload keeps it)."""
POLL_SECONDS = 3.0
"""How often a student's view and the teacher's vote chart look for news in the store."""
TEACHER_COOKIE = "ctlab_teacher"
"""The teacher's browser keeps its class here: ``CODE.KEY``."""
STUDENT_COOKIE = "ctlab_student"
"""A student's browser keeps the class it joined here: ``CODE.ME`` (``ME``: its anonymous id)."""
COOKIE_SECONDS = 12 * 3600
"""How long a browser keeps its class (a school day); ending the class ends the right at once."""
JOIN_CODE_REM = 3.0
"""The class code's type in the join block (rem of 16 px: 48 px; projector mode doubles it)."""
JOIN_LINK_REM = 1.25
"""The join link's type (20 px; projector mode doubles it). The link wraps, never cut."""
_CODE, _KEY, _POSTED = "_class.code", "_class.key", "_class.posted"
_ROLE, _JOINED, _ME = "_class.role", "_class.joined", "_class.me"
_TOKEN = re.compile(r"[A-Za-z0-9]{1,32}")


@dataclass(frozen=True)
class TeacherClass:
    """The class this teacher's session runs: its code and the teacher key."""

    code: str
    key: str


@dataclass(frozen=True)
class Role:
    """Who this browser is to the lab's classes (docs/classroom.md)."""

    kind: str
    """``"teacher"``, ``"student"`` or ``"visitor"``."""
    code: str | None = None
    """The class taught or joined; None for a visitor, and for a student known only as a device
    that opened the lab while a class is live."""

    @property
    def student(self) -> bool:
        """Whether this browser must see no unrevealed answer."""
        return self.kind == "student"


VISITOR = Role("visitor")


def store() -> ClassStore:
    """The class store every session and server process shares (one SQLite file, found anew on
    every call: ``$CTLAB_CLASS_DB`` or :mod:`labcore.classroom.store`'s default)."""
    return ClassStore()


def running() -> TeacherClass | None:
    """The class this session teaches, or None."""
    code, key = st.session_state.get(_CODE), st.session_state.get(_KEY)
    return TeacherClass(code, key) if code and key else None


def role() -> Role:
    """This browser's role, as :func:`settle_role` found it at the start of this run."""
    return st.session_state.get(_ROLE, VISITOR)


def _cookies() -> Mapping[str, str]:
    """The cookies the browser sent when this session's page loaded."""
    try:
        return dict(st.context.cookies)  # a plain copy: AppTest's sessions have none
    except Exception:  # no browser behind the session (bare mode)
        return {}


def _split(value: str | None) -> tuple[str, str]:
    """A cookie's ``A.B`` as ``(A, B)``; empty strings when malformed."""
    first, _, second = str(value or "").partition(".")
    return (first, second) if _TOKEN.fullmatch(first) and _TOKEN.fullmatch(second) else ("", "")


def _forget_teacher() -> None:
    for k in (_CODE, _KEY, _POSTED):
        st.session_state.pop(k, None)


def _settle(cookies: Mapping[str, str]) -> Role:
    classes = store()
    # The teacher: this session's class, else the class the browser's cookie keeps.
    code, key = st.session_state.get(_CODE), st.session_state.get(_KEY)
    if not (code and key):
        code, key = _split(cookies.get(TEACHER_COOKIE))
    if code and key:
        try:
            code = classes.resume(code, key)
        except ClassError:  # the class ended, or the key is not its own: no right is left
            _forget_teacher()
        else:
            st.session_state[_CODE], st.session_state[_KEY] = code, normalise_code(key)
            return Role("teacher", code)
    # A student: the class in the URL, the one this session joined, the browser's cookie.
    joined, cookie_me = _split(cookies.get(STUDENT_COOKIE))
    for wanted in (st.query_params.get(CODE_PARAM), st.session_state.get(_JOINED), joined):
        try:
            if wanted and classes.exists(wanted):
                code = normalise_code(wanted)
                break
        except ClassError:
            continue
    else:
        code = None
    if code is not None:
        st.session_state[_JOINED] = code
        url_me = st.query_params.get(STUDENT_PARAM, "")
        me = url_me if _TOKEN.fullmatch(url_me) else st.session_state.get(_ME)
        st.session_state[_ME] = me or (cookie_me if joined == code else "") or new_student_id()
        return Role("student", code)
    # The room: while a class is live here, a browser that is not its teacher's is a student.
    return Role("student") if classes.live() else VISITOR


def settle_role() -> Role:
    """Find who this browser is (see the module docstring), keep its class in its cookies, and
    remember the role for this run's :func:`role`. ``app.py`` calls it once per run."""
    cookies = _cookies()
    try:
        found = _settle(cookies)
    except ClassError:  # the store cannot be read: a browser that showed a class stays a student
        known = st.query_params.get(CODE_PARAM) or st.session_state.get(_JOINED)
        found = Role("student") if known or cookies.get(STUDENT_COOKIE) else VISITOR
        _forget_teacher()
    st.session_state[_ROLE] = found
    wanted: dict[str, str | None] = {}
    taught = running()
    if found.kind == "teacher" and taught is not None:
        wanted[TEACHER_COOKIE] = f"{taught.code}.{taught.key}"
    elif cookies.get(TEACHER_COOKIE):
        wanted[TEACHER_COOKIE] = None  # a class that ended, or a key that is not its own
    if found.kind == "student" and found.code is not None:
        wanted[STUDENT_COOKIE] = f"{found.code}.{st.session_state[_ME]}"
    _keep_cookies(wanted, cookies)
    return found


def cookie_script(wanted: Mapping[str, str | None]) -> str:
    """JavaScript that sets (or, for None, deletes) the browser's class cookies.

    >>> cookie_script({"ctlab_student": "ABC23.f00d", "ctlab_teacher": None})
    "document.cookie='ctlab_student=ABC23.f00d; path=/; max-age=43200; samesite=lax';\
document.cookie='ctlab_teacher=; path=/; max-age=0; samesite=lax';"
    """
    lines = []
    for name, value in wanted.items():
        if value is not None and not all(map(_TOKEN.fullmatch, value.split("."))):
            raise ValueError(f"a class cookie holds letters, digits and one dot: {value!r}")
        age = COOKIE_SECONDS if value is not None else 0
        lines.append(
            f"document.cookie='{name}={value or ''}; path=/; max-age={age}; samesite=lax';"
        )
    return "".join(lines)


def _keep_cookies(wanted: Mapping[str, str | None], cookies: Mapping[str, str]) -> None:
    """Tell the browser the cookies that differ from what it sent (a hidden element of the
    sidebar; the page's layout does not move). The server reads them on the next page load."""
    changed = {k: v for k, v in wanted.items() if cookies.get(k) != v}
    if not changed:
        return
    with st.sidebar.container(key="class-cookies"):
        st.html(
            "<style>.st-key-class-cookies { display: none; }</style>"
            f"<script>{cookie_script(changed)}</script>",
            unsafe_allow_javascript=True,
        )


def join_link(code: str) -> str:
    """The address students open for class ``code`` (built from :func:`ui.share.lab_base_url`)."""
    base, _ = share.lab_base_url()
    return f"{base}/{PAGE_URLS['join']}?{urlencode({CODE_PARAM: code})}"


def revealed(question_id: str) -> bool:
    """Whether this session's class has seen ``question_id`` revealed (False without a class):
    after a reload the teacher's page shows what the students already see."""
    taught = running()
    if taught is None:
        return False
    try:
        return store().revealed(taught.code, question_id)
    except ClassError:
        return False


def _start() -> None:
    if role().student:  # a student starting a class would be its teacher, answers and all
        return
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
    st.session_state.pop(_JOINED, None)
    st.session_state["class.resume_key"] = ""  # the key leaves the page with the form
    st.query_params[CODE_PARAM] = code


def _end() -> None:
    taught = running()
    if taught is not None:
        try:
            store().clear(taught.code, taught.key)
        except ClassError as exc:
            st.session_state["_class.error"] = str(exc)
            return
    _forget_teacher()
    st.session_state[_ROLE] = VISITOR
    if CODE_PARAM in st.query_params:
        del st.query_params[CODE_PARAM]


def _resume_form(page: str, wanted: str | None) -> None:
    """Code and key (the key typed as a password: nothing of it shows)."""
    c1, c2 = st.columns(2)
    c1.text_input(
        "Class code", value=wanted or "", max_chars=CODE_LENGTH + 4, key="class.resume_code"
    )
    c2.text_input("Teacher key", max_chars=KEY_LENGTH + 4, key="class.resume_key", type="password")
    st.button("Resume", key=f"class.resume.{page}", on_click=_resume)


def class_panel(page: str, *, compact: bool = False) -> TeacherClass | None:
    """The teacher's class controls: start a class (or resume one on another device), or, with a
    class running, the join block for the projector and the class's settings. A student's browser
    gets only the form a teacher's other device resumes with. Returns the running class.

    ``compact`` (the Lesson's side column): the join block stacked, a smaller QR code."""
    if error := st.session_state.pop("_class.error", None):
        st.error(error, icon=":material/error:")
    taught = running()
    wanted = st.query_params.get(CODE_PARAM)
    if taught is None:
        if role().student:
            with st.expander("The teacher's other device"):
                st.markdown(
                    "A class is running here. To run it from this device, type its code and its "
                    "teacher key (shown in the class's settings on the teacher's first device)."
                )
                _resume_form(page, wanted)
            return None
        st.markdown(
            "Start a class to let students vote from their own devices: they open a link "
            "(or scan its code) and see only the question; the class's answers appear "
            "here, and nobody sees them until you reveal them."
        )
        st.button(
            "Start a class", key=f"class.start.{page}", on_click=_start, icon=":material/groups:"
        )
        with st.expander("Resume a class from another device"):
            _resume_form(page, wanted)
        return None
    if wanted != taught.code:  # a navigation (the sidebar, "Open this view" and back) kept
        st.query_params[CODE_PARAM] = taught.code
    link = join_link(taught.code)
    _, reachable = share.lab_base_url()
    join_block(taught.code, link, compact=compact)
    if reachable is False:
        st.warning(share.unreachable_note(), icon=":material/wifi_off:")
    with st.popover("Class settings", icon=":material/settings:"):
        _teacher_controls(page, taught)
    return taught


def join_block(code: str, link: str, *, compact: bool = False) -> None:
    """The class's code and full link in type the back of a room reads (:data:`JOIN_CODE_REM`,
    :data:`JOIN_LINK_REM`; doubled in projector mode), the link wrapped, never cut, and its QR
    code: stacked in a narrow column (``compact``), side by side otherwise."""
    scale = 2 if projector.is_on() else 1
    # a line may break after a slash or before the query (<wbr>), and anywhere as a last resort
    breaks = re.sub(r"(?<=[^/]/)(?!/)|(?=\?)", "<wbr>", html.escape(link))
    words = (
        f'<div class="class-join-code" style="font-family: monospace; font-weight: 700; '
        f'letter-spacing: 0.08em; line-height: 1.1; font-size: {JOIN_CODE_REM * scale}rem">'
        f"{html.escape(code)}</div>"
        f'<div class="class-join-link" style="font-weight: 600; line-height: 1.25; '
        f"overflow-wrap: anywhere; "
        f'font-size: {JOIN_LINK_REM * scale}rem">{breaks}</div>'
    )
    if compact:
        with st.container(key="class-join"):
            st.markdown("Join the class: scan the code, or open")
            st.html(words)
            st.image(share.qr_png(link), width=130 * scale, alt=f"QR code of the class link {link}")
        return
    text, qr = st.columns([3, 1], vertical_alignment="center")
    with text, st.container(key="class-join"):
        st.markdown("Join the class: scan the code, or open")
        st.html(words)
        st.caption("Students see the question and vote; the answer stays here until you reveal it.")
    qr.image(
        share.qr_png(link),
        caption="Scan to join",
        width=180,
        alt=f"QR code of the class link {link}",
    )


def _teacher_controls(page: str, taught: TeacherClass) -> None:
    """The teacher key (sent to the browser only while its switch is on) and ending the class."""
    if st.toggle(
        "Show the teacher key",
        key=f"class.show_key.{page}",
        help="To run this class from another device: type the class code and this key there. "
        "This browser needs no key: it keeps the class through reloads and pages.",
    ):
        st.markdown(f"Teacher key: `{taught.key}` (keep it off the projector)")
    st.button(
        "End and clear the class",
        key=f"class.end.{page}",
        on_click=_end,
        help="Forget every answer of this class and its code; students' devices see the whole "
        "lab again.",
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
    """This student's anonymous id: kept in the URL (``me=``) and the browser's cookie, so a
    reload on a phone still counts the same student once; a new one for a new device."""
    mine = st.query_params.get(STUDENT_PARAM, "")
    if not _TOKEN.fullmatch(mine):
        mine = st.session_state.get(_ME) or new_student_id()
        st.query_params[STUDENT_PARAM] = mine
    st.session_state[_ME] = mine
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


def class_link(label: str = "Your class") -> None:
    """A link to the student view: of the class this browser joined, else the page that asks
    for a code."""
    seat = role()
    params = (
        {CODE_PARAM: seat.code, STUDENT_PARAM: st.session_state.get(_ME) or student_id()}
        if seat.student and seat.code
        else None
    )
    st.page_link(
        f"app_pages/{PAGE_URLS['join']}.py",
        label=label,
        icon=":material/groups:",
        query_params=params,
    )


def join_entry() -> None:
    """Home's way into a class, in the page itself (a phone's menu is folded away): back to the
    class this browser joined, else to the page that asks for a code."""
    seat = role()
    class_link(
        "Back to your class" if seat.student and seat.code else "Join a class (your teacher's code)"
    )


def answers_held_back(page: str) -> None:
    """What a student's browser gets instead of a page of answers: where the class's questions
    are, and the form a teacher's other device resumes with."""
    st.info(
        "A class is running on this lab: the answers here are your teacher's to show. Your "
        "class's questions, and each answer once revealed, are on your class page.",
        icon=":material/lock:",
    )
    class_link("Go to your class")
    class_panel(page)
