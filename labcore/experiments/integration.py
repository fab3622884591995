"""The integration study (protocol sec. 9): which whole-vs-parts integration measure, on which
signal and under which perturbation, recovers the monotonicities an IIT reading predicts?

Run: ``python -m labcore study integration --out results/explore_integration --jobs 2`` (about
11 minutes on 2 cores); a unit is one (kind, seed).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from labcore import render
from labcore.experiments.construction import equivalent
from labcore.experiments.study import Rows, Study, Table
from labcore.findings import (
    Answer,
    Finding,
    Flag,
    Interval,
    Number,
    StudySummary,
    clean_json,
)
from labcore.measures_integration import (
    INTEGRATION_MEASURES,
    INTEGRATION_RIDGE,
    INTEGRATION_SIGNALS,
    INTEGRATION_VARIANTS,
    integration_readings,
    integration_runs,
)
from labcore.seeding import episode_seeds
from labcore.stats import paired_summary, welch_summary

STUDY_NAME = "integration"
KINDS = ("a0", "a1", "b1", "b2")
"""The ordering M4 tests, lowest first (no memory, recurrence, broadcast, broadcast +
self-model)."""
MONOTONICITIES = {
    "M1": "bus-off lowers integration below the intact agent",
    "M2": "trained above its untrained twin",
    "M3": "correct above error trials",
    "M4": "A0 < A1 < B1 < B2",
}
"""The registered monotonicities (protocol sec. 9.5), as the figure's columns name them."""
MIN_SEEDS_M3 = 3
"""M3 needs at least this many seeds with both correct and error episodes (protocol 9.5)."""
MEASURE_TERMS = {"phi": "phi_e", "o_information": "o_information", "tse": "tse"}
"""Each measure's key in the glossary (labcore/templates/glossary.json)."""
SECTION = "protocol sec. 9"

ROWS = Table(
    "integration",
    (
        "kind", "seed", "training", "condition", "signal", "variant", "group", "measure",
        "ridge", "value", "surrogate_mean", "n_episodes", "n_samples", "n_channels", "reason",
    ),
    text=("kind", "training", "condition", "signal", "variant", "group", "measure", "reason"),
    optional=(
        "condition", "signal", "variant", "group", "measure", "ridge", "value",
        "surrogate_mean", "n_episodes", "n_samples", "n_channels", "reason",
    ),
)  # fmt: skip
"""One row per value: an agent (kind, seed, trained or its untrained twin) in one condition
(intact, bus-off), one signal, variant, episode group, measure and ridge; a value not defined
has its reason (a row without a measure: the agent could not be loaded)."""

TestOutcome = Literal["passes", "fails", "reversed", "undefined"]
OUTCOMES = {
    "passes": "supported",
    "fails": "not supported",
    "reversed": "not supported",
    "undefined": "undefined",
}
"""A test's outcome as a finding's outcome (a reversed one also carries an ``inverted`` flag)."""
UNDEFINED_NOTES = {
    "seeds": "too few seeds have a value on both sides",
    "agents": "no agent can be tested",
    "steps": "a step of the ordering has too few seeds",
}
"""Why a test is not defined (the numbers are the flag's params)."""


# --------------------------------------------------------------------------- the design
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


def run_unit(study: IntegrationStudyConfig, unit: Unit, out: str) -> Rows:
    """Every value of protocol 9.3-9.4 for one kind and seed, trained and untrained twin."""
    import torch

    from labcore.config import Intervention
    from labcore.experiments.common import provide_agent
    from labcore.measures import evaluation_intervention

    torch.set_num_threads(1)
    kind, seed = unit.kind, unit.seed
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
                    rows.append({**ident, **asdict(r), "group": "all", "ridge": ridge})
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
                            rows.append({**ident, **asdict(r), "group": group, "ridge": ridge})
    return {ROWS.name: rows}


# --------------------------------------------------------------------------- the rules
def outcome_of(low: float, high: float, n: int, needed: int) -> TestOutcome:
    """One interval's outcome: passes (above 0), reversed (below 0), fails, or undefined (fewer
    than ``needed`` seeds, or no interval).

    >>> outcome_of(0.1, 0.3, 5, 2), outcome_of(-0.3, -0.1, 5, 2), outcome_of(-0.1, 0.3, 5, 2)
    ('passes', 'reversed', 'fails')
    >>> outcome_of(0.1, 0.3, 2, 3)
    'undefined'
    """
    if n < needed or not (math.isfinite(low) and math.isfinite(high)):
        return "undefined"
    return "passes" if low > 0 else ("reversed" if high < 0 else "fails")


