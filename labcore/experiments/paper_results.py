"""A result set of the studies ``paper`` (E1-E3) and ``e4`` as the pages, figures, lesson and report
read it: :func:`load_results`, a thin wrapper over the one loader
(:func:`labcore.experiments.study.load_study`, which validates ``summary.json`` with
:func:`labcore.findings.load_summary` and :class:`~labcore.experiments.paper_tables.ResultTables`
and reads every table of the study's contract). No torch."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from labcore.experiments.paper_tables import (
    E2_TRACES,
    E3_POINTS,
    E4_TABLES,
    EXPERIMENTS,
    PAPER_TABLES,
    ResultTables,
    figures_json,
)
from labcore.experiments.study import load_tables
from labcore.findings import Finding, Problem, StudySummary, load_summary, validation_sentences

GAIN = "exploratory_gain.json"
"""An optional exploratory file beside a result set (:mod:`labcore.experiments.gain`)."""
REPORT = "report.html"
STUDY_OF_FOLDER = {"e4": "e4"}
"""The study a folder's summary belongs to when it cannot say (no summary): E4's folder, else
``paper``."""


class GainRow(BaseModel):
    """One agent of the exploratory training-length analysis (its other fields are kept)."""

    model_config = ConfigDict(extra="allow")
    seed: int
    training: str
    updates: int | None
    jacobian: float | None
    l75_text: str
    accuracy: float | None


class Gain(BaseModel):
    """``exploratory_gain.json``: training length against B1's fragility (post hoc)."""

    model_config = ConfigDict(extra="allow")
    description: str = ""
    rows: list[GainRow] = []


@dataclass
class ResultSet:
    """A result set as read for display (:func:`load_results`)."""

    directory: Path
    summary: StudySummary | None = None
    tables: ResultTables | None = None
    frames: dict[str, Any] = field(default_factory=dict)
    """Each table of the study as a DataFrame (None where missing or unusable)."""
    gain: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def study(self) -> str:
        """``paper`` or ``e4`` (the folder's name decides when there is no summary)."""
        if self.summary is not None:
            return self.summary.study
        return STUDY_OF_FOLDER.get(self.directory.name, "paper")

    @property
    def findings(self) -> dict[str, Finding]:
        """Every finding by id (claims of the paper's table, E4's hypotheses)."""
        return self.summary.by_id if self.summary is not None else {}

    def finding(self, finding_id: str) -> Finding | None:
        """One finding (None where the set has none of that id)."""
        return self.findings.get(finding_id)

    @property
    def claims(self) -> list[Finding]:
        """The findings with a verdict: one per claim of the paper's table (and E4's)."""
        return [f for f in self.findings.values() if f.verdict is not None]

    @property
    def experiments(self) -> list[str]:
        """The experiments of this set, in display order."""
        listed = self.tables.experiments if self.tables is not None else []
        return [e for e in EXPERIMENTS if e in listed]

    @property
    def seeds(self) -> list[int]:
        """The agent seeds."""
        return list(self.summary.seeds) if self.summary is not None else []

    @property
    def values(self) -> dict[str, float | None]:
        """Every aggregated number by key (a seed mean; a censored L75 at its bound)."""
        return dict(self.tables.values) if self.tables is not None else {}

    def value(self, key: str) -> float:
        """One aggregated number as a float (nan if absent or undefined)."""
        v = self.values.get(key)
        return math.nan if v is None else float(v)

    @property
    def hypotheses(self) -> dict[str, dict[str, Any]]:
        """E4's registered hypotheses with their conditions, by id (empty without E4)."""
        if self.tables is None:
            return {}
        return {h.id: h.model_dump() for h in self.tables.hypotheses}

    def frame(self, name: str) -> Any:
        """The DataFrame of table ``name`` (None if missing or unusable)."""
        return self.frames.get(name)

    @property
    def seed_values(self) -> Any:
        """``seed_values.csv``: every per-seed number (values as text: a censored L75)."""
        return self.frame("seed_values")

    @property
    def trials(self) -> Any:
        """``e1_trials.csv``."""
        return self.frame("e1_trials")

    @property
    def capacity(self) -> Any:
        """``e2_capacity.csv``."""
        return self.frame("e2_capacity")

    @property
    def titration(self) -> Any:
        """``e3_titration.csv``."""
        return self.frame("e3_titration")

    @property
    def e4_trials(self) -> Any:
        """``e4_trials.csv``."""
        return self.frame("e4_trials")

    @property
    def e4_curves(self) -> Any:
        """``e4_curves.csv``: E4's learning curves."""
        return self.frame("e4_curves")

    @property
    def figures(self) -> dict[str, Any]:
        """The figures' arrays (what ``figures.json`` holds), from the rows of ``e2_traces`` and
        ``e3_points``."""
        rows = {}
        for table in (E2_TRACES, E3_POINTS):
            frame = self.frame(table.name)
            if frame is not None:
                rows[table.name] = [
                    {
                        k: (None if isinstance(v, float) and math.isnan(v) else v)
                        for k, v in r.items()
                    }
                    for r in frame.to_dict("records")
                ]
        config = self.summary.config if self.summary is not None else {}
        return figures_json(
            rows,
            self.experiments,
            self.seeds,
            config.get("masking_soa", 0),
            config.get("masking_count", 0),
        )


def _read_gain(path: Path, problems: list[str]) -> dict:
    if not path.exists():
        return {}
    try:
        return Gain.model_validate(json.loads(path.read_text(encoding="utf-8"))).model_dump()
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            problems += validation_sentences(exc, GAIN)
        else:
            problems.append(
                Problem(
                    f"{GAIN} could not be read ({exc.__class__.__name__}: {exc})",
                    GAIN,
                    "unreadable",
                )
            )
        return {}


def load_results(directory: Path | str) -> ResultSet:
    """Read a result set's folder through the one loader; never raises on a bad file.

    Parameters
    ----------
    directory : path
        A folder written by ``python -m labcore study paper`` or ``study e4``.

    Returns
    -------
    ResultSet
        What could be read; :attr:`ResultSet.problems` says what could not, one sentence each.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return ResultSet(
            directory,
            problems=[Problem(f"{directory} is not a directory", str(directory), "missing")],
        )
    peek = load_summary(directory, study=("paper", "e4"))
    study = peek.summary.study if peek.summary is not None else None
    study = study or STUDY_OF_FOLDER.get(directory.name, "paper")
    tables = E4_TABLES if study == "e4" else PAPER_TABLES
    loaded = load_tables(study, tables, ResultTables, directory)
    problems = list(loaded.problems)
    return ResultSet(
        directory,
        loaded.summary,
        loaded.tables,
        loaded.frames,
        _read_gain(directory / GAIN, problems),
        problems,
    )
