"""The integration study (protocol sec. 9, issue 27): which whole-vs-parts integration measure,
on which signal and under which perturbation, recovers the monotonicities an IIT reading predicts?

Registered in docs/protocol.md sec. 9 (2026-11-24, 03:11 UTC) before this pipeline existed.
Phi_E, O-information and TSE complexity (``labcore.markers.integration``) are computed on the
carrier ``h``, the workspace ``slots`` and ``z_self`` of the bundled dual-task A0, A1, B1 and B2
(seeds 0-4) and their untrained twins, intact and (B1, B2) bus-off, on the unperturbed
trajectory and on the evoked response to E3's PCI-A pulse; four monotonicities (M1 bus-off
lowers integration, M2 trained above the untrained twin, M3 correct above error trials, M4
A0 < A1 < B1 < B2) are tested with 95% t intervals over seeds, every value audited against the
untrained twins (``labcore.experiments.construction``).

Run: ``python -m labcore explore integration --out results/explore_integration --jobs 2``.
Resumable: each agent's values are kept in ``OUT/parts/<kind>-s<seed>.json`` and a rerun
measures only what is missing. Files written to ``out``: ``integration.csv`` (one row per
value), ``summary.json`` (the tests, the audit, the answer), ``figure.json`` (the pass/fail
table).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from labcore.config import Intervention
from labcore.experiments.common import provide_agent
from labcore.experiments.construction import equivalent
from labcore.markers import ignore_undefined
from labcore.measures import evaluation_intervention
from labcore.measures_integration import (
    INTEGRATION_MEASURES,
    INTEGRATION_RIDGE,
    INTEGRATION_SIGNALS,
    INTEGRATION_VARIANTS,
    integration_readings,
    integration_runs,
)
from labcore.seeding import episode_seeds
from labcore.stats import t_interval, welch_interval
from labcore.storage.results import SUMMARY, clean_json, write_csv, write_result_json

KINDS = ("a0", "a1", "b1", "b2")
"""The ordering M4 tests, lowest first (no memory, recurrence, broadcast, broadcast +
self-model)."""
RIDGES = (INTEGRATION_RIDGE, 1e-2)
"""The registered ridge, then the sensitivity one (reported, not read; protocol 9.3)."""
MONOTONICITIES = {
    "M1": "bus-off lowers integration below the intact agent",
    "M2": "trained above its untrained twin",
    "M3": "correct above error trials",
    "M4": "A0 < A1 < B1 < B2",
}
MIN_SEEDS_M3 = 3
"""M3 needs at least this many seeds with both correct and error episodes (protocol 9.5)."""
ROWS = "integration.csv"
ROW_FIELDS = [
    "kind",
    "seed",
    "training",
    "condition",
    "signal",
    "variant",
    "group",
    "measure",
    "ridge",
    "value",
    "surrogate_mean",
    "n_episodes",
    "n_samples",
    "n_channels",
    "reason",
]


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

    @property
    def fingerprint(self) -> str:
        """What a saved agent's values depend on (not which seeds or kinds are run)."""
        budget = {k: v for k, v in asdict(self).items() if k not in ("seeds", "kinds")}
        return hashlib.sha256(json.dumps(budget, sort_keys=True).encode()).hexdigest()[:16]


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


def measure_agent(kind: str, seed: int, study: IntegrationStudyConfig) -> list[dict[str, Any]]:
    """Every value of protocol 9.3-9.4 for one kind and seed, trained and untrained twin."""
    torch.set_num_threads(1)
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
                    rows.append({**ident, **_row(r), "group": "all", "ridge": ridge})
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
                            rows.append({**ident, **_row(r), "group": group, "ridge": ridge})
    return rows


def _row(r: Any) -> dict[str, Any]:
    return {
        "signal": r.signal,
        "variant": r.variant,
        "measure": r.measure,
        "value": r.value,
        "surrogate_mean": r.surrogate_mean,
        "n_episodes": r.n_episodes,
        "n_samples": r.n_samples,
        "n_channels": r.n_channels,
        "reason": r.reason,
    }


def _part(out: Path, kind: str, seed: int) -> Path:
    return out / "parts" / f"{kind}-s{seed}.json"


