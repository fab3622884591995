"""Tests for labcore.markers.metacognition against brute-force implementations."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.stats import norm
from sklearn.metrics import brier_score_loss, roc_auc_score

from labcore import UndefinedMetricWarning
from labcore.markers import (
    aurc,
    brier_score,
    calibration_curve,
    expected_calibration_error,
    learning_curve_auroc,
    meta_d_prime,
    meta_d_prime_from_counts,
    risk_coverage_curve,
    skip_fraction,
    type2_auroc,
    type2_roc,
    wagering_utility,
)
from tests.refusals import undefined

SETTINGS = settings(max_examples=40, deadline=None)

# --------------------------------------------------------------------------- brute force


def brute_auroc(correct, confidence):
    pos = [c for y, c in zip(correct, confidence, strict=True) if y]
    neg = [c for y, c in zip(correct, confidence, strict=True) if not y]
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def brute_roc(correct, confidence):
    thresholds = [*sorted(set(confidence), reverse=True), -math.inf]
    n_pos = sum(correct)
    n_neg = len(correct) - n_pos
    tpr, fpr = [], []
    for t in thresholds:
        tpr.append(sum(1 for y, c in zip(correct, confidence, strict=True) if y and c > t) / n_pos)
        fpr.append(
            sum(1 for y, c in zip(correct, confidence, strict=True) if not y and c > t) / n_neg
        )
    return fpr, tpr, thresholds


def brute_calibration(correct, confidence, edges):
    n_bins = len(edges) - 1
    out = []
    for b in range(n_bins):
        lo, hi = edges[b], edges[b + 1]
        members = [
            (y, c)
            for y, c in zip(correct, confidence, strict=True)
            if (lo < c <= hi) or (b == 0 and c == lo) or (b == n_bins - 1 and c > hi)
        ]
        if members:
            out.append(
                (
                    sum(c for _, c in members) / len(members),
                    sum(y for y, _ in members) / len(members),
                    len(members),
                )
            )
        else:
            out.append((math.nan, math.nan, 0))
    return out


def brute_risk_curve(correct, confidence):
    """Average the risk curve over every order of the trials consistent with sorting by
    decreasing confidence (all orders of tied trials)."""
    n = len(correct)
    curves = []
    for order in itertools.permutations(range(n)):
        confs = [confidence[i] for i in order]
        if any(confs[i] < confs[i + 1] for i in range(n - 1)):
            continue
        errors = 0
        curve = []
        for k, i in enumerate(order, start=1):
            errors += 0 if correct[i] else 1
            curve.append(errors / k)
        curves.append(curve)
    return np.mean(np.array(curves), axis=0)


# Maniscalco & Lau (2012) type-2 log-likelihood, transcribed loop by loop from the
# published fit_meta_d_MLE code (criteria shifted so that the type-1 criterion is 0).
def maniscalco_neg_loglik(meta_d, t2c_shifted, counts_s1, counts_s2, meta_c):
    n_ratings = len(counts_s1) // 2
    s1mu, s2mu = -meta_d / 2 - meta_c, meta_d / 2 - meta_c
    t1c = 0.0
    nc_rs1 = counts_s1[:n_ratings]
    ni_rs1 = counts_s2[:n_ratings]
    nc_rs2 = counts_s2[n_ratings:]
    ni_rs2 = counts_s1[n_ratings:]
    c_area_rs1 = norm.cdf(t1c, s1mu)
    i_area_rs1 = norm.cdf(t1c, s2mu)
    c_area_rs2 = 1 - norm.cdf(t1c, s2mu)
    i_area_rs2 = 1 - norm.cdf(t1c, s1mu)
    x = [-math.inf, *t2c_shifted[: n_ratings - 1], t1c, *t2c_shifted[n_ratings - 1 :], math.inf]
    loglik = 0.0
    for i in range(n_ratings):
        pc1 = (norm.cdf(x[i + 1], s1mu) - norm.cdf(x[i], s1mu)) / c_area_rs1
        pi1 = (norm.cdf(x[i + 1], s2mu) - norm.cdf(x[i], s2mu)) / i_area_rs1
        pc2 = (
            (1 - norm.cdf(x[n_ratings + i], s2mu)) - (1 - norm.cdf(x[n_ratings + i + 1], s2mu))
        ) / c_area_rs2
        pi2 = (
            (1 - norm.cdf(x[n_ratings + i], s1mu)) - (1 - norm.cdf(x[n_ratings + i + 1], s1mu))
        ) / i_area_rs2
        # (a floor keeps the log finite at the infeasible points an optimiser may probe)
        loglik += (
            nc_rs1[i] * math.log(max(pc1, 1e-300))
            + ni_rs1[i] * math.log(max(pi1, 1e-300))
            + nc_rs2[i] * math.log(max(pc2, 1e-300))
            + ni_rs2[i] * math.log(max(pi2, 1e-300))
        )
    return -loglik


def sdt_counts(d, c, meta_d, confidence_cuts, n_per_stimulus=1e6):
    """Expected counts of an SDT observer with type-1 d, c whose confidence follows a
    meta-d' model (criterion meta_c = meta_d * c / d, confidence cuts at +-cuts from it)."""
    meta_c = meta_d * c / d
    cuts = np.asarray(confidence_cuts)
    bounds = np.concatenate(([-np.inf], meta_c - cuts[::-1], [meta_c], meta_c + cuts, [np.inf]))
    n_ratings = cuts.size + 1
    counts = []
    for stim in (0, 1):
        p_resp_s2 = norm.sf(c, loc=(d / 2 if stim else -d / 2))
        mu = meta_d / 2 if stim else -meta_d / 2
        cell = np.diff(norm.cdf(bounds - mu))
        low = cell[:n_ratings] / cell[:n_ratings].sum() * (1 - p_resp_s2)
        high = cell[n_ratings:] / cell[n_ratings:].sum() * p_resp_s2
        counts.append(n_per_stimulus * np.concatenate((low, high)))
    return counts


