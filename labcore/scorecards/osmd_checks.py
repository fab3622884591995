"""List every disagreement between OSMD's stated numbers and the paper's own tables.

One private check per kind of number (totals and bands, cluster subtotals, rater ranges,
gaps and hypotheses, the human-rater subsample, the within-class pilot, ablations,
percentages and text-vs-table claims, rule caps); :func:`osmd_discrepancies` runs them all
in a fixed order. The recomputations they compare against are in
:mod:`labcore.scorecards.osmd_recompute`; nothing here "corrects" the paper.
"""

from __future__ import annotations

import math

from labcore.scorecards import tables
from labcore.scorecards.discrepancy import Discrepancy, _slug
from labcore.scorecards.osmd_recompute import (
    grid_cluster_subtotals,
    grid_totals,
    h2_share,
    percentage_is_achievable,
    range_gap,
    rater_range,
)
from labcore.scorecards.rubric import band_for_total, score_reference_system
from labcore.scorecards.tables import CLUSTERS, REFERENCE_GRIDS, REFERENCE_SYSTEM_NAMES


def _fmt_range(low: float, high: float) -> str:
    return f"{low:g}–{high:g}"


def _osmd(
    kind: str,
    discrepancy_id: str,
    where: str,
    quantity: str,
    stated: str,
    recomputed: str,
    note: str = "",
) -> Discrepancy:
    return Discrepancy(
        f"osmd.{discrepancy_id}", "OSMD", kind, where, quantity, stated, recomputed, note
    )


def _total_discrepancies() -> list[Discrepancy]:
    found = []
    for system_id in REFERENCE_GRIDS:
        stated = tables.STATED_POINT_TOTALS[system_id]
        grid = dict(zip(("architectural", "behavioural"), grid_totals(system_id), strict=True))
        where = "§6.3" + (", §7.9" if system_id in ("frank", "claude_code") else "")
        for column in ("architectural", "behavioural"):
            if getattr(stated, column) != grid[column]:
                found.append(
                    _osmd(
                        "total",
                        f"total.{system_id}.{column}",
                        where,
                        f"{REFERENCE_SYSTEM_NAMES[system_id]}: {column} point total",
                        f"{getattr(stated, column)} / 90",
                        f"{grid[column]} / 90 (sum of the §6.1 grid)",
                        "Appendix B's sympathetic column and Appendix D's Claude-rater column "
                        "repeat the stated behavioural totals."
                        if column == "behavioural"
                        else "",
                    )
                )
        grid_band = band_for_total(grid["behavioural"]).band_id
        if grid_band != stated.band_id:
            found.append(
                _osmd(
                    "band",
                    f"band.{system_id}",
                    "§6.3",
                    f"{REFERENCE_SYSTEM_NAMES[system_id]}: band",
                    stated.band_id,
                    f"{grid_band} (band of the grid sum)",
                )
            )
    return found


def _cluster_discrepancies() -> list[Discrepancy]:
    found = []
    frank = grid_cluster_subtotals("frank")
    code = grid_cluster_subtotals("claude_code")
    for cluster_id, stated in tables.STATED_CLUSTER_SUBTOTALS.items():
        for system_id, grid_pair, stated_pair in (
            ("frank", frank[cluster_id], stated.frank),
            ("claude_code", code[cluster_id], stated.best_comparator),
        ):
            if grid_pair != stated_pair:
                found.append(
                    _osmd(
                        "cluster",
                        f"cluster.{cluster_id}.{system_id}",
                        stated.section,
                        (
                            f"{cluster_id} subtotal, {REFERENCE_SYSTEM_NAMES[system_id]} "
                            "(arch / behav)"
                        ),
                        f"{stated_pair[0]} / {stated_pair[1]}",
                        f"{grid_pair[0]} / {grid_pair[1]} (§6.1 grid)",
                    )
                )
        delta = frank[cluster_id][1] - code[cluster_id][1]
        if delta != stated.behavioural_delta:
            found.append(
                _osmd(
                    "cluster",
                    f"cluster_delta.{cluster_id}",
                    stated.section,
                    f"{cluster_id} subtotal, Frank minus Claude Code (behavioural)",
                    f"+{stated.behavioural_delta}",
                    (
                        f"+{delta} ({frank[cluster_id][1]} − {code[cluster_id][1]}, the "
                        "same row's cells)"
                    ),
                )
            )
    return found


