"""Decoding and representation markers: no-report access (GWT; Experiment 2), z_self's
effective dimensionality and its PCA control.

Paper: Phua (2025), sec 4.4 "No-Report Signature (Delta NRS)", sec 5.2 "Bus-Off Discontinuity
in an Access Marker", sec 4.1 and 5.1 "Control Analyses" (z_self has effective dimensionality
~2.0 and beats a PCA baseline matched to it by +5.1% AUROC). The decoder of every decoding
marker standardises the features (fit on the training fold) and fits an L2 logistic regression
(C = 1, lbfgs); its AUROC is the mean over seeded stratified test folds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn import config_context
from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from labcore.markers._common import (
    as_binary_1d,
    as_float_array,
    auroc_core,
    check_same_length,
    warn_undefined,
)

#: Iteration cap of the logistic-regression decoder (lbfgs, L2, C = 1).
DECODER_MAX_ITER = 1000

Splits = Sequence[tuple[NDArray[np.intp], NDArray[np.intp]]]


def _logistic() -> LogisticRegression:
    """The decoder's classifier."""
    return LogisticRegression(max_iter=DECODER_MAX_ITER)


def _linear_decoder() -> BaseEstimator:
    """The linear decoder of every decoding marker."""
    return make_pipeline(StandardScaler(), _logistic())


