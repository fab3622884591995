"""The E3 design study: which design choices decide the paper's robustness hierarchy?

Run: ``python -m labcore study e3_design --out results/explore_e3 --jobs 2``; a unit is one
(schedule, cell, kind), its seeds trained as one batch.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel

from labcore.config import AGENT_KINDS, AgentConfig, Intervention, TrainConfig
from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Flag, Number, StudySummary
from labcore.paper_claims import E3_FRAGILE, E3_ROBUST
from labcore.seeding import episode_seeds

if TYPE_CHECKING:
    from labcore.agents import Agent

GEOMETRIES = ("layernorm", "raw", "offset")
LOOPS = ("open", "closed")
GAINS = (1.0, 10.0)
KINDS = ("b1", "b2", "b2_ws")
PROTOCOLS = ("stored", "read")
SIGMAS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)
"""The E3 grid extended to 1.0 (protocol sec. 7.4)."""
SCHEDULES = ("fast", "paper", "paper_weighted", "paper_weighted_slow")
"""Protocol sec. 7.3 (fast, paper), 7.7 (paper_weighted: the x20 as a class weight) and its post
hoc probe (paper_weighted_slow: the same at the paper's other tested learning rate, 1e-4, on B1;
change log 2026-11-26)."""
SCHEDULE_TAGS = {"paper_weighted": ".class20", "paper_weighted_slow": ".class20-lr1e-4"}
CLOSEST_FAST = "raw-closed-g10"
"""The fast cell closest to the paper's pattern by the rule of sec. 7.4, found on 2026-11-23
(protocol change log); :func:`closest_cell` recomputes it and the summary says if it moved."""

ROWS = Table(
    "explore_e3",
    (
        "cell", "geometry", "loop", "gain", "schedule", "kind", "seed", "protocol",
        "accuracy", "l75", "l75_censored", "ceiling", "efficiency", "jacobian",
        "gbi_signed", "gbi_abs", "gbi_two_occupied", "ignition", "agreement",
    ),
    text=("cell", "geometry", "loop", "schedule", "kind", "protocol", "l75_censored"),
    optional=("efficiency", "gbi_signed", "gbi_abs", "agreement"),
)  # fmt: skip
CURVES = Table(
    "explore_e3_curves",
    ("cell", "schedule", "kind", "seed", "protocol", "sigma", "accuracy"),
    text=("cell", "schedule", "kind", "protocol"),
)
LEARNING = Table(
    "explore_e3_learning",
    (
        "cell", "schedule", "kind", "seed", "episode", "update", "agreement",
        "report_agreement", "heldout_loss", "trained_on",
    ),
    text=("cell", "schedule", "kind", "trained_on"),
    optional=("report_agreement", "heldout_loss"),
    required=False,
)  # fmt: skip
"""One row per held-out evaluation of a paper-schedule agent (protocol sec. 7.7)."""


@dataclass(frozen=True)
class Cell:
    """One architecture of the design (protocol sec. 7.3)."""

    geometry: str = "layernorm"
    loop: str = "open"
    gain: float = 1.0

    @property
    def slug(self) -> str:
        """``layernorm-open-g1``: the cell's name in files and tables."""
        return f"{self.geometry}-{self.loop}-g{self.gain:g}"

    def config(self, kind: str, schedule: str = "fast") -> AgentConfig:
        """The agent config of ``kind`` in this cell (its own kind name, for checkpoint names;
        the paper-weighted schedule's agents carry its tag, so they never share a file)."""
        return replace(
            AGENT_KINDS[kind],
            kind=f"{kind}.{self.slug}{SCHEDULE_TAGS.get(schedule, '')}",
            write_geometry=self.geometry,
            closed_loop=self.loop == "closed",
            readout_gain=self.gain,
        )

    @classmethod
    def from_slug(cls, slug: str) -> Cell:
        """The inverse of :attr:`slug`."""
        geometry, loop, gain = slug.split("-")
        return cls(geometry, loop, float(gain[1:]))


