"""The studies beside the result sets: their folders under ``results/`` (:data:`STUDY_DIRS`) and
the loader of the E3 design study (:func:`load_explore`), which lists problems and never raises.
The studies of the one Study shape (NeuroGym's, protocol 8.6-8.7) are read through
:func:`labcore.experiments.study.load_study`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from labcore.storage.results import SUMMARY, _read_csv, _read_json

# ----------------------------------------------------------------------- the E3 design study
EXPLORE_ROWS = "explore_e3.csv"
EXPLORE_CURVES = "explore_e3_curves.csv"
EXPLORE_DIR = "explore_e3"
"""Folder of the bundled design study under ``results/`` (written by ``python -m labcore explore
e3``)."""


@dataclass
class ExploreStudy:
    """The E3 design study's files (``labcore.experiments.explore_e3``), read for display.

    ``rows``: one row per agent and protocol; ``curves``: titration curves; ``summary``:
    medians per group, the answer, factor effects; ``problems``: what could not be read.
    """

    directory: Path
    rows: pd.DataFrame | None
    curves: pd.DataFrame | None
    summary: dict
    problems: list[str]

    @property
    def groups(self) -> list[dict]:
        """Medians per (cell, schedule, protocol, kind)."""
        return list(self.summary.get("groups", []))

    def group(self, cell: str, schedule: str, protocol: str, kind: str) -> dict:
        """One group's medians (empty if the study has no such group)."""
        for g in self.groups:
            if (g.get("cell"), g.get("schedule"), g.get("protocol"), g.get("kind")) == (
                cell,
                schedule,
                protocol,
                kind,
            ):
                return g
        return {}


def load_explore(directory: Path | str) -> ExploreStudy:
    """Read a design study written by ``explore e3``; problems are listed, never raised."""
    directory = Path(directory)
    problems: list[str] = []
    rows = _read_csv(directory / EXPLORE_ROWS, problems)
    curves = _read_csv(directory / EXPLORE_CURVES, problems)
    summary = _read_json(directory / SUMMARY, problems)
    if rows is None or curves is None or not summary:
        problems.append(
            f"{directory} does not hold a complete design study (explore_e3.csv, "
            "explore_e3_curves.csv, summary.json); run `python -m labcore explore e3`."
        )
    elif not isinstance(summary.get("groups"), list) or "answer" not in summary:
        problems.append(f"{directory / SUMMARY} is not a design-study summary.")
        summary = {}
    return ExploreStudy(directory, rows, curves, summary, problems)


# ----------------------------------------------------------------------- the other studies' folders
NEUROGYM_DIR = "explore_neurogym"
"""Folder of the bundled NeuroGym study under ``results/`` (``python -m labcore study
neurogym``)."""
PDW_DIR = "pdw"
PDW_SWEEP_DIR = "pdw_sweep"
PDW_HELD_DIR = "pdw_held"
"""Folders of protocol 8.7's studies (``study pdw``, ``study pdw_sweep``, and the post hoc
``study pdw_held``)."""
INTEGRATION_DIR = "explore_integration"
"""Folder of the integration study (``python -m labcore explore integration``; protocol sec. 9)."""
DISSOCIATIONS_DIRS = ("dissociations", "dissociations_seeds20")
"""The measured dissociations' result sets (``labcore.experiments.dissociations``): n = 5, n = 20."""
STUDY_DIRS = (
    EXPLORE_DIR,
    NEUROGYM_DIR,
    PDW_DIR,
    PDW_SWEEP_DIR,
    PDW_HELD_DIR,
    INTEGRATION_DIR,
    *DISSOCIATIONS_DIRS,
)
"""Folders under ``results/`` that hold a study, not a result set of ``study paper`` or
``study e4``."""
