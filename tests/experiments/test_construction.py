"""The construction audit, the allocation closed form, paired claims, and the design study."""

from __future__ import annotations

import numpy as np
import pytest

from labcore.experiments.common import SeedResult
from labcore.experiments.construction import audit, equivalent
from labcore.experiments.e2 import allocation_closed_form, contrast_arms, ideal_on_episodes
from labcore.experiments.e2 import ideal_values as ideal_values_of
from labcore.findings import Finding, Flag, PaperValue, apart_by_kind, evidence_split
from labcore.paper import ClaimSpec, verdict
from labcore.paper_claims import CLAIMS_BY_ID


def _results(values_by_seed: list[dict[str, float]], experiment: str = "e2") -> list[SeedResult]:
    return [
        SeedResult(experiment, seed, dict(values)) for seed, values in enumerate(values_by_seed)
    ]


def test_audit_flags_values_an_untrained_agent_gives_too():
    trained = _results(
        [
            {"auroc_off": 0.5, "auroc_on": 0.90, "chance": 0.15},
            {"auroc_off": 0.5, "auroc_on": 0.86, "chance": 0.12},
        ]
    )
    untrained = _results([{"auroc_off": 0.5, "auroc_on": 0.52, "chance": 0.14}])
    found = audit(trained, untrained)
    assert set(found) == {
        "auroc_off",
        "chance",
    }  # learned AUROC is evidence; a constant and chance are not
    assert found["auroc_off"]["rule"] == "untrained" and found["auroc_off"]["reference"] == 0.5


def test_the_ceiling_rule_flags_what_an_ideal_agent_scores_on_the_same_episodes():
    # Protocol sec. 10.1: within the ideal agent's 95% range, or at 1.0 where it scores 1.0.
    trained = _results(
        [
            {"e2.conjunction.k2": 0.44, "e2.conjunction.k4": 1.0, "e2.decision.k4": 0.97},
            {"e2.conjunction.k2": 0.42, "e2.conjunction.k4": 1.0, "e2.decision.k4": 0.99},
        ]
    )
    ideals = {
        "e2.conjunction.k2": (9 / 21, 0.0005),  # range 0.385 to 0.472: 0.43 is in it
        "e2.conjunction.k4": (1.0, 0.0),
        "e2.decision.k4": (1.0, 0.0),  # 0.98 is not within 0.01 of 1.0
    }
    found = audit(trained, [], ideals)
    assert set(found) == {"e2.conjunction.k2", "e2.conjunction.k4"}
    assert found["e2.conjunction.k2"]["rule"] == "ceiling"
    low, high = found["e2.conjunction.k2"]["low"], found["e2.conjunction.k2"]["high"]
    assert low == pytest.approx(9 / 21 - 1.96 * 0.0005**0.5) and high < 0.48
    # Far above the ideal agent's range is not the design's: 0.60 at 2 slots would be evidence.
    assert audit(_results([{"e2.conjunction.k2": 0.6}]), [], ideals) == {}
    # A contrast of two values both fixed by the design is fixed too.
    trained = _results([{"e2.conjunction.k2": 0.43, "e2.conjunction.k4": 1.0}])
    both = audit(
        trained, [], ideals, {"e2.hedges_g.k4_vs_k2": ("e2.conjunction.k4", "e2.conjunction.k2")}
    )
    assert both["e2.hedges_g.k4_vs_k2"]["rule"] == "contrast"
    one = audit(
        _results([{"e2.conjunction.k2": 0.6, "e2.conjunction.k4": 1.0}]),
        [],
        ideals,
        {"e2.hedges_g.k4_vs_k2": ("e2.conjunction.k4", "e2.conjunction.k2")},
    )
    assert "e2.hedges_g.k4_vs_k2" not in one


