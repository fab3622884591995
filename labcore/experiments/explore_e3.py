"""The E3 design study: which design choices decide the paper's robustness hierarchy?

Pre-registered in docs/protocol.md sec. 7 (2026-11-23). Experiment 3 of the paper reports
B1 (a workspace alone) fragile (L75 0.04) and the B2 family robust (> 0.5); under the lab's
registered design neither holds. This study trains B1, B2 and B2 workspace-read over a
design of write geometry x loop x readout gain (fast schedule, 5 seeds), adds the paper's
online schedule for the registered cell and the cell closest to the paper's pattern
(3 seeds), and measures each agent's L75 against the ceiling an ideal observer of its own
workspace reaches, in both noise protocols.

Run: ``python -m labcore explore e3 --out results/explore_e3 --jobs 2`` (about an hour and a
half for the fast part on 2 cores; the paper-schedule part takes hours: ``--schedules fast``
skips it). Files written to ``out``: ``explore_e3.csv`` (one row per agent and protocol),
``explore_e3_curves.csv`` (titration curves), ``summary.json`` (cell medians, the answer),
``figure.json`` (the curves figure).
"""

from __future__ import annotations

import csv
import itertools
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

import labcore.envs as E
from labcore import compute
from labcore.agents import Agent
from labcore.config import AGENT_KINDS, AgentConfig, Intervention, TrainConfig
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
from labcore.seeding import episode_seeds
from labcore.storage.checkpoint_format import checkpoint_name
from labcore.storage.checkpoints import load_checkpoint
from labcore.storage.results import clean_json, write_csv, write_result_json
from labcore.training.provision import Batch, run_batches

GEOMETRIES = ("layernorm", "raw", "offset")
LOOPS = ("open", "closed")
GAINS = (1.0, 10.0)
KINDS = ("b1", "b2", "b2_ws")
PROTOCOLS = ("stored", "read")
SIGMAS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)
"""The E3 grid extended to 1.0 (protocol sec. 7.4)."""
PAPER_RANGE = 0.5
"""The paper's largest tested sigma: 'robust' means L75 > 0.5."""
FRAGILE = 0.1
"""'Fragile' B1 (protocol sec. 7.6): L75 below 0.1 (the paper: 0.04)."""
PAPER_EPISODES_E3 = 8000
HISTORY_EVERY = 100
"""Paper schedules: episodes between the held-out evaluations of each agent's learning curve."""
SCHEDULES = ("fast", "paper", "paper_weighted")
"""Protocol sec. 7.3 (fast, paper) and 7.7 (paper_weighted: the x20 as a class weight)."""
SCHEDULE_TAGS = {"paper_weighted": ".class20"}
ROW_FIELDS = [
    "cell",
    "geometry",
    "loop",
    "gain",
    "schedule",
    "kind",
    "seed",
    "protocol",
    "accuracy",
    "l75",
    "l75_censored",
    "ceiling",
    "efficiency",
    "jacobian",
    "gbi_signed",
    "gbi_abs",
    "gbi_two_occupied",
    "ignition",
    "agreement",
]
CURVE_FIELDS = ["cell", "schedule", "kind", "seed", "protocol", "sigma", "accuracy"]


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


@dataclass(frozen=True)
class E3StudyConfig:
    """Budgets of the study (protocol sec. 7.4); :meth:`quick` for smoke tests."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Seeds of the fast schedule."""
    paper_seeds: tuple[int, ...] = (0, 1, 2)
    """Seeds of the paper schedule."""
    cells: tuple[Cell, ...] = CELLS
    """Architectures (fast schedule)."""
    episodes: int = 50
    """Evaluation episodes per noise level (and for the ceiling)."""
    sigmas: tuple[float, ...] = SIGMAS
    """Titration levels."""
    ceiling_samples: int = 256
    """Noise draws per episode for the ideal observer."""
    train: TrainConfig = field(default_factory=TrainConfig)
    """Fast-schedule training."""
    paper_train: TrainConfig = field(
        default_factory=lambda: TrainConfig(
            mode="paper", train_episodes=PAPER_EPISODES_E3, history_every=HISTORY_EVERY
        )
    )
    """Paper-schedule training."""
    paper_weighted_train: TrainConfig = field(
        default_factory=lambda: TrainConfig(
            mode="paper",
            train_episodes=PAPER_EPISODES_E3,
            primary_weight_rule="class",
            history_every=HISTORY_EVERY,
        )
    )
    """The paper-weighted variant (protocol sec. 7.7): the registered cell only."""

    @classmethod
    def quick(cls) -> E3StudyConfig:
        """Two cells, one seed, a few updates and episodes: the pipeline end to end in seconds."""
        tiny = TrainConfig(
            max_updates=20, min_updates=20, eval_every=10, train_episodes=100, heldout_episodes=16
        )
        return cls(
            seeds=(0,),
            paper_seeds=(0,),
            cells=(REGISTERED, Cell("raw", "closed", 10.0)),
            episodes=16,
            sigmas=(0.0, 0.1, 0.5, 1.0),
            ceiling_samples=16,
            train=tiny,
            paper_train=replace(tiny, mode="paper", train_episodes=2),
            paper_weighted_train=replace(
                tiny, mode="paper", train_episodes=2, primary_weight_rule="class"
            ),
        )


