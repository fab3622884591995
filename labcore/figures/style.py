"""The house style of every figure: palette, names, layout and the shared styling helpers.

Ours is drawn as the mean +/- SD over seeds with every seed as a dot; the paper's value (from
:data:`labcore.paper_claims.CLAIMS_BY_ID`) as a hollow black diamond, a bound as a hollow
triangle; chance levels as dashed lines. A missing input never raises: the builder returns
:func:`empty_figure`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labcore.figures.access import distinguish
from labcore.paper import PaperValue
from labcore.paper_claims import CLAIMS_BY_ID
from labcore.render import chance, chance_text

E1_CONDITIONS = ("self_on", "self_off", "bus_off", "blind_noise", "blind_permute")
CAPACITY_KEYS = ("k4", "k3", "k2", "k1", "k0")

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
"""Okabe & Ito's colours, told apart with every common colour-vision deficiency (Wong 2011, Nature
Methods 8:441); yellow only as a fill or an outlined marker."""
GREYS = ("#111111", "#333333", "#555555", "#7f7f7f", "#888888", "#bdbdbd", "#e0e0e0", "#f4f4f4")

_OI = OKABE_ITO
PALETTE: dict[str, str] = {
    # E1 conditions (paper Fig. 1: self-on green, self-removed red)
    "self_on": _OI["bluish green"],
    "self_off": _OI["vermillion"],
    "bus_off": "#7f7f7f",
    "blind_noise": _OI["reddish purple"],
    "blind_permute": _OI["sky blue"],
    # agent kinds (more kinds than colours: a figure also names each, :func:`distinguish`)
    "a0": _OI["orange"],
    "a1": _OI["reddish purple"],
    "b1": _OI["blue"],
    "b1_reg": _OI["sky blue"],
    "b1_noise": _OI["black"],
    "b2": _OI["vermillion"],
    "b2_ws": _OI["bluish green"],
    "hot_only": _OI["yellow"],
    "bc_linear": _OI["sky blue"],
    "bc_mlp": _OI["reddish purple"],
    "bc_random": _OI["orange"],
    # E4 arms: the supervised arm is E1's agent (b2_ws's colour)
    "supervised": _OI["bluish green"],
    "reward_wager": _OI["vermillion"],
    "reward_wager_risky": _OI["orange"],
    "reward_workspace": _OI["reddish purple"],
    "reward_logits": _OI["yellow"],
    "reward_all": _OI["black"],
    # E4 again: blues and greens, apart from the first cells' oranges
    "reward_late": _OI["blue"],
    "reward_late_risky": _OI["sky blue"],
    "reward_late_uncentred": _OI["bluish green"],
    "reward_late_uncentred_sgd": "#7f7f7f",
    # workspace capacity (B1): full capacity is B1's own colour, bus-off grey
    "k4": _OI["blue"],
    "k3": _OI["sky blue"],
    "k2": _OI["bluish green"],
    "k1": _OI["orange"],
    "k0": "#7f7f7f",
    # E1 logits control
    "zself": _OI["bluish green"],
    "logits_max_softmax": _OI["orange"],
    "logits_neg_entropy": _OI["vermillion"],
    # outcomes and reference marks
    "correct": _OI["bluish green"],
    "error": _OI["vermillion"],
    "paper": "#111111",
    "chance": "#888888",
    "registered": _OI["blue"],
    "exploratory": _OI["orange"],
}

LABELS: dict[str, str] = {
    "self_on": "self-model on",
    "self_off": "self-model zeroed",
    "bus_off": "workspace off (self-model on)",
    "blind_noise": "self-model replaced by noise",
    "blind_permute": "self-model shuffled across trials",
    "a0": "A0 (feed-forward)",
    "a1": "A1 (recurrent)",
    "b1": "B1 (workspace, GWT)",
    "b1_reg": "B1 + dropout/weight decay",
    "b1_noise": "B1 + noise training",
    "b2": "B2 (policy reads the self-model)",
    "b2_ws": "B2 workspace-read, self-model off",
    "hot_only": "HOT-only (no workspace)",
    "bc_linear": "BC-only linear",
    "bc_mlp": "BC-only MLP",
    "bc_random": "BC-only random projection",
    "supervised": "supervised (correctness labels)",
    "reward_wager": "reward only, wager learned from the start",
    "reward_wager_risky": "reward only, from the start, a wrong bet costs 3",
    "reward_workspace": "reward, confidence reads the workspace only",
    "reward_logits": "reward, confidence reads the policy's logits only",
    "reward_all": "reward only, no imitation at all",
    "reward_late": "reward only, wager learned after the policy",
    "reward_late_risky": "reward only, after the policy, a wrong bet costs 3",
    "reward_late_uncentred": "reward only, after the policy, raw self-model features",
    "reward_late_uncentred_sgd": "reward only, after the policy, raw features, SGD",
    # networks on NeuroGym's post-decision wager (protocol 8.6-8.7)
    "plain_gru": "Song et al.'s network (a plain GRU)",
    "b2_ws.neurogym": "our B2 agent (workspace + self-model)",
    "ideal_observer": "ideal observer",
    "k4": "4 slots",
    "k3": "3 slots",
    "k2": "2 slots",
    "k1": "1 slot",
    "k0": "bus off (0 slots)",
    "zself": "confidence head (reads the self-model)",
    "logits_max_softmax": "logits: max softmax",
    "logits_neg_entropy": "logits: negative entropy",
}

_FALLBACK_COLOURS = tuple(c for name, c in OKABE_ITO.items() if name != "yellow")
TEMPLATE = "plotly_white"
FONT = {"family": "Helvetica, Arial, sans-serif", "size": 14}
OURS = "ours (mean ± SD over seeds)"
NOT_AVAILABLE = "Not available"
SEEDS = "seeds"
PAPER = "paper"
PAPER_BOUND = "paper (lower bound)"
PAPER_MARKER = {
    "symbol": "diamond-open",
    "size": 14,
    "color": PALETTE["paper"],
    "line": {"width": 2.5},
}
JITTER = 0.14
PAPER_OFFSET = 0.34
UNITS_SIGMA = "noise SD σ (units of the slot's own SD)"


def color_of(key: str) -> str:
    """Colour of a key of :data:`PALETTE`; a stable fallback otherwise.

    >>> color_of("b1")
    '#0072B2'
    >>> color_of("something new") == color_of("something new")
    True
    """
    if key in PALETTE:
        return PALETTE[key]
    return _FALLBACK_COLOURS[sum(map(ord, str(key))) % len(_FALLBACK_COLOURS)]


def network_label(agent: str) -> str:
    """Display name of a network trained on NeuroGym's post-decision wager.

    >>> network_label("plain_gru"), network_label("b2_ws")
    ("Song et al.'s network (a plain GRU)", 'our B2 agent (workspace + self-model)')
    """
    return LABELS.get(f"{agent}.neurogym", LABELS.get(agent, str(agent)))


def label_of(key: str) -> str:
    """Display name of a key (the key itself if it has none).

    >>> label_of("b2"), label_of("mine")
    ('B2 (policy reads the self-model)', 'mine')
    """
    return LABELS.get(key, str(key))


def paper_of(claim_id: str) -> PaperValue | None:
    """The paper's value of a claim (None without one)."""
    spec = CLAIMS_BY_ID.get(claim_id)
    if spec is None or spec.paper.value is None:
        return None
    return spec.paper


