"""Experiment pipelines on a tiny setting, the verdict rules, the study ``paper``'s output
contract (rows written, read back, re-summarised to the same findings), Dask."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from labcore.budgets import ReproduceConfig
from labcore.experiments import e1, e2, e3
from labcore.experiments.paper_results import E1_TRIALS
from labcore.experiments.paper_study import STUDY, PaperConfig, Unit
from labcore.experiments.study import resummarise, run_study, run_units
from labcore.findings import SCHEMA_VERSION, VERDICTS, PaperValue, load_summary
from labcore.paper import ClaimSpec, verdict
from labcore.paper_claims import (
    CLAIMS,
    CLAIMS_BY_ID,
    verdict_table_markdown,
)
from labcore.stats import summarize, summarize_l75

ROOT = Path(__file__).resolve().parents[2]
TINY = ReproduceConfig(
    seeds=(0,),
    e1_trials=40,
    e2_episodes=16,
    decoding_episodes=40,
    e3_episodes=10,
    sigmas=(0.0, 0.2, 0.5),
)
REQUIRED = """e1.accuracy.self_on e1.accuracy.self_off e1.auroc.self_on e1.auroc.self_off
e1.auroc.bus_off e1.auroc.blind_noise e1.auroc.blind_permute e1.zself.effective_dim
e2.conjunction.k4 e2.conjunction.k2
e2.conjunction.k0 e2.per_step.a0 e2.per_step.a1 e2.gbi.k4 e2.gbi.k2 e2.ignition.k4 e2.ignition.k0
e2.dnrs.scale_0 e2.dnrs.scale_1 e3.l75.b1 e3.l75.b2 e3.l75.b2_ws e3.pci_a.a0 e3.pci_a.a1
e3.pci_a.b1 e3.composite.r2_gbi""".split()


def test_reference_table_has_every_required_claim_once():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert set(REQUIRED) <= set(ids)


def test_verdict_doc_is_generated_from_the_table():
    doc = (ROOT / "docs" / "verdicts.md").read_text()
    assert verdict_table_markdown() in doc


SPEC = ClaimSpec(
    "x",
    "toy",
    PaperValue(value=0.5),
    tolerance=0.05,
    pattern="above 0.3",
    check=lambda v: v["x"] > 0.3,
)


@pytest.mark.parametrize(
    ("ours", "expected", "rule"),
    [
        ({"mean": 0.53, "sd": 0.1, "n": 5, "ci95": [0.505, 0.56]}, "reproduced", "tolerance"),
        # narrower than the tolerance and without 0.5: a resolved difference (protocol sec. 10.9)
        ({"mean": 0.53, "sd": 0.02, "n": 5, "ci95": [0.51, 0.55]}, "partly reproduced", "pattern"),
        ({"mean": 0.60, "sd": 0.2, "n": 5, "ci95": [0.40, 0.80]}, "reproduced", "ci"),
        ({"mean": 0.70, "sd": 0.01, "n": 5, "ci95": [0.69, 0.71]}, "partly reproduced", "pattern"),
        ({"mean": 0.10, "sd": 0.01, "n": 5, "ci95": [0.09, 0.11]}, "not reproduced", "mismatch"),
        ({"mean": None, "sd": None, "n": 0, "ci95": None}, "not comparable", "undefined"),
    ],
)
def test_verdict_rule_hand_cases(ours, expected, rule):
    x = {"x": ours["mean"] if ours["mean"] is not None else math.nan}
    assert verdict(SPEC, ours, x) == (expected, rule)


def test_censored_verdicts():
    spec = CLAIMS_BY_ID["e3.l75.b2"]  # paper: > 0.50
    censored = {"mean": None, "sd": None, "n": 5, "ci95": None, "censored": "right", "bound": 0.5}
    assert verdict(spec, censored, {"e3.l75.b2": 0.5, "e3.l75.b1": 0.04}) == ("reproduced", "bound")
    finite = {"mean": 0.3, "sd": 0.05, "n": 5, "ci95": [0.25, 0.35]}
    assert verdict(spec, finite, {"e3.l75.b2": 0.3, "e3.l75.b1": 0.04})[0] == "partly reproduced"
    assert verdict(spec, finite, {"e3.l75.b2": 0.3, "e3.l75.b1": 0.33})[0] == "not reproduced"
    # A censored ours never matches a finite paper value.
    assert (
        verdict(CLAIMS_BY_ID["e3.l75.b1"], censored, {"e3.l75.b1": 0.5, "e3.l75.b2": 0.5})[0]
        != "reproduced"
    )
    assert verdict(CLAIMS_BY_ID["e2.ignition.k4"], finite, {}) == ("not comparable", "stated")
    # matched, but the contrast's other arm (B1 fragile) fails
    assert verdict(spec, censored, {"e3.l75.b1": 0.5}) == ("partly reproduced", "contrast")


def test_summaries_over_seeds():
    s = summarize([0.1, 0.2, 0.3, float("nan")])
    assert s["n"] == 3 and s["mean"] == pytest.approx(0.2) and s["ci95"][0] <= 0.2 <= s["ci95"][1]
    assert summarize([]) == {"mean": None, "sd": None, "n": 0, "ci95": None}
    cens = [{"value": None, "censored": "right", "bound": 0.5}] * 3 + [
        {"value": 0.2, "censored": "none", "bound": None}
    ]
    out = summarize_l75(cens)
    assert out["censored"] == "right" and out["bound"] == 0.5 and out["n_right_censored"] == 3
    mixed = summarize_l75(cens[2:] + [{"value": 0.3, "censored": "none", "bound": None}] * 2)
    assert mixed["censored"] is None and mixed["mean"] == pytest.approx((0.2 + 0.3 + 0.3) / 3)
    assert mixed["n_right_censored"] == 1


@pytest.fixture(scope="module")
def agent_cache(tmp_path_factory):
    """Where the pipelines cache the agents they train: a temporary folder shared by this module's
    tests (they train the same tiny agents), never the working tree's runs/."""
    return tmp_path_factory.mktemp("agent-cache")


