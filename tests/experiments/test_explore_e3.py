"""The E3 design study (docs/protocol.md sec. 7): its decision rules on hand-made medians, and
the whole pipeline (train, measure, summarise, load, draw) on a tiny budget."""

from __future__ import annotations

import html
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcore.experiments import explore_e3 as X
from labcore.figures.explore import (
    design_figure,
    design_titration_figure,
    excluded_agents,
    study_answer,
)
from labcore.figures.style import label_of
from labcore.report import build_report_html
from labcore.storage.results import load_results
from labcore.storage.studies import EXPLORE_DIR, ExploreStudy, load_explore


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
    result = X.answer(groups)
    assert not result["pattern_found"] and result["closest"]["fast"]["closest_cell"] == raw
    groups[(raw, "fast", "read", "b2")] = {"l75": 0.8}
    result = X.answer(groups)
    assert result["pattern_found"]
    assert result["cells_with_pattern"] == [{"cell": raw, "schedule": "fast", "protocol": "read"}]


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
    assert effects["geometry"]["b1 stored layernorm -> raw"]["log_ratio"] == pytest.approx(
        math.log(2)
    )
    assert effects["geometry"]["b2 read layernorm -> offset"]["log_ratio"] == pytest.approx(
        math.log(4)
    )
    assert effects["loop"]["b2_ws stored open -> closed"]["log_ratio"] == pytest.approx(math.log(3))
    assert effects["gain"]["b1 read 1 -> 10"]["log_ratio"] == pytest.approx(0.0)


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
    assert effect["b2 stored"]["cells"] == {
        X.REGISTERED.slug: pytest.approx(math.log(2))
    }  # L75 0: no ratio
    assert "b1 read" not in effect and X.schedule_effects(fast) == {}
    # The answer states it, per kind, with each cell's factor.
    study = ExploreStudy(
        Path("."), None, None, {"answer": {"pattern_found": False}, "schedule_effect": effect}, []
    )
    said = [s for s in study_answer(study) if "paper's schedule" in s]
    assert (
        len(said) == 1
        and "B1's by 1" in said[0]
        and f"{raw} x4" in said[0]
        and "B2's by 2" in said[0]
    )


