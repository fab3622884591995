"""Type-2 signal detection (HOT; Experiment 1): meta-d', d' and the M-ratio."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from labcore import LabWarning
from labcore.checks import check_choice
from labcore.markers._common import (
    as_binary_1d,
    as_float_1d,
    check_same_length,
    check_unit_interval,
    warn_undefined,
)


@dataclass(frozen=True, eq=False)
class MetaDResult:
    """Type-1 and type-2 signal-detection fit (Maniscalco & Lau 2012)."""

    d_prime: float
    """Type-1 sensitivity ``d' = z(H) - z(F)`` from the (padded) counts."""
    criterion: float
    """Type-1 criterion ``c = -(z(H) + z(F)) / 2``."""
    meta_d_prime: float
    """The d' an ideal SDT observer needs to produce the observed confidence-accuracy relation."""
    meta_criterion: float
    """``meta_c = meta_d' * c / d'``."""
    m_ratio: float
    """``meta_d' / d'`` (1 = metacognitively ideal; 0 = no insight)."""
    type2_criteria: NDArray[np.float64]
    """Fitted confidence criteria on the evidence axis, increasing (``meta_c`` excluded)."""
    log_likelihood: float
    """Type-2 log-likelihood of the padded counts at the optimum."""
    counts: NDArray[np.float64]
    """Raw counts (rows: S1, S2), before padding."""
    pad: float
    """Amount added to every cell before fitting (0 if none)."""

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
    """(meta_d, meta_c, type2_criteria, log_likelihood) of padded counts."""
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


def meta_d_prime_from_counts(
    counts_s1: ArrayLike, counts_s2: ArrayLike, *, pad: bool = True
) -> MetaDResult:
    """Maximum-likelihood meta-d' from type-2 rating counts (Maniscalco & Lau 2012).

    Parameters
    ----------
    counts_s1, counts_s2 : array-like of shape (2 * n_ratings,)
        Counts on S1 / S2 trials in Maniscalco's ``nR_S1`` / ``nR_S2`` layout (along the
        evidence axis), e.g. ``[S1-conf3, S1-conf2, S1-conf1, S2-conf1, S2-conf2, S2-conf3]``.
    pad : bool, default=True
        Add ``1 / (2 * n_ratings)`` to every cell before fitting (Hautus 1995), which keeps
        every rate finite when a cell is empty.

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
    type-1 criterion is held at ``meta_c = meta_d * c / d'``. Given the response, each
    confidence cell's probability is the mass of its interval on the evidence axis over the
    mass on that side of ``meta_c``; the type-2 log-likelihood is maximised over meta-d' and
    the ``2 n_ratings - 2`` criteria, as log gaps (BFGS, Nelder-Mead polish if needed).

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
    n_ratings = counts.shape[1] // 2
    pad_amount = 1.0 / (2 * n_ratings) if pad else 0.0
    padded = counts + pad_amount

    def undefined(why: str, reason: str) -> MetaDResult:
        warn_undefined(f"meta-d' is undefined: {why}", reason=reason, stacklevel=4)
        nan, criteria = float("nan"), np.full(2 * n_ratings - 2, np.nan)
        return MetaDResult(nan, nan, nan, nan, nan, criteria, nan, counts, pad_amount)

    if np.any(counts.sum(axis=1) == 0):
        return undefined("a stimulus class has no trials", "empty_class")
    margins = np.stack((padded[:, :n_ratings].sum(axis=1), padded[:, n_ratings:].sum(axis=1)))
    if np.any(margins == 0):
        return undefined("hit or false-alarm rate is 0 or 1 (use pad=True)", "extreme_rate")
    d1, c1 = _type1_sdt(padded)
    meta_d, meta_c, type2, loglik = _fit_meta_d(padded)
    if abs(d1) > 1e-9:
        m_ratio = meta_d / d1
    else:
        warn_undefined("M-ratio is undefined: d' = 0", reason="d_prime_zero", stacklevel=3)
        m_ratio = float("nan")
    return MetaDResult(d1, c1, meta_d, meta_c, m_ratio, type2, loglik, counts, pad_amount)


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
        ``"quantile"``: edges at the ``k / n_ratings`` quantiles of the confidence over all
        trials (a value on an edge goes to the lower bin). ``"uniform"``: equal-width bins on
        [0, 1]. ``"none"``: the confidence already holds integer ratings ``1..n_ratings``.
    pad : bool, default=True
        See :func:`meta_d_prime_from_counts`.

    Returns
    -------
    MetaDResult

    Warns
    -----
    UndefinedMetricWarning
        See :func:`meta_d_prime_from_counts`.

    Notes
    -----
    SDT needs a binary task: for a report with more than two actions, partition the cues into
    two halves and pass the half of the true cue and of the reported action.

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
    if binning == "none":
        if not np.all(conf == np.round(conf)) or conf.min() < 1 or conf.max() > n_ratings:
            raise ValueError(
                f"with binning='none' confidence must hold integer ratings 1..{n_ratings}"
            )
        ratings = conf.astype(np.intp)
    else:
        if binning == "uniform":
            check_unit_interval(conf, "confidence")
        levels = np.arange(1, n_ratings) / n_ratings
        edges = levels if binning == "uniform" else np.quantile(conf, levels)
        ratings = 1 + np.searchsorted(edges, conf, side="left")
    cell = np.where(resp, n_ratings + ratings - 1, n_ratings - ratings)
    flat = np.bincount(stim.astype(np.intp) * 2 * n_ratings + cell, minlength=4 * n_ratings)
    counts = flat.reshape(2, 2 * n_ratings).astype(np.float64)
    return meta_d_prime_from_counts(counts[0], counts[1], pad=pad)