def test_e1_pipeline_dissociation(agent_cache):
    r = e1.run_seed(0, TINY, str(agent_cache))
    v = r.values
    # The no-rewire lesion leaves doing untouched (bit-identical actions) and flattens knowing.
    assert v["e1.accuracy.self_off"] == v["e1.accuracy.self_on"]
    assert v["e1.auroc.self_off"] == 0.5 and v["e1.confidence_sd.self_off"] == 0.0
    assert v["e1.auroc.self_on"] > 0.6
    assert 0 < v["e1.zself.effective_dim"] < 64
    assert {"e1.auroc.logits_max_softmax", "e1.auroc.logits_neg_entropy"} <= set(v)
    assert len(r.rows["e1_trials"]) == 5 * TINY.e1_trials


@pytest.mark.slow
def test_e2_pipeline_capacity_and_audit(agent_cache):
    r = e2.run_seed(0, TINY, str(agent_cache))
    v = r.values
    assert v["e2.conjunction.k4"] >= v["e2.conjunction.k2"]
    assert v["e2.ignition.k0"] == 0.0
    assert v["e2.audit.trunk_flips"] == 0.0  # strong lesion: the carrier carries no cue
    traces = r.figures["masking"]["traces"]
    assert set(traces) == {"4", "2", "0"} and all(x == 0.0 for x in traces["0"])
    assert {row["capacity"] for row in r.rows["e2_capacity"] if row["agent"] == "b1"} == {
        0,
        1,
        2,
        3,
        4,
    }


@pytest.mark.slow
def test_e3_pipeline_keys(agent_cache):
    r = e3.run_seed(0, TINY, str(agent_cache))
    for name in ("a0", "a1", "b1", "b2", "b2_ws", "hot_only", "bc_mlp"):
        assert f"e3.accuracy.{name}" in r.values and f"e3.pci_a.{name}" in r.values
        assert f"e3.l75.{name}" in r.l75 and f"e3.l75.{name}.read" in r.l75
    assert r.l75["e3.l75.a1"]["censored"] == "left"  # cue-blind: below 75% with no noise at all
    assert {row["noise"] for row in r.rows["e3_titration"] if row["agent"] == "hot_only"} == {
        "carrier"
    }
    assert len(r.figures["points"]) == 11


def _tiny(tmp_path: Path, experiments: tuple[str, ...] = ("e1",), **kw) -> PaperConfig:
    return PaperConfig(
        seeds=(0,), experiments=experiments, custom=TINY, audit_seeds=1, cache=str(tmp_path), **kw
    )


def test_the_paper_study_writes_the_output_contract(tmp_path, agent_cache):
    out = tmp_path / "set"
    summary = run_study(STUDY, out, _tiny(agent_cache), progress=False, say=lambda _: None)
    loaded = load_summary(out, STUDY.tables_model, study="paper")
    assert loaded.ok and loaded.summary == summary  # the writer's output is what the reader reads
    assert summary.schema_version == SCHEMA_VERSION and summary.seeds == [0]
    e1_claims = {c.id for c in CLAIMS if c.id.startswith("e1.")}
    assert {f.id for f in summary.findings} == e1_claims
    for f in summary.findings:
        assert f.verdict in VERDICTS and f.verdict_rule and f.study == "paper"
        assert f.paper is not None and f.n in (0, 1)
    assert set(summary.files) == {t.file for t in STUDY.tables} | {"figures.json"}
    assert (out / "e2_capacity.csv").read_text().count("\n") == 1  # E2 did not run: header only
    with open(out / "e1_trials.csv") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == E1_TRIALS.fields
        assert sum(1 for _ in reader) == 5 * TINY.e1_trials
    assert json.loads((out / "figures.json").read_text()) == {"e2": {}, "e3": {}}
    # The no-rewire lesion changes no choice, in the trained agent and its untrained twin.
    assert summary.finding("e1.accuracy.self_off").flag("by_construction").rule == "relative"
    again = resummarise(STUDY, out, _tiny(agent_cache))
    assert again.findings == summary.findings and again.tables == summary.tables
    with pytest.raises(ValueError, match="budgets"):  # the rows' budgets are not the config's
        resummarise(STUDY, out, PaperConfig(seeds=(0,), experiments=("e1",), audit_seeds=1))


def test_dask_backend_matches_local_on_a_real_local_cluster(agent_cache, tmp_path):
    distributed = pytest.importorskip("distributed")
    config = _tiny(agent_cache)
    units = [Unit("e1", 0), Unit("e1", 0, untrained=True)]
    local = run_units(STUDY, config, tmp_path / "a", units, progress=False, say=lambda _: None)
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert client.scheduler_info()["address"].startswith("tcp://127.0.0.1")
        remote = run_units(
            STUDY, config, tmp_path / "b", units, backend="dask", progress=False, say=lambda _: None
        )
    assert remote == local


def test_exploratory_gain_analysis_on_a_tiny_budget(tmp_path):
    from labcore.experiments import gain

    result = gain.run([0], updates=20)
    assert result["post_hoc"] is True
    bundled, fixed = result["rows"][:2]
    assert bundled["training"].split()[0] == "bundled" and fixed["updates"] == 20
    assert str(fixed["updates"]) in fixed["training"].split()  # its label says how many
    for row in result["rows"]:
        assert row["jacobian"] > 0 and len(row["curve"]) == len(gain.SIGMAS)
    assert gain.main(["--seeds", "0", "--updates", "10", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "exploratory_gain.json").exists()
