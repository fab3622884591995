"""Recompute OSMD's numbers from the paper's own tables, and set them beside the stated ones.

Mechanical recomputations (sums, min/max, differences, ratios, roundings) over
:mod:`labcore.scorecards.tables`, and :func:`reference_system_summary`, which returns the
stated and the recomputed numbers of a reference system side by side. The checks that turn
disagreements into :class:`~labcore.scorecards.discrepancy.Discrepancy` records are in
:mod:`labcore.scorecards.osmd_checks`.
"""

from __future__ import annotations

from dataclasses import dataclass

from labcore.scorecards import tables
from labcore.scorecards.records import ReferenceGrid, StatedRange
from labcore.scorecards.rubric import band_for_total, score_reference_system
from labcore.scorecards.tables import CLUSTERS, REFERENCE_GRIDS


def grid_totals(system_id: str) -> tuple[int, int]:
    """Sum of a reference system's §6.1 grid, ``(architectural, behavioural)``.

    The plain sums of the printed cells, before re-applying any rule.

    Examples
    --------
    >>> grid_totals("frank"), grid_totals("claude_code")
    ((63, 68), (27, 34))
    """
    grid = _grid(system_id)
    return (sum(a for _, a, _ in grid.scores), sum(b for _, _, b in grid.scores))


def grid_cluster_subtotals(system_id: str) -> dict[str, tuple[int, int]]:
    """Per-cluster sums of a system's §6.1 grid, ``{cluster_id: (arch, behav)}``.

    Examples
    --------
    >>> grid_cluster_subtotals("frank")["RPT"]
    (8, 11)
    """
    grid = _grid(system_id)
    return {
        cluster.cluster_id: (
            sum(grid.pair(i)[0] for i in cluster.item_ids),
            sum(grid.pair(i)[1] for i in cluster.item_ids),
        )
        for cluster in CLUSTERS
    }


def rater_range(system_id: str) -> tuple[int, int]:
    """Lowest and highest Appendix D rater total for a system.

    Appendix A.9 and Appendix D define the reported range as "the lower-to-upper bound
    across raters".

    Examples
    --------
    >>> rater_range("frank")
    (65, 71)
    """
    totals = tables.RATER_TOTALS_APPENDIX_D[_grid(system_id).system_id].values()
    return min(totals), max(totals)


def range_gap(frank_range: tuple[int, int], comparator_range: tuple[int, int]) -> tuple[int, int]:
    """Smallest and largest Frank-minus-comparator gap two ranges allow.

    Examples
    --------
    >>> range_gap((65, 73), (32, 38))
    (27, 41)
    """
    return frank_range[0] - comparator_range[1], frank_range[1] - comparator_range[0]


def percentage_is_achievable(percent: float, decimals: int, n: int) -> bool:
    """Whether some count k of n rounds to the printed percentage.

    Examples
    --------
    >>> percentage_is_achievable(25, 0, 4), percentage_is_achievable(71, 0, 8)
    (True, False)
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    half_unit = 0.5 * 10.0 ** (-decimals)
    return any(abs(100.0 * k / n - percent) <= half_unit + 1e-9 for k in range(n + 1))


def h2_share(score: str = "behavioural") -> tuple[int, int, float]:
    """Share of the Frank-minus-Claude-Code gap that falls in the five H2 items.

    Parameters
    ----------
    score : {"behavioural", "architectural"}
        Which grid column to use.

    Returns
    -------
    (five-item gap, total gap, percent)

    Examples
    --------
    >>> h2_share("behavioural")
    (10, 34, 29.41)
    >>> h2_share("architectural")
    (11, 36, 30.56)
    """
    column = {"architectural": 0, "behavioural": 1}[score]
    frank, code = REFERENCE_GRIDS["frank"], REFERENCE_GRIDS["claude_code"]
    five = sum(frank.pair(i)[column] - code.pair(i)[column] for i in tables.H2_ITEMS)
    total = grid_totals("frank")[column] - grid_totals("claude_code")[column]
    return five, total, 100.0 * five / total


def _grid(system_id: str) -> ReferenceGrid:
    try:
        return REFERENCE_GRIDS[system_id]
    except KeyError:
        raise ValueError(
            f"unknown reference system {system_id!r}; expected one of {sorted(REFERENCE_GRIDS)}"
        ) from None


@dataclass(frozen=True)
class ReferenceSystemSummary:
    """Stated and recomputed numbers for one OSMD reference system, side by side.

    Attributes
    ----------
    system_id, display_name : str
        The system.
    stated_architectural, stated_behavioural : int
        §6.3 point totals.
    stated_band_id : str
        §6.3 band.
    grid_architectural, grid_behavioural : int
        Sums of the §6.1 grid.
    rules_behavioural : int
        Grid behavioural total after re-applying the A.9 caps.
    rater_range : (int, int)
        Min and max of the Appendix D rater totals.
    stated_ranges : tuple of StatedRange
        Every range the paper prints for this system.
    """

    system_id: str
    display_name: str
    stated_architectural: int
    stated_behavioural: int
    stated_band_id: str
    grid_architectural: int
    grid_behavioural: int
    rules_behavioural: int
    rater_range: tuple[int, int]
    stated_ranges: tuple[StatedRange, ...]

    @property
    def grid_band_id(self) -> str:
        """Band of the grid's behavioural sum."""
        return band_for_total(self.grid_behavioural).band_id

    @property
    def totals_agree(self) -> bool:
        """Whether the §6.3 totals equal the grid sums."""
        return (self.stated_architectural, self.stated_behavioural) == (
            self.grid_architectural,
            self.grid_behavioural,
        )


def reference_system_summary(system_id: str) -> ReferenceSystemSummary:
    """Stated vs recomputed numbers for one OSMD reference system.

    Examples
    --------
    >>> s = reference_system_summary("frank")
    >>> (s.stated_architectural, s.grid_architectural), (s.stated_behavioural, s.grid_behavioural)
    ((60, 63), (71, 68))
    >>> s.rules_behavioural, s.rater_range, s.totals_agree
    (67, (65, 71), False)
    """
    grid = _grid(system_id)
    stated = tables.STATED_POINT_TOTALS[grid.system_id]
    grid_arch, grid_behav = grid_totals(grid.system_id)
    return ReferenceSystemSummary(
        system_id=grid.system_id,
        display_name=grid.display_name,
        stated_architectural=stated.architectural,
        stated_behavioural=stated.behavioural,
        stated_band_id=stated.band_id,
        grid_architectural=grid_arch,
        grid_behavioural=grid_behav,
        rules_behavioural=score_reference_system(grid.system_id).behavioural_total,
        rater_range=rater_range(grid.system_id),
        stated_ranges=tuple(r for r in tables.STATED_RANGES if r.system_id == system_id),
    )
