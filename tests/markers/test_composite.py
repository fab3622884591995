"""Tests for labcore.markers.composite against normal-equation / hat-matrix formulas."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labcore import LabWarning, UndefinedMetricWarning
from labcore.markers import hierarchical_regression, ood_gap
from tests.refusals import reasons_of, undefined

SETTINGS = settings(max_examples=30, deadline=None)


def reference_step(y, columns):
    """OLS by the normal equations; LOO residuals e_i / (1 - h_ii) from the hat matrix."""
    n = len(y)
    design = np.column_stack([np.ones(n), *columns])
    gram_inv = np.linalg.inv(design.T @ design)
    beta = gram_inv @ design.T @ y
    fitted = design @ beta
    resid = y - fitted
    r2 = 1 - resid @ resid / np.sum((y - y.mean()) ** 2)
    hat = np.einsum("ij,jk,ik->i", design, gram_inv, design)
    loo = y - resid / (1 - hat)
    return r2, np.corrcoef(fitted, y)[0, 1], np.corrcoef(loo, y)[0, 1], beta


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(6, 40))
def test_matches_normal_equations_and_hat_matrix(seed, n):
    rng = np.random.default_rng(seed)
    gbi, dpci, auroc = rng.normal(size=(3, n))
    y = 0.5 * gbi + 0.2 * dpci + 0.8 * auroc + rng.normal(size=n)
    res = hierarchical_regression(y, {"GBI": gbi, "dPCI": dpci, "AUROC": auroc})
    assert len(res) == 3 and res.n_samples == n
    previous = 0.0
    cols = [gbi, dpci, auroc]
    for k, step in enumerate(res.steps, start=1):
        r2, r, r_loo, beta = reference_step(y, cols[:k])
        assert step.predictors == ("GBI", "dPCI", "AUROC")[:k]
        assert step.r2 == pytest.approx(r2, abs=1e-9)
        assert step.delta_r2 == pytest.approx(r2 - previous, abs=1e-9)
        assert step.r == pytest.approx(r, abs=1e-9)
        assert step.r == pytest.approx(math.sqrt(max(step.r2, 0)), abs=1e-9)
        assert step.r_loo == pytest.approx(r_loo, abs=1e-9)
        np.testing.assert_allclose(step.coefficients, beta, atol=1e-8)
        assert step.delta_r2 >= -1e-12  # nested OLS never loses fit
        previous = r2


def test_hand_example():
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    res = hierarchical_regression(y, {"x1": y, "x2": [1.0, -1.0, 0.0, 1.0, -1.0]})
    assert res[0].r2 == pytest.approx(1.0)
    assert res[1].delta_r2 == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(res[0].coefficients, [0.0, 1.0], atol=1e-12)


def test_constant_predictor_adds_nothing_and_warns():
    rng = np.random.default_rng(0)
    x = rng.normal(size=20)
    y = x + rng.normal(size=20)
    with pytest.warns(LabWarning, match="rank-deficient"):
        res = hierarchical_regression(y, {"x": x, "auroc": np.full(20, 0.5)})
    assert res[1].delta_r2 == pytest.approx(0.0, abs=1e-12)
    assert res[1].r_loo == pytest.approx(res[0].r_loo, abs=1e-9)
    with (
        pytest.warns(LabWarning, match="rank-deficient"),
        pytest.warns(UndefinedMetricWarning) as caught,
    ):
        res = hierarchical_regression(y, {"auroc": np.full(20, 0.5)})
    assert "constant_fit" in reasons_of(caught)
    assert res[0].r2 == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(res[0].r)


def test_saturated_and_degenerate_cases():
    res, reasons = undefined(
        hierarchical_regression, [1.0, 2.0, 4.0], {"a": [0.0, 1.0, 3.0], "b": [1, 0, 1]}
    )
    assert {"saturated", "saturated_loo"} <= set(reasons)
    assert not math.isnan(res[0].r2) and math.isnan(res[0].r_loo)  # n = k + 2
    assert math.isnan(res[1].r2) and math.isnan(res[1].delta_r2)  # n = k + 1
    res, reasons = undefined(hierarchical_regression, [2.0] * 5, {"a": [0, 1, 2, 3, 5]})
    assert reasons == ["constant_y"]
    assert math.isnan(res[0].r2)


def test_no_warnings_in_regular_case():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 15))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hierarchical_regression(x[0] + x[1], {"a": x[0], "b": x[1]})


@pytest.mark.parametrize(
    ("y", "predictors", "match"),
    [
        ([1.0, 2.0, 3.0], {}, "non-empty"),
        ([1.0, 2.0, 3.0], {"a": [1.0, 2.0]}, "samples"),
        ([1.0, 2.0, np.nan], {"a": [1.0, 2.0, 3.0]}, "NaN"),
        ([1.0, 2.0, 3.0], {"a": [[1.0, 2.0, 3.0]]}, "dimension"),
    ],
)
def test_validation(y, predictors, match):
    with pytest.raises(ValueError, match=match):
        hierarchical_regression(y, predictors)


def test_ood_gap():
    assert ood_gap(0.9, 0.65) == pytest.approx(0.25)
    assert isinstance(ood_gap(0.9, 0.65), float)
    np.testing.assert_allclose(ood_gap([1.0, 0.8], [0.5, 0.9]), [0.5, -0.1])
    with pytest.raises(ValueError, match="shape"):
        ood_gap([1.0, 0.8], [0.5])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ood_gap(1.2, 0.5)
