"""Scoring rules of the Operational Self-Model Density rubric, as pure functions.

The rubric's items and the paper's numbers live in :mod:`labcore.scorecards.tables`;
this module applies the paper's application rules (OSMD Appendix A.9, §4.2-§4.4, §6.4) to
per-item entries and aggregates them:

* **lower-of-two** (A.9, §4.2): an entry may give a score as two adjacent clauses
  ``(k, k + 1)``, meaning "no clause cleanly applies"; clause ``k`` is taken.
* **anti-eloquence** (A.9, §4.2): behavioural <= architectural + 1, unless operational
  content (stored timestamp, calibrated confidence value, DB-verifiable claim) is attached.
* **LM-cap** (A.9, §4.3): for LM-vulnerable items, behavioural <= architectural + 0, unless
  operational content is attached. Which items are LM-capped: see
  :attr:`labcore.scorecards.records.RubricItem.lm_capped`.
* **confidence range** (§4.4): each item carries ±0/±1/±2; the behavioural score's range is
  ``[score - c, score + c]`` clipped to ``[0, cap]``; the total's range is the sum of the
  item ranges.
* **bands** (§6.4) on the behavioural total out of 90.

A behavioural score above its cap is lowered to the cap (the rule "applies live") and the
rule's id is recorded in :attr:`ScoredItem.rules_applied`, so a page can say what changed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from labcore.checks import check_choice
from labcore.scorecards.records import Band, RubricItem
from labcore.scorecards.tables import (
    ALLOWED_CONFIDENCES,
    BANDS,
    CLUSTER_BY_ID,
    CLUSTERS,
    ITEM_BY_ID,
    ITEM_IDS,
    REFERENCE_GRIDS,
)

MAX_ITEM_SCORE = 3
MAX_TOTAL = 3 * len(ITEM_IDS)
NOT_ASSESSED = "not assessed"
"""The N/A reason of an item that had no entry at all (see :attr:`ScoredItem.assessed`)."""

ClauseValue = int | tuple[int, int]
"""A score as entered: one clause ``k``, or two adjacent clauses ``(k, k + 1)``."""


def _check_clause(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer clause 0-3, got {value!r}")
    if not 0 <= value <= MAX_ITEM_SCORE:
        raise ValueError(f"{what} must be between 0 and 3, got {value}")
    return value


def lower_of_two_clauses(lower: int, upper: int) -> int:
    """Resolve "between two adjacent clauses" to the lower one (OSMD Appendix A.9).

    Parameters
    ----------
    lower, upper : int
        Two adjacent clauses, ``upper == lower + 1``, both in 0-3.

    Returns
    -------
    int
        ``lower``.

    Raises
    ------
    ValueError
        If the clauses are out of range or not adjacent (the rule only covers the case
        "no clause cleanly applies" between neighbours).

    Examples
    --------
    OSMD ES.5 reports PP-3's behaviour as "0–1"; the rule takes 0:

    >>> lower_of_two_clauses(0, 1)
    0
    """
    lower = _check_clause(lower, "lower clause")
    upper = _check_clause(upper, "upper clause")
    if upper != lower + 1:
        raise ValueError(f"clauses must be adjacent (k, k + 1), got ({lower}, {upper})")
    return lower


def resolve_clause(value: ClauseValue, what: str = "score") -> tuple[int, bool]:
    """Turn an entered score into one clause.

    Parameters
    ----------
    value : int or (int, int)
        A clause 0-3, or two adjacent clauses.
    what : str
        Name used in error messages.

    Returns
    -------
    clause : int
        The clause taken.
    was_between : bool
        True when the lower-of-two rule was used.

    Examples
    --------
    >>> resolve_clause(2)
    (2, False)
    >>> resolve_clause((2, 3))
    (2, True)
    """
    if isinstance(value, tuple):
        if len(value) != 2:
            raise ValueError(f"{what}: a between-clauses score needs two clauses, got {value!r}")
        try:
            return lower_of_two_clauses(*value), True
        except ValueError as error:  # name the item: "HOT-2 behavioural score: ..."
            raise ValueError(f"{what}: {error}") from None
    return _check_clause(value, what), False


def behavioural_cap(item_id: str, architectural: int, operational_evidence: bool) -> int:
    """Highest behavioural score the rules allow for one item.

    Parameters
    ----------
    item_id : str
        Rubric item id.
    architectural : int
        The item's architectural score (0-3).
    operational_evidence : bool
        Whether operational content (stored timestamp, calibrated confidence value,
        DB-verifiable claim, measured number from a logged run) backs the behavioural score.

    Returns
    -------
    int
        3 with operational evidence; otherwise ``architectural + 0`` for LM-capped items
        (A.9 LM-cap, §4.3) and ``architectural + 1`` for the others (A.9 anti-eloquence),
        never above 3.

    Notes
    -----
    The Appendix A preamble says LM-vulnerable items are capped "regardless", while §4.3
    and A.9 say operational content lifts the cap; we follow §4.3/A.9 (two statements,
    one of them the rule list itself, and §4.3's AST-1 example depends on it).

    Examples
    --------
    >>> behavioural_cap("GWT-5", 1, operational_evidence=False)
    2
    >>> behavioural_cap("SELF-2", 2, operational_evidence=False)
    2
    >>> behavioural_cap("SELF-2", 2, operational_evidence=True)
    3
    """
    item = _item(item_id)
    architectural = _check_clause(architectural, "architectural score")
    if operational_evidence:
        return MAX_ITEM_SCORE
    allowance = 0 if item.lm_capped else 1
    return min(MAX_ITEM_SCORE, architectural + allowance)


def band_for_total(total: int) -> Band:
    """Band of a behavioural total out of 90 (OSMD §6.4).

    Parameters
    ----------
    total : int
        Behavioural total, 0-90.

    Returns
    -------
    Band

    Examples
    --------
    >>> band_for_total(10).label, band_for_total(11).label
    ('0 (Trivial)', 'I (Sparse)')
    >>> band_for_total(60).band_id, band_for_total(61).band_id, band_for_total(90).band_id
    ('III', 'IV', 'V')
    """
    if isinstance(total, bool) or not isinstance(total, int):
        raise ValueError(f"total must be an integer, got {total!r}")
    for band in BANDS:
        if band.low <= total <= band.high:
            return band
    raise ValueError(f"total must be between 0 and {MAX_TOTAL}, got {total}")


def _item(item_id: str) -> RubricItem:
    try:
        return ITEM_BY_ID[item_id]
    except KeyError:
        raise ValueError(f"unknown rubric item id {item_id!r}") from None


@dataclass(frozen=True)
class ItemEntry:
    """A rater's (or a mapping's) entry for one item, before the rules are applied.

    Attributes
    ----------
    item_id : str
        Rubric item id, e.g. ``"HOT-2"``.
    architectural, behavioural : int or (int, int) or None
        Scores 0-3, or two adjacent clauses for "between" (lower-of-two rule). Both None
        when the item is not applicable.
    confidence : int
        ±0, ±1 or ±2 (§4.4).
    operational_evidence : bool
        Operational content backs the behavioural score (lifts both caps).
    evidence : str
        Short evidence text shown with the score.
    not_applicable_reason : str or None
        One-line reason when the item does not apply; the scores must then be None.
    """

    item_id: str
    architectural: ClauseValue | None
    behavioural: ClauseValue | None
    confidence: int = 0
    operational_evidence: bool = False
    evidence: str = ""
    not_applicable_reason: str | None = None

    @property
    def applicable(self) -> bool:
        """Whether the entry scores the item (it has no not-applicable reason)."""
        return self.not_applicable_reason is None


def not_applicable(item_id: str, reason: str) -> ItemEntry:
    """Entry marking an item N/A with a one-line reason.

    Examples
    --------
    >>> not_applicable("AE-2", "no real-world effects in a simulator").applicable
    False
    """
    return ItemEntry(item_id, None, None, not_applicable_reason=reason)


@dataclass(frozen=True)
class ScoredItem:
    """One item after the rules: the score used in totals and what the rules did.

    Attributes
    ----------
    item_id : str
        Rubric item id.
    applicable : bool
        False for N/A items (all scores 0, excluded from "over applicable" totals).
    architectural : int
        Architectural score after the lower-of-two rule.
    behavioural_entered : int
        Behavioural score after the lower-of-two rule, before the caps.
    behavioural : int
        Behavioural score after the caps; this is what totals and bands use.
    behavioural_cap : int
        Highest behavioural score the rules allowed.
    confidence : int
        ±0/±1/±2.
    operational_evidence : bool
        Whether operational content was attached.
    evidence : str
        Evidence text.
    rules_applied : tuple of str
        Ids (see ``tables.RULES``) of rules that changed the entry:
        ``"lower_of_two"``, ``"anti_eloquence"``, ``"lm_cap"``.
    not_applicable_reason : str
        Reason for N/A items (:data:`NOT_ASSESSED` for items without an entry), else ``""``.
    assessed : bool
        False when the item had no entry at all: it is *not assessed*, which is not the same as
        scoring 0. Like an N/A item it is not applicable (its numbers are 0 and count in no
        total), and :attr:`ScoredSystem.n_not_assessed` counts it, so a page can say how many
        items a total covers instead of showing the missing ones as 0.
    """

    item_id: str
    applicable: bool
    architectural: int
    behavioural_entered: int
    behavioural: int
    behavioural_cap: int
    confidence: int
    operational_evidence: bool
    evidence: str
    rules_applied: tuple[str, ...]
    not_applicable_reason: str = ""
    assessed: bool = True

    @property
    def cluster_id(self) -> str:
        """The item's cluster."""
        return ITEM_BY_ID[self.item_id].cluster_id

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


