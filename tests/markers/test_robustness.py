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
        ([0.0, 0.0], [1.0, 0.5], {}, "strictly increasing"),
        ([0.1, 0.0], [1.0, 0.5], {}, "strictly increasing"),
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
