"""The Confidence Database's files as its contributors write them, read by labcore.humans.trials and
measured by labcore.humans.markers: missed trials, a Condition column, dual-task columns, an
Accuracy column. Each test writes a small synthetic file that way and checks the reader's counts
and the markers against the same trials written cleanly, against scikit-learn, or by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from labcore.humans import trials as T
from labcore.humans.markers import subject_markers, table_rows
from labcore.humans.trials import ContractError, Unmeasured, read_trials
from tests.refusals import refused

RNG = np.random.default_rng(43)


def simulated(n: int, noise: float, rng=RNG) -> list[tuple[int, int, int]]:
    """``n`` trials (codes 1 and 2, ratings 1-4) of an observer with metacognitive noise."""
    stim = rng.integers(1, 3, n)
    x = rng.normal(np.where(stim == 2, 0.8, -0.8), 1.0)
    resp = np.where(x > 0, 2, 1)
    rating = 1 + np.searchsorted([0.4, 0.9, 1.5], np.abs(x) + rng.normal(0, noise, n))
    return [(int(s), int(r), int(c)) for s, r, c in zip(stim, resp, rating, strict=True)]


def cdb(rows: list[tuple], header: str = "Subj_idx,Stimulus,Response,Confidence") -> bytes:
    return (header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


SUBJECTS = {"a": simulated(130, 0.2), "b": simulated(110, 1.0), "c": simulated(150, 0.5)}
CLEAN = [(s, *row) for s, rows in SUBJECTS.items() for row in rows]


def same_markers(got, want) -> None:
    assert [(m.subject, m.n_trials) for m in got] == [(m.subject, m.n_trials) for m in want]
    for g, w in zip(got, want, strict=True):
        assert (g.accuracy, g.type2_auroc, g.meta_d, g.m_ratio) == (
            w.accuracy,
            w.type2_auroc,
            w.meta_d,
            w.m_ratio,
        )


# ----------------------------------------------------------------------------- missed trials
@pytest.mark.parametrize("code", ["NaN", "nan", "NA", "N/A", "", " -nan "])
def test_missed_trials_are_dropped_and_counted_and_the_rest_measured_as_if_clean(code):
    """Every 9th trial missed (a NaN row, as the database writes one; or one empty cell): the
    markers are those of the file without them, and each subject's count is by hand."""
    missed = set(range(0, len(CLEAN), 9))
    rows = []
    for i, (s, stim, resp, conf) in enumerate(CLEAN):
        if i in missed:
            column = i % 3  # the stimulus, the response or the confidence
            cells = [stim, resp, conf]
            cells[column] = code
            if code == "NaN":
                cells = [code] * 3  # the whole trial NaN
            rows.append((s, *cells))
        else:
            rows.append((s, stim, resp, conf))
    t = read_trials(cdb(rows), "missed.csv")
    kept = [r for i, r in enumerate(CLEAN) if i not in missed]
    by_hand = {}
    for i in missed:
        by_hand[(CLEAN[i][0], None)] = by_hand.get((CLEAN[i][0], None), 0) + 1
    assert t.missed == by_hand and t.n_missed == len(missed) and len(t) == len(kept)
    got = subject_markers(t)
    same_markers(got, subject_markers(read_trials(cdb(kept))))
    assert [m.n_missed for m in got] == [by_hand[(s, None)] for s in SUBJECTS]


