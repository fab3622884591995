"""Experiment 4 (issue 15): the pipeline on a tiny budget, its claims and hypothesis tests, the
intervals of protocol 8.5 against hand-computed and independent values, and the bundled answer."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from labcore import config
from labcore.budgets import ReproduceConfig
from labcore.config import KINDS_OF_EXPERIMENT, TrainConfig
from labcore.experiments import e4
from labcore.experiments.common import SeedResult
from labcore.experiments.e1 import CONDITIONS
from labcore.experiments.e4_hypotheses import (
    HYPOTHESES_BY_ID,
    OUTCOMES,
    evaluate,
    ideal_observer,
)
from labcore.experiments.e4_study import STUDY, E4Config
from labcore.experiments.e4_text import answer
from labcore.experiments.paper_study import pipeline
from labcore.experiments.paper_tables import E4_CURVES, E4_TRIALS
from labcore.experiments.study import load_study, run_study
from labcore.findings import evidence_split, load_summary
from labcore.measures import MetacognitionView
from labcore.paper import NEW, VERDICTS, verdict
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.stats import t_interval, welch_interval
from labcore.storage.checkpoint_format import checkpoint_name
from labcore.storage.checkpoint_manifest import BUNDLED_DIR
from labcore.storage.checkpoints import save_checkpoint
from labcore.training.behaviour_cloning import train_seeds

ROOT = Path(__file__).resolve().parents[2]
BUNDLED_E4 = ROOT / "results" / "e4"
TINY = ReproduceConfig(seeds=(0, 1), e1_trials=40)
E4_CLAIMS = [c for c in CLAIMS_BY_ID if c.startswith("e4.")]


# --------------------------------------------------------------------------- intervals (protocol
# 8.5)
T_975 = {2: 4.302653, 4: 2.776445, 8: 2.306004}
"""Student's t quantiles at 0.975 from a printed table (independent of scipy)."""


def test_t_interval_matches_a_hand_computation_and_the_printed_table():
    lo, hi = t_interval([1.0, 2.0, 3.0])
    assert (lo, hi) == pytest.approx(
        (2 - T_975[2] / math.sqrt(3), 2 + T_975[2] / math.sqrt(3)), abs=1e-5
    )
    x = np.array([0.20, 0.25, 0.30, 0.22, 0.28])
    half = T_975[4] * x.std(ddof=1) / math.sqrt(5)
    assert t_interval(x) == pytest.approx((x.mean() - half, x.mean() + half), abs=1e-6)
    assert t_interval([0.5, 0.5, float("nan")]) == (0.5, 0.5)  # constant: a point; nan dropped
    with pytest.warns(Warning):
        assert all(math.isnan(v) for v in t_interval([0.3]))  # one seed: no interval


def test_welch_interval_equals_the_pooled_interval_when_variances_and_sizes_match():
    a, b = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([3.0, 4.0, 5.0, 6.0, 7.0])
    se = math.sqrt(a.var(ddof=1) / 5 + b.var(ddof=1) / 5)  # equal variances, n = 5: Welch's df = 8
    assert welch_interval(a, b) == pytest.approx((-2 - T_975[8] * se, -2 + T_975[8] * se), abs=1e-5)
    assert welch_interval([0.0, 0.0], [0.1, 0.1]) == pytest.approx(
        (-0.1, -0.1)
    )  # both constant: the difference
    with pytest.warns(Warning):
        assert math.isnan(welch_interval([0.1], [0.2, 0.3])[0])


def test_t_interval_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    hits = [
        lo <= 0.7 <= hi for lo, hi in (t_interval(rng.normal(0.7, 0.1, 5)) for _ in range(4000))
    ]
    assert 0.94 <= np.mean(hits) <= 0.96


