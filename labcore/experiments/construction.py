"""Which of our numbers are fixed by the design rather than learned: the construction audit.

A number our design fixes is not evidence for or against the paper (issue 12). Two rules
decide it from data, not from a list:

1. **Untrained twin.** The same pipelines run on the untrained agents of the same kinds and
   seeds (their initial weights, ``ReproduceConfig(untrained=True)``). A value that the
   untrained agents demonstrably give too is fixed by the wiring: a zeroed self-model
   feeding a constant, an empty workspace, a cue-blind trunk, the norm of a layer-normalised
   write, slot memory constant between writes. "Demonstrably" is an equivalence test, not
   a failure to find a difference: the 95% interval of the difference (``|d| + 2 SE``) must
   lie inside a margin of ``max(0.05, 20% of the larger value)``, so a value too noisy to
   tell (a signed GBI of -9,000 +/- 6,000) is never called fixed.
2. **Closed form.** At a partial workspace capacity, an ideal agent's score follows from the
   allocation rule and the task's statistics alone (``e2.allocation_closed_form``); a value
   within ``CLOSED_FORM_TOLERANCE`` (or 2 SE) of it shows the design, not the agent.

Two more rules (issue 22) catch values fixed *relative to another condition*, which rule 1
misses because they are not equal to an untrained twin's value:

3. **Relative.** A lesion whose per-trial decisions equal the intact condition's on every trial
   of every seed, in the trained agents *and* in their untrained twins, changes no choice
   because the wiring routes around it (the E1 policy never reads z_self): its accuracy equals
   the intact accuracy by construction. Checked on the trial records (``e1_trials``,
   ``e4_trials``), not typed per claim.
   The same records catch a condition whose confidences are the reference's own values reassigned
   across trials (the same multiset on every seed, trained and untrained: z_self shuffled
   across trials feeds a head that reads nothing else): its Type-2 AUROC is chance in
   expectation, whatever the agent learned (``<exp>.auroc...`` flagged "relative").
4. **Empty bus.** A decoding value whose workspace features are zero on every trial of every
   seed, and whose remaining features (the trunk's state) are the same, bit for bit, when the
   episodes' cues are replaced (``e2.run_seed`` records both checks): nothing the decoder reads
   depends on the cue, so any score is chance by construction.

Claims flagged by any rule are counted apart from evidence, and their reason says which rule
and with what numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from labcore.experiments.common import SeedResult

Z = 2.0
"""Width of the interval of a difference, in standard errors (about 95%)."""
MARGIN_ABS = 0.05
"""Equivalence margin: differences below this (absolute) ..."""
MARGIN_REL = 0.2
"""... or below this share of the larger value count as no difference."""
CLOSED_FORM_TOLERANCE = 0.03
"""The closed-form rule: within this much (absolute) of the ideal agent, or Z standard errors."""


def _per_seed(results: Sequence[SeedResult]) -> dict[str, list[float]]:
    """Every per-seed number by key (L75 as its value or its censoring bound)."""
    out: dict[str, list[float]] = {}
    for r in results:
        for key, value in r.values.items():
            if value is not None and math.isfinite(value):
                out.setdefault(key, []).append(float(value))
        for key, rec in r.l75.items():
            value = rec["value"] if rec.get("censored") == "none" else rec.get("bound")
            if value is not None and math.isfinite(value):
                out.setdefault(key, []).append(float(value))
    return out


def twin_means(untrained: Sequence[SeedResult]) -> dict[str, float]:
    """Mean over seeds of every defined per-seed number of the untrained twins (shown beside the
    audit; a key absent here is one the twins cannot measure, e.g. an AUROC with one class)."""
    return {key: float(np.mean(values)) for key, values in sorted(_per_seed(untrained).items())}


def equivalent(a: Sequence[float], b: Sequence[float], z: float = Z) -> tuple[bool, float, float, float]:
    """Are two samples' means demonstrably the same (an equivalence test)?

    True when the interval ``|mean_a - mean_b| +/- z SE`` lies inside the margin
    ``max(MARGIN_ABS, MARGIN_REL * max(|mean_a|, |mean_b|))``, or the means are equal
    (constants have no spread). A large standard error therefore never makes two
    samples "the same". Returns ``(same, mean_a, mean_b, standard error)``.

    >>> equivalent([0.5, 0.5], [0.5])[0], equivalent([0.9, 0.92], [0.1, 0.12])[0]
    (True, False)
    >>> equivalent([-9000.0, 3000.0], [0.4, 0.5])[0]  # too noisy to tell: not the same
    False
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    var_a = a.var(ddof=1) if a.size > 1 else 0.0
    var_b = b.var(ddof=1) if b.size > 1 else 0.0
    se = math.sqrt(var_a / a.size + var_b / b.size)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    diff = abs(mean_a - mean_b)
    margin = max(MARGIN_ABS, MARGIN_REL * max(abs(mean_a), abs(mean_b)))
    return bool(diff <= 1e-9 or diff + z * se <= margin), mean_a, mean_b, se


