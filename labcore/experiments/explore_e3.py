"""The E3 design study: which design choices decide the paper's robustness hierarchy?

Pre-registered in docs/protocol.md sec. 7 (2026-11-23; the paper-weighted variant and the
learning curves sec. 7.7, 2026-11-26). Experiment 3 of the paper reports B1 (a workspace alone)
fragile (L75 0.04) and the B2 family robust (> 0.5); under the lab's registered design neither
holds. This study trains B1, B2 and B2 workspace-read over a design of write geometry x loop x
readout gain (fast schedule, 5 seeds), adds the paper's online schedule for the registered cell
and the cell closest to the paper's pattern (3 seeds) and the paper-weighted variant for the
registered cell, and measures each agent's L75 against the ceiling an ideal observer of its own
workspace reaches, in both noise protocols.

Run: ``python -m labcore study e3_design --out results/explore_e3 --jobs 2``. A unit is one
(schedule, cell, kind): its seeds train as one batch (skipped where the checkpoints exist), then
each is measured. Units already in the study's files are kept (``--rerun PATTERN`` measures
again). Files: ``explore_e3.csv`` (one row per agent and protocol), ``explore_e3_curves.csv``
(titration curves), ``explore_e3_learning.csv`` (the paper schedules' learning curves),
``summary.json`` (findings, answer, medians per group), ``figure.json`` (the curves figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

import labcore.envs as E
from labcore.agents import Agent
from labcore.config import AgentConfig, Intervention, TrainConfig
from labcore.experiments.e2 import bus_audit
from labcore.experiments.explore_e3_findings import (
    CELLS,
    CLOSEST_FAST,
    CURVES,
    HISTORY_EVERY,
    KINDS,
    LEARNING,
    PAPER_EPISODES_E3,
    PROTOCOLS,
    REGISTERED,
    ROWS,
    SCHEDULES,
    SIGMAS,
    Cell,
    E3Tables,
    summarise,
)
from labcore.experiments.study import Rows, Study
from labcore.markers import l75
from labcore.measures import (
    evaluation_intervention,
    gbi_readings,
    ignition_from_empty,
    report_codes,
    titration,
)
from labcore.rollout import rollout
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import (
    checkpoint_file,
    checkpoint_name,
    load_checkpoint,
    read_record,
)
from labcore.training.provision import Batch, run_batch


def _paper_train(**changes: Any) -> TrainConfig:
    return TrainConfig(
        mode="paper", train_episodes=PAPER_EPISODES_E3, history_every=HISTORY_EVERY, **changes
    )


@dataclass(frozen=True)
class E3StudyConfig:
    """Budgets of the study (protocol sec. 7.4, 7.7); :meth:`quick` for smoke tests."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Seeds of the fast schedule."""
    paper_seeds: tuple[int, ...] = (0, 1, 2)
    """Seeds of the paper schedules."""
    cells: tuple[Cell, ...] = CELLS
    """Architectures (fast schedule)."""
    paper_cells: tuple[str, ...] = (REGISTERED.slug, CLOSEST_FAST)
    """Cells on the paper schedule: the registered one and the closest fast one (sec. 7.4)."""
    weighted_cells: tuple[str, ...] = (REGISTERED.slug,)
    """Cells on the paper-weighted schedule (sec. 7.7)."""
    probe_kinds: tuple[str, ...] = ("b1",)
    """Kinds of the post hoc learning-rate probe (``paper_weighted_slow``; change log
    2026-11-26), in the paper-weighted cells."""
    schedules: tuple[str, ...] = SCHEDULES
    """Schedules run (``--set schedules=fast`` for the fast part alone)."""
    episodes: int = 50
    """Evaluation episodes per noise level (and for the ceiling)."""
    sigmas: tuple[float, ...] = SIGMAS
    """Titration levels."""
    ceiling_samples: int = 256
    """Noise draws per episode for the ideal observer."""
    train: TrainConfig = field(default_factory=TrainConfig)
    """Fast-schedule training."""
    paper_train: TrainConfig = field(default_factory=_paper_train)
    """Paper-schedule training (x3 and x20 stacked on the primary report, sec. 7.3)."""
    paper_weighted_slow_train: TrainConfig = field(
        default_factory=lambda: _paper_train(primary_weight_rule="class", lr=1e-4)
    )
    """The post hoc probe: the paper-weighted schedule at the paper's other tested learning rate
    (sec. 4.3.4: 1e-4, 1e-3 and 1e-2 were tried)."""
    paper_weighted_train: TrainConfig = field(
        default_factory=lambda: _paper_train(primary_weight_rule="class")
    )
    """The paper-weighted variant (sec. 7.7): the x20 as the primary class's weight alone."""

    @classmethod
    def quick(cls) -> E3StudyConfig:
        """Two cells, one seed, a few updates and episodes: the pipeline end to end in seconds."""
        tiny = TrainConfig(
            max_updates=20, min_updates=20, eval_every=10, train_episodes=100, heldout_episodes=16
        )
        paper = replace(tiny, mode="paper", train_episodes=2, history_every=1)
        closest = Cell("raw", "closed", 10.0)
        return cls(
            seeds=(0,),
            paper_seeds=(0,),
            cells=(REGISTERED, closest),
            paper_cells=(REGISTERED.slug, closest.slug),
            episodes=8,
            sigmas=(0.0, 0.1, 0.5, 1.0),
            ceiling_samples=8,
            train=tiny,
            paper_train=paper,
            paper_weighted_train=replace(paper, primary_weight_rule="class"),
            paper_weighted_slow_train=replace(paper, primary_weight_rule="class", lr=1e-4),
        )

    def train_config(self, schedule: str) -> TrainConfig:
        """The training config of ``schedule``."""
        return {
            "fast": self.train,
            "paper": self.paper_train,
            "paper_weighted": self.paper_weighted_train,
            "paper_weighted_slow": self.paper_weighted_slow_train,
        }[schedule]


