"""How our numbers are compared with the paper's: what a claim says, the verdict rules and the
date of every rule.

Rules 1-5, written before any result (docs/verdicts.md): 1. ``not_comparable`` set, or 2. our value
undefined: "not comparable"; 3. the paper's value in our 95% CI, within ``tolerance`` of our mean,
or beyond the same censoring bound: "reproduced"; 4. else the ``pattern`` holds: "partly
reproduced"; 5. else "not reproduced". :data:`RULES` lists every rule added since, with its date.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from labcore.findings import VERDICTS, PaperValue

Values = dict[str, float]
REGISTERED = "registered"
"""The id of the rules written before any result (docs/verdicts.md rules 1-5 and the claims
table's declared reasons): the first entry of :data:`RULES`."""
NEW = VERDICTS[-1]
"""``"new (no paper number)"``: the verdict of a claim the paper has no number for (E4):
nothing to reproduce; the pre-registered hypothesis it tests (``ClaimSpec.hypothesis``,
docs/protocol.md sec. 8.5) is tested instead (``labcore.experiments.e4_hypotheses``)."""


@dataclass(frozen=True)
class ClaimSpec:
    """How one of the paper's claims is compared with ours (the rules: the module docstring)."""

    id: str
    description: str
    paper: PaperValue
    tolerance: float | None = None
    pattern: str | None = None
    """The qualitative pattern in words (checked by ``check``)."""
    check: Callable[[Values], bool] | None = None
    by_construction: str | None = None
    not_comparable: str | None = None
    contrast: str | None = None
    """The other arm of a paired claim, in words: a matching value counts as "reproduced" only
    if this contrast holds too (checked by ``contrast_check``); otherwise "partly reproduced"."""
    contrast_check: Callable[[Values], bool] | None = None
    undefined_reason: str | None = None
    """Why our value can be undefined for this claim (said instead of the generic sentence)."""
    hypothesis: str | None = None
    """The pre-registered hypothesis (docs/protocol.md sec. 8.5, e.g. "H1") a new claim tests."""
    arms: tuple[str, ...] = ()
    """The other values the claim's contrast or pattern compares it with (claim ids or value
    keys), for the rules that read a comparison: arms all censored at one bound (nothing is
    compared), arms identical to it by the wiring (no difference can appear)."""
    group: str | None = None
    """The finding it restates, where several claims restate one (:data:`GROUPS` of
    :mod:`labcore.paper_claims`): the evidence counts count the group once."""
    declared_by: str = REGISTERED
    """The rule (:data:`RULES`) under which ``by_construction`` was declared: the history of the
    counts applies the declaration from that rule on."""


PAPER_INCONSISTENCIES: tuple[str, ...] = (
    "Sec. 5.2.2 / Fig. 2b: conjunction accuracy at 4 slots (99.5%) exceeds report-window "
    "decision accuracy (89.2%); a conjunction needs both reports correct, so it cannot "
    "exceed the mean report accuracy.",
    "Fig. 2a gives full vs half capacity as p < 1e-16, g = 9.70; sec. 6.1 gives p < 1e-4, "
    "g = 1.65.",
    "Sec. 5.1.2 reports self-removed AUROC 'exactly 0.50 for all seeds' while the confidence "
    "is 'near-constant (0.54 +/- 0.02)': an exactly constant output gives exactly 0.5, a "
    "near-constant one need not.",
    "Sec. 5.3.2 reports the full composite's in-sample Pearson r as about 0.79, which "
    "implies R^2 of about 0.62, but gives the same model's total R^2 as about 0.37.",
)


@dataclass(frozen=True)
class Rule:
    """A rule that decides a verdict or whether a claim counts as evidence, with its date."""

    id: str
    date: str
    """When it was written (ISO date)."""
    after_results: bool
    """Written after the bundled results were known (every rule but the first)."""
    where: str
    """Where it is registered (docs/verdicts.md, a docs/protocol.md section)."""


RULES: tuple[Rule, ...] = (
    Rule(REGISTERED, "2026-11-22", False, "docs/verdicts.md rules 1-5"),
    Rule("audit", "2026-11-23", True, "docs/verdicts.md 'Added 2026-11-23'"),
    Rule("paired", "2026-11-23", True, "docs/verdicts.md 'Added 2026-11-23'"),
    Rule("relative", "2026-11-24", True, "docs/verdicts.md 'Changes after results'"),
    Rule("ceiling", "2026-11-26", True, "protocol sec. 10.1"),
    Rule("calibrated", "2026-11-26", True, "protocol sec. 10.2"),
    Rule("out_of_reach", "2026-11-26", True, "protocol sec. 10.3"),
    Rule("ceiling_everywhere", "2026-11-29", True, "protocol sec. 10.7"),
    Rule("censored_arms", "2026-11-29", True, "protocol sec. 10.8"),
    Rule("resolved", "2026-11-29", True, "protocol sec. 10.9"),
    Rule("separated", "2026-11-29", True, "protocol sec. 10.10"),
    Rule("identical_arms", "2026-11-29", True, "protocol sec. 10.11"),
    Rule("independent", "2026-11-29", True, "protocol sec. 10.12"),
)
"""Every rule that decides a verdict or the evidence counts, in the order it was added (the
words: ``labcore/templates/paper.j2``'s ``rule_names``). What each does:"""
RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES)
ALL_RULES: frozenset[str] = frozenset(RULE_IDS)


