"""The documents' reference numbers: recomputation from their own tables, and the
discrepancy lists (asserted explicitly), plus a transcription check against the sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labcore.scorecards.checks import (
    CHECKS,
    Check,
    evaluate,
    fcs_discrepancies,
    fcs_names,
    osmd_discrepancies,
    osmd_names,
    reference_summary,
)
from labcore.scorecards.documents import CAVEATS, FCS, OSMD
from labcore.scorecards.fcs import (
    fcs_of_row,
    functional_consciousness_score,
    printed_fcs_agrees,
    representational_capacity,
    round_to_significant,
)
from labcore.scorecards.rubric import score_reference_system

NAMES = osmd_names()

# ---------------------------------------------------------------------------------------
# OSMD: totals recomputed from the §6.1 grid
# ---------------------------------------------------------------------------------------

# Hand-summed from the §6.1 grid (arch, behav).
GRID_SUMS = {
    "claude_bare": (10, 18),
    "claude_code": (27, 34),
    "gpt4o_memory": (23, 28),
    "frank": (63, 68),
}
# As printed in §6.3.
STATED = {
    "claude_bare": (9, 22),
    "claude_code": (26, 35),
    "gpt4o_memory": (22, 30),
    "frank": (60, 71),
}


@pytest.mark.parametrize("system_id", list(GRID_SUMS))
def test_grid_totals_match_hand_sums(system_id):
    total = NAMES["total"]
    assert (total(system_id, "architectural"), total(system_id, "behavioural")) == GRID_SUMS[
        system_id
    ]


@pytest.mark.parametrize("system_id", list(GRID_SUMS))
def test_summary_exposes_both_stated_and_recomputed(system_id):
    summary = reference_summary(system_id)
    assert summary["stated"] == STATED[system_id]
    assert summary["grid"] == GRID_SUMS[system_id]
    assert summary["grid_band"] == summary["stated_band"]


def test_frank_cluster_subtotals_match_section_7_tables():
    subtotals = {c: NAMES["subtotal"]("frank", c) for c in OSMD.clusters}
    assert subtotals == {
        "RPT": (8, 11),
        "GWT": (10, 13),
        "HOT": (9, 7),
        "PP": (10, 10),
        "AST": (4, 5),
        "AE": (9, 9),
        "AFFECT": (5, 5),
        "SELF": (8, 8),
    }
    assert sum(b for _, b in subtotals.values()) == 68


def test_rules_reapplied_to_grids_only_cap_frank_gwt5():
    for system_id in GRID_SUMS:
        scored = score_reference_system(system_id)
        capped = [item.item_id for item in scored.capped_items]
        assert capped == (["GWT-5"] if system_id == "frank" else [])
        assert scored.architectural_total == GRID_SUMS[system_id][0]
    assert reference_summary("frank")["after_rules"] == 67


def test_reference_system_unknown_id():
    with pytest.raises(ValueError, match="hal9000"):
        score_reference_system("hal9000")


def test_rater_ranges_and_h2_shares():
    assert NAMES["rater_range"]("claude_bare") == (21, 24)
    assert NAMES["rater_range"]("gpt4o_memory") == (28, 30)
    assert NAMES["h2_gap"]("behavioural") == (10, 34)
    assert NAMES["h2_gap"]("architectural") == (11, 36)


@pytest.mark.parametrize(
    ("percent", "decimals", "n", "expected"),
    [
        (74, 0, 47, True),
        (3.2, 1, 500, True),
        (25, 0, 4, True),
        (73, 0, 50, False),
        (71, 0, 8, False),
        (72, 0, 6, False),
    ],
)
def test_percentage_achievability(percent, decimals, n, expected):
    assert bool(NAMES["counts"](percent, decimals, n)) is expected


def test_the_evaluator_binds_each_row_and_words_only_disagreements():
    check = Check(
        id="toy.{system}",
        kind="total",
        where="§{n}",
        quantity="{system}",
        each="n, (system, printed) in enumerate(printed_totals.items())",
        stated="printed",
        recomputed="real[system]",
        agrees="abs(stated - recomputed) <= tolerance",
        recomputed_text="{recomputed} (real)",
    )
    names = {"printed_totals": {"a": 3, "b": 5, "c": 9}, "real": {"a": 3, "b": 6, "c": 7}}
    found = evaluate([check], {**names, "tolerance": 1}, "OSMD")
    assert [(d.discrepancy_id, d.where, d.stated, d.recomputed) for d in found] == [
        ("toy.c", "§2", "9", "7 (real)")
    ]
    assert len(evaluate([check], {**names, "tolerance": 0}, "OSMD")) == 2


# ---------------------------------------------------------------------------------------
# The discrepancy lists, asserted explicitly
# ---------------------------------------------------------------------------------------

EXPECTED_OSMD_IDS = {
    # §6.3/§7.9 point totals vs §6.1 grid sums: all eight disagree.
    "osmd.total.claude_bare.architectural",
    "osmd.total.claude_bare.behavioural",
    "osmd.total.claude_code.architectural",
    "osmd.total.claude_code.behavioural",
    "osmd.total.gpt4o_memory.architectural",
    "osmd.total.gpt4o_memory.behavioural",
    "osmd.total.frank.architectural",
    "osmd.total.frank.behavioural",
    # §7.1 RPT "+6 (behav)" vs 11 − 6 = 5.
    "osmd.cluster_delta.RPT",
    # Every printed range vs min–max of the Appendix D rater totals.
    "osmd.range.claude_bare.20-25",
    "osmd.range.claude_bare.20-28",
    "osmd.range.claude_code.32-38",
    "osmd.range.claude_code.32-40",
    "osmd.range.gpt4o_memory.27-33",
    "osmd.range.gpt4o_memory.28-35",
    "osmd.range.frank.65-73",
    "osmd.range.frank.62-73",
    "osmd.range.frank.68-76",
    # Abstract: 20–28 labelled band I; 26–28 is band II.
    "osmd.range_band.claude_bare.20-28",
    # Gap ranges that do not follow from the ranges printed with them.
    "osmd.gap.abstract",
    "osmd.gap.s6_5",
    "osmd.gap.s19_1",
    # §7.9 point gaps +34 / +36 vs 36 / 34.
    "osmd.gap_point.architectural",
    "osmd.gap_point.behavioural",
    # §15.12: H1 "holds" at the floor, but 62 − 38 = 24 < 25.
    "osmd.h1_floor",
    # H2 shares: "11 of 39 (28%)" and "11 of 36 (31%)" vs 10 of 34.
    "osmd.h2_share.es_3",
    "osmd.h2_share.s6_5",
    # §15.6/§15.11 behavioural subsample totals vs their per-item tables.
    "osmd.subsample.gabriel.behavioural",
    "osmd.subsample.andreas.behavioural",
    "osmd.subsample.llm_consensus.behavioural",
    # §17.5 MinOrch-1.
    "osmd.minorch.total",
    "osmd.minorch.frank_lift",
    "osmd.minorch.lift_over_claude_code",
    # §17.7-§17.12 ablations.
    "osmd.ablation.identity_forge.prediction",
    "osmd.ablation.identity_forge.rows",
    "osmd.ablation.predictions_ledger.rows",
    "osmd.ablation.predictions_ledger.cluster.PP",
    "osmd.ablation.presence_scheduler.rows",
    # Percentages that no count out of the stated n can produce.
    "osmd.percent.s17_7_3.n50",
    "osmd.percent.s17_7_3.n8",
    "osmd.percent.s17_8.n6",
    # Text vs its own tables.
    "osmd.hallucination_gap",
    "osmd.appendix_d.frank_shortfall",
    "osmd.appendix_d.bound_raters",
    "osmd.family_count",
    # §6.1 cell that breaks the A.9 anti-eloquence rule.
    "osmd.rule.frank.GWT-5",
}
EXPECTED_FCS_IDS = {"fcs.ratio.agentic_leap", "fcs.ratio.human_gap"}


def test_osmd_discrepancy_list_is_exactly_the_expected_one():
    found = [d.discrepancy_id for d in osmd_discrepancies()]
    assert len(found) == len(set(found))
    assert set(found) == EXPECTED_OSMD_IDS


def test_fcs_discrepancy_list_is_exactly_the_expected_one():
    assert {d.discrepancy_id for d in fcs_discrepancies()} == EXPECTED_FCS_IDS


def _by_id():
    return {d.discrepancy_id: d for d in osmd_discrepancies() + fcs_discrepancies()}


NUMBER = re.compile(r"[-−]?\d+(?:,\d{3})*(?:\.\d+)?")


def numbers(text: str) -> list[float]:
    """The numbers a discrepancy's text states, in order ("65–73" -> 65, 73; "−" is a minus)."""
    return [float(n.replace("−", "-").replace(",", "")) for n in NUMBER.findall(text)]