def _measure_job(job: tuple[str, int, IntegrationStudyConfig, str]) -> tuple[str, int]:
    kind, seed, study, out = job
    rows = measure_agent(kind, seed, study)
    write_result_json(
        _part(Path(out), kind, seed), {"fingerprint": study.fingerprint, "rows": rows}
    )
    return kind, seed


def _saved(out: Path, kind: str, seed: int, study: IntegrationStudyConfig) -> list[dict] | None:
    path = _part(out, kind, seed)
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return saved["rows"] if saved.get("fingerprint") == study.fingerprint else None


# --------------------------------------------------------------------------- the tests
def _outcome(low: float, high: float, n: int, needed: int) -> str:
    if n < needed or not (math.isfinite(low) and math.isfinite(high)):
        return "undefined"
    return "passes" if low > 0 else ("reversed" if high < 0 else "fails")


def _combine(per: dict[str, dict]) -> str:
    """One outcome over kinds: passes only when every kind that can be tested passes."""
    defined = [p["outcome"] for p in per.values() if p["outcome"] != "undefined"]
    if not defined:
        return "undefined"
    if all(o == "passes" for o in defined):
        return "passes"
    return "reversed" if all(o == "reversed" for o in defined) else "fails"


class _Table:
    """Per-seed values by (kind, training, condition, signal, variant, group, measure, ridge)."""

    def __init__(self, rows: Sequence[dict]) -> None:
        self.values: dict[tuple, dict[int, float]] = {}
        for r in rows:
            v = r.get("value")
            if r.get("measure") is None:
                continue
            key = (
                r["kind"],
                r["training"],
                r["condition"],
                r["signal"],
                r["variant"],
                r["group"],
                r["measure"],
                float(r["ridge"]),
            )
            self.values.setdefault(key, {})[int(r["seed"])] = (
                float(v) if v is not None and v == v else math.nan
            )

    def get(self, *key: Any) -> dict[int, float]:
        return self.values.get(key, {})


def _paired(a: dict[int, float], b: dict[int, float], needed: int = 2) -> dict[str, Any]:
    seeds = sorted(s for s in set(a) & set(b) if math.isfinite(a[s]) and math.isfinite(b[s]))
    diffs = [a[s] - b[s] for s in seeds]
    with ignore_undefined():
        low, high = t_interval(diffs) if len(diffs) >= 2 else (math.nan, math.nan)
    identical = bool(diffs) and all(d == 0 for d in diffs)
    return {
        "n": len(diffs),
        "mean": float(np.mean(diffs)) if diffs else math.nan,
        "ci95": [low, high],
        "outcome": _outcome(low, high, len(diffs), needed),
        "identical": identical,
    }


def audit_values(table: _Table, ridge: float) -> dict[str, dict]:
    """The construction audit of every value (protocol 9.5): trained vs untrained twins of the
    same kind, condition, signal, variant and measure, by the equivalence rule."""
    found = {}
    for key, trained in table.values.items():
        kind, training, condition, signal, variant, group, measure, r = key
        if training != "trained" or group != "all" or r != ridge:
            continue
        twin = table.get(kind, "untrained", condition, signal, variant, group, measure, r)
        a = [v for v in trained.values() if math.isfinite(v)]
        b = [v for v in twin.values() if math.isfinite(v)]
        if len(a) >= 2 and len(b) >= 2:
            same, mean, reference, se = equivalent(a, b)
            if same:
                found["/".join(map(str, key[:1] + key[2:5] + key[6:7]))] = {
                    "ours": mean,
                    "reference": reference,
                    "se": se,
                    "reason": (
                        f"an untrained agent of the same wiring gives {reference:.3g} "
                        f"(ours {mean:.3g})"
                    ),
                }
    return found


def _fixed(audit: dict, kind: str, condition: str, signal: str, variant: str, measure: str) -> bool:
    return f"{kind}/{condition}/{signal}/{variant}/{measure}" in audit