def _range_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in tables.STATED_RANGES:
        low, high = rater_range(stated.system_id)
        where = ", ".join(stated.where)
        name = REFERENCE_SYSTEM_NAMES[stated.system_id]
        if (stated.low, stated.high) != (low, high):
            note = (
                "Appendix A.9 and Appendix D define the range as the lowest to the highest "
                "rater total."
            )
            if stated.system_id == "frank" and stated.low == 62:
                note += (
                    " §15.9/§15.12 take the lower bound 62 from an extrapolation of the "
                    "architect-rater's 10-item subsample, which no table reproduces."
                )
            found.append(
                _osmd(
                    "range",
                    f"range.{stated.system_id}.{stated.low}-{stated.high}",
                    where,
                    f"{name}: behavioural range",
                    _fmt_range(stated.low, stated.high),
                    f"{_fmt_range(low, high)} (min–max of the Appendix D rater totals)",
                    note,
                )
            )
        if stated.band_id is not None:
            bands = {band_for_total(stated.low).band_id, band_for_total(stated.high).band_id}
            if bands != {stated.band_id}:
                found.append(
                    _osmd(
                        "band",
                        f"range_band.{stated.system_id}.{stated.low}-{stated.high}",
                        where,
                        f"{name}: band printed next to the range {stated.low}–{stated.high}",
                        stated.band_id,
                        " to ".join(sorted(bands, key=[b.band_id for b in tables.BANDS].index))
                        + " (§6.4 band edges)",
                    )
                )
    return found


def _gap_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in tables.STATED_GAPS:
        gap = range_gap(stated.frank_range, stated.comparator_range)
        if gap != (stated.low, stated.high):
            found.append(
                _osmd(
                    "gap",
                    f"gap.{_slug(stated.where[0])}",
                    ", ".join(stated.where),
                    "Frank-minus-Claude-Code gap (behavioural range)",
                    _fmt_range(stated.low, stated.high),
                    f"{_fmt_range(*gap)} (Frank {_fmt_range(*stated.frank_range)} minus Claude "
                    f"Code {_fmt_range(*stated.comparator_range)}, the ranges in force there)",
                    "ES.3 and §7.9 compute the gap this way and get it right for their ranges.",
                )
            )
    frank, code = grid_totals("frank"), grid_totals("claude_code")
    for column, index in (("architectural", 0), ("behavioural", 1)):
        stated_gap = tables.STATED_SECTION_7_9_GAP[column]
        if frank[index] - code[index] != stated_gap:
            found.append(
                _osmd(
                    "gap",
                    f"gap_point.{column}",
                    "§7.9",
                    f"Frank minus best comparator, {column} point totals",
                    f"+{stated_gap}",
                    (
                        f"+{frank[index] - code[index]} ({frank[index]} − {code[index]}, "
                        "§6.1 grid sums)"
                    ),
                )
            )
    floor = tables.STATED_H1_FLOOR
    floor_gap = floor["frank_floor"] - floor["comparator_high"]
    holds = floor_gap >= tables.H1_THRESHOLD_POINTS
    if holds != floor["holds"]:
        found.append(
            _osmd(
                "hypothesis",
                "h1_floor",
                "§15.12 (and ES.3's 24–41 gap with 'H1 supported')",
                "H1 (Frank ≥ best comparator + 25) at the architect-rater floor",
                "holds",
                f"does not hold: {floor['frank_floor']} − {floor['comparator_high']} = {floor_gap} "
                f"< {tables.H1_THRESHOLD_POINTS}",
            )
        )
    return found