def test_a_missed_trial_never_refuses_a_file():
    """Random trials of each subject missed (up to a third), in random columns: always read."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        rows = [list(r) for r in CLEAN]
        for i in np.flatnonzero(rng.random(len(rows)) < rng.uniform(0, 0.33)):
            rows[i][1 + rng.integers(0, 3)] = rng.choice(["NaN", "", "NA"])
        t = read_trials(cdb([tuple(r) for r in rows]))
        assert len(t) + t.n_missed == len(rows) and t.units == tuple((s, None) for s in SUBJECTS)


def test_a_subject_with_no_usable_trial_is_listed_with_its_reason():
    rows = CLEAN + [("z", "NaN", "NaN", "NaN")] * 5 + [("y", 1, "", 3)] * 2
    t = read_trials(cdb(rows))
    assert t.units == tuple((s, None) for s in SUBJECTS)
    z, y = t.unmeasured
    assert (z.subject, z.kind, z.n_trials, z.n_missed) == ("z", "no_usable_trials", 0, 5)
    assert (y.subject, y.kind, y.n_missed) == ("y", "no_usable_trials", 2)
    listed = table_rows(t)
    assert [r.subject for r in listed] == ["a", "b", "c", "z", "y"]
    assert [isinstance(r, Unmeasured) for r in listed] == [False] * 3 + [True] * 2


def test_missed_trials_can_put_a_subject_under_the_minimum_without_refusing_the_file():
    rows = CLEAN + [("d", *r) for r in SUBJECTS["a"][:45]]
    rows += [("d", "NaN", "NaN", "NaN")] * 3
    rows = [
        r if not (r[0] == "d" and i % 7 == 0) else ("d", "", r[2], r[3]) for i, r in enumerate(rows)
    ]
    t = read_trials(cdb(rows))
    (d,) = t.unmeasured
    n_d = sum(1 for r in rows if r[0] == "d" and "" not in r and "NaN" not in r)
    assert (d.kind, d.n_trials, d.n_missed) == ("too_few_trials", n_d, 48 - n_d)
    assert n_d < T.MIN_TRIALS


def test_only_a_file_without_any_usable_trial_is_refused():
    error = refused(ContractError, read_trials, cdb([("a", "NaN", "NaN", "NaN")] * 50))
    assert error.kind == "no_usable_trials"
    error = refused(ContractError, read_trials, cdb([("a", 1, "", 2), ("b", "", 2, 3)] * 30))
    assert error.kind == "no_usable_trials"


# ----------------------------------------------------------------------------- conditions
CONDITIONS = {
    (s, c): simulated(n, noise)
    for s, n in (("1", 120), ("2", 140), ("3", 100))
    for c, noise in (("TMS", 1.5), ("sham", 0.1))
}
WITH_CONDITION = [(s, *row, c) for (s, c), rows in CONDITIONS.items() for row in rows]


@pytest.mark.parametrize("column", ["Condition", "condition", "CONDITION"])
def test_a_condition_column_splits_each_subject_and_each_unit_is_measured_alone(column):
    data = cdb(WITH_CONDITION, f"Subj_idx,Stimulus,Response,Confidence,{column}")
    t = read_trials(data)
    assert t.by == column and t.pooled is None and t.units == tuple(CONDITIONS)
    got = subject_markers(t)
    for m, ((s, c), rows) in zip(got, CONDITIONS.items(), strict=True):
        assert (m.subject, m.condition, m.n_trials) == (s, c, len(rows))
        stim, resp, conf = (np.array(col) for col in zip(*rows, strict=True))
        assert m.type2_auroc == pytest.approx(roc_auc_score(stim == resp, conf), abs=1e-12)
        assert m.accuracy == pytest.approx(np.mean(stim == resp))
    # the scale is the file's, so each unit equals the same unit written alone with a 1-4 scale
    alone = subject_markers(read_trials(cdb([(s, *r) for r in CONDITIONS[("2", "sham")]])))
    (two_sham,) = [m for m in got if (m.subject, m.condition) == ("2", "sham")]
    assert two_sham.m_ratio == pytest.approx(alone[0].m_ratio, abs=1e-9)


def test_pooling_is_a_choice_that_is_recorded():
    data = cdb(WITH_CONDITION, "Subj_idx,Stimulus,Response,Confidence,Condition")
    t = read_trials(data, pool=True)
    assert (
        t.by is None
        and t.pooled == "Condition"
        and t.units == (("1", None), ("2", None), ("3", None))
    )
    (m, *_) = subject_markers(t)
    assert m.n_trials == 240 and m.condition is None


def test_another_column_can_split_the_trials_and_a_missing_one_is_refused():
    rows = [(*r, "x", "early" if i % 2 else "late") for i, r in enumerate(WITH_CONDITION)]
    data = cdb(rows, "Subj_idx,Stimulus,Response,Confidence,Condition,Note,Block")
    t = read_trials(data, by="Block")
    assert t.by == "Block" and {c for _, c in t.units} == {"early", "late"}
    error = refused(ContractError, read_trials, data, "t.csv", by="Session")
    assert (error.kind, error.field) == ("missing_column", "Session")


def test_a_lab_file_with_conditions_is_split_too():
    rows = [(0, 0, 0.9), (1, 1, 0.8), (1, 0, 0.6), (0, 1, 0.55)] * 10
    body = [(*r, c) for c in ("easy", "hard") for r in rows]
    data = cdb(body, "stimulus,response,confidence,condition")
    t = read_trials(data)
    assert t.units == (("1", "easy"), ("1", "hard"))


def test_a_usable_trial_without_its_condition_is_refused_a_missed_one_is_not():
    data = cdb(WITH_CONDITION, "Subj_idx,Stimulus,Response,Confidence,Condition")
    missed = data.replace(b"\n1,", b"\n1,NaN,NaN,NaN,\n1,", 1)  # a missed trial, no condition
    t = read_trials(missed)
    assert t.n_missed == 1 and t.missed == {("1", None): 1}  # counted; listed, not measured
    assert [u.kind for u in t.unmeasured] == ["no_usable_trials"] and len(t.units) == 6
    lines = data.decode().split("\n")
    lines[5] = ",".join([*lines[5].split(",")[:4], ""])
    error = refused(ContractError, read_trials, "\n".join(lines).encode())
    assert error.kind == "missing_value" and "6" in re.findall(r"\d+", str(error))  # its line


def test_units_count_against_the_subject_bound(monkeypatch):
    data = cdb(WITH_CONDITION, "Subj_idx,Stimulus,Response,Confidence,Condition")
    monkeypatch.setattr(T, "MAX_SUBJECTS", 5)  # 3 subjects, 6 units
    assert refused(ContractError, read_trials, data).kind == "too_many_subjects"
    assert len(read_trials(data, pool=True).units) == 3


# ----------------------------------------------------------------------------- dual tasks
TASKS = {"1": simulated(120, 0.2), "2": simulated(120, 1.2)}


def dual(sep: str = "_") -> bytes:
    """A dual-task file: a shared Stimulus, then each task's Response and Confidence."""
    columns = [f"{c}{sep}{k}" for k in TASKS for c in ("Response", "Confidence")]
    rows = [
        ("s", TASKS["1"][i][0], *(v for k in TASKS for v in TASKS[k][i][1:])) for i in range(120)
    ]
    return cdb(rows, ",".join(["Subj_idx", "Stimulus", *columns]))


