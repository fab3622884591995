"""Figure builders: traces, paper values, chance lines, censoring, missing inputs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from labcore.figures import (
    episode,
    integration,
    live,
    paper_e1,
    paper_e2,
    paper_e3,
    scorecards,
    style,
)
from labcore.paper import CLAIMS_BY_ID
from labcore.storage import formatting as R

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
            rows.append({"experiment": key.split(".")[0], "seed": seed, "key": key, "value": str(value)})

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
    fig = paper_e1.fig1a_accuracy_and_auroc(seed_values)
    assert isinstance(fig, go.Figure)
    assert names(fig).count(style.OURS) == 2 and names(fig).count(style.SEEDS) == 2
    assert len(traces_named(fig, style.OURS)[0].x) == len(style.E1_CONDITIONS)
    paper_ys = ys_of(fig, style.PAPER)
    for cid in ("e1.accuracy.self_on", "e1.accuracy.self_off", "e1.auroc.self_on", "e1.auroc.bus_off"):
        assert paper(cid) in paper_ys
    assert hline_ys(fig).count(0.5) == 2
    # our mean is the mean over seeds
    bars = traces_named(fig, style.OURS)[0]
    assert bars.y[0] == pytest.approx(np.mean([0.85 + 0.01 * s for s in SEEDS]))
    assert len(ys_of(fig, style.SEEDS)) == 2 * len(style.E1_CONDITIONS) * len(SEEDS)


def test_trial_curves_drop_undecided_and_missing_confidence(trials):
    curves = paper_e1.trial_curves(trials)
    assert list(curves) == ["self_on", "self_off"]
    assert len(curves["self_on"][0]) == 60 * len(SEEDS)
    assert np.isfinite(curves["self_on"][1]).all()


def test_fig1b_roc_curves_reach_corners_and_show_paper(trials, seed_values):
    fig = paper_e1.fig1b_type2_roc(trials, seed_values)
    assert "chance (diagonal)" in names(fig)
    roc = [t for t in fig.data if t.name and t.name.startswith("self-model on (AUROC")]
    assert len(roc) == 1
    assert (roc[0].x[0], roc[0].y[0]) == (0, 0) and (roc[0].x[-1], roc[0].y[-1]) == (1, 1)
    assert paper("e1.auroc.self_on") in ys_of(fig, style.PAPER)
    assert style.OURS in names(fig)  # per-seed AUROCs in the right panel


def test_type2_roc_figure_pooled_without_seed_values():
    correct = np.array([1, 1, 0, 0, 1, 0], bool)
    conf = np.array([0.9, 0.8, 0.3, 0.2, 0.7, 0.6])
    fig = live.type2_roc_figure({"intact": (correct, conf)}, paper_auroc=0.92)
    assert "ours (pooled trials)" in names(fig)
    assert traces_named(fig, "ours (pooled trials)")[0].y[0] == pytest.approx(1.0)
    assert ys_of(fig, style.PAPER) == [0.92]


def test_calibration_and_histogram_and_risk_coverage(trials):
    curves = paper_e1.trial_curves(trials)
    fig = paper_e1.fig1c_calibration(trials)
    assert "perfect calibration" in names(fig) and "self-model zeroed" in names(fig)
    pt = traces_named(fig, style.PAPER)[0]
    assert (pt.x[0], pt.y[0]) == (paper("e1.confidence.self_off"), paper("e1.accuracy.self_off"))
    zeroed = traces_named(fig, "self-model zeroed")[0]
    assert len(zeroed.x) == 1  # a constant confidence collapses to one bin
    hist = live.confidence_histogram(curves, paper_marks={"self_off": 0.54})
    assert names(hist).count("correct trials") == 2 and names(hist).count("wrong trials") == 2
    assert [a.text for a in hist.layout.annotations][:2] == ["self-model on", "self-model zeroed"]
    assert ys_of(hist, style.PAPER) == [0.0] and list(traces_named(hist, style.PAPER)[0].x) == [0.54]
    rc = paper_e1.fig1d_risk_coverage(trials)
    assert len(rc.data) == 2 and all("AURC" in n for n in names(rc))


def test_logits_control(seed_values):
    fig = paper_e1.logits_control(seed_values)
    bars = traces_named(fig, style.OURS)[0]
    assert list(bars.y) == pytest.approx([0.8, 0.82, 0.81])
    assert ys_of(fig, style.PAPER) == [paper("e1.auroc.self_on")]
    assert 0.5 in hline_ys(fig)


# --------------------------------------------------------------------------- E2


def test_fig2a_conjunction(capacity):
    fig = paper_e2.fig2a_conjunction_by_capacity(capacity)
    bars = traces_named(fig, style.OURS)[0]
    assert list(bars.y) == pytest.approx([1.0, 0.5, 0.0, 0.02, 0.02])  # 4, 2, 0 slots, A0, A1
    assert list(bars.marker.color) == [style.PALETTE[k] for k in ("k4", "k2", "k0", "a0", "a1")]
    for k in (4, 2, 0):
        assert paper(f"e2.conjunction.k{k}") in ys_of(fig, style.PAPER)
    assert pytest.approx(1 / 49) in hline_ys(fig)


def test_fig2b_three_panels_and_both_chance_levels(capacity):
    fig = paper_e2.fig2b_dual_task_cost(capacity)
    assert names(fig).count(style.OURS) == 3
    assert all(len(t.x) == 7 for t in traces_named(fig, style.OURS))
    ys = hline_ys(fig)
    assert ys.count(pytest.approx(1 / 7)) == 2 and pytest.approx(1 / 49) in ys
    for cid in ("e2.per_step.k4", "e2.decision.k2", "e2.per_step.a0", "e2.conjunction.k0"):
        assert paper(cid) in ys_of(fig, style.PAPER)


def test_fig2c_masking_mean_over_seeds_and_onsets():
    fig = paper_e2.fig2c_masking_traces(MASKING)
    assert {"4 slots", "2 slots", "bus off (0 slots)"} <= set(names(fig))
    assert list(traces_named(fig, "4 slots")[0].y) == pytest.approx([0, 0.8, 0.6, 0.4, 0.1, -0.2])
    vlines = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1 and s.x0 is not None)
    assert vlines == [0, 1, 2, 3, 4]  # two cues, then 3 masks from step 0 + soa
    # The paper's 0.78 is a different measure ("not comparable"): it must not be drawn beside ours.
    assert ys_of(fig, style.PAPER) == []
    assert "retained" in fig.layout.yaxis.title.text


def test_masking_figure_single_trace_has_no_band():
    fig = live.masking_figure({"k4": [0.0, 0.5, 0.2]}, soa=1, count=1)
    assert names(fig) == ["4 slots"]


def test_gbi_not_defined_panel_abs_panel_and_ignition(seed_values):
    fig = paper_e2.gbi_and_ignition_by_capacity(seed_values)
    text = annotation_texts(fig)
    # the paper's equation has no finite value on signed couplings: a note, never a bar
    assert "not defined here" in text and "undefined" in text
    assert "-50" not in text and -50.0 not in ys_of(fig, style.OURS)
    assert 0.5 in ys_of(fig, style.OURS)  # the |cosine| reading is drawn
    assert paper("e2.gbi.k4") in ys_of(fig, style.PAPER) and paper("e2.ignition.k4") in ys_of(fig, style.PAPER)


def test_dnrs_by_scale(seed_values):
    fig = paper_e2.dnrs_by_scale(seed_values)
    assert "ours: primary cue (the paper's)" in names(fig)
    assert paper("e2.dnrs.scale_0") in ys_of(fig, style.PAPER) and paper("e2.dnrs.scale_1") in ys_of(
        fig, style.PAPER
    )
    assert 0.0 in hline_ys(fig)


# --------------------------------------------------------------------------- E3


def test_fig3a_censored_values_are_triangles_at_the_bound(seed_values):
    fig = paper_e3.fig3a_l75(seed_values, agents=("b1", "b2"))
    up = [t for t in fig.data if isinstance(t.marker.symbol, str) and t.marker.symbol == "triangle-up"]
    assert up and all(y == 0.5 for t in up for y in t.y)
    assert sum(len(t.x) for t in up) == 2 * len(SEEDS)  # b2 stored and read
    squares = traces_named(fig, "ours: mean ± SD of seeds that crossed")
    assert squares[0].y[0] == pytest.approx(0.06)  # b1 stored: mean of 0.05, 0.06, 0.07
    assert paper("e3.l75.b1") in ys_of(fig, style.PAPER)
    bound = traces_named(fig, style.PAPER_BOUND)
    assert bound and bound[0].y[0] == paper("e3.l75.b2") and bound[0].marker.symbol == "triangle-up-open"


def test_left_censored_is_triangle_down(seed_values):
    fig = paper_e3.fig3a_l75(seed_values, agents=("a0",))
    down = [t for t in fig.data if t.marker.symbol == "triangle-down"]
    assert down and set(down[0].y) == {0.0}
    assert not traces_named(fig, "ours: mean ± SD of seeds that crossed")


def test_fig3b_pearson_r_matches_numpy_and_flags_constant_auroc(points):
    fig = paper_e3.fig3b_marker_correlations(points, {"e3.composite.r_loo_full": 0.3})
    reg = traces_named(fig, "registered: OOD gap (longer delay)")[0]
    df = pd.DataFrame(points)
    expected = np.corrcoef(df["gbi"], df["ood_gap"])[0, 1]
    assert reg.y[0] == pytest.approx(expected)
    dpci = pd.to_numeric(df["dpci"]).fillna(0.0)
    assert reg.y[1] == pytest.approx(np.corrcoef(dpci, df["ood_gap"])[0, 1])
    assert math.isnan(reg.y[2])  # AUROC constant 0.5: r undefined
    assert reg.y[3] == 0.3
    assert "undefined" in annotation_texts(fig)
    assert any("exploratory, post hoc" in n for n in names(fig) if n)
    assert math.sqrt(paper("e3.composite.r2_gbi")) in ys_of(fig, style.PAPER)
    assert paper("e3.composite.r_loo_full") in ys_of(fig, style.PAPER)


def test_fig3c_titration_marks_threshold_chance_and_l75(titration, seed_values):
    fig = paper_e3.fig3c_titration(titration, seed_values, agents=("b1", "b2"))
    assert {"B1 (workspace, GWT)", "B2 (policy reads z_self)"} <= set(names(fig))
    b1 = traces_named(fig, "B1 (workspace, GWT)")[0]
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
    assert names(fig) == ["mine", "L75 (ours)"]


def test_fig4_two_panels_with_hot_only(seed_values):
    fig = paper_e3.fig4_attribution(seed_values)
    assert paper("e3.l75.bc_mlp") in ys_of(fig, style.PAPER) and paper("e3.l75.hot_only") in ys_of(
        fig, style.PAPER
    )
    ticks = [t for ax in ("xaxis", "xaxis2") for t in fig.layout[ax].ticktext]
    assert any("HOT-only" in t for t in ticks) and any("BC-only" in t for t in ticks)


def test_table3_pci(seed_values):
    fig = paper_e3.table3_pci(seed_values)
    table = next(t for t in fig.data if t.type == "table")
    assert list(table.cells.values[0]) == ["A0 (feed-forward)", "A1 (recurrent)", "B1 (workspace, GWT)"]
    assert any(str(paper("e3.pci_a.a0")) in c for c in table.cells.values[1])
    assert "0.2 ± 0" in table.cells.values[3][0]
    for a in ("a0", "a1", "b1"):
        assert paper(f"e3.pci_a.{a}") in ys_of(fig, style.PAPER)


def test_claims_table_colours_verdicts_and_escapes():
    claims = [
        {
            "id": "x.y",
            "description": "<script>alert(1)</script>",
            "paper": {"value": 0.5, "bound": ">"},
            "ours": {
                "mean": None,
                "censored": "right",
                "bound": 0.5,
                "n_right_censored": 3,
                "n_seeds": 5,
            },
            "verdict": "reproduced",
            "by_construction": False,
        },
        {
            "id": "x.z",
            "description": "d",
            "paper": {"value": 0.1, "sd": 0.02},
            "ours": {"mean": 0.2, "sd": 0.1, "n": 5},
            "verdict": "not reproduced",
        },
    ]
    fig = scorecards.claims_table(claims)
    cells = fig.data[0].cells
    assert "<script>" not in " ".join(cells.values[1]) and "&lt;script&gt;" in cells.values[1][0]
    assert cells.values[2][0] == "&gt; 0.5" and cells.values[3][0].startswith("&gt; 0.5 (3/5")
    assert list(cells.fill.color[-1]) == [
        style.VERDICT_COLOURS["reproduced"],
        style.VERDICT_COLOURS["not reproduced"],
    ]


# --------------------------------------------------------------------------- live-lab builders


def test_workspace_heatmap_tracks_fills_and_overwrites():
    rng = np.random.default_rng(0)
    steps, k, d = 10, 2, 4
    slots, occ = np.zeros((steps, k, d)), np.zeros((steps, k), bool)
    kinds = [None] * steps
    kinds[0], kinds[1], kinds[4] = "colour cue", "object cue", "mask"
    for t in range(steps):
        if t:
            slots[t], occ[t] = slots[t - 1], occ[t - 1]
        if kinds[t]:
            j = {0: 0, 1: 1, 4: 0}[t]  # the mask overwrites slot 0 (bus full)
            slots[t, j], occ[t, j] = rng.normal(size=d), True
    fig = episode.workspace_heatmap(slots, occ, kinds, report_steps=[8, 9], highlight_step=4)
    assert names(fig) == ["slot contents", "activations"]
    z = np.asarray(fig.data[0].z)
    labels = list(fig.data[0].colorbar.ticktext)
    holds = [[labels[int(c)] for c in row] for row in z]
    assert holds[0][:4] == ["colour cue"] * 4 and holds[0][4:] == ["mask"] * 6
    assert holds[1][0] == "empty" and holds[1][1:] == ["object cue"] * 9
    assert np.asarray(fig.data[1].z).shape == (k * d, steps)


def test_action_probabilities_and_timeline():
    fig = episode.action_probabilities(np.array([0.1, 0.6, 0.3]), chosen=1, expert=2, labels=["a", "b", "c"])
    assert names(fig) == ["probability", "expert's action"]
    assert pytest.approx(1 / 3) in hline_ys(fig)
    assert fig.data[0].marker.color[1] == style.PALETTE["b1"]
    tl = episode.internal_state_timeline([0.2, 0.9, np.nan], [1.0, 2.0, 0.5], ["cue", "", "decision"])
    assert names(tl) == ["confidence", "‖z_self‖"] and 0.5 in hline_ys(tl)


def test_palette_is_shared_across_figures(seed_values, capacity):
    fig3a = paper_e3.fig3a_l75(seed_values, agents=("b1",))
    fig2a = paper_e2.fig2a_conjunction_by_capacity(capacity)
    b1_3a = traces_named(fig3a, style.SEEDS)[0].marker.color[0]
    assert b1_3a == style.PALETTE["b1"] == traces_named(fig2a, style.OURS)[0].marker.color[0]  # 4 slots = B1
    assert style.color_of("unknown") == style.color_of("unknown")


# --------------------------------------------------------------------------- missing inputs

EMPTY_CALLS = {
    "fig1a": lambda: paper_e1.fig1a_accuracy_and_auroc(None),
    "fig1b": lambda: paper_e1.fig1b_type2_roc(pd.DataFrame()),
    "fig1c": lambda: paper_e1.fig1c_calibration(None),
    "fig1d": lambda: paper_e1.fig1d_risk_coverage(None),
    "hist": lambda: live.confidence_histogram({}),
    "logits": lambda: paper_e1.logits_control(pd.DataFrame({"seed": [0], "key": ["other"], "value": ["1"]})),
    "fig2a": lambda: paper_e2.fig2a_conjunction_by_capacity(None),
    "fig2b": lambda: paper_e2.fig2b_dual_task_cost(pd.DataFrame({"agent": []})),
    "fig2c": lambda: paper_e2.fig2c_masking_traces({}),
    "gbi": lambda: paper_e2.gbi_and_ignition_by_capacity(None),
    "dnrs": lambda: paper_e2.dnrs_by_scale(None),
    "fig3a": lambda: paper_e3.fig3a_l75(None),
    "fig3b": lambda: paper_e3.fig3b_marker_correlations([]),
    "fig3c": lambda: paper_e3.fig3c_titration(None),
    "fig4": lambda: paper_e3.fig4_attribution(None),
    "table3": lambda: paper_e3.table3_pci(None),
    "claims": lambda: scorecards.claims_table([]),
    "roc": lambda: live.type2_roc_figure(None),
    "calibration": lambda: live.calibration_figure({"x": ([], [])}),
    "risk": lambda: live.risk_coverage_figure(None),
    "heatmap": lambda: episode.workspace_heatmap(None, None),
    "titration": lambda: live.titration_figure({}),
    "masking": lambda: live.masking_figure(None, 2, 4),
    "actions": lambda: episode.action_probabilities([], 0, None, []),
    "timeline": lambda: episode.internal_state_timeline([], [], []),
    "integration_bars": lambda: integration.integration_bars([]),
    "integration_table": lambda: integration.monotonicity_table(None),
    "integration_values": lambda: integration.study_values_figure(None),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CALLS))
def test_missing_input_gives_a_note_not_an_exception(name):
    fig = EMPTY_CALLS[name]()
    assert isinstance(fig, go.Figure)
    assert len(fig.data) == 0
    assert annotation_texts(fig).startswith("Not available: ")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0.25", (0.25, "none", 0.25)),
        (" > 0.5 ", (math.nan, "right", 0.5)),
        ("<= 0.01", (math.nan, "left", 0.01)),
        (float("nan"), (math.nan, "missing", math.nan)),
        ("", (math.nan, "missing", math.nan)),
        ({"value": None, "censored": "right", "bound": 0.5}, (math.nan, "right", 0.5)),
    ],
)
def test_parse_l75(raw, expected):
    got = R.parse_l75(raw)
    assert got[1] == expected[1]
    for a, b in ((got[0], expected[0]), (got[2], expected[2])):
        assert (math.isnan(a) and math.isnan(b)) or a == b


def test_format_l75_majority_rule():
    assert R.format_l75([R.parse_l75(x) for x in ("<= 0", "<= 0", 0.1)])[0].startswith("<= 0 (2/3")
    text, mean, _ = R.format_l75([R.parse_l75(x) for x in ("> 0.5", 0.1, 0.3)])
    assert mean == pytest.approx(0.2) and "1 censored" in text
    assert R.format_l75([])[0] == "undefined"


def test_titles_wrap_at_title_width_not_tick_width():
    """A title breaks at about 58 characters; tick labels at about 16 (two helpers, two names)."""
    fig = paper_e2.fig2a_conjunction_by_capacity(None)
    title = fig.layout.title.text
    assert all(len(line) > 16 for line in title.split("<br>")[:-1])
    assert all(len(line) <= 58 for line in title.split("<br>"))


# --------------------------------------------------------------------------- issue 14: the theatre, readability


@pytest.fixture(scope="module")
def wager_trace():
    """A bundled E1 agent on episode 1 of seed 0: it walks, decides at step 3 and wagers at step 6."""
    import labcore.envs as E
    from labcore.config import Intervention
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds
    from labcore.storage.checkpoint_manifest import BUNDLED_DIR
    from labcore.storage.checkpoints import load_checkpoint

    agent = load_checkpoint(BUNDLED_DIR / "wagering-b2_ws-s0.safetensors").agent
    return rollout(agent, E.WAGERING, episode_seeds(0, "eval", 2)[1:], Intervention(seed=0))


def test_action_axis_names_the_actions_per_task():
    from labcore.envs import DUAL_TASK, DUAL_TASK_MASKING, WAGERING
    from labcore.envs.batch import StepKind
    from labcore.envs.labels import PRIMARY_CUE_NAMES, SECONDARY_CUE_NAMES

    probs = np.full(7, 1 / 7)
    for task in (DUAL_TASK, DUAL_TASK_MASKING):
        for kind, names_, word in ((StepKind.REPORT_1, SECONDARY_CUE_NAMES, "colour"),
                                   (StepKind.REPORT_2, PRIMARY_CUE_NAMES, "object"),
                                   (StepKind.ORDINARY, SECONDARY_CUE_NAMES, "colour")):
            labels, axis = episode.action_axis(task, kind)
            fig = episode.action_probabilities(probs, 0, 1, labels, axis_title=axis)
            assert list(fig.data[0].x) == list(names_)  # the bars' tick text
            assert word in fig.layout.xaxis.title.text and f"agent chose: {names_[0]}" in fig.layout.xaxis.title.text
    walk, axis = episode.action_axis(WAGERING, StepKind.ORDINARY)
    assert walk[:3] == ["turn left", "turn right", "move forward"] and "red" not in walk
    wager, axis = episode.action_axis(WAGERING, StepKind.WAGER)
    assert wager[3].startswith("bet") and all(w.startswith("opt out") for i, w in enumerate(wager) if i != 3)


def test_the_wager_text_and_curve_show_the_value_the_bet_followed(wager_trace):
    from labcore.envs.batch import StepKind
    from labcore.envs.wagering import BET_ACTION

    tr = wager_trace
    n = int(tr.valid[0].sum())
    wager_step = int(np.flatnonzero(tr.step_kind[0, :n] == StepKind.WAGER)[0])
    reading = episode.wager_reading(tr)
    # the rollout bet on this value (trace.outcome), and the action at the wager step follows it
    assert reading.confidence == pytest.approx(float(tr.outcome["confidence"][0]))
    assert reading.bet == (tr.action[0, wager_step] == BET_ACTION) and reading.source == "confidence head"
    # the head's output at the wager step itself is a different number (the old text/curve mismatch)
    assert f"{tr.confidence[0, wager_step]:.2f}" != f"{reading.confidence:.2f}"
    text = episode.step_caption(tr, wager_step, 1.0)
    assert f"{reading.confidence:.2f}" in text and f"step {reading.step}" in text and "confidence head" in text
    curve = episode.internal_state_timeline(tr.confidence[0, :n], np.ones(n), highlight_step=wager_step,
                                            decision_step=reading.step)
    (marker,) = traces_named(curve, "confidence read at the choice point")
    assert list(marker.x) == [reading.step] and f"{marker.y[0]:.2f}" == f"{reading.confidence:.2f}"
    bar = episode.wager_figure(reading)
    assert bar.data[0].x[0] == reading.confidence and "bet above 0.5" in bar.layout.xaxis.title.text
    assert {a.text.replace("<b>", "").replace("</b>", "") for a in bar.layout.annotations} == {"bet", "opt out"}


def test_an_agent_without_a_confidence_head_is_read_on_its_max_softmax(wager_trace):
    from dataclasses import replace

    blind = replace(wager_trace, confidence=np.full_like(wager_trace.confidence, np.nan))
    reading = episode.wager_reading(blind)
    assert reading.source == "max softmax probability"
    assert reading.confidence == pytest.approx(float(blind.probs[0, reading.step].max()))
    wager_step = int(blind.valid[0].sum()) - 1
    assert "max softmax probability at the choice point" in episode.step_caption(blind, wager_step, 0.0)


def test_titles_are_not_wrapped_under_40_characters_and_every_registry_title_fits():
    from labcore.figures import registry
    from labcore.storage.results import load_results

    short = "Forty characters of a title, not wrapped"
    assert len(short) == 40 and "<br>" not in style.style_figure(go.Figure(), short).layout.title.text
    res = load_results(Path(__file__).resolve().parent.parent / "results" / "bundled")
    for spec in registry.FIGURES:
        lines = spec.build(res).layout.title.text.split("<br>")
        assert all(len(line) > 40 for line in lines[:-1]), (spec.slug, lines)
        assert all(len(line) <= style.TITLE_WIDTH for line in lines), (spec.slug, lines)


def test_the_top_margin_holds_title_note_and_two_line_subplot_titles(seed_values):
    fig = paper_e2.gbi_and_ignition_by_capacity(seed_values)
    title_lines = fig.layout.title.text.count("<br>") + 1
    assert title_lines == 2 and any("<br>" in a.text for a in fig.layout.annotations if a.yanchor == "bottom")
    assert fig.layout.margin.t >= 40 + 22 * title_lines + 19 * 2
    before = fig.layout.margin.t, fig.layout.height
    style.add_note(fig, "a caveat " * 30)  # a long note after styling: wrapped, and the margin grows
    note = fig.layout.title.subtitle.text
    assert all(len(line) <= style.NOTE_WIDTH for line in note.split("<br>")) and note.count("<br>") >= 2
    grown = fig.layout.margin.t - before[0]
    assert grown >= 17 * 3 and fig.layout.height - before[1] == grown  # the plot area keeps its size


def test_neighbouring_empty_groups_share_one_note(seed_values):
    fig = paper_e2.gbi_and_ignition_by_capacity(seed_values)
    texts = [a.text.replace("<br>", " ") for a in fig.layout.annotations]
    assert sum("not defined here" in t for t in texts) == 1  # five empty bars, one note (was five, overlapping)
    assert style.wrap_tick("composite<br>(leave-one-out r)") == "composite<br>(leave-one-out r)"


def test_the_radar_names_its_clusters_and_the_diagram_uses_large_type():
    from labcore.config import AGENT_KINDS
    from labcore.diagram import FONT_SIZE, architecture_dot
    from labcore.scorecards.rubric_data import CLUSTERS

    subtotals = [type("S", (), {"cluster_id": c.cluster_id, "architectural": 1, "behavioural": 1,
                                "max_points": 3, "assessed_max_points": 3})() for c in CLUSTERS]
    fig = scorecards.osmd_radar({"x": subtotals})
    axis = fig.layout.polar.angularaxis
    assert [t.replace("<br>", " ").replace("- ", "-") for t in axis.ticktext] == [
        c.name.replace("- ", "-") for c in CLUSTERS]  # "Higher-Order", not "HOT"
    assert all(len(line) <= 14 for t in axis.ticktext for line in t.split("<br>"))
    assert fig.layout.height >= 600
    dot = architecture_dot(AGENT_KINDS["b2_ws"])
    assert FONT_SIZE >= 14 and f"fontsize={FONT_SIZE}" in dot and "rankdir=TB" in dot


def test_fcs_plane_keeps_neighbours_names_apart_and_notes_the_zero_systems():
    pts = [{"name": "LIDA", "R": 80, "P": 33, "group": "reference"},
           {"name": "Roomba", "R": 145, "P": 40, "group": "reference"},
           {"name": "ACT-R", "R": 160, "P": 50, "group": "reference"},
           {"name": "far away", "R": 1e4, "P": 40, "group": "reference"},
           {"name": "lab B1", "R": 0.0, "P": 33, "group": "lab"}]
    fig = scorecards.fcs_plane(pts)
    (ref,) = traces_named(fig, "reference")
    assert len(set(ref.textposition[:3])) == 3 and ref.textposition[3] == "top center"
    assert "lab B1" in fig.layout.title.subtitle.text  # R = 0: named, not drawn
    assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 1  # decades, no crowded minor labels


def outside_their_axes(fig: go.Figure) -> list[tuple[str, float]]:
    """Plotted y values (markers, lines, bar tops) that fall outside a fixed y-axis range."""
    out = []
    for trace in fig.data:
        if trace.type not in ("scatter", "bar") or trace.y is None:
            continue
        axis = fig.layout["yaxis" + (trace.yaxis or "y")[1:]]
        if axis.range is None:
            continue
        low, high = sorted(axis.range)
        out += [(trace.name, float(y)) for y in trace.y
                if isinstance(y, int | float) and np.isfinite(y) and not low <= y <= high]
    return out


def test_an_auroc_below_the_old_axis_floor_is_inside_its_axis():
    """Issue 24, defect 5: the "Area under the curve" axis ran 0.3-1, hiding an AUROC of 0.18."""
    rng = np.random.default_rng(0)
    correct = rng.random(400) < 0.8
    confidence = np.where(correct, rng.normal(0.4, 0.1, 400), rng.normal(0.6, 0.1, 400))  # inverted
    fig = live.type2_roc_figure({"reward_wager": (correct, confidence), "b2_ws": (correct, np.where(correct, 0.9, 0.1))})
    assert outside_their_axes(fig) == []
    low, high = sorted(fig.layout.yaxis2.range)
    assert low < 0.2 and high >= 1.0


def test_the_e4_figures_hold_every_arm_inside_their_axes():
    from labcore.experiments.e4 import ARMS
    from labcore.figures.paper_e4 import arms_figure, arms_table, learning_curves
    from labcore.storage.results import load_results

    res = load_results(Path(__file__).resolve().parents[1] / "results" / "e4")
    arms = [a.name for a in ARMS]
    for fig in (arms_figure(res.seed_values, arms), learning_curves(res.e4_curves, arms=arms)):
        assert outside_their_axes(fig) == []
    table = arms_table(res.seed_values, arms)  # shares of trials as percentages, as the page's metrics
    assert table["task accuracy"].str.contains("%").all() and table["opt-outs (wager trials)"].str.contains("%").all()
    assert not table["Type-2 AUROC"].str.contains("%").any()


def test_fig3b_says_undefined_where_a_bar_is_missing(points):
    """Issue 24, defect 9: Fig. 3b's panel looked empty where r is undefined (a constant marker)."""
    fig = paper_e3.fig3b_marker_correlations(points)
    for bar in (t for t in fig.data if t.type == "bar"):
        missing = [x for x, y in zip(bar.x, bar.y, strict=True) if not np.isfinite(y)]
        said = [t for t in fig.data if getattr(t, "mode", None) == "text" and t.name == f"{bar.name}: undefined"]
        assert sorted(missing) == sorted(x for t in said for x in t.x), bar.name
