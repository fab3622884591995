"""Representation markers: effective dimensionality of z_self and its PCA control.

Paper: Phua (2025), sec 4.1 "Baseline Variants" and sec 5.1 "Control Analyses: Blind
Ablation and Compression" (z_self has effective dimensionality ~2.0 and beats a PCA
baseline matched to it by +5.1% AUROC at predicting correctness).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from labcore.markers._common import as_float_array, warn_undefined
from labcore.markers.decoding import (
    DECODER_MAX_ITER,
    _check_decoding_inputs,
    _cv_auroc,
    _one_class,
    _stratified_splits,
)


def effective_dimensionality(X: ArrayLike) -> float:
    """Participation ratio of the covariance spectrum.

    .. math:: \\mathrm{PR} = \\frac{(\\sum_i \\lambda_i)^2}{\\sum_i \\lambda_i^2}

    with :math:`\\lambda_i` the eigenvalues of the covariance of ``X``: ``k`` for isotropic
    variance in ``k`` dimensions (paper sec 5.1: z_self has PR ~2.0).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        ``n_samples >= 2``.

    Returns
    -------
    float
        In [1, min(n_samples - 1, n_features)]; invariant to scaling ``X``.

    Warns
    -----
    UndefinedMetricWarning
        If every feature is constant (no variance): returns nan.

    References
    ----------
    .. [1] Gao, P., Trautmann, E., Yu, B., et al. (2017). A theory of multineuronal
       dimensionality, dynamics and measurement. bioRxiv 214262.
    .. [2] Recanatesi, S., Farrell, M., Lajoie, G., et al. (2021). A scale-dependent
       notion of effective dimension. arXiv:1909.08016.

    Examples
    --------
    Variance spread equally over two of three axes:

    >>> X = [[1, 0, 5], [-1, 0, 5], [0, 1, 5], [0, -1, 5]]
    >>> effective_dimensionality(X)
    2.0
    """
    x = as_float_array(X, "X", ndim=2)
    if x.shape[0] < 2:
        raise ValueError(f"X needs at least 2 samples, got {x.shape[0]}")
    if np.all(np.ptp(x, axis=0) == 0):
        warn_undefined(
            "effective dimensionality is undefined: X has zero variance", reason="zero_variance"
        )
        return float("nan")
    centred = x - x.mean(axis=0)
    lam = np.linalg.svd(centred, compute_uv=False) ** 2
    lam = lam / lam.max()  # scale-free; avoids overflow in the squares
    return float(lam.sum() ** 2 / np.sum(lam**2))


def decoder_auroc(
    X: ArrayLike,
    y: ArrayLike,
    *,
    n_splits: int = 5,
    seed: int = 0,
) -> float:
    """Cross-validated AUROC of the linear decoder predicting binary ``y`` from ``X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Binary target (e.g. first-order correctness).
    n_splits : int, default=5
    seed : int, default=0

    Returns
    -------
    float

    Warns
    -----
    UndefinedMetricWarning
        If ``y`` holds a single class: returns nan.

    Examples
    --------
    >>> y = np.tile([0, 1], 10)
    >>> decoder_auroc(np.c_[y, np.zeros(20)], y)
    1.0
    """
    x, labels = _check_decoding_inputs(X, y, n_splits)
    if _one_class(labels):
        warn_undefined("decoder AUROC is undefined: y holds a single class", reason="one_class")
        return float("nan")
    return _cv_auroc(x, labels, _stratified_splits(labels, n_splits, seed))


def pca_matched_baseline(
    X: ArrayLike,
    y: ArrayLike,
    n_components: int,
    *,
    seed: int = 0,
    n_splits: int = 5,
) -> float:
    """Cross-validated AUROC of the linear decoder on the top-k principal components of X.

    The paper's "PCA baseline matched to the effective dimensionality of z_self" (sec 4.1, 5.1).

    Parameters
    ----------
    X, y, seed, n_splits
        As :func:`decoder_auroc` (the same seed gives the same folds).
    n_components : int
        ``k``, typically ``round(effective_dimensionality(z_self))``; at most the number of
        features and of training samples per fold.

    Returns
    -------
    float

    Warns
    -----
    UndefinedMetricWarning
        If ``y`` holds a single class: returns nan.

    Notes
    -----
    PCA is fit inside each training fold on the centred, unscaled features (the spectrum
    :func:`effective_dimensionality` measures); the k scores are then standardised.

    Examples
    --------
    The label lives on the high-variance axis, so one component suffices:

    >>> y = np.tile([0, 1], 10)
    >>> X = np.c_[10.0 * y, np.linspace(0, 1, 20)]
    >>> pca_matched_baseline(X, y, n_components=1)
    1.0
    """
    x, labels = _check_decoding_inputs(X, y, n_splits)
    if not isinstance(n_components, int | np.integer) or n_components < 1:
        raise ValueError(f"n_components must be a positive integer, got {n_components!r}")
    if _one_class(labels):
        warn_undefined(
            "PCA baseline AUROC is undefined: y holds a single class", reason="one_class"
        )
        return float("nan")
    splits = _stratified_splits(labels, n_splits, seed)
    max_k = min(x.shape[1], min(train.size for train, _ in splits))
    if n_components > max_k:
        raise ValueError(f"n_components={n_components} exceeds the maximum {max_k}")

    def make_model() -> Pipeline:
        return make_pipeline(
            PCA(n_components=int(n_components), svd_solver="full"),
            StandardScaler(),
            LogisticRegression(max_iter=DECODER_MAX_ITER),
        )

    return _cv_auroc(x, labels, splits, make_model)
