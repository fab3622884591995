"""Metacognition markers (HOT; Experiment 1): does confidence track correctness?

Pure functions of per-trial arrays ``correct`` (binary, 1 = the first-order decision was
right) and ``confidence`` (the wager ``c``). Paper: Phua (2025), sec 4.4 "Type-2 AUROC",
sec 4.2 "Wagering Paradigm" and sec 5.1.

* :func:`type2_roc`, :func:`type2_auroc` -- metacognitive sensitivity (higher is better).
* :func:`calibration_curve`, :func:`expected_calibration_error`, :func:`brier_score` --
  calibration (ECE and Brier: lower is better).
* :func:`risk_coverage_curve`, :func:`aurc` -- selective prediction (AURC: lower is better).
* :func:`wagering_utility`, :func:`skip_fraction` -- the paper's bet / opt-out rule.
* :func:`meta_d_prime`, :func:`meta_d_prime_from_counts` -- type-2 SDT (Maniscalco & Lau
  2012): meta-d', d' and the M-ratio.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from labcore import LabWarning
from labcore.markers._common import (
    as_binary_1d,
    as_float_1d,
    auroc_core,
    check_choice,
    check_same_length,
    check_unit_interval,
    warn_undefined,
)

__all__ = [
    "CalibrationCurve",
    "MetaDResult",
    "RiskCoverageCurve",
    "aurc",
    "brier_score",
    "calibration_curve",
    "expected_calibration_error",
    "meta_d_prime",
    "meta_d_prime_from_counts",
    "risk_coverage_curve",
    "skip_fraction",
    "type2_auroc",
    "type2_roc",
    "wagering_utility",
]

#: The paper's wager threshold: c > 0.5 is a bet, c <= 0.5 an opt-out (sec 4.2).
WAGER_THRESHOLD = 0.5


def _check_trials(
    correct: ArrayLike, confidence: ArrayLike, *, unit_interval: bool
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    correct_arr = as_binary_1d(correct, "correct")
    conf = as_float_1d(confidence, "confidence")
    check_same_length(correct=correct_arr, confidence=conf)
    if unit_interval:
        check_unit_interval(conf, "confidence")
    return correct_arr, conf


# --------------------------------------------------------------------------- type-2 ROC


def type2_roc(
    correct: ArrayLike, confidence: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Type-2 ROC curve: confidence as a predictor of first-order correctness.

    For each threshold ``t`` the true-positive rate is the fraction of correct trials with
    ``c > t`` and the false-positive rate the fraction of incorrect trials with ``c > t``
    (paper sec 4.4). The thresholds are every distinct confidence value in decreasing
    order followed by ``-inf``, so the curve runs from (0, 0) to (1, 1) and visits every
    achievable operating point.

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence wager ``c``. Any real scale: only the order matters.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds,)
        Type-2 false-positive rate, ``#{incorrect, c > t} / #incorrect``.
    tpr : ndarray of shape (n_thresholds,)
        Type-2 hit rate, ``#{correct, c > t} / #correct``.
    thresholds : ndarray of shape (n_thresholds,)
        ``n_thresholds = n_distinct_confidences + 1``; decreasing, last is ``-inf``.

    Warns
    -----
    UndefinedMetricWarning
        If all trials are correct (``fpr`` is all-nan) or all incorrect (``tpr`` is all-nan).

    See Also
    --------
    type2_auroc : the area under this curve.

    Notes
    -----
    The trapezoidal area under this curve equals :func:`type2_auroc` exactly, because a
    block of tied confidences moves the curve along a straight segment (ties count 1/2).

    References
    ----------
    .. [1] Fleming, S. M., & Lau, H. C. (2014). How to measure metacognition. Frontiers in
       Human Neuroscience, 8, 443.

    Examples
    --------
    >>> fpr, tpr, thr = type2_roc([1, 1, 0, 0], [0.9, 0.6, 0.6, 0.2])
    >>> thr
    array([ 0.9,  0.6,  0.2, -inf])
    >>> tpr
    array([0. , 0.5, 1. , 1. ])
    >>> fpr
    array([0. , 0. , 0.5, 1. ])
    """
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=False)
    values, inverse = np.unique(conf, return_inverse=True)
    thresholds = np.concatenate((values[::-1], [-np.inf]))
    # Trials with c > thresholds[i] are exactly those in the i largest distinct values.
    pos_above = np.concatenate(
        ([0], np.cumsum(np.bincount(inverse[correct_arr], minlength=values.size)[::-1]))
    )
    neg_above = np.concatenate(
        ([0], np.cumsum(np.bincount(inverse[~correct_arr], minlength=values.size)[::-1]))
    )
    n_pos, n_neg = int(pos_above[-1]), int(neg_above[-1])
    tpr = pos_above / n_pos if n_pos else None
    fpr = neg_above / n_neg if n_neg else None
    if tpr is None or fpr is None:
        warn_undefined(
            "type-2 ROC is undefined: all trials are "
            + ("incorrect (tpr is nan)" if tpr is None else "correct (fpr is nan)")
        )
    nan = np.full(thresholds.shape, np.nan)
    return (nan if fpr is None else fpr), (nan if tpr is None else tpr), thresholds