def _h2_discrepancies() -> list[Discrepancy]:
    found = []
    behav = h2_share("behavioural")
    arch = h2_share("architectural")
    for stated in tables.STATED_H2_SHARES:
        if (stated.numerator, stated.denominator) != behav[:2]:
            note = ""
            if (stated.numerator, stated.denominator) == arch[:2]:
                note = (
                    "Matches the architectural grid, while the text frames it as the "
                    "behavioural gap."
                )
            found.append(
                _osmd(
                    "hypothesis",
                    f"h2_share.{_slug(stated.where[0])}",
                    ", ".join(stated.where),
                    "H2: share of the Frank-minus-Claude-Code gap in RPT-3, PP-1, PP-2, AFFECT-1, "
                    "SELF-1",
                    f"{stated.numerator} of {stated.denominator} ({stated.percent}%)",
                    f"behavioural {behav[0]} of {behav[1]} ({behav[2]:.1f}%); architectural "
                    f"{arch[0]} of {arch[1]} ({arch[2]:.1f}%) (§6.1 grid)",
                    note,
                )
            )
    return found


def _subsample_discrepancies() -> list[Discrepancy]:
    found = []
    for rater, stated in tables.STATED_HUMAN_RATER_SUBTOTALS.items():
        scores = tables.HUMAN_RATER_SCORES[rater]
        sums = (sum(a for a, _ in scores.values()), sum(b for _, b in scores.values()))
        for index, column in enumerate(("architectural", "behavioural")):
            if sums[index] != stated[index]:
                found.append(
                    _osmd(
                        "subsample",
                        f"subsample.{rater}.{column}",
                        "§15.6, §15.11",
                        f"10-item subsample total, {rater.replace('_', ' ')} ({column})",
                        f"{stated[index]} / 30",
                        f"{sums[index]} / 30 (sum of the per-item table)",
                    )
                )
    gabriel = tables.HUMAN_RATER_SCORES["gabriel"]
    llm = tables.HUMAN_RATER_SCORES["llm_consensus"]
    counts = {"lower": 0, "equal": 0, "higher": 0}
    for item_id in tables.HUMAN_RATER_ITEMS:
        g, c = gabriel[item_id], llm[item_id]
        key = "equal" if g == c else ("lower" if sum(g) < sum(c) else "higher")
        counts[key] += 1
    if counts != dict(tables.STATED_ARCHITECT_VS_LLM):
        found.append(
            _osmd(
                "subsample",
                "subsample.direction",
                "ES.4, §15.7",
                "architect vs LLM consensus: items lower / equal / higher",
                str(dict(tables.STATED_ARCHITECT_VS_LLM)),
                f"{counts} (§15.6 table)",
            )
        )
    for item_id in tables.HUMAN_RATER_ITEMS:
        if llm[item_id] != REFERENCE_GRIDS["frank"].pair(item_id):
            found.append(
                _osmd(
                    "subsample",
                    f"subsample.llm_vs_grid.{item_id}",
                    "§15.6 vs §6.1",
                    f"LLM consensus for Frank {item_id}",
                    str(llm[item_id]),
                    str(REFERENCE_GRIDS["frank"].pair(item_id)),
                )
            )
    return found