def test_the_ideal_observer_of_protocol_8_2_by_simulation():
    rng = np.random.default_rng(1)
    lam = rng.uniform(0, 1, 400_000)
    s = rng.integers(0, 2, lam.size)
    signal = np.zeros((lam.size, 2))
    signal[np.arange(lam.size), s] = lam
    seen = signal + rng.normal(0, 0.25, signal.shape)
    assert np.mean(seen.argmax(1) == s) == pytest.approx(
        ideal_observer(-1.0)["accuracy"], abs=0.003
    )
    risky = ideal_observer(-3.0)
    assert risky["break_even"] == 0.75 and ideal_observer(-1.0)["opt_out"] == 0.0
    assert np.mean(lam < risky["salience"]) == pytest.approx(risky["opt_out"], abs=0.003)


# --------------------------------------------------------------------------- the hypothesis rules
def seeds(values_by_key: dict[str, list[float]]) -> list[SeedResult]:
    n = len(next(iter(values_by_key.values())))
    return [
        SeedResult("e4", s, values={k: v[s] for k, v in values_by_key.items()}) for s in range(n)
    ]


def base_values(auroc_a: list[float]) -> dict[str, list[float]]:
    n = len(auroc_a)
    out = {
        f"e4.accuracy.{arm.name}.self_on": [0.85] * n for arm in e4.ARMS if arm.name != "reward_all"
    }  # (b): optional
    out.update(
        {
            "e4.auroc.reward_wager.self_on": auroc_a,
            "e4.auroc.supervised.self_on": [0.84] * n,
            "e4.auroc_gap.reward_wager": [a - 0.84 for a in auroc_a],
        }
    )
    return out


def outcome(results: list[SeedResult], hid: str) -> dict:
    return next(h for h in evaluate(results) if h["id"] == hid)


def test_h1_needs_the_lower_bound_above_chance():
    above = outcome(seeds(base_values([0.60, 0.62, 0.64, 0.66, 0.68])), "H1")
    assert above["outcome"] == "supported" and above["conditions"][0]["ci95"][0] > 0.5
    inverted = outcome(seeds(base_values([0.20, 0.25, 0.30, 0.22, 0.28])), "H1")
    assert inverted["outcome"] == "not supported" and inverted["conditions"][0]["ci95"][1] < 0.5
    straddles = outcome(seeds(base_values([0.40, 0.70, 0.45, 0.65, 0.50])), "H1")
    assert straddles["outcome"] == "not supported"  # the interval includes 0.5: not "above"
    assert (
        outcome(seeds(base_values([0.7])), "H1")["outcome"] == "undefined"
    )  # one seed: no interval
    assert (
        outcome(seeds(base_values([0.60, 0.62, 0.64, 0.66, 0.68])), "H2")["outcome"] == "supported"
    )


def test_h3_and_h6_use_independent_groups_and_h4_h5_their_registered_rules():
    v = base_values([0.25, 0.26, 0.24, 0.25, 0.27])
    v |= {
        "e4.skip.reward_wager.self_on": [0.0] * 5,
        "e4.skip.supervised.self_on": [0.03, 0.05, 0.04, 0.06, 0.04],
        "e4.ece.reward_wager.self_on": [0.13, 0.14, 0.12, 0.13, 0.14],
        "e4.ece.supervised.self_on": [0.04, 0.05, 0.03, 0.04, 0.05],
        "e4.skip_salience.reward_wager_risky": [0.0] * 5,
        "e4.accuracy_change.reward_wager": [0.0] * 5,
        "e4.auroc.reward_wager.self_off": [0.5] * 5,
        "e4.auroc.reward_logits.self_on": [0.26, 0.25, 0.27, 0.24, 0.26],
        "e4.auroc.reward_workspace.self_on": [0.10, 0.12, 0.11, 0.09, 0.13],
    }
    results = seeds(v)
    h3 = outcome(results, "H3")
    assert h3["outcome"] == "supported" and h3["conditions"][0]["interval"].startswith("Welch")
    assert outcome(results, "H4")["outcome"] == "not supported"  # no opt-outs at all: nothing rises
    h5 = outcome(results, "H5")
    assert h5["outcome"] == "supported" and h5["by_construction"]
    assert [c["tested"] for c in h5["conditions"]] == [
        True,
        True,
        False,
        False,
    ]  # arm (b) is not in the set
    assert outcome(results, "H6")["outcome"] == "supported"
    with_b = seeds(
        v
        | {
            "e4.accuracy.reward_all.self_on": [0.84] * 5,
            "e4.accuracy_change.reward_all": [0.0] * 5,
            "e4.auroc.reward_all.self_off": [0.5] * 5,
        }
    )
    assert [c["tested"] for c in outcome(with_b, "H5")["conditions"]] == [True] * 4
    assert outcome(with_b, "H5")["outcome"] == "supported"
    v["e4.accuracy_change.reward_wager"] = [0.0, 0.0, 0.01, 0.0, 0.0]  # one seed's choices moved
    assert outcome(seeds(v), "H5")["outcome"] == "not supported"
    del v["e4.accuracy.reward_logits.self_on"]
    assert outcome(seeds(v), "H6")["outcome"] == "not tested"  # a registered control is missing
    assert {h["outcome"] for h in evaluate(results)} <= set(OUTCOMES)