def simulate_observer(d, n, rng, criterion=0.0):
    stim = rng.integers(0, 2, n)
    evidence = rng.normal(np.where(stim == 1, d / 2, -d / 2))
    return stim, evidence > criterion, np.abs(evidence - criterion)


trials = st.lists(
    st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.55, 0.9, 1.0])),
    min_size=2,
    max_size=40,
).filter(lambda t: 0 < sum(y for y, _ in t) < len(t))


def unzip(pairs):
    return [int(y) for y, _ in pairs], [c for _, c in pairs]


# --------------------------------------------------------------------------- type-2 ROC / AUROC


def test_auroc_hand_example():
    # Pairs: (0.9,0.6) win, (0.9,0.2) win, (0.6,0.6) tie, (0.6,0.2) win.
    assert type2_auroc([1, 1, 0, 0], [0.9, 0.6, 0.6, 0.2]) == 0.875
    assert type2_auroc([1, 0], [0.2, 0.8]) == 0.0
    assert type2_auroc([True, False], [0.8, 0.2]) == 1.0


@SETTINGS
@given(trials)
def test_auroc_matches_brute_force_and_sklearn(pairs):
    y, c = unzip(pairs)
    value = type2_auroc(y, c)
    assert value == pytest.approx(brute_auroc(y, c), abs=1e-12)
    assert value == pytest.approx(roc_auc_score(y, c), abs=1e-12)


@SETTINGS
@given(
    st.lists(st.booleans(), min_size=2, max_size=50).filter(lambda v: 0 < sum(v) < len(v)),
    st.floats(0, 1),
)
def test_auroc_constant_confidence_is_exactly_half(correct, value):
    assert type2_auroc(correct, [value] * len(correct)) == 0.5


@SETTINGS
@given(trials)
def test_auroc_invariant_to_strictly_increasing_transform(pairs):
    y, c = unzip(pairs)
    transformed = [x**3 + 5 * x - 7 for x in c]
    assert type2_auroc(y, transformed) == type2_auroc(y, c)
    # and a decreasing transform mirrors it
    assert type2_auroc(y, [-x for x in c]) == pytest.approx(1 - type2_auroc(y, c), abs=1e-12)


