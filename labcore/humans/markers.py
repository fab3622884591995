"""Per-subject markers of a trial table, by the lab's own markers (issue 35).

For each subject of a :class:`~labcore.humans.trials.Trials` (and for an agent's trials, so that
people and agents are measured alike): the number of trials, accuracy, the Type-2 AUROC
(:func:`labcore.markers.type2_auroc`), meta-d', d' and the M-ratio
(:func:`labcore.markers.meta_d_prime`, Maniscalco & Lau 2012) and, where the confidence is a
probability, the expected calibration error (:func:`labcore.markers.expected_calibration_error`).

The rating rule (one rule for every file and every agent). The Type-2 AUROC reads the confidence
as it is, on the file's own scale (only its order matters). meta-d' needs discrete ratings:

* a confidence that takes at most :data:`MAX_RATING_LEVELS` (10) distinct values in the whole
  file is a rating scale, and its ratings are those values in increasing order (a 1-4 scale gives
  ratings 1-4, the lab's four wagers 0.5/0.65/0.8/0.95 give 1-4; a level nobody used is not a
  rating). Every subject of the file shares the scale;
* a confidence with more distinct values is continuous (a 0-100 slider, an agent's confidence
  head) and is binned per subject into :data:`QUARTILE_RATINGS` (4) equal-count ratings at the
  subject's own quartiles, a value on an edge going to the lower bin: ``meta_d_prime``'s
  ``binning="quantile"``, the rule the lab already uses for its agents (``labcore.measures``), so
  an agent's meta-d' here equals the one its pages show.

Calibration needs a probability of being right: the lab format's confidence is one by contract;
a Confidence Database scale is its dataset's own and says nothing about probability, so there
calibration is not computed (None, with a note). Subjects with fewer trials than Rahnev (2025)
recommends (100) are measured, with a note saying so.

Undefined values are None in the record (nan in arrays), each with a note that says why.
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
from labcore.humans.trials import Trials
from labcore.markers import expected_calibration_error, meta_d_prime, type2_auroc

MAX_RATING_LEVELS = 10
"""A confidence with at most this many distinct values in a file is a rating scale."""
QUARTILE_RATINGS = 4
"""Ratings a continuous confidence is binned into (per subject, at its quartiles)."""
MARKER_COLUMNS = ("subject", "n_trials", "accuracy", "type2_auroc", "meta_d", "m_ratio")
"""The columns ``python -m labcore markers`` prints and writes, in order."""
RatingRule = Literal["levels", "quartiles", "none"]


class SubjectMarkers(BaseModel):
    """One subject's markers: the typed record pages show and a class store can keep.

    Attributes
    ----------
    subject : str
    n_trials : int
        Trials the markers rest on.
    accuracy : float
        Share of trials whose response matched the stimulus.
    type2_auroc : float or None
        How well confidence tells right from wrong (0.5 chance, 1 perfect).
    meta_d, d_prime, m_ratio : float or None
        meta-d', d' and meta-d' / d' (Maniscalco & Lau 2012).
    calibration_error : float or None
        Expected calibration error (10 equal-width bins); None unless the confidence is a
        probability.
    n_ratings : int
        Confidence ratings meta-d' was fitted on.
    rating_rule : {"levels", "quartiles", "none"}
        How the confidence became ratings (module docstring); "none": a single level, no fit.
    notes : tuple of str
        Why a value is undefined, or why to read it with care.
    cautions : tuple of str
        What each note is about, one kind per note: ``"few_trials"``, ``"constant_confidence"``,
        ``"own_scale"`` (calibration needs a probability), or an undefined marker's reason
        (:attr:`labcore.UndefinedMetricWarning.reason`, ``"warning"`` when it names none).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    subject: str
    n_trials: int
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

    def row(self) -> dict[str, object]:
        """The record as a row of :data:`MARKER_COLUMNS`."""
        return {k: getattr(self, k) for k in MARKER_COLUMNS}


def rating_levels(confidence: ArrayLike) -> NDArray[np.float64] | None:
    """The rating scale of a confidence: its distinct values, or None if it is continuous.

    >>> rating_levels([1, 4, 2, 4]).tolist(), rating_levels(np.linspace(0, 1, 50))
    ([1.0, 2.0, 4.0], None)
    """
    levels = np.unique(np.asarray(confidence, dtype=np.float64))
    return levels if len(levels) <= MAX_RATING_LEVELS else None


def _warned(caught: list, notes: list[str], cautions: list[str]) -> None:
    """The lab's warnings of a computation as notes, each with its kind."""
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
    """(meta-d', d', M-ratio, ratings, rule) of one subject; nan with a note when undefined."""
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

    Parameters
    ----------
    stimulus, response : array-like of int, shape (n_trials,)
        0 (S1) or 1 (S2).
    confidence : array-like of float, shape (n_trials,)
        On the file's own scale.
    subject : str
    levels : ndarray or None
        The file's rating scale (:func:`rating_levels` of the whole file's confidence), or None
        for a continuous confidence (binned at the subject's quartiles).
    probability : bool
        Is the confidence a probability of being right (then calibration is computed)?

    Returns
    -------
    SubjectMarkers

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
    """The markers of every subject of a validated trial table, in file order.

    The rating scale is the whole file's (:func:`rating_levels`); calibration is computed for
    the lab format only (:attr:`~labcore.humans.trials.Trials.probability`).
    """
    levels = rating_levels(trials.confidence)
    out = []
    for name in trials.subjects:
        rows = trials.subject == name
        out.append(
            markers_of(
                trials.stimulus[rows],
                trials.response[rows],
                trials.confidence[rows],
                subject=name,
                levels=levels,
                probability=trials.probability,
            )
        )
    return out


def agent_markers(
    stimulus: ArrayLike, decision: ArrayLike, confidence: ArrayLike, *, subject: str
) -> SubjectMarkers:
    """An agent's trials measured as a person's: the trials it answered (a decision and a finite
    choice-point confidence, as ``labcore.measures`` counts them), its confidence a probability,
    its rating scale its own (:func:`rating_levels`)."""
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


def markers_csv(markers: Sequence[SubjectMarkers]) -> str:
    """The rows of :data:`MARKER_COLUMNS` as CSV text (an undefined value is an empty cell).

    >>> print(markers_csv([SubjectMarkers(subject="a", n_trials=40, accuracy=0.75)]), end="")
    subject,n_trials,accuracy,type2_auroc,meta_d,m_ratio
    a,40,0.75,,,
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MARKER_COLUMNS)
    for m in markers:
        writer.writerow(["" if v is None else v for v in m.row().values()])
    return out.getvalue()