CELLS = tuple(Cell(g, lo, ga) for g, lo, ga in itertools.product(GEOMETRIES, LOOPS, GAINS))
REGISTERED = Cell()


# ------------------------------------------------------------------------------ the design
def _paper_train(**changes: Any) -> TrainConfig:
    """The paper schedule: 8,000 training episodes, a held-out evaluation (a point of the agent's
    learning curve) every 100."""
    return TrainConfig(mode="paper", train_episodes=8000, history_every=100, **changes)


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


def _name(config: AgentConfig, seed: int, cfg: TrainConfig) -> str:
    from labcore.storage.checkpoints import checkpoint_name

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
            **{k: h.get(k) for k in ("episode", "update", "agreement", "report_agreement")},
            "heldout_loss": h.get("heldout_loss"),
            "trained_on": where,
        }
        for h in record.get("history") or []
        if isinstance(h, dict) and h.get("episode") is not None
    ]


# ------------------------------------------------------------------------------ running a unit
def run_unit(study: E3StudyConfig, unit: Unit, out: str) -> Rows:
    """Train the unit's missing seeds (one batch), then measure each seed (sec. 7.5)."""
    import torch

    from labcore.storage.checkpoints import checkpoint_file, load_checkpoint, read_record
    from labcore.training.provision import Batch, run_batch

    torch.set_num_threads(1)
    cell = Cell.from_slug(unit.cell)
    config = cell.config(unit.kind, unit.schedule)
    cfg = study.train_config(unit.schedule)
    ckpt = Path(out) / "checkpoints"
    seeds = study.seeds if unit.schedule == "fast" else study.paper_seeds
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
    import torch

    import labcore.envs as E
    from labcore.experiments.e2 import bus_audit
    from labcore.markers import l75
    from labcore.measures import (
        evaluation_intervention,
        gbi_readings,
        ignition_from_empty,
        report_codes,
        titration,
    )
    from labcore.rollout import rollout

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


# ------------------------------------------------------------------------------ rules
EXCLUDE_BELOW = TrainConfig().agreement_threshold
"""Protocol sec. 5.3 (the paper's rule): a seed below 95% held-out agreement with the oracle did
not learn the task; it is flagged and excluded. The study's medians leave such agents out and
count them (``n_excluded``); their rows stay in the files."""


def excluded(row: dict) -> bool:
    """Did this agent miss the training criterion (held-out agreement below :data:`EXCLUDE_BELOW`)?

    >>> excluded({"agreement": 0.33}), excluded({"agreement": 1.0}), excluded({"agreement": None})
    (True, False, False)
    """
    agreement = row.get("agreement")
    return agreement is not None and math.isfinite(agreement) and agreement < EXCLUDE_BELOW


def _median(values: list[float | None], *, skip_nan: bool = False) -> float:
    """Median over seeds; NaN when no seed is left (every one excluded)."""
    values = [math.nan if v is None else v for v in values]
    if not values:
        return float("nan")
    return float(np.nanmedian(values) if skip_nan else np.median(values))


GroupKey = tuple[str, str, str, str]


def group(rows: list[dict]) -> dict[GroupKey, dict]:
    """Medians per (cell, schedule, protocol, kind) over the agents that met the training
    criterion (:func:`excluded`): L75, ceiling, efficiency, robust share, ...; ``n`` agents used,
    ``n_excluded`` left out."""
    out: dict[GroupKey, dict] = {}
    keys = sorted({(r["cell"], r["schedule"], r["protocol"], r["kind"]) for r in rows})
    for key in keys:
        every = [r for r in rows if (r["cell"], r["schedule"], r["protocol"], r["kind"]) == key]
        sel = [r for r in every if not excluded(r)]
        out[key] = {
            "n": len(sel),
            "n_excluded": len(every) - len(sel),
            "l75": _median([r["l75"] for r in sel]),
            "robust_share": float(np.mean([r["l75"] > E3_ROBUST for r in sel]))
            if sel
            else float("nan"),
            "ceiling": _median([r["ceiling"] for r in sel]),
            "efficiency": _median([r["efficiency"] for r in sel], skip_nan=True),
            "accuracy": _median([r["accuracy"] for r in sel]),
            "jacobian": _median([r["jacobian"] for r in sel]),
            "gbi_abs": _median([r["gbi_abs"] for r in sel], skip_nan=True),
            "gbi_signed": _median([r["gbi_signed"] for r in sel], skip_nan=True),
        }
    return out


