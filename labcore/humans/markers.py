"""Per-subject markers of a trial table, by the lab's own markers.

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

Units. A file with a condition column is measured per subject and condition
(:attr:`~labcore.humans.trials.Trials.units`); each record names its data set, subject and
condition, and counts the missed trials left out. A unit the file holds but the lab cannot
measure is a :class:`~labcore.humans.trials.Unmeasured` record beside the others
(:func:`table_rows`), and the command's table lists it with its reason.

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
"""The columns ``python -m labcore markers`` prints and writes, in order (``not_measured``: why
a unit has no markers, empty when it has them)."""
RatingRule = Literal["levels", "quartiles", "none"]


class SubjectMarkers(BaseModel):
    """One subject's markers: the typed record pages show and a class store can keep.

    Attributes
    ----------
    dataset : str or None
        The file the trials came from.
    subject : str
    condition : str or None
        The condition of the trials (None: the subject's trials are not split by condition).
    n_trials : int
        Trials the markers rest on.
    n_missed : int
        Missed trials left out (a stimulus, response or confidence missing).
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
        ``"own_scale"`` (calibration needs a probability), ``"accuracy_disagrees"`` (the file's
        Accuracy column disagrees with Stimulus and Response on some of the trials), or an
        undefined marker's reason (:attr:`labcore.UndefinedMetricWarning.reason`, ``"warning"``
        when it names none).
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

    def row(self) -> dict[str, object]:
        """The record as a row of :data:`MARKER_COLUMNS`."""
        return {k: getattr(self, k, None) for k in MARKER_COLUMNS}


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
    """The markers of every measured unit of a validated trial table (a subject, or a subject in
    one condition), in file order.

    The rating scale is the whole file's (:func:`rating_levels`); calibration is computed for
    the lab format only (:attr:`~labcore.humans.trials.Trials.probability`). A unit on whose
    trials the file's Accuracy column disagrees with Stimulus and Response says so in a note
    (the markers use Stimulus and Response).
    """
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


def markers_csv(rows: Sequence[SubjectMarkers | Unmeasured]) -> str:
    """The rows of :data:`MARKER_COLUMNS` as CSV text (an undefined value is an empty cell; a
    unit that was not measured has its reason in ``not_measured``).

    >>> print(markers_csv([SubjectMarkers(subject="a", n_trials=40, accuracy=0.75)]), end="")
    dataset,subject,condition,n_trials,n_missed,accuracy,type2_auroc,meta_d,m_ratio,not_measured
    ,a,,40,0,0.75,,,,
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MARKER_COLUMNS)
    for r in rows:
        cells = r.row() if isinstance(r, SubjectMarkers) else _unmeasured_row(r)
        writer.writerow(["" if v is None else v for v in cells.values()])
    return out.getvalue()


def _unmeasured_row(u: Unmeasured) -> dict[str, object]:
    cells = {k: getattr(u, k, None) for k in MARKER_COLUMNS}
    return {**cells, "not_measured": u.reason}
