"""A worked example of a study (``docs/adding_a_study.md``): does an ideal observer's confidence
tell its right choices from its wrong ones, and more so when the evidence is strong?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from labcore.experiments.study import Rows, Study, Table
from labcore.findings import Answer, Finding, Interval, StudySummary
from labcore.markers import type2_auroc
from labcore.seeding import episode_seeds
from labcore.stats import SeedSummary, paired_summary, seed_summary

STUDY_NAME = "example"
CHANCE = 0.5
"""The Type-2 AUROC of a confidence that knows nothing."""


# ----------------------------------------------------------------------- the design
@dataclass(frozen=True)
class ExampleConfig:
    """The design: seeds, saliences and trials (``python -m labcore study example``)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    saliences: tuple[float, ...] = (0.25, 0.5, 1.0)
    """The evidence's mean ``lambda`` (its noise SD is 1), weakest first."""
    trials: int = 2000
    """Trials per seed and salience."""

    @classmethod
    def quick(cls) -> ExampleConfig:
        """Three seeds and fewer trials: the pipeline end to end (``--quick``)."""
        return cls(seeds=(0, 1, 2), trials=400)


@dataclass(frozen=True)
class Unit:
    """One seed at one salience: the independent piece of work the runner caches."""

    seed: int
    salience: float

    def __str__(self) -> str:
        return f"seed {self.seed} salience {self.salience:g}"


def units(config: ExampleConfig) -> list[Unit]:
    """Every (salience, seed), salience by salience."""
    return [Unit(seed, salience) for salience in config.saliences for seed in config.seeds]


def unit_of(row: Mapping[str, Any]) -> Unit:
    """The unit a row belongs to (so a run keeps the units already in its files)."""
    return Unit(int(row["seed"]), float(row["salience"]))


SEEDS = Table("example_seeds", ("seed", "salience", "accuracy", "auroc"))
"""``example_seeds.csv``: one row per seed and salience, the observer's accuracy and Type-2
AUROC."""


# ----------------------------------------------------------------------- running a unit
def run_unit(config: ExampleConfig, unit: Unit, out: str) -> Rows:
    """Simulate one seed's trials at one salience: the observer's accuracy and Type-2 AUROC."""
    rng = np.random.default_rng(int(episode_seeds(unit.seed, "eval", 1)[0]))
    stimulus = rng.integers(2, size=config.trials)
    evidence = np.where(stimulus == 1, 1.0, -1.0) * unit.salience + rng.normal(size=config.trials)
    correct = (evidence > 0).astype(int) == stimulus
    row = {
        "seed": unit.seed,
        "salience": unit.salience,
        "accuracy": float(correct.mean()),
        "auroc": float(type2_auroc(correct, np.abs(evidence))),
    }
    return {SEEDS.name: [row]}


# ----------------------------------------------------------------------- the findings
def _estimate(s: SeedSummary) -> dict[str, Any]:
    """A seed summary as a finding's value, n and 95% interval."""
    interval = Interval(low=s.low, high=s.high, method=s.method) if s.ci95 else None
    return {"value": s.mean, "n": s.n, "interval": interval}


def _outcome(interval: Interval | None, above: float) -> str:
    if interval is None:
        return "undefined"
    return "supported" if interval.low > above else "not supported"


def summarise(config: ExampleConfig, rows: Rows) -> StudySummary:
    """The findings (accuracy and Type-2 AUROC per salience, the AUROC's rise from the weakest to
    the strongest salience) and the answer, from the rows alone."""
    seeds = rows[SEEDS.name]
    base = {"study": STUDY_NAME, "files": (SEEDS.file,), "section": "docs/adding_a_study.md"}
    by_salience: dict[float, dict[int, Mapping[str, Any]]] = {}
    for r in seeds:
        by_salience.setdefault(float(r["salience"]), {})[int(r["seed"])] = r
    findings = []
    for salience, mine in sorted(by_salience.items()):
        findings.append(
            Finding(
                id=f"{STUDY_NAME}.accuracy.{salience:g}",
                question=f"How often is the choice right at salience {salience:g}?",
                unit="percent",
                **_estimate(seed_summary([r["accuracy"] for r in mine.values()], "t")),
                **base,
            )
        )
        auroc = Finding(
            id=f"{STUDY_NAME}.auroc.{salience:g}",
            question=f"Does confidence tell right from wrong at salience {salience:g} (Type-2 "
            "AUROC)?",
            unit="auroc",
            measure="type2_auroc",
            hypothesis="above chance",
            **_estimate(seed_summary([r["auroc"] for r in mine.values()], "t")),
            **base,
        )
        findings.append(auroc.model_copy(update={"outcome": _outcome(auroc.interval, CHANCE)}))
    weak, strong = min(by_salience), max(by_salience)
    rise = Finding(
        id=f"{STUDY_NAME}.auroc_rise",
        question=f"How much higher is the Type-2 AUROC at salience {strong:g} than at {weak:g}?",
        unit="difference",
        measure="type2_auroc",
        hypothesis="rises",
        **_estimate(
            paired_summary(
                {s: r["auroc"] for s, r in by_salience[strong].items()},
                {s: r["auroc"] for s, r in by_salience[weak].items()},
            )
        ),
        **base,
    )
    rise = rise.model_copy(update={"outcome": _outcome(rise.interval, 0.0)})
    findings.append(rise)
    aurocs = [f for f in findings if f.id.startswith(f"{STUDY_NAME}.auroc.")]
    return StudySummary(
        study=STUDY_NAME,
        registered="docs/adding_a_study.md (a worked example, not a registered study)",
        seeds=sorted({int(r["seed"]) for r in seeds}),
        findings=findings,
        answer=Answer(outcome=answer_outcome(aurocs, rise), findings=(rise.id, aurocs[0].id)),
    )


def answer_outcome(aurocs: Sequence[Finding], rise: Finding) -> str:
    """ "rises" (above chance everywhere and higher at the strongest salience), "above_chance"
    (everywhere, without a rise), "not_everywhere" (some salience not above chance) or
    "undecided" (an interval undefined)."""
    outcomes = [f.outcome for f in [*aurocs, rise]]
    if "undefined" in outcomes:
        return "undecided"
    if any(f.outcome != "supported" for f in aurocs):
        return "not_everywhere"
    return "rises" if rise.outcome == "supported" else "above_chance"


STUDY = Study(
    config=ExampleConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=(SEEDS,),
    unit_of=unit_of,
)
