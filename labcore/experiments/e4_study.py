"""Experiment 4 (metacognition from reward alone; docs/protocol.md sec. 8) as a study
(``e4``), through the one runner: the shape of the ``paper`` study
(:mod:`labcore.experiments.paper_study`) on E4's pipeline (:mod:`labcore.experiments.e4`)."""

from __future__ import annotations

from dataclasses import dataclass

from labcore.experiments import paper_findings
from labcore.experiments.paper_study import (
    PaperConfig,
    prepare,
    run_unit,
    unit_of,
    units,
    write_figures,
)
from labcore.experiments.paper_tables import E4_TABLES, ResultTables
from labcore.experiments.study import Study


@dataclass(frozen=True)
class E4Config(PaperConfig):
    """E4's design: the ``paper`` study's fields with Experiment 4's pipeline."""

    experiments: tuple[str, ...] = ("e4",)
    """E4 runs on its own (its agents are the wagering task's arms, ``e4.ARMS``)."""


STUDY = Study(
    name="e4",
    title="Experiment 4: does metacognition emerge from reward alone (protocol 8.5, 8.8)",
    folder="e4",
    config=E4Config,
    units=units,
    run_unit=run_unit,
    summarise=paper_findings.summarise,
    tables=E4_TABLES,
    prepare=prepare,
    tables_model=ResultTables,
    unit_label=str,
    unit_of=unit_of,
    derived=write_figures,
)
