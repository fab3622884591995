"""Metacognition markers (HOT; Experiment 1): does confidence track correctness?

Pure functions of per-trial arrays ``correct`` (binary, 1 = the first-order decision was
right) and ``confidence`` (the wager ``c``; in [0, 1] where read as a probability, any real
scale where only its order matters). Paper: Phua (2025), sec 4.4 "Type-2 AUROC", sec 4.2
"Wagering Paradigm" and sec 5.1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore.checks import check_choice
from labcore.markers._common import (
    as_binary_1d,
    as_float_1d,
    auroc_core,
    auroc_pair_counts,
    check_same_length,
    check_unit_interval,
    warn_undefined,
)

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
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (any real confidence scale).

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

    Notes
    -----
    The trapezoidal area under this curve equals :func:`type2_auroc` exactly.

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
    pos_above, neg_above = (
        np.concatenate(([0], np.cumsum(np.bincount(inverse[m], minlength=values.size)[::-1])))
        for m in (correct_arr, ~correct_arr)
    )
    n_pos, n_neg = int(pos_above[-1]), int(neg_above[-1])
    tpr = pos_above / n_pos if n_pos else None
    fpr = neg_above / n_neg if n_neg else None
    if tpr is None or fpr is None:
        warn_undefined(
            "type-2 ROC is undefined: all trials are "
            + ("incorrect (tpr is nan)" if tpr is None else "correct (fpr is nan)"),
            reason="all_incorrect" if tpr is None else "all_correct",
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
            + "; returning nan (pass undefined='chance' for the paper's 0.5 imputation)",
            reason="all_correct" if correct_arr.all() else "all_incorrect",
        )
    return value


def learning_curve_auroc(correct: NDArray[np.bool_], confidence: NDArray[np.float64]) -> float:
    """The Type-2 AUROC of a trainer's held-out check, rounded as the bundled learning curves were.

    ``wins / pairs + 0.5 * (ties / pairs)`` over the pairs of :func:`type2_auroc`, which rounds
    once, ``(2 wins + ties) / (2 pairs)``: at most one unit in the last place apart, when a
    correct and a wrong trial tie. Kept so that the bundled E4 learning curves
    (``results/e4/e4_curves.csv``, ``checkpoints/wagering-reward_*``) reproduce bit for bit.
    nan, silently, without both classes.

    Examples
    --------
    >>> learning_curve_auroc(np.array([True, True, False, False]), np.array([0.9, 0.6, 0.6, 0.2]))
    0.875
    >>> learning_curve_auroc(np.array([True, True]), np.array([0.2, 0.9]))
    nan
    """
    wins, ties, pairs = auroc_pair_counts(
        np.asarray(correct, bool), np.asarray(confidence, np.float64)
    )
    if pairs == 0:
        return float("nan")
    return float(wins / pairs + 0.5 * (ties / pairs))


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True, eq=False)
class CalibrationCurve:
    """Reliability diagram: per bin, mean confidence, fraction correct (nan if empty), count."""

    bin_edges: NDArray[np.float64]
    mean_confidence: NDArray[np.float64]
    accuracy: NDArray[np.float64]
    counts: NDArray[np.int64]

    @property
    def nonempty(self) -> NDArray[np.bool_]:
        """Boolean mask of bins that hold at least one trial."""
        return self.counts > 0


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
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (confidence in [0, 1]).
    n_bins : int, default=10
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal-width bins on [0, 1]. ``"quantile"``: edges at the
        confidence quantiles (equal-count bins up to ties; tied edges leave empty bins).

    Returns
    -------
    CalibrationCurve
        Bins are right-closed, ``(e_k, e_{k+1}]``, the first also holding ``e_0`` (so
        ``c = 0.5`` falls in the lower of two bins, like the opt-out rule). Paper Figure 1c.

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
    if not isinstance(n_bins, int | np.integer) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    check_choice(strategy, "strategy", ("uniform", "quantile"))
    levels = np.linspace(0.0, 1.0, n_bins + 1)
    edges = levels if strategy == "uniform" else np.quantile(conf, levels)
    # Right-closed bins (e_k, e_{k+1}], the first also holding e_0 (Guo et al. 2017).
    idx = np.searchsorted(edges[1:-1], conf, side="left")
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
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (confidence in [0, 1]).
    n_bins, strategy
        As :func:`calibration_curve`.

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
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (confidence in [0, 1]).

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
    """Coverage ``k / n``, risk (error rate among the ``k`` most confident trials) and the
    ``k``-th highest confidence, ``k = 1..n``."""

    coverage: NDArray[np.float64]
    risk: NDArray[np.float64]
    thresholds: NDArray[np.float64]


def risk_coverage_curve(correct: ArrayLike, confidence: ArrayLike) -> RiskCoverageCurve:
    """Risk-coverage curve of selective prediction (accept the most confident trials).

    Parameters
    ----------
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (any real confidence scale).

    Returns
    -------
    RiskCoverageCurve

    Notes
    -----
    Ties: when the ``k``-th trial sits inside a block of ``m`` tied confidences holding
    ``e`` errors, the errors are counted as ``E_before + j e / m`` (``j`` = trials taken
    from the block), the expectation over a random order of the tied trials: a constant
    confidence gives a flat curve at the overall error rate.

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

    over :func:`risk_coverage_curve`. A constant confidence gives the error rate ``r``, a
    perfect ranking ``r + (1 - r) ln(1 - r)`` as ``n -> inf``.

    Parameters
    ----------
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (any real confidence scale).

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
    correct, confidence : array-like of shape (n_trials,)
        See the module docstring (confidence in [0, 1]).
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

    Examples
    --------
    >>> skip_fraction([0.9, 0.7, 0.5, 0.2])
    0.5
    """
    conf = as_float_1d(confidence, "confidence")
    check_unit_interval(conf, "confidence")
    return float(np.mean(conf <= threshold))
