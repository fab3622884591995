"""The integration study (protocol sec. 9): its tests on values with known outcomes, the findings
and the answer made from them, the bundled study re-summarised from its rows, the pipeline on a
tiny budget (resumable) and the figures."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcore import cli, render
from labcore.experiments import integration as X
from labcore.experiments.study import load_study, resummarise, run_study, write_table
from labcore.figures.integration import (
    integration_bars,
    monotonicity_table,
    study_figure,
    study_values_figure,
)
from labcore.markers import known_answers
from labcore.measures_integration import IntegrationReading
from labcore.render import term

SEEDS = range(5)
BUNDLED = Path("results") / "explore_integration"


def _rows(values, *, measure="phi", signal="h", variant="intact", ridge=1e-3):
    """Rows of the study's table from ``values[(kind, training, condition, group)] = per-seed
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


CONFIG = X.IntegrationStudyConfig(ridges=(1e-3,))


def test_designed_values_give_the_registered_outcomes():
    tests, audit = X.run_tests(_designed(), X.KINDS, 1e-3)
    by = {(t.measure, t.test): t for t in tests if t.signal == "h" and t.variant == "intact"}
    assert by[("phi", "M4")].outcome == "passes" and not by[("phi", "M4")].by_construction
    assert by[("phi", "M2")].outcome == "passes" and by[("phi", "M3")].outcome == "passes"
    m2 = {d.agent: d for d in by[("phi", "M2")].per}
    assert m2["b1"].mean == pytest.approx(1.0) and m2["b1"].n == 5 and m2["b1"].low > 0
    # bus-off leaves h identical: the wiring
    m1 = by[("phi", "M1")]
    assert m1.outcome == "fails" and m1.by_construction
    assert [d.agent for d in m1.per] == ["b1", "b2"] and all(d.identical for d in m1.per)
    assert [d.agent for d in by[("phi", "M4")].per] == ["a1-a0", "b1-a1", "b2-b1"]
    # O-information: the untrained twins give the same numbers, so every test reading them is by
    # construction
    assert ("a0", "intact", "h", "intact", "o_information") in {e.key for e in audit}
    assert by[("o_information", "M2")].by_construction
    assert by[("o_information", "M2")].outcome == "fails"
    assert {(f.measure, f.test) for f in X.recovered(tests)} == {
        ("phi", "M2"),
        ("phi", "M3"),
        ("phi", "M4"),
    }
    assert not X.all_four(X.recovered(tests))


def test_reversed_ordering_and_too_few_seeds():
    rows = [dict(r, value=-r["value"]) for r in _designed() if r["measure"] == "phi"]
    by = {t.test: t for t in X.run_tests(rows, X.KINDS, 1e-3)[0]}
    assert by["M4"].outcome == "reversed" and by["M2"].outcome == "reversed"
    few = [
        r
        for r in _designed()
        if r["measure"] == "phi" and not (r["group"] == "error" and r["seed"] > 1)
    ]
    m3 = {t.test: t for t in X.run_tests(few, X.KINDS, 1e-3)[0]}["M3"]
    assert m3.outcome == "undefined" and all(d.n == 2 for d in m3.per)
    # the findings say so: reversed is "not supported" with its flag, undefined names the seeds
    summary = X.summarise(CONFIG, {X.ROWS.name: few})
    f = summary.finding(X.finding_id("M3", "phi", "h", "intact", "b1"))
    assert f.outcome == "undefined" and f.flag("undefined").params == {"n": 2, "needed": 3}
    reversed_ = X.summarise(CONFIG, {X.ROWS.name: rows}).finding(
        X.finding_id("M4", "phi", "h", "intact")
    )
    assert reversed_.outcome == "not supported" and reversed_.flag("inverted").rule == "reversed"