# ------------------------------------------------------------------------------ units
@dataclass(frozen=True)
class Unit:
    """One (schedule, cell, kind): its seeds train as one batch, then each is measured."""

    schedule: str
    cell: str
    kind: str

    def __str__(self) -> str:
        return f"{self.schedule} {self.cell} {self.kind}"


def units(study: E3StudyConfig) -> list[Unit]:
    """Every unit of the design (sec. 7.4, 7.7), fast schedule first."""
    cells = {
        "fast": [c.slug for c in study.cells],
        "paper": list(study.paper_cells),
        "paper_weighted": list(study.weighted_cells),
        "paper_weighted_slow": list(study.weighted_cells),
    }
    kinds = {"paper_weighted_slow": study.probe_kinds}
    return [
        Unit(schedule, cell, kind)
        for schedule in SCHEDULES
        if schedule in study.schedules
        for cell in cells[schedule]
        for kind in kinds.get(schedule, KINDS)
    ]


def unit_of(row: dict) -> Unit:
    """The unit a row of any of the study's tables belongs to."""
    return Unit(row["schedule"], row["cell"], row["kind"])


def _seeds(study: E3StudyConfig, schedule: str) -> tuple[int, ...]:
    return study.seeds if schedule == "fast" else study.paper_seeds


def _name(config: AgentConfig, seed: int, cfg: TrainConfig) -> str:
    return checkpoint_name(
        "dual", config.kind, seed, cfg.mode, cfg.train_episodes if cfg.mode == "paper" else None
    )


def trained_on(record: dict) -> str:
    """Where an agent was trained, from its record's compute fingerprint (e.g. "AuthenticAMD
    AVX512 fast")."""
    c = record.get("compute") or {}
    parts = (c.get("cpu_vendor"), c.get("aten_capability"), c.get("mode"))
    return " ".join(str(p) for p in parts if p) or "unknown"


def learning_rows(record: dict, ident: dict) -> list[dict]:
    """A paper-schedule agent's learning curve (its record's ``history``) as rows."""
    where = trained_on(record)
    return [
        {
            **ident,
            "episode": h.get("episode"),
            "update": h.get("update"),
            "agreement": h.get("agreement"),
            "report_agreement": h.get("report_agreement"),
            "heldout_loss": h.get("heldout_loss"),
            "trained_on": where,
        }
        for h in record.get("history") or []
        if isinstance(h, dict) and h.get("episode") is not None
    ]