def score_item(entry: ItemEntry) -> ScoredItem:
    """Apply the rubric's rules to one entry.

    Parameters
    ----------
    entry : ItemEntry

    Returns
    -------
    ScoredItem

    Raises
    ------
    ValueError
        Unknown item id, scores outside 0-3, non-adjacent "between" clauses, confidence
        not in {0, 1, 2}, or an N/A entry that carries scores.

    Examples
    --------
    Frank's GWT-5 in OSMD §6.1 is arch 1 / behav 3 with no operational content cited;
    the anti-eloquence rule allows at most 2:

    >>> scored = score_item(ItemEntry("GWT-5", 1, 3))
    >>> scored.behavioural, scored.rules_applied
    (2, ('anti_eloquence',))

    SELF-2 is LM-capped (+0); with operational content the cap lifts:

    >>> score_item(ItemEntry("SELF-2", 2, 3)).behavioural
    2
    >>> score_item(ItemEntry("SELF-2", 2, 3, operational_evidence=True)).behavioural
    3
    """
    item = _item(entry.item_id)
    confidence = entry.confidence
    check_choice(
        "a bool" if isinstance(confidence, bool) else confidence,
        f"{item.item_id}: confidence",
        ALLOWED_CONFIDENCES,
    )
    if not entry.applicable:
        if (
            entry.architectural is not None
            or entry.behavioural is not None
            or entry.confidence != 0
            or entry.operational_evidence
        ):
            raise ValueError(
                f"{item.item_id}: a not-applicable item cannot carry scores, "
                "confidence or operational evidence"
            )
        if not str(entry.not_applicable_reason).strip():
            raise ValueError(f"{item.item_id}: a not-applicable item needs a reason")
        return ScoredItem(
            item_id=item.item_id,
            applicable=False,
            architectural=0,
            behavioural_entered=0,
            behavioural=0,
            behavioural_cap=0,
            confidence=0,
            operational_evidence=False,
            evidence=entry.evidence,
            rules_applied=(),
            not_applicable_reason=str(entry.not_applicable_reason),
        )
    if entry.architectural is None or entry.behavioural is None:
        raise ValueError(
            f"{item.item_id}: an applicable item needs both an architectural and a "
            "behavioural score (or a not-applicable reason)"
        )
    rules: list[str] = []
    architectural, arch_between = resolve_clause(
        entry.architectural, f"{item.item_id} architectural score"
    )
    behavioural_entered, behav_between = resolve_clause(
        entry.behavioural, f"{item.item_id} behavioural score"
    )
    if arch_between or behav_between:
        rules.append("lower_of_two")
    cap = behavioural_cap(item.item_id, architectural, bool(entry.operational_evidence))
    behavioural = min(behavioural_entered, cap)
    if behavioural < behavioural_entered:
        rules.append("lm_cap" if item.lm_capped else "anti_eloquence")
    return ScoredItem(
        item_id=item.item_id,
        applicable=True,
        architectural=architectural,
        behavioural_entered=behavioural_entered,
        behavioural=behavioural,
        behavioural_cap=cap,
        confidence=entry.confidence,
        operational_evidence=bool(entry.operational_evidence),
        evidence=entry.evidence,
        rules_applied=tuple(rules),
    )