def train_cells(
    cells: Sequence[Cell],
    seeds: Sequence[int],
    cfg: TrainConfig,
    out: Path,
    *,
    workers: int = 1,
    on_progress: Callable | None = None,
    schedule: str = "fast",
) -> None:
    """Train every (cell, kind) on ``seeds`` as seed batches, into ``out``, skipping what exists."""
    batches = []
    for cell in cells:
        for kind in KINDS:
            config = cell.config(kind, schedule)
            missing = [
                s for s in seeds if not (out / f"{_name(config, s, cfg)}.safetensors").exists()
            ]
            if missing:
                batches.append(Batch("dual", config, tuple(missing), cfg, str(out)))
    if batches:
        run_batches(
            sorted(batches, key=lambda b: -len(b.seeds)), workers=workers, on_progress=on_progress
        )


def _name(config: AgentConfig, seed: int, cfg: TrainConfig) -> str:
    return checkpoint_name(
        "dual", config.kind, seed, cfg.mode, cfg.train_episodes if cfg.mode == "paper" else None
    )


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


def _evaluate(job: tuple[str, Cell, str, int, str, str]) -> tuple[list[dict], list[dict]]:
    path, cell, kind, seed, schedule, _ = job
    loaded = load_checkpoint(path)
    rows, curves = measure_agent(loaded.agent, kind, seed, _STUDY)
    ident = {
        "cell": cell.slug,
        "geometry": cell.geometry,
        "loop": cell.loop,
        "gain": cell.gain,
        "schedule": schedule,
        "kind": kind,
        "seed": seed,
        "agreement": (loaded.entry or {}).get("heldout_agreement"),
    }
    return (
        [{**ident, **r} for r in rows],
        [{k: ident[k] for k in ("cell", "schedule", "kind", "seed")} | c for c in curves],
    )


_STUDY = E3StudyConfig()


def _init_eval(study: E3StudyConfig) -> None:
    global _STUDY
    _STUDY = study


