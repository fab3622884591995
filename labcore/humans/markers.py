"""Per-subject markers of a trial table (people and agents measured alike): accuracy, Type-2
AUROC, meta-d', d', M-ratio (Maniscalco & Lau 2012) and, where confidence is a probability (the
lab format), the expected calibration error.

The rating rule for meta-d': a confidence with at most :data:`MAX_RATING_LEVELS` distinct values
in the whole file is a rating scale (its values in order, shared by every subject); a continuous
one is binned per subject at its quartiles (``binning="quantile"``, as ``labcore.measures`` does
for agents). Undefined values are None, each with a note saying why.
"""

from __future__ import annotations

import csv
import io
import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict

from labcore import LabWarning
from labcore.findings import Number
from labcore.humans.reference import trial_band
from labcore.humans.trials import Trials, Unmeasured
from labcore.markers import expected_calibration_error, meta_d_prime, type2_auroc

MAX_RATING_LEVELS = 10
"""A confidence with at most this many distinct values in a file is a rating scale."""
QUARTILE_RATINGS = 4
"""Ratings a continuous confidence is binned into (per subject, at its quartiles)."""
MARKER_COLUMNS = (
    "dataset",
    "subject",
    "condition",
    "n_trials",
    "n_missed",
    "accuracy",
    "type2_auroc",
    "meta_d",
    "m_ratio",
    "not_measured",
)
"""The columns ``python -m labcore markers`` prints and writes, in order."""
RatingRule = Literal["levels", "quartiles", "none"]