def test_the_findings_carry_values_intervals_outcomes_and_flags():
    summary = X.summarise(CONFIG, {X.ROWS.name: _designed()})
    m2 = summary.finding("integration.M2.phi.h.intact")
    assert (m2.value, m2.n, m2.outcome, m2.hypothesis, m2.measure) == (
        4,
        4,
        "supported",
        "M2",
        "phi_e",
    )
    b1 = summary.finding("integration.M2.phi.h.intact.b1")
    assert b1.value == pytest.approx(1.0) and b1.n == 5 and b1.interval.method == "paired_t"
    assert b1.interval.low > 0 and b1.evidence and b1.unit == "bits"
    step = summary.finding("integration.M4.phi.h.intact.b2-b1")
    assert step.interval.method == "welch" and step.value == pytest.approx(1.0, abs=0.2)
    m1 = summary.finding("integration.M1.phi.h.intact")
    assert m1.outcome == "not supported" and not m1.evidence
    assert m1.flag("by_construction").params == {"agents": "b1, b2"}
    assert summary.finding("integration.M1.phi.h.intact.b2").flag("by_construction").rule == (
        "identical"
    )
    assert summary.finding("integration.M2.o_information.h.intact.a0").flag(
        "by_construction"
    ).rule == ("identical")
    # twins equal within the equivalence margin, not bit for bit: the audit's rule
    near = [
        dict(r, value=r["value"] + 0.001)
        if r["measure"] == "o_information" and r["training"] == "untrained"
        else r
        for r in _designed()
    ]
    twin = X.summarise(CONFIG, {X.ROWS.name: near}).finding(
        "integration.M2.o_information.h.intact.a0"
    )
    assert twin.flag("by_construction").rule == "untrained" and not twin.evidence
    assert twin.flag("by_construction").params["untrained"] == pytest.approx(3.021)
    assert summary.value("integration.recovered") == 3
    assert summary.value("integration.recovered.phi") == 3
    assert summary.value("integration.recovered.o_information") == 0
    assert summary.answer.outcome == "some"
    assert summary.answer.params["recovered"] == [
        "integration.M2.phi.h.intact",
        "integration.M3.phi.h.intact",
        "integration.M4.phi.h.intact",
    ]
    assert set(summary.answer.findings) <= set(summary.by_id)
    tables = X.IntegrationTables.model_validate(summary.tables)
    assert len(tables.tests) == 7 and len(tables.recovered) == 3  # no bus-off for O-information


def test_the_answer_is_rendered_from_the_findings_within_its_word_limits():
    summary = X.summarise(CONFIG, {X.ROWS.name: _designed()})
    short, readme = render.answer(summary, "short"), render.answer(summary, "readme")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.words(readme) <= render.WORD_LIMITS["readme"]
    assert render.fmt(summary.value("integration.recovered.phi"), "count") in short
    for key in X.MEASURE_TERMS.values():
        assert render.term(key).name in short
    long = render.answer(summary, "long")  # every finding it names exists (StrictUndefined)
    b1 = summary.finding("integration.M2.phi.h.intact.b1")
    assert render.fmt(b1.value, "bits", sign=True) in long and render.interval_text(b1) in long
    # none recovered: the short form is filled all the same
    flat = [dict(r, value=1.0) for r in _designed()]
    none = X.summarise(CONFIG, {X.ROWS.name: flat})
    assert none.answer.outcome == "none" and none.value("integration.recovered") == 0
    assert render.words(render.answer(none, "short")) <= render.WORD_LIMITS["short"]
    render.answer(none, "long")


def test_correct_and_error_groups_are_equal_sized_and_seeded():
    correct = np.array([True] * 20 + [False] * 9)
    groups = X._groups(correct, seed=3, min_group=8)
    assert len(groups["correct"]) == len(groups["error"]) == 9
    assert set(groups["correct"]) <= set(range(20)) and set(groups["error"]) == set(range(20, 29))
    assert np.array_equal(groups["correct"], X._groups(correct, seed=3, min_group=8)["correct"])
    assert isinstance(X._groups(correct, seed=3, min_group=10), str)  # the row's reason


def test_the_bundled_study_resummarises_to_its_own_findings(tmp_path):
    for name in (X.ROWS.file, "summary.json"):
        shutil.copy(BUNDLED / name, tmp_path / name)
    before = load_study("integration", BUNDLED)
    assert before.problems == [] and before.summary is not None
    after = resummarise("integration", tmp_path)
    assert after.findings == before.summary.findings
    assert after.tables == before.summary.tables and after.answer == before.summary.answer
    assert (tmp_path / X.ROWS.file).read_bytes() == (BUNDLED / X.ROWS.file).read_bytes()
    assert study_figure(tmp_path).to_json() == (BUNDLED / "figure.json").read_text()
    # Phi_E on z_self, intact, M2: its untrained twin is not "the same" once a t test separates
    # them (protocol sec. 10.10)
    assert [r.model_dump() for r in before.tables.recovered] == [
        {"measure": "phi", "signal": "slots", "variant": "intact", "test": "M2"},
        {"measure": "phi", "signal": "z_self", "variant": "intact", "test": "M2"},
        {"measure": "phi", "signal": "z_self", "variant": "evoked", "test": "M2"},
        {"measure": "tse", "signal": "z_self", "variant": "intact", "test": "M1"},
    ]
    short = render.answer(before.summary, "short")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.words(render.answer(before.summary, "readme")) <= render.WORD_LIMITS["readme"]


TINY = X.IntegrationStudyConfig(
    seeds=(0, 1), kinds=("a0", "b2"), episodes=6, ridges=(1e-3,), n_surrogates=1, min_group=2
)