def type2_auroc(
    correct: ArrayLike,
    confidence: ArrayLike,
    *,
    undefined: Literal["nan", "chance"] = "nan",
) -> float:
    """Type-2 AUROC: probability that a correct trial gets higher confidence than an error.

    .. math::

        \\mathrm{AUROC}_2 = P(c_{+} > c_{-}) + \\tfrac12 P(c_{+} = c_{-}),

    where ``c+`` / ``c-`` are the confidences of a random correct / incorrect trial. 0.5 is
    chance (no metacognitive insight), 1.0 perfect (paper sec 4.4; higher is better).

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence wager. Any real scale: the value depends only on the order.
    undefined : {"nan", "chance"}, default="nan"
        What to return when only one class is present (e.g. a seed with perfect
        first-order accuracy). ``"nan"`` returns nan with an
        :class:`~labcore.UndefinedMetricWarning`; ``"chance"`` returns 0.5 silently, the
        imputation the paper uses for its seed-level workspace-lesion aggregation
        (sec 5.1, "imputing AUROC = 0.50 when AUROC is undefined due to perfect
        first-order performance").

    Returns
    -------
    float
        The type-2 AUROC in [0, 1] (or nan / 0.5 when undefined, see ``undefined``).

    Warns
    -----
    UndefinedMetricWarning
        With ``undefined="nan"`` when all trials are correct or all incorrect.

    Notes
    -----
    Computed exactly from integer pair counts (the Mann-Whitney U with ties counted 1/2),
    so a constant confidence gives exactly 0.5, and the value is invariant to any strictly
    increasing transform of the confidence. Equal to
    ``sklearn.metrics.roc_auc_score(correct, confidence)``.

    References
    ----------
    .. [1] Fleming, S. M., Weil, R. S., Nagy, Z., Dolan, R. J., & Rees, G. (2010).
       Relating introspective accuracy to individual differences in brain structure.
       Science, 329(5998), 1541-1543.
    .. [2] Hanley, J. A., & McNeil, B. J. (1982). The meaning and use of the area under a
       receiver operating characteristic (ROC) curve. Radiology, 143(1), 29-36.

    Examples
    --------
    Pairs (correct, incorrect): (0.9, 0.6) win, (0.9, 0.2) win, (0.6, 0.6) tie,
    (0.6, 0.2) win, so AUROC = (3 + 0.5) / 4:

    >>> type2_auroc([1, 1, 0, 0], [0.9, 0.6, 0.6, 0.2])
    0.875
    >>> type2_auroc([1, 0, 1, 0], [0.54, 0.54, 0.54, 0.54])
    0.5
    >>> type2_auroc([1, 1, 1], [0.2, 0.9, 0.7], undefined="chance")
    0.5
    """
    check_choice(undefined, "undefined", ("nan", "chance"))
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=False)
    value = auroc_core(correct_arr, conf)
    if np.isnan(value):
        if undefined == "chance":
            return 0.5
        warn_undefined(
            "type-2 AUROC is undefined: all trials are "
            + ("correct" if correct_arr.all() else "incorrect")
            + "; returning nan (pass undefined='chance' for the paper's 0.5 imputation)"
        )
    return value


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True, eq=False)
class CalibrationCurve:
    """Reliability diagram data; one entry per bin (empty bins: nan and count 0).

    Attributes
    ----------
    bin_edges : ndarray of shape (n_bins + 1,)
    mean_confidence : ndarray of shape (n_bins,)
        Mean confidence of the trials in each bin (nan if empty).
    accuracy : ndarray of shape (n_bins,)
        Fraction correct in each bin (nan if empty).
    counts : ndarray of shape (n_bins,)
        Number of trials in each bin.
    """

    bin_edges: NDArray[np.float64]
    mean_confidence: NDArray[np.float64]
    accuracy: NDArray[np.float64]
    counts: NDArray[np.int64]

    @property
    def nonempty(self) -> NDArray[np.bool_]:
        """Boolean mask of bins that hold at least one trial."""
        return self.counts > 0


