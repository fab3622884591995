"""The paper's Experiments 1-3 as one study (``paper``), through the one runner."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labcore.budgets import ReproduceConfig
from labcore.checks import check_choice
from labcore.config import AUDIT_SEEDS, KINDS_OF_EXPERIMENT, TASK_OF_EXPERIMENT, TrainConfig
from labcore.experiments import paper_findings
from labcore.experiments.common import DEFAULT_CACHE, SeedResult
from labcore.experiments.paper_tables import (
    AGENTS,
    BOUNDS,
    E2_TRACES,
    E3_POINTS,
    FIGURES,
    PAPER_EXPERIMENTS,
    PAPER_TABLES,
    SEED_VALUES,
    TRIAL_TABLES,
    UNTRAINED_VALUES,
    ResultTables,
    figures_json,
    point_rows,
    trace_rows,
    value_rows,
)
from labcore.experiments.study import Rows, Study
from labcore.findings import write_json


@dataclass(frozen=True)
class PaperConfig:
    """The design of a result set: which experiments, which seeds, which budgets, the audit."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Agent seeds (the unit of analysis); ``--set seeds=0,1,...,19`` for n = 20."""
    experiments: tuple[str, ...] = PAPER_EXPERIMENTS
    """The pipelines run (``--set experiments=e1`` for one)."""
    budget: str = "full"
    """The evaluation budgets: ``full`` or ``quick`` (:meth:`ReproduceConfig.for_budget`)."""
    audit_seeds: int = AUDIT_SEEDS
    """The first seeds whose untrained twins also run (the construction audit; 0 skips it)."""
    cache: str = str(DEFAULT_CACHE)
    """Where agents neither bundled nor cached are trained to (and found next time)."""
    seed_batches: bool = True
    """Train the missing seeds of a kind as one seed-batched model (else one by one)."""
    design_study: str = str(Path(__file__).resolve().parents[2] / "results" / "explore_e3")
    """The E3 design study whose ideal-observer ceilings bound the L75 claims (protocol 10.3)."""
    custom: ReproduceConfig | None = None
    """Budgets of a custom run (tests: a few trials), instead of ``budget``'s; its seeds are
    ignored (``seeds`` is)."""

    @classmethod
    def quick(cls) -> PaperConfig:
        """The quick budgets on two seeds (``results/quick``): the pipeline end to end."""
        return cls(seeds=(0, 1), budget="quick")

    @property
    def budgets(self) -> ReproduceConfig:
        """The pipelines' budgets (trials, episodes, noise levels) for these seeds."""
        if self.custom is not None:
            return replace(self.custom, seeds=tuple(self.seeds))
        check_choice(self.budget, "budget", ("full", "quick"))
        return ReproduceConfig.for_budget(self.seeds, self.budget == "quick")


@dataclass(frozen=True)
class Unit:
    """One pipeline on one seed's agents, trained or (``untrained``) their twins."""

    experiment: str
    seed: int
    untrained: bool = False

    def __str__(self) -> str:
        return f"{self.experiment} seed {self.seed}" + (" untrained" if self.untrained else "")


BOUNDS_UNIT = Unit("bounds", 0)
"""The ceilings of the E3 design study, read once (a unit, so a re-summary has them)."""


def units(config: PaperConfig) -> list[Unit]:
    """Every (experiment, seed), experiment by experiment, then the twins of the audit seeds, then
    (with E3) the design study's ceilings."""
    trained = [Unit(e, s) for e in config.experiments for s in config.seeds]
    twins = [
        Unit(e, s, True) for e in config.experiments for s in config.seeds[: config.audit_seeds]
    ]
    return trained + twins + ([BOUNDS_UNIT] if "e3" in config.experiments else [])


def unit_of(row: dict) -> Unit:
    """The unit a row of any of the study's tables belongs to."""
    if "ceiling" in row:
        return BOUNDS_UNIT
    if "weights" in row:
        return Unit(row["experiment"], row["seed"], True)
    if "experiment" in row:
        return Unit(row["experiment"], row["seed"])
    if "arm" in row:
        return Unit("e4", row["seed"])
    if "condition" in row:
        return Unit("e1", row["seed"])
    if "capacity" in row or "figure" in row:
        return Unit("e2", row["seed"])
    return Unit("e3", row["seed"])


def pipeline(experiment: str) -> Any:
    """The pipeline module of an experiment (each has ``run_seed``)."""
    from labcore.experiments import e1, e2, e3, e4

    return {"e1": e1, "e2": e2, "e3": e3, "e4": e4}[experiment]


def unit_rows(result: SeedResult, untrained: bool = False) -> Rows:
    """A pipeline's result for one seed as the study's rows."""
    if untrained:
        rows = value_rows(
            result.experiment, result.seed, result.values, result.l75, {"weights": "untrained"}
        )
        return {UNTRAINED_VALUES.name: rows}
    out: Rows = {
        SEED_VALUES.name: value_rows(result.experiment, result.seed, result.values, result.l75)
    }
    for table in TRIAL_TABLES[result.experiment]:
        if table.name in result.rows:
            out[table.name] = [plain(r) for r in result.rows[table.name]]
    if result.experiment == "e2":
        out[E2_TRACES.name] = trace_rows(result.seed, result.figures)
    if result.experiment == "e3":
        out[E3_POINTS.name] = point_rows(result.seed, result.figures.get("points") or {})
    base = {"experiment": result.experiment, "seed": result.seed}
    out[AGENTS.name] = [
        {**base, "agent": name.split(" (")[0], "status": name.split(" (")[1].rstrip(")")}
        for name in result.excluded
    ] + [{**base, "agent": name, "status": "trained"} for name in result.trained]
    return out


