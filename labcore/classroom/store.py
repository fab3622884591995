"""A class that sees itself (issue 34, after NetLogo HubNet's participatory simulations): the
anonymous answers of a class, in one SQLite file shared by every server process of a class.

A teacher starts a class and gets its code (what students type or scan) and a teacher key (kept
in the teacher's session only). Students' answers (a "Predict first" prediction, a lesson vote, a
mystery diagnosis) are stored under the class code, the question and an anonymous student id (a
random token of the student's browser session): one answer per student and question, the last one
kept, so a student is counted once however often they change their mind. Only the teacher key
reads the counts and reveals a question; a student reads back only their own answer and, once the
teacher has revealed the question, the class's counts.

The file is created on first use (``runs/class/classroom.sqlite``, or ``$CTLAB_CLASS_DB``), in
WAL mode with a busy timeout, so the processes of ``make class`` share it and a server restart
loses nothing. Everything is bounded (classes, answers, questions, text, a student's rate, the
file's size); a refused write raises :class:`ClassError` with one sentence for the person.
"""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PATH = Path("runs") / "class" / "classroom.sqlite"
"""Where the class store lives unless ``$CTLAB_CLASS_DB`` says otherwise (git-ignored)."""
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Class codes avoid letters and digits a class confuses when read off a projector (0/O, 1/I/L)."""
CODE_LENGTH = 5
MAX_CLASSES = 200
"""Classes kept; starting one more forgets the oldest."""
MAX_ANSWERS = 20_000
"""Answers one class may hold (30 students x hundreds of questions, with room)."""
MAX_QUESTIONS = 500
"""Distinct questions one class may hold."""
MAX_TEXT = 64
"""Longest question id, answer or student id accepted."""
MAX_WRITES_PER_MINUTE = 60
"""A student's answers in any 60 s: more is a flood, refused."""
MAX_BYTES = 64 * 2**20
"""The file may grow to this; beyond it writes are refused until the teacher clears a class."""
_SAFE = re.compile(r"[A-Za-z0-9_.:+\-]+")


class ClassError(ValueError):
    """A refused class operation; the message is one sentence for the person."""


@dataclass(frozen=True)
class ClassKeys:
    """What starting a class gives the teacher: the code students use and the teacher's key."""

    code: str
    teacher_key: str


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


class ClassStore:
    """The class answers in one SQLite file (see the module docstring).

    Parameters
    ----------
    path : path, optional
        The file (created with its folder on first use); default ``$CTLAB_CLASS_DB`` or
        :data:`DEFAULT_PATH`.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path or os.environ.get("CTLAB_CLASS_DB") or DEFAULT_PATH)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
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
        """Start a class: a fresh code and the teacher's key. The oldest class beyond
        :data:`MAX_CLASSES` is forgotten."""
        with self._db() as con:
            con.execute("BEGIN IMMEDIATE")
            taken = {row[0] for row in con.execute("SELECT code FROM classes")}
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            while code in taken:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            keys = ClassKeys(code, secrets.token_urlsafe(16))
            con.execute(
                "INSERT INTO classes VALUES (?, ?, ?)", (code, keys.teacher_key, time.time())
            )
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

    def counts(self, code: str, question: str, teacher_key: str) -> dict[str, int]:
        """How many students gave each answer to ``question`` (the teacher's projector view)."""
        with self._db() as con:
            code = self._teacher(con, code, teacher_key)
            return self._counts(con, code, _check_text(question, "question"))

    @staticmethod
    def _counts(con: sqlite3.Connection, code: str, question: str) -> dict[str, int]:
        rows = con.execute(
            "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND question = ? GROUP BY answer",
            (code, question),
        )
        return dict(sorted(rows))

    def reveal(self, code: str, question: str, teacher_key: str) -> None:
        """Reveal ``question``: from now on its students see the class's counts and the lab's
        answer."""
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
        for table in ("answers", "reveals", "writes", "classes"):
            con.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    # ------------------------------------------------------------------ a student
    def exists(self, code: str) -> bool:
        """Whether ``code`` names a class that has been started (and not cleared)."""
        with self._db() as con:
            row = con.execute(
                "SELECT 1 FROM classes WHERE code = ?", (_check_code(code),)
            ).fetchone()
        return row is not None

    def answer(
        self, code: str, question: str, student: str, answer: str, options: Sequence[str]
    ) -> None:
        """Store a student's answer (replacing their earlier one to the same question).

        Raises
        ------
        ClassError
            An unknown class, an answer not among ``options``, a flood, a full class or file.
        """
        code = _check_code(code)
        question, student = _check_text(question, "question"), _check_text(student, "student")
        if answer not in options:
            raise ClassError("That answer is not one of the choices.")
        answer = _check_text(answer, "answer")
        now = time.time()
        with self._db() as con:
            con.execute("BEGIN IMMEDIATE")
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
            con.execute("INSERT INTO writes VALUES (?, ?, ?)", (code, student, now))
            con.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, question, student) "
                "DO UPDATE SET answer = excluded.answer, at = excluded.at",
                (code, question, student, answer, now),
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

    def class_counts(self, code: str, question: str) -> dict[str, int] | None:
        """The class's counts for a student: only once the teacher has revealed the question
        (None before, so no student sees another's answer before the reveal)."""
        code, question = _check_code(code), _check_text(question, "question")
        with self._db() as con:
            if (
                con.execute(
                    "SELECT 1 FROM reveals WHERE code = ? AND question = ?", (code, question)
                ).fetchone()
                is None
            ):
                return None
            return self._counts(con, code, question)


def new_student_id() -> str:
    """An anonymous id for one student's browser session (nothing about the person)."""
    return secrets.token_hex(8)