def audit(trained: Sequence[SeedResult], untrained: Sequence[SeedResult],
          closed_forms: Mapping[str, float] | None = None) -> dict[str, dict]:
    """Apply both rules to every per-seed key; return the keys found fixed, with the evidence.

    Parameters
    ----------
    trained, untrained : per-seed results of the same pipelines, trained and untrained agents
    closed_forms : ``{key: ideal-agent value}`` for keys with a closed form (E2 capacities)

    Returns
    -------
    dict
        ``{key: {"rule": "untrained" | "closed form", "ours": mean, "reference": value,
        "se": standard error, "reason": the sentence for the claim}}`` for every key flagged.
    """
    ours = _per_seed(trained)
    twin = _per_seed(untrained)
    found: dict[str, dict] = {**relative(trained, untrained), **empty_bus(trained)}
    for key, values in ours.items():
        if key in found:
            continue
        if key in twin:
            same, mean, reference, se = equivalent(values, twin[key])
            if same:
                found[key] = {"rule": "untrained", "ours": mean, "reference": reference, "se": se}
                found[key]["reason"] = reason(found[key])
                continue
        closed = (closed_forms or {}).get(key)
        if closed is not None and math.isfinite(closed):
            arr = np.asarray(values)
            se = float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else 0.0
            if abs(arr.mean() - closed) <= max(CLOSED_FORM_TOLERANCE, Z * se):
                found[key] = {"rule": "closed form", "ours": float(arr.mean()), "reference": float(closed), "se": se}
                found[key]["reason"] = reason(found[key])
    return found


RELATIVE_TRIALS: dict[str, tuple[str, tuple[str, ...]]] = {
    "e1_trials": ("self_on", ()),
    "e4_trials": ("self_on", ("arm",)),
}
"""Trial files checked by the relative rule: the reference condition and the columns that name
a group (E4's arm) besides seed; a condition equal to the reference flags ``<exp>.accuracy[.<group>].<condition>``."""
DECISION_COLUMNS = ("decision", "correct")
"""What must be equal, trial by trial, for a condition's choices to be the reference's."""
EMPTY_BUS_CHECKS = ("e2.check.bus_empty.", "e2.check.trunk_cue_free.")
"""Per-seed indicators (1.0 = holds on every trial) that ``e2.run_seed`` records for each capacity
scale; both must hold on every seed for the empty-bus rule."""
EMPTY_BUS_KEYS = ("e2.dnrs.scale_", "e2.dnrs_secondary.scale_")
"""The decoding values the empty-bus rule applies to (followed by the scale's key)."""


def _condition_tables(results: Sequence[SeedResult], stem: str,
                      groups: tuple[str, ...]) -> dict[tuple, dict[str, list[tuple]]]:
    """``{(experiment, seed, *group values): {condition: [(decision, correct) per trial]}}``."""
    tables: dict[tuple, dict[str, list[tuple]]] = {}
    for r in results:
        for row in r.rows.get(stem, []):
            key = (r.experiment, r.seed, *(row[g] for g in groups))
            tables.setdefault(key, {}).setdefault(row["condition"], []).append(
                (row["trial"], *(row[c] for c in DECISION_COLUMNS)))
    return tables


def _confidences(results: Sequence[SeedResult], stem: str, groups: tuple[str, ...]) -> dict[tuple, dict[str, list]]:
    """``{(experiment, seed, *group values): {condition: [(trial, confidence)] sorted by trial}}``."""
    out: dict[tuple, dict[str, list]] = {}
    for r in results:
        for row in r.rows.get(stem, []):
            if row.get("confidence") is not None:
                key = (r.experiment, r.seed, *(row[g] for g in groups))
                out.setdefault(key, {}).setdefault(row["condition"], []).append((row["trial"], row["confidence"]))
    return {k: {c: sorted(v) for c, v in conds.items()} for k, conds in out.items()}


def _reassigned(results: Sequence[SeedResult], stem: str, reference: str, groups: tuple[str, ...]) -> dict[tuple, bool]:
    """For each (experiment, group..., condition): are its confidences the reference's reassigned across
    trials (the same multiset of varying values on every seed) rather than the reference's trial by trial?"""
    verdict: dict[tuple, bool] = {}
    for key, conditions in _confidences(results, stem, groups).items():
        ref = conditions.get(reference, [])
        ref_values = sorted(c for _, c in ref)
        for condition, pairs in conditions.items():
            if condition == reference:
                continue
            values = sorted(c for _, c in pairs)
            same = bool(ref) and values == ref_values and len(set(ref_values)) > 1 and pairs != ref
            name = (key[0], *key[2:], condition)
            verdict[name] = verdict.get(name, True) and same
    return verdict


def _equal_to_reference(results: Sequence[SeedResult], stem: str, reference: str,
                        groups: tuple[str, ...]) -> dict[tuple, bool]:
    """For each (experiment, group..., condition): are its decisions the reference's on every trial
    of every seed? A seed without that condition or reference counts against."""
    verdict: dict[tuple, bool] = {}
    for key, conditions in _condition_tables(results, stem, groups).items():
        ref = sorted(conditions.get(reference, []))
        for condition, trials in conditions.items():
            if condition == reference:
                continue
            same = bool(ref) and sorted(trials) == ref
            name = (key[0], *key[2:], condition)
            verdict[name] = verdict.get(name, True) and same
    return verdict


