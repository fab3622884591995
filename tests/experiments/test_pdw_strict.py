"""The reward explorer's post hoc additions (protocol sec. 10.6, change log 2026-11-27) on
hand-made rows: the strict "keeps the option" rule beside the registered one (values, outcomes,
flags; the registered answer and findings untouched), the ideal observer's rate it compares with,
and the long held cells' reading of when the option came back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labcore.experiments import pdw_sweep as W
from labcore.experiments.pdw import IDEAL

ROOT = Path(__file__).resolve().parents[2]
TOP = f"p_sure_c{W.TOP_COHERENCE:g}"
BOUND = W.IDEAL_P_SURE_TOP + W.STRICT_TOLERANCE


def test_the_strict_rule_needs_both_s1_and_the_sure_option_at_the_strongest_evidence():
    assert W.keeps_strictly(0.3, BOUND) is True
    assert W.keeps_strictly(0.3, BOUND + 1e-4) is False
    assert W.keeps_strictly(0.3, 0.51) is False  # S-training_length's case: S1 kept, not this
    assert W.keeps_strictly(0.099, 0.0) is False  # the registered rule fails first
    assert W.keeps_strictly(0.099, None) is False
    assert W.keeps_strictly(float("nan"), 0.0) is None
    assert W.keeps_strictly(0.3, float("nan")) is None
    assert W.keeps_strictly(0.3, 0.06, ideal=0.02, tolerance=0.05) is True


def test_the_ideal_observers_rate_is_the_bundled_ideal_observers_on_seeds_0_to_2():
    rows = pd.read_csv(ROOT / "results" / "pdw" / "pdw_by_coherence.csv")
    top = rows[(rows.agent == IDEAL) & (rows.coherence == W.TOP_COHERENCE) & (rows.seed <= 2)]
    assert sorted(top.seed) == [0, 1, 2]
    sure = (top.p_sure * top.n_offered).round().sum()
    assert W.IDEAL_P_SURE_TOP == pytest.approx(sure / top.n_offered.sum(), abs=1e-12)


def test_a_cell_keeps_strictly_when_most_of_its_seeds_do():
    assert W.majority([True, False, None]) == {"n": 3, "n_keep": 1, "n_defined": 2, "keeps": False}
    assert W.majority([True, True, None])["keeps"] is True
    assert W.majority([None, None])["keeps"] is None
    for s1 in ([0.2, 0.05, 0.11], [0.2, 0.05, float("nan")], [None]):
        assert W.cell_outcome(s1) == W.majority([W.keeps(v) for v in s1])


def test_when_the_option_came_back():
    assert W.came_back_at([(300, 0.3), (100, 0.0), (200, 0.2)]) == 200  # order of the checks
    assert W.came_back_at([(100, 0.2), (200, 0.05), (300, 0.1)]) == 300  # 0.10 counts
    assert W.came_back_at([(100, 0.2), (200, 0.2), (300, 0.09)]) is None  # lost again
    assert W.came_back_at([(100, 0.2), (200, float("nan"))]) is None
    assert W.came_back_at([(100, 0.3), (200, 0.3)]) == 100  # never lost within the curve


def rows_of(design: str, top: dict[str, float], s1: dict[str, float] | None = None) -> list[dict]:
    """Three seeds per cell: S1 0.3 (or ``s1[cell]``), P(sure | offered) at 51.2% 0.01 (or
    ``top[cell]``), the seed adding 0.001 to both."""
    s1 = s1 or {}
    return [
        {
            "cell": name,
            "seed": seed,
            "s1_contrast": s1.get(name, 0.3) + 0.001 * seed,
            TOP: top.get(name, 0.01) + 0.001 * seed,
        }
        for name in W.cell_names(design)
        for seed in range(3)
    ]


def test_the_strict_rule_beside_the_registered_one_in_the_explorer():
    top = {"S-training_length": 0.5, "S-entropy": 0.2}
    rows = rows_of("registered", top, s1={"O+baseline": 0.0})
    s = W.summarise(W.SweepConfig(), {W.ROWS.name: rows})
    plain = W.summarise(W.SweepConfig(), {W.ROWS.name: [r | {TOP: 0.0} for r in rows]})
    # the registered reading: every cell but O+baseline keeps it, whatever the 51.2% rate is
    assert s.answer == plain.answer and s.answer.outcome == "no_single"
    registered = [f for f in s.findings if W.STRICT not in f.flags]
    assert registered == [f for f in plain.findings if W.STRICT not in f.flags]
    assert not any(f.flag("post_hoc") for f in registered)
    strict = s.tables["strict"]
    assert strict["tolerance"] == W.STRICT_TOLERANCE
    assert strict["ideal_p_sure_top"] == W.IDEAL_P_SURE_TOP and strict["bound"] == pytest.approx(
        BOUND
    )
    by_name = {c["name"]: c for c in strict["cells"]}
    assert by_name["S-training_length"]["keeps"] is False
    assert by_name["S-entropy"]["keeps"] is False and by_name["S"]["keeps"] is True
    assert by_name["O+baseline"]["keeps"] is False  # S1 alone already fails
    assert strict["decision"]["necessary"] == ["entropy", "training_length"]
    assert strict["decision"]["deciding"] == ["entropy", "training_length"]
    assert strict["decision"]["sufficient"] == []  # O keeps it, so the O side answers nothing
    kept = s.finding("pdw_sweep.strict.cells_keeping")
    assert (kept.value, kept.n, kept.unit) == (13, 16, "count")
    p = s.finding("pdw_sweep.S-training_length.p_sure_top")
    assert p.value == pytest.approx(np.mean([0.5, 0.501, 0.502])) and p.n == 3
    assert p.flags == (W.STRICT,) and kept.flags == (W.STRICT,)
    assert plain.tables["strict"]["decision"]["deciding"] == []  # O keeps it: O+ answers nothing


def test_the_strict_rule_on_a_partial_explorer_has_no_decision_yet():
    rows = [r for r in rows_of("registered", {"S": 0.3}) if r["cell"] in ("S", "O")]
    s = W.summarise(W.SweepConfig(cells=("S", "O")), {W.ROWS.name: rows})
    strict = s.tables["strict"]
    assert strict["decision"] == {} and [c["keeps"] for c in strict["cells"]] == [False, True]


def curve(cell: str, seed: int, s1: list[float]) -> list[dict]:
    return [
        {"cell": cell, "seed": seed, "update": 100 * (i + 1), "policy": policy, "s1_contrast": v}
        for i, v in enumerate(s1)
        for policy in ("sampled", "greedy")
    ]


def test_the_long_cells_are_read_beside_the_follow_up_not_in_its_answer():
    long_n, long_p = (f"O~{h}+long" for h in W.LONG_CHOICES)
    s1 = {"O~normalisation": 0.0, "O~policy_steps": 0.0, "O~all": 0.0, long_p: 0.0}
    rows = rows_of("held", {long_n: 0.3}, s1=s1)
    for r in rows:
        r |= {"updates": 4000 + r["seed"], "stopped": "criterion"}
    curves = (
        curve(long_n, 0, [0.0, 0.2, 0.3])  # back at 200
        + curve(long_n, 1, [0.0, 0.0, 0.15])  # back at 300
        + curve(long_n, 2, [0.2, 0.0, 0.0])  # lost again
        + curve(long_p, 0, [0.0, 0.0, 0.0])
    )
    s = W.summarise(W.SweepConfig(design="held"), {W.ROWS.name: rows, W.CURVES.name: curves})
    short = [r for r in rows if not W.is_long(r["cell"])]
    without = W.summarise(W.SweepConfig(design="held"), {W.ROWS.name: short})
    assert s.answer == without.answer and s.answer.params["losing"] == [
        "normalisation",
        "policy_steps",
    ]
    assert without.tables["long"] == [] and without.tables["complete"]
    first, second = s.tables["long"]
    assert (first["name"], first["short"], first["choice"]) == (
        long_n,
        "O~normalisation",
        "normalisation",
    )
    assert [a["came_back_at"] for a in first["agents"]] == [200, 300, None]
    assert first["n_back"] == 2 and first["cap"] == W.LONG_UPDATES == 12_000
    assert first["keeps"] is True and first["keeps_strictly"] is False  # 0.30 at 51.2%
    assert [a["updates"] for a in first["agents"]] == [4000, 4001, 4002]
    assert second["n_back"] == 0 and second["keeps"] is False
    assert [a["came_back_at"] for a in second["agents"]] == [
        None,
        None,
        None,
    ]  # seeds 1-2: no curve
    back = s.finding(f"pdw_held.{long_n}.n_back")
    assert (back.value, back.n, back.flags) == (2, 3, (W.LONG_FLAG,))
    assert s.finding(f"pdw_held.{long_n}.s1").flags == (W.LONG_FLAG,)
    assert s.finding("pdw_held.O~normalisation.s1").flags == (W.POST_HOC,)
    kept = s.finding("pdw_held.strict.cells_keeping")
    assert (kept.value, kept.n) == (4, 7)  # the long cells are not among the answer's settings
    assert all(f.flag("post_hoc") for f in s.findings)
