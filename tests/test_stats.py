"""Tests for labcore.stats against scipy and hand computations."""

from __future__ import annotations

import itertools
import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from labcore import UndefinedMetricWarning
from labcore.stats import (
    bootstrap_ci,
    group_summary,
    hedges_g,
    paired_summary,
    permutation_test,
    seed_summary,
    summarize,
    t_interval,
    welch_interval,
    welch_summary,
    welch_t,
)
from tests.refusals import reasons_of

SETTINGS = settings(max_examples=40, deadline=None)

# rounded to 1e-3 so that "constant" is exact and variances stay far from underflow
samples = st.lists(st.floats(-10, 10).map(lambda v: round(v, 3)), min_size=2, max_size=25)


def diff_of_means(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


# --------------------------------------------------------------------------- mean ± SD


@SETTINGS
@given(samples)
def test_seed_summary_mean_and_sd_match_definition(x):
    r = seed_summary(x, "none")
    m = sum(x) / len(x)
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))
    assert r.mean == pytest.approx(m, abs=1e-9)
    assert r.sd == pytest.approx(sd, abs=1e-9)
    assert r.n == len(x)


def test_seed_summary_sd_edge_cases():
    assert seed_summary([0.0] * 20, "none").sd == 0.0
    assert seed_summary([0.995] * 20, "none").sd == 0.0  # exact, not a rounding residue
    single = seed_summary([1.0], "none")
    assert (single.mean, single.n) == (1.0, 1) and math.isnan(single.sd)
    assert seed_summary([], "none").n == 0


# --------------------------------------------------------------------------- Welch


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy, near-ties
@SETTINGS
@given(samples, samples)
def test_welch_matches_scipy(a, b):
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return
    r = welch_t(a, b)
    ref = sps.ttest_ind(a, b, equal_var=False)
    assert r.t == pytest.approx(ref.statistic, rel=1e-6, abs=1e-9)
    assert r.df == pytest.approx(ref.df, rel=1e-6)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-12)


def test_welch_paper_like_summary():
    # 99.5 ± 2.0 vs 28.1 ± 9.7 (n = 20 each): t = 71.4 / sqrt((4 + 94.09) / 20)
    rng = np.random.default_rng(0)
    a = rng.normal(size=20)
    b = rng.normal(size=20)
    a = 99.5 + 2.0 * (a - a.mean()) / a.std(ddof=1)
    b = 28.1 + 9.7 * (b - b.mean()) / b.std(ddof=1)
    r = welch_t(a, b)
    assert r.t == pytest.approx(71.4 / math.sqrt((4 + 94.09) / 20))
    assert r.p_value < 1e-16


def test_welch_zero_variance():
    with pytest.warns(UndefinedMetricWarning) as caught:
        r = welch_t([0.0] * 20, [0.0] * 20)
    assert math.isnan(r.t) and math.isnan(r.df) and math.isnan(r.p_value)
    assert reasons_of(caught) == ["zero_variance"]
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(welch_t([1.0, 1.0], [0.0, 0.0]).t)
    # one constant group is fine (bus-off 0.0 ± 0.0 vs a varying group)
    r = welch_t([0.0] * 5, [0.9, 1.0, 0.95, 0.97, 1.0])
    ref = sps.ttest_ind([0.0] * 5, [0.9, 1.0, 0.95, 0.97, 1.0], equal_var=False)
    assert r.t == pytest.approx(ref.statistic) and r.df == pytest.approx(4.0)


def test_variance_underflow_is_treated_as_zero():
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(welch_t([0.0, 0.0], [0.0, 1e-300]).t)
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(hedges_g([0.0, 0.0], [0.0, 1e-300]))


