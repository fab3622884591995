"""Pages on a broken result set: no exception, one error naming the file, the rest still shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from labcore.io import sha256_of
from labcore.storage.results import DATA_FILES, MANIFEST
from tests.ui.apptest_pages import APP, ROOT
from ui import data

BUNDLED = ROOT / "results" / "bundled"


def truncate_summary(d: Path) -> None:
    text = (d / "summary.json").read_text()
    (d / "summary.json").write_text(text[: len(text) // 2])


def list_summary(d: Path) -> None:
    (d / "summary.json").write_text("[1, 2, 3]")


def bad_claims(d: Path) -> None:
    summary = json.loads((d / "summary.json").read_text())
    for claim in summary["claims"]:
        claim.pop("ours")
    summary["values"] = {k: "n/a" for k in summary["values"]}
    (d / "summary.json").write_text(json.dumps(summary))


def bad_csvs(d: Path) -> None:
    """Malformed files of the run itself (its summary lists no digests, as before manifests)."""
    summary = json.loads((d / "summary.json").read_text())
    summary.pop(MANIFEST, None)
    (d / "summary.json").write_text(json.dumps(summary))
    titration = pd.read_csv(d / "e3_titration.csv", dtype=str)
    titration.loc[0, "accuracy"] = "high"
    titration.to_csv(d / "e3_titration.csv", index=False)
    capacity = pd.read_csv(d / "e2_capacity.csv", dtype=str)
    capacity.loc[0, "conjunction"] = "inf"
    capacity.to_csv(d / "e2_capacity.csv", index=False)
    (d / "e1_trials.csv").unlink()
    text = (d / "figures.json").read_text()
    (d / "figures.json").write_text(text[:100])


def mixed(d: Path) -> None:
    """The summary lists its data files, then one is replaced by another run's (edited) file."""
    summary = json.loads((d / "summary.json").read_text())
    summary[MANIFEST] = {name: sha256_of(d / name) for name in DATA_FILES if (d / name).exists()}
    (d / "summary.json").write_text(json.dumps(summary))
    trials = pd.read_csv(d / "e1_trials.csv")
    trials["confidence"] = 0.5
    trials.to_csv(d / "e1_trials.csv", index=False)


CASES = [
    ("home", truncate_summary, "summary.json could not be read"),
    ("home", list_summary, "summary.json does not hold a JSON object"),
    ("replication", truncate_summary, "summary.json could not be read"),
    ("replication", bad_claims, "malformed claim(s)"),
    ("replication", bad_csvs, "e3_titration.csv column 'accuracy'"),
    ("replication", mixed, "e1_trials.csv was not written by the run that wrote summary.json"),
    ("scorecards", list_summary, "summary.json does not hold a JSON object"),
    ("scorecards", bad_claims, "'values' has"),
    ("robustness", bad_csvs, "e3_titration.csv column 'accuracy'"),
    ("robustness", truncate_summary, "summary.json could not be read"),
]


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
@pytest.mark.parametrize(("page", "corrupt", "problem"), CASES,
                         ids=[f"{page}-{corrupt.__name__}" for page, corrupt, _ in CASES])
def test_a_broken_result_set_is_an_error_not_an_exception(tmp_path, monkeypatch, page, corrupt, problem):
    copy = tmp_path / "results" / "bundled"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns("report.html"))
    corrupt(copy)
    monkeypatch.setattr(data, "ROOT", tmp_path)  # result_sets() (Replication's selector) looks here
    monkeypatch.setattr(data, "RESULTS_DIR", copy)  # the other pages' default set
    at = AppTest.from_file(APP, default_timeout=240)
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert problem in errors
    assert "python -m labcore reproduce" in errors and "git checkout results/bundled" in errors
    assert at.title  # the page itself is still there
