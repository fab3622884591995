"""The result-set contract: a set from an older schema is read, with a problem that says what to
do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from labcore.storage.results import SCHEMA_VERSION, load_results, schema_problem

BUNDLED = Path(__file__).resolve().parents[1] / "results" / "bundled"


def test_current_schema_has_no_problem():
    assert schema_problem({"schema_version": SCHEMA_VERSION}) is None


@pytest.mark.parametrize("version", [None, 1, SCHEMA_VERSION - 1])
def test_missing_or_older_schema_is_a_problem_not_a_crash(tmp_path, version):
    summary = {"experiments": ["e1"], "claims": [], "values": {}}
    if version is not None:
        summary["schema_version"] = version
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    res = load_results(tmp_path)
    assert res.summary["experiments"] == ["e1"]
    problem = next(p for p in res.problems if p.startswith("summary.json was written"))
    assert "re-run" in problem.lower() and "python -m labcore reproduce" in problem
    assert ("before result sets were versioned" in problem) == (version is None)


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
@pytest.mark.parametrize("name", ["bundled", "seeds20"])
def test_shipped_result_sets_are_current(name):
    directory = BUNDLED.parent / name
    res = load_results(directory)
    assert res.summary.get("schema_version") == SCHEMA_VERSION
    assert not [p for p in res.problems if "schema" in p]


def test_report_of_an_old_set_says_to_rerun(tmp_path):
    from labcore.report import build_report_html

    shutil.copy(BUNDLED / "summary.json", tmp_path / "summary.json")
    data = json.loads((tmp_path / "summary.json").read_text())
    data.pop("schema_version", None)
    (tmp_path / "summary.json").write_text(json.dumps(data))
    page = build_report_html(load_results(tmp_path))
    assert "Re-run `python -m labcore reproduce`" in page
