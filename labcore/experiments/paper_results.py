"""A result set of the studies ``paper`` (E1-E3) and ``e4``: its files (one :class:`Table` each,
``figures.json``), the model of its summary's ``tables``, and :func:`load_results`, which reads it
for the pages, figures, lesson and report through the one loader. No torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from labcore.experiments.study import LoadedStudy, Rows, Table, load_tables
from labcore.findings import Finding, Number, Problem, load_summary, validation_sentences

L75_METRICS = ("l75", "l75_carrier")
"""The metrics (second part of a key) whose per-seed record is an L75, possibly censored."""


def is_l75(key: str) -> bool:
    """Whether a per-seed key holds an L75 record (written after every value of the file).

    >>> is_l75("e3.l75.b1"), is_l75("e3.l75_carrier.b2"), is_l75("e3.pci_a.b1")
    (True, True, False)
    """
    parts = key.split(".")
    return len(parts) > 1 and parts[1] in L75_METRICS


EXPERIMENTS = ("e1", "e2", "e3", "e4")
"""Experiments a result set may hold, in display order (E4: beyond the paper)."""
PAPER_EXPERIMENTS = ("e1", "e2", "e3")
"""The paper's experiments (study ``paper``)."""
VALUE_COLUMNS = ("experiment", "seed", "key", "value")
SEED_VALUES = Table(
    "seed_values",
    VALUE_COLUMNS,
    text=("experiment", "key", "value"),
    optional=("value",),
    order=lambda row: is_l75(str(row["key"])),  # every value, then every L75
)
"""Every per-seed number of the trained agents; the value is text (a censored L75, ``nan``)."""
UNTRAINED_VALUES = Table(
    "untrained_values",
    ("weights", *VALUE_COLUMNS),
    text=("weights", "experiment", "key", "value"),
    optional=("value",),
    required=False,
)
"""The same numbers for the untrained twins (``weights`` = "untrained"), the audit's input."""
E1_TRIALS = Table(
    "e1_trials",
    (
        "seed", "condition", "trial", "correct", "confidence", "stimulus", "salience",
        "decision", "wager", "bet",
    ),
    text=("condition",),
    optional=("confidence",),
    required=False,
)  # fmt: skip
E2_CAPACITY = Table(
    "e2_capacity",
    ("agent", "seed", "capacity", "scale", "per_step", "decision", "conjunction"),
    text=("agent",),
    optional=("capacity", "scale"),
    required=False,
)
"""A0 and A1 have no capacity (empty cells)."""
E3_TITRATION = Table(
    "e3_titration",
    ("agent", "noise_mode", "noise", "seed", "sigma", "accuracy"),
    text=("agent", "noise_mode", "noise"),
    required=False,
)
E4_TRIALS = Table(
    "e4_trials",
    (
        "arm", "seed", "condition", "trial", "correct", "confidence", "stimulus", "salience",
        "decision", "wager", "bet",
    ),
    text=("arm", "condition"),
    optional=("confidence",),
    required=False,
)  # fmt: skip
CURVE_COLUMNS = (
    "agreement",
    "heldout_auroc",
    "heldout_confidence",
    "heldout_wager_reward",
    "heldout_confidence_sd",
    "heldout_confidence_distinct",
    "heldout_spread_bets",
)
"""Per-evaluation numbers of a training record's ``history`` (and ``wager_curve``) carried into
``e4_curves.csv``; the last three are the spread of protocol 8.8.4 (absent from older records)."""
E4_CURVES = Table(
    "e4_curves",
    ("arm", "seed", "update", *CURVE_COLUMNS),
    text=("arm",),
    optional=CURVE_COLUMNS[1:],
    required=False,
)
"""E4's learning curves: held-out AUROC, wager reward and the confidence's spread per evaluation."""
E2_TRACES = Table(
    "e2_traces",
    ("seed", "figure", "series", "step", "value"),
    text=("figure", "series"),
    required=False,
)
"""Per E2 seed: ``slots_mean_norm`` (series: active slots) and ``masking`` (series: slots), by
step."""
POINT_COLUMNS = ("ood_gap", "ood_gap_overflow", "gbi", "gbi_abs", "dpci", "auroc")
E3_POINTS = Table(
    "e3_points",
    ("agent", "seed", *POINT_COLUMNS),
    text=("agent",),
    optional=POINT_COLUMNS,
    required=False,
)
"""One point per (agent kind, seed) of the composite regression (Fig. 3b)."""
AGENTS = Table(
    "agents",
    ("experiment", "seed", "agent", "status"),
    text=("experiment", "agent", "status"),
    required=False,
)
"""Agents left out of a seed (``status``: excluded, missing) or trained for the run (trained)."""
BOUNDS = Table(
    "bounds",
    ("kind", "protocol", "ceiling", "source"),
    text=("kind", "protocol", "source"),
    required=False,
)
"""The L75 an ideal observer of each kind's workspace reaches, per noise protocol, in the E3
design study's registered cell (protocol sec. 7.2): the bound of sec. 10.3 (a)."""
PAPER_TABLES = (
    SEED_VALUES,
    BOUNDS,
    E1_TRIALS,
    E2_CAPACITY,
    E3_TITRATION,
    E2_TRACES,
    E3_POINTS,
    UNTRAINED_VALUES,
    AGENTS,
)
E4_TABLES = (SEED_VALUES, E4_TRIALS, E4_CURVES, UNTRAINED_VALUES, AGENTS)
TRIAL_TABLES = {
    "e1": (E1_TRIALS,),
    "e2": (E2_CAPACITY,),
    "e3": (E3_TITRATION,),
    "e4": (E4_TRIALS, E4_CURVES),
}
"""The trial-level tables each experiment writes (its pipeline's ``SeedResult.rows``)."""
FIGURES = "figures.json"
MASK_INTERVAL = 1
"""Steps between two masks of the backward-masking traces (the task's default interval)."""


