"""List every disagreement between the FCS page's stated numbers and its own table.

The table rows are recomputed with :func:`labcore.scorecards.fcs.recompute_fcs_row` over
:mod:`labcore.scorecards.tables`; the headline ratios are recomputed from the rows they
name, and :func:`nearest_table_ratio` says which rows would give the stated ratio.
"""

from __future__ import annotations

import math
from itertools import permutations

from labcore.render import UNDEFINED, fmt
from labcore.scorecards import tables
from labcore.scorecards.discrepancy import Discrepancy, _slug
from labcore.scorecards.fcs import recompute_fcs_row


def nearest_table_ratio(target: float) -> tuple[str, str, float]:
    """The pair of FCS-table rows whose recomputed FCS ratio is closest to ``target``.

    Closeness is measured on a log scale; rows with FCS 0 are skipped as denominators.

    Examples
    --------
    >>> num, den, ratio = nearest_table_ratio(87)
    >>> num, den, round(ratio, 1)
    ('Generative Agents', 'Waymo L4', 86.7)
    """
    fcs = {row.system: recompute_fcs_row(row).recomputed_fcs for row in tables.FCS_REFERENCE_TABLE}
    candidates = [
        (a, b, fcs[a] / fcs[b]) for a, b in permutations(fcs, 2) if fcs[b] > 0 and fcs[a] > 0
    ]
    return min(candidates, key=lambda c: abs(math.log(c[2] / target)))


def most_capable_artificial_agent() -> str:
    """The AI system with the highest recomputed FCS in the page's table.

    Examples
    --------
    >>> most_capable_artificial_agent()
    'Generative Agents'
    """
    agents = [row for row in tables.FCS_REFERENCE_TABLE if row.is_artificial_agent]
    return max(agents, key=lambda row: recompute_fcs_row(row).recomputed_fcs).system


def _fcs(
    kind: str,
    discrepancy_id: str,
    where: str,
    quantity: str,
    stated: str,
    recomputed: str,
    note: str = "",
) -> Discrepancy:
    return Discrepancy(
        f"fcs.{discrepancy_id}", "FCS", kind, where, quantity, stated, recomputed, note
    )


def fcs_discrepancies() -> tuple[Discrepancy, ...]:
    """Every disagreement between the FCS page's stated numbers and its own table.

    Table rows are compared at the printed precision (the "~" values are rounded); the
    headline ratios are recomputed from the rows they name.

    Examples
    --------
    >>> [d.discrepancy_id for d in fcs_discrepancies()]
    ['fcs.ratio.agentic_leap', 'fcs.ratio.human_gap']
    """
    found = []
    for row in tables.FCS_REFERENCE_TABLE:
        recomputed = recompute_fcs_row(row)
        if not recomputed.agrees_with_stated:
            found.append(
                _fcs(
                    "total",
                    f"row.{_slug(row.system)}",
                    "table 'Reasoning vs Capacity Diagram'",
                    f"{row.system}: FCS",
                    row.stated_fcs_text,
                    f"{recomputed.recomputed_fcs:,.0f} (B vars × bits/var × P)",
                )
            )
    for card_system, (p, fcs_text) in tables.RADAR_CARDS.items():
        row = tables.FCS_ROW_BY_SYSTEM[card_system]
        if p != row.reasoning_power or fcs_text.lstrip("~") != row.stated_fcs_text.lstrip("~"):
            found.append(
                _fcs(
                    "text_vs_table",
                    f"radar.{_slug(card_system)}",
                    "radar cards",
                    f"{card_system}: P and FCS on its card",
                    f"{p}, {fcs_text}",
                    f"{row.reasoning_power:g}, {row.stated_fcs_text} (table)",
                )
            )
    fcs = {row.system: recompute_fcs_row(row).recomputed_fcs for row in tables.FCS_REFERENCE_TABLE}
    for stated in tables.STATED_RATIOS:
        denominator_system = stated.denominator_system
        if denominator_system == "most capable AI agent":
            denominator_system = most_capable_artificial_agent()
        numerator, denominator = fcs[stated.numerator_system], fcs[denominator_system]
        ratio = numerator / denominator if denominator > 0 else math.inf
        if math.isinf(ratio) or abs(ratio - stated.stated_ratio) / stated.stated_ratio > 0.05:
            near_num, near_den, near_ratio = nearest_table_ratio(stated.stated_ratio)
            shown = f"{UNDEFINED} (its FCS is 0)" if math.isinf(ratio) else fmt(ratio)
            found.append(
                _fcs(
                    "ratio",
                    f"ratio.{stated.ratio_id}",
                    "call-outs under the table",
                    f"{stated.numerator_system} / {denominator_system}",
                    f"×{stated.stated_ratio:g}",
                    f"{shown} ({numerator:,.0f} / {denominator:,.0f}, recomputed table rows)",
                    f"The table ratio nearest to ×{stated.stated_ratio:g} is {near_num} / "
                    f"{near_den} = {near_ratio:.1f}.",
                )
            )
    return tuple(found)