@SETTINGS
@given(trials)
def test_roc_matches_brute_force_and_area_equals_auroc(pairs):
    y, c = unzip(pairs)
    fpr, tpr, thr = type2_roc(y, c)
    bfpr, btpr, bthr = brute_roc(y, c)
    np.testing.assert_allclose(fpr, bfpr)
    np.testing.assert_allclose(tpr, btpr)
    np.testing.assert_array_equal(thr, bthr)
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.trapezoid(tpr, fpr) == pytest.approx(type2_auroc(y, c), abs=1e-12)


def pairwise_means(correct, confidence):
    """The O(n^2) form the bundled learning curves were computed with: two rounded means."""
    pos, neg = confidence[correct], confidence[~correct]
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


@pytest.mark.parametrize("levels", [3, 40, None])
def test_learning_curve_auroc_is_the_pairwise_means_bit_for_bit(levels):
    """Same pairs as type2_auroc; rounded as the bundled curves were (within one ulp of it)."""
    rng = np.random.default_rng(levels or 0)
    differ = 0
    for n in rng.integers(2, 700, 60):
        correct = rng.random(n) < 0.7
        conf = rng.random(n) if levels is None else rng.integers(0, levels, n) / levels
        conf = conf.astype(np.float32).astype(
            np.float64
        )  # a network's confidences: float32, many ties
        if correct.all() or not correct.any():
            assert math.isnan(learning_curve_auroc(correct, conf))
            continue
        value = learning_curve_auroc(correct, conf)
        assert value == pairwise_means(correct, conf)  # exactly
        assert value == pytest.approx(type2_auroc(correct, conf), rel=0, abs=2.3e-16)
        differ += value != type2_auroc(correct, conf)
    assert differ > 0 or levels is None  # with ties the one rounding and the two differ somewhere


def test_auroc_undefined_warns_and_returns_nan():
    value, reasons = undefined(type2_auroc, [1, 1, 1], [0.1, 0.5, 0.9])
    assert math.isnan(value) and reasons == ["all_correct"]
    value, reasons = undefined(type2_auroc, [0, 0], [0.1, 0.5])
    assert math.isnan(value) and reasons == ["all_incorrect"]


def test_auroc_chance_imputation_is_explicit_and_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert type2_auroc([1, 1, 1], [0.1, 0.5, 0.9], undefined="chance") == 0.5
        # defined values are unaffected by the keyword
        assert type2_auroc([1, 0], [0.9, 0.1], undefined="chance") == 1.0


def test_roc_undefined_gives_nan_rate():
    with pytest.warns(UndefinedMetricWarning):
        fpr, tpr, thr = type2_roc([1, 1, 1], [0.1, 0.5, 0.9])
    assert np.all(np.isnan(fpr))
    np.testing.assert_allclose(tpr, [0, 1 / 3, 2 / 3, 1])
    assert thr[-1] == -np.inf


@pytest.mark.parametrize(
    ("correct", "confidence", "match"),
    [
        ([1, 2, 0], [0.1, 0.2, 0.3], "binary"),
        ([1, 0, 1], [0.1, np.nan, 0.3], "NaN"),
        ([1, 0], [0.1, 0.2, 0.3], "inconsistent"),
        ([], [], "empty"),
        ([[1, 0]], [[0.1, 0.2]], "1-D"),
        (["a", "b"], [0.1, 0.2], "binary"),
    ],
)
def test_auroc_validation(correct, confidence, match):
    with pytest.raises(ValueError, match=match):
        type2_auroc(correct, confidence)


def test_auroc_bad_keyword():
    with pytest.raises(ValueError, match="undefined"):
        type2_auroc([1, 0], [0.9, 0.1], undefined="zero")


# --------------------------------------------------------------------------- calibration


@SETTINGS
@given(trials, st.integers(1, 6), st.sampled_from(["uniform", "quantile"]))
def test_calibration_curve_matches_brute_force(pairs, n_bins, strategy):
    y, c = unzip(pairs)
    cc = calibration_curve(y, c, n_bins=n_bins, strategy=strategy)
    if strategy == "uniform":
        np.testing.assert_allclose(cc.bin_edges, np.linspace(0, 1, n_bins + 1))
    expected = brute_calibration(y, c, list(cc.bin_edges))
    np.testing.assert_allclose(cc.mean_confidence, [e[0] for e in expected])
    np.testing.assert_allclose(cc.accuracy, [e[1] for e in expected])
    np.testing.assert_array_equal(cc.counts, [e[2] for e in expected])
    assert cc.counts.sum() == len(y)
    # ECE from the brute-force bins
    ece = sum(n / len(y) * abs(acc - conf) for conf, acc, n in expected if n)
    assert expected_calibration_error(y, c, n_bins=n_bins, strategy=strategy) == pytest.approx(
        ece, abs=1e-12
    )


