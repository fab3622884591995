"""The lab's example trial table: synthetic observers in the Confidence Database's format.

No person produced these trials. They are drawn from a seed by the textbook signal-detection
model of confidence (Maniscalco & Lau 2012, their Fig. 1), so that a visitor can try the
"Your data" page and the command line without a file of their own, and every subject is named
``synthetic-<k>`` so that the label travels with the numbers wherever they are shown.

The model, per trial: the stimulus ``s`` is 1 or 2 with equal probability; the evidence is
``x ~ N(+/- d'/2, 1)`` (minus for 1); the response is 2 if ``x > 0``, else 1; the confidence is
a rating 1-4 of ``|x| + e`` at the criteria :data:`RATING_CRITERIA`, where ``e ~ N(0,
sigma_meta^2)`` is metacognitive noise that confidence suffers and the choice does not. The
subjects differ only in ``sigma_meta`` (:data:`META_NOISE`): the first has none (an M-ratio near
1), the last much (an M-ratio well below 1), so the example shows the spread the markers measure.

Examples
--------
>>> from labcore.humans.trials import read_trials
>>> t = read_trials(synthetic_example(), "example.csv")
>>> t.format, t.subjects, len(t)
('confidence-database', ('synthetic-1', 'synthetic-2', 'synthetic-3'), 360)
>>> synthetic_example() == synthetic_example()
True
"""

from __future__ import annotations

import csv
import io

import numpy as np

EXAMPLE_SEED = 0
"""The seed the page's example is drawn from (same seed, same file)."""
EXAMPLE_TRIALS = 120
"""Trials per synthetic subject (above Rahnev 2025's 100 per person)."""
D_PRIME = 1.5
"""Type-1 sensitivity of every synthetic subject (about 77% correct)."""
META_NOISE = (0.0, 0.6, 2.0)
"""Metacognitive noise SD of each synthetic subject, in units of the evidence's SD."""
RATING_CRITERIA = (0.4, 0.9, 1.5)
"""Criteria on ``|x| + e`` between ratings 1|2, 2|3 and 3|4."""
EXAMPLE_NAME = "synthetic_confidence_database_example.csv"
"""The example's file name (it says what it is)."""


def synthetic_example(seed: int = EXAMPLE_SEED, n_trials: int = EXAMPLE_TRIALS) -> bytes:
    """The example file (Confidence Database format; module docstring: the model).

    Parameters
    ----------
    seed : int
        Draws every trial (same seed, same bytes).
    n_trials : int
        Trials per subject.

    Returns
    -------
    bytes
        UTF-8 CSV with the columns ``Subj_idx, Stimulus, Response, Confidence``.
    """
    rng = np.random.default_rng(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Subj_idx", "Stimulus", "Response", "Confidence"])
    for k, sigma in enumerate(META_NOISE, start=1):
        stimulus = rng.integers(1, 3, n_trials)
        evidence = rng.normal(np.where(stimulus == 2, D_PRIME / 2, -D_PRIME / 2), 1.0)
        response = np.where(evidence > 0, 2, 1)
        felt = np.abs(evidence) + rng.normal(0.0, sigma, n_trials)
        rating = 1 + np.searchsorted(RATING_CRITERIA, felt)
        for row in zip(stimulus, response, rating, strict=True):
            writer.writerow([f"synthetic-{k}", *(int(v) for v in row)])
    return out.getvalue().encode("utf-8")