def test_the_other_registered_rules():
    from labcore.experiments.construction import calibrated, nothing_to_predict, out_of_reach

    assert calibrated(0.856, 0.859) and not calibrated(0.80, 0.859)
    assert out_of_reach(0.5, 0.375) and not out_of_reach(0.5, 2.08)
    assert nothing_to_predict({"a": [0.0], "b": [0.0, 0.0], "c": [0.2]})
    assert not nothing_to_predict({"a": [0.0], "b": [0.1], "c": [0.2]})


def test_equivalence_needs_a_tight_interval_not_a_missing_difference():
    assert equivalent([0.1, 0.1, 0.1], [0.1])[0]  # constants
    assert not equivalent([1.0, 1.0], [0.0, 0.0])[0]
    assert equivalent([0.14, 0.15, 0.13], [0.15, 0.14])[0]  # chance-level accuracy both ways
    # the spread covers the difference, but the interval is wider than the margin: undecided, not
    # "same"
    assert not equivalent([0.0, 0.3], [0.2])[0]
    assert not equivalent([-9000.0, -3000.0, 200.0], [0.44, 0.45])[0]
    # the margin is relative for large values: 10.0 vs 10.5 is within 20%, and their spread does
    # not separate them
    same, mean_a, mean_b, se = equivalent([9.5, 10.5, 10.0], [10.2, 10.8, 10.5])
    assert same and mean_a == pytest.approx(10.0) and mean_b == pytest.approx(10.5) and se > 0.25
    # ... but two constants 0.5 apart are two values (protocol sec. 10.10)
    assert not equivalent([10.0, 10.0], [10.5, 10.5])[0]
    assert equivalent([10.0, 10.0], [10.5, 10.5], separated=False)[0]


def test_a_t_test_that_separates_the_twins_overrules_the_margin():
    # Protocol sec. 10.10, on the numbers that prompted it: PCI-A of A0, trained 0.452 +/- 0.02,
    # untrained 0.517 +/- 0.03 (5 seeds each): within 20% of the larger value, t about 3.9.
    trained = [0.43, 0.44, 0.45, 0.46, 0.48]
    untrained = [0.48, 0.50, 0.52, 0.53, 0.555]
    same, a, b, se = equivalent(trained, untrained)
    assert not same and (b - a) / se > 3
    assert equivalent(trained, untrained, separated=False)[0]  # the margin alone called it the same
    flagged = audit(_results([{"x": v} for v in trained]), _results([{"x": v} for v in untrained]))
    assert "x" not in flagged
    kept = audit(
        _results([{"x": v} for v in trained]),
        _results([{"x": v} for v in untrained]),
        separated=False,
    )
    assert kept["x"]["rule"] == "untrained"


def test_allocation_closed_form_matches_the_hand_computation():
    # Masks per episode are 0, 1 or 2 (uniform). With 2 slots the colour survives only without
    # masks: conjunction = 1/3 + (2/3)(1/7) = 9/21; decision = (conjunction-colour + object) / 2.
    forms = allocation_closed_form(episodes=6000)
    assert forms[2]["conjunction"] == pytest.approx(9 / 21, abs=0.015)
    assert forms[2]["decision"] == pytest.approx((1 / 3 + 2 / 21 + 1) / 2, abs=0.01)
    assert forms[4]["conjunction"] == 1.0 and forms[0]["conjunction"] == pytest.approx(1 / 49)
    assert forms[1]["decision"] < forms[2]["decision"] < forms[3]["decision"] < 1.0