def _l75(groups: dict, cell: str, schedule: str, protocol: str, kind: str) -> float:
    return groups.get((cell, schedule, protocol, kind), {}).get("l75", float("nan"))


def distance_to_paper(groups: dict, cell: str, schedule: str, protocol: str) -> float:
    """Protocol sec. 7.4: 0 when the cell shows the paper's pattern, larger the further away."""
    b1, b2, ws = (_l75(groups, cell, schedule, protocol, k) for k in KINDS)
    if not all(np.isfinite([b1, b2, ws])) or min(b1, b2, ws) <= 0:
        return float("inf")
    return (
        max(0.0, math.log(b1 / E3_FRAGILE))
        + max(0.0, math.log(E3_ROBUST / b2))
        + max(0.0, math.log(E3_ROBUST / ws))
    )


def closest_cell(groups: dict, schedule: str = "fast") -> tuple[str, str, float]:
    """The (cell, protocol) closest to the paper's pattern, and its distance (sec. 7.4)."""
    best = ("", "", float("inf"))
    for cell in CELLS:
        for protocol in PROTOCOLS:
            d = distance_to_paper(groups, cell.slug, schedule, protocol)
            if d < best[2]:
                best = (cell.slug, protocol, d)
    return best


def pattern_hits(groups: dict) -> list[dict[str, str]]:
    """Every (cell, schedule, protocol) with the paper's pattern (sec. 7.6): median B1 L75 below
    0.1 while both B2 variants' medians exceed 0.5."""
    hits = []
    for cell, schedule, protocol, kind in groups:
        if kind != "b1":
            continue
        b1, b2, ws = (_l75(groups, cell, schedule, protocol, k) for k in KINDS)
        if b1 < E3_FRAGILE and b2 > E3_ROBUST and ws > E3_ROBUST:
            hits.append({"cell": cell, "schedule": schedule, "protocol": protocol})
    return hits


def combinations(groups: dict) -> list[tuple[tuple[str, str, str], float, float, float]]:
    """Every (cell, schedule, protocol) with a positive median L75 of all three kinds, with the
    three medians (B1, B2, B2 workspace-read)."""
    out = []
    for cell, schedule, protocol, kind in groups:
        if kind != "b1":
            continue
        values = [_l75(groups, cell, schedule, protocol, k) for k in KINDS]
        if all(math.isfinite(v) and v > 0 for v in values):
            out.append(((cell, schedule, protocol), *values))
    return out


def factor_effects(groups: dict, schedule: str = "fast") -> dict[str, dict[str, float]]:
    """Per factor, ``"<kind> <protocol> <from> -> <to>"``: the mean change of median log L75 from
    the factor's first level to each other level, averaged over the other factors' levels
    (protocol sec. 7.6)."""
    levels = {"geometry": GEOMETRIES, "loop": LOOPS, "gain": GAINS}
    out: dict[str, dict[str, float]] = {}
    cells = [c for c in CELLS if any(k[0] == c.slug and k[1] == schedule for k in groups)]
    for factor, options in levels.items():
        out[factor] = {}
        for protocol, kind, level in itertools.product(PROTOCOLS, KINDS, options[1:]):
            diffs = []
            for cell in cells:
                if getattr(cell, factor) != options[0]:
                    continue
                other = replace(cell, **{factor: level})
                a = _l75(groups, cell.slug, schedule, protocol, kind)
                b = _l75(groups, other.slug, schedule, protocol, kind)
                if a > 0 and b > 0:
                    diffs.append(math.log(b) - math.log(a))
            change = (
                f"{options[0]:g} -> {level:g}" if factor == "gain" else f"{options[0]} -> {level}"
            )
            out[factor][f"{kind} {protocol} {change}"] = (
                float(np.mean(diffs)) if diffs else float("nan")
            )
    return out