def run_unit(study: E3StudyConfig, unit: Unit, out: str) -> Rows:
    """Train the unit's missing seeds (one batch), then measure each seed (sec. 7.5)."""
    torch.set_num_threads(1)
    cell = Cell.from_slug(unit.cell)
    config = cell.config(unit.kind, unit.schedule)
    cfg = study.train_config(unit.schedule)
    ckpt = Path(out) / "checkpoints"
    seeds = _seeds(study, unit.schedule)
    missing = tuple(s for s in seeds if not checkpoint_file(ckpt, _name(config, s, cfg)).exists())
    if missing:
        ckpt.mkdir(parents=True, exist_ok=True)
        run_batch(Batch("dual", config, missing, cfg, str(ckpt)))
    rows: Rows = {ROWS.name: [], CURVES.name: [], LEARNING.name: []}
    for seed in seeds:
        loaded = load_checkpoint(checkpoint_file(ckpt, _name(config, seed, cfg)))
        record = read_record(ckpt, _name(config, seed, cfg))
        measured, curves = measure_agent(loaded.agent, unit.kind, seed, study)
        ident = {"cell": cell.slug, "schedule": unit.schedule, "kind": unit.kind, "seed": seed}
        agent = {
            **ident,
            "geometry": cell.geometry,
            "loop": cell.loop,
            "gain": cell.gain,
            "agreement": (loaded.entry or {}).get("heldout_agreement"),
        }
        rows[ROWS.name] += [{**agent, **r} for r in measured]
        rows[CURVES.name] += [{**ident, **c} for c in curves]
        if unit.schedule != "fast":
            rows[LEARNING.name] += learning_rows(record, ident)
    return rows


def measure_agent(
    agent: Agent, base_kind: str, seed: int, study: E3StudyConfig
) -> tuple[list[dict], list[dict]]:
    """The outcomes of protocol sec. 7.5 for one trained agent: rows per protocol, titration
    curves."""
    torch.set_num_threads(1)
    seeds = episode_seeds(seed, "eval", study.episodes)
    fixed = Intervention(**evaluation_intervention(base_kind))
    clean = rollout(agent, E.DUAL_TASK, seeds, fixed)
    readings = gbi_readings(clean.slots[:, clean.report_steps(0)])
    shared = {
        "accuracy": float(clean.decision_accuracy().mean()),
        "jacobian": bus_audit(agent, clean)["e2.audit.jacobian"],
        "gbi_signed": readings["gbi_signed"],
        "gbi_abs": readings["gbi_abs"],
        "gbi_two_occupied": readings["two_occupied"],
        "ignition": ignition_from_empty(clean.slots),
    }
    codes = report_codes(agent, seeds, fixed)
    rows, curves = [], []
    for protocol in PROTOCOLS:
        accs = titration(
            agent,
            seeds,
            study.sigmas,
            noise_mode=protocol,
            target="workspace",
            fixed=evaluation_intervention(base_kind),
        )
        result = l75(study.sigmas, accs)
        ceiling = codes.ceiling(protocol, n_samples=study.ceiling_samples, seed=seed)
        value = (
            result.bound
            if result.censored == "right"
            else (0.0 if result.censored == "left" else result.value)
        )
        rows.append(
            {
                "protocol": protocol,
                "l75": value,
                "l75_censored": result.censored,
                "ceiling": ceiling,
                "efficiency": value / ceiling
                if ceiling > 0 and math.isfinite(ceiling)
                else float("nan"),
                **shared,
            }
        )
        curves += [
            {"protocol": protocol, "sigma": s, "accuracy": a}
            for s, a in zip(study.sigmas, accs, strict=True)
        ]
    return rows, curves


STUDY = Study(
    name="e3_design",
    title="E3 design study: which design gives the paper's robustness hierarchy (protocol 7)",
    folder="explore_e3",
    config=E3StudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=(ROWS, CURVES, LEARNING),
    tables_model=E3Tables,
    unit_label=str,
    unit_of=unit_of,
)
