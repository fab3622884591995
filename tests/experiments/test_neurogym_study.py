"""The NeuroGym study of protocol 8.6 in the one Study shape (its rules:
labcore/experiments/neurogym.py): its reading rule on hand-made seeds (values, intervals,
outcomes), its answer rendered from its findings within the word limits, and the bundled folder
re-summarised to its own findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from labcore import render
from labcore.experiments import neurogym as N
from labcore.experiments.study import load_study, resummarise
from labcore.stats import t_interval

ROOT = Path(__file__).resolve().parents[2]


def seed(i: int, gap: float, sure_rate: float = 0.0, **over) -> dict:
    row = {k: 0.5 + 0.01 * i for k in N.SEED_VALUES}
    row.update(seed=i, reward_sure_gap=gap + 0.01 * i, reward_sure_rate=sure_rate, **over)
    return row


def summary_of(rows: list[dict], curves: list[dict] | None = None):
    return N.summarise(None, {N.SEEDS.name: rows, N.CURVES.name: curves or []})


@pytest.mark.parametrize(
    ("gap", "sure_rate", "outcome"),
    [(0.3, 0.2, "rises"), (0.0, 0.1, "does_not_rise"), (0.0, 0.0, "never_takes")],
)
def test_the_reading_rule(gap, sure_rate, outcome):
    rows = [seed(i, gap - 0.02, sure_rate) for i in range(5)]
    s = summary_of(rows)
    f = s.finding("neurogym.reward_sure_gap")
    values = [r["reward_sure_gap"] for r in rows]
    assert f.value == pytest.approx(np.mean(values)) and f.n == 5
    assert (f.interval.low, f.interval.high) == pytest.approx(t_interval(values))
    assert s.answer.outcome == outcome
    assert f.outcome == ("supported" if outcome == "rises" else "not supported")
    assert s.finding("neurogym.imitation_sure_gap").flag("post_hoc") is not None
    for form in ("short", "readme"):
        text = render.answer(s, form)
        assert render.words(text) <= render.WORD_LIMITS[form], text
    assert render.fmt(s.value("neurogym.ideal_sure_gap"), "difference", sign=True) in (
        render.answer(s, "short") + render.answer(s, "long")
    )
    render.part(s, "why")


def test_one_seed_is_undecided_and_derived_findings_follow_the_rows():
    s = summary_of([seed(0, 0.3)])
    assert (
        s.answer.outcome == "undecided" and s.finding("neurogym.reward_sure_gap").interval is None
    )
    rows = [seed(i, 0.1, reward_max_p_sure=0.001 * (i + 1)) for i in range(3)]
    curves = [
        {"seed": i, "trainer": t, "update": u, "heldout_p_sure_not_offered": 0.01 * i}
        for i in range(3)
        for t in ("reward", "imitation")
        for u in (0, 20)
    ]
    s = summary_of(rows, curves)
    assert s.value("neurogym.reward_max_p_sure.largest") == pytest.approx(0.003)
    assert s.value("neurogym.reward_p_sure_not_offered_at_20") == pytest.approx(0.01)
    worth = s.value("neurogym.ideal_reward") - s.value("neurogym.ideal_no_sure_reward")
    assert s.value("neurogym.sure_worth") == pytest.approx(worth)


def test_the_bundled_study_resummarises_to_its_own_findings(tmp_path):
    bundled = ROOT / "results" / "explore_neurogym"
    before = load_study("neurogym", bundled)
    assert before.problems == []
    for name in [t.file for t in N.TABLES] + ["summary.json"]:
        shutil.copy(bundled / name, tmp_path / name)
    after = resummarise("neurogym", tmp_path)
    assert after.findings == before.summary.findings and after.answer == before.summary.answer
    assert after.tables == before.summary.tables
    s = before.summary
    assert s.answer.outcome == "never_takes"
    short = render.answer(s, "short")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.fmt(s.value("neurogym.ideal_sure_gap"), "difference", sign=True) in short
    assert render.words(render.answer(s, "readme")) <= render.WORD_LIMITS["readme"]
    assert render.fmt(s.value("neurogym.sure_worth")) in render.answer(s, "long")
