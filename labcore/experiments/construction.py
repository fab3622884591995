"""Which of our numbers are fixed by the design rather than learned: the construction audit.

The rules (untrained twin, ceiling, relative, empty bus, identical arms) are docs/verdicts.md's
"By construction" and protocol sec. 10.
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
CEILING_Z = 1.96
"""The ceiling rule's range: the ideal agent's mean +/- this many of its standard errors (95%)."""
CEILING_TOLERANCE = 0.01
"""Where the ideal agent scores 1.0 (nothing lost), a seed mean within this of 1.0 is at it."""
CALIBRATION_TOLERANCE = 0.03
"""Protocol sec. 10.2: an E1 accuracy within this of the ideal observer's is calibrated."""
ROUNDING_ULPS = 4
"""Two confidences within this many float32 units (of the larger one) are the same value (protocol
sec. 10.13): matrix kernels round a row differently at another place of a large batch, by one or
two units (the last 8 of 600 rows, 600 = 37 x 16 + 8, the vector kernel's remainder, of a zeroed
self-model's constant confidence came out one unit apart: seeds20, seed 5). Values that differ by
more are different values, however small (a saturated confidence a dozen units below 1)."""


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


def equivalent(
    a: Sequence[float], b: Sequence[float], z: float = Z, *, separated: bool = True
) -> tuple[bool, float, float, float]:
    """Are two samples' means demonstrably the same (an equivalence test)?

    >>> equivalent([0.5, 0.5], [0.5])[0], equivalent([0.9, 0.92], [0.1, 0.12])[0]
    (True, False)
    >>> equivalent([-9000.0, 3000.0], [0.4, 0.5])[0]  # too noisy to tell: not the same
    False
    >>> a0, twin = [0.43, 0.44, 0.45, 0.46, 0.47], [0.50, 0.51, 0.52, 0.53, 0.54]
    >>> equivalent(a0, twin)[0], equivalent(a0, twin, separated=False)[0]  # within 20%, t 7
    (False, True)
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    var_a = a.var(ddof=1) if a.size > 1 else 0.0
    var_b = b.var(ddof=1) if b.size > 1 else 0.0
    se = math.sqrt(var_a / a.size + var_b / b.size)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    diff = abs(mean_a - mean_b)
    margin = max(MARGIN_ABS, MARGIN_REL * max(abs(mean_a), abs(mean_b)))
    same = diff + z * se <= margin and (not separated or diff < z * se)
    return bool(diff <= 1e-9 or same), mean_a, mean_b, se


def audit(
    trained: Sequence[SeedResult],
    untrained: Sequence[SeedResult],
    ideals: Mapping[str, tuple[float, float]] | None = None,
    contrast_arms: Mapping[str, tuple[str, str]] | None = None,
    arms: Mapping[str, Sequence[str]] | None = None,
    *,
    wiring: bool = True,
    separated: bool = True,
) -> dict[str, dict]:
    """Apply the rules to every per-seed key; return the keys found fixed, with the evidence.

    Parameters
    ----------
    trained, untrained : per-seed results of the same pipelines, trained and untrained agents
    ideals : ``{key: (mean, variance of the mean)}`` of the ideal agent on the same episodes
        (``e2.ideal_values``, ``e1.ideal_values``)
    contrast_arms : ``{contrast key: (arm a, arm b)}`` (E2's seed-level tests)
    arms : ``{key: the keys it is compared with}`` (the identical-arms rule; none: not applied)
    wiring : apply the relative and empty-bus rules (rules 3 and 4)
    separated : the equivalence test's t condition (:func:`equivalent`)

    Returns
    -------
    dict
        ``{key: {"rule": <a labcore.findings.ConstructionRule>,
        "ours": mean, "reference": value, "se": standard error}}`` for every key flagged (the
        relative rule adds ``condition``, ``reference_condition`` and ``reassigned``; the ceiling
        rule ``low`` and ``high``, its range; the contrast and identical rules ``arms``).
    """
    ours = _per_seed(trained)
    twin = _per_seed(untrained)
    found: dict[str, dict] = (
        {**relative(trained, untrained), **empty_bus(trained)} if wiring else {}
    )
    for key, values in ours.items():
        if key in found or ".check." in key:  # the rules' own records are not values to audit
            continue
        if key in twin:
            same, mean, reference, se = equivalent(values, twin[key], separated=separated)
            if same:
                found[key] = {"rule": "untrained", "ours": mean, "reference": reference, "se": se}
    for key, entry in ceiling(trained, ideals or {}).items():
        found.setdefault(key, entry)
    for key, entry in identical(trained, untrained, arms or {}).items():
        found.setdefault(key, entry)
    for key, arms in (contrast_arms or {}).items():
        if key not in found and all(a in found for a in arms):
            found[key] = {
                "rule": "contrast",
                "ours": None,
                "reference": None,
                "se": 0.0,
                "arms": arms,
            }
    return found


def ceiling(
    trained: Sequence[SeedResult], ideals: Mapping[str, tuple[float, float]]
) -> dict[str, dict]:
    """Rule 2 (protocol sec. 10.1, 10.7): seed means within the ideal agent's 95% range on the
    same episodes, or within :data:`CEILING_TOLERANCE` of its value where that value is exact
    (variance 0: 1.0 with nothing lost, 0 opt-outs).

    >>> v = {"e2.conjunction.k2": 0.45, "e2.conjunction.k4": 1.0, "e1.skip.self_on": 0.008}
    >>> sorted(ceiling([SeedResult("e2", 0, values=v)],
    ...                {"e2.conjunction.k2": (0.43, 0.0004), "e2.conjunction.k4": (1.0, 0.0),
    ...                 "e1.skip.self_on": (0.0, 0.0)}))
    ['e1.skip.self_on', 'e2.conjunction.k2', 'e2.conjunction.k4']
    """
    ours = _per_seed(trained)
    found: dict[str, dict] = {}
    for key, (ideal, variance) in ideals.items():
        if key not in ours:
            continue
        mean = float(np.mean(ours[key]))
        se = math.sqrt(max(variance, 0.0))
        low, high = max(0.0, ideal - CEILING_Z * se), min(1.0, ideal + CEILING_Z * se)
        exact = se == 0.0 and abs(mean - ideal) <= CEILING_TOLERANCE
        if exact or low <= mean <= high:
            found[key] = {
                "rule": "ceiling",
                "ours": mean,
                "reference": ideal,
                "se": se,
                "low": low,
                "high": high,
            }
    return found


def identical(
    trained: Sequence[SeedResult],
    untrained: Sequence[SeedResult],
    arms: Mapping[str, Sequence[str]],
) -> dict[str, dict]:
    """Rule 5 (protocol sec. 10.11): a key equal to every key it is compared with, on every seed,
    trained and untrained (both measured on every seed).

    >>> v = {"ign.k4": 0.4996, "ign.k2": 0.4996, "acc.k4": 1.0, "acc.k2": 0.7}
    >>> t = {"ign.k4": 0.4998, "ign.k2": 0.4998, "acc.k4": 0.1, "acc.k2": 0.1}
    >>> sorted(identical([SeedResult("e2", 0, values=v)], [SeedResult("e2", 0, values=t)],
    ...                  {"ign.k4": ["ign.k2"], "acc.k4": ["acc.k2"]}))
    ['ign.k4']
    """

    def same(results: Sequence[SeedResult], key: str, others: Sequence[str]) -> bool:
        rows = [r.values for r in results if key in r.values]
        return bool(rows) and all(
            math.isfinite(v[key]) and all(o in v and v[o] == v[key] for o in others) for v in rows
        )

    found: dict[str, dict] = {}
    for key, others in arms.items():
        if others and untrained and same(trained, key, others) and same(untrained, key, others):
            mean = float(np.mean([r.values[key] for r in trained if key in r.values]))
            found[key] = {
                "rule": "identical arms",
                "ours": mean,
                "reference": mean,
                "se": 0.0,
                "arms": tuple(others),
            }
    return found


def constant_within_rounding(confidences: Sequence[float]) -> bool:
    """Protocol sec. 10.13: are a condition's confidences one value to within float32 rounding
    (all within :data:`ROUNDING_ULPS` float32 units of the largest)? Then its Type-2 AUROC is 0.5
    by construction: every pair is a tie.

    >>> constant_within_rounding([0.4909055, 0.49090543]), constant_within_rounding([0.4, 0.6])
    (True, False)
    >>> constant_within_rounding([0.99998796, 0.9999888])  # 14 units apart: two values
    False
    """
    values = np.asarray([c for c in confidences if c is not None and math.isfinite(c)], float)
    if values.size == 0:
        return False
    unit = float(np.spacing(np.float32(np.abs(values).max())))
    return float(values.max() - values.min()) <= ROUNDING_ULPS * unit


def censored_alike(summaries: Sequence[Mapping]) -> float | None:
    """Protocol sec. 10.8: the bound at which every summary (a claim's and its arms') is censored
    the same way, or None (then something is compared).

    >>> right = {"censored": "right", "bound": 0.5}
    >>> censored_alike([right, right]), censored_alike([right, {"censored": None, "mean": 0.3}])
    (0.5, None)
    """
    kinds = {(s.get("censored"), s.get("bound")) for s in summaries}
    if len(kinds) != 1:
        return None
    ((side, bound),) = kinds
    return bound if side in ("right", "left") and bound is not None else None


def calibrated(value: float | None, ideal_accuracy: float) -> bool:
    """Protocol sec. 10.2: is an E1 accuracy within :data:`CALIBRATION_TOLERANCE` of the ideal
    observer's, which the task's stimulus noise was tuned to?

    >>> calibrated(0.856, 0.859), calibrated(0.70, 0.859), calibrated(None, 0.859)
    (True, False, False)
    """
    return value is not None and abs(value - ideal_accuracy) <= CALIBRATION_TOLERANCE


def out_of_reach(paper_bound: float | None, ceiling_value: float | None) -> bool:
    """Protocol sec. 10.3 (a): is a paper value "> bound" beyond what an ideal observer of our
    design reaches (its ceiling below the bound)?

    >>> out_of_reach(0.5, 0.375), out_of_reach(0.5, 2.08), out_of_reach(None, 0.375)
    (True, False, False)
    """
    return paper_bound is not None and ceiling_value is not None and ceiling_value < paper_bound


def nothing_to_predict(gaps_by_kind: Mapping[str, Sequence[float]]) -> bool:
    """Protocol sec. 10.3 (b): is the composite's target (the OOD gap) exactly 0 on every seed of
    more than half of the agent kinds?

    >>> nothing_to_predict({"a": [0.0, 0.0], "b": [0.0], "c": [0.1, 0.0]})
    True
    """
    zero = sum(1 for gaps in gaps_by_kind.values() if gaps and all(g == 0.0 for g in gaps))
    return zero > len(gaps_by_kind) / 2


RELATIVE_CHECKS: dict[str, str] = {"actions_equal": "accuracy", "confidence_reassigned": "auroc"}
"""The relative rule's records (``e1.relative_checks``: ``<exp>.check.<check>.<rest>``) and the
value each fixes (``<exp>.<value>.<rest>``): choices equal to the intact agent's fix its accuracy;
confidences reassigned across episodes fix its Type-2 AUROC at chance in expectation."""


def _checks_hold(results: Sequence[SeedResult]) -> dict[tuple[str, str, str], bool]:
    """``{(experiment, check, rest): held on every seed}`` from the per-seed check values."""
    held: dict[tuple[str, str, str], bool] = {}
    for r in results:
        for key, value in r.values.items():
            parts = key.split(".", 3)
            if len(parts) == 4 and parts[1] == "check" and parts[2] in RELATIVE_CHECKS:
                name = (parts[0], parts[2], parts[3])
                held[name] = held.get(name, True) and value == 1.0
    return held


def relative(trained: Sequence[SeedResult], untrained: Sequence[SeedResult]) -> dict[str, dict]:
    """Rule 3: conditions whose choices equal, or whose confidences reassign, the intact agent's, on
    every seed, trained and untrained (the wiring, not training, makes it so).

    >>> checks = {"e1.check.actions_equal.self_off": 1.0, "e1.accuracy.self_off": 0.8,
    ...           "e1.accuracy.self_on": 0.8}
    >>> sorted(relative([SeedResult("e1", 0, values=checks)], [SeedResult("e1", 0, values=checks)]))
    ['e1.accuracy.self_off']
    """
    values = _per_seed(trained)
    twins = _checks_hold(untrained)
    found: dict[str, dict] = {}
    for (experiment, check, rest), held in _checks_hold(trained).items():
        key = f"{experiment}.{RELATIVE_CHECKS[check]}.{rest}"
        # Equal actions need the twins too (a trained policy could learn to ignore z_self); an exact
        # reassignment of every episode's confidence at every step does not: only a head that reads
        # nothing but the shuffled z_self gives it (untrained twins' confidences are often
        # constant).
        wired = check == "confidence_reassigned" or twins.get((experiment, check, rest))
        if not (held and wired) or key not in values:
            continue
        condition = rest.rsplit(".", 1)[-1]
        prefix = rest.rsplit(".", 1)[0] + "." if "." in rest else ""
        reference_key = f"{experiment}.{RELATIVE_CHECKS[check]}.{prefix}self_on"
        found[key] = {
            "rule": "relative",
            "ours": float(np.mean(values[key])),
            "reference": float(np.mean(values.get(reference_key, values[key])))
            if check == "actions_equal"
            else 0.5,
            "se": 0.0,
            "condition": condition,
            "reference_condition": "self_on",
            "reassigned": check == "confidence_reassigned",
        }
    return found


EMPTY_BUS_CHECKS = ("e2.check.bus_empty.", "e2.check.trunk_cue_free.")
"""Per-seed indicators (1.0 = holds on every trial) that ``e2.run_seed`` records for each capacity
scale; both must hold on every seed for the empty-bus rule."""
EMPTY_BUS_KEYS = ("e2.dnrs.scale_", "e2.dnrs_secondary.scale_")
"""The decoding values the empty-bus rule applies to (followed by the scale's key)."""


def empty_bus(trained: Sequence[SeedResult]) -> dict[str, dict]:
    """Rule 4: decoding values read from an empty bus whose other features ignore the cue.

    >>> v = {"e2.check.bus_empty.0": 1.0, "e2.check.trunk_cue_free.0": 1.0, "e2.dnrs.scale_0": 0.01}
    >>> sorted(empty_bus([SeedResult("e2", 0, values=v)]))
    ['e2.dnrs.scale_0']
    """
    values = _per_seed(trained)
    n_seeds = len({r.seed for r in trained if r.experiment == "e2"})
    found: dict[str, dict] = {}
    scales = {k[len(EMPTY_BUS_CHECKS[0]) :] for k in values if k.startswith(EMPTY_BUS_CHECKS[0])}
    for scale in sorted(scales):
        checks = [values.get(prefix + scale, []) for prefix in EMPTY_BUS_CHECKS]
        if not all(len(c) == n_seeds and all(x == 1.0 for x in c) for c in checks):
            continue
        for prefix in EMPTY_BUS_KEYS:
            key = prefix + scale
            if key in values:
                found[key] = {
                    "rule": "empty bus",
                    "ours": float(np.mean(values[key])),
                    "reference": 0.0,
                    "se": 0.0,
                }
    return found
