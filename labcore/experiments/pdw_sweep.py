"""The reward explorer (protocol sec. 8.7): which training choices decide whether the sure option
survives?

Registered 2026-11-24 before any agent of it trained. Song et al.'s plain GRU is trained from
NeuroGym's payoff alone in 16 cells, seeds 0-2 each: seven factors at two levels, Song's and our
old default's (8.6), changed one at a time from both ends (:data:`FACTORS`; :func:`cells`):

- ``S``: every factor at Song's level (:data:`labcore.training.neurogym_trainer.SONG_2017`), and
``S-<factor>``:
  that factor alone at the old level (is the factor *necessary* for survival?);
- ``O``: every factor at the old level, and ``O+<factor>``: that factor alone at Song's level (is
  it *sufficient*?).

Held at Song's values in every cell: the full return (lambda 1), no advantage normalisation,
every step in the policy gradient, clipping at 1, the behavioural stopping rule. An agent *keeps
the sure option* when S1's contrast (P(sure | offered) at 0 and 3.2% minus at 25.6 and 51.2%, its
12,000 evaluation trials, sampled choices) is >= :data:`KEEPS_AT`; a cell keeps it when a majority
of its seeds do. A factor *decides* survival when changing it alone flips the cell's outcome from
``S`` (S keeps, S-factor loses) or from ``O`` (O loses, O+factor keeps) (:func:`answer`).

Post hoc (change log 2026-11-24, not registered): :func:`held_cells`, the five choices the
explorer held at Song's values set one at a time to protocol 8.6's from ``O`` (:data:`HELD`), and
:func:`held_answer`, which of them loses the option ``O`` keeps.

Run: ``python -m labcore explore pdw-sweep --out results/pdw_sweep --jobs 2`` (upper bound about
1.9 h on 2 cores, every agent to its cap; measured 27 min); the follow-up: ``explore pdw-held
--out results/pdw_held``. Resumable as ``explore pdw`` (:mod:`labcore.experiments.pdw`).
Files: ``pdw_sweep.csv``, ``pdw_sweep_curves.csv``, ``summary.json``
(:mod:`labcore.storage.results_pdw`).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from labcore.experiments.pdw import (
    Say,
    Unit,
    coherence_levels,
    curve_rows,
    interval,
    run_units,
    signature_values,
    write_manifest_summary,
)
from labcore.stats import welch_interval
from labcore.storage.results import SCHEMA_VERSION, write_csv
from labcore.storage.results_pdw import (
    CURVE_FIELDS,
    FACTORS,
    SWEEP_CURVES,
    SWEEP_FIELDS,
    SWEEP_ROWS,
)
from labcore.training.neurogym_trainer import SONG_2017, NeuroGymRLConfig

LEVELS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "readout_init": ({"readout_init": "zero"}, {"readout_init": "default"}),
    "input_scale": ({"input_scale": 10.0}, {"input_scale": 1.0}),
    "entropy": ({"entropy_coef": 0.02}, {"entropy_coef": 0.003}),
    "trials_per_update": ({"trials_per_update": 64}, {"trials_per_update": 256}),
    "learning_rate": ({"lr": 1e-3}, {"lr": 2e-3}),
    "baseline": ({"baseline": "gru"}, {"baseline": "value_head"}),
    "training_length": ({"max_updates": 12_000}, {"max_updates": 1_500}),
}
"""Each factor's (Song level, old level) as :class:`NeuroGymRLConfig` fields (protocol 8.7)."""
HELD: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "return": ({"gae_lambda": 1.0}, {"gae_lambda": 0.95}),
    "normalisation": ({"normalize_advantages": False}, {"normalize_advantages": True}),
    "clipping": ({"max_grad_norm": 1.0}, {"max_grad_norm": 0.5}),
    "policy_steps": ({"policy_steps": "all"}, {"policy_steps": "scored"}),
    "stopping": (
        {"stop_rule": "behaviour", "keep": "final"},
        {"stop_rule": "none", "keep": "best_reward"},
    ),
}
"""The choices the explorer held at Song's values: each one's (Song level, protocol 8.6's level)
(the post hoc follow-up, change log 2026-11-24)."""
HELD_NAMES = {
    "return": "GAE's lambda 0.95",
    "normalisation": "advantage normalisation",
    "clipping": "clipping at 0.5",
    "policy_steps": "a gradient on the two paid steps only",
    "stopping": "no behavioural stop",
}
"""Each held choice at 8.6's level, as the answer names it."""
KEEPS_AT = 0.10
"""An agent keeps the sure option when its S1 contrast is at least this (registered)."""
AGENT = "plain_gru"