def _bin_index(
    conf: NDArray[np.float64], n_bins: int, strategy: str
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    if not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    check_choice(strategy, "strategy", ("uniform", "quantile"))
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.quantile(conf, np.linspace(0.0, 1.0, n_bins + 1))
    # Right-closed bins (e_k, e_{k+1}], the first also holding e_0 (Guo et al. 2017).
    return np.searchsorted(edges[1:-1], conf, side="left"), edges


def calibration_curve(
    correct: ArrayLike,
    confidence: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: Literal["uniform", "quantile"] = "uniform",
) -> CalibrationCurve:
    """Reliability diagram: accuracy against mean confidence in confidence bins.

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence in [0, 1], read as the stated probability of being correct.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal-width bins on [0, 1]. ``"quantile"``: edges at the
        confidence quantiles (equal-count bins up to ties; tied edges leave empty bins).

    Returns
    -------
    CalibrationCurve
        Bins are right-closed, ``(e_k, e_{k+1}]``, the first also holding ``e_0``; so with
        two uniform bins ``c = 0.5`` falls in the lower bin, like the paper's opt-out rule.
        Empty bins are kept (nan, count 0) so that entries align with ``bin_edges``.

    Notes
    -----
    Paper Figure 1c (sec 5.1). A perfectly calibrated agent lies on the diagonal
    ``accuracy = mean_confidence``; the self-removed agent collapses to a single bin
    around its constant confidence (about 0.54).

    References
    ----------
    .. [1] Guo, C., Pleiss, G., Sun, Y., & Weinberger, K. Q. (2017). On calibration of
       modern neural networks. ICML.

    Examples
    --------
    >>> cc = calibration_curve([0, 1, 1, 1], [0.2, 0.4, 0.8, 0.9], n_bins=2)
    >>> cc.counts
    array([2, 2])
    >>> cc.mean_confidence
    array([0.3 , 0.85])
    >>> cc.accuracy
    array([0.5, 1. ])
    """
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=True)
    idx, edges = _bin_index(conf, n_bins, strategy)
    counts = np.bincount(idx, minlength=n_bins).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.bincount(idx, weights=conf, minlength=n_bins) / counts
        acc = np.bincount(idx, weights=correct_arr.astype(float), minlength=n_bins) / counts
    return CalibrationCurve(edges, mean_conf, acc, counts)


def expected_calibration_error(
    correct: ArrayLike,
    confidence: ArrayLike,
    *,
    n_bins: int = 10,
    strategy: Literal["uniform", "quantile"] = "uniform",
) -> float:
    """Expected calibration error (ECE); lower is better, 0 is perfectly calibrated.

    .. math::

        \\mathrm{ECE} = \\sum_{b} \\frac{n_b}{n}
        \\left| \\mathrm{acc}_b - \\mathrm{conf}_b \\right|

    over the non-empty bins of :func:`calibration_curve` (same ``n_bins``/``strategy``).

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence in [0, 1].
    n_bins : int, default=10
    strategy : {"uniform", "quantile"}, default="uniform"

    Returns
    -------
    float
        ECE in [0, 1].

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G., & Hauskrecht, M. (2015). Obtaining well calibrated
       probabilities using Bayesian binning. AAAI.

    Examples
    --------
    Bin (0, 0.5]: accuracy 0.5, confidence 0.3; bin (0.5, 1]: 1.0 vs 0.85, so
    ECE = 0.5 * 0.2 + 0.5 * 0.15:

    >>> expected_calibration_error([0, 1, 1, 1], [0.2, 0.4, 0.8, 0.9], n_bins=2)
    0.175
    """
    cc = calibration_curve(correct, confidence, n_bins=n_bins, strategy=strategy)
    ok = cc.nonempty
    weights = cc.counts[ok] / cc.counts.sum()
    return float(np.sum(weights * np.abs(cc.accuracy[ok] - cc.mean_confidence[ok])))