def run_tests(rows: Sequence[dict], kinds: Sequence[str], ridge: float) -> tuple[list[dict], dict]:
    """M1-M4 for every measure, signal and variant at one ridge, and the audit they read."""
    table = _Table(rows)
    audit = audit_values(table, ridge)
    tests = []
    for measure in INTEGRATION_MEASURES:
        for signal in INTEGRATION_SIGNALS:
            for variant in INTEGRATION_VARIANTS:

                def val(
                    kind,
                    training="trained",
                    condition="intact",
                    group="all",
                    s=signal,
                    v=variant,
                    m=measure,
                ):
                    return table.get(kind, training, condition, s, v, group, m, ridge)

                have = [k for k in kinds if val(k)]
                if not have:
                    continue
                base = {"measure": measure, "signal": signal, "variant": variant, "ridge": ridge}
                m1 = {
                    k: _paired(val(k), val(k, condition="bus_off"))
                    for k in have
                    if val(k, condition="bus_off")
                }
                for k, p in m1.items():
                    p["by_construction"] = p["identical"] or any(
                        _fixed(audit, k, c, signal, variant, measure) for c in ("intact", "bus_off")
                    )
                m2 = {k: _paired(val(k), val(k, training="untrained")) for k in have}
                m3 = {
                    k: _paired(val(k, group="correct"), val(k, group="error"), MIN_SEEDS_M3)
                    for k in have
                }
                for per in (m2, m3):
                    for k, p in per.items():
                        p["by_construction"] = p["identical"] or _fixed(
                            audit, k, "intact", signal, variant, measure
                        )
                for name, per in (("M1", m1), ("M2", m2), ("M3", m3)):
                    if per:
                        tests.append(
                            {
                                **base,
                                "test": name,
                                "per_kind": per,
                                "outcome": _combine(per),
                                "by_construction": any(
                                    p["by_construction"]
                                    for p in per.values()
                                    if p["outcome"] != "undefined"
                                ),
                            }
                        )
                if signal == "h" and all(k in have for k in KINDS):
                    tests.append(
                        {**base, "test": "M4", **_ordering(val, audit, signal, variant, measure)}
                    )
    return tests, audit


def _ordering(
    val: Callable[..., dict], audit: dict, signal: str, variant: str, measure: str
) -> dict[str, Any]:
    pairs = {}
    for low_kind, high_kind in itertools.pairwise(KINDS):
        a = [v for v in val(high_kind).values() if math.isfinite(v)]
        b = [v for v in val(low_kind).values() if math.isfinite(v)]
        with ignore_undefined():
            lo, hi = welch_interval(a, b) if len(a) >= 2 and len(b) >= 2 else (math.nan, math.nan)
        pairs[f"{high_kind} - {low_kind}"] = {
            "n": [len(a), len(b)],
            "ci95": [lo, hi],
            "mean": float(np.mean(a) - np.mean(b)) if a and b else math.nan,
            "outcome": _outcome(lo, hi, min(len(a), len(b)), 2),
        }
    outcomes = [p["outcome"] for p in pairs.values()]
    outcome = (
        "undefined"
        if "undefined" in outcomes
        else "passes"
        if all(o == "passes" for o in outcomes)
        else "reversed"
        if all(o == "reversed" for o in outcomes)
        else "fails"
    )
    fixed = any(_fixed(audit, k, "intact", signal, variant, measure) for k in KINDS)
    return {"per_pair": pairs, "outcome": outcome, "by_construction": fixed}


def recovered(tests: Sequence[dict]) -> list[dict]:
    """The tests a measure passes with no value fixed by construction (protocol 9.6)."""
    return [
        {k: t[k] for k in ("measure", "signal", "variant", "test")}
        for t in tests
        if t["outcome"] == "passes" and not t["by_construction"]
    ]


def answer(tests: Sequence[dict]) -> str:
    """The study's answer in sentences, from the registered ridge's tests."""
    found = recovered(tests)
    if not found:
        head = (
            "None of the three measures recovers any of the four monotonicities on any "
            "signal or variant "
            "(a test that passes reads a value fixed by construction, or none passes)."
        )
    else:
        parts = []
        for measure, label in INTEGRATION_MEASURES.items():
            mine = [
                f"{f['test']} on {f['signal']} ({f['variant']})"
                for f in found
                if f["measure"] == measure
            ]
            parts.append(f"{label}: {', '.join(mine) if mine else 'none'}")
        head = "Recovered (test passes, no value fixed by construction): " + "; ".join(parts) + "."
    all_four = any(
        len({f["test"] for f in found if (f["measure"], f["signal"], f["variant"]) == key}) == 4
        for key in {(f["measure"], f["signal"], f["variant"]) for f in found}
    )
    return head + (
        " One measure recovers all four on one signal."
        if all_four
        else " No measure recovers all four on one signal: M4 is tested on h, and bus-off "
        "cannot change "
        "the open-loop carrier h (M1 on h is fixed by the wiring)."
    )


