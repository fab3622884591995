"""The worked example of docs/adding_a_study.md (labcore/experiments/example.py): the study run end
to end through the one runner into a temporary folder, its rows read back and re-summarised to the
same findings, its AUROC against a brute-force count, its rule on hand-made rows, and its answer
rendered within the word limits."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from labcore import render
from labcore.experiments import example as X
from labcore.experiments.study import get_study, load_study, read_rows, resummarise, run_study
from labcore.findings import load_summary


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The example's quick design run once into a temporary folder."""
    out = tmp_path_factory.mktemp("example")
    config = get_study("example").quick()
    return out, config, run_study("example", out, config, progress=False, say=lambda _: None)


def test_the_example_runs_end_to_end_and_answers(ran):
    out, config, summary = ran
    loaded = load_study("example", out)
    assert loaded.problems == [] and loaded.summary == summary
    frame = loaded.frame(X.SEEDS.name)
    assert len(frame) == len(config.seeds) * len(config.saliences)
    assert summary.study == "example" and summary.seeds == list(config.seeds)
    assert summary.config == {"seeds": [0, 1, 2], "saliences": [0.25, 0.5, 1.0], "trials": 400}
    # Stronger evidence: more accurate, and a confidence that knows more (SDT's prediction).
    accuracy = [summary.value(f"example.accuracy.{s:g}") for s in config.saliences]
    auroc = [summary.value(f"example.auroc.{s:g}") for s in config.saliences]
    assert accuracy == sorted(accuracy) and auroc == sorted(auroc) and auroc[0] > X.CHANCE
    rise = summary.finding("example.auroc_rise")
    assert rise.value == pytest.approx(auroc[-1] - auroc[0]) and rise.interval.method == "paired_t"
    assert summary.answer.outcome == "rises" and rise.outcome == "supported"
    for form in ("short", "readme"):
        assert render.words(render.answer(summary, form)) <= render.WORD_LIMITS[form]
    assert "| 0.25 |" in render.answer(summary, "long")  # the table has a row per salience


def test_the_rows_read_back_resummarise_to_the_same_findings(ran):
    out, config, summary = ran
    again = resummarise("example", out, config)
    assert again.findings == summary.findings and again.created == summary.created
    assert load_summary(out, study="example").ok


CALLS: list[X.Unit] = []


def counted_unit(config: X.ExampleConfig, unit: X.Unit, out: str):
    CALLS.append(unit)
    return X.run_unit(config, unit, out)


def test_units_in_the_files_are_kept_and_new_ones_run(ran, tmp_path):
    out, config, _ = ran
    rows, problems = read_rows(get_study("example"), out)
    assert problems == [] and {X.unit_of(r) for r in rows[X.SEEDS.name]} == set(X.units(config))
    copy = tmp_path / "example"
    shutil.copytree(out, copy)
    study = replace(get_study("example"), run_unit=counted_unit)
    more = replace(config, seeds=(0, 1, 2, 3))
    CALLS.clear()
    bigger = run_study(study, copy, more, progress=False, say=lambda _: None)
    assert CALLS == [X.Unit(3, s) for s in config.saliences]  # the rest kept from the files
    assert bigger.finding("example.auroc.1").n == 4
    kept = read_rows(study, copy)[0][X.SEEDS.name]
    assert [r for r in kept if r["seed"] < 3] == rows[X.SEEDS.name]


def test_one_unit_against_a_brute_force_auroc():
    rows = X.run_unit(X.ExampleConfig(trials=300), X.Unit(seed=7, salience=0.5), "")
    (row,) = rows[X.SEEDS.name]
    # The same trials again, and the AUROC as the share of (right, wrong) pairs ranked right.
    rng = np.random.default_rng(int(X.episode_seeds(7, "eval", 1)[0]))
    stimulus = rng.integers(2, size=300)
    evidence = np.where(stimulus == 1, 0.5, -0.5) + rng.normal(size=300)
    right = (evidence > 0) == (stimulus == 1)
    hits, misses = np.abs(evidence[right]), np.abs(evidence[~right])
    pairs = (hits[:, None] > misses[None, :]) + 0.5 * (hits[:, None] == misses[None, :])
    assert row["accuracy"] == pytest.approx(right.mean())
    assert row["auroc"] == pytest.approx(pairs.mean())


@pytest.mark.parametrize(
    ("aurocs", "rise", "outcome"),
    [
        ((0.6, 0.7), 0.1, "rises"),
        ((0.6, 0.6), 0.0, "above_chance"),
        ((0.5, 0.7), 0.2, "not_everywhere"),
    ],
)
def test_the_rule_on_hand_made_rows(aurocs, rise, outcome):
    jitter = (-0.01, 0.0, 0.01)
    rows = [
        {"seed": seed, "salience": salience, "accuracy": 0.7, "auroc": a + d * (i + 1)}
        for i, (salience, a) in enumerate(zip((0.25, 1.0), aurocs, strict=True))
        for seed, d in enumerate(jitter)
    ]
    summary = X.summarise(X.ExampleConfig(), {X.SEEDS.name: rows})
    assert summary.answer.outcome == outcome
    assert summary.value("example.auroc_rise") == pytest.approx(rise)
