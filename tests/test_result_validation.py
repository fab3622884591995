"""Bad or half-written result sets: every fault is a problem sentence and an empty value, never
an exception, and a set is never read mixed (docs/reliability.md, "Result sets"). The reader is the
one loader (labcore.experiments.paper_results.load_results over findings.load_summary and the
study's tables); the writer is the one runner (study paper)."""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import pandas as pd
import pytest

from labcore.experiments import e2, e3, paper_study
from labcore.experiments.common import SeedResult
from labcore.experiments.paper_results import TRIAL_TABLES, load_results
from labcore.experiments.paper_study import STUDY, PaperConfig
from labcore.experiments.study import run_study
from labcore.findings import SUMMARY

BUNDLED = Path(__file__).resolve().parents[1] / "results" / "bundled"
needs_bundled = pytest.mark.skipif(not (BUNDLED / SUMMARY).exists(), reason="no bundled results")


@pytest.fixture
def result_set(tmp_path) -> Path:
    """A private copy of the bundled result set (without the large report)."""
    out = tmp_path / "set"
    shutil.copytree(BUNDLED, out, ignore=shutil.ignore_patterns("report.html"))
    return out


def edit_summary(directory: Path, change) -> None:
    data = json.loads((directory / SUMMARY).read_text())
    change(data)
    (directory / SUMMARY).write_text(json.dumps(data))


def problems_of(res) -> set[tuple[str, str, str]]:
    """Each problem of a result set as (file, kind, field)."""
    return {(p.name, p.kind, p.field) for p in res.problems}


@needs_bundled
def test_an_intact_copy_has_no_problem(result_set):
    res = load_results(result_set)
    assert res.problems == []
    assert res.claims and res.titration is not None and res.figures["e3"]["points"]
    assert res.study == "paper" and res.experiments == ["e1", "e2", "e3"]