def rules_through(rule_id: str) -> frozenset[str]:
    """The rules in force once ``rule_id`` was added (it and every earlier one).

    >>> sorted(rules_through("paired"))
    ['audit', 'paired', 'registered']
    """
    return frozenset(RULE_IDS[: RULE_IDS.index(rule_id) + 1])


UNDEFINED_REASON = "our value is undefined for these data (see the experiment notes)"
"""Why a value is undefined, for a claim whose specification gives no reason of its own."""


def tolerance_applies(ours: Mapping[str, Any], paper: float, tolerance: float | None) -> bool:
    """Rule ``resolved`` (2026-11-29): may the tolerance reproduce a value our interval does not
    hold? Only when our 95% interval is at least as wide as the tolerance or there is none (one
    value across seeds): an interval narrower than the tolerance that excludes the paper's value
    has resolved the difference, and a resolved difference is not a reproduction.

    >>> tolerance_applies({"ci95": [1.36, 1.64]}, 2.0, 1.0)  # z_self's dimension: 1.5, not 2
    False
    >>> tolerance_applies({"ci95": [0.006, 0.044]}, 0.0, 0.03), tolerance_applies({}, 9.7, 3.0)
    (True, True)
    """
    ci = ours.get("ci95")
    if tolerance is None:
        return False
    if not ci or ci[0] is None or ci[1] is None:
        return True
    return ci[0] <= paper <= ci[1] or ci[1] - ci[0] >= tolerance


def verdict(
    spec: ClaimSpec,
    ours: Mapping[str, Any],
    values: Values,
    rules: frozenset[str] = ALL_RULES,
) -> tuple[str, str]:
    """Apply the verdict rules in force (``rules``, ids of :data:`RULES`; all by default) to one
    claim. Returns ``(verdict, rule)``, ``rule`` the branch that decided
    (:data:`labcore.findings.VerdictRule`). ``ours`` has ``mean``, ``sd``, ``n``, ``ci95`` and, if
    censored, ``censored`` and ``bound``; ``values`` maps every claim id to our mean (patterns).

    >>> spec = ClaimSpec("x", "toy", PaperValue(value=0.5), tolerance=0.05)
    >>> verdict(spec, {"mean": 0.52, "n": 5, "ci95": [0.49, 0.55]}, {})
    ('reproduced', 'ci')
    >>> verdict(spec, {"mean": 0.53, "n": 5, "ci95": [0.505, 0.56]}, {})
    ('reproduced', 'tolerance')
    >>> narrow = {"mean": 0.52, "n": 5, "ci95": [0.51, 0.53]}  # resolved: 0.52 is not 0.5
    >>> verdict(spec, narrow, {}), verdict(spec, narrow, {}, frozenset({"registered"}))
    (('not reproduced', 'mismatch'), ('reproduced', 'tolerance'))
    >>> verdict(spec, {"mean": None, "n": 0}, {})
    ('not comparable', 'undefined')
    """
    paper = spec.paper
    if paper.value is None:
        return NEW, "new"
    if spec.not_comparable:
        return "not comparable", "stated"
    mean = ours.get("mean")
    censored = ours.get("censored")
    if (
        ours.get("n", 0) == 0
        or (mean is None and not censored)
        or (mean is not None and math.isnan(mean))
    ):
        return "not comparable", "undefined"
    if paper.bound == ">":
        matched = (censored == "right" and ours["bound"] >= paper.value) or (
            mean is not None and mean > paper.value
        )
        branch = "bound"
    elif censored == "right":
        matched, branch = False, "mismatch"
    else:
        lo, hi = ours.get("ci95") or (math.nan, math.nan)
        in_ci = lo <= paper.value <= hi
        within = spec.tolerance is not None and abs(mean - paper.value) <= spec.tolerance
        if "resolved" in rules:
            within = within and tolerance_applies(ours, paper.value, spec.tolerance)
        matched, branch = within or in_ci, "ci" if in_ci else "tolerance"
    paired = "paired" in rules and spec.contrast_check is not None
    if matched and paired and not spec.contrast_check(values):
        return "partly reproduced", "contrast"
    if matched:
        return "reproduced", branch
    if spec.check is not None and spec.check(values):
        return "partly reproduced", "pattern"
    return "not reproduced", "mismatch"


def hypothesis_section(hypothesis: str | None) -> str:
    """The protocol section registering an E4 hypothesis: 8.5 (H1-H6) or 8.8.5 ("E4 again", R1-R4).

    >>> hypothesis_section("H1"), hypothesis_section("R2")
    ('8.5', '8.8.5')
    """
    return "8.8.5" if (hypothesis or "").startswith("R") else "8.5"