def test_calibration_half_goes_to_lower_bin_like_opt_out():
    cc = calibration_curve([1, 0], [0.5, 0.5000001], n_bins=2)
    np.testing.assert_array_equal(cc.counts, [1, 1])


def test_calibration_empty_bins_are_marked():
    cc = calibration_curve([1, 0, 1], [0.95, 0.92, 0.91], n_bins=5)
    np.testing.assert_array_equal(cc.counts, [0, 0, 0, 0, 3])
    np.testing.assert_array_equal(cc.nonempty, [False] * 4 + [True])
    assert np.all(np.isnan(cc.accuracy[:4]))


def test_ece_zero_for_perfect_calibration_and_hand_value():
    correct = [1, 0, 0, 0, 1, 1, 1, 0]
    conf = [0.25] * 4 + [0.75] * 4
    assert expected_calibration_error(correct, conf, n_bins=2) == 0.0
    assert expected_calibration_error([0, 1, 1, 1], [0.2, 0.4, 0.8, 0.9], n_bins=2) == (
        pytest.approx(0.175)
    )


def test_calibration_requires_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        calibration_curve([1, 0], [0.5, 1.5])
    with pytest.raises(ValueError, match="n_bins"):
        calibration_curve([1, 0], [0.5, 0.2], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        calibration_curve([1, 0], [0.5, 0.2], strategy="kmeans")


@SETTINGS
@given(trials)
def test_brier_matches_sklearn(pairs):
    y, c = unzip(pairs)
    assert brier_score(y, c) == pytest.approx(brier_score_loss(y, c), abs=1e-12)
    assert brier_score(y, [0.5] * len(y)) == pytest.approx(0.25)


# --------------------------------------------------------------------------- selective prediction


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.1, 0.5, 0.9])), min_size=1, max_size=6))
def test_risk_coverage_matches_average_over_tie_orders(pairs):
    y, c = unzip(pairs)
    rc = risk_coverage_curve(y, c)
    np.testing.assert_allclose(rc.risk, brute_risk_curve(y, c), atol=1e-12)
    np.testing.assert_allclose(rc.coverage, np.arange(1, len(y) + 1) / len(y))
    assert aurc(y, c) == pytest.approx(np.mean(brute_risk_curve(y, c)), abs=1e-12)


def test_risk_coverage_hand_example_and_thresholds():
    rc = risk_coverage_curve([1, 1, 0, 0], [0.9, 0.8, 0.3, 0.2])
    np.testing.assert_allclose(rc.risk, [0, 0, 1 / 3, 1 / 2])
    np.testing.assert_allclose(rc.thresholds, [0.9, 0.8, 0.3, 0.2])
    assert aurc([1, 1, 0, 0], [0.9, 0.8, 0.3, 0.2]) == pytest.approx((1 / 3 + 1 / 2) / 4)


@SETTINGS
@given(trials)
def test_aurc_constant_confidence_is_error_rate(pairs):
    y, _ = unzip(pairs)
    assert aurc(y, [0.7] * len(y)) == pytest.approx(1 - np.mean(y), abs=1e-12)


@pytest.mark.parametrize(("n_correct", "n_wrong"), [(3, 1), (8, 2), (5, 5)])
def test_aurc_perfect_ranking(n_correct, n_wrong):
    y = [1] * n_correct + [0] * n_wrong
    conf = np.linspace(1, 0, len(y))
    expected = sum(j / (n_correct + j) for j in range(1, n_wrong + 1)) / len(y)
    assert aurc(y, conf) == pytest.approx(expected)
    # any other ranking is no better
    assert aurc(y, conf[::-1]) >= aurc(y, conf)


