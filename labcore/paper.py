"""How our numbers are compared with the paper's: what a claim says, and the pre-registered
verdict rules.

The claims themselves are tables of their own: the paper's reported numbers in
:mod:`labcore.paper_claims` (with the claim ids and the condition a page shows), E4's claims,
which have no paper number, in :mod:`labcore.e4_claims`.

Used only for side-by-side display and for verdicts; no pipeline reads a paper number to
decide anything else. Each :class:`ClaimSpec` fixes, before any experiment result was seen,
how our number is compared with the paper's (``docs/verdicts.md`` is generated from the
table of :mod:`labcore.paper_claims`; a test keeps the two in step):

1. ``not_comparable`` set: verdict "not comparable", with that reason.
2. Our value undefined (nan, no seeds): "not comparable".
3. **Numeric match** -> "reproduced": the paper's value lies in our 95% bootstrap CI over seeds,
   or within ``tolerance`` of our mean. For a paper bound ("> 0.50", censored L75), ours
   matches when our summary is censored beyond the same bound or its value exceeds it.
4. Otherwise, the **pattern** (``pattern``, a predicate over our claim values, e.g. "B1's L75
   below B2's") holds -> "partly reproduced".
5. Otherwise "not reproduced".

``by_construction`` marks claims whose value our design fixes in advance (e.g. a constant
confidence gives AUROC 0.5 exactly); the claim's finding carries it as a flag
(:mod:`labcore.experiments.paper_findings`), its words are :mod:`labcore.render`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from labcore.findings import VERDICTS, PaperValue

Values = dict[str, float]
NEW = VERDICTS[-1]
"""``"new (no paper number)"``: the verdict of a claim the paper has no number for (E4, issue 15):
nothing to reproduce; the pre-registered hypothesis it tests (``ClaimSpec.hypothesis``,
docs/protocol.md sec. 8.5) is tested instead (``labcore.experiments.e4_hypotheses``)."""


def paper_value(
    value: float | None,
    sd: float | None = None,
    n: int | None = None,
    bound: str | None = None,
    section: str = "",
) -> PaperValue:
    """A number as the paper reports it (:class:`labcore.findings.PaperValue`), written the way the
    claims table writes it: ``paper_value(0.885, 0.040, 20, section="5.1.2")``; ``bound=">"`` for a
    censored report such as L75 "> 0.50" (then ``value`` is the bound).

    >>> paper_value(0.5, bound=">").bound
    '>'
    """
    return PaperValue(value=value, sd=sd, n=n, bound=bound, section=section)


@dataclass(frozen=True)
class ClaimSpec:
    """How one of the paper's claims is compared with ours (rules in the module docstring)."""

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


PAPER_INCONSISTENCIES: tuple[str, ...] = (
    "Sec. 5.2.2 / Fig. 2b: conjunction accuracy at 4 slots (99.5%) exceeds "
    "report-window decision accuracy "
    "(89.2%); a conjunction needs both reports correct, so it cannot exceed the mean "
    "report accuracy.",
    (
        "Fig. 2a gives full vs half capacity as p < 1e-16, g = 9.70; sec. 6.1 gives p < "
        "1e-4, g = 1.65."
    ),
    "Sec. 5.1.2 reports self-removed AUROC 'exactly 0.50 for all seeds' while the confidence is "
    "'near-constant (0.54 +/- 0.02)': an exactly constant output gives exactly 0.5, a "
    "near-constant one need not.",
    "Sec. 5.3.2 reports the full composite's in-sample Pearson r as about 0.79, which "
    "implies R^2 of about 0.62, "
    "but gives the same model's total R^2 as about 0.37.",
)


UNDEFINED_REASON = "our value is undefined for these data (see the experiment notes)"
"""Why a value is undefined, for a claim whose specification gives no reason of its own."""


def verdict(spec: ClaimSpec, ours: Mapping[str, Any], values: Values) -> tuple[str, str]:
    """Apply the pre-registered rule to one claim. Returns ``(verdict, rule)``.

    ``rule`` names the branch that decided (:data:`labcore.findings.VerdictRule`; its words are
    :data:`labcore.render.VERDICT_RULES`): ``new`` (no paper number), ``stated`` (not comparable
    as the table states), ``undefined`` (our value is), ``ci`` / ``tolerance`` / ``bound`` (the
    numbers match), ``contrast`` (they match but the contrast's other arm fails), ``pattern`` (only
    the pattern holds), ``mismatch`` (nothing holds).

    ``ours`` has ``mean``, ``sd``, ``n``, ``ci95`` and, for censored summaries, ``censored``
    (``"right"``) and ``bound``. ``values`` maps every claim id to our mean (for patterns).

    >>> spec = ClaimSpec("x", "toy", paper_value(0.5), tolerance=0.05)
    >>> verdict(spec, {"mean": 0.52, "n": 5, "ci95": [0.51, 0.53]}, {})
    ('reproduced', 'tolerance')
    >>> verdict(spec, {"mean": 0.6, "n": 5, "ci95": [0.4, 0.8]}, {})
    ('reproduced', 'ci')
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
        matched, branch = within or in_ci, "ci" if in_ci else "tolerance"
    if matched and spec.contrast_check is not None and not spec.contrast_check(values):
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