def summarise(
    rows: Sequence[dict], study: IntegrationStudyConfig, wall_seconds: float
) -> dict[str, Any]:
    """The study's summary: tests and audit at each ridge, the registered answer, the
    sensitivity."""
    by_ridge = {}
    for ridge in study.ridges:
        tests, audit = run_tests(rows, study.kinds, ridge)
        by_ridge[ridge] = {"tests": tests, "audit": audit, "recovered": recovered(tests)}
    registered = by_ridge[study.ridges[0]]
    sensitivity = {
        f"{r:g}": {"recovered": v["recovered"], "answer": answer(v["tests"])}
        for r, v in by_ridge.items()
        if r != study.ridges[0]
    }
    return {
        "schema_version": 1,
        "study": "integration",
        "registered": "docs/protocol.md sec. 9 (2026-11-24)",
        "description": __doc__.split("\n\n")[0],
        "config": asdict(study),
        "seeds": list(study.seeds),
        "monotonicities": MONOTONICITIES,
        "measures": INTEGRATION_MEASURES,
        "ridge": study.ridges[0],
        "tests": registered["tests"],
        "audit": registered["audit"],
        "recovered": registered["recovered"],
        "answer": answer(registered["tests"]),
        "sensitivity": sensitivity,
        "wall_seconds": round(wall_seconds, 1),
    }


def run(
    out: Path | str,
    study: IntegrationStudyConfig | None = None,
    *,
    workers: int = 1,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Measure what is missing, then write the study's files (module docstring); returns the
    summary."""
    study = study or IntegrationStudyConfig()
    out = Path(out)
    start = time.perf_counter()
    jobs = [
        (k, s, study, str(out))
        for k in study.kinds
        for s in study.seeds
        if _saved(out, k, s, study) is None
    ]
    say(
        f"{len(study.kinds) * len(study.seeds) - len(jobs)} agents already measured, "
        f"{len(jobs)} to measure"
    )
    if workers > 1 and len(jobs) > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            for kind, seed in pool.map(_measure_job, jobs, chunksize=1):
                say(f"measured {kind} seed {seed}")
    else:
        for job in jobs:
            kind, seed = _measure_job(job)
            say(f"measured {kind} seed {seed}")
    rows = [r for k in study.kinds for s in study.seeds for r in (_saved(out, k, s, study) or [])]
    summary = summarise(rows, study, time.perf_counter() - start)
    write_csv(out / ROWS, ROW_FIELDS, rows)
    write_result_json(out / SUMMARY, summary, indent=1)
    return clean_json(summary)


# --------------------------------------------------------------------------- reading it back
@dataclass
class IntegrationStudy:
    """The study's files, read for display: ``rows`` (one per value), ``summary`` (tests, audit,
    answer) and ``problems`` (what could not be read; never raised)."""

    directory: Path
    rows: pd.DataFrame | None
    summary: dict
    problems: list[str]


def read_study(directory: Path | str) -> IntegrationStudy:
    """Read a study written by ``explore integration``; problems are listed, never raised."""
    directory = Path(directory)
    problems: list[str] = []
    rows = summary = None
    try:
        rows = pd.read_csv(directory / ROWS)
        missing = set(ROW_FIELDS) - set(rows.columns)
        if missing:
            problems.append(f"{directory / ROWS} lacks the columns {sorted(missing)}.")
            rows = None
    except (OSError, ValueError) as exc:
        problems.append(f"{directory / ROWS} could not be read ({type(exc).__name__}).")
    try:
        summary = json.loads((directory / SUMMARY).read_text())
    except (OSError, ValueError) as exc:
        problems.append(f"{directory / SUMMARY} could not be read ({type(exc).__name__}).")
    if summary is not None and (
        summary.get("study") != "integration"
        or not isinstance(summary.get("tests"), list)
        or not isinstance(summary.get("answer"), str)
    ):
        problems.append(f"{directory / SUMMARY} is not an integration study summary.")
        summary = None
    return IntegrationStudy(directory, rows, summary or {}, problems)