class SubjectMarkers(BaseModel):
    """One subject's (or unit's) markers; undefined values None.

    ``n_missed`` counts missed trials left out; ``rating_rule`` says how the confidence became
    ratings ("none": a single level, no fit); ``notes`` say why a value is undefined or to be read
    with care, ``cautions`` name each note's kind (``"few_trials"``, ``"constant_confidence"``,
    ``"own_scale"``, ``"accuracy_disagrees"``, or an undefined marker's reason).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    dataset: str | None = None
    subject: str
    condition: str | None = None
    n_trials: int
    n_missed: int = 0
    accuracy: float
    type2_auroc: Number = None
    meta_d: Number = None
    d_prime: Number = None
    m_ratio: Number = None
    calibration_error: Number = None
    n_ratings: int = 0
    rating_rule: RatingRule = "none"
    notes: tuple[str, ...] = ()
    cautions: tuple[str, ...] = ()


def rating_levels(confidence: ArrayLike) -> NDArray[np.float64] | None:
    """The rating scale of a confidence: its distinct values, or None if it is continuous.

    >>> rating_levels([1, 4, 2, 4]).tolist(), rating_levels(np.linspace(0, 1, 50))
    ([1.0, 2.0, 4.0], None)
    """
    levels = np.unique(np.asarray(confidence, dtype=np.float64))
    return levels if len(levels) <= MAX_RATING_LEVELS else None


def _warned(caught: list, notes: list[str], cautions: list[str]) -> None:
    for w in caught:
        if issubclass(w.category, LabWarning):
            notes.append(str(w.message))
            cautions.append(getattr(w.message, "reason", None) or "warning")


def _fit(
    stimulus: NDArray[np.int8],
    response: NDArray[np.int8],
    confidence: NDArray[np.float64],
    levels: NDArray[np.float64] | None,
    notes: list[str],
    cautions: list[str],
) -> tuple[float, float, float, int, RatingRule]:
    nan = float("nan")
    if levels is not None and len(levels) < 2:
        notes.append("the confidence never changes, so meta-d' cannot be fitted")
        cautions.append("constant_confidence")
        return nan, nan, nan, 0, "none"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LabWarning)
        if levels is None:
            result = meta_d_prime(
                stimulus, response, confidence, n_ratings=QUARTILE_RATINGS, binning="quantile"
            )
            n_ratings, rule = QUARTILE_RATINGS, "quartiles"
        else:
            ratings = 1 + np.searchsorted(levels, confidence)
            result = meta_d_prime(
                stimulus, response, ratings, n_ratings=len(levels), binning="none"
            )
            n_ratings, rule = len(levels), "levels"
    _warned(caught, notes, cautions)
    return result.meta_d_prime, result.d_prime, result.m_ratio, n_ratings, rule


def markers_of(
    stimulus: ArrayLike,
    response: ArrayLike,
    confidence: ArrayLike,
    *,
    subject: str,
    levels: NDArray[np.float64] | None,
    probability: bool,
) -> SubjectMarkers:
    """The markers of one subject's trials (binary stimulus and response, 0/1).

    ``levels`` is the file's rating scale (:func:`rating_levels`), or None for a continuous
    confidence; ``probability`` says whether calibration is computed.

    Examples
    --------
    Right trials rated higher than wrong ones on a 1-2 scale, 3 of the 4 pairs ordered:

    >>> m = markers_of([0, 1, 0, 1], [0, 1, 1, 0], [2, 2, 2, 1], subject="a",
    ...                levels=np.array([1.0, 2.0]), probability=False)
    >>> m.accuracy, m.type2_auroc, m.n_ratings, m.calibration_error
    (0.5, 0.75, 2, None)
    """
    stim = np.asarray(stimulus, dtype=np.int8)
    resp = np.asarray(response, dtype=np.int8)
    conf = np.asarray(confidence, dtype=np.float64)
    correct = stim == resp
    notes: list[str] = []
    cautions: list[str] = []
    low, _ = trial_band()
    if len(stim) < low:
        notes.append(
            f"{len(stim)} trials, fewer than the {low} Rahnev (2025) recommends per person: "
            "meta-d' and the M-ratio are noisy"
        )
        cautions.append("few_trials")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LabWarning)
        auroc = type2_auroc(correct, conf)
    _warned(caught, notes, cautions)
    meta_d, d_prime, m_ratio, n_ratings, rule = _fit(stim, resp, conf, levels, notes, cautions)
    calibration = None
    if probability:
        calibration = expected_calibration_error(correct, conf)
    else:
        notes.append("calibration needs confidence as a probability; this scale is the file's own")
        cautions.append("own_scale")
    return SubjectMarkers(
        subject=subject,
        n_trials=len(stim),
        accuracy=float(correct.mean()),
        type2_auroc=auroc,
        meta_d=meta_d,
        d_prime=d_prime,
        m_ratio=m_ratio,
        calibration_error=calibration,
        n_ratings=n_ratings,
        rating_rule=rule,
        notes=tuple(notes),
        cautions=tuple(cautions),
    )


def subject_markers(trials: Trials) -> list[SubjectMarkers]:
    """The markers of every measured unit of a validated trial table, in file order."""
    levels = rating_levels(trials.confidence)
    out = []
    for unit in trials.units:
        rows = trials.rows(unit)
        m = markers_of(
            trials.stimulus[rows],
            trials.response[rows],
            trials.confidence[rows],
            subject=unit[0],
            levels=levels,
            probability=trials.probability,
        )
        notes, cautions = list(m.notes), list(m.cautions)
        disagree = 0 if trials.disagrees is None else int(trials.disagrees[rows].sum())
        if disagree:
            notes.append(
                f"the file's Accuracy disagrees with Stimulus and Response on {disagree} of "
                f"these trials; the markers use Stimulus and Response"
            )
            cautions.append("accuracy_disagrees")
        out.append(
            m.model_copy(
                update={
                    "condition": unit[1],
                    "n_missed": trials.missed.get(unit, 0),
                    "notes": tuple(notes),
                    "cautions": tuple(cautions),
                }
            )
        )
    return out


def table_rows(trials: Trials) -> list[SubjectMarkers | Unmeasured]:
    """Every unit of a trial table in file order: its markers, or why it has none."""
    measured = {(m.subject, m.condition): m for m in subject_markers(trials)}
    left_out = {(u.subject, u.condition): u for u in trials.unmeasured}
    return [measured.get(unit) or left_out[unit] for unit in trials.order]


def agent_markers(
    stimulus: ArrayLike, decision: ArrayLike, confidence: ArrayLike, *, subject: str
) -> SubjectMarkers:
    """An agent's answered trials (as ``labcore.measures`` counts them) measured as a person's."""
    stim = np.asarray(stimulus)
    dec = np.asarray(decision)
    conf = np.asarray(confidence, dtype=np.float64)
    answered = (dec >= 0) & np.isfinite(conf)
    return markers_of(
        stim[answered],
        dec[answered],
        conf[answered],
        subject=subject,
        levels=rating_levels(conf[answered]),
        probability=True,
    )


def markers_csv(rows: Sequence[SubjectMarkers | Unmeasured]) -> str:
    """The rows of :data:`MARKER_COLUMNS` as CSV text (undefined: an empty cell).

    >>> print(markers_csv([SubjectMarkers(subject="a", n_trials=40, accuracy=0.75)]), end="")
    dataset,subject,condition,n_trials,n_missed,accuracy,type2_auroc,meta_d,m_ratio,not_measured
    ,a,,40,0,0.75,,,,
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MARKER_COLUMNS)
    for r in rows:
        cells = [getattr(r, "reason" if k == "not_measured" else k, None) for k in MARKER_COLUMNS]
        writer.writerow(["" if v is None else v for v in cells])
    return out.getvalue()