@dataclass(frozen=True)
class ClusterSubtotal:
    """A cluster's subtotals (OSMD §2: "Per-cluster sub-scores are the primary unit").

    Attributes
    ----------
    cluster_id : str
        Cluster id.
    architectural, behavioural : int
        Sums over the cluster's items (N/A items count 0).
    behavioural_low, behavioural_high : int
        Sum of the items' confidence ranges.
    applicable_max_points : int
        3 x number of applicable items.
    max_points : int
        3 x number of items.
    assessed_max_points : int
        3 x number of assessed items (scored or N/A with a reason; not-assessed items left
        out). Equal to ``max_points`` when every item of the cluster was assessed.
    """

    cluster_id: str
    architectural: int
    behavioural: int
    behavioural_low: int
    behavioural_high: int
    applicable_max_points: int
    max_points: int
    assessed_max_points: int


@dataclass(frozen=True)
class ScoredSystem:
    """A system scored on all 30 items, with totals, range and band as properties.

    Attributes
    ----------
    name : str
        Display name.
    items : tuple of ScoredItem
        Exactly the 30 rubric items, in rubric order.
    notes : tuple of str
        Free-text notes (e.g. the caveats that apply to this scorecard).
    """

    name: str
    items: tuple[ScoredItem, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ids = tuple(item.item_id for item in self.items)
        if ids != ITEM_IDS:
            raise ValueError("a ScoredSystem needs exactly the 30 rubric items in rubric order")

    def item(self, item_id: str) -> ScoredItem:
        """The scored item with this id."""
        return self.items[ITEM_IDS.index(_item(item_id).item_id)]

    @property
    def architectural_total(self) -> int:
        """Sum of architectural scores, out of 90."""
        return sum(item.architectural for item in self.items)

    @property
    def behavioural_total(self) -> int:
        """Sum of behavioural scores after the rules, out of 90 (the banded number)."""
        return sum(item.behavioural for item in self.items)

    @property
    def behavioural_range(self) -> tuple[int, int]:
        """Total range propagated from per-item confidence (§4.4)."""
        return (
            sum(item.behavioural_low for item in self.items),
            sum(item.behavioural_high for item in self.items),
        )

    @property
    def n_applicable(self) -> int:
        """Number of items scored (not N/A)."""
        return sum(item.applicable for item in self.items)

    @property
    def applicable_max_points(self) -> int:
        """3 x number of applicable items: the denominator of the "over applicable" total."""
        return 3 * self.n_applicable

    @property
    def n_not_assessed(self) -> int:
        """Number of items without any entry (not assessed; see :attr:`ScoredItem.assessed`)."""
        return sum(not item.assessed for item in self.items)

    @property
    def n_not_applicable(self) -> int:
        """Number of items marked N/A with a reason (assessed, but not scored)."""
        return sum(item.assessed and not item.applicable for item in self.items)

    @property
    def complete(self) -> bool:
        """Whether every item was assessed, so the 90-point total and its band are defined.

        The rubric's total counts an N/A item as 0 out of 3; an item nobody assessed is
        unknown, so a total or band over an incomplete card would pass a guess for a score.
        """
        return self.n_not_assessed == 0

    @property
    def behavioural_fraction_of_applicable(self) -> float:
        """Behavioural total / applicable maximum; ``nan`` if no item applies."""
        if self.applicable_max_points == 0:
            return math.nan
        return self.behavioural_total / self.applicable_max_points

    @property
    def architectural_fraction_of_applicable(self) -> float:
        """Architectural total / applicable maximum; ``nan`` if no item applies."""
        if self.applicable_max_points == 0:
            return math.nan
        return self.architectural_total / self.applicable_max_points

    @property
    def band(self) -> Band:
        """Band of the behavioural total out of 90 (§6.4).

        The bands are defined on the 90-point scale only; there is no band for the
        "over applicable" fraction. On a card that is not :attr:`complete` the band is that
        of the items assessed so far, a lower bound at best: pages should not show it.
        """
        return band_for_total(self.behavioural_total)

    @property
    def band_range(self) -> tuple[Band, Band]:
        """Bands of the two ends of :attr:`behavioural_range`."""
        low, high = self.behavioural_range
        return band_for_total(low), band_for_total(high)

    @property
    def capped_items(self) -> tuple[ScoredItem, ...]:
        """Items whose behavioural score a cap lowered."""
        return tuple(item for item in self.items if item.was_capped)

    @property
    def cluster_subtotals(self) -> tuple[ClusterSubtotal, ...]:
        """Per-cluster subtotals, in rubric order."""
        subtotals = []
        for cluster in CLUSTERS:
            members = [self.item(item_id) for item_id in cluster.item_ids]
            subtotals.append(
                ClusterSubtotal(
                    cluster_id=cluster.cluster_id,
                    architectural=sum(m.architectural for m in members),
                    behavioural=sum(m.behavioural for m in members),
                    behavioural_low=sum(m.behavioural_low for m in members),
                    behavioural_high=sum(m.behavioural_high for m in members),
                    applicable_max_points=3 * sum(m.applicable for m in members),
                    max_points=cluster.max_points,
                    assessed_max_points=3 * sum(m.assessed for m in members),
                )
            )
        return tuple(subtotals)

    def cluster_subtotal(self, cluster_id: str) -> ClusterSubtotal:
        """One cluster's subtotal."""
        check_choice(cluster_id, "cluster id", CLUSTER_BY_ID)
        return next(s for s in self.cluster_subtotals if s.cluster_id == cluster_id)


def score_system(
    name: str, entries: Iterable[ItemEntry], notes: Iterable[str] = ()
) -> ScoredSystem:
    """Apply the rules to a set of entries and assemble a 30-item scorecard.

    Parameters
    ----------
    name : str
        Display name of the system.
    entries : iterable of ItemEntry
        At most one entry per item. Items without an entry are *not assessed*: N/A with the
        reason :data:`NOT_ASSESSED` and ``assessed=False`` (counted by
        :attr:`ScoredSystem.n_not_assessed`, never as a 0 score).
    notes : iterable of str
        Notes carried on the result.

    Returns
    -------
    ScoredSystem

    Raises
    ------
    ValueError
        Duplicate entries for an item, or any error from :func:`score_item`.

    Examples
    --------
    >>> card = score_system("toy", [ItemEntry("HOT-2", 2, 3, confidence=1)])
    >>> card.behavioural_total, card.behavioural_range, card.n_applicable
    (3, (2, 3), 1)
    >>> card.band.label
    '0 (Trivial)'
    >>> card.n_not_assessed, card.complete
    (29, False)
    """
    by_id: dict[str, ItemEntry] = {}
    for entry in entries:
        item_id = _item(entry.item_id).item_id
        if item_id in by_id:
            raise ValueError(f"duplicate entry for item {item_id}")
        by_id[item_id] = entry
    items = tuple(
        score_item(by_id[item_id])
        if item_id in by_id
        else replace(score_item(not_applicable(item_id, NOT_ASSESSED)), assessed=False)
        for item_id in ITEM_IDS
    )
    return ScoredSystem(name=name, items=items, notes=tuple(notes))


def score_reference_system(system_id: str) -> ScoredSystem:
    """Re-apply the rules to a reference system's OSMD §6.1 grid.

    Each grid cell becomes an entry with confidence ±0 (the grid gives no per-item
    confidence) and operational evidence where the paper cites it
    (:attr:`~labcore.scorecards.records.ReferenceGrid.operational_evidence_items`).

    Parameters
    ----------
    system_id : str
        ``"claude_bare"``, ``"claude_code"``, ``"gpt4o_memory"`` or ``"frank"``.

    Returns
    -------
    ScoredSystem
        ``behavioural_total`` is the grid sum after the rules; items the rules lowered are
        in ``capped_items``.

    Examples
    --------
    >>> frank = score_reference_system("frank")
    >>> frank.architectural_total, frank.behavioural_total
    (63, 67)
    >>> [item.item_id for item in frank.capped_items]
    ['GWT-5']
    """
    try:
        grid = REFERENCE_GRIDS[system_id]
    except KeyError:
        raise ValueError(
            f"unknown reference system {system_id!r}; expected one of {sorted(REFERENCE_GRIDS)}"
        ) from None
    entries = [
        ItemEntry(
            item_id,
            architectural,
            behavioural,
            operational_evidence=item_id in grid.operational_evidence_items,
            evidence=f"OSMD §6.1 grid: {architectural} / {behavioural}",
        )
        for item_id, architectural, behavioural in grid.scores
    ]
    return score_system(f"{grid.display_name} (OSMD §6.1, rules re-applied)", entries)
