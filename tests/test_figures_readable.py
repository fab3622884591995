"""Figure builders, second half: the live lab's builders, missing inputs, and readability (the
theatre, titles, margins, notes, axes). The paper's figures are in tests/test_figures.py, whose
synthetic inputs and helpers this file shares."""

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
    scorecards,
    style,
)
from labcore.figures import paper as paper_figs
from labcore.render import UNDEFINED
from labcore.storage import formatting as R
from tests import test_figures as shared
from tests.test_figures import annotation_texts, hline_ys, names, traces_named

# The shared synthetic inputs: pytest fixtures, requested by name in this file's tests.
seed_values, capacity, points = shared.seed_values, shared.capacity, shared.points

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
    heatmaps = [t.type for t in fig.data if t.type == "heatmap"]
    assert heatmaps == ["heatmap", "heatmap"]  # the slots, and the activations
    z = np.asarray(fig.data[0].z)
    # what a slot holds is named in the legend, one square of its colour each, in code order
    labels = [t.name.removeprefix("holds: ") for t in fig.data if t.type == "scatter"]
    holds = [[labels[int(c)] for c in row] for row in z]
    assert holds[0][:4] == ["colour cue"] * 4 and holds[0][4:] == ["mask"] * 6
    assert holds[1][0] == "empty" and holds[1][1:] == ["object cue"] * 9
    assert np.asarray(fig.data[1].z).shape == (k * d, steps)


def test_action_probabilities_and_timeline():
    fig = episode.action_probabilities(
        np.array([0.1, 0.6, 0.3]), chosen=1, expert=2, labels=["a", "b", "c"]
    )
    assert [t.type for t in fig.data] == ["bar", "scatter"]  # the probabilities, the expert's star
    assert pytest.approx(1 / 3) in hline_ys(fig)
    assert fig.data[0].marker.color[1] == style.PALETTE["b1"]
    tl = episode.internal_state_timeline(
        [0.2, 0.9, np.nan], [1.0, 2.0, 0.5], ["cue", "", "decision"]
    )
    assert names(tl)[:2] == ["confidence", "‖z_self‖"] and names(tl)[2].split()[0] == "bet"
    assert list(tl.data[2].y) == [0.5, 0.5]  # the bet threshold's line, named in the legend


def test_palette_is_shared_across_figures(seed_values, capacity):
    fig3a = paper_figs.fig3a_l75(seed_values, agents=("b1",))
    fig2a = paper_figs.fig2a_conjunction_by_capacity(capacity)
    b1_3a = traces_named(fig3a, style.SEEDS)[0].marker.color[0]
    assert (
        b1_3a == style.PALETTE["b1"] == traces_named(fig2a, style.OURS)[0].marker.color[0]
    )  # 4 slots = B1
    assert style.color_of("unknown") == style.color_of("unknown")


# --------------------------------------------------------------------------- missing inputs