def brier_score(correct: ArrayLike, confidence: ArrayLike) -> float:
    """Brier score of confidence as a probability of being correct; lower is better.

    .. math:: \\mathrm{BS} = \\frac{1}{n} \\sum_i (c_i - y_i)^2, \\quad y_i \\in \\{0, 1\\}

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence in [0, 1].

    Returns
    -------
    float
        In [0, 1]; a constant 0.5 scores 0.25 whatever the accuracy.

    References
    ----------
    .. [1] Brier, G. W. (1950). Verification of forecasts expressed in terms of
       probability. Monthly Weather Review, 78(1), 1-3.

    Examples
    --------
    >>> brier_score([1, 0], [0.8, 0.4])
    0.1
    """
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=True)
    return float(np.mean((conf - correct_arr) ** 2))


# --------------------------------------------------------------------------- selective prediction


@dataclass(frozen=True, eq=False)
class RiskCoverageCurve:
    """Risk (error rate) among the ``k`` most confident trials, ``k = 1..n``.

    Attributes
    ----------
    coverage : ndarray of shape (n_trials,)
        ``k / n``.
    risk : ndarray of shape (n_trials,)
        Error rate among the ``k`` most confident trials (tie-averaged, see
        :func:`risk_coverage_curve`).
    thresholds : ndarray of shape (n_trials,)
        Confidence of the ``k``-th most confident trial.
    """

    coverage: NDArray[np.float64]
    risk: NDArray[np.float64]
    thresholds: NDArray[np.float64]


def risk_coverage_curve(correct: ArrayLike, confidence: ArrayLike) -> RiskCoverageCurve:
    """Risk-coverage curve of selective prediction (accept the most confident trials).

    For coverage ``k / n`` the agent answers only its ``k`` most confident trials; the risk
    is the error rate among them.

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence wager. Any real scale: only the order matters.

    Returns
    -------
    RiskCoverageCurve

    Notes
    -----
    Ties: when the ``k``-th trial sits inside a block of ``m`` tied confidences holding
    ``e`` errors, the errors are counted as ``E_before + j e / m`` (``j`` = trials taken
    from the block), the expectation over a random order of the tied trials. So the curve
    does not depend on the input order, matches the threshold rule ``c >= t`` exactly at
    the end of each block, and a constant confidence gives a flat curve at the overall
    error rate.

    References
    ----------
    .. [1] Geifman, Y., & El-Yaniv, R. (2017). Selective classification for deep neural
       networks. NeurIPS.

    Examples
    --------
    >>> rc = risk_coverage_curve([1, 1, 0, 0], [0.9, 0.8, 0.3, 0.2])
    >>> rc.coverage
    array([0.25, 0.5 , 0.75, 1.  ])
    >>> rc.risk
    array([0.  , 0.  , 0.333, 0.5  ])
    """
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=False)
    n = conf.size
    values, inverse, sizes = np.unique(-conf, return_inverse=True, return_counts=True)
    errors = np.bincount(inverse, weights=(~correct_arr).astype(float), minlength=values.size)
    ends = np.cumsum(sizes)
    errors_before = np.cumsum(errors) - errors
    k = np.arange(1, n + 1)
    block = np.searchsorted(ends, k, side="left")
    taken = k - (ends[block] - sizes[block])
    expected_errors = errors_before[block] + taken * errors[block] / sizes[block]
    return RiskCoverageCurve(k / n, expected_errors / k, -values[block])


def aurc(correct: ArrayLike, confidence: ArrayLike) -> float:
    """Area under the risk-coverage curve (AURC); LOWER is better.

    .. math:: \\mathrm{AURC} = \\frac{1}{n} \\sum_{k=1}^{n} \\mathrm{risk}(k / n)

    the right Riemann sum over the curve of :func:`risk_coverage_curve` (the standard
    estimator). It mixes first-order accuracy and metacognition: a constant confidence
    gives the overall error rate, a perfect ranking ``r + (1 - r) ln(1 - r)`` as
    ``n -> inf`` (``r`` = error rate).

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence wager. Any real scale: only the order matters.

    Returns
    -------
    float
        In [0, 1]. Paper Figure 1d ("wagering utility (AURC)").

    References
    ----------
    .. [1] Geifman, Y., & El-Yaniv, R. (2017). Selective classification for deep neural
       networks. NeurIPS.
    .. [2] Geifman, Y., Uziel, G., & El-Yaniv, R. (2019). Bias-reduced uncertainty
       estimation for deep neural classifiers. ICLR.

    Examples
    --------
    Risks 0, 0, 1/3, 1/2 at coverage 1/4 .. 1, so AURC = (1/3 + 1/2) / 4:

    >>> aurc([1, 1, 0, 0], [0.9, 0.8, 0.3, 0.2])
    0.2083
    >>> aurc([1, 1, 0, 0], [0.5, 0.5, 0.5, 0.5])
    0.5
    """
    return float(np.mean(risk_coverage_curve(correct, confidence).risk))


