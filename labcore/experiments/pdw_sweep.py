"""The reward explorer (protocol sec. 8.7): which training choices decide whether the sure option
survives? And, as a setting of the same study, its post hoc follow-up on the choices it held
(``design="held"``, registered as ``pdw_held``).

Run: ``python -m labcore study pdw_sweep --jobs 2`` (measured 27 min on 2 cores); the follow-up
``python -m labcore study pdw_held --jobs 2``; some cells only: ``--set cells=S,O``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from labcore.checks import ConfigError
from labcore.experiments.pdw import (
    COHERENCES,
    TRAINING_FIELDS,
    Network,
    curve_rows,
    curve_table,
    measured_network,
    seed_estimate,
    song_setting,
    welch_estimate,
)
from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Flag, Number, StudySummary

if TYPE_CHECKING:
    from labcore.training.neurogym_trainer import NeuroGymRLConfig

LEVELS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "readout_init": ({"readout_init": "zero"}, {"readout_init": "default"}),
    "input_scale": ({"input_scale": 10.0}, {"input_scale": 1.0}),
    "entropy": ({"entropy_coef": 0.02}, {"entropy_coef": 0.003}),
    "trials_per_update": ({"trials_per_update": 64}, {"trials_per_update": 256}),
    "learning_rate": ({"lr": 1e-3}, {"lr": 2e-3}),
    "baseline": ({"baseline": "gru"}, {"baseline": "value_head"}),
    "training_length": ({"max_updates": 12_000}, {"max_updates": 1_500}),
}
"""Each factor's (Song level, old level) as NeuroGymRLConfig fields (protocol 8.7)."""
FACTORS = tuple(LEVELS)
"""The reward explorer's seven factors (protocol 8.7), in the registered order."""
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
LONG_CHOICES = ("normalisation", "policy_steps")
"""The held choices trained again to :data:`LONG_UPDATES` (post hoc, change log 2026-11-27):
the two that lost the option within the follow-up's 1,500 updates."""
LONG_UPDATES = 12_000
"""The long held cells' cap: Song's training length (the explorer's Song level of
``training_length``)."""
LONG = "+long"
"""The suffix of a long held cell's name (``O~normalisation+long``)."""
KEEPS_AT = 0.10
"""An agent keeps the sure option when its S1 contrast is at least this (registered)."""
TOP_COHERENCE = COHERENCES[-1]
"""The highest coherence (51.2%), where the strict rule compares an agent with the ideal
observer."""
TOP = f"p_sure_c{TOP_COHERENCE:g}"
"""Its column in the rows (P(sure | offered) at the highest coherence)."""
IDEAL_P_SURE_TOP = 10 / 2962
"""The ideal observer's P(sure | offered) at 51.2% on the explorer's evaluation trials (seeds 0-2,
12,000 trials each): :func:`labcore.agents.neurogym.ideal_actions` takes the sure option on 10
of the 2,962 offered trials there (3 of 997, 2 of 956, 5 of 1,009), about 0.0034; the ideal
observer's rows of ``results/pdw/`` hold the same counts (change log 2026-11-27)."""
STRICT_TOLERANCE = 0.05
"""How far above :data:`IDEAL_P_SURE_TOP` an agent's P(sure | offered) at 51.2% may be for it to
keep the option strictly (absolute; protocol sec. 10.6, change log 2026-11-27)."""
AGENT = "plain_gru"
STUDY_OF = {"registered": "pdw_sweep", "held": "pdw_held"}

