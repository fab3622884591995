"""A result set written before summaries were findings (schema 3) is read, with a problem that
says what to do; the shipped sets are current."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest

from labcore.experiments.paper_results import load_results
from labcore.experiments.study import STUDIES
from labcore.figures.registry import FIGURE, STUDY_FIGURES
from labcore.findings import SCHEMA_VERSION

BUNDLED = Path(__file__).resolve().parents[1] / "results" / "bundled"


@pytest.mark.parametrize("version", [None, 1, SCHEMA_VERSION - 1])
def test_missing_or_older_schema_is_a_problem_not_a_crash(tmp_path, version):
    summary = {"experiments": ["e1"], "claims": [], "values": {}}
    if version is not None:
        summary["schema_version"] = version
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    res = load_results(tmp_path)
    assert res.summary is None and res.claims == []
    (problem,) = [p for p in res.problems if p.kind == "schema"]
    assert (problem.name, problem.field) == ("summary.json", str(version))
    assert "--list)" in problem.split()  # it says how to find the study that re-runs it


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
@pytest.mark.parametrize("name", ["bundled", "quick", "seeds20", "e4"])
def test_shipped_result_sets_are_current(name):
    res = load_results(BUNDLED.parent / name)
    assert res.problems == [] and res.summary.schema_version == SCHEMA_VERSION
    assert res.study == ("e4" if name == "e4" else "paper")


def test_report_of_an_old_set_says_to_rerun(tmp_path):
    from labcore.report import build_report_html

    shutil.copy(BUNDLED / "summary.json", tmp_path / "summary.json")
    data = json.loads((tmp_path / "summary.json").read_text())
    data.pop("schema_version", None)
    (tmp_path / "summary.json").write_text(json.dumps(data))
    res = load_results(tmp_path)
    (problem,) = [p for p in res.problems if p.kind == "schema"]
    assert html.escape(problem) in build_report_html(res)  # the report shows the problem


@pytest.mark.parametrize("name", sorted(STUDY_FIGURES))
def test_a_published_study_figure_is_what_its_folder_draws(name):
    # figure.json is published beside the study's files: it must be what the code draws from them
    folder = BUNDLED.parent / STUDIES[name].folder
    assert (folder / FIGURE).read_text(encoding="utf-8") == STUDY_FIGURES[name](folder).to_json()
