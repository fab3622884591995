"""Figures a reader can use without colour (:func:`distinguish`, WCAG 2.1 1.4.1) or without
sight (:func:`text_alternative`, the chart's accessible name, WCAG 2.1 1.1.1).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
"""Line styles given to a figure's line entries in order (plotly's six)."""
SYMBOLS = ("circle", "square", "cross", "x", "star", "hexagon", "pentagon", "hourglass")
"""Marker symbols given to a figure's marker entries in order (no diamond or triangle: the paper's
marks and censored values are drawn with those)."""
PATTERNS = ("", "/", "\\", "x", ".", "+", "-", "|")
ALT_CHARS = 1500
"""The longest text alternative: a screen reader reads it whole, so a long series is summarised."""
LISTED_POINTS = 12
"""A series of at most this many points is read out point by point; a longer one is summarised."""


def _entry(trace: Any) -> str:
    return str(trace.legendgroup or trace.name or id(trace))


def _kind(trace: Any) -> str | None:
    """What tells a trace's legend entry apart: its line, its marker or its bar fill."""
    if trace.type == "bar":
        return "bar"
    if trace.type not in ("scatter", "scattergl"):
        return None
    mode = trace.mode or "lines+markers"
    if "lines" in mode:
        return "line"
    return "marker" if "markers" in mode else None


def _explicit(trace: Any, kind: str) -> Any:
    if kind == "line":
        return trace.line.dash
    if kind == "marker":
        symbol = trace.marker.symbol
        return symbol if isinstance(symbol, str | int) or symbol is None else "array"
    return trace.marker.pattern.shape if trace.marker.pattern else None


def distinguish(fig: go.Figure) -> go.Figure:
    """Give each legend entry of a kind (lines, markers, bars) a style of its own, in place.

    Entries are grouped by ``legendgroup`` (else name); only styles left unset are given, skipping
    the styles other entries set themselves; a figure with one entry of a kind is left as it is.

    >>> fig = go.Figure([go.Scatter(y=[1, 2], mode="lines", name=n) for n in ("A", "B", "C")])
    >>> [t.line.dash for t in distinguish(fig).data]
    ['solid', 'dash', 'dot']
    >>> fig = go.Figure([go.Scatter(y=[1], mode="markers", name="ours"),
    ...                  go.Scatter(y=[1], mode="markers", name="paper",
    ...                             marker_symbol="diamond-open")])
    >>> [t.marker.symbol for t in distinguish(fig).data]
    ['circle', 'diamond-open']
    """
    by_kind: dict[str, dict[str, list[Any]]] = {}
    for trace in fig.data:
        kind = _kind(trace)
        if kind is None:
            continue
        by_kind.setdefault(kind, {}).setdefault(_entry(trace), []).append(trace)
    styles = {"line": DASHES, "marker": SYMBOLS, "bar": PATTERNS}
    for kind, entries in by_kind.items():
        shown = {
            name: traces
            for name, traces in entries.items()
            if any(t.showlegend is not False for t in traces)
        }
        if len(shown) < 2:
            continue
        used = {_explicit(t, kind) for traces in shown.values() for t in traces} - {None}
        free = [s for s in styles[kind] if s not in used] or list(styles[kind])
        unset = [
            traces for traces in shown.values() if all(_explicit(t, kind) is None for t in traces)
        ]
        for i, traces in enumerate(unset):
            style = free[i % len(free)]
            for t in traces:
                if kind == "line":
                    t.line.dash = style
                elif kind == "marker":
                    t.marker.symbol = style
                else:
                    t.marker.pattern.shape = style
    return fig