def schedule_effects(groups: dict, to: str = "paper") -> dict[str, dict]:
    """The schedule as a factor (protocol sec. 7.6): per kind and protocol, the change of median
    log L75 from the fast schedule to ``to``, averaged over the cells trained on both.

    >>> c = REGISTERED.slug
    >>> g = {(c, "fast", "stored", "b1"): {"l75": 0.2}, (c, "paper", "stored", "b1"): {"l75": 0.05}}
    >>> round(math.exp(schedule_effects(g)["b1 stored"]["log_ratio"]), 3)
    0.25
    """
    out: dict[str, dict] = {}
    for kind, protocol in itertools.product(KINDS, PROTOCOLS):
        cells = {}
        for cell in CELLS:
            fast = _l75(groups, cell.slug, "fast", protocol, kind)
            other = _l75(groups, cell.slug, to, protocol, kind)
            if fast > 0 and other > 0:
                cells[cell.slug] = math.log(other) - math.log(fast)
        if cells:
            out[f"{kind} {protocol}"] = {
                "log_ratio": float(np.mean(list(cells.values()))),
                "cells": cells,
            }
    return out


LEARNED, NEVER, LOST = "learned", "never learned", "learned, then lost it"


def curve_reading(agreements: list[float]) -> str:
    """Protocol sec. 7.7's reading of one learning curve (held-out agreement by evaluation).

    >>> curve_reading([0.3, 0.99, 1.0]), curve_reading([0.2, 0.4]), curve_reading([0.2, 0.97, 0.4])
    ('learned', 'never learned', 'learned, then lost it')
    """
    if agreements and agreements[-1] >= EXCLUDE_BELOW:
        return LEARNED
    return LOST if any(a >= EXCLUDE_BELOW for a in agreements) else NEVER


def readings(learning: list[dict]) -> list[dict]:
    """Every paper-schedule agent's curve reading, with its best and final agreement."""
    agents: dict[tuple, list[dict]] = {}
    for r in learning:
        agents.setdefault((r["cell"], r["schedule"], r["kind"], r["seed"]), []).append(r)
    out = []
    for (cell, schedule, kind, seed), curve in sorted(agents.items()):
        curve.sort(key=lambda r: r["episode"])
        values = [r["agreement"] for r in curve]
        best = max(range(len(curve)), key=lambda i: values[i])
        out.append(
            {
                "cell": cell,
                "schedule": schedule,
                "kind": kind,
                "seed": seed,
                "reading": curve_reading(values),
                "final": values[-1],
                "best": values[best],
                "best_episode": curve[best]["episode"],
                "trained_on": curve[-1]["trained_on"],
            }
        )
    return out


# ------------------------------------------------------------------------------ summary
class E3Group(BaseModel, extra="forbid"):
    """Medians over the agents of one (cell, schedule, protocol, kind) that met the criterion."""

    cell: str
    schedule: str
    protocol: str
    kind: str
    n: int
    n_excluded: int
    l75: Number
    robust_share: Number
    ceiling: Number
    efficiency: Number
    accuracy: Number
    jacobian: Number
    gbi_abs: Number
    gbi_signed: Number


class Closest(BaseModel, extra="forbid"):
    """The (cell, protocol) of a schedule closest to the paper's pattern (sec. 7.4)."""

    cell: str
    protocol: str
    distance: Number


class Reading(BaseModel, extra="forbid"):
    """Sec. 7.7's reading of one paper-schedule agent's learning curve."""

    cell: str
    schedule: str
    kind: str
    seed: int
    reading: str
    final: float
    best: float
    best_episode: int
    trained_on: str


