"""Robustness markers (Experiment 3): L75 noise tolerance, and the ceiling an ideal observer sets.

Paper: Phua (2025), sec 4.2 "Latent Noise Stress Test" and sec 5.3 (B1: L75 ~0.04;
B2: L75 > 0.50, "accuracy never dropped to 75% for sigma <= 0.50").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from labcore.markers._common import (
    as_float_1d,
    as_float_array,
    check_same_length,
    check_unit_interval,
)

#: The paper's accuracy threshold for L75 (report-step decision accuracy of 75%).
L75_THRESHOLD = 0.75


@dataclass(frozen=True)
class L75Result:
    """Noise level at which accuracy first drops to the threshold, possibly censored.

    Examples
    --------
    >>> r = L75Result(float("nan"), "right", 0.5, 0.75)
    >>> str(r), f"{r:.1f}"
    ('> 0.50', '> 0.5')
    """

    value: float
    """The interpolated noise level, or nan when censored."""
    censored: Literal["none", "right", "left"]
    """``"right"``: the true value is ``> bound``; ``"left"``: it is ``<= bound``."""
    bound: float
    """``value`` if not censored; the largest (right) or smallest (left) tested sigma."""
    threshold: float = L75_THRESHOLD

    @property
    def ordering_value(self) -> float:
        """``value``, with -inf for left- and +inf for right-censored results (for sorting)."""
        return {"none": self.value, "right": np.inf, "left": -np.inf}[self.censored]

    def __format__(self, spec: str) -> str:
        spec = spec or ".2f"
        if self.censored == "right":
            return f"> {format(self.bound, spec)}"
        if self.censored == "left":
            return f"<= {format(self.bound, spec)}"
        return format(self.value, spec)

    def __str__(self) -> str:
        return format(self, ".2f")


def l75(
    sigmas: ArrayLike,
    accuracies: ArrayLike,
    *,
    threshold: float = L75_THRESHOLD,
) -> L75Result:
    """L75: the noise level sigma at which accuracy first drops to ``threshold``.

    Walk the titration curve from the smallest sigma; at the first point ``i`` with
    ``acc_i <= threshold`` interpolate linearly between it and the previous point:

    .. math::

        \\mathrm{L75} = \\sigma_{i-1} + (\\sigma_i - \\sigma_{i-1})
        \\frac{\\mathrm{acc}_{i-1} - \\theta}{\\mathrm{acc}_{i-1} - \\mathrm{acc}_i}

    (paper sec 4.2: "the noise level sigma at which report-step decision accuracy drops
    to 75%").

    Parameters
    ----------
    sigmas : array-like of shape (n_levels,)
        Tested noise levels, strictly increasing.
    accuracies : array-like of shape (n_levels,)
        Accuracy in [0, 1] at each level.
    threshold : float, default=0.75

    Returns
    -------
    L75Result
        Right-censored if accuracy never reaches the threshold; left-censored if it is already
        there at the smallest sigma.

    Notes
    -----
    Choices where the paper is silent: "drops to" includes touching the threshold; the first
    crossing is used (a later recovery does not matter).

    Examples
    --------
    Accuracy 1.0 at sigma 0.02 and 0.5 at 0.06: the 0.75 crossing is halfway.

    >>> l75([0.0, 0.02, 0.06, 0.1], [1.0, 1.0, 0.5, 0.2]).value
    0.04
    >>> print(l75([0.0, 0.25, 0.5], [0.95, 0.9, 0.82]))
    > 0.50
    >>> print(l75([0.01, 0.05], [0.6, 0.3]))
    <= 0.01
    """
    s = as_float_1d(sigmas, "sigmas")
    acc = as_float_1d(accuracies, "accuracies")
    check_same_length(sigmas=s, accuracies=acc)
    check_unit_interval(acc, "accuracies")
    if np.any(np.diff(s) <= 0):
        raise ValueError("sigmas must be strictly increasing")
    if not (np.isfinite(threshold) and 0.0 < threshold < 1.0):
        raise ValueError(f"threshold must lie in (0, 1), got {threshold!r}")
    below = np.flatnonzero(acc <= threshold)
    if below.size == 0:
        return L75Result(float("nan"), "right", float(s[-1]), threshold)
    i = int(below[0])
    if i == 0:
        return L75Result(float("nan"), "left", float(s[0]), threshold)
    frac = (acc[i - 1] - threshold) / (acc[i - 1] - acc[i])
    value = float(s[i - 1] + frac * (s[i] - s[i - 1]))
    return L75Result(value, "none", value, threshold)


def ideal_observer_thresholds(
    codes: ArrayLike,
    labels: ArrayLike,
    noise_scale: ArrayLike | None = None,
    *,
    n_samples: int = 256,
    seed: int = 0,
) -> np.ndarray:
    """The largest noise SD at which an ideal observer still reports each trial right.

    Trial ``e`` has true class :math:`y_e` and one noise-free code per candidate class,
    :math:`\\mu_{e,c}` (e.g. the workspace at the report step had the cue been ``c``). The
    observer sees :math:`x = \\mu_{e,y} + \\sigma\\, s \\odot z` with :math:`z \\sim N(0, I)`
    and ``s`` the per-dimension noise scale, and answers the most likely class: the nearest
    code in whitened coordinates. With :math:`d_c = (\\mu_{e,y} - \\mu_{e,c}) / s` it is right
    iff, for every :math:`c \ne y`,

    .. math::

        \\sigma < \\sigma^*_c = \frac{\\lVert d_c \rVert^2}{2 \\max(0, -\\langle z, d_c \rangle)},

    so each (trial, draw) has a threshold :math:`\\sigma^* = \\min_c \\sigma^*_c`, and the
    observer's accuracy at :math:`\\sigma` is the share of thresholds above it: the ceiling of
    L75 (paper sec 4.2).

    Parameters
    ----------
    codes : array-like of shape (E, C, F)
        Noise-free code of each trial under each candidate class.
    labels : array-like of int, shape (E,)
        True class of each trial.
    noise_scale : array-like of shape (F,) or (E, F), optional
        Noise SD per dimension in units of sigma (default 1; 0 for an unperturbed dimension).
    n_samples : int, default=256
        Noise draws per trial.
    seed : int, default=0

    Returns
    -------
    ndarray of shape (E, n_samples)
        Thresholds :math:`\\sigma^*` (``inf``: right at any noise level; 0: never right).

    Notes
    -----
    Classes whose codes differ in a noise-free dimension are told apart at any
    :math:`\\sigma`. Classes identical to the true one are a tie: the observer is right on a
    random ``1/k`` of draws among ``k`` tied classes and wrong (threshold 0) on the rest.

    Examples
    --------
    Two classes a distance 1 apart, isotropic noise: accuracy :math:`\\Phi(1 / (2\\sigma))`,
    so L75 = :math:`1 / (2 \\Phi^{-1}(0.75)) = 0.741`.

    >>> codes = np.array([[[0.0, 0.0], [1.0, 0.0]]] * 200)
    >>> labels = np.arange(200) % 2
    >>> round(ideal_observer_l75(ideal_observer_thresholds(codes, labels, n_samples=400)), 2)
    0.74
    """
    mu = as_float_array(codes, "codes", ndim=3)
    y = np.asarray(labels)
    n_trials, n_classes, n_dims = mu.shape
    if y.shape != (n_trials,) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"labels must be {n_trials} integers, got {y.dtype} {y.shape}")
    if np.any((y < 0) | (y >= n_classes)):
        raise ValueError(f"labels must be in 0..{n_classes - 1}")
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    scale = (
        np.ones(n_dims)
        if noise_scale is None
        else as_float_array(noise_scale, "noise_scale", ndim=(1, 2))
    )
    scale = np.broadcast_to(scale, (n_trials, n_dims))
    if np.any(scale < 0):
        raise ValueError("noise_scale must be >= 0")
    rng = np.random.default_rng(seed)
    true = mu[np.arange(n_trials), y]  # (E, F)
    diff = true[:, None, :] - mu  # (E, C, F)
    noisy = scale > 0
    whitened = np.where(noisy[:, None, :], diff / np.where(noisy, scale, 1.0)[:, None, :], 0.0)
    apart = np.any((diff != 0) & ~noisy[:, None, :], axis=-1)  # told apart without noise
    sq = np.sum(whitened**2, axis=-1)  # (E, C)
    other = np.arange(n_classes)[None, :] != y[:, None]
    tied = other & ~apart & (sq == 0)
    z = rng.standard_normal((n_trials, n_samples, n_dims)) * noisy[:, None, :]
    proj = np.einsum("esf,ecf->esc", z, whitened)
    with np.errstate(divide="ignore", invalid="ignore"):  # masked by the where: 0/0 never used
        per_class = np.where(proj < 0, sq[:, None, :] / (-2.0 * proj), np.inf)
    contest = other & ~apart & ~tied  # classes a finite noise can confuse with the truth
    thresholds = np.where(contest[:, None, :], per_class, np.inf).min(axis=-1)
    k = 1 + tied.sum(axis=-1)  # (E,): classes the observer cannot separate at all
    lost = rng.random((n_trials, n_samples)) >= 1.0 / k[:, None]
    return np.where(lost, 0.0, thresholds)


def ideal_observer_accuracy(thresholds: ArrayLike | list, sigma: float) -> float:
    """Ideal-observer accuracy at noise SD ``sigma``: the share of thresholds above it.

    ``thresholds`` is the output of :func:`ideal_observer_thresholds`, or a list of such
    arrays (e.g. one per report), pooled with equal weight per (trial, draw).

    >>> ideal_observer_accuracy(np.array([0.1, 0.2, np.inf, 0.0]), 0.15)
    0.5
    """
    return float(np.mean(_pooled(thresholds) > sigma))


def ideal_observer_l75(thresholds: ArrayLike | list, *, threshold: float = L75_THRESHOLD) -> float:
    r"""The noise SD at which the ideal observer's accuracy drops to ``threshold`` (its L75).

    The largest :math:`\sigma` with accuracy >= ``threshold``: the ``1 - threshold`` quantile
    of the pooled thresholds (0: below ``threshold`` without noise; ``inf``: never reached).

    >>> ideal_observer_l75(np.array([0.0, 0.3, 0.5, 0.9]))
    0.3
    >>> ideal_observer_l75(np.full(8, np.inf))
    inf
    """
    if not (np.isfinite(threshold) and 0.0 < threshold < 1.0):
        raise ValueError(f"threshold must lie in (0, 1), got {threshold!r}")
    pooled = np.sort(_pooled(thresholds))
    # accuracy(sigma) = share above sigma; the k-th smallest threshold is the first sigma at
    # which the share above falls below `threshold` once k values are at or below it.
    k = int(np.floor((1.0 - threshold) * pooled.size))
    return float(pooled[min(k, pooled.size - 1)])


def _pooled(thresholds: ArrayLike | list) -> np.ndarray:
    parts = thresholds if isinstance(thresholds, list | tuple) else [thresholds]
    pooled = np.concatenate([np.asarray(t, dtype=float).ravel() for t in parts])
    if pooled.size == 0 or np.any(np.isnan(pooled)) or np.any(pooled < 0):
        raise ValueError("thresholds must be a non-empty set of non-negative numbers")
    return pooled