def combined_outcome(outcomes: Iterable[str]) -> TestOutcome:
    """One outcome over agents: passes only when every agent that can be tested passes, reversed
    when every one is reversed, undefined when none can be tested.

    >>> combined_outcome(["passes", "undefined"]), combined_outcome(["passes", "fails"])
    ('passes', 'fails')
    >>> combined_outcome(["reversed", "reversed"]), combined_outcome(["undefined"])
    ('reversed', 'undefined')
    """
    defined = [o for o in outcomes if o != "undefined"]
    if not defined:
        return "undefined"
    if all(o == "passes" for o in defined):
        return "passes"
    return "reversed" if all(o == "reversed" for o in defined) else "fails"


BOTH = ("intact", "bus_off")
"""The conditions M1 compares (its audit reads both)."""
Values = dict[int, float]
"""Per-seed values of one cell of the table (seed -> value, nan where undefined)."""


ValueTable = dict[tuple, Values]
"""Per-seed values by (kind, training, condition, signal, variant, group, measure, ridge)."""


def value_table(rows: Sequence[Mapping[str, Any]]) -> ValueTable:
    """The rows' values by key (rows without a measure left out; nan where undefined)."""
    table: ValueTable = {}
    for r in rows:
        if r.get("measure") is None:
            continue
        v = r.get("value")
        key = (*(r[c] for c in ROWS.fields[:8] if c != "seed"), float(r["ridge"]))
        table.setdefault(key, {})[int(r["seed"])] = (
            float(v) if v is not None and v == v else math.nan
        )
    return table


class Difference(BaseModel, extra="forbid"):
    """One agent's paired difference over seeds (M1-M3), or one step of the ordering (M4:
    ``agent`` "a1-a0", ``n`` and ``n_other`` the seeds of the higher and the lower kind)."""

    agent: str
    n: int
    n_other: int | None = None
    mean: Number
    low: Number
    high: Number
    outcome: TestOutcome
    identical: bool = False
    """Both sides equal on every seed (M1-M3)."""
    by_construction: bool = False


def paired_difference(agent: str, a: Values, b: Values, needed: int = 2) -> Difference:
    """``a - b`` over the seeds where both are defined, with its paired 95% t interval
    (:func:`labcore.stats.paired_summary`).

    >>> d = paired_difference("b1", {0: 2.0, 1: 3.0, 2: 4.0}, {0: 1.0, 1: 1.5, 2: 2.0})
    >>> d.n, d.mean, round(d.low, 2), d.outcome
    (3, 1.5, 0.26, 'passes')
    """
    seeds = sorted(s for s in set(a) & set(b) if math.isfinite(a[s]) and math.isfinite(b[s]))
    s = paired_summary({k: a[k] for k in seeds}, {k: b[k] for k in seeds})
    return Difference(
        agent=agent,
        n=s.n,
        mean=s.mean,
        low=s.low,
        high=s.high,
        outcome=outcome_of(s.low, s.high, s.n, needed),
        identical=bool(seeds) and all(a[k] == b[k] for k in seeds),
    )


def step_difference(high_kind: str, low_kind: str, a: Values, b: Values) -> Difference:
    """One step of the ordering: ``mean(a) - mean(b)`` over two kinds' seeds, with Welch's 95%
    interval (:func:`labcore.stats.welch_summary`)."""
    x = [v for v in a.values() if math.isfinite(v)]
    y = [v for v in b.values() if math.isfinite(v)]
    s = welch_summary(x, y)
    return Difference(
        agent=f"{high_kind}-{low_kind}",
        n=len(x),
        n_other=len(y),
        mean=s.mean,
        low=s.low,
        high=s.high,
        outcome=outcome_of(s.low, s.high, min(len(x), len(y)), 2),
    )


class AuditEntry(BaseModel, extra="forbid"):
    """A value an untrained agent of the same wiring demonstrably gives too (protocol 9.5)."""

    kind: str
    condition: str
    signal: str
    variant: str
    measure: str
    ours: float
    reference: float
    se: float

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """(kind, condition, signal, variant, measure)."""
        return (self.kind, self.condition, self.signal, self.variant, self.measure)


