"""The E3 design study (docs/protocol.md sec. 7): its decision rules on hand-made medians, and
the whole pipeline (train, measure, summarise, load, draw) on a tiny budget."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcore import render
from labcore.experiments import e3_design as X
from labcore.experiments.paper_results import load_results
from labcore.experiments.study import STUDIES, LoadedStudy, load_study, resummarise, run_study
from labcore.figures.explore import design_figure, design_titration_figure, excluded_agents
from labcore.figures.style import label_of
from labcore.report import build_report_html


def _groups(
    values: dict[tuple[str, str], tuple[float, float, float]], schedule: str = "fast"
) -> dict:
    """Groups with only L75 medians: {(cell, protocol): (b1, b2, b2_ws)}."""
    out = {}
    for (cell, protocol), triple in values.items():
        for kind, v in zip(X.KINDS, triple, strict=True):
            out[(cell, schedule, protocol, kind)] = {"l75": v}
    return out


def test_distance_is_zero_exactly_for_the_papers_pattern():
    cell = X.REGISTERED.slug
    assert (
        X.distance_to_paper(_groups({(cell, "stored"): (0.04, 0.6, 0.7)}), cell, "fast", "stored")
        == 0.0
    )
    # B1 at 0.2 (2x too robust) and B2 at 0.25 (half the range): log 2 + log 2.
    d = X.distance_to_paper(_groups({(cell, "stored"): (0.2, 0.25, 0.5)}), cell, "fast", "stored")
    assert d == pytest.approx(2 * math.log(2))
    # A missing kind or a zero L75 (left-censored) cannot be placed.
    assert (
        X.distance_to_paper(_groups({(cell, "stored"): (0.0, 0.6, 0.6)}), cell, "fast", "stored")
        == math.inf
    )
    assert X.distance_to_paper({}, cell, "fast", "stored") == math.inf


def test_closest_cell_and_answer_follow_the_registered_rule():
    raw = X.Cell("raw", "closed", 10.0).slug
    groups = _groups(
        {
            (X.REGISTERED.slug, "stored"): (0.3, 0.3, 0.3),
            (X.REGISTERED.slug, "read"): (0.6, 0.6, 0.6),
            (raw, "read"): (0.05, 0.2, 0.9),
        }
    )
    assert X.closest_cell(groups) == (raw, "read", pytest.approx(math.log(0.5 / 0.2)))
    assert X.pattern_hits(groups) == []
    groups[(raw, "fast", "read", "b2")] = {"l75": 0.8}
    assert X.pattern_hits(groups) == [{"cell": raw, "schedule": "fast", "protocol": "read"}]


def test_factor_effects_average_log_ratios_over_the_other_factors():
    groups = {}
    for cell in X.CELLS:
        # L75 doubles from layernorm to raw and quadruples to offset, whatever the loop and gain.
        base = {"layernorm": 0.1, "raw": 0.2, "offset": 0.4}[cell.geometry]
        for protocol in X.PROTOCOLS:
            for kind in X.KINDS:
                groups[(cell.slug, "fast", protocol, kind)] = {
                    "l75": base * (3.0 if cell.loop == "closed" else 1.0)
                }
    effects = X.factor_effects(groups)
    assert effects["geometry"]["b1 stored layernorm -> raw"] == pytest.approx(math.log(2))
    assert effects["geometry"]["b2 read layernorm -> offset"] == pytest.approx(math.log(4))
    assert effects["loop"]["b2_ws stored open -> closed"] == pytest.approx(math.log(3))
    assert effects["gain"]["b1 read 1 -> 10"] == pytest.approx(0.0)


def test_the_schedule_effect_averages_log_ratios_over_cells_on_both_schedules():
    raw = X.Cell("raw", "closed", 10.0).slug
    fast = _groups(
        {
            (X.REGISTERED.slug, "stored"): (0.2, 0.3, 0.3),
            (raw, "stored"): (0.05, 0.05, 0.05),
            (X.Cell("offset", "open", 1.0).slug, "stored"): (0.4, 0.4, 0.4),
        }
    )  # fast only: left out
    paper = _groups(
        {(X.REGISTERED.slug, "stored"): (0.05, 0.6, 0.3), (raw, "stored"): (0.2, 0.0, 0.05)},
        "paper",
    )
    effect = X.schedule_effects(fast | paper)
    b1 = effect["b1 stored"]
    assert b1["cells"] == {
        X.REGISTERED.slug: pytest.approx(math.log(0.25)),
        raw: pytest.approx(math.log(4)),
    }
    assert b1["log_ratio"] == pytest.approx(0.0)  # x1/4 and x4 average to x1 in log
    assert effect["b2 stored"]["cells"] == {X.REGISTERED.slug: pytest.approx(math.log(2))}
    assert ("b1", "read") not in {tuple(key.split()) for key in effect}  # (kind, protocol)
    assert X.schedule_effects(fast) == {}
    assert X.schedule_effects(fast | paper, to="paper_weighted") == {}


def _row(seed, l75, agreement, schedule="paper", kind="b1"):
    return {
        "cell": X.REGISTERED.slug,
        "geometry": "layernorm",
        "loop": "open",
        "gain": 1.0,
        "schedule": schedule,
        "protocol": "stored",
        "kind": kind,
        "seed": seed,
        "accuracy": 1.0,
        "l75": l75,
        "l75_censored": "none",
        "ceiling": 0.3,
        "efficiency": 1.0,
        "jacobian": 1.0,
        "gbi_signed": 0.1,
        "gbi_abs": 0.1,
        "gbi_two_occupied": 0.0,
        "ignition": 0.5,
        "agreement": agreement,
    }


def test_agents_below_the_training_criterion_are_left_out_of_the_medians_and_counted():
    rows = [_row(0, 0.2, 1.0), _row(1, 0.0, 0.33), _row(2, 0.4, 0.96), _row(3, 0.0, 0.94)]
    g = X.group(rows)[(X.REGISTERED.slug, "paper", "stored", "b1")]
    assert (g["n"], g["n_excluded"], g["l75"]) == (2, 2, pytest.approx(0.3))  # seeds 0 and 2
    every = X.group([_row(0, 0.0, 0.3)])[(X.REGISTERED.slug, "paper", "stored", "b1")]
    assert every["n"] == 0 and every["n_excluded"] == 1 and math.isnan(every["l75"])
    # The summary counts them, flagged, and the cell's curves leave them out and say so.
    summary = X.summarise(X.E3StudyConfig(), {X.ROWS.name: rows})
    learned = summary.finding("e3_design.learned.paper")
    assert (learned.value, learned.n) == (2, 4) and learned.flag("excluded").params == {
        "n_excluded": 2
    }
    curves = pd.DataFrame(
        [
            {
                "cell": X.REGISTERED.slug,
                "schedule": "paper",
                "kind": "b1",
                "seed": r["seed"],
                "protocol": "stored",
                "sigma": sg,
                "accuracy": acc,
            }
            for r in rows
            for sg, acc in ((0.0, 1.0), (0.5, 0.2 if r["seed"] else 0.9))
        ]
    )
    study = LoadedStudy(
        Path("."),
        summary,
        X.E3Tables.model_validate(summary.tables),
        {X.ROWS.name: pd.DataFrame(rows), X.CURVES.name: curves},
        [],
    )
    assert {seed for *_, seed in excluded_agents(study)} == {1, 3}
    fig = design_titration_figure(study, X.REGISTERED.slug, "paper")
    note = fig.layout.title.subtitle.text.replace("<br>", " ")
    assert "seed 1" in note and "seed 3" in note and "seed 2" not in note
    mean = next(t for t in fig.data if t.name == label_of("b1"))
    assert list(mean.y) == pytest.approx([1.0, 0.55])  # seeds 0 (0.9) and 2 (0.2) only


def test_learning_curves_are_read_as_registered():
    assert X.curve_reading([0.2, 0.5, 0.96, 0.99]) == X.LEARNED
    assert X.curve_reading([0.2, 0.5, 0.94]) == X.NEVER
    assert X.curve_reading([0.2, 0.96, 0.5]) == X.LOST
    learning = [
        {"cell": "c", "schedule": "paper", "kind": "b1", "seed": s, "episode": e, "agreement": a,
         "trained_on": "here"}
        for s, curve in ((0, (0.3, 0.97, 0.99)), (1, (0.3, 0.96, 0.4)), (2, (0.2, 0.3, 0.4)))
        for e, a in zip((100, 200, 300), curve, strict=True)
    ]  # fmt: skip
    read = {r["seed"]: r for r in X.readings(learning)}
    assert [read[s]["reading"] for s in (0, 1, 2)] == [X.LEARNED, X.LOST, X.NEVER]
    assert (read[1]["best"], read[1]["best_episode"], read[1]["final"]) == (0.96, 200, 0.4)
    summary = X.summarise(
        X.E3StudyConfig(), {X.ROWS.name: [_row(0, 0.2, 1.0)], X.LEARNING.name: learning}
    )
    assert summary.value("e3_design.curves.never") == 1 and summary.value("e3_design.curves.lost")
    assert summary.finding("e3_design.curves.lost").n == 3


def test_the_answer_is_rendered_from_the_findings_within_its_word_limits():
    rows = [
        _row(seed, l75, 1.0, schedule="fast", kind=kind)
        for seed in range(3)
        for kind, l75 in (("b1", 0.3), ("b2", 0.28), ("b2_ws", 0.29))
    ]
    summary = X.summarise(X.E3StudyConfig(), {X.ROWS.name: rows})
    assert summary.answer.outcome == "no_pattern" and summary.value("e3_design.pattern") == 0
    short, readme = render.answer(summary, "short"), render.answer(summary, "readme")
    assert render.words(short) <= render.WORD_LIMITS["short"]
    assert render.words(readme) <= render.WORD_LIMITS["readme"]
    for fid in ("e3_design.ratio.b2.min", "e3_design.ratio.b2.max"):
        assert render.fmt(summary.value(fid), "ratio") in short
    assert render.fmt(summary.value("e3_design.ceiling.b1")) in readme
    render.answer(summary, "long")  # every finding it names exists (StrictUndefined)


def test_cell_slug_round_trips_and_configures_the_agent():
    for cell in X.CELLS:
        assert X.Cell.from_slug(cell.slug) == cell
        config = cell.config("b2")
        assert config.write_geometry == cell.geometry and config.closed_loop == (
            cell.loop == "closed"
        )
        assert (
            config.readout_gain == cell.gain
            and config.self_model
            and config.kind == f"b2.{cell.slug}"
        )
    weighted = X.REGISTERED.config("b1", "paper_weighted")
    assert weighted.kind == "b1.layernorm-open-g1.class20"


def test_the_bundled_study_resummarises_to_its_own_findings(tmp_path):
    bundled = Path("results") / STUDIES["e3_design"].folder
    for name in (X.ROWS.file, X.CURVES.file, X.LEARNING.file, "summary.json"):
        if (bundled / name).exists():
            shutil.copy(bundled / name, tmp_path / name)
    before = load_study("e3_design", bundled)
    assert before.problems == [] and before.summary is not None
    after = resummarise("e3_design", tmp_path)
    assert after.findings == before.summary.findings
    assert after.tables == before.summary.tables


@pytest.mark.slow
def test_pipeline_on_a_tiny_budget(tmp_path):
    root, tmp_path = tmp_path, tmp_path / STUDIES["e3_design"].folder
    study = X.E3StudyConfig.quick()
    summary = run_study("e3_design", tmp_path, study, progress=False, say=lambda _: None)
    loaded = load_study("e3_design", tmp_path)
    assert loaded.problems == []
    rows = loaded.frame(X.ROWS.name)
    n_fast = len(study.cells) * len(X.KINDS) * len(study.seeds) * len(X.PROTOCOLS)
    assert (rows["schedule"] == "fast").sum() == n_fast
    for schedule in ("paper", "paper_weighted"):
        assert (rows["schedule"] == schedule).sum() >= len(X.KINDS) * len(X.PROTOCOLS)
    assert set(rows["protocol"]) == set(X.PROTOCOLS) and set(rows["kind"]) == set(X.KINDS)
    # Ceilings are L75 values of an ideal observer: positive, and in the stored protocol (noise
    # growing with time since the write) never above the read protocol's.
    assert (rows["ceiling"] > 0).all()
    for key, one in rows.groupby(["cell", "schedule", "kind", "seed"]):
        by = one.set_index("protocol")
        assert by.loc["stored", "ceiling"] <= by.loc["read", "ceiling"] + 1e-9, key
    eff = rows["efficiency"].to_numpy(float)
    ok = np.isfinite(eff)
    assert np.allclose(eff[ok], (rows["l75"] / rows["ceiling"]).to_numpy(float)[ok])
    assert len(loaded.frame(X.CURVES.name)) == len(rows) * len(study.sigmas)
    # Every paper-schedule agent's learning curve is in the study, one row per evaluation.
    learning = loaded.frame(X.LEARNING.name)
    assert set(learning["schedule"]) == {"paper", "paper_weighted", "paper_weighted_slow"}
    # (2 paper cells + 1 weighted) x every kind, and the post hoc probe's kinds; 2 evaluations each
    assert len(learning) == (3 * len(X.KINDS) + len(study.probe_kinds)) * 2
    probe = rows[rows["schedule"] == "paper_weighted_slow"]
    assert set(probe["kind"]) == set(study.probe_kinds)
    assert len(summary.tables["readings"]) == 3 * len(X.KINDS) + len(study.probe_kinds)
    fig = design_titration_figure(loaded, X.REGISTERED.slug, "fast", "stored")
    left_out = {(k, sd) for c, sc, k, sd in excluded_agents(loaded) if c == X.REGISTERED.slug}
    drawn = [k for k in X.KINDS if any((k, sd) not in left_out for sd in study.seeds)]
    names = " ".join(t.name or "" for t in fig.data)
    assert all(label_of(kind) in names for kind in drawn)
    assert design_figure(tmp_path).layout.title.text
    # The report of a result set beside the study shows it and its medians.
    shutil.copytree(
        "results/bundled", root / "bundled", ignore=shutil.ignore_patterns("report.html")
    )
    page = build_report_html(load_results(root / "bundled"))
    assert "id='design-study'" in page and "href='#design-study'" in page
    registered_rows = (3 * len(X.KINDS) + len(study.probe_kinds)) * len(X.PROTOCOLS)
    assert page.count("<td>layernorm-open-g1</td>") == registered_rows
    # Run a kind's units in a cell again (both schedules): nothing trains, the same numbers come
    # out (same seeds).
    trained = sorted((tmp_path / "checkpoints").glob("*.safetensors"))
    again = run_study(
        "e3_design",
        tmp_path,
        study,
        rerun="* raw-closed-g10 b1",
        progress=False,
        say=lambda _: None,
    )
    assert again.tables["groups"] == summary.tables["groups"]
    assert sorted((tmp_path / "checkpoints").glob("*.safetensors")) == trained
    # The fast part's checkpoints are not bundled: its rows are kept from the files.
    shutil.rmtree(tmp_path / "checkpoints")
    more = run_study("e3_design", tmp_path, study, progress=False, say=lambda _: None)
    assert more.findings == summary.findings


def test_loading_a_folder_without_a_study_lists_the_problem(tmp_path):
    loaded = load_study("e3_design", tmp_path)
    problem = loaded.problems[0]
    assert loaded.summary is None and (problem.name, problem.kind) == ("summary.json", "missing")
    fig = design_figure(tmp_path)
    assert not fig.data and problem in fig.layout.annotations[0].text  # the figure says why