@pytest.mark.parametrize(
    ("discrepancy_id", "stated", "recomputed"),
    [
        ("osmd.total.frank.architectural", [60, 90], [63, 90]),
        ("osmd.total.frank.behavioural", [71, 90], [68, 90]),
        ("osmd.total.claude_bare.behavioural", [22, 90], [18, 90]),
        ("osmd.cluster_delta.RPT", [6], [5]),
        ("osmd.range.frank.65-73", [65, 73], [65, 71]),
        ("osmd.range.claude_bare.20-25", [20, 25], [21, 24]),
        ("osmd.gap.abstract", [33, 40], [28, 44]),
        ("osmd.gap_point.behavioural", [36], [34]),
        ("osmd.h1_floor", [], [62, 38, 24]),  # "holds"; 62 − 38 = 24 < 25
        ("osmd.h2_share.es_3", [11, 39, 28], [10, 34, 29.4]),
        ("osmd.subsample.gabriel.behavioural", [20, 30], [16, 30]),
        ("osmd.subsample.llm_consensus.behavioural", [22, 30], [18, 30]),
        ("osmd.minorch.total", [48, 90], [38, 90]),
        ("osmd.minorch.frank_lift", [14], [30]),
        ("osmd.ablation.identity_forge.prediction", [], [-11, -10, -7]),  # "inside"
        ("osmd.ablation.identity_forge.rows", [-11, 71, 60], [-9]),
        ("osmd.ablation.predictions_ledger.cluster.PP", [4, 12], [5, 12]),
        ("osmd.ablation.presence_scheduler.rows", [-6, 71, 65], [-4]),
        ("osmd.percent.s17_7_3.n8", [71], [8]),  # no count out of 8
        ("osmd.hallucination_gap", [24], [7.8]),
        ("osmd.family_count", [6], [8]),
        ("osmd.rule.frank.GWT-5", [1, 3], [2]),  # at most 2 under the anti-eloquence rule
        ("fcs.ratio.agentic_leap", [87], [0]),  # undefined: its FCS is 0
        ("fcs.ratio.human_gap", [188], [2.15]),
    ],
)
def test_discrepancy_values(discrepancy_id, stated, recomputed):
    d = _by_id()[discrepancy_id]
    assert numbers(d.stated) == pytest.approx(stated)
    assert numbers(d.recomputed)[: len(recomputed)] == pytest.approx(recomputed)
    assert d.source in ("OSMD", "FCS") and d.kind
    assert d.where