def evaluate(
    jobs: list[tuple[str, Cell, str, int, str, str]],
    study: E3StudyConfig,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Measure every trained agent (``measure_agent``), in ``workers`` processes."""
    rows: list[dict] = []
    curves: list[dict] = []
    if workers == 1:
        _init_eval(study)
        results = map(_evaluate, jobs)
        for i, (r, c) in enumerate(results, 1):
            rows += r
            curves += c
            if progress:
                progress(i, len(jobs))
        return rows, curves
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_init_eval, initargs=(study,)
    ) as pool:
        for i, (r, c) in enumerate(pool.map(_evaluate, jobs, chunksize=1), 1):
            rows += r
            curves += c
            if progress:
                progress(i, len(jobs))
    return rows, curves


_TEXT_FIELDS = {"cell", "geometry", "loop", "schedule", "kind", "protocol", "l75_censored"}


def _typed(row: dict[str, str]) -> dict:
    """A CSV row back in the types :func:`measure_agent` gives (empty cells: None)."""
    out: dict = {}
    for key, text in row.items():
        if key in _TEXT_FIELDS:
            out[key] = text
        elif text in ("", None):
            out[key] = None
        else:
            out[key] = int(text) if key == "seed" else float(text)
    return out


def read_schedule(out: Path, schedule: str) -> tuple[list[dict], list[dict]]:
    """The rows and curves of one schedule from a study's files (empty lists if there are none)."""
    found = []
    for name in ("explore_e3.csv", "explore_e3_curves.csv"):
        path = Path(out) / name
        if not path.exists():
            return [], []
        with path.open(newline="", encoding="utf-8") as fh:
            found.append([_typed(r) for r in csv.DictReader(fh) if r["schedule"] == schedule])
    return found[0], found[1]


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


def _median(values: list[float], *, skip_nan: bool = False) -> float:
    """Median over seeds; NaN when no seed is left (every one excluded)."""
    if not values:
        return float("nan")
    return float(np.nanmedian(values) if skip_nan else np.median(values))


def group(rows: list[dict]) -> dict[tuple[str, str, str, str], dict]:
    """Medians per (cell, schedule, protocol, kind) over the agents that met the training
    criterion (:func:`excluded`): L75, ceiling, efficiency, robust share, ...; ``n`` agents used,
    ``n_excluded`` left out."""
    out: dict[tuple[str, str, str, str], dict] = {}
    keys = sorted({(r["cell"], r["schedule"], r["protocol"], r["kind"]) for r in rows})
    for key in keys:
        every = [r for r in rows if (r["cell"], r["schedule"], r["protocol"], r["kind"]) == key]
        sel = [r for r in every if not excluded(r)]
        out[key] = {
            "n": len(sel),
            "n_excluded": len(every) - len(sel),
            "l75": _median([r["l75"] for r in sel]),
            "robust_share": float(np.mean([r["l75"] > PAPER_RANGE for r in sel]))
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


def distance_to_paper(groups: dict, cell: str, schedule: str, protocol: str) -> float:
    """Protocol sec. 7.4: 0 when the cell shows the paper's pattern, larger the further away.

    ``inf`` when the cell cannot be placed: a kind is missing, or an L75 is 0 (below 75% correct
    even without noise, i.e. the agent fails the task rather than being fragile).
    """

    def med(kind: str) -> float:
        return groups.get((cell, schedule, protocol, kind), {}).get("l75", float("nan"))

    b1, b2, ws = med("b1"), med("b2"), med("b2_ws")
    if not all(np.isfinite([b1, b2, ws])) or min(b1, b2, ws) <= 0:
        return float("inf")
    return (
        max(0.0, math.log(b1 / FRAGILE))
        + max(0.0, math.log(PAPER_RANGE / b2))
        + max(0.0, math.log(PAPER_RANGE / ws))
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


def factor_effects(groups: dict, schedule: str = "fast") -> dict[str, dict[str, dict[str, float]]]:
    """Per factor, kind and protocol: mean change of median log L75 from the first level to each
    other
    level, averaged over the other factors' levels (protocol sec. 7.6)."""
    levels = {"geometry": GEOMETRIES, "loop": LOOPS, "gain": GAINS}
    out: dict[str, dict[str, dict[str, float]]] = {}
    cells = [c for c in CELLS if any(k[0] == c.slug and k[1] == schedule for k in groups)]
    for factor, options in levels.items():
        out[factor] = {}
        for protocol in PROTOCOLS:
            for kind in KINDS:
                for level in options[1:]:
                    diffs = []
                    for cell in cells:
                        if getattr(cell, factor) != options[0]:
                            continue
                        other = replace(cell, **{factor: level})
                        a = groups.get((cell.slug, schedule, protocol, kind), {}).get("l75")
                        b = groups.get((other.slug, schedule, protocol, kind), {}).get("l75")
                        if a and b and a > 0 and b > 0:
                            diffs.append(math.log(b) - math.log(a))
                    label = (
                        f"{options[0]:g} -> {level:g}"
                        if factor == "gain"
                        else f"{options[0]} -> {level}"
                    )
                    out[factor].setdefault(f"{kind} {protocol} {label}", {})["log_ratio"] = (
                        float(np.mean(diffs)) if diffs else float("nan")
                    )
    return out


def schedule_effects(groups: dict) -> dict[str, dict]:
    """The schedule as a factor (protocol sec. 7.6): per kind and protocol, the change of median log
    L75 from the fast to the paper schedule, averaged over the cells trained on both.

    Returns ``{"<kind> <protocol>": {"log_ratio": mean, "cells": {cell: log ratio}}}``; empty when
    no cell has both schedules. A cell whose L75 is 0 on either schedule (it fails the task without
    noise) has no ratio and is left out, as in :func:`factor_effects`.

    >>> c = REGISTERED.slug
    >>> g = {(c, "fast", "stored", "b1"): {"l75": 0.2}, (c, "paper", "stored", "b1"): {"l75": 0.05}}
    >>> round(math.exp(schedule_effects(g)["b1 stored"]["log_ratio"]), 3)
    0.25
    """
    out: dict[str, dict] = {}
    for kind in KINDS:
        for protocol in PROTOCOLS:
            cells = {}
            for cell in CELLS:
                fast = groups.get((cell.slug, "fast", protocol, kind), {}).get("l75")
                paper = groups.get((cell.slug, "paper", protocol, kind), {}).get("l75")
                if fast and paper and fast > 0 and paper > 0:
                    cells[cell.slug] = math.log(paper) - math.log(fast)
            if cells:
                out[f"{kind} {protocol}"] = {
                    "log_ratio": float(np.mean(list(cells.values()))),
                    "cells": cells,
                }
    return out


def answer(groups: dict) -> dict:
    """The study's answer to its question (protocol sec. 7.1), from the numbers."""
    hits = []
    for (cell, schedule, protocol, kind), g in groups.items():
        if kind != "b1":
            continue
        b2 = groups.get((cell, schedule, protocol, "b2"), {})
        ws = groups.get((cell, schedule, protocol, "b2_ws"), {})
        if g["l75"] < FRAGILE and b2.get("l75", 0) > PAPER_RANGE and ws.get("l75", 0) > PAPER_RANGE:
            hits.append({"cell": cell, "schedule": schedule, "protocol": protocol})
    results = {}
    for schedule in sorted({k[1] for k in groups}):
        slug, protocol, d = closest_cell(groups, schedule)
        results[schedule] = {
            "closest_cell": slug,
            "protocol": protocol,
            "distance": d,
            "medians": {kind: groups.get((slug, schedule, protocol, kind), {}) for kind in KINDS},
        }
    return {"pattern_found": bool(hits), "cells_with_pattern": hits, "closest": results}


def run(
    out: Path | str,
    study: E3StudyConfig | None = None,
    *,
    schedules: Sequence[str] = ("fast", "paper"),
    workers: int = 1,
    on_progress: Callable | None = None,
    say: Callable[[str], None] = print,
) -> dict:
    """Train what is missing, measure every agent, write the study's files; returns the summary."""
    study = study or E3StudyConfig()
    out = Path(out)
    ckpt = out / "checkpoints"
    start = time.perf_counter()
    if "fast" in schedules:
        say(
            f"fast schedule: {len(study.cells)} cells x {len(KINDS)} kinds x "
            f"{len(study.seeds)} seeds"
        )
        train_cells(
            study.cells, study.seeds, study.train, ckpt, workers=workers, on_progress=on_progress
        )
        jobs = [
            (
                str(ckpt / f"{_name(cell.config(kind), s, study.train)}.safetensors"),
                cell,
                kind,
                s,
                "fast",
                str(out),
            )
            for cell in study.cells
            for kind in KINDS
            for s in study.seeds
        ]
        say(f"measuring {len(jobs)} agents")
        rows, curves = evaluate(jobs, study, workers)
    else:  # the paper schedule added to a fast part measured earlier (its checkpoints are not
        # bundled)
        rows, curves = read_schedule(out, "fast")
        if not rows:
            raise ValueError(
                f"{out / 'explore_e3.csv'} holds no fast-schedule rows: run --schedules fast first"
            )
        say(f"fast schedule: {len(rows)} rows read from {out / 'explore_e3.csv'}")
    groups = group(rows)
    if "paper" in schedules:
        closest, _, _ = closest_cell(groups, "fast")
        cells = [REGISTERED] + (
            [Cell.from_slug(closest)] if closest and closest != REGISTERED.slug else []
        )
        cells = [c for c in cells if c in study.cells] or [study.cells[0]]
        say("paper schedule: " + ", ".join(c.slug for c in cells))
        train_cells(
            cells,
            study.paper_seeds,
            study.paper_train,
            ckpt,
            workers=workers,
            on_progress=on_progress,
        )
        paper_jobs = [
            (
                str(ckpt / f"{_name(cell.config(kind), s, study.paper_train)}.safetensors"),
                cell,
                kind,
                s,
                "paper",
                str(out),
            )
            for cell in cells
            for kind in KINDS
            for s in study.paper_seeds
        ]
        more_rows, more_curves = evaluate(paper_jobs, study, workers)
        rows += more_rows
        curves += more_curves
        groups = group(rows)
    summary = {
        "description": __doc__.split("\n\n")[0],
        "registered": "docs/protocol.md sec. 7 (2026-11-23)",
        "study": clean_json(asdict(study) | {"cells": [c.slug for c in study.cells]}),
        "groups": [
            {"cell": k[0], "schedule": k[1], "protocol": k[2], "kind": k[3], **v}
            for k, v in groups.items()
        ],
        "answer": answer(groups),
        "factor_effects": {s: factor_effects(groups, s) for s in sorted({k[1] for k in groups})},
        "schedule_effect": schedule_effects(groups),
        "exclude_below": EXCLUDE_BELOW,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "compute": compute.fingerprint(threads=1),
    }
    write_csv(out / "explore_e3.csv", ROW_FIELDS, rows)
    write_csv(out / "explore_e3_curves.csv", CURVE_FIELDS, curves)
    write_result_json(out / "summary.json", summary, indent=1)
    return clean_json(summary)