EMPTY_CALLS = {
    "fig1a": lambda: paper_figs.fig1a_accuracy_and_auroc(None),
    "fig1b": lambda: paper_figs.fig1b_type2_roc(pd.DataFrame()),
    "fig1c": lambda: paper_figs.fig1c_calibration(None),
    "fig1d": lambda: paper_figs.fig1d_risk_coverage(None),
    "hist": lambda: live.confidence_histogram({}),
    "logits": lambda: paper_figs.logits_control(
        pd.DataFrame({"seed": [0], "key": ["other"], "value": ["1"]})
    ),
    "fig2a": lambda: paper_figs.fig2a_conjunction_by_capacity(None),
    "fig2b": lambda: paper_figs.fig2b_dual_task_cost(pd.DataFrame({"agent": []})),
    "fig2c": lambda: paper_figs.fig2c_masking_traces({}),
    "gbi": lambda: paper_figs.gbi_and_ignition_by_capacity(None),
    "dnrs": lambda: paper_figs.dnrs_by_scale(None),
    "fig3a": lambda: paper_figs.fig3a_l75(None),
    "fig3b": lambda: paper_figs.fig3b_marker_correlations([]),
    "fig3c": lambda: paper_figs.fig3c_titration(None),
    "fig4": lambda: paper_figs.fig4_attribution(None),
    "table3": lambda: paper_figs.table3_pci(None),
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
    assert annotation_texts(fig).startswith(f"{style.NOT_AVAILABLE}: ")


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
    assert R.format_l75([])[0] == UNDEFINED


def test_titles_wrap_at_title_width_not_tick_width():
    """A title breaks at about 58 characters; tick labels at about 16 (two helpers, two names)."""
    fig = paper_figs.fig2a_conjunction_by_capacity(None)
    title = fig.layout.title.text
    assert all(len(line) > 16 for line in title.split("<br>")[:-1])
    assert all(len(line) <= 58 for line in title.split("<br>"))


# --------------------------------------------------------------------------- the theatre,
# readability


@pytest.fixture(scope="module")
def wager_trace():
    """A bundled E1 agent on episode 1 of seed 0: it walks, decides at step 3 and wagers at step
    6."""
    import labcore.envs as E
    from labcore.config import Intervention
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds
    from labcore.storage.checkpoints import BUNDLED_DIR, checkpoint_file, load_checkpoint

    agent = load_checkpoint(checkpoint_file(BUNDLED_DIR, "wagering-b2_ws-s0")).agent
    return rollout(agent, E.WAGERING, episode_seeds(0, "eval", 2)[1:], Intervention(seed=0))


def test_action_axis_names_the_actions_per_task():
    from labcore.envs import DUAL_TASK, DUAL_TASK_MASKING, WAGERING
    from labcore.envs.batch import StepKind
    from labcore.envs.labels import PRIMARY_CUE_NAMES, SECONDARY_CUE_NAMES

    probs = np.full(7, 1 / 7)
    for task in (DUAL_TASK, DUAL_TASK_MASKING):
        for kind, names_, word in (
            (StepKind.REPORT_1, SECONDARY_CUE_NAMES, "colour"),
            (StepKind.REPORT_2, PRIMARY_CUE_NAMES, "object"),
            (StepKind.ORDINARY, SECONDARY_CUE_NAMES, "colour"),
        ):
            labels, axis = episode.action_axis(task, kind)
            fig = episode.action_probabilities(probs, 0, 1, labels, axis_title=axis)
            assert list(fig.data[0].x) == list(names_)  # the bars' tick text
            title = fig.layout.xaxis.title.text
            assert word in title and title.endswith(names_[0])  # what it reports, and the choice
    walk, axis = episode.action_axis(WAGERING, StepKind.ORDINARY)
    assert walk[:3] == list(episode.MOVE_NAMES[:3]) and "red" not in walk
    wager, axis = episode.action_axis(WAGERING, StepKind.WAGER)
    assert wager[3].startswith(episode.BET) and all(
        w.startswith(episode.OPT_OUT) for i, w in enumerate(wager) if i != 3
    )


def test_the_wager_text_and_curve_show_the_value_the_bet_followed(wager_trace):
    from labcore.envs.batch import StepKind
    from labcore.envs.wagering import BET_ACTION

    tr = wager_trace
    n = int(tr.valid[0].sum())
    wager_step = int(np.flatnonzero(tr.step_kind[0, :n] == StepKind.WAGER)[0])
    reading = episode.wager_reading(tr)
    # the rollout bet on this value (trace.outcome), and the action at the wager step follows it
    assert reading.confidence == pytest.approx(float(tr.outcome["confidence"][0]))
    assert (
        reading.bet == (tr.action[0, wager_step] == BET_ACTION) and reading.source == episode.HEAD
    )
    # the head's output at the wager step itself is a different number (the old text/curve mismatch)
    assert f"{tr.confidence[0, wager_step]:.2f}" != f"{reading.confidence:.2f}"
    text = episode.step_caption(tr, wager_step, 1.0)
    assert (
        f"{reading.confidence:.2f}" in text
        and f"step {reading.step}" in text
        and reading.source in text
    )
    curve = episode.internal_state_timeline(
        tr.confidence[0, :n], np.ones(n), highlight_step=wager_step, decision_step=reading.step
    )
    (marker,) = traces_named(curve, "confidence read at the choice point")
    assert list(marker.x) == [reading.step] and f"{marker.y[0]:.2f}" == f"{reading.confidence:.2f}"
    bar = episode.wager_figure(reading)
    axis = bar.layout.xaxis.title.text
    assert bar.data[0].x[0] == reading.confidence and reading.source in axis
    assert f"{episode.BET_THRESHOLD:g}" in axis  # the threshold it is split at
    assert {a.text.replace("<b>", "").replace("</b>", "") for a in bar.layout.annotations} == {
        episode.BET,
        episode.OPT_OUT,
    }


def test_an_agent_without_a_confidence_head_is_read_on_its_max_softmax(wager_trace):
    from dataclasses import replace

    blind = replace(wager_trace, confidence=np.full_like(wager_trace.confidence, np.nan))
    reading = episode.wager_reading(blind)
    assert reading.source == episode.MAX_SOFTMAX
    assert reading.confidence == pytest.approx(float(blind.probs[0, reading.step].max()))
    wager_step = int(blind.valid[0].sum()) - 1
    assert episode.MAX_SOFTMAX in episode.step_caption(blind, wager_step, 0.0)


def test_titles_are_not_wrapped_under_40_characters_and_every_registry_title_fits():
    from labcore.experiments.paper_results import load_results
    from labcore.figures import registry

    short = "Forty characters of a title, not wrapped"
    assert (
        len(short) == 40 and "<br>" not in style.style_figure(go.Figure(), short).layout.title.text
    )
    res = load_results(Path(__file__).resolve().parent.parent / "results" / "bundled")
    for spec in registry.FIGURES:
        lines = spec.build(res).layout.title.text.split("<br>")
        assert all(len(line) > 40 for line in lines[:-1]), (spec.slug, lines)
        assert all(len(line) <= style.TITLE_WIDTH for line in lines), (spec.slug, lines)


def test_the_top_margin_holds_title_note_and_two_line_subplot_titles(seed_values):
    fig = paper_figs.gbi_and_ignition_by_capacity(seed_values)
    title_lines = fig.layout.title.text.count("<br>") + 1
    assert title_lines == 2 and any(
        "<br>" in a.text for a in fig.layout.annotations if a.yanchor == "bottom"
    )
    assert fig.layout.margin.t >= 40 + 22 * title_lines + 19 * 2
    before = fig.layout.margin.t, fig.layout.height
    style.add_note(
        fig, "a caveat " * 30
    )  # a long note after styling: wrapped, and the margin grows
    note = fig.layout.title.subtitle.text
    assert (
        all(len(line) <= style.NOTE_WIDTH for line in note.split("<br>"))
        and note.count("<br>") >= 2
    )
    grown = fig.layout.margin.t - before[0]
    assert (
        grown >= 17 * 3 and fig.layout.height - before[1] == grown
    )  # the plot area keeps its size


def test_neighbouring_empty_groups_share_one_note(seed_values):
    fig = paper_figs.gbi_and_ignition_by_capacity(seed_values)
    texts = [a.text.replace("<br>", " ") for a in fig.layout.annotations]
    assert (
        sum(UNDEFINED in t for t in texts) == 1
    )  # five empty bars, one note (was five, overlapping)
    wrapped = "composite<br>(leave-one-out r)"
    assert style.wrap_tick(wrapped) == wrapped  # a tick already wrapped stays as it is


def test_the_radar_names_its_clusters_and_the_diagram_uses_large_type():
    from labcore.config import AGENT_KINDS
    from labcore.diagram import FONT_SIZE, architecture_dot
    from labcore.scorecards.documents import OSMD

    subtotals = [
        type(
            "S",
            (),
            {
                "cluster_id": c,
                "architectural": 1,
                "behavioural": 1,
                "max_points": 3,
                "assessed_max_points": 3,
            },
        )()
        for c in OSMD.clusters
    ]
    fig = scorecards.osmd_radar({"x": subtotals})
    axis = fig.layout.polar.angularaxis
    assert [t.replace("<br>", " ").replace("- ", "-") for t in axis.ticktext] == [
        name.replace("- ", "-") for name, _ in OSMD.clusters.values()
    ]  # "Higher-Order", not "HOT"
    assert all(len(line) <= 14 for t in axis.ticktext for line in t.split("<br>"))
    assert fig.layout.height >= 600
    dot = architecture_dot(AGENT_KINDS["b2_ws"])
    assert FONT_SIZE >= 14 and f"fontsize={FONT_SIZE}" in dot and "rankdir=TB" in dot


def test_fcs_plane_keeps_neighbours_names_apart_and_notes_the_zero_systems():
    pts = [
        {"name": "LIDA", "R": 80, "P": 33, "group": "reference"},
        {"name": "Roomba", "R": 145, "P": 40, "group": "reference"},
        {"name": "ACT-R", "R": 160, "P": 50, "group": "reference"},
        {"name": "far away", "R": 1e4, "P": 40, "group": "reference"},
        {"name": "lab B1", "R": 0.0, "P": 33, "group": "lab"},
    ]
    fig = scorecards.fcs_plane(pts)
    (ref,) = traces_named(fig, "reference")
    assert len(set(ref.textposition[:3])) == 3 and ref.textposition[3] == scorecards.ALONE
    assert pts[-1]["name"] in fig.layout.title.subtitle.text  # R = 0: named, not drawn
    assert (
        fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 1
    )  # decades, no crowded minor labels


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
        out += [
            (trace.name, float(y))
            for y in trace.y
            if isinstance(y, int | float) and np.isfinite(y) and not low <= y <= high
        ]
    return out


def test_an_auroc_below_the_old_axis_floor_is_inside_its_axis():
    """An "Area under the curve" axis of 0.3-1 would hide an AUROC of 0.18."""
    rng = np.random.default_rng(0)
    correct = rng.random(400) < 0.8
    confidence = np.where(correct, rng.normal(0.4, 0.1, 400), rng.normal(0.6, 0.1, 400))  # inverted
    fig = live.type2_roc_figure(
        {"reward_wager": (correct, confidence), "b2_ws": (correct, np.where(correct, 0.9, 0.1))}
    )
    assert outside_their_axes(fig) == []
    low, high = sorted(fig.layout.yaxis2.range)
    assert low < 0.2 and high >= 1.0


def test_the_e4_figures_hold_every_arm_inside_their_axes():
    from labcore.experiments.e4 import ARMS
    from labcore.experiments.paper_results import load_results
    from labcore.figures.paper import arms_figure, arms_table, learning_curves

    res = load_results(Path(__file__).resolve().parents[1] / "results" / "e4")
    arms = [a.name for a in ARMS]
    for fig in (arms_figure(res.seed_values, arms), learning_curves(res.e4_curves, arms=arms)):
        assert outside_their_axes(fig) == []
    table = arms_table(
        res.seed_values, arms
    )  # shares of trials as percentages, as the page's metrics
    assert (
        table["task accuracy"].str.contains("%").all()
        and table["opt-outs (wager trials)"].str.contains("%").all()
    )
    assert not table["Type-2 AUROC"].str.contains("%").any()


def test_fig3b_says_undefined_where_a_bar_is_missing(points):
    """Fig. 3b's panel would look empty where r is undefined (a constant marker)."""
    fig = paper_figs.fig3b_marker_correlations(points)
    for bar in (t for t in fig.data if t.type == "bar"):
        missing = [x for x, y in zip(bar.x, bar.y, strict=True) if not np.isfinite(y)]
        said = [
            t
            for t in fig.data
            if getattr(t, "mode", None) == "text" and t.name == f"{bar.name}: undefined"
        ]
        assert sorted(missing) == sorted(x for t in said for x in t.x), bar.name


# --------------------------------------------------------------------------- in-chart collisions
# (a classroom at 1366x800 and on a phone)


def test_the_roc_panel_of_the_auroc_holds_no_text_and_its_axis_is_on_the_far_side():
    """'chance 0.5' sat on the paper's diamond of the zeroed self-model (AUROC 0.5); on a phone the
    AUROC axis title, between the panels, crossed the ROC curve."""
    flat = (np.array([1, 0] * 20, bool), np.full(40, 0.5))
    good = (
        np.array([1] * 20 + [0] * 20, bool),
        np.r_[np.linspace(0.6, 1, 20), np.linspace(0, 0.7, 20)],
    )
    fig = live.type2_roc_figure({"intact": good, "zeroed": flat}, {"intact": 0.92, "zeroed": 0.5})
    in_panel = [a for a in fig.layout.annotations if a.xref in ("x2", "x2 domain")]
    assert not in_panel, [a.text for a in in_panel]  # the chance line's name is in the legend
    chance = [t for t in fig.data if t.xaxis == "x2" and t.mode == "lines"]
    assert len(chance) == 1 and list(chance[0].y) == [0.5, 0.5]
    assert chance[0].legendgroup == fig.data[0].legendgroup  # one legend entry with the diagonal
    assert fig.layout.yaxis2.side == "right" and fig.layout.yaxis2.title.text


@pytest.mark.parametrize("value", [0.49, 0.51, 0.5])
def test_the_value_read_at_the_choice_point_is_written_clear_of_the_bet_line(value):
    """'read here: 0.49' was centred on its marker's height, 0.01 under the bet line at 0.5."""
    fig = episode.internal_state_timeline(
        [value] * 6, np.ones(6), highlight_step=5, decision_step=3
    )
    (read,) = traces_named(fig, "confidence read at the choice point")
    above = read.textposition.startswith("top")
    assert read.textposition.split()[0] in ("top", "bottom")
    low, high = (value, value + episode.READ_TEXT_SPAN) if above else (value - 0.15, value)
    assert not low <= episode.BET_THRESHOLD <= high or value == episode.BET_THRESHOLD
    assert above == (value >= episode.BET_THRESHOLD)
    assert not [a for a in fig.layout.annotations if a.y == episode.BET_THRESHOLD], (
        "the bet line is named in the legend, not labelled on the line"
    )
    assert [list(t.y) for t in fig.data if t.mode == "lines" and t.name.startswith("bet")] == [
        [0.5, 0.5]
    ]


def test_the_read_value_turns_from_the_neighbouring_steps_and_the_panel_edge():
    def side(values: list[float]) -> str:  # plotly's position: "top center" or "bottom center"
        return episode.read_text_position(values, 1).split()[0]

    assert side([0.3, 0.8, 0.3]) == "top" and side([0.95, 0.8, 0.95]) == "bottom"
    assert side([0.9, 0.98, 0.9]) == "bottom"  # no room above
    assert side([0.1, 0.02, 0.1]) == "top"  # no room below
