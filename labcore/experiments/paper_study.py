"""The paper's Experiments 1-3 (study ``paper``) and Experiment 4 (study ``e4``, protocol sec. 8):
their units (one pipeline on one seed's agents, or their untrained twins), the rows they write and
the findings, a pure function of the rows (:func:`summarise`).

Run: ``python -m labcore study paper --out results/bundled`` (``--quick``: the quick budgets on 2
seeds; 20 seeds: ``--set seeds=0,1,...,19``); ``python -m labcore study e4 --out results/e4``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from labcore.budgets import ReproduceConfig
from labcore.checks import check_choice
from labcore.config import (
    AGENT_KINDS,
    AUDIT_SEEDS,
    KINDS_OF_EXPERIMENT,
    TASK_OF_EXPERIMENT,
    TrainConfig,
)
from labcore.experiments import construction, e4_hypotheses
from labcore.experiments.common import DEFAULT_CACHE, SeedResult
from labcore.experiments.paper_results import (
    AGENTS,
    BOUNDS,
    E2_TRACES,
    E3_POINTS,
    E4_TABLES,
    FIGURES,
    PAPER_EXPERIMENTS,
    PAPER_TABLES,
    POINT_COLUMNS,
    SEED_VALUES,
    TRIAL_TABLES,
    UNTRAINED_VALUES,
    ResultTables,
    figures_json,
    is_l75,
    l75_record,
    number,
    point_rows,
    trace_rows,
    value_rows,
)
from labcore.experiments.study import Rows, Study
from labcore.findings import (
    Answer,
    Finding,
    Flag,
    Interval,
    PaperValue,
    StudySummary,
    apart_by_kind,
    clean_json,
    evidence_split,
    write_json,
)
from labcore.paper import (
    ALL_RULES,
    PAPER_INCONSISTENCIES,
    RULES,
    UNDEFINED_REASON,
    ClaimSpec,
    rules_through,
    verdict,
)
from labcore.paper_claims import CLAIMS_BY_ID, GROUPS
from labcore.render import finite
from labcore.stats import pattern_value, seed_summary, summarize, summarize_l75

MEASURES = {
    "accuracy": "accuracy",
    "accuracy_change": "accuracy",
    "auroc": "type2_auroc",
    "auroc_gap": "type2_auroc",
    "confidence": "confidence",
    "skip": "skip",
    "skip_low": "skip",
    "skip_high": "skip",
    "skip_salience": "skip",
    "ece": "ece",
    "zself": "z_self",
    "pca": "z_self",
    "conjunction": "conjunction",
    "per_step": "accuracy",
    "decision": "decision_accuracy",
    "hedges_g": "conjunction",
    "gbi": "gbi",
    "ignition": "ignition",
    "dnrs": "dnrs",
    "masking": "workspace",
    "audit": "workspace",
    "l75": "l75",
    "pci_a": "pci_a",
    "composite": "composite",
}
"""The glossary term of each metric (a claim id's second part)."""
UNITS = {"auroc": "auroc", "auroc_gap": "auroc", "l75": "sigma", "l75_carrier": "sigma"}
"""How a metric's value is written (labcore.render.fmt); every other metric: a plain number."""


# ------------------------------------------------------------------------------ rows -> results
def _results_from(
    rows: Sequence[Mapping[str, Any]], experiments: Sequence[str], seeds: Sequence[int], what: str
) -> dict[str, list[SeedResult]]:
    """One SeedResult per (experiment, seed) with its per-seed values and L75 records."""
    results = {e: {s: SeedResult(e, s) for s in seeds} for e in experiments}
    for r in rows:
        result = results.get(r["experiment"], {}).get(r["seed"])
        if result is None:
            raise ValueError(
                f"{what} holds {r['experiment']} seed {r['seed']}, which the config does not "
                "list: summarise with the config the rows were made with (--quick, --set seeds=...)"
            )
        key = str(r["key"])
        if is_l75(key):
            record = l75_record(r["value"])
            if record is not None:
                result.l75[key] = record
        else:
            result.values[key] = number(r["value"])
    return {e: [results[e][s] for s in seeds] for e in experiments}


def seed_results(rows: Rows, config: Any) -> dict[str, list[SeedResult]]:
    """The trained agents' per-seed results, as the pipelines returned them, from the rows."""
    experiments, seeds = list(config.experiments), list(config.seeds)
    results = _results_from(rows.get(SEED_VALUES.name, []), experiments, seeds, SEED_VALUES.file)
    by_key = {(r.experiment, r.seed): r for rs in results.values() for r in rs}
    for experiment in experiments:
        for table in TRIAL_TABLES[experiment]:
            for row in rows.get(table.name, []):
                if (experiment, row["seed"]) in by_key:
                    by_key[(experiment, row["seed"])].rows.setdefault(table.name, []).append(row)
    for result in by_key.values():
        constant_confidence(result)
    budgets = config.budgets
    figures = figures_json(rows, experiments, seeds, budgets.masking_soa, budgets.masking_count)
    for seed, fig in figures["e2"].items():
        by_key[("e2", int(seed))].figures = fig
    for row in rows.get(E3_POINTS.name, []):
        point = {k: (math.nan if row[k] is None else row[k]) for k in POINT_COLUMNS}
        by_key[("e3", row["seed"])].figures.setdefault("points", {})[row["agent"]] = point
    for row in rows.get(AGENTS.name, []):
        result = by_key.get((row["experiment"], row["seed"]))
        if result is not None and row["status"] == "trained":
            result.trained.append(row["agent"])
        elif result is not None:
            result.excluded.append(f"{row['agent']} ({row['status']})")
    return results


CONFIDENCE_TABLES = ("e1_trials", "e4_trials")
"""The trial tables that hold a confidence per trial (E1's and E4's)."""


def constant_confidence(result: SeedResult) -> None:
    """Protocol sec. 10.13 on one seed's trial rows: a condition whose confidences are one value to
    within float32 rounding (:func:`construction.constant_within_rounding`) has Type-2 AUROC 0.5
    by construction, whatever one unit of rounding between two rows gives; record it
    (``<exp>.check.constant_confidence.<[arm.]condition>``: 1.0 or 0.0) and set the AUROC to 0.5.

    >>> r = SeedResult("e1", 5, values={"e1.auroc.self_off": 0.509})
    >>> r.rows["e1_trials"] = [{"condition": "self_off", "confidence": c, "correct": k}
    ...                        for c, k in ((0.4909055, 1), (0.49090543, 0), (0.4909055, 0))]
    >>> constant_confidence(r)
    >>> r.values["e1.auroc.self_off"], r.values["e1.check.constant_confidence.self_off"]
    (0.5, 1.0)
    """
    conditions: dict[str, list[float]] = {}
    for table in CONFIDENCE_TABLES:
        for row in result.rows.get(table, []):
            name = ".".join(str(row[k]) for k in ("arm", "condition") if row.get(k) is not None)
            c = row.get("confidence")
            conditions.setdefault(name, []).append(math.nan if c is None else float(c))
    for name, confidences in conditions.items():
        constant = construction.constant_within_rounding(confidences)
        result.values[f"{result.experiment}.check.constant_confidence.{name}"] = float(constant)
        if constant and f"{result.experiment}.auroc.{name}" in result.values:
            result.values[f"{result.experiment}.auroc.{name}"] = 0.5


def twin_results(rows: Rows, config: Any) -> list[SeedResult]:
    """The untrained twins' per-seed results (the audit's input), experiment by experiment."""
    seeds = list(config.seeds[: config.audit_seeds])
    twins = _results_from(
        rows.get(UNTRAINED_VALUES.name, []), config.experiments, seeds, UNTRAINED_VALUES.file
    )
    missing = [f"{r.experiment} seed {r.seed}" for rs in twins.values() for r in rs if not r.values]
    if missing:
        raise ValueError(
            f"{UNTRAINED_VALUES.file} lacks the untrained twins {', '.join(missing)} the "
            "construction audit needs: run the study (its twin units) or set audit_seeds=0"
        )
    return [r for rs in twins.values() for r in rs]


def check_budgets(rows: Rows, config: Any) -> None:
    """Refuse rows made with other budgets than ``config`` (a set summarised with the wrong
    config would be labelled with the wrong budgets)."""
    budgets = config.budgets
    counts: dict[tuple, int] = {}
    for table in ("e1_trials", "e4_trials"):
        for r in rows.get(table, []):
            k = (table, r.get("arm"), r["seed"], r["condition"])
            counts[k] = counts.get(k, 0) + 1
    wrong = {n for n in counts.values() if n != budgets.e1_trials}
    sigmas = {r["sigma"] for r in rows.get("e3_titration", [])}
    if wrong or (sigmas and sigmas != set(budgets.sigmas)):
        raise ValueError(
            "the rows were made with other budgets than the config's "
            f"({sorted(wrong)[:3] or sorted(sigmas)[:4]}): summarise with the run's own config "
            "(--quick, --set ...)"
        )


# ------------------------------------------------------------------------------ claims
def seed_summaries(
    results: Sequence[SeedResult], cross: Mapping[str, float]
) -> dict[str, dict[str, Any]]:
    """Every key's summary over seeds (``mean``, ``sd``, ``n``, ``ci95``; an L75's censoring)
    and the cross-seed values as one-value summaries."""
    per_key: dict[str, list[float]] = {}
    per_l75: dict[str, list[dict]] = {}
    for r in results:
        for k, v in r.values.items():
            per_key.setdefault(k, []).append(v)
        for k, v in r.l75.items():
            per_l75.setdefault(k, []).append(v)
    summaries = {k: summarize(v) for k, v in per_key.items()}
    summaries.update({k: summarize_l75(v) for k, v in per_l75.items()})
    for k, v in cross.items():
        summaries[k] = {
            "mean": None if math.isnan(v) else float(v),
            "sd": None,
            "n": 1 if not math.isnan(v) else 0,
            "ci95": None,
        }
    return summaries


def _described(claim_ids: Sequence[str]) -> list[str]:
    """Each claim's question (an id the table lacks, as is)."""
    return [CLAIMS_BY_ID[c].description if c in CLAIMS_BY_ID else c for c in claim_ids]


def audit_flag(entry: Mapping[str, Any]) -> Flag:
    """The construction audit's result for one value as a flag (its sentence:
    ``labcore.render.FLAG_RULES``)."""
    ours = {"ours": entry["ours"]}
    if entry["rule"] == "untrained":
        params = {**ours, "untrained": entry["reference"], "se": entry["se"]}
        return Flag(kind="by_construction", rule="untrained", params=params)
    if entry["rule"] == "ceiling":
        params = {**ours, "ideal": entry["reference"], "low": entry["low"], "high": entry["high"]}
        return Flag(kind="by_construction", rule="ceiling", params=params)
    if entry["rule"] == "contrast":
        a, b = _described(entry["arms"])
        return Flag(kind="by_construction", rule="contrast", params={"a": a, "b": b})
    if entry["rule"] == "identical arms":
        params = {**ours, "arms": "; ".join(_described(entry["arms"]))}
        return Flag(kind="by_construction", rule="identical_arms", params=params)
    if entry["rule"] == "empty bus":
        return Flag(kind="by_construction", rule="empty_bus", params=ours)
    rule = "reassigned" if entry.get("reassigned") else "relative"
    params = {**ours, "condition": entry["condition"], "other": entry["reference_condition"]}
    return Flag(kind="by_construction", rule=rule, params=params)


def _spread_flag(spread: Mapping[str, Any]) -> Flag:
    bets = spread.get("spread_bets") or [None, None]
    flips = spread.get("bets_flipped") or [None, None]
    return Flag(
        kind="not_meaningful",
        rule="spread" if flips[1] is None else "flips",
        params={
            "seeds": spread["seeds"],
            "failing": spread["seeds"] - spread["seeds_meaningful"],
            "bets_low": bets[0],
            "bets_high": bets[1],
            "flips_low": flips[0],
            "flips_high": flips[1],
            "confidence_sd": spread.get("confidence_sd"),
        },
    )


def claim_flags(
    spec: ClaimSpec,
    rule: str,
    audit: Mapping[str, Any] | None,
    spread: Mapping[str, Any] | None = None,
    registered: Sequence[Flag] = (),
    rules: frozenset[str] = ALL_RULES,
) -> tuple[Flag, ...]:
    """Why a claim is not (plain) evidence: stated not comparable, out of reach, with nothing to
    predict or with arms censored alike (``registered``, protocol sec. 10.3, 10.8), calibrated
    (10.2), fixed by the design (declared in the table under the rules in force, or found by the
    audit), undefined, an AUROC whose spread changes no bet."""
    flags = list(registered)
    if spec.not_comparable:
        flags.append(Flag(kind="not_comparable", rule="stated", note=spec.not_comparable))
    if spec.by_construction and spec.declared_by in rules:
        flags.append(Flag(kind="by_construction", rule="spec", note=spec.by_construction))
    if audit:
        flags.append(audit_flag(audit))
    if rule == "undefined":
        flags.append(Flag(kind="undefined", note=spec.undefined_reason or UNDEFINED_REASON))
    if spread and spread.get("meaningful") is False:
        flags.append(_spread_flag(spread))
    return tuple(flags)


def inverted(finding: Finding) -> bool:
    """A meaningful AUROC whose whole interval lies below 0.5 ranks backwards: "inverted"
    (protocol 8.8.6, sec. 10.5).

    >>> inverted(Finding(id="a", question="?", value=0.17, interval=Interval(low=0.1, high=0.3)))
    True
    """
    i = finding.interval
    return (
        finding.flag("not_meaningful") is None
        and i is not None
        and i.high is not None
        and i.high < 0.5
    )


def _paper(spec: ClaimSpec) -> PaperValue | None:
    p = spec.paper
    if p.value is None:
        return None
    bound = ">" if p.bound == ">" else None
    return PaperValue(value=p.value, sd=p.sd, n=p.n, bound=bound, section=p.section)


def claim_finding(
    spec: ClaimSpec,
    ours: Mapping[str, Any],
    values: Mapping[str, float],
    audit: Mapping[str, Any] | None,
    *,
    interval: tuple[float, float] | None = None,
    method: str = "bootstrap",
    outcome: str | None = None,
    spread: Mapping[str, Any] | None = None,
    registered: Sequence[Flag] = (),
    rules: frozenset[str] = ALL_RULES,
) -> Finding:
    """One claim of the paper's table (or E4's) as a finding, with its verdict and flags under the
    rules in force (``rules``: all by default); a registered not-comparable flag (protocol sec.
    10.3, 10.8) makes its verdict "not comparable"."""
    verdict_, rule = verdict(spec, ours, values, rules)
    if any(f.kind == "not_comparable" for f in registered):
        verdict_, rule = "not comparable", "registered"
    experiment, metric = spec.id.split(".")[:2]
    censored = ours.get("censored") if ours.get("censored") in ("right", "left") else None
    n_censored = (
        ours.get(f"n_{censored}_censored", 0)
        if censored
        else ours.get("n_right_censored", 0) + ours.get("n_left_censored", 0)
    )
    low, high = interval if interval is not None else (ours.get("ci95") or (None, None))
    finding = Finding(
        id=spec.id,
        question=spec.description,
        value=ours.get("mean"),
        sd=ours.get("sd"),
        n=int(ours.get("n") or 0),
        interval=None if low is None else Interval(low=low, high=high, method=method),
        censored=censored,
        bound=ours.get("bound") if censored else None,
        n_censored=int(n_censored),
        unit=UNITS.get(metric, "number"),
        measure=MEASURES.get(metric, ""),
        verdict=verdict_,
        verdict_rule=rule,
        paper=_paper(spec),
        pattern=spec.pattern or "",
        hypothesis=spec.hypothesis,
        outcome=outcome,
        flags=claim_flags(spec, rule, audit, spread, registered, rules),
        group=spec.group or "",
        study="e4" if experiment == "e4" else "paper",
        files=(SEED_VALUES.file, TRIAL_TABLES[experiment][0].file),  # what the claim rests on
        section=spec.paper.section,
    )
    if metric == "auroc" and experiment == "e4" and inverted(finding):
        flags = (*finding.flags, Flag(kind="inverted"))
        finding = finding.model_copy(update={"flags": flags})
    return finding


def hypothesis_finding(entry: Mapping[str, Any]) -> Finding:
    """One registered E4 hypothesis as a finding: its outcome; its estimate and interval when it
    has one tested condition."""
    tested = [c for c in entry["conditions"] if c["tested"]]
    one = tested[0] if len(tested) == 1 else None
    ci = one.get("ci95") if one else None
    interval = (
        Interval(low=ci[0], high=ci[1], method=str(one.get("interval") or ""))
        if ci and not str(one.get("interval") or "").startswith(("every", "share"))
        else None
    )
    flags = (
        (Flag(kind="by_construction", rule="spec", note=entry["by_construction"]),)
        if entry.get("by_construction")
        else ()
    )
    return Finding(
        id=f"e4.hypothesis.{entry['id']}",
        question=entry["statement"],
        value=one.get("estimate") if one else None,
        n=min((int(c["n"]) for c in tested), default=0),
        interval=interval,
        measure="type2_auroc" if one and ".auroc" in one["key"] else "",
        hypothesis=entry["id"],
        outcome=entry["outcome"],
        flags=flags,
        study="e4",
        files=("seed_values.csv",),
        section="protocol sec. " + ("8.8.5" if entry["id"].startswith("R") else "8.5"),
    )


# ------------------------------------------------------------------------------ the summary
DISSOCIATIONS = {
    "e1": ("e1.accuracy.self_off", "e1.auroc.self_off"),
    "e2": ("e2.conjunction.k4", "e2.conjunction.k2", "e2.conjunction.k0"),
    "e3": ("e3.l75.b1", "e3.l75.b2", "e3.l75.b2_ws"),
}
"""The paper's three dissociations and the claims each rests on: doing without knowing (E1), no
workspace, no access (E2), the self-model protects against noise (E3)."""


def dissociation(findings: Mapping[str, Finding], claims: Sequence[str]) -> str:
    """Whether a dissociation holds here: ``evidence`` (every claim reproduced at least in part,
    none fixed by the design), ``construction`` (it holds, but the design fixes a part),
    ``fails`` (a claim does not reproduce) or ``missing``.

    >>> f = {"a": Finding(id="a", question="?", verdict="reproduced")}
    >>> dissociation(f, ["a"]), dissociation(f, ["a", "b"])
    ('evidence', 'missing')
    """
    if not all(c in findings for c in claims):
        return "missing"
    got = [findings[c] for c in claims]
    if any(f.verdict not in ("reproduced", "partly reproduced") for f in got):
        return "fails"
    return "evidence" if all(f.evidence for f in got) else "construction"


def paper_answer(
    findings: Sequence[Finding], seeds: int, history: Sequence[Mapping[str, Any]] = ()
) -> Answer:
    """How many of the paper's findings reproduce here as evidence (claims that restate one
    finding counted once), which dissociations hold, the groups of claims counted once, and the
    counts rule by rule (``history``: :func:`rule_history`)."""
    split = evidence_split(findings)
    by_id = {f.id: f for f in findings}
    evidence = split["evidence"]
    compared = sum(evidence[v] for v in ("reproduced", "partly reproduced", "not reproduced"))
    holding = evidence["reproduced"] + evidence["partly reproduced"]
    outcome = "none" if holding == 0 else ("all" if holding == compared else "some")
    dissociations = {e: dissociation(by_id, claims) for e, claims in DISSOCIATIONS.items()}
    cited = tuple(c for e, claims in DISSOCIATIONS.items() for c in claims if c in by_id)
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        if f.group and f.verdict is not None:
            groups.setdefault(f.group, []).append(f)
    return Answer(
        outcome=outcome,
        findings=cited,
        params={
            "claims": sum(1 for f in findings if f.verdict is not None),
            "independent": sum(split["evidence"].values()) + sum(split["apart"].values()),
            "seeds": seeds,
            "evidence": evidence,
            "apart": split["apart"],
            "apart_kinds": apart_by_kind(findings),
            "dissociations": {e: d for e, d in dissociations.items() if d != "missing"},
            "groups": {
                g: {
                    "question": GROUPS.get(g, g),
                    "claims": [f.id for f in members],
                    "evidence": any(f.evidence for f in members),
                }
                for g, members in groups.items()
                if len(members) > 1
            },
            "history": list(history),
        },
    )


COUNTED = ("reproduced", "partly reproduced", "not reproduced", "not comparable")
"""The verdicts the history of the counts states (a claim of the paper always has one)."""


def rule_history(build: Any) -> list[dict[str, Any]]:
    """The evidence counts under the rules in force at each rule's date, cumulatively: for every
    rule of :data:`labcore.paper.RULES`, the counts once it was added (``build(rules)`` gives the
    claims' findings under ``rules``), how many are counted apart, the claims it moved (a verdict
    or the evidence status changed: ``changed``), of them those it took out of the evidence
    (``left``) and those it put back (``entered``). Claims count as independent findings only from
    the rule ``independent`` on."""
    out: list[dict[str, Any]] = []
    before: dict[str, tuple] = {}
    for rule in RULES:
        active = rules_through(rule.id)
        findings = [f for f in build(active) if f.verdict is not None]
        split = evidence_split(findings, grouped="independent" in active)
        now = {f.id: (f.verdict, f.evidence) for f in findings}
        out.append(
            {
                "rule": rule.id,
                "date": rule.date,
                "after_results": rule.after_results,
                "evidence": {v: split["evidence"][v] for v in COUNTED},
                "apart": sum(split["apart"].values()),
                "changed": [i for i, x in now.items() if before and before.get(i) != x],
                "left": [i for i, x in now.items() if before.get(i, (0, False))[1] and not x[1]],
                "entered": [i for i, x in now.items() if before and not before[i][1] and x[1]],
            }
        )
        before = now
    return out


def shift_values(results: Sequence[SeedResult]) -> dict[str, float]:
    """What E3's two distribution shifts cost each agent kind, across seeds: the largest and
    smallest per-seed accuracy loss (``e3.ood_gap_max.<kind>``, ``e3.ood_gap_min.<kind>``; their
    means are ``e3.ood_gap.<kind>``), and the share of the overflow shift's gap a has-a-workspace
    indicator explains (``e3.explore.composite_overflow.r2_workspace``: R^2 of the gap on 1 for a
    kind with a workspace, 0 without), beside GBI's.

    >>> gaps = [0.0, 0.18]
    >>> rs = [SeedResult("e3", s, values={"e3.ood_gap.hot_only": g}) for s, g in enumerate(gaps)]
    >>> shift_values(rs)["e3.ood_gap_max.hot_only"]
    0.18
    """
    per_kind: dict[str, list[float]] = {}
    for r in results:
        for key, value in r.values.items():
            if key.startswith("e3.ood_gap.") and value is not None and math.isfinite(value):
                per_kind.setdefault(key.removeprefix("e3.ood_gap."), []).append(float(value))
    out = {}
    for kind, gaps in per_kind.items():
        out[f"e3.ood_gap_max.{kind}"] = max(gaps)
        out[f"e3.ood_gap_min.{kind}"] = min(gaps)
    points = [
        (AGENT_KINDS[kind].workspace, p["ood_gap_overflow"])
        for r in results
        for kind, p in r.figures.get("points", {}).items()
        if kind in AGENT_KINDS and finite(p.get("ood_gap_overflow"))
    ]
    if len(points) >= 3 and len({w for w, _ in points}) == 2:
        has, gap = (np.array(x, float) for x in zip(*points, strict=True))
        if gap.std() > 0:
            out["e3.explore.composite_overflow.r2_workspace"] = float(
                np.corrcoef(has, gap)[0, 1] ** 2
            )
    return out


def e4_answer(hypotheses: Sequence[Mapping[str, Any]]) -> Answer:
    """E4's answer: the outcome of its primary hypothesis (R1 of "E4 again" where tested, else
    H1)."""
    outcome = {h["id"]: h["outcome"] for h in hypotheses}
    primary = "R1" if outcome.get("R1") not in (None, "not tested") else "H1"
    return Answer(
        outcome=outcome.get(primary, "not tested"),
        findings=tuple(f"e4.hypothesis.{h['id']}" for h in hypotheses),
        params={"primary": primary, "outcomes": outcome},
    )


def registered_ceiling(key: str) -> bool:
    """Whether the ceiling rule as registered on 2026-11-26 (protocol sec. 10.1) covered ``key``:
    E2's values and B1's E3 accuracy (sec. 10.7 extended it to every value an ideal defines).

    >>> registered_ceiling("e2.conjunction.k2"), registered_ceiling("e3.accuracy.bc_mlp")
    (True, False)
    """
    return key.startswith("e2.") or key == "e3.accuracy.b1"


def registered_flags(
    results: Sequence[SeedResult],
    rows: Rows,
    summaries: Mapping[str, Mapping[str, Any]] | None = None,
    rules: frozenset[str] = ALL_RULES,
) -> dict[str, tuple[Flag, ...]]:
    """The flags of protocol sec. 10.2, 10.3 and 10.8 under the rules in force, by claim: E1's
    accuracies calibrated to the ideal observer; an L75 whose paper value ("> 0.5") lies beyond the
    ideal observer's ceiling in the E3 design study (the ``bounds`` rows); the composite when its
    target does not vary; a contrast whose value and arms are all censored at one bound
    (``summaries``: the seed summaries), which compares nothing."""
    out: dict[str, tuple[Flag, ...]] = {}

    def add(claim_id: str, flag: Flag) -> None:
        out[claim_id] = (*out.get(claim_id, ()), flag)

    per_seed = {k: list(v.values()) for k, v in e4_hypotheses.per_seed(results).items()}
    ideal = e4_hypotheses.ideal_observer(-1.0)["accuracy"]
    for claim_id in CLAIMS_BY_ID if "calibrated" in rules else ():
        if claim_id.startswith("e1.accuracy.") and claim_id in per_seed:
            if construction.calibrated(float(np.mean(per_seed[claim_id])), ideal):
                add(
                    claim_id,
                    Flag(kind="calibrated", rule="ideal_observer", params={"ideal": ideal}),
                )
    ceilings = {(b["kind"], b["protocol"]): b for b in rows.get(BOUNDS.name, [])}
    for claim_id, spec in CLAIMS_BY_ID.items():
        parts = claim_id.split(".")
        if "out_of_reach" not in rules or parts[:2] != ["e3", "l75"] or spec.paper.bound != ">":
            continue
        protocol = parts[3] if len(parts) > 3 else "stored"
        bound = ceilings.get((parts[2], protocol))
        if bound and construction.out_of_reach(spec.paper.value, bound["ceiling"]):
            params = {
                "bound": bound["ceiling"],
                "paper": spec.paper.value,
                "source": bound["source"],
            }
            add(claim_id, Flag(kind="not_comparable", rule="bound", params=params))
    gaps = {
        key.removeprefix("e3.ood_gap."): values
        for key, values in per_seed.items()
        if key.startswith("e3.ood_gap.")
    }
    if "out_of_reach" in rules and gaps and construction.nothing_to_predict(gaps):
        zero = sum(1 for g in gaps.values() if all(x == 0.0 for x in g))
        flag = Flag(
            kind="not_comparable", rule="zero_variance", params={"zero": zero, "kinds": len(gaps)}
        )
        for claim_id in CLAIMS_BY_ID:
            if claim_id.startswith("e3.composite."):
                add(claim_id, flag)
    for claim_id, spec in CLAIMS_BY_ID.items() if "censored_arms" in rules else ():
        keys = (claim_id, *spec.arms)
        if spec.contrast and spec.arms and all(k in (summaries or {}) for k in keys):
            bound = construction.censored_alike([summaries[k] for k in keys])
            if bound is not None:
                params = {"bound": bound, "arms": "; ".join(_described(spec.arms))}
                add(claim_id, Flag(kind="not_comparable", rule="censored", params=params))
    return out


def summarise(config: Any, rows: Rows) -> StudySummary:
    """The findings, answer and tables of a result set, a pure function of its rows
    (``PAPER_TABLES`` or ``E4_TABLES``, typed) and the :class:`PaperConfig` they were made with."""
    from labcore.experiments import e1, e2, e3, e4  # torch: only when a set is summarised

    check_budgets(rows, config)
    results = seed_results(rows, config)
    everything = [r for rs in results.values() for r in rs]
    cross: dict[str, float] = {}
    for name, module in (("e2", e2), ("e3", e3), ("e4", e4)):
        if name in results:
            cross.update(module.cross_seed(results[name]))
    if "e3" in results:
        cross.update(shift_values(results["e3"]))
    untrained_seeds = list(config.seeds[: config.audit_seeds])
    twins = twin_results(rows, config) if untrained_seeds else []
    ideals = e2.ideal_values(config.seeds, config.budgets) if {"e2", "e3"} & set(results) else {}
    if "e1" in results:
        ideals.update(e1.ideal_values(config.seeds, config.budgets))
    twin_means = construction.twin_means(twins) if twins else {}
    summaries = seed_summaries(everything, cross)
    values = {k: pattern_value(s) for k, s in summaries.items()}
    hypotheses = e4_hypotheses.evaluate(results["e4"]) if "e4" in results else []
    spreads = e4_hypotheses.spread_table(results["e4"]) if "e4" in results else {}
    outcome = {h["id"]: h["outcome"] for h in hypotheses}
    per_seed = e4_hypotheses.per_seed(results["e4"]) if "e4" in results else {}

    def audit_under(rules: frozenset[str]) -> dict[str, dict]:
        if "audit" not in rules:
            return {}
        in_force = {
            k: v
            for k, v in ideals.items()
            if "ceiling_everywhere" in rules or ("ceiling" in rules and registered_ceiling(k))
        }
        arms = {c.id: c.arms for c in CLAIMS_BY_ID.values() if c.arms}
        return construction.audit(
            everything,
            twins,
            in_force,
            e2.contrast_arms(),
            arms if "identical_arms" in rules else None,
            wiring="relative" in rules,
            separated="separated" in rules,
        )

    def claims_under(rules: frozenset[str], experiments: Sequence[str]) -> list[Finding]:
        audit = audit_under(rules)
        registered = registered_flags(everything, rows, summaries, rules)
        findings = []
        for claim_id, spec in CLAIMS_BY_ID.items():
            experiment = claim_id.split(".")[0]
            if experiment not in results or experiment not in experiments:
                continue
            ours = summaries.get(claim_id, {"mean": None, "sd": None, "n": 0, "ci95": None})
            extra: dict[str, Any] = {}
            if experiment == "e4":  # no paper number: a t interval, the hypothesis's outcome
                seeds = [v for v in per_seed.get(claim_id, {}).values() if finite(v)]
                ci = seed_summary(seeds, "t").ci95
                extra = {
                    "interval": tuple(ci) if ci else (None, None),
                    "method": "t",
                    "outcome": outcome.get(spec.hypothesis or ""),
                    "spread": spreads.get(claim_id),
                }
            extra["registered"] = registered.get(claim_id, ())
            findings.append(
                claim_finding(spec, ours, values, audit.get(claim_id), rules=rules, **extra)
            )
        return findings

    audit = audit_under(ALL_RULES)
    findings = claims_under(ALL_RULES, list(results))
    findings += [hypothesis_finding(h) for h in hypotheses]
    name = "e4" if list(config.experiments) == ["e4"] else "paper"
    tables = ResultTables(
        experiments=list(results),
        values=values,
        cross_seed=cross,
        construction_audit={
            "untrained_seeds": untrained_seeds,
            "flagged": {k: {f: v for f, v in e.items() if f != "reason"} for k, e in audit.items()},
            "untrained_means": twin_means,
        },
        excluded=sorted({x for r in everything for x in r.excluded}),
        trained=sorted({x for r in everything for x in r.trained}),
        paper_inconsistencies=list(PAPER_INCONSISTENCIES) if name == "paper" else [],
        hypotheses=[{k: v for k, v in h.items() if k != "reason"} for h in hypotheses],
        auroc_spread=spreads,
    )
    if name == "e4":
        answer = e4_answer(hypotheses)
    else:
        paper = [e for e in results if e != "e4"]
        history = rule_history(lambda rules: claims_under(rules, paper))
        answer = paper_answer(findings, len(config.seeds), history)
    return StudySummary(
        study=name,
        registered="docs/verdicts.md (rules 1-5 before any result; each later rule dated)"
        if name == "paper"
        else "docs/protocol.md sec. 8.5 (H1-H6), sec. 8.8.5 (R1-R4)",
        seeds=list(config.seeds),
        config=clean_json(
            {
                **asdict(config.budgets),
                "experiments": list(config.experiments),
                "audit_seeds": config.audit_seeds,
            }
        ),
        findings=findings,
        answer=answer,
        tables=tables.model_dump(mode="json"),
    )


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
    config=PaperConfig,
    units=units,
    run_unit=run_unit,
    summarise=summarise,
    tables=PAPER_TABLES,
    prepare=prepare,
    tables_model=ResultTables,
    unit_of=unit_of,
    derived=write_figures,
)


@dataclass(frozen=True)
class E4Config(PaperConfig):
    """E4's design: the ``paper`` study's fields with Experiment 4's pipeline."""

    experiments: tuple[str, ...] = ("e4",)
    """E4 runs on its own (its agents are the wagering task's arms, ``e4.ARMS``)."""


E4_STUDY = replace(STUDY, name="e4", config=E4Config, tables=E4_TABLES)
