"""Recompute the two documents' numbers from their own tables and list the disagreements.

Both source documents print headline numbers that their own tables do not reproduce. This
module keeps both: :func:`reference_system_summary` returns the stated and the recomputed
numbers side by side, and :func:`osmd_discrepancies` / :func:`fcs_discrepancies` list every
disagreement found, each with where the document states the number, what it states, and
what its own table gives. A page shows both numbers and says so; nothing here "corrects"
the documents.

Every check is mechanical (a sum, a min/max, a difference, a ratio, a rounding) over data in
:mod:`labcore.scorecards.rubric_data` and :mod:`labcore.scorecards.fcs_data`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import permutations

from labcore.scorecards import fcs_data, rubric_data
from labcore.scorecards.fcs import recompute_fcs_row
from labcore.scorecards.rubric import band_for_total, score_reference_system
from labcore.scorecards.rubric_data import (
    CLUSTERS,
    REFERENCE_GRIDS,
    REFERENCE_SYSTEM_NAMES,
    StatedRange,
)

DISCREPANCY_KINDS: tuple[str, ...] = (
    "total", "cluster", "range", "band", "gap", "hypothesis", "subsample", "within_class",
    "ablation", "percentage", "text_vs_table", "rule", "ratio",
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


def _fmt_range(low: float, high: float) -> str:
    return f"{low:g}–{high:g}"


def _slug(where: str) -> str:
    return (where.replace("§", "s").replace(".", "_").replace(" ", "_").lower())


# ----------------------------------------------------------------------------------------
# OSMD recomputations
# ----------------------------------------------------------------------------------------


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
    totals = rubric_data.RATER_TOTALS_APPENDIX_D[_grid(system_id).system_id].values()
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
    five = sum(frank.pair(i)[column] - code.pair(i)[column] for i in rubric_data.H2_ITEMS)
    total = grid_totals("frank")[column] - grid_totals("claude_code")[column]
    return five, total, 100.0 * five / total


def _grid(system_id: str) -> rubric_data.ReferenceGrid:
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
            self.grid_architectural, self.grid_behavioural)


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
    stated = rubric_data.STATED_POINT_TOTALS[grid.system_id]
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
        stated_ranges=tuple(r for r in rubric_data.STATED_RANGES if r.system_id == system_id),
    )


def _osmd(kind: str, discrepancy_id: str, where: str, quantity: str, stated: str,
          recomputed: str, note: str = "") -> Discrepancy:
    return Discrepancy(f"osmd.{discrepancy_id}", "OSMD", kind, where, quantity, stated,
                       recomputed, note)


def _total_discrepancies() -> list[Discrepancy]:
    found = []
    for system_id in REFERENCE_GRIDS:
        stated = rubric_data.STATED_POINT_TOTALS[system_id]
        grid = dict(zip(("architectural", "behavioural"), grid_totals(system_id), strict=True))
        where = "§6.3" + (", §7.9" if system_id in ("frank", "claude_code") else "")
        for column in ("architectural", "behavioural"):
            if getattr(stated, column) != grid[column]:
                found.append(_osmd(
                    "total", f"total.{system_id}.{column}", where,
                    f"{REFERENCE_SYSTEM_NAMES[system_id]}: {column} point total",
                    f"{getattr(stated, column)} / 90",
                    f"{grid[column]} / 90 (sum of the §6.1 grid)",
                    "Appendix B's sympathetic column and Appendix D's Claude-rater column "
                    "repeat the stated behavioural totals." if column == "behavioural" else "",
                ))
        grid_band = band_for_total(grid["behavioural"]).band_id
        if grid_band != stated.band_id:
            found.append(_osmd("band", f"band.{system_id}", "§6.3",
                               f"{REFERENCE_SYSTEM_NAMES[system_id]}: band",
                               stated.band_id, f"{grid_band} (band of the grid sum)"))
    return found


def _cluster_discrepancies() -> list[Discrepancy]:
    found = []
    frank = grid_cluster_subtotals("frank")
    code = grid_cluster_subtotals("claude_code")
    for cluster_id, stated in rubric_data.STATED_CLUSTER_SUBTOTALS.items():
        for system_id, grid_pair, stated_pair in (
            ("frank", frank[cluster_id], stated.frank),
            ("claude_code", code[cluster_id], stated.best_comparator),
        ):
            if grid_pair != stated_pair:
                found.append(_osmd(
                    "cluster", f"cluster.{cluster_id}.{system_id}", stated.section,
                    f"{cluster_id} subtotal, {REFERENCE_SYSTEM_NAMES[system_id]} (arch / behav)",
                    f"{stated_pair[0]} / {stated_pair[1]}",
                    f"{grid_pair[0]} / {grid_pair[1]} (§6.1 grid)",
                ))
        delta = frank[cluster_id][1] - code[cluster_id][1]
        if delta != stated.behavioural_delta:
            found.append(_osmd(
                "cluster", f"cluster_delta.{cluster_id}", stated.section,
                f"{cluster_id} subtotal, Frank minus Claude Code (behavioural)",
                f"+{stated.behavioural_delta}",
                f"+{delta} ({frank[cluster_id][1]} − {code[cluster_id][1]}, the same row's cells)",
            ))
    return found


def _range_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in rubric_data.STATED_RANGES:
        low, high = rater_range(stated.system_id)
        where = ", ".join(stated.where)
        name = REFERENCE_SYSTEM_NAMES[stated.system_id]
        if (stated.low, stated.high) != (low, high):
            note = ("Appendix A.9 and Appendix D define the range as the lowest to the highest "
                    "rater total.")
            if stated.system_id == "frank" and stated.low == 62:
                note += (" §15.9/§15.12 take the lower bound 62 from an extrapolation of the "
                         "architect-rater's 10-item subsample, which no table reproduces.")
            found.append(_osmd(
                "range", f"range.{stated.system_id}.{stated.low}-{stated.high}", where,
                f"{name}: behavioural range", _fmt_range(stated.low, stated.high),
                f"{_fmt_range(low, high)} (min–max of the Appendix D rater totals)", note,
            ))
        if stated.band_id is not None:
            bands = {band_for_total(stated.low).band_id, band_for_total(stated.high).band_id}
            if bands != {stated.band_id}:
                found.append(_osmd(
                    "band", f"range_band.{stated.system_id}.{stated.low}-{stated.high}", where,
                    f"{name}: band printed next to the range {stated.low}–{stated.high}",
                    stated.band_id,
                    " to ".join(sorted(bands, key=[b.band_id for b in rubric_data.BANDS].index))
                    + " (§6.4 band edges)",
                ))
    return found


def _gap_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in rubric_data.STATED_GAPS:
        gap = range_gap(stated.frank_range, stated.comparator_range)
        if gap != (stated.low, stated.high):
            found.append(_osmd(
                "gap", f"gap.{_slug(stated.where[0])}", ", ".join(stated.where),
                "Frank-minus-Claude-Code gap (behavioural range)",
                _fmt_range(stated.low, stated.high),
                f"{_fmt_range(*gap)} (Frank {_fmt_range(*stated.frank_range)} minus Claude "
                f"Code {_fmt_range(*stated.comparator_range)}, the ranges in force there)",
                "ES.3 and §7.9 compute the gap this way and get it right for their ranges.",
            ))
    frank, code = grid_totals("frank"), grid_totals("claude_code")
    for column, index in (("architectural", 0), ("behavioural", 1)):
        stated_gap = rubric_data.STATED_SECTION_7_9_GAP[column]
        if frank[index] - code[index] != stated_gap:
            found.append(_osmd(
                "gap", f"gap_point.{column}", "§7.9",
                f"Frank minus best comparator, {column} point totals",
                f"+{stated_gap}",
                f"+{frank[index] - code[index]} ({frank[index]} − {code[index]}, §6.1 grid sums)",
            ))
    floor = rubric_data.STATED_H1_FLOOR
    floor_gap = floor["frank_floor"] - floor["comparator_high"]
    holds = floor_gap >= rubric_data.H1_THRESHOLD_POINTS
    if holds != floor["holds"]:
        found.append(_osmd(
            "hypothesis", "h1_floor", "§15.12 (and ES.3's 24–41 gap with 'H1 supported')",
            "H1 (Frank ≥ best comparator + 25) at the architect-rater floor",
            "holds",
            f"does not hold: {floor['frank_floor']} − {floor['comparator_high']} = {floor_gap} "
            f"< {rubric_data.H1_THRESHOLD_POINTS}",
        ))
    return found


def _h2_discrepancies() -> list[Discrepancy]:
    found = []
    behav = h2_share("behavioural")
    arch = h2_share("architectural")
    for stated in rubric_data.STATED_H2_SHARES:
        if (stated.numerator, stated.denominator) != behav[:2]:
            note = ""
            if (stated.numerator, stated.denominator) == arch[:2]:
                note = ("Matches the architectural grid, while the text frames it as the "
                        "behavioural gap.")
            found.append(_osmd(
                "hypothesis", f"h2_share.{_slug(stated.where[0])}", ", ".join(stated.where),
                "H2: share of the Frank-minus-Claude-Code gap in RPT-3, PP-1, PP-2, AFFECT-1, "
                "SELF-1",
                f"{stated.numerator} of {stated.denominator} ({stated.percent}%)",
                f"behavioural {behav[0]} of {behav[1]} ({behav[2]:.1f}%); architectural "
                f"{arch[0]} of {arch[1]} ({arch[2]:.1f}%) (§6.1 grid)",
                note,
            ))
    return found


def _subsample_discrepancies() -> list[Discrepancy]:
    found = []
    for rater, stated in rubric_data.STATED_HUMAN_RATER_SUBTOTALS.items():
        scores = rubric_data.HUMAN_RATER_SCORES[rater]
        sums = (sum(a for a, _ in scores.values()), sum(b for _, b in scores.values()))
        for index, column in enumerate(("architectural", "behavioural")):
            if sums[index] != stated[index]:
                found.append(_osmd(
                    "subsample", f"subsample.{rater}.{column}", "§15.6, §15.11",
                    f"10-item subsample total, {rater.replace('_', ' ')} ({column})",
                    f"{stated[index]} / 30",
                    f"{sums[index]} / 30 (sum of the per-item table)",
                ))
    gabriel = rubric_data.HUMAN_RATER_SCORES["gabriel"]
    llm = rubric_data.HUMAN_RATER_SCORES["llm_consensus"]
    counts = {"lower": 0, "equal": 0, "higher": 0}
    for item_id in rubric_data.HUMAN_RATER_ITEMS:
        g, c = gabriel[item_id], llm[item_id]
        key = "equal" if g == c else ("lower" if sum(g) < sum(c) else "higher")
        counts[key] += 1
    if counts != dict(rubric_data.STATED_ARCHITECT_VS_LLM):
        found.append(_osmd(
            "subsample", "subsample.direction", "ES.4, §15.7",
            "architect vs LLM consensus: items lower / equal / higher",
            str(dict(rubric_data.STATED_ARCHITECT_VS_LLM)), f"{counts} (§15.6 table)",
        ))
    for item_id in rubric_data.HUMAN_RATER_ITEMS:
        if llm[item_id] != REFERENCE_GRIDS["frank"].pair(item_id):
            found.append(_osmd(
                "subsample", f"subsample.llm_vs_grid.{item_id}", "§15.6 vs §6.1",
                f"LLM consensus for Frank {item_id}", str(llm[item_id]),
                str(REFERENCE_GRIDS["frank"].pair(item_id)),
            ))
    return found


def _within_class_discrepancies() -> list[Discrepancy]:
    found = []
    minorch_sum = sum(rubric_data.MINORCH_CLUSTER_SCORES.values())
    low, high = rubric_data.MINORCH_PREDICTED_RANGE
    if minorch_sum != rubric_data.MINORCH_STATED_TOTAL:
        found.append(_osmd(
            "within_class", "minorch.total", "ES.7, §17.5, §14 (Attack 3)",
            "MinOrch-1 pilot total", f"{rubric_data.MINORCH_STATED_TOTAL} / 90",
            f"{minorch_sum} / 90 (sum of the §17.5 per-cluster breakdown)",
            f"The paper reads 48 as 'center-band' of its pre-registered {low}–{high}; "
            f"{minorch_sum} is outside that prediction.",
        ))
    frank_behav = grid_totals("frank")[1]
    lift = frank_behav - minorch_sum
    if lift != rubric_data.MINORCH_STATED_FRANK_LIFT:
        clusters = ("PP", "AFFECT", "AST")
        partial = sum(rubric_data.MINORCH_STATED_FRANK_CLUSTERS[c]
                      - rubric_data.MINORCH_CLUSTER_SCORES[c] for c in clusters)
        found.append(_osmd(
            "within_class", "minorch.frank_lift", "§17.5",
            "Frank's lift over MinOrch-1",
            f"+{rubric_data.MINORCH_STATED_FRANK_LIFT}",
            f"+{lift} ({frank_behav} − {minorch_sum}: §6.1 grid minus §17.5 clusters); "
            f"+{rubric_data.STATED_POINT_TOTALS['frank'].behavioural - rubric_data.MINORCH_STATED_TOTAL}"
            " from the stated totals (71 − 48)",
            f"+{partial} is the lift in the PP, AFFECT and AST clusters only.",
        ))
    code_behav = grid_totals("claude_code")[1]
    over_code = minorch_sum - code_behav
    if over_code != rubric_data.MINORCH_STATED_LIFT_OVER_CLAUDE_CODE:
        found.append(_osmd(
            "within_class", "minorch.lift_over_claude_code", "§17.5",
            "MinOrch-1's lift over Claude Code",
            f"+{rubric_data.MINORCH_STATED_LIFT_OVER_CLAUDE_CODE}",
            f"+{over_code} ({minorch_sum} − {code_behav}: §17.5 clusters minus §6.1 grid)",
            "Consistent with the stated totals (48 − 35); not with the tables.",
        ))
    frank_clusters = grid_cluster_subtotals("frank")
    for cluster_id, stated in rubric_data.MINORCH_STATED_FRANK_CLUSTERS.items():
        if frank_clusters[cluster_id][1] != stated:
            found.append(_osmd(
                "within_class", f"minorch.frank_cluster.{cluster_id}", "§17.5",
                f"Frank {cluster_id} cluster quoted next to MinOrch-1", str(stated),
                f"{frank_clusters[cluster_id][1]} (§6.1 grid, behavioural)",
            ))
    return found


def _ablation_discrepancies() -> list[Discrepancy]:
    found = []
    frank = REFERENCE_GRIDS["frank"]
    for ablation in rubric_data.ABLATIONS:
        low, high = ablation.predicted_delta
        inside = low <= ablation.stated_delta <= high
        if inside != ablation.stated_inside_prediction:
            found.append(_osmd(
                "ablation", f"ablation.{ablation.ablation_id}.prediction",
                f"{ablation.section}, §17.12, ES.7",
                f"{ablation.name} ablation: observed drop vs pre-registered {low} to {high}",
                "inside" if ablation.stated_inside_prediction else "outside",
                f"{'inside' if inside else 'outside'} ({ablation.stated_delta:+d} vs "
                f"{low} to {high}, §17.6)",
            ))
        item_rows = [row for row in ablation.rows if not row.is_cluster]
        listed_clusters = {row.label.split("-")[0] for row in item_rows}
        summed_rows = item_rows + [row for row in ablation.rows
                                   if row.is_cluster and row.label not in listed_clusters]
        listed = sum(row.behavioural_delta for row in summed_rows)
        if listed != ablation.stated_delta:
            found.append(_osmd(
                "ablation", f"ablation.{ablation.ablation_id}.rows", ablation.section,
                f"{ablation.name} ablation: total drop vs the table's own rows (behavioural)",
                f"{ablation.stated_delta:+d} ({ablation.stated_total_before} → "
                f"{ablation.stated_total_after})",
                f"{listed:+d} (sum of the listed rows)",
                "The remaining points are not attributed to any item; the Thalamus and BODY "
                "tables do add up.",
            ))
        frank_clusters = grid_cluster_subtotals("frank")
        for row in ablation.rows:
            if row.is_cluster and row.before != frank_clusters[row.label]:
                found.append(_osmd(
                    "ablation", f"ablation.{ablation.ablation_id}.before.{row.label}",
                    ablation.section, f"{row.label} cluster before ablation", str(row.before),
                    f"{frank_clusters[row.label]} (§6.1 grid)",
                ))
            if row.is_cluster:
                if row.label in listed_clusters:
                    after = {r.label: r.after[1] for r in item_rows}
                    recomputed = sum(after.get(i, frank.pair(i)[1])
                                     for i in rubric_data.CLUSTER_BY_ID[row.label].item_ids)
                    if recomputed != row.after[1]:
                        found.append(_osmd(
                            "ablation", f"ablation.{ablation.ablation_id}.cluster.{row.label}",
                            ablation.section,
                            f"{ablation.name} ablation: {row.label} cluster after",
                            f"{row.after[1]} / 12",
                            f"{recomputed} / 12 (listed item rows; unlisted items unchanged "
                            "at their §6.1 values)",
                        ))
            elif row.before != frank.pair(row.label):
                found.append(_osmd(
                    "ablation", f"ablation.{ablation.ablation_id}.before.{row.label}",
                    ablation.section, f"{row.label} before ablation", str(row.before),
                    f"{frank.pair(row.label)} (§6.1 grid)",
                ))
    total_drop = sum(a.stated_delta for a in rubric_data.ABLATIONS)
    if total_drop != rubric_data.STATED_ABLATION_SUM:
        found.append(_osmd("ablation", "ablation.sum", "ES.7, §17.12",
                           "sum of ablation drops", str(rubric_data.STATED_ABLATION_SUM),
                           f"{total_drop} (sum of the five stated drops)"))
    all_off = rubric_data.STATED_POINT_TOTALS["frank"].behavioural + total_drop
    if all_off != rubric_data.STATED_ALL_ABLATED_SCORE:
        found.append(_osmd("ablation", "ablation.all_off", "ES.7, §17.12",
                           "Frank with all five subsystems off (additive)",
                           f"~{rubric_data.STATED_ALL_ABLATED_SCORE} / 90",
                           f"{all_off} / 90 (71 plus the five stated drops)"))
    return found


def _other_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in rubric_data.STATED_PERCENTAGES:
        if not percentage_is_achievable(stated.percent, stated.decimals, stated.n):
            below = math.floor(stated.percent * stated.n / 100)
            neighbours = ", ".join(
                f"{k}/{stated.n} = {100 * k / stated.n:.1f}%" for k in (below, below + 1))
            found.append(_osmd(
                "percentage", f"percent.{_slug(stated.where)}.n{stated.n}", stated.where,
                f"{stated.quantity} (n = {stated.n})", f"{stated.percent:g}%",
                f"no count out of {stated.n} gives it ({neighbours})",
            ))
    gap = (rubric_data.HALLUCINATION_RATE_PERCENT["gpt4o_memory"]
           - rubric_data.HALLUCINATION_RATE_PERCENT["frank"])
    if not math.isclose(gap, rubric_data.STATED_HALLUCINATION_GAP_POINTS):
        retrieval_gap = (rubric_data.RETRIEVAL_ACCURACY_PERCENT["frank"]
                         - rubric_data.RETRIEVAL_ACCURACY_PERCENT["gpt4o_memory"])
        found.append(_osmd(
            "text_vs_table", "hallucination_gap", "§16.7",
            "hallucination-rate gap, Frank vs GPT-4o + memory",
            f"{rubric_data.STATED_HALLUCINATION_GAP_POINTS} points",
            f"{gap:.1f} points (11% − 3.2%, §16.5)",
            f"{retrieval_gap:g} points is the §16.3 retrieval-accuracy gap (91% − 67%).",
        ))
    raters = rubric_data.RATER_TOTALS_APPENDIX_D["frank"]
    shortfalls = {r: raters["claude"] - raters[r] for r in ("gpt4o", "gemini")}
    low, high = rubric_data.STATED_APPENDIX_D_FRANK_SHORTFALL
    if not all(low <= s <= high for s in shortfalls.values()):
        found.append(_osmd(
            "text_vs_table", "appendix_d.frank_shortfall", "Appendix D",
            "how far GPT-4o and Gemini score Frank below the Claude rater",
            f"both ~{low}–{high} points lower",
            f"GPT-4o {shortfalls['gpt4o']}, Gemini {shortfalls['gemini']} (Appendix D table)",
        ))
    low_rater, high_rater = rubric_data.STATED_APPENDIX_D_BOUND_RATERS
    n_low = n_high = 0
    for totals in rubric_data.RATER_TOTALS_APPENDIX_D.values():
        n_low += totals[low_rater] == min(totals.values())
        n_high += totals[high_rater] == max(totals.values())
    n_systems = len(rubric_data.RATER_TOTALS_APPENDIX_D)
    if (n_low, n_high) != (n_systems, n_systems):
        found.append(_osmd(
            "text_vs_table", "appendix_d.bound_raters", "Appendix D",
            "which raters give the bounds of the reported range",
            f"lower bound {low_rater}, upper bound {high_rater}",
            f"{low_rater} is the lowest rater for {n_low} of {n_systems} systems, {high_rater} "
            f"the highest (ties included) for {n_high} of {n_systems} (Appendix D table)",
        ))
    if rubric_data.STATED_FAMILY_COUNT_SECTION_2 != len(CLUSTERS):
        found.append(_osmd(
            "text_vs_table", "family_count", "§2",
            "number of theory families in the taxonomy",
            f"{rubric_data.STATED_FAMILY_COUNT_SECTION_2} ('six families')",
            f"{len(CLUSTERS)} (rows of the §2 table; §1.1 also says 8)",
        ))
    for system_id in REFERENCE_GRIDS:
        scored = score_reference_system(system_id)
        for item in scored.capped_items:
            rule = rubric_data.RULE_BY_ID[item.rules_applied[-1]]
            found.append(_osmd(
                "rule", f"rule.{system_id}.{item.item_id}", "§6.1 vs Appendix A.9",
                f"{REFERENCE_SYSTEM_NAMES[system_id]} {item.item_id} behavioural score",
                f"{item.architectural} / {item.behavioural_entered}",
                f"at most {item.behavioural_cap} under the {rule.rule_id.replace('_', '-')} "
                f"rule ({rule.sections}); the paper cites no operational content for it",
                "Appendix A.2 itself notes Frank's GWT-5 selection is gain modulation, not "
                "winner-take-all." if item.item_id == "GWT-5" else "",
            ))
    return found


def osmd_discrepancies() -> tuple[Discrepancy, ...]:
    """Every disagreement between OSMD's stated numbers and its own tables.

    Returns
    -------
    tuple of Discrepancy
        Grouped by kind, in a fixed order.

    Examples
    --------
    >>> found = {d.discrepancy_id: d for d in osmd_discrepancies()}
    >>> found["osmd.total.frank.behavioural"].stated, found["osmd.total.frank.behavioural"].recomputed
    ('71 / 90', '68 / 90 (sum of the §6.1 grid)')
    """
    return tuple(
        _total_discrepancies() + _cluster_discrepancies() + _range_discrepancies()
        + _gap_discrepancies() + _h2_discrepancies() + _subsample_discrepancies()
        + _within_class_discrepancies() + _ablation_discrepancies() + _other_discrepancies()
    )


# ----------------------------------------------------------------------------------------
# FCS recomputations
# ----------------------------------------------------------------------------------------


def nearest_table_ratio(target: float) -> tuple[str, str, float]:
    """The pair of FCS-table rows whose recomputed FCS ratio is closest to ``target``.

    Closeness is measured on a log scale; rows with FCS 0 are skipped as denominators.

    Examples
    --------
    >>> num, den, ratio = nearest_table_ratio(87)
    >>> num, den, round(ratio, 1)
    ('Generative Agents', 'Waymo L4', 86.7)
    """
    fcs = {row.system: recompute_fcs_row(row).recomputed_fcs
           for row in fcs_data.FCS_REFERENCE_TABLE}
    candidates = [(a, b, fcs[a] / fcs[b]) for a, b in permutations(fcs, 2)
                  if fcs[b] > 0 and fcs[a] > 0]
    return min(candidates, key=lambda c: abs(math.log(c[2] / target)))


def most_capable_artificial_agent() -> str:
    """The AI system with the highest recomputed FCS in the page's table.

    Examples
    --------
    >>> most_capable_artificial_agent()
    'Generative Agents'
    """
    agents = [row for row in fcs_data.FCS_REFERENCE_TABLE if row.is_artificial_agent]
    return max(agents, key=lambda row: recompute_fcs_row(row).recomputed_fcs).system


def _fcs(kind: str, discrepancy_id: str, where: str, quantity: str, stated: str,
         recomputed: str, note: str = "") -> Discrepancy:
    return Discrepancy(f"fcs.{discrepancy_id}", "FCS", kind, where, quantity, stated,
                       recomputed, note)


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
    for row in fcs_data.FCS_REFERENCE_TABLE:
        recomputed = recompute_fcs_row(row)
        if not recomputed.agrees_with_stated:
            found.append(_fcs(
                "total", f"row.{_slug(row.system)}", "table 'Reasoning vs Capacity Diagram'",
                f"{row.system}: FCS", row.stated_fcs_text,
                f"{recomputed.recomputed_fcs:,.0f} (B vars × bits/var × P)",
            ))
    for card_system, (p, fcs_text) in fcs_data.RADAR_CARDS.items():
        row = fcs_data.FCS_ROW_BY_SYSTEM[card_system]
        if p != row.reasoning_power or fcs_text.lstrip("~") != row.stated_fcs_text.lstrip("~"):
            found.append(_fcs("text_vs_table", f"radar.{_slug(card_system)}", "radar cards",
                              f"{card_system}: P and FCS on its card", f"{p}, {fcs_text}",
                              f"{row.reasoning_power:g}, {row.stated_fcs_text} (table)"))
    fcs = {row.system: recompute_fcs_row(row).recomputed_fcs
           for row in fcs_data.FCS_REFERENCE_TABLE}
    for stated in fcs_data.STATED_RATIOS:
        denominator_system = stated.denominator_system
        if denominator_system == "most capable AI agent":
            denominator_system = most_capable_artificial_agent()
        numerator, denominator = fcs[stated.numerator_system], fcs[denominator_system]
        ratio = numerator / denominator if denominator > 0 else math.inf
        if math.isinf(ratio) or abs(ratio - stated.stated_ratio) / stated.stated_ratio > 0.05:
            near_num, near_den, near_ratio = nearest_table_ratio(stated.stated_ratio)
            shown = ("undefined (its FCS is 0)" if math.isinf(ratio)
                     else f"{ratio:.2f}")
            found.append(_fcs(
                "ratio", f"ratio.{stated.ratio_id}", "call-outs under the table",
                f"{stated.numerator_system} / {denominator_system}",
                f"×{stated.stated_ratio:g}",
                f"{shown} ({numerator:,.0f} / {denominator:,.0f}, recomputed table rows)",
                f"The table ratio nearest to ×{stated.stated_ratio:g} is {near_num} / "
                f"{near_den} = {near_ratio:.1f}.",
            ))
    return tuple(found)


def all_discrepancies() -> tuple[Discrepancy, ...]:
    """OSMD and FCS discrepancies together."""
    return osmd_discrepancies() + fcs_discrepancies()