def audit_values(table: ValueTable, ridge: float) -> list[AuditEntry]:
    """The construction audit of every value (protocol 9.5): trained vs untrained twins of the
    same kind, condition, signal, variant and measure, by the equivalence rule
    (:func:`labcore.experiments.construction.equivalent`)."""
    found = []
    for key, trained in table.items():
        kind, training, condition, signal, variant, group, measure, r = key
        if training != "trained" or group != "all" or r != ridge:
            continue
        twin = table.get((kind, "untrained", condition, signal, variant, group, measure, r), {})
        a = [v for v in trained.values() if math.isfinite(v)]
        b = [v for v in twin.values() if math.isfinite(v)]
        if len(a) >= 2 and len(b) >= 2:
            same, mean, reference, se = equivalent(a, b)
            if same:
                found.append(
                    AuditEntry(
                        kind=kind,
                        condition=condition,
                        signal=signal,
                        variant=variant,
                        measure=measure,
                        ours=mean,
                        reference=reference,
                        se=se,
                    )
                )
    return found


class MonotonicityTest(BaseModel, extra="forbid"):
    """One monotonicity of one measure, signal and variant at one ridge."""

    test: str
    measure: str
    signal: str
    variant: str
    ridge: float
    outcome: TestOutcome
    by_construction: bool
    per: list[Difference]
    """Each agent's difference (M1-M3) or each step of the ordering (M4)."""

    @property
    def id(self) -> str:
        """The test's finding id."""
        return finding_id(self.test, self.measure, self.signal, self.variant)


def finding_id(test: str, measure: str, signal: str, variant: str, agent: str = "") -> str:
    """``integration.M2.phi.slots.intact`` (a test), ``...intact.b1`` (one agent of it)."""
    return ".".join([STUDY_NAME, test, measure, signal, variant] + ([agent] if agent else []))


def run_tests(
    rows: Sequence[Mapping[str, Any]], kinds: Sequence[str], ridge: float
) -> tuple[list[MonotonicityTest], list[AuditEntry]]:
    """M1-M4 for every measure, signal and variant at one ridge, and the audit they read."""
    table = value_table(rows)
    audit = audit_values(table, ridge)
    fixed = {e.key for e in audit}
    tests = []
    for measure, signal, variant in itertools.product(
        INTEGRATION_MEASURES, INTEGRATION_SIGNALS, INTEGRATION_VARIANTS
    ):
        tests += _tests_of(table, fixed, kinds, ridge, measure, signal, variant)
    return tests, audit


def _tests_of(
    table: ValueTable,
    fixed: set[tuple],
    kinds: Sequence[str],
    ridge: float,
    measure: str,
    signal: str,
    variant: str,
) -> list[MonotonicityTest]:
    """M1-M4 of one measure, signal and variant (none where no kind has a value)."""

    def val(
        kind: str, training: str = "trained", condition: str = "intact", group: str = "all"
    ) -> Values:
        return table.get((kind, training, condition, signal, variant, group, measure, ridge), {})

    def audited(kind: str, *conditions: str) -> bool:
        return any((kind, c, signal, variant, measure) in fixed for c in conditions)

    tests: list[MonotonicityTest] = []
    have = [k for k in kinds if val(k)]
    if have:
        base = {"measure": measure, "signal": signal, "variant": variant, "ridge": ridge}
        per = {
            "M1": [
                _fixed(paired_difference(k, val(k), val(k, condition="bus_off")), audited(k, *BOTH))
                for k in have
                if val(k, condition="bus_off")
            ],
            "M2": [
                _fixed(paired_difference(k, val(k), val(k, "untrained")), audited(k, "intact"))
                for k in have
            ],
            "M3": [
                _fixed(
                    paired_difference(
                        k, val(k, group="correct"), val(k, group="error"), MIN_SEEDS_M3
                    ),
                    audited(k, "intact"),
                )
                for k in have
            ],
        }
        for name, diffs in per.items():
            if diffs:
                tests.append(
                    MonotonicityTest(
                        **base,
                        test=name,
                        per=diffs,
                        outcome=combined_outcome(d.outcome for d in diffs),
                        by_construction=any(
                            d.by_construction for d in diffs if d.outcome != "undefined"
                        ),
                    )
                )
        if signal == "h" and all(k in have for k in KINDS):
            steps = [
                _fixed(
                    step_difference(hi, lo, val(hi), val(lo)),
                    audited(hi, "intact") or audited(lo, "intact"),
                )
                for lo, hi in itertools.pairwise(KINDS)
            ]
            tests.append(
                MonotonicityTest(
                    **base,
                    test="M4",
                    per=steps,
                    outcome=_ordering_outcome(d.outcome for d in steps),
                    by_construction=any(audited(k, "intact") for k in KINDS),
                )
            )
    return tests