def wagering_utility(
    correct: ArrayLike, confidence: ArrayLike, threshold: float = WAGER_THRESHOLD
) -> float:
    """Mean reward per trial under the paper's bet / opt-out rule (higher is better).

    ``c > threshold`` is a bet (+1 if correct, -1 if incorrect); ``c <= threshold`` is an
    opt-out (0), paper sec 4.2 "Wagering Paradigm".

    Parameters
    ----------
    correct : array-like of shape (n_trials,)
        1 (or True) if the first-order decision was correct, else 0.
    confidence : array-like of shape (n_trials,)
        Confidence in [0, 1].
    threshold : float, default=0.5

    Returns
    -------
    float
        In [-1, 1]. Always betting gives ``2 * accuracy - 1``.

    Examples
    --------
    Rewards +1, +1, -1 and 0 (opt-out):

    >>> wagering_utility([1, 1, 0, 0], [0.9, 0.7, 0.6, 0.5])
    0.25
    """
    correct_arr, conf = _check_trials(correct, confidence, unit_interval=True)
    reward = np.where(conf > threshold, np.where(correct_arr, 1.0, -1.0), 0.0)
    return float(reward.mean())


def skip_fraction(confidence: ArrayLike, threshold: float = WAGER_THRESHOLD) -> float:
    """Fraction of trials with ``c <= threshold`` (opt-outs), paper sec 5.1.

    Parameters
    ----------
    confidence : array-like of shape (n_trials,)
        Confidence in [0, 1].
    threshold : float, default=0.5

    Returns
    -------
    float

    Examples
    --------
    >>> skip_fraction([0.9, 0.7, 0.5, 0.2])
    0.5
    """
    conf = as_float_1d(confidence, "confidence")
    check_unit_interval(conf, "confidence")
    return float(np.mean(conf <= threshold))


# --------------------------------------------------------------------------- meta-d'


@dataclass(frozen=True, eq=False)
class MetaDResult:
    """Type-1 and type-2 signal-detection fit (Maniscalco & Lau 2012).

    Attributes
    ----------
    d_prime : float
        Type-1 sensitivity ``d' = z(H) - z(F)`` from the (padded) counts.
    criterion : float
        Type-1 criterion ``c = -(z(H) + z(F)) / 2``.
    meta_d_prime : float
        Type-2 sensitivity in d' units: the d' an ideal SDT observer would need to
        produce the observed confidence-accuracy relation.
    meta_criterion : float
        Type-1 criterion of the meta model, ``meta_c = meta_d' * c / d'``.
    m_ratio : float
        ``meta_d' / d'`` (1 = metacognitively ideal; 0 = no insight).
    type2_criteria : ndarray of shape (2 * n_ratings - 2,)
        Fitted confidence criteria on the evidence axis, increasing (``meta_c`` excluded).
    log_likelihood : float
        Type-2 log-likelihood at the optimum (of the padded counts).
    counts : ndarray of shape (2, 2 * n_ratings)
        Raw counts (row 0: stimulus S1, row 1: S2) in the layout of
        :func:`meta_d_prime_from_counts`, before padding.
    pad : float
        Amount added to every cell before fitting (0 if none).
    """

    d_prime: float
    criterion: float
    meta_d_prime: float
    meta_criterion: float
    m_ratio: float
    type2_criteria: NDArray[np.float64]
    log_likelihood: float
    counts: NDArray[np.float64]
    pad: float

    @property
    def n_ratings(self) -> int:
        """Number of confidence levels per response."""
        return self.counts.shape[1] // 2


def _type1_sdt(counts: NDArray[np.float64]) -> tuple[float, float]:
    n_ratings = counts.shape[1] // 2
    hit_rate = counts[1, n_ratings:].sum() / counts[1].sum()
    fa_rate = counts[0, n_ratings:].sum() / counts[0].sum()
    z_h, z_f = special.ndtri(hit_rate), special.ndtri(fa_rate)
    return float(z_h - z_f), float(-0.5 * (z_h + z_f))