def test_e4_claims_are_new_and_name_a_registered_hypothesis():
    assert NEW in VERDICTS
    assert {
        "e4.auroc.reward_wager.self_on",
        "e4.auroc_gap.reward_wager",
        "e4.skip_salience.reward_wager_risky",
        "e4.auroc.reward_wager.self_off",
    } <= set(E4_CLAIMS)
    for claim_id in E4_CLAIMS:
        spec = CLAIMS_BY_ID[claim_id]
        assert spec.paper.value is None and spec.hypothesis in HYPOTHESES_BY_ID
        assert verdict(spec, {"mean": 0.3, "sd": 0.1, "n": 5, "ci95": [0.2, 0.4]}, {})[0] == NEW
    assert CLAIMS_BY_ID[
        "e4.auroc.reward_wager.self_off"
    ].by_construction  # zeroed z_self: 0.5 by wiring
    assert not CLAIMS_BY_ID["e4.auroc.reward_wager.self_on"].by_construction


def test_every_arm_is_provisioned():
    assert set(e4.KINDS) <= set(KINDS_OF_EXPERIMENT["e4"])
    assert e4.ARMS[0].name == e4.REFERENCE and e4.ARMS_BY_NAME["supervised"].kind == "b2_ws"
    assert pipeline("e4") is e4


def test_opt_outs_by_salience_tercile_by_hand():
    n = 5
    view = MetacognitionView(
        correct=np.ones(n, bool),
        confidence=np.array([0.4, 0.9, 0.3, 0.8, 0.2]),
        decided=np.ones(n, bool),
        stimulus=np.zeros(n, int),
        salience=np.array([0.1, 0.2, 0.5, 0.9, 0.95]),
        decision=np.zeros(n, int),
        wager=np.array([1, 1, 1, 1, 0], bool),
        bet=np.zeros(n, int),
        max_softmax=np.ones(n),
        accuracy=1.0,
        auroc=math.nan,
        meta_d=math.nan,
        m_ratio=math.nan,
        skip_fraction=math.nan,
        utility=math.nan,
        aurc=math.nan,
        calibration_error=math.nan,
        trace=None,
    )
    # low: trials 0, 1 (one at or below 0.5); mid: trial 2; high: trial 3 (trial 4 is not a wager
    # trial)
    assert e4.skip_by_salience(view) == {"skip_low": 0.5, "skip_mid": 1.0, "skip_high": 0.0}


# --------------------------------------------------------------------------- the pipeline, tiny
# budget
FIRST_KINDS = (
    "b2_ws",
    "reward_wager",
    "reward_wager_risky",
    "reward_workspace",
    "reward_logits",
    "reward_all",
)
"""The kinds of the first E4 (protocol 8.3): bundled."""
TINY_WAGER = TrainConfig(
    wager_updates=20, curve_every=5, eval_every=10, train_episodes=200, heldout_episodes=48
)
"""A tiny wager phase for the cells of "E4 again" that are not bundled yet (the fixture below)."""