class E3Tables(BaseModel, extra="forbid"):
    """The design study's tables (``summary.json`` ``tables``)."""

    groups: list[E3Group]
    closest: dict[str, Closest]
    pattern: list[dict[str, str]]
    factor_effects: dict[str, dict[str, dict[str, Number]]]
    schedule_effects: dict[str, dict[str, dict[str, Any]]]
    readings: list[Reading]
    exclude_below: float

    def group(self, cell: str, schedule: str, protocol: str, kind: str) -> E3Group | None:
        """The medians of one (cell, schedule, protocol, kind), or None."""
        return next(
            (
                g
                for g in self.groups
                if (g.cell, g.schedule, g.protocol, g.kind) == (cell, schedule, protocol, kind)
            ),
            None,
        )


def _ratio(log_ratio: float | None) -> float | None:
    return None if log_ratio is None or not math.isfinite(log_ratio) else math.exp(log_ratio)


FACTOR_LEVELS = {
    "geometry.raw": ("geometry", "layernorm -> raw"),
    "geometry.offset": ("geometry", "layernorm -> offset"),
    "loop.closed": ("loop", "open -> closed"),
    "gain.10": ("gain", "1 -> 10"),
}
"""The factor changes reported as findings (fast schedule, stored noise), by finding-id part."""
KIND_WORDS = {"b1": "B1", "b2": "B2", "b2_ws": "B2 workspace-read"}


def _finding(
    id_: str, question: str, value: Any, n: int, unit: str, measure: str, **extra: Any
) -> Finding:
    base = {"study": "e3_design", "files": (ROWS.file,), "section": "protocol sec. 7"}
    return Finding(
        id=f"e3_design.{id_}",
        question=question,
        value=value,
        n=n,
        unit=unit,
        measure=measure,
        **base | extra,
    )


def _findings(groups: dict, rows: list[dict], reads: list[dict], n_seeds: int) -> list:
    combos = combinations(groups)
    question = "In how many designs is B1 fragile while both B2 agents stay robust?"
    out = [_finding("pattern", question, len(pattern_hits(groups)), len(combos), "count", "l75")]
    for kind in ("b2", "b2_ws"):
        i = KINDS.index(kind)
        ratios = [c[1 + i] / c[1] for c in combos]
        for end, pick in (("max", max), ("min", min)):
            question = f"The {end}imum over designs of {KIND_WORDS[kind]}'s L75 divided by B1's"
            value = pick(ratios) if ratios else None
            out.append(
                _finding(f"ratio.{kind}.{end}", question, value, len(ratios), "ratio", "l75")
            )
    for kind in KINDS:
        g = groups.get((REGISTERED.slug, "fast", "stored", kind), {})
        question = f"{KIND_WORDS[kind]}'s median L75 in the registered design (stored noise)"
        out.append(
            _finding(f"registered.{kind}", question, g.get("l75"), g.get("n", 0), "sigma", "l75")
        )
        question = (
            f"The L75 an ideal observer of {KIND_WORDS[kind]}'s workspace reaches "
            "(registered design, stored noise)"
        )
        ceiling, n = g.get("ceiling"), g.get("n", 0)
        out.append(_finding(f"ceiling.{kind}", question, ceiling, n, "sigma", "ideal_observer"))
    if combos:
        (cell, schedule, protocol), *values = min(combos, key=lambda c: c[1])
        for kind, value in zip(KINDS, values, strict=True):
            question = f"{KIND_WORDS[kind]}'s median L75 where B1 is most fragile"
            n = groups[(cell, schedule, protocol, kind)]["n"]
            out.append(_finding(f"most_fragile.{kind}", question, value, n, "sigma", "l75"))
    effects = factor_effects(groups, "fast")
    for part, (factor, change) in FACTOR_LEVELS.items():
        for kind in KINDS:
            question = (
                f"What {change} ({factor}) multiplies {KIND_WORDS[kind]}'s median L75 by "
                "(stored noise)"
            )
            value = _ratio(effects[factor].get(f"{kind} stored {change}"))
            out.append(_finding(f"factor.{part}.{kind}", question, value, n_seeds, "ratio", "l75"))
    for to in ("paper", "paper_weighted"):
        effect = schedule_effects(groups, to)
        for kind in KINDS:
            entry = effect.get(f"{kind} stored")
            if entry is None:
                continue
            question = (
                f"What the {to.replace('_', '-')} schedule multiplies {KIND_WORDS[kind]}'s "
                "median L75 by (stored noise, cells trained on both)"
            )
            value, n = _ratio(entry["log_ratio"]), len(entry["cells"])
            out.append(_finding(f"schedule.{to}.{kind}", question, value, n, "ratio", "schedule"))
    for schedule in SCHEDULES:
        agents = {(r["cell"], r["kind"], r["seed"]): r for r in rows if r["schedule"] == schedule}
        if not agents:
            continue
        left_out = sum(excluded(r) for r in agents.values())
        flags = (Flag(kind="excluded", params={"n_excluded": left_out}),) if left_out else ()
        if schedule == "paper_weighted_slow":
            flags = (*flags, Flag(kind="post_hoc"))
        question = (
            f"How many agents on the {schedule.replace('_', '-')} schedule learned the task "
            "(95% held-out agreement)?"
        )
        value, n = len(agents) - left_out, len(agents)
        out.append(
            _finding(f"learned.{schedule}", question, value, n, "count", "excluded", flags=flags)
        )
    learning = {"files": (LEARNING.file,), "section": "protocol sec. 7.7"}
    for reading, part in ((NEVER, "never"), (LOST, "lost")) if reads else ():
        question = f"Paper-schedule agents whose learning curve reads '{reading}'"
        value = sum(r["reading"] == reading for r in reads)
        out.append(
            _finding(f"curves.{part}", question, value, len(reads), "count", "schedule", **learning)
        )
    return out


