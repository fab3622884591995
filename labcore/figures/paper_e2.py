"""The paper's Experiment 2 figures (Fig. 2a-c), GBI / ignition and dNRS by capacity."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.config import AGENT_KINDS, Intervention
from labcore.figures.live import (
    masking_figure,
)
from labcore.figures.marks import (
    Group,
    add_paper_marks,
    add_seed_bars,
    bar_of,
    jitter,
    seed_numbers,
)
from labcore.figures.style import (
    CAPACITY_KEYS,
    chance_level_line,
    chance_line,
    empty_figure,
    has_columns,
    paper_of,
    style_figure,
)
from labcore.render import fmt

PRIMARY_CUE = "primary cue (the paper's)"
"""ΔNRS of the primary cue, the paper's measure (the secondary cue's is auxiliary)."""

B1_SLOTS = AGENT_KINDS["b1"].n_slots
"""Slots of the E2 agent (the capacity axis of these figures)."""

# --------------------------------------------------------------------------- E2 (GWT)


_SHORT = {
    "k4": "4 slots",
    "k3": "3 slots",
    "k2": "2 slots",
    "k1": "1 slot",
    "k0": "bus off",
    "a0": "A0",
    "a1": "A1",
}


def _capacity_groups(
    capacity: pd.DataFrame, metric: str, slots: Sequence[int], baselines: bool, short: bool = False
) -> list[Group]:
    groups = []
    b1 = capacity[capacity["agent"] == "b1"]
    cap = pd.to_numeric(b1["capacity"], errors="coerce")
    for k in slots:
        rows = b1[cap == k]
        vals = pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
        keep = np.isfinite(vals)
        groups.append(
            Group(
                f"k{k}",
                rows["seed"].to_numpy()[keep],
                vals[keep],
                paper_of(f"e2.{metric}.k{k}"),
                label=_SHORT[f"k{k}"] if short else None,
            )
        )
    if baselines:
        for kind in ("a0", "a1"):
            rows = capacity[capacity["agent"] == kind]
            vals = pd.to_numeric(rows[metric], errors="coerce").to_numpy(float)
            keep = np.isfinite(vals)
            groups.append(
                Group(
                    kind,
                    rows["seed"].to_numpy()[keep],
                    vals[keep],
                    paper_of(f"e2.{metric}.{kind}"),
                    label=_SHORT[kind] if short else None,
                )
            )
    return groups


_E2_COLUMNS = ("agent", "seed", "capacity", "per_step", "decision", "conjunction")


def fig2a_conjunction_by_capacity(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2a: B1's conjunction accuracy at 4, 2 and 0 slots, with A0 / A1 for reference."""
    title = "Fig. 2a: conjunction accuracy (both reports right) by workspace capacity"
    if not has_columns(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    fig = go.Figure()
    add_seed_bars(fig, _capacity_groups(capacity, "conjunction", (4, 2, 0), baselines=True))
    chance_level_line(fig, "conjunction")
    fig.update_yaxes(title_text="conjunction accuracy (fraction of episodes)", range=[0, 1.08])
    return style_figure(fig, title, height=480)


def fig2b_dual_task_cost(capacity: pd.DataFrame | None) -> go.Figure:
    """Fig. 2b: per-step, report-window decision and conjunction accuracy by capacity 0-4."""
    title = "Fig. 2b: dual-task cost: three accuracies by workspace capacity"
    if not has_columns(capacity, _E2_COLUMNS):
        return empty_figure(title, "no E2 capacity results (e2_capacity.csv)")
    metrics = (
        ("per_step", "per-step accuracy", "decision"),
        ("decision", "report-window decision accuracy", "decision"),
        ("conjunction", "conjunction (both reports right)", "conjunction"),
    )
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[m[1] for m in metrics],
        horizontal_spacing=0.06,
        shared_yaxes=True,
    )
    for col, (metric, _name, level) in enumerate(metrics, start=1):
        groups = _capacity_groups(capacity, metric, (4, 3, 2, 1, 0), baselines=True, short=True)
        add_seed_bars(fig, groups, row=1, col=col, legend=col == 1)
        chance_level_line(fig, level, row=1, col=col)
    fig.update_yaxes(title_text="accuracy (fraction)", range=[0, 1.08], row=1, col=1)
    fig.update_xaxes(tickfont={"size": 11})
    return style_figure(fig, title, height=520)


def fig2c_masking_traces(masking_by_seed: Mapping[str, Mapping] | None) -> go.Figure:
    """Fig. 2c: colour retention vs step at 4, 2 and 0 slots, mean +/- SD over seeds.

    The paper's 0.78 "cue signal" at entry is another measure (a projection on reference states)
    and is not drawn: retention is 1 at entry by construction.
    """
    title = "Fig. 2c: backward masking: how much of the colour is still in the workspace"
    runs = [
        m for m in (masking_by_seed or {}).values() if isinstance(m, Mapping) and m.get("traces")
    ]
    if not runs:
        return empty_figure(title, "no masking traces (figures.json without e2 masking)")
    traces: dict[str, list] = {}
    for run in runs:
        for k, trace in run["traces"].items():
            traces.setdefault(f"k{k}", []).append(trace)
    lengths = {len(t) for ts in traces.values() for t in ts}
    if len(lengths) != 1:
        return empty_figure(title, "masking traces of different lengths across seeds")
    ordered = {k: np.array(traces[k], float) for k in CAPACITY_KEYS if k in traces}
    return masking_figure(
        ordered,
        int(runs[0]["soa"]),
        int(runs[0]["count"]),
        interval=int(runs[0].get("interval", 1)),
        title=title,
    )