def test_the_ideal_agent_on_given_episodes_is_exact_per_episode():
    seeds = np.arange(400) + 11
    full, none, two = (ideal_on_episodes(seeds, k) for k in (4, 0, 2))
    assert (full["conjunction"][0] == 1.0).all() and (full["conjunction"][1] == 0.0).all()
    assert none["decision"][0] == pytest.approx(np.full(400, 1 / 7))
    assert none["conjunction"][0] == pytest.approx(np.full(400, 1 / 49))
    # with 2 slots a conjunction is either certain (no mask before the first report) or a guess
    values = set(np.round(two["conjunction"][0], 9))
    assert values <= {1.0, round(1 / 7, 9)} and len(values) == 2
    p = two["conjunction"][0]
    assert two["conjunction"][1] == pytest.approx(p * (1 - p))
    # over seeds: a key per capacity and baseline, and B1's E3 accuracy at 1.0
    ideals = ideal_values_of(
        [0, 1],
        __import__("labcore.budgets", fromlist=["x"]).ReproduceConfig.for_budget((0, 1), True),
    )
    assert ideals["e3.accuracy.b1"] == (1.0, 0.0)
    assert ideals["e2.decision.a0"] == ideals["e2.decision.k0"]
    assert {"e2.conjunction.k4", "e2.conjunction.k2", "e2.per_step.k2"} <= set(ideals)
    assert set(contrast_arms()) >= {"e2.hedges_g.k4_vs_k2", "e2.welch_p.b1_vs_a0"}


def test_paired_claims_need_their_contrast():
    spec = CLAIMS_BY_ID["e3.l75.b2"]
    ours = {"mean": None, "sd": None, "n": 5, "ci95": None, "censored": "right", "bound": 0.5}
    fragile = {"e3.l75.b1": 0.04, "e3.l75.b2": 0.5}
    robust = {"e3.l75.b1": 0.6, "e3.l75.b2": 0.5}
    assert verdict(spec, ours, fragile) == ("reproduced", "bound")
    assert verdict(spec, ours, robust) == ("partly reproduced", "contrast")
    plain = ClaimSpec("x", "toy", PaperValue(value=0.5), tolerance=0.05)
    assert (
        verdict(plain, {"mean": 0.5, "sd": 0.0, "n": 3, "ci95": [0.5, 0.5]}, {})[0] == "reproduced"
    )


def test_counts_split_evidence_from_construction():
    built = (Flag(kind="by_construction", rule="untrained"),)
    claims = [
        Finding(id="a", question="?", verdict="reproduced", flags=built),
        Finding(id="b", question="?", verdict="reproduced"),
        Finding(id="c", question="?", verdict="not reproduced"),
    ]
    split = evidence_split(claims)
    assert split["evidence"]["reproduced"] == 1 and split["apart"]["reproduced"] == 1
    assert split["evidence"]["not reproduced"] == 1 and apart_by_kind(claims) == {
        "by_construction": 1
    }


def test_bundled_flags_follow_the_rules():
    # Every claim the rules flag on the bundled data carries the flag, and every claim flagged
    # in the reference table is found by a rule, or concerns a not-comparable value, or is one
    # the untrained twins cannot measure (e.g. an AUROC when an untrained agent is never right),
    # or one the rules cannot resolve but the twins do not contradict (within its tolerance).
    from labcore.experiments.paper_results import load_results

    res = load_results("results/bundled")
    audit = res.tables.construction_audit
    audit_found, twin = audit.flagged, audit.untrained_means
    assert audit_found, "the bundled result set has no construction audit"
    assert twin, "the bundled audit does not record what the untrained twins gave"
    claims = res.findings
    for claim_id, entry in audit_found.items():
        if claim_id in claims:
            built = claims[claim_id].flags
            flag = next(f for f in built if f.kind == "by_construction" and f.rule != "spec")
            rule = "reassigned" if entry.reassigned else entry.rule.replace(" ", "_")
            assert flag.rule == rule, claim_id
            if entry.ours is not None:  # a contrast has no value of its own
                assert flag.params["ours"] == pytest.approx(entry.ours), claim_id
    for claim_id, spec in CLAIMS_BY_ID.items():
        c = claims.get(claim_id)
        if spec.by_construction and c and c.verdict != "not comparable" and claim_id in twin:
            if claim_id not in audit_found:  # too noisy to confirm, but never contradicted
                assert abs(twin[claim_id] - c.value) <= spec.tolerance, claim_id
                continue
            assert claim_id in audit_found, (
                f"{claim_id} is declared by construction but no rule finds it"
            )