def summarise(study: Any, rows: Rows) -> StudySummary:
    """The study's findings, answer and tables from its rows (protocol sec. 7.6, 7.7)."""
    agent_rows = rows[ROWS.name]
    groups = group(agent_rows)
    reads = readings(rows.get(LEARNING.name, []))
    closest = {}
    for schedule in sorted({k[1] for k in groups}):
        cell, protocol, d = closest_cell(groups, schedule)
        closest[schedule] = {"cell": cell, "protocol": protocol, "distance": d}
    hits = pattern_hits(groups)
    combos = combinations(groups)
    fragile = min(combos, key=lambda c: c[1])[0] if combos else ("", "", "")
    tables = E3Tables(
        groups=[
            E3Group(cell=k[0], schedule=k[1], protocol=k[2], kind=k[3], **v)
            for k, v in groups.items()
        ],
        closest=closest,
        pattern=hits,
        factor_effects={
            s: _flat(factor_effects(groups, s)) for s in sorted({k[1] for k in groups})
        },
        schedule_effects={to: schedule_effects(groups, to) for to in SCHEDULES[1:3]},
        readings=reads,
        exclude_below=EXCLUDE_BELOW,
    )
    answer = Answer(
        outcome="pattern" if hits else "no_pattern",
        findings=("e3_design.pattern", "e3_design.ratio.b2.max", "e3_design.ratio.b2_ws.max"),
        params={
            "closest_fast": closest.get("fast", {}).get("cell", ""),
            "closest_fast_protocol": closest.get("fast", {}).get("protocol", ""),
            "registered_closest": CLOSEST_FAST,
            "most_fragile": {"cell": fragile[0], "schedule": fragile[1], "protocol": fragile[2]},
            "agents": len({(r["cell"], r["schedule"], r["kind"], r["seed"]) for r in agent_rows}),
        },
    )
    return StudySummary(
        study="e3_design",
        registered="docs/protocol.md sec. 7 (2026-11-23), sec. 7.7 (2026-11-26)",
        seeds=list(study.seeds),
        findings=_findings(groups, agent_rows, reads, len(study.seeds)),
        answer=answer,
        tables=tables.model_dump(mode="json"),
    )


def _flat(effects: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
    return {
        f: {k: (v if math.isfinite(v) else None) for k, v in d.items()} for f, d in effects.items()
    }


STUDY = Study(
    config=E3StudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=(ROWS, CURVES, LEARNING),
    tables_model=E3Tables,
    unit_of=unit_of,
)
