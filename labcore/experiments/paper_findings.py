"""The paper's experiments (E1-E3, study ``paper``) and E4 (study ``e4``) as findings: a pure
function of the rows their units wrote (:func:`summarise`).

The rows are read back into one :class:`~labcore.experiments.common.SeedResult` per (experiment,
seed) and per untrained twin, exactly what the pipelines returned; then, as the experiments
always did: each experiment's values across seeds (tests, the composite regression, the closed
forms, E4's counts), the construction audit (:mod:`labcore.experiments.construction`), the
pre-registered verdict of every claim of :data:`labcore.paper_claims.CLAIMS`
(:func:`labcore.paper.verdict`, which names the branch that decided) and E4's hypotheses
(:mod:`labcore.experiments.e4_hypotheses`). Each claim becomes one
:class:`~labcore.findings.Finding` (same id), its reasons :class:`~labcore.findings.Flag` records;
the words are :mod:`labcore.render`'s and ``labcore/templates/paper.j2``'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from labcore.experiments import construction, e4_hypotheses
from labcore.experiments.common import SeedResult
from labcore.experiments.paper_tables import (
    AGENTS,
    BOUNDS,
    E3_POINTS,
    POINT_COLUMNS,
    SEED_VALUES,
    TRIAL_TABLES,
    UNTRAINED_VALUES,
    ResultTables,
    figures_json,
    is_l75,
    l75_record,
    number,
)
from labcore.experiments.study import Rows
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
)
from labcore.paper import PAPER_INCONSISTENCIES, UNDEFINED_REASON, ClaimSpec, verdict
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import finite
from labcore.stats import pattern_value, seed_summary, summarize, summarize_l75

FILES_OF = {
    "e1": ("seed_values.csv", "e1_trials.csv"),
    "e2": ("seed_values.csv", "e2_capacity.csv"),
    "e3": ("seed_values.csv", "e3_titration.csv"),
    "e4": ("seed_values.csv", "e4_trials.csv"),
}
"""The files a claim of each experiment rests on."""
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
STUDY_OF = {"e1": "paper", "e2": "paper", "e3": "paper", "e4": "e4"}


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
    budgets = config.budgets
    figures = figures_json(rows, experiments, seeds, budgets.masking_soa, budgets.masking_count)
    for seed, fig in figures["e2"].items():
        by_key[("e2", int(seed))].figures = fig
    names = {"ood_gap": "gap", "ood_gap_overflow": "gap_overflow"}
    for row in rows.get(E3_POINTS.name, []):
        point = {names.get(k, k): (math.nan if row[k] is None else row[k]) for k in POINT_COLUMNS}
        by_key[("e3", row["seed"])].figures.setdefault("points", {})[row["agent"]] = point
    for row in rows.get(AGENTS.name, []):
        result = by_key.get((row["experiment"], row["seed"]))
        if result is not None and row["status"] == "trained":
            result.trained.append(row["agent"])
        elif result is not None:
            result.excluded.append(f"{row['agent']} ({row['status']})")
    return results


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
        a, b = (
            CLAIMS_BY_ID[arm].description if arm in CLAIMS_BY_ID else arm for arm in entry["arms"]
        )
        return Flag(kind="by_construction", rule="contrast", params={"a": a, "b": b})
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
) -> tuple[Flag, ...]:
    """Why a claim is not (plain) evidence: stated not comparable, out of reach or with nothing to
    predict (``registered``, protocol sec. 10.3), calibrated (10.2), fixed by the design (declared
    in the table, or found by the audit), undefined, an AUROC whose spread changes no bet."""
    flags = list(registered)
    if spec.not_comparable:
        flags.append(Flag(kind="not_comparable", rule="stated", note=spec.not_comparable))
    if spec.by_construction:
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
) -> Finding:
    """One claim of the paper's table (or E4's) as a finding, with its verdict and flags; a
    registered not-comparable flag (protocol sec. 10.3) makes its verdict "not comparable"."""
    verdict_, rule = verdict(spec, ours, values)
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
        flags=claim_flags(spec, rule, audit, spread, registered),
        study=STUDY_OF[experiment],
        files=FILES_OF[experiment],
        section=spec.paper.section,
    )
    if metric == "auroc" and experiment == "e4" and inverted(finding):
        flags = (*finding.flags, Flag(kind="inverted"))
        finding = finding.model_copy(update={"flags": flags})
    return finding


def _t_interval(values: Sequence[float]) -> tuple[float, float] | None:
    ci = seed_summary([v for v in values if finite(v)], "t").ci95
    return None if ci is None else (ci[0], ci[1])


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


def paper_answer(findings: Sequence[Finding], seeds: int) -> Answer:
    """How many of the paper's claims reproduce here as evidence, and which dissociations hold."""
    split = evidence_split(findings)
    by_id = {f.id: f for f in findings}
    evidence = split["evidence"]
    compared = sum(evidence[v] for v in ("reproduced", "partly reproduced", "not reproduced"))
    holding = evidence["reproduced"] + evidence["partly reproduced"]
    outcome = "none" if holding == 0 else ("all" if holding == compared else "some")
    dissociations = {e: dissociation(by_id, claims) for e, claims in DISSOCIATIONS.items()}
    cited = tuple(c for e, claims in DISSOCIATIONS.items() for c in claims if c in by_id)
    return Answer(
        outcome=outcome,
        findings=cited,
        params={
            "claims": sum(1 for f in findings if f.verdict is not None),
            "seeds": seeds,
            "evidence": evidence,
            "apart": split["apart"],
            "apart_kinds": apart_by_kind(findings),
            "dissociations": {e: d for e, d in dissociations.items() if d != "missing"},
        },
    )


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


