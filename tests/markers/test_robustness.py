"""Tests for labcore.markers.robustness (L75)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcore.markers import L75Result, l75

SETTINGS = settings(max_examples=80, deadline=None)


def brute_l75(sigmas, accs, threshold=0.75):
    """(value, censored, bound) by walking the curve."""
    for i, (s, a) in enumerate(zip(sigmas, accs, strict=True)):
        if a <= threshold:
            if i == 0:
                return math.nan, "left", s
            s0, a0 = sigmas[i - 1], accs[i - 1]
            value = s0 + (s - s0) * (a0 - threshold) / (a0 - a)
            return value, "none", value
    return math.nan, "right", sigmas[-1]


curves = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.001, 0.2), min_size=n, max_size=n),
        st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n),
    )
)


def as_curve(steps_accs):
    steps, accs = steps_accs
    return list(np.cumsum(steps)), accs


@SETTINGS
@given(curves)
def test_l75_matches_brute_force(curve):
    sigmas, accs = as_curve(curve)
    r = l75(sigmas, accs)
    value, censored, bound = brute_l75(sigmas, accs)
    assert r.censored == censored
    assert r.bound == pytest.approx(bound)
    if censored == "none":
        assert r.value == pytest.approx(value)
        assert sigmas[0] <= r.value <= sigmas[-1]
    else:
        assert math.isnan(r.value)


@SETTINGS
@given(curves, st.lists(st.floats(0.0, 0.5), min_size=8, max_size=8))
def test_l75_monotone_in_accuracy(curve, raises):
    sigmas, accs = as_curve(curve)
    higher = [min(1.0, a + d) for a, d in zip(accs, raises, strict=False)]
    assert l75(sigmas, higher).ordering_value >= l75(sigmas, accs).ordering_value - 1e-12


def test_l75_paper_like_cases():
    # B1-like: collapse between 0.02 and 0.06
    r = l75([0.0, 0.02, 0.06, 0.1], [1.0, 1.0, 0.5, 0.2])
    assert (r.value, r.censored) == (pytest.approx(0.04), "none")
    assert str(r) == "0.04"
    assert f"{r:.3f}" == "0.040"
    # B2-like: >80% at sigma = 0.5: right-censored, never a made-up number
    r = l75([0.0, 0.1, 0.25, 0.5], [0.99, 0.95, 0.9, 0.82])
    assert r.censored == "right" and math.isnan(r.value) and r.bound == 0.5
    assert str(r) == "> 0.50"
    assert r.ordering_value == math.inf
    # already below at the smallest sigma
    r = l75([0.01, 0.05], [0.6, 0.3])
    assert (r.censored, r.bound, str(r)) == ("left", 0.01, "<= 0.01")
    assert r.ordering_value == -math.inf


def test_l75_touching_threshold_counts_and_first_crossing_wins():
    assert l75([0.0, 0.1], [1.0, 0.75]).value == pytest.approx(0.1)
    # a later recovery does not move L75
    assert l75([0.0, 0.1, 0.2, 0.3], [1.0, 0.5, 0.9, 0.2]).value == pytest.approx(0.05)
    # other thresholds
    r = l75([0.0, 0.1], [1.0, 0.0], threshold=0.5)
    assert r.value == pytest.approx(0.05) and r.threshold == 0.5


def test_l75_result_is_frozen():
    r = L75Result(0.1, "none", 0.1)
    with pytest.raises(AttributeError):
        r.value = 0.2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("sigmas", "accs", "kwargs", "match"),
    [
        ([0.0, 0.0], [1.0, 0.5], {}, r"^sigmas"),  # not strictly increasing
        ([0.1, 0.0], [1.0, 0.5], {}, r"^sigmas"),
        ([0.0, 0.1], [1.0, 1.5], {}, r"\[0, 1\]"),
        ([0.0, 0.1], [1.0], {}, "inconsistent"),
        ([0.0, np.nan], [1.0, 0.5], {}, "NaN"),
        ([0.0, 0.1], [1.0, 0.5], {"threshold": 1.0}, "threshold"),
        ([], [], {}, "empty"),
    ],
)
def test_l75_validation(sigmas, accs, kwargs, match):
    with pytest.raises(ValueError, match=match):
        l75(sigmas, accs, **kwargs)


# ----------------------------------------------------------------------- ideal-observer ceiling
from scipy.stats import norm  # noqa: E402

from labcore.markers import ideal_observer_accuracy, ideal_observer_l75, ideal_observer_thresholds  # noqa: E402


def _two_classes(distance: float, trials: int = 400):
    codes = np.zeros((trials, 2, 3))
    codes[:, 1, 0] = distance
    return codes, np.arange(trials) % 2


def test_ideal_observer_matches_the_two_class_closed_form():
    codes, labels = _two_classes(1.0)
    thresholds = ideal_observer_thresholds(codes, labels, n_samples=500, seed=3)
    for sigma in (0.2, 0.5, 1.0):
        assert ideal_observer_accuracy(thresholds, sigma) == pytest.approx(
            norm.cdf(1.0 / (2 * sigma)), abs=0.01
        )
    assert ideal_observer_l75(thresholds) == pytest.approx(1.0 / (2 * norm.ppf(0.75)), rel=0.02)


def test_ideal_observer_equals_a_brute_force_observer_on_the_same_draws():
    rng = np.random.default_rng(0)
    trials, classes, dims = 30, 7, 16
    codes = rng.normal(size=(trials, classes, dims))
    labels = rng.integers(classes, size=trials)
    scale = rng.uniform(0.5, 3.0, size=(trials, dims))
    thresholds = ideal_observer_thresholds(codes, labels, scale, n_samples=50, seed=11)
    z = np.random.default_rng(11).standard_normal((trials, 50, dims))  # the function's draws
    for sigma in (0.3, 1.0, 2.5):
        x = codes[np.arange(trials), labels][:, None, :] + sigma * scale[:, None, :] * z
        dist = (((x[:, :, None, :] - codes[:, None, :, :]) / scale[:, None, None, :]) ** 2).sum(-1)
        brute = np.mean(dist.argmin(-1) == labels[:, None])
        assert ideal_observer_accuracy(thresholds, sigma) == pytest.approx(brute, abs=1e-12)


def test_ideal_observer_scales_with_the_code_and_the_noise():
    codes, labels = _two_classes(1.0, 50)
    base = ideal_observer_l75(ideal_observer_thresholds(codes, labels, seed=1))
    assert ideal_observer_l75(
        ideal_observer_thresholds(3 * codes, labels, seed=1)
    ) == pytest.approx(3 * base)
    assert ideal_observer_l75(
        ideal_observer_thresholds(codes, labels, np.full(3, 2.0), seed=1)
    ) == pytest.approx(base / 2)


def test_ideal_observer_edge_cases():
    same = np.zeros((40, 7, 4))  # the code holds no information: the observer guesses (1/7)
    labels = np.arange(40) % 7
    thresholds = ideal_observer_thresholds(same, labels, n_samples=200)
    assert ideal_observer_accuracy(thresholds, 0.0) == pytest.approx(1 / 7, abs=0.02)
    assert ideal_observer_l75(thresholds) == 0.0
    codes, labels = _two_classes(1.0, 10)  # the difference sits in a dimension without noise
    assert (
        ideal_observer_l75(ideal_observer_thresholds(codes, labels, np.array([0.0, 1.0, 1.0])))
        == np.inf
    )
    with pytest.raises(ValueError, match="labels"):
        ideal_observer_thresholds(codes, labels[:3])
    with pytest.raises(ValueError, match="non-negative"):
        ideal_observer_l75(np.array([0.1, np.nan]))
