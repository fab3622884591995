"""The Operational Self-Model Density rubric's rules, as pure functions over validated entries.

An :class:`ItemEntry` is one item as a rater enters it (validated on construction). The rules:
lower-of-two (A.9, §4.2: a score ``(k, k + 1)`` takes ``k``); anti-eloquence (behavioural <=
architectural + 1) and the LM-cap (+0 for :data:`LM_CAPPED` items), both lifted by operational
content (A.9, §4.3); a ±0/±1/±2 confidence range (§4.4); bands on the behavioural total (§6.4). A
capped score is lowered and the rule's id recorded in :attr:`ScoredItem.rules_applied`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    model_validator,
)
from pydantic.dataclasses import dataclass as validated_dataclass
from pydantic_core import PydanticCustomError

from labcore.checks import check_choice
from labcore.scorecards.documents import ITEM_IDS, OSMD

MAX_ITEM_SCORE = 3
MAX_TOTAL = MAX_ITEM_SCORE * len(ITEM_IDS)
NOT_ASSESSED = "not assessed"
"""The N/A reason of an item that had no entry at all (see :attr:`ScoredItem.assessed`)."""


def lm_flag(item_id: str) -> str:
    """An item's LM-vulnerability flag (Appendix A), the first word of its "LM-vuln" line.

    >>> lm_flag("HOT-3"), lm_flag("RPT-1")
    ('high', 'low')
    """
    return OSMD.items[item_id]["lm_vulnerability"].split()[0].rstrip(".")


LM_CAPPED = frozenset(
    [i for i in OSMD.items if lm_flag(i) == "high"] + list(OSMD.section_4_3_lm_vulnerable)
)
"""Items under the LM-cap rule: the union of A.9's "high" items and §4.3's list (the two differ;
AST-1 is capped "when not cross-checked", and the cross-check lifts the cap anyway)."""


# ----------------------------------------------------------------------------- the entry
def _known_item(item_id: str) -> str:
    if item_id not in OSMD.items:
        raise PydanticCustomError("unknown_item", "should be a rubric item id such as 'HOT-2'")
    return item_id


def _not_blank(text: str) -> str:
    if not text.strip():
        raise PydanticCustomError("blank", "should not be blank")
    return text


def _adjacent(pair: tuple[int, int]) -> tuple[int, int]:
    if pair[1] != pair[0] + 1:
        raise PydanticCustomError(
            "not_adjacent",
            "clauses {lower} and {upper} are not adjacent (a pair is k, k + 1, like [2, 3])",
            {"lower": pair[0], "upper": pair[1]},
        )
    return pair


def _clause_form(value: Any) -> str:
    return "pair" if isinstance(value, list | tuple) else "one"


NonBlank = Annotated[StrictStr, AfterValidator(_not_blank)]
"""Text that is not blank."""
Clause = Annotated[StrictInt, Field(ge=0, le=MAX_ITEM_SCORE)]
"""One clause, 0-3 (a bool or 2.0 is not one)."""
ClauseValue = Annotated[
    Annotated[Clause, Tag("one")]
    | Annotated[tuple[Clause, Clause], AfterValidator(_adjacent), Tag("pair")],
    Discriminator(_clause_form),
]
"""A clause, or two adjacent clauses ``(k, k + 1)`` ("between", the lower-of-two rule)."""
CLAUSE_TAGS = frozenset({"one", "pair"})
"""Location parts pydantic adds for :data:`ClauseValue`'s two forms."""


