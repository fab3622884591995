"""Tests for the representation markers (in labcore.markers.decoding) against re-implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from labcore import UndefinedMetricWarning
from labcore.markers import decoder_auroc, effective_dimensionality, pca_matched_baseline
from tests.refusals import undefined

SETTINGS = settings(max_examples=30, deadline=None)


def brute_participation_ratio(x):
    lam = np.linalg.eigvalsh(np.atleast_2d(np.cov(np.asarray(x, float), rowvar=False)))
    lam = np.clip(lam, 0, None)
    return lam.sum() ** 2 / np.sum(lam**2)


def reference_auroc(x, y, seed, n_splits, n_components=None):
    aucs = []
    for train, test in StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(x, y):
        xtr, xte = x[train], x[test]
        if n_components is not None:
            pca = PCA(n_components=n_components, svd_solver="full").fit(xtr)
            xtr, xte = pca.transform(xtr), pca.transform(xte)
        scaler = StandardScaler().fit(xtr)
        clf = LogisticRegression(max_iter=1000).fit(scaler.transform(xtr), y[train])
        aucs.append(roc_auc_score(y[test], clf.decision_function(scaler.transform(xte))))
    return float(np.mean(aucs))


# --------------------------------------------------------------------------- effective dim


@SETTINGS
@given(st.integers(1, 5), st.integers(0, 3), st.floats(0.1, 10))
def test_isotropic_k_dimensional_data_gives_k(k, extra, scale):
    # +-e_i for i < k: covariance is proportional to the identity on k axes
    eye = np.eye(k + extra)[:k]
    x = scale * np.vstack([eye, -eye]) + 3.0
    assert effective_dimensionality(x) == pytest.approx(k)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.integers(1, 8))
def test_effective_dimensionality_matches_covariance_eigenvalues(seed, n, f):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, f)) * rng.uniform(0.1, 3, size=f)
    value = effective_dimensionality(x)
    assert value == pytest.approx(brute_participation_ratio(x), rel=1e-9)
    assert 1 - 1e-9 <= value <= min(n - 1, f) + 1e-9
    assert effective_dimensionality(1e3 * x) == pytest.approx(value, rel=1e-9)


def test_effective_dimensionality_hand_case():
    # variances 4 and 1 on two axes: (4 + 1)^2 / (16 + 1)
    x = np.array([[2.0, 0], [-2, 0], [0, 1], [0, -1]])
    assert effective_dimensionality(x) == pytest.approx(25 / 17)


def test_effective_dimensionality_undefined_and_validation():
    value, reasons = undefined(effective_dimensionality, np.full((5, 3), 0.7))
    assert math.isnan(value) and reasons == ["zero_variance"]
    with pytest.raises(ValueError, match=r"\b2\b"):  # the minimum number of samples
        effective_dimensionality(np.ones((1, 3)))
    with pytest.raises(ValueError, match="dimension"):
        effective_dimensionality(np.ones(3))


# --------------------------------------------------------------------------- decoders


def test_decoder_and_pca_baseline_match_reference():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    x = rng.normal(size=(80, 10)) * np.linspace(3, 0.5, 10)
    x[:, 7] += 1.5 * y
    assert decoder_auroc(x, y, seed=2, n_splits=4) == pytest.approx(
        reference_auroc(x, y, 2, 4), abs=1e-12
    )
    assert pca_matched_baseline(x, y, 3, seed=2, n_splits=4) == pytest.approx(
        reference_auroc(x, y, 2, 4, n_components=3), abs=1e-12
    )


def test_pca_baseline_misses_low_variance_signal():
    # The paper's point: the top-variance directions need not carry what matters.
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 100)
    x = np.c_[10 * rng.normal(size=(200, 2)), 0.3 * y + 0.1 * rng.normal(size=200)]
    assert decoder_auroc(x, y) > 0.95
    assert pca_matched_baseline(x, y, 2) < 0.7


def test_decoders_undefined_and_validation():
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(decoder_auroc(np.ones((6, 2)), np.zeros(6)))
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(pca_matched_baseline(np.ones((6, 2)), np.zeros(6), 1))
    y = np.tile([0, 1], 10)
    with pytest.raises(ValueError, match="n_components"):
        pca_matched_baseline(np.ones((20, 2)), y, 3)
    with pytest.raises(ValueError, match="n_components"):
        pca_matched_baseline(np.ones((20, 2)), y, 0)
    with pytest.raises(ValueError, match="n_components"):
        pca_matched_baseline(np.ones((20, 2)), y, 1.5)
    # zero-variance features: the decoder sits at chance
    assert decoder_auroc(np.zeros((20, 3)), y) == 0.5
