"""Composite markers (Experiment 3): OOD gap and the hierarchical regression.

Paper: Phua (2025), sec 5.3 "Composite Predicts OOD Fragility Across Architectures" and
"Unique Variance Decomposition" (GBI: R^2 ~0.15; + Delta PCI: Delta R^2 ~2%; + Type-2
AUROC: Delta R^2 ~19%, in-sample r ~0.79, r_LOO ~0.62).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore import LabWarning
from labcore.markers._common import (
    as_float_1d,
    as_float_array,
    check_unit_interval,
    pearson_r,
    warn_undefined,
)


def ood_gap(
    id_accuracy: float | ArrayLike, ood_accuracy: float | ArrayLike
) -> float | NDArray[np.float64]:
    """OOD generalisation gap: in-distribution minus out-of-distribution accuracy.

    .. math:: \\mathrm{gap} = \\mathrm{acc}_{\\mathrm{ID}} - \\mathrm{acc}_{\\mathrm{OOD}}

    Larger = worse generalisation (paper sec 5.3, Figure 3b).

    Parameters
    ----------
    id_accuracy, ood_accuracy : float or array-like of the same shape
        Accuracies in [0, 1] (e.g. one per seed).

    Returns
    -------
    float or ndarray
        A float for scalar inputs, else an array of the common shape.

    Examples
    --------
    >>> ood_gap(0.9, 0.65)
    0.25
    >>> ood_gap([1.0, 0.8], [0.5, 0.8])
    array([0.5, 0. ])
    """
    a = as_float_array(id_accuracy, "id_accuracy")
    b = as_float_array(ood_accuracy, "ood_accuracy")
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: id_accuracy {a.shape} vs ood_accuracy {b.shape}")
    check_unit_interval(a, "id_accuracy")
    check_unit_interval(b, "ood_accuracy")
    gap = a - b
    return float(gap) if gap.ndim == 0 else gap


@dataclass(frozen=True, eq=False)
class RegressionStep:
    """One step of a hierarchical regression (OLS with intercept on the first k predictors)."""

    predictors: tuple[str, ...]
    r2: float
    delta_r2: float
    """R^2 gain over the previous step (over 0 for the first step)."""
    r: float
    """In-sample Pearson r of fitted and observed values."""
    r_loo: float
    """Pearson r of leave-one-out predictions and observed values."""
    coefficients: NDArray[np.float64]
    """Intercept, then one slope per predictor (minimum-norm if rank-deficient)."""


@dataclass(frozen=True, eq=False)
class HierarchicalRegressionResult:
    """Steps of :func:`hierarchical_regression`, in order."""

    steps: tuple[RegressionStep, ...]
    n_samples: int

    def __getitem__(self, k: int) -> RegressionStep:
        return self.steps[k]

    def __len__(self) -> int:
        return len(self.steps)


def _ols(design: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.linalg.lstsq(design, y, rcond=None)[0]


def hierarchical_regression(
    y: ArrayLike,
    predictors: Mapping[str, ArrayLike],
) -> HierarchicalRegressionResult:
    """Hierarchical (sequential) OLS regression: add predictors one at a time.

    Step ``k`` regresses ``y`` on an intercept and the first ``k`` predictors (in the
    mapping's order) and reports

    .. math::

        R^2_k = 1 - \\frac{\\sum_i (y_i - \\hat y_i)^2}{\\sum_i (y_i - \\bar y)^2},
        \\qquad \\Delta R^2_k = R^2_k - R^2_{k-1},

    r and r_LOO (paper sec 5.3: GBI, then + Delta PCI, then + Type-2 AUROC).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Outcome (e.g. OOD gap per agent and seed).
    predictors : mapping of str to array-like of shape (n_samples,)
        Ordered predictors, e.g. ``{"GBI": gbi, "dPCI": dpci, "AUROC": auroc}``.

    Returns
    -------
    HierarchicalRegressionResult

    Warns
    -----
    UndefinedMetricWarning
        ``y`` constant (every statistic nan); a saturated step with
        ``n_samples <= k + 1`` (R^2, r, r_LOO nan); ``n_samples == k + 2`` (each
        leave-one-out fit is saturated: r_LOO nan); fitted or LOO values constant (r or
        r_LOO nan).
    LabWarning
        If a step's design is rank-deficient: it adds nothing (Delta R^2 = 0).

    Examples
    --------
    ``y`` is exactly ``x1``; ``x2`` adds nothing:

    >>> y = [1.0, 2.0, 3.0, 4.0, 5.0]
    >>> res = hierarchical_regression(y, {"x1": y, "x2": [1.0, -1.0, 0.0, 1.0, -1.0]})
    >>> res[0].r2, res[0].r, res[0].r_loo
    (1.0, 1.0, 1.0)
    >>> round(res[1].delta_r2, 12)
    0.0
    """
    target = as_float_1d(y, "y")
    n = target.size
    if not isinstance(predictors, Mapping) or len(predictors) == 0:
        raise ValueError("predictors must be a non-empty mapping of name -> array")
    names = tuple(predictors)
    columns = []
    for name in names:
        col = as_float_1d(predictors[name], f"predictors[{name!r}]")
        if col.size != n:
            raise ValueError(f"predictors[{name!r}] has {col.size} samples, y has {n}")
        columns.append(col)

    nan = float("nan")
    constant_y = bool(np.ptp(target) == 0)
    if constant_y:
        warn_undefined("hierarchical regression is undefined: y is constant", reason="constant_y")
    sst = float(np.sum((target - target.mean()) ** 2))

    steps: list[RegressionStep] = []
    previous_r2 = 0.0
    for k in range(1, len(names) + 1):
        design = np.column_stack([np.ones(n), *columns[:k]])
        if np.linalg.matrix_rank(design) < k + 1 and n > k + 1:
            warnings.warn(
                f"step {k} ({names[k - 1]!r}): the design is rank-deficient (constant or "
                "collinear predictor); it adds no information",
                LabWarning,
                stacklevel=2,
            )
        coef = _ols(design, target) if n > 0 else np.full(k + 1, np.nan)
        if constant_y:
            steps.append(RegressionStep(names[:k], nan, nan, nan, nan, coef))
            continue
        if n <= k + 1:
            warn_undefined(
                f"step {k}: saturated model (n_samples={n} <= {k + 1} parameters); "
                "R^2, r and r_LOO are nan",
                reason="saturated",
            )
            steps.append(RegressionStep(names[:k], nan, nan, nan, nan, coef))
            previous_r2 = nan
            continue
        fitted = design @ coef
        r2 = 1.0 - float(np.sum((target - fitted) ** 2)) / sst
        r = pearson_r(fitted, target)
        if np.isnan(r):
            warn_undefined(
                f"step {k}: fitted values are constant; in-sample r is nan", reason="constant_fit"
            )
        if n <= k + 2:
            warn_undefined(
                f"step {k}: leave-one-out fits are saturated (n_samples={n}); r_LOO is nan",
                reason="saturated_loo",
            )
            r_loo = nan
        else:
            keep = ~np.eye(n, dtype=bool)
            loo = np.array([design[i] @ _ols(design[keep[i]], target[keep[i]]) for i in range(n)])
            r_loo = pearson_r(loo, target)
            if np.isnan(r_loo):
                warn_undefined(
                    f"step {k}: leave-one-out predictions are constant; r_LOO is nan",
                    reason="constant_loo",
                )
        steps.append(RegressionStep(names[:k], r2, r2 - previous_r2, r, r_loo, coef))
        previous_r2 = r2
    return HierarchicalRegressionResult(tuple(steps), n)
