"""The reward explorer (protocol sec. 8.7): which training choices decide whether the sure option
survives? And its post hoc follow-up on the choices it held (:mod:`labcore.experiments.pdw_held`).

Registered 2026-11-24 before any agent of it trained; the design, the decision rules and the
findings are :mod:`labcore.experiments.pdw_sweep_findings`. Held at Song's values in every cell of
the explorer: the full return (lambda 1), no advantage normalisation, every step in the policy
gradient, clipping at 1, the behavioural stopping rule; the follow-up sets each of them to
protocol 8.6's value from ``O`` (:func:`held_cells`).

Run: ``python -m labcore study pdw_sweep --jobs 2`` (upper bound about 1.9 h on 2 cores, every
agent to its cap; measured 27 min); the follow-up ``python -m labcore study pdw_held --jobs 2``;
some cells only: ``--set cells=S,O``. A unit is one agent (cell x seed), trained and measured as
the reproduction's networks (:func:`labcore.experiments.pdw.measured_network`; checkpoints in
``OUT/checkpoints``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from labcore.experiments.pdw import Network, measured_network
from labcore.experiments.pdw_findings import curve_rows
from labcore.experiments.pdw_sweep_findings import (
    AGENT,
    CURVES,
    FACTORS,
    HELD,
    LEVELS,
    LONG,
    LONG_CHOICES,
    LONG_UPDATES,
    ROWS,
    TABLES,
    HeldConfig,
    SweepConfig,
    SweepTables,
    cell_names,
    chosen_cells,
    factor_of,
    keeps,
    level_of,
    side_of,
    summarise,
)
from labcore.experiments.study import Rows, Study
from labcore.training.neurogym_trainer import SONG_2017, NeuroGymRLConfig


@dataclass(frozen=True)
class Cell:
    """One cell of the explorer: its name, its side ("S", "O" or "H"), the factor changed (or
    ""), and its training config."""

    name: str
    side: str
    factor: str
    cfg: NeuroGymRLConfig

    def level(self, factor: str) -> str:
        """ "song" or "old": this cell's level of ``factor``, read from its config."""
        song_level = LEVELS[factor][0]
        return "song" if all(getattr(self.cfg, k) == v for k, v in song_level.items()) else "old"


def _at(levels: dict[str, int], base: NeuroGymRLConfig) -> NeuroGymRLConfig:
    changes: dict[str, Any] = {}
    for factor, which in levels.items():
        changes.update(LEVELS[factor][which])
    return replace(base, **changes)


def cells(base: NeuroGymRLConfig = SONG_2017) -> list[Cell]:
    """The 16 registered cells: S, S-factor (7), O, O+factor (7); Song's other settings from
    ``base``."""
    out = []
    for name in cell_names("registered"):
        levels = {f: 0 if level_of(name, f) == "song" else 1 for f in FACTORS}
        out.append(Cell(name, side_of(name), factor_of(name), _at(levels, base)))
    return out


def held_cells(base: NeuroGymRLConfig = SONG_2017) -> list[Cell]:
    """The post hoc follow-up's cells: ``O`` (the reference), ``O~<choice>`` with one held choice at
    protocol 8.6's level (:data:`HELD`), ``O~all`` with all of them (8.6's trainer on the plain
    GRU), and ``O~<choice>+long``: two of them again with a cap of :data:`LONG_UPDATES` (change
    log 2026-11-27)."""
    old = _at(dict.fromkeys(FACTORS, 1), base)
    eight_six = {k: v for _, level in HELD.values() for k, v in level.items()}
    out = [Cell("O", "O", "", old)]
    out += [Cell(f"O~{h}", "H", h, replace(old, **HELD[h][1])) for h in HELD]
    out.append(Cell("O~all", "H", "all", replace(old, **eight_six)))
    out += [
        Cell(f"O~{h}{LONG}", "H", h, replace(old, **HELD[h][1], max_updates=LONG_UPDATES))
        for h in LONG_CHOICES
    ]
    return out


def design_cells(config: SweepConfig) -> dict[str, Cell]:
    """The cells ``config`` runs, by name (a ValueError names unknown ones)."""
    every = {c.name: c for c in (held_cells() if config.design == "held" else cells())}
    return {name: every[name] for name in chosen_cells(config)}


def units(config: SweepConfig) -> list[Network]:
    """Every agent (cell x seed) of the run, in the design's order."""
    return [
        Network(AGENT, "reward", seed, cell=name)
        for name in design_cells(config)
        for seed in config.seeds
    ]


def unit_of(row: dict) -> Network:
    """The unit a row of the explorer's tables belongs to."""
    return Network(AGENT, "reward", int(row["seed"]), cell=row["cell"])


def run_unit(config: SweepConfig, unit: Network, out: str) -> Rows:
    """One agent trained (or loaded) and measured: its row and its learning curves."""
    cell = design_cells(replace(config, cells=()))[unit.cell]
    found = measured_network(unit, config.shrink(cell.cfg), config.eval_trials, out)
    record, sampled, greedy = found["record"], found["values"]["sampled"], found["values"]["greedy"]
    kept = keeps(sampled["s1_contrast"])
    row = {
        "cell": cell.name,
        "side": cell.side,
        "factor": cell.factor,
        **{f: cell.level(f) for f in FACTORS},
        "seed": unit.seed,
        "updates": record["updates"],
        "stopped": record["stopped"],
        "wall_seconds": record["wall_seconds"],
        **{k: sampled.get(k) for k in ROWS.fields if k in sampled},
        "keeps_sure": None if kept is None else str(kept),
        "greedy_s1_contrast": greedy["s1_contrast"],
        "greedy_p_sure_offered": greedy["p_sure_offered"],
    }
    return {ROWS.name: [row], CURVES.name: curve_rows(record, cell.name, found["levels"])}


def make_study(design: str) -> Study:
    """The explorer (``"registered"``) or its post hoc follow-up (``"held"``) as a study."""
    held = design == "held"
    return Study(
        name="pdw_held" if held else "pdw_sweep",
        title=(
            "what the reward explorer held, post hoc (change log 2026-11-24)"
            if held
            else "the reward explorer: which training choice keeps the sure option (protocol 8.7)"
        ),
        folder="pdw_held" if held else "pdw_sweep",
        config=HeldConfig if held else SweepConfig,
        units=units,
        run_unit=run_unit,
        summarise=summarise,
        tables=TABLES,
        tables_model=SweepTables,
        unit_label=str,
        unit_of=unit_of,
    )


STUDY = make_study("registered")
