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

Claims flagged by either rule are counted apart from evidence, and their reason says which
rule and with what numbers.
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
    found: dict[str, dict] = {}
    for key, values in ours.items():
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


def reason(entry: Mapping[str, float | str]) -> str:
    """The sentence a flagged claim's reason gets."""
    if entry["rule"] == "untrained":
        return (f"An untrained agent of the same wiring gives {entry['reference']:.3g} (ours {entry['ours']:.3g}): "
                "the design fixes this value, training does not.")
    return (f"An ideal agent with the same access to the cues scores {entry['reference']:.3g} here, by the "
            f"workspace's allocation rule and the task alone (ours {entry['ours']:.3g}): the design fixes this value.")