def relative(trained: Sequence[SeedResult], untrained: Sequence[SeedResult]) -> dict[str, dict]:
    """Rule 3: conditions whose choices equal the reference's on every trial, trained and untrained.

    Returns ``{key: entry}`` like :func:`audit` (``rule`` "relative"), for the accuracy key of each
    such condition.

    >>> rows = lambda d: [{"condition": c, "trial": 0, "decision": d, "correct": 1} for c in ("self_on", "self_off")]
    >>> r = [SeedResult("e1", 0, values={"e1.accuracy.self_off": 1.0}, rows={"e1_trials": rows(1)})]
    >>> sorted(relative(r, r))
    ['e1.accuracy.self_off']
    """
    found: dict[str, dict] = {}
    values = _per_seed(trained)
    for stem, (reference, groups) in RELATIVE_TRIALS.items():
        ours = _equal_to_reference(trained, stem, reference, groups)
        twins = _equal_to_reference(untrained, stem, reference, groups)
        for name, same in ours.items():
            if not (same and twins.get(name)):
                continue
            key = ".".join((name[0], "accuracy", *map(str, name[1:])))
            if key not in values:
                continue
            ref_key = ".".join((name[0], "accuracy", *map(str, name[1:-1]), reference))
            found[key] = {"rule": "relative", "ours": float(np.mean(values[key])),
                          "reference": float(np.mean(values.get(ref_key, values[key]))), "se": 0.0,
                          "condition": name[-1], "reference_condition": reference}
            found[key]["reason"] = reason(found[key])
        ours = _reassigned(trained, stem, reference, groups)
        twins = _reassigned(untrained, stem, reference, groups)
        for name, same in ours.items():
            key = ".".join((name[0], "auroc", *map(str, name[1:])))
            if same and twins.get(name) and key in values:
                found[key] = {"rule": "relative", "ours": float(np.mean(values[key])), "reference": 0.5, "se": 0.0,
                              "condition": name[-1], "reference_condition": reference, "reassigned": True}
                found[key]["reason"] = reason(found[key])
    return found


def empty_bus(trained: Sequence[SeedResult]) -> dict[str, dict]:
    """Rule 4: decoding values read from an empty bus whose other features ignore the cue.

    >>> v = {"e2.check.bus_empty.0": 1.0, "e2.check.trunk_cue_free.0": 1.0, "e2.dnrs.scale_0": 0.01}
    >>> sorted(empty_bus([SeedResult("e2", 0, values=v)]))
    ['e2.dnrs.scale_0']
    """
    values = _per_seed(trained)
    n_seeds = len({r.seed for r in trained if r.experiment == "e2"})
    found: dict[str, dict] = {}
    scales = {k[len(EMPTY_BUS_CHECKS[0]):] for k in values if k.startswith(EMPTY_BUS_CHECKS[0])}
    for scale in sorted(scales):
        checks = [values.get(prefix + scale, []) for prefix in EMPTY_BUS_CHECKS]
        if not all(len(c) == n_seeds and all(x == 1.0 for x in c) for c in checks):
            continue
        for prefix in EMPTY_BUS_KEYS:
            key = prefix + scale
            if key in values:
                found[key] = {"rule": "empty bus", "ours": float(np.mean(values[key])), "reference": 0.0, "se": 0.0}
                found[key]["reason"] = reason(found[key])
    return found


def reason(entry: Mapping[str, float | str]) -> str:
    """The sentence a flagged claim's reason gets."""
    if entry["rule"] == "relative" and entry.get("reassigned"):
        return (f"The {entry['condition']} condition's confidences are the {entry['reference_condition']} "
                "condition's own values reassigned across trials (the same values on every seed, in the trained "
                "agents and in untrained agents of the same wiring): a confidence shuffled across trials has "
                f"Type-2 AUROC 0.5 in expectation, whatever the agent learned (ours {entry['ours']:.3g}).")
    if entry["rule"] == "relative":
        return (f"The {entry['condition']} condition's choices equal the {entry['reference_condition']} condition's "
                "on every trial of every seed, in the trained agents and in untrained agents of the same wiring "
                f"(ours {entry['ours']:.3g} both ways): the wiring routes around this lesion, so it cannot change "
                "a choice.")
    if entry["rule"] == "empty bus":
        return (f"Every workspace slot the decoder reads is zero on every trial, and the rest of what it reads "
                f"(the trunk's state) is the same bit for bit when the cues are replaced (ours {entry['ours']:.3g}): "
                "nothing it reads depends on the cue, so the score is chance by construction.")
    if entry["rule"] == "untrained":
        return (f"An untrained agent of the same wiring gives {entry['reference']:.3g} (ours {entry['ours']:.3g}): "
                "the design fixes this value, training does not.")
    return (f"An ideal agent with the same access to the cues scores {entry['reference']:.3g} here, by the "
            f"workspace's allocation rule and the task alone (ours {entry['ours']:.3g}): the design fixes this value.")