# ------------------------------------------------------------------------------ cells
def value_cell(x: Any) -> str | None:
    """A per-seed number as ``seed_values.csv`` writes it: what the csv module writes for it
    (``str``: ``nan`` stays ``nan``, a float32 its short form), text as is, None empty.

    >>> import numpy as np
    >>> value_cell(0.25), value_cell(np.float32(0.1)), value_cell(float("nan")), value_cell(None)
    ('0.25', '0.1', 'nan', None)
    """
    if x is None or isinstance(x, str):
        return x
    return str(x)


def l75_cell(record: Mapping[str, Any]) -> float | str | None:
    """The ``seed_values.csv`` cell of one seed's L75 record (``value``, ``censored``, ``bound``).

    >>> l75_cell({"value": 0.3, "censored": "none", "bound": 0.3})
    0.3
    >>> (l75_cell({"value": None, "censored": "right", "bound": 0.5}),
    ...  l75_cell({"censored": "left", "bound": 0.0}))
    ('> 0.5', '<= 0')
    """
    if record["censored"] == "none":
        return record["value"]
    return f"{'>' if record['censored'] == 'right' else '<='} {record['bound']:g}"


def number(text: Any) -> float:
    """A per-seed value cell as a float (nan for an empty or unreadable cell).

    >>> number("0.5"), number("nan"), number(None)
    (0.5, nan, nan)
    """
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


def l75_record(text: Any) -> dict[str, Any] | None:
    """One seed's L75 record from its cell (None for an empty cell).

    >>> l75_record("> 0.5"), l75_record("0.31")
    ({'value': None, 'censored': 'right', 'bound': 0.5}, {'value': 0.31, 'censored': 'none', \
'bound': 0.31})
    """
    if text is None or text == "":
        return None
    s = str(text).strip()
    for sign, side in ((">", "right"), ("<=", "left")):
        if s.startswith(sign) and not s.startswith(">="):
            return {"value": None, "censored": side, "bound": float(s[len(sign) :])}
    value = float(s)
    return {"value": value, "censored": "none", "bound": value}


