"""The class's votes on a question, beside the lab's answer (drawn only once revealed, so the
projector does not hint at it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from labcore.figures.style import escape_plotly, style_figure

NEUTRAL = "#0072B2"
LAB = "#009E73"
OTHER = "#bdbdbd"


def class_votes_figure(
    choices: Sequence[str],
    counts: Mapping[str, int],
    *,
    letters: Sequence[str],
    lab_choice: int | None = None,
    revealed: bool = False,
    title: str = "Your class's answers",
) -> go.Figure:
    """The class's votes, one horizontal bar per choice (first at the top).

    >>> fig = class_votes_figure(["Stays", "Falls"], {"B": 3}, letters="AB", lab_choice=1,
    ...                          revealed=True)
    >>> list(fig.data[0].x), list(fig.data[0].marker.color), list(fig.data[0].y)
    ([0, 3], ['#bdbdbd', '#009E73'], ['A', "B (the lab's answer)"])
    """
    if len(letters) < len(choices):
        raise ValueError("every choice needs a letter")
    x = [int(counts.get(letters[i], 0)) for i in range(len(choices))]
    show_lab = revealed and lab_choice is not None and 0 <= lab_choice < len(choices)
    # letters on the axis (the choices' texts are beside the chart, and hover); the lab's answer
    # named on its own tick, so the chart reads in a narrow column and in grey print
    names = [
        f"{letters[i]} (the lab's answer)" if show_lab and i == lab_choice else letters[i]
        for i in range(len(choices))
    ]
    hover = [escape_plotly(c) for c in choices]
    colours = [
        (LAB if i == lab_choice else OTHER) if show_lab else NEUTRAL for i in range(len(choices))
    ]
    fig = go.Figure(
        go.Bar(
            x=x,
            y=names,
            orientation="h",
            marker={"color": colours},
            text=[str(v) for v in x],
            textposition="outside",
            cliponaxis=False,
            customdata=hover,
            hovertemplate="%{y}. %{customdata}: %{x} student(s)<extra></extra>",
            showlegend=False,
        )
    )
    total = sum(x)
    fig.update_yaxes(autorange="reversed", title_text="")
    fig.update_xaxes(
        title_text="students",
        range=[0, max(1, max(x, default=0)) * 1.25],
        dtick=1 if max(x, default=0) <= 10 else None,
        rangemode="tozero",
    )
    fig = style_figure(
        fig, f"{title} ({total} so far)", height=85 + 34 * len(choices), legend_below=False
    )
    return fig.update_layout(margin={"t": 40, "b": 45})  # compact: a step fits one screen
