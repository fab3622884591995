"""Seed-level statistics: the random seed is the unit of analysis (paper sec 5.2).

The tests and intervals are ``scipy.stats``'s; this module validates the input, applies the lab's
undefined-value policy and returns the lab's records. An exactly constant group has variance 0
(not scipy's rounding residue); Welch's t and Hedges' g return nan with an
:class:`~labcore.UndefinedMetricWarning` when both groups are constant.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy import stats as sps

from labcore.checks import check_choice
from labcore.markers._common import as_float_1d, warn_undefined
from labcore.render import finite

#: Elements per batch of resampled data (bounds memory of permutations / bootstrap).
_BATCH_ELEMENTS = 1_000_000
SEED_SUMMARY_LEVEL = 0.95
"""Coverage of every seed summary's interval (``ci95``)."""
IntervalMethod = Literal["bootstrap", "t", "none"]


def _sample(x: ArrayLike, name: str, min_size: int) -> NDArray[np.float64]:
    arr = as_float_1d(x, name)
    if arr.size < min_size:
        raise ValueError(f"{name} needs at least {min_size} observations, got {arr.size}")
    return arr


def _is_constant(x: NDArray[np.float64]) -> bool:
    # Exact test: np.var of identical floats can be a rounding residue instead of 0.
    return bool(np.ptp(x) == 0)


def _variance(x: NDArray[np.float64]) -> float:
    """Sample variance (ddof = 1), exactly 0 for a constant sample."""
    return 0.0 if _is_constant(x) else float(np.var(x, ddof=1))


def _check_positive_int(value: int, name: str) -> None:
    if not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check_level(level: float, name: str = "level") -> None:
    if not (np.isfinite(level) and 0.0 < level < 1.0):
        raise ValueError(f"{name} must be in (0, 1), got {level!r}")


def _finite_values(x: ArrayLike, name: str, *, inf: str = "drop") -> NDArray[np.float64]:
    """The finite values of ``x`` (None, nan left out); ``inf="raise"`` rejects an infinity."""
    try:
        arr = np.asarray(x, dtype=float)  # None -> nan
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {type(x).__name__}: {exc}") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if inf == "raise" and np.isinf(arr).any():
        raise ValueError(f"{name} contain an infinite value (undefined values are None or nan)")
    return arr[np.isfinite(arr)]


# ---------------------------------------------------------------- t tests and intervals
@dataclass(frozen=True)
class WelchResult:
    """Welch's t-test result: ``t``, Welch-Satterthwaite ``df``, two-sided ``p_value``."""

    t: float
    df: float
    p_value: float


def _welch(x: NDArray[np.float64], y: NDArray[np.float64]) -> sps._stats_py.TtestResult | None:
    """scipy's Welch test, or None when the standard error is 0."""
    if _variance(x) / x.size + _variance(y) / y.size == 0.0:
        return None
    with warnings.catch_warnings():
        if _is_constant(x) or _is_constant(y):  # scipy's "precision loss" warning is wrong then
            warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
        return sps.ttest_ind(x, y, equal_var=False)


def welch_t(a: ArrayLike, b: ArrayLike) -> WelchResult:
    """Welch's unequal-variance t-test of mean(a) vs mean(b), two-sided (at least 2 values each).

    Both groups constant: t, df and p are nan with an ``UndefinedMetricWarning``.

    Examples
    --------
    Means 2 and 5, variances 1 and 1, n = 3 each: t = -3 / sqrt(2/3), df = 4.

    >>> r = welch_t([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    >>> round(r.t, 4), r.df, round(r.p_value, 4)
    (-3.6742, 4.0, 0.0213)
    """
    res = _welch(_sample(a, "a", 2), _sample(b, "b", 2))
    if res is None:
        warn_undefined(
            "Welch's t is undefined: both groups have zero variance", reason="zero_variance"
        )
        nan = float("nan")
        return WelchResult(nan, nan, nan)
    return WelchResult(float(res.statistic), float(res.df), float(res.pvalue))


