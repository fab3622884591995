"""Figure builders: traces, paper values, chance lines, censoring, missing inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from labcore.figures import (
    live,
    scorecards,
    style,
)
from labcore.figures import paper as paper_figs
from labcore.figures.marks import CROSSED
from labcore.figures.style import label_of
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import UNDEFINED

SEEDS = (0, 1, 2)


def paper(claim_id: str) -> float:
    return CLAIMS_BY_ID[claim_id].paper.value


def names(fig: go.Figure) -> list[str]:
    return [t.name for t in fig.data]


def traces_named(fig: go.Figure, name: str) -> list:
    return [t for t in fig.data if t.name == name]


def ys_of(fig: go.Figure, name: str) -> list[float]:
    return [float(y) for t in traces_named(fig, name) for y in t.y]


def hline_ys(fig: go.Figure) -> list[float]:
    return [s.y0 for s in fig.layout.shapes if s.y0 == s.y1 and s.line.dash in ("dash", "dot")]


def annotation_texts(fig: go.Figure) -> str:
    """Annotations and the subtitle (where builders put caveats)."""
    subtitle = fig.layout.title.subtitle.text if fig.layout.title.subtitle else None
    return " ".join([a.text or "" for a in fig.layout.annotations] + [subtitle or ""]).strip()


# --------------------------------------------------------------------------- synthetic inputs


@pytest.fixture(scope="module")
def seed_values() -> pd.DataFrame:
    rows = []
    for s in SEEDS:

        def add(key, value, seed=s):
            rows.append(
                {"experiment": key.split(".")[0], "seed": seed, "key": key, "value": str(value)}
            )

        for c in style.E1_CONDITIONS:
            add(f"e1.accuracy.{c}", 0.85 + 0.01 * s)
            add(f"e1.auroc.{c}", 0.8 if c == "self_on" else 0.5)
        add("e1.auroc.logits_max_softmax", 0.82)
        add("e1.auroc.logits_neg_entropy", 0.81)
        for k in range(5):
            add(f"e2.gbi.k{k}", "")  # the paper's equation: not defined on signed couplings
            add(f"e2.gbi_signed.k{k}", "" if k < 2 else (-50.0 * (s + 1) if k == 4 else 0.1))
            add(f"e2.gbi_abs.k{k}", "" if k < 2 else 0.5)
            add(f"e2.ignition.k{k}", 0.0 if k == 0 else 0.2)
        for sc in ("0", "0.25", "0.5", "0.75", "1"):
            add(f"e2.dnrs.scale_{sc}", 0.0 if sc == "0" else 0.45)
            add(f"e2.dnrs_secondary.scale_{sc}", 0.1)
        add("e3.l75.b1", 0.05 + 0.01 * s)  # finite
        add("e3.l75.b2", "> 0.5")  # right-censored
        add("e3.l75.a0", "<= 0")  # left-censored
        add("e3.l75.b1.read", 0.3)
        add("e3.l75.b2.read", "> 0.5")
        add("e3.l75.bc_mlp", 0.02)
        add("e3.l75.hot_only", 0.06)
        add("e3.l75_carrier.b1", 0.2)
        for a in ("a0", "a1", "b1"):
            add(f"e3.pci_a.{a}", {"a0": 0.5, "a1": 0.9, "b1": 0.1}[a])
            add(f"e3.pci_a_evoked.{a}", 0.2)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for s in SEEDS:
        for c in ("self_on", "self_off"):
            correct = rng.random(60) < 0.8
            conf = (
                np.where(correct, 0.8, 0.4) + rng.normal(0, 0.1, 60)
                if c == "self_on"
                else np.full(60, 0.54)
            )
            rows += [
                {
                    "seed": s,
                    "condition": c,
                    "trial": i,
                    "correct": int(correct[i]),
                    "confidence": float(np.clip(conf[i], 0, 1)),
                    "decision": 1,
                }
                for i in range(60)
            ]
    rows.append(
        {
            "seed": 0,
            "condition": "self_on",
            "trial": 99,
            "correct": 0,
            "confidence": np.nan,
            "decision": -1,
        }
    )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def capacity() -> pd.DataFrame:
    rows = []
    for s in SEEDS:
        for k in range(5):
            rows.append(
                {
                    "agent": "b1",
                    "seed": s,
                    "capacity": k,
                    "scale": k / 4,
                    "per_step": 0.2 * k,
                    "decision": 0.2 * k + 0.1,
                    "conjunction": 0.25 * k,
                }
            )
        for a in ("a0", "a1"):
            rows.append(
                {
                    "agent": a,
                    "seed": s,
                    "capacity": None,
                    "scale": None,
                    "per_step": 0.14,
                    "decision": 0.14,
                    "conjunction": 0.02,
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def titration() -> pd.DataFrame:
    sigmas = (0.0, 0.1, 0.3, 0.5)
    rows = []
    for s in SEEDS:
        for agent, curve in (("b1", (1.0, 0.6, 0.3, 0.2)), ("b2", (1.0, 0.95, 0.9, 0.85))):
            for noise_mode in ("stored", "read"):
                rows += [
                    {
                        "agent": agent,
                        "noise_mode": noise_mode,
                        "noise": "workspace",
                        "seed": s,
                        "sigma": x,
                        "accuracy": a,
                    }
                    for x, a in zip(sigmas, curve, strict=True)
                ]
        rows += [
            {
                "agent": "b1",
                "noise_mode": "stored",
                "noise": "carrier",
                "seed": s,
                "sigma": x,
                "accuracy": 0.5,
            }
            for x in sigmas
        ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def points() -> list[dict]:
    rng = np.random.default_rng(1)
    out = []
    for agent in ("a0", "b1", "b2"):
        for s in SEEDS:
            gap = rng.random()
            out.append(
                {
                    "agent": agent,
                    "seed": s,
                    "ood_gap": gap,
                    "ood_gap_overflow": 2 * gap,
                    "gbi": 0.0 if agent == "a0" else gap + rng.normal(0, 0.1),
                    "gbi_abs": gap,
                    "dpci": None if s == 0 else rng.normal(),
                    "auroc": 0.5,
                }
            )
    return out


MASKING = {
    str(s): {
        "soa": 2,
        "count": 3,
        "traces": {
            "4": [0, 0.8, 0.6, 0.4, 0.1, -0.2],
            "2": [0, 0.8, 0.2, -0.3, -0.3, -0.3],
            "0": [0.0] * 6,
        },
    }
    for s in SEEDS
}


# --------------------------------------------------------------------------- E1


def test_fig1a_traces_paper_values_and_chance(seed_values):
    fig = paper_figs.fig1a_accuracy_and_auroc(seed_values)
    assert isinstance(fig, go.Figure)
    assert names(fig).count(style.OURS) == 2 and names(fig).count(style.SEEDS) == 2
    assert len(traces_named(fig, style.OURS)[0].x) == len(style.E1_CONDITIONS)
    paper_ys = ys_of(fig, style.PAPER)
    for cid in (
        "e1.accuracy.self_on",
        "e1.accuracy.self_off",
        "e1.auroc.self_on",
        "e1.auroc.bus_off",
    ):
        assert paper(cid) in paper_ys
    assert hline_ys(fig).count(0.5) == 2
    # our mean is the mean over seeds
    bars = traces_named(fig, style.OURS)[0]
    assert bars.y[0] == pytest.approx(np.mean([0.85 + 0.01 * s for s in SEEDS]))
    assert len(ys_of(fig, style.SEEDS)) == 2 * len(style.E1_CONDITIONS) * len(SEEDS)


def test_trial_curves_drop_undecided_and_missing_confidence(trials):
    curves = paper_figs.trial_curves(trials)
    assert list(curves) == ["self_on", "self_off"]
    assert len(curves["self_on"][0]) == 60 * len(SEEDS)
    assert np.isfinite(curves["self_on"][1]).all()


def test_fig1b_roc_curves_reach_corners_and_show_paper(trials, seed_values):
    fig = paper_figs.fig1b_type2_roc(trials, seed_values)
    assert any(list(t.x) == [0, 1] and list(t.y) == [0, 1] for t in fig.data)  # the diagonal
    roc = [t for t in fig.data if t.name and t.name.startswith("self-model on (AUROC")]
    assert len(roc) == 1
    assert (roc[0].x[0], roc[0].y[0]) == (0, 0) and (roc[0].x[-1], roc[0].y[-1]) == (1, 1)
    assert paper("e1.auroc.self_on") in ys_of(fig, style.PAPER)
    assert style.OURS in names(fig)  # per-seed AUROCs in the right panel


def test_type2_roc_figure_pooled_without_seed_values():
    correct = np.array([1, 1, 0, 0, 1, 0], bool)
    conf = np.array([0.9, 0.8, 0.3, 0.2, 0.7, 0.6])
    fig = live.type2_roc_figure({"intact": (correct, conf)}, paper_auroc=0.92)
    assert traces_named(fig, live.POOLED)[0].y[0] == pytest.approx(1.0)
    assert ys_of(fig, style.PAPER) == [0.92]


def test_calibration_and_histogram_and_risk_coverage(trials):
    curves = paper_figs.trial_curves(trials)
    fig = paper_figs.fig1c_calibration(trials)
    assert {live.PERFECT_CALIBRATION, label_of("self_off")} <= set(names(fig))
    pt = traces_named(fig, style.PAPER)[0]
    assert (pt.x[0], pt.y[0]) == (paper("e1.confidence.self_off"), paper("e1.accuracy.self_off"))
    zeroed = traces_named(fig, label_of("self_off"))[0]
    assert len(zeroed.x) == 1  # a constant confidence collapses to one bin
    hist = live.confidence_histogram(curves, paper_marks={"self_off": 0.54})
    groups = [t.legendgroup for t in hist.data if t.type == "bar"]
    assert groups.count("correct") == 2 and groups.count("wrong") == 2  # a pair per condition
    assert [a.text for a in hist.layout.annotations][:2] == [
        label_of("self_on"),
        label_of("self_off"),
    ]
    assert ys_of(hist, style.PAPER) == [0.0] and list(traces_named(hist, style.PAPER)[0].x) == [
        0.54
    ]
    rc = paper_figs.fig1d_risk_coverage(trials)
    assert len(rc.data) == 2 and all("AURC" in n for n in names(rc))


def test_logits_control(seed_values):
    fig = paper_figs.logits_control(seed_values)
    bars = traces_named(fig, style.OURS)[0]
    assert list(bars.y) == pytest.approx([0.8, 0.82, 0.81])
    assert ys_of(fig, style.PAPER) == [paper("e1.auroc.self_on")]
    assert 0.5 in hline_ys(fig)


# --------------------------------------------------------------------------- E2


def test_fig2a_conjunction(capacity):
    fig = paper_figs.fig2a_conjunction_by_capacity(capacity)
    bars = traces_named(fig, style.OURS)[0]
    assert list(bars.y) == pytest.approx([1.0, 0.5, 0.0, 0.02, 0.02])  # 4, 2, 0 slots, A0, A1
    assert list(bars.marker.color) == [style.PALETTE[k] for k in ("k4", "k2", "k0", "a0", "a1")]
    for k in (4, 2, 0):
        assert paper(f"e2.conjunction.k{k}") in ys_of(fig, style.PAPER)
    assert pytest.approx(1 / 49) in hline_ys(fig)


def test_fig2b_three_panels_and_both_chance_levels(capacity):
    fig = paper_figs.fig2b_dual_task_cost(capacity)
    assert names(fig).count(style.OURS) == 3
    assert all(len(t.x) == 7 for t in traces_named(fig, style.OURS))
    ys = hline_ys(fig)
    assert ys.count(pytest.approx(1 / 7)) == 2 and pytest.approx(1 / 49) in ys
    for cid in ("e2.per_step.k4", "e2.decision.k2", "e2.per_step.a0", "e2.conjunction.k0"):
        assert paper(cid) in ys_of(fig, style.PAPER)


def test_fig2c_masking_mean_over_seeds_and_onsets():
    fig = paper_figs.fig2c_masking_traces(MASKING)
    assert {label_of("k4"), label_of("k2"), label_of("k0")} <= set(names(fig))
    assert list(traces_named(fig, label_of("k4"))[0].y) == pytest.approx(
        [0, 0.8, 0.6, 0.4, 0.1, -0.2]
    )
    vlines = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1 and s.x0 is not None)
    assert vlines == [0, 1, 2, 3, 4]  # two cues, then 3 masks from step 0 + soa
    # The paper's 0.78 is a different measure ("not comparable"): it must not be drawn beside ours.
    assert ys_of(fig, style.PAPER) == []
    assert "retained" in fig.layout.yaxis.title.text


def test_masking_figure_single_trace_has_no_band():
    fig = live.masking_figure({"k4": [0.0, 0.5, 0.2]}, soa=1, count=1)
    assert names(fig) == ["4 slots"]


def test_gbi_not_defined_panel_abs_panel_and_ignition(seed_values):
    fig = paper_figs.gbi_and_ignition_by_capacity(seed_values)
    text = annotation_texts(fig)
    # the paper's equation has no finite value on signed couplings: a note, never a bar
    assert UNDEFINED in text and "undefined" in text
    assert "-50" not in text and -50.0 not in ys_of(fig, style.OURS)
    assert 0.5 in ys_of(fig, style.OURS)  # the |cosine| reading is drawn
    assert paper("e2.gbi.k4") in ys_of(fig, style.PAPER) and paper("e2.ignition.k4") in ys_of(
        fig, style.PAPER
    )


def test_dnrs_by_scale(seed_values):
    fig = paper_figs.dnrs_by_scale(seed_values)
    assert f"ours: {paper_figs.PRIMARY_CUE}" in names(fig)
    assert paper("e2.dnrs.scale_0") in ys_of(fig, style.PAPER) and paper(
        "e2.dnrs.scale_1"
    ) in ys_of(fig, style.PAPER)
    assert 0.0 in hline_ys(fig)


# --------------------------------------------------------------------------- E3


def test_fig3a_censored_values_are_triangles_at_the_bound(seed_values):
    fig = paper_figs.fig3a_l75(seed_values, agents=("b1", "b2"))
    up = [
        t for t in fig.data if isinstance(t.marker.symbol, str) and t.marker.symbol == "triangle-up"
    ]
    assert up and all(y == 0.5 for t in up for y in t.y)
    assert sum(len(t.x) for t in up) == 2 * len(SEEDS)  # b2 stored and read
    squares = traces_named(fig, "ours: mean ± SD of seeds that crossed")
    assert squares[0].y[0] == pytest.approx(0.06)  # b1 stored: mean of 0.05, 0.06, 0.07
    assert paper("e3.l75.b1") in ys_of(fig, style.PAPER)
    bound = traces_named(fig, style.PAPER_BOUND)
    assert (
        bound
        and bound[0].y[0] == paper("e3.l75.b2")
        and bound[0].marker.symbol == "triangle-up-open"
    )


def test_left_censored_is_triangle_down(seed_values):
    fig = paper_figs.fig3a_l75(seed_values, agents=("a0",))
    down = [t for t in fig.data if t.marker.symbol == "triangle-down"]
    assert down and set(down[0].y) == {0.0}
    assert not traces_named(fig, CROSSED)


def test_fig3b_pearson_r_matches_numpy_and_flags_constant_auroc(points):
    fig = paper_figs.fig3b_marker_correlations(points, {"e3.composite.r_loo_full": 0.3})
    reg = traces_named(fig, "registered: OOD gap (longer delay)")[0]
    df = pd.DataFrame(points)
    expected = np.corrcoef(df["gbi"], df["ood_gap"])[0, 1]
    assert reg.y[0] == pytest.approx(expected)
    dpci = pd.to_numeric(df["dpci"]).fillna(0.0)
    assert reg.y[1] == pytest.approx(np.corrcoef(dpci, df["ood_gap"])[0, 1])
    assert math.isnan(reg.y[2])  # AUROC constant 0.5: r undefined
    assert reg.y[3] == 0.3
    assert "undefined" in annotation_texts(fig)
    assert any(paper_figs.EXPLORATORY in n for n in names(fig) if n)
    assert math.sqrt(paper("e3.composite.r2_gbi")) in ys_of(fig, style.PAPER)
    assert paper("e3.composite.r_loo_full") in ys_of(fig, style.PAPER)


def test_fig3c_titration_marks_threshold_chance_and_l75(titration, seed_values):
    fig = paper_figs.fig3c_titration(titration, seed_values, agents=("b1", "b2"))
    assert {label_of("b1"), label_of("b2")} <= set(names(fig))
    b1 = traces_named(fig, label_of("b1"))[0]
    assert list(b1.y) == pytest.approx([1.0, 0.6, 0.3, 0.2])  # workspace rows, not the carrier ones
    ys = hline_ys(fig)
    assert 0.75 in ys and pytest.approx(1 / 7) in ys
    l75 = traces_named(fig, "L75 (ours)")[0]
    assert list(l75.marker.symbol) == ["x", "triangle-right"] and list(l75.x) == pytest.approx(
        [0.06, 0.5]
    )
    assert list(traces_named(fig, style.PAPER)[0].x) == [paper("e3.l75.b1")]


def test_titration_figure_accepts_single_curves_and_strings():
    fig = live.titration_figure({"mine": ([0, 0.5], [1.0, 0.9])}, {"mine": "> 0.5"})
    assert names(fig) == ["mine", live.L75_OURS]


def test_fig4_two_panels_with_hot_only(seed_values):
    fig = paper_figs.fig4_attribution(seed_values)
    assert paper("e3.l75.bc_mlp") in ys_of(fig, style.PAPER) and paper("e3.l75.hot_only") in ys_of(
        fig, style.PAPER
    )
    ticks = [t for ax in ("xaxis", "xaxis2") for t in fig.layout[ax].ticktext]
    assert any("HOT-only" in t for t in ticks) and any("BC-only" in t for t in ticks)


def test_table3_pci(seed_values):
    fig = paper_figs.table3_pci(seed_values)
    table = next(t for t in fig.data if t.type == "table")
    assert list(table.cells.values[0]) == [label_of(k) for k in ("a0", "a1", "b1")]
    assert any(str(paper("e3.pci_a.a0")) in c for c in table.cells.values[1])
    assert "0.2 ± 0" in table.cells.values[3][0]
    for a in ("a0", "a1", "b1"):
        assert paper(f"e3.pci_a.{a}") in ys_of(fig, style.PAPER)


def test_claims_table_colours_verdicts_and_escapes():
    from labcore.findings import Finding, PaperValue

    claims = [
        Finding(
            id="x.y",
            question="<script>alert(1)</script>",
            paper=PaperValue(value=0.5, bound=">"),
            censored="right",
            bound=0.5,
            n=5,
            n_censored=3,
            verdict="reproduced",
        ),
        Finding(
            id="x.z",
            question="d",
            paper=PaperValue(value=0.1, sd=0.02),
            value=0.2,
            sd=0.1,
            n=5,
            verdict="not reproduced",
        ),
    ]
    fig = scorecards.claims_table(claims)
    cells = fig.data[0].cells
    assert "<script>" not in " ".join(cells.values[1]) and "&lt;script&gt;" in cells.values[1][0]
    assert cells.values[2][0] == "&gt; 0.5" and cells.values[3][0].startswith("&gt; 0.5 (3/5")
    assert list(cells.fill.color[4]) == [
        style.VERDICT_COLOURS["reproduced"],
        style.VERDICT_COLOURS["not reproduced"],
    ]