def registered_flags(results: Sequence[SeedResult], rows: Rows) -> dict[str, tuple[Flag, ...]]:
    """The flags of protocol sec. 10.2-10.3, by claim: E1's accuracies calibrated to the ideal
    observer; an L75 whose paper value ("> 0.5") lies beyond the ideal observer's ceiling in the
    E3 design study (the ``bounds`` rows); the composite when its target does not vary."""
    from labcore.experiments.e4_hypotheses import ideal_observer

    per_seed: dict[str, list[float]] = {}
    for r in results:
        for key, value in r.values.items():
            if value is not None and math.isfinite(value):
                per_seed.setdefault(key, []).append(float(value))
    out: dict[str, tuple[Flag, ...]] = {}
    ideal = ideal_observer(-1.0)["accuracy"]
    for claim_id in CLAIMS_BY_ID:
        if claim_id.startswith("e1.accuracy.") and claim_id in per_seed:
            if construction.calibrated(float(np.mean(per_seed[claim_id])), ideal):
                out[claim_id] = (
                    Flag(kind="calibrated", rule="ideal_observer", params={"ideal": ideal}),
                )
    ceilings = {(b["kind"], b["protocol"]): b for b in rows.get(BOUNDS.name, [])}
    for claim_id, spec in CLAIMS_BY_ID.items():
        parts = claim_id.split(".")
        if parts[:2] != ["e3", "l75"] or spec.paper.bound != ">":
            continue
        protocol = parts[3] if len(parts) > 3 else "stored"
        bound = ceilings.get((parts[2], protocol))
        if bound and construction.out_of_reach(spec.paper.value, bound["ceiling"]):
            params = {
                "bound": bound["ceiling"],
                "paper": spec.paper.value,
                "source": bound["source"],
            }
            out[claim_id] = (Flag(kind="not_comparable", rule="bound", params=params),)
    gaps = {
        key.removeprefix("e3.ood_gap."): values
        for key, values in per_seed.items()
        if key.startswith("e3.ood_gap.")
    }
    if gaps and construction.nothing_to_predict(gaps):
        zero = sum(1 for g in gaps.values() if all(x == 0.0 for x in g))
        flag = Flag(
            kind="not_comparable", rule="zero_variance", params={"zero": zero, "kinds": len(gaps)}
        )
        for claim_id in CLAIMS_BY_ID:
            if claim_id.startswith("e3.composite."):
                out[claim_id] = (flag,)
    return out


def summarise(config: Any, rows: Rows) -> StudySummary:
    """The findings, answer and tables of a result set from its rows (a pure function of them).

    Parameters
    ----------
    config : labcore.experiments.paper_study.PaperConfig
        The design the rows were made with (experiments, seeds, budgets, audit seeds).
    rows : dict
        The study's tables (:data:`labcore.experiments.paper_tables.PAPER_TABLES` or
        ``E4_TABLES``), typed.
    """
    from labcore.experiments import e2, e3, e4  # torch: only when a set is summarised

    check_budgets(rows, config)
    results = seed_results(rows, config)
    everything = [r for rs in results.values() for r in rs]
    cross: dict[str, float] = {}
    for name, module in (("e2", e2), ("e3", e3), ("e4", e4)):
        if name in results:
            cross.update(module.cross_seed(results[name]))
    untrained_seeds = list(config.seeds[: config.audit_seeds])
    twins = twin_results(rows, config) if untrained_seeds else []
    ideals = e2.ideal_values(config.seeds, config.budgets) if {"e2", "e3"} & set(results) else {}
    audit = construction.audit(everything, twins, ideals, e2.contrast_arms())
    twin_means = construction.twin_means(twins) if twins else {}
    registered = registered_flags(everything, rows)
    summaries = seed_summaries(everything, cross)
    values = {k: pattern_value(s) for k, s in summaries.items()}
    hypotheses = e4_hypotheses.evaluate(results["e4"]) if "e4" in results else []
    spreads = e4_hypotheses.spread_table(results["e4"]) if "e4" in results else {}
    outcome = {h["id"]: h["outcome"] for h in hypotheses}
    per_seed = e4_hypotheses.per_seed(results["e4"]) if "e4" in results else {}
    findings = []
    for claim_id, spec in CLAIMS_BY_ID.items():
        experiment = claim_id.split(".")[0]
        if experiment not in results:
            continue
        ours = summaries.get(claim_id, {"mean": None, "sd": None, "n": 0, "ci95": None})
        extra: dict[str, Any] = {}
        if experiment == "e4":  # no paper number: a t interval, the hypothesis's outcome
            extra = {
                "interval": _t_interval(list(per_seed.get(claim_id, {}).values())),
                "method": "t",
                "outcome": outcome.get(spec.hypothesis or ""),
                "spread": spreads.get(claim_id),
            }
            extra["interval"] = extra["interval"] or (None, None)
        extra["registered"] = registered.get(claim_id, ())
        findings.append(claim_finding(spec, ours, values, audit.get(claim_id), **extra))
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
    answer = e4_answer(hypotheses) if name == "e4" else paper_answer(findings, len(config.seeds))
    return StudySummary(
        study=name,
        registered="docs/verdicts.md (before any result)"
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