@pytest.mark.slow
def test_pipeline_on_a_tiny_budget_is_resumable(tmp_path, capsys):
    said = []
    summary = run_study("integration", tmp_path, TINY, progress=False, say=said.append)

    def counts(lines: list[str]) -> list[tuple[list[str], bool]]:
        """Each progress line's numbers, and whether it counts units kept from the files."""
        return [(re.findall(r"\d+", line), "kept" in line.split()) for line in lines]

    assert counts(said) == [(["4"], False)]  # four units run
    study = load_study("integration", tmp_path)
    assert study.problems == [] and study.summary.findings == summary.findings
    rows = study.frame(X.ROWS.name)
    assert set(rows["kind"]) == {"a0", "b2"} and set(rows["training"]) == {"trained", "untrained"}
    assert set(rows.loc[rows["kind"] == "b2", "signal"]) == {"h", "slots", "z_self"}
    assert set(rows.loc[rows["kind"] == "a0", "condition"]) == {"intact"}
    assert set(rows.loc[rows["kind"] == "b2", "condition"]) == {"intact", "bus_off"}
    # the open-loop carrier is untouched by the bus and by the workspace pulse
    b2 = rows[(rows["kind"] == "b2") & (rows["signal"] == "h") & (rows["group"] == "all")]
    evoked = b2[b2["variant"] == "evoked"]
    assert evoked["value"].isna().all() and evoked["reason"].str.contains("activity").all()
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
    assert {t.test for t in study.tables.tests} == {"M1", "M2", "M3"}  # M4 needs all four kinds
    render.answer(summary, "long")
    # a rerun keeps every unit from the files and gives the same findings
    again = run_study("integration", tmp_path, TINY, progress=False, say=said.append)
    assert counts(said[1:]) == [(["4"], True), (["0"], False)]  # four kept, none run
    assert again.findings == summary.findings
    # the command re-summarises the folder and writes the pass/fail table
    capsys.readouterr()
    assert cli.main(["study", "integration", "--resummarise", "--out", str(tmp_path)]) == 0
    assert render.answer(summary, "short") in capsys.readouterr().out
    fig = json.loads((tmp_path / "figure.json").read_text())
    assert fig["data"][0]["type"] == "heatmap"


def test_reading_a_folder_without_a_study_lists_the_problems(tmp_path):
    study = load_study("integration", tmp_path)
    assert study.summary is None and study.frame(X.ROWS.name) is None
    assert (study.problems[0].name, study.problems[0].kind) == ("summary.json", "missing")
    assert not monotonicity_table(study.tables).data
    assert not study_figure(tmp_path).data


def test_a_summary_whose_tables_lack_the_tests_is_not_shown(tmp_path):
    write_table(tmp_path / X.ROWS.file, X.ROWS, _designed())
    resummarise("integration", tmp_path, CONFIG)
    data = json.loads((tmp_path / "summary.json").read_text())
    data["tables"].pop("tests")
    (tmp_path / "summary.json").write_text(json.dumps(data))
    study = load_study("integration", tmp_path)
    assert study.summary is None and study.tables is None and study.problems


def test_figures_show_outcomes_values_and_undefined_signals():
    rows = _designed()
    summary = X.summarise(CONFIG, {X.ROWS.name: rows})
    table = monotonicity_table(X.IntegrationTables.model_validate(summary.tables))
    cells = [c for row in table.data[0].text for c in row]
    assert "passes" in cells and any(term("by_construction").name in c for c in cells)
    # short column heads (the full ones covered each other on a phone), named in the legend
    assert list(table.data[0].x) == list(X.MONOTONICITIES)
    assert [t.name.split(":")[0] for t in table.data[1:]] == list(X.MONOTONICITIES)
    values = study_values_figure(pd.DataFrame(rows), "h", "intact", ridge=1e-3)
    assert {t.name.split()[0] for t in values.data} == {"trained", "untrained"}
    readings = [
        IntegrationReading("h", "intact", m, 1.0, None, np.nan, 4, 128, 64)
        for m in ("phi", "o_information", "tse")
    ]
    readings.append(
        IntegrationReading("h", "evoked", "phi", np.nan, "no activity", np.nan, 4, 116, 64)
    )
    bars = integration_bars(readings)
    lines = [line.split() for a in bars.layout.annotations for line in a.text.split("<br>")]
    # the undefined signal named, by its name, on a line of its own (a phone)
    assert ["recurrent", "state", "(evoked)"] in lines
    assert not integration_bars([]).data


def test_every_known_answer_is_met_and_a_wrong_one_is_not():
    answers = known_answers()
    assert len(answers) == 7 and all(k.ok for k in answers)
    assert {k.measure for k in answers} == {"phi", "o_information", "tse"}
    assert not replace(answers[1], expected=answers[1].expected + 0.1).ok
