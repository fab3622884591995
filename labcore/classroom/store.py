"""A class that sees itself (after NetLogo HubNet): a class's anonymous answers in one SQLite file.

A teacher starts a class (a code for students, a key for the teacher) and *posts* a
:class:`Question`; its answer and view stay sealed until the teacher reveals it. Students answer
under an anonymous id, one answer per question (the last kept), and *submit* activity results only
the teacher reads. A class is live while its teacher was seen within :data:`LIVE_SECONDS`. The
file (``runs/class/classroom.sqlite`` or ``$CTLAB_CLASS_DB``) is in WAL mode so ``make class``'s
processes share it; everything is bounded, and a refused write raises :class:`ClassError`.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from labcore.settings import settings

DEFAULT_PATH = Path("runs") / "class" / "classroom.sqlite"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Class codes avoid letters and digits a class confuses when read off a projector (0/O, 1/I/L)."""
CODE_LENGTH = 5
MAX_CLASSES = 200
"""Classes kept; starting one more forgets the oldest."""
MAX_ANSWERS = 20_000
MAX_QUESTIONS = 500
MAX_TEXT = 64
"""Longest question id, answer or student id accepted."""
MAX_WRITES_PER_MINUTE = 60
MAX_BYTES = 64 * 2**20
"""The file's bound; beyond it writes are refused until the teacher clears a class."""
MAX_QUESTION_BYTES = 16 * 1024
CHOICE_LETTERS = "ABCDEFGH"
"""The letters choices are labelled and voted with (on the page, the handout and a phone)."""
MAX_CHOICES = len(CHOICE_LETTERS)
MAX_RESULTS = 500
"""Results one class may hold per activity."""
MAX_RESULT_VALUES = 16
KEY_LENGTH = 10
"""A teacher key: short enough to type on a second device, 31**10 (about 8e14) keys."""
LIVE_SECONDS = 3600.0
"""A class is live while its teacher was seen within this time."""
SEEN_EVERY = 60.0
"""The teacher's presence is written at most this often (each write takes the file's lock)."""
_SAFE = re.compile(r"[A-Za-z0-9_.:+\-]+")


class ClassError(ValueError):
    """A refused class operation; the message is one sentence for the person."""


@dataclass(frozen=True)
class ClassKeys:
    """What starting a class gives the teacher: the code students use and the teacher's key."""

    code: str
    teacher_key: str


def choice_letters(n: int) -> tuple[str, ...]:
    """The letters students answer a question of ``n`` choices with.

    >>> choice_letters(3)
    ('A', 'B', 'C')
    """
    return tuple(CHOICE_LETTERS[:n])


@dataclass(frozen=True)
class Question:
    """A question a teacher posts to the class.

    Students see ``text`` and ``choices`` at once; ``answer`` (Markdown), ``view`` (``page?params``)
    and ``lab_choice`` (the choice the lab's results support) only after the reveal, except a
    ``view_first`` view (a mystery puzzle). ``kind`` is ``vote`` or ``activity`` (no choices).
    """

    id: str
    text: str
    choices: tuple[str, ...]
    answer: str = ""
    view: str = ""
    view_first: bool = False
    kind: str = "vote"
    lab_choice: int | None = None

    def to_json(self) -> str:
        """The question as stored."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Question:
        """A stored question read back."""
        body = json.loads(text)
        return cls(**{**body, "choices": tuple(body["choices"])})


@dataclass(frozen=True)
class StudentView:
    """What one student may see of the class's current question; ``mine`` is their answer."""

    question: Question
    revealed: bool
    mine: str | None
    counts: dict[str, int] = field(default_factory=dict)


def normalise_code(text: str) -> str:
    """A class code as typed (any case, spaces, dashes) in its canonical form.

    >>> normalise_code(" ab-c2d ")
    'ABC2D'
    """
    return re.sub(r"[\s\-]", "", str(text)).upper()


def _check_code(code: str) -> str:
    code = normalise_code(code)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise ClassError(
            f"A class code has {CODE_LENGTH} letters and digits (no 0, 1, I, L or O); check it "
            "with your teacher."
        )
    return code


def _check_text(value: str, what: str) -> str:
    text = str(value)
    if not 0 < len(text) <= MAX_TEXT or not _SAFE.fullmatch(text):
        raise ClassError(f"That {what} is not one the lab accepts (letters, digits, at most 64).")
    return text