def provide_tiny_again_agents(cache: Path, seeds: tuple[int, ...]) -> list[str]:
    """Checkpoints of the "E4 again" kinds that are not bundled, made fast for the pipeline test:
    each
    starts from the bundled ``b2_ws`` policy of its seed (``wager_start="warm"`` instead of the
    registered "converged", which would need hundreds of behaviour-cloning updates to pass the 95%
    criterion) and trains a 20-update wager phase with its cell's other settings."""
    made = []
    for kind in e4.KINDS:
        missing = [
            s
            for s in seeds
            if not (BUNDLED_DIR / f"{checkpoint_name('wagering', kind, s)}.safetensors").exists()
        ]
        if not missing:
            continue
        assert kind not in FIRST_KINDS, (
            f"E4's first agents must be bundled (checkpoints/README.md): {kind} {missing}"
        )
        with pytest.MonkeyPatch.context() as mp:
            mp.setitem(
                config.TRAINING_OF_KIND,
                kind,
                {**config.TRAINING_OF_KIND[kind], "wager_start": "warm"},
            )
            for trained in train_seeds("wagering", kind, missing, TINY_WAGER):
                save_checkpoint(trained.agent, trained.record, cache)
                made.append(f"{kind}-s{trained.record['seed']}")
    return made


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """``study e4`` on 2 seeds, 40 trials per condition, from the bundled agents (and tiny ones of
    the "E4 again" kinds not bundled yet, :func:`provide_tiny_again_agents`)."""
    out = tmp_path_factory.mktemp("e4")
    provide_tiny_again_agents(out / "cache", TINY.seeds)
    config = E4Config(seeds=TINY.seeds, custom=TINY, audit_seeds=1, cache=str(out / "cache"))
    run_study(STUDY, out, config, progress=False, say=lambda _: None)
    return out


def _summary(run: Path) -> dict:
    """The run's summary as written (JSON)."""
    return json.loads((run / "summary.json").read_text())


def test_pipeline_measures_every_arm_and_keeps_doing_under_the_lesion(tiny_run):
    res = load_study("e4", tiny_run)
    assert res.problems == [] and res.tables.experiments == ["e4"]
    values = res.tables.values
    for arm in e4.ARMS:
        for condition in CONDITIONS:
            assert f"e4.auroc.{arm.name}.{condition}" in values
        assert (
            values[f"e4.accuracy.{arm.name}.self_off"] == values[f"e4.accuracy.{arm.name}.self_on"]
        )
        assert (
            values[f"e4.auroc.{arm.name}.self_off"] == 0.5
        )  # a constant confidence, by construction
        assert values[f"e4.accuracy_change.{arm.name}"] == 0.0
    assert values["e4.auroc.supervised.self_on"] > 0.6
    gap = values["e4.auroc_gap.reward_wager"]
    assert gap == pytest.approx(
        values["e4.auroc.reward_wager.self_on"] - values["e4.auroc.supervised.self_on"]
    )
    with open(tiny_run / "e4_trials.csv") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames) == E4_TRIALS.fields
        assert sum(1 for _ in reader) == len(e4.ARMS) * len(CONDITIONS) * TINY.e1_trials * len(
            TINY.seeds
        )
    curves = res.frame("e4_curves")
    assert tuple(curves.columns) == E4_CURVES.fields
    assert curves.loc[curves["arm"] == "reward_wager", "heldout_auroc"].notna().any()
    assert (
        curves.loc[curves["arm"] == "supervised", "heldout_auroc"].isna().all()
    )  # labels: no wager log