def _boundaries(theta: NDArray[np.float64], meta_c: float, n_ratings: int) -> NDArray[np.float64]:
    """Cell boundaries -inf < b_1 < ... < b_{2R-1} < inf with b_R = meta_c."""
    gaps_low = np.exp(theta[1:n_ratings])
    gaps_high = np.exp(theta[n_ratings:])
    low = meta_c - np.cumsum(gaps_low)[::-1]
    high = meta_c + np.cumsum(gaps_high)
    return np.concatenate(([-np.inf], low, [meta_c], high, [np.inf]))


def _type2_probabilities(
    meta_d: float, meta_c: float, bounds: NDArray[np.float64], n_ratings: int
) -> NDArray[np.float64]:
    """P(cell | stimulus, response of that cell) under the meta model, shape (2, 2R)."""
    means = np.array([-meta_d / 2.0, meta_d / 2.0])[:, None]
    z = bounds[None, :] - means
    cdf = special.ndtr(z)
    sf = special.ndtr(-z)
    low = (cdf[:, 1 : n_ratings + 1] - cdf[:, :n_ratings]) / cdf[:, [n_ratings]]
    high = (sf[:, n_ratings:-1] - sf[:, n_ratings + 1 :]) / sf[:, [n_ratings]]
    return np.concatenate((low, high), axis=1)


def _fit_meta_d(counts: NDArray[np.float64]) -> tuple[float, float, NDArray[np.float64], float]:
    """Maximum-likelihood meta-d' for finite, positive-margin padded counts.

    Returns (meta_d, meta_c, type2_criteria, log_likelihood).
    """
    n_ratings = counts.shape[1] // 2
    d1, c1 = _type1_sdt(counts)
    # Maniscalco & Lau hold the criterion at the same place relative to d' (c' = c / d');
    # with d' = 0 that ratio is undefined and the criterion is held at c itself.
    ratio = c1 / d1 if abs(d1) > 1e-9 else None

    def meta_criterion(meta_d: float) -> float:
        return meta_d * ratio if ratio is not None else c1

    def nll(theta: NDArray[np.float64]) -> float:
        meta_c = meta_criterion(theta[0])
        bounds = _boundaries(theta, meta_c, n_ratings)
        probs = _type2_probabilities(theta[0], meta_c, bounds, n_ratings)
        return -float(np.sum(counts * np.log(np.clip(probs, 1e-300, None))))

    # Start at the type-1 solution with criteria from the z-transformed rating rates.
    def rates_above(row: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.cumsum(row[::-1])[::-1][1:] / row.sum()

    rates = np.clip(np.stack((rates_above(counts[0]), rates_above(counts[1]))), 1e-4, 1 - 1e-4)
    crit = -0.5 * (special.ndtri(rates[1]) + special.ndtri(rates[0]))
    crit = crit - c1 + meta_criterion(d1)
    crit[n_ratings - 1] = meta_criterion(d1)
    gaps_low = -np.diff(crit[:n_ratings][::-1])
    gaps_high = np.diff(crit[n_ratings - 1 :])
    theta0 = np.concatenate(
        ([d1], np.log(np.maximum(gaps_low, 1e-2)), np.log(np.maximum(gaps_high, 1e-2)))
    )
    res = optimize.minimize(nll, theta0, method="BFGS", options={"gtol": 1e-7})
    if not res.success:
        polished = optimize.minimize(
            nll,
            res.x,
            method="Nelder-Mead",
            options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 20000},
        )
        if polished.fun <= res.fun:
            res = polished
        if not res.success:
            warnings.warn(
                f"meta-d' fit may not have converged: {res.message}", LabWarning, stacklevel=4
            )
    meta_d = float(res.x[0])
    meta_c = meta_criterion(meta_d)
    bounds = _boundaries(res.x, meta_c, n_ratings)
    type2 = np.delete(bounds[1:-1], n_ratings - 1)
    return meta_d, float(meta_c), type2, -float(res.fun)


def _check_counts(counts_s1: ArrayLike, counts_s2: ArrayLike) -> NDArray[np.float64]:
    s1 = as_float_1d(counts_s1, "counts_s1")
    s2 = as_float_1d(counts_s2, "counts_s2")
    if s1.size != s2.size:
        raise ValueError(f"counts_s1 and counts_s2 differ in length: {s1.size} != {s2.size}")
    if s1.size < 4 or s1.size % 2:
        raise ValueError(
            f"counts must have length 2 * n_ratings with n_ratings >= 2, got {s1.size}"
        )
    counts = np.stack((s1, s2))
    if np.any(counts < 0):
        raise ValueError("counts must be non-negative")
    return counts


