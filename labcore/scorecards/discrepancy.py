"""The discrepancy record: a number a document states that its own tables do not give.

:class:`Discrepancy` is what :mod:`labcore.scorecards.osmd_checks` and
:mod:`labcore.scorecards.fcs_checks` list; :data:`DISCREPANCY_KINDS` names the kinds a page
groups them by.
"""

from __future__ import annotations

from dataclasses import dataclass

DISCREPANCY_KINDS: tuple[str, ...] = (
    "total",
    "cluster",
    "range",
    "band",
    "gap",
    "hypothesis",
    "subsample",
    "within_class",
    "ablation",
    "percentage",
    "text_vs_table",
    "rule",
    "ratio",
)


@dataclass(frozen=True)
class Discrepancy:
    """A number a document states that its own tables do not give.

    Attributes
    ----------
    discrepancy_id : str
        Stable id, e.g. ``"osmd.total.frank.behavioural"``.
    source : str
        ``"OSMD"`` or ``"FCS"``.
    kind : str
        One of :data:`DISCREPANCY_KINDS` (for grouping on a page).
    where : str
        Where the document states the number.
    quantity : str
        What the number is.
    stated : str
        The number as the document states it.
    recomputed : str
        What the document's own table gives, and from which table.
    note : str
        Context: a likely explanation, or why the recomputation is the fair one.
    """

    discrepancy_id: str
    source: str
    kind: str
    where: str
    quantity: str
    stated: str
    recomputed: str
    note: str = ""


def _slug(where: str) -> str:
    return where.replace("§", "s").replace(".", "_").replace(" ", "_").lower()
