"""Post-decision wagering with a sure option: Kiani & Shadlen's (2009) two behavioural signatures.

On a trial of the task (NeuroGym's ``PostDecisionWager-v0``; protocol sec. 8.6-8.7) a motion
stimulus of coherence ``c`` is shown; on half the trials a *sure option* is offered, which pays
a small certain reward instead of betting on a side. An observer that knows how reliable its
own decision is

- **S1** takes the sure option more often the weaker the evidence:
  ``P(sure | offered, c)`` falls as ``c`` rises (:func:`p_sure_by_coherence`,
  :func:`sure_contrast`);
- **S2** is more accurate on trials where the option was offered but *waived* than on trials
  where it was not offered, at the same coherence: it waives it when it knows it is right
  (:func:`accuracy_waived_vs_not_offered`, :func:`waived_advantage`).

Inputs are one row per trial: ``coherence`` in percent, ``sure_offered`` (bool or 0/1),
``choice`` in ``{"left", "right", "sure", "none"}``, ``correct`` for side choices. A value with
no trial to count is nan with an :class:`~labcore.UndefinedMetricWarning` saying which.

References
----------
.. [1] Kiani, R., & Shadlen, M. N. (2009). Representation of confidence associated with a
   decision by neurons in the parietal cortex. Science, 324(5928), 759-764.
.. [2] Song, H. F., Yang, G. R., & Wang, X.-J. (2017). Reward-based training of recurrent
   neural networks for cognitive and value-based tasks. eLife, 6, e21492 (Fig. 3: the same
   two signatures in networks trained from reward alone).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from labcore.markers._common import as_float_1d, check_same_length, warn_undefined

CHOICES = ("left", "right", "sure", "none")
"""What an observer may do at the decision: a side, the sure option, or nothing."""
LOW_COHERENCES = (0.0, 3.2)
HIGH_COHERENCES = (25.6, 51.2)
"""The two ends of S1's contrast (protocol 8.6 item 6, 8.7)."""
WAIVED_COHERENCES = (3.2, 6.4, 12.8)
"""Where S2 is read (protocol 8.7): the ideal observer both takes and waives the option there;
0% has no correct side to know and 25.6-51.2% are at ceiling."""


@dataclass(frozen=True)
class ByCoherence:
    """A rate at each coherence level: ``value[i]`` at ``coherence[i]`` from ``n[i]`` trials."""

    coherence: NDArray[np.float64]
    value: NDArray[np.float64]
    n: NDArray[np.int64]

    def at(self, coherence: float) -> float:
        """The value at one coherence level (nan if the level is not in the table)."""
        hit = np.isclose(self.coherence, coherence)
        return float(self.value[hit][0]) if hit.any() else float("nan")


@dataclass(frozen=True)
class WaivedAccuracy:
    """Accuracy of side choices on waived and on not-offered trials (with their counts), per
    coherence and pooled over every coherence."""

    coherence: NDArray[np.float64]
    waived: NDArray[np.float64]
    not_offered: NDArray[np.float64]
    n_waived: NDArray[np.int64]
    n_not_offered: NDArray[np.int64]
    pooled_waived: float
    pooled_not_offered: float

    @property
    def difference(self) -> NDArray[np.float64]:
        """``waived - not_offered`` at each coherence (nan where either is undefined)."""
        return self.waived - self.not_offered


def _trials(
    coherence: ArrayLike, sure_offered: ArrayLike, choice: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.str_]]:
    coh = as_float_1d(coherence, "coherence")
    offered = np.asarray(sure_offered)
    if offered.ndim != 1 or not (offered.dtype == np.bool_ or np.isin(offered, (0, 1)).all()):
        raise ValueError("sure_offered must be a 1-D array of 0/1 or bool")
    picked = np.asarray(choice).astype(str)
    if picked.ndim != 1:
        raise ValueError("choice must be 1-D")
    unknown = sorted(set(np.unique(picked)) - set(CHOICES))
    if unknown:
        raise ValueError(f"choice must be one of {CHOICES}; found {unknown[:5]}")
    check_same_length(coherence=coh, sure_offered=offered, choice=picked)
    return coh, offered.astype(bool), picked


def _rate(hits: NDArray[np.bool_], counted: NDArray[np.bool_]) -> tuple[float, int]:
    n = int(counted.sum())
    return (float(hits[counted].mean()) if n else float("nan")), n


