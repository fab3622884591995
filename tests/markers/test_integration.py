"""Known answers and brute-force twins for labcore.markers.integration.

Barrett & Seth's (2011) published two-node values could not be read here (only the paper's
abstract was reachable), so the two-node closed forms below are derived by hand for
X_t = A X_{t-1} + e_t with unit noise: the stationary covariance S solves S = A S A' + I, the
lag-1 covariance is A S, and for one node I(x_{t-1}; x_t) = -1/2 log2(1 - rho^2) with rho its
lag-1 autocorrelation, while the whole's I(X_{t-1}; X_t) = 1/2 log2(det S / det I).

* A = [[0, a], [a, 0]] (each node driven only by the other): S = I / (1 - a^2), no node
  predicts itself (rho = 0), so Phi_E = -log2(1 - a^2).
* A = [[a, a], [a, a]]: S = [[s, r], [r, s]] with s - r = 1 and s + r = 1 / (1 - 4a^2), so
  det S = 1 / (1 - 4a^2) and rho = a / (1 - 2a^2):
  Phi_E = -1/2 log2(1 - 4a^2) + log2(1 - rho^2), negative for strong coupling (a = 0.45).

The brute-force twins enumerate every bipartition and subset with explicit determinants
(``np.linalg.det``), written independently of the module's Cholesky core. ``hoi`` (an
independent O-information implementation) would pull jax and jaxlib into the environment, so
it is not installed and not compared with.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcore import UndefinedMetricWarning
from labcore.markers import (
    evoked_response,
    higher_order_information,
    integrated_information,
    o_information,
    simulate_var1,
    surrogate_bias,
    tse_complexity,
)
from tests.refusals import reasons_of, undefined

TWO_PI_E = 2 * math.pi * math.e


# --------------------------------------------------------------------------- brute force
def bf_entropy(cov):
    cov = np.atleast_2d(cov)
    return 0.5 * math.log2(np.linalg.det(TWO_PI_E * cov))


def bf_pairs(x, tau=1):
    x = x if x.ndim == 3 else x[None]
    c = x.shape[2]
    return np.hstack([x[:, :-tau].reshape(-1, c), x[:, tau:].reshape(-1, c)])


def bf_mi(joint, ch, c):
    """I(past; present) of the channels ``ch`` from the joint (past, present) covariance."""
    ch = list(ch)
    present = [i + c for i in ch]
    return (
        bf_entropy(joint[np.ix_(ch, ch)])
        + bf_entropy(joint[np.ix_(present, present)])
        - bf_entropy(joint[np.ix_(ch + present, ch + present)])
    )


def bf_phi(x, nodes=None, normalisation="entropy"):
    """(phi, normalised, part with node 0) over every bipartition, minimising phi / K."""
    joint = np.cov(bf_pairs(x), rowvar=False)
    c = joint.shape[0] // 2
    nodes = nodes or [[i] for i in range(c)]
    present = joint[c:, c:]
    corr = present / np.sqrt(np.outer(np.diag(present), np.diag(present)))
    whole = bf_mi(joint, range(c), c)
    best = None
    n = len(nodes)
    for size in range(1, n):
        for part in itertools.combinations(range(n), size):
            if 0 not in part:
                continue
            rest = [i for i in range(n) if i not in part]
            ch_a = [ch for i in part for ch in nodes[i]]
            ch_b = [ch for i in rest for ch in nodes[i]]
            phi = whole - bf_mi(joint, ch_a, c) - bf_mi(joint, ch_b, c)
            if normalisation == "entropy":
                k = min(bf_entropy(corr[np.ix_(ch_a, ch_a)]), bf_entropy(corr[np.ix_(ch_b, ch_b)]))
            else:
                k = min(len(ch_a), len(ch_b)) * 0.5 * math.log2(TWO_PI_E)
            if k <= 0:
                continue
            if best is None or phi / k < best[1]:
                best = (phi, phi / k, part)
    return best


def bf_higher_order(samples, nodes=None):
    """TC and DTC from their definitions: DTC = H(X) - sum_j H(X_j | X_-j)."""
    flat = samples.reshape(-1, samples.shape[-1])
    cov = np.cov(flat, rowvar=False)
    c = cov.shape[0]
    nodes = nodes or [[i] for i in range(c)]
    h = bf_entropy(cov)
    tc = sum(bf_entropy(cov[np.ix_(n, n)]) for n in nodes) - h
    conditional = 0.0
    for n in nodes:
        rest = [i for i in range(c) if i not in n]
        conditional += h - bf_entropy(cov[np.ix_(rest, rest)])
    dtc = h - conditional
    return tc, dtc


def bf_tse(samples, nodes=None):
    """The integration form: sum_k [(k / n) I(X) - <I(X^k)>], I = total correlation."""
    flat = samples.reshape(-1, samples.shape[-1])
    cov = np.cov(flat, rowvar=False)
    nodes = nodes or [[i] for i in range(cov.shape[0])]
    n = len(nodes)

    def integration(subset):
        ch = [c for i in subset for c in nodes[i]]
        return sum(bf_entropy(cov[np.ix_(nodes[i], nodes[i])]) for i in subset) - bf_entropy(
            cov[np.ix_(ch, ch)]
        )

    whole = integration(range(n))
    return sum(
        k / n * whole - np.mean([integration(s) for s in itertools.combinations(range(n), k)])
        for k in range(1, n + 1)
    )


def random_system(c, seed, radius=0.8):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(c, c))
    return radius * a / np.max(np.abs(np.linalg.eigvals(a)))


# --------------------------------------------------------------------------- Phi
def test_two_disconnected_nodes_have_no_integrated_information():
    x = simulate_var1([[0.6, 0.0], [0.0, -0.3]], 2_000, n_episodes=100, seed=3)
    assert abs(integrated_information(x).phi) < 0.002


def test_two_disconnected_subsystems_are_found_by_the_mib_and_give_zero():
    a = np.zeros((4, 4))
    a[0, 1] = a[1, 0] = a[2, 3] = a[3, 2] = 0.5  # {0, 1} and {2, 3} never interact
    x = simulate_var1(a, 2_000, n_episodes=60, seed=4)
    for normalisation in ("entropy", "maximum_entropy"):
        r = integrated_information(x, normalisation=normalisation)
        assert r.bipartition == ((0, 1), (2, 3)) and r.exhaustive and r.n_searched == 7
        assert abs(r.phi) < 0.003
    # the whole carries the two pairs' information, -log2(1 - 0.25) each
    assert r.whole_information == pytest.approx(-2 * math.log2(0.75), abs=0.01)


@pytest.mark.parametrize("a", [0.2, 0.5, 0.8])
def test_two_nodes_driving_each_other_match_the_closed_form(a):
    x = simulate_var1([[0.0, a], [a, 0.0]], 2_000, n_episodes=100, seed=5)
    assert integrated_information(x).phi == pytest.approx(-math.log2(1 - a * a), abs=0.01)


@pytest.mark.parametrize("a", [0.1, 0.25, 0.45])
def test_symmetric_two_node_system_matches_the_closed_form_including_its_sign(a):
    rho = a / (1 - 2 * a * a)
    expected = -0.5 * math.log2(1 - 4 * a * a) + math.log2(1 - rho * rho)
    x = simulate_var1([[a, a], [a, a]], 2_000, n_episodes=100, seed=6)
    assert integrated_information(x).phi == pytest.approx(expected, abs=0.01)
    if a == 0.45:
        assert expected < 0  # whole-minus-sum goes negative when the parts' own memory dominates


@pytest.mark.parametrize("normalisation", ["entropy", "maximum_entropy"])
def test_phi_equals_the_brute_force_over_every_bipartition(normalisation):
    x = simulate_var1(random_system(6, seed=7), 400, n_episodes=10, seed=7)
    nodes = [[0], [1, 2], [3], [4, 5]]  # multivariate elements too
    for grouping in (None, nodes):
        r = integrated_information(x, nodes=grouping, normalisation=normalisation)
        phi, normalised, part = bf_phi(x, grouping, normalisation)
        assert r.phi == pytest.approx(phi, abs=1e-9) and r.phi_normalised == pytest.approx(
            normalised, abs=1e-9
        )
        assert r.bipartition[0] == part


def test_the_approximate_search_never_beats_the_exhaustive_minimum():
    for seed in range(3):
        x = simulate_var1(random_system(8, seed=seed), 300, n_episodes=10, seed=seed)
        exact = integrated_information(x, normalisation="maximum_entropy")
        approx = integrated_information(
            x, normalisation="maximum_entropy", max_exhaustive=4, n_random=8
        )
        assert (
            exact.exhaustive
            and not approx.exhaustive
            and approx.n_searched < exact.n_searched == 127
        )
        assert approx.phi_normalised >= exact.phi_normalised - 1e-12
        assert approx == integrated_information(
            x, normalisation="maximum_entropy", max_exhaustive=4, n_random=8
        )


def test_phi_is_unchanged_by_the_channels_units():
    x = simulate_var1(random_system(4, seed=8), 500, n_episodes=4, seed=8)
    scaled = x * np.array([1e-3, 2.0, 50.0, 0.1]) + 7.0
    for normalisation in ("entropy", "maximum_entropy"):
        a = integrated_information(x, normalisation=normalisation)
        b = integrated_information(scaled, normalisation=normalisation)
        assert a.phi == pytest.approx(b.phi, abs=1e-9) and a.bipartition == b.bipartition


def _held_memory(seed=0):
    """A slot memory written once per episode and held unchanged (x_t = x_{t-1} exactly)."""
    rng = np.random.default_rng(seed)
    return np.repeat(rng.normal(size=(20, 1, 3)), 16, axis=1)


def test_undefined_cases_are_nan_with_the_reason():
    x = simulate_var1(random_system(3, seed=9), 200, seed=9)
    constant = np.c_[x, np.ones(len(x))]
    with pytest.warns(UndefinedMetricWarning, match=r"\b2\b\D+\b8\b") as caught:  # 2 of 8 dead
        assert math.isnan(integrated_information(constant).phi)
    assert reasons_of(caught) == ["constant_channels"]
    value, reasons = undefined(integrated_information, np.zeros((10, 3)))
    assert math.isnan(value.phi) and reasons == ["no_activity"]
    with pytest.warns(UndefinedMetricWarning, match=r"\b5\b\D+\b6\b") as caught:  # 5 for 6 dims
        assert math.isnan(integrated_information(x[:6]).phi)
    assert reasons_of(caught) == ["too_few_samples"]
    value, reasons = undefined(integrated_information, _held_memory())  # x_t = x_{t-1}
    assert math.isnan(value.phi) and reasons == ["linear_dependence"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isfinite(integrated_information(_held_memory(), ridge=1e-3).phi)
        assert math.isfinite(integrated_information(constant, ridge=1e-3).phi)


def test_entropy_normalisation_is_undefined_for_redundant_parts():
    rng = np.random.default_rng(10)
    z = simulate_var1([[0.9]], 400, n_episodes=5, seed=10)
    x = z + 1e-3 * rng.normal(size=(5, 400, 4))  # four almost identical channels
    value, reasons = undefined(integrated_information, x)
    assert math.isnan(value.phi) and reasons == ["normalisation"]
    assert math.isfinite(integrated_information(x, normalisation="maximum_entropy").phi)


def test_bad_inputs_raise():
    x = simulate_var1(random_system(3, seed=11), 50, seed=11)
    with pytest.raises(ValueError, match=r"^nodes"):  # channel 1 in two elements
        integrated_information(x, nodes=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"\b2\b"):  # one element: the minimum is 2
        integrated_information(x, nodes=[[0, 1, 2]])
    with pytest.raises(ValueError, match="tau"):
        integrated_information(x, tau=50)
    with pytest.raises(ValueError, match="ridge"):
        integrated_information(x, ridge=-1.0)
    with pytest.raises(ValueError, match="normalisation"):
        integrated_information(x, normalisation="size")
    with pytest.raises(ValueError, match="NaN"):
        integrated_information(np.full((10, 2), np.nan))


# --------------------------------------------------------------------------- O-information
def test_independent_channels_have_zero_o_information():
    x = np.random.default_rng(12).normal(size=(100_000, 5))
    terms = higher_order_information(x)
    assert abs(terms.o_information) < 1e-3 and abs(terms.total_correlation) < 1e-3


def _redundant(n=3, noise=0.5, size=100_000, seed=13):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(size, 1)) + noise * rng.normal(size=(size, n))


def _synergistic(size=100_000, seed=14):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(2, size))
    return np.c_[a, b, a + b + 0.3 * rng.normal(size=size)]


def test_redundant_copies_are_positive_and_a_sum_is_negative():
    assert o_information(_redundant()) > 0.5
    assert o_information(_synergistic()) < -0.5


def test_o_information_matches_the_closed_form_of_the_true_covariance():
    # Redundant copies X_i = Z + 0.5 e_i: covariance J + 0.25 I, TC and DTC by brute force on it.
    cov = np.ones((3, 3)) + 0.25 * np.eye(3)
    h = bf_entropy(cov)
    tc = 3 * bf_entropy(cov[:1, :1]) - h
    dtc = 3 * bf_entropy(cov[:2, :2]) - 2 * h
    assert o_information(_redundant()) == pytest.approx(tc - dtc, abs=0.02)


def test_o_information_equals_the_brute_force_tc_minus_dtc():
    x = simulate_var1(random_system(6, seed=15), 300, n_episodes=6, seed=15)
    for nodes in (None, [[0, 1], [2], [3, 4, 5]]):
        terms = higher_order_information(x, nodes=nodes)
        tc, dtc = bf_higher_order(x, nodes)
        assert terms.total_correlation == pytest.approx(tc, abs=1e-9)
        assert terms.dual_total_correlation == pytest.approx(dtc, abs=1e-9)
        assert terms.o_information == pytest.approx(tc - dtc, abs=1e-9)
        assert terms.s_information == pytest.approx(tc + dtc, abs=1e-9)


def test_two_elements_have_zero_o_information_and_tc_equal_to_dtc():
    x = np.random.default_rng(16).multivariate_normal([0, 0], [[1, 0.7], [0.7, 1]], size=1000)
    terms = higher_order_information(x)
    assert terms.o_information == pytest.approx(0.0, abs=1e-12)
    assert terms.total_correlation == pytest.approx(terms.dual_total_correlation, abs=1e-12)


def test_too_few_samples_are_undefined_whatever_the_ridge():
    # With a ridge, 2 samples of 4 independent channels would give an O-information of 8.62 bits.
    x = np.random.default_rng(17).normal(size=(2, 4))
    for ridge in (0.0, 1e-3, 1.0):
        for measure in (o_information, tse_complexity):
            value, reasons = undefined(measure, x, ridge=ridge)
            assert math.isnan(value) and reasons == ["too_few_samples"]
    with pytest.warns(UndefinedMetricWarning, match="6-dimensional"):  # Phi_E pairs: 2 x 3 dims
        assert math.isnan(integrated_information(x[:, :3].repeat(3, 0), ridge=1e-3).phi)


def test_singularity_is_judged_on_correlations_not_on_scale():
    # A healthy channel scaled by 1e-6 is healthy: every measure is unchanged by a channel's scale.
    x = np.random.default_rng(18).multivariate_normal(
        np.zeros(3), [[1, 0.5, 0.2], [0.5, 1, 0.3], [0.2, 0.3, 1]], size=2000
    )
    tiny = x * np.array([1e-6, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert o_information(tiny) == pytest.approx(o_information(x), abs=1e-9)
        assert tse_complexity(tiny) == pytest.approx(tse_complexity(x), abs=1e-9)
    # A channel that is an exact linear function of others is singular at any scale.
    dependent = np.c_[x, 1e-6 * (x[:, 0] + x[:, 1])]
    value, reasons = undefined(o_information, dependent)
    assert math.isnan(value) and reasons == ["linear_dependence"]


def test_o_information_undefined_cases():
    summed = np.c_[_synergistic()[:, :2], _synergistic()[:, :2].sum(1)]
    value, reasons = undefined(o_information, summed)
    assert math.isnan(value) and reasons == ["linear_dependence"]
    value, reasons = undefined(o_information, np.zeros((5, 4)))
    assert math.isnan(value) and reasons == ["no_activity"]


# --------------------------------------------------------------------------- TSE
def test_tse_of_independent_units_is_zero():
    x = np.random.default_rng(17).normal(size=(100_000, 5))
    assert abs(tse_complexity(x)) < 2e-3


def test_tse_equals_the_brute_force_integration_form():
    x = simulate_var1(random_system(6, seed=18), 300, n_episodes=6, seed=18)
    for nodes in (None, [[0], [1, 2], [3], [4, 5]]):
        assert tse_complexity(x, nodes=nodes) == pytest.approx(bf_tse(x, nodes), abs=1e-9)


def test_tse_of_two_elements_is_half_their_mutual_information():
    x = np.random.default_rng(19).multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], size=5000)
    cov = np.cov(x, rowvar=False)
    mi = bf_entropy(cov[:1, :1]) + bf_entropy(cov[1:, 1:]) - bf_entropy(cov)
    assert tse_complexity(x) == pytest.approx(mi / 2, abs=1e-12)


def test_sampled_tse_is_close_to_the_exact_average_and_reproducible():
    x = simulate_var1(random_system(10, seed=20, radius=0.6), 400, n_episodes=10, seed=20)
    exact = tse_complexity(x)
    sampled = tse_complexity(x, max_exact=4, n_subsets=40, seed=1)
    assert sampled == tse_complexity(x, max_exact=4, n_subsets=40, seed=1)
    assert sampled == pytest.approx(exact, rel=0.05)


# --------------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.lists(st.floats(1e-2, 1e2), min_size=4, max_size=4))
def test_every_measure_ignores_units_and_channel_order(seed, scale):
    x = simulate_var1(random_system(4, seed=seed), 200, n_episodes=3, seed=seed)
    y = (x * np.array(scale))[..., ::-1]
    assert tse_complexity(x) == pytest.approx(tse_complexity(y), abs=1e-6)
    assert o_information(x) == pytest.approx(o_information(y), abs=1e-6)
    assert integrated_information(x, normalisation="maximum_entropy").phi == pytest.approx(
        integrated_information(y, normalisation="maximum_entropy").phi, abs=1e-6
    )


# --------------------------------------------------------------------------- helpers
def test_surrogates_show_the_bias_of_an_independent_system_and_destroy_coupling():
    rng = np.random.default_rng(21)
    noise = rng.normal(size=(16, 32, 8))  # like one condition: 16 episodes of 32 steps
    estimate = o_information(noise)
    bias = surrogate_bias(o_information, noise, n_surrogates=16)
    assert abs(bias - estimate) < 0.15 and abs(bias) < 0.3
    coupled = simulate_var1([[0.0, 0.8], [0.8, 0.0]], 64, n_episodes=40, seed=22)

    def phi(v):
        return integrated_information(v).phi

    assert phi(coupled) > 0.9 and abs(surrogate_bias(phi, coupled)) < 0.1


def test_time_shuffled_surrogates_leave_equal_time_measures_unchanged():
    x = simulate_var1(random_system(4, seed=23), 50, n_episodes=4, seed=23)
    assert surrogate_bias(o_information, x, method="time_shuffle", n_surrogates=3) == pytest.approx(
        o_information(x), abs=1e-9
    )


def test_surrogate_bias_undefined_and_bad_inputs():
    value, reasons = undefined(surrogate_bias, o_information, np.zeros((2, 10, 3)))
    assert math.isnan(value) and reasons == ["every_surrogate"]
    with pytest.raises(ValueError, match="method"):
        surrogate_bias(o_information, np.ones((2, 10, 3)), method="phase")
    with pytest.raises(ValueError, match="n_surrogates"):
        surrogate_bias(o_information, np.ones((2, 10, 3)), n_surrogates=0)


def test_evoked_response_is_the_difference_after_the_pulse():
    clean = np.arange(24.0).reshape(2, 4, 3)
    pulsed = clean.copy()
    pulsed[:, 2:] += 1.0
    out = evoked_response(pulsed.reshape(2, 4, 3, 1), clean.reshape(2, 4, 3, 1), start=2)
    assert out.shape == (2, 2, 3) and np.all(out == 1.0)
    with pytest.raises(ValueError, match=re.escape(str(clean[:1].shape))):  # both shapes named
        evoked_response(pulsed, clean[:1])
    with pytest.raises(ValueError, match="start"):
        evoked_response(pulsed, clean, start=4)


def test_simulate_var1_checks_stationarity():
    with pytest.raises(ValueError, match=r"^coupling"):  # not stationary
        simulate_var1([[1.0]], 10)
    assert simulate_var1([[0.5, 0], [0, 0.5]], 7, n_episodes=3).shape == (3, 7, 2)