def value_rows(
    experiment: str,
    seed: int,
    values: Mapping[str, Any],
    l75: Mapping[str, Mapping[str, Any]],
    extra: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The ``seed_values`` rows of one seed: its values by key, then its L75 records by key."""
    base = {**(extra or {}), "experiment": experiment, "seed": seed}
    return [{**base, "key": k, "value": value_cell(v)} for k, v in sorted(values.items())] + [
        {**base, "key": k, "value": value_cell(l75_cell(x))} for k, x in sorted(l75.items())
    ]


# ------------------------------------------------------------------------------ figures.json
def figures_json(
    rows: Rows, experiments: Sequence[str], seeds: Sequence[int], soa: int, count: int
) -> dict[str, Any]:
    """``figures.json`` from the rows of ``e2_traces`` and ``e3_points``: per E2 seed its
    workspace norm by step and its masking traces (with the masking design ``soa``, ``count``),
    and E3's composite points.

    >>> rows = {"e2_traces": [{"seed": 0, "figure": "masking", "series": "4", "step": 0,
    ...                        "value": 1.0}], "e3_points": []}
    >>> figures_json(rows, ["e2"], [0, 1], 2, 6)["e2"]
    {'0': {'masking': {'soa': 2, 'count': 6, 'interval': 1, 'traces': {'4': [1.0]}}}, '1': {}}
    """
    e2: dict[str, dict] = {}
    if "e2" in experiments:
        e2 = {str(s): {} for s in seeds}
        for r in rows.get(E2_TRACES.name, []):
            fig = e2.setdefault(str(r["seed"]), {})
            if r["figure"] == "masking":
                entry = fig.setdefault(
                    "masking", {"soa": soa, "count": count, "interval": MASK_INTERVAL, "traces": {}}
                )
                entry["traces"].setdefault(r["series"], []).append(r["value"])
            else:
                fig.setdefault(r["figure"], {}).setdefault(r["series"], []).append(r["value"])
    e3: dict[str, Any] = {}
    if "e3" in experiments:
        e3 = {
            "points": [
                {"agent": r["agent"], "seed": r["seed"], **{k: r[k] for k in POINT_COLUMNS}}
                for r in rows.get(E3_POINTS.name, [])
            ]
        }
    return {"e2": e2, "e3": e3}


def trace_rows(seed: int, figures: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``e2_traces`` rows of one E2 seed's figure arrays (``SeedResult.figures``)."""
    out = []
    for series, values in (figures.get("slots_mean_norm") or {}).items():
        out += [
            {"seed": seed, "figure": "slots_mean_norm", "series": series, "step": i, "value": x}
            for i, x in enumerate(values)
        ]
    for series, values in ((figures.get("masking") or {}).get("traces") or {}).items():
        out += [
            {"seed": seed, "figure": "masking", "series": series, "step": i, "value": x}
            for i, x in enumerate(values)
        ]
    return out


def point_rows(seed: int, points: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``e3_points`` rows of one E3 seed (``SeedResult.figures["points"]``)."""
    return [
        {"agent": agent, "seed": seed, **{k: p[k] for k in POINT_COLUMNS}}
        for agent, p in points.items()
    ]


# ------------------------------------------------------------------------------ the tables model
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AuditEntry(_Model):
    """A value the construction audit found fixed by the design (docs/verdicts.md)."""

    rule: str
    """``untrained``, ``ceiling``, ``relative``, ``empty bus``, ``contrast`` or
    ``identical arms``."""
    ours: Number
    reference: Number
    """The untrained twins' mean, the ideal agent's score on the same episodes, the reference
    condition's value, or the chance score the rule implies (none for a contrast)."""
    se: Number
    condition: str | None = None
    reference_condition: str | None = None
    reassigned: bool | None = None
    low: Number = None
    high: Number = None
    """The ceiling rule's range: the ideal agent's 95% range on the same episodes."""
    arms: tuple[str, ...] | None = None
    """The contrast rule: the two values compared; the identical-arms rule: the values it equals."""


class ConstructionAudit(_Model):
    """The audit's inputs summarised and its results."""

    untrained_seeds: list[int]
    flagged: dict[str, AuditEntry]
    untrained_means: dict[str, Number]
    rules: str = "docs/verdicts.md, 'By construction'"


class ConditionEntry(_Model):
    """One registered condition of an E4 hypothesis, as tested."""

    what: str
    short: str
    key: str
    versus: str | None
    rule: str
    arm: str
    arms: list[str]
    estimate: Number
    ci95: list[float] | None
    interval: str | None
    n: int
    holds: bool | None
    tested: bool


class HypothesisEntry(_Model):
    """One hypothesis of protocol 8.5 / 8.8.5 with its conditions (e4_hypotheses.evaluate)."""

    id: str
    statement: str
    primary: bool
    outcome: str
    by_construction: str | None
    conditions: list[ConditionEntry]


class SpreadEntry(_Model):
    """An AUROC beside its confidence's spread (protocol 8.8.4, e4_hypotheses.spread_table)."""

    auroc: Number
    auroc_resolved: Number = None
    """The AUROC of the confidences at a resolution of 1e-3 (protocol sec. 10.5)."""
    confidence_sd: Number
    confidence_distinct: list[float] | None
    spread_bets: list[float] | None
    bets_flipped: list[float] | None = None
    """Bets that flip under the evaluation's own rule, min and max over seeds (sec. 10.5)."""
    seeds: int
    seeds_meaningful: int
    meaningful: bool | None


class ResultTables(_Model):
    """What the pages, figures and report need beyond the findings (``summary.json`` ``tables``)."""

    experiments: list[str]
    values: dict[str, Number] = Field(default_factory=dict)
    """Every aggregated number by key: a seed mean (a censored L75 at its bound) or a cross-seed
    value."""
    cross_seed: dict[str, Number] = Field(default_factory=dict)
    """Values computed across seeds (tests, the composite regression, closed forms, counts)."""
    construction_audit: ConstructionAudit
    excluded: list[str] = Field(default_factory=list)
    trained: list[str] = Field(default_factory=list)
    paper_inconsistencies: list[str] = Field(default_factory=list)
    hypotheses: list[HypothesisEntry] = Field(default_factory=list)
    """E4 only: the registered hypotheses with their conditions."""
    auroc_spread: dict[str, SpreadEntry] = Field(default_factory=dict)
    """E4 only: every AUROC beside its confidence's spread."""


GAIN = "exploratory_gain.json"
"""An optional exploratory file beside a result set (:mod:`labcore.experiments.gain`)."""
REPORT = "report.html"
STUDY_OF_FOLDER = {"e4": "e4"}
"""The study a folder's summary belongs to when it cannot say (no summary): E4's folder, else
``paper``."""


class GainRow(BaseModel):
    """One agent of the exploratory training-length analysis (its other fields are kept)."""

    model_config = ConfigDict(extra="allow")
    seed: int
    training: str
    updates: int | None
    jacobian: float | None
    l75_text: str
    accuracy: float | None


class Gain(BaseModel):
    """``exploratory_gain.json``: training length against B1's fragility (post hoc)."""

    model_config = ConfigDict(extra="allow")
    description: str = ""
    rows: list[GainRow] = []


@dataclass
class ResultSet(LoadedStudy):
    """A result set as read for display (:func:`load_results`); ``tables``: its
    :class:`ResultTables`."""

    gain: dict = field(default_factory=dict)

    @property
    def study(self) -> str:
        """``paper`` or ``e4`` (the folder's name decides when there is no summary)."""
        if self.summary is not None:
            return self.summary.study
        return STUDY_OF_FOLDER.get(self.directory.name, "paper")

    @property
    def findings(self) -> dict[str, Finding]:
        """Every finding by id (claims of the paper's table, E4's hypotheses)."""
        return self.summary.by_id if self.summary is not None else {}

    def finding(self, finding_id: str) -> Finding | None:
        """One finding (None where the set has none of that id)."""
        return self.findings.get(finding_id)

    @property
    def claims(self) -> list[Finding]:
        """The findings with a verdict: one per claim of the paper's table (and E4's)."""
        return [f for f in self.findings.values() if f.verdict is not None]

    @property
    def experiments(self) -> list[str]:
        """The experiments of this set, in display order."""
        listed = self.tables.experiments if self.tables is not None else []
        return [e for e in EXPERIMENTS if e in listed]

    @property
    def seeds(self) -> list[int]:
        """The agent seeds."""
        return list(self.summary.seeds) if self.summary is not None else []

    @property
    def values(self) -> dict[str, float | None]:
        """Every aggregated number by key (a seed mean; a censored L75 at its bound)."""
        return dict(self.tables.values) if self.tables is not None else {}

    def value(self, key: str) -> float:
        """One aggregated number as a float (nan if absent or undefined)."""
        v = self.values.get(key)
        return math.nan if v is None else float(v)

    @property
    def hypotheses(self) -> dict[str, dict[str, Any]]:
        """E4's registered hypotheses with their conditions, by id (empty without E4)."""
        if self.tables is None:
            return {}
        return {h.id: h.model_dump() for h in self.tables.hypotheses}

    @property
    def seed_values(self) -> Any:
        """``seed_values.csv``: every per-seed number (values as text: a censored L75)."""
        return self.frame("seed_values")

    @property
    def trials(self) -> Any:
        """``e1_trials.csv``."""
        return self.frame("e1_trials")

    @property
    def capacity(self) -> Any:
        """``e2_capacity.csv``."""
        return self.frame("e2_capacity")

    @property
    def titration(self) -> Any:
        """``e3_titration.csv``."""
        return self.frame("e3_titration")

    @property
    def e4_curves(self) -> Any:
        """``e4_curves.csv``: E4's learning curves."""
        return self.frame("e4_curves")

    @property
    def figures(self) -> dict[str, Any]:
        """The figures' arrays (what ``figures.json`` holds), from the rows of ``e2_traces`` and
        ``e3_points``."""
        rows = {}
        for table in (E2_TRACES, E3_POINTS):
            frame = self.frame(table.name)
            if frame is not None:
                rows[table.name] = [
                    {
                        k: (None if isinstance(v, float) and math.isnan(v) else v)
                        for k, v in r.items()
                    }
                    for r in frame.to_dict("records")
                ]
        config = self.summary.config if self.summary is not None else {}
        return figures_json(
            rows,
            self.experiments,
            self.seeds,
            config.get("masking_soa", 0),
            config.get("masking_count", 0),
        )


def _read_gain(path: Path, problems: list[str]) -> dict:
    if not path.exists():
        return {}
    try:
        return Gain.model_validate(json.loads(path.read_text(encoding="utf-8"))).model_dump()
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            problems += validation_sentences(exc, GAIN)
        else:
            problems.append(
                Problem(
                    f"{GAIN} could not be read ({exc.__class__.__name__}: {exc})",
                    GAIN,
                    "unreadable",
                )
            )
        return {}


def load_results(directory: Path | str) -> ResultSet:
    """Read a folder of ``study paper`` or ``study e4`` through the one loader; never raises on a
    bad file: :attr:`ResultSet.problems` says what could not be read, one sentence each."""
    directory = Path(directory)
    if not directory.is_dir():
        missing = Problem(f"{directory} is not a directory", str(directory), "missing")
        return ResultSet(directory, None, None, {}, [missing])
    peek = load_summary(directory, study=("paper", "e4"))
    study = peek.summary.study if peek.summary is not None else None
    study = study or STUDY_OF_FOLDER.get(directory.name, "paper")
    tables = E4_TABLES if study == "e4" else PAPER_TABLES
    loaded = load_tables(study, tables, ResultTables, directory)
    problems = list(loaded.problems)
    gain = _read_gain(directory / GAIN, problems)
    return ResultSet(directory, loaded.summary, loaded.tables, loaded.frames, problems, gain)