def _osmd_ids(**update) -> set[str]:
    """The OSMD discrepancies found in a copy of the document with some tables replaced."""
    return {
        d.discrepancy_id
        for d in evaluate(CHECKS.OSMD, osmd_names(OSMD.model_copy(update=update)), "OSMD")
    }


def test_discrepancy_checks_fire_only_on_disagreement():
    # Make §6.3 agree with the grid: the total discrepancies must disappear.
    agreeing = {s: (*GRID_SUMS[s], band) for s, (_, _, band) in OSMD.stated_point_totals.items()}
    assert not any(i.startswith("osmd.total.") for i in _osmd_ids(stated_point_totals=agreeing))
    # Making MinOrch-1's total agree removes its entry ...
    assert "osmd.minorch.total" not in _osmd_ids(minorch_stated_total=38)
    # ... and a wrong GWT subtotal, where the paper is right, adds one.
    wrong = dict(OSMD.stated_cluster_subtotals)
    wrong["GWT"] = ("§7.2", (11, 13), wrong["GWT"][2], wrong["GWT"][3])
    assert "osmd.cluster.GWT.frank" in _osmd_ids(stated_cluster_subtotals=wrong)
    # A §6.1 cell above its cap, with no operational content cited, is a rule discrepancy.
    grid = dict(OSMD.grid_6_1)
    grid["RPT-1"] = ((0, 3), *grid["RPT-1"][1:])
    assert "osmd.rule.claude_bare.RPT-1" in _osmd_ids(grid_6_1=grid)