def _within_class_discrepancies() -> list[Discrepancy]:
    found = []
    minorch_sum = sum(tables.MINORCH_CLUSTER_SCORES.values())
    low, high = tables.MINORCH_PREDICTED_RANGE
    if minorch_sum != tables.MINORCH_STATED_TOTAL:
        found.append(
            _osmd(
                "within_class",
                "minorch.total",
                "ES.7, §17.5, §14 (Attack 3)",
                "MinOrch-1 pilot total",
                f"{tables.MINORCH_STATED_TOTAL} / 90",
                f"{minorch_sum} / 90 (sum of the §17.5 per-cluster breakdown)",
                f"The paper reads 48 as 'center-band' of its pre-registered {low}–{high}; "
                f"{minorch_sum} is outside that prediction.",
            )
        )
    frank_behav = grid_totals("frank")[1]
    lift = frank_behav - minorch_sum
    if lift != tables.MINORCH_STATED_FRANK_LIFT:
        clusters = ("PP", "AFFECT", "AST")
        partial = sum(
            tables.MINORCH_STATED_FRANK_CLUSTERS[c] - tables.MINORCH_CLUSTER_SCORES[c]
            for c in clusters
        )
        stated_lift = tables.STATED_POINT_TOTALS["frank"].behavioural - tables.MINORCH_STATED_TOTAL
        found.append(
            _osmd(
                "within_class",
                "minorch.frank_lift",
                "§17.5",
                "Frank's lift over MinOrch-1",
                f"+{tables.MINORCH_STATED_FRANK_LIFT}",
                f"+{lift} ({frank_behav} − {minorch_sum}: §6.1 grid minus §17.5 clusters); "
                f"+{stated_lift}"
                " from the stated totals (71 − 48)",
                f"+{partial} is the lift in the PP, AFFECT and AST clusters only.",
            )
        )
    code_behav = grid_totals("claude_code")[1]
    over_code = minorch_sum - code_behav
    if over_code != tables.MINORCH_STATED_LIFT_OVER_CLAUDE_CODE:
        found.append(
            _osmd(
                "within_class",
                "minorch.lift_over_claude_code",
                "§17.5",
                "MinOrch-1's lift over Claude Code",
                f"+{tables.MINORCH_STATED_LIFT_OVER_CLAUDE_CODE}",
                f"+{over_code} ({minorch_sum} − {code_behav}: §17.5 clusters minus §6.1 grid)",
                "Consistent with the stated totals (48 − 35); not with the tables.",
            )
        )
    frank_clusters = grid_cluster_subtotals("frank")
    for cluster_id, stated in tables.MINORCH_STATED_FRANK_CLUSTERS.items():
        if frank_clusters[cluster_id][1] != stated:
            found.append(
                _osmd(
                    "within_class",
                    f"minorch.frank_cluster.{cluster_id}",
                    "§17.5",
                    f"Frank {cluster_id} cluster quoted next to MinOrch-1",
                    str(stated),
                    f"{frank_clusters[cluster_id][1]} (§6.1 grid, behavioural)",
                )
            )
    return found


