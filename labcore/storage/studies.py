"""The studies beside the result sets: their folders under ``results/`` (:data:`STUDY_DIRS`) and
the loaders of the E3 design study (:func:`load_explore`) and the NeuroGym study
(:func:`load_neurogym`), which list problems and never raise. Protocol 8.7's studies:
:mod:`labcore.storage.results_pdw`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from labcore.storage.results import SUMMARY, _is_number, _read_csv, _read_json

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


# ----------------------------------------------------------------------- the NeuroGym study
NEUROGYM_DIR = "explore_neurogym"
"""Folder of the bundled NeuroGym study under ``results/`` (``python -m labcore explore
neurogym``)."""
NEUROGYM_TABLE = "neurogym_by_coherence.csv"
NEUROGYM_CURVES = "neurogym_curves.csv"
PDW_DIR = "pdw"
PDW_SWEEP_DIR = "pdw_sweep"
PDW_HELD_DIR = "pdw_held"
"""Folders of protocol 8.7's studies (``explore pdw``, ``explore pdw-sweep``, and the post hoc
``explore pdw-held``; ``labcore.storage.results_pdw``)."""
INTEGRATION_DIR = "explore_integration"
"""Folder of the integration study (``python -m labcore explore integration``; protocol sec. 9)."""
STUDY_DIRS = (EXPLORE_DIR, NEUROGYM_DIR, PDW_DIR, PDW_SWEEP_DIR, PDW_HELD_DIR, INTEGRATION_DIR)
"""Folders under ``results/`` that hold a study, not a result set of ``study paper`` or
``study e4``."""
NEUROGYM_MEANS = (
    "reward_reward",
    "imitation_reward",
    "ideal_reward",
    "ideal_no_sure_reward",
    "reward_sure_rate",
    "imitation_sure_rate",
    "ideal_sure_rate",
    "reward_max_p_sure",
    "reward_p_sure_start",
    "reward_auroc_opt_out",
    "reward_p_sure_at_20",
    "ideal_auroc",
)
"""Seed means a NeuroGym study summary must hold (each ``{"mean", "ci95", "n"}``) for display."""
NEUROGYM_MAY_BE_UNDEFINED = ("reward_auroc_opt_out", "reward_p_sure_at_20")
"""Of those, the ones whose mean may be null: an AUROC with one class only, a probe beyond a tiny
budget."""


def _neurogym_summary_problem(summary: dict) -> str | None:
    """What makes ``summary`` unusable as a NeuroGym study summary, or None."""
    if summary.get("study") != "neurogym" or not isinstance(summary.get("answer"), str):
        return "it is not a NeuroGym study summary"
    reading, means = summary.get("reading"), summary.get("means")
    if not isinstance(reading, dict) or not isinstance(means, dict):
        return "it lacks the reading or the seed means"
    for name, value in [
        *((f"reading.{k}", reading.get(k)) for k in ("reward", "imitation", "ideal")),
        *((f"means.{k}", means.get(k)) for k in NEUROGYM_MEANS),
    ]:
        defined = _is_number(
            value.get("mean") if isinstance(value, dict) else None,
            allow_none=name.split(".")[-1] in NEUROGYM_MAY_BE_UNDEFINED,
        )
        if (
            not isinstance(value, dict)
            or not defined
            or not _is_number(value.get("n"), allow_none=False)
        ):
            return f"{name} is missing or not a number"
        ci = value.get("ci95")
        if ci is not None and not (
            isinstance(ci, list) and len(ci) == 2 and all(_is_number(x) for x in ci)
        ):
            return f"{name}.ci95 is not a pair of numbers"
    return None


@dataclass
class NeuroGymStudy:
    """The NeuroGym study's files (``labcore.experiments.explore_neurogym``), read for display:
    ``table`` (seed x observer x coherence), ``curves`` (held-out reward over training),
    ``summary`` (per-seed values, seed means, the reading, the answer) and ``problems``."""

    directory: Path
    table: pd.DataFrame | None
    curves: pd.DataFrame | None
    summary: dict
    problems: list[str]


def load_neurogym(directory: Path | str) -> NeuroGymStudy:
    """Read a study written by ``explore neurogym``; problems are listed, never raised."""
    directory = Path(directory)
    problems: list[str] = []
    table = _read_csv(directory / NEUROGYM_TABLE, problems)
    curves = _read_csv(directory / NEUROGYM_CURVES, problems)
    summary = _read_json(directory / SUMMARY, problems)
    if table is None or curves is None or not summary:
        problems.append(
            f"{directory} does not hold a complete NeuroGym study ({NEUROGYM_TABLE}, "
            f"{NEUROGYM_CURVES}, summary.json); run `python -m labcore explore neurogym`."
        )
    elif problem := _neurogym_summary_problem(summary):
        problems.append(f"{directory / SUMMARY} cannot be shown: {problem}.")
        summary = {}
    return NeuroGymStudy(directory, table, curves, summary, problems)