# ---------------------------------------------------------------------------------------
# FCS recomputed from its own columns
# ---------------------------------------------------------------------------------------

# (R = B vars × bits/var, FCS = R × P), hand-computed.
FCS_EXPECTED = {
    "Map": (40_000, 0),
    "Stateless LLM": (0, 0),
    "LIDA": (80, 2_640),
    "Roomba + SLAM": (144, 5_616),
    "ACT-R": (160, 8_000),
    "Waymo L4": (560, 74_480),
    "Generative Agents": (13_000, 6_461_000),
    "Human (kinematic)": (5_500, 10_043_000),
    "Human (working mem.)": (4_620, 13_860_000),
}
FCS_ROWS = {row["system"]: row for row in FCS.reference_table}


@pytest.mark.parametrize("system", list(FCS_EXPECTED))
def test_fcs_rows_recompute_from_their_own_columns(system):
    row = FCS_ROWS[system]
    r, fcs = FCS_EXPECTED[system]
    assert representational_capacity(
        row["n_self_model_variables"], row["bits_per_variable"]
    ) == pytest.approx(r)
    assert fcs_of_row(row) == pytest.approx(fcs)
    assert printed_fcs_agrees(row)  # "~" values agree at the printed precision


def test_fcs_row_check_can_fail():
    table = [
        {**row, "stated_fcs": 2_700, "stated_fcs_text": "~2,700"}
        if row["system"] == "LIDA"
        else row
        for row in FCS.reference_table
    ]
    assert not printed_fcs_agrees(table[2])
    names = fcs_names(FCS.model_copy(update={"reference_table": tuple(table)}))
    found = {d.discrepancy_id: d for d in evaluate(CHECKS.FCS, names, "FCS")}
    assert numbers(found["fcs.row.lida"].stated) == [2_700]
    assert numbers(found["fcs.row.lida"].recomputed) == [2_640]


def test_fcs_formulas():
    assert representational_capacity(40, 14) == 560
    assert functional_consciousness_score(560, 133) == 74_480
    with pytest.raises(ValueError):
        representational_capacity(-1, 4)
    with pytest.raises(ValueError):
        functional_consciousness_score(float("nan"), 1)


def test_round_to_significant():
    assert round_to_significant(13_860_000, 3) == 13_900_000
    assert round_to_significant(8_000, 1) == 8_000
    assert round_to_significant(0, 0) == 0


def test_fcs_headline_ratios_vs_table():
    names = fcs_names()
    fcs = names["fcs"]
    best = names["resolve"]("most capable AI agent")
    artificial = [r["system"] for r in FCS.reference_table if r["is_artificial_agent"]]
    assert best in artificial and fcs[best] == max(fcs[s] for s in artificial)
    for target, ratio in ((87, 86.7), (188, 186.1)):  # the table's ratios nearest the page's
        num, den, found = names["nearest_ratio"](target)
        assert found == pytest.approx(fcs[num] / fcs[den]) == pytest.approx(ratio, abs=0.05)
    assert names["nearest_ratio"](87)[0] == best  # the headline's numerator: the most capable


