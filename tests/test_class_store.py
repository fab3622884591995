"""The class store (labcore.classroom.store): answers from several processes counted once
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
    assert not store.revealed(keys.code, "q1")
    for wrong in ("", "guess", S.ClassStore(tmp_path / "other.sqlite").start().teacher_key):
        with pytest.raises(S.ClassError):
            store.counts(keys.code, "q1", wrong)
        with pytest.raises(S.ClassError):
            store.reveal(keys.code, "q1", wrong)
    store.reveal(keys.code, "q1", keys.teacher_key)
    assert store.revealed(keys.code, "q1") and not store.revealed(keys.code, "q2")


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


def _question(**changes) -> S.Question:
    body = {
        "id": "lesson.3",
        "text": "Zero the self-model: what happens?",
        "choices": ("stays", "falls", "both fall"),
        "answer": "Accuracy stays; AUROC falls to 0.5.",
        "view": "metacognition?agent=b2_ws&self_model_mode=zero",
        "lab_choice": 0,
    }
    return S.Question(**{**body, **changes})


def test_a_posted_question_reaches_students_sealed_until_the_reveal(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    assert store.current(keys.code, "s1") is None  # nothing asked yet
    with pytest.raises(S.ClassError):
        store.answer_current(keys.code, "s1", "A")
    store.post(keys.code, keys.teacher_key, _question())
    seen = store.current(keys.code, "s1")
    assert seen.question.text == _question().text and seen.question.choices == _question().choices
    assert (seen.question.answer, seen.question.view, seen.revealed, seen.counts) == (
        "",
        "",
        False,
        {},
    )
    assert seen.mine is None and seen.question.lab_choice is None
    store.answer_current(keys.code, "s1", "B")
    store.answer_current(keys.code, "s2", "B")
    store.answer_current(keys.code, "s3", "A")
    with pytest.raises(S.ClassError):
        store.answer_current(keys.code, "s1", "D")  # three choices: A-C only
    seen = store.current(keys.code, "s1")
    assert seen.mine == "B" and seen.counts == {} and seen.question.answer == ""
    with pytest.raises(S.ClassError):
        store.reveal(keys.code, "lesson.3", "NOTTHEKEY1")
    store.reveal(keys.code, "lesson.3", keys.teacher_key)
    seen = store.current(keys.code, "s3")
    assert seen.revealed and seen.mine == "A" and seen.counts == {"A": 1, "B": 2}
    assert seen.question == _question()  # the answer and the lab's view, now unsealed
    # The next step: a new current question, the old one's answers kept.
    store.post(keys.code, keys.teacher_key, _question(id="lesson.4"))
    assert store.current(keys.code, "s1").question.id == "lesson.4"
    assert store.counts(keys.code, "lesson.3", keys.teacher_key) == {"A": 1, "B": 2}


def test_a_puzzle_shows_its_view_first_but_never_its_answer(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    puzzle = _question(id="mystery.ABCD2345", view="mystery?code=ABCD2345", view_first=True)
    store.post(keys.code, keys.teacher_key, puzzle)
    seen = store.current(keys.code, "s1").question
    assert seen.view == puzzle.view and seen.answer == ""


def test_a_teacher_resumes_with_the_code_and_key_only(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    assert len(keys.teacher_key) == S.KEY_LENGTH
    assert set(keys.teacher_key) <= set(S.CODE_ALPHABET)
    assert store.resume(keys.code.lower(), keys.teacher_key.lower()) == keys.code
    for code, key in ((keys.code, "WRONGKEY22"), ("ZZZZZ", keys.teacher_key), ("bad", "x")):
        with pytest.raises(S.ClassError):
            store.resume(code, key)
    with pytest.raises(S.ClassError):  # only the teacher posts
        store.post(keys.code, "WRONGKEY22", _question())


def test_a_posted_question_is_bounded(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    for bad in (
        _question(choices=("only one",)),
        _question(choices=tuple("ABCDEFGHI")),
        _question(id="lesson 3"),
        _question(text="x" * (S.MAX_QUESTION_BYTES + 1)),
        _question(kind="quiz"),
    ):
        with pytest.raises(S.ClassError):
            store.post(keys.code, keys.teacher_key, bad)
    assert store.current(keys.code, "s1") is None


def test_results_are_the_teachers_to_read_and_undefined_numbers_stay_undefined(tmp_path):
    store = S.ClassStore(tmp_path / "class.sqlite")
    keys = store.start()
    store.submit(keys.code, "be_the_agent", "s1", {"type2_auroc": 0.7, "m_ratio": float("nan")})
    store.submit(keys.code, "be_the_agent", "s2", {"type2_auroc": 0.6, "m_ratio": None})
    store.submit(keys.code, "be_the_agent", "s1", {"type2_auroc": 0.8, "m_ratio": 0.9})  # again
    rows = store.results(keys.code, "be_the_agent", keys.teacher_key)
    assert rows == [{"m_ratio": None, "type2_auroc": 0.6}, {"m_ratio": 0.9, "type2_auroc": 0.8}]
    with pytest.raises(S.ClassError):
        store.results(keys.code, "be_the_agent", "WRONGKEY22")
    for bad in ({}, {f"k{i}": 1.0 for i in range(S.MAX_RESULT_VALUES + 1)}, {"a b": 1.0}):
        with pytest.raises(S.ClassError):
            store.submit(keys.code, "be_the_agent", "s3", bad)
    assert store.submit(keys.code, "be_the_agent", "s3", {"flag": True}) is None
    assert store.results(keys.code, "be_the_agent", keys.teacher_key)[-1] == {"flag": None}
    store.clear(keys.code, keys.teacher_key)
    assert not store.exists(keys.code)


def test_a_class_is_live_while_its_teacher_is_seen_and_ends_with_its_clear(tmp_path, monkeypatch):
    store = S.ClassStore(tmp_path / "class.sqlite")
    assert not store.live()
    keys = store.start()
    assert store.live()
    now = S.time.time()
    monkeypatch.setattr(S.time, "time", lambda: now + S.LIVE_SECONDS + 1)  # an hour of nothing
    assert not store.live() and store.exists(keys.code)  # answers kept, the room free again
    store.counts(keys.code, "q1", keys.teacher_key)  # the teacher's page polls its votes
    assert store.live()
    with pytest.raises(S.ClassError):
        store.resume(keys.code, "WRONGKEY22")  # a wrong key is not the teacher's presence
    monkeypatch.setattr(S.time, "time", lambda: now + 2 * S.LIVE_SECONDS + 2)
    assert not store.live()
    store.resume(keys.code, keys.teacher_key)  # a reload, another page
    assert store.live()
    store.clear(keys.code, keys.teacher_key)
    assert not store.live()


def test_an_unwritable_store_is_one_sentence(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(S.ClassError) as refused:
        S.ClassStore(blocked / "class.sqlite").live()
    assert str(refused.value).count(". ") == 0