@dataclass(frozen=True)
class Cell:
    """One cell of the explorer: its name, its side ("S" or "O"), the factor changed (or "")."""

    name: str
    side: str
    factor: str
    cfg: NeuroGymRLConfig

    def level(self, factor: str) -> str:
        """ "song" or "old": this cell's level of ``factor``."""
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
    song, old = dict.fromkeys(FACTORS, 0), dict.fromkeys(FACTORS, 1)
    out = [Cell("S", "S", "", _at(song, base))]
    out += [Cell(f"S-{f}", "S", f, _at({**song, f: 1}, base)) for f in FACTORS]
    out += [Cell("O", "O", "", _at(old, base))]
    out += [Cell(f"O+{f}", "O", f, _at({**old, f: 0}, base)) for f in FACTORS]
    return out


def held_cells(base: NeuroGymRLConfig = SONG_2017) -> list[Cell]:
    """The post hoc follow-up's cells: ``O`` (the reference), ``O~<choice>`` with one held choice at
    protocol 8.6's level (:data:`HELD`), and ``O~all`` with all of them (8.6's trainer on the plain
    GRU)."""
    old = _at(dict.fromkeys(FACTORS, 1), base)
    eight_six = {k: v for _, level in HELD.values() for k, v in level.items()}
    out = [Cell("O", "O", "", old)]
    out += [Cell(f"O~{h}", "H", h, replace(old, **HELD[h][1])) for h in HELD]
    out.append(Cell("O~all", "H", "all", replace(old, **eight_six)))
    return out


DESIGNS: dict[str, Callable[[], list[Cell]]] = {"registered": cells, "held": held_cells}
"""The explorer's cell sets: the registered 16 (``explore pdw-sweep``) and the post hoc follow-up
(``explore pdw-held``)."""


@dataclass(frozen=True)
class SweepConfig:
    """Seeds and evaluation budget of the explorer (registered by default); ``shrink`` maps each
    cell's configuration to the one trained (the identity, except for ``--quick``)."""

    seeds: tuple[int, ...] = (0, 1, 2)
    eval_trials: int = 12_000
    quick: bool = False

    def shrink(self, cfg: NeuroGymRLConfig) -> NeuroGymRLConfig:
        """Tiny budgets for a smoke test: the long cap 8 updates, the short 4; small pools and
        batches."""
        if not self.quick:
            return cfg
        return replace(
            cfg,
            max_updates=8 if cfg.max_updates > 1_500 else 4,
            eval_every=2,
            train_pool=300,
            heldout_trials=60,
            trials_per_update=16 if cfg.trials_per_update <= 64 else 32,
        )

    @classmethod
    def quick_config(cls) -> SweepConfig:
        """Two seeds, tiny budgets (numbers mean nothing)."""
        return cls(seeds=(0, 1), eval_trials=300, quick=True)


def units_of(sweep: SweepConfig, chosen: Sequence[Cell]) -> list[Unit]:
    """Every agent of the explorer, the most expensive cells first (the long cap, then 256
    trials)."""
    units = [
        Unit(AGENT, "reward", seed, sweep.shrink(c.cfg), sweep.eval_trials, cell=c.name)
        for c in chosen
        for seed in sweep.seeds
    ]
    return sorted(units, key=lambda u: -u.cfg.max_updates * u.cfg.trials_per_update**0.5)


def keeps(row: dict[str, Any]) -> bool | None:
    """The registered per-agent outcome (None when the contrast is undefined)."""
    value = row["s1_contrast"]
    return None if value is None or not math.isfinite(value) else bool(value >= KEEPS_AT)