ROWS = Table(
    "pdw_sweep",
    (
        "cell", "side", "factor", *FACTORS, "seed", "updates", "stopped", "wall_seconds",
        "s1_contrast", "keeps_sure", "s2_waived_advantage", "p_sure_offered", "accuracy",
        "answered", "greedy_s1_contrast", "greedy_p_sure_offered",
        *(f"p_sure_c{c:g}" for c in COHERENCES),
    ),
    text=("cell", "side", "factor", *FACTORS, "stopped", "keeps_sure"),
    optional=(
        "factor", "keeps_sure", "s1_contrast", "s2_waived_advantage", "p_sure_offered",
        "accuracy", "greedy_s1_contrast", "greedy_p_sure_offered",
        *(f"p_sure_c{c:g}" for c in COHERENCES),
    ),
)  # fmt: skip
"""``pdw_sweep.csv``: one row per trained agent (sampled evaluation unless ``greedy_``);
``keeps_sure`` is "True", "False" or empty (undefined)."""
CURVES = curve_table("pdw_sweep_curves")
TABLES = (ROWS, CURVES)


# ----------------------------------------------------------------------- the design
@dataclass(frozen=True)
class SweepConfig:
    """Seeds and evaluation budget of the reward explorer (registered by default)."""

    seeds: tuple[int, ...] = (0, 1, 2)
    eval_trials: int = 12_000
    cells: tuple[str, ...] = ()
    """Only these cells (``--set cells=S,O``); empty: every cell of the design. A partial run
    writes a partial summary (no answer until every cell has run)."""
    tiny: bool = False
    """Smoke-test budgets (:meth:`shrink`)."""
    design: str = "registered"
    """"registered" (the 16 cells, ``study pdw_sweep``) or "held" (the post hoc follow-up,
    ``study pdw_held``)."""

    @classmethod
    def quick(cls) -> SweepConfig:
        """Two seeds, tiny budgets: a smoke test (its numbers mean nothing)."""
        return cls(seeds=(0, 1), eval_trials=300, tiny=True)

    def shrink(self, cfg: Any) -> Any:
        """A cell's training config as trained: itself, or with :attr:`tiny` the long cap 8
        updates, the short 4, small pools and batches."""
        if not self.tiny:
            return cfg
        return replace(
            cfg,
            max_updates=8 if cfg.max_updates > 1_500 else 4,
            eval_every=2,
            train_pool=300,
            heldout_trials=60,
            trials_per_update=16 if cfg.trials_per_update <= 64 else 32,
        )


def cell_names(design: str = "registered") -> list[str]:
    """Every cell of ``design``, in the registered order.

    >>> cell_names()[:2], cell_names("held")[-3:]
    (['S', 'S-readout_init'], ['O~all', 'O~normalisation+long', 'O~policy_steps+long'])
    """
    if design == "held":  # the long cells last, so a run adding them moves no row of the others
        return ["O", *[f"O~{h}" for h in HELD], "O~all", *[f"O~{h}{LONG}" for h in LONG_CHOICES]]
    return ["S", *[f"S-{f}" for f in FACTORS], "O", *[f"O+{f}" for f in FACTORS]]


def side_of(name: str) -> str:
    """ "S" or "O" (the explorer's ends), "H" (a held choice changed)."""
    return "H" if "~" in name else name[0]


def factor_of(name: str) -> str:
    """The factor (or held choice) a cell changes; "" for ``S`` and ``O``.

    >>> factor_of("S-entropy"), factor_of("O~policy_steps+long"), factor_of("O")
    ('entropy', 'policy_steps', '')
    """
    return name[2:].removesuffix(LONG)


def is_long(name: str) -> bool:
    """Whether ``name`` is a long held cell (post hoc, change log 2026-11-27)."""
    return name.endswith(LONG)


def level_of(name: str, factor: str) -> str:
    """ "song" or "old": the cell's level of ``factor`` (a held cell keeps the old default's)."""
    if name.startswith("S"):
        return "old" if factor_of(name) == factor else "song"
    return "song" if name.startswith("O+") and factor_of(name) == factor else "old"


def chosen_cells(config: SweepConfig) -> list[str]:
    """The cells ``config`` runs, in the design's order; a :class:`~labcore.checks.ConfigError`
    (fields ``cells``) names unknown ones."""
    names = cell_names(config.design)
    if unknown := sorted(set(config.cells) - set(names)):
        raise ConfigError(f"unknown cell(s) {unknown}; choose from {sorted(names)}", ("cells",))
    return [n for n in names if not config.cells or n in config.cells]


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