def _fixed(d: Difference, audited: bool) -> Difference:
    return d.model_copy(update={"by_construction": d.identical or audited})


def _ordering_outcome(outcomes: Iterable[str]) -> TestOutcome:
    """M4: undefined when any step is, else as :func:`combined_outcome`."""
    outcomes = list(outcomes)
    return "undefined" if "undefined" in outcomes else combined_outcome(outcomes)


class Recovery(BaseModel, extra="forbid"):
    """A test passed with no value fixed by construction (protocol 9.6)."""

    measure: str
    signal: str
    variant: str
    test: str


def recovered(tests: Sequence[MonotonicityTest]) -> list[Recovery]:
    """The tests a measure passes with no value fixed by construction (protocol 9.6)."""
    return [
        Recovery(measure=t.measure, signal=t.signal, variant=t.variant, test=t.test)
        for t in tests
        if t.outcome == "passes" and not t.by_construction
    ]


def all_four(found: Sequence[Recovery]) -> bool:
    """Does one measure recover all four monotonicities on one signal and variant?"""
    by: dict[tuple[str, str, str], set[str]] = {}
    for f in found:
        by.setdefault((f.measure, f.signal, f.variant), set()).add(f.test)
    return any(len(tests) == len(MONOTONICITIES) for tests in by.values())


# --------------------------------------------------------------------------- the summary
class Sensitivity(BaseModel, extra="forbid"):
    """What the sensitivity ridge recovers (reported, not read; protocol 9.3)."""

    ridge: float
    recovered: list[Recovery]


class IntegrationTables(BaseModel, extra="forbid"):
    """The integration study's tables (``summary.json`` ``tables``): every test at the
    registered ridge with each agent's difference, the audit, what is recovered, and the
    sensitivity ridges' recoveries."""

    ridge: float
    tests: list[MonotonicityTest]
    audit: list[AuditEntry]
    recovered: list[Recovery]
    sensitivity: list[Sensitivity]


def _question(**context: Any) -> str:
    return " ".join(render.render("integration_question.j2", **context).split())


def _flags(outcome: str, by_construction: Flag | None, undefined: Flag) -> tuple[Flag, ...]:
    flags = [by_construction] if by_construction is not None else []
    if outcome == "undefined":
        flags.append(undefined)
    elif outcome == "reversed":
        flags.append(Flag(kind="inverted", rule="reversed"))
    return tuple(flags)


def _agent_flag(
    test: MonotonicityTest, d: Difference, audit: Mapping[tuple, AuditEntry]
) -> Flag | None:
    if not d.by_construction:
        return None
    if d.identical:
        return Flag(kind="by_construction", rule="identical")
    kinds = d.agent.split("-")
    conditions = BOTH if test.test == "M1" else ("intact",)
    entry = next(
        audit[key]
        for k in kinds
        for c in conditions
        if (key := (k, c, test.signal, test.variant, test.measure)) in audit
    )
    return Flag(
        kind="by_construction",
        rule="untrained",
        params={"untrained": entry.reference, "ours": entry.ours, "agent": entry.kind},
    )


