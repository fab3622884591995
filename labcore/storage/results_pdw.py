"""The result contract of protocol 8.7 (issue 23): the Song et al. 2017 reproduction on NeuroGym's
post-decision wager and the reward explorer; file names, columns, and reading them back.

``results/pdw/`` (``python -m labcore explore pdw``, :mod:`labcore.experiments.pdw`):

- ``pdw_trials.csv``: one row per evaluation trial (the policy's **sampled** actions), columns
  :data:`TRIALS_FIELDS`: ``agent`` (``plain_gru``, ``b2_ws``, ``ideal_observer``), ``seed``,
  ``training`` (``reward`` / ``imitation`` / ``ideal``), ``coherence`` (percent), ``sure_offered``
  (0/1), ``choice`` (``left`` / ``right`` / ``sure``; ``none`` when nothing was chosen), ``correct``
  (1/0, empty unless a side was chosen). The ideal observer's rows are on the same trials;
- ``pdw_trials_greedy.csv``: the same for the networks' greedy actions;
- ``pdw_by_coherence.csv``: the signatures per agent, training, seed, policy and coherence
  (:data:`BY_COHERENCE_FIELDS`; what the figures draw);
- ``pdw_curves.csv``: the learning curves (:data:`CURVE_FIELDS`), every held-out check, sampled and
  greedy, and the early probes of the sure option's probability;
- ``summary.json``: ``schema_version``, ``study`` ("pdw"), ``config``, ``seeds``, ``claims``
(verdict
  "new (no paper number)"), ``values``, ``per_seed``, ``reading`` (S1, S2 per agent), ``answer``,
  and the manifest ``files`` (each data file's SHA-256; a file that does not match is not used).

``results/pdw_sweep/`` (``python -m labcore explore pdw-sweep``,
:mod:`labcore.experiments.pdw_sweep`):
``pdw_sweep.csv`` (one row per agent, :data:`SWEEP_FIELDS`), ``pdw_sweep_curves.csv``
(:data:`CURVE_FIELDS` with the cell), ``summary.json`` (cells, outcomes, factor effects, the answer,
the manifest).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from labcore.io import sha256_of
from labcore.storage.results import (
    MANIFEST,
    SUMMARY,
    _read_csv,
    _read_json,
    schema_problem,
)
from labcore.storage.studies import PDW_DIR, PDW_SWEEP_DIR

TRIALS = "pdw_trials.csv"
TRIALS_GREEDY = "pdw_trials_greedy.csv"
BY_COHERENCE = "pdw_by_coherence.csv"
CURVES = "pdw_curves.csv"
SWEEP_ROWS = "pdw_sweep.csv"
SWEEP_CURVES = "pdw_sweep_curves.csv"
TRIALS_FIELDS = ("agent", "seed", "training", "coherence", "sure_offered", "choice", "correct")
"""The contract's columns of ``pdw_trials.csv`` (issue 23), in order."""
BY_COHERENCE_FIELDS = (
    "agent",
    "training",
    "seed",
    "policy",
    "coherence",
    "p_sure",
    "n_offered",
    "accuracy_waived",
    "accuracy_not_offered",
    "n_waived",
    "n_not_offered",
)
CURVE_FIELDS = (
    "cell",
    "agent",
    "training",
    "seed",
    "update",
    "policy",
    "reward",
    "answered",
    "accuracy",
    "p_sure_offered",
    "s1_contrast",
    "s2_waived_advantage",
    "accuracy_waived",
    "accuracy_not_offered",
    "p_sure_c0",
    "p_sure_c3.2",
    "p_sure_c6.4",
    "p_sure_c12.8",
    "p_sure_c25.6",
    "p_sure_c51.2",
    "criterion_met",
    "prob_sure_offered",
    "prob_sure_not_offered",
    "train_reward",
    "train_entropy",
    "entropy_coef",
)
"""``pdw_curves.csv``: one row per check and policy ("sampled", "greedy"), and rows with ``policy``
"probability" for the early probes (only ``prob_sure_*`` filled); ``cell`` is "repro" in the
reproduction."""
FACTORS = (
    "readout_init",
    "input_scale",
    "entropy",
    "trials_per_update",
    "learning_rate",
    "baseline",
    "training_length",
)
"""The reward explorer's seven factors (protocol 8.7), in the registered order."""
SWEEP_FIELDS = (
    "cell",
    "side",
    "factor",
    *FACTORS,
    "seed",
    "updates",
    "stopped",
    "wall_seconds",
    "s1_contrast",
    "keeps_sure",
    "s2_waived_advantage",
    "p_sure_offered",
    "accuracy",
    "answered",
    "greedy_s1_contrast",
    "greedy_p_sure_offered",
    "p_sure_c0",
    "p_sure_c3.2",
    "p_sure_c6.4",
    "p_sure_c12.8",
    "p_sure_c25.6",
    "p_sure_c51.2",
)
"""``pdw_sweep.csv``: one row per trained agent (sampled evaluation unless ``greedy_``)."""


@dataclass
class PDWStudy:
    """A study of protocol 8.7 read for display; ``problems`` says what could not be used."""

    directory: Path
    summary: dict
    frames: dict[str, pd.DataFrame | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_pdw(directory: Path | str, files: tuple[str, ...] = (BY_COHERENCE, CURVES)) -> PDWStudy:
    """Read a study written by ``explore pdw`` or ``explore pdw-sweep``: ``files`` (data files of
    it)
    and ``summary.json``. A file missing, unreadable, or not the one the summary's manifest lists
    is left out with one sentence in ``problems``; nothing raises."""
    directory = Path(directory)
    problems: list[str] = []
    summary = _read_json(directory / SUMMARY, problems)
    if not summary:
        problems.append(
            f"{directory} holds no summary.json: run `python -m labcore explore pdw` "
            "(or pdw-sweep)."
        )
    elif outdated := schema_problem(summary):
        problems.append(outdated)
    manifest = summary.get(MANIFEST) if isinstance(summary.get(MANIFEST), dict) else {}
    frames: dict[str, pd.DataFrame | None] = {}
    for name in files:
        path = directory / name
        if not path.exists():
            problems.append(f"{name} is missing")
            frames[name] = None
        elif manifest.get(name) != sha256_of(path):
            problems.append(
                f"{name} was not written by the run that wrote summary.json; it is ignored"
            )
            frames[name] = None
        else:
            frames[name] = _read_csv(path, problems)
    return PDWStudy(directory, summary, frames, problems)


__all__ = [
    "BY_COHERENCE",
    "BY_COHERENCE_FIELDS",
    "CURVES",
    "CURVE_FIELDS",
    "FACTORS",
    "PDW_DIR",
    "PDW_SWEEP_DIR",
    "SWEEP_CURVES",
    "SWEEP_FIELDS",
    "SWEEP_ROWS",
    "TRIALS",
    "TRIALS_FIELDS",
    "TRIALS_GREEDY",
    "PDWStudy",
    "load_pdw",
]