def _at(name: str) -> NeuroGymRLConfig:
    """Song's setting with each factor at ``name``'s level."""
    changes: dict[str, Any] = {}
    for factor in FACTORS:
        changes.update(LEVELS[factor][0 if level_of(name, factor) == "song" else 1])
    return replace(song_setting(), **changes)


def cells() -> list[Cell]:
    """The 16 registered cells: S, S-factor (7), O, O+factor (7)."""
    return [Cell(n, side_of(n), factor_of(n), _at(n)) for n in cell_names("registered")]


def held_cells() -> list[Cell]:
    """The post hoc follow-up's cells: ``O`` (the reference), ``O~<choice>`` with one held choice at
    protocol 8.6's level (:data:`HELD`), ``O~all`` with all of them (8.6's trainer on the plain
    GRU), and ``O~<choice>+long``: two of them again with a cap of :data:`LONG_UPDATES`."""
    old = _at("O")
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


# ----------------------------------------------------------------------- running a unit
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
        **{k: record[k] for k in TRAINING_FIELDS},
        **{k: sampled.get(k) for k in ROWS.fields if k in sampled},
        "keeps_sure": None if kept is None else str(kept),
        "greedy_s1_contrast": greedy["s1_contrast"],
        "greedy_p_sure_offered": greedy["p_sure_offered"],
    }
    return {ROWS.name: [row], CURVES.name: curve_rows(record, cell.name, found["levels"])}


# ----------------------------------------------------------------------- the rules
def keeps(s1: float | None) -> bool | None:
    """The registered per-agent outcome (None when the contrast is undefined).

    >>> keeps(0.1), keeps(0.05), keeps(float("nan"))
    (True, False, None)
    """
    return None if s1 is None or not math.isfinite(s1) else bool(s1 >= KEEPS_AT)


def keeps_strictly(
    s1: float | None,
    p_sure_top: float | None,
    ideal: float = IDEAL_P_SURE_TOP,
    tolerance: float = STRICT_TOLERANCE,
) -> bool | None:
    """The strict per-agent outcome (post hoc, protocol sec. 10.6, change log 2026-11-27): the
    registered rule (:func:`keeps`) **and** P(sure | offered) at the highest coherence at most
    ``ideal + tolerance``. None when S1 is undefined, or when S1 keeps and ``p_sure_top`` is
    undefined.

    >>> keeps_strictly(0.3, 0.02), keeps_strictly(0.3, 0.51), keeps_strictly(0.05, None)
    (True, False, False)
    >>> keeps_strictly(float("nan"), 0.0), keeps_strictly(0.3, float("nan"))
    (None, None)
    """
    kept = keeps(s1)
    if not kept:
        return kept
    if p_sure_top is None or not math.isfinite(p_sure_top):
        return None
    return bool(p_sure_top <= ideal + tolerance)


def majority(kept: Sequence[bool | None]) -> dict[str, Any]:
    """Per-agent outcomes of one cell: how many keep the option and whether the cell does (a
    majority of all its seeds; None when no seed's outcome is defined).

    >>> majority([True, None, False])["keeps"], majority([True, True, None])["keeps"]
    (False, True)
    """
    defined = [k for k in kept if k is not None]
    return {
        "n": len(kept),
        "n_keep": int(sum(defined)),
        "n_defined": len(defined),
        "keeps": (2 * sum(defined) > len(kept)) if defined else None,
    }


def cell_outcome(s1: Sequence[float | None]) -> dict[str, Any]:
    """A cell's seeds by the registered rule (:func:`majority` of :func:`keeps`)."""
    return majority([keeps(v) for v in s1])


