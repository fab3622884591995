"""The integration study (protocol sec. 9, issue 27): which whole-vs-parts integration measure,
on which signal and under which perturbation, recovers the monotonicities an IIT reading predicts?

Registered in docs/protocol.md sec. 9 (2026-11-24, 03:11 UTC) before this pipeline existed.
Phi_E, O-information and TSE complexity (``labcore.markers.integration``) are computed on the
carrier ``h``, the workspace ``slots`` and ``z_self`` of the bundled dual-task A0, A1, B1 and B2
(seeds 0-4) and their untrained twins, intact and (B1, B2) bus-off, on the unperturbed
trajectory and on the evoked response to E3's PCI-A pulse. The four monotonicities, the audit
against the untrained twins and the findings are
:mod:`labcore.experiments.explore_integration_findings`.

Run: ``python -m labcore study integration --out results/explore_integration --jobs 2`` (about
11 minutes on 2 cores). A unit is one (kind, seed): its trained agent and untrained twin
measured; units already in the study's files are kept (``--rerun PATTERN`` measures again).
Files: ``integration.csv`` (one row per value), ``summary.json`` (findings, answer, the tests
and the audit), ``figure.json`` (the pass/fail table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from labcore.config import Intervention
from labcore.experiments.common import provide_agent
from labcore.experiments.explore_integration_findings import (
    KINDS,
    ROWS,
    IntegrationTables,
    summarise,
)
from labcore.experiments.study import Rows, Study
from labcore.measures import evaluation_intervention
from labcore.measures_integration import (
    INTEGRATION_MEASURES,
    INTEGRATION_RIDGE,
    INTEGRATION_VARIANTS,
    integration_readings,
    integration_runs,
)
from labcore.seeding import episode_seeds

RIDGES = (INTEGRATION_RIDGE, 1e-2)
"""The registered ridge, then the sensitivity one (reported, not read; protocol 9.3)."""


@dataclass(frozen=True)
class IntegrationStudyConfig:
    """Seeds and budgets of the study (the registered values by default; protocol 9.2-9.4)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    kinds: tuple[str, ...] = KINDS
    episodes: int = 256
    """Evaluation episodes per agent and condition."""
    ridges: tuple[float, ...] = RIDGES
    """The first is the registered one (surrogates and the answer read it)."""
    n_surrogates: int = 4
    """Circular-shift surrogates per value of the "all" group (registered ridge only)."""
    min_group: int = 8
    """Episodes each of the correct and error groups needs (M3)."""
    pulse_step: int = 3
    pulse_sigma: float = 1.0

    @classmethod
    def quick(cls) -> IntegrationStudyConfig:
        """Two seeds, eight episodes, one surrogate: the pipeline end to end (numbers mean
        nothing)."""
        return cls(
            seeds=(0, 1), episodes=8, ridges=(INTEGRATION_RIDGE,), n_surrogates=1, min_group=2
        )


@dataclass(frozen=True)
class Unit:
    """One agent kind and seed: its trained agent and its untrained twin are measured."""

    kind: str
    seed: int

    def __str__(self) -> str:
        return f"{self.kind} s{self.seed}"


def units(study: IntegrationStudyConfig) -> list[Unit]:
    """Every (kind, seed) of the study, kind by kind."""
    return [Unit(k, s) for k in study.kinds for s in study.seeds]


def unit_of(row: dict) -> Unit:
    """The unit a row of the study's table belongs to."""
    return Unit(row["kind"], int(row["seed"]))


def run_unit(study: IntegrationStudyConfig, unit: Unit, out: str) -> Rows:
    """Measure one unit (:func:`measure_agent`) into the study's table."""
    return {ROWS.name: measure_agent(unit.kind, unit.seed, study)}


# --------------------------------------------------------------------------- measuring
def _groups(correct: np.ndarray, seed: int, min_group: int) -> dict[str, np.ndarray] | str:
    """Correct and error episodes, the larger group subsampled to the smaller's size; or why not."""
    right, wrong = np.flatnonzero(correct), np.flatnonzero(~correct)
    size = min(right.size, wrong.size)
    if size < min_group:
        return (
            f"{right.size} correct and {wrong.size} error episodes (each group needs {min_group})"
        )
    rng = np.random.default_rng(seed)
    return {
        "correct": np.sort(rng.choice(right, size, replace=False)),
        "error": np.sort(rng.choice(wrong, size, replace=False)),
    }


def measure_agent(kind: str, seed: int, study: IntegrationStudyConfig) -> list[dict[str, Any]]:
    """Every value of protocol 9.3-9.4 for one kind and seed, trained and untrained twin."""
    torch.set_num_threads(1)
    rows: list[dict[str, Any]] = []
    seeds = episode_seeds(seed, "eval", study.episodes)
    for training in ("trained", "untrained"):
        loaded, how = provide_agent(
            "dual", kind, seed, train_missing=False, untrained=training == "untrained"
        )
        if loaded is None:
            rows.append(
                {"kind": kind, "seed": seed, "training": training, "reason": f"agent {how}"}
            )
            continue
        agent = loaded.agent
        fixed = evaluation_intervention(kind)
        conditions = {"intact": Intervention(**fixed)}
        if agent.config.workspace:
            conditions["bus_off"] = Intervention(**fixed, capacity_scale=0.0)
        for condition, iv in conditions.items():
            runs = integration_runs(
                agent, seeds, iv, pulse_step=study.pulse_step, pulse_sigma=study.pulse_sigma
            )
            ident = {"kind": kind, "seed": seed, "training": training, "condition": condition}
            for i, ridge in enumerate(study.ridges):
                for r in integration_readings(
                    runs, ridge=ridge, n_surrogates=study.n_surrogates if i == 0 else 0, seed=seed
                ):
                    rows.append({**ident, **_row(r), "group": "all", "ridge": ridge})
                if training != "trained" or condition != "intact":
                    continue
                for variant in INTEGRATION_VARIANTS:
                    groups = _groups(runs.correct(variant), seed, study.min_group)
                    if isinstance(groups, str):
                        rows += [
                            {
                                **ident,
                                "signal": s,
                                "variant": variant,
                                "group": g,
                                "measure": m,
                                "ridge": ridge,
                                "reason": groups,
                            }
                            for s in runs.signals()
                            for g in ("correct", "error")
                            for m in INTEGRATION_MEASURES
                        ]
                        continue
                    for group, episodes in groups.items():
                        for r in integration_readings(
                            runs, variants=(variant,), episodes=episodes, ridge=ridge
                        ):
                            rows.append({**ident, **_row(r), "group": group, "ridge": ridge})
    return rows


def _row(r: Any) -> dict[str, Any]:
    return {
        "signal": r.signal,
        "variant": r.variant,
        "measure": r.measure,
        "value": r.value,
        "surrogate_mean": r.surrogate_mean,
        "n_episodes": r.n_episodes,
        "n_samples": r.n_samples,
        "n_channels": r.n_channels,
        "reason": r.reason,
    }


STUDY = Study(
    name="integration",
    title="Integration: which whole-vs-parts measure behaves as IIT predicts (protocol 9)",
    folder="explore_integration",
    config=IntegrationStudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=(ROWS,),
    tables_model=IntegrationTables,
    unit_label=str,
    unit_of=unit_of,
)
