"""The integration study (protocol sec. 9): its tests on values with known outcomes, the
pipeline on a tiny budget (resumable), the command, the reader and the figures."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from labcore import cli
from labcore.experiments import explore_integration as X
from labcore.figures.integration import integration_bars, monotonicity_table, study_values_figure
from labcore.markers import known_answers
from labcore.measures_integration import IntegrationReading

SEEDS = range(5)


def _rows(values, *, measure="phi", signal="h", variant="intact", ridge=1e-3):
    """Rows of the study's CSV from ``values[(kind, training, condition, group)] = per-seed
    list``."""
    return [
        {
            "kind": k,
            "seed": s,
            "training": t,
            "condition": c,
            "signal": signal,
            "variant": variant,
            "group": g,
            "measure": measure,
            "ridge": ridge,
            "value": v,
        }
        for (k, t, c, g), per_seed in values.items()
        for s, v in zip(SEEDS, per_seed, strict=True)
    ]


def _designed():
    """Phi on h: rising A0 < A1 < B1 < B2, trained one bit above the twins, correct above error,
    bus-off identical to intact (the open-loop carrier). O-information: the twins give the same."""
    rng = np.random.default_rng(0)
    values, same = {}, {}
    for i, kind in enumerate(X.KINDS):
        trained = list(i + 1 + 0.05 * rng.normal(size=5))
        values[(kind, "trained", "intact", "all")] = trained
        values[(kind, "untrained", "intact", "all")] = [v - 1.0 for v in trained]
        values[(kind, "trained", "intact", "correct")] = [v + 0.5 for v in trained]
        values[(kind, "trained", "intact", "error")] = trained
        same[(kind, "trained", "intact", "all")] = [3.0 + 0.01 * s for s in SEEDS]
        same[(kind, "untrained", "intact", "all")] = [3.0 + 0.01 * s for s in SEEDS]
        if kind in ("b1", "b2"):
            values[(kind, "trained", "bus_off", "all")] = trained
    return _rows(values) + _rows(same, measure="o_information")


def test_designed_values_give_the_registered_outcomes():
    tests, audit = X.run_tests(_designed(), X.KINDS, 1e-3)
    by = {
        (t["measure"], t["test"]): t
        for t in tests
        if t["signal"] == "h" and t["variant"] == "intact"
    }
    assert by[("phi", "M4")]["outcome"] == "passes" and not by[("phi", "M4")]["by_construction"]
    assert by[("phi", "M2")]["outcome"] == "passes" and by[("phi", "M3")]["outcome"] == "passes"
    m1 = by[("phi", "M1")]
    assert (
        m1["outcome"] == "fails" and m1["by_construction"]
    )  # bus-off leaves h identical: the wiring
    assert set(m1["per_kind"]) == {"b1", "b2"} and all(
        p["identical"] for p in m1["per_kind"].values()
    )
    # O-information: the untrained twins give the same numbers, so every test reading them is by
    # construction
    assert "a0/intact/h/intact/o_information" in audit
    assert (
        by[("o_information", "M2")]["by_construction"]
        and by[("o_information", "M2")]["outcome"] == "fails"
    )
    found = X.recovered(tests)
    assert {(f["measure"], f["test"]) for f in found} == {
        ("phi", "M2"),
        ("phi", "M3"),
        ("phi", "M4"),
    }
    answer = X.answer(tests)
    assert "Phi_E (whole minus sum): M2 on h (intact), M3 on h (intact), M4 on h (intact)" in answer
    assert "O-information: none" in answer and "No measure recovers all four" in answer


def test_reversed_ordering_and_too_few_seeds():
    rows = [dict(r, value=-r["value"]) for r in _designed() if r["measure"] == "phi"]
    tests, _ = X.run_tests(rows, X.KINDS, 1e-3)
    by = {t["test"]: t for t in tests}
    assert by["M4"]["outcome"] == "reversed" and by["M2"]["outcome"] == "reversed"
    few = [
        r
        for r in _designed()
        if r["measure"] == "phi" and not (r["group"] == "error" and r["seed"] > 1)
    ]
    m3 = {t["test"]: t for t in X.run_tests(few, X.KINDS, 1e-3)[0]}["M3"]
    assert m3["outcome"] == "undefined" and all(p["n"] == 2 for p in m3["per_kind"].values())
    assert X.answer([]).startswith("None of the three measures")


def test_correct_and_error_groups_are_equal_sized_and_seeded():
    correct = np.array([True] * 20 + [False] * 9)
    groups = X._groups(correct, seed=3, min_group=8)
    assert len(groups["correct"]) == len(groups["error"]) == 9
    assert set(groups["correct"]) <= set(range(20)) and set(groups["error"]) == set(range(20, 29))
    assert np.array_equal(groups["correct"], X._groups(correct, seed=3, min_group=8)["correct"])
    assert (
        X._groups(correct, seed=3, min_group=10)
        == "20 correct and 9 error episodes (each group needs 10)"
    )


TINY = X.IntegrationStudyConfig(
    seeds=(0, 1), kinds=("a0", "b2"), episodes=6, ridges=(1e-3,), n_surrogates=1, min_group=2
)


@pytest.mark.slow
def test_pipeline_on_a_tiny_budget_is_resumable(tmp_path):
    said = []
    summary = X.run(tmp_path, TINY, say=said.append)
    assert said[0] == "0 agents already measured, 4 to measure"
    study = X.read_study(tmp_path)
    assert study.problems == [] and summary["answer"] == study.summary["answer"]
    rows = study.rows
    assert set(rows["kind"]) == {"a0", "b2"} and set(rows["training"]) == {"trained", "untrained"}
    assert set(rows.loc[rows["kind"] == "b2", "signal"]) == {"h", "slots", "z_self"}
    assert set(rows.loc[rows["kind"] == "a0", "condition"]) == {"intact"}
    assert set(rows.loc[rows["kind"] == "b2", "condition"]) == {"intact", "bus_off"}
    # the open-loop carrier is untouched by the bus and by the workspace pulse
    b2 = rows[(rows["kind"] == "b2") & (rows["signal"] == "h") & (rows["group"] == "all")]
    evoked = b2[b2["variant"] == "evoked"]
    assert evoked["value"].isna().all() and evoked["reason"].str.contains("no activity").all()
    intact = (
        b2[b2["variant"] == "intact"]
        .set_index(["training", "seed", "measure", "condition"])["value"]
        .unstack()
    )
    assert np.allclose(intact["intact"], intact["bus_off"])
    # surrogate means beside the defined all-group values; none for the correct/error groups
    defined = rows[(rows["group"] == "all") & rows["value"].notna()]
    assert defined["surrogate_mean"].notna().all()
    assert rows.loc[rows["group"] != "all", "surrogate_mean"].isna().all()
    assert {t["test"] for t in summary["tests"]} == {"M1", "M2", "M3"}  # M4 needs all four kinds
    # a rerun measures nothing and gives the same summary; a new budget measures again
    again = X.run(tmp_path, TINY, say=said.append)
    assert said[-1] == "4 agents already measured, 0 to measure"
    assert again["tests"] == summary["tests"]
    before = len(said)
    X.run(tmp_path, replace(TINY, seeds=(0,), episodes=5), say=said.append)
    assert said[before] == "0 agents already measured, 2 to measure"


@pytest.mark.slow
def test_the_command_writes_the_table_figure(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        X.IntegrationStudyConfig, "quick", classmethod(lambda cls: replace(TINY, seeds=(0,)))
    )
    assert cli.main(["explore", "integration", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "answer:" in out and "figure.json" in out
    fig = json.loads((tmp_path / "figure.json").read_text())
    assert fig["data"][0]["type"] == "heatmap"


def test_reading_a_folder_without_a_study_lists_the_problems(tmp_path):
    study = X.read_study(tmp_path)
    assert len(study.problems) == 2 and study.summary == {} and study.rows is None
    (tmp_path / "summary.json").write_text(json.dumps({"study": "e3"}))
    assert "not an integration study summary" in X.read_study(tmp_path).problems[-1]
    assert not monotonicity_table(X.read_study(tmp_path).summary).data


def test_figures_show_outcomes_values_and_undefined_signals():
    rows = _designed()
    tests, _ = X.run_tests(rows, X.KINDS, 1e-3)
    summary = {"tests": tests, "monotonicities": X.MONOTONICITIES}
    table = monotonicity_table(summary)
    cells = [c for row in table.data[0].text for c in row]
    assert "passes" in cells and any("by construction" in c for c in cells)
    import pandas as pd

    values = study_values_figure(pd.DataFrame(rows), "h", "intact", ridge=1e-3)
    assert {t.name for t in values.data} == {
        "trained (mean ± SD over seeds)",
        "untrained (mean ± SD over seeds)",
    }
    readings = [
        IntegrationReading("h", "intact", m, 1.0, None, np.nan, 4, 128, 64)
        for m in ("phi", "o_information", "tse")
    ]
    readings.append(
        IntegrationReading("h", "evoked", "phi", np.nan, "no activity", np.nan, 4, 116, 64)
    )
    bars = integration_bars(readings)
    assert any("not defined: h (evoked)" in a.text for a in bars.layout.annotations)
    assert not integration_bars([]).data


def test_every_known_answer_is_met_and_a_wrong_one_is_not():
    answers = known_answers()
    assert len(answers) == 7 and all(k.ok for k in answers)
    assert {k.measure for k in answers} == {"phi", "o_information", "tse"}
    assert not replace(answers[1], expected=answers[1].expected + 0.1).ok


@pytest.mark.parametrize("field", ["tests", "answer"])
def test_a_summary_missing_its_tests_or_answer_is_not_shown(tmp_path, field):
    summary = X.summarise(_designed(), X.IntegrationStudyConfig(ridges=(1e-3,)), 0.0)
    summary.pop(field)
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert any("not an integration study summary" in p for p in X.read_study(tmp_path).problems)