def came_back_at(curve: Sequence[tuple[int, float | None]]) -> int | None:
    """The update at which an agent's sure option came back (change log 2026-11-27): the first
    held-out check from which S1's contrast stays at least :data:`KEEPS_AT` at every later check;
    None when the last check is below it or undefined. ``curve``: (update, S1) per check.

    >>> came_back_at([(100, 0.0), (200, 0.2), (300, 0.05), (400, 0.12), (500, 0.3)])
    400
    >>> came_back_at([(100, 0.2), (200, None)]), came_back_at([])
    (None, None)
    """
    back = None
    for update, s1 in sorted(curve, key=lambda c: c[0]):
        up = s1 is not None and math.isfinite(s1) and s1 >= KEEPS_AT
        back = (back if back is not None else update) if up else None
    return back


def decision(
    outcomes: Mapping[str, Mapping[str, Any]], s1: Mapping[str, Sequence[float | None]]
) -> dict[str, Any]:
    """Which factors decide survival (protocol 8.7): necessary (``S`` keeps, ``S-f`` loses) and
    sufficient (``O`` loses, ``O+f`` keeps), with each factor's effect on S1 from both ends (the
    difference of cell means with its Welch 95% interval)."""
    song_keeps, old_keeps = outcomes["S"]["keeps"], outcomes["O"]["keeps"]
    necessary = [f for f in FACTORS if song_keeps and outcomes[f"S-{f}"]["keeps"] is False]
    sufficient = [f for f in FACTORS if old_keeps is False and outcomes[f"O+{f}"]["keeps"]]
    effects = {
        f: {
            "from_song": welch_estimate(s1["S"], s1[f"S-{f}"]),
            "from_old": welch_estimate(s1[f"O+{f}"], s1["O"]),
        }
        for f in FACTORS
    }
    return {
        "deciding": sorted(set(necessary) | set(sufficient), key=FACTORS.index),
        "necessary": necessary,
        "sufficient": sufficient,
        "song_keeps": song_keeps,
        "old_keeps": old_keeps,
        "effects": effects,
    }


def held_decision(
    outcomes: Mapping[str, Mapping[str, Any]], s1: Mapping[str, Sequence[float | None]]
) -> dict[str, Any]:
    """Post hoc: which held choice, at protocol 8.6's level alone, loses the option ``O`` keeps;
    each choice's effect on S1 (its cell minus ``O``, Welch 95% interval); ``O~all``'s outcome."""
    old_keeps = outcomes["O"]["keeps"]
    return {
        "losing": [h for h in HELD if old_keeps and outcomes[f"O~{h}"]["keeps"] is False],
        "old_keeps": old_keeps,
        "all_keeps": outcomes["O~all"]["keeps"],
        "effects": {h: welch_estimate(s1[f"O~{h}"], s1["O"]) for h in [*HELD, "all"]},
    }


# ----------------------------------------------------------------------- the summary
class CellOutcome(BaseModel, extra="forbid"):
    """One cell's outcome: its seeds, how many keep the sure option, whether the cell does."""

    name: str
    side: str
    factor: str
    n: int
    n_keep: int
    n_defined: int
    keeps: bool | None


class StrictReading(BaseModel, extra="forbid"):
    """The strict rule applied beside the registered one (post hoc, change log 2026-11-27)."""

    tolerance: float
    ideal_p_sure_top: float
    bound: float
    """The highest P(sure | offered) at :attr:`top_coherence` that keeps the option strictly."""
    top_coherence: float
    cells: list[CellOutcome]
    """Every cell in the run by the strict rule, in the design's order."""
    decision: dict[str, Any] = Field(default_factory=dict)
    """The study's own reading on the strict outcomes: the explorer's ``deciding``,
    ``necessary``, ``sufficient``, ``song_keeps``, ``old_keeps``; the follow-up's ``losing``,
    ``old_keeps``, ``all_keeps``. Empty until the cells its answer reads have run."""