def meta_d_prime_from_counts(
    counts_s1: ArrayLike, counts_s2: ArrayLike, *, pad: bool = True
) -> MetaDResult:
    """Maximum-likelihood meta-d' from type-2 rating counts (Maniscalco & Lau 2012).

    Parameters
    ----------
    counts_s1, counts_s2 : array-like of shape (2 * n_ratings,)
        Response counts on S1-stimulus and S2-stimulus trials, in the layout of
        Maniscalco's ``nR_S1`` / ``nR_S2``: cells ordered along the evidence axis,
        "S1" responses from highest to lowest confidence, then "S2" responses from lowest
        to highest confidence. E.g. with ``n_ratings = 3``,
        ``[S1-conf3, S1-conf2, S1-conf1, S2-conf1, S2-conf2, S2-conf3]``.
    pad : bool, default=True
        Add ``1 / (2 * n_ratings)`` to every cell before fitting (the standard padding
        correction of Hautus 1995 as recommended by Maniscalco & Lau), which keeps d' and
        every rate finite when a cell is empty. With ``pad=False`` an empty type-1 margin
        makes the fit undefined.

    Returns
    -------
    MetaDResult

    Warns
    -----
    UndefinedMetricWarning
        If a stimulus class has no trials, or (unpadded) the hit or false-alarm rate is 0
        or 1: every field is nan. If d' is 0 the M-ratio is nan (meta-d' is still fitted,
        with the criterion held at ``c``).
    LabWarning
        If the optimiser reports non-convergence.

    Notes
    -----
    The meta model is an equal-variance SDT observer with means ``-/+ meta_d / 2`` whose
    type-1 criterion is held at ``meta_c = meta_d * c / d'`` (same normalised criterion as
    the data). Given the observed response, the probability of each confidence cell is the
    mass of its interval on the evidence axis divided by the mass on that side of
    ``meta_c``; the log-likelihood of the type-2 counts is maximised over meta-d' and the
    ``2 n_ratings - 2`` confidence criteria. The ordering constraints are removed by
    optimising the log gaps between neighbouring criteria (BFGS, Nelder-Mead polish if
    needed); the optimum is the same as with Maniscalco's constrained optimiser.

    References
    ----------
    .. [1] Maniscalco, B., & Lau, H. (2012). A signal detection theoretic approach for
       estimating metacognitive sensitivity from confidence ratings. Consciousness and
       Cognition, 21(1), 422-430.
    .. [2] Hautus, M. J. (1995). Corrections for extreme proportions and their biasing
       effects on estimated values of d'. Behavior Research Methods, 27(1), 46-51.

    Examples
    --------
    A symmetric observer whose ratings carry no information beyond the response
    (same rating split on correct and incorrect trials) has meta-d' = 0:

    >>> r = meta_d_prime_from_counts([30, 30, 10, 10], [10, 10, 30, 30], pad=False)
    >>> round(r.d_prime, 4), round(abs(r.meta_d_prime), 4)
    (1.349, 0.0)
    """
    counts = _check_counts(counts_s1, counts_s2)
    n_ratings = counts.shape[1] // 2
    pad_amount = 1.0 / (2 * n_ratings) if pad else 0.0
    padded = counts + pad_amount

    def undefined(reason: str) -> MetaDResult:
        warn_undefined(f"meta-d' is undefined: {reason}", stacklevel=4)
        nan = float("nan")
        return MetaDResult(
            nan,
            nan,
            nan,
            nan,
            nan,
            np.full(2 * n_ratings - 2, np.nan),
            nan,
            counts,
            pad_amount,
        )

    if np.any(counts.sum(axis=1) == 0):
        return undefined("a stimulus class has no trials")
    margins = np.stack((padded[:, :n_ratings].sum(axis=1), padded[:, n_ratings:].sum(axis=1)))
    if np.any(margins == 0):
        return undefined("hit or false-alarm rate is 0 or 1 (use pad=True)")
    d1, c1 = _type1_sdt(padded)
    meta_d, meta_c, type2, loglik = _fit_meta_d(padded)
    if abs(d1) > 1e-9:
        m_ratio = meta_d / d1
    else:
        warn_undefined("M-ratio is undefined: d' = 0", stacklevel=3)
        m_ratio = float("nan")
    return MetaDResult(d1, c1, meta_d, meta_c, m_ratio, type2, loglik, counts, pad_amount)


