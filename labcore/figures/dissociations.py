"""The measured dissociations' figures (protocol 11; the study "dissociations"): E1's dose-response
curves beside the ideal observer, and E2's conjunction accuracy by capacity beside the two ideal
allocations. Each reads the study's summary tables only (``tables.e1.curves``, ``tables.e2``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from labcore.figures.style import chance_level_line, empty_figure, rgba, side_by_side, style_figure

MEASURES = {"auroc": "Type-2 AUROC (knowing)", "accuracy": "accuracy (doing)"}
DOSES = {
    "silenced": "share of the self-model's units silenced",
    "noise": "noise SD added to the self-model",
}
GATES = {
    "b1_gate": ("learned gate, trained with 1-4 slots", "#0072B2", "circle"),
    "b1_gate_full": ("learned gate, trained with 4 slots", "#D55E00", "diamond"),
}
"""Each gated kind's name, colour (Okabe-Ito) and marker: told apart by both."""


def dose_figure(
    curves: Sequence[Mapping[str, Any]],
    condition: str = "silenced",
    *,
    ideal_auroc: float | None = None,
    reader_auroc: float | None = None,
    here: Mapping[str, float] | None = None,
) -> go.Figure:
    """Knowing (AUROC) and doing (accuracy) against a self-model dose, mean over seeds with its 95%
    interval (protocol 11.4-11.5); the ideal and the reader's AUROC as lines, ``here`` as a star.
    """
    rows = [r for r in curves if r["condition"] == condition]
    title = "Silence the self-model step by step: knowing and doing, over seeds"
    if condition == "noise":
        title = "Add noise to the self-model: knowing and doing, over seeds"
    if not rows:
        return empty_figure(title, "the measured variant's result set is missing")
    fig = side_by_side(*MEASURES.values())
    for col, (measure, name) in enumerate(MEASURES.items(), start=1):
        picked = sorted((r for r in rows if r["measure"] == measure), key=lambda r: r["dose"])
        xs, mean = [r["dose"] for r in picked], [r["mean"] for r in picked]
        low, high = ([(r["ci95"] or [r["mean"], r["mean"]])[i] for r in picked] for i in (0, 1))
        n = picked[0]["n"] if picked else 0
        fig.add_trace(
            go.Scatter(
                x=xs + xs[::-1],
                y=high + low[::-1],
                fill="toself",
                fillcolor=rgba("#0072B2", 0.18),
                mode="none",
                line={"width": 0},
                hoverinfo="skip",
                name="95% interval over seeds",
                showlegend=col == 1,
                legendgroup="band",
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=mean,
                mode="lines+markers",
                line={"color": "#0072B2", "width": 3},
                marker={"size": 9, "symbol": "circle"},
                name=f"mean over {n} seeds",
                showlegend=col == 1,
                legendgroup="mean",
                hovertemplate=f"{DOSES[condition]} %{{x}}<br>{name} %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        if here and measure in here:
            fig.add_trace(
                go.Scatter(
                    x=[here["dose"]],
                    y=[here[measure]],
                    mode="markers",
                    marker={"size": 16, "symbol": "star", "color": "#E69F00"},
                    name="this view (one seed)",
                    showlegend=col == 1,
                    legendgroup="here",
                ),
                row=1,
                col=col,
            )
        fig.update_xaxes(title_text=DOSES[condition], row=1, col=col)
    for value, text, dash in (
        (ideal_auroc, "ideal observer of both flashes", "dot"),
        (reader_auroc, "what the choice alone had", "dashdot"),
    ):
        if value is not None:
            fig.add_trace(
                go.Scatter(
                    x=[min(r["dose"] for r in rows), max(r["dose"] for r in rows)],
                    y=[value, value],
                    mode="lines",
                    line={"dash": dash, "color": "#555", "width": 2},
                    name=f"{text} ({value:.2f})",
                ),
                row=1,
                col=1,
            )
    chance_level_line(fig, "auroc", row=1, col=1)
    chance_level_line(fig, "wager", row=1, col=2)
    return style_figure(fig, title, height=420)


def capacity_figure(
    rows: Sequence[Mapping[str, Any]], here: Mapping[str, float] | None = None
) -> go.Figure:
    """Conjunction accuracy of the learned gates against the active slots, beside what the
    overwrite rule and the best allocation keep on the same episodes (protocol 11.8-11.10)."""
    title = "Narrow a workspace that learned what to keep: both reports right, by slots"
    if not rows:
        return empty_figure(title, "the measured variant's result set is missing")
    fig = go.Figure()
    first = [r for r in rows if r["kind"] == rows[0]["kind"]]
    slots = [r["slots"] for r in first]
    for key, name, dash in (
        ("best", "best allocation (an ideal)", "dot"),
        ("rule", "overwrite rule (the paper's)", "dash"),
    ):
        fig.add_trace(
            go.Scatter(
                x=slots,
                y=[r[key] for r in first],
                mode="lines",
                line={"dash": dash, "color": "#555", "width": 2},
                name=name,
            )
        )
    for kind, (name, colour, symbol) in GATES.items():
        mine = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["slots"])
        if not mine:
            continue
        err = [(r["ci95"][1] - r["mean"]) if r.get("ci95") else 0.0 for r in mine]
        err_minus = [(r["mean"] - r["ci95"][0]) if r.get("ci95") else 0.0 for r in mine]
        fig.add_trace(
            go.Scatter(
                x=[r["slots"] for r in mine],
                y=[r["mean"] for r in mine],
                mode="lines+markers",
                line={"color": colour, "width": 3},
                marker={"size": 10, "symbol": symbol},
                error_y={"type": "data", "array": err, "arrayminus": err_minus, "visible": True},
                name=f"{name} (n = {mine[0]['n']})",
            )
        )
    if here:
        fig.add_trace(
            go.Scatter(
                x=[here["slots"]],
                y=[here["conjunction"]],
                mode="markers",
                marker={"size": 16, "symbol": "star", "color": "#E69F00"},
                name="this view (one seed)",
            )
        )
    chance_level_line(fig, "conjunction")
    fig.update_xaxes(title_text="active workspace slots", dtick=1)
    fig.update_yaxes(title_text="conjunction accuracy", range=[0, 1.05])
    return style_figure(fig, title, height=420)