def test_welch_validation():
    with pytest.raises(ValueError, match=r"^a\b\D+\b2\b\D+\b1\b"):  # a: at least 2, got 1
        welch_t([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        welch_t([1.0, np.nan], [1.0, 2.0])


# --------------------------------------------------------------------------- Hedges' g


def hand_hedges(a, b):
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    ssa = sum((v - ma) ** 2 for v in a)
    ssb = sum((v - mb) ** 2 for v in b)
    m = na + nb - 2
    j = math.gamma(m / 2) / (math.sqrt(m / 2) * math.gamma((m - 1) / 2))
    return j * (ma - mb) / math.sqrt((ssa + ssb) / m)


@SETTINGS
@given(samples, samples)
def test_hedges_matches_hand_computation(a, b):
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return
    assert hedges_g(a, b) == pytest.approx(hand_hedges(a, b), rel=1e-9, abs=1e-9)
    assert hedges_g(b, a) == pytest.approx(-hedges_g(a, b), rel=1e-12, abs=1e-12)


def test_hedges_exact_correction_values():
    # J(4) = Gamma(2) / (sqrt(2) Gamma(1.5)) = 1 / (sqrt(2) * sqrt(pi) / 2)
    j4 = 2 / (math.sqrt(2) * math.sqrt(math.pi))
    assert hedges_g([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == pytest.approx(-3 * j4)
    # large m: J -> 1 - 3 / (4m - 1)
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 200))
    d = (a.mean() - b.mean()) / math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2)
    assert hedges_g(a, b) == pytest.approx(d * (1 - 3 / (4 * 398 - 1)), rel=1e-5)


def test_hedges_zero_variance():
    with pytest.warns(UndefinedMetricWarning) as caught:
        assert math.isnan(hedges_g([0.0] * 20, [0.0] * 20))
    assert reasons_of(caught) == ["zero_variance"]
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(hedges_g([1.0] * 3, [0.0] * 3))
    assert hedges_g([0.0] * 3, [1.0, 2.0, 3.0]) == pytest.approx(
        hand_hedges([0.0] * 3, [1.0, 2.0, 3.0])
    )


# --------------------------------------------------------------------------- permutation


def brute_exact_p(a, b):
    pooled = list(a) + list(b)
    n, na = len(pooled), len(a)
    observed = abs(sum(a) / na - sum(b) / len(b))
    hits = total = 0
    for idx in itertools.combinations(range(n), na):
        ga = [pooled[i] for i in idx]
        gb = [pooled[i] for i in range(n) if i not in idx]
        stat = abs(sum(ga) / na - sum(gb) / len(gb))
        hits += stat >= observed - 1e-12 * max(observed, 1)
        total += 1
    return hits / total


small = st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=5)


@SETTINGS
@given(small, small)
def test_permutation_exact_matches_enumeration(a, b):
    r = permutation_test(a, b)
    assert r.exact
    assert r.statistic == pytest.approx(np.mean(a) - np.mean(b))
    assert r.p_value == pytest.approx(brute_exact_p(a, b))


@SETTINGS
@given(
    st.integers(2, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.floats(-5, 5), min_size=n, max_size=n),
            st.lists(st.floats(-5, 5), min_size=n, max_size=n),
        )
    )
)
def test_permutation_exact_matches_scipy_for_equal_sizes(ab):
    a, b = ab
    # Near-ties (split statistics equal up to ~1e-9 but not bit-equal) are where scipy's
    # relative tie tolerance and ours (rounding of the sums, ~n eps max|x|) legitimately differ,
    # e.g. a = 0 x 5, b = (0, 0, 0, 2, 8.8e-13): every split has |T| = 0.4 and our p is 1.
    pooled = np.concatenate([a, b])
    splits = [
        pooled[list(c)].mean() - np.delete(pooled, list(c)).mean()
        for c in combinations(range(pooled.size), len(a))
    ]
    gaps = np.abs(np.abs(splits) - abs(np.mean(a) - np.mean(b)))
    assume(not np.any((gaps > 0) & (gaps < 1e-6)))
    r = permutation_test(a, b)
    ref = sps.permutation_test((a, b), diff_of_means, vectorized=True, n_resamples=10000)
    assert r.p_value == pytest.approx(ref.pvalue, abs=1e-9)


