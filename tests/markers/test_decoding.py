"""Tests for labcore.markers.decoding (Delta NRS) against a direct sklearn re-implementation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from labcore import UndefinedMetricWarning
from labcore.markers import delta_nrs
from tests.refusals import undefined


def reference_cv_auc(x, y, splits):
    aucs = []
    for train, test in splits:
        if len(set(y[test])) < 2:
            continue
        if len(set(y[train])) < 2:
            aucs.append(0.5)
            continue
        scaler = StandardScaler().fit(x[train])
        clf = LogisticRegression(max_iter=1000).fit(scaler.transform(x[train]), y[train])
        aucs.append(roc_auc_score(y[test], clf.decision_function(scaler.transform(x[test]))))
    return float(np.mean(aucs))


def reference_delta_nrs(x, y, n_splits, n_shuffles, seed):
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    splits = list(cv.split(x, y))
    true = reference_cv_auc(x, y, splits)
    rng = np.random.default_rng(seed)
    shuffles = [reference_cv_auc(x, rng.permutation(y), splits) for _ in range(n_shuffles)]
    return true, float(np.mean(shuffles))


def make_data(rng, n=80, n_features=6, signal=1.0):
    y = np.repeat([0, 1], n // 2)
    x = rng.normal(size=(n, n_features))
    x[:, 0] += signal * y
    return x, y


@pytest.mark.parametrize("signal", [0.0, 1.0, 3.0])
def test_delta_nrs_matches_reference(signal):
    x, y = make_data(np.random.default_rng(1), signal=signal)
    r = delta_nrs(x, y, n_splits=4, n_shuffles=6, seed=3)
    true, shuffle_mean = reference_delta_nrs(x, y, 4, 6, 3)
    assert r.auc_true == pytest.approx(true, abs=1e-12)
    assert r.auc_shuffle_mean == pytest.approx(shuffle_mean, abs=1e-12)
    assert r.delta == pytest.approx(true - shuffle_mean, abs=1e-12)
    assert r.auc_shuffle.shape == (6,)


def test_delta_nrs_detects_signal_and_not_noise():
    rng = np.random.default_rng(2)
    x, y = make_data(rng, n=200, signal=2.0)
    assert delta_nrs(x, y, n_shuffles=10).delta > 0.3
    x, y = make_data(rng, n=200, signal=0.0)
    assert abs(delta_nrs(x, y, n_shuffles=10).delta) < 0.12


def test_delta_nrs_zero_features_is_exactly_zero():
    # bus-off: the workspace broadcast is identically zero
    y = np.tile([0, 1, 1], 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = delta_nrs(np.zeros((60, 16)), y, n_shuffles=5)
    assert (r.auc_true, r.auc_shuffle_mean, r.delta) == (0.5, 0.5, 0.0)
    np.testing.assert_array_equal(r.auc_shuffle, 0.5)


def test_delta_nrs_constant_feature_columns_do_not_crash():
    rng = np.random.default_rng(4)
    x, y = make_data(rng, signal=2.0)
    x = np.c_[x, np.full(len(y), 3.0), np.zeros(len(y))]
    assert delta_nrs(x, y, n_shuffles=3).delta > 0.2


def test_delta_nrs_seeded():
    x, y = make_data(np.random.default_rng(5), signal=0.5)
    a = delta_nrs(x, y, seed=7, n_shuffles=5)
    b = delta_nrs(x, y, seed=7, n_shuffles=5)
    assert (a.auc_true, a.auc_shuffle_mean, a.delta) == (b.auc_true, b.auc_shuffle_mean, b.delta)
    c = delta_nrs(x, y, seed=8, n_shuffles=5)
    assert c.auc_shuffle_mean != a.auc_shuffle_mean


def test_delta_nrs_single_class_is_undefined():
    r, reasons = undefined(delta_nrs, np.ones((10, 2)), np.ones(10), n_shuffles=3)
    assert reasons == ["one_class"]
    assert math.isnan(r.delta) and math.isnan(r.auc_true)
    assert r.auc_shuffle.shape == (3,)


@pytest.mark.parametrize(
    ("features", "labels", "kwargs", "match"),
    [
        (np.ones((10, 2)), [0, 1] * 4, {}, "inconsistent"),
        (np.ones(10), [0, 1] * 5, {}, "dimension"),
        (np.ones((10, 2)), [0, 2] * 5, {}, "binary"),
        (np.ones((10, 2)), [0] * 8 + [1] * 2, {}, r"\b2\b\D+n_splits=5"),  # 2 < 5 splits
        (np.ones((10, 2)), [0, 1] * 5, {"n_splits": 1}, "n_splits"),
        (np.ones((10, 2)), [0, 1] * 5, {"n_shuffles": 0}, "n_shuffles"),
        (np.full((10, 2), np.nan), [0, 1] * 5, {}, "NaN"),
    ],
)
def test_delta_nrs_validation(features, labels, kwargs, match):
    with pytest.raises(ValueError, match=match):
        delta_nrs(features, labels, **kwargs)


def test_decoded_information_bits_against_a_known_channel():
    from labcore.markers import decoded_information_bits

    rng = np.random.default_rng(3)
    n = 4000
    y = rng.integers(0, 2, n)
    # A binary symmetric channel with flip probability q carries 1 - H(q) bits (q as realised).
    flip = rng.random(n) < 0.1
    flipped = np.where(flip, 1 - y, y)
    bits = decoded_information_bits(flipped[:, None].astype(float), y)
    q = flip.mean()
    h = -(q * np.log2(q) + (1 - q) * np.log2(1 - q))
    assert bits == pytest.approx(1 - h, abs=0.01)
    # Independent noise carries (nearly) nothing, never less than 0.
    assert 0.0 <= decoded_information_bits(rng.normal(size=(n, 3)), y) < 0.01
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(decoded_information_bits(np.ones((10, 1)), np.ones(10)))