@validated_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class ItemEntry:
    """One item as entered, before the rules: scores (a clause or two adjacent ones), confidence
    ±0/±1/±2, whether operational content backs the behavioural score, evidence text; or a
    not-applicable reason and nothing else. A broken entry is a ``pydantic.ValidationError``.

    Examples
    --------
    >>> ItemEntry("HOT-2", 2, (2, 3)).behavioural
    (2, 3)
    >>> ItemEntry("AE-2", not_applicable_reason="simulator only").applicable
    False
    """

    item_id: Annotated[StrictStr, AfterValidator(_known_item)]
    architectural: ClauseValue | None = None
    behavioural: ClauseValue | None = None
    confidence: Annotated[StrictInt, Field(ge=0, le=max(OSMD.allowed_confidences))] = 0
    operational_evidence: StrictBool = False
    evidence: StrictStr = ""
    not_applicable_reason: NonBlank | None = None

    @model_validator(mode="after")
    def _scored_or_not_applicable(self) -> ItemEntry:
        scores = (self.architectural, self.behavioural)
        if self.not_applicable_reason is not None:
            carried = [
                name
                for name, value in zip(("architectural", "behavioural"), scores, strict=True)
                if value is not None
            ] + [n for n in ("confidence", "operational_evidence") if getattr(self, n)]
            if carried:
                raise PydanticCustomError(
                    "scored_not_applicable",
                    "a not-applicable item cannot carry {keys}",
                    {"keys": ", ".join(carried)},
                )
        elif None in scores:
            raise PydanticCustomError(
                "scores_missing",
                "an item needs an architectural and a behavioural score, or a "
                "not_applicable_reason",
            )
        return self

    @property
    def applicable(self) -> bool:
        """Whether the entry scores the item (it has no not-applicable reason)."""
        return self.not_applicable_reason is None


# ----------------------------------------------------------------------------- the rules
def lower_of_two(value: int | tuple[int, int]) -> int:
    """The clause a score takes: itself, or the lower of two adjacent clauses (OSMD A.9).

    Examples
    --------
    OSMD ES.5 reports PP-3's behaviour as "0–1"; the rule takes 0:

    >>> lower_of_two((0, 1)), lower_of_two(2)
    (0, 2)
    """
    return value[0] if isinstance(value, tuple) else value


def behavioural_cap(item_id: str, architectural: int, operational_evidence: bool) -> int:
    """Highest behavioural score the rules allow for one item (A.9): 3 with operational evidence,
    else architectural + 0 (LM-capped) or + 1, never above 3.

    Notes
    -----
    Appendix A's preamble caps LM-vulnerable items "regardless"; we follow §4.3 and A.9, where
    operational content lifts the cap (§4.3's AST-1 example depends on it).

    Examples
    --------
    >>> behavioural_cap("GWT-5", 1, False), behavioural_cap("SELF-2", 2, False)
    (2, 2)
    >>> behavioural_cap("SELF-2", 2, operational_evidence=True)
    3
    """
    if operational_evidence:
        return MAX_ITEM_SCORE
    return min(MAX_ITEM_SCORE, architectural + (0 if item_id in LM_CAPPED else 1))


def band_for_total(total: int) -> str:
    """The band of a behavioural total out of 90 (OSMD §6.4).

    Examples
    --------
    >>> band_for_total(10), band_for_total(11), band_for_total(61), band_for_total(90)
    ('0', 'I', 'IV', 'V')
    """
    if isinstance(total, bool) or not isinstance(total, int):
        raise ValueError(f"total must be an integer, got {total!r}")
    for band_id, _, low, high, _ in OSMD.bands:
        if low <= total <= high:
            return band_id
    raise ValueError(f"total must be between 0 and {MAX_TOTAL}, got {total}")


def band_label(band_id: str) -> str:
    """A band as the paper prints it.

    >>> band_label("I")
    'I (Sparse)'
    """
    return next(f"{band} ({name})" for band, name, *_ in OSMD.bands if band == band_id)