def _check_question(question: Question) -> Question:
    _check_text(question.id, "question")
    if question.kind not in ("vote", "activity"):
        raise ClassError("A question is a vote or an activity.")
    if question.kind == "vote" and not 2 <= len(question.choices) <= MAX_CHOICES:
        raise ClassError(f"A question to vote on has 2 to {MAX_CHOICES} choices.")
    if len(question.to_json().encode()) > MAX_QUESTION_BYTES:
        raise ClassError("That question is too long to post to the class.")
    return question


class ClassStore:
    """The class answers in one SQLite file (created with its folder on first use)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path or settings().class_db or DEFAULT_PATH)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise ClassError(
                f"The class store cannot be opened ({exc.__class__.__name__}); classes need a "
                "folder the lab can write to."
            ) from None
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA busy_timeout=10000")
            con.executescript(
                """
                CREATE TABLE IF NOT EXISTS classes (
                    code TEXT PRIMARY KEY, teacher_key TEXT NOT NULL, started REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS answers (
                    code TEXT NOT NULL, question TEXT NOT NULL, student TEXT NOT NULL,
                    answer TEXT NOT NULL, at REAL NOT NULL,
                    PRIMARY KEY (code, question, student));
                CREATE TABLE IF NOT EXISTS writes (
                    code TEXT NOT NULL, student TEXT NOT NULL, at REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS writes_by_student ON writes (code, student, at);
                CREATE TABLE IF NOT EXISTS reveals (
                    code TEXT NOT NULL, question TEXT NOT NULL, at REAL NOT NULL,
                    PRIMARY KEY (code, question));
                CREATE TABLE IF NOT EXISTS questions (
                    code TEXT NOT NULL, question TEXT NOT NULL, body TEXT NOT NULL,
                    at REAL NOT NULL, PRIMARY KEY (code, question));
                CREATE TABLE IF NOT EXISTS current (
                    code TEXT PRIMARY KEY, question TEXT NOT NULL, at REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS seen (
                    code TEXT PRIMARY KEY, at REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS results (
                    code TEXT NOT NULL, activity TEXT NOT NULL, student TEXT NOT NULL,
                    body TEXT NOT NULL, at REAL NOT NULL,
                    PRIMARY KEY (code, activity, student));
                """
            )
            yield con
        except sqlite3.DatabaseError as exc:
            raise ClassError(
                f"The class store cannot be used right now ({exc.__class__.__name__}); ask the "
                "teacher to restart the class."
            ) from None
        finally:
            con.close()

    # ------------------------------------------------------------------ the teacher
    def start(self) -> ClassKeys:
        """Start a class: a fresh code and the teacher's key (forgets the oldest beyond the cap)."""
        with self._db() as con:
            con.execute("BEGIN IMMEDIATE")
            taken = {row[0] for row in con.execute("SELECT code FROM classes")}
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            while code in taken:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            keys = ClassKeys(
                code, "".join(secrets.choice(CODE_ALPHABET) for _ in range(KEY_LENGTH))
            )
            now = time.time()
            con.execute("INSERT INTO classes VALUES (?, ?, ?)", (code, keys.teacher_key, now))
            con.execute("INSERT OR REPLACE INTO seen VALUES (?, ?)", (code, now))
            for (old,) in con.execute(
                "SELECT code FROM classes ORDER BY started DESC LIMIT -1 OFFSET ?", (MAX_CLASSES,)
            ).fetchall():
                self._forget(con, old)
            con.execute("COMMIT")
        return keys

    def _teacher(self, con: sqlite3.Connection, code: str, teacher_key: str) -> str:
        code = _check_code(code)
        row = con.execute("SELECT teacher_key FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or not secrets.compare_digest(row[0], str(teacher_key)):
            raise ClassError("Only the teacher who started this class can do that.")
        return code

    @staticmethod
    def _seen(con: sqlite3.Connection, code: str) -> None:
        """The teacher of ``code`` is here now."""
        now = time.time()
        row = con.execute("SELECT at FROM seen WHERE code = ?", (code,)).fetchone()
        if row is None or row[0] < now - SEEN_EVERY:
            con.execute("INSERT OR REPLACE INTO seen VALUES (?, ?)", (code, now))

    def resume(self, code: str, teacher_key: str) -> str:
        """Check a teacher's code and key and keep the class live; the canonical code."""
        with self._db() as con:
            code = self._teacher(con, code, normalise_code(teacher_key))
            self._seen(con, code)
            return code

    def live(self) -> bool:
        """Whether any class is live: its teacher seen within :data:`LIVE_SECONDS`, not ended."""
        with self._db() as con:
            row = con.execute(
                "SELECT 1 FROM seen JOIN classes USING (code) WHERE seen.at >= ? LIMIT 1",
                (time.time() - LIVE_SECONDS,),
            ).fetchone()
        return row is not None

    def post(self, code: str, teacher_key: str, question: Question) -> None:
        """Make ``question`` the class's current question (one posted before keeps its answers)."""
        question = _check_question(question)
        body = question.to_json()
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            con.execute("BEGIN IMMEDIATE")
            known = con.execute(
                "SELECT 1 FROM questions WHERE code = ? AND question = ?", (code, question.id)
            ).fetchone()
            n = con.execute("SELECT COUNT(*) FROM questions WHERE code = ?", (code,)).fetchone()[0]
            if known is None and (n >= MAX_QUESTIONS or self.path.stat().st_size > MAX_BYTES):
                con.execute("ROLLBACK")
                raise ClassError("This class holds too many questions; clear it to start afresh.")
            now = time.time()
            con.execute(
                "INSERT INTO questions VALUES (?, ?, ?, ?) ON CONFLICT (code, question) "
                "DO UPDATE SET body = excluded.body, at = excluded.at",
                (code, question.id, body, now),
            )
            con.execute(
                "INSERT INTO current VALUES (?, ?, ?) ON CONFLICT (code) "
                "DO UPDATE SET question = excluded.question, at = excluded.at",
                (code, question.id, now),
            )
            con.execute("COMMIT")

    def results(self, code: str, activity: str, teacher_key: str) -> list[dict[str, float]]:
        """Every student's submitted numbers for ``activity``, in arrival order, anonymous."""
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            rows = con.execute(
                "SELECT body FROM results WHERE code = ? AND activity = ? ORDER BY at",
                (code, _check_text(activity, "activity")),
            ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def counts(self, code: str, question: str, teacher_key: str) -> dict[str, int]:
        """How many students gave each answer to ``question`` (the poll keeps the class live)."""
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            self._seen(con, code)
            return self._counts(con, code, _check_text(question, "question"))

    @staticmethod
    def _counts(con: sqlite3.Connection, code: str, question: str) -> dict[str, int]:
        rows = con.execute(
            "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question = ? GROUP BY answer",
            (code, question),
        )
        return dict(sorted(rows))

    def reveal(self, code: str, question: str, teacher_key: str) -> None:
        """Reveal ``question``: its students see the counts and the lab's answer."""
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            con.execute(
                "INSERT OR IGNORE INTO reveals VALUES (?, ?, ?)",
                (code, _check_text(question, "question"), time.time()),
            )

    def clear(self, code: str, teacher_key: str) -> None:
        """Forget the class: its answers, reveals and code."""
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            con.execute("BEGIN IMMEDIATE")
            self._forget(con, code)
            con.execute("COMMIT")

    @staticmethod
    def _forget(con: sqlite3.Connection, code: str) -> None:
        for table in "answers reveals writes questions current results seen classes".split():
            con.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    # ------------------------------------------------------------------ a student
    def exists(self, code: str) -> bool:
        """Whether ``code`` names a class that has been started (and not cleared)."""
        with self._db() as con:
            row = con.execute(
                "SELECT 1 FROM classes WHERE code = ?", (_check_code(code),)
            ).fetchone()
        return row is not None

    def _student_write(self, con: sqlite3.Connection, code: str, student: str, now: float) -> None:
        """In a transaction: the class exists and the student is not flooding; count the write."""
        if con.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
            con.execute("ROLLBACK")
            raise ClassError("No class has this code; check it with your teacher.")
        con.execute("DELETE FROM writes WHERE at <= ?", (now - 60.0,))
        recent = con.execute(
            "SELECT COUNT(*) FROM writes WHERE code = ? AND student = ?", (code, student)
        ).fetchone()[0]
        if recent >= MAX_WRITES_PER_MINUTE:
            con.execute("ROLLBACK")
            raise ClassError("Too many answers in a minute; wait a moment and try again.")
        con.execute("INSERT INTO writes VALUES (?, ?, ?)", (code, student, now))

    def answer(
        self, code: str, question: str, student: str, answer: str, options: Sequence[str]
    ) -> None:
        """Store a student's answer (replacing their earlier one to the same question)."""
        code = _check_code(code)
        question, student = _check_text(question, "question"), _check_text(student, "student")
        if answer not in options:
            raise ClassError("That answer is not one of the choices.")
        answer = _check_text(answer, "answer")
        now = time.time()
        with self._db() as con:
            con.execute("BEGIN IMMEDIATE")
            self._student_write(con, code, student, now)
            new_question = (
                con.execute(
                    "SELECT 1 FROM answers WHERE code = ? AND question = ? LIMIT 1",
                    (code, question),
                ).fetchone()
                is None
            )
            n_answers, n_questions = con.execute(
                "SELECT COUNT(*), COUNT(DISTINCT question) FROM answers WHERE code = ?", (code,)
            ).fetchone()
            if (
                n_answers >= MAX_ANSWERS
                or (new_question and n_questions >= MAX_QUESTIONS)
                or self.path.stat().st_size > MAX_BYTES
            ):
                con.execute("ROLLBACK")
                raise ClassError("This class's answer board is full; ask the teacher to clear it.")
            con.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, question, student) "
                "DO UPDATE SET answer = excluded.answer, at = excluded.at",
                (code, question, student, answer, now),
            )
            con.execute("COMMIT")

    def answer_current(self, code: str, student: str, answer: str) -> None:
        """Answer the class's current question with a letter of its choices."""
        view = self.current(code, student)
        if view is None or view.question.kind != "vote":
            raise ClassError("Your teacher has not asked a question to vote on yet.")
        q = view.question
        self.answer(code, q.id, student, answer, choice_letters(len(q.choices)))

    def current(self, code: str, student: str) -> StudentView | None:
        """The class's current question as ``student`` may see it (None before one is posted)."""
        code, student = _check_code(code), _check_text(student, "student")
        with self._db() as con:
            if con.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                raise ClassError("No class has this code; check it with your teacher.")
            row = con.execute(
                "SELECT q.body, q.question FROM current c JOIN questions q "
                "ON q.code = c.code AND q.question = c.question WHERE c.code = ?",
                (code,),
            ).fetchone()
            if row is None:
                return None
            question, qid = Question.from_json(row[0]), row[1]
            revealed = (
                con.execute(
                    "SELECT 1 FROM reveals WHERE code = ? AND question = ?", (code, qid)
                ).fetchone()
                is not None
            )
            mine = con.execute(
                "SELECT answer FROM answers WHERE code = ? AND question = ? AND student = ?",
                (code, qid, student),
            ).fetchone()
            counts = self._counts(con, code, qid) if revealed else {}
        if not revealed:  # sealed: what a student's device receives holds no answer
            question = replace(
                question,
                answer="",
                lab_choice=None,
                view=question.view if question.view_first else "",
            )
        return StudentView(question, revealed, None if mine is None else mine[0], counts)

    def submit(self, code: str, activity: str, student: str, values: dict[str, float]) -> None:
        """Store a student's numbers for ``activity`` (their last submission kept)."""
        code = _check_code(code)
        activity, student = _check_text(activity, "activity"), _check_text(student, "student")
        if not 0 < len(values) <= MAX_RESULT_VALUES:
            raise ClassError(f"A result carries 1 to {MAX_RESULT_VALUES} numbers.")
        clean: dict[str, float | None] = {}
        for name, value in values.items():
            number = (
                float(value)
                if isinstance(value, int | float) and not isinstance(value, bool)
                else math.nan
            )  # an undefined marker (nan, None) is kept as "not defined", never as a number
            clean[_check_text(name, "result name")] = number if math.isfinite(number) else None
        now = time.time()
        with self._db() as con:
            con.execute("BEGIN IMMEDIATE")
            self._student_write(con, code, student, now)
            n = con.execute(
                "SELECT COUNT(*) FROM results WHERE code = ? AND activity = ?", (code, activity)
            ).fetchone()[0]
            if n >= MAX_RESULTS or self.path.stat().st_size > MAX_BYTES:
                con.execute("ROLLBACK")
                raise ClassError("This class's answer board is full; ask the teacher to clear it.")
            con.execute(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, activity, student) "
                "DO UPDATE SET body = excluded.body, at = excluded.at",
                (code, activity, student, json.dumps(clean, sort_keys=True), now),
            )
            con.execute("COMMIT")

    def my_answer(self, code: str, question: str, student: str) -> str | None:
        """The student's own answer to ``question`` (None if they have not answered)."""
        with self._db() as con:
            row = con.execute(
                "SELECT answer FROM answers WHERE code = ? AND question = ? AND student = ?",
                (
                    _check_code(code),
                    _check_text(question, "question"),
                    _check_text(student, "student"),
                ),
            ).fetchone()
        return None if row is None else row[0]

    def revealed(self, code: str, question: str) -> bool:
        """Whether the teacher has revealed ``question``."""
        with self._db() as con:
            row = con.execute(
                "SELECT 1 FROM reveals WHERE code = ? AND question = ?",
                (_check_code(code), _check_text(question, "question")),
            ).fetchone()
        return row is not None


def new_student_id() -> str:
    """An anonymous id for one student's browser session (nothing about the person)."""
    return secrets.token_hex(8)
