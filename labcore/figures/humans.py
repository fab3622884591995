"""People beside the agents, and a data set's people by condition ("Your data" and "Be the
agent" pages).

Neither source states a range of people's AUROC or M-ratio, so no band of values is drawn; the
band of trials (Rahnev 2025: at least 100, 400 for individual differences) says how much a point
can be trusted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from labcore.config import CHANCE_E1
from labcore.figures.style import (
    PALETTE,
    add_note,
    color_of,
    escape_plotly,
    rgba,
    seed_line,
    side_by_side,
    style_figure,
)
from labcore.humans.datasets import GroupLine
from labcore.humans.markers import SubjectMarkers
from labcore.humans.reference import trial_band

PANELS = (("type2_auroc", "Type-2 AUROC"), ("m_ratio", "M-ratio (meta-d' / d')"))
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "star")
TICKS = (10, 20, 50, 100, 200, 400, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
"""Labelled trial counts of the log axis (the band's 100 and 400 among them)."""


def beside_agents_figure(
    groups: Mapping[str, Sequence[SubjectMarkers]],
    *,
    colours: Mapping[str, str] | None = None,
    title: str = "You and the agents: how well confidence tells right from wrong",
) -> go.Figure:
    """Type-2 AUROC and M-ratio of every group's subjects against their trials (log axis), with the
    band of recommended trials; undefined values are counted in a note.

    >>> you = SubjectMarkers(subject="you", n_trials=50, accuracy=0.8, type2_auroc=0.7, m_ratio=0.9)
    >>> fig = beside_agents_figure({"you": [you]})
    >>> [t.name for t in fig.data], [float(t.y[0]) for t in fig.data]
    (['you', 'you'], [0.7, 0.9])
    """
    low, high = trial_band()
    fig = side_by_side(*(name for _, name in PANELS))
    undefined = 0
    counts = [m.n_trials for ms in groups.values() for m in ms]
    least = min([low, *counts]) / 1.6
    most = max([high, *counts]) * 1.6
    for i, (label, markers) in enumerate(groups.items()):
        colour = (colours or {}).get(label) or color_of(label)
        for col, (field, name) in enumerate(PANELS, start=1):
            shown = [m for m in markers if getattr(m, field) is not None]
            undefined += len(markers) - len(shown)
            fig.add_trace(
                go.Scatter(
                    x=[m.n_trials for m in shown],
                    y=[getattr(m, field) for m in shown],
                    mode="markers",
                    name=escape_plotly(label),
                    legendgroup=label,
                    showlegend=col == 1,
                    marker={
                        "color": colour,
                        "size": 12 if i == 0 else 10,
                        "symbol": SYMBOLS[i % len(SYMBOLS)],
                        "line": {"width": 1, "color": "#333"},
                    },
                    customdata=[escape_plotly(m.subject) for m in shown],
                    hovertemplate=f"%{{customdata}}<br>{name} %{{y:.3f}}<br>%{{x}} trials"
                    "<extra></extra>",
                ),
                row=1,
                col=col,
            )
    for col in (1, 2):
        for x0, x1, alpha in ((low, high, 0.12), (high, most, 0.05)):
            fill = rgba(PALETTE["registered"], alpha)
            fig.add_vrect(x0=x0, x1=x1, fillcolor=fill, line_width=0, layer="below", row=1, col=col)
        fig.update_xaxes(
            type="log",
            range=[math.log10(least), math.log10(most)],
            tickvals=[t for t in TICKS if least <= t <= most],
            title_text="trials per person",
            row=1,
            col=col,
        )
    _style(fig, title)
    add_note(
        fig,
        f"shaded: at least {low} trials per person (Rahnev 2025), lighter: {high}+ for individual "
        "differences",
    )
    if undefined:
        add_note(fig, f"{undefined} undefined value(s) not drawn")
    return fig


def recoloured(fig: go.Figure, colours: Mapping[str, str]) -> go.Figure:
    """``fig`` with the traces named in ``colours`` drawn in those colours (markers and lines).

    >>> fig = recoloured(go.Figure(go.Scatter(name="you", x=[0], y=[0])), {"you": "#e6a117"})
    >>> fig.data[0].marker.color, fig.data[0].line.color
    ('#e6a117', '#e6a117')
    """
    for trace in fig.data:
        if trace.name in colours:
            trace.update(marker_color=colours[trace.name], line_color=colours[trace.name])
    return fig


def group_label(line: GroupLine, several: bool) -> str:
    """A group's column name: its condition, with its data set when there are several.

    >>> from labcore.humans.datasets import GroupStat
    >>> none = GroupStat(n=0)
    >>> line = GroupLine(dataset="a.csv", condition="TMS", n_subjects=0, n_few_trials=0,
    ...                  n_unmeasured=0, min_trials=100, seed=0, type2_auroc=none, m_ratio=none)
    >>> group_label(line, False), group_label(line, True)
    ('TMS', 'a.csv, TMS')
    """
    if line.condition is None:
        return line.dataset
    return f"{line.dataset}, {line.condition}" if several else line.condition


def group_figure(
    markers: Sequence[SubjectMarkers],
    lines: Sequence[GroupLine],
    *,
    title: str = "Each person by condition, and the group",
) -> go.Figure:
    """Type-2 AUROC and M-ratio of every person, one column per group line, with its mean and
    bootstrap interval (diamond) and its median (dash); people left out for few trials hollow.

    >>> from labcore.humans.datasets import GroupStat
    >>> a = SubjectMarkers(dataset="d", subject="1", condition="A", n_trials=120, accuracy=0.8,
    ...                    type2_auroc=0.7, m_ratio=0.9)
    >>> stat = GroupStat(n=1, mean=0.7, median=0.7)
    >>> line = GroupLine(dataset="d", condition="A", n_subjects=1, n_few_trials=0, n_unmeasured=0,
    ...                  min_trials=100, seed=0, type2_auroc=stat, m_ratio=stat)
    >>> fig = group_figure([a], [line])
    >>> [t.name for t in fig.data if t.showlegend]
    ['people', 'fewer trials: left out', 'group mean, 95% interval', 'group median']
    """
    several = len({line.dataset for line in lines}) > 1
    column = {(line.dataset, line.condition): i for i, line in enumerate(lines)}
    people = [m for m in markers if (m.dataset, m.condition) in column]
    who = list(dict.fromkeys((m.dataset, m.subject) for m in people))
    spread = {p: -0.25 + 0.45 * k / max(1, len(who) - 1) for k, p in enumerate(who)}
    fig = side_by_side(*(name for _, name in PANELS))
    for col, (field, name) in enumerate(PANELS, start=1):
        joined_x: list[float | None] = []
        joined_y: list[float | None] = []
        for person in who:
            mine = [m for m in people if (m.dataset, m.subject) == person]
            mine = sorted(
                (m for m in mine if getattr(m, field) is not None),
                key=lambda m: column[(m.dataset, m.condition)],
            )
            joined_x += [column[(m.dataset, m.condition)] + spread[person] for m in mine] + [None]
            joined_y += [getattr(m, field) for m in mine] + [None]
        fig.add_trace(
            seed_line(
                joined_x,
                joined_y,
                PALETTE["chance"],
                0.35,
                name="a person's conditions",
                hoverinfo="skip",
            ),
            row=1,
            col=col,
        )
        least = {(line.dataset, line.condition): line.min_trials for line in lines}
        for counted, label in ((True, "people"), (False, "fewer trials: left out")):
            shown = [
                m
                for m in people
                if getattr(m, field) is not None
                and (m.n_trials >= least[(m.dataset, m.condition)]) == counted
            ]
            fig.add_trace(
                go.Scatter(
                    x=[
                        column[(m.dataset, m.condition)] + spread[(m.dataset, m.subject)]
                        for m in shown
                    ],
                    y=[getattr(m, field) for m in shown],
                    mode="markers",
                    name=label,
                    legendgroup=label,
                    showlegend=col == 1,
                    marker={
                        "color": PALETTE["registered"] if counted else "white",
                        "size": 9,
                        "line": {"width": 1.5, "color": PALETTE["registered"]},
                    },
                    customdata=[escape_plotly(m.subject) for m in shown],
                    hovertemplate=f"%{{customdata}}<br>{name} %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
        stats = [getattr(line, field) for line in lines]
        centre = [i + 0.35 for i in range(len(lines))]
        fig.add_trace(
            go.Scatter(
                x=centre,
                y=[s.mean for s in stats],
                mode="markers",
                name="group mean, 95% interval",
                legendgroup="mean",
                showlegend=col == 1,
                marker={"color": PALETTE["paper"], "size": 12, "symbol": "diamond"},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [_above(s.mean, s.mean_high) for s in stats],
                    "arrayminus": [_above(s.mean_low, s.mean) for s in stats],
                    "color": PALETTE["paper"],
                },
                hovertemplate=f"mean {name} %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=centre,
                y=[s.median for s in stats],
                mode="markers",
                name="group median",
                legendgroup="median",
                showlegend=col == 1,
                marker={
                    "color": PALETTE["paper"],
                    "size": 20,
                    "symbol": "line-ew",
                    "line": {"width": 3, "color": PALETTE["paper"]},
                },
                hovertemplate=f"median {name} %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(
            tickvals=list(range(len(lines))),
            ticktext=[escape_plotly(group_label(line, several)) for line in lines],
            range=[-0.6, len(lines) - 0.4],
            row=1,
            col=col,
        )
    _style(fig, title)
    if lines:
        add_note(
            fig,
            f"hollow: fewer than {lines[0].min_trials} trials, left out of the group; interval: "
            "bootstrap over people",
        )
    return fig


def _style(fig: go.Figure, title: str) -> None:
    """Both panels' reference lines (chance AUROC, M-ratio 1), axis titles and house style."""
    fig.add_hline(y=CHANCE_E1, line={"dash": "dash", "color": PALETTE["chance"]}, row=1, col=1)
    fig.add_hline(y=1.0, line={"dash": "dot", "color": PALETTE["chance"]}, row=1, col=2)
    fig.update_yaxes(title_text="Type-2 AUROC (0.5 = no insight)", row=1, col=1)
    fig.update_yaxes(title_text="M-ratio (1 = meta-d' equals d')", row=1, col=2)
    style_figure(fig, title, height=440)


def _above(low: float | None, high: float | None) -> float | None:
    """The length of an error bar from ``low`` to ``high`` (None when either is undefined)."""
    return None if low is None or high is None else high - low
