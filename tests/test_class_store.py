"""The class store (labcore.classroom.store, issue 34): answers from several processes counted once
each, nothing lost on a restart, floods and hostile values bounded, no student sees the class's
answers before the teacher reveals them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from labcore.classroom import store as S

OPTIONS = ("rises", "falls", "same")
ROOT = Path(__file__).resolve().parents[1]


def test_answers_from_several_processes_are_counted_once_each(tmp_path):
    db = tmp_path / "class.sqlite"
    keys = S.ClassStore(db).start()
    # Three server processes, ten students each, every student changing their mind twice.
    script = (
        "import sys\n"
        "from labcore.classroom.store import ClassStore\n"
        "db, code, proc = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "s = ClassStore(db)\n"
        "for i in range(10):\n"
        "    for answer in ('same', 'falls', 'rises' if i % 2 else 'falls'):\n"
        "        s.answer(code, 'q1', f'p{proc}s{i}', answer, ('rises', 'falls', 'same'))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(db), keys.code, str(p)], cwd=ROOT)
        for p in range(3)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    counts = S.ClassStore(db).counts(keys.code, "q1", keys.teacher_key)  # a fresh process's view
    assert counts == {"falls": 15, "rises": 15}  # 30 students, each counted once, last answer


def test_a_restart_keeps_the_class_and_a_clear_forgets_it(tmp_path):
    db = tmp_path / "class.sqlite"
    keys = S.ClassStore(db).start()
    S.ClassStore(db).answer(keys.code, "q1", "s1", "rises", OPTIONS)
    again = S.ClassStore(db)  # a new server process on the same file
    assert again.exists(keys.code) and again.my_answer(keys.code, "q1", "s1") == "rises"
    again.clear(keys.code, keys.teacher_key)
    assert not again.exists(keys.code)
    with pytest.raises(S.ClassError):
        again.answer(keys.code, "q1", "s1", "rises", OPTIONS)


def test_no_student_sees_the_class_before_the_reveal(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    store.answer(keys.code, "q1", "s1", "rises", OPTIONS)
    store.answer(keys.code, "q1", "s2", "falls", OPTIONS)
    assert store.class_counts(keys.code, "q1") is None and not store.revealed(keys.code, "q1")
    for wrong in ("", "guess", S.ClassStore(tmp_path / "other.sqlite").start().teacher_key):
        with pytest.raises(S.ClassError):
            store.counts(keys.code, "q1", wrong)
        with pytest.raises(S.ClassError):
            store.reveal(keys.code, "q1", wrong)
    store.reveal(keys.code, "q1", keys.teacher_key)
    assert store.class_counts(keys.code, "q1") == {"falls": 1, "rises": 1}
    assert store.class_counts(keys.code, "q2") is None  # another question stays hidden


def test_a_flood_is_refused_and_hostile_values_get_a_sentence(tmp_path, monkeypatch):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    monkeypatch.setattr(S, "MAX_WRITES_PER_MINUTE", 5)
    for _ in range(5):
        store.answer(keys.code, "q1", "s1", "rises", OPTIONS)
    with pytest.raises(S.ClassError, match="minute"):
        store.answer(keys.code, "q1", "s1", "rises", OPTIONS)
    store.answer(keys.code, "q1", "s2", "rises", OPTIONS)  # another student is not held up
    hostile = [
        (keys.code, "q1", "s3", "maybe"),  # not a choice
        (keys.code, "q1", "s3", "rises'); DROP TABLE answers; --"),
        (keys.code, "q" * 65, "s3", "rises"),
        (keys.code, "q1", "x" * 10_000, "rises"),
        ("ABCDE", "q1", "s3", "rises"),  # no such class
        ("O0I1L", "q1", "s3", "rises"),  # not a code at all
        (keys.code, "q1", "", "rises"),
    ]
    for code, question, student, answer in hostile:
        with pytest.raises(S.ClassError) as caught:
            store.answer(
                code, question, student, answer, (*OPTIONS, "rises'); DROP TABLE answers; --")
            )
        assert str(caught.value).count(". ") == 0  # one sentence
    assert store.counts(keys.code, "q1", keys.teacher_key) == {"rises": 2}


def test_a_full_class_refuses_more_and_old_classes_are_forgotten(tmp_path, monkeypatch):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    monkeypatch.setattr(S, "MAX_QUESTIONS", 2)
    store.answer(keys.code, "q1", "s1", "rises", OPTIONS)
    store.answer(keys.code, "q2", "s1", "rises", OPTIONS)
    with pytest.raises(S.ClassError, match="full"):
        store.answer(keys.code, "q3", "s1", "rises", OPTIONS)
    store.answer(keys.code, "q2", "s2", "falls", OPTIONS)  # an existing question still takes votes
    monkeypatch.setattr(S, "MAX_CLASSES", 2)
    later = [store.start() for _ in range(2)]
    assert not store.exists(keys.code) and all(store.exists(k.code) for k in later)


def test_codes_are_read_as_a_class_types_them():
    assert S.normalise_code(" ab-c2d ") == "ABC2D"
    keys = S.ClassKeys("ABC2D", "k")
    assert len(keys.code) == S.CODE_LENGTH
    assert all(c not in S.CODE_ALPHABET for c in "01ILO")
