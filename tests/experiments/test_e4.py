"""Experiment 4: the pipeline on a tiny budget, its claims and hypothesis tests, the
intervals of protocol 8.5 against hand-computed and independent values, and the bundled answer."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from labcore import config
from labcore.budgets import ReproduceConfig
from labcore.config import KINDS_OF_EXPERIMENT, TrainConfig
from labcore.experiments import e4
from labcore.experiments.common import SeedResult
from labcore.experiments.e1 import conditions
from labcore.experiments.e4_hypotheses import (
    HYPOTHESES,
    OUTCOMES,
    answer_context,
    evaluate,
    ideal_observer,
)
from labcore.experiments.paper_results import E4_CURVES, E4_TRIALS
from labcore.experiments.paper_study import E4_STUDY as STUDY
from labcore.experiments.paper_study import E4Config, pipeline
from labcore.experiments.study import load_study, run_study
from labcore.figures.registry import EXPERIMENT_TITLES
from labcore.findings import Flag, Interval, StudySummary, evidence_split, load_summary
from labcore.measures import MetacognitionView
from labcore.paper import NEW, VERDICTS, verdict
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import WORD_LIMITS, flag_text, fmt, part, pct, words
from labcore.render import answer as render_answer
from labcore.stats import t_interval, welch_interval
from labcore.storage.checkpoints import (
    BUNDLED_DIR,
    checkpoint_file,
    checkpoint_name,
    save_checkpoint,
)
from labcore.training.behaviour_cloning import train_seeds

ROOT = Path(__file__).resolve().parents[2]
BUNDLED_E4 = ROOT / "results" / "e4"
TINY = ReproduceConfig(seeds=(0, 1), e1_trials=40)
E4_CLAIMS = [c for c in CLAIMS_BY_ID if c.startswith("e4.")]

CONDITIONS = tuple(conditions(0))
HYPOTHESIS_IDS = {h.id for h in HYPOTHESES}


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
        assert spec.paper.value is None and spec.hypothesis in HYPOTHESIS_IDS
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
            if not checkpoint_file(BUNDLED_DIR, checkpoint_name("wagering", kind, s)).exists()
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
        assert c.hypothesis in HYPOTHESIS_IDS and c.outcome in OUTCOMES
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


# --------------------------------------------------------------------------- E4's words (e4.j2)
def bundled_e4() -> StudySummary:
    return load_summary(BUNDLED_E4, study="e4").summary


def answer(summary: StudySummary, form: str = "long") -> str:
    """E4's answer as the report and the composed answer render it (protocol 8.8.6)."""
    return render_answer(summary, form, **answer_context())


def edited(summary: StudySummary, values: dict | None = None, **outcomes: str) -> StudySummary:
    """``summary`` with table values and hypotheses' outcomes moved."""
    tables = json.loads(json.dumps(summary.tables))
    tables["values"].update(values or {})
    for h in tables["hypotheses"]:
        h["outcome"] = outcomes.get(h["id"], h["outcome"])
    findings = [
        f.model_copy(update={"outcome": outcomes.get(f.hypothesis, f.outcome)})
        if f.id.startswith("e4.hypothesis.")
        else f
        for f in summary.findings
    ]
    return summary.model_copy(update={"tables": tables, "findings": findings})


@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
def test_the_answer_says_when_a_mean_opt_out_rate_describes_no_agent():
    summary = bundled_e4()
    arm = "reward_wager_risky"
    assert part(summary, "all_or_nothing", arm=arm) == ""  # 0 of 5 always: said only with one
    split = {
        f"e4.seeds_opting_out_{k}.{arm}": n
        for k, n in (("always", 2), ("never", 3), ("measured", 5))
    }
    said = part(edited(summary, split), "all_or_nothing", arm=arm)
    assert said and fmt(2, "count") in said and fmt(5, "count") in said
    assert said in answer(edited(summary, split))
    split[f"e4.seeds_opting_out_never.{arm}"] = 2  # one seed opts out on some trials
    assert part(edited(summary, split), "all_or_nothing", arm=arm) == ""