class LongAgent(BaseModel, extra="forbid"):
    """One agent of a long held cell: its training, its outcomes and when its option came back."""

    seed: int
    updates: int | None
    stopped: str | None
    s1: Number
    p_sure_top: Number
    keeps: bool | None
    keeps_strictly: bool | None
    came_back_at: int | None
    """:func:`came_back_at` on its sampled held-out checks (None: not back by its last check)."""


class LongCell(BaseModel, extra="forbid"):
    """A held cell trained to :data:`LONG_UPDATES` (post hoc, change log 2026-11-27)."""

    name: str
    choice: str
    short: str
    """The same choice's cell of the follow-up (1,500 updates)."""
    cap: int
    n: int
    n_back: int
    """Seeds whose option came back within ``cap`` updates."""
    keeps: bool | None
    keeps_strictly: bool | None
    agents: list[LongAgent]


class SweepTables(BaseModel, extra="forbid"):
    """The explorer's (or its follow-up's) tables (``summary.json`` ``tables``)."""

    design: str
    cells: list[CellOutcome]
    """The cells in this run, in the design's order."""
    design_cells: list[str]
    complete: bool
    keeps_at: float
    levels: dict[str, dict[str, dict[str, Any]]]
    """Each factor's levels as training-config fields: ``{"song": {...}, "old": {...}}``."""
    held: dict[str, dict[str, dict[str, Any]]]
    """The follow-up: each held choice's ``{"song": {...}, "8.6": {...}}`` (empty otherwise)."""
    strict: StrictReading | None = None
    """The strict rule beside the registered one (post hoc; None in summaries made before it)."""
    long: list[LongCell] = Field(default_factory=list)
    """The follow-up's long cells in this run (post hoc)."""

    def cell(self, name: str) -> CellOutcome | None:
        """One cell's outcome (None if it is not in this run)."""
        return next((c for c in self.cells if c.name == name), None)


POST_HOC = Flag(kind="post_hoc", note="defined after the explorer's result (change log 2026-11-24)")
STRICT = Flag(
    kind="post_hoc",
    note="the strict rule, defined after the explorer's result (change log 2026-11-27)",
)
LONG_FLAG = Flag(
    kind="post_hoc",
    note="trained to 12,000 updates after the follow-up's result (change log 2026-11-27)",
)


def _findings(study: str, s1: Mapping[str, list], found: dict[str, Any] | None) -> list[Finding]:
    held = study == "pdw_held"
    base = {
        "study": study,
        "files": (ROWS.file,),
        "measure": "s1",
        "unit": "difference",
        "flags": (POST_HOC,) if held else (),
        "section": "protocol change log 2026-11-24" if held else "protocol sec. 8.7",
    }
    long = {"flags": (LONG_FLAG,), "section": "protocol change log 2026-11-27"}
    out = [
        Finding(
            id=f"{study}.{name}.s1",
            question=f"S1's contrast in cell {name} (mean over its seeds)",
            **seed_estimate(values),
            **(base | long if is_long(name) else base),
        )
        for name, values in s1.items()
    ]
    if found is None:
        return out
    if held:
        for h, est in found["effects"].items():
            out.append(
                Finding(
                    id=f"{study}.effect.{h}",
                    question=f"What setting {h} to protocol 8.6's level changes S1 by (its cell "
                    "minus the old default)",
                    **est,
                    **base,
                )
            )
        return out
    for f, ends in found["effects"].items():
        for end, cells in (("from_song", f"S minus S-{f}"), ("from_old", f"O+{f} minus O")):
            out.append(
                Finding(
                    id=f"{study}.effect.{f}.{end}",
                    question=f"What {f.replace('_', ' ')} at Song's level changes S1 by ({cells})",
                    **ends[end],
                    **base,
                )
            )
    return out


def _outcome(design: str, complete: bool, found: dict[str, Any] | None) -> str:
    if not complete or found is None:
        return "incomplete"
    if design == "held":
        if not found["old_keeps"]:
            return "old_loses"
        return "losing" if found["losing"] else "none_loses"
    return "deciding" if found["deciding"] else "no_single"


