"""Several data sets measured together (labcore.humans.datasets): a refused file named while the
others are measured, one table with a data-set column, and each data set's and condition's group
line checked against numpy's mean and median and labcore.stats' bootstrap over people."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from labcore.humans import datasets as D
from labcore.humans.markers import MARKER_COLUMNS, SubjectMarkers
from labcore.humans.trials import RECOMMENDED_TRIALS, ContractError, read_trials
from labcore.stats import bootstrap_ci
from tests.humans.test_conventions import cdb, simulated
from tests.refusals import refused

RNG = np.random.default_rng(7)
PEOPLE = {
    (s, c): simulated(n, noise, RNG)
    for s, n in (("p1", 150), ("p2", 130), ("p3", 60), ("p4", 170), ("p5", 120))
    for c, noise in (("easy", 0.2), ("hard", 1.0))
}
"""Five people in two conditions; p3 has 60 trials per condition (under the group's 100)."""
HEADER = "Subj_idx,Stimulus,Response,Confidence,Condition"
GROUPED = cdb([(s, *r, c) for (s, c), rows in PEOPLE.items() for r in rows], HEADER)
PLAIN = cdb([(s, *r) for s, rows in {"q1": simulated(140, 0.3, RNG)}.items() for r in rows])


def test_a_refused_file_is_named_and_the_others_are_measured():
    bad = b"Subj_idx,Stimulus\n1,2\n"
    sets = [D.measure(GROUPED, "grouped.csv"), D.measure(bad, "bad.csv"), D.measure(PLAIN, "q.csv")]
    assert [ds.error is None for ds in sets] == [True, False, True]
    assert sets[1].error == str(refused(ContractError, read_trials, bad, "bad.csv"))
    assert sets[1].kind == "missing_column" and not sets[1].rows
    table = list(csv.DictReader(io.StringIO(D.subjects_csv([sets[0], sets[2]]))))
    assert tuple(table[0]) == MARKER_COLUMNS
    assert [(r["dataset"], r["subject"], r["condition"]) for r in table] == [
        ("grouped.csv", s, c) for s, c in PEOPLE
    ] + [("q.csv", "q1", "")]
    assert sets[0].by == "Condition" and sets[0].by_default and sets[2].by is None


def test_notes_say_what_was_dropped_split_pooled_and_disagreed():
    kinds = [k for k, _ in D.notes(D.measure(GROUPED, "g.csv"))]
    assert kinds == ["by"]
    assert [k for k, _ in D.notes(D.measure(GROUPED, "g.csv", pool=True))] == ["pooled"]
    missed = GROUPED.replace(b"\np2,", b"\np2,NaN,NaN,NaN,easy\np2,", 1)
    assert [k for k, _ in D.notes(D.measure(missed, "g.csv"))] == ["missed", "by"]


def kept_values(field: str, condition: str, least: int = RECOMMENDED_TRIALS) -> list[float]:
    """The people of a condition counted in its group line, by hand: at least ``least`` trials."""
    ds = D.measure(GROUPED, "g.csv")
    return [
        getattr(m, field) for m in ds.markers if m.condition == condition and m.n_trials >= least
    ]


@pytest.mark.parametrize("seed", [0, 5])
def test_a_group_line_per_condition_with_its_bootstrap_over_people(seed):
    lines = D.group_lines([D.measure(GROUPED, "g.csv")], seed=seed)
    assert [(line.dataset, line.condition) for line in lines] == [
        ("g.csv", "easy"),
        ("g.csv", "hard"),
    ]
    for line in lines:
        assert (line.n_subjects, line.n_few_trials, line.n_unmeasured) == (5, 1, 0)  # p3 left out
        for field in ("type2_auroc", "m_ratio"):
            values = kept_values(field, line.condition)
            stat = getattr(line, field)
            assert stat.n == len(values) == 4
            assert stat.mean == pytest.approx(np.mean(values), abs=1e-12)
            assert stat.median == pytest.approx(np.median(values), abs=1e-12)
            mean_ci = bootstrap_ci(values, seed=seed)
            median_ci = bootstrap_ci(values, statistic=np.median, seed=seed)
            assert (stat.mean_low, stat.mean_high) == (mean_ci.low, mean_ci.high)
            assert (stat.median_low, stat.median_high) == (median_ci.low, median_ci.high)


def test_same_seed_same_interval_another_seed_another():
    values = np.random.default_rng(1).uniform(0.3, 1.2, 30)
    people = tuple(
        SubjectMarkers(dataset="x", subject=f"{k}", n_trials=200, accuracy=0.7, m_ratio=v)
        for k, v in enumerate(values)
    )
    ds = [D.DataSet("x", rows=people)]
    a, b, c = (D.group_lines(ds, seed=s)[0].m_ratio for s in (3, 3, 4))
    assert a == b and (a.mean_low, a.mean_high) != (c.mean_low, c.mean_high)
    assert a.mean == c.mean == pytest.approx(values.mean())  # the seed moves the interval only


def test_the_trial_guard_is_a_choice_and_unmeasured_people_are_counted():
    ds = D.measure(GROUPED + b"p9,NaN,NaN,NaN,easy\n", "g.csv")
    easy = D.group_lines([ds], min_trials=40)[0]
    assert (easy.n_subjects, easy.n_few_trials, easy.n_unmeasured) == (5, 0, 1)
    assert easy.m_ratio.n == len(kept_values("m_ratio", "easy", 40)) == 5
    nobody = D.group_lines([ds], min_trials=10_000)[0]
    assert nobody.m_ratio.n == 0 and nobody.m_ratio.mean is None and nobody.n_few_trials == 5


def test_one_person_has_no_interval_and_the_group_table_round_trips():
    (line,) = D.group_lines([D.measure(PLAIN, "q.csv")])
    assert line.condition is None and line.m_ratio.n == 1
    assert line.m_ratio.mean == line.m_ratio.median and line.m_ratio.mean_low is None
    rows = list(csv.DictReader(io.StringIO(D.groups_csv([line]))))
    assert tuple(rows[0]) == D.GROUP_COLUMNS
    assert float(rows[0]["m_ratio_mean"]) == line.m_ratio.mean and rows[0]["m_ratio_mean_low"] == ""
    assert int(rows[0]["n_subjects"]) == 1 and rows[0]["condition"] == ""


def test_the_group_text_carries_the_lines_numbers():
    from labcore.render import fmt

    (line, _) = D.group_lines([D.measure(GROUPED, "g.csv")])
    text = D.group_text(line)
    for value in (line.m_ratio.mean, line.m_ratio.median_low, line.type2_auroc.mean_high):
        assert fmt(value) in text
    assert text.startswith(line.dataset) and line.condition in text


def test_a_person_without_a_value_is_left_out_of_that_markers_summary():
    m = SubjectMarkers(dataset="x", subject="a", n_trials=200, accuracy=0.7, type2_auroc=0.6)
    ds = D.DataSet("x", rows=(m, m.model_copy(update={"subject": "b", "type2_auroc": 0.8})))
    (line,) = D.group_lines([ds])
    assert (line.type2_auroc.n, line.m_ratio.n, line.n_subjects) == (2, 0, 2)
    assert line.type2_auroc.mean == pytest.approx(0.7)