LEADS = {
    ("supported", "supported"): "**Yes, once the training artefacts are removed.**",
    ("supported", "not supported"): "**Partly.**",
    ("not supported", "supported"): "**Partly.**",
    ("not supported", "not supported"): (
        "**Not from reward alone, even without the training artefacts.**"
    ),
    ("undefined", "supported"): "**Not settled by this result set.**",
}
"""Protocol 8.8.6's registered leads (the sentence is the contract)."""


@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
@pytest.mark.parametrize(("r1", "r2"), list(LEADS))
def test_the_answer_leads_with_e4_again_as_registered(r1, r2):
    summary = edited(bundled_e4(), R1=r1, R2=r2)
    assert answer(summary).startswith(LEADS[(r1, r2)])
    for form, limit in WORD_LIMITS.items():
        assert words(answer(summary, form)) <= limit, (form, answer(summary, form))


@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
def test_the_answer_states_the_result_sets_numbers_as_the_renderer_formats_them():
    summary = bundled_e4()
    text = answer(summary)
    late = summary.by_id["e4.auroc.reward_late.self_on"]
    for f in (late, summary.by_id["e4.auroc.reward_wager.self_on"]):
        assert fmt(f.value, "auroc") in text and fmt(f.interval.low, "auroc") in text
    assert fmt(late.value, "auroc") in answer(summary, "short")
    for key in ("skip_low", "skip_high"):
        assert pct(summary.value(f"e4.{key}.reward_late_risky.self_on")) in text
    ideal = answer_context()["ideal"]
    assert pct(ideal["risky"]["opt_out"]) in text and pct(ideal["standard"]["accuracy"]) in text
    values = summary.tables["values"]
    lo, hi = (values[f"e4.wager_updates_{k}.reward_late"] for k in ("min", "max"))
    assert fmt(lo, "count") in text and (lo == hi or fmt(hi, "count") in text)

    for f in summary.findings:  # every AUROC failing the spread rule says so, in its flag's words
        if f.id.startswith("e4.auroc.") and f.id.endswith("self_on") and f.flag("not_meaningful"):
            assert flag_text(f.flag("not_meaningful")) in text, f.id
    two = summary.model_copy(update={"seeds": [0, 1]})
    commands = (text.rsplit("`", 2)[1], answer(two).rsplit("`", 2)[1])  # the one to reproduce it
    assert commands == (
        "python -m labcore study e4 --out results/e4",
        "python -m labcore study e4 --set seeds=0,1 --out results/e4",
    )


@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
def test_inverted_only_for_a_meaningful_auroc_whose_interval_lies_below_chance():
    from labcore.experiments.paper_study import inverted

    summary = bundled_e4()
    key = "e4.auroc.reward_wager.self_on"  # interval 0.21 to 0.41, not meaningful
    finding = summary.by_id[key]
    assert finding.flag("not_meaningful") is not None and not inverted(finding)
    assert finding.flag("inverted") is None and part(summary, "inverted", key=key) == ""
    meaningful = finding.model_copy(update={"flags": ()})
    assert inverted(meaningful)  # the same interval, meaningful: inverted
    assert not inverted(meaningful.model_copy(update={"interval": Interval(low=0.3, high=0.6)}))

    def flagged(s: StudySummary) -> StudySummary:
        marked = finding.model_copy(update={"flags": (Flag(kind="inverted"),)})
        return s.model_copy(update={"findings": [marked if f.id == key else f for f in s.findings]})

    assert part(flagged(summary), "inverted", key=key) == "yes"
    assert "**inverted**" in answer(flagged(summary))  # the word is the registered contract


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
    for entry in spreads.values():  # protocol 10.5: no bet that flips, not meaningful
        assert entry["bets_flipped"] is not None
        if entry["bets_flipped"][1] == 0:
            assert entry["meaningful"] is False
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
    assert EXPERIMENT_TITLES["e4"] in page and "new (no paper number)" in page