def plain(row: dict) -> dict:
    """A row whose numpy numbers are the Python numbers the csv module writes alike (a float32
    keeps its short form, as ``str`` gives it)."""
    out = {}
    for k, v in row.items():
        if hasattr(v, "item") and not isinstance(v, str | bool | int | float):
            v = type(v.item())(str(v))
        out[k] = v
    return out


def bound_rows(design_study: str) -> list[dict[str, Any]]:
    """The median ideal-observer L75 of B1, B2 and B2 workspace-read per noise protocol in the E3
    design study's registered cell on the fast schedule (none if the study cannot be read)."""
    from labcore.experiments.e3_design import KINDS, PROTOCOLS, REGISTERED, E3Tables
    from labcore.findings import load_summary

    loaded = load_summary(design_study, E3Tables, study="e3_design")
    if loaded.tables is None:
        return []
    rows = []
    for kind in KINDS:
        for protocol in PROTOCOLS:
            group = loaded.tables.group(REGISTERED.slug, "fast", protocol, kind)
            if group is not None and group.ceiling is not None:
                source = f"e3_design {REGISTERED.slug} fast (n = {group.n})"
                rows.append(
                    {"kind": kind, "protocol": protocol, "ceiling": group.ceiling, "source": source}
                )
    return rows


def run_unit(config: PaperConfig, unit: Unit, out: str) -> Rows:
    """One pipeline on one seed's agents (or their untrained twins); or the design study's
    ceilings."""
    if unit == BOUNDS_UNIT:
        return {BOUNDS.name: bound_rows(config.design_study)}
    budgets = replace(config.budgets, untrained=unit.untrained)
    result = pipeline(unit.experiment).run_seed(unit.seed, budgets, config.cache)
    return unit_rows(result, unit.untrained)


def _dask_client_connected() -> bool:
    if "distributed" not in sys.modules:
        return False
    from distributed import get_client

    try:
        get_client()
    except ValueError:
        return False
    return True


def provision_agents(config: PaperConfig, jobs: int = 1) -> list[str]:
    """Train every agent the experiments need that is neither bundled nor cached."""
    from labcore.storage.checkpoints import BUNDLED_DIR, checkpoint_name
    from labcore.training.provision import missing_seeds, plan_batches, progress_bar, run_batches

    cfg = TrainConfig()
    needed: dict[tuple[str, str], None] = {}
    for experiment in config.experiments:
        kinds = getattr(pipeline(experiment), "KINDS", None) or KINDS_OF_EXPERIMENT[experiment]
        for kind in kinds:  # E4 names the kinds of its arms, every other its experiment's
            needed[(TASK_OF_EXPERIMENT[experiment], kind)] = None
    requests = [
        (task, kind, missing_seeds(task, kind, config.seeds, [BUNDLED_DIR, config.cache], cfg), cfg)
        for task, kind in needed
    ]
    batches = plan_batches(requests, config.cache, workers=jobs, seed_batches=config.seed_batches)
    if not batches:
        return []
    bar, render = progress_bar("training missing agents", paper=False)
    try:
        run_batches(
            batches,
            workers=jobs,
            backend="dask" if _dask_client_connected() else "local",
            on_progress=render,
        )
    finally:
        bar.close()
    return sorted(checkpoint_name(b.task, b.kind, s) for b in batches for s in b.seeds)


def prepare(config: PaperConfig, out: Path, jobs: int, todo: Sequence[Unit] = ()) -> None:
    """Train the agents the units to run need and lack (only their experiments' kinds, only their
    seeds), before they run (they then find them in the cache); nothing when only the design
    study's ceilings are to be read."""
    units = [u for u in todo if u != BOUNDS_UNIT]
    if not units:
        return
    seeds = tuple(sorted({u.seed for u in units}))
    experiments = tuple(e for e in config.experiments if any(u.experiment == e for u in units))
    trained = provision_agents(replace(config, seeds=seeds, experiments=experiments), jobs)
    if trained:
        print(
            f"trained {len(trained)} agent(s) into {config.cache}: {', '.join(trained)}",
            file=sys.stderr,
        )


def write_figures(config: PaperConfig, rows: Rows, out: Path) -> list[str]:
    """``figures.json`` from the rows (the figures' arrays, in the shape they read)."""
    budgets = config.budgets
    payload = figures_json(
        rows, config.experiments, config.seeds, budgets.masking_soa, budgets.masking_count
    )
    write_json(Path(out) / FIGURES, payload)
    return [FIGURES]


STUDY = Study(
    name="paper",
    title="The paper's Experiments 1-3 against its numbers, with the construction audit",
    folder="bundled",
    config=PaperConfig,
    units=units,
    run_unit=run_unit,
    summarise=paper_findings.summarise,
    tables=PAPER_TABLES,
    prepare=prepare,
    tables_model=ResultTables,
    unit_label=str,
    unit_of=unit_of,
    derived=write_figures,
)