@needs_bundled
@pytest.mark.parametrize(
    "content",
    ["", "{", None, "[1, 2]", '"text"', "{}"],
    ids=["empty", "one-brace", "truncated", "list", "string", "empty-object"],
)
def test_an_unreadable_summary_is_a_problem_and_empty(result_set, content):
    if (
        content is None
    ):  # cut in the middle, as a killed writer without atomic rename would leave it
        text = (result_set / SUMMARY).read_text()
        content = text[: len(text) // 2]
    (result_set / SUMMARY).write_text(content)
    res = load_results(result_set)
    assert res.summary is None and res.claims == [] and res.values == {}
    assert {p.name for p in res.problems} == {"summary.json"}
    assert res.titration is not None  # the rest of the set is still read


@needs_bundled
def test_an_invalid_finding_or_table_is_one_sentence_naming_the_field(result_set):
    def change(data):
        data["findings"][0].pop("question")
        data["findings"][1]["value"] = "high"

    edit_summary(result_set, change)
    res = load_results(result_set)
    assert res.summary is None
    assert ("summary.json", "invalid", "findings[0].question") in problems_of(res)
    edit_summary(result_set, lambda d: d["findings"][0].setdefault("question", "?"))
    edit_summary(result_set, lambda d: d["findings"][1].update(value=0.5))
    edit_summary(result_set, lambda d: d["tables"]["values"].update({"x": "high"}))
    res = load_results(result_set)
    assert res.tables is None
    assert ("summary.json", "invalid", "tables.values.x") in problems_of(res)


@needs_bundled
@pytest.mark.parametrize(
    ("stem", "column", "bad"),
    [
        ("e3_titration", "accuracy", "abc"),
        ("e2_capacity", "conjunction", "high"),
        ("e1_trials", "correct", ""),
        ("seed_values", "seed", "zero"),
    ],
)
def test_text_cells_drop_the_frame(result_set, stem, column, bad):
    path = result_set / f"{stem}.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[3, column] = bad
    frame.to_csv(path, index=False)
    edit_summary(result_set, lambda d: d["files"].pop(f"{stem}.csv"))  # as if never listed
    res = load_results(result_set)
    assert res.frame(stem) is None
    kind = "empty_cell" if bad == "" else "not_a_number"
    (problem,) = [p for p in res.problems if p.name == f"{stem}.csv"]
    assert (problem.kind, problem.field) == (kind, column) and "5:" in problem.split()  # line 5


@needs_bundled
def test_a_missing_column_drops_the_frame(result_set):
    path = result_set / "e3_titration.csv"
    pd.read_csv(path).drop(columns=["agent"]).to_csv(path, index=False)
    edit_summary(result_set, lambda d: d["files"].pop("e3_titration.csv"))
    res = load_results(result_set)
    assert res.titration is None
    assert ("e3_titration.csv", "column", "agent") in problems_of(res)


@needs_bundled
def test_removed_or_edited_files_are_problems(result_set):
    (result_set / "e1_trials.csv").unlink()
    (result_set / "seed_values.csv").unlink()
    with open(result_set / "e2_traces.csv", "a") as fh:
        fh.write("0,masking,4,99,0.5\n")
    res = load_results(result_set)
    assert res.trials is None and res.seed_values is None
    assert ("e1_trials.csv", "missing", "") in problems_of(res)
    assert ("e2_traces.csv", "foreign", "") in problems_of(res)
    assert res.figures["e2"]["0"] == {}  # the foreign traces are not drawn


@needs_bundled
def test_a_misshapen_gain_file_is_a_problem(result_set):
    (result_set / "exploratory_gain.json").write_text(json.dumps({"rows": [{"seed": 0}]}))
    res = load_results(result_set)
    assert res.gain == {}
    assert any(
        (p.name, p.kind) == ("exploratory_gain.json", "invalid") and p.field.startswith("rows[0]")
        for p in res.problems
    )


def test_a_missing_folder_is_a_problem(tmp_path):
    (problem,) = load_results(tmp_path / "nope").problems
    assert (problem.name, problem.kind) == (str(tmp_path / "nope"), "missing")


# ------------------------------------------------------------------ the runner cannot leave a mix
def fake_seed(experiment: str, seed: int, level: float) -> SeedResult:
    """A seed result of ``experiment`` with every number at ``level`` (no agent runs)."""
    rows = {
        t.name: [
            dict.fromkeys(t.fields, level)
            | {"seed": seed, "agent": "b1", "condition": "self_on"}
            | {"noise_mode": "read", "noise": "workspace"}
        ]
        for t in TRIAL_TABLES[experiment]
    }
    return SeedResult(experiment, seed, values={f"{experiment}.accuracy.self_on": level}, rows=rows)


@pytest.fixture
def fake_pipelines(monkeypatch):
    """The study without training or running agents: every number is ``level[0]``."""
    level = [0.25]

    def pipeline(experiment):
        return types.SimpleNamespace(
            run_seed=lambda seed, cfg, cache: fake_seed(experiment, seed, level[0])
        )

    monkeypatch.setattr(paper_study, "pipeline", pipeline)
    monkeypatch.setattr(paper_study, "provision_agents", lambda *a, **k: [])
    monkeypatch.setattr(e3, "cross_seed", lambda results: {})
    monkeypatch.setattr(e2, "cross_seed", lambda results: {})
    return level


def run(out: Path, *experiments: str) -> None:
    config = PaperConfig(seeds=(0, 1), experiments=experiments, audit_seeds=0, budget="quick")
    config = PaperConfig(**{**config.__dict__, "custom": None})
    run_study(STUDY, out, config, progress=False, say=lambda _: None)


@pytest.fixture(autouse=True)
def _no_budget_check(monkeypatch):
    monkeypatch.setattr("labcore.experiments.paper_study.check_budgets", lambda rows, c: None)


def test_the_runner_writes_a_manifest_the_reader_accepts(tmp_path, fake_pipelines):
    run(tmp_path / "set", "e1", "e3")
    res = load_results(tmp_path / "set")
    assert res.problems == [] and res.trials is not None and res.titration is not None
    assert {"e1_trials.csv", "e3_titration.csv", "seed_values.csv", "figures.json"} <= set(
        res.summary.files
    )


def test_a_run_killed_before_summary_leaves_no_mixed_set(tmp_path, fake_pipelines, monkeypatch):
    out = tmp_path / "set"
    run(out, "e1")

    def killed(*a, **k):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr("labcore.experiments.study.write_summary", killed)
    with pytest.raises(KeyboardInterrupt):
        run(out, "e1", "e3")
    assert not (out / SUMMARY).exists()  # no old summary beside new data
    res = load_results(out)
    assert res.summary is None and ("summary.json", "missing", "") in problems_of(res)


def test_data_files_of_another_run_are_refused(tmp_path, fake_pipelines):
    old, new = tmp_path / "old", tmp_path / "new"
    run(old, "e1")
    fake_pipelines[0] = 0.75
    run(new, "e1", "e3")
    shutil.copy(new / "e1_trials.csv", old / "e1_trials.csv")  # the mix a hand copy makes
    shutil.copy(new / "e3_titration.csv", old / "e3_titration.csv")
    res = load_results(old)
    assert res.trials is None and res.seed_values is not None
    assert ("e1_trials.csv", "foreign", "") in problems_of(res)


def test_a_smaller_run_removes_the_older_runs_files(tmp_path, fake_pipelines):
    out = tmp_path / "set"
    run(out, "e1", "e3")
    run(out, "e1")
    # Every table of the study is written; one no unit of this run wrote holds its header only.
    assert len((out / "e3_titration.csv").read_text().splitlines()) == 1
    res = load_results(out)
    assert res.problems == [] and len(res.titration) == 0 and len(res.trials) > 0