def t_interval(x: ArrayLike, level: float = 0.95) -> tuple[float, float]:
    """Student's t interval of a mean over seeds (protocol 8.5); nan values are dropped.

    ``(mean, mean)`` for constant values; ``(nan, nan)`` with a warning for fewer than two.

    Examples
    --------
    Mean 2, SD 1, n = 3, and t(0.975, 2) = 4.3027: 2 +/- 4.3027 / sqrt(3) = 2 +/- 2.4841.

    >>> [round(v, 4) for v in t_interval([1.0, 2.0, 3.0])]
    [-0.4841, 4.4841]
    >>> t_interval([0.5, 0.5, 0.5])
    (0.5, 0.5)
    """
    _check_level(level)
    arr = _finite_values(x, "x")
    if arr.size < 2:
        warn_undefined("a t interval needs at least two values", reason="too_few")
        return float("nan"), float("nan")
    if _is_constant(arr):
        return float(arr.mean()), float(arr.mean())
    ci = sps.ttest_1samp(arr, 0.0).confidence_interval(level)
    return float(ci.low), float(ci.high)


def welch_interval(a: ArrayLike, b: ArrayLike, level: float = 0.95) -> tuple[float, float]:
    """Welch's t interval of ``mean(a) - mean(b)`` for two unpaired groups of seeds.

    ``(d, d)`` when both are constant; ``(nan, nan)`` with a warning when a group has fewer
    than two values.

    Examples
    --------
    Means 2 and 5, both SD 1, n = 3: -3 +/- t(0.975, 4) sqrt(2/3) = -3 +/- 2.2670.

    >>> [round(v, 4) for v in welch_interval([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])]
    [-5.267, -0.733]
    """
    _check_level(level)
    x, y = _finite_values(a, "a"), _finite_values(b, "b")
    if x.size < 2 or y.size < 2:
        warn_undefined("a Welch interval needs at least two values in each group", reason="too_few")
        return float("nan"), float("nan")
    res = _welch(x, y)
    if res is None:
        diff = float(x.mean() - y.mean())
        return diff, diff
    ci = res.confidence_interval(level)
    return float(ci.low), float(ci.high)


# ---------------------------------------------------------------- effect size
def _hedges_j(m: int) -> float:
    """Exact small-sample correction J(m) = Gamma(m/2) / (sqrt(m/2) Gamma((m-1)/2))."""
    return float(np.exp(special.gammaln(m / 2) - special.gammaln((m - 1) / 2)) / np.sqrt(m / 2))


def hedges_g(a: ArrayLike, b: ArrayLike) -> float:
    """Hedges' g of a minus b: mean difference over the pooled SD, times the exact J(m).

    Both groups constant: nan with a warning (an infinite effect would poison averages).

    References
    ----------
    .. [1] Hedges, L. V. (1981). Journal of Educational Statistics, 6(2), 107-128.

    Examples
    --------
    Means 2 and 5, pooled SD 1, m = 4, J(4) = Gamma(2) / (sqrt(2) Gamma(1.5)) = 0.7979:

    >>> round(hedges_g([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), 4)
    -2.3937
    """
    x = _sample(a, "a", 2)
    y = _sample(b, "b", 2)
    m = x.size + y.size - 2
    pooled = np.sqrt((_variance(x) * (x.size - 1) + _variance(y) * (y.size - 1)) / m)
    if pooled == 0.0:  # both constant (or variances below float range)
        warn_undefined(
            "Hedges' g is undefined: pooled standard deviation is zero", reason="zero_variance"
        )
        return float("nan")
    return float(_hedges_j(m) * (x.mean() - y.mean()) / pooled)


# ---------------------------------------------------------------- permutation test
@dataclass(frozen=True)
class PermutationResult:
    """Observed ``mean(a) - mean(b)``, two-sided p, relabelings evaluated, all enumerated?"""

    statistic: float
    p_value: float
    n_permutations: int
    exact: bool