def _check_decoding_inputs(
    features: ArrayLike, labels: ArrayLike, n_splits: int
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Validate (n_samples, n_features) features and binary labels for CV decoding."""
    x = as_float_array(features, "features", ndim=2)
    y = as_binary_1d(labels, "labels")
    check_same_length(features=x, labels=y)
    if not isinstance(n_splits, int | np.integer) or n_splits < 2:
        raise ValueError(f"n_splits must be an integer >= 2, got {n_splits!r}")
    return x, y


def _one_class(y: NDArray[np.bool_]) -> bool:
    """True if the labels hold a single class."""
    return bool(y.all() or not y.any())


def _stratified_splits(y: NDArray[np.bool_], n_splits: int, seed: int) -> Splits:
    """Seeded stratified K-fold splits; each class needs at least ``n_splits`` samples."""
    smallest = int(min(y.sum(), (~y).sum()))
    if smallest < n_splits:
        raise ValueError(
            f"the smaller class has {smallest} samples; need at least n_splits={n_splits}"
        )
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return list(cv.split(np.zeros((y.size, 1)), y))


def _cv_auroc(
    x: NDArray[np.float64],
    y: NDArray[np.bool_],
    splits: Splits,
    make_model: Callable[[], BaseEstimator] = _linear_decoder,
    standardised: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]] | None = None,
) -> float:
    """Mean test-fold AUROC of ``make_model()`` (or the classifier on ``standardised`` folds);
    one-class test folds are skipped, a one-class training fold scores 0.5; nan if none is left.
    """
    aucs = []
    # The inputs were checked once: the many small fits skip scikit-learn's re-checking.
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for i, (train, test) in enumerate(splits):
            y_train, y_test = y[train], y[test]
            if _one_class(y_test):
                continue
            if _one_class(y_train):
                scores = np.zeros(test.size)
            elif standardised is not None:
                x_train, x_test = standardised[i]
                scores = _logistic().fit(x_train, y_train).decision_function(x_test)
            else:
                scores = make_model().fit(x[train], y_train).decision_function(x[test])
            aucs.append(auroc_core(y_test, np.asarray(scores, dtype=np.float64)))
    return float(np.mean(aucs)) if aucs else float("nan")


@dataclass(frozen=True, eq=False)
class DeltaNRSResult:
    """No-report signature: CV AUROC with the true labels, per label shuffle and their mean, and
    ``delta = auc_true - auc_shuffle_mean``."""

    auc_true: float
    auc_shuffle_mean: float
    delta: float
    auc_shuffle: NDArray[np.float64]


def delta_nrs(
    features: ArrayLike,
    labels: ArrayLike,
    *,
    n_splits: int = 5,
    n_shuffles: int = 20,
    seed: int = 0,
) -> DeltaNRSResult:
    """No-report signature: decodability of a binary stimulus above a shuffled baseline.

    .. math::

        \\Delta\\mathrm{NRS} = \\mathrm{AUC}_{\\mathrm{true}}
        - \\mathbb{E}[\\mathrm{AUC}_{\\mathrm{shuffle}}]

    (paper sec 4.4), the shuffle baseline refitting the decoder on permuted labels with the same
    train/test splits.

    Parameters
    ----------
    features : array-like of shape (n_samples, n_features)
        Internal feature vectors from blocked-report steps.
    labels : array-like of shape (n_samples,)
        Binary stimulus label.
    n_splits : int, default=5
        Stratified folds; each class needs at least this many samples.
    n_shuffles : int, default=20
        Label permutations for the baseline.
    seed : int, default=0
        Seeds both the fold assignment and the permutations.

    Returns
    -------
    DeltaNRSResult

    Warns
    -----
    UndefinedMetricWarning
        If ``labels`` hold a single class: every field is nan.

    Notes
    -----
    Choices where the paper is silent: the AUC is averaged over test folds, not pooled over
    out-of-fold scores (differently-offset fold models push a pooled AUC below 0.5), so
    zero-variance features (bus-off) give exactly 0.5 and Delta NRS = 0. A shuffled labelling
    that leaves a test fold with one class skips that fold.

    References
    ----------
    .. [1] Ojala, M., & Garriga, G. C. (2010). Permutation tests for studying classifier
       performance. Journal of Machine Learning Research, 11, 1833-1863.
    .. [2] Tsuchiya, N., Wilke, M., Frassle, S., & Lamme, V. A. F. (2015). No-report
       paradigms: extracting the true neural correlates of consciousness. Trends in
       Cognitive Sciences, 19(12), 757-770.

    Examples
    --------
    All-zero features (bus-off workspace) carry nothing: every fold scores 0.5.

    >>> labels = np.tile([0, 1], 20)
    >>> r = delta_nrs(np.zeros((40, 8)), labels, n_shuffles=5)
    >>> r.auc_true, r.auc_shuffle_mean, r.delta
    (0.5, 0.5, 0.0)

    A feature equal to the label is decoded perfectly:

    >>> r = delta_nrs(labels[:, None] + 0.0, labels, n_shuffles=5)
    >>> r.auc_true, bool(r.delta > 0.3)
    (1.0, True)
    """
    x, y = _check_decoding_inputs(features, labels, n_splits)
    if not isinstance(n_shuffles, int | np.integer) or n_shuffles < 1:
        raise ValueError(f"n_shuffles must be a positive integer, got {n_shuffles!r}")
    if _one_class(y):
        warn_undefined("Delta NRS is undefined: labels hold a single class", reason="one_class")
        nan = float("nan")
        return DeltaNRSResult(nan, nan, nan, np.full(n_shuffles, np.nan))
    splits = _stratified_splits(y, n_splits, seed)
    folds = []  # each split's features standardised once, shared by every labelling
    for train, test in splits:
        scaler = StandardScaler().fit(x[train])
        folds.append((scaler.transform(x[train]), scaler.transform(x[test])))
    auc_true = _cv_auroc(x, y, splits, standardised=folds)
    rng = np.random.default_rng(seed)
    auc_shuffle = np.array(
        [_cv_auroc(x, rng.permutation(y), splits, standardised=folds) for _ in range(n_shuffles)]
    )
    finite = auc_shuffle[np.isfinite(auc_shuffle)]
    if finite.size == 0:
        warn_undefined(
            "Delta NRS is undefined: every shuffle left one-class test folds",
            reason="one_class_folds",
        )
        return DeltaNRSResult(auc_true, float("nan"), float("nan"), auc_shuffle)
    shuffle_mean = float(finite.mean())
    return DeltaNRSResult(auc_true, shuffle_mean, auc_true - shuffle_mean, auc_shuffle)


def decoded_information_bits(
    features: ArrayLike, labels: ArrayLike, *, n_splits: int = 5, seed: int = 0
) -> float:
    """Lower bound, in bits, on the information ``features`` carry about binary ``labels``.

    .. math::

        \\hat I = H(y) - \\mathrm{CE}_{\\mathrm{cv}}, \\qquad
        \\mathrm{CE}_{\\mathrm{cv}} = -\frac{1}{n} \\sum_i \\log_2 \\hat p_i(y_i),

    with :math:`\\hat p_i` the decoder's out-of-fold probability and :math:`H(y)` the empirical
    label entropy: a lower bound on :math:`I(X; y)` (any decoder's cross-entropy is at least
    :math:`H(y|X)`), clipped at 0.

    Parameters
    ----------
    features : array-like of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,), binary
    n_splits, seed : cross-validation folds and their seed

    Returns
    -------
    float
        Bits, in [0, H(y)]; nan with a warning if only one class is present.

    Examples
    --------
    A feature that is the label carries about H(y) = 1 bit; a constant feature none:

    >>> y = np.tile([0, 1], 50)
    >>> round(decoded_information_bits(y[:, None].astype(float), y), 1)
    0.9
    >>> decoded_information_bits(np.ones((100, 1)), y)
    0.0
    """
    x, y = _check_decoding_inputs(features, labels, n_splits)
    if _one_class(y):
        warn_undefined(
            "decoded information is undefined: labels hold one class only", reason="one_class"
        )
        return float("nan")
    p1 = y.mean()
    entropy = float(-(p1 * np.log2(p1) + (1 - p1) * np.log2(1 - p1)))
    prob = np.empty(y.size)
    for train, test in _stratified_splits(y, n_splits, seed):
        model = _linear_decoder().fit(x[train], y[train])
        prob[test] = model.predict_proba(x[test])[:, 1]
    p_true = np.clip(np.where(y, prob, 1 - prob), 1e-12, 1.0)
    cross_entropy = float(-np.mean(np.log2(p_true)))
    return max(0.0, entropy - cross_entropy)


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
            _logistic(),
        )

    return _cv_auroc(x, labels, splits, make_model)
