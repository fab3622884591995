"""Figures of the E3 design study (``labcore.experiments.explore_e3``): titration curves beside
the ceiling an ideal observer of the same workspace reaches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from labcore.figures.live import titration_figure
from labcore.figures.style import add_note, color_of, empty_figure, label_of
from labcore.results import ExploreStudy, load_explore

KINDS = ("b1", "b2", "b2_ws")


def design_titration_figure(study: ExploreStudy, cell: str, schedule: str = "fast",
                            protocol: str = "stored") -> go.Figure:
    """Accuracy vs workspace noise for B1, B2 and B2 workspace-read in one cell of the study.

    Lines: mean over seeds with SD band; crosses/triangles: median L75 (triangle: beyond the
    tested range); dotted verticals: the median ceiling of each kind (an ideal observer of
    that kind's report-step workspace), i.e. how much noise the code itself could bear.
    """
    title = f"Design study: {cell}, {schedule} schedule, {protocol} noise"
    curves = study.curves
    if curves is None or curves.empty:
        return empty_figure(title, "no design study loaded")
    sel = curves[(curves["cell"] == cell) & (curves["schedule"] == schedule) & (curves["protocol"] == protocol)]
    if sel.empty:
        return empty_figure(title, f"the study has no {schedule}-schedule agents in cell {cell}")
    lines, l75 = {}, {}
    for kind in KINDS:
        one = sel[sel["kind"] == kind]
        if one.empty:
            continue
        pivot = one.pivot_table(index="seed", columns="sigma", values="accuracy")
        lines[kind] = (pivot.columns.to_numpy(float), pivot.to_numpy(float))
        group = study.group(cell, schedule, protocol, kind)
        if group:
            value = group.get("l75")
            l75[kind] = f"> {max(pivot.columns):g}" if value is not None and value >= max(pivot.columns) else value
    fig = titration_figure(lines, l75, title=title)
    top = float(sel["sigma"].max())
    for kind in lines:
        ceiling = study.group(cell, schedule, protocol, kind).get("ceiling")
        if ceiling is None or not np.isfinite(ceiling):
            continue
        shown = min(ceiling, top)
        fig.add_vline(x=shown, line_dash="dot", line_color=color_of(kind), opacity=0.8)
        fig.add_scatter(x=[shown], y=[1.02], mode="markers+text", marker={"symbol": "line-ns-open", "size": 12,
                                                                              "color": color_of(kind)},
                        text=[f"ceiling {label_of(kind)}" + (" (beyond)" if ceiling > top else "")],
                        textposition="top center", showlegend=False,
                        hovertemplate=f"ideal-observer L75 of {label_of(kind)}: {ceiling:.3g}<extra></extra>")
    add_note(fig, "Dotted lines: the L75 an ideal observer of the same workspace reaches (the ceiling).")
    return fig


def design_figure(directory: Path | str) -> go.Figure:
    """The study's headline figure: the cell closest to the paper's pattern (fast schedule)."""
    study = load_explore(directory)
    closest = (study.summary.get("answer") or {}).get("closest", {}).get("fast") or {}
    if not closest.get("closest_cell"):
        return empty_figure("Design study", "; ".join(study.problems) or "no result")
    return design_titration_figure(study, closest["closest_cell"], "fast", closest.get("protocol", "stored"))