def _ablation_discrepancies() -> list[Discrepancy]:
    found = []
    frank = REFERENCE_GRIDS["frank"]
    for ablation in tables.ABLATIONS:
        low, high = ablation.predicted_delta
        inside = low <= ablation.stated_delta <= high
        if inside != ablation.stated_inside_prediction:
            found.append(
                _osmd(
                    "ablation",
                    f"ablation.{ablation.ablation_id}.prediction",
                    f"{ablation.section}, §17.12, ES.7",
                    f"{ablation.name} ablation: observed drop vs pre-registered {low} to {high}",
                    "inside" if ablation.stated_inside_prediction else "outside",
                    f"{'inside' if inside else 'outside'} ({ablation.stated_delta:+d} vs "
                    f"{low} to {high}, §17.6)",
                )
            )
        item_rows = [row for row in ablation.rows if not row.is_cluster]
        listed_clusters = {row.label.split("-")[0] for row in item_rows}
        summed_rows = item_rows + [
            row for row in ablation.rows if row.is_cluster and row.label not in listed_clusters
        ]
        listed = sum(row.behavioural_delta for row in summed_rows)
        if listed != ablation.stated_delta:
            found.append(
                _osmd(
                    "ablation",
                    f"ablation.{ablation.ablation_id}.rows",
                    ablation.section,
                    f"{ablation.name} ablation: total drop vs the table's own rows (behavioural)",
                    f"{ablation.stated_delta:+d} ({ablation.stated_total_before} → "
                    f"{ablation.stated_total_after})",
                    f"{listed:+d} (sum of the listed rows)",
                    "The remaining points are not attributed to any item; the Thalamus and BODY "
                    "tables do add up.",
                )
            )
        frank_clusters = grid_cluster_subtotals("frank")
        for row in ablation.rows:
            if row.is_cluster and row.before != frank_clusters[row.label]:
                found.append(
                    _osmd(
                        "ablation",
                        f"ablation.{ablation.ablation_id}.before.{row.label}",
                        ablation.section,
                        f"{row.label} cluster before ablation",
                        str(row.before),
                        f"{frank_clusters[row.label]} (§6.1 grid)",
                    )
                )
            if row.is_cluster:
                if row.label in listed_clusters:
                    after = {r.label: r.after[1] for r in item_rows}
                    recomputed = sum(
                        after.get(i, frank.pair(i)[1])
                        for i in tables.CLUSTER_BY_ID[row.label].item_ids
                    )
                    if recomputed != row.after[1]:
                        found.append(
                            _osmd(
                                "ablation",
                                f"ablation.{ablation.ablation_id}.cluster.{row.label}",
                                ablation.section,
                                f"{ablation.name} ablation: {row.label} cluster after",
                                f"{row.after[1]} / 12",
                                f"{recomputed} / 12 (listed item rows; unlisted items unchanged "
                                "at their §6.1 values)",
                            )
                        )
            elif row.before != frank.pair(row.label):
                found.append(
                    _osmd(
                        "ablation",
                        f"ablation.{ablation.ablation_id}.before.{row.label}",
                        ablation.section,
                        f"{row.label} before ablation",
                        str(row.before),
                        f"{frank.pair(row.label)} (§6.1 grid)",
                    )
                )
    total_drop = sum(a.stated_delta for a in tables.ABLATIONS)
    if total_drop != tables.STATED_ABLATION_SUM:
        found.append(
            _osmd(
                "ablation",
                "ablation.sum",
                "ES.7, §17.12",
                "sum of ablation drops",
                str(tables.STATED_ABLATION_SUM),
                f"{total_drop} (sum of the five stated drops)",
            )
        )
    all_off = tables.STATED_POINT_TOTALS["frank"].behavioural + total_drop
    if all_off != tables.STATED_ALL_ABLATED_SCORE:
        found.append(
            _osmd(
                "ablation",
                "ablation.all_off",
                "ES.7, §17.12",
                "Frank with all five subsystems off (additive)",
                f"~{tables.STATED_ALL_ABLATED_SCORE} / 90",
                f"{all_off} / 90 (71 plus the five stated drops)",
            )
        )
    return found