def test_permutation_monte_carlo_close_to_scipy_and_seeded():
    rng = np.random.default_rng(2)
    a = rng.normal(0.5, 1, 20)
    b = rng.normal(0.0, 1, 20)
    r = permutation_test(a, b, n_permutations=5000, seed=1)
    assert not r.exact and r.n_permutations == 5000
    ref = sps.permutation_test((a, b), diff_of_means, vectorized=True, n_resamples=5000, rng=0)
    assert r.p_value == pytest.approx(ref.pvalue, abs=0.03)
    assert r.p_value == permutation_test(a, b, n_permutations=5000, seed=1).p_value


def test_permutation_p_never_zero_and_constant_groups():
    r = permutation_test(np.full(20, 99.5), np.full(20, 28.1), n_permutations=999)
    assert r.p_value == pytest.approx(1 / 1000)
    r = permutation_test([0.0] * 20, [0.0] * 20, n_permutations=999)
    assert r.statistic == 0.0 and r.p_value == 1.0
    with pytest.raises(ValueError, match="n_permutations"):
        permutation_test([1.0], [2.0], n_permutations=0)


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_close_to_scipy_percentile():
    x = np.random.default_rng(3).normal(0.86, 0.18, 20)
    ci = bootstrap_ci(x, n_resamples=5000, seed=0)
    ref = sps.bootstrap((x,), np.mean, method="percentile", n_resamples=5000, rng=0)
    assert ci.estimate == pytest.approx(x.mean())
    assert ci.low == pytest.approx(ref.confidence_interval.low, abs=0.02)
    assert ci.high == pytest.approx(ref.confidence_interval.high, abs=0.02)
    assert ci.low < ci.estimate < ci.high


def test_bootstrap_reproduces_manual_resampling():
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    ci = bootstrap_ci(x, n_resamples=200, seed=9, confidence=0.9)
    rng = np.random.default_rng(9)
    boot = x[rng.integers(0, 5, (200, 5))].mean(axis=1)
    assert (ci.low, ci.high) == tuple(np.quantile(boot, [0.05, 0.95]))
    assert ci.confidence == 0.9


def test_bootstrap_seeded_and_non_vectorised_statistic():
    x = np.random.default_rng(4).normal(size=15)
    assert bootstrap_ci(x, seed=5, n_resamples=500) == bootstrap_ci(x, seed=5, n_resamples=500)
    a = bootstrap_ci(x, statistic=np.median, seed=5, n_resamples=500)
    b = bootstrap_ci(x, statistic=lambda s: float(np.median(s)), seed=5, n_resamples=500)
    assert (a.low, a.high, a.estimate) == pytest.approx((b.low, b.high, b.estimate))


def test_bootstrap_constant_and_validation():
    ci = bootstrap_ci([0.0] * 20)
    assert (ci.low, ci.high, ci.estimate) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match=r"\b2\b\D+\b1\b"):  # at least 2, got 1
        bootstrap_ci([1.0])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([1.0, 2.0], confidence=95)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_ci([1.0, 2.0], n_resamples=0)


# --------------------------------------------------------------------------- seed summaries


def test_seed_summary_methods_share_mean_sd_n_and_name_their_interval():
    x = [0.81, 0.86, None, 0.9, float("nan"), 0.84]
    finite = [0.81, 0.86, 0.9, 0.84]
    boot, t, none = (seed_summary(x, m) for m in ("bootstrap", "t", "none"))
    for s in (boot, t, none):
        assert (s.mean, s.n) == (pytest.approx(np.mean(finite)), 4)
        assert s.sd == pytest.approx(np.std(finite, ddof=1))
    ci = bootstrap_ci(finite, seed=0)
    assert boot.ci95 == [ci.low, ci.high] and boot.method == "bootstrap"
    assert t.ci95 == list(t_interval(finite)) and t.method == "t"
    assert none.ci95 is None and none.method == "none"
    assert seed_summary(x, seed=3).ci95 == [
        bootstrap_ci(finite, seed=3).low,
        bootstrap_ci(finite, seed=3).high,
    ]