def test_pipeline_claims_verdicts_and_construction_flags(tiny_run):
    summary = load_summary(tiny_run, study="e4").summary
    claims = {f.id: f for f in summary.findings if f.hypothesis and f.verdict}
    assert set(claims) == set(E4_CLAIMS)
    for c in claims.values():
        assert c.verdict == NEW and c.verdict_rule == "new" and c.paper is None
        assert c.hypothesis in HYPOTHESES_BY_ID and c.outcome in OUTCOMES
        assert c.interval is None or c.interval.method == "t"
        spread = summary.tables["auroc_spread"].get(c.id) or {}
        # protocol 8.8.4: an AUROC whose spread changes no bet carries the flag
        assert (c.flag("not_meaningful") is not None) == (spread.get("meaningful") is False)
    for built in ("e4.auroc.reward_wager.self_off", "e4.accuracy_change.reward_wager"):
        assert claims[built].flag("by_construction") is not None
    assert claims["e4.auroc.reward_wager.self_on"].flag("by_construction") is None
    split = evidence_split(claims.values())
    assert split["apart"][NEW] == sum(not c.evidence for c in claims.values()) >= 2
    assert sum(split["evidence"].values()) + sum(split["apart"].values()) == len(claims)
    hyps = {h["id"]: h for h in summary.tables["hypotheses"]}
    assert list(hyps) == ["H1", "H2", "H3", "H4", "H5", "H6", "R1", "R2", "R3", "R4"]
    assert hyps["H1"]["primary"] and hyps["R1"]["primary"]
    assert hyps["H5"]["by_construction"] and all(h["outcome"] in OUTCOMES for h in hyps.values())
    found = {f.id: f for f in summary.findings}
    for h in hyps.values():  # each hypothesis a finding with its outcome
        assert found[f"e4.hypothesis.{h['id']}"].outcome == h["outcome"]
    assert found["e4.hypothesis.H5"].flag("by_construction") is not None
    assert summary.answer.outcome == hyps["R1"]["outcome"]
    ci = claims["e4.auroc.reward_wager.self_on"].interval
    assert [ci.low, ci.high] == pytest.approx(
        list(t_interval(_seed_values(tiny_run, "e4.auroc.reward_wager.self_on")))
    )


def _seed_values(run: Path, key: str) -> list[float]:
    with open(run / "seed_values.csv") as fh:
        return [float(r["value"]) for r in csv.DictReader(fh) if r["key"] == key]


def test_opt_out_split_over_seeds_counts_all_or_nothing_agents():
    rates = {
        "reward_wager_risky": [1.0, 0.0, 0.0, 0.97, 0.02],
        "supervised": [0.03, 0.5, float("nan"), 0.0, 0.0],
    }
    results = [
        SeedResult("e4", s, values={f"e4.skip.{a}.self_on": r[s] for a, r in rates.items()})
        for s in range(5)
    ]
    split = e4.cross_seed(results)
    assert [
        split[f"e4.seeds_opting_out_{k}.reward_wager_risky"]
        for k in ("always", "never", "measured")
    ] == [2, 3, 5]
    assert [
        split[f"e4.seeds_opting_out_{k}.supervised"] for k in ("always", "never", "measured")
    ] == [0, 3, 4]
    assert not any(".reward_all" in k for k in split)  # no values, no counts


def test_the_answer_says_when_a_mean_opt_out_rate_describes_no_agent(tiny_run):
    summary = _summary(tiny_run)
    cross = summary["tables"]["cross_seed"]
    for arm in e4.ARMS:
        counts = [
            cross[f"e4.seeds_opting_out_{k}.{arm.name}"] for k in ("always", "never", "measured")
        ]
        assert counts[2] == len(TINY.seeds) and counts[0] + counts[1] <= counts[2]
    edited = json.loads(json.dumps(summary))
    split = {
        "e4.seeds_opting_out_always.reward_wager_risky": 1,
        "e4.seeds_opting_out_never.reward_wager_risky": 1,
        "e4.seeds_opting_out_measured.reward_wager_risky": 2,
    }
    edited["tables"]["values"].update(
        {
            "e4.skip.reward_wager_risky.self_on": 0.5,
            "e4.skip_low.reward_wager_risky.self_on": 0.5,
            "e4.skip_high.reward_wager_risky.self_on": 0.5,
            **split,
        }
    )
    assert "Per seed it is all or nothing: 1 of 2 agents opted out" in answer(edited)
    edited["tables"]["values"]["e4.seeds_opting_out_never.reward_wager_risky"] = (
        0  # the other seed opts out on some trials
    )
    assert "all or nothing" not in answer(edited)