@SETTINGS
@given(trials, st.randoms(use_true_random=False))
def test_aurc_independent_of_input_order(pairs, rnd):
    y, c = unzip(pairs)
    order = list(range(len(y)))
    rnd.shuffle(order)
    assert aurc([y[i] for i in order], [c[i] for i in order]) == pytest.approx(
        aurc(y, c), abs=1e-12
    )


# --------------------------------------------------------------------------- wagering


@SETTINGS
@given(trials)
def test_wagering_utility_matches_rule(pairs):
    y, c = unzip(pairs)
    rewards = [(1 if yi else -1) if ci > 0.5 else 0 for yi, ci in zip(y, c, strict=True)]
    assert wagering_utility(y, c) == pytest.approx(sum(rewards) / len(y))
    assert skip_fraction(c) == pytest.approx(sum(ci <= 0.5 for ci in c) / len(c))


def test_wagering_hand_values():
    assert wagering_utility([1, 1, 0, 0], [0.9, 0.7, 0.6, 0.5]) == 0.25
    assert wagering_utility([1, 0, 1, 1], [1.0] * 4) == pytest.approx(2 * 0.75 - 1)
    assert wagering_utility([1, 0], [0.5, 0.5]) == 0.0
    assert skip_fraction([0.5, 0.51]) == 0.5
    assert skip_fraction([0.3, 0.6], threshold=0.6) == 1.0
    with pytest.raises(ValueError):
        skip_fraction([0.2, 1.2])


# --------------------------------------------------------------------------- meta-d'


@pytest.mark.parametrize(
    ("d", "c", "meta_d"), [(1.0, 0.3, 1.0), (2.0, 0.0, 1.0), (1.5, -0.4, 2.2), (1.0, 0.2, 0.0)]
)
def test_meta_d_recovers_generating_value_from_expected_counts(d, c, meta_d):
    s1, s2 = sdt_counts(d, c, meta_d, [0.4, 0.9, 1.5])
    r = meta_d_prime_from_counts(s1, s2, pad=False)
    assert r.d_prime == pytest.approx(d, abs=1e-9)
    assert r.criterion == pytest.approx(c, abs=1e-9)
    assert r.meta_d_prime == pytest.approx(meta_d, abs=1e-4)
    assert r.meta_criterion == pytest.approx(meta_d * c / d, abs=1e-4)
    np.testing.assert_allclose(
        r.type2_criteria,
        r.meta_criterion + np.array([-1.5, -0.9, -0.4, 0.4, 0.9, 1.5]),
        atol=1e-3,
    )
    if meta_d:
        assert r.m_ratio == pytest.approx(meta_d / d, abs=1e-4)


def test_meta_d_matches_independent_constrained_fit():
    s1 = np.array([36, 24, 17, 20, 10, 12, 9, 2], float)
    s2 = np.array([1, 4, 10, 11, 10, 17, 33, 55], float)
    r = meta_d_prime_from_counts(s1, s2)
    pad = 1 / 8
    p1, p2 = s1 + pad, s2 + pad
    assert r.pad == pad
    # type-1 SDT by hand
    hr, far = p2[4:].sum() / p2.sum(), p1[4:].sum() / p1.sum()
    d1 = norm.ppf(hr) - norm.ppf(far)
    c1 = -0.5 * (norm.ppf(hr) + norm.ppf(far))
    assert r.d_prime == pytest.approx(d1)
    assert r.criterion == pytest.approx(c1)

    # independent fit: Maniscalco's parameterisation with linear ordering constraints
    def objective(params):
        meta_d = params[0]
        with np.errstate(all="ignore"):
            value = maniscalco_neg_loglik(meta_d, params[1:], p1, p2, meta_d * c1 / d1)
        return value if math.isfinite(value) else 1e12

    x0 = np.array([1.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5])
    cons = [{"type": "ineq", "fun": lambda p, i=i: p[i + 1] - p[i] - 1e-6} for i in range(1, 6)] + [
        {"type": "ineq", "fun": lambda p: -p[3] - 1e-6},
        {"type": "ineq", "fun": lambda p: p[4] - 1e-6},
    ]
    ref = optimize.minimize(
        objective, x0, constraints=cons, method="SLSQP", options={"ftol": 1e-12, "maxiter": 1000}
    )
    assert ref.success
    assert r.meta_d_prime == pytest.approx(ref.x[0], abs=2e-3)
    assert r.log_likelihood == pytest.approx(-ref.fun, abs=1e-6)
    # the reported log-likelihood is the published one evaluated at the reported fit
    shifted = r.type2_criteria - r.meta_criterion
    assert -maniscalco_neg_loglik(r.meta_d_prime, shifted, p1, p2, r.meta_criterion) == (
        pytest.approx(r.log_likelihood, abs=1e-8)
    )