def cell_outcome(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A cell's seeds: how many keep the option, whether the cell does (a majority), S1's mean."""
    kept = [keeps(r) for r in rows]
    defined = [k for k in kept if k is not None]
    return {
        "n": len(rows),
        "n_keep": int(sum(defined)),
        "n_defined": len(defined),
        "keeps": (2 * sum(defined) > len(rows)) if defined else None,
        "s1": interval([r["s1_contrast"] for r in rows]),
    }


def _welch(a: Sequence[float], b: Sequence[float]) -> list[float] | None:
    xs, ys = ([v for v in vals if v is not None and math.isfinite(v)] for vals in (a, b))
    if len(xs) < 2 or len(ys) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = welch_interval(xs, ys)
    return [low, high] if math.isfinite(low) and math.isfinite(high) else None


def answer(outcomes: dict[str, dict[str, Any]], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Which factors decide survival (protocol 8.7), with each factor's effect on S1 from both
    ends."""
    s1 = {name: [r["s1_contrast"] for r in rows if r["cell"] == name] for name in outcomes}
    song_keeps, old_keeps = outcomes["S"]["keeps"], outcomes["O"]["keeps"]
    necessary, sufficient, effects = [], [], {}
    for f in FACTORS:
        killed, revived = outcomes[f"S-{f}"]["keeps"], outcomes[f"O+{f}"]["keeps"]
        if song_keeps and killed is False:
            necessary.append(f)
        if old_keeps is False and revived:
            sufficient.append(f)
        effects[f] = {
            "from_song": {
                "difference": _mean(s1["S"]) - _mean(s1[f"S-{f}"]),
                "ci95": _welch(s1["S"], s1[f"S-{f}"]),
            },
            "from_old": {
                "difference": _mean(s1[f"O+{f}"]) - _mean(s1["O"]),
                "ci95": _welch(s1[f"O+{f}"], s1["O"]),
            },
        }
    deciding = sorted(set(necessary) | set(sufficient), key=FACTORS.index)
    if not song_keeps:
        song_side = (
            "the Song cell itself does not keep the sure option, so the S side answers nothing"
            if song_keeps is False
            else "the Song cell's outcome is undefined"
        )
    else:
        song_side = (
            f"from Song's setting, changing {_words(necessary)} alone loses it"
            if necessary
            else "from Song's setting, no single change loses it"
        )
    if old_keeps:
        old_side = "the old-default cell already keeps it, so the O side answers nothing"
    elif old_keeps is None:
        old_side = "the old-default cell's outcome is undefined"
    else:
        old_side = (
            f"from the old default, changing {_words(sufficient)} alone revives it"
            if sufficient
            else "from the old default, no single change revives it"
        )
    text = (
        f"Deciding factor(s): {_words(deciding)}. " if deciding else "No single choice decides it. "
    ) + f"{song_side[0].upper()}{song_side[1:]}; {old_side}."
    return {
        "deciding": deciding,
        "necessary": necessary,
        "sufficient": sufficient,
        "text": text,
        "song_keeps": song_keeps,
        "old_keeps": old_keeps,
        "effects": effects,
    }


def held_answer(
    outcomes: dict[str, dict[str, Any]], rows: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Post hoc: which held choice, at protocol 8.6's level alone, loses the option ``O`` keeps;
    each choice's effect on S1 (its cell minus ``O``, Welch 95% interval); and ``O~all``'s
    outcome."""
    s1 = {name: [r["s1_contrast"] for r in rows if r["cell"] == name] for name in outcomes}
    old_keeps, all_keeps = outcomes["O"]["keeps"], outcomes["O~all"]["keeps"]
    losing = [h for h in HELD if old_keeps and outcomes[f"O~{h}"]["keeps"] is False]
    effects = {
        h: {
            "difference": _mean(s1[f"O~{h}"]) - _mean(s1["O"]),
            "ci95": _welch(s1[f"O~{h}"], s1["O"]),
        }
        for h in [*HELD, "all"]
    }
    if not old_keeps:
        text = (
            "The old-default cell does not keep the sure option in this run, so the follow-up "
            "answers nothing."
        )
    else:
        named = [HELD_NAMES[h] for h in losing]
        one = (
            f"{_words(named)}{', each alone,' if len(named) > 1 else ' alone'} loses "
            "the option the old "
            "default keeps (protocol 8.6's level of a choice the explorer held)"
            if losing
            else (
                "No held choice alone, at protocol 8.6's level, loses the option the old "
                "default keeps"
            )
        )
        one = one[0].upper() + one[1:]
        if all_keeps is False:
            both = "; all five together (8.6's trainer on the plain GRU) lose it"
        elif all_keeps:
            both = (
                "; even all five together (8.6's trainer on the plain GRU) keep it, so "
                "what made 8.6 "
                "lose the option is its network (the B2 family, not the plain GRU) or its smaller "
                "training pool, not its training choices"
            )
        else:
            both = "; all five together give an undefined outcome"
        text = one + both + "."
    return {
        "losing": losing,
        "old_keeps": old_keeps,
        "all_keeps": all_keeps,
        "effects": effects,
        "text": text,
    }


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def _words(names: Sequence[str]) -> str:
    names = [n.replace("_", " ") for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def run(
    out: Path | str,
    sweep: SweepConfig | None = None,
    workers: int = 1,
    say: Say | None = None,
    only: Callable[[Cell], bool] | None = None,
    design: str = "registered",
) -> dict[str, Any]:
    """Run (or resume) the explorer into ``out``; returns the summary. ``only`` restricts the cells
    (a partial run writes a partial summary, marked ``complete: false``); ``design`` "held" runs the
    post hoc follow-up (:func:`held_cells`) instead of the registered cells."""
    sweep = sweep or SweepConfig()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    design_cells = DESIGNS[design]()
    chosen = [c for c in design_cells if only is None or only(c)]
    units = units_of(sweep, chosen)
    results = run_units(units, out, workers, say)
    by_cell = {c.name: c for c in chosen}
    rows, curves = [], []
    for unit, result in zip(units, results, strict=True):
        cell = by_cell[unit.cell]
        levels = coherence_levels(result["rows"]["sampled"])
        sampled = signature_values(result["rows"]["sampled"], levels)
        greedy = signature_values(result["rows"]["greedy"], levels)
        record = result["record"]
        row = {
            "cell": cell.name,
            "side": cell.side,
            "factor": cell.factor,
            **{f: cell.level(f) for f in FACTORS},
            "seed": unit.seed,
            "updates": record["updates"],
            "stopped": record["stopped"],
            "wall_seconds": record["wall_seconds"],
            **{k: sampled.get(k) for k in SWEEP_FIELDS if k in sampled},
            "greedy_s1_contrast": greedy["s1_contrast"],
            "greedy_p_sure_offered": greedy["p_sure_offered"],
        }
        row["keeps_sure"] = keeps(row)
        rows.append(row)
        curves += curve_rows(record, cell.name, levels)
    rows.sort(key=lambda r: ([c.name for c in chosen].index(r["cell"]), r["seed"]))
    write_csv(out / SWEEP_ROWS, SWEEP_FIELDS, rows)
    write_csv(out / SWEEP_CURVES, CURVE_FIELDS, curves)
    outcomes = {
        c.name: {
            "side": c.side,
            "factor": c.factor,
            **cell_outcome([r for r in rows if r["cell"] == c.name]),
        }
        for c in chosen
    }
    complete = len(chosen) == len(design_cells)
    held = design == "held"
    summary = {
        "schema_version": SCHEMA_VERSION,
        "study": "pdw_held" if held else "pdw_sweep",
        "experiments": [],
        "seeds": list(sweep.seeds),
        "claims": [],
        "values": {},
        "protocol": (
            (
                "docs/protocol.md change log 2026-11-24 (post hoc follow-up of sec. 8.7, "
                "not registered)"
            )
            if held
            else "docs/protocol.md sec. 8.7 (registered 2026-11-24)"
        ),
        "config": {
            **asdict(sweep),
            "levels": {f: {"song": s, "old": o} for f, (s, o) in LEVELS.items()},
            **({"held": {h: {"song": s, "8.6": o} for h, (s, o) in HELD.items()}} if held else {}),
            "keeps_at": KEEPS_AT,
            "cells": {c.name: asdict(sweep.shrink(c.cfg)) for c in chosen},
        },
        "complete": complete,
        "cells": outcomes,
        "answer": (held_answer if held else answer)(outcomes, rows) if complete else None,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    return write_manifest_summary(out, summary, (SWEEP_ROWS, SWEEP_CURVES))
