"""The trial-table contract (labcore.humans.trials): both formats read, every bad input refused in
one sentence whose ``kind`` (and, for a cell, ``field``) says what is wrong. The Confidence
Database's own conventions (missed trials, conditions, dual tasks, an Accuracy column) are
tests/humans/test_conventions.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from labcore.checks import ChoiceError
from labcore.humans import trials as T
from labcore.humans.trials import lab_csv, read_trials
from labcore.scorecards.contract import ContractError

FOUR = [(0, 0, 0.9), (1, 1, 0.8), (1, 0, 0.6), (0, 1, 0.55)]
"""Four lab trials: two right (high confidence), two wrong (lower)."""


def lab(rows, header="stimulus,response,confidence") -> bytes:
    return (header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


def cdb(rows, header="Subj_idx,Stimulus,Response,Confidence,RT_decision,RT_confidence") -> bytes:
    return (header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


GOOD_LAB = lab(FOUR * 10)
GOOD_CDB = cdb(
    [
        (s, a, b, c, 0.61, 0.3)
        for s in (7, 3)
        for a, b, c in [(1, 1, 4), (2, 2, 3), (2, 1, 1), (1, 2, 2)] * 10
    ]
)


def refused(data: bytes, fmt=None) -> ContractError:
    with pytest.raises(ContractError) as info:
        read_trials(data, "t.csv", fmt)
    message = str(info.value)
    assert message.startswith("t.csv: ") and "\n" not in message and "Traceback" not in message
    return info.value


def test_lab_format_reads_with_one_subject_by_default():
    t = read_trials(GOOD_LAB, "t.csv")
    assert t.format == "lab" and t.subjects == ("1",) and len(t) == 40 and t.probability
    assert t.stimulus[:4].tolist() == [0, 1, 1, 0] and t.response[:4].tolist() == [0, 1, 0, 1]
    assert t.confidence[:4].tolist() == [0.9, 0.8, 0.6, 0.55]


def test_confidence_database_codes_become_classes_and_subjects_keep_file_order():
    t = read_trials(GOOD_CDB, "t.csv")
    assert t.format == "confidence-database" and not t.probability
    assert t.codes == (1.0, 2.0) and t.subjects == ("7", "3")
    assert t.stimulus[:4].tolist() == [0, 1, 1, 0] and t.response[:4].tolist() == [0, 1, 0, 1]
    assert t.confidence[:4].tolist() == [4, 3, 1, 2]


def test_extra_confidence_database_columns_are_ignored_and_rt_columns_not_required():
    data = cdb(
        [
            (1, a, b, c, "x", "easy")
            for a, b, c in [(0, 0, 1), (5, 5, 2), (0, 5, 1), (5, 0, 2)] * 10
        ],
        header="Subj_idx,Stimulus,Response,Confidence,RT_decConf,Difficulty",
    )
    t = read_trials(data)
    assert t.codes == (0.0, 5.0) and len(t) == 40


def test_the_format_is_detected_from_the_header_and_can_be_forced():
    assert read_trials(GOOD_CDB).format == "confidence-database"
    error = refused(GOOD_CDB, "lab")
    assert error.kind == "unknown_column" and error.field == "Subj_idx"
    assert "confidence-database" in str(error)  # the format the header is of
    error = refused(GOOD_LAB, "confidence-database")
    assert error.kind == "missing_column" and error.field == "Subj_idx"


def test_lab_write_reads_back_the_same_values():
    conf = [0.5, 0.65, 0.8, 0.95, 1 / 3] * 8
    stim = [0, 1] * 20
    resp = [0, 1, 1, 0] * 10
    data = lab_csv(
        stim, resp, conf, subject="you", difficulty=np.linspace(0, 1, 40), condition="x, y"
    )
    t = read_trials(data)
    assert t.subjects == ("you",) and t.confidence.tolist() == conf
    assert t.stimulus.tolist() == stim and t.response.tolist() == resp
    assert np.array_equal(t.difficulty, np.linspace(0, 1, 40))


@pytest.mark.parametrize(
    ("data", "kind", "field"),
    [
        (GOOD_LAB.replace(b"0,0,0.9\n", b"0,0,inf\n", 1), "finite_number", "confidence[0]"),
        (GOOD_LAB.replace(b"0,0,0.9\n", b"0,0,high\n", 1), "float_parsing", "confidence[0]"),
        (GOOD_LAB.replace(b"1,1,0.8\n", b"1,1?,0.8\n", 1), "float_parsing", "response[1]"),
        (GOOD_CDB.replace(b"\n3,", b"\n ,", 1), "missing_value", "Subj_idx[40]"),
        (GOOD_CDB.replace(b",4,0.61", b",sure,0.61", 1), "float_parsing", "Confidence[0]"),
        (GOOD_CDB.replace(b"\n3,1,1,4", b"\n3,-inf,1,4", 1), "finite_number", "Stimulus[40]"),
    ],
    ids=["infinite", "text", "text-response", "empty-subject", "cdb-text", "cdb-infinite"],
)
def test_a_bad_cell_is_one_sentence_naming_its_column_and_line(data, kind, field):
    error = refused(data)
    assert (error.kind, error.field) == (kind, field)
    column, line = field.split("[")
    assert f"{column}, line {int(line[:-1]) + 2}" in str(error)


def test_an_empty_cell_says_so_without_quoting_nothing():
    data = lab([("p", *r) for r in FOUR * 10], "subject,stimulus,response,confidence")
    error = refused(data.replace(b"\np,0,0,0.9\n", b"\n,0,0,0.9\n", 1))
    assert (error.kind, error.field) == ("missing_value", "subject[0]")
    assert "''" not in str(error) and '""' not in str(error)


def test_further_problems_are_counted():
    data = GOOD_LAB.replace(b"0.9", b"x")
    assert re.search(r"\(9\b", str(refused(data)))  # the nine other bad cells, counted


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", "empty"),
        (b"\n\n", "empty"),
        (b"stimulus,response,confidence\n", "empty"),
        ("stimulus,response,confidence\nä".encode("latin-1"), "not_utf8"),
        (lab(FOUR * 10, "stimulus,response,conf"), "unknown_column"),
        (lab([r[:2] for r in FOUR * 10], "stimulus,response"), "missing_column"),
        (lab(FOUR * 10, "stimulus,response,confidence,confidence"), "duplicate_column"),
        (GOOD_LAB.replace(b"0,0,0.9\n", b"0,0\n", 1), "ragged_row"),
        (GOOD_LAB.replace(b"0,0,0.9\n", b"\n", 1), "ragged_row"),
        (lab(FOUR * 9), "too_few_trials"),
        (lab([(0, 0, 0.9), (1, 1, 0.6)] * 20), "one_class"),
        (lab([(0, 1, 0.9), (1, 0, 0.6)] * 20), "one_class"),
        (lab([(0, 0, 0.9), (0, 1, 0.6)] * 20), "one_stimulus"),
        (GOOD_LAB.replace(b"0,0,0.9", b"0,0,1.5"), "confidence_range"),
        (GOOD_LAB.replace(b"1,1,0.8", b"2,1,0.8"), "codes"),
        (cdb([(1, a, 1, 2, 0, 0) for a in (10, 20, 30, 40)] * 10), "codes"),
    ],
    ids=[
        "nothing",
        "blank-lines",
        "header-only",
        "latin-1",
        "misspelt-column",
        "missing-column",
        "duplicate-column",
        "short-row",
        "blank-line-between-trials",
        "36-trials",
        "always-right",
        "always-wrong",
        "one-stimulus",
        "confidence-above-1",
        "lab-code-2",
        "continuous-stimulus",
    ],
)
def test_every_bad_file_gets_its_sentence(data, kind):
    assert refused(data).kind == kind


def test_too_few_trials_names_the_subject_the_minimum_and_the_recommendation():
    """A subject under the minimum is listed with its reason and the others are measured; a file
    whose every subject is under it is refused with the first one's reason."""
    data = GOOD_CDB + b"".join(
        f"9,{a},{b},{c},0,0\n".encode() for a, b, c in [(1, 1, 4), (2, 1, 1)] * 5
    )
    t = read_trials(data)
    assert t.units == (("7", None), ("3", None)) and t.order[-1] == ("9", None)
    (left_out,) = t.unmeasured
    assert (left_out.subject, left_out.kind, left_out.n_trials) == ("9", "too_few_trials", 10)
    numbers = [int(n) for n in re.findall(r"\d+", left_out.reason)]
    assert numbers[:2] == [9, 10]  # the subject and its trials
    assert {T.MIN_TRIALS, T.RECOMMENDED_TRIALS} <= set(numbers)
    error = refused(lab(FOUR * 9))
    assert error.kind == "too_few_trials" and re.findall(r"\d+", str(error))[:2] == ["1", "36"]


def test_the_size_bound_is_checked_before_decoding():
    assert T.MAX_FILE_BYTES == 5 * 2**20
    error = refused(b"\xff" * (T.MAX_FILE_BYTES + 1))
    assert error.kind == "too_large" and "5 MiB" in str(error)
    read_trials(GOOD_LAB + b" " * 0)  # well under the bound


def test_the_row_and_subject_bounds(monkeypatch):
    monkeypatch.setattr(T, "MAX_ROWS", 39)
    assert refused(GOOD_LAB).kind == "too_many_rows"
    monkeypatch.setattr(T, "MAX_ROWS", 10_000)
    monkeypatch.setattr(T, "MAX_SUBJECTS", 1)
    assert refused(GOOD_CDB).kind == "too_many_subjects"


def test_the_minimum_is_below_the_recommendation_and_a_session_is_readable():
    from labcore.humans.session import SESSION_TRIALS

    assert 40 <= T.MIN_TRIALS <= SESSION_TRIALS < T.RECOMMENDED_TRIALS == 100


def test_an_unknown_format_is_a_value_error():
    with pytest.raises(ChoiceError) as caught:
        read_trials(GOOD_LAB, fmt="excel")
    assert caught.value.name == "fmt"