# ----------------------------------------------------------- relative rules
def _e1(checks_by_seed: list[dict[str, float]], experiment: str = "e1") -> list[SeedResult]:
    """Seeds whose values hold accuracies/AUROCs (0.8) and the relative rule's check records."""
    out = []
    for seed, checks in enumerate(checks_by_seed):
        values = {f"{experiment}.check.{k}": v for k, v in checks.items()}
        for k in checks:
            rest = k.split(".", 1)[1]
            values[f"{experiment}.accuracy.{rest}"] = values[f"{experiment}.auroc.{rest}"] = (
                0.8 + 0.01 * seed
            )
        out.append(SeedResult(experiment, seed, values))
    return out


def test_relative_rule_flags_a_lesion_the_wiring_routes_around():
    same = {"actions_equal.self_off": 1.0, "actions_equal.bus_off": 0.0}
    found = audit(_e1([same, same]), _e1([same]))
    assert found["e1.accuracy.self_off"]["rule"] == "relative"
    assert found["e1.accuracy.self_off"]["reassigned"] is False
    assert found.get("e1.accuracy.bus_off", {}).get("rule") != "relative"
    assert not any(".check." in k for k in found)  # the records themselves are not audited values


def test_relative_rule_needs_every_seed_and_the_untrained_twins():
    same, other = {"actions_equal.self_off": 1.0}, {"actions_equal.self_off": 0.0}

    def rule(trained, untrained):
        return audit(trained, untrained).get("e1.accuracy.self_off", {}).get("rule")

    assert rule(_e1([same, same]), _e1([same])) == "relative"
    assert rule(_e1([same, other]), _e1([same])) != "relative"  # one seed differs
    assert (
        rule(_e1([same, same]), _e1([other])) != "relative"
    )  # equal when trained only: learned, not wired
    assert rule(_e1([same]), []) != "relative"  # no twins: no claim about the wiring


def test_relative_rule_reads_e4_arms_and_reassigned_confidences():
    checks = {
        "actions_equal.a.self_off": 1.0,
        "actions_equal.b.self_off": 0.0,
        "confidence_reassigned.a.blind_permute": 1.0,
    }
    found = audit(_e1([checks], "e4"), _e1([checks], "e4"))
    assert found["e4.accuracy.a.self_off"]["rule"] == "relative"
    assert found.get("e4.accuracy.b.self_off", {}).get("rule") != "relative"
    assert found["e4.auroc.a.blind_permute"]["rule"] == "relative"
    assert found["e4.auroc.a.blind_permute"]["reassigned"] is True


def test_relative_checks_on_rollouts_of_the_bundled_e1_agent():
    # The records themselves: on the E1 agent (its policy never reads z_self) zeroing or shuffling
    # z_self changes no action, shuffling reassigns the confidences, and the bus-off lesion does
    # neither.
    from labcore.experiments.e1 import conditions, relative_checks
    from labcore.measures import metacognition
    from labcore.seeding import episode_seeds
    from labcore.storage.checkpoints import BUNDLED_DIR, checkpoint_file, load_checkpoint

    agent = load_checkpoint(checkpoint_file(BUNDLED_DIR, "wagering-b2_ws-s0")).agent
    views = {
        name: metacognition(agent, iv, episode_seeds(0, "eval", 40))
        for name, iv in conditions(0).items()
    }
    checks = relative_checks(views)
    assert (
        checks["check.actions_equal.self_off"] == 1.0
        and checks["check.actions_equal.blind_permute"] == 1.0
    )
    assert checks["check.actions_equal.bus_off"] == 0.0
    assert checks["check.confidence_reassigned.blind_permute"] == 1.0
    assert checks["check.confidence_reassigned.self_off"] == 0.0  # a constant is not a reassignment