def plain(text: Any) -> str:
    """Figure text as a reader hears it: plotly's line breaks and tags dropped, entities decoded.

    >>> plain("ROC curve<br>(pooled &amp; <i>binned</i>)")
    'ROC curve (pooled & binned)'
    """
    if text is None:
        return ""
    text = re.sub(r"<br\s*/?>", " ", str(text))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def _number(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return plain(value)
    if not np.isfinite(v):
        return "undefined"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _ticks(fig: go.Figure, axis: str) -> dict[Any, str]:
    """A categorical axis' tick text by its value (``category_axis``: ticks at 0..n-1)."""
    name = axis[0] + "axis" + axis[1:]
    layout_axis = fig.layout[name] if name in fig.layout else None
    if layout_axis is None or layout_axis.tickvals is None or layout_axis.ticktext is None:
        return {}
    return {
        float(v): plain(t) for v, t in zip(layout_axis.tickvals, layout_axis.ticktext, strict=False)
    }


def _values(trace: Any, name: str) -> list[Any]:
    got = getattr(trace, name, None)
    if got is None:
        return []
    return list(np.asarray(got, dtype=object).ravel())


def _series(fig: go.Figure, trace: Any) -> str | None:
    """One trace in words: its name and its points, or a summary of a long series."""
    if trace.type in ("heatmap", "histogram2d", "contour"):
        z = np.asarray(trace.z if trace.z is not None else [], dtype=float)
        if z.size == 0:
            return None
        return (
            f"{plain(trace.name) or 'a heatmap'}: {z.shape[0]} rows by "
            f"{z.shape[-1] if z.ndim > 1 else 1} columns of values from "
            f"{_number(np.nanmin(z))} to {_number(np.nanmax(z))}"
        )
    if trace.type == "table" or not hasattr(trace, "y"):
        return None
    horizontal = getattr(trace, "orientation", None) == "h"
    xs, ys = _values(trace, "x"), _values(trace, "y")
    if trace.type == "histogram":
        data = [v for v in (ys if horizontal else xs) if v is not None]
        if not data:
            return None
        values = np.asarray(data, dtype=float)
        return (
            f"{plain(trace.name) or 'histogram'}: {values.size} values from "
            f"{_number(np.nanmin(values))} to {_number(np.nanmax(values))}, median "
            f"{_number(np.nanmedian(values))}"
        )
    if horizontal:
        xs, ys = ys, xs
    if not ys:
        return None
    if not xs:
        xs = list(range(len(ys)))
    ticks = _ticks(fig, (trace.yaxis or "y") if horizontal else (trace.xaxis or "x"))

    def at(x: Any) -> str:
        """A point's place: its category's name (a mark drawn beside a category, such as the
        paper's diamond, is read as that category's), else its number."""
        try:
            value = float(x)
        except (TypeError, ValueError):
            return plain(x)
        near = min(ticks, key=lambda t: abs(t - value), default=None)
        if near is not None and abs(near - value) < 0.45:
            return ticks[near]
        return _number(x)

    name = plain(trace.name) or trace.type
    pairs = [(x, y) for x, y in zip(xs, ys, strict=False) if y is not None]
    if not pairs:
        return None
    if len(pairs) <= LISTED_POINTS:
        return f"{name}: " + ", ".join(f"{at(x)}: {_number(y)}" for x, y in pairs)
    y = np.asarray([p[1] for p in pairs], dtype=float)
    low, high = int(np.nanargmin(y)), int(np.nanargmax(y))
    return (
        f"{name}: {len(pairs)} points from {at(pairs[0][0])} to {at(pairs[-1][0])}; lowest "
        f"{_number(y[low])} at {at(pairs[low][0])}, highest {_number(y[high])} at "
        f"{at(pairs[high][0])}, last {_number(y[-1])}"
    )


def text_alternative(fig: go.Figure, lead: Sequence[str] = (), limit: int = ALT_CHARS) -> str:
    """The figure as text for a screen reader: ``lead``, the title, the note, the panels' titles,
    the axes and each series' numbers, at most ``limit`` characters.

    >>> fig = go.Figure(go.Bar(x=[0, 1], y=[0.87, 0.5], name="ours"))
    >>> _ = fig.update_layout(title_text="Accuracy<br>by condition", xaxis_title_text="condition")
    >>> _ = fig.update_xaxes(tickvals=[0, 1], ticktext=["intact", "zeroed"])
    >>> text_alternative(fig, ["Zeroing the self-model keeps accuracy."])[:80]
    'Zeroing the self-model keeps accuracy. Chart: Accuracy by condition. Axes: condi'
    >>> text_alternative(fig)
    'Chart: Accuracy by condition. Axes: condition. ours: intact: 0.87, zeroed: 0.5.'
    """
    title = fig.layout.title
    # the page's sentences without their Markdown emphasis (a reader would say the stars)
    parts = [re.sub(r"[*`]", "", s).strip().rstrip(".") + "." for s in lead if s and s.strip()]
    if title and title.text:
        parts.append(f"Chart: {plain(title.text)}.")
    if title and title.subtitle and title.subtitle.text:
        parts.append(f"Note: {plain(title.subtitle.text)}.")
    panels = [
        plain(a.text)
        for a in fig.layout.annotations
        if a.text and a.yanchor == "bottom" and a.showarrow is False and a.yref == "paper"
    ]
    if panels:
        parts.append("Panels: " + "; ".join(panels) + ".")
    axes: list[str] = []
    for name in sorted(fig.layout):
        text = fig.layout[name].title.text if name.startswith(("xaxis", "yaxis")) else None
        if text and plain(text) not in axes:
            axes.append(plain(text))
    if axes:
        parts.append("Axes: " + "; ".join(axes) + ".")
    for trace in fig.data:
        said = _series(fig, trace)
        if said:
            parts.append(said + ".")
    if not fig.data and fig.layout.annotations:  # an empty figure says what is missing
        parts += [plain(a.text) + "." for a in fig.layout.annotations if a.text]
    text = " ".join(parts)
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _panels(fig: go.Figure) -> list[tuple[str, str, tuple[float, float], tuple[float, float]]]:
    """Each panel's x axis, y axis and their domains (axes overlaying another left out); a table
    is ``("trace <i>", "", x domain, y domain)``."""
    out = []
    for name in fig.layout:
        if not name.startswith("xaxis"):
            continue
        x = fig.layout[name]
        if x.overlaying or x.anchor in (None, "free"):
            continue
        yname = "yaxis" + x.anchor[1:]
        if yname not in fig.layout:
            continue
        y = fig.layout[yname]
        out.append((name, yname, tuple(x.domain or (0, 1)), tuple(y.domain or (0, 1))))
    for i, trace in enumerate(fig.data):  # a table beside the axes is a panel too
        if trace.type == "table" and trace.domain is not None:
            xdom, ydom = tuple(trace.domain.x or (0, 1)), tuple(trace.domain.y or (0, 1))
            out.append((f"trace {i}", "", xdom, ydom))
    return out


def panel_columns(fig: go.Figure) -> int:
    """How many panels a figure has side by side (distinct x domains; 1 without subplots).

    >>> from plotly.subplots import make_subplots
    >>> panel_columns(make_subplots(rows=2, cols=3)), panel_columns(go.Figure(go.Bar(y=[1])))
    (3, 1)
    """
    return max(1, len({(round(p[2][0], 3), round(p[2][1], 3)) for p in _panels(fig)}))


STACKED_PANEL_PX = 260
STACKED_GAP_PX = 95
"""Room between two stacked panels: the upper one's tick labels and axis title, the lower one's
title."""


def stacked(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with its side-by-side panels one under another at full width (reading
    order), panel titles, notes and shapes moving with their panel.

    >>> from plotly.subplots import make_subplots
    >>> fig = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    >>> tall = stacked(fig.update_layout(height=400, margin={"t": 60, "b": 60}))
    >>> [tuple(tall.layout[a].domain) for a in ("xaxis", "xaxis2")]
    [(0.0, 1.0), (0.0, 1.0)]
    >>> tall.layout.yaxis.domain[0] > tall.layout.yaxis2.domain[1], tall.layout.height > 400
    (True, True)
    >>> [a.text for a in tall.layout.annotations], [a.x for a in tall.layout.annotations]
    (['left', 'right'], [0.5, 0.5])
    """
    out = go.Figure(fig)
    panels = _panels(out)
    if panel_columns(out) < 2:
        return out
    top, bottom = out.layout.margin.t or 95, out.layout.margin.b or 70
    plot = max((out.layout.height or 460) - top - bottom, 100)
    order = sorted(panels, key=lambda p: (-round(p[3][1], 3), p[2][0]))
    heights = [max(STACKED_PANEL_PX, plot * (p[3][1] - p[3][0])) for p in order]
    total = sum(heights) + STACKED_GAP_PX * (len(order) - 1)
    new: dict[tuple, tuple[tuple[float, float], tuple[float, float]]] = {}
    at = total
    for (xname, yname, xdom, ydom), h in zip(order, heights, strict=True):
        y1, y0 = at / total, (at - h) / total
        at -= h + STACKED_GAP_PX
        new[(xdom, ydom)] = ((0.0, 1.0), (y0, y1))
        if xname.startswith("trace "):
            out.data[int(xname.split()[1])].domain = {"x": (0.0, 1.0), "y": (y0, y1)}
        else:
            out.layout[xname].domain = (0.0, 1.0)
            out.layout[yname].domain = (y0, y1)

    def moved(x: float, y: float) -> tuple[float, float] | None:
        """A point in figure coordinates moved with the panel it sits on or just above."""
        for (xdom, ydom), (nx, ny) in new.items():
            if xdom[0] - 1e-6 <= x <= xdom[1] + 1e-6 and ydom[0] - 1e-6 <= y <= ydom[1] + 0.15:
                fx = (x - xdom[0]) / ((xdom[1] - xdom[0]) or 1)
                fy = (y - ydom[0]) / ((ydom[1] - ydom[0]) or 1)
                return nx[0] + fx * (nx[1] - nx[0]), ny[0] + fy * (ny[1] - ny[0])
        return None

    for a in out.layout.annotations:
        if a.xref == "paper" and a.yref == "paper" and a.x is not None and a.y is not None:
            if (to := moved(float(a.x), float(a.y))) is not None:
                a.x, a.y = to
    for s in out.layout.shapes:
        if s.xref == "paper" and s.yref == "paper" and None not in (s.x0, s.x1, s.y0, s.y1):
            lo, hi = moved(float(s.x0), float(s.y0)), moved(float(s.x1), float(s.y1))
            if lo is not None and hi is not None:
                (s.x0, s.y0), (s.x1, s.y1) = lo, hi
    out.update_layout(height=round(top + bottom + total))
    return out