def _answer_findings(study: str, names: Sequence[str], found: dict[str, Any] | None) -> tuple:
    """The findings an answer rests on: the reference cells' S1, and the effects of the factors
    that decide (or the held choices that lose the option)."""
    cells = [c for c in ("S", "O", "O~all") if c in names]
    ids = [f"{study}.{c}.s1" for c in cells]
    if found is None:
        return tuple(ids)
    if study == "pdw_held":
        return tuple(ids + [f"{study}.effect.{h}" for h in found["losing"]])
    return tuple(
        ids
        + [
            f"{study}.effect.{f}.{end}"
            for f in found["deciding"]
            for end in ("from_song", "from_old")
        ]
    )


def strict_reading(
    design: str, agents: Sequence[Mapping[str, Any]], names: Sequence[str], complete: bool
) -> StrictReading:
    """The strict rule on every cell in the run, and the study's reading on it once the cells its
    answer reads have run (post hoc, change log 2026-11-27)."""
    kept = {
        n: [keeps_strictly(r["s1_contrast"], r.get(TOP)) for r in agents if r["cell"] == n]
        for n in names
    }
    outcomes = {n: majority(k) for n, k in kept.items()}
    found: dict[str, Any] = {}
    if complete:
        s1 = {n: [r["s1_contrast"] for r in agents if r["cell"] == n] for n in names}
        found = (held_decision if design == "held" else decision)(outcomes, s1)
        found.pop("effects")  # the registered rule's, on the same S1 values
    return StrictReading(
        tolerance=STRICT_TOLERANCE,
        ideal_p_sure_top=IDEAL_P_SURE_TOP,
        bound=IDEAL_P_SURE_TOP + STRICT_TOLERANCE,
        top_coherence=TOP_COHERENCE,
        cells=[
            CellOutcome(name=n, side=side_of(n), factor=factor_of(n), **outcomes[n]) for n in names
        ],
        decision=found,
    )


def long_cells(rows: Rows, names: Sequence[str]) -> list[LongCell]:
    """The long held cells in the run: each agent's outcomes and the update its option came back
    at, read from its sampled held-out checks (post hoc, change log 2026-11-27)."""
    checks = [c for c in rows.get(CURVES.name, []) if c["policy"] == "sampled"]
    out = []
    for name in (n for n in names if is_long(n)):
        agents = []
        for r in (r for r in rows[ROWS.name] if r["cell"] == name):
            curve = [
                (int(c["update"]), c.get("s1_contrast"))
                for c in checks
                if c["cell"] == name and int(c["seed"]) == int(r["seed"])
            ]
            agents.append(
                LongAgent(
                    seed=int(r["seed"]),
                    updates=r.get("updates"),
                    stopped=r.get("stopped"),
                    s1=r["s1_contrast"],
                    p_sure_top=r.get(TOP),
                    keeps=keeps(r["s1_contrast"]),
                    keeps_strictly=keeps_strictly(r["s1_contrast"], r.get(TOP)),
                    came_back_at=came_back_at(curve),
                )
            )
        out.append(
            LongCell(
                name=name,
                choice=factor_of(name),
                short=name.removesuffix(LONG),
                cap=LONG_UPDATES,
                n=len(agents),
                n_back=sum(a.came_back_at is not None for a in agents),
                keeps=majority([a.keeps for a in agents])["keeps"],
                keeps_strictly=majority([a.keeps_strictly for a in agents])["keeps"],
                agents=agents,
            )
        )
    return out