@pytest.mark.parametrize("sep", ["_", ""])
def test_a_dual_task_file_names_its_columns_and_how_to_pick_one(sep):
    data = dual(sep)
    error = refused(ContractError, read_trials, data, "dual.csv")
    assert (error.kind, error.field) == ("dual_task", "Response")
    for k in TASKS:
        for column in (f"Response{sep}{k}", f"Confidence{sep}{k}", f"--task {k}"):
            assert column in str(error)
    assert T.task_suffixes(T.header_of(data)) == ("1", "2")


def test_a_dual_task_file_is_read_one_task_at_a_time():
    """Task 1 read from the dual file equals the same trials written as a plain file (a shared
    Stimulus column, the task's Response and Confidence)."""
    data = dual()
    t = read_trials(data, task="1")
    assert t.task == "1"
    plain = cdb([("s", TASKS["1"][i][0], *TASKS["1"][i][1:]) for i in range(120)])
    same_markers(subject_markers(t), subject_markers(read_trials(plain)))
    second = read_trials(data, task="2")
    assert np.array_equal(second.confidence, [r[2] for r in TASKS["2"]])
    assert refused(ContractError, read_trials, data, task="3").kind == "unknown_task"
    plain_read = read_trials(plain, task="1")  # a file without tasks is read as it is
    assert plain_read.task is None and np.array_equal(plain_read.confidence, t.confidence)


# ----------------------------------------------------------------------------- Accuracy
def test_an_accuracy_column_that_disagrees_is_reported_not_used():
    rows = [(s, stim, resp, conf, int(stim == resp)) for s, stim, resp, conf in CLEAN]
    flipped = [3, 10, 200]  # two of subject a's trials, one of subject b's
    for i in flipped:
        s, stim, resp, conf, acc = rows[i]
        rows[i] = (s, stim, resp, conf, 1 - acc)
    rows[20] = (*rows[20][:4], "NaN")  # not recorded: nothing to compare
    data = cdb(rows, "Subj_idx,Stimulus,Response,Confidence,Accuracy")
    t = read_trials(data)
    assert int(t.disagrees.sum()) == len(flipped)
    got = subject_markers(t)
    same_markers(got, subject_markers(read_trials(cdb(CLEAN))))  # Stimulus and Response decide
    assert ["accuracy_disagrees" in m.cautions for m in got] == [True, True, False]
    assert len(got[0].notes) == len(got[0].cautions)


def test_an_accuracy_column_must_be_right_or_wrong():
    rows = [(s, stim, resp, conf, 2) for s, stim, resp, conf in CLEAN]
    error = refused(
        ContractError, read_trials, cdb(rows, "Subj_idx,Stimulus,Response,Confidence,Accuracy")
    )
    assert error.kind == "accuracy_codes"