def test_meta_d_ideal_observer_simulation():
    rng = np.random.default_rng(2024)
    stim, resp, conf = simulate_observer(1.5, 20_000, rng, criterion=0.2)
    r = meta_d_prime(stim, resp, conf)
    assert r.d_prime == pytest.approx(1.5, abs=0.08)
    assert r.meta_d_prime == pytest.approx(1.5, abs=0.15)
    assert r.m_ratio == pytest.approx(1.0, abs=0.1)
    assert r.counts.sum() == 20_000
    assert r.n_ratings == 4
    # shuffling confidence across trials destroys metacognition, not d'
    shuffled = meta_d_prime(stim, resp, rng.permutation(conf))
    assert shuffled.d_prime == pytest.approx(r.d_prime)
    assert abs(shuffled.meta_d_prime) < 0.25
    assert shuffled.meta_d_prime < r.meta_d_prime - 1.0


def test_meta_d_binning_modes_agree_for_integer_ratings():
    rng = np.random.default_rng(7)
    stim, resp, conf = simulate_observer(1.0, 2000, rng)
    ratings = 1 + np.searchsorted(np.quantile(conf, [0.25, 0.5, 0.75]), conf, side="left")
    np.testing.assert_array_equal(np.bincount(ratings)[1:].clip(0), np.bincount(ratings)[1:])
    a = meta_d_prime(stim, resp, conf)
    b = meta_d_prime(stim, resp, ratings, binning="none")
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.meta_d_prime == pytest.approx(b.meta_d_prime)
    # equal-count bins: each rating holds a quarter of the trials
    np.testing.assert_array_equal(np.bincount(ratings)[1:], [500] * 4)


def test_meta_d_counts_layout():
    # stimulus S1, response S1, highest rating -> first cell; S2/S2/highest -> last cell
    with pytest.warns(UndefinedMetricWarning, match="d' = 0"):
        r = meta_d_prime([0, 0, 1, 1], [0, 1, 1, 0], [2, 1, 2, 1], n_ratings=2, binning="none")
    np.testing.assert_array_equal(r.counts, [[1, 0, 1, 0], [0, 1, 0, 1]])


def test_meta_d_undefined_cases():
    r, reasons = undefined(meta_d_prime, [1, 1, 1], [1, 0, 1], [0.2, 0.5, 0.9], n_ratings=2)
    assert math.isnan(r.meta_d_prime) and math.isnan(r.d_prime) and reasons == ["empty_class"]
    r, reasons = undefined(meta_d_prime_from_counts, [5, 5, 0, 0], [0, 0, 5, 5], pad=False)
    assert math.isnan(r.m_ratio) and reasons == ["extreme_rate"]
    r, reasons = undefined(meta_d_prime_from_counts, [10, 5, 5, 10], [10, 5, 5, 10])
    assert reasons == ["d_prime_zero"]
    assert math.isnan(r.m_ratio) and np.isfinite(r.meta_d_prime)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_ratings": 1}, "n_ratings"),
        ({"binning": "kmeans"}, "binning"),
        ({"binning": "none"}, r"1\.\.4"),  # the ratings binning="none" needs (n_ratings=4)
    ],
)
def test_meta_d_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        meta_d_prime([0, 1, 0, 1], [0, 1, 1, 0], [0.1, 0.7, 0.4, 0.9], **kwargs)


def test_meta_d_counts_validation():
    with pytest.raises(ValueError, match="length"):
        meta_d_prime_from_counts([1, 2, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="differ"):
        meta_d_prime_from_counts([1, 2, 3, 4], [1, 2, 3, 4, 5, 6])
    with pytest.raises(ValueError, match="non-negative"):
        meta_d_prime_from_counts([1, -2, 3, 4], [1, 2, 3, 4])