def _post_hoc_findings(
    study: str,
    agents: Sequence[Mapping[str, Any]],
    strict: StrictReading,
    long: Sequence[LongCell],
) -> list[Finding]:
    """The strict rule's numbers (each cell's P(sure | offered) at the highest coherence, the
    cells keeping the option strictly) and the long cells' returns, flagged post hoc."""
    base = {
        "study": study,
        "files": (ROWS.file,),
        "section": "protocol sec. 10.6 and change log 2026-11-27",
    }
    out = [
        Finding(
            id=f"{study}.{c.name}.p_sure_top",
            question=f"P(sure | offered) at {TOP_COHERENCE:g}% coherence in cell {c.name} (mean "
            "over its seeds; the strict rule's second test)",
            **seed_estimate(r.get(TOP) for r in agents if r["cell"] == c.name),
            measure="sure_option",
            flags=(STRICT,),
            **base,
        )
        for c in strict.cells
    ]
    answered = [c for c in strict.cells if not is_long(c.name)]
    out.append(
        Finding(
            id=f"{study}.strict.cells_keeping",
            question="Settings that keep the sure option by the strict rule (S1 at least "
            f"{KEEPS_AT:g} and the sure option at the strongest evidence within "
            f"{STRICT_TOLERANCE:g} of the ideal observer's)",
            value=sum(bool(c.keeps) for c in answered),
            n=len(answered),
            unit="count",
            flags=(STRICT,),
            **base,
        )
    )
    for c in long:
        out.append(
            Finding(
                id=f"{study}.{c.name}.n_back",
                question=f"Seeds of cell {c.name} whose sure option came back within "
                f"{c.cap:,} updates",
                value=c.n_back,
                n=c.n,
                unit="count",
                flags=(LONG_FLAG,),
                **(base | {"files": (ROWS.file, CURVES.file)}),
            )
        )
    return out


def summarise(config: SweepConfig, rows: Rows) -> StudySummary:
    """The explorer's (``config.design``) cell outcomes, answer and findings from its rows."""
    study = STUDY_OF[config.design]
    agents = rows[ROWS.name]
    names = [n for n in cell_names(config.design) if any(r["cell"] == n for r in agents)]
    s1 = {n: [r["s1_contrast"] for r in agents if r["cell"] == n] for n in names}
    outcomes = {n: cell_outcome(v) for n, v in s1.items()}
    # the long held cells are reported beside the answer, which does not wait for them
    complete = {n for n in cell_names(config.design) if not is_long(n)} <= set(names)
    rule = held_decision if config.design == "held" else decision
    found = rule(outcomes, s1) if complete else None
    keys = ("deciding", "necessary", "sufficient", "song_keeps", "old_keeps", "losing", "all_keeps")
    answer = Answer(
        outcome=_outcome(config.design, complete, found),
        findings=_answer_findings(study, names, found),
        params={k: v for k, v in (found or {}).items() if k in keys},
    )
    strict = strict_reading(config.design, agents, names, complete)
    long = long_cells(rows, names)
    tables = SweepTables(
        design=config.design,
        cells=[
            CellOutcome(name=n, side=side_of(n), factor=factor_of(n), **outcomes[n]) for n in names
        ],
        design_cells=cell_names(config.design),
        complete=complete,
        keeps_at=KEEPS_AT,
        levels={f: {"song": s, "old": o} for f, (s, o) in LEVELS.items()},
        held={h: {"song": s, "8.6": o} for h, (s, o) in HELD.items()}
        if config.design == "held"
        else {},
        strict=strict,
        long=long,
    )
    return StudySummary(
        study=study,
        registered=(
            "docs/protocol.md change log 2026-11-24 (post hoc follow-up of sec. 8.7, not "
            "registered)"
            if config.design == "held"
            else "docs/protocol.md sec. 8.7 (registered 2026-11-24)"
        ),
        seeds=sorted({int(r["seed"]) for r in agents}),
        findings=_findings(study, s1, found) + _post_hoc_findings(study, agents, strict, long),
        answer=answer,
        tables=tables.model_dump(mode="json"),
    )


STUDY = Study(
    config=SweepConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=TABLES,
    tables_model=SweepTables,
    unit_of=unit_of,
)
