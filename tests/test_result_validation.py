"""Bad or half-written result sets: every fault is a problem sentence and an empty value, never
an exception, and a set is never read mixed (docs/reliability.md, "Result sets")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from labcore.budgets import ReproduceConfig
from labcore.experiments import runner
from labcore.experiments.common import SeedResult
from labcore.storage.results import CSV_FIELDS, MANIFEST, SUMMARY, load_results

BUNDLED = Path(__file__).resolve().parents[1] / "results" / "bundled"
needs_bundled = pytest.mark.skipif(not (BUNDLED / SUMMARY).exists(), reason="no bundled results")


@pytest.fixture
def result_set(tmp_path) -> Path:
    """A private copy of the bundled result set (without the large report), without its file
    manifest: the edits below then reach the validation, as in a set written before manifests
    (the manifest itself is tested on sets ``reproduce`` writes, further down)."""
    out = tmp_path / "set"
    shutil.copytree(BUNDLED, out, ignore=shutil.ignore_patterns("report.html"))
    data = json.loads((out / SUMMARY).read_text())
    data.pop(MANIFEST, None)
    (out / SUMMARY).write_text(json.dumps(data))
    return out


def edit_summary(directory: Path, change) -> None:
    data = json.loads((directory / SUMMARY).read_text())
    change(data)
    (directory / SUMMARY).write_text(json.dumps(data))


def problems_naming(res, name: str) -> list[str]:
    return [p for p in res.problems if p.startswith(name)]


@needs_bundled
def test_an_intact_copy_has_no_problem(result_set):
    res = load_results(result_set)
    assert res.problems == []
    assert res.claims and res.titration is not None and res.figures


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
    assert res.summary == {} and res.claims == {} and res.values == {}
    assert problems_naming(res, "summary.json")
    assert res.titration is not None  # the rest of the set is still read


@needs_bundled
def test_claims_missing_keys_are_left_out_with_a_problem(result_set):
    def change(data):
        data["claims"][0].pop("verdict")
        data["claims"][1]["ours"] = "0.8"
        data["claims"][2]["ours"]["n"] = "five"
        data["claims"].append("not a claim")

    n_before = len(json.loads((result_set / SUMMARY).read_text())["claims"])
    edit_summary(result_set, change)
    res = load_results(result_set)
    assert len(res.summary["claims"]) == n_before - 3
    assert all(
        {"id", "verdict", "ours", "paper", "reason", "description"} <= set(c)
        for c in res.summary["claims"]
    )
    assert any("4 malformed claim(s)" in p for p in res.problems)


@needs_bundled
def test_wrong_typed_top_level_fields_become_empty(result_set):
    def change(data):
        data["claims"] = {"id": "x"}
        data["values"] = [1, 2]
        data["seeds"] = "0-4"
        data["git_commit"] = 12345
        data["experiments"] = ["e1", "e9", 3]

    edit_summary(result_set, change)
    res = load_results(result_set)
    assert (
        res.summary["claims"] == [] and res.summary["values"] == {} and res.summary["seeds"] == []
    )
    assert "git_commit" not in res.summary
    assert res.summary["experiments"] == ["e1"]
    for field in ("claims", "values", "seeds", "git_commit"):
        assert any(f"field '{field}'" in p for p in res.problems), field
    assert any("'experiments' has 2 invalid item(s)" in p for p in res.problems)


@needs_bundled
def test_non_numeric_and_infinite_values_are_dropped(result_set):
    def change(data):
        data["values"]["e1.accuracy.self_on"] = "high"
        data["values"]["e1.auroc.self_on"] = float(
            "inf"
        )  # json writes Infinity, json reads it back

    edit_summary(result_set, change)
    res = load_results(result_set)
    assert "e1.accuracy.self_on" not in res.values and "e1.auroc.self_on" not in res.values
    assert any("'values' has 2 entries that are not finite numbers" in p for p in res.problems)


@needs_bundled
@pytest.mark.parametrize(
    ("stem", "column", "bad"),
    [
        ("e3_titration", "accuracy", "abc"),
        ("e3_titration", "sigma", "inf"),
        ("e2_capacity", "conjunction", "-inf"),
        ("e1_trials", "confidence", ""),
        ("seed_values", "seed", "zero"),
    ],
)
def test_text_or_infinite_cells_drop_the_frame(result_set, stem, column, bad):
    path = result_set / f"{stem}.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[3, column] = bad
    frame.to_csv(path, index=False)
    res = load_results(result_set)
    attribute = {
        "e1_trials": "trials",
        "e2_capacity": "capacity",
        "e3_titration": "titration",
        "seed_values": "seed_values",
    }[stem]
    assert getattr(res, attribute) is None
    assert any(p.startswith(f"{stem}.csv column '{column}'") for p in res.problems)


@needs_bundled
def test_a_missing_column_drops_the_frame(result_set):
    path = result_set / "e3_titration.csv"
    pd.read_csv(path).drop(columns=["agent"]).to_csv(path, index=False)
    res = load_results(result_set)
    assert res.titration is None and any(
        "e3_titration.csv lacks the column(s) 'agent'" in p for p in res.problems
    )


@needs_bundled
def test_removed_files_and_a_truncated_figures_file_are_problems(result_set):
    (result_set / "e1_trials.csv").unlink()
    (result_set / "seed_values.csv").unlink()
    text = (result_set / "figures.json").read_text()
    (result_set / "figures.json").write_text(text[: len(text) // 3])
    res = load_results(result_set)
    assert res.trials is None and res.seed_values is None and res.figures == {}
    assert (
        "e1_trials.csv is missing" in res.problems and "seed_values.csv is missing" in res.problems
    )
    assert problems_naming(res, "figures.json could not be read")


@needs_bundled
def test_a_misshapen_figures_or_gain_file_is_ignored(result_set):
    (result_set / "figures.json").write_text(json.dumps({"e2": [1, 2], "e3": {"points": 3}}))
    (result_set / "exploratory_gain.json").write_text(json.dumps({"rows": [{"seed": 0}]}))
    res = load_results(result_set)
    assert res.figures == {} and res.gain == {}
    assert problems_naming(res, "figures.json does not have") and problems_naming(
        res, "exploratory_gain.json rows"
    )


# ------------------------------------------------------------------ reproduce cannot leave a mix


def fake_seed(experiment: str, seed: int, level: float) -> SeedResult:
    """A seed result of ``experiment`` with every number at ``level`` (no agent runs)."""
    rows = {
        stem: [
            dict.fromkeys(fields, level)
            | {
                "seed": seed,
                "agent": "b1",
                "condition": "self_on",
                "noise_mode": "read",
                "noise": "workspace",
            }
        ]
        for stem, fields in CSV_FIELDS.items()
        if stem.startswith(experiment)
    }
    return SeedResult(experiment, seed, values={f"{experiment}.accuracy.self_on": level}, rows=rows)


@pytest.fixture
def fake_pipelines(monkeypatch):
    """reproduce without training or running agents: every number is ``level[0]``."""
    level = [0.25]
    monkeypatch.setattr(runner, "provision_agents", lambda *a, **k: [])
    monkeypatch.setattr(
        runner,
        "run_seeds",
        lambda run_seed, seeds, cfg, cache, **k: [
            fake_seed(run_seed.__module__.rsplit(".", 1)[-1], s, level[0]) for s in seeds
        ],
    )
    monkeypatch.setattr(runner.e3, "cross_seed", lambda results: {})
    monkeypatch.setattr(runner.e3, "composite_points", lambda results: [])
    monkeypatch.setattr(runner.e2, "cross_seed", lambda results: {})
    return level


CFG = ReproduceConfig(seeds=(0, 1))


def test_reproduce_writes_a_manifest_the_reader_accepts(tmp_path, fake_pipelines):
    summary = runner.reproduce(["e1", "e3"], CFG, tmp_path / "set", audit_seeds=0)
    assert set(summary[MANIFEST]) == {
        "e1_trials.csv",
        "e3_titration.csv",
        "seed_values.csv",
        "figures.json",
    }
    res = load_results(tmp_path / "set")
    assert res.problems == [] and res.trials is not None and res.titration is not None


def test_a_run_killed_before_summary_leaves_no_mixed_set(tmp_path, fake_pipelines, monkeypatch):
    out = tmp_path / "set"
    runner.reproduce(["e1"], CFG, out, audit_seeds=0)
    (out / "report.html").write_text("<p>old report</p>")
    fake_pipelines[0] = 0.75
    real_write = runner.write_result_json

    def killed_at_summary(path, payload, **kwargs):
        if Path(path).name == SUMMARY:
            raise KeyboardInterrupt("killed")
        real_write(path, payload, **kwargs)

    monkeypatch.setattr(runner, "write_result_json", killed_at_summary)
    with pytest.raises(KeyboardInterrupt):
        runner.reproduce(["e1"], CFG, out, audit_seeds=0)
    assert (
        not (out / SUMMARY).exists() and not (out / "report.html").exists()
    )  # no old summary beside new data
    res = load_results(out)
    assert res.summary == {} and "summary.json is missing" in res.problems


def test_a_run_killed_while_computing_leaves_the_old_set_intact(
    tmp_path, fake_pipelines, monkeypatch
):
    out = tmp_path / "set"
    runner.reproduce(["e1"], CFG, out, audit_seeds=0)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(runner, "build_claims", killed)
    with pytest.raises(KeyboardInterrupt):
        runner.reproduce(["e1"], CFG, out, audit_seeds=0)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert load_results(out).problems == []


def test_data_files_of_another_run_are_refused(tmp_path, fake_pipelines):
    old, new = tmp_path / "old", tmp_path / "new"
    runner.reproduce(["e1"], CFG, old, audit_seeds=0)
    fake_pipelines[0] = 0.75
    runner.reproduce(["e1", "e3"], CFG, new, audit_seeds=0)
    shutil.copy(
        new / "e1_trials.csv", old / "e1_trials.csv"
    )  # the mix a hand copy (or a killed run) makes
    shutil.copy(new / "e3_titration.csv", old / "e3_titration.csv")
    res = load_results(old)
    assert res.trials is None and res.titration is None and res.seed_values is not None
    assert problems_naming(res, "e1_trials.csv was not written by the run that wrote summary.json")
    assert problems_naming(res, "e3_titration.csv was not written by the run")


def test_a_smaller_run_removes_the_older_runs_files(tmp_path, fake_pipelines):
    out = tmp_path / "set"
    runner.reproduce(["e1", "e3"], CFG, out, audit_seeds=0)
    runner.reproduce(["e1"], CFG, out, audit_seeds=0)
    assert not (out / "e3_titration.csv").exists()
    res = load_results(out)
    assert res.problems == [] and res.titration is None