# ----------------------------------------------------------------------------- scored records
@dataclass(frozen=True)
class ScoredItem:
    """One item after the rules: ``behavioural`` after the caps, ``behavioural_entered`` before.

    A not-applicable item scores 0 and counts in no "over applicable" total; an item without any
    entry is also *not assessed* (``assessed`` False), which is not the same as scoring 0.
    """

    item_id: str
    evidence: str
    applicable: bool = False
    architectural: int = 0
    behavioural_entered: int = 0
    behavioural: int = 0
    behavioural_cap: int = 0
    confidence: int = 0
    operational_evidence: bool = False
    rules_applied: tuple[str, ...] = ()
    not_applicable_reason: str = ""
    assessed: bool = True

    @property
    def behavioural_low(self) -> int:
        """Lower end of the behavioural range (§4.4), never below 0."""
        return max(0, self.behavioural - self.confidence)

    @property
    def behavioural_high(self) -> int:
        """Upper end of the behavioural range (§4.4), never above the rule cap."""
        return min(self.behavioural_cap, self.behavioural + self.confidence)

    @property
    def was_capped(self) -> bool:
        """Whether a cap lowered the behavioural score."""
        return self.behavioural < self.behavioural_entered


@dataclass(frozen=True)
class ClusterSubtotal:
    """A cluster's sums (OSMD §2: "Per-cluster sub-scores are the primary unit")."""

    cluster_id: str
    architectural: int
    behavioural: int
    max_points: int
    assessed_max_points: int


