"""Pages on a checkpoint folder with a file that cannot be listed, or on a broken result set: no
exception, one error naming the file, the rest still shown. Each test runs on every page that reads
the broken file; the tests of one page on one checkpoint that fails to load are in that page's file
(``broken_checkpoints.py`` has what they share).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import torch
from safetensors.torch import save_file

from labcore.experiments.paper_results import PAPER_TABLES
from labcore.io import sha256_of
from labcore.storage.checkpoints import checkpoint_file
from tests.ui.apptest_pages import ROOT, metric
from tests.ui.pages.broken_checkpoints import (
    BROKEN,
    agent_options,
    assert_one_error_naming,
    chart_agents,
)
from ui import data

BUNDLED = ROOT / "results" / "bundled"
PAGES = ["workspace", "robustness", "rollouts", "metacognition", "agents"]


# ---------------------------------------------------------------------------- a checkpoint whose
# header cannot be read
def truncate_header(d: Path) -> None:
    path = checkpoint_file(d, BROKEN)
    path.write_bytes(path.read_bytes()[:100])


def foreign_file(d: Path) -> None:
    save_file({"w": torch.zeros(2)}, str(checkpoint_file(d, BROKEN)), metadata={"format": "x"})


CASES = [(page, corrupt) for corrupt in (truncate_header, foreign_file) for page in PAGES]


@pytest.mark.parametrize(("page", "corrupt"), CASES, ids=[f"{p}-{c.__name__}" for p, c in CASES])
def test_a_file_that_cannot_be_listed_loses_only_that_agent(open_page, lab, page, corrupt):
    corrupt(lab)
    at = open_page(page, {"agent": "b2", "seed": "0"} if page == "robustness" else None)
    assert_one_error_naming(at, f"{BROKEN}.safetensors")
    if page in ("workspace", "robustness", "rollouts"):
        assert "b1" in agent_options(at, page)  # its other seeds are still there
    if page == "workspace":
        assert at.selectbox(key="workspace.seed").value == 1
        assert metric(at, "Conjunction accuracy")  # the page's numbers are still drawn
    if page == "robustness":
        assert len(chart_agents(at, "pci")) == 5  # b1 has no listed seed 0; the rest do
    if page == "metacognition":
        assert metric(at, "Type-2 AUROC")
    if page == "agents":
        assert at.dataframe and at.number_input[0].value != 0  # seed 0's file exists: not offered


@pytest.mark.parametrize("page", PAGES)
def test_a_stray_file_is_one_error_and_every_agent_stays(open_page, lab, page):
    (lab / "notes.safetensors").write_bytes(b"not a checkpoint")
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error if "notes.safetensors" in e.value] != []
    assert len(at.error) == 1
    if page == "robustness":
        assert any("Verdict" in m.value for m in at.markdown)  # the bundled results still show
    if page == "agents":
        assert any("Architecture" in s.value for s in at.subheader)


# ---------------------------------------------------------------------------- a broken result set
def truncate_summary(d: Path) -> None:
    text = (d / "summary.json").read_text()
    (d / "summary.json").write_text(text[: len(text) // 2])


def list_summary(d: Path) -> None:
    (d / "summary.json").write_text("[1, 2, 3]")


def bad_claims(d: Path) -> None:
    summary = json.loads((d / "summary.json").read_text())
    for claim in summary["findings"]:
        claim.pop("question")
    (d / "summary.json").write_text(json.dumps(summary))


def bad_values(d: Path) -> None:
    summary = json.loads((d / "summary.json").read_text())
    summary["tables"]["values"] = {k: "n/a" for k in summary["tables"]["values"]}
    (d / "summary.json").write_text(json.dumps(summary))


def bad_csvs(d: Path) -> None:
    """Malformed files of the run itself (its summary lists no digests)."""
    summary = json.loads((d / "summary.json").read_text())
    summary["files"] = {}
    (d / "summary.json").write_text(json.dumps(summary))
    titration = pd.read_csv(d / "e3_titration.csv", dtype=str)
    titration.loc[0, "accuracy"] = "high"
    titration.to_csv(d / "e3_titration.csv", index=False)
    capacity = pd.read_csv(d / "e2_capacity.csv", dtype=str)
    capacity.loc[0, "conjunction"] = "inf"
    capacity.to_csv(d / "e2_capacity.csv", index=False)
    (d / "e1_trials.csv").unlink()


def mixed(d: Path) -> None:
    """The summary lists its data files, then one is replaced by another run's (edited) file."""
    summary = json.loads((d / "summary.json").read_text())
    files = [t.file for t in PAPER_TABLES]
    summary["files"] = {name: sha256_of(d / name) for name in files if (d / name).exists()}
    (d / "summary.json").write_text(json.dumps(summary))
    trials = pd.read_csv(d / "e1_trials.csv")
    trials["confidence"] = 0.5
    trials.to_csv(d / "e1_trials.csv", index=False)


RESULT_CASES = [
    ("home", truncate_summary, "summary.json could not be read"),
    ("home", list_summary, "summary.json does not hold a JSON object"),
    ("replication", truncate_summary, "summary.json could not be read"),
    ("replication", bad_claims, "summary.json: findings[0].question"),
    ("replication", bad_csvs, "e3_titration.csv line 2: column 'accuracy'"),
    ("replication", mixed, "e1_trials.csv was not written by the run that wrote summary.json"),
    ("scorecards", list_summary, "summary.json does not hold a JSON object"),
    ("scorecards", bad_values, "summary.json tables: values."),
    ("robustness", bad_csvs, "e3_titration.csv line 2: column 'accuracy'"),
    ("robustness", truncate_summary, "summary.json could not be read"),
]


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="no bundled results")
@pytest.mark.parametrize(
    ("page", "corrupt", "problem"),
    RESULT_CASES,
    ids=[f"{page}-{corrupt.__name__}" for page, corrupt, _ in RESULT_CASES],
)
def test_a_broken_result_set_is_an_error_not_an_exception(
    open_page, tmp_path, monkeypatch, page, corrupt, problem
):
    copy = tmp_path / "results" / "bundled"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns("report.html"))
    corrupt(copy)
    monkeypatch.setattr(data, "ROOT", tmp_path)  # result_sets() (Replication's selector) looks here
    monkeypatch.setattr(data, "RESULTS_DIR", copy)  # the other pages' default set
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert problem in errors
    assert "python -m labcore study paper" in errors and "git checkout results/bundled" in errors
    assert at.title  # the page itself is still there