# ---------------------------------------------------------------------------------------
# Caveats
# ---------------------------------------------------------------------------------------


def test_caveats_cover_the_required_statements():
    text = {c.caveat_id: c.text for c in CAVEATS}
    # The required disclaimers: their words are what they must say.
    assert (
        "not peer-reviewed" in text["osmd_working_paper"]
        and "LLM raters" in text["osmd_working_paper"]
        and "no procedure for P" in text["fcs_no_procedure_for_p"]
        and "Neither instrument measures consciousness" in text["neither_measures_consciousness"]
    )
    everywhere = {c.caveat_id for c in CAVEATS if set(c.applies_to) == {"OSMD", "FCS", "lab"}}
    assert "neither_measures_consciousness" in everywhere


# ---------------------------------------------------------------------------------------
# Transcription: our data against the source documents (skipped if they are absent)
# ---------------------------------------------------------------------------------------

OSMD_SOURCE = Path(OSMD.source_file)
FCS_SOURCE = Path(FCS.source_file)
needs_osmd = pytest.mark.skipif(not OSMD_SOURCE.exists(), reason="OSMD source not present")
needs_fcs = pytest.mark.skipif(not FCS_SOURCE.exists(), reason="FCS source not present")


@needs_osmd
def test_grid_transcribed_from_section_6_1():
    text = OSMD_SOURCE.read_text(encoding="utf-8")
    block = text[text.index("6.1 Full score grid") : text.index("6.2 Notes")]
    rows = re.findall(
        r"^\| ([A-Z]+-\d) — [^|]+\| (\d) / (\d) \| (\d) / (\d) \| (\d) / (\d) "
        r"\| (\d) / (\d)",
        block,
        re.M,
    )
    assert len(rows) == 30
    for column, system_id in enumerate(("claude_bare", "claude_code", "gpt4o_memory", "frank")):
        parsed = {r[0]: (int(r[1 + 2 * column]), int(r[2 + 2 * column])) for r in rows}
        assert list(parsed.items()) == list(OSMD.grid(system_id).items())


@needs_osmd
def test_criteria_transcribed_from_appendix_a():
    text = OSMD_SOURCE.read_text(encoding="utf-8")
    block = text[text.index("A.1 RPT — Recurrent Processing") : text.index("A.9 Application")]
    for item_id, item in OSMD.items.items():
        start = block.index(f"{item_id} — {item['name']}\n")
        lines = block[start:].split("\n")[1:6]
        assert lines[:4] == [f"- {k}: {c}" for k, c in enumerate(item["criteria"])]
        assert lines[4] == f"- LM-vuln: {item['lm_vulnerability']}"


@needs_osmd
def test_stated_ranges_appear_in_the_source():
    text = OSMD_SOURCE.read_text(encoding="utf-8")
    for _, low, high, _, _ in OSMD.stated_ranges:
        assert f"{low}–{high}" in text


@needs_fcs
def test_fcs_table_transcribed():
    text = FCS_SOURCE.read_text(encoding="utf-8")
    for row in FCS.reference_table:
        assert f"{row['system']} {row['description']}" in text
        assert row["stated_fcs_text"] in text
    for *_, quote in FCS.stated_ratios:
        assert quote.split(".")[0].split(" ", 1)[1] in text
    assert "Φ_FCS = P(S) − Σⱼ P(moduleⱼ)" in text
    assert " ".join(FCS.domains) in text


@needs_fcs
def test_fcs_numeric_columns_transcribed():
    text = FCS_SOURCE.read_text(encoding="utf-8")
    numbers = re.findall(r"^~?([\d,]+) ~?([\d,]+) ~?([\d,]+) ", text, re.M)
    parsed = [tuple(float(n.replace(",", "")) for n in triple) for triple in numbers]
    expected = [
        (r["n_self_model_variables"], r["bits_per_variable"], r["reasoning_power"])
        for r in FCS.reference_table
    ]
    assert parsed == expected