def p_sure_by_coherence(
    coherence: ArrayLike,
    sure_offered: ArrayLike,
    choice: ArrayLike,
    levels: Sequence[float] | None = None,
) -> ByCoherence:
    """The share of sure-offered trials on which the sure option was chosen, at each coherence.

    ``P(sure | offered, c) = #{offered, coherence c, choice = sure} / #{offered, coherence c}``

    Parameters
    ----------
    coherence, sure_offered, choice : arrays (n_trials,)
        See the module docstring.
    levels : sequence of float, optional
        Coherence levels to report (default: those present, ascending).

    Returns
    -------
    ByCoherence
        ``value[i]`` is nan, with an :class:`~labcore.UndefinedMetricWarning`, where no trial at
        ``coherence[i]`` offered the option (``n[i] = 0``).

    References
    ----------
    Kiani & Shadlen (2009), Fig. 1B; Song, Yang & Wang (2017), Fig. 3B.

    Examples
    --------
    Two offered trials at 0% (one sure), one at 51.2% (a side); the not-offered trial is not
    counted:

    >>> t = p_sure_by_coherence([0, 0, 0, 51.2], [1, 1, 0, 1], ["sure", "left", "sure", "right"])
    >>> t.coherence.tolist(), t.value.tolist(), t.n.tolist()
    ([0.0, 51.2], [0.5, 0.0], [2, 1])
    """
    coh, offered, picked = _trials(coherence, sure_offered, choice)
    grid = np.unique(coh) if levels is None else np.asarray(sorted(levels), dtype=np.float64)
    values, counts = [], []
    for c in grid:
        value, n = _rate(picked == "sure", offered & np.isclose(coh, c))
        if n == 0:
            warn_undefined(
                f"P(sure | offered) is undefined at coherence {c:g}%: no trial there "
                "offered the sure option",
                reason="no_trials",
            )
        values.append(value)
        counts.append(n)
    return ByCoherence(
        grid, np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.int64)
    )


def accuracy_waived_vs_not_offered(
    coherence: ArrayLike,
    sure_offered: ArrayLike,
    choice: ArrayLike,
    correct: ArrayLike,
    levels: Sequence[float] | None = None,
) -> WaivedAccuracy:
    """Accuracy of side choices when the sure option was offered but waived, and when it was not
    offered.

    ``acc_waived(c) = #{offered, c, side chosen, correct} / #{offered, c, side chosen}``;
    ``acc_not_offered(c)`` the same over trials without the offer; the pooled values count every
    coherence at once.

    Parameters
    ----------
    coherence, sure_offered, choice, correct : arrays (n_trials,)
        See the module docstring; ``correct`` is read only where ``choice`` is a side.
    levels : sequence of float, optional
        Coherence levels to report (default: those present, ascending).

    Returns
    -------
    WaivedAccuracy
        A rate with no trial to count (no waived trial, or no side choice without the offer, at
        a coherence or in the pool) is nan with an :class:`~labcore.UndefinedMetricWarning`.

    Notes
    -----
    The pooled comparison (Kiani & Shadlen's plot) is confounded by the coherence mix: waived
    trials skew towards high coherence. Compare per coherence (:func:`waived_advantage`).

    References
    ----------
    Kiani & Shadlen (2009), Fig. 1C; Song, Yang & Wang (2017), Fig. 3C.

    Examples
    --------
    At 6.4%: waived trials 2 of 2 right, not-offered 1 of 2 right (the sure choice is not a side):

    >>> r = accuracy_waived_vs_not_offered([6.4] * 5, [1, 1, 1, 0, 0],
    ...                                    ["left", "right", "sure", "left", "left"],
    ...                                    [1, 1, None, 1, 0])
    >>> r.waived.tolist(), r.not_offered.tolist(), r.difference.tolist(), r.n_waived.tolist()
    ([1.0], [0.5], [0.5], [2])
    """
    coh, offered, picked = _trials(coherence, sure_offered, choice)
    raw = np.asarray(correct, dtype=object)
    if raw.ndim != 1:
        raise ValueError("correct must be 1-D")
    check_same_length(coherence=coh, correct=raw)
    side = np.isin(picked, ("left", "right"))
    right = np.zeros(coh.size, dtype=bool)
    values = raw[side]
    if values.size and not all(v in (0, 1, True, False) for v in values):
        raise ValueError("correct must be 0/1 or bool on every trial with a side choice")
    right[side] = values.astype(bool)
    grid = np.unique(coh) if levels is None else np.asarray(sorted(levels), dtype=np.float64)
    rows = {"waived": ([], []), "not_offered": ([], [])}
    for c in grid:
        here = side & np.isclose(coh, c)
        for name, mask in (("waived", here & offered), ("not_offered", here & ~offered)):
            value, n = _rate(right, mask)
            if n == 0:
                warn_undefined(
                    f"accuracy on {name.replace('_', '-')} trials is undefined at coherence "
                    f"{c:g}%: no side was chosen on such a trial",
                    reason="no_trials",
                )
            rows[name][0].append(value)
            rows[name][1].append(n)
    pooled = {}
    for name, mask in (("waived", side & offered), ("not_offered", side & ~offered)):
        pooled[name], n = _rate(right, mask)
        if n == 0:
            warn_undefined(
                f"pooled accuracy on {name.replace('_', '-')} trials is undefined: no "
                "side was chosen on such a trial",
                reason="no_trials",
            )
    return WaivedAccuracy(
        grid,
        np.asarray(rows["waived"][0], dtype=np.float64),
        np.asarray(rows["not_offered"][0], dtype=np.float64),
        np.asarray(rows["waived"][1], dtype=np.int64),
        np.asarray(rows["not_offered"][1], dtype=np.int64),
        pooled["waived"],
        pooled["not_offered"],
    )


