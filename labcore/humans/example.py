"""The lab's example trial table: synthetic observers in the Confidence Database's format.

No person produced these trials: each subject (``synthetic-<k>``) follows the signal-detection
model of confidence (Maniscalco & Lau 2012, Fig. 1): ``x ~ N(+/- d'/2, 1)``, response 2 if
``x > 0``, confidence a rating 1-4 of ``|x| + e`` at :data:`RATING_CRITERIA`, with metacognitive
noise ``e ~ N(0, sigma_meta^2)`` (:data:`META_NOISE`: none for the first, much for the last).

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


def synthetic_example(seed: int = EXAMPLE_SEED) -> bytes:
    """The example file: UTF-8 CSV, ``Subj_idx, Stimulus, Response, Confidence``."""
    rng = np.random.default_rng(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Subj_idx", "Stimulus", "Response", "Confidence"])
    for k, sigma in enumerate(META_NOISE, start=1):
        stimulus = rng.integers(1, 3, EXAMPLE_TRIALS)
        evidence = rng.normal(np.where(stimulus == 2, D_PRIME / 2, -D_PRIME / 2), 1.0)
        response = np.where(evidence > 0, 2, 1)
        felt = np.abs(evidence) + rng.normal(0.0, sigma, EXAMPLE_TRIALS)
        rating = 1 + np.searchsorted(RATING_CRITERIA, felt)
        for row in zip(stimulus, response, rating, strict=True):
            writer.writerow([f"synthetic-{k}", *(int(v) for v in row)])
    return out.getvalue().encode("utf-8")