def test_agents_below_the_training_criterion_are_left_out_of_the_medians_and_counted():
    def row(seed, l75, agreement):
        return {
            "cell": "c",
            "schedule": "paper",
            "protocol": "stored",
            "kind": "b1",
            "seed": seed,
            "l75": l75,
            "ceiling": 0.3,
            "efficiency": 1.0,
            "accuracy": 1.0,
            "jacobian": 1.0,
            "gbi_abs": 0.1,
            "gbi_signed": 0.1,
            "agreement": agreement,
        }

    rows = [row(0, 0.2, 1.0), row(1, 0.0, 0.33), row(2, 0.4, 0.96), row(3, 0.0, 0.94)]
    g = X.group(rows)[("c", "paper", "stored", "b1")]
    assert (g["n"], g["n_excluded"], g["l75"]) == (2, 2, pytest.approx(0.3))  # seeds 0 and 2
    every = X.group([row(0, 0.0, 0.3)])[("c", "paper", "stored", "b1")]
    assert every["n"] == 0 and every["n_excluded"] == 1 and math.isnan(every["l75"])
    # The answer names them, with their agreement, when the study states its threshold.
    groups = [
        {
            "cell": "c",
            "schedule": "paper",
            "protocol": "stored",
            "kind": "b1",
            "n": 2,
            "n_excluded": 2,
        }
    ]
    rows_frame = pd.DataFrame(rows)
    summary = {"answer": {"pattern_found": False}, "groups": groups, "exclude_below": 0.95}
    said = study_answer(ExploreStudy(Path("."), rows_frame, None, summary, []))
    assert any("B1 2 of 4 seeds" in s and "0.33 to 0.94" in s for s in said)
    # The cell's curves leave them out too, and say so.
    curves = pd.DataFrame(
        [
            {
                "cell": "c",
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
    fig = design_titration_figure(
        ExploreStudy(Path("."), rows_frame, curves, summary, []), "c", "paper"
    )
    note = fig.layout.title.subtitle.text.replace("<br>", " ")
    assert "seed 1" in note and "seed 3" in note and "seed 2" not in note
    mean = next(t for t in fig.data if t.name == label_of("b1"))
    assert list(mean.y) == pytest.approx([1.0, 0.55])  # seeds 0 (0.9) and 2 (0.2) only
    del summary["exclude_below"]  # a study that excluded no agent says nothing
    assert not any(
        "did not learn" in s
        for s in study_answer(ExploreStudy(Path("."), rows_frame, None, summary, []))
    )


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


@pytest.mark.slow
def test_pipeline_on_a_tiny_budget(tmp_path):
    root, tmp_path = tmp_path, tmp_path / EXPLORE_DIR
    study = X.E3StudyConfig.quick()
    summary = X.run(tmp_path, study, schedules=("fast", "paper"), workers=1, say=lambda _: None)
    loaded = load_explore(tmp_path)
    assert loaded.problems == []
    rows = loaded.rows
    n_fast = len(study.cells) * len(X.KINDS) * len(study.seeds) * len(X.PROTOCOLS)
    assert (rows["schedule"] == "fast").sum() == n_fast
    assert (rows["schedule"] == "paper").sum() >= len(X.KINDS) * len(X.PROTOCOLS)
    assert set(rows["protocol"]) == set(X.PROTOCOLS) and set(rows["kind"]) == set(X.KINDS)
    # Ceilings are L75 values of an ideal observer: positive, and in the stored protocol (noise
    # growing with time since the write) never above the read protocol's.
    assert (rows["ceiling"] > 0).all()
    for (cell, schedule, kind, seed), one in rows.groupby(["cell", "schedule", "kind", "seed"]):
        by = one.set_index("protocol")
        assert by.loc["stored", "ceiling"] <= by.loc["read", "ceiling"] + 1e-9, (
            cell,
            schedule,
            kind,
            seed,
        )
    eff = rows["efficiency"].to_numpy(float)
    assert np.allclose(
        eff[np.isfinite(eff)], (rows["l75"] / rows["ceiling"]).to_numpy(float)[np.isfinite(eff)]
    )
    curves = loaded.curves
    assert len(curves) == len(rows) * len(study.sigmas)
    assert set(summary["answer"]) == {"pattern_found", "cells_with_pattern", "closest"}
    closest = summary["answer"]["closest"]["fast"]
    groups = X.group(rows.to_dict("records"))
    distances = [
        X.distance_to_paper(groups, c.slug, "fast", p) for c in study.cells for p in X.PROTOCOLS
    ]
    if np.isfinite(distances).any():
        assert closest["closest_cell"] in {c.slug for c in study.cells}
        assert closest["distance"] == pytest.approx(min(distances))
    else:  # 20 updates may leave every agent below 75% without noise: no cell can be placed
        assert closest["closest_cell"] == "" and closest["distance"] is None
    fig = design_titration_figure(loaded, X.REGISTERED.slug, "fast", "stored")
    # 20 updates may leave an agent below the training criterion: it is left out, and said so
    left_out = {(k, sd) for c, sc, k, sd in excluded_agents(loaded) if c == X.REGISTERED.slug}
    drawn = [k for k in X.KINDS if any((k, sd) not in left_out for sd in study.seeds)]
    names = " ".join(t.name or "" for t in fig.data)
    assert all(label_of(kind) in names for kind in drawn)
    ceilings = [
        t for t in fig.data if t.mode == "markers+text" and "ceiling" in (t.text or [""])[0]
    ]
    assert len(ceilings) == len(drawn)
    if left_out:
        said = str(fig.layout.title.subtitle.text) + str([a.text for a in fig.layout.annotations])
        assert "training criterion" in said
    assert design_figure(tmp_path).layout.title.text
    # The report of a result set beside the study shows it, its answer and its medians.
    shutil.copytree(
        "results/bundled", root / "bundled", ignore=shutil.ignore_patterns("report.html")
    )
    page = build_report_html(load_results(root / "bundled"))
    assert "id='design-study'" in page and "href='#design-study'" in page
    for sentence in study_answer(loaded):
        assert html.escape(sentence, quote=True) in page
    assert (
        page.count("<td>layernorm-open-g1</td>") == len(X.KINDS) * len(X.PROTOCOLS) * 2
    )  # fast + paper
    # A second run trains nothing new and measures the same numbers (same seeds, same numbers).
    again = X.run(tmp_path, study, schedules=("fast", "paper"), workers=1, say=lambda _: None)
    assert again["groups"] == summary["groups"]


def test_loading_a_folder_without_a_study_lists_the_problem(tmp_path):
    loaded = load_explore(tmp_path)
    assert loaded.problems and "explore e3" in loaded.problems[-1]
    fig = design_figure(tmp_path)
    assert (
        not fig.data and "does not hold a complete design study" in fig.layout.annotations[0].text
    )


@pytest.mark.slow
def test_the_paper_schedule_adds_to_a_fast_part_measured_earlier(tmp_path):
    # Issue 26: the fast part's checkpoints are not bundled; `--schedules paper` reads its rows from
    # the study's files instead of retraining 180 agents, and writes both schedules.
    study = X.E3StudyConfig.quick()
    with pytest.raises(ValueError, match="no fast-schedule rows"):
        X.run(tmp_path, study, schedules=("paper",), say=lambda _: None)
    fast = X.run(tmp_path, study, schedules=("fast",), say=lambda _: None)
    fast_rows, fast_curves = X.read_schedule(tmp_path, "fast")
    shutil.rmtree(tmp_path / "checkpoints")  # as in the bundle: no fast checkpoints
    both = X.run(tmp_path, study, schedules=("paper",), say=lambda _: None)
    assert X.read_schedule(tmp_path, "fast") == (
        fast_rows,
        fast_curves,
    )  # read back, typed, unchanged
    trained = [p.stem for p in (tmp_path / "checkpoints").glob("*.safetensors")]
    assert trained and all(
        "-paper" in name for name in trained
    )  # nothing of the fast part was retrained
    rows, _ = X.read_schedule(tmp_path, "paper")
    assert {r["kind"] for r in rows} == set(X.KINDS) and rows
    assert {g["schedule"] for g in both["groups"]} == {"fast", "paper"}
    assert [g for g in both["groups"] if g["schedule"] == "fast"] == fast["groups"]