def sure_contrast(
    table: ByCoherence,
    low: Sequence[float] = LOW_COHERENCES,
    high: Sequence[float] = HIGH_COHERENCES,
) -> float:
    """S1's contrast: mean P(sure | offered) at the ``low`` coherences minus at the ``high`` ones.

    ``mean_{c in low} P(sure | offered, c) - mean_{c in high} P(sure | offered, c)``; positive
    when the sure option is chosen more as the evidence weakens (protocol 8.6 item 6, 8.7 S1).

    Returns nan, with an :class:`~labcore.UndefinedMetricWarning`, if a level is missing from
    ``table`` or undefined there.

    Examples
    --------
    >>> t = ByCoherence(np.array([0, 3.2, 25.6, 51.2]), np.array([0.6, 0.5, 0.1, 0.0]),
    ...                 np.array([5, 5, 5, 5]))
    >>> round(sure_contrast(t), 6)
    0.5
    """
    values = [table.at(c) for c in (*low, *high)]
    if not np.all(np.isfinite(values)):
        missing = [
            f"{c:g}%" for c, v in zip((*low, *high), values, strict=True) if not np.isfinite(v)
        ]
        warn_undefined(
            "the sure-option contrast is undefined: P(sure | offered) is undefined at "
            f"{', '.join(missing)}",
            reason="undefined_level",
        )
        return float("nan")
    return float(np.mean(values[: len(low)]) - np.mean(values[len(low) :]))


def waived_advantage(result: WaivedAccuracy, levels: Sequence[float] = WAIVED_COHERENCES) -> float:
    """S2's value: mean over ``levels`` of accuracy on waived minus on not-offered trials.

    ``(1 / |levels|) sum_{c in levels} [acc_waived(c) - acc_not_offered(c)]``, coherence-matched
    so the coherence mix of waived trials cannot produce it (protocol 8.7 S2).

    Returns nan, with an :class:`~labcore.UndefinedMetricWarning`, if a level is missing or
    either accuracy is undefined there.

    Examples
    --------
    >>> r = WaivedAccuracy(np.array([3.2, 6.4, 12.8]), np.array([0.7, 0.85, 0.98]),
    ...                    np.array([0.6, 0.75, 0.86]),
    ...                    np.array([9, 9, 9]), np.array([9, 9, 9]), 0.9, 0.8)
    >>> round(waived_advantage(r), 6)
    0.106667
    """
    table = ByCoherence(result.coherence, result.difference, result.n_waived)
    diffs = [table.at(c) for c in levels]
    if not np.all(np.isfinite(diffs)):
        missing = [f"{c:g}%" for c, d in zip(levels, diffs, strict=True) if not np.isfinite(d)]
        warn_undefined(
            "the waived-accuracy advantage is undefined: a waived or not-offered accuracy is "
            f"undefined at {', '.join(missing)}",
            reason="undefined_level",
        )
        return float("nan")
    return float(np.mean(diffs))