def monotonicity_findings(
    tests: Sequence[MonotonicityTest], audit: Sequence[AuditEntry]
) -> list[Finding]:
    """Each test as a finding (value: agents or steps that pass, n: those that can be tested),
    followed by each agent's (or step's) difference as a finding."""
    by_key = {e.key: e for e in audit}
    out = []
    for t in tests:
        common = {
            "measure": MEASURE_TERMS[t.measure],
            "hypothesis": t.test,
            "study": STUDY_NAME,
            "files": (ROWS.file,),
            "section": SECTION,
        }
        words = {
            "test": t.test,
            "measure": MEASURE_TERMS[t.measure],
            "signal": t.signal,
            "variant": t.variant,
        }
        defined = [d for d in t.per if d.outcome != "undefined"]
        fixed_in = [d.agent for d in defined if d.by_construction]
        if t.test == "M4":  # any kind's value fixed (protocol 9.5)
            fixed_in = [k for k in KINDS if (k, "intact", t.signal, t.variant, t.measure) in by_key]
        flag = (
            Flag(kind="by_construction", rule="agents", params={"agents": ", ".join(fixed_in)})
            if t.by_construction
            else None
        )
        note = "steps" if t.test == "M4" else "agents"
        out.append(
            Finding(
                id=t.id,
                question=_question(**words),
                value=sum(d.outcome == "passes" for d in t.per),
                n=len(defined),
                unit="count",
                outcome=OUTCOMES[t.outcome],
                flags=_flags(t.outcome, flag, Flag(kind="undefined", note=UNDEFINED_NOTES[note])),
                **common,
            )
        )
        for d in t.per:
            needed = MIN_SEEDS_M3 if t.test == "M3" else 2
            undefined = Flag(
                kind="undefined",
                rule="seeds",
                note=UNDEFINED_NOTES["seeds"],
                params={"n": d.n if d.n_other is None else min(d.n, d.n_other), "needed": needed},
            )
            out.append(
                Finding(
                    id=finding_id(t.test, t.measure, t.signal, t.variant, d.agent),
                    question=_question(**words, agent=d.agent),
                    value=d.mean,
                    n=d.n,
                    interval=Interval(
                        low=d.low, high=d.high, method="welch" if t.test == "M4" else "paired_t"
                    ),
                    unit="bits",
                    outcome=OUTCOMES[d.outcome],
                    flags=_flags(d.outcome, _agent_flag(t, d, by_key), undefined),
                    **common,
                )
            )
    return out


def count_findings(
    tests: Sequence[MonotonicityTest], found: Sequence[Recovery], sensitivity: Sequence[Sensitivity]
) -> list[Finding]:
    """How many tests are recovered, overall, per measure (distinct monotonicities on any
    signal) and at each sensitivity ridge."""
    common = {"unit": "count", "study": STUDY_NAME, "files": (ROWS.file,), "section": SECTION}
    n_defined = sum(t.outcome != "undefined" for t in tests)
    out = [
        Finding(
            id=f"{STUDY_NAME}.recovered",
            question=_question(count="recovered"),
            value=len(found),
            n=n_defined,
            **common,
        )
    ]
    for measure, term in MEASURE_TERMS.items():
        out.append(
            Finding(
                id=f"{STUDY_NAME}.recovered.{measure}",
                question=_question(count="measure", measure=term),
                value=len({f.test for f in found if f.measure == measure}),
                n=len(MONOTONICITIES),
                measure=term,
                **common,
            )
        )
    for s in sensitivity:
        out.append(
            Finding(
                id=f"{STUDY_NAME}.sensitivity.{s.ridge:g}",
                question=_question(count="sensitivity", ridge=s.ridge),
                value=len(s.recovered),
                n=n_defined,
                **common,
            )
        )
    return out


def summarise(study: Any, rows: Rows) -> StudySummary:
    """The study's findings, answer and tables from its rows (protocol sec. 9.5-9.6): the tests
    and the audit at the registered ridge (``study.ridges[0]``), the others' recoveries as the
    sensitivity."""
    values = rows[ROWS.name]
    registered = study.ridges[0]
    tests, audit = run_tests(values, study.kinds, registered)
    found = recovered(tests)
    sensitivity = [
        Sensitivity(ridge=r, recovered=recovered(run_tests(values, study.kinds, r)[0]))
        for r in study.ridges[1:]
    ]
    tables = IntegrationTables(
        ridge=registered, tests=tests, audit=audit, recovered=found, sensitivity=sensitivity
    )
    ids = [finding_id(f.test, f.measure, f.signal, f.variant) for f in found]
    answer = Answer(
        outcome="all_four" if all_four(found) else ("some" if found else "none"),
        findings=(
            f"{STUDY_NAME}.recovered",
            *(f"{STUDY_NAME}.recovered.{m}" for m in MEASURE_TERMS),
            *(f"{t.id}.{d.agent}" for t in tests if t.id in ids for d in t.per),
        ),
        params={
            "recovered": ids,
            "same_at_sensitivity": all(s.recovered == found for s in sensitivity),
        },
    )
    return StudySummary(
        study=STUDY_NAME,
        registered="docs/protocol.md sec. 9 (2026-11-24)",
        seeds=list(study.seeds),
        config=clean_json(asdict(study)),
        findings=count_findings(tests, found, sensitivity) + monotonicity_findings(tests, audit),
        answer=answer,
        tables=tables.model_dump(mode="json"),
    )


STUDY = Study(
    config=IntegrationStudyConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=(ROWS,),
    tables_model=IntegrationTables,
    unit_of=unit_of,
)