# --------------------------------------------------------------------------- the bundled set and
# the README
@pytest.mark.skipif(not (BUNDLED_E4 / "summary.json").exists(), reason="no bundled E4 result set")
def test_bundled_e4_set_is_valid_and_its_answer_renders():
    res = load_study("e4", BUNDLED_E4)
    assert res.problems == []
    assert res.summary.seeds == [0, 1, 2, 3, 4] and res.summary.config["quick"] is False
    assert res.summary.answer.params["primary"] == "R1"
    for form, limit in WORD_LIMITS.items():
        assert words(answer(res.summary, form)) <= limit


@pytest.mark.parametrize(
    ("folder", "experiment", "trials"),
    [
        ("e4", "e4", "e4_trials.csv"),
        ("bundled", "e1", "e1_trials.csv"),
        ("seeds20", "e1", "e1_trials.csv"),
    ],
)
def test_every_auroc_of_a_bundled_set_is_recomputed_from_its_trial_file_exactly(
    folder, experiment, trials
):
    # Confidences rounded to 6 decimals would give 0.727 for a summary's 0.737. The files keep
    # every float32 confidence in its shortest exact form; sklearn on the file gives the summary's.
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    root = Path(__file__).resolve().parents[2] / "results" / folder
    table = pd.read_csv(root / trials)
    values = pd.read_csv(root / "seed_values.csv", dtype={"value": str})
    by = ["arm", "seed", "condition"] if experiment == "e4" else ["seed", "condition"]
    compared = 0
    for keys, group in table.groupby(by):
        *arm, seed, condition = keys
        key = ".".join([experiment, "auroc", *arm, condition])
        row = values[(values.key == key) & (values.seed == seed)]
        group = group[group.confidence.notna()]
        if row.empty or group.correct.nunique() < 2:
            continue
        expected = float(row.value.iloc[0])
        assert roc_auc_score(group.correct, group.confidence) == pytest.approx(expected, abs=1e-12)
        compared += 1
    assert compared >= 25


def test_the_bet_rule_joins_the_spread_rule_and_a_meaningful_auroc_below_chance_is_inverted():
    from labcore.experiments import paper_study as PF
    from labcore.findings import Finding, Interval, load_summary
    from labcore.training.wager_reward import confidence_spread

    # Every confidence above 0.5: the evaluation bets on every trial, whatever the spread.
    always = confidence_spread([0.6, 0.9, 0.7, 0.95, 0.55] * 40)
    assert always["spread_bets"] >= 1 and always["bets_flipped"] == 0
    some = confidence_spread([0.4, 0.9, 0.7, 0.95, 0.55] * 40)
    assert some["bets_flipped"] == 40  # the trials at 0.4 opt out; the mean (0.7) bets
    # Bundled E4: the workspace-only control's confidence never opts out: not meaningful now.
    e4 = load_summary(Path(__file__).resolve().parents[2] / "results" / "e4").summary
    spread = e4.tables["auroc_spread"]["e4.auroc.reward_workspace.self_on"]
    assert spread["bets_flipped"] == [0.0, 0.0] and spread["meaningful"] is False
    assert e4.finding("e4.auroc.reward_workspace.self_on").flag("not_meaningful") is not None
    late = e4.tables["auroc_spread"]["e4.auroc.reward_late.self_on"]
    assert late["meaningful"] and late["auroc_resolved"] < late["auroc"]  # orderings above 0.9999
    # "Inverted": meaningful and the whole interval below 0.5; never for a not-meaningful one.
    below = Finding(id="x", question="?", value=0.2, interval=Interval(low=0.1, high=0.3))
    assert PF.inverted(below)
    assert not PF.inverted(
        below.model_copy(update={"flags": (e4.finding("e4.auroc.reward_workspace.self_on").flags)})
    )