def _abs_difference_of_means(
    x: NDArray[np.float64], y: NDArray[np.float64], axis: int = -1
) -> NDArray[np.float64]:
    return np.abs(np.mean(x, axis=axis) - np.mean(y, axis=axis))


def permutation_test(
    a: ArrayLike,
    b: ArrayLike,
    *,
    n_permutations: int = 10000,
    seed: int = 0,
) -> PermutationResult:
    """Two-sided permutation test of ``mean(a) - mean(b)`` (``scipy.stats.permutation_test``).

    Exact when the distinct splits number at most ``n_permutations``; else Monte Carlo with
    the +1 correction of Phipson & Smyth (2010), so ``p > 0``. Ties are counted at a tolerance
    of ``100 n eps max|x|`` (the rounding of the group sums).

    Examples
    --------
    Of the 20 ways to split the six values into two groups of three, only the observed
    split and its mirror reach |T| = 3:

    >>> r = permutation_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    >>> r.statistic, r.p_value, r.exact
    (-3.0, 0.1, True)
    """
    x = _sample(a, "a", 1)
    y = _sample(b, "b", 1)
    _check_positive_int(n_permutations, "n_permutations")
    pooled = np.concatenate((x, y))
    n = pooled.size
    observed = float(x.mean() - y.mean())
    # Equal statistics computed from different orderings differ by rounding of the group
    # sums (~ n eps max|x|); count those as ties.
    tolerance = 100 * n * np.finfo(float).eps * float(np.max(np.abs(pooled)))
    if min(x.size, y.size) == 1:
        # scipy needs two values per group; the n splits (which seed stands alone) are few.
        alone = np.abs(pooled - (pooled.sum() - pooled) / (n - 1))
        count = int(np.count_nonzero(alone >= abs(observed) - tolerance))
        return PermutationResult(observed, count / n, n, True)
    res = sps.permutation_test(
        (x, y),
        _abs_difference_of_means,
        permutation_type="independent",
        vectorized=True,
        n_resamples=n_permutations,
        batch=max(1, _BATCH_ELEMENTS // n),
        alternative="greater",
        rng=np.random.default_rng(seed),
    )
    null = np.asarray(res.null_distribution)
    count = int(np.count_nonzero(null >= abs(observed) - tolerance))
    if math.comb(n, x.size) <= n_permutations:  # scipy enumerated every split
        return PermutationResult(observed, count / null.size, int(null.size), True)
    return PermutationResult(observed, (1 + count) / (1 + n_permutations), n_permutations, False)


# ---------------------------------------------------------------- bootstrap
@dataclass(frozen=True)
class BootstrapCI:
    """Percentile bootstrap interval ``[low, high]``, the statistic on the sample, the level."""

    low: float
    high: float
    estimate: float
    confidence: float


def bootstrap_ci(
    x: ArrayLike,
    *,
    statistic: Callable[..., ArrayLike] = np.mean,
    confidence: float = 0.95,
    n_resamples: int = 10000,
    seed: int = 0,
) -> BootstrapCI:
    """Percentile bootstrap interval of ``statistic(x)``: ``scipy.stats.bootstrap``, seeded.

    Constant data give a zero-width interval. With few seeds the percentile interval is too
    narrow (paper sec 5.2, footnote 4).

    Examples
    --------
    >>> ci = bootstrap_ci([0.0, 0.0, 0.0, 0.0])
    >>> ci.low, ci.high
    (0.0, 0.0)
    >>> ci = bootstrap_ci([1.0, 2.0, 3.0, 4.0, 5.0], n_resamples=2000)
    >>> ci.estimate, bool(1.0 < ci.low < 3.0 < ci.high < 5.0)
    (3.0, True)
    """
    arr = _sample(x, "x", 2)
    _check_positive_int(n_resamples, "n_resamples")
    _check_level(confidence, "confidence")
    res = sps.bootstrap(
        (arr,),
        statistic,
        n_resamples=n_resamples,
        batch=max(1, _BATCH_ELEMENTS // arr.size),
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = res.confidence_interval
    return BootstrapCI(float(ci.low), float(ci.high), float(statistic(arr)), confidence)


# ---------------------------------------------------------------- seed summaries
@dataclass(frozen=True)
class SeedSummary:
    """Mean, SD, n and a 95% interval (by ``method``) of per-seed values; nan: undefined."""

    mean: float
    sd: float
    n: int
    low: float = math.nan
    high: float = math.nan
    method: str = "none"

    @property
    def ci95(self) -> list[float] | None:
        """``[low, high]``, or None where the interval is undefined."""
        if math.isfinite(self.low) and math.isfinite(self.high):
            return [self.low, self.high]
        return None

    def as_dict(self) -> dict:
        """``{"mean", "sd", "n", "ci95"}`` with None for undefined values."""
        return {
            "mean": self.mean if math.isfinite(self.mean) else None,
            "sd": self.sd if math.isfinite(self.sd) else None,
            "n": self.n,
            "ci95": self.ci95,
        }


def seed_summary(
    values: ArrayLike | Sequence[float | None],
    method: IntervalMethod = "bootstrap",
    *,
    seed: int = 0,
) -> SeedSummary:
    """Mean, SD, n and 95% interval of per-seed values (None and nan left out, inf raises).

    ``method``: "bootstrap" (the claims'), "t" (protocol 8.5) or "none". Undefined parts are
    nan; constant values have SD 0 and the interval ``(mean, mean)``.

    Examples
    --------
    >>> s = seed_summary([1.0, 2.0, None, 3.0], "t")
    >>> s.mean, s.sd, s.n, [round(v, 4) for v in s.ci95]
    (2.0, 1.0, 3, [-0.4841, 4.4841])
    >>> seed_summary([0.5], "t").as_dict()
    {'mean': 0.5, 'sd': None, 'n': 1, 'ci95': None}
    """
    check_choice(method, "method", ("bootstrap", "t", "none"))
    x = _finite_values(values, "values", inf="raise")
    if x.size == 0:
        return SeedSummary(math.nan, math.nan, 0, method=method)
    mean = float(x.mean())
    if x.size == 1:
        return SeedSummary(mean, math.nan, 1, method=method)
    sd = math.sqrt(_variance(x))
    if method == "none":
        return SeedSummary(mean, sd, int(x.size))
    if _is_constant(x):
        low = high = mean
    elif method == "bootstrap":
        ci = bootstrap_ci(x, confidence=SEED_SUMMARY_LEVEL, seed=seed)
        low, high = ci.low, ci.high
    else:
        low, high = t_interval(x, SEED_SUMMARY_LEVEL)
    return SeedSummary(mean, sd, int(x.size), low, high, method)


@dataclass(frozen=True)
class GroupSummary:
    """Mean and median of a group's values with percentile bootstrap intervals (nan: undefined)."""

    n: int
    mean: float
    median: float
    mean_low: float = math.nan
    mean_high: float = math.nan
    median_low: float = math.nan
    median_high: float = math.nan
    seed: int = 0


def group_summary(
    values: ArrayLike | Sequence[float | None], *, seed: int = 0, n_resamples: int = 10000
) -> GroupSummary:
    """Mean and median of one value per unit (a person), each with a 95% bootstrap interval.

    Both intervals use the same resamples; None and nan are left out, inf raises.

    Examples
    --------
    >>> s = group_summary([0.6, None, 0.8, 1.0, 0.7])
    >>> s.n, round(s.mean, 3), s.median, bool(s.mean_low < s.mean < s.mean_high)
    (4, 0.775, 0.75, True)
    >>> group_summary([0.5]).mean_low
    nan
    """
    x = _finite_values(values, "values", inf="raise")
    if x.size == 0:
        return GroupSummary(0, math.nan, math.nan, seed=seed)
    mean, median = float(x.mean()), float(np.median(x))
    if x.size == 1:
        return GroupSummary(1, mean, median, seed=seed)
    if _is_constant(x):
        return GroupSummary(int(x.size), mean, median, mean, mean, median, median, seed)
    m = bootstrap_ci(x, confidence=SEED_SUMMARY_LEVEL, n_resamples=n_resamples, seed=seed)
    md = bootstrap_ci(
        x, statistic=np.median, confidence=SEED_SUMMARY_LEVEL, n_resamples=n_resamples, seed=seed
    )
    return GroupSummary(int(x.size), mean, median, m.low, m.high, md.low, md.high, seed)


def paired_summary(a: Mapping[Hashable, float], b: Mapping[Hashable, float]) -> SeedSummary:
    """The per-seed differences ``a[s] - b[s]`` (seeds finite in both) with a t interval.

    >>> s = paired_summary({0: 1.0, 1: 2.0, 2: 4.0, 3: 9.0}, {0: 0.0, 1: 1.0, 2: 1.0})
    >>> s.n, s.mean, s.method
    (3, 1.6666666666666667, 'paired_t')
    """
    seeds = sorted(k for k in set(a) & set(b) if finite(a[k]) and finite(b[k]))
    s = seed_summary([a[k] - b[k] for k in seeds], "t")
    return SeedSummary(s.mean, s.sd, s.n, s.low, s.high, "paired_t")


def welch_summary(a: Sequence[float | None], b: Sequence[float | None]) -> SeedSummary:
    """``mean(a) - mean(b)`` of two unpaired groups of seeds with Welch's 95% interval (sd nan).

    >>> s = welch_summary([1.0, 2.0, 3.0], [4.0, 5.0, None, 6.0])
    >>> s.mean, s.n, [round(v, 3) for v in s.ci95]
    (-3.0, 6, [-5.267, -0.733])
    >>> welch_summary([1.0], [2.0, 3.0]).ci95 is None
    True
    """
    x, y = _finite_values(a, "a", inf="raise"), _finite_values(b, "b", inf="raise")
    mean = float(x.mean() - y.mean()) if x.size and y.size else math.nan
    low = high = math.nan
    if x.size >= 2 and y.size >= 2:
        low, high = welch_interval(x, y, SEED_SUMMARY_LEVEL)
    return SeedSummary(mean, math.nan, int(x.size + y.size), low, high, "welch")


def summarize(values: Sequence[float], seed: int = 0) -> dict:
    """The claim summary of ``summary.json``; a single seed gets SD 0 and CI ``[mean, mean]``.

    >>> summarize([0.2, 0.2])["ci95"]
    [0.2, 0.2]
    >>> summarize([0.3])
    {'mean': 0.3, 'sd': 0.0, 'n': 1, 'ci95': [0.3, 0.3]}
    """
    s = seed_summary(values, "bootstrap", seed=seed)
    if s.n == 0:
        return {"mean": None, "sd": None, "n": 0, "ci95": None}
    if s.n == 1:
        return {"mean": s.mean, "sd": 0.0, "n": 1, "ci95": [s.mean, s.mean]}
    return s.as_dict()


def summarize_l75(results: Sequence[dict]) -> dict:
    """Seed summary of L75 values: censored if more than half the seeds are (verdicts.md rule 3)."""
    right = [r for r in results if r["censored"] == "right"]
    left = [r for r in results if r["censored"] == "left"]
    finite = [r["value"] for r in results if r["censored"] == "none"]
    base = {"n_right_censored": len(right), "n_left_censored": len(left), "n_seeds": len(results)}
    for side, group, pick in (("right", right, min), ("left", left, max)):
        if results and len(group) > len(results) / 2:
            return {
                **base,
                "mean": None,
                "sd": None,
                "n": len(results),
                "ci95": None,
                "censored": side,
                "bound": pick(r["bound"] for r in group),
            }
    return {**base, **summarize(finite), "censored": None}


def pattern_value(summary: dict) -> float:
    """The number patterns compare: the mean, or the bound of a censored summary."""
    if summary.get("censored") in ("right", "left"):
        return float(summary["bound"])
    return math.nan if summary.get("mean") is None else float(summary["mean"])
