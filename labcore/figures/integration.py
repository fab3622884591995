"""The integration measures shown: the three measures side by side, and the study's table of
which IIT monotonicity each measure passes (``labcore.experiments.integration``). Its answer in
words is its template (``labcore/templates/integration.j2``, :func:`labcore.render.answer`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from labcore.experiments.integration import MONOTONICITIES, STUDY_NAME, IntegrationTables
from labcore.figures.style import (
    color_of,
    empty_figure,
    label_of,
    legend_entry,
    side_by_side,
    style_figure,
    wrap_tick,
)
from labcore.findings import load_summary
from labcore.render import term

MEASURE_NAMES = {
    "phi": "Φ_E (whole minus sum)",
    "o_information": "O-information Ω",
    "tse": "TSE complexity",
}
SIGNAL_NAMES = {"h": "recurrent state", "slots": "workspace", "z_self": "self-model"}
"""The recorded signals as a visitor reads them (their codes are the study's column values)."""


def signal_name(signal: str) -> str:
    """A signal's name (its code when it has none).

    >>> signal_name("z_self"), signal_name("other")
    ('self-model', 'other')
    """
    return SIGNAL_NAMES.get(signal, signal)


OUTCOME_STYLE = {  # (cell value for the colour scale, short text)
    "passes": (1.0, "passes"),
    "fails": (0.45, "fails"),
    "reversed": (0.0, "reversed"),
    "undefined": (0.7, "undefined"),
}
_SCALE = [
    [0.0, "#d6604d"],
    [0.45, "#f4a582"],
    [0.55, "#f7f7f7"],
    [0.7, "#e0e0e0"],
    [0.85, "#d1e5f0"],
    [1.0, "#4393c3"],
]


def integration_bars(
    readings: Sequence[Any],
    *,
    title: str = "Integration measures, side by side",
    intact_readings: Sequence[Any] | None = None,
) -> go.Figure:
    """One panel per measure: its value on every signal and variant of one agent and condition
    (``intact_readings`` as open bars beside); undefined values named under the panel.
    """
    if not readings:
        return empty_figure(title, "no agent to measure")
    fig = side_by_side(*MEASURE_NAMES.values(), horizontal_spacing=0.09)
    for col, measure in enumerate(MEASURE_NAMES, 1):
        mine = [r for r in readings if r.measure == measure]
        names = [wrap_tick(f"{signal_name(r.signal)} ({r.variant})") for r in mine]
        values = [r.value if np.isfinite(r.value) else None for r in mine]
        if intact_readings is not None:
            ref = {(r.signal, r.variant): r.value for r in intact_readings if r.measure == measure}
            fig.add_trace(
                go.Bar(
                    x=names,
                    y=[ref.get((r.signal, r.variant)) for r in mine],
                    name="intact",
                    marker={"color": "white", "line": {"color": "#555", "width": 1.5}},
                    showlegend=col == 1,
                    hovertemplate="%{x}<br>intact %{y:.3g} bits<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.add_trace(
            go.Bar(
                x=names,
                y=values,
                name="this condition" if intact_readings is not None else "value",
                marker_color=[color_of(r.signal) for r in mine],
                showlegend=col == 1,
                hovertemplate="%{x}<br>%{y:.3g} bits<extra></extra>",
            ),
            row=1,
            col=col,
        )
        undefined = [
            f"{signal_name(r.signal)} ({r.variant})" for r in mine if not np.isfinite(r.value)
        ]
        if undefined:  # one per line: on a phone a panel is about 100 px wide
            fig.add_annotation(
                text="<br>".join(["not defined:", *undefined]),
                xref=f"x{col if col > 1 else ''} domain",
                yref=f"y{col if col > 1 else ''} domain",
                x=0.5,
                y=-0.32,
                yanchor="top",
                showarrow=False,
                font={"size": 11, "color": "#777"},
            )
        sign = " (< 0: the parts' own memory outweighs the whole's)" if measure == "phi" else ""
        fig.update_yaxes(title_text=f"bits{sign}", row=1, col=col)
    fig.update_layout(barmode="group")
    return style_figure(fig, title, height=460)


def study_values_figure(
    rows: pd.DataFrame | None,
    signal: str = "h",
    variant: str = "intact",
    ridge: float | None = None,
) -> go.Figure:
    """The study's values of one signal and variant: mean ± SD over seeds per kind and condition,
    trained beside the untrained twin, one panel per measure."""
    title = (
        f"Integration of the {signal_name(signal)} ({variant}): trained agents and their "
        "untrained twins"
    )
    if rows is None or rows.empty:
        return empty_figure(title, "the integration study has not been run yet")
    sel = rows[(rows["signal"] == signal) & (rows["variant"] == variant) & (rows["group"] == "all")]
    if ridge is not None:
        sel = sel[np.isclose(sel["ridge"].astype(float), ridge)]
    if sel.empty:
        return empty_figure(
            title, f"no values of the {signal_name(signal)} ({variant}) in the study"
        )
    fig = side_by_side(*MEASURE_NAMES.values(), horizontal_spacing=0.09)
    for col, measure in enumerate(MEASURE_NAMES, 1):
        one = sel[sel["measure"] == measure]
        for training, opacity in (("trained", 1.0), ("untrained", 0.35)):
            stats = (
                one[one["training"] == training]
                .groupby(["kind", "condition"])["value"]
                .agg(["mean", "std", "count"])
                .reset_index()
            )
            if stats.empty:
                continue
            x = [
                wrap_tick(label_of(k) + (" bus-off" if c == "bus_off" else ""))
                for k, c in zip(stats["kind"], stats["condition"], strict=True)
            ]
            fig.add_trace(
                go.Bar(
                    x=x,
                    y=stats["mean"],
                    error_y={"type": "data", "array": stats["std"].fillna(0)},
                    name=f"{training} (mean ± SD over seeds)",
                    opacity=opacity,
                    marker_color=[color_of(k) for k in stats["kind"]],
                    showlegend=col == 1,
                    hovertemplate="%{x}<br>%{y:.3g} bits<extra>" + training + "</extra>",
                ),
                row=1,
                col=col,
            )
        fig.update_yaxes(title_text="bits", row=1, col=col)
    fig.update_layout(barmode="group")
    return style_figure(fig, title, height=480)


def monotonicity_table(tables: IntegrationTables | None) -> go.Figure:
    """The study's pass/fail table: rows measure x signal x variant, columns M1-M4 ("by
    construction": a value the wiring fixes, not counted as evidence).
    """
    title = "Which IIT monotonicity does each measure recover?"
    tests = tables.tests if tables is not None else []
    if not tests:
        return empty_figure(title, "the integration study has not been run yet")
    columns = list(MONOTONICITIES)
    keys = sorted(
        {(t.measure, t.signal, t.variant) for t in tests},
        key=lambda k: (list(MEASURE_NAMES).index(k[0]) if k[0] in MEASURE_NAMES else 9, k[1], k[2]),
    )
    z = np.full((len(keys), len(columns)), np.nan)
    text = [["not tested" for _ in columns] for _ in keys]
    for t in tests:
        i, j = keys.index((t.measure, t.signal, t.variant)), columns.index(t.test)
        value, label = OUTCOME_STYLE.get(t.outcome, (0.7, t.outcome))
        if t.by_construction and t.outcome != "undefined":
            value, label = 0.55, f"{label}<br>({term('by_construction').name})"
        z[i, j], text[i][j] = value, label
    # the measure's name over its signal and variant: one line of all three took a phone's width
    rows = [
        f"{MEASURE_NAMES.get(m, m).split(' (')[0]}<br>{signal_name(s)} · {v}" for m, s, v in keys
    ]
    header = [f"{c}: {MONOTONICITIES[c]}" for c in columns]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,  # "M1".."M4": the full names, rotated, covered each other on a phone
            y=rows,
            text=text,
            customdata=[header for _ in rows],
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale=_SCALE,
            showscale=False,
            hovertemplate="%{y}<br>%{customdata}<br>%{text}<extra></extra>",
            xgap=2,
            ygap=2,
            showlegend=False,
        )
    )
    for name in header:  # the columns' meanings, as legend rows under the table
        fig.add_trace(legend_entry(name, {"color": "rgba(0,0,0,0)"}))
    fig.update_xaxes(side="top")
    fig.update_yaxes(autorange="reversed")
    return style_figure(fig, title, height=max(360, 34 * len(rows) + 260))


def study_figure(directory: Path | str) -> go.Figure:
    """The study's headline figure (``figure.json``): the pass/fail table of the summary in
    ``directory``, read through the one loader."""
    return monotonicity_table(load_summary(directory, IntegrationTables, study=STUDY_NAME).tables)