def _other_discrepancies() -> list[Discrepancy]:
    found = []
    for stated in tables.STATED_PERCENTAGES:
        if not percentage_is_achievable(stated.percent, stated.decimals, stated.n):
            below = math.floor(stated.percent * stated.n / 100)
            neighbours = ", ".join(
                f"{k}/{stated.n} = {100 * k / stated.n:.1f}%" for k in (below, below + 1)
            )
            found.append(
                _osmd(
                    "percentage",
                    f"percent.{_slug(stated.where)}.n{stated.n}",
                    stated.where,
                    f"{stated.quantity} (n = {stated.n})",
                    f"{stated.percent:g}%",
                    f"no count out of {stated.n} gives it ({neighbours})",
                )
            )
    gap = (
        tables.HALLUCINATION_RATE_PERCENT["gpt4o_memory"]
        - tables.HALLUCINATION_RATE_PERCENT["frank"]
    )
    if not math.isclose(gap, tables.STATED_HALLUCINATION_GAP_POINTS):
        retrieval_gap = (
            tables.RETRIEVAL_ACCURACY_PERCENT["frank"]
            - tables.RETRIEVAL_ACCURACY_PERCENT["gpt4o_memory"]
        )
        found.append(
            _osmd(
                "text_vs_table",
                "hallucination_gap",
                "§16.7",
                "hallucination-rate gap, Frank vs GPT-4o + memory",
                f"{tables.STATED_HALLUCINATION_GAP_POINTS} points",
                f"{gap:.1f} points (11% − 3.2%, §16.5)",
                f"{retrieval_gap:g} points is the §16.3 retrieval-accuracy gap (91% − 67%).",
            )
        )
    raters = tables.RATER_TOTALS_APPENDIX_D["frank"]
    shortfalls = {r: raters["claude"] - raters[r] for r in ("gpt4o", "gemini")}
    low, high = tables.STATED_APPENDIX_D_FRANK_SHORTFALL
    if not all(low <= s <= high for s in shortfalls.values()):
        found.append(
            _osmd(
                "text_vs_table",
                "appendix_d.frank_shortfall",
                "Appendix D",
                "how far GPT-4o and Gemini score Frank below the Claude rater",
                f"both ~{low}–{high} points lower",
                f"GPT-4o {shortfalls['gpt4o']}, Gemini {shortfalls['gemini']} (Appendix D table)",
            )
        )
    low_rater, high_rater = tables.STATED_APPENDIX_D_BOUND_RATERS
    n_low = n_high = 0
    for totals in tables.RATER_TOTALS_APPENDIX_D.values():
        n_low += totals[low_rater] == min(totals.values())
        n_high += totals[high_rater] == max(totals.values())
    n_systems = len(tables.RATER_TOTALS_APPENDIX_D)
    if (n_low, n_high) != (n_systems, n_systems):
        found.append(
            _osmd(
                "text_vs_table",
                "appendix_d.bound_raters",
                "Appendix D",
                "which raters give the bounds of the reported range",
                f"lower bound {low_rater}, upper bound {high_rater}",
                f"{low_rater} is the lowest rater for {n_low} of {n_systems} systems, {high_rater} "
                f"the highest (ties included) for {n_high} of {n_systems} (Appendix D table)",
            )
        )
    if tables.STATED_FAMILY_COUNT_SECTION_2 != len(CLUSTERS):
        found.append(
            _osmd(
                "text_vs_table",
                "family_count",
                "§2",
                "number of theory families in the taxonomy",
                f"{tables.STATED_FAMILY_COUNT_SECTION_2} ('six families')",
                f"{len(CLUSTERS)} (rows of the §2 table; §1.1 also says 8)",
            )
        )
    for system_id in REFERENCE_GRIDS:
        scored = score_reference_system(system_id)
        for item in scored.capped_items:
            rule = tables.RULE_BY_ID[item.rules_applied[-1]]
            found.append(
                _osmd(
                    "rule",
                    f"rule.{system_id}.{item.item_id}",
                    "§6.1 vs Appendix A.9",
                    f"{REFERENCE_SYSTEM_NAMES[system_id]} {item.item_id} behavioural score",
                    f"{item.architectural} / {item.behavioural_entered}",
                    f"at most {item.behavioural_cap} under the {rule.rule_id.replace('_', '-')} "
                    f"rule ({rule.sections}); the paper cites no operational content for it",
                    "Appendix A.2 itself notes Frank's GWT-5 selection is gain modulation, not "
                    "winner-take-all."
                    if item.item_id == "GWT-5"
                    else "",
                )
            )
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
    >>> (found["osmd.total.frank.behavioural"].stated,
    ...  found["osmd.total.frank.behavioural"].recomputed)
    ('71 / 90', '68 / 90 (sum of the §6.1 grid)')
    """
    return tuple(
        _total_discrepancies()
        + _cluster_discrepancies()
        + _range_discrepancies()
        + _gap_discrepancies()
        + _h2_discrepancies()
        + _subsample_discrepancies()
        + _within_class_discrepancies()
        + _ablation_discrepancies()
        + _other_discrepancies()
    )