def _capacity_seed_groups(
    seed_values: pd.DataFrame | None, prefix: str, slots: Sequence[int], paper: bool = True
) -> list[Group]:
    return [
        Group(
            f"k{k}",
            *seed_numbers(seed_values, f"{prefix}.k{k}"),
            paper_of(f"{prefix}.k{k}") if paper else None,
        )
        for k in slots
    ]


def gbi_and_ignition_by_capacity(seed_values: pd.DataFrame | None) -> go.Figure:
    """GBI by the paper's equation, GBI on |cosine| couplings, and ignition sharpness by capacity.

    The paper's GBI is defined only for non-negative couplings; with our zero-mean slots the panel
    says "not defined here" rather than draw a number outside [0, 1].
    """
    title = "GBI (paper's equation | on |cosine| couplings) and ignition sharpness, by capacity"
    slots = (4, 3, 2, 1, 0)
    panels = (
        ("e2.gbi", "GBI, paper's equation<br>(needs non-negative couplings)", True),
        ("e2.gbi_abs", "GBI on |cosine| couplings<br>(0 by construction with 2 slots)", False),
        ("e2.ignition", "ignition sharpness<br>(fixed by the write's norm)", True),
    )
    notes = {
        "e2.gbi": "not defined here<br>(signed couplings)",
        "e2.gbi_abs": "undefined<br>(< 2 slots)",
    }
    groups = {
        prefix: [
            g
            if g.values.size or prefix == "e2.ignition"
            else Group(g.key, g.seeds, g.values, g.paper, note=notes[prefix])
            for g in _capacity_seed_groups(seed_values, prefix, slots, paper)
        ]
        for prefix, _, paper in panels
    }
    if not any(g.values.size for prefix in ("e2.gbi_abs", "e2.ignition") for g in groups[prefix]):
        return empty_figure(title, "no E2 GBI / ignition values")
    fig = make_subplots(
        rows=1, cols=3, subplot_titles=[p[1] for p in panels], horizontal_spacing=0.08
    )
    for col, (prefix, _, _) in enumerate(panels, start=1):
        add_seed_bars(fig, groups[prefix], row=1, col=col, legend=col == 1)
    fig.update_yaxes(
        title_text="GBI (participation, 0-2/3 for 4 slots)", range=[0, 1.05], row=1, col=1
    )
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    fig.update_yaxes(
        title_text="max step increase of RMS activation", rangemode="tozero", row=1, col=3
    )
    fig.update_xaxes(tickfont={"size": 11})
    return style_figure(fig, title, height=540)


def dnrs_by_scale(seed_values: pd.DataFrame | None) -> go.Figure:
    """dNRS (no-report decoding above a shuffled baseline) by capacity scale, primary and
    secondary cue.
    """
    title = "ΔNRS: is the cue decodable before any report? (by workspace capacity)"
    scales = ("0", "0.25", "0.5", "0.75", "1")
    series = (
        ("e2.dnrs", PRIMARY_CUE, "#0072B2"),
        ("e2.dnrs_secondary", "secondary cue (auxiliary)", "#56B4E9"),
    )
    if not any(
        seed_numbers(seed_values, f"{p}.scale_{s}")[1].size for p, _, _ in series for s in scales
    ):
        return empty_figure(title, "no E2 dNRS values")
    fig = go.Figure()
    x = np.array([float(s) for s in scales])
    offsets = {"e2.dnrs": -0.02, "e2.dnrs_secondary": 0.02}
    for prefix, name, colour in series:
        means, sds, sx, sy, sh = [], [], [], [], []
        for s, xs in zip(scales, x, strict=True):
            seeds, vals = seed_numbers(seed_values, f"{prefix}.scale_{s}")
            m, sd = bar_of(vals)
            means.append(m)
            sds.append(sd)
            sx += list(xs + offsets[prefix] + jitter(vals.size) * 0.05)
            sy += list(vals)
            sh += [
                f"{name}, scale {s}, seed {seed}: {fmt(v)}"
                for seed, v in zip(seeds, vals, strict=True)
            ]
        fig.add_trace(
            go.Scatter(
                x=x + offsets[prefix],
                y=means,
                mode="lines+markers",
                name=f"ours: {name}",
                error_y={"type": "data", "array": sds, "visible": True},
                line={"color": colour, "width": 2.5},
                marker={"size": 11, "symbol": "square"},
                hovertemplate="scale %{x:.2f}<br>ΔNRS %{y:.3f}<extra>mean ± SD</extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=sx,
                y=sy,
                mode="markers",
                name=f"seeds: {name}",
                showlegend=False,
                marker={"size": 6, "color": colour, "line": {"width": 1, "color": "#333"}},
                hovertext=sh,
                hoverinfo="text",
            )
        )
    add_paper_marks(
        fig,
        [
            (xs + 0.045, paper_of(f"e2.dnrs.scale_{s}"), f"scale {s}")
            for s, xs in zip(scales, x, strict=True)
        ],
    )
    chance_line(fig, 0.0, "shuffled-label baseline (0)")
    fig.update_xaxes(
        title_text="workspace capacity scale (0 = bus off, 1 = 4 slots)",
        tickvals=list(x),
        ticktext=[
            f"{s}<br>({Intervention(capacity_scale=float(s)).active_slots(B1_SLOTS)} slots)"
            for s in scales
        ],
    )
    fig.update_yaxes(title_text="ΔNRS (decoder AUC − shuffled AUC)")
    return style_figure(fig, title, height=480)