AGAIN_ARMS = [a.name for a in e4.ARMS if a.kind not in FIRST_KINDS]


def first_cells_only(summary: dict) -> dict:
    """``summary`` as a set made before "E4 again": no new cells, no spreads, no R hypotheses."""
    old = json.loads(json.dumps(summary))
    tables = old["tables"]
    tables["values"] = {
        k: v
        for k, v in tables["values"].items()
        if not any(k.endswith(f".{a}") or f".{a}." in k for a in AGAIN_ARMS)
        and k.split(".")[1] not in ("confidence_distinct", "spread_bets", "auroc_meaningful")
    }
    tables["hypotheses"] = [h for h in tables["hypotheses"] if h["id"].startswith("H")]
    tables["auroc_spread"] = {}
    return old


def test_the_answer_quotes_the_result_set(tiny_run):
    summary = first_cells_only(_summary(tiny_run))
    text = answer(summary)
    v = summary["tables"]["values"]
    assert (
        f"{v['e4.auroc.reward_wager.self_on']:.2f}" in text
        and f"{v['e4.auroc.supervised.self_on']:.2f}" in text
    )
    n = len(summary["seeds"])
    assert f"study e4 --set seeds={','.join(map(str, range(n)))} --out results/e4" in text
    assert "2 P(correct) - 1" in text
    edited = json.loads(json.dumps(summary))
    edited["tables"]["values"]["e4.auroc.reward_wager.self_on"] = 0.912
    next(h for h in edited["tables"]["hypotheses"] if h["id"] == "H1")["outcome"] = "supported"
    assert "0.91" in answer(edited) and answer(edited).startswith("**Partly.**")
    assert answer({}).startswith("This result set holds no E4 answer yet")


def test_the_answer_leads_with_e4_again_as_registered(tiny_run):
    """Protocol 8.8.6: R1 and R2 decide the lead, cell (a')'s AUROC comes with its spread, the first
    cells
    follow under their label, and a not-meaningful AUROC is never called inverted."""
    summary = _summary(tiny_run)
    text = answer(summary)
    v = summary["tables"]["values"]
    assert f"Type-2 AUROC {v['e4.auroc.reward_late.self_on']:.2f}" in text
    assert (
        "With the first schedule (default init, wager loss from update 1, Adam, BC "
        "stopping rule, stopped after"
    ) in text
    lo, hi = (int(v[f"e4.train_updates_{k}.reward_wager"]) for k in ("min", "max"))
    assert f"stopped after {lo:,}-{hi:,} updates" in text or f"stopped after {lo:,} updates" in text
    assert (
        f"{int(v['e4.wager_updates_min.reward_late']):,} wager updates" in text
    )  # read from the records
    assert text.count("Reproduce:") == 1 and text.endswith("--set seeds=0,1 --out results/e4`.")

    def with_outcomes(r1: str, r2: str) -> str:
        edited = json.loads(json.dumps(summary))
        for h in edited["tables"]["hypotheses"]:
            h["outcome"] = {"R1": r1, "R2": r2}.get(h["id"], h["outcome"])
        return answer(edited)

    assert with_outcomes("supported", "supported").startswith(
        "**Yes, once the training artefacts are removed.**"
    )
    assert with_outcomes("supported", "not supported").startswith("**Partly.**")
    assert with_outcomes("not supported", "supported").startswith("**Partly.**")
    assert with_outcomes("not supported", "not supported").startswith(
        "**Not from reward alone, even without the training artefacts.**"
    )
    assert with_outcomes("undefined", "supported").startswith(
        "**Not settled by this result set** (R1 undefined)"
    )
    # every AUROC that fails the spread rule says so, and "inverted" needs a meaningful one
    spreads = summary["tables"]["auroc_spread"]
    flat = dict(spreads["e4.auroc.reward_wager.self_on"], meaningful=False, seeds_meaningful=0)
    edited = json.loads(json.dumps(summary))
    edited["tables"]["auroc_spread"]["e4.auroc.reward_wager.self_on"] = flat
    edited["tables"]["values"]["e4.auroc.reward_wager.self_on"] = 0.2
    claim = next(f for f in edited["findings"] if f["id"] == "e4.auroc.reward_wager.self_on")
    claim["interval"] = {"low": 0.1, "high": 0.3, "level": 0.95, "method": "t"}
    assert "not meaningful: a spread of" in answer(edited) and "inverted" not in answer(edited)
    edited["tables"]["auroc_spread"]["e4.auroc.reward_wager.self_on"] = dict(
        flat, meaningful=True, seeds_meaningful=2
    )
    assert "**inverted**" in answer(edited)
    edited["tables"]["auroc_spread"]["e4.auroc.reward_late.self_on"] = dict(flat, meaningful=False)
    next(h for h in edited["tables"]["hypotheses"] if h["id"] == "R1")["outcome"] = "not supported"
    assert "the payoff drove its confidence to where its variation changes no bet" in answer(edited)


