"""The study "dissociations" (protocol sec. 11): its ideal observers against closed forms, its
measures against independent implementations, its verdict rules on rows made to hit each branch,
and the bundled result set recomputed from its own files."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from labcore.experiments import dissociations as D
from labcore.experiments.e2 import ideal_on_episodes
from labcore.markers import meta_d_prime
from labcore.measures import best_held, held_by_gate, post_decision_values, rule_held
from labcore.seeding import episode_seeds

SD = 0.25
V = 2 * SD**2  # the variance of one flash's evidence x[1] - x[0]


def auroc_by_grid(correct_pdf, wrong_pdf, grid):
    """P(score on a correct trial > score on an error) by quadrature on ``grid``."""
    dx = grid[1] - grid[0]
    fc, fw = correct_pdf(grid), wrong_pdf(grid)
    fc, fw = fc / (fc.sum() * dx), fw / (fw.sum() * dx)
    below = np.cumsum(fw) * dx - fw * dx / 2  # P(wrong score < x)
    return float((fc * below).sum() * dx)


@pytest.mark.parametrize("lam", [0.125, 0.25, 0.375])
def test_ideal_observer_matches_the_closed_forms(lam):
    out = D.ideal_observer(lam, 200_000, seed=1)
    mu, sd = lam, math.sqrt(V)
    assert out["accuracy"] == pytest.approx(stats.norm.cdf(mu / sd), abs=0.004)
    # the second flash alone: N(+mu) on correct trials, N(-mu) on errors
    assert out["auroc_second"] == pytest.approx(stats.norm.cdf(math.sqrt(2) * mu / sd), abs=0.004)
    # the first flash alone: |e_1| given e_1 > 0 against |e_1| given e_1 < 0 (stimulus right)
    grid = np.linspace(0, 6 * sd + mu, 20_001)
    first = auroc_by_grid(
        lambda x: stats.norm.pdf(x, mu, sd), lambda x: stats.norm.pdf(-x, mu, sd), grid
    )
    assert out["auroc_first"] == pytest.approx(first, abs=0.004)
    # both: e_1 + e_2 on the chosen side, a truncated normal plus a normal, by convolution
    g = np.linspace(-8 * sd, 8 * sd + 2 * mu, 8_001)
    dx = g[1] - g[0]
    right = np.convolve(np.where(g > 0, stats.norm.pdf(g, mu, sd), 0), stats.norm.pdf(g, mu, sd))
    wrong = np.convolve(np.where(g > 0, stats.norm.pdf(-g, mu, sd), 0), stats.norm.pdf(-g, mu, sd))
    sums = 2 * g[0] + dx * np.arange(len(right))
    both = auroc_by_grid(
        lambda x: np.interp(x, sums, right), lambda x: np.interp(x, sums, wrong), sums
    )
    assert out["auroc_both"] == pytest.approx(both, abs=0.005)
    assert out["auroc_first"] < out["auroc_second"] < out["auroc_both"]
    assert 0.9 < out["m_ratio_first"] < 1.1 and out["m_ratio_both"] > 1.3  # post-decision evidence
    assert out["change_of_mind"] > 0


def test_same_seed_same_ideal_observer():
    assert D.ideal_observer(0.25, 10_000, seed=3) == D.ideal_observer(0.25, 10_000, seed=3)


def _trial(stimulus, decision, confidence, second, reader=None):
    return {
        "stimulus": stimulus,
        "decision": decision,
        "confidence": confidence,
        "evidence_second": second,
        "reader": reader,
    }


def test_block_values_against_independent_implementations():
    rng = np.random.default_rng(0)
    n = 400
    stimulus = rng.integers(2, size=n)
    decision = np.where(rng.random(n) < 0.75, stimulus, 1 - stimulus)
    decision[:5] = -1  # no decision by the time limit: an error without a confidence
    correct = decision == stimulus
    conf = np.clip(0.5 + 0.3 * (correct - 0.5) + rng.normal(0, 0.2, n), 0.01, 0.99)
    second = rng.normal(0, 1, n)
    rows = [
        _trial(int(s), int(d), None if d < 0 else float(c), float(e), float(c))
        for s, d, c, e in zip(stimulus, decision, conf, second, strict=True)
    ]
    out = post_decision_values(rows)
    answered = decision >= 0
    assert out["accuracy"] == correct.mean()
    assert out["auroc"] == pytest.approx(roc_auc_score(correct[answered], conf[answered]))
    fit = meta_d_prime(stimulus[answered], decision[answered], conf[answered], n_ratings=4)
    assert out["m_ratio"] == pytest.approx(fit.m_ratio)
    c = np.where(decision == 1, 1.0, -1.0)
    agree, against = answered & (c * second > 0), answered & (c * second < 0)
    assert out["change_of_mind"] == pytest.approx(conf[agree].mean() - conf[against].mean())


def test_a_constant_confidence_has_no_spread_and_chance_auroc():
    rows = [_trial(i % 2, (i // 3) % 2, 0.7, 1.0) for i in range(60)]
    out = post_decision_values(rows)
    assert out["confidence_range"] == 0.0 and out["auroc"] == 0.5 and math.isnan(out["m_ratio"])


def test_held_by_gate_follows_the_choices():
    # steps 0 (colour) and 1 (object) are the cues; the reports are at 30 and 31
    ws = np.full((3, 32), -1)
    ws[:, 0], ws[:, 1] = [0, 1, 4], [1, 1, 2]
    ws[0, 10] = 2  # a mask into another slot: both kept
    ws[1, 5] = 3  # object and colour in slot 1: the colour was overwritten at step 1
    ws[2, 31] = 2  # written at the last report itself: the object (slot 2) is overwritten
    colour, obj = held_by_gate(ws)
    assert colour.tolist() == [True, False, False]  # row 2 never wrote the colour (4: skipped)
    assert obj.tolist() == [True, True, False]


def test_the_overwrite_rule_holdings_give_the_ideal_agent_on_the_same_episodes():
    seeds = episode_seeds(0, "eval", 64)
    for active in range(5):
        colour, obj = rule_held(seeds, active)
        p = np.where(colour, 1.0, D.GUESS) * np.where(obj, 1.0, D.GUESS)
        expected = ideal_on_episodes(seeds, active)["conjunction"][0]
        np.testing.assert_allclose(p, expected)
    best_colour, best_obj = best_held(2, 4)
    assert best_colour.all() and best_obj.all()
    assert best_held(1, 4)[1].sum() == 0 and best_held(0, 4)[0].sum() == 0


def test_slope_and_the_e1_verdict():
    assert D.slope([0, 1, 2], [1.0, 0.8, 0.6]) == pytest.approx(-0.2)
    assert math.isnan(D.slope([0, 1], [1.0, float("nan")]))
    room = "uses the post-decision evidence"
    assert D.dissociation_e1({"doing": "kept", "knowing": "abolished", "room": room}) == "evidence"
    assert D.dissociation_e1({"doing": "kept", "knowing": "reduced", "room": room}) == "in part"
    assert D.dissociation_e1({"doing": "lost", "knowing": "abolished", "room": room}) == "fails"
    assert D.dissociation_e1({"doing": "kept", "knowing": "abolished", "room": "x"}) == "no room"


def _e1_rows(seeds, lose_knowing: bool, blocks=(0.25,)):
    """Trials where the silenced agent's confidence is noise (lose_knowing) or as informative as
    the intact one; doing is the same in every condition."""
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n = 300
        stimulus = rng.integers(2, size=n)
        decision = np.where(rng.random(n) < 0.75, stimulus, 1 - stimulus)
        correct = decision == stimulus
        informative = np.clip(0.5 + 0.35 * (correct - 0.5) + rng.normal(0, 0.15, n), 0, 1)
        blind = rng.random(n)
        reader = np.clip(0.5 + 0.1 * (correct - 0.5) + rng.normal(0, 0.15, n), 0, 1)
        second = np.where(correct, 1.0, -1.0) * np.where(decision == 1, 1.0, -1.0)
        for cond, dose, conf in (
            ("intact", 0.0, informative),
            ("silenced", 1.0, blind if lose_knowing else informative),
            ("silenced", 0.5, informative),
            ("noise", 2.0, informative),
            ("policy_route_off", 0.0, informative),
            ("rewired", 1.0, informative),
        ):
            for block in blocks:
                for i in range(n):
                    rows.append(
                        {
                            "seed": seed,
                            "condition": cond,
                            "dose": dose,
                            "block": block,
                            "trial": i,
                            "stimulus": int(stimulus[i]),
                            "decision": int(decision[i]),
                            "confidence": float(conf[i]),
                            "evidence_first": 0.0,
                            "evidence_second": float(second[i]),
                            "reader": float(reader[i]) if cond == "intact" else None,
                        }
                    )
    return rows


CONFIG = D.DissociationsConfig(
    seeds=(0, 1, 2, 3, 4), blocks=(0.25,), silenced=(0.0, 0.5, 1.0), noise=(0.0, 2.0)
)
IDEAL = {0.25: D.ideal_observer(0.25, 20_000, seed=0)}


def test_knowing_abolished_while_doing_is_kept_is_the_dissociation():
    findings, tables = D.e1_findings(CONFIG, _e1_rows(range(5), lose_knowing=True), IDEAL)
    v = tables["verdicts"]
    assert (v["knowing"], v["doing"], v["room"]) == (
        "abolished",
        "kept",
        "uses the post-decision evidence",
    )
    assert v["dissociation"] == "evidence" and v["rewire"] == "restored"
    by_id = {f.id: f for f in findings}
    assert by_id["e1m.rewire.recovered"].value == pytest.approx(1.0)


def test_knowing_kept_when_the_silenced_agent_is_as_informed():
    _, tables = D.e1_findings(CONFIG, _e1_rows(range(5), lose_knowing=False), IDEAL)
    assert tables["verdicts"]["knowing"] == "kept"
    assert tables["verdicts"]["dissociation"] == "fails"


def _e2_rows(kind, seeds, conj_at, episodes=64):
    """Reports whose conjunction rate at each capacity is ``conj_at[k]`` (both right or both
    wrong), on the evaluation episodes of each seed."""
    rows = []
    for seed in seeds:
        eps = episode_seeds(seed, "eval", episodes)
        for k in D.CAPACITIES:
            colour, obj = rule_held(eps, k)
            right = np.arange(episodes) < round(conj_at[k] * episodes)
            for i in range(episodes):
                rows.append(
                    {
                        "seed": seed,
                        "kind": kind,
                        "slots": k,
                        "episode": i,
                        "colour_right": int(right[i]),
                        "object_right": int(right[i]),
                        "colour_held": int(right[i]),
                        "object_held": int(right[i]),
                        "rule_colour_held": int(colour[i]),
                        "rule_object_held": int(obj[i]),
                    }
                )
    return rows


def test_e2_flags_the_ceiling_the_wiring_and_credits_what_learning_keeps():
    config = D.DissociationsConfig(e2_kinds=("b1_gate",))
    ideal_like = {0: 1 / 49, 1: 1 / 7, 2: 1.0, 3: 1.0, 4: 1.0}
    _, tables = D.e2_findings(config, _e2_rows("b1_gate", range(5), ideal_like))
    flags = tables["verdicts"]["flags"]
    assert flags["b1_gate.k0"] == "empty bus" and flags["b1_gate.k2"] == "ceiling"
    assert tables["verdicts"]["dissociation"]["b1_gate"] == "design"  # every loss is the ideal's
    learned = {0: 1 / 49, 1: 0.6, 2: 0.8, 3: 1.0, 4: 1.0}
    _, tables = D.e2_findings(config, _e2_rows("b1_gate", range(5), learned))
    assert tables["verdicts"]["flags"]["b1_gate.k2"] == ""
    assert tables["verdicts"]["learning_decides"]["b1_gate.k2"] is True
    assert tables["verdicts"]["dissociation"]["b1_gate"] == "evidence"


BUNDLED = Path(__file__).resolve().parents[2] / "results" / "dissociations"


@pytest.mark.skipif(not (BUNDLED / "summary.json").exists(), reason="not bundled yet")
def test_the_bundled_summary_is_recomputed_from_its_files():
    from labcore.experiments.study import get_study, read_rows
    from labcore.findings import load_summary

    study = get_study("dissociations")
    loaded = load_summary(BUNDLED, study="dissociations")
    assert loaded.ok, loaded.problems
    rows, problems = read_rows(study, BUNDLED)
    assert not problems
    config = D.DissociationsConfig(
        **{**loaded.summary.config, "seeds": tuple(loaded.summary.seeds)}
    )
    again = D.summarise(config, rows)
    # the same findings, flags and verdicts; the numbers to fitting precision (meta-d' is fitted
    # by an optimiser, whose last bits depend on the compute mode the set was made in)
    assert [f.id for f in again.findings] == [f.id for f in loaded.summary.findings]
    for new, old in zip(again.findings, loaded.summary.findings, strict=True):
        assert new.flags == old.flags and new.n == old.n, new.id
        assert new.value == pytest.approx(old.value, rel=1e-4, abs=1e-6, nan_ok=True), new.id
    assert again.answer == loaded.summary.answer
    assert again.tables["e1"]["verdicts"] == loaded.summary.tables["e1"]["verdicts"]
    assert again.tables["e2"]["verdicts"] == loaded.summary.tables["e2"]["verdicts"]