def test_empty_bus_rule_needs_both_checks_on_every_seed():
    def seed(s, empty=1.0, cue_free=1.0):
        return SeedResult(
            "e2",
            s,
            {
                "e2.check.bus_empty.0": empty,
                "e2.check.trunk_cue_free.0": cue_free,
                "e2.dnrs.scale_0": 0.3,
                "e2.dnrs_secondary.scale_0": -0.2,
                "e2.check.bus_empty.1": 0.0,
                "e2.dnrs.scale_1": 0.5,
            },
        )

    found = audit([seed(0), seed(1)], [])
    assert {k for k, v in found.items() if v["rule"] == "empty bus"} == {
        "e2.dnrs.scale_0",
        "e2.dnrs_secondary.scale_0",
    }
    assert "empty bus" not in {
        v["rule"] for v in audit([seed(0), seed(1, cue_free=0.0)], []).values()
    }
    assert "empty bus" not in {v["rule"] for v in audit([seed(0), seed(1, empty=0.0)], []).values()}


@pytest.mark.parametrize("result_set", ["results/bundled", "results/seeds20"])
def test_bundled_relative_flags_follow_the_trial_records(result_set):
    # Enumerated from the rule, on the bundled records: every E1 condition whose choices equal the
    # intact ones on every trial of every seed is flagged (its twins' half is in the audit entry),
    # and
    # the decoding values at bus-off are flagged "empty bus".
    import pandas as pd

    from labcore.experiments.paper_results import load_results

    res = load_results(result_set)
    claims = res.findings
    flagged = {k: v.model_dump() for k, v in res.tables.construction_audit.flagged.items()}
    trials = pd.read_csv(f"{result_set}/e1_trials.csv")
    ref = trials[trials.condition == "self_on"].set_index(["seed", "trial"])[
        ["decision", "correct"]
    ]
    equal = [
        c
        for c, g in trials.groupby("condition")
        if c != "self_on" and g.set_index(["seed", "trial"])[["decision", "correct"]].equals(ref)
    ]
    assert "self_off" in equal  # the E1 policy never reads z_self
    for condition in equal:
        key = f"e1.accuracy.{condition}"
        assert flagged.get(key, {}).get("rule") == "relative", key
        if key in claims:
            assert not claims[key].evidence, key
    for key in ("e2.dnrs.scale_0", "e2.dnrs_secondary.scale_0"):
        assert flagged.get(key, {}).get("rule") == "empty bus", key
    assert (
        flagged["e1.auroc.blind_permute"]["rule"] == "relative"
    )  # z_self shuffled: confidences reassigned
    assert not claims["e1.auroc.blind_permute"].evidence
    assert claims["e1.accuracy.self_off"].flag("by_construction").rule == "relative"
    assert claims["e2.dnrs.scale_0"].flag("by_construction").rule == "empty_bus"


