"""Robustness marker (Experiment 3): L75 noise tolerance from a noise-titration curve.

Paper: Phua (2025), sec 4.2 "Latent Noise Stress Test" and sec 5.3 (B1: L75 ~0.04;
B2: L75 > 0.50, "accuracy never dropped to 75% for sigma <= 0.50").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from labcore.markers._common import as_float_1d, check_same_length, check_unit_interval

__all__ = ["L75Result", "l75"]

#: The paper's accuracy threshold for L75 (report-step decision accuracy of 75%).
L75_THRESHOLD = 0.75


@dataclass(frozen=True)
class L75Result:
    """Noise level at which accuracy first drops to the threshold, possibly censored.

    Attributes
    ----------
    value : float
        The interpolated noise level, or nan when censored (never a made-up number).
    censored : {"none", "right", "left"}
        ``"right"``: accuracy stayed above the threshold over the tested range, the true
        value is ``> bound``. ``"left"``: accuracy was already at or below the threshold at
        the smallest tested noise, the true value is ``<= bound``.
    bound : float
        ``value`` if not censored; the largest (right) or smallest (left) tested sigma.
    threshold : float
        The accuracy threshold used.

    Examples
    --------
    >>> r = L75Result(float("nan"), "right", 0.5, 0.75)
    >>> str(r), f"{r:.1f}"
    ('> 0.50', '> 0.5')
    """

    value: float
    censored: Literal["none", "right", "left"]
    bound: float
    threshold: float = L75_THRESHOLD

    @property
    def ordering_value(self) -> float:
        """``value``, with -inf for left- and +inf for right-censored results (for
        sorting and comparing results)."""
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
        Right-censored (``"> max sigma"``) if accuracy never reaches the threshold;
        left-censored (``"<= min sigma"``) if it is already there at the smallest sigma.

    Notes
    -----
    Choices where the paper is silent: "drops to" includes touching the threshold
    exactly; the FIRST crossing is used, so a later recovery does not matter; the
    interpolation is linear in sigma. The value never decreases when any accuracy is
    raised (see :attr:`L75Result.ordering_value` for comparing censored results).

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