def test_seed_summary_undefined_parts():
    empty = seed_summary([None, float("nan")], "t")
    assert empty.n == 0 and math.isnan(empty.mean)
    assert empty.as_dict() == {"mean": None, "sd": None, "n": 0, "ci95": None}
    one = seed_summary([0.4], "bootstrap")
    assert one.as_dict() == {"mean": 0.4, "sd": None, "n": 1, "ci95": None}
    const = seed_summary([0.995] * 5, "t")
    assert const.sd == 0.0 and const.ci95 == [const.mean, const.mean]
    with pytest.raises(ValueError, match="infinite"):
        seed_summary([1.0, float("inf")])
    with pytest.raises(ValueError, match="method"):
        seed_summary([1.0, 2.0], "wilson")


def test_summarize_keeps_the_result_set_shape():
    assert summarize([]) == {"mean": None, "sd": None, "n": 0, "ci95": None}
    assert summarize([0.3, float("nan")]) == {"mean": 0.3, "sd": 0.0, "n": 1, "ci95": [0.3, 0.3]}
    s = summarize([0.1, 0.4, 0.35, 0.8, 0.6])
    ci = bootstrap_ci([0.1, 0.4, 0.35, 0.8, 0.6], seed=0)
    assert s["ci95"] == [ci.low, ci.high] and s["n"] == 5


def test_group_summary_is_the_mean_and_median_with_the_same_resamples():
    x = [0.62, None, 0.71, 0.55, float("nan"), 0.8, 0.67, 0.59]
    finite = [0.62, 0.71, 0.55, 0.8, 0.67, 0.59]
    s = group_summary(x, seed=2, n_resamples=2000)
    assert (s.n, s.seed) == (6, 2)
    assert s.mean == pytest.approx(np.mean(finite)) and s.median == np.median(finite)
    rng = np.random.default_rng(2)  # by hand: the same resamples for both statistics
    resampled = np.asarray(finite)[rng.integers(0, 6, (2000, 6))]
    for stat, low, high in (
        (np.mean, s.mean_low, s.mean_high),
        (np.median, s.median_low, s.median_high),
    ):
        expected = np.quantile(stat(resampled, axis=1), [0.025, 0.975])
        assert (low, high) == pytest.approx(tuple(expected), abs=1e-12)
    assert group_summary(x, seed=2, n_resamples=2000) == s


def test_group_summary_undefined_parts():
    assert group_summary([None]).n == 0 and math.isnan(group_summary([]).median)
    one = group_summary([0.4])
    assert (one.mean, one.median, math.isnan(one.mean_low)) == (0.4, 0.4, True)
    const = group_summary([0.7] * 4)
    assert (const.mean_low, const.mean_high, const.median_low) == (0.7, 0.7, 0.7)
    with pytest.raises(ValueError, match="infinite"):
        group_summary([1.0, float("inf")])


def test_paired_and_welch_summaries():
    a = {0: 0.9, 1: 0.8, 2: 0.85, 3: float("nan"), 4: 0.7}
    b = {0: 0.5, 1: 0.55, 2: 0.6, 3: 0.5}
    s = paired_summary(a, b)
    diffs = [0.4, 0.25, 0.25]
    assert (s.n, s.method) == (3, "paired_t")
    assert s.mean == pytest.approx(np.mean(diffs)) and s.ci95 == list(t_interval(diffs))
    w = welch_summary([0.9, 0.8, None, 0.85], [0.5, 0.55])
    assert w.mean == pytest.approx(0.85 - 0.525) and w.n == 5 and math.isnan(w.sd)
    assert w.ci95 == list(welch_interval([0.9, 0.8, 0.85], [0.5, 0.55]))
    assert welch_summary([0.9], [0.5, 0.55]).ci95 is None