@dataclass(frozen=True)
class ScoredSystem:
    """A system scored on all 30 items (in rubric order), with totals, range and band."""

    name: str
    items: tuple[ScoredItem, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if tuple(item.item_id for item in self.items) != ITEM_IDS:
            raise ValueError("a ScoredSystem needs exactly the 30 rubric items in rubric order")

    def item(self, item_id: str) -> ScoredItem:
        """The scored item with this id."""
        return self.items[ITEM_IDS.index(item_id)]

    @property
    def architectural_total(self) -> int:
        """Sum of architectural scores, out of 90."""
        return sum(item.architectural for item in self.items)

    @property
    def behavioural_total(self) -> int:
        """Sum of behavioural scores after the rules, out of 90."""
        return sum(item.behavioural for item in self.items)

    @property
    def behavioural_range(self) -> tuple[int, int]:
        """Total range propagated from per-item confidence (§4.4)."""
        return sum(i.behavioural_low for i in self.items), sum(
            i.behavioural_high for i in self.items
        )

    @property
    def n_applicable(self) -> int:
        """Number of items scored (not N/A, not unassessed)."""
        return sum(item.applicable for item in self.items)

    @property
    def applicable_max_points(self) -> int:
        """The denominator of the "over applicable" total."""
        return MAX_ITEM_SCORE * self.n_applicable

    @property
    def n_not_assessed(self) -> int:
        """Number of items without any entry."""
        return sum(not item.assessed for item in self.items)

    @property
    def n_not_applicable(self) -> int:
        """Number of items marked N/A with a reason (assessed, but not scored)."""
        return sum(item.assessed and not item.applicable for item in self.items)

    @property
    def complete(self) -> bool:
        """Whether every item was assessed, so the 90-point total and its band are defined."""
        return self.n_not_assessed == 0

    @property
    def behavioural_fraction_of_applicable(self) -> float:
        """Behavioural total / applicable maximum; ``nan`` if no item applies."""
        if self.applicable_max_points == 0:
            return math.nan
        return self.behavioural_total / self.applicable_max_points

    @property
    def band(self) -> str:
        """Band of the behavioural total (§6.4); pages show it only when :attr:`complete`."""
        return band_for_total(self.behavioural_total)

    @property
    def capped_items(self) -> tuple[ScoredItem, ...]:
        """Items whose behavioural score a cap lowered."""
        return tuple(item for item in self.items if item.was_capped)

    @property
    def cluster_subtotals(self) -> tuple[ClusterSubtotal, ...]:
        """Per-cluster subtotals, in rubric order."""
        subtotals = []
        for cluster_id in OSMD.clusters:
            members = [self.item(item_id) for item_id in OSMD.cluster_items(cluster_id)]
            subtotals.append(
                ClusterSubtotal(
                    cluster_id=cluster_id,
                    architectural=sum(m.architectural for m in members),
                    behavioural=sum(m.behavioural for m in members),
                    max_points=MAX_ITEM_SCORE * len(members),
                    assessed_max_points=MAX_ITEM_SCORE * sum(m.assessed for m in members),
                )
            )
        return tuple(subtotals)


# ----------------------------------------------------------------------------- scoring
def score_item(entry: ItemEntry) -> ScoredItem:
    """Apply the rubric's rules to one entry.

    Examples
    --------
    Frank's GWT-5 in OSMD §6.1 is arch 1 / behav 3 with no operational content cited; the
    anti-eloquence rule allows at most 2:

    >>> scored = score_item(ItemEntry("GWT-5", 1, 3))
    >>> scored.behavioural, scored.rules_applied
    (2, ('anti_eloquence',))

    SELF-2 is LM-capped (+0); with operational content the cap lifts:

    >>> score_item(ItemEntry("SELF-2", 2, 3)).behavioural
    2
    >>> score_item(ItemEntry("SELF-2", 2, 3, operational_evidence=True)).behavioural
    3
    """
    if entry.architectural is None or entry.behavioural is None:  # not applicable
        return ScoredItem(
            entry.item_id, entry.evidence, not_applicable_reason=str(entry.not_applicable_reason)
        )
    architectural, entered = lower_of_two(entry.architectural), lower_of_two(entry.behavioural)
    between = isinstance(entry.architectural, tuple) or isinstance(entry.behavioural, tuple)
    rules = ["lower_of_two"] if between else []
    cap = behavioural_cap(entry.item_id, architectural, entry.operational_evidence)
    if entered > cap:
        rules.append("lm_cap" if entry.item_id in LM_CAPPED else "anti_eloquence")
    return ScoredItem(
        item_id=entry.item_id,
        applicable=True,
        architectural=architectural,
        behavioural_entered=entered,
        behavioural=min(entered, cap),
        behavioural_cap=cap,
        confidence=entry.confidence,
        operational_evidence=entry.operational_evidence,
        evidence=entry.evidence,
        rules_applied=tuple(rules),
    )


def score_system(
    name: str, entries: Iterable[ItemEntry], notes: Iterable[str] = ()
) -> ScoredSystem:
    """Apply the rules to at most one entry per item and assemble a 30-item scorecard (items
    without an entry are *not assessed*).

    Examples
    --------
    >>> card = score_system("toy", [ItemEntry("HOT-2", 2, 3, confidence=1)])
    >>> card.behavioural_total, card.behavioural_range, card.n_applicable, card.band
    (3, (2, 3), 1, '0')
    >>> card.n_not_assessed, card.complete
    (29, False)
    """
    by_id: dict[str, ItemEntry] = {}
    for entry in entries:
        if entry.item_id in by_id:
            raise ValueError(f"duplicate entry for item {entry.item_id}")
        by_id[entry.item_id] = entry
    items = tuple(
        score_item(by_id[item_id])
        if item_id in by_id
        else replace(
            score_item(ItemEntry(item_id, not_applicable_reason=NOT_ASSESSED)), assessed=False
        )
        for item_id in ITEM_IDS
    )
    return ScoredSystem(name=name, items=items, notes=tuple(notes))


def score_reference_system(system_id: str) -> ScoredSystem:
    """Re-apply the rules to a reference system's OSMD §6.1 grid (confidence ±0, operational
    evidence where the paper cites it).

    Examples
    --------
    >>> frank = score_reference_system("frank")
    >>> frank.architectural_total, frank.behavioural_total
    (63, 67)
    >>> [item.item_id for item in frank.capped_items]
    ['GWT-5']
    """
    check_choice(system_id, "reference system", OSMD.reference_systems)
    evidenced = OSMD.operational_evidence_items.get(system_id, ())
    entries = [
        ItemEntry(
            item_id,
            architectural,
            behavioural,
            operational_evidence=item_id in evidenced,
            evidence=f"OSMD §6.1 grid: {architectural} / {behavioural}",
        )
        for item_id, (architectural, behavioural) in OSMD.grid(system_id).items()
    ]
    name = OSMD.reference_systems[system_id]
    return score_system(f"{name} (OSMD §6.1, rules re-applied)", entries)