def escape_plotly(text: str) -> str:
    """Neutralise plotly's pseudo-HTML in free text (tags and entities shown literally)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def empty_figure(title: str, message: str) -> go.Figure:
    """A figure with no data and a visible note saying what is missing.

    >>> fig = empty_figure("Fig. 2a", "no E2 results")
    >>> fig.layout.annotations[0].text
    'Not available: no E2 results'
    """
    fig = go.Figure()
    fig.add_annotation(
        text=f"{NOT_AVAILABLE}: {message}",
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        showarrow=False,
        font={"size": 16, "color": "#666"},
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    style_figure(fig, title, height=260)
    return fig


TITLE_WIDTH = 58
"""Characters per title line: a half-width column on a laptop; plotly itself never wraps."""
NOTE_WIDTH, TICK_WIDTH = 80, 18
_TITLE_LINE, _NOTE_LINE, _TOP_TEXT_LINE = 22, 17, 19
_CARTESIAN = {"bar", "scatter", "scattergl", "heatmap", "histogram", "box", "violin"}


def _lines(text: str | None) -> int:
    return 0 if not text else str(text).count("<br>") + 1


def _top_margin(fig: go.Figure) -> int:
    """The top margin that holds the title, its note and any text on top of the top plot area
    (subplot titles)."""
    title = fig.layout.title
    note = title.subtitle.text if title and title.subtitle else None
    top = max([ax.domain[1] for ax in fig.select_yaxes() if ax.domain] or [1.0])
    above = max(
        (
            _lines(a.text)
            for a in fig.layout.annotations
            if a.yref == "paper" and a.yanchor == "bottom" and a.y is not None and a.y >= top - 1e-9
        ),
        default=0,
    )
    return (
        40
        + _TITLE_LINE * max(_lines(title.text if title else None), 1)
        + (_NOTE_LINE * _lines(note) + 6 if note else 0)
        + (_TOP_TEXT_LINE * above + 8 if above else 18)
    )


def style_figure(
    fig: go.Figure, title: str, height: int = 460, legend_below: bool = True
) -> go.Figure:
    """House layout: white template, title top left (wrapped), legend under the axes, each legend
    entry told apart by more than its colour (:func:`labcore.figures.access.distinguish`).

    The margins stack the title, its note and subplot titles and hold the legend; ``height`` is that
    of a figure with a one-line title, so the plot area keeps its size.
    """
    entries = len(
        {
            t.legendgroup or t.name
            for t in fig.data
            if t.type != "table" and t.showlegend is not False
        }
    )
    title = wrap_title(title)
    rows = math.ceil(entries / 3) if legend_below and entries else 0
    bottom = 120 + 24 * rows if legend_below and entries else 70
    fig.update_layout(
        template=TEMPLATE,
        title={
            "text": title,
            "x": 0.01,
            "xanchor": "left",
            "font": {"size": 17},
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
            "pad": {"t": 24},
        },
        font=FONT,
        margin={"l": 80, "r": 30, "b": bottom},
        hoverlabel={"font_size": 13},
    )
    top = _top_margin(fig)
    fig.update_layout(margin_t=top, height=height + (bottom - 70) + (top - 40 - _TITLE_LINE - 18))
    if any(t.type in _CARTESIAN for t in fig.data):
        fig.update_xaxes(automargin=True)
        fig.update_yaxes(automargin=True)
    if legend_below:
        fig.update_layout(
            legend={
                "orientation": "h",
                "yref": "container",
                "yanchor": "bottom",
                "y": 0.0,
                "xanchor": "left",
                "x": 0.0,
                "font": {"size": 12},
            }
        )
    fit_ranges(fig)
    return distinguish(fig)


def fit_ranges(fig: go.Figure, pad: float = 0.04) -> go.Figure:
    """Widen every fixed linear y-axis range to hold each plotted value (a fixed 0.3-1 AUROC axis
    would hide a reward-trained agent's 0.18). Error bars count; ``pad`` is a share of the span.

    >>> fig = go.Figure(go.Scatter(x=[0, 1], y=[0.18, 0.9])).update_yaxes(range=[0.3, 1.02])
    >>> [round(v, 3) for v in fit_ranges(fig).layout.yaxis.range]
    [0.146, 1.02]
    """
    found: dict[str, list[float]] = {}
    number = lambda v: pd.to_numeric(pd.Series(list(v)), errors="coerce").to_numpy(float)  # noqa: E731
    for trace in fig.data:
        if getattr(trace, "y", None) is None or trace.type not in _CARTESIAN - {
            "heatmap",
            "histogram",
        }:
            continue
        values, error = number(trace.y), getattr(trace, "error_y", None)
        if error is not None and error.visible is not False and error.array is not None:
            spread = np.resize(number(error.array), values.size)
            values = np.concatenate([values, values + spread, values - spread])
        found.setdefault("yaxis" + (trace.yaxis or "y")[1:], []).extend(
            values[np.isfinite(values)].tolist()
        )
    for axis, values in found.items():
        shown = fig.layout[axis].range
        if (
            not values
            or shown is None
            or None in shown
            or fig.layout[axis].type not in (None, "-", "linear")
        ):
            continue
        (low, high), span = sorted(shown), (max(*shown, *values) - min(*shown, *values)) * pad
        new = [min(low, min(values) - span), max(high, max(values) + span)]
        new = [low if min(values) >= low else new[0], high if max(values) <= high else new[1]]
        if new != [low, high]:
            fig.layout[axis].range = new if shown[0] <= shown[1] else new[::-1]
    return fig


def wrap_title(text: str, width: int = TITLE_WIDTH) -> str:
    """Break a long title at word boundaries (plotly does not wrap; half-width columns clip).

    >>> wrap_title("Fig. 2a: conjunction accuracy by workspace capacity")  # 51 characters: one line
    'Fig. 2a: conjunction accuracy by workspace capacity'
    """
    if len(text) <= width or "<br>" in text:
        return text
    return "<br>".join(_word_lines(text, width))


def _word_lines(text: str, width: int) -> list[str]:
    """``text`` cut at spaces into lines of at most ``width`` characters (a longer word alone)."""
    words = " ".join(text.split())
    return textwrap.wrap(words, width, break_long_words=False, break_on_hyphens=False) or [""]


def add_note(fig: go.Figure, text: str) -> None:
    """Add a short caveat under the figure title (plotly subtitle), wrapped; on a styled figure the
    top margin and height grow by its lines.
    """
    old = fig.layout.title.subtitle.text if fig.layout.title and fig.layout.title.subtitle else None
    joined = f"{old.replace('<br>', ' ')}; {text}" if old else text
    fig.update_layout(
        title_subtitle_text=wrap_title(joined, NOTE_WIDTH),
        title_subtitle_font={"size": 12, "color": "#a33"},
    )
    if fig.layout.margin.t is not None and fig.layout.height is not None:
        top = _top_margin(fig)
        fig.update_layout(height=fig.layout.height + top - fig.layout.margin.t, margin_t=top)


def chance_line(
    fig: go.Figure,
    y: float,
    text: str,
    *,
    row: int | None = None,
    col: int | None = None,
) -> None:
    """A dashed horizontal reference line (chance, threshold) with its label."""
    kwargs = {"row": row, "col": col} if row is not None else {}
    fig.add_hline(
        y=y,
        line={"dash": "dash", "color": PALETTE["chance"], "width": 1.5},
        annotation_text=text,
        annotation_position="top right",
        annotation_font={"size": 11, "color": "#666"},
        **kwargs,
    )


def chance_level_line(
    fig: go.Figure, name: str, *, row: int | None = None, col: int | None = None
) -> None:
    """The dashed line of a chance level of :data:`labcore.config.CHANCE_LEVELS` (``"decision"``,
    ``"conjunction"``, ``"wager"``, ``"auroc"``), labelled with its words."""
    chance_line(fig, chance(name).value, chance_text(name), row=row, col=col)


def has_columns(df: Any, columns: Iterable[str]) -> bool:
    """True if ``df`` is a non-empty DataFrame holding all ``columns``."""
    return isinstance(df, pd.DataFrame) and not df.empty and set(columns) <= set(df.columns)


def category_axis(fig: go.Figure, names: Sequence[str], **rc: Any) -> None:
    """Categorical x ticks at 0..n-1 with wrapped labels."""
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(len(names))),
        ticktext=[wrap_tick(n) for n in names],
        range=[-0.6, len(names) - 0.4],
        **rc,
    )


def wrap_tick(text: str, width: int = TICK_WIDTH) -> str:
    """Break a tick label into lines of about ``width`` characters (plotly ``<br>``); line
    breaks already in the label are kept.

    >>> wrap_tick("composite<br>(leave-one-out r)")
    'composite<br>(leave-one-out r)'
    >>> wrap_tick("B2 workspace-read, self-model off")
    'B2 workspace-read,<br>self-model off'
    """
    return "<br>".join(
        line for part in str(text).split("<br>") for line in _word_lines(part, width)
    )


def rgba(hex_colour: str, alpha: float) -> str:
    """``'#1f77b4', 0.2 -> 'rgba(31,119,180,0.2)'``."""
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def sigma_axis(fig: go.Figure) -> None:
    """The y axis of an L75 panel: noise SD in units of the slot's own SD."""
    fig.update_yaxes(title_text=f"L75: {UNITS_SIGMA}", rangemode="tozero", row=1, col=1)
    fig.update_xaxes(tickfont={"size": 11})


VERDICT_COLOURS = {
    "reproduced": "#d4edda",
    "partly reproduced": "#fff3cd",
    "not reproduced": "#f8d7da",
    "not comparable": "#e2e3e5",
}


def side_by_side(*titles: str, **kwargs: Any) -> go.Figure:
    """One row of panels, one per subplot title (``kwargs`` to :func:`make_subplots`)."""
    return make_subplots(rows=1, cols=len(titles), subplot_titles=titles, **kwargs)


def one_above_another(*titles: str, **kwargs: Any) -> go.Figure:
    """One column of panels sharing the x axis, one per subplot title."""
    return make_subplots(
        rows=len(titles), cols=1, shared_xaxes=True, subplot_titles=titles, **kwargs
    )


def styled_table(
    header: Sequence[str], columns: Sequence[Sequence[Any]], widths: Sequence[float], **cells: Any
) -> go.Table:
    """A table in the house style: bold headers on pale blue, left-aligned 12 px cells
    (``cells``: more of plotly's cell settings, such as ``height`` and ``fill_color``)."""
    return go.Table(
        columnwidth=list(widths),
        header={
            "values": [f"<b>{h}</b>" for h in header],
            "fill_color": "#e8eef7",
            "align": "left",
            "font": {"size": 13},
        },
        cells={"values": list(columns), "align": "left", "font": {"size": 12}, **cells},
    )


def legend_entry(name: str, marker: dict[str, Any]) -> go.Scatter:
    """A legend row that draws nothing: says what a heatmap's colours or columns mean."""
    return go.Scatter(
        x=[None], y=[None], mode="markers", name=name, marker=marker, hoverinfo="skip"
    )


def seed_line(x: Any, y: Any, colour: str, alpha: float = 0.3, **kwargs: Any) -> go.Scatter:
    """A thin, faded line out of the legend: one seed under the mean, one person."""
    line = {"color": rgba(colour, alpha), "width": 1, **kwargs.pop("line", {})}
    return go.Scatter(x=x, y=y, mode="lines", showlegend=False, line=line, **kwargs)