def test_every_auroc_is_reported_beside_its_spread(tiny_run):
    """Protocol 8.8.4: summary.json holds every AUROC (arm x condition) with SD, distinct values,
    spread in
    bets and the flag; each AUROC claim carries the same entry; the learning curves carry the
    spread."""
    summary = _summary(tiny_run)
    spreads = summary["tables"]["auroc_spread"]
    for arm in e4.ARMS:
        for condition in CONDITIONS:
            entry = spreads[f"e4.auroc.{arm.name}.{condition}"]
            assert entry["seeds"] == len(TINY.seeds) and {
                "confidence_sd",
                "confidence_distinct",
                "spread_bets",
                "meaningful",
            } <= set(entry)
        assert (
            spreads[f"e4.auroc.{arm.name}.self_off"]["meaningful"] is False
        )  # a constant confidence
        assert spreads[f"e4.auroc.{arm.name}.self_off"]["spread_bets"] == [0.0, 0.0]
    assert spreads["e4.auroc.supervised.self_on"]["meaningful"] is True
    assert spreads["e4.auroc.reward_wager.self_on"]["meaningful"] is False  # SD about 2e-5
    for f in summary["findings"]:  # a not-meaningful AUROC's flag quotes its spread
        flag = next((x for x in f["flags"] if x["kind"] == "not_meaningful"), None)
        if flag:
            assert flag["params"]["bets_high"] == spreads[f["id"]]["spread_bets"][1]
    curves = load_study("e4", tiny_run).frame("e4_curves")
    late = curves[curves["arm"] == "reward_late"]
    assert late["heldout_spread_bets"].notna().all() and late["heldout_confidence_sd"].notna().all()
    updates = sorted(late.loc[late["seed"] == 0, "update"])
    steps = np.diff(updates)
    first = int(
        np.argmax(steps == 5)
    )  # the wager phase starts here (after behaviour cloning's eval_every points)
    assert (steps == 5).any() and (steps[first:] == 5).all(), updates[
        :30
    ]  # every 5 updates (curve_every)


def test_report_of_an_e4_set_has_its_section(tiny_run):
    from labcore.report import write_report

    page = write_report(tiny_run).read_text()
    assert "Experiment 4 (beyond the paper)" in page and "new (no paper number)" in page


# --------------------------------------------------------------------------- the bundled set and
# the README
@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
def test_bundled_e4_set_is_valid_and_the_readme_states_its_answer():
    res = load_study("e4", BUNDLED_E4)
    assert res.problems == []
    assert res.summary.seeds == [0, 1, 2, 3, 4] and res.summary.config["quick"] is False
    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    assert re.sub(r"\s+", " ", answer(res.summary)) in readme