# ----------------------------------------------------------- added 2026-11-29 (protocol 10.7-10.13)
def _brute_force_ideal_auroc(trials: int, seed: int) -> float:
    """The wagering task's ideal observer written independently: the posterior of each side by
    numerical integration over the salience grid, its AUROC by scikit-learn."""
    from scipy import stats
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    side = rng.integers(0, 2, trials)
    salience = rng.uniform(0.0, 1.0, trials)
    x = rng.normal(0.0, 0.25, (trials, 2))
    x[np.arange(trials), side] += salience
    grid = np.linspace(0.0, 1.0, 401)

    def likelihood(cue: np.ndarray, other: np.ndarray) -> np.ndarray:
        over = np.concatenate(
            [
                stats.norm.pdf(c[:, None], loc=grid[None, :], scale=0.25).mean(axis=1)
                for c in np.array_split(cue, max(1, len(cue) // 10_000))
            ]
        )
        return over * stats.norm.pdf(other, scale=0.25)

    right, left = likelihood(x[:, 1], x[:, 0]), likelihood(x[:, 0], x[:, 1])
    p_right = right / (right + left)
    correct = (p_right > 0.5) == (side == 1)
    return float(roc_auc_score(correct, np.maximum(p_right, 1 - p_right)))


def test_the_e1_ideal_observer_matches_an_independent_computation():
    from labcore.experiments.e1 import ideal_wager

    ours = ideal_wager(600, replicates=1000)
    assert ours["auroc"] == pytest.approx(0.847, abs=0.003)
    assert ours["auroc"] == pytest.approx(_brute_force_ideal_auroc(100_000, seed=3), abs=0.005)
    assert ours["opt_out"] == 0.0 and ours["opt_out_var"] == 0.0  # +-1 payoff: it always bets
    assert 0.015 < ours["auroc_var"] ** 0.5 < 0.025  # one seed of 600 trials


def test_the_ceiling_rule_applies_to_e1_and_every_e3_accuracy():
    from labcore.budgets import ReproduceConfig
    from labcore.experiments.e1 import ideal_values as e1_ideals

    cfg = ReproduceConfig.for_budget((0, 1), True)
    ideals = {**ideal_values_of([0, 1], cfg), **e1_ideals([0, 1], cfg)}
    e3 = {k: v for k, v in ideals.items() if k.startswith("e3.accuracy.")}
    assert e3["e3.accuracy.bc_mlp"] == e3["e3.accuracy.hot_only"] == (1.0, 0.0)
    assert e3["e3.accuracy.a0"][0] == pytest.approx(1 / 7)  # cue-blind: a guess
    assert ideals["e1.skip.self_on"] == (0.0, 0.0)

    def flagged(values: dict) -> set:
        return {k for k, v in audit(_results([values, values], "e1"), [], ideals).items()}

    at_ideal = {"e1.auroc.self_on": 0.84, "e1.skip.self_on": 0.008, "e3.accuracy.bc_mlp": 1.0}
    assert flagged(at_ideal) == set(at_ideal)
    learned = {"e1.auroc.self_on": 0.93, "e1.skip.self_on": 0.03, "e3.accuracy.bc_mlp": 0.95}
    assert flagged(learned) == set()


def test_identical_arms_are_fixed_only_when_the_twins_are_identical_too():
    arms = {"e2.ignition.k4": ("e2.ignition.k2",), "e2.ignition.k2": ("e2.ignition.k4",)}
    same = {"e2.ignition.k4": 0.4996, "e2.ignition.k2": 0.4996}
    twin = {"e2.ignition.k4": 0.4998, "e2.ignition.k2": 0.4998}
    found = audit(_results([same, same]), _results([twin]), arms=arms, separated=True)
    assert {k: v["rule"] for k, v in found.items()} == dict.fromkeys(arms, "identical arms")
    assert found["e2.ignition.k4"]["arms"] == ("e2.ignition.k2",)
    learned_twin = {"e2.ignition.k4": 0.52, "e2.ignition.k2": 0.41}
    assert audit(_results([same, same]), _results([learned_twin]), arms=arms) == {}
    differ = {"e2.ignition.k4": 0.5, "e2.ignition.k2": 0.4}  # one seed tells them apart

    def rules(found: dict) -> set:
        return {v["rule"] for v in found.values()}

    assert "identical arms" not in rules(
        audit(_results([same, differ]), _results([twin]), arms=arms)
    )
    assert audit(_results([same, same]), [], arms=arms) == {}  # no twins: no claim on the wiring


def test_constancy_is_judged_to_float32_rounding_and_censoring_alike():
    from labcore.experiments.construction import (
        ROUNDING_ULPS,
        censored_alike,
        constant_within_rounding,
    )

    one_unit = float(np.spacing(np.float32(0.4909055)))
    assert constant_within_rounding([0.4909055] * 592 + [0.4909055 - one_unit] * 8)
    assert not constant_within_rounding([0.49, 0.49 + 3 * ROUNDING_ULPS * one_unit])
    saturated = 1.0 - np.arange(14) * float(np.spacing(np.float32(0.99999)))  # 14 units: values
    assert not constant_within_rounding(saturated)
    right = {"censored": "right", "bound": 0.5}
    assert censored_alike([right, right]) == 0.5
    assert censored_alike([right, {"censored": "right", "bound": 1.0}]) is None
    assert censored_alike([right, {"censored": None, "mean": 0.3, "bound": None}]) is None
