"""Figures of the external scorecards: the self-model rubric's radar, the FCS plane, and
the table of every claim with its verdict.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labcore.figures.style import (
    VERDICT_COLOURS,
    add_note,
    empty_figure,
    escape_plotly,
    style_figure,
    styled_table,
    wrap_tick,
)
from labcore.findings import Finding
from labcore.render import findings_table
from labcore.scorecards.documents import OSMD

ALONE = "top center"


def osmd_radar(
    systems: Mapping[str, Sequence[Any]], *, title: str = "Self-model density by cluster"
) -> go.Figure:
    """8-cluster radar of OSMD scores, architectural (dashed) and behavioural (solid), per system.

    Values are fractions of each cluster's assessed points (a cluster with none is a gap); names are
    escaped for plotly's pseudo-HTML (a user's system name is free text).
    """
    if not systems:
        return empty_figure(title, "no system to draw")
    fig = go.Figure()
    palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]  # Okabe & Ito
    for i, (name, subtotals) in enumerate(systems.items()):
        clusters = [c.cluster_id for c in subtotals] + [subtotals[0].cluster_id]
        names = {c.cluster_id: cluster_label(c.cluster_id) for c in subtotals}
        colour = palette[i % len(palette)]
        for field, dash in (("architectural", "dash"), ("behavioural", "solid")):
            r = [
                getattr(c, field) / c.assessed_max_points if c.assessed_max_points else None
                for c in subtotals
            ]
            r.append(r[0])
            hover = [
                f"{c.cluster_id}: not assessed"
                if not c.assessed_max_points
                else f"{c.cluster_id}: {getattr(c, field)} / {c.max_points}"
                if c.assessed_max_points == c.max_points
                else f"{c.cluster_id}: {getattr(c, field)} / {c.assessed_max_points} "
                f"({c.assessed_max_points // 3} of {c.max_points // 3} items assessed)"
                for c in subtotals
            ]
            fig.add_trace(
                go.Scatterpolar(
                    r=r,
                    theta=clusters,
                    name=f"{escape_plotly(name)}: {field}",
                    mode="lines+markers",
                    line={"color": colour, "dash": dash, "width": 2.5 if dash == "solid" else 1.5},
                    text=[*hover, hover[0]],
                    hoverinfo="text",
                )
            )
    # Cluster names, not ids, round the circle; the radial ticks sit on one spoke at 22.5 degrees
    # (between two clusters), so they never cross a cluster name; the radius is explained in the
    # note.
    fig.update_layout(
        polar={
            "domain": {"x": [0.16, 0.84], "y": [0.0, 1.0]},  # room for the names on a phone
            "angularaxis": {
                "tickmode": "array",
                "tickvals": list(names),
                "ticktext": list(names.values()),
                "tickfont": {"size": 14},
                "direction": "clockwise",
                "rotation": 90,
            },
            "radialaxis": {
                "range": [0, 1],
                "tickvals": [0.25, 0.5, 0.75, 1.0],
                "tickformat": ".0%",
                "tickfont": {"size": 11, "color": "#666"},
                "angle": 22.5,
                "tickangle": 22.5,
            },
        }
    )
    add_note(
        fig,
        "distance from the centre: share of the cluster's points scored (over the items assessed); "
        "dashed = architectural, solid = behavioural",
    )
    style_figure(fig, title, height=620)
    fig.update_layout(margin_l=30)  # no y axis to leave room for; the names need it on a phone
    return fig


def cluster_label(cluster_id: str) -> str:
    """A rubric cluster's name for the radar, wrapped (``"HOT"`` -> ``"Higher-Order"``).

    >>> cluster_label("SELF"), cluster_label("AFFECT")
    ('Persistent<br>Identity /<br>Autobiography', 'Homeostatic-<br>Affective')
    """
    if cluster_id not in OSMD.clusters:
        return cluster_id
    name, _ = OSMD.clusters[cluster_id]
    return wrap_tick(name.replace("-", "- "), 11).replace("- ", "-")  # may break after a hyphen


def fcs_plane(
    points: Sequence[Mapping[str, Any]], *, title: str = "Functional Consciousness Score: R x P"
) -> go.Figure:
    """Systems on log axes of representational capacity R and reasoning power P, iso-FCS curves;
    stand-in P drawn hollow, systems with R or P = 0 listed in a note.
    """
    if not points:
        return empty_figure(title, "no systems")
    drawable = [p for p in points if p["R"] > 0 and p["P"] > 0]
    zero = [p["name"] for p in points if not (p["R"] > 0 and p["P"] > 0)]
    fig = go.Figure()
    xs = [p["R"] for p in drawable] or [1.0]
    ys = [p["P"] for p in drawable] or [1.0]
    lo_x, hi_x = min(xs) / 3, max(xs) * 3
    lo_y, hi_y = min(ys) / 3, max(ys) * 3
    grid = np.logspace(np.log10(lo_x), np.log10(hi_x), 60)
    for level in (1, 1e2, 1e4, 1e6, 1e8):
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=level / grid,
                mode="lines",
                line={"color": "#cccccc", "dash": "dot"},
                name=f"FCS = {level:g}",
                showlegend=False,
                hoverinfo="skip",
            )
        )
        enters = level / hi_y  # the R at which the curve crosses the top edge: its label goes there
        if lo_x <= enters <= hi_x:
            fig.add_annotation(
                x=np.log10(enters),
                y=np.log10(hi_y),
                text=f"FCS {level:g}",
                showarrow=False,
                font={"size": 11, "color": "#999999"},
                xanchor="left",
                yanchor="top",
                xshift=4,
            )
    for group, symbol, colour in (("reference", "circle", "#555555"), ("lab", "star", "#D55E00")):
        members = [p for p in drawable if p.get("group") == group]
        if not members:
            continue
        fig.add_trace(
            go.Scatter(
                x=[p["R"] for p in members],
                y=[p["P"] for p in members],
                mode="markers+text",
                text=[p["name"] for p in members],
                textposition=label_positions(members),
                name=group,
                marker={
                    "symbol": [symbol + ("-open" if p.get("standin") else "") for p in members],
                    "size": 13,
                    "color": colour,
                    "line": {"width": 2},
                },
                hovertemplate="%{text}<br>R = %{x:.3g} bits<br>P = %{y:.3g}<extra></extra>",
            )
        )
    # decades only: the minor ticks' 2, 3, 5 labels crowded the axes
    fig.update_xaxes(
        type="log", dtick=1, title_text="R: representational capacity (self-model variables x bits)"
    )
    fig.update_yaxes(
        type="log",
        dtick=1,
        title_text="P: reasoning power (hollow = stand-in)",
        range=[np.log10(lo_y), np.log10(hi_y)],
    )
    if zero:
        add_note(fig, "FCS = 0, so not on the log axes: " + ", ".join(zero))
    return style_figure(fig, title, height=560)


def label_positions(points: Sequence[Mapping[str, Any]], near: float = 0.5) -> list[str]:
    """Where each point's name goes so that neighbours' names (less than ``near`` decades apart)
    do not overlap.

    >>> label_positions([{"R": 80, "P": 33}, {"R": 145, "P": 40}, {"R": 160, "P": 50},
    ...                  {"R": 1e4, "P": 40}])
    ['bottom center', 'middle right', 'top center', 'top center']
    """
    at = [(math.log10(p["R"]), math.log10(p["P"])) for p in points]
    out = []
    for i, (x, y) in enumerate(at):
        nb = [
            (px, py)
            for j, (px, py) in enumerate(at)
            if j != i and abs(px - x) < near and abs(py - y) < near
        ]
        if not nb or all((y, x) > (py, px) for px, py in nb):
            out.append(ALONE)
        elif all((y, x) < (py, px) for px, py in nb):
            out.append("bottom center")
        else:
            out.append("middle right" if x >= sum(px for px, _ in nb) / len(nb) else "middle left")
    return out


def claims_table(findings: Sequence[Finding] | None) -> go.Figure:
    """All claims as one table (:func:`labcore.render.findings_table`'s rows), verdict cells
    coloured, free text escaped.
    """
    title = "Every claim: the paper's number, ours, and the pre-registered verdict"
    claims = list(findings or [])
    if not claims:
        return empty_figure(title, "no claims in summary.json")
    rows = findings_table(claims)
    verdicts = [str(c.verdict or "") for c in claims]
    fill = [VERDICT_COLOURS.get(v, "white") for v in verdicts]
    columns = ("Question", "Paper", "Ours", "Verdict", "Evidence")
    fig = go.Figure(
        styled_table(
            ("claim", *(c.lower() for c in columns)),
            [
                [escape_plotly(c.id) for c in claims],
                *([escape_plotly(r[c]) for r in rows] for c in columns),
            ],
            [2.2, 3.6, 1.3, 1.8, 1.4, 1.2],
            fill_color=[["white"] * len(claims)] * 4 + [fill, ["white"] * len(claims)],
            height=24,
        )
    )
    return style_figure(fig, title, height=min(140 + 30 * len(claims), 2400), legend_below=False)