def _confidence_to_ratings(
    conf: NDArray[np.float64], n_ratings: int, binning: str
) -> NDArray[np.intp]:
    if binning == "none":
        if not np.all(conf == np.round(conf)) or conf.min() < 1 or conf.max() > n_ratings:
            raise ValueError(
                f"with binning='none' confidence must hold integer ratings 1..{n_ratings}"
            )
        return conf.astype(np.intp)
    if binning == "uniform":
        check_unit_interval(conf, "confidence")
        edges = np.arange(1, n_ratings) / n_ratings
    else:
        edges = np.quantile(conf, np.arange(1, n_ratings) / n_ratings)
    return 1 + np.searchsorted(edges, conf, side="left")


def meta_d_prime(
    stimulus: ArrayLike,
    response: ArrayLike,
    confidence: ArrayLike,
    *,
    n_ratings: int = 4,
    binning: Literal["quantile", "uniform", "none"] = "quantile",
    pad: bool = True,
) -> MetaDResult:
    """meta-d', d' and M-ratio from per-trial stimulus, response and confidence.

    Bins the confidence into ``n_ratings`` levels, tabulates the type-2 counts and calls
    :func:`meta_d_prime_from_counts`.

    Parameters
    ----------
    stimulus : array-like of shape (n_trials,)
        True binary class, 0 = S1, 1 = S2.
    response : array-like of shape (n_trials,)
        Reported binary class, 0 = "S1", 1 = "S2".
    confidence : array-like of shape (n_trials,)
        Confidence per trial (see ``binning``).
    n_ratings : int, default=4
        Number of confidence levels (>= 2).
    binning : {"quantile", "uniform", "none"}, default="quantile"
        ``"quantile"``: equal-count bins, edges at the ``k / n_ratings`` quantiles of the
        confidence over ALL trials (both stimuli, both responses), a value equal to an
        edge going to the lower bin; this uses every level even when the wager is squeezed
        into a narrow range. ``"uniform"``: equal-width bins on [0, 1]. ``"none"``: the
        confidence already holds integer ratings ``1..n_ratings``.
    pad : bool, default=True
        Add ``1 / (2 * n_ratings)`` to every cell (see :func:`meta_d_prime_from_counts`).

    Returns
    -------
    MetaDResult

    Warns
    -----
    UndefinedMetricWarning
        See :func:`meta_d_prime_from_counts`.

    Notes
    -----
    Multi-action reports. SDT needs a binary task. For a report with more than two
    actions (e.g. the 7 MiniGrid actions), pass a binarisation: choose a partition of the
    possible cues into two halves, set ``stimulus`` = the half holding the true cue and
    ``response`` = the half holding the reported action (a report outside the cue set
    counts as the half it is mapped to, or drop those trials and say so). For the
    two-cue wagering task (paper sec 4.2) the partition is the identity.

    References
    ----------
    .. [1] Maniscalco, B., & Lau, H. (2012). A signal detection theoretic approach for
       estimating metacognitive sensitivity from confidence ratings. Consciousness and
       Cognition, 21(1), 422-430.

    Examples
    --------
    An ideal observer (confidence = distance of the evidence from the criterion) has
    meta-d' close to d', i.e. an M-ratio close to 1:

    >>> rng = np.random.default_rng(0)
    >>> stim = rng.integers(0, 2, 20000)
    >>> evidence = rng.normal(np.where(stim == 1, 1.0, -1.0))  # d' = 2
    >>> r = meta_d_prime(stim, evidence > 0, np.abs(evidence))
    >>> abs(r.d_prime - 2.0) < 0.1, abs(r.m_ratio - 1.0) < 0.1
    (True, True)
    """
    stim = as_binary_1d(stimulus, "stimulus")
    resp = as_binary_1d(response, "response")
    conf = as_float_1d(confidence, "confidence")
    check_same_length(stimulus=stim, response=resp, confidence=conf)
    if not isinstance(n_ratings, int | np.integer) or n_ratings < 2:
        raise ValueError(f"n_ratings must be an integer >= 2, got {n_ratings!r}")
    check_choice(binning, "binning", ("quantile", "uniform", "none"))
    ratings = _confidence_to_ratings(conf, int(n_ratings), binning)
    cell = np.where(resp, n_ratings + ratings - 1, n_ratings - ratings)
    flat = np.bincount(stim.astype(np.intp) * 2 * n_ratings + cell, minlength=4 * n_ratings)
    counts = flat.reshape(2, 2 * n_ratings).astype(np.float64)
    return meta_d_prime_from_counts(counts[0], counts[1], pad=pad)
